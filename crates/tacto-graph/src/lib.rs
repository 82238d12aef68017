//! The logic of `tacto topic`, `node`, `service`, `param` and `tf`: ROS 2's command-line tools, on any ROS 2 graph
//! (rclcpp, rclpy and tacto nodes alike), with no ROS installation.
//!
//! Message types come from their `.msg` definitions at run time ([`TypeRegistry`]): the
//! packages shipped with tacto, `--msg-path` folders and `AMENT_PREFIX_PATH`. [`decode`] and
//! [`encode`] turn CDR into a [`Value`] tree and back, byte for byte as the generated types do;
//! [`yaml`] and [`json`] print it as `ros2 topic echo` does, or for scripts.

pub mod action;
pub mod bw;
pub mod commands;
pub mod dynamic_cdr;
pub mod hz;
pub mod json;
pub mod lifecycle;
pub mod param;
pub mod pyyaml;
pub mod qos;
pub mod registry;
pub mod tf;
pub mod top;
pub mod value;
pub mod yaml;

pub use commands::{CommandError, EchoOptions, Options, PubOptions, TopOptions};
pub use dynamic_cdr::{DecodeError, EncodeError, decode, encode};
pub use registry::{MessageType, TypeError, TypeRegistry};
pub use value::Value;
