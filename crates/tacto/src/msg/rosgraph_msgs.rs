//! `rosgraph_msgs`: messages about the ROS graph itself.

use crate::msg::builtin_interfaces::Time;

/// The current simulated time, as published on `/clock` when `use_sim_time` is set.
#[tacto::message("rosgraph_msgs/msg/Clock")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Clock {
    /// The time now.
    pub clock: Time,
}
