//! Flat messages: types with a fixed layout that travel between processes as their own bytes,
//! written into a loaned shared-memory slot and read there in place (docs/messages.md).

use std::fmt;
use std::str::Utf8Error;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::message::Message;

mod in_place;

pub use in_place::from_cdr;
#[doc(hidden)]
pub use in_place::{CdrInPlace, CodecInPlace, shared_from_cdr};

/// The strictest alignment a flat type may have: a shared-memory slot's payload is aligned
/// to it (the sample header before it is aligned so), whatever the type. 16 covers every
/// primitive (`u128` included) and so every [`Pod`](bytemuck::Pod) type without an
/// `#[repr(align)]` of its own.
pub const MAX_ALIGN: usize = 16;

/// A message whose bytes are its wire form between processes of one host: `#[repr(C)]`, no
/// padding, every field itself flat, any bit pattern a valid value ([`bytemuck::Pod`]). Bytes
/// written by another process can therefore never make an invalid value, and a subscriber
/// reads a received sample in its shared-memory slot without decoding and without `unsafe`.
///
/// Declare one with `#[tacto::message("pkg/msg/Type", flat)]`, which adds `#[repr(C)]`,
/// derives `Pod` and `Zeroable` (through [`tacto::bytemuck`](crate::bytemuck)) and implements
/// this trait: a field that is not flat (`String`, `Vec`, `bool`, a reference) or padding
/// between fields is a compile error. Strings go inline as [`FlatString<N>`]; arrays longer
/// than 32 need [`idl::Array`](crate::idl::Array) for their CDR form, which other transports
/// (DDS) still use. A flat message that arrives as CDR is decoded in place, on the heap, at
/// any size ([`from_cdr`]).
///
/// # Examples
/// ```
/// use tacto::{Flat, FlatString};
///
/// #[tacto::message("my_msgs/msg/Frame", flat)]
/// #[derive(Clone, Copy)]
/// struct Frame {
///     stamp_ns: i64,
///     camera: FlatString<16>,
///     #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
///     pixels: [u8; 64],
/// }
///
/// let mut frame: Box<Frame> = tacto::flat::zeroed_box(); // never on the stack
/// frame.camera.set("front")?;
/// assert_eq!(frame.camera.as_str()?, "front");
/// assert_eq!(tacto::bytemuck::bytes_of(&*frame).len(), 8 + 16 + 64);
/// assert_eq!(Frame::LAYOUT.size, 88);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A type with a heap field is not flat:
/// ```compile_fail
/// #[tacto::message("my_msgs/msg/Named", flat)]
/// #[derive(Clone, Copy)]
/// struct Named {
///     name: String,
/// }
/// ```
///
/// Nor is one with padding (here 7 bytes after `id`), or a `bool` (only 0 and 1 are valid):
/// ```compile_fail
/// #[tacto::message("my_msgs/msg/Padded", flat)]
/// #[derive(Clone, Copy)]
/// struct Padded {
///     id: u8,
///     value: f64,
/// }
/// ```
/// ```compile_fail
/// #[tacto::message("my_msgs/msg/Switch", flat)]
/// #[derive(Clone, Copy)]
/// struct Switch {
///     on: bool,
/// }
/// ```
///
/// Nor does a serde attribute that changes the CDR behind the in-place decoder's back: on a
/// field only `with` (naming an [`idl`](crate::idl) codec) and `rename` are taken, and the
/// type may not be sent as another (`from`, `try_from`, `into`):
/// ```compile_fail
/// #[tacto::message("my_msgs/msg/Hidden", flat)]
/// #[derive(Clone, Copy)]
/// struct Hidden {
///     #[serde(skip)]
///     secret: u64,
///     value: u64,
/// }
/// ```
/// ```compile_fail
/// #[tacto::message("my_msgs/msg/Seconds", flat)]
/// #[derive(Clone, Copy)]
/// #[serde(into = "u64")] // sent as another type
/// struct Seconds {
///     value: u64,
/// }
/// # impl From<Seconds> for u64 { fn from(s: Seconds) -> u64 { s.value } }
/// ```
pub trait Flat: Message + bytemuck::Pod + CdrInPlace {
    /// What a receiver checks before it reads a sample's bytes as this type.
    const LAYOUT: FlatLayout;
}

