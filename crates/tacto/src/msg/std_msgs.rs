//! `std_msgs`: the basic messages every ROS 2 installation has.

use crate::msg::builtin_interfaces::Time;

/// A text message.
#[tacto::message(
    "std_msgs/msg/String",
    hash = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
)]
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct String {
    /// The text.
    pub data: std::string::String,
}

/// When and in which coordinate frame some data was taken.
#[tacto::message(
    "std_msgs/msg/Header",
    hash = "RIHS01_f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01"
)]
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Header {
    /// When the data was taken.
    pub stamp: Time,
    /// The coordinate frame the data is in, e.g. `"base_link"`.
    pub frame_id: std::string::String,
}

/// A message without content, for signals whose arrival is the whole news.
///
/// IDL structs cannot be empty, so ROS 2 gives every empty message this one placeholder byte,
/// and it is on the wire: keeping it as a field makes the encoding follow from the type alone.
#[tacto::message(
    "std_msgs/msg/Empty",
    hash = "RIHS01_20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312"
)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Empty {
    /// Always 0; it exists only because IDL forbids empty structs.
    pub structure_needs_at_least_one_field: u8,
}
