//! YAML as Python reads and writes it for ros2cli: PyYAML's `safe_load` (YAML 1.1's implicit
//! types: `yes`/`on` are booleans, `1e3` is a string, `0x1f` an integer) and Python's `repr`
//! and `str` of the values it gives.
//!
//! `ros2 param` types a value typed by the user through these (rclpy's
//! `get_parameter_value`), and loads parameter files through them, so `tacto param` has to
//! read `yes` as `true` and `1e3` as a string exactly as it does.

use std::sync::LazyLock;

use regex::Regex;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// A value as PyYAML's `safe_load` builds it.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// `None`: `~`, `null`, or nothing.
    None,
    /// `bool`.
    Bool(bool),
    /// `int` (within `i64`; a larger one stays a string, as rclpy could not send it anyway).
    Int(i64),
    /// `float`.
    Float(f64),
    /// `str`.
    Str(String),
    /// `list`.
    List(Vec<PyValue>),
    /// `dict`, keys in the file's order (a non-string key as the text it was written as).
    Dict(Vec<(String, PyValue)>),
}

/// Why text is not YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not YAML: {0}")]
pub struct PyYamlError(pub String);

/// The first document of `text` as PyYAML's `safe_load` reads it; an empty text is `None`.
///
/// ```
/// use tacto_graph::pyyaml::{PyValue, load};
/// assert_eq!(load("yes")?, PyValue::Bool(true));
/// assert_eq!(load("1e3")?, PyValue::Str("1e3".into())); // YAML 1.1 floats need a dot
/// assert_eq!(load("[1, 0x10]")?, PyValue::List(vec![PyValue::Int(1), PyValue::Int(16)]));
/// # Ok::<(), tacto_graph::pyyaml::PyYamlError>(())
/// ```
pub fn load(text: &str) -> Result<PyValue, PyYamlError> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        let (event, _) = parser
            .next_token()
            .map_err(|e| PyYamlError(e.to_string()))?;
        let value = match event {
            Event::StreamEnd | Event::DocumentEnd if stack.is_empty() => return Ok(PyValue::None),
            Event::StreamEnd => return Err(PyYamlError("unexpected end of the text".into())),
            Event::Scalar(text, style, _, tag) => {
                let tagged_str = tag.is_some_and(|t| t.suffix == "str");
                match style {
                    TScalarStyle::Plain if !tagged_str => resolve(&text),
                    _ => PyValue::Str(text),
                }
            }
            Event::SequenceStart(..) => {
                stack.push(Frame::List(Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                stack.push(Frame::Dict(Vec::new(), None));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::List(items)) => PyValue::List(items),
                Some(Frame::Dict(entries, _)) => PyValue::Dict(entries),
                None => return Err(PyYamlError("unbalanced collection".into())),
            },
            Event::Alias(_) => return Err(PyYamlError("aliases are not supported".into())),
            _ => continue,
        };
        match stack.last_mut() {
            None => return Ok(value),
            Some(Frame::List(items)) => items.push(value),
            Some(Frame::Dict(entries, key)) => match key.take() {
                None => *key = Some(key_text(value)),
                Some(k) => entries.push((k, value)),
            },
        }
    }
}

enum Frame {
    List(Vec<PyValue>),
    /// The entries so far, and the key waiting for its value.
    Dict(Vec<(String, PyValue)>, Option<String>),
}

fn key_text(key: PyValue) -> String {
    match key {
        PyValue::Str(s) => s,
        other => python_str(&other),
    }
}

static BOOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
        .expect("a valid pattern")
});
static INT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        "^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
    )
    .expect("a valid pattern")
});
static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
    )
    .expect("a valid pattern")
});
static NULL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^(?:~|null|Null|NULL|)$").expect("a valid pattern"));

