//! ROS 2 CDR from a [`MessageType`] at run time: the same bytes as `tacto::cdr` and the
//! generated types give (XCDR1, alignment counted after the 4-byte header, strings with their
//! NUL, `wstring` as 4-byte UTF-16 units, the payload padded to 4 bytes).
//!
//! Decoding never trusts a length: a count is checked against the bytes left before anything
//! is allocated (every element takes at least one byte, a `wstring` unit four).

use crate::registry::{Field, Kind, MessageType};
use crate::value::Value;
use tacto_msggen::parse::{Container, Primitive};

const HEADER_LEN: usize = 4;

/// Why bytes are not a message of the given type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Shorter than the encapsulation header.
    #[error("{0} bytes is too short for the 4-byte CDR encapsulation header")]
    MissingHeader(usize),
    /// Not plain CDR (e.g. XCDR2).
    #[error("unsupported CDR encapsulation {:02x} {:02x}: only plain CDR (XCDR1) is supported", .0[0], .0[1])]
    UnsupportedEncapsulation([u8; 2]),
    /// The data ends inside the message.
    #[error("{field}: data ends early: {wanted} bytes needed at offset {offset}, {available} left")]
    Truncated {
        /// The field being read (`header.frame_id`).
        field: String,
        /// Where, counted after the header.
        offset: usize,
        /// How many bytes it needed.
        wanted: usize,
        /// How many were left.
        available: usize,
    },
    /// A length prefix is larger than the bytes left could hold.
    #[error("{field}: length {len} is more than the {available} bytes left")]
    BadLength {
        /// The field.
        field: String,
        /// The length read.
        len: u32,
        /// The bytes left.
        available: usize,
    },
    /// A string or sequence is longer than its bound.
    #[error("{field}: {len} elements, more than its bound {bound}")]
    OverBound {
        /// The field.
        field: String,
        /// The length read.
        len: usize,
        /// The bound.
        bound: usize,
    },
    /// A string is not UTF-8, has no NUL terminator, or a `wstring` unit is not UTF-16.
    #[error("{field}: {reason}")]
    BadString {
        /// The field.
        field: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A `bool` byte other than 0 or 1.
    #[error("{field}: {byte} is not a bool (0 or 1)")]
    BadBool {
        /// The field.
        field: String,
        /// The byte.
        byte: u8,
    },
}

/// Why a value cannot be encoded as the given type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The value's shape does not match the field's type.
    #[error("{field}: expected {expected}")]
    Mismatch {
        /// The field (`pose.position.x`).
        field: String,
        /// What its type needs.
        expected: String,
    },
    /// A string or sequence longer than its bound, or an array of the wrong length.
    #[error("{field}: {len} elements, {rule}")]
    Length {
        /// The field.
        field: String,
        /// Its length.
        len: usize,
        /// The rule it breaks.
        rule: String,
    },
}

/// Decodes `payload` (encapsulation header included) as a message of type `ty`.
///
/// # Examples
/// ```
/// let registry = tacto_graph::TypeRegistry::shipped();
/// let ty = registry.resolve("std_msgs/msg/String")?;
/// let bytes = [0, 1, 0, 0, 3, 0, 0, 0, b'h', b'i', 0, 0];
/// let value = tacto_graph::decode(&ty, &bytes)?;
/// assert_eq!(value.field("data"), Some(&tacto_graph::Value::String("hi".into())));
/// assert_eq!(tacto_graph::encode(&ty, &value)?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode(ty: &MessageType, payload: &[u8]) -> Result<Value, DecodeError> {
    if payload.len() < HEADER_LEN {
        return Err(DecodeError::MissingHeader(payload.len()));
    }
    let little = match [payload[0], payload[1]] {
        [0, 0] => false,
        [0, 1] => true,
        id => return Err(DecodeError::UnsupportedEncapsulation(id)),
    };
    let mut reader = Reader {
        data: &payload[HEADER_LEN..],
        pos: 0,
        little,
        path: Vec::new(),
    };
    reader.message(ty)
}

/// Encodes `value` as a message of type `ty`, header included, padded to 4 bytes.
pub fn encode(ty: &MessageType, value: &Value) -> Result<Vec<u8>, EncodeError> {
    let mut writer = Writer {
        out: vec![0, 1, 0, 0],
        path: Vec::new(),
    };
    writer.message(ty, value)?;
    while !writer.out.len().is_multiple_of(4) {
        writer.out.push(0);
    }
    Ok(writer.out)
}

