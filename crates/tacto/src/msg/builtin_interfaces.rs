//! `builtin_interfaces`: the time types every other package builds on.

use serde::{Deserialize, Serialize};

use crate::message::Message;

/// A point in time: `sec` seconds plus `nanosec` nanoseconds since the clock's epoch (the Unix
/// epoch for system time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Time {
    /// Whole seconds.
    pub sec: i32,
    /// Nanoseconds past `sec`, below 1 000 000 000.
    pub nanosec: u32,
}

impl Message for Time {
    const TYPE_NAME: &'static str = "builtin_interfaces/msg/Time";
}

/// A span of time: `sec` seconds plus `nanosec` nanoseconds; negative spans have a negative
/// `sec` and a non-negative `nanosec`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Duration {
    /// Whole seconds.
    pub sec: i32,
    /// Nanoseconds added to `sec`, below 1 000 000 000.
    pub nanosec: u32,
}

impl Message for Duration {
    const TYPE_NAME: &'static str = "builtin_interfaces/msg/Duration";
}
