//! YAML as `ros2 topic echo` prints it (PyYAML's block style: `field: value`, nested messages
//! indented by two, list items as `- ` at the list's own indentation), and YAML from the user
//! read into a [`Value`] of a given type.

use std::fmt::Write;

use yaml_rust2::{Yaml, YamlLoader};

use crate::registry::{Field, Kind, MessageType, PLACEHOLDER};
use crate::value::Value;
use tacto_msggen::parse::{self, Container, Primitive};

/// How much of long arrays and strings to print: `ros2 topic echo`'s default cuts them at 128
/// elements, followed by `'...'`.
pub const TRUNCATE_LENGTH: usize = 128;

/// The YAML of one message, as ros2cli prints it (without the `---` that follows each).
///
/// `truncate`: arrays and strings longer than this are cut, with `...` after them.
///
/// ```
/// use tacto_graph::Value;
/// let v = Value::Message(vec![
///     ("data".into(), Value::String("Hello World: 1".into())),
///     ("seq".into(), Value::List(vec![Value::Float(1.0), Value::Float(1e-5)])),
/// ]);
/// assert_eq!(
///     tacto_graph::yaml::to_yaml(&v, None),
///     "data: 'Hello World: 1'\nseq:\n- 1.0\n- 1.0e-05\n"
/// );
/// ```
pub fn to_yaml(value: &Value, truncate: Option<usize>) -> String {
    let mut out = String::new();
    match value {
        Value::Message(fields) => mapping(&mut out, fields, 0, false, truncate),
        other => {
            out.push_str(&scalar(other, truncate));
            out.push('\n');
        }
    }
    out
}

fn mapping(
    out: &mut String,
    fields: &[(String, Value)],
    indent: usize,
    in_list: bool,
    truncate: Option<usize>,
) {
    let fields: Vec<_> = fields.iter().filter(|(n, _)| n != PLACEHOLDER).collect();
    if fields.is_empty() {
        out.push_str("{}\n");
        return;
    }
    for (i, (name, value)) in fields.iter().enumerate() {
        if !(in_list && i == 0) {
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(name);
        out.push(':');
        match value {
            Value::Message(inner) if inner.iter().any(|(n, _)| n != PLACEHOLDER) => {
                out.push('\n');
                mapping(out, inner, indent + 2, false, truncate);
            }
            Value::Message(_) => out.push_str(" {}\n"),
            Value::List(items) if !items.is_empty() => {
                out.push('\n');
                list(out, items.iter().cloned(), items.len(), indent, truncate);
            }
            Value::Bytes(bytes) if !bytes.is_empty() => {
                out.push('\n');
                let items = bytes.iter().map(|&b| Value::UInt(b.into()));
                list(out, items, bytes.len(), indent, truncate);
            }
            Value::List(_) | Value::Bytes(_) => out.push_str(" []\n"),
            scalar_value => {
                out.push(' ');
                out.push_str(&scalar(scalar_value, truncate));
                out.push('\n');
            }
        }
    }
}

fn list(
    out: &mut String,
    items: impl Iterator<Item = Value>,
    len: usize,
    indent: usize,
    truncate: Option<usize>,
) {
    let shown = truncate.unwrap_or(usize::MAX);
    for item in items.take(shown) {
        out.push_str(&" ".repeat(indent));
        out.push_str("- ");
        match &item {
            Value::Message(fields) => mapping(out, fields, indent + 2, true, truncate),
            other => {
                out.push_str(&scalar(other, truncate));
                out.push('\n');
            }
        }
    }
    if len > shown {
        out.push_str(&" ".repeat(indent));
        out.push_str("- '...'\n");
    }
}

fn scalar(value: &Value, truncate: Option<usize>) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => python_float(*f),
        Value::String(s) => match truncate {
            Some(n) if s.chars().count() > n => {
                quote(&format!("{}...", s.chars().take(n).collect::<String>()))
            }
            _ => quote(s),
        },
        // Not reached from `mapping` (it prints them as blocks); kept total for a bare value.
        Value::Bytes(_) | Value::List(_) | Value::Message(_) => "[]".into(),
    }
}