fn is_byte(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Primitive(Primitive::Byte | Primitive::Char | Primitive::UInt8)
    )
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    little: bool,
    /// The field names down to the one being read, for errors.
    path: Vec<String>,
}

impl Reader<'_> {
    fn field_name(&self) -> String {
        self.path.join(".")
    }

    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let available = self.data.len() - self.pos;
        if n > available {
            return Err(DecodeError::Truncated {
                field: self.field_name(),
                offset: self.pos,
                wanted: n,
                available,
            });
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn align(&mut self, n: usize) -> Result<(), DecodeError> {
        let pad = (n - self.pos % n) % n;
        self.take(pad).map(|_| ())
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        self.align(N)?;
        let mut bytes: [u8; N] = self.take(N)?.try_into().expect("N bytes taken");
        if !self.little {
            bytes.reverse();
        }
        Ok(bytes)
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        self.fixed::<4>().map(u32::from_le_bytes)
    }

    /// A length prefix, checked against the bytes left (each element `min_size` bytes).
    fn length(&mut self, min_size: usize) -> Result<usize, DecodeError> {
        let len = self.u32()?;
        let available = self.data.len() - self.pos;
        let count = len as usize;
        if count.saturating_mul(min_size) > available {
            return Err(DecodeError::BadLength {
                field: self.field_name(),
                len,
                available,
            });
        }
        Ok(count)
    }

    fn message(&mut self, ty: &MessageType) -> Result<Value, DecodeError> {
        let mut fields = Vec::with_capacity(ty.fields.len());
        for field in &ty.fields {
            self.path.push(field.name.clone());
            let value = self.field(field)?;
            self.path.pop();
            fields.push((field.name.clone(), value));
        }
        Ok(Value::Message(fields))
    }

    fn field(&mut self, field: &Field) -> Result<Value, DecodeError> {
        let count = match field.container {
            Container::Single => return self.element(&field.kind),
            Container::Array(n) => n,
            Container::Bounded(bound) => {
                let n = self.length(1)?;
                if n > bound {
                    return Err(DecodeError::OverBound {
                        field: self.field_name(),
                        len: n,
                        bound,
                    });
                }
                n
            }
            Container::Unbounded => self.length(1)?,
        };
        if is_byte(&field.kind) {
            return Ok(Value::Bytes(self.take(count)?.to_vec()));
        }
        // Every element takes at least a byte: no more than the bytes left are reserved.
        let mut items = Vec::with_capacity(count.min(self.data.len() - self.pos));
        for _ in 0..count {
            items.push(self.element(&field.kind)?);
        }
        Ok(Value::List(items))
    }

    fn element(&mut self, kind: &Kind) -> Result<Value, DecodeError> {
        Ok(match kind {
            Kind::Primitive(p) => self.primitive(*p)?,
            Kind::String(bound) => Value::String(self.string(*bound)?),
            Kind::WString(bound) => Value::String(self.wstring(*bound)?),
            Kind::Message(ty) => self.message(ty)?,
        })
    }

    fn primitive(&mut self, p: Primitive) -> Result<Value, DecodeError> {
        Ok(match p {
            Primitive::Bool => match self.take(1)?[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                byte => {
                    return Err(DecodeError::BadBool {
                        field: self.field_name(),
                        byte,
                    });
                }
            },
            Primitive::Byte | Primitive::Char | Primitive::UInt8 => {
                Value::UInt(self.take(1)?[0].into())
            }
            Primitive::Int8 => Value::Int(i8::from_le_bytes(self.fixed::<1>()?).into()),
            Primitive::Int16 => Value::Int(i16::from_le_bytes(self.fixed()?).into()),
            Primitive::UInt16 => Value::UInt(u16::from_le_bytes(self.fixed()?).into()),
            Primitive::Int32 => Value::Int(i32::from_le_bytes(self.fixed()?).into()),
            Primitive::UInt32 => Value::UInt(u32::from_le_bytes(self.fixed()?).into()),
            Primitive::Int64 => Value::Int(i64::from_le_bytes(self.fixed()?)),
            Primitive::UInt64 => Value::UInt(u64::from_le_bytes(self.fixed()?)),
            Primitive::Float32 => Value::Float(f32::from_le_bytes(self.fixed()?).into()),
            Primitive::Float64 => Value::Float(f64::from_le_bytes(self.fixed()?)),
        })
    }

    fn string(&mut self, bound: Option<usize>) -> Result<String, DecodeError> {
        let len = self.length(1)?;
        let bad = |this: &Self, reason| DecodeError::BadString {
            field: this.field_name(),
            reason,
        };
        let Some(chars) = len.checked_sub(1) else {
            return Err(bad(
                self,
                "a string's length counts its NUL: 0 is not a length",
            ));
        };
        if let Some(bound) = bound.filter(|&b| chars > b) {
            return Err(DecodeError::OverBound {
                field: self.field_name(),
                len: chars,
                bound,
            });
        }
        let bytes = self.take(len)?;
        let (text, nul) = bytes.split_at(chars);
        let text = match (nul, std::str::from_utf8(text)) {
            ([0], Ok(text)) => text.to_owned(),
            ([0], Err(_)) => return Err(bad(self, "the string is not UTF-8")),
            _ => return Err(bad(self, "the string does not end with a NUL")),
        };
        Ok(text)
    }

    fn wstring(&mut self, bound: Option<usize>) -> Result<String, DecodeError> {
        let units = self.length(4)?;
        if let Some(bound) = bound.filter(|&b| units > b) {
            return Err(DecodeError::OverBound {
                field: self.field_name(),
                len: units,
                bound,
            });
        }
        let mut utf16 = Vec::with_capacity(units);
        for _ in 0..units {
            let unit = self.u32()?;
            let unit = u16::try_from(unit).map_err(|_| DecodeError::BadString {
                field: self.field_name(),
                reason: "a wstring unit above 0xFFFF",
            })?;
            utf16.push(unit);
        }
        String::from_utf16(&utf16).map_err(|_| DecodeError::BadString {
            field: self.field_name(),
            reason: "the wstring is not UTF-16 (an unpaired surrogate)",
        })
    }
}

