//! ROS 2 CDR: the bytes a message has on the wire, as rmw_cyclonedds writes them.
//!
//! Plain CDR (XCDR1), little-endian, behind the 4-byte encapsulation header `00 01 00 00`.
//! Primitives are aligned to their own size (at most 8), counted from the first byte after the
//! header; strings are a `u32` length that includes the trailing NUL, the bytes, then the NUL;
//! `Vec<T>` is a `u32` element count then the elements; `[T; N]`, tuples and structs are their
//! elements in order with nothing around them; `bool` is one byte. Like rmw_cyclonedds, the
//! encoder pads the whole payload with zeros to a multiple of 4 bytes, and the decoder ignores
//! whatever follows the message.
//!
//! # Why our own serializer rather than `cdr-encoding`
//! `cdr-encoding` 0.11 gets the encoder right for everything ROS uses, but its decoder accepts a
//! string whose last byte is not NUL (it logs a warning and drops that byte), where
//! rmw_cyclonedds rejects it, and its single error type cannot say which rule the input broke.
//! Neither can be fixed from outside its deserializer, and the format is small, so it lives here.
//!
//! Decoding never trusts a length: a string or sequence length is checked against the bytes
//! left before anything is allocated (every CDR element takes at least one byte), so a
//! malformed `0xFFFF_FFFF` costs nothing.

use serde::de::{self, DeserializeOwned, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{self, Impossible, Serialize};
use std::fmt::Display;
use std::mem::MaybeUninit;

/// The encapsulation header we write: CDR little-endian, options 0.
const CDR_LE: [u8; 4] = [0x00, 0x01, 0x00, 0x00];
const HEADER_LEN: usize = 4;

/// Why a value could not be encoded as CDR.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A string or sequence has more elements than a `u32` length prefix can count.
    #[error("length {len} does not fit the 32-bit CDR length prefix")]
    TooLong {
        /// The length that was too large.
        len: usize,
    },
    /// A sequence did not say its length up front (serde `serialize_seq(None)`), which CDR
    /// needs before the first element.
    #[error("sequence of unknown length: CDR writes the length before the elements")]
    UnknownLength,
    /// The value uses a serde construct that ROS 2 messages have no CDR form for.
    #[error("{what} cannot be encoded: ROS 2 CDR has no representation for it")]
    Unsupported {
        /// The construct, e.g. `"Option"` or `"map"`.
        what: &'static str,
    },
    /// A `Serialize` implementation reported its own error.
    #[error("{0}")]
    Custom(String),
    /// The buffer given to [`encode_to_slice`] is shorter than the encoding.
    #[error("the encoding does not fit the {len}-byte buffer")]
    BufferTooSmall {
        /// The buffer's length.
        len: usize,
    },
}

/// Why bytes could not be decoded as a CDR message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The buffer is shorter than the 4-byte encapsulation header.
    #[error("{len} bytes is too short for the 4-byte CDR encapsulation header")]
    MissingHeader {
        /// The length of the whole buffer.
        len: usize,
    },
    /// The encapsulation header names a representation other than plain CDR (`00 00` big- or
    /// `00 01` little-endian), e.g. XCDR2 (`00 06`/`00 07`) or parameter lists (`00 02`/`00 03`).
    #[error("unsupported CDR encapsulation {:02x} {:02x}: only plain CDR (XCDR1) is supported", id[0], id[1])]
    UnsupportedEncapsulation {
        /// The first two header bytes.
        id: [u8; 2],
    },
    /// The data ends before the message does.
    #[error("data ends early: {wanted} bytes needed at offset {offset}, {available} left")]
    Truncated {
        /// Where the missing bytes start, counted from after the encapsulation header.
        offset: usize,
        /// How many bytes the next item needs.
        wanted: usize,
        /// How many bytes are left.
        available: usize,
    },
    /// A string or sequence length prefix claims more bytes than are left.
    #[error("length prefix {len} at offset {offset} exceeds the {remaining} bytes left")]
    LengthTooLarge {
        /// The length prefix as read.
        len: u32,
        /// Where the length prefix is, counted from after the encapsulation header.
        offset: usize,
        /// How many bytes follow the prefix.
        remaining: usize,
    },
    /// A string's last byte is not the NUL terminator CDR requires.
    #[error("string at offset {offset} is not NUL-terminated")]
    MissingNul {
        /// Where the string's bytes start, counted from after the encapsulation header.
        offset: usize,
    },
    /// A string's bytes are not valid UTF-8.
    #[error("string at offset {offset} is not valid UTF-8: {source}")]
    InvalidUtf8 {
        /// Where the string's bytes start, counted from after the encapsulation header.
        offset: usize,
        /// What is wrong with the bytes.
        source: std::str::Utf8Error,
    },
    /// A `bool` byte is neither 0 nor 1.
    #[error("bool at offset {offset} is {value}, not 0 or 1")]
    InvalidBool {
        /// The byte as read.
        value: u8,
        /// Where it is, counted from after the encapsulation header.
        offset: usize,
    },
    /// The target type uses a serde construct that ROS 2 messages have no CDR form for.
    #[error("{what} cannot be decoded: ROS 2 CDR has no representation for it")]
    Unsupported {
        /// The construct, e.g. `"Option"` or `"map"`.
        what: &'static str,
    },
    /// A `Deserialize` implementation rejected the data.
    #[error("{0}")]
    Custom(String),
}