/// The identity of a flat type's byte layout, sent with every flat sample: a receiver reads
/// the bytes in place only if its own type has the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlatLayout {
    /// `size_of` the type: the sample's length.
    pub size: u64,
    /// A hash (FNV-1a, 64 bits) of the ROS type name, the size, the alignment and each field's
    /// name and Rust type as written: two types differ here unless they are declared alike.
    pub hash: u64,
}

impl FlatLayout {
    /// The layout of a type named `type_name` with `size` and `align`, whose fields are
    /// `fields` (names and types as the macro writes them).
    #[doc(hidden)]
    pub const fn new(type_name: &str, size: usize, align: usize, fields: &str) -> FlatLayout {
        let mut hash = fnv(FNV_OFFSET, type_name.as_bytes());
        hash = fnv(hash, &(size as u64).to_le_bytes());
        hash = fnv(hash, &(align as u64).to_le_bytes());
        hash = fnv(hash, fields.as_bytes());
        FlatLayout {
            size: size as u64,
            hash,
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

const fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    hash
}

/// A flat message of any size, zeroed, allocated on the heap without passing the stack (an
/// 8 MiB image would overflow it): to fill, then publish with
/// [`Publisher::publish_shared`](crate::Publisher::publish_shared)`(Arc::from(boxed))`
/// (`Arc::from` moves it heap to heap). [`Publisher::loan_flat`](crate::Publisher::loan_flat)
/// does this by itself when it lends no shared-memory slot.
pub fn zeroed_box<T: Flat>() -> Box<T> {
    bytemuck::zeroed_box()
}

/// The hooks `#[tacto::message(.., flat)]` fills into [`Message`]'s hidden items.
#[doc(hidden)]
pub fn view<T: Flat>(bytes: &[u8]) -> Option<&T> {
    bytemuck::try_from_bytes(bytes).ok()
}

/// See [`view`].
#[doc(hidden)]
pub fn bytes<T: Flat>(message: &T) -> &[u8] {
    bytemuck::bytes_of(message)
}

/// A string of at most `N` bytes stored inline in `N` bytes, NUL-terminated and NUL-padded
/// if shorter (a C string, as the Autoware reference system's messages hold theirs): a
/// [`Flat`] message's string field.
///
/// Its CDR form (serde) is ROS 2's `string<=N`: the bytes up to the first NUL, so a flat type
/// keeps a ROS wire form for DDS and for Rust types that are not flat.
///
/// Its bytes may come from another process, so [`as_str`](Self::as_str) checks them: up to
/// the first NUL (or all `N` if there is none), they must be UTF-8.
///
/// # Examples
/// ```
/// use tacto::FlatString;
///
/// let mut name = FlatString::<8>::new();
/// name.set("lidar")?;
/// assert_eq!(name.as_str()?, "lidar");
/// assert!(name.set("too long!").is_err()); // 9 bytes do not fit 8
/// assert!(name.set("a\0b").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct FlatString<const N: usize>([u8; N]);

// SAFETY: a `[u8; N]` behind `repr(transparent)`: no padding, all zeroes valid.
unsafe impl<const N: usize> bytemuck::Zeroable for FlatString<N> {}
// SAFETY: as above, and every bit pattern of `[u8; N]` is valid; `as_str` checks the UTF-8.
unsafe impl<const N: usize> bytemuck::Pod for FlatString<N> {}

/// Why a [`FlatString`] refused a string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlatStringError {
    /// Longer than the `N` bytes the field holds.
    #[error("a string of {len} bytes does not fit {capacity} bytes")]
    TooLong {
        /// The string's length in bytes.
        len: usize,
        /// `N`.
        capacity: usize,
    },
    /// Holds a NUL byte, which would end it early.
    #[error("a NUL byte at {at} would end the string there")]
    Nul {
        /// Its byte offset.
        at: usize,
    },
}

impl<const N: usize> FlatString<N> {
    /// The empty string.
    pub const fn new() -> Self {
        FlatString([0; N])
    }

    /// Stores `text`, NUL-padded; refuses one longer than `N` bytes or holding a NUL.
    pub fn set(&mut self, text: &str) -> Result<(), FlatStringError> {
        let bytes = text.as_bytes();
        if let Some(at) = bytes.iter().position(|&b| b == 0) {
            return Err(FlatStringError::Nul { at });
        }
        if bytes.len() > N {
            return Err(FlatStringError::TooLong {
                len: bytes.len(),
                capacity: N,
            });
        }
        self.0[..bytes.len()].copy_from_slice(bytes);
        self.0[bytes.len()..].fill(0);
        Ok(())
    }

