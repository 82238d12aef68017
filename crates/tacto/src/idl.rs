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
//! | `T[N]`, N > 32     | `[T; N]`       | [`Array<C>`] (of numbers: encoded in one copy) |
//! | `T[<=N]`           | `Vec<T>`       | [`BoundedSequence<N, C>`]               |
//! | `byte[]`/`uint8[]` | `Vec<u8>`      | [`Bytes`] (one copy, not one call per byte) |
//! | `float64[]`, `int32[]`, ... | `Vec<f64>`, `Vec<i32>`, ... | [`Numbers`] (one copy, not one call per number) |
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

use std::any::{Any, TypeId};
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

/// `T[]` of a fixed-size number type (`int8` to `uint64`, `float32`, `float64`) as one block,
/// the same CDR as a sequence of `T`: a sensor's 4 MiB of `float32` encodes in one copy
/// instead of a million calls. Other serde formats (human-readable ones such as JSON) see a
/// plain sequence.
///
/// # Examples
/// ```
/// use tacto::serde::{Deserialize, Serialize};
///
/// #[derive(Debug, PartialEq, Serialize, Deserialize)]
/// #[serde(crate = "tacto::serde")]
/// struct Scan {
///     #[serde(with = "tacto::idl::Numbers")]
///     ranges: Vec<f32>,
/// }
///
/// let scan = Scan { ranges: vec![1.5, 2.0, f32::INFINITY] };
/// let bytes = tacto::cdr::to_vec(&scan).unwrap();
/// // The count, then the numbers: as a sequence of `float32` is in CDR.
/// assert_eq!(&bytes[4..8], &3u32.to_le_bytes());
/// assert_eq!(&bytes[8..12], &1.5f32.to_le_bytes());
/// assert_eq!(tacto::cdr::from_bytes::<Scan>(&bytes).unwrap(), scan);
/// ```
#[derive(Debug)]
pub struct Numbers;

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
    impl[] Numbers;
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

impl<C: Codec<T> + 'static, T: 'static, const N: usize> Codec<[T; N]> for Array<C> {
    fn encode<S: Serializer>(value: &[T; N], serializer: S) -> Result<S::Ok, S::Error> {
        // Numbers in a binary format: one block (the same CDR as one by one, 20-50x faster).
        let serializer =
            match TypeId::of::<C>() == TypeId::of::<Plain>() && !serializer.is_human_readable() {
                true => match encode_number_array(value, serializer) {
                    Ok(encoded) => return encoded,
                    Err(serializer) => serializer,
                },
                false => serializer,
            };
        let mut tuple = serializer.serialize_tuple(N)?;
        for element in value {
            tuple.serialize_element(&Encode::<C, T>(element, PhantomData))?;
        }
        tuple.end()
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[T; N], D::Error> {
        let elements = decode_array::<C, T, N, D>(deserializer)?;
        let found = elements.len();
        elements
            .try_into()
            .map_err(|_| de::Error::custom(format_args!("array of {found} elements, not {N}")))
    }
}

/// `T[N]` on the heap, for arrays too large for the stack (ros2-performance's `byte[8388608]`):
/// the same CDR as `[T; N]`, and decoding never builds the array on the stack.
impl<C: Codec<T> + 'static, T: 'static, const N: usize> Codec<Box<[T; N]>> for Array<C> {
    #[allow(clippy::borrowed_box)] // The field's own type, as `#[serde(with)]` passes it.
    fn encode<S: Serializer>(value: &Box<[T; N]>, serializer: S) -> Result<S::Ok, S::Error> {
        <Self as Codec<[T; N]>>::encode(value, serializer)
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Box<[T; N]>, D::Error> {
        let elements = decode_array::<C, T, N, D>(deserializer)?;
        let found = elements.len();
        elements
            .into_boxed_slice()
            .try_into()
            .map_err(|_| de::Error::custom(format_args!("array of {found} elements, not {N}")))
    }
}

/// The elements of a `T[N]` as [`Array`] wrote them, in a `Vec` (exactly `N` of them unless the
/// input was malformed).
fn decode_array<'de, C: Codec<T> + 'static, T: 'static, const N: usize, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    let block = (TypeId::of::<C>() == TypeId::of::<Plain>() && !deserializer.is_human_readable())
        .then(number_array_name::<T>)
        .flatten();
    match block {
        // As `encode` wrote it: a block, which `tacto::cdr` hands over as one element and
        // another binary format as bytes.
        Some(name) => {
            deserializer.deserialize_newtype_struct(name, NumberArrayVisitor::<T, N>(PhantomData))
        }
        None => deserializer.deserialize_tuple(
            N,
            ElementsVisitor::<C, T> {
                bound: Some(N),
                what: "a fixed-size array",
                codec: PhantomData,
            },
        ),
    }
}

/// Reads an array that [`Array`] wrote as a block of numbers.
struct NumberArrayVisitor<T, const N: usize>(PhantomData<T>);

impl<'de, T: 'static, const N: usize> Visitor<'de> for NumberArrayVisitor<T, N> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array of {N} numbers")
    }

    /// `tacto::cdr`: one element, the whole array, read as its numbers' bytes at once (one
    /// copy, where number by number a megabyte of `byte[N]` took milliseconds).
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        seq.next_element_seed(ArrayBytes::<T, N>(PhantomData))?
            .ok_or_else(|| de::Error::invalid_length(0, &self))
    }

    /// Another binary format: the block as its bytes.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<Vec<T>, D::Error> {
        inner.deserialize_byte_buf(ArrayBytes::<T, N>(PhantomData))
    }
}

