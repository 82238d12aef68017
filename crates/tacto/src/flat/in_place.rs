//! Decoding CDR into a flat message where it already lies (a zeroed heap allocation), field
//! by field, so that a flat message of any size comes from CDR without ever being on the
//! stack: serde's `Deserialize` returns its value, which a megabyte-sized array overflows.
//!
//! `#[tacto::message(.., flat)]` implements [`CdrInPlace`] for the type: each field in order,
//! through the same codec its `#[serde(with = "...")]` names, so the in-place decoder reads
//! exactly the CDR that serde's encoder writes. Arrays of numbers are read in one copy.

use std::sync::Arc;

use super::{Flat, FlatString};
use crate::cdr::{DecodeError, Reader};
use crate::idl::{Array, Plain};

/// A flat message decoded from CDR (encapsulation header included) straight into a zeroed
/// heap allocation, never on the stack, so of any size: what a flat subscription does with a
/// sample that arrives as CDR (over DDS, or from a publisher whose type is not flat).
///
/// Checks what [`cdr::from_bytes`](crate::cdr::from_bytes) checks: bad input is a
/// [`DecodeError`], and no length prefix is trusted before it is compared with the bytes
/// left.
///
/// # Examples
/// ```
/// use tacto::FlatString;
///
/// #[tacto::message("my_msgs/msg/Frame", flat)]
/// #[derive(Clone, Copy)]
/// struct Frame {
///     stamp_ns: i64,
///     camera: FlatString<16>,
///     #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
///     pixels: [u8; 4 << 20], // 4 MiB: more than a thread's stack may hold
/// }
///
/// let mut frame: Box<Frame> = tacto::flat::zeroed_box();
/// frame.camera.set("front")?;
/// frame.pixels[7] = 42;
/// let bytes = tacto::cdr::to_vec(&*frame)?; // serde encodes from a reference: no copy
/// let back: Box<Frame> = tacto::flat::from_cdr(&bytes)?;
/// assert_eq!((back.camera.as_str()?, back.pixels[7]), ("front", 42));
/// assert!(tacto::flat::from_cdr::<Frame>(&bytes[..bytes.len() - 8]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_cdr<T: Flat>(bytes: &[u8]) -> Result<Box<T>, DecodeError> {
    let mut value = super::zeroed_box::<T>();
    value.read_cdr(&mut Reader::new(bytes)?)?;
    Ok(value)
}

/// [`from_cdr`] into an `Arc`, as a subscription shares its samples: allocated zeroed as an
/// `Arc` and filled there, rather than moved from a `Box` (one copy of the message less).
#[doc(hidden)]
pub fn shared_from_cdr<T: Flat>(bytes: &[u8]) -> Result<Arc<T>, DecodeError> {
    let mut value = bytemuck::zeroed_arc::<T>();
    let place = Arc::get_mut(&mut value).expect("a new Arc has no other reference");
    place.read_cdr(&mut Reader::new(bytes)?)?;
    Ok(value)
}

