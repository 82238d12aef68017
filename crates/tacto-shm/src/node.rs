//! The process's iceoryx2 node: what owns this process's shared-memory resources and what
//! other processes see die when this one is killed.

use iceoryx2::config::Config;
use iceoryx2::identifiers::UniqueNodeId;
use iceoryx2::node::{Node, NodeBuilder, NodeCreationFailure, NodeState, NodeView};
use iceoryx2::prelude::CallbackProgression;
use iceoryx2::prelude::NodeName;
use iceoryx2::prelude::SignalHandlingMode;
use iceoryx2::service::ipc_threadsafe;
use tacto::Message;

use crate::leftovers;
use crate::limits::{LimitsError, ShmLimits};
use crate::publisher::PublisherBuilder;
use crate::subscriber::{Liveliness, LivelinessError, SubscriberBuilder};

/// The iceoryx2 service kind tacto uses: inter-process, ports `Send + Sync` (a tacto
/// publisher or subscription is shared between threads).
pub(crate) type Ipc = ipc_threadsafe::Service;

/// Why the shared-memory node could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeError {
    /// The name is not an iceoryx2 node name (too long).
    #[error("{name:?} is not a valid iceoryx2 node name")]
    InvalidName {
        /// The name given.
        name: String,
    },
    /// iceoryx2 refused to create the node (permissions on its directories, an inconsistent
    /// config).
    #[error("cannot create the iceoryx2 node {name:?}: {source}")]
    Create {
        /// The name given.
        name: String,
        /// iceoryx2's reason.
        source: NodeCreationFailure,
    },
    /// The topic limits cannot be used.
    #[error("shared-memory limits: {0}")]
    Limits(#[from] LimitsError),
}

/// What a dead-node cleanup did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cleanup {
    /// Dead nodes (processes that died without cleaning up) whose resources were removed.
    pub removed: u64,
    /// Dead nodes that could not be cleaned (insufficient permissions, or another process is
    /// cleaning them right now).
    pub failed: u64,
}

/// One process's entry into shared memory: an iceoryx2 node with its signal handlers off.
///
/// tacto owns SIGINT and SIGTERM (`tacto::shutdown`), so the node is built with
/// [`SignalHandlingMode::Disabled`]. Creating it removes what dead processes of an earlier run
/// left behind ([`ShmNode::creation_cleanup`]).
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
/// use tacto_shm::ShmNode;
///
/// let node = ShmNode::create("doc_node")?;
/// // Unique per process, so that parallel runs never share it.
/// let topic = format!("/doc_node_{}", std::process::id());
/// let sub = node.subscriber::<Text>(&topic).create()?;
/// let publisher = node.publisher::<Text>(&topic).create()?;
/// let delivery = publisher.publish(&Text { data: "hi".into() })?;
/// assert_eq!(delivery.subscribers, 1);
/// // The subscriber is in the publishing process: it drops the sample (no self-echo).
/// assert!(sub.take()?.is_none());
/// assert_eq!(sub.stats().own_dropped, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ShmNode {
    node: Node<Ipc>,
    limits: ShmLimits,
    creation_cleanup: Cleanup,
}

/// Configures a [`ShmNode`]; from [`ShmNode::builder`].
///
/// # Examples
/// ```
/// use tacto_shm::{ShmLimits, ShmNode};
///
/// let limits = ShmLimits {
///     subscribers: 16,
///     ..ShmLimits::default()
/// };
/// let node = ShmNode::builder("doc_node_builder").limits(limits).create()?;
/// assert_eq!(node.limits().subscribers, 16);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ShmNodeBuilder {
    name: String,
    limits: ShmLimits,
}

impl ShmNodeBuilder {
    /// The limits of the topics this node creates, and what it asks of those it opens
    /// (default [`ShmLimits::default`]); checked by [`create`](Self::create).
    pub fn limits(mut self, limits: ShmLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Creates this process's node (shown by iceoryx2's tools), after removing the resources
    /// of dead nodes.
    pub fn create(self) -> Result<ShmNode, NodeError> {
        self.limits.check()?;
        let name = self.name.as_str();
        // Before iceoryx2 logs anything: its records are tacto's (see `crate::logging`).
        crate::logging::route_to_tacto();
        // Before the node exists: creating it cleans up dead nodes, which an unsized segment
        // would hang.
        leftovers::remove_unsized_segments(Config::global_config());
        let node_name = NodeName::new(name).map_err(|_| NodeError::InvalidName {
            name: name.to_owned(),
        })?;
        let node = NodeBuilder::new()
            .name(&node_name)
            .signal_handling_mode(SignalHandlingMode::Disabled)
            .create::<Ipc>()
            .map_err(|source| NodeError::Create {
                name: name.to_owned(),
                source,
            })?;
        let mut shm = ShmNode {
            node,
            limits: self.limits,
            creation_cleanup: Cleanup::default(),
        };
        shm.creation_cleanup = shm.cleanup_dead_nodes();
        Ok(shm)
    }
}

