//! A message's value as a tree, for types known only at run time.

/// The value of a field, or of a whole message.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// A signed integer (`int8` ... `int64`).
    Int(i64),
    /// An unsigned integer (`uint16` ... `uint64`, and a single `byte`, `char`, `uint8`).
    UInt(u64),
    /// `float32` (exactly widened) or `float64`.
    Float(f64),
    /// `string` or `wstring`.
    String(String),
    /// An array or sequence of `byte`, `char` or `uint8`, kept as one block.
    Bytes(Vec<u8>),
    /// An array or sequence of anything else.
    List(Vec<Value>),
    /// A message: its fields in wire order.
    Message(Vec<(String, Value)>),
}

impl Value {
    /// The field `name` of a message value.
    ///
    /// ```
    /// use tacto_graph::Value;
    /// let v = Value::Message(vec![("data".into(), Value::String("hi".into()))]);
    /// assert_eq!(v.field("data"), Some(&Value::String("hi".into())));
    /// ```
    pub fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Message(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }
}
