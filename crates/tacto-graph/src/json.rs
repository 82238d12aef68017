//! A [`Value`] as one line of JSON, for scripts: fields in wire order, byte arrays as lists of
//! numbers, non-finite floats as `null` (JSON has no NaN or infinity).

use crate::registry::PLACEHOLDER;
use crate::value::Value;

/// The JSON of `value`, on one line.
///
/// ```
/// use tacto_graph::Value;
/// let v = Value::Message(vec![("data".into(), Value::String("a \"b\"".into()))]);
/// assert_eq!(tacto_graph::json::to_json(&v), r#"{"data":"a \"b\""}"#);
/// ```
pub fn to_json(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value);
    out
}

fn write(out: &mut String, value: &Value) {
    match value {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::UInt(u) => out.push_str(&u.to_string()),
        Value::Float(f) if f.is_finite() => out.push_str(
            &serde_json::Number::from_f64(*f).map_or_else(|| "null".into(), |n| n.to_string()),
        ),
        Value::Float(_) => out.push_str("null"),
        Value::String(s) => out.push_str(&serde_json::Value::from(s.as_str()).to_string()),
        Value::Bytes(bytes) => {
            out.push('[');
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&b.to_string());
            }
            out.push(']');
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Message(fields) => {
            out.push('{');
            let shown = fields.iter().filter(|(n, _)| n != PLACEHOLDER);
            for (i, (name, value)) in shown.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::from(name.as_str()).to_string());
                out.push(':');
                write(out, value);
            }
            out.push('}');
        }
    }
}
