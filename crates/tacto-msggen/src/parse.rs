//! The `.msg`/`.srv`/`.action` language: lines of fields (`TYPE NAME [DEFAULT]`), constants
//! (`TYPE NAME=VALUE`) and `#` comments, with `---` between a service's request and response
//! and between an action's goal, result and feedback.
//!
//! Public for tools that work on definitions at run time (`tacto topic echo`'s dynamic
//! types); the generator is the main user.
//!
//! ```
//! use tacto_msggen::parse::{BaseType, Container, parse_message};
//!
//! let def = parse_message("float32[<=3] ranges\nstring frame_id").unwrap();
//! assert_eq!(def.fields[0].ty.container, Container::Bounded(3));
//! assert_eq!(def.fields[1].ty.base, BaseType::String(None));
//! ```

use std::path::Path;

use crate::Problem;

/// A primitive IDL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// `bool`
    Bool,
    /// `byte` (one unsigned byte)
    Byte,
    /// `char` (one unsigned byte)
    Char,
    /// `int8`
    Int8,
    /// `uint8`
    UInt8,
    /// `int16`
    Int16,
    /// `uint16`
    UInt16,
    /// `int32`
    Int32,
    /// `uint32`
    UInt32,
    /// `int64`
    Int64,
    /// `uint64`
    UInt64,
    /// `float32`
    Float32,
    /// `float64`
    Float64,
}

impl Primitive {
    fn from_name(name: &str) -> Option<Primitive> {
        Some(match name {
            "bool" => Primitive::Bool,
            "byte" => Primitive::Byte,
            "char" => Primitive::Char,
            "int8" => Primitive::Int8,
            "uint8" => Primitive::UInt8,
            "int16" => Primitive::Int16,
            "uint16" => Primitive::UInt16,
            "int32" => Primitive::Int32,
            "uint32" => Primitive::UInt32,
            "int64" => Primitive::Int64,
            "uint64" => Primitive::UInt64,
            "float32" => Primitive::Float32,
            "float64" => Primitive::Float64,
            _ => return None,
        })
    }

    /// The Rust type: `byte` and `char` are both one unsigned byte in ROS 2.
    pub fn rust(self) -> &'static str {
        match self {
            Primitive::Bool => "bool",
            Primitive::Byte | Primitive::Char | Primitive::UInt8 => "u8",
            Primitive::Int8 => "i8",
            Primitive::Int16 => "i16",
            Primitive::UInt16 => "u16",
            Primitive::Int32 => "i32",
            Primitive::UInt32 => "u32",
            Primitive::Int64 => "i64",
            Primitive::UInt64 => "u64",
            Primitive::Float32 => "f32",
            Primitive::Float64 => "f64",
        }
    }

    fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Primitive::Byte | Primitive::Char | Primitive::UInt8 => (0, u8::MAX.into()),
            Primitive::Int8 => (i8::MIN.into(), i8::MAX.into()),
            Primitive::Int16 => (i16::MIN.into(), i16::MAX.into()),
            Primitive::UInt16 => (0, u16::MAX.into()),
            Primitive::Int32 => (i32::MIN.into(), i32::MAX.into()),
            Primitive::UInt32 => (0, u32::MAX.into()),
            Primitive::Int64 => (i64::MIN.into(), i64::MAX.into()),
            Primitive::UInt64 => (0, u64::MAX.into()),
            Primitive::Bool | Primitive::Float32 | Primitive::Float64 => return None,
        })
    }
}

/// The type of one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseType {
    /// A primitive.
    Primitive(Primitive),
    /// `string` or `string<=N`.
    String(Option<usize>),
    /// `wstring` or `wstring<=N`.
    WString(Option<usize>),
    /// A message: `Type` (same package) or `pkg/Type`.
    Named {
        /// The package, when written (`pkg/Type`); the file's own package otherwise.
        package: Option<String>,
        /// The type's name.
        name: String,
    },
}

/// How many elements a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// One element.
    Single,
    /// `T[N]`
    Array(usize),
    /// `T[<=N]`
    Bounded(usize),
    /// `T[]`
    Unbounded,
}

/// A field's type: its element type and how many elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldType {
    /// The element type.
    pub base: BaseType,
    /// How many elements.
    pub container: Container,
}

/// A constant or default value, checked against its type.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// An integer, checked against its type's range.
    Int(i128),
    /// A float, finite.
    Float(f64),
    /// A string (quotes removed).
    Str(String),
    /// An array default, `[a, b]`.
    List(Vec<Value>),
}