impl ShmNode {
    /// Creates this process's node named `name` with the default [`ShmLimits`]; see
    /// [`builder`](Self::builder).
    pub fn create(name: &str) -> Result<ShmNode, NodeError> {
        ShmNode::builder(name).create()
    }

    /// A node named `name` (shown by iceoryx2's tools) to configure.
    pub fn builder(name: &str) -> ShmNodeBuilder {
        ShmNodeBuilder {
            name: name.to_owned(),
            limits: ShmLimits::default(),
        }
    }

    /// The limits of the topics this node creates and opens.
    pub fn limits(&self) -> ShmLimits {
        self.limits
    }

    /// Removes the shared memory, ports and service entries of every dead node on this host
    /// (a process killed before it could clean up), without waiting for a node that another
    /// process is cleaning.
    ///
    /// A dead node that iceoryx2 cannot clean because it was killed while creating one of its
    /// files has that file removed, and the cleanup runs once more (`docs/shm.md`, "Facts found
    /// on this machine").
    pub fn cleanup_dead_nodes(&self) -> Cleanup {
        let first = self.node.try_cleanup_dead_nodes();
        if first.failed_cleanups == 0 || leftovers::remove_unfinished_files(self.config()) == 0 {
            return Cleanup {
                removed: first.cleanups,
                failed: first.failed_cleanups,
            };
        }
        let second = self.node.try_cleanup_dead_nodes();
        Cleanup {
            removed: first.cleanups + second.cleanups,
            failed: second.failed_cleanups,
        }
    }

    /// What the cleanup at creation did.
    pub fn creation_cleanup(&self) -> Cleanup {
        self.creation_cleanup
    }

    /// A publisher of `T` on ROS topic `topic` (`/chatter`).
    pub fn publisher<T: Message>(&self, topic: &str) -> PublisherBuilder<'_, T> {
        PublisherBuilder::new(self, topic)
    }

    /// A subscriber of `T` on ROS topic `topic` (`/chatter`).
    pub fn subscriber<T: Message>(&self, topic: &str) -> SubscriberBuilder<'_, T> {
        SubscriberBuilder::new(self, topic)
    }

    /// What tells this node's shared memory from another's: the host's boot id (a new one at
    /// each boot, as `/dev/shm` starts empty) and iceoryx2's root path and file prefix. Two
    /// processes with the same key reach each other through shared memory; a network
    /// transport that announces it (`tacto_dds::DdsTransport::beside_shm`) leaves them to it.
    ///
    /// # Examples
    /// ```
    /// let node = tacto_shm::ShmNode::create("doc_host_key")?;
    /// assert_eq!(node.host_key()?, node.host_key()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn host_key(&self) -> std::io::Result<String> {
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")?;
        let global = &self.config().global;
        Ok(format!(
            "{}:{}:{}",
            boot_id.trim(),
            global.root_path(),
            global.prefix
        ))
    }

    pub(crate) fn inner(&self) -> &Node<Ipc> {
        &self.node
    }

    pub(crate) fn config(&self) -> &Config {
        self.node.config()
    }
}

impl Drop for ShmNode {
    /// Before the iceoryx2 node goes, whose drop cleans up dead nodes, which an unsized
    /// segment would hang.
    fn drop(&mut self) {
        leftovers::remove_unsized_segments(self.config());
    }
}

/// Splits ports by their node (`nodes`, one entry per port) into those of live processes and
/// those of dead ones, as iceoryx2 lists this host's nodes.
pub(crate) fn liveliness(
    config: &Config,
    nodes: &[UniqueNodeId],
) -> Result<Liveliness, LivelinessError> {
    let mut liveliness = Liveliness { alive: 0, dead: 0 };
    if nodes.is_empty() {
        return Ok(liveliness);
    }
    Node::<Ipc>::list(config, |state| {
        let (id, alive) = match &state {
            NodeState::Alive(view) => (*view.id(), true),
            NodeState::Dead(view) => (*view.id(), false),
            NodeState::Inaccessible(id) | NodeState::Undefined(id) => (*id, false),
        };
        let ports = nodes.iter().filter(|node| **node == id).count();
        if alive {
            liveliness.alive += ports;
        } else {
            liveliness.dead += ports;
        }
        CallbackProgression::Continue
    })
    .map_err(LivelinessError::List)?;
    Ok(liveliness)
}