/// A type whose CDR decodes into a value of it in place. Implemented for the numbers,
/// [`FlatString`], arrays of these and every flat message (by `#[tacto::message(.., flat)]`).
#[doc(hidden)]
pub trait CdrInPlace {
    /// Overwrites `self` with the next value in `reader`; on error `self` is partly written.
    fn read_cdr(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError>;

    /// [`read_cdr`](Self::read_cdr) of each element in turn; numbers read theirs in one copy.
    fn read_cdr_slice(items: &mut [Self], reader: &mut Reader<'_>) -> Result<(), DecodeError>
    where
        Self: Sized,
    {
        items.iter_mut().try_for_each(|item| item.read_cdr(reader))
    }
}

/// An [`idl`](crate::idl) codec that decodes a `T` in place, as `#[serde(with = "...")]`
/// names it on a flat message's field: the same CDR the codec encodes.
#[doc(hidden)]
pub trait CodecInPlace<T> {
    /// Overwrites `value` with the next value in `reader`.
    fn read_cdr(value: &mut T, reader: &mut Reader<'_>) -> Result<(), DecodeError>;

    /// [`read_cdr`](Self::read_cdr) of each element in turn.
    fn read_cdr_slice(items: &mut [T], reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        items
            .iter_mut()
            .try_for_each(|item| Self::read_cdr(item, reader))
    }
}

impl<T: CdrInPlace> CodecInPlace<T> for Plain {
    fn read_cdr(value: &mut T, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        value.read_cdr(reader)
    }
    fn read_cdr_slice(items: &mut [T], reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        T::read_cdr_slice(items, reader)
    }
}

impl<C: CodecInPlace<T>, T, const N: usize> CodecInPlace<[T; N]> for Array<C> {
    fn read_cdr(value: &mut [T; N], reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        C::read_cdr_slice(value, reader)
    }
}

impl<T: CdrInPlace, const N: usize> CdrInPlace for [T; N] {
    fn read_cdr(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        T::read_cdr_slice(self, reader)
    }
}

/// Numbers: each aligned to its size, a run of them one block.
macro_rules! numbers_in_place {
    ($($ty:ty),* $(,)?) => {$(
        impl CdrInPlace for $ty {
            fn read_cdr(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
                reader.numbers(std::slice::from_mut(self))
            }
            fn read_cdr_slice(items: &mut [Self], reader: &mut Reader<'_>) -> Result<(), DecodeError> {
                reader.numbers(items)
            }
        }
    )*};
}

numbers_in_place!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// ROS 2 has no 128-bit integer, and serde's CDR has none either: a flat type may hold one,
/// but cannot be decoded from CDR (nor encoded to it), as with serde.
macro_rules! no_cdr {
    ($($ty:ty),* $(,)?) => {$(
        impl CdrInPlace for $ty {
            fn read_cdr(&mut self, _: &mut Reader<'_>) -> Result<(), DecodeError> {
                Err(DecodeError::Unsupported { what: stringify!($ty) })
            }
        }
    )*};
}

no_cdr!(u128, i128);

/// As its serde form: ROS 2's `string<=N`, refused (as serde refuses it) if longer than `N`
/// bytes or holding a NUL.
impl<const N: usize> CdrInPlace for FlatString<N> {
    fn read_cdr(&mut self, reader: &mut Reader<'_>) -> Result<(), DecodeError> {
        self.set(reader.string()?)
            .map_err(|error| DecodeError::Custom(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tacto::message("tacto_test/msg/Parts", flat)]
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Parts {
        tag: u8,
        name: FlatString<5>,
        small: [i16; 3],
        #[serde(with = "tacto::idl::Array::<tacto::idl::Array::<tacto::idl::Plain>>")]
        grid: [[f32; 2]; 40],
        flags: [u8; 4],
        names: [FlatString<4>; 2],
        inner: Inner,
        last: u64,
    }

    #[tacto::message("tacto_test/msg/Inner", flat)]
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Inner {
        x: f64,
        label: FlatString<3>,
        pad: [u8; 5],
        counts: [u16; 4],
    }

    fn parts() -> Parts {
        Parts {
            tag: 7,
            name: FlatString::try_from("ab").unwrap(),
            small: [-1, 2, -3],
            grid: std::array::from_fn(|i| [i as f32, -(i as f32) / 4.0]),
            flags: [0xff, 0, 1, 2],
            names: [FlatString::try_from("abcd").unwrap(), FlatString::new()],
            inner: Inner {
                x: 1.5,
                label: FlatString::try_from("xyz").unwrap(),
                pad: [1, 2, 3, 4, 5],
                counts: [1, 0x0102, u16::MAX, 0],
            },
            last: u64::MAX - 1,
        }
    }

    #[test]
    fn in_place_reads_what_serde_writes_and_serde_reads() {
        let value = parts();
        let bytes = crate::cdr::to_vec(&value).unwrap();
        assert_eq!(*from_cdr::<Parts>(&bytes).unwrap(), value);
        assert_eq!(*shared_from_cdr::<Parts>(&bytes).unwrap(), value);
        assert_eq!(crate::cdr::from_bytes::<Parts>(&bytes).unwrap(), value);
    }

    #[test]
    fn big_endian_cdr_is_swapped() {
        // The same value as big-endian CDR, written by hand with the rules of `cdr`.
        let value = Inner {
            x: -2.25,
            label: FlatString::try_from("ok").unwrap(),
            pad: [9; 5],
            counts: [1, 0x0102, 0xfffe, 0],
        };
        let mut bytes = vec![0x00, 0x00, 0x00, 0x00];
        bytes.extend((-2.25f64).to_be_bytes());
        bytes.extend(3u32.to_be_bytes());
        bytes.extend(b"ok\0");
        bytes.extend([9; 5]);
        for count in value.counts {
            bytes.extend(count.to_be_bytes()); // at 20: aligned to 2 already
        }
        assert_eq!(*from_cdr::<Inner>(&bytes).unwrap(), value);
        assert_eq!(crate::cdr::from_bytes::<Inner>(&bytes).unwrap(), value);
    }

    #[test]
    fn bad_cdr_is_an_error_as_with_serde() {
        let good = crate::cdr::to_vec(&parts()).unwrap();
        // Every cut short: truncated, whether inside a number, a string or the grid.
        for len in 0..good.len() {
            let cut = &good[..len];
            assert!(from_cdr::<Parts>(cut).is_err(), "cut at {len}");
            assert!(
                crate::cdr::from_bytes::<Parts>(cut).is_err(),
                "cut at {len}"
            );
        }
        // `name` (at 4, after `tag` and its padding): a length beyond the bytes, one above
        // its bound, no NUL, not UTF-8, a NUL inside.
        let with_name = |len: u32, text: &[u8]| {
            let mut bytes = good[..8].to_vec();
            bytes.extend(len.to_le_bytes());
            bytes.extend(text);
            bytes.extend(&good[8 + 4 + 3..]); // what followed "ab\0"
            bytes
        };
        assert!(from_cdr::<Parts>(&with_name(2, b"ab")).is_err());
        for (len, text) in [
            (u32::MAX, &b"ab\0"[..]),
            (7, b"abcdef\0"),
            (3, b"abc"),
            (3, b"\xff\xfe\0"),
            (3, b"a\0\0"),
        ] {
            let bytes = with_name(len, text);
            assert!(
                from_cdr::<Parts>(&bytes).is_err(),
                "{len} {text:?} is refused"
            );
            assert!(crate::cdr::from_bytes::<Parts>(&bytes).is_err());
        }
        let mut xcdr2 = good.clone();
        xcdr2[1] = 0x07;
        assert!(matches!(
            from_cdr::<Parts>(&xcdr2),
            Err(DecodeError::UnsupportedEncapsulation { .. })
        ));
    }
}