/// A field: `TYPE NAME [DEFAULT]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: FieldType,
    /// Its default value, if the file gives one.
    pub default: Option<Value>,
    /// The declaration as written, for the docs.
    pub declaration: String,
    /// The comment lines that go with it.
    pub comment: Vec<String>,
    /// Its line in the file, counted from 1.
    pub line: usize,
}

/// A constant: `TYPE NAME=VALUE`.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: BaseType,
    /// Its value.
    pub value: Value,
    /// The declaration as written.
    pub declaration: String,
    /// The comment lines that go with it.
    pub comment: Vec<String>,
}

/// One message, or one half of a service.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MessageDef {
    /// The file's own comment.
    pub comment: Vec<String>,
    /// The fields, in wire order.
    pub fields: Vec<Field>,
    /// The constants.
    pub constants: Vec<Constant>,
}

/// Parses a `.msg` file's text.
///
/// # Errors
/// The line (counted from 1) and what is wrong with it.
pub fn parse_message(text: &str) -> Result<MessageDef, (usize, Problem)> {
    parse_lines(&numbered(text))
}

/// Parses a `.srv` file's text into request and response.
pub fn parse_service(text: &str) -> Result<(MessageDef, MessageDef), (usize, Problem)> {
    let lines = numbered(text);
    let separators = separators(&lines);
    match separators[..] {
        [at] => Ok((parse_lines(&lines[..at])?, parse_lines(&lines[at + 1..])?)),
        [] => Err((lines.len().max(1), Problem::MissingSeparator)),
        [_, second, ..] => Err((lines[second].0, Problem::ExtraSeparator)),
    }
}

/// The three parts of an `.action` file, each a message of its own.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionDef {
    /// What a client asks for: `<Action>_Goal`.
    pub goal: MessageDef,
    /// What the server answers when the goal ends: `<Action>_Result`.
    pub result: MessageDef,
    /// What the server sends while it works on the goal: `<Action>_Feedback`.
    pub feedback: MessageDef,
}

