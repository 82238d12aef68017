//! The ROS 2 IDL facts that plain Rust field types cannot carry: bounds, wide strings, arrays
//! longer than serde's 32, byte buffers.
//!
//! Message types generated from `.msg` files (by `tacto-msggen`) keep ordinary Rust field types
//! (`String`, `Vec<T>`, `[T; N]`), so that building a message is plain Rust. Where the IDL says
//! more than the Rust type, the field names a codec from this module in
//! `#[serde(with = "...")]`, and the codec enforces it on both sides:
//!
//! | IDL                | Rust field     | codec                                   |
//! |--------------------|----------------|-----------------------------------------|
//! | `string<=N`        | `String`       | [`BoundedString<N>`]                    |
//! | `wstring`          | `String`       | [`WString`]                             |
//! | `wstring<=N`       | `String`       | [`BoundedWString<N>`]                   |
//! | `T[N]`, N > 32     | `[T; N]`       | [`Array<C>`]                            |
//! | `T[<=N]`           | `Vec<T>`       | [`BoundedSequence<N, C>`]               |
//! | `byte[]`/`uint8[]` | `Vec<u8>`      | [`Bytes`] (one copy, not one call per byte) |
//!
//! `C` is the codec of the elements: [`Plain`] for anything with serde impls of its own, or
//! one of the string codecs above (`string<=8[<=4]` is `BoundedSequence<4, BoundedString<8>>`).
//! [`Sequence<C>`] is an unbounded `Vec<T>` whose elements need a codec (`wstring[]`).
//!
//! A value past its bound is an encoding error, never sent cut short; a bound exceeded on the
//! wire is a decoding error, found before the elements are read.
//!
//! # Examples
//! ```
//! use tacto::serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! #[serde(crate = "tacto::serde")]
//! struct Named {
//!     #[serde(with = "tacto::idl::BoundedString::<4>")]
//!     name: String,
//! }
//!
//! assert!(tacto::cdr::to_vec(&Named { name: "abcd".into() }).is_ok());
//! assert!(tacto::cdr::to_vec(&Named { name: "abcde".into() }).is_err());
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{self, Serialize, SerializeSeq, SerializeTuple, Serializer};
use serde::{Deserialize, Deserializer};

/// How one IDL type of Rust type `T` goes through serde.
pub trait Codec<T> {
    /// Encodes `value`.
    fn encode<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error>;
    /// Decodes a value.
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>;
}

/// `T`'s own serde implementation: the element codec for primitives, unbounded strings and
/// nested messages.
#[derive(Debug)]
pub struct Plain;

/// `string<=N`: a `String` of at most `N` bytes.
#[derive(Debug)]
pub struct BoundedString<const N: usize>;

/// `wstring`: a `String` sent as UTF-16, as ROS 2 does: a `u32` count of UTF-16 code units,
/// then each unit widened to 4 bytes (`wchar_t`), with no terminator.
#[derive(Debug)]
pub struct WString;

/// `wstring<=N`: a [`WString`] of at most `N` UTF-16 code units.
#[derive(Debug)]
pub struct BoundedWString<const N: usize>;

/// `T[N]` for any `N`, with element codec `C` (serde's own array impls stop at 32).
#[derive(Debug)]
pub struct Array<C>(PhantomData<C>);

/// `T[]` whose elements need codec `C`.
#[derive(Debug)]
pub struct Sequence<C>(PhantomData<C>);

/// `T[<=N]`: a `Vec<T>` of at most `N` elements, with element codec `C`.
#[derive(Debug)]
pub struct BoundedSequence<const N: usize, C>(PhantomData<C>);

/// `byte[]` and `uint8[]` as one block of bytes, the same CDR as a sequence of `u8`.
#[derive(Debug)]
pub struct Bytes;

/// Gives a codec the `serialize`/`deserialize` functions that `#[serde(with = "...")]` calls.
macro_rules! serde_with_functions {
    ($(impl[$($generics:tt)*] $codec:ty;)*) => {$(
        impl<$($generics)*> $codec {
            /// For `#[serde(with = "...")]`: encodes `value` with this codec.
            pub fn serialize<T, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error>
            where
                Self: Codec<T>,
            {
                <Self as Codec<T>>::encode(value, serializer)
            }

            /// For `#[serde(with = "...")]`: decodes a value with this codec.
            pub fn deserialize<'de, T, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>
            where
                Self: Codec<T>,
            {
                <Self as Codec<T>>::decode(deserializer)
            }
        }
    )*};
}

