//! A node's name and namespace as rcl settles them (`rcl_node_init`), and the names it resolves
//! (`rcl_node_resolve_name`).

use std::collections::HashMap;

use super::error::NameError;
use super::expand::expand;
use super::remap::{
    RemapRule, remap_node_name, remap_node_namespace, remap_service_name, remap_topic_name,
};
use super::validate::{validate_full_topic_name, validate_namespace, validate_node_name};

/// A node's name and namespace, validated and remapped as `rcl_node_init` does, with the names
/// rclcpp derives from them.
///
/// The namespace is taken as rcl takes it: empty is the root `/`, and one without a leading `/`
/// gets one (`robot1` is `/robot1`).
///
/// # Examples
/// ```
/// use tacto::names::{NodeIdentity, RemapRule};
///
/// let node = NodeIdentity::new("camera", "robot1").unwrap();
/// assert_eq!(node.namespace(), "/robot1");
/// assert_eq!(node.fully_qualified_name(), "/robot1/camera");
/// assert_eq!(node.logger_name(), "robot1.camera");
/// assert_eq!(node.resolve_topic_name("~/image", &[], &[]).unwrap(), "/robot1/camera/image");
///
/// // `--ros-args -r __node:=left_camera -r image:=raw`
/// let global: Vec<RemapRule> =
///     vec!["__node:=left_camera".parse().unwrap(), "image:=raw".parse().unwrap()];
/// let node = NodeIdentity::with_remapping("camera", "/robot1", &[], &global).unwrap();
/// assert_eq!(node.fully_qualified_name(), "/robot1/left_camera");
/// assert_eq!(node.resolve_topic_name("image", &[], &global).unwrap(), "/robot1/raw");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeIdentity {
    name: String,
    namespace: String,
}

impl NodeIdentity {
    /// A node called `name` in `namespace`, with no remapping.
    pub fn new(name: &str, namespace: &str) -> Result<Self, NameError> {
        Self::with_remapping(name, namespace, &[], &[])
    }

    /// A node called `name` in `namespace`, renamed and moved by the first `__node` and `__ns`
    /// rules that apply to it, its own (`local`) before the process's (`global`; empty for a
    /// node that ignores the global arguments), as `rcl_node_init`.
    ///
    /// The name and namespace given are validated first; the name picks the `__node` rule, and
    /// the name after it the `__ns` rule. The remapped name and namespace are validated too, as
    /// rmw does when it creates the node.
    pub fn with_remapping(
        name: &str,
        namespace: &str,
        local: &[RemapRule],
        global: &[RemapRule],
    ) -> Result<Self, NameError> {
        check_node_name(name)?;
        let namespace = if namespace.is_empty() {
            "/".to_owned()
        } else if namespace.starts_with('/') {
            namespace.to_owned()
        } else {
            format!("/{namespace}")
        };
        check_namespace(&namespace)?;
        let name = remap_node_name(local, global, name).unwrap_or(name);
        let namespace = remap_node_namespace(local, global, name).unwrap_or(&namespace);
        check_node_name(name)?;
        check_namespace(namespace)?;
        Ok(NodeIdentity {
            name: name.to_owned(),
            namespace: namespace.to_owned(),
        })
    }

    /// The node's name (`rclcpp::Node::get_name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node's namespace, absolute (`rclcpp::Node::get_namespace`).
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The namespace and the name: `/ns/name`, or `/name` in the root namespace
    /// (`rclcpp::Node::get_fully_qualified_name`).
    pub fn fully_qualified_name(&self) -> String {
        if self.namespace.ends_with('/') {
            format!("{}{}", self.namespace, self.name)
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// The node's logger name, as rcl makes it: the namespace without its leading `/`, dots for
    /// slashes, then the name (`robot1.camera`); the name alone in the root namespace.
    pub fn logger_name(&self) -> String {
        if self.namespace.len() == 1 {
            return self.name.clone();
        }
        format!("{}.{}", self.namespace[1..].replace('/', "."), self.name)
    }

    /// The fully-qualified name of a topic this node publishes or subscribes to, as
    /// `rcl_node_resolve_name`: `name` expanded against the node
    /// ([`expand_topic_name`](super::expand_topic_name)), then renamed by the first topic rule
    /// that matches it ([`remap_topic_name`]), then validated as a fully-qualified name.
    pub fn resolve_topic_name(
        &self,
        name: &str,
        local: &[RemapRule],
        global: &[RemapRule],
    ) -> Result<String, NameError> {
        self.resolve(name, local, global, false)
    }

    /// The fully-qualified name of a service this node serves or calls: as
    /// [`resolve_topic_name`](Self::resolve_topic_name), with the rules that apply to services.
    pub fn resolve_service_name(
        &self,
        name: &str,
        local: &[RemapRule],
        global: &[RemapRule],
    ) -> Result<String, NameError> {
        self.resolve(name, local, global, true)
    }

    fn resolve(
        &self,
        name: &str,
        local: &[RemapRule],
        global: &[RemapRule],
        service: bool,
    ) -> Result<String, NameError> {
        let expanded = expand(name, &self.name, &self.namespace, &HashMap::new(), service)?;
        let remapped = if service {
            remap_service_name(local, global, &expanded, &self.name, &self.namespace)?
        } else {
            remap_topic_name(local, global, &expanded, &self.name, &self.namespace)?
        };
        let resolved = remapped.unwrap_or(expanded);
        validate_full_topic_name(&resolved).map_err(|invalid| NameError::FullName {
            name: name.to_owned(),
            resolved: resolved.clone(),
            service,
            invalid,
        })?;
        Ok(resolved)
    }
}

fn check_node_name(name: &str) -> Result<(), NameError> {
    validate_node_name(name).map_err(|invalid| NameError::NodeName {
        name: name.to_owned(),
        invalid,
    })
}

fn check_namespace(namespace: &str) -> Result<(), NameError> {
    validate_namespace(namespace).map_err(|invalid| NameError::Namespace {
        namespace: namespace.to_owned(),
        invalid,
    })
}