/// A float as PyYAML prints it: Python's `repr`, with `.0` before an exponent that has no
/// dot (`1.0e-05`, `1.0e+16`), and `.inf`, `.nan`.
pub(crate) fn python_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let repr = crate::pyyaml::float_repr(f);
    match repr.contains('.') {
        true => repr,
        false => repr.replacen('e', ".0e", 1),
    }
}

/// A string as PyYAML prints it: plain when that reads back as the same string, else in
/// single quotes, or double quotes with escapes when it holds control characters.
fn quote(s: &str) -> String {
    if s.chars().any(|c| c.is_control()) {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\0' => out.push_str("\\0"),
                c if c.is_control() => {
                    let _ = write!(out, "\\x{:02X}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
        return out;
    }
    if plain_is_safe(s) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with(' ') || s.ends_with(' ') || s.ends_with(':') {
        return false;
    }
    if "?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if first == '-' && (s.len() == 1 || s[1..].starts_with(' ') || s.starts_with("---")) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.starts_with("...") {
        return false;
    }
    // What PyYAML's resolvers would read as another type.
    !crate::pyyaml::resolves_to_non_string(s)
}

/// Why YAML could not be read as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum YamlError {
    /// Not YAML.
    #[error("not YAML: {0}")]
    Syntax(String),
    /// A value does not fit its field's type.
    #[error("{field}: expected {expected}, found {found}")]
    Mismatch {
        /// The field (`pose.position.x`; empty for the message itself).
        field: String,
        /// What the field's type needs.
        expected: String,
        /// What was given.
        found: String,
    },
    /// A key that is not a field of the message.
    #[error("{message} has no field {field:?} (its fields: {known})")]
    UnknownField {
        /// The message type.
        message: String,
        /// The key given.
        field: String,
        /// Its fields.
        known: String,
    },
}

/// Reads `text` (a YAML mapping of field values, as `ros2 service call` takes it) as a message
/// of type `ty`. Fields left out get their `.msg` default, or zero / empty.
///
/// ```
/// let registry = tacto_graph::TypeRegistry::shipped();
/// let ty = registry.resolve("geometry_msgs/msg/Point")?;
/// let value = tacto_graph::yaml::from_yaml(&ty, "{x: 1, y: 2.5}")?;
/// assert_eq!(value.field("z"), Some(&tacto_graph::Value::Float(0.0)));
/// assert!(tacto_graph::yaml::from_yaml(&ty, "{x: hello}").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_yaml(ty: &MessageType, text: &str) -> Result<Value, YamlError> {
    read(ty, text, false).map(|template| template.value)
}

/// Reads `text` as `ros2 topic pub` does ([`from_yaml`], and rosidl_runtime_py's
/// `set_message_fields` with `expand_header_auto` and `expand_time_now`): `auto` for a
/// `std_msgs/msg/Header` field leaves the header as its defaults give it (an empty
/// `frame_id`) with its `stamp` set at each publication, and `now` for a
/// `builtin_interfaces/msg/Time` field sets that field at each publication. Both work at any
/// depth, also in the messages of a list (`transforms: [{header: {stamp: now, frame_id:
/// map}}]`), but not for the elements of a list of headers or times themselves, as in
/// rosidl_runtime_py.
///
/// # Examples
/// ```
/// use tacto_graph::Value;
///
/// let registry = tacto_graph::TypeRegistry::shipped();
/// let ty = registry.resolve("geometry_msgs/msg/PointStamped")?;
/// let template = tacto_graph::yaml::template(&ty, "{header: auto, point: {x: 1}}")?;
/// let value = template.at(7, 8);
/// let stamp = value.field("header").and_then(|h| h.field("stamp")).unwrap();
/// assert_eq!(stamp.field("sec"), Some(&Value::Int(7)));
/// assert_eq!(stamp.field("nanosec"), Some(&Value::UInt(8)));
/// assert!(tacto_graph::yaml::from_yaml(&ty, "{header: auto}").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn template(ty: &MessageType, text: &str) -> Result<Template, YamlError> {
    read(ty, text, true)
}

/// The ROS 2 type whose fields `auto` stands for in [`template`].
const HEADER: &str = "std_msgs/msg/Header";
/// The ROS 2 type whose fields `now` stands for in [`template`].
const TIME: &str = "builtin_interfaces/msg/Time";

/// A message read by [`template`]: its value, with the time of publication still to be set.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    value: Value,
    /// Where the `builtin_interfaces/msg/Time` values to set are: per step, the position of
    /// a message's field or of a list's element.
    stamps: Vec<Vec<usize>>,
}

