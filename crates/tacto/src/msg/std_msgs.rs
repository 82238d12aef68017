//! `std_msgs`: the basic messages every ROS 2 installation has.

use serde::{Deserialize, Serialize};

use crate::message::Message;
use crate::msg::builtin_interfaces::Time;

/// A text message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct String {
    /// The text.
    pub data: std::string::String,
}

impl Message for String {
    const TYPE_NAME: &'static str = "std_msgs/msg/String";
}

/// When and in which coordinate frame some data was taken.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Header {
    /// When the data was taken.
    pub stamp: Time,
    /// The coordinate frame the data is in, e.g. `"base_link"`.
    pub frame_id: std::string::String,
}

impl Message for Header {
    const TYPE_NAME: &'static str = "std_msgs/msg/Header";
}

/// A message without content, for signals whose arrival is the whole news.
///
/// IDL structs cannot be empty, so ROS 2 gives every empty message this one placeholder byte,
/// and it is on the wire: keeping it as a field makes the encoding follow from the type alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Empty {
    /// Always 0; it exists only because IDL forbids empty structs.
    pub structure_needs_at_least_one_field: u8,
}

impl Message for Empty {
    const TYPE_NAME: &'static str = "std_msgs/msg/Empty";
}