/// The bytes of a block of `N` numbers of type `T`, little-endian.
struct ArrayBytes<T, const N: usize>(PhantomData<T>);

impl<'de, T: 'static, const N: usize> DeserializeSeed<'de> for ArrayBytes<T, N> {
    type Value = Vec<T>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_tuple(N, self)
    }
}

impl<'de, T: 'static, const N: usize> Visitor<'de> for ArrayBytes<T, N> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the bytes of an array of {N} numbers")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<T>, E> {
        if bytes.len() != N * size_of::<T>() {
            return Err(E::invalid_length(bytes.len(), &self));
        }
        decode_number_array(bytes)
            .ok_or_else(|| E::invalid_type(de::Unexpected::Bytes(bytes), &self))
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

/// A number type that [`Numbers`] sends as a block: plain bytes, any pattern valid. Sealed:
/// `tacto::cdr` knows each one's block by name.
pub trait Number: sealed::Sealed + bytemuck::Pod + Serialize + DeserializeOwned {
    /// The newtype name that tells `tacto::cdr` a block of this type follows: a sequence's.
    #[doc(hidden)]
    const BLOCK: &'static str;
    /// The same for a fixed-size array's block ([`Array<Plain>`]), which has no count.
    #[doc(hidden)]
    const ARRAY: &'static str;
    /// The number from its little-endian bytes (`bytes.len()` is its size).
    #[doc(hidden)]
    fn from_le(bytes: &[u8]) -> Self;
    /// The number with its bytes in little-endian order.
    #[doc(hidden)]
    fn to_le(self) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! numbers {
    ($($ty:ty => $block:literal, $array:literal;)*) => {
        $(impl sealed::Sealed for $ty {}
        impl Number for $ty {
            const BLOCK: &'static str = $block;
            const ARRAY: &'static str = $array;
            fn from_le(bytes: &[u8]) -> Self {
                <$ty>::from_le_bytes(bytes.try_into().unwrap_or_default())
            }
            fn to_le(self) -> Self {
                <$ty>::from_ne_bytes(self.to_le_bytes())
            }
        })*

        /// What block the newtype `name` announces, if it is one.
        pub(crate) fn numbers_block(name: &str) -> Option<NumbersBlock> {
            match name {
                $($block => Some(NumbersBlock { size: size_of::<$ty>(), counted: true }),
                $array => Some(NumbersBlock { size: size_of::<$ty>(), counted: false }),)*
                _ => None,
            }
        }

        /// `value` as one block of numbers, if `T` is a number type: a fixed-size array's
        /// elements are all of one type, so the whole array is one copy, as for [`Numbers`].
        fn encode_number_array<T: 'static, const N: usize, S: Serializer>(
            value: &[T; N],
            serializer: S,
        ) -> Result<Result<S::Ok, S::Error>, S> {
            let any: &dyn Any = value;
            $(if let Some(array) = any.downcast_ref::<[$ty; N]>() {
                return Ok(serializer.serialize_newtype_struct(<$ty>::ARRAY, &Block(array)));
            })*
            Err(serializer)
        }

        /// The newtype name of a block of `T`'s for a fixed-size array, if `T` is a number type.
        fn number_array_name<T: 'static>() -> Option<&'static str> {
            $(if TypeId::of::<T>() == TypeId::of::<$ty>() {
                return Some(<$ty>::ARRAY);
            })*
            None
        }

        /// The numbers of a block of little-endian bytes, as `Vec<T>`, if
        /// `T` is a number type.
        fn decode_number_array<T: 'static>(bytes: &[u8]) -> Option<Vec<T>> {
            $(if TypeId::of::<T>() == TypeId::of::<$ty>() {
                let numbers: Vec<$ty> = match cfg!(target_endian = "little") {
                    // One copy into the new `Vec`, whatever the bytes' alignment.
                    true => bytemuck::pod_collect_to_vec(bytes),
                    false => bytes.chunks_exact(size_of::<$ty>()).map(<$ty as Number>::from_le).collect(),
                };
                return (Box::new(numbers) as Box<dyn Any>).downcast().ok().map(|v| *v);
            })*
            None
        }
    };
}

