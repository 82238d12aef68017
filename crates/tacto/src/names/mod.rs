//! ROS names as rcl and rmw have them: validation, expansion against a node, and remapping.
//!
//! A node is given names as a user writes them: relative (`chatter`), absolute (`/chatter`),
//! private (`~/status`), with substitutions (`{node}/out`). Each becomes a fully-qualified name
//! under the node's namespace ([`expand_topic_name`]), which remap rules from the command line
//! may then replace ([`RemapRule`], [`remap_topic_name`]); [`NodeIdentity`] does the whole of it
//! for one node, as `rcl_node_init` and `rcl_node_resolve_name` do.
//!
//! Every check, result and error text is rcl's or rmw's (ROS 2 Jazzy), so a name that an rclcpp
//! node accepts, refuses or renames is accepted, refused or renamed here the same way.
//!
//! ```
//! use tacto::names::{NodeIdentity, RemapRule};
//!
//! // ros2 run demo talker --ros-args -r __ns:=/robot1 -r chatter:=/announcements
//! let global: Vec<RemapRule> =
//!     vec!["__ns:=/robot1".parse().unwrap(), "chatter:=/announcements".parse().unwrap()];
//! let talker = NodeIdentity::with_remapping("talker", "", &[], &global).unwrap();
//! assert_eq!(talker.fully_qualified_name(), "/robot1/talker");
//! assert_eq!(talker.resolve_topic_name("chatter", &[], &global).unwrap(), "/announcements");
//! assert_eq!(talker.resolve_topic_name("~/rate", &[], &global).unwrap(), "/robot1/talker/rate");
//! ```

mod error;
mod expand;
mod identity;
pub(crate) mod lexer;
mod remap;
mod validate;

pub use error::NameError;
pub use expand::{expand_topic_name, expand_topic_name_with};
pub use identity::NodeIdentity;
pub use remap::{
    RemapKind, RemapRule, RuleError, remap_node_name, remap_node_namespace, remap_service_name,
    remap_topic_name,
};
pub use validate::{
    FullTopicNameInvalid, Invalid, NAMESPACE_MAX_LENGTH, NODE_NAME_MAX_LENGTH, NamespaceInvalid,
    NodeNameInvalid, TOPIC_NAME_MAX_LENGTH, TopicNameInvalid, validate_full_topic_name,
    validate_namespace, validate_node_name, validate_topic_name,
};
