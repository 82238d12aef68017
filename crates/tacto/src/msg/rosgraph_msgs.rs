//! `rosgraph_msgs`: messages about the ROS graph itself.

use serde::{Deserialize, Serialize};

use crate::message::Message;
use crate::msg::builtin_interfaces::Time;

/// The current simulated time, as published on `/clock` when `use_sim_time` is set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Clock {
    /// The time now.
    pub clock: Time,
}

impl Message for Clock {
    const TYPE_NAME: &'static str = "rosgraph_msgs/msg/Clock";
}