impl ser::Error for EncodeError {
    fn custom<T: Display>(msg: T) -> Self {
        Self::Custom(msg.to_string())
    }
}

impl de::Error for DecodeError {
    fn custom<T: Display>(msg: T) -> Self {
        Self::Custom(msg.to_string())
    }
}

/// Encodes `value` as a ROS 2 CDR payload, encapsulation header included.
///
/// # Examples
/// ```
/// use tacto::msg::builtin_interfaces::Time;
///
/// let time = Time { sec: 1, nanosec: 2 };
/// let bytes = tacto::cdr::to_vec(&time)?;
/// assert_eq!(
///     bytes,
///     [
///         0x00, 0x01, 0x00, 0x00, // CDR little-endian, options 0
///         0x01, 0x00, 0x00, 0x00, // sec: i32
///         0x02, 0x00, 0x00, 0x00, // nanosec: u32
///     ]
/// );
/// assert_eq!(tacto::cdr::from_bytes::<Time>(&bytes)?, time);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let mut buf = Vec::new();
    encode_into(value, &mut buf)?;
    Ok(buf)
}

/// Encodes `value` into `buf`, replacing its contents; `buf` keeps its capacity, so a publisher
/// that reuses one buffer stops allocating once it has seen its largest message.
///
/// On error `buf` holds a partial encoding and must not be sent.
pub fn encode_into<T: Serialize + ?Sized>(value: &T, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
    buf.clear();
    encode(value, buf)
}

/// The exact length of `value`'s encoding, header and padding included, without writing it:
/// what [`encode_to_slice`] needs, e.g. to loan a shared-memory slot of the right size.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
///
/// let msg = Text { data: "hi".into() };
/// assert_eq!(tacto::cdr::encoded_len(&msg)?, tacto::cdr::to_vec(&msg)?.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encoded_len<T: Serialize + ?Sized>(value: &T) -> Result<usize, EncodeError> {
    let mut count = Count(0);
    encode(value, &mut count)?;
    Ok(count.0)
}

/// [`encoded_len`], when counting costs less than copying the encoding would: `None` for a
/// value made mostly of small elements (a long sequence of numbers, counted one by one), or
/// one that does not encode.
///
/// For a transport that can either size its destination first and encode in place, or
/// encode into a buffer of its own and copy it: counting a byte buffer or a string takes one
/// step whatever its length, so a message of a few large ones is counted in nanoseconds
/// where copying it takes up to milliseconds; but counting a `float32[]` number by number
/// costs several times more than copying its bytes. The count gives up as soon as it can
/// tell.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
///
/// let text = Text { data: "x".repeat(1 << 20) };
/// assert_eq!(tacto::cdr::cheap_encoded_len(&text), Some(tacto::cdr::encoded_len(&text)?));
/// let numbers = vec![1.5f32; 1 << 20];
/// assert_eq!(tacto::cdr::cheap_encoded_len(&numbers), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cheap_encoded_len<T: Serialize + ?Sized>(value: &T) -> Option<usize> {
    let mut tally = Tally { len: 0, writes: 0 };
    encode(value, &mut tally).ok().map(|()| tally.len)
}