impl ActionDef {
    /// The messages rosidl_parser's `Action` derives for action `name` (e.g. `Fibonacci`), by
    /// the suffix of their names (`Fibonacci_SendGoal_Request`, ...): the requests and
    /// responses of the services `<name>_SendGoal` (`goal_id`, `goal`; `accepted`, `stamp`) and
    /// `<name>_GetResult` (`goal_id`; `status`, `result`), and `<name>_FeedbackMessage`
    /// (`goal_id`, `feedback`). Their fields name the action's parts without a package
    /// (`Fibonacci_Goal`), which [`nested_type_name`] places in the action's package.
    ///
    /// # Examples
    /// ```
    /// use tacto_msggen::parse::{ActionDef, nested_type_name};
    ///
    /// let derived = ActionDef::derived("Fibonacci");
    /// let (suffix, request) = &derived[0];
    /// assert_eq!(*suffix, "SendGoal_Request");
    /// let goal = &request.fields[1];
    /// let tacto_msggen::parse::BaseType::Named { package, name } = &goal.ty.base else { panic!() };
    /// assert_eq!(nested_type_name("my_pkg", package.as_deref(), name), "my_pkg/action/Fibonacci_Goal");
    /// ```
    pub fn derived(name: &str) -> [(&'static str, MessageDef); 5] {
        let field = |field: &str, base: BaseType, written: &str, comment: &str| Field {
            name: field.to_owned(),
            ty: FieldType {
                base,
                container: Container::Single,
            },
            default: None,
            declaration: format!("{written} {field}"),
            comment: vec![comment.to_owned()],
            line: 0,
        };
        let nested = |field_name: &str, package: Option<&str>, type_name: String, comment| {
            let written = match package {
                Some(package) => format!("{package}/{type_name}"),
                None => type_name.clone(),
            };
            let base = BaseType::Named {
                package: package.map(str::to_owned),
                name: type_name,
            };
            field(field_name, base, &written, comment)
        };
        let part = |field_name: &str, part: &str, comment| {
            nested(field_name, None, format!("{name}_{part}"), comment)
        };
        let goal_id = || {
            let comment = "The goal's id, chosen by the client.";
            nested(
                "goal_id",
                Some("unique_identifier_msgs"),
                "UUID".into(),
                comment,
            )
        };
        let message = |fields| MessageDef {
            comment: Vec::new(),
            fields,
            constants: Vec::new(),
        };
        let primitive = |field_name: &str, p: Primitive, written, comment| {
            field(field_name, BaseType::Primitive(p), written, comment)
        };
        [
            (
                "SendGoal_Request",
                message(vec![goal_id(), part("goal", "Goal", "The goal.")]),
            ),
            (
                "SendGoal_Response",
                message(vec![
                    primitive(
                        "accepted",
                        Primitive::Bool,
                        "bool",
                        "Whether the server accepted the goal.",
                    ),
                    nested(
                        "stamp",
                        Some("builtin_interfaces"),
                        "Time".into(),
                        "When the server accepted the goal.",
                    ),
                ]),
            ),
            ("GetResult_Request", message(vec![goal_id()])),
            (
                "GetResult_Response",
                message(vec![
                    primitive(
                        "status",
                        Primitive::Int8,
                        "int8",
                        "The goal's status (action_msgs/msg/GoalStatus STATUS_*).",
                    ),
                    part("result", "Result", "The result."),
                ]),
            ),
            (
                "FeedbackMessage",
                message(vec![
                    goal_id(),
                    part("feedback", "Feedback", "The feedback."),
                ]),
            ),
        ]
    }
}

/// The full name of a nested type written `package/name` (or `name`, then of package `own`)
/// in a file of package `own`: `package/msg/name`, or `own/action/name` for a part of an
/// action named by the messages of [`ActionDef::derived`] (`Fibonacci_Goal`): no `.msg` type
/// name has a `_`, so the two never meet.
pub fn nested_type_name(own: &str, package: Option<&str>, name: &str) -> String {
    let package = package.unwrap_or(own);
    if name.contains('_') {
        format!("{package}/action/{name}")
    } else {
        format!("{package}/msg/{name}")
    }
}

/// Parses an `.action` file's text: goal, result and feedback, separated by `---` lines
/// (rosidl_adapter's `parse_action_string`: exactly two separators; any part may be empty).
///
/// # Examples
/// ```
/// let action = tacto_msggen::parse::parse_action("int32 order\n---\nint32[] sequence\n---\n").unwrap();
/// assert_eq!(action.goal.fields[0].name, "order");
/// assert!(action.feedback.fields.is_empty());
///
/// let (line, problem) = tacto_msggen::parse::parse_action("int32 order\n---\nint32 x\n").unwrap_err();
/// assert_eq!((line, problem), (3, tacto_msggen::Problem::ActionSeparators(1)));
/// ```
///
/// # Errors
/// The line (counted from 1) and what is wrong with it: a part's own error, or the number of
/// separators when it is not two (at the third separator, or at the last line).
pub fn parse_action(text: &str) -> Result<ActionDef, (usize, Problem)> {
    let lines = numbered(text);
    let separators = separators(&lines);
    match separators[..] {
        [first, second] => Ok(ActionDef {
            goal: parse_lines(&lines[..first])?,
            result: parse_lines(&lines[first + 1..second])?,
            feedback: parse_lines(&lines[second + 1..])?,
        }),
        [_, _, third, ..] => Err((lines[third].0, Problem::ActionSeparators(separators.len()))),
        _ => Err((
            lines.len().max(1),
            Problem::ActionSeparators(separators.len()),
        )),
    }
}

/// The lines of `text`, each with its number counted from 1.
fn numbered(text: &str) -> Vec<(usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect()
}

/// The indices in `lines` of the `---` lines that separate the parts of a service or action.
fn separators(lines: &[(usize, &str)]) -> Vec<usize> {
    (lines.iter().enumerate())
        .filter(|(_, (_, l))| l.trim() == "---")
        .map(|(i, _)| i)
        .collect()
}

fn parse_lines(lines: &[(usize, &str)]) -> Result<MessageDef, (usize, Problem)> {
    let mut def = MessageDef::default();
    // Comment lines not yet attached: the file's own comment until the first element, then
    // the comment of the next element unless a blank line cuts them off.
    let mut pending: Vec<String> = Vec::new();
    let mut seen_element = false;
    for &(line_no, line) in lines {
        let (code, comment) = split_comment(line);
        let code = code.trim();
        if code.is_empty() {
            match comment {
                Some(comment) => pending.push(comment.to_owned()),
                None if !seen_element => def.comment.append(&mut pending),
                None => pending.clear(),
            }
            continue;
        }
        seen_element = true;
        let mut comment_lines = std::mem::take(&mut pending);
        comment_lines.extend(comment.map(str::to_owned));
        parse_element(code, comment_lines, line_no, &mut def).map_err(|p| (line_no, p))?;
        let names = def
            .fields
            .iter()
            .map(|f| &f.name)
            .chain(def.constants.iter().map(|c| &c.name));
        let last = names.clone().last().cloned();
        if let Some(last) = last
            && names.filter(|&n| *n == last).count() > 1
        {
            return Err((line_no, Problem::DuplicateName(last)));
        }
    }
    if !seen_element {
        def.comment.append(&mut pending);
    }
    Ok(def)
}

/// Splits `line` at the first `#` that is not inside a quoted string.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') => {
                let comment = line[i + 1..].strip_prefix(' ').unwrap_or(&line[i + 1..]);
                return (&line[..i], Some(comment.trim_end()));
            }
            _ => {}
        }
    }
    (line, None)
}

