//! `rosgraph_msgs`: messages about the ROS graph itself.

use crate::msg::builtin_interfaces::Time;

/// The current simulated time, as published on `/clock` when `use_sim_time` is set.
#[tacto::message(
    "rosgraph_msgs/msg/Clock",
    hash = "RIHS01_692f7a66e93a3c83e71765d033b60349ba68023a8c689a79e48078bcb5c58564"
)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Clock {
    /// The time now.
    pub clock: Time,
}
