//! The [`Message`] trait: what every type sent over a topic implements.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A type that can travel on a topic.
///
/// Every message has a ROS 2 type name (`package/msg/Type`), so that a topic keeps one type
/// across processes and interoperates with ROS 2 nodes, and it serializes to ROS 2 CDR through
/// serde (see [`crate::cdr`]). Intra-process delivery never serializes: subscribers share the
/// publisher's value behind an `Arc`.
///
/// Define a message with [`#[tacto::message]`](crate::message), which derives serde's traits
/// through [`tacto::serde`](crate::serde) and implements this trait, so `tacto` is the only
/// dependency it needs; the type name is checked when the crate compiles. Fields go on the wire
/// in their declared order.
///
/// # Examples
/// ```
/// use tacto::Message;
///
/// #[tacto::message("my_msgs/msg/Range")]
/// #[derive(Debug, Default, Clone, PartialEq)]
/// struct Range {
///     distance_m: f32,
/// }
///
/// assert_eq!(Range::TYPE_NAME, "my_msgs/msg/Range");
/// ```
///
/// By hand, for a type the macro does not take (a generic one, or one with serde impls of its
/// own); here too, `tacto::serde` spares a serde dependency:
/// ```
/// use tacto::Message;
/// use tacto::serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// #[serde(crate = "tacto::serde")]
/// struct Stamped<T> {
///     nanos: i64,
///     value: T,
/// }
///
/// impl Message for Stamped<f32> {
///     const TYPE_NAME: &'static str = "my_msgs/msg/StampedFloat32";
/// }
///
/// let bytes = tacto::cdr::to_vec(&Stamped { nanos: 7, value: 1.5f32 }).unwrap();
/// assert_eq!(tacto::cdr::from_bytes::<Stamped<f32>>(&bytes).unwrap().value, 1.5);
/// ```
pub trait Message: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The ROS 2 type name, `package/msg/Type`, e.g. `std_msgs/msg/String`.
    const TYPE_NAME: &'static str;
    /// The ROS 2 type hash, `RIHS01_<64 hex>` (REP 2011), if known: computed from the `.msg`
    /// definition by `tacto-msggen` for every generated type, given by hand for others
    /// (`#[tacto::message("pkg/msg/T", hash = "RIHS01_...")]`). DDS endpoints send it in
    /// their USER_DATA as ROS 2 Jazzy does; `None` sends none, which peers accept.
    const TYPE_HASH: Option<&'static str> = None;

    /// The layout of a [`Flat`](crate::Flat) type, `None` for others: how the runtime, generic
    /// over `Message`, finds the flat case. Filled in by `#[tacto::message(.., flat)]`.
    #[doc(hidden)]
    const FLAT_LAYOUT: Option<crate::FlatLayout> = None;

    /// A flat message's bytes; `None` for other types.
    #[doc(hidden)]
    #[inline(always)]
    fn flat_bytes(&self) -> Option<&[u8]> {
        None
    }

    /// `bytes` read in place as a flat message, if they have its size and alignment; `None`
    /// for other types.
    #[doc(hidden)]
    #[inline(always)]
    fn flat_view(bytes: &[u8]) -> Option<&Self> {
        let _ = bytes;
        None
    }

    /// The type's own CDR decoder, into a new `Arc`, never on the stack: a flat type's reads
    /// in place (see [`flat::from_cdr`](crate::flat::from_cdr)); a type may also bring a
    /// reader written by hand for a hot path (tf's `/tf` wire type does). `None` for types
    /// without one, which serde decodes. A subscription tries this first for every sample.
    #[doc(hidden)]
    #[inline(always)]
    fn custom_decode_cdr(
        bytes: &[u8],
    ) -> Option<Result<std::sync::Arc<Self>, crate::cdr::DecodeError>> {
        let _ = bytes;
        None
    }
}
