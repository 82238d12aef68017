//! Launch arguments: a file declares them in its `[arg]` table, with or without a default;
//! `tacto launch FILE name:=value` gives their values (as `ros2 launch` does), an `[[include]]`
//! gives an included file's; `$(var name)` in any string of the file is replaced by the value,
//! and `$(env NAME)` by an environment variable's, as launch's substitutions of those names.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::file::{LaunchFileError, SourceFile};

/// The longest launch argument value, so that a substitution cannot grow the file without
/// bound.
const MAX_VALUE: usize = 4096;

/// The first pass over a file: its `[arg]` table only (the rest is read once substituted).
#[derive(Deserialize)]
struct Declarations {
    arg: Option<BTreeMap<String, Spanned<toml::Value>>>,
}

/// Splits `NAME:=VALUE` command-line arguments, refusing anything else.
///
/// # Examples
/// ```
/// use tacto_launch::args::from_command_line;
///
/// let given = from_command_line(&["robot:=r2".into(), "rate:=10".into()]).unwrap();
/// assert_eq!(given["robot"], "r2");
/// assert!(from_command_line(&["robot=r2".into()]).unwrap_err().contains("NAME:=VALUE"));
/// ```
pub fn from_command_line(args: &[String]) -> Result<BTreeMap<String, String>, String> {
    let mut given = BTreeMap::new();
    for arg in args {
        let Some((name, value)) = arg.split_once(":=") else {
            return Err(format!("launch argument {arg:?}: give NAME:=VALUE"));
        };
        if !is_argument_name(name) {
            return Err(format!(
                "launch argument {arg:?}: {name:?} is not a name (letters, digits, '_')"
            ));
        }
        if given.insert(name.to_owned(), value.to_owned()).is_some() {
            return Err(format!("launch argument {name:?} is given twice"));
        }
    }
    Ok(given)
}

/// A file's text after substitution, and where a TOML string was one substitution whole
/// (`"$(var rate)"`): a parameter value there is typed from the value, as launch_ros reads a
/// substituted parameter value as YAML (`"$(var rate)"` with rate `10` is the integer 10).
#[derive(Debug, Clone, Default)]
pub(super) struct Substituted {
    /// The text.
    pub text: String,
    /// The offsets in `text` of the opening quotes of strings that were one substitution.
    pub whole: Vec<usize>,
}

/// The text of `source` with every `$(var NAME)` and `$(env NAME)` replaced: `given` values
/// over the `[arg]` table's defaults. Refused, with the line: an argument given that the file
/// does not declare, a declared one without default that is not given, a `$(var)` of an
/// undeclared one, an unset environment variable, a value that would break the string it lands
/// in.
pub(super) fn substitute(
    source: &SourceFile<'_>,
    given: &BTreeMap<String, String>,
) -> Result<Substituted, LaunchFileError> {
    let declarations: Declarations = toml::from_str(source.text).map_err(|e| source.syntax(&e))?;
    let declared = declarations.arg.unwrap_or_default();
    let mut values = BTreeMap::new();
    for (name, entry) in &declared {
        if !is_argument_name(name) {
            return Err(source.invalid(
                entry.span(),
                format!("arg: {name:?} is not a name (letters, digits, '_')"),
            ));
        }
        let default = default_of(entry.get_ref())
            .map_err(|reason| source.invalid(entry.span(), format!("arg: {name}: {reason}")))?;
        match given.get(name).cloned().or(default) {
            Some(value) => {
                check_value(&value).map_err(|reason| {
                    source.invalid(entry.span(), format!("arg: {name}: {reason}"))
                })?;
                values.insert(name.as_str(), value);
            }
            None => {
                return Err(source.invalid(
                    entry.span(),
                    format!("arg: {name} has no default: give {name}:=VALUE"),
                ));
            }
        }
    }
    if let Some(name) = given.keys().find(|n| !declared.contains_key(*n)) {
        return Err(LaunchFileError::Argument {
            path: source.path.to_owned(),
            reason: format!(
                "argument {name:?} is given but not declared (the file's [arg] table has: {})",
                list(declared.keys())
            ),
        });
    }
    let text = source.text;
    let mut out = String::with_capacity(text.len());
    let mut whole = Vec::new();
    let mut rest = 0;
    while let Some(found) = text[rest..].find("$(") {
        let start = rest + found;
        let Some(len) = text[start..].find(')') else {
            return Err(source.invalid(
                start..start + 2,
                "a substitution \"$(\" is not closed by \")\"".into(),
            ));
        };
        let span = start..start + len + 1;
        let inner = &text[start + 2..start + len];
        let value = match inner.split_whitespace().collect::<Vec<_>>()[..] {
            ["var", name] => values.get(name).cloned().ok_or_else(|| {
                source.invalid(
                    span.clone(),
                    format!(
                        "$(var {name}): no argument {name:?} is declared (the file's [arg] \
                         table has: {})",
                        list(declared.keys())
                    ),
                )
            })?,
            ["env", name] => std::env::var(name).map_err(|_| {
                source.invalid(
                    span.clone(),
                    format!("$(env {name}): the environment has no {name}"),
                )
            })?,
            _ => {
                return Err(source.invalid(
                    span,
                    format!(
                        "$({inner}): not a substitution tacto launch has: give $(var NAME) or \
                         $(env NAME)"
                    ),
                ));
            }
        };
        check_value(&value).map_err(|reason| source.invalid(span.clone(), reason))?;
        out.push_str(&text[rest..start]);
        if text[..start].ends_with('"') && text[span.end..].starts_with('"') {
            whole.push(out.len() - 1);
        }
        out.push_str(&value);
        rest = span.end;
    }
    out.push_str(&text[rest..]);
    Ok(Substituted { text: out, whole })
}

