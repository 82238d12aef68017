//! `tf2_msgs/msg/TFMessage` as the listener reads it off the wire: the numbers of each
//! transform, and every frame name of the message in one string.
//!
//! Decoded as `TFMessage`, a message of 30 transforms is 62 allocations (the vector, two
//! strings a transform) made and freed for names the buffer only compares with those it
//! knows: half of what the listener spent per message. Here it is two: the links, and the
//! names one after the other. The listener's subscriptions take this type, which is the same
//! ROS type (name and hash), so it is the same topic: over a transport a sample is decoded
//! straight into it; from a publisher of `TFMessage` in this process it arrives encoded once
//! (the runtime's path between two Rust types of one ROS type).

use std::fmt;
use std::ops::Range;

use tacto::serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use tacto::serde::{Deserialize, Deserializer, Serialize, Serializer};
use tacto::{Message, Time};
use tacto_msgs::geometry_msgs::msg::{Transform, TransformStamped};
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
}

/// As `TFMessage`: no publisher sends this type, so the copy costs nothing that matters.
impl Serialize for TfWire {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_message().serialize(serializer)
    }
}

/// As `TFMessage` is decoded: the same structs, in the same order, through the same calls of
/// the deserializer (CDR's structs are sequences of their fields).
impl<'de> Deserialize<'de> for TfWire {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("TFMessage", &["transforms"], MessageVisitor)
    }
}

/// The most links reserved ahead from a sequence's announced length: the length comes from
/// the wire, and the decoder checks it against the bytes only as it reads.
const MAX_RESERVED: usize = 1024;

fn missing<E: de::Error>(what: &'static str) -> E {
    E::custom(format_args!("a TFMessage without its {what}"))
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = TfWire;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tf2_msgs/msg/TFMessage")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut fields: A) -> Result<TfWire, A::Error> {
        let mut wire = TfWire::default();
        (fields.next_element_seed(Links(&mut wire))?).ok_or_else(|| missing("transforms"))?;
        Ok(wire)
    }
}

/// `transforms`, appended to the message.
struct Links<'a>(&'a mut TfWire);

impl<'de> DeserializeSeed<'de> for Links<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Links<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of geometry_msgs/msg/TransformStamped")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut links: A) -> Result<(), A::Error> {
        let wire = self.0;
        let count = links.size_hint().unwrap_or(0).min(MAX_RESERVED);
        wire.links.reserve(count);
        // A name is a few bytes; the string grows if they are longer.
        wire.names.reserve(count * 16);
        while links.next_element_seed(OneLink(&mut *wire))?.is_some() {}
        Ok(())
    }
}

/// One `TransformStamped`, appended to the message.
struct OneLink<'a>(&'a mut TfWire);

impl<'de> DeserializeSeed<'de> for OneLink<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        const FIELDS: &[&str] = &["header", "child_frame_id", "transform"];
        deserializer.deserialize_struct("TransformStamped", FIELDS, self)
    }
}

impl<'de> Visitor<'de> for OneLink<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a geometry_msgs/msg/TransformStamped")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut fields: A) -> Result<(), A::Error> {
        let names = &mut self.0.names;
        let (stamp, frame) = (fields.next_element_seed(HeaderSeed(&mut *names))?)
            .ok_or_else(|| missing("header"))?;
        let child = (fields.next_element_seed(Name(&mut *names))?)
            .ok_or_else(|| missing("child_frame_id"))?;
        let transform: Transform = fields.next_element()?.ok_or_else(|| missing("transform"))?;
        self.0.links.push(Link {
            frame,
            child,
            stamp,
            transform,
        });
        Ok(())
    }
}

/// A `std_msgs/msg/Header`: its stamp, and its frame appended to the names.
struct HeaderSeed<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for HeaderSeed<'_> {
    type Value = (Time, Range<usize>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_struct("Header", &["stamp", "frame_id"], self)
    }
}

impl<'de> Visitor<'de> for HeaderSeed<'_> {
    type Value = (Time, Range<usize>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a std_msgs/msg/Header")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut fields: A) -> Result<Self::Value, A::Error> {
        let stamp: tacto::msg::builtin_interfaces::Time =
            fields.next_element()?.ok_or_else(|| missing("stamp"))?;
        let frame = (fields.next_element_seed(Name(self.0))?).ok_or_else(|| missing("frame_id"))?;
        Ok((Time::from(stamp), frame))
    }
}

/// A string, appended to the names: its range there.
struct Name<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for Name<'_> {
    type Value = Range<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name<'_> {
    type Value = Range<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a frame id")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Range<usize>, E> {
        let start = self.0.len();
        self.0.push_str(text);
        Ok(start..self.0.len())
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
        let wire: TfWire = tacto::cdr::from_bytes(&bytes).unwrap();
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
        let wire: TfWire = tacto::cdr::from_bytes(&bytes).unwrap();
        assert_eq!(tacto::cdr::to_vec(&wire).unwrap(), bytes);
    }

    #[test]
    fn a_cut_message_is_an_error_not_a_panic() {
        let bytes = tacto::cdr::to_vec(&message()).unwrap();
        for len in 0..bytes.len() - 4 {
            assert!(
                tacto::cdr::from_bytes::<TfWire>(&bytes[..len]).is_err(),
                "{len} bytes decoded"
            );
        }
    }

    #[test]
    fn a_length_past_the_bytes_reserves_little_and_fails() {
        let mut bytes = tacto::cdr::to_vec(&TFMessage::default()).unwrap();
        // The sequence's length, after the 4-byte encapsulation header: four billion.
        bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(tacto::cdr::from_bytes::<TfWire>(&bytes).is_err());
    }
}