/// Encodes `value` at the start of `out`, which may be uninitialized (a slot loaned from
/// shared memory), in one pass; returns the encoding's length. Every byte up to that length is
/// written, padding included, so `out[..len]` is initialized afterwards.
///
/// Fails with [`EncodeError::BufferTooSmall`] if the encoding does not fit; size `out` with
/// [`encoded_len`].
///
/// # Examples
/// ```
/// use std::mem::MaybeUninit;
/// use tacto::msg::std_msgs::String as Text;
///
/// let msg = Text { data: "hi".into() };
/// let mut slot = [MaybeUninit::<u8>::uninit(); 64];
/// let len = tacto::cdr::encode_to_slice(&msg, &mut slot)?;
/// assert_eq!(len, tacto::cdr::encoded_len(&msg)?);
/// assert!(tacto::cdr::encode_to_slice(&msg, &mut slot[..len - 1]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_to_slice<T: Serialize + ?Sized>(
    value: &T,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize, EncodeError> {
    let mut slice = Slice { out, len: 0 };
    encode(value, &mut slice)?;
    Ok(slice.len)
}

/// A message whose CDR a transport can ask for in the form it needs, behind `dyn` (serde's
/// `Serialize` cannot be): its length, in place into a buffer, or in a new `Vec`. Implemented
/// for every `Serialize` type; see [`LinkWriter::write_message`](crate::transport::LinkWriter).
pub trait Encodable {
    /// [`encoded_len`] of the message.
    fn encoded_len(&self) -> Result<usize, EncodeError>;
    /// [`encode_to_slice`] of the message.
    fn encode_to_slice(&self, out: &mut [MaybeUninit<u8>]) -> Result<usize, EncodeError>;
    /// [`to_vec`] of the message.
    fn to_vec(&self) -> Result<Vec<u8>, EncodeError>;
    /// [`encode_into`] of the message: into a buffer the caller keeps and reuses.
    fn encode_into(&self, buf: &mut Vec<u8>) -> Result<(), EncodeError>;
    /// [`cheap_encoded_len`] of the message.
    fn cheap_encoded_len(&self) -> Option<usize>;
}

impl<T: Serialize> Encodable for T {
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        encoded_len(self)
    }
    fn encode_to_slice(&self, out: &mut [MaybeUninit<u8>]) -> Result<usize, EncodeError> {
        encode_to_slice(self, out)
    }
    fn to_vec(&self) -> Result<Vec<u8>, EncodeError> {
        to_vec(self)
    }
    fn encode_into(&self, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
        encode_into(self, buf)
    }
    fn cheap_encoded_len(&self) -> Option<usize> {
        cheap_encoded_len(self)
    }
}

/// The encapsulation header, the value, and the zero padding to a multiple of 4 bytes.
fn encode<T: Serialize + ?Sized, S: Sink>(value: &T, sink: &mut S) -> Result<(), EncodeError> {
    sink.bytes(&CDR_LE)?;
    value.serialize(&mut Encoder {
        sink,
        numbers: None,
    })?;
    // rmw_cyclonedds sends its payloads zero-padded to 4 bytes; matching it byte for byte
    // keeps recordings and captures comparable.
    let len = sink.len();
    sink.zeros(len.next_multiple_of(4) - len)
}

/// Where an encoding goes: a growing `Vec`, a bounded slice, or nowhere (counting only).
trait Sink {
    /// Bytes written so far, encapsulation header included.
    fn len(&self) -> usize;
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;
    fn zeros(&mut self, n: usize) -> Result<(), EncodeError>;
}

impl Sink for Vec<u8> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
    fn zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.resize(Vec::len(self) + n, 0);
        Ok(())
    }
}

/// Counts the bytes an encoding would take.
struct Count(usize);

impl Sink for Count {
    fn len(&self) -> usize {
        self.0
    }
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.0 += bytes.len();
        Ok(())
    }
    fn zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.0 += n;
        Ok(())
    }
}

