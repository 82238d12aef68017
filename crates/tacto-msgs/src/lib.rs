//! The standard ROS 2 interface packages as tacto messages: `std_msgs`, `builtin_interfaces`,
//! `geometry_msgs`, `sensor_msgs`, `nav_msgs`, `rosgraph_msgs`, `rcl_interfaces`,
//! `lifecycle_msgs`, `std_srvs`, `example_interfaces`, `tf2_msgs`, and for actions
//! `action_msgs` and `unique_identifier_msgs` (ROS 2 Jazzy).
//!
//! Generated when the crate builds, by `tacto-msggen`, from the packages' own
//! `.msg`/`.srv`/`.action` files (in `interfaces/`, with their license notes: Apache-2.0, and
//! BSD-3-Clause for `unique_identifier_msgs`): `<package>::msg::<Type>` for messages,
//! `<package>::srv::<Service>` (a [`ServiceType`]) with `<Service>_Request`/`<Service>_Response`
//! for services, `<package>::action::<Action>` (a [`tacto::ActionType`]) with the types rosidl
//! derives from it for actions. Each message implements
//! [`tacto::Message`], encodes to the bytes rclcpp and rclpy send, keeps its `.msg` constants
//! as associated consts and its default values in `Default`. Bounded strings and sequences are
//! checked when encoding and decoding (see [`tacto::idl`]).
//!
//! # Examples
//! ```
//! use tacto_msgs::geometry_msgs::msg::{Point, Pose, PoseStamped};
//! use tacto_msgs::std_msgs::msg::Header;
//!
//! let pose = PoseStamped {
//!     header: Header { frame_id: "map".into(), ..Default::default() },
//!     pose: Pose { position: Point { x: 1.0, y: 2.0, z: 0.0 }, ..Default::default() },
//! };
//! assert_eq!(pose.pose.orientation.w, 1.0); // the .msg default
//! let bytes = tacto::cdr::to_vec(&pose).unwrap();
//! assert_eq!(tacto::cdr::from_bytes::<PoseStamped>(&bytes).unwrap(), pose);
//! ```
//!
//! A service names its request and response types:
//! ```
//! use tacto_msgs::ServiceType;
//! use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request};
//!
//! let request: <AddTwoInts as ServiceType>::Request = AddTwoInts_Request { a: 2, b: 3 };
//! assert_eq!(AddTwoInts::TYPE_NAME, "example_interfaces/srv/AddTwoInts");
//! assert_eq!(<AddTwoInts_Request as tacto::Message>::TYPE_NAME, "example_interfaces/srv/AddTwoInts_Request");
//! # let _ = request;
//! ```
//!
//! An action names its parts and the services and messages that carry it:
//! ```
//! use tacto::{ActionType, ServiceType};
//! use tacto_msgs::example_interfaces::action::{Fibonacci, Fibonacci_Goal, Fibonacci_SendGoal_Request};
//! use tacto_msgs::unique_identifier_msgs::msg::UUID;
//!
//! let request = Fibonacci_SendGoal_Request {
//!     goal_id: UUID { uuid: [7; 16] },
//!     goal: Fibonacci_Goal { order: 10 },
//! };
//! assert_eq!(Fibonacci::TYPE_NAME, "example_interfaces/action/Fibonacci");
//! assert_eq!(
//!     <<Fibonacci as ActionType>::SendGoal as ServiceType>::TYPE_NAME,
//!     "example_interfaces/action/Fibonacci_SendGoal"
//! );
//! let bytes = tacto::cdr::to_vec(&request).unwrap();
//! assert_eq!(tacto::cdr::from_bytes::<Fibonacci_SendGoal_Request>(&bytes).unwrap(), request);
//! ```
//!
//! `builtin_interfaces`, `rcl_interfaces` and `lifecycle_msgs` are the core crate's own types,
//! re-exported:
//! `tacto_msgs::builtin_interfaces::msg::Time` *is* [`tacto::msg::builtin_interfaces::Time`]
//! (which converts to and from [`tacto::Time`]), and `tacto_msgs::rcl_interfaces` *is*
//! [`tacto::msg::rcl_interfaces`], which the runtime publishes on `/rosout` and serves
//! parameters and logger levels with (and `lifecycle_msgs` a managed node's services); every
//! type here that has a stamp uses them.
//!
//! `tacto::msg` also keeps a few hand-written types of `std_msgs` and `rosgraph_msgs` for the
//! runtime's own use; the types here have the same type names and the same CDR, so either can
//! be used on a topic.

// The runtime's trait, which `Node::service` and `Node::client` take; re-exported so that
// `tacto_msgs::ServiceType` works where only this crate is named.
pub use tacto::ServiceType;

include!(concat!(env!("OUT_DIR"), "/interfaces.rs"));

pub mod builtin_interfaces {
    //! The ROS 2 interface package `builtin_interfaces`: the core crate's hand-written types.

    pub mod msg {
        //! The messages of `builtin_interfaces`, [`tacto::msg::builtin_interfaces`]'s types.

        pub use tacto::msg::builtin_interfaces::{Duration, Time};
    }
}

/// The ROS 2 interface package `rcl_interfaces`, generated in the core crate.
pub use tacto::msg::rcl_interfaces;

/// The ROS 2 interface package `lifecycle_msgs`, generated in the core crate.
pub use tacto::msg::lifecycle_msgs;