impl Template {
    /// True if the message has a time to set at each publication.
    pub fn is_stamped(&self) -> bool {
        !self.stamps.is_empty()
    }

    /// The message, its `auto` headers' stamps and its `now` times set to `sec`.`nanosec`.
    pub fn at(&self, sec: i32, nanosec: u32) -> Value {
        let mut value = self.value.clone();
        for steps in &self.stamps {
            // The steps were recorded on this value's own shape, so they always lead there.
            if let Some(time) = steps.iter().try_fold(&mut value, step) {
                *time = Value::Message(vec![
                    ("sec".into(), Value::Int(sec.into())),
                    ("nanosec".into(), Value::UInt(nanosec.into())),
                ]);
            }
        }
        value
    }
}

/// The field at `position` of a message, or the element of a list.
fn step<'v>(value: &'v mut Value, position: &usize) -> Option<&'v mut Value> {
    match value {
        Value::Message(fields) => fields.get_mut(*position).map(|(_, v)| v),
        Value::List(items) => items.get_mut(*position),
        _ => None,
    }
}

/// What reading a message keeps track of.
struct Reader {
    /// The field names down to where it is, for errors (`pose.position.x`).
    path: Vec<String>,
    /// The positions down to where it is: of a message's field, or of a list's element.
    at: Vec<usize>,
    /// Whether `auto` and `now` stand for the time of publication.
    expand: bool,
    /// Where times of publication go.
    stamps: Vec<Vec<usize>>,
}

fn read(ty: &MessageType, text: &str, expand: bool) -> Result<Template, YamlError> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| YamlError::Syntax(e.to_string()))?;
    let doc = docs.into_iter().next().unwrap_or(Yaml::Null);
    let mut reader = Reader {
        path: Vec::new(),
        at: Vec::new(),
        expand,
        stamps: Vec::new(),
    };
    let value = message(ty, &doc, &mut reader)?;
    Ok(Template {
        value,
        stamps: reader.stamps,
    })
}

fn describe(y: &Yaml) -> String {
    match y {
        Yaml::Real(r) => format!("the number {r}"),
        Yaml::Integer(i) => format!("the integer {i}"),
        Yaml::String(s) => format!("the string {s:?}"),
        Yaml::Boolean(b) => format!("the bool {b}"),
        Yaml::Array(_) => "a list".into(),
        Yaml::Hash(_) => "a mapping".into(),
        Yaml::Null => "nothing".into(),
        Yaml::Alias(_) | Yaml::BadValue => "an alias".into(),
    }
}

fn mismatch(path: &[String], expected: impl Into<String>, found: &Yaml) -> YamlError {
    YamlError::Mismatch {
        field: path.join("."),
        expected: expected.into(),
        found: describe(found),
    }
}