/// A plain scalar typed by PyYAML's implicit resolvers (`resolver.py`), then built by its
/// constructors (`constructor.py`).
fn resolve(text: &str) -> PyValue {
    if NULL.is_match(text) {
        return PyValue::None;
    }
    if BOOL.is_match(text) {
        return PyValue::Bool(
            matches!(text.as_bytes()[0], b'y' | b'Y' | b't' | b'T')
                || text.eq_ignore_ascii_case("on"),
        );
    }
    if INT.is_match(text) {
        return int(text).map_or_else(|| PyValue::Str(text.to_owned()), PyValue::Int);
    }
    if FLOAT.is_match(text) {
        return float(text).map_or_else(|| PyValue::Str(text.to_owned()), PyValue::Float);
    }
    PyValue::Str(text.to_owned())
}

/// True if PyYAML would read the plain scalar `text` as something other than a string, so
/// that a string of these characters must be quoted to read back as itself: the types above,
/// and those `safe_load` has that rclpy cannot use (dates, merge keys `<<`, values `=`).
pub(crate) fn resolves_to_non_string(text: &str) -> bool {
    !matches!(resolve(text), PyValue::Str(_)) || OTHER.is_match(text)
}

static OTHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:<<|=|[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
    )
    .expect("a valid pattern")
});

fn int(text: &str) -> Option<i64> {
    let digits = text.replace('_', "");
    let (negative, digits) = match digits.as_bytes().first() {
        Some(b'-') => (true, &digits[1..]),
        Some(b'+') => (false, &digits[1..]),
        _ => (false, &digits[..]),
    };
    let magnitude: i128 = if digits == "0" {
        0
    } else if let Some(bin) = digits.strip_prefix("0b") {
        i128::from_str_radix(bin, 2).ok()?
    } else if let Some(hex) = digits.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok()?
    } else if let Some(oct) = digits.strip_prefix('0') {
        i128::from_str_radix(oct, 8).ok()?
    } else if digits.contains(':') {
        sexagesimal(digits)?
    } else {
        digits.parse().ok()?
    };
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// `1:30` = 90: base-60 parts, most significant first.
fn sexagesimal(digits: &str) -> Option<i128> {
    digits.split(':').try_fold(0i128, |acc, part| {
        acc.checked_mul(60)?.checked_add(part.parse::<i128>().ok()?)
    })
}

fn float(text: &str) -> Option<f64> {
    let value = text.replace('_', "").to_ascii_lowercase();
    let (sign, body) = match value.as_bytes().first() {
        Some(b'-') => (-1.0, &value[1..]),
        Some(b'+') => (1.0, &value[1..]),
        _ => (1.0, &value[..]),
    };
    if body == ".inf" {
        return Some(sign * f64::INFINITY);
    }
    if body == ".nan" {
        return Some(f64::NAN);
    }
    if body.contains(':') {
        let (whole, fraction) = body.split_once('.')?;
        let base = sexagesimal(whole)? as f64;
        let fraction: f64 = format!("0.{fraction}").parse().ok()?;
        return Some(sign * (base + fraction));
    }
    body.parse::<f64>().ok().map(|f| sign * f)
}

/// Python's `repr` of a value: `True`, `0.1`, `1e-05`, `'text'`, `[1, 2]`.
///
/// ```
/// use tacto_graph::pyyaml::{PyValue, python_repr};
/// assert_eq!(python_repr(&PyValue::Float(1e16)), "1e+16");
/// assert_eq!(python_repr(&PyValue::List(vec![PyValue::Str("a".into()), PyValue::Bool(false)])), "['a', False]");
/// ```
pub fn python_repr(value: &PyValue) -> String {
    match value {
        PyValue::Str(s) => string_repr(s),
        other => python_str(other),
    }
}