numbers! {
    u8 => "tacto::idl::Numbers<u8>", "tacto::idl::NumberArray<u8>";
    i8 => "tacto::idl::Numbers<i8>", "tacto::idl::NumberArray<i8>";
    i16 => "tacto::idl::Numbers<i16>", "tacto::idl::NumberArray<i16>";
    u16 => "tacto::idl::Numbers<u16>", "tacto::idl::NumberArray<u16>";
    i32 => "tacto::idl::Numbers<i32>", "tacto::idl::NumberArray<i32>";
    u32 => "tacto::idl::Numbers<u32>", "tacto::idl::NumberArray<u32>";
    i64 => "tacto::idl::Numbers<i64>", "tacto::idl::NumberArray<i64>";
    u64 => "tacto::idl::Numbers<u64>", "tacto::idl::NumberArray<u64>";
    f32 => "tacto::idl::Numbers<f32>", "tacto::idl::NumberArray<f32>";
    f64 => "tacto::idl::Numbers<f64>", "tacto::idl::NumberArray<f64>";
}

/// A block of numbers that `tacto::cdr` writes or reads at once: its numbers' size, and
/// whether a count comes first (a sequence) or not (an array).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumbersBlock {
    pub(crate) size: usize,
    pub(crate) counted: bool,
}

/// A block of numbers as the bytes `tacto::cdr` writes after a [`Number::BLOCK`] newtype.
struct Block<'a, T>(&'a [T]);

impl<T: Number> Serialize for Block<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if cfg!(target_endian = "little") {
            serializer.serialize_bytes(bytemuck::cast_slice(self.0))
        } else {
            let swapped: Vec<T> = self.0.iter().map(|n| n.to_le()).collect();
            serializer.serialize_bytes(bytemuck::cast_slice(&swapped))
        }
    }
}

/// Reads a block of little-endian numbers, or (from another format) a plain sequence.
struct NumbersVisitor<T>(PhantomData<T>);

impl<'de, T: Number> Visitor<'de> for NumbersVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of numbers")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<T>, E> {
        let size = size_of::<T>();
        if bytes.len() % size != 0 {
            return Err(E::invalid_length(bytes.len(), &self));
        }
        Ok(match cfg!(target_endian = "little") {
            // One copy into the new `Vec`, whatever the bytes' alignment.
            true => bytemuck::pod_collect_to_vec(bytes),
            false => bytes.chunks_exact(size).map(T::from_le).collect(),
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<Vec<T>, D::Error> {
        // A binary format that does not know the block: its bytes, as `Block` wrote them.
        inner.deserialize_byte_buf(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<T>, A::Error> {
        ElementsVisitor::<Plain, T> {
            bound: None,
            what: "a sequence of numbers",
            codec: PhantomData,
        }
        .visit_seq(seq)
    }
}

impl<T: Number> Codec<Vec<T>> for Numbers {
    fn encode<S: Serializer>(value: &Vec<T>, serializer: S) -> Result<S::Ok, S::Error> {
        match serializer.is_human_readable() {
            true => value.serialize(serializer),
            false => serializer.serialize_newtype_struct(T::BLOCK, &Block(value)),
        }
    }
    fn decode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        match deserializer.is_human_readable() {
            true => Vec::<T>::deserialize(deserializer),
            false => deserializer.deserialize_newtype_struct(T::BLOCK, NumbersVisitor(PhantomData)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary format that does not know `tacto::cdr`'s blocks: a newtype is its content,
    /// and the content here is bytes.
    struct OtherFormat<'de>(&'de [u8]);

    impl<'de> Deserializer<'de> for OtherFormat<'de> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            visitor.visit_borrowed_bytes(self.0)
        }
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            visitor.visit_newtype_struct(self)
        }
        fn is_human_readable(&self) -> bool {
            false
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct seq tuple tuple_struct map struct enum identifier
            ignored_any
        }
    }

    #[test]
    fn an_array_block_from_another_binary_format_is_read_from_its_bytes() {
        let bytes: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let array: [f32; 2] = Array::<Plain>::deserialize(OtherFormat(&bytes)).unwrap();
        assert_eq!(array, [1.5, -2.0]);
        let short = <Array<Plain> as Codec<[f32; 2]>>::decode(OtherFormat(&bytes[..7]));
        assert!(short.is_err(), "7 bytes are not two f32");
    }
}