fn parse_element(
    code: &str,
    comment: Vec<String>,
    line: usize,
    def: &mut MessageDef,
) -> Result<(), Problem> {
    let (type_text, rest) = code
        .split_once(char::is_whitespace)
        .ok_or_else(|| Problem::Syntax(code.to_owned()))?;
    let ty = parse_type(type_text)?;
    let rest = rest.trim();
    if let Some((name, value)) = rest.split_once('=') {
        let name = name.trim();
        check_constant_name(name)?;
        if ty.container != Container::Single || matches!(ty.base, BaseType::Named { .. }) {
            return Err(Problem::ConstantType(type_text.to_owned()));
        }
        let base = ty.base.clone();
        let value = parse_value(&base, value.trim())?;
        def.constants.push(Constant {
            name: name.to_owned(),
            ty: base,
            value,
            declaration: code.to_owned(),
            comment,
        });
        return Ok(());
    }
    let (name, default) = match rest.split_once(char::is_whitespace) {
        Some((name, default)) => (name, Some(default.trim())),
        None => (rest, None),
    };
    check_field_name(name)?;
    let default = default.map(|text| parse_default(&ty, text)).transpose()?;
    def.fields.push(Field {
        name: name.to_owned(),
        ty,
        default,
        declaration: code.to_owned(),
        comment,
        line,
    });
    Ok(())
}

/// Parses the `N` of a bound; `written` is the bound as the file has it, for the error.
fn parse_bound(text: &str, written: &str) -> Result<usize, Problem> {
    let bad = |reason| Problem::BadBound {
        text: written.to_owned(),
        reason,
    };
    match text.parse::<usize>() {
        Ok(0) => Err(bad("a bound must be at least 1")),
        Ok(n) if u32::try_from(n).is_ok() => Ok(n),
        Ok(_) => Err(bad("a bound must fit the 32-bit CDR length")),
        Err(_) => Err(bad("a bound must be a decimal number")),
    }
}

/// Parses a field type, `string<=5[<=3]`.
pub fn parse_type(text: &str) -> Result<FieldType, Problem> {
    let (element, container) = match text.split_once('[') {
        None => (text, Container::Single),
        Some((element, rest)) => {
            let inside = rest.strip_suffix(']').ok_or_else(|| Problem::BadBound {
                text: format!("[{rest}"),
                reason: "an array bound must end with ']'",
            })?;
            let container = if inside.is_empty() {
                Container::Unbounded
            } else if let Some(bound) = inside.strip_prefix("<=") {
                Container::Bounded(parse_bound(bound, &format!("[{inside}]"))?)
            } else {
                Container::Array(parse_bound(inside, &format!("[{inside}]"))?)
            };
            (element, container)
        }
    };
    let base = if let Some(primitive) = Primitive::from_name(element) {
        BaseType::Primitive(primitive)
    } else if let Some(rest) = element.strip_prefix("wstring") {
        BaseType::WString(parse_string_bound(rest, "wstring")?)
    } else if let Some(rest) = element.strip_prefix("string") {
        BaseType::String(parse_string_bound(rest, "string")?)
    } else {
        parse_named(element)?
    };
    Ok(FieldType { base, container })
}

fn parse_string_bound(rest: &str, what: &str) -> Result<Option<usize>, Problem> {
    if rest.is_empty() {
        return Ok(None);
    }
    match rest.strip_prefix("<=") {
        Some(bound) => parse_bound(bound, &format!("{what}{rest}")).map(Some),
        None => Err(Problem::UnknownType(format!("{what}{rest}"))),
    }
}