/// Python's `str` of a value: as [`python_repr`], but a string is itself.
pub fn python_str(value: &PyValue) -> String {
    match value {
        PyValue::None => "None".into(),
        PyValue::Bool(true) => "True".into(),
        PyValue::Bool(false) => "False".into(),
        PyValue::Int(i) => i.to_string(),
        PyValue::Float(f) => float_repr(*f),
        PyValue::Str(s) => s.clone(),
        PyValue::List(items) => {
            let items: Vec<String> = items.iter().map(python_repr).collect();
            format!("[{}]", items.join(", "))
        }
        PyValue::Dict(entries) => {
            let entries: Vec<String> = (entries.iter())
                .map(|(k, v)| format!("{}: {}", string_repr(k), python_repr(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// Python's `repr(float)`: the shortest digits that read back, fixed between 1e-4 and 1e16,
/// else `d.ddde+XX`.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if f == 0.0 || (-4..16).contains(&exponent) {
        let fixed = f.to_string();
        return if fixed.contains('.') {
            fixed
        } else {
            format!("{fixed}.0")
        };
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// Python's `repr(str)`: single quotes unless the text holds one and no double quote.
fn string_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expectations from PyYAML 6 (`yaml.safe_load`), as rclpy's `get_parameter_value` sees them.
    #[test]
    fn plain_scalars_take_yaml_1_1_types() {
        use PyValue::*;
        for (text, value) in [
            ("true", Bool(true)),
            ("Off", Bool(false)),
            ("yes", Bool(true)),
            ("y", Str("y".into())),
            ("42", Int(42)),
            ("-0x1F", Int(-31)),
            ("0b101", Int(5)),
            ("010", Int(8)),
            ("1_000", Int(1000)),
            ("1:30", Int(90)),
            ("0.5", Float(0.5)),
            ("1.", Float(1.0)),
            (".5", Float(0.5)),
            ("1.0e+3", Float(1000.0)),
            ("1.0e3", Str("1.0e3".into())),
            ("1e3", Str("1e3".into())),
            ("-.inf", Float(f64::NEG_INFINITY)),
            ("~", None),
            ("", None),
            ("hello world", Str("hello world".into())),
            ("99999999999999999999", Str("99999999999999999999".into())),
        ] {
            assert_eq!(load(text).unwrap(), value, "{text:?}");
        }
        assert!(matches!(load(".nan").unwrap(), Float(f) if f.is_nan()));
        // Dates are not parameter values; PyYAML quotes them when it writes a string.
        assert!(resolves_to_non_string("2001-12-14"));
        assert!(resolves_to_non_string("<<"));
        assert!(!resolves_to_non_string("08"));
    }

    #[test]
    fn quoted_and_tagged_scalars_stay_strings() {
        assert_eq!(load("'true'").unwrap(), PyValue::Str("true".into()));
        assert_eq!(load("\"12\"").unwrap(), PyValue::Str("12".into()));
        assert_eq!(load("!!str 12").unwrap(), PyValue::Str("12".into()));
    }

    #[test]
    fn collections_nest_in_file_order() {
        let value = load("b: [1, 2.5, x]\na:\n  c: on\n").unwrap();
        assert_eq!(
            value,
            PyValue::Dict(vec![
                (
                    "b".into(),
                    PyValue::List(vec![
                        PyValue::Int(1),
                        PyValue::Float(2.5),
                        PyValue::Str("x".into())
                    ])
                ),
                (
                    "a".into(),
                    PyValue::Dict(vec![("c".into(), PyValue::Bool(true))])
                ),
            ])
        );
    }

    #[test]
    fn bad_yaml_is_an_error() {
        assert!(load("[1, 2").is_err());
        assert!(load("a: b: c").is_err());
    }

    // Expectations from CPython's repr.
    #[test]
    fn values_print_as_python_prints_them() {
        for (f, text) in [
            (0.0, "0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e16, "1e+16"),
            (123456.789, "123456.789"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(float_repr(f), text, "{f}");
        }
        assert_eq!(python_repr(&PyValue::Str("it's".into())), "\"it's\"");
        assert_eq!(python_repr(&PyValue::Str("a\nb".into())), "'a\\nb'");
        assert_eq!(
            python_str(&PyValue::List(vec![PyValue::Int(1), PyValue::Float(2.0)])),
            "[1, 2.0]"
        );
    }
}