/// An `[arg]` entry's default: a value (`robot = "r1"`), or a table with an optional `default`
/// and a `description` (`robot = { description = "..." }` has none, so it must be given).
fn default_of(entry: &toml::Value) -> Result<Option<String>, String> {
    match entry {
        toml::Value::Table(table) => {
            if let Some(key) =
                (table.keys()).find(|k| !["default", "description"].contains(&k.as_str()))
            {
                return Err(format!("unknown key {key:?} (known: default, description)"));
            }
            table.get("default").map(scalar).transpose()
        }
        value => scalar(value).map(Some),
    }
}

fn scalar(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(format!(
            "a {} is not an argument's value: give a string, number or boolean",
            other.type_str()
        )),
    }
}

/// A value lands inside a TOML string as it is: quotes, backslashes and control characters
/// would end or change the string, so they are refused rather than escaped (which would differ
/// between TOML's two kinds of strings).
fn check_value(value: &str) -> Result<(), String> {
    if value.len() > MAX_VALUE {
        return Err(format!("a value longer than {MAX_VALUE} bytes"));
    }
    match value
        .chars()
        .find(|c| matches!(c, '"' | '\'' | '\\') || c.is_control())
    {
        Some(c) => Err(format!(
            "the value {value:?} has {c:?}: quotes, backslashes and control characters cannot \
             be substituted"
        )),
        None => Ok(()),
    }
}

fn is_argument_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn list<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.map(String::as_str).collect();
    match names.is_empty() {
        true => "none".into(),
        false => names.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn run(text: &str, given: &[(&str, &str)]) -> Result<String, String> {
        let source = SourceFile {
            path: Path::new("t.toml"),
            text,
            whole: &[],
        };
        let given = (given.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        substitute(&source, &given)
            .map(|s| s.text)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_var_takes_the_given_value_over_the_default() {
        let text = "[arg]\nrobot = \"r1\"\nrate = { default = 10 }\n\
                    [[process]]\nname = \"$(var robot)_$(var rate)\"\n";
        assert!(run(text, &[]).unwrap().ends_with("name = \"r1_10\"\n"));
        let given = run(text, &[("robot", "r2")]).unwrap();
        assert!(given.ends_with("name = \"r2_10\"\n"), "{given}");
    }

    #[test]
    fn each_argument_mistake_is_named_with_its_line() {
        /// A file's text, the arguments given, the error's start.
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
        let cases: [Case<'_>; 6] = [
            (
                "[arg]\nrobot = \"r1\"\n[[process]]\nname = \"$(var robt)\"\n",
                &[],
                "t.toml:4:9: $(var robt): no argument \"robt\" is declared (the file's [arg] \
                 table has: robot)",
            ),
            (
                "[arg]\nrobot = { description = \"which\" }\n",
                &[],
                "t.toml:2:9: arg: robot has no default: give robot:=VALUE",
            ),
            (
                "[arg]\nrobot = \"r1\"\n",
                &[("robto", "r2")],
                "t.toml: argument \"robto\" is given but not declared (the file's [arg] table \
                 has: robot)",
            ),
            (
                "[arg]\nrobot = \"r1\"\n",
                &[("robot", "r\"2")],
                "t.toml:2:9: arg: robot: the value \"r\\\"2\" has '\"'",
            ),
            (
                "name = \"$(find-pkg-share demo)\"\n",
                &[],
                "t.toml:1:9: $(find-pkg-share demo): not a substitution tacto launch has",
            ),
            (
                "name = \"$(env TACTO_SURELY_UNSET_VARIABLE)\"\n",
                &[],
                "t.toml:1:9: $(env TACTO_SURELY_UNSET_VARIABLE): the environment has no \
                 TACTO_SURELY_UNSET_VARIABLE",
            ),
        ];
        for (text, given, expected) in cases {
            let error = run(text, given).unwrap_err();
            assert!(
                error.starts_with(expected),
                "{error:?} should start with {expected:?}"
            );
        }
    }
}