serde_with_functions! {
    impl[] Plain;
    impl[const N: usize] BoundedString<N>;
    impl[] WString;
    impl[const N: usize] BoundedWString<N>;
    impl[C] Array<C>;
    impl[C] Sequence<C>;
    impl[const N: usize, C] BoundedSequence<N, C>;
    impl[] Bytes;
}

impl<T: Serialize + DeserializeOwned> Codec<T> for Plain {
    fn encode<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

impl<const N: usize> Codec<String> for BoundedString<N> {
    fn encode<S: Serializer>(value: &String, serializer: S) -> Result<S::Ok, S::Error> {
        if value.len() > N {
            return Err(ser::Error::custom(format_args!(
                "string of {} bytes exceeds its bound string<={N}",
                value.len()
            )));
        }
        serializer.serialize_str(value)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
        // The string is no longer than the bytes received, so reading it first costs no more.
        let value = String::deserialize(deserializer)?;
        if value.len() > N {
            return Err(de::Error::custom(format_args!(
                "string of {} bytes exceeds its bound string<={N}",
                value.len()
            )));
        }
        Ok(value)
    }
}

/// Encodes a wide string, refusing more than `bound` UTF-16 code units.
fn encode_wide<S: Serializer>(
    value: &str,
    bound: Option<usize>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let units = value.encode_utf16().count();
    if let Some(bound) = bound.filter(|&bound| units > bound) {
        return Err(ser::Error::custom(format_args!(
            "wstring of {units} UTF-16 units exceeds its bound wstring<={bound}"
        )));
    }
    let mut seq = serializer.serialize_seq(Some(units))?;
    for unit in value.encode_utf16() {
        seq.serialize_element(&u32::from(unit))?;
    }
    seq.end()
}

/// Reads a wide string: UTF-16 code units, each in a `u32`.
struct WideVisitor {
    bound: Option<usize>,
}

impl<'de> Visitor<'de> for WideVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.bound {
            Some(bound) => write!(f, "a wstring of at most {bound} UTF-16 units"),
            None => f.write_str("a wstring"),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        let announced = seq.size_hint().unwrap_or(0);
        if self.bound.is_some_and(|bound| announced > bound) {
            return Err(de::Error::invalid_length(announced, &self));
        }
        let mut units = Vec::with_capacity(cautious::<u16>(announced));
        while let Some(unit) = seq.next_element::<u32>()? {
            if self.bound.is_some_and(|bound| units.len() == bound) {
                return Err(de::Error::invalid_length(units.len() + 1, &self));
            }
            let unit = u16::try_from(unit).map_err(|_| {
                de::Error::custom(format_args!("wstring unit {unit:#x} is not UTF-16"))
            })?;
            units.push(unit);
        }
        String::from_utf16(&units).map_err(de::Error::custom)
    }
}

impl Codec<String> for WString {
    fn encode<S: Serializer>(value: &String, serializer: S) -> Result<S::Ok, S::Error> {
        encode_wide(value, None, serializer)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_seq(WideVisitor { bound: None })
    }
}

impl<const N: usize> Codec<String> for BoundedWString<N> {
    fn encode<S: Serializer>(value: &String, serializer: S) -> Result<S::Ok, S::Error> {
        encode_wide(value, Some(N), serializer)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_seq(WideVisitor { bound: Some(N) })
    }
}

/// How many elements to reserve room for before reading them: what the length prefix
/// announces (which the decoder has checked against the bytes received), but at most 64 KiB
/// up front; past that the vector grows with the elements actually read.
fn cautious<T>(announced: usize) -> usize {
    const MAX_UP_FRONT: usize = 64 * 1024;
    announced.min(MAX_UP_FRONT / size_of::<T>().max(1))
}

/// Encodes one element with codec `C`.
struct Encode<'a, C, T>(&'a T, PhantomData<C>);

