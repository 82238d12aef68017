//! `tf2_msgs/msg/TFMessage` as the listener reads it off the wire: the numbers of each
//! transform, and every frame name of the message in one string.
//!
//! Decoded as `TFMessage`, a message of 30 transforms is 62 allocations (the vector, two
//! strings a transform) made and freed for names the buffer only compares with those it
//! knows: half of what the listener spent per message. Here it is two: the links, and the
//! names one after the other. The listener's subscriptions take this type, which is the same
//! ROS type (name and hash), so it is the same topic: over a transport a sample is decoded
//! straight into it, by a reader of the CDR written for this one message rather than by serde
//! (see [`TfWire::from_cdr`]); from a publisher of `TFMessage` in this process it arrives
//! encoded once (the runtime's path between two Rust types of one ROS type).

use std::ops::Range;
use std::sync::Arc;

use tacto::cdr::DecodeError;
use tacto::serde::{Deserialize, Deserializer, Serialize, Serializer};
use tacto::{Message, Time};
use tacto_msgs::geometry_msgs::msg::{Quaternion, Transform, TransformStamped, Vector3};
use tacto_msgs::std_msgs::msg::Header;
use tacto_msgs::tf2_msgs::msg::TFMessage;

/// A `TFMessage` whose frame names share one string.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TfWire {
    /// Every frame name of the message, one after the other.
    names: String,
    links: Vec<Link>,
}

/// One transform of a [`TfWire`]: its frames as ranges of the message's names.
#[derive(Debug, Clone, PartialEq)]
struct Link {
    frame: Range<usize>,
    child: Range<usize>,
    stamp: Time,
    transform: Transform,
}

/// One transform of a [`TfWire`], as the buffer takes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkRef<'a> {
    /// `header.frame_id`: the parent.
    pub(crate) frame: &'a str,
    /// `child_frame_id`.
    pub(crate) child: &'a str,
    /// `header.stamp`.
    pub(crate) stamp: Time,
    /// The child frame in the parent.
    pub(crate) transform: &'a Transform,
}

impl<'a> From<&'a TransformStamped> for LinkRef<'a> {
    fn from(t: &'a TransformStamped) -> Self {
        LinkRef {
            frame: &t.header.frame_id,
            child: &t.child_frame_id,
            stamp: t.header.stamp.into(),
            transform: &t.transform,
        }
    }
}

impl TfWire {
    /// The transforms, in the message's order.
    pub(crate) fn links(&self) -> impl ExactSizeIterator<Item = LinkRef<'_>> {
        self.links.iter().map(|link| LinkRef {
            frame: &self.names[link.frame.clone()],
            child: &self.names[link.child.clone()],
            stamp: link.stamp,
            transform: &link.transform,
        })
    }

    /// True if the message's frames are `names`, link by link as `layout` places them.
    pub(crate) fn frames_are(&self, names: &str, layout: &[(Range<usize>, Range<usize>)]) -> bool {
        self.names == names
            && self.links.len() == layout.len()
            && (self.links.iter().zip(layout))
                .all(|(link, (frame, child))| link.frame == *frame && link.child == *child)
    }

    /// Copies the message's frame names and their places into `names` and `layout`.
    pub(crate) fn copy_frames(
        &self,
        names: &mut String,
        layout: &mut Vec<(Range<usize>, Range<usize>)>,
    ) {
        names.clone_from(&self.names);
        layout.clear();
        layout.extend(
            self.links
                .iter()
                .map(|l| (l.frame.clone(), l.child.clone())),
        );
    }

    /// The message as `TFMessage`.
    fn to_message(&self) -> TFMessage {
        let transforms = (self.links())
            .map(|link| TransformStamped {
                header: Header {
                    stamp: link.stamp.into(),
                    frame_id: link.frame.to_owned(),
                },
                child_frame_id: link.child.to_owned(),
                transform: link.transform.clone(),
            })
            .collect();
        TFMessage { transforms }
    }
}

impl Message for TfWire {
    const TYPE_NAME: &'static str = <TFMessage as Message>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <TFMessage as Message>::TYPE_HASH;

