//! ROS 2 names on the DDS wire: topic `/chatter` is DDS topic `rt/chatter`, type
//! `std_msgs/msg/String` is DDS type `std_msgs::msg::dds_::String_` (the rules of
//! rmw_dds_common / rosidl_typesupport, which every ROS 2 DDS vendor follows).

/// Why a ROS name has no DDS form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// The topic name breaks ROS 2's rules (as [`tacto::resolve_topic_name`] checks them).
    #[error(transparent)]
    Topic(#[from] tacto::TopicError),
    /// The type name is not `package/msg/Type` (or `srv`, `action`) with identifiers.
    #[error("{name:?} is not a ROS 2 type name of the form package/msg/Type")]
    Type {
        /// The name given.
        name: String,
    },
}

/// The DDS topic of a ROS topic: `rt` + the fully qualified name.
///
/// A relative name (`chatter`) is taken relative to the root namespace, as a node without a
/// namespace resolves it; node namespaces and `~` come with nodes.
///
/// ```
/// assert_eq!(tacto_dds::naming::dds_topic_name("/chatter")?, "rt/chatter");
/// assert_eq!(tacto_dds::naming::dds_topic_name("robot1/odom")?, "rt/robot1/odom");
/// # Ok::<(), tacto_dds::naming::NameError>(())
/// ```
pub fn dds_topic_name(ros_name: &str) -> Result<String, NameError> {
    Ok(format!("rt{}", tacto::resolve_topic_name(ros_name)?))
}

/// The DDS type name of a ROS type: `pkg/msg/Type` → `pkg::msg::dds_::Type_`.
///
/// ```
/// assert_eq!(
///     tacto_dds::naming::dds_type_name("std_msgs/msg/String")?,
///     "std_msgs::msg::dds_::String_"
/// );
/// # Ok::<(), tacto_dds::naming::NameError>(())
/// ```
pub fn dds_type_name(ros_type: &str) -> Result<String, NameError> {
    let fail = || NameError::Type {
        name: ros_type.to_owned(),
    };
    let mut parts = ros_type.split('/');
    let (Some(package), Some(kind), Some(name), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(fail());
    };
    if !matches!(kind, "msg" | "srv" | "action") || !is_identifier(package) || !is_identifier(name)
    {
        return Err(fail());
    }
    Ok(format!("{package}::{kind}::dds_::{name}_"))
}

fn is_identifier(text: &str) -> bool {
    text.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_get_the_rt_prefix() {
        assert_eq!(dds_topic_name("/chatter").unwrap(), "rt/chatter");
        assert_eq!(dds_topic_name("chatter").unwrap(), "rt/chatter");
        assert_eq!(dds_topic_name("/a/b_2/c").unwrap(), "rt/a/b_2/c");
    }

    #[test]
    fn bad_topics_are_refused() {
        for bad in ["", "/", "a//b", "a/", "a b", "/1st", "a/-b", "~/x"] {
            assert!(
                matches!(dds_topic_name(bad), Err(NameError::Topic(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn types_follow_rosidl() {
        assert_eq!(
            dds_type_name("geometry_msgs/msg/PoseStamped").unwrap(),
            "geometry_msgs::msg::dds_::PoseStamped_"
        );
        assert_eq!(
            dds_type_name("example_interfaces/srv/AddTwoInts_Request").unwrap(),
            "example_interfaces::srv::dds_::AddTwoInts_Request_"
        );
        for bad in [
            "String",
            "std_msgs/String",
            "std_msgs/foo/String",
            "a/msg/B/c",
            "/msg/B",
        ] {
            assert!(dds_type_name(bad).is_err(), "{bad:?}");
        }
    }
}