impl<C: Codec<T>, T> Serialize for Encode<'_, C, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        C::encode(self.0, serializer)
    }
}

/// Decodes one element with codec `C`.
struct Decode<C, T>(PhantomData<(C, T)>);

impl<C, T> Decode<C, T> {
    fn new() -> Self {
        Decode(PhantomData)
    }
}

impl<'de, C: Codec<T>, T> DeserializeSeed<'de> for Decode<C, T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        C::decode(deserializer)
    }
}

/// Reads the elements of a sequence or array, at most `bound` of them.
struct ElementsVisitor<C, T> {
    bound: Option<usize>,
    what: &'static str,
    codec: PhantomData<(C, T)>,
}

impl<'de, C: Codec<T>, T> Visitor<'de> for ElementsVisitor<C, T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.bound {
            Some(bound) => write!(f, "{} of at most {bound} elements", self.what),
            None => write!(f, "{}", self.what),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let announced = seq.size_hint().unwrap_or(0);
        if self.bound.is_some_and(|bound| announced > bound) {
            return Err(de::Error::invalid_length(announced, &self));
        }
        let mut elements = Vec::with_capacity(cautious::<T>(announced));
        while let Some(element) = seq.next_element_seed(Decode::<C, T>::new())? {
            if self.bound.is_some_and(|bound| elements.len() == bound) {
                return Err(de::Error::invalid_length(elements.len() + 1, &self));
            }
            elements.push(element);
        }
        Ok(elements)
    }
}

impl<C: Codec<T>, T, const N: usize> Codec<[T; N]> for Array<C> {
    fn encode<S: Serializer>(value: &[T; N], serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(N)?;
        for element in value {
            tuple.serialize_element(&Encode::<C, T>(element, PhantomData))?;
        }
        tuple.end()
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[T; N], D::Error> {
        let visitor = ElementsVisitor::<C, T> {
            bound: Some(N),
            what: "a fixed-size array",
            codec: PhantomData,
        };
        let elements = deserializer.deserialize_tuple(N, visitor)?;
        let found = elements.len();
        elements
            .try_into()
            .map_err(|_| de::Error::custom(format_args!("array of {found} elements, not {N}")))
    }
}

/// Encodes a sequence, refusing more than `bound` elements.
fn encode_sequence<C: Codec<T>, T, S: Serializer>(
    value: &[T],
    bound: Option<usize>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if let Some(bound) = bound.filter(|&bound| value.len() > bound) {
        return Err(ser::Error::custom(format_args!(
            "sequence of {} elements exceeds its bound [<={bound}]",
            value.len()
        )));
    }
    let mut seq = serializer.serialize_seq(Some(value.len()))?;
    for element in value {
        seq.serialize_element(&Encode::<C, T>(element, PhantomData))?;
    }
    seq.end()
}

impl<C: Codec<T>, T> Codec<Vec<T>> for Sequence<C> {
    fn encode<S: Serializer>(value: &Vec<T>, serializer: S) -> Result<S::Ok, S::Error> {
        encode_sequence::<C, T, S>(value, None, serializer)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(ElementsVisitor::<C, T> {
            bound: None,
            what: "a sequence",
            codec: PhantomData,
        })
    }
}

impl<C: Codec<T>, T, const N: usize> Codec<Vec<T>> for BoundedSequence<N, C> {
    fn encode<S: Serializer>(value: &Vec<T>, serializer: S) -> Result<S::Ok, S::Error> {
        encode_sequence::<C, T, S>(value, Some(N), serializer)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(ElementsVisitor::<C, T> {
            bound: Some(N),
            what: "a bounded sequence",
            codec: PhantomData,
        })
    }
}

/// Reads a byte sequence as one block.
struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of bytes")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
        Ok(bytes.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(bytes)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<u8>, A::Error> {
        ElementsVisitor::<Plain, u8> {
            bound: None,
            what: "a sequence of bytes",
            codec: PhantomData,
        }
        .visit_seq(seq)
    }
}

impl Codec<Vec<u8>> for Bytes {
    fn encode<S: Serializer>(value: &Vec<u8>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(value)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(BytesVisitor)
    }
}