    /// By hand ([`TfWire::from_cdr`]), not by serde: a subscription decodes a sample with a
    /// type's own decoder when it has one.
    fn custom_decode_cdr(bytes: &[u8]) -> Option<Result<Arc<Self>, DecodeError>> {
        Some(TfWire::from_cdr(bytes).map(Arc::new))
    }
}

/// As `TFMessage`: no publisher sends this type, so the copy costs nothing that matters.
impl Serialize for TfWire {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_message().serialize(serializer)
    }
}

/// Through `TFMessage`: the subscriptions decode with [`Message::custom_decode_cdr`] above, so
/// this serves only code that asks serde for the type.
impl<'de> Deserialize<'de> for TfWire {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        TFMessage::deserialize(deserializer).map(|message| TfWire::from(&message))
    }
}

impl From<&TFMessage> for TfWire {
    fn from(message: &TFMessage) -> TfWire {
        let mut wire = TfWire::default();
        for t in &message.transforms {
            let frame = push(&mut wire.names, &t.header.frame_id);
            let child = push(&mut wire.names, &t.child_frame_id);
            wire.links.push(Link {
                frame,
                child,
                stamp: t.header.stamp.into(),
                transform: t.transform.clone(),
            });
        }
        wire
    }
}

/// Appends `text` to `names`: its range there.
fn push(names: &mut String, text: &str) -> Range<usize> {
    let start = names.len();
    names.push_str(text);
    start..names.len()
}

/// The most links reserved ahead from a sequence's announced length: the length comes from
/// the wire, and is checked against the bytes only as they are read.
const MAX_RESERVED: usize = 1024;

impl TfWire {
    /// Decodes a `TFMessage`'s CDR (encapsulation header included) with the rules and
    /// checks of [`tacto::cdr::from_bytes`]: either byte order, each number aligned to its
    /// size from the end of the header, strings NUL-terminated UTF-8 (length 0 read as ""),
    /// lengths checked against the bytes left; bytes after the message are ignored.
    ///
    /// By hand rather than through serde: the visitors of eight nested structs a transform
    /// cost as much as the insertion of the transform into the buffer.
    pub(crate) fn from_cdr(bytes: &[u8]) -> Result<TfWire, DecodeError> {
        let mut cdr = Cdr::new(bytes)?;
        let count = cdr.len()?;
        let mut wire = TfWire {
            // A name is a few bytes; the string grows if they are longer.
            names: String::with_capacity(count.min(MAX_RESERVED) * 16),
            links: Vec::with_capacity(count.min(MAX_RESERVED)),
        };
        for _ in 0..count {
            // `stamp.sec` is an int32: the same four bytes.
            let sec = cdr.u32()? as i32;
            let nanosec = cdr.u32()?;
            let frame = push(&mut wire.names, cdr.string()?);
            let child = push(&mut wire.names, cdr.string()?);
            let [x, y, z, qx, qy, qz, qw] = cdr.f64s()?;
            let stamp = tacto::msg::builtin_interfaces::Time { sec, nanosec };
            wire.links.push(Link {
                frame,
                child,
                stamp: Time::from(stamp),
                transform: Transform {
                    translation: Vector3 { x, y, z },
                    rotation: Quaternion {
                        x: qx,
                        y: qy,
                        z: qz,
                        w: qw,
                    },
                },
            });
        }
        Ok(wire)
    }
}

/// The length of the CDR encapsulation header, which alignment does not count.
const HEADER_LEN: usize = 4;

/// A cursor over a CDR body, erring as `tacto::cdr`'s decoder errs.
struct Cdr<'a> {
    rest: &'a [u8],
    /// Bytes read since the header: what alignment counts from.
    pos: usize,
    big_endian: bool,
}