    /// The string: the bytes up to the first NUL (all `N` if there is none), if UTF-8.
    pub fn as_str(&self) -> Result<&str, Utf8Error> {
        std::str::from_utf8(self.as_bytes())
    }

    /// The bytes up to the first NUL, or all `N`.
    pub fn as_bytes(&self) -> &[u8] {
        let len = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        &self.0[..len]
    }
}

impl<const N: usize> Default for FlatString<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> TryFrom<&str> for FlatString<N> {
    type Error = FlatStringError;

    fn try_from(text: &str) -> Result<Self, FlatStringError> {
        let mut string = Self::new();
        string.set(text)?;
        Ok(string)
    }
}

impl<const N: usize> fmt::Debug for FlatString<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Ok(text) => fmt::Debug::fmt(text, f),
            Err(_) => write!(f, "FlatString({:?})", self.as_bytes()),
        }
    }
}

/// As ROS 2's `string<=N`: the bytes up to the first NUL; bytes that are not UTF-8 cannot be
/// encoded (a CDR string is UTF-8).
impl<const N: usize> Serialize for FlatString<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.as_str().map_err(serde::ser::Error::custom)?;
        serializer.serialize_str(text)
    }
}

impl<'de, const N: usize> Deserialize<'de> for FlatString<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bounded<const N: usize>;
        impl<const N: usize> Visitor<'_> for Bounded<N> {
            type Value = FlatString<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a string of at most {N} bytes without NUL")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<FlatString<N>, E> {
                FlatString::try_from(text).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Bounded::<N>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_string_keeps_what_fits_and_refuses_the_rest() {
        let mut s = FlatString::<4>::new();
        assert_eq!(s.as_str(), Ok(""));
        s.set("abcd").unwrap(); // exactly N: no terminator needed
        assert_eq!(s.as_str(), Ok("abcd"));
        s.set("xy").unwrap(); // shorter: padded, the old bytes gone
        assert_eq!(s.as_str(), Ok("xy"));
        assert_eq!(bytemuck::bytes_of(&s), b"xy\0\0");
        assert_eq!(
            s.set("abcde"),
            Err(FlatStringError::TooLong {
                len: 5,
                capacity: 4
            })
        );
        assert_eq!(s.set("a\0"), Err(FlatStringError::Nul { at: 1 }));
        assert_eq!(s.as_str(), Ok("xy"), "a refused string changes nothing");
        s.set("é").unwrap();
        assert_eq!(s.as_str(), Ok("é"));
    }

    #[test]
    fn bytes_from_elsewhere_that_are_not_utf8_are_an_error_not_a_panic() {
        let s: FlatString<4> = bytemuck::cast(*b"a\xffb\0");
        assert!(s.as_str().is_err());
        assert_eq!(s.as_bytes(), b"a\xffb");
        assert!(crate::cdr::to_vec(&s).is_err());
        assert_eq!(format!("{s:?}"), "FlatString([97, 255, 98])");
    }

    #[test]
    fn a_flat_string_goes_through_cdr_as_a_bounded_string() {
        let s = FlatString::<8>::try_from("hello").unwrap();
        let bytes = crate::cdr::to_vec(&s).unwrap();
        // Length with its terminator, as a CDR string: 6, then "hello\0".
        assert_eq!(&bytes[4..8], &6u32.to_le_bytes());
        assert_eq!(&bytes[8..14], b"hello\0");
        assert_eq!(crate::cdr::from_bytes::<FlatString<8>>(&bytes).unwrap(), s);
        let long = crate::cdr::to_vec(&"too long!").unwrap();
        assert!(crate::cdr::from_bytes::<FlatString<8>>(&long).is_err());
    }

    #[test]
    fn layouts_differ_by_name_size_alignment_and_fields() {
        let base = FlatLayout::new("a/msg/T", 8, 8, "x:u64;");
        assert_eq!(base, FlatLayout::new("a/msg/T", 8, 8, "x:u64;"));
        for other in [
            FlatLayout::new("a/msg/U", 8, 8, "x:u64;"),
            FlatLayout::new("a/msg/T", 8, 4, "x:u64;"),
            FlatLayout::new("a/msg/T", 8, 8, "y:u64;"),
            FlatLayout::new("a/msg/T", 8, 8, "x:f64;"),
        ] {
            assert_ne!(base.hash, other.hash);
        }
    }
}