/// Writes the encoder may make for free before counting them must pay for itself: a message
/// of a few hundred fields is counted in well under a microsecond.
const FREE_WRITES: usize = 256;
/// Bytes each further write must bring on average. Counting was measured at about 1 ns per
/// write (a primitive is two: its alignment, then its bytes) and copying at 0.08 ns per byte
/// (docs/benchmarks.md, "Encoding straight into Cyclone's sample"): they break even near 12
/// bytes a write.
const BYTES_PER_WRITE: usize = 16;

/// Counts like [`Count`], but stops (with an error no caller sees) once the writes outnumber
/// what the bytes so far warrant: [`FREE_WRITES`], then one per [`BYTES_PER_WRITE`] bytes.
struct Tally {
    len: usize,
    writes: usize,
}

impl Tally {
    fn add(&mut self, n: usize) -> Result<(), EncodeError> {
        self.len += n;
        self.writes += 1;
        if self.writes > FREE_WRITES + self.len / BYTES_PER_WRITE {
            return Err(EncodeError::BufferTooSmall { len: self.len });
        }
        Ok(())
    }
}

impl Sink for Tally {
    fn len(&self) -> usize {
        self.len
    }
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.add(bytes.len())
    }
    fn zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.add(n)
    }
}

/// Writes into a buffer of fixed length, possibly uninitialized.
struct Slice<'a> {
    out: &'a mut [MaybeUninit<u8>],
    len: usize,
}

impl Slice<'_> {
    fn next(&mut self, n: usize) -> Result<&mut [MaybeUninit<u8>], EncodeError> {
        let full = EncodeError::BufferTooSmall {
            len: self.out.len(),
        };
        let end = self
            .len
            .checked_add(n)
            .ok_or(EncodeError::TooLong { len: n })?;
        let next = self.out.get_mut(self.len..end).ok_or(full)?;
        self.len = end;
        Ok(next)
    }
}

impl Sink for Slice<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        // `write_copy_of_slice` is newer than the crate's MSRV; this compiles to a memcpy.
        for (to, from) in self.next(bytes.len())?.iter_mut().zip(bytes) {
            to.write(*from);
        }
        Ok(())
    }
    fn zeros(&mut self, n: usize) -> Result<(), EncodeError> {
        self.next(n)?.iter_mut().for_each(|byte| {
            byte.write(0);
        });
        Ok(())
    }
}

/// Decodes a ROS 2 CDR payload, encapsulation header included, little- or big-endian.
///
/// Bytes after the message (the writer's padding to 4 bytes) are ignored.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String;
///
/// let bytes = [
///     0x00, 0x01, 0x00, 0x00, // CDR little-endian, options 0
///     0x03, 0x00, 0x00, 0x00, // length 3: "hi" plus NUL
///     b'h', b'i', 0x00, // the characters, then NUL
///     0x00, // padding to a multiple of 4
/// ];
/// let msg: String = tacto::cdr::from_bytes(&bytes)?;
/// assert_eq!(msg.data, "hi");
/// assert_eq!(tacto::cdr::to_vec(&msg)?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    T::deserialize(&mut Decoder::new(bytes)?)
}

/// Reads CDR into a flat message already in place, field by field, with the rules and the
/// checks of [`from_bytes`]: what [`flat::from_cdr`](crate::flat::from_cdr) drives and the
/// code `#[tacto::message(.., flat)]` generates calls.
#[doc(hidden)]
pub struct Reader<'de>(Decoder<'de>);

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("offset", &self.0.pos)
            .finish_non_exhaustive()
    }
}

impl<'de> Reader<'de> {
    /// A reader of `bytes`, encapsulation header included.
    pub(crate) fn new(bytes: &'de [u8]) -> Result<Self, DecodeError> {
        Decoder::new(bytes).map(Reader)
    }

    /// Fills `out` with as many consecutive numbers of a primitive type (`T`'s size is its
    /// CDR alignment), the first aligned to its size: one copy, then a byte swap only if the
    /// data's byte order is not ours.
    pub(crate) fn numbers<T: bytemuck::Pod>(&mut self, out: &mut [T]) -> Result<(), DecodeError> {
        if out.is_empty() {
            return Ok(()); // As the encoder writes it: not even the padding.
        }
        let de = &mut self.0;
        let size = size_of::<T>();
        de.take(de.pos.next_multiple_of(size) - de.pos)?;
        let bytes = de.take(size_of_val(out))?;
        let into: &mut [u8] = bytemuck::cast_slice_mut(out);
        into.copy_from_slice(bytes);
        if de.big_endian != cfg!(target_endian = "big") {
            into.chunks_exact_mut(size).for_each(<[u8]>::reverse);
        }
        Ok(())
    }