fn parse_named(text: &str) -> Result<BaseType, Problem> {
    let parts: Vec<&str> = text.split('/').collect();
    let (package, name) = match parts[..] {
        [name] => (None, name),
        [package, name] | [package, "msg", name] => (Some(package), name),
        _ => return Err(Problem::UnknownType(text.to_owned())),
    };
    if let Some(package) = package
        && !is_package_name(package)
    {
        return Err(Problem::UnknownType(text.to_owned()));
    }
    if !is_type_name(name) {
        return Err(Problem::UnknownType(text.to_owned()));
    }
    Ok(BaseType::Named {
        package: package.map(str::to_owned),
        name: name.to_owned(),
    })
}

/// REP 144: lowercase letters, digits and single underscores, starting with a letter.
pub fn is_package_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.contains("__")
        && !name.ends_with('_')
}

/// A type name: CamelCase letters and digits.
pub fn is_type_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

fn check_field_name(name: &str) -> Result<(), Problem> {
    if is_package_name(name) {
        Ok(())
    } else {
        Err(Problem::BadFieldName(name.to_owned()))
    }
}

fn check_constant_name(name: &str) -> Result<(), Problem> {
    let ok = name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !name.contains("__")
        && !name.ends_with('_');
    if ok {
        Ok(())
    } else {
        Err(Problem::BadConstantName(name.to_owned()))
    }
}

fn bad_value(text: &str, ty: impl Into<String>, reason: impl Into<String>) -> Problem {
    Problem::BadValue {
        value: text.to_owned(),
        ty: ty.into(),
        reason: reason.into(),
    }
}

/// Parses one value of type `base`, as rosidl reads it.
fn parse_value(base: &BaseType, text: &str) -> Result<Value, Problem> {
    match base {
        BaseType::Primitive(Primitive::Bool) => match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(bad_value(text, "bool", "expected true, false, 1 or 0")),
        },
        BaseType::Primitive(p @ (Primitive::Float32 | Primitive::Float64)) => {
            let value: f64 = text
                .parse()
                .map_err(|_| bad_value(text, p.rust(), "not a number"))?;
            let limit = if *p == Primitive::Float32 {
                f64::from(f32::MAX)
            } else {
                f64::MAX
            };
            if !value.is_finite() || value.abs() > limit {
                return Err(bad_value(
                    text,
                    p.rust(),
                    "not a finite number of this type",
                ));
            }
            Ok(Value::Float(value))
        }
        BaseType::Primitive(p) => {
            let (min, max) = p.int_range().expect("integer primitive");
            let value: i128 = text
                .strip_prefix('+')
                .unwrap_or(text)
                .parse()
                .map_err(|_| bad_value(text, p.rust(), "not an integer"))?;
            if value < min || value > max {
                return Err(bad_value(
                    text,
                    p.rust(),
                    format!("out of range {min}..={max}"),
                ));
            }
            Ok(Value::Int(value))
        }
        BaseType::String(bound) | BaseType::WString(bound) => {
            let value = unquote(text);
            let len = match base {
                BaseType::String(_) => value.len(),
                _ => value.encode_utf16().count(),
            };
            if let Some(bound) = bound.filter(|&b| len > b) {
                return Err(bad_value(
                    text,
                    "string",
                    format!("longer than its bound {bound}"),
                ));
            }
            Ok(Value::Str(value))
        }
        BaseType::Named { .. } => Err(bad_value(
            text,
            "message",
            "a nested message has no default value",
        )),
    }
}

/// A quoted string loses its quotes (and a backslash before its own quote character);
/// anything else is taken as it stands.
fn unquote(text: &str) -> String {
    for quote in ['"', '\''] {
        if text.len() >= 2 && text.starts_with(quote) && text.ends_with(quote) {
            return text[1..text.len() - 1].replace(&format!("\\{quote}"), &quote.to_string());
        }
    }
    text.to_owned()
}

fn parse_default(ty: &FieldType, text: &str) -> Result<Value, Problem> {
    if ty.container == Container::Single {
        return parse_value(&ty.base, text);
    }
    let inside = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| bad_value(text, "array", "an array default is written [a, b, ...]"))?;
    let items = split_list(inside);
    let values = items
        .iter()
        .map(|item| parse_value(&ty.base, item))
        .collect::<Result<Vec<_>, _>>()?;
    match ty.container {
        Container::Array(n) if values.len() != n => Err(bad_value(
            text,
            "array",
            format!("{} values for an array of {n}", values.len()),
        )),
        Container::Bounded(n) if values.len() > n => Err(bad_value(
            text,
            "sequence",
            format!("{} values for a sequence of at most {n}", values.len()),
        )),
        _ => Ok(Value::List(values)),
    }
}

