//! What can be wrong with a name a node is given or resolves.

use std::fmt;

use super::validate::{
    FullTopicNameInvalid, Invalid, NamespaceInvalid, NodeNameInvalid, TopicNameInvalid,
};

/// A name that cannot be used: the node's name or namespace, or a topic or service name as given
/// or as it resolves.
///
/// The variants follow rcl's return codes (`RCL_RET_NODE_INVALID_NAME`,
/// `RCL_RET_NODE_INVALID_NAMESPACE`, `RCL_RET_TOPIC_NAME_INVALID` or
/// `RCL_RET_SERVICE_NAME_INVALID`, `RCL_RET_UNKNOWN_SUBSTITUTION`), and each carries the name
/// and rmw's (or rcl's) own reason.
///
/// # Examples
/// ```
/// use tacto::names::{NameError, expand_topic_name};
///
/// let err = expand_topic_name("{robot}/odom", "driver", "/").unwrap_err();
/// assert!(matches!(err, NameError::UnknownSubstitution { .. }));
/// assert_eq!(
///     err.to_string(),
///     "topic name '{robot}/odom' has an unknown substitution '{robot}': \
///      expected {node}, {ns} or {namespace}"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// The node's name is not a valid node name.
    NodeName {
        /// The name.
        name: String,
        /// What is wrong with it.
        invalid: Invalid<NodeNameInvalid>,
    },
    /// The node's namespace is not a valid namespace.
    Namespace {
        /// The namespace.
        namespace: String,
        /// What is wrong with it.
        invalid: Invalid<NamespaceInvalid>,
    },
    /// A topic or service name, as given, is not a valid name to expand.
    TopicName {
        /// The name as given.
        name: String,
        /// Whether it names a service.
        service: bool,
        /// What is wrong with it.
        invalid: Invalid<TopicNameInvalid>,
    },
    /// A `{substitution}` in a topic or service name is neither `{node}`, `{ns}`,
    /// `{namespace}` nor one given.
    UnknownSubstitution {
        /// The name as given.
        name: String,
        /// The substitution, braces included.
        substitution: String,
    },
    /// A topic or service name expanded (and remapped) to something that is not a valid
    /// fully-qualified name.
    FullName {
        /// The name as given.
        name: String,
        /// What it resolved to.
        resolved: String,
        /// Whether it names a service.
        service: bool,
        /// What is wrong with the resolved name.
        invalid: Invalid<FullTopicNameInvalid>,
    },
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = |service: bool| if service { "service" } else { "topic" };
        match self {
            NameError::NodeName { name, invalid } => {
                write!(f, "invalid node name '{name}': {invalid}")
            }
            NameError::Namespace { namespace, invalid } => {
                write!(f, "invalid namespace '{namespace}': {invalid}")
            }
            NameError::TopicName {
                name,
                service,
                invalid,
            } => write!(f, "invalid {} name '{name}': {invalid}", kind(*service)),
            NameError::UnknownSubstitution { name, substitution } => write!(
                f,
                "topic name '{name}' has an unknown substitution '{substitution}': \
                 expected {{node}}, {{ns}} or {{namespace}}"
            ),
            NameError::FullName {
                name,
                resolved,
                service,
                invalid,
            } => write!(
                f,
                "{} name '{name}' resolves to '{resolved}', which is invalid: {invalid}",
                kind(*service)
            ),
        }
    }
}

impl std::error::Error for NameError {}