fn message(ty: &MessageType, y: &Yaml, r: &mut Reader) -> Result<Value, YamlError> {
    let empty = yaml_rust2::yaml::Hash::new();
    let hash = match y {
        Yaml::Hash(h) => h,
        Yaml::Null => &empty,
        other => return Err(mismatch(&r.path, format!("a mapping ({})", ty.name), other)),
    };
    for key in hash.keys() {
        let name = key.as_str().unwrap_or_default();
        if !ty.fields.iter().any(|f| f.name == name) {
            return Err(YamlError::UnknownField {
                message: ty.name.clone(),
                field: name.to_owned(),
                known: ty
                    .fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let mut fields = Vec::with_capacity(ty.fields.len());
    for (position, field) in ty.fields.iter().enumerate() {
        r.path.push(field.name.clone());
        r.at.push(position);
        let value = match hash.get(&Yaml::String(field.name.clone())) {
            Some(y) => field_value(field, y, r),
            None => Ok(default_value(field)),
        };
        r.path.pop();
        r.at.pop();
        fields.push((field.name.clone(), value?));
    }
    Ok(Value::Message(fields))
}

fn field_value(field: &Field, y: &Yaml, r: &mut Reader) -> Result<Value, YamlError> {
    if field.container == Container::Single {
        if let (true, Kind::Message(ty), Yaml::String(word)) = (r.expand, &field.kind, y) {
            // A header or time as it is when the message is built; its time is set when it
            // is published.
            if ty.name == HEADER
                && word == "auto"
                && let Some(stamp) = ty.fields.iter().position(|f| f.name == "stamp")
            {
                r.stamps.push([r.at.as_slice(), &[stamp]].concat());
                return Ok(zero(&field.kind));
            }
            if ty.name == TIME && word == "now" {
                r.stamps.push(r.at.clone());
                return Ok(zero(&field.kind));
            }
        }
        return element(&field.kind, y, r);
    }
    let Yaml::Array(items) = y else {
        return Err(mismatch(&r.path, "a list", y));
    };
    let bytes = matches!(
        field.kind,
        Kind::Primitive(Primitive::Byte | Primitive::Char | Primitive::UInt8)
    );
    let mut values = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        r.at.push(index);
        let value = element(&field.kind, item, r);
        r.at.pop();
        values.push(value?);
    }
    if bytes {
        // element() checked each value is a u8.
        return Ok(Value::Bytes(
            values
                .iter()
                .map(|v| match v {
                    Value::UInt(u) => *u as u8,
                    _ => 0,
                })
                .collect(),
        ));
    }
    Ok(Value::List(values))
}

fn element(kind: &Kind, y: &Yaml, r: &mut Reader) -> Result<Value, YamlError> {
    let path = &r.path;
    match kind {
        Kind::Message(ty) => message(ty, y, r),
        Kind::String(_) | Kind::WString(_) => match y {
            Yaml::String(s) | Yaml::Real(s) => Ok(Value::String(s.clone())),
            Yaml::Integer(i) => Ok(Value::String(i.to_string())),
            Yaml::Boolean(b) => Ok(Value::String(b.to_string())),
            other => Err(mismatch(path, "a string", other)),
        },
        Kind::Primitive(Primitive::Bool) => match y {
            Yaml::Boolean(b) => Ok(Value::Bool(*b)),
            other => Err(mismatch(path, "a bool (true or false)", other)),
        },
        Kind::Primitive(p @ (Primitive::Float32 | Primitive::Float64)) => match y {
            Yaml::Integer(i) => Ok(Value::Float(*i as f64)),
            Yaml::Real(_) => y
                .as_f64()
                .map(Value::Float)
                .ok_or_else(|| mismatch(path, format!("a number ({})", p.rust()), y)),
            other => Err(mismatch(path, format!("a number ({})", p.rust()), other)),
        },
        Kind::Primitive(p) => {
            let (min, max) = int_range(*p);
            let v: Option<i128> = match y {
                Yaml::Integer(i) => Some((*i).into()),
                // Above i64::MAX, PyYAML-style loaders give a string or a real: read it exactly.
                Yaml::Real(s) | Yaml::String(s) => s.parse::<u64>().ok().map(i128::from),
                _ => None,
            };
            let expected = || format!("an integer in {min}..={max} ({})", p.rust());
            match v {
                Some(v) if (min..=max).contains(&v) => Ok(match u64::try_from(v) {
                    Ok(u) if min == 0 => Value::UInt(u),
                    // i64 fits: the range of every signed primitive is within it.
                    _ => Value::Int(v as i64),
                }),
                _ => Err(mismatch(path, expected(), y)),
            }
        }
    }
}

fn int_range(p: Primitive) -> (i128, i128) {
    match p {
        Primitive::Int8 => (i8::MIN.into(), i8::MAX.into()),
        Primitive::Int16 => (i16::MIN.into(), i16::MAX.into()),
        Primitive::UInt16 => (0, u16::MAX.into()),
        Primitive::Int32 => (i32::MIN.into(), i32::MAX.into()),
        Primitive::UInt32 => (0, u32::MAX.into()),
        Primitive::Int64 => (i64::MIN.into(), i64::MAX.into()),
        Primitive::UInt64 => (0, u64::MAX.into()),
        _ => (0, u8::MAX.into()),
    }
}

/// A field's value when the YAML leaves it out: its `.msg` default, or zero / empty.
fn default_value(field: &Field) -> Value {
    if let Some(default) = &field.default {
        return from_default(&field.kind, default);
    }
    match field.container {
        Container::Array(n) => match &field.kind {
            Kind::Primitive(Primitive::Byte | Primitive::Char | Primitive::UInt8) => {
                Value::Bytes(vec![0; n])
            }
            kind => Value::List((0..n).map(|_| zero(kind)).collect()),
        },
        Container::Bounded(_) | Container::Unbounded => match &field.kind {
            Kind::Primitive(Primitive::Byte | Primitive::Char | Primitive::UInt8) => {
                Value::Bytes(Vec::new())
            }
            _ => Value::List(Vec::new()),
        },
        Container::Single => zero(&field.kind),
    }
}

fn zero(kind: &Kind) -> Value {
    match kind {
        Kind::Primitive(Primitive::Bool) => Value::Bool(false),
        Kind::Primitive(Primitive::Float32 | Primitive::Float64) => Value::Float(0.0),
        Kind::Primitive(
            Primitive::Int8 | Primitive::Int16 | Primitive::Int32 | Primitive::Int64,
        ) => Value::Int(0),
        Kind::Primitive(_) => Value::UInt(0),
        Kind::String(_) | Kind::WString(_) => Value::String(String::new()),
        Kind::Message(ty) => Value::Message(
            ty.fields
                .iter()
                .map(|f| (f.name.clone(), default_value(f)))
                .collect(),
        ),
    }
}

fn from_default(kind: &Kind, default: &parse::Value) -> Value {
    match default {
        parse::Value::Bool(b) => Value::Bool(*b),
        parse::Value::Float(f) => Value::Float(*f),
        // The parser checked the value against the field's type.
        parse::Value::Int(i) => match kind {
            Kind::Primitive(Primitive::Float32 | Primitive::Float64) => Value::Float(*i as f64),
            Kind::Primitive(
                Primitive::Int8 | Primitive::Int16 | Primitive::Int32 | Primitive::Int64,
            ) => Value::Int(*i as i64),
            _ => Value::UInt(*i as u64),
        },
        parse::Value::Str(s) => Value::String(s.clone()),
        parse::Value::List(items) => {
            let values: Vec<Value> = items.iter().map(|d| from_default(kind, d)).collect();
            match kind {
                Kind::Primitive(Primitive::Byte | Primitive::Char | Primitive::UInt8) => {
                    Value::Bytes(
                        values
                            .iter()
                            .map(|v| if let Value::UInt(u) = v { *u as u8 } else { 0 })
                            .collect(),
                    )
                }
                _ => Value::List(values),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_and_pyyaml_do() {
        for (f, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-5, "1.0e-05"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (1e16, "1.0e+16"),
            (123456.789, "123456.789"),
            (f64::from(0.1f32), "0.10000000149011612"),
            (f64::INFINITY, ".inf"),
            (f64::NAN, ".nan"),
        ] {
            assert_eq!(python_float(f), text, "{f}");
        }
    }

    #[test]
    fn strings_are_quoted_where_pyyaml_quotes_them() {
        for (s, text) in [
            ("hello", "hello"),
            ("Hello World: 3", "'Hello World: 3'"),
            ("", "''"),
            ("it's: x", "'it''s: x'"),
            ("true", "'true'"),
            ("12", "'12'"),
            ("1.5", "'1.5'"),
            ("- x", "'- x'"),
            ("base_link", "base_link"),
            ("a\nb", "\"a\\nb\""),
        ] {
            assert_eq!(quote(s), text, "{s:?}");
        }
    }

    #[test]
    fn nested_messages_and_lists_of_messages_indent_as_ros2cli() {
        let point = |x: f64| {
            Value::Message(vec![
                ("x".into(), Value::Float(x)),
                ("y".into(), Value::Float(0.0)),
            ])
        };
        let v = Value::Message(vec![
            (
                "header".into(),
                Value::Message(vec![(
                    "stamp".into(),
                    Value::Message(vec![("sec".into(), Value::Int(1))]),
                )]),
            ),
            ("points".into(), Value::List(vec![point(1.0), point(2.0)])),
            ("empty".into(), Value::List(vec![])),
            ("data".into(), Value::Bytes(vec![1, 2, 3])),
        ]);
        assert_eq!(
            to_yaml(&v, Some(2)),
            "header:\n  stamp:\n    sec: 1\npoints:\n- x: 1.0\n  y: 0.0\n- x: 2.0\n  y: 0.0\n\
             empty: []\ndata:\n- 1\n- 2\n- '...'\n"
        );
    }
}