    /// A string's text, checked as [`from_bytes`] checks a `String`'s: its length against
    /// the bytes left, its NUL, its UTF-8.
    pub(crate) fn string(&mut self) -> Result<&'de str, DecodeError> {
        struct Text;
        impl<'de> Visitor<'de> for Text {
            type Value = &'de str;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<&'de str, E> {
                Ok(text)
            }
        }
        de::Deserializer::deserialize_str(&mut self.0, Text)
    }
}

struct Encoder<'a, S> {
    /// Starts with the encapsulation header, which alignment does not count.
    sink: &'a mut S,
    /// Set while [`idl::Numbers`](crate::idl::Numbers) hands over a sequence of numbers (or
    /// [`idl::Array`](crate::idl::Array) an array of them) as one block of little-endian bytes.
    numbers: Option<crate::idl::NumbersBlock>,
}

impl<S: Sink> Encoder<'_, S> {
    /// Writes a primitive, after the zero padding that aligns it to its size.
    fn put<const N: usize>(&mut self, bytes: [u8; N]) -> Result<(), EncodeError> {
        let offset = self.sink.len() - HEADER_LEN;
        self.sink.zeros(offset.next_multiple_of(N) - offset)?;
        self.sink.bytes(&bytes)
    }

    fn put_len(&mut self, len: usize) -> Result<(), EncodeError> {
        let len = u32::try_from(len).map_err(|_| EncodeError::TooLong { len })?;
        self.put(len.to_le_bytes())
    }
}

fn unsupported<T>(what: &'static str) -> Result<T, EncodeError> {
    Err(EncodeError::Unsupported { what })
}

/// Implements the `serialize_*` methods of fixed-size numbers.
macro_rules! encode_numbers {
    ($($method:ident($ty:ty)),* $(,)?) => {$(
        fn $method(self, v: $ty) -> Result<(), EncodeError> {
            self.put(v.to_le_bytes())
        }
    )*};
}

