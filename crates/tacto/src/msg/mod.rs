//! Standard ROS 2 messages, ready to publish and subscribe.
//!
//! One module per ROS package, each type named as in ROS, so `std_msgs/msg/Header` is
//! [`std_msgs::Header`]. Fields keep their ROS names and order, which is also their order on
//! the wire (see [`crate::cdr`]).

pub mod builtin_interfaces;
pub mod rosgraph_msgs;
pub mod std_msgs;
pub mod tacto_msgs;
