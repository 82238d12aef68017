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
/// # Examples
/// ```
/// use serde::{Deserialize, Serialize};
/// use tacto::Message;
///
/// #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// struct Range {
///     distance_m: f32,
/// }
///
/// impl Message for Range {
///     const TYPE_NAME: &'static str = "my_msgs/msg/Range";
/// }
///
/// assert_eq!(Range::TYPE_NAME, "my_msgs/msg/Range");
/// ```
pub trait Message: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The ROS 2 type name, `package/msg/Type`, e.g. `std_msgs/msg/String`.
    const TYPE_NAME: &'static str;
}