impl<S: Sink> ser::Serializer for &mut Encoder<'_, S> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeStruct = Self;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Impossible<(), EncodeError>;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.put([u8::from(v)])
    }
    encode_numbers!(
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
    );
    fn serialize_char(self, _: char) -> Result<(), EncodeError> {
        // IDL `char` is one byte; a Rust `char` has no faithful CDR form, so use `u8`.
        unsupported("char")
    }
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        self.put_len(v.len() + 1)?;
        self.sink.bytes(v.as_bytes())?;
        self.sink.bytes(&[0])
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        let Some(block) = self.numbers.take() else {
            // `serde_bytes` buffers are `sequence<octet>`.
            self.put_len(v.len())?;
            return self.sink.bytes(v);
        };
        // Numbers: their count if a sequence's, the padding that aligns the first (none
        // without a first), then all of them as one block (each is aligned once the first is).
        let size = block.size;
        if block.counted {
            self.put_len(v.len() / size)?;
        }
        if v.is_empty() {
            return Ok(());
        }
        let offset = self.sink.len() - HEADER_LEN;
        self.sink.zeros(offset.next_multiple_of(size) - offset)?;
        self.sink.bytes(v)
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        unsupported("Option")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), EncodeError> {
        unsupported("Option")
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), EncodeError> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), EncodeError> {
        unsupported("enum")
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.numbers = crate::idl::numbers_block(name);
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), EncodeError> {
        unsupported("enum")
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, EncodeError> {
        self.put_len(len.ok_or(EncodeError::UnknownLength)?)?;
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, EncodeError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, EncodeError> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        unsupported("enum")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
        unsupported("map")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, EncodeError> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        unsupported("enum")
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

impl<S: Sink> ser::SerializeSeq for &mut Encoder<'_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

impl<S: Sink> ser::SerializeTuple for &mut Encoder<'_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

impl<S: Sink> ser::SerializeTupleStruct for &mut Encoder<'_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

impl<S: Sink> ser::SerializeStruct for &mut Encoder<'_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

struct Decoder<'de> {
    /// The bytes not read yet.
    rest: &'de [u8],
    /// How many bytes after the encapsulation header were read: alignment counts from there.
    pos: usize,
    big_endian: bool,
}

impl<'de> Decoder<'de> {
    /// A decoder of `bytes`, after checking their encapsulation header.
    fn new(bytes: &'de [u8]) -> Result<Self, DecodeError> {
        let (header, body) = bytes
            .split_first_chunk::<HEADER_LEN>()
            .ok_or(DecodeError::MissingHeader { len: bytes.len() })?;
        // The last two header bytes are options (XTypes puts the padding count there); plain CDR
        // decoding needs nothing from them.
        let [id0, id1, _, _] = *header;
        let big_endian = match [id0, id1] {
            [0x00, 0x00] => true,
            [0x00, 0x01] => false,
            id => return Err(DecodeError::UnsupportedEncapsulation { id }),
        };
        Ok(Decoder {
            rest: body,
            pos: 0,
            big_endian,
        })
    }

    fn truncated(&self, wanted: usize) -> DecodeError {
        DecodeError::Truncated {
            offset: self.pos,
            wanted,
            available: self.rest.len(),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'de [u8], DecodeError> {
        let (bytes, rest) = self.rest.split_at_checked(n).ok_or(self.truncated(n))?;
        self.rest = rest;
        self.pos += n;
        Ok(bytes)
    }

    /// Reads a primitive after skipping the padding that aligns it to its size, returning its
    /// bytes in little-endian order whatever the data's byte order.
    fn read<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        self.take(self.pos.next_multiple_of(N) - self.pos)?;
        let (bytes, rest) = self
            .rest
            .split_first_chunk::<N>()
            .ok_or(self.truncated(N))?;
        let mut bytes = *bytes;
        self.rest = rest;
        self.pos += N;
        if self.big_endian {
            bytes.reverse();
        }
        Ok(bytes)
    }

    /// Reads a string or sequence length, refusing one that the remaining bytes cannot hold
    /// (each element takes at least one byte), so a corrupt length never drives an allocation.
    fn read_len(&mut self) -> Result<usize, DecodeError> {
        let offset = self.pos.next_multiple_of(4);
        let len = u32::from_le_bytes(self.read()?);
        let remaining = self.rest.len();
        match usize::try_from(len) {
            Ok(n) if n <= remaining => Ok(n),
            _ => Err(DecodeError::LengthTooLarge {
                len,
                offset,
                remaining,
            }),
        }
    }
}

fn unsupported_de<T>(what: &'static str) -> Result<T, DecodeError> {
    Err(DecodeError::Unsupported { what })
}

/// Implements the `deserialize_*` methods of fixed-size numbers.
macro_rules! decode_numbers {
    ($($method:ident => $visit:ident($ty:ty)),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            visitor.$visit(<$ty>::from_le_bytes(self.read()?))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Decoder<'de> {
    type Error = DecodeError;

    decode_numbers! {
        deserialize_i8 => visit_i8(i8),
        deserialize_i16 => visit_i16(i16),
        deserialize_i32 => visit_i32(i32),
        deserialize_i64 => visit_i64(i64),
        deserialize_u8 => visit_u8(u8),
        deserialize_u16 => visit_u16(u16),
        deserialize_u32 => visit_u32(u32),
        deserialize_u64 => visit_u64(u64),
        deserialize_f32 => visit_f32(f32),
        deserialize_f64 => visit_f64(f64),
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DecodeError> {
        // CDR carries no type information: only a target type can say what the bytes are.
        unsupported_de("self-describing decoding (deserialize_any)")
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let offset = self.pos;
        match self.read::<1>()? {
            [0] => visitor.visit_bool(false),
            [1] => visitor.visit_bool(true),
            [value] => Err(DecodeError::InvalidBool { value, offset }),
        }
    }
    fn deserialize_char<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DecodeError> {
        unsupported_de("char")
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let len = self.read_len()?;
        let offset = self.pos;
        // Length 0 is not valid CDR, but rmw_cyclonedds reads it as "" and so do we.
        let text = match self.take(len)?.split_last() {
            None => "",
            Some((0, text)) => std::str::from_utf8(text)
                .map_err(|source| DecodeError::InvalidUtf8 { offset, source })?,
            Some(_) => return Err(DecodeError::MissingNul { offset }),
        };
        visitor.visit_borrowed_str(text)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let len = self.read_len()?;
        visitor.visit_borrowed_bytes(self.take(len)?)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DecodeError> {
        unsupported_de("Option")
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        let size = match crate::idl::numbers_block(name) {
            None => return visitor.visit_newtype_struct(self),
            // An array's block: a sequence of one element, the whole array, which the codec
            // reads with `deserialize_tuple(N)` as its numbers' bytes at once (only it knows N).
            Some(block) if !block.counted => {
                return visitor.visit_seq(ArrayBlock {
                    de: Some(self),
                    size: block.size,
                });
            }
            Some(block) => block.size,
        };
        // A sequence of numbers, handed to `idl::Numbers` as one block of little-endian bytes:
        // the count, checked against the bytes there are before anything is allocated.
        let offset = self.pos.next_multiple_of(4);
        let count = self.read_len()?;
        if count == 0 {
            return visitor.visit_borrowed_bytes(&[]);
        }
        self.take(self.pos.next_multiple_of(size) - self.pos)?;
        let len = count.checked_mul(size).filter(|&n| n <= self.rest.len());
        let Some(len) = len else {
            return Err(DecodeError::LengthTooLarge {
                len: u32::try_from(count).unwrap_or(u32::MAX),
                offset,
                remaining: self.rest.len(),
            });
        };
        let bytes = self.take(len)?;
        match self.big_endian {
            false => visitor.visit_borrowed_bytes(bytes),
            true => {
                let mut swapped = bytes.to_vec();
                swapped.chunks_exact_mut(size).for_each(<[u8]>::reverse);
                visitor.visit_byte_buf(swapped)
            }
        }
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let left = self.read_len()?;
        visitor.visit_seq(Elements { de: self, left })
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_seq(Elements {
            de: self,
            left: len,
        })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_tuple(len, visitor)
    }
    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DecodeError> {
        unsupported_de("map")
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_tuple(fields.len(), visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, DecodeError> {
        unsupported_de("enum")
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DecodeError> {
        unsupported_de("field identifiers")
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The elements of a sequence, array, tuple or struct, in order.
struct Elements<'a, 'de> {
    de: &'a mut Decoder<'de>,
    left: usize,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = DecodeError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// A fixed-size array of numbers that [`idl::Array`](crate::idl::Array) reads at once: one
/// element, the array.
struct ArrayBlock<'a, 'de> {
    /// Taken by the element; `None` once it was read.
    de: Option<&'a mut Decoder<'de>>,
    /// The size of one number.
    size: usize,
}

impl<'de> SeqAccess<'de> for ArrayBlock<'_, 'de> {
    type Error = DecodeError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, DecodeError> {
        match self.de.take() {
            None => Ok(None),
            Some(de) => seed
                .deserialize(WholeArray {
                    de,
                    size: self.size,
                })
                .map(Some),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.de.is_some()))
    }
}

/// The one element of an [`ArrayBlock`]: `deserialize_tuple(n)` gives its `n` numbers' bytes,
/// little-endian, after the padding that aligns the first (none for an empty array, as the
/// encoder writes it).
struct WholeArray<'a, 'de> {
    de: &'a mut Decoder<'de>,
    size: usize,
}

impl<'de> de::Deserializer<'de> for WholeArray<'_, 'de> {
    type Error = DecodeError;

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        let (de, size) = (self.de, self.size);
        if len == 0 {
            return visitor.visit_borrowed_bytes(&[]);
        }
        de.take(de.pos.next_multiple_of(size) - de.pos)?;
        // Checked against the bytes there are before anything is allocated.
        let bytes = de.take(len.saturating_mul(size))?;
        match de.big_endian {
            false => visitor.visit_borrowed_bytes(bytes),
            true => {
                let mut swapped = bytes.to_vec();
                swapped.chunks_exact_mut(size).for_each(<[u8]>::reverse);
                visitor.visit_byte_buf(swapped)
            }
        }
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DecodeError> {
        unsupported_de("an array block read other than as a whole (deserialize_tuple)")
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple_struct map struct enum
        identifier ignored_any
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