struct Writer {
    out: Vec<u8>,
    path: Vec<String>,
}

impl Writer {
    fn mismatch(&self, expected: impl Into<String>) -> EncodeError {
        EncodeError::Mismatch {
            field: self.path.join("."),
            expected: expected.into(),
        }
    }

    fn align(&mut self, n: usize) {
        while !(self.out.len() - HEADER_LEN).is_multiple_of(n) {
            self.out.push(0);
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        self.align(bytes.len());
        self.out.extend_from_slice(bytes);
    }

    fn length(&mut self, len: usize) -> Result<(), EncodeError> {
        let len = u32::try_from(len).map_err(|_| EncodeError::Length {
            field: self.path.join("."),
            len,
            rule: "more than a 32-bit CDR length counts".into(),
        })?;
        self.put(&len.to_le_bytes());
        Ok(())
    }

    fn message(&mut self, ty: &MessageType, value: &Value) -> Result<(), EncodeError> {
        let Value::Message(values) = value else {
            return Err(self.mismatch(format!("a {} message", ty.name)));
        };
        for field in &ty.fields {
            self.path.push(field.name.clone());
            let value = values
                .iter()
                .find(|(n, _)| *n == field.name)
                .map(|(_, v)| v)
                .ok_or_else(|| self.mismatch("a value (the field is missing)"))?;
            self.field(field, value)?;
            self.path.pop();
        }
        Ok(())
    }

    fn field(&mut self, field: &Field, value: &Value) -> Result<(), EncodeError> {
        if field.container == Container::Single {
            return self.element(&field.kind, value);
        }
        let len = match value {
            Value::Bytes(b) => b.len(),
            Value::List(items) => items.len(),
            _ => return Err(self.mismatch("a list")),
        };
        let length_error = |rule: String| EncodeError::Length {
            field: self.path.join("."),
            len,
            rule,
        };
        match field.container {
            Container::Array(n) if len != n => {
                return Err(length_error(format!("an array of exactly {n}")));
            }
            Container::Bounded(n) if len > n => {
                return Err(length_error(format!("a sequence of at most {n}")));
            }
            Container::Array(_) => {}
            _ => self.length(len)?,
        }
        match value {
            Value::Bytes(bytes) if is_byte(&field.kind) => {
                self.out.extend_from_slice(bytes);
                Ok(())
            }
            Value::Bytes(bytes) => bytes
                .iter()
                .try_for_each(|&b| self.element(&field.kind, &Value::UInt(b.into()))),
            Value::List(items) => items.iter().try_for_each(|v| self.element(&field.kind, v)),
            _ => Err(self.mismatch("a list")),
        }
    }

    fn element(&mut self, kind: &Kind, value: &Value) -> Result<(), EncodeError> {
        match kind {
            Kind::Primitive(p) => self.primitive(*p, value),
            Kind::String(bound) => {
                let Value::String(text) = value else {
                    return Err(self.mismatch("a string"));
                };
                if let Some(bound) = bound.filter(|&b| text.len() > b) {
                    return Err(EncodeError::Length {
                        field: self.path.join("."),
                        len: text.len(),
                        rule: format!("a string of at most {bound} bytes"),
                    });
                }
                self.length(text.len() + 1)?;
                self.out.extend_from_slice(text.as_bytes());
                self.out.push(0);
                Ok(())
            }
            Kind::WString(bound) => {
                let Value::String(text) = value else {
                    return Err(self.mismatch("a string"));
                };
                let units: Vec<u16> = text.encode_utf16().collect();
                if let Some(bound) = bound.filter(|&b| units.len() > b) {
                    return Err(EncodeError::Length {
                        field: self.path.join("."),
                        len: units.len(),
                        rule: format!("a wstring of at most {bound} UTF-16 units"),
                    });
                }
                self.length(units.len())?;
                for unit in units {
                    self.put(&u32::from(unit).to_le_bytes());
                }
                Ok(())
            }
            Kind::Message(ty) => self.message(ty, value),
        }
    }

    fn primitive(&mut self, p: Primitive, value: &Value) -> Result<(), EncodeError> {
        let int = |w: &Self| -> Result<i128, EncodeError> {
            match value {
                Value::Int(i) => Ok((*i).into()),
                Value::UInt(u) => Ok((*u).into()),
                _ => Err(w.mismatch(format!("an integer ({})", p.rust()))),
            }
        };
        let range = |w: &Self, min: i128, max: i128| -> Result<i128, EncodeError> {
            let v = int(w)?;
            if v < min || v > max {
                return Err(w.mismatch(format!("{} in {min}..={max}, not {v}", p.rust())));
            }
            Ok(v)
        };
        // Each cast below is of a value just checked to be in the type's range.
        match p {
            Primitive::Bool => match value {
                Value::Bool(b) => self.put(&[u8::from(*b)]),
                _ => return Err(self.mismatch("a bool")),
            },
            Primitive::Byte | Primitive::Char | Primitive::UInt8 => {
                self.put(&[range(self, 0, u8::MAX.into())? as u8])
            }
            Primitive::Int8 => {
                self.put(&(range(self, i8::MIN.into(), i8::MAX.into())? as i8).to_le_bytes())
            }
            Primitive::Int16 => {
                self.put(&(range(self, i16::MIN.into(), i16::MAX.into())? as i16).to_le_bytes())
            }
            Primitive::UInt16 => self.put(&(range(self, 0, u16::MAX.into())? as u16).to_le_bytes()),
            Primitive::Int32 => {
                self.put(&(range(self, i32::MIN.into(), i32::MAX.into())? as i32).to_le_bytes())
            }
            Primitive::UInt32 => self.put(&(range(self, 0, u32::MAX.into())? as u32).to_le_bytes()),
            Primitive::Int64 => {
                self.put(&(range(self, i64::MIN.into(), i64::MAX.into())? as i64).to_le_bytes())
            }
            Primitive::UInt64 => self.put(&(range(self, 0, u64::MAX.into())? as u64).to_le_bytes()),
            Primitive::Float32 | Primitive::Float64 => {
                let v = match value {
                    Value::Float(f) => *f,
                    Value::Int(i) => *i as f64,
                    Value::UInt(u) => *u as f64,
                    _ => return Err(self.mismatch(format!("a number ({})", p.rust()))),
                };
                if p == Primitive::Float32 {
                    self.put(&(v as f32).to_le_bytes());
                } else {
                    self.put(&v.to_le_bytes());
                }
            }
        }
        Ok(())
    }
}
