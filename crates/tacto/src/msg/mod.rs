//! Standard ROS 2 messages, ready to publish and subscribe.
//!
//! One module per ROS package, each type named as in ROS, so `std_msgs/msg/Header` is
//! [`std_msgs::Header`]. Fields keep their ROS names and order, which is also their order on
//! the wire (see [`crate::cdr`]).
//!
//! [`rcl_interfaces`] (the runtime's own: `/rosout`'s `Log`, parameters, logger levels) and
//! [`lifecycle_msgs`] (managed nodes' states, transitions and services) are generated from
//! their `.msg`/`.srv` files when the crate builds, laid out as `tacto-msgs` lays out every
//! package: `rcl_interfaces::msg::Log`, `lifecycle_msgs::srv::ChangeState`, ...

pub mod builtin_interfaces;
pub mod rosgraph_msgs;
pub mod std_msgs;
pub mod tacto_msgs;

// `pub mod rcl_interfaces` and `pub mod lifecycle_msgs`, with `msg` and `srv` inside, generated
// by `build.rs`.
include!(concat!(env!("OUT_DIR"), "/interfaces.rs"));