impl<'a> Cdr<'a> {
    fn new(bytes: &'a [u8]) -> Result<Cdr<'a>, DecodeError> {
        let (header, rest) = (bytes.split_first_chunk::<HEADER_LEN>())
            .ok_or(DecodeError::MissingHeader { len: bytes.len() })?;
        // The last two bytes are options, which plain CDR does not need.
        let big_endian = match [header[0], header[1]] {
            [0x00, 0x00] => true,
            [0x00, 0x01] => false,
            id => return Err(DecodeError::UnsupportedEncapsulation { id }),
        };
        Ok(Cdr {
            rest,
            pos: 0,
            big_endian,
        })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let (bytes, rest) = (self.rest.split_at_checked(n)).ok_or(DecodeError::Truncated {
            offset: self.pos,
            wanted: n,
            available: self.rest.len(),
        })?;
        self.rest = rest;
        self.pos += n;
        Ok(bytes)
    }

    /// The next `N` bytes, after the padding that aligns them to `align`.
    fn aligned<const N: usize>(&mut self, align: usize) -> Result<[u8; N], DecodeError> {
        self.take(self.pos.next_multiple_of(align) - self.pos)?;
        let bytes = self.take(N)?;
        Ok(bytes.try_into().unwrap_or([0; N]))
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        let bytes = self.aligned::<4>(4)?;
        Ok(match self.big_endian {
            true => u32::from_be_bytes(bytes),
            false => u32::from_le_bytes(bytes),
        })
    }

    /// Seven `f64`s: a `Transform`'s translation, then its rotation.
    fn f64s(&mut self) -> Result<[f64; 7], DecodeError> {
        let mut out = [0.0; 7];
        for value in &mut out {
            let bytes = self.aligned::<8>(8)?;
            *value = match self.big_endian {
                true => f64::from_be_bytes(bytes),
                false => f64::from_le_bytes(bytes),
            };
        }
        Ok(out)
    }

    /// A string or sequence length, refused if the bytes left cannot hold it (each element
    /// takes at least a byte), so that a corrupt length drives no allocation.
    fn len(&mut self) -> Result<usize, DecodeError> {
        let offset = self.pos.next_multiple_of(4);
        let len = self.u32()?;
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

    fn string(&mut self) -> Result<&'a str, DecodeError> {
        let len = self.len()?;
        let offset = self.pos;
        // Length 0 is not valid CDR, but rmw_cyclonedds reads it as "", and so does tacto.
        match self.take(len)?.split_last() {
            None => Ok(""),
            Some((0, text)) => std::str::from_utf8(text)
                .map_err(|source| DecodeError::InvalidUtf8 { offset, source }),
            Some(_) => Err(DecodeError::MissingNul { offset }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message() -> TFMessage {
        let links = [("map", "odom", 1, 0.5), ("odom", "base_link", 2, -1.25)];
        let transforms = links
            .iter()
            .map(|&(frame, child, sec, x)| {
                let mut t = TransformStamped::default();
                (t.header.frame_id, t.child_frame_id) = (frame.into(), child.into());
                t.header.stamp.sec = sec;
                t.header.stamp.nanosec = 7;
                t.transform.translation.x = x;
                t.transform.rotation.z = 0.6;
                t.transform.rotation.w = 0.8;
                t
            })
            .collect();
        TFMessage { transforms }
    }

    #[test]
    fn a_tf_message_decodes_into_the_same_transforms_with_their_names() {
        let bytes = tacto::cdr::to_vec(&message()).unwrap();
        let wire = TfWire::from_cdr(&bytes).unwrap();
        assert_eq!(wire.names, "mapodomodombase_link");
        let links: Vec<_> = wire.links().collect();
        assert_eq!((links[1].frame, links[1].child), ("odom", "base_link"));
        assert_eq!(links[1].stamp, Time::from_nanos(2_000_000_007));
        assert_eq!(links[1].transform.translation.x, -1.25);
        assert_eq!(wire.to_message(), message());
    }

    #[test]
    fn it_encodes_to_the_bytes_of_the_tf_message() {
        let bytes = tacto::cdr::to_vec(&message()).unwrap();
        let wire = TfWire::from_cdr(&bytes).unwrap();
        assert_eq!(tacto::cdr::to_vec(&wire).unwrap(), bytes);
    }

    /// The serde decoder's answer for `bytes`, as `TFMessage`, in the wire type's terms.
    fn by_serde(bytes: &[u8]) -> Result<TfWire, String> {
        let message = tacto::cdr::from_bytes::<TFMessage>(bytes).map_err(|e| e.to_string())?;
        Ok(TfWire::from(&message))
    }

    fn by_hand(bytes: &[u8]) -> Result<TfWire, String> {
        TfWire::from_cdr(bytes).map_err(|e| e.to_string())
    }

    #[test]
    fn a_cut_message_fails_as_the_serde_decoder_fails() {
        let bytes = tacto::cdr::to_vec(&message()).unwrap();
        for len in 0..bytes.len() {
            let (hand, serde) = (by_hand(&bytes[..len]), by_serde(&bytes[..len]));
            assert_eq!(hand, serde, "{len} bytes");
        }
        // The last bytes are the padding-free tail of the last number: cut, it fails.
        assert!(by_hand(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn big_endian_cdr_decodes_as_the_serde_decoder_decodes_it() {
        // One link, written by hand in big-endian CDR: the length, the stamp, "a" and "b"
        // with their NULs, padding to 8, then seven numbers.
        let mut bytes = vec![0x00, 0x00, 0x00, 0x00];
        bytes.extend(1u32.to_be_bytes());
        bytes.extend(5i32.to_be_bytes());
        bytes.extend(6u32.to_be_bytes());
        bytes.extend(2u32.to_be_bytes());
        bytes.extend(b"a\0\0\0");
        bytes.extend(2u32.to_be_bytes());
        bytes.extend(b"b\0");
        bytes.extend([0; 6]);
        for x in [1.0f64, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8] {
            bytes.extend(x.to_be_bytes());
        }
        let wire = TfWire::from_cdr(&bytes).unwrap();
        assert_eq!(Ok(wire.clone()), by_serde(&bytes));
        let link = wire.links().next().unwrap();
        assert_eq!((link.frame, link.child), ("a", "b"));
        assert_eq!(link.stamp, Time::from_nanos(5_000_000_006));
        assert_eq!(link.transform.rotation.w, 0.8);
    }

    #[test]
    fn bad_strings_and_headers_fail_as_the_serde_decoder_fails() {
        let good = tacto::cdr::to_vec(&message()).unwrap();
        // "map" is at body offset 12 (length at 12, text at 16).
        let mut no_nul = good.clone();
        no_nul[4 + 16 + 3] = b'x';
        let mut not_utf8 = good.clone();
        not_utf8[4 + 16] = 0xff;
        let mut empty = good.clone();
        empty[4 + 12..4 + 16].copy_from_slice(&0u32.to_le_bytes());
        let mut xcdr2 = good.clone();
        xcdr2[1] = 0x07;
        for (what, bytes) in [
            ("no NUL", no_nul),
            ("not UTF-8", not_utf8),
            ("length 0", empty),
            ("XCDR2", xcdr2),
        ] {
            assert_eq!(by_hand(&bytes), by_serde(&bytes), "{what}");
        }
        assert!(by_hand(&[0, 1]).unwrap_err().contains("header"));
    }

    #[test]
    fn a_length_past_the_bytes_reserves_little_and_fails() {
        let mut bytes = tacto::cdr::to_vec(&TFMessage::default()).unwrap();
        // The sequence's length, after the 4-byte encapsulation header: four billion.
        bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let error = TfWire::from_cdr(&bytes).unwrap_err();
        assert!(matches!(
            error,
            DecodeError::LengthTooLarge { len: u32::MAX, .. }
        ));
        assert_eq!(Err(error.to_string()), by_serde(&bytes));
    }

    #[test]
    fn serde_decodes_it_through_the_tf_message() {
        let bytes = tacto::cdr::to_vec(&message()).unwrap();
        let wire: TfWire = tacto::cdr::from_bytes(&bytes).unwrap();
        assert_eq!(wire.to_message(), message());
    }
}