/// Splits `a, "b, c", d` at the commas outside quotes.
fn split_list(text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                current.push(c);
            }
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (None, ',') => items.push(std::mem::take(&mut current).trim().to_owned()),
            _ => current.push(c),
        }
    }
    items.push(current.trim().to_owned());
    items
}

/// The type name a file defines: its file name without the extension.
pub fn type_name_of(path: &Path) -> Option<&str> {
    path.file_stem()?.to_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(base: BaseType, container: Container) -> FieldType {
        FieldType { base, container }
    }

    #[test]
    fn types_parse_with_their_bounds_and_containers() {
        use BaseType::{Named, String as Str, WString};
        use Container::{Array, Bounded, Single, Unbounded};
        let p = BaseType::Primitive;
        for (text, expected) in [
            ("float64", ty(p(Primitive::Float64), Single)),
            ("char[4]", ty(p(Primitive::Char), Array(4))),
            ("byte[]", ty(p(Primitive::Byte), Unbounded)),
            ("int16[<=7]", ty(p(Primitive::Int16), Bounded(7))),
            ("string", ty(Str(None), Single)),
            ("string<=10[<=3]", ty(Str(Some(10)), Bounded(3))),
            ("wstring<=2[5]", ty(WString(Some(2)), Array(5))),
            (
                "Pose",
                ty(
                    Named {
                        package: None,
                        name: "Pose".into(),
                    },
                    Single,
                ),
            ),
            (
                "geometry_msgs/Pose[]",
                ty(
                    Named {
                        package: Some("geometry_msgs".into()),
                        name: "Pose".into(),
                    },
                    Unbounded,
                ),
            ),
            (
                "geometry_msgs/msg/Pose",
                ty(
                    Named {
                        package: Some("geometry_msgs".into()),
                        name: "Pose".into(),
                    },
                    Single,
                ),
            ),
        ] {
            assert_eq!(parse_type(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn a_hash_inside_quotes_is_not_a_comment() {
        assert_eq!(
            split_comment("string a \"x#y\" # c"),
            ("string a \"x#y\" ", Some("c"))
        );
        assert_eq!(split_comment("string A='#'"), ("string A='#'", None));
        assert_eq!(split_comment("#only"), ("", Some("only")));
    }

    #[test]
    fn list_defaults_split_outside_quotes() {
        assert_eq!(split_list(" 1, 2 ,3"), ["1", "2", "3"]);
        assert_eq!(split_list("'a, b', \"c\""), ["'a, b'", "\"c\""]);
        assert!(split_list("  ").is_empty());
    }

    #[test]
    fn comments_go_to_the_file_or_to_the_next_element() {
        let def = parse_message(
            "# File.\n#\n# More.\n\n# Of a.\nint32 a # trailing\n\n# Lost: a blank line follows.\n\nint32 b\n",
        )
        .unwrap();
        assert_eq!(def.comment, ["File.", "", "More."]);
        assert_eq!(def.fields[0].comment, ["Of a.", "trailing"]);
        assert!(def.fields[1].comment.is_empty());
        assert_eq!(def.fields[1].line, 10);
    }

    #[test]
    fn values_follow_rosidl() {
        let p = |p| BaseType::Primitive(p);
        assert_eq!(
            parse_value(&p(Primitive::Bool), "True"),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            parse_value(&p(Primitive::Bool), "0"),
            Ok(Value::Bool(false))
        );
        assert_eq!(parse_value(&p(Primitive::Int8), "+5"), Ok(Value::Int(5)));
        assert_eq!(
            parse_value(&p(Primitive::Float32), "-1e-3"),
            Ok(Value::Float(-1e-3))
        );
        assert_eq!(
            parse_value(&BaseType::String(None), "'it\\'s'"),
            Ok(Value::Str("it's".into()))
        );
        assert_eq!(
            parse_value(&BaseType::String(None), "bare words"),
            Ok(Value::Str("bare words".into()))
        );
        // Bounds of wide strings count UTF-16 units.
        assert!(parse_value(&BaseType::WString(Some(1)), "🤖").is_err());
    }
}
