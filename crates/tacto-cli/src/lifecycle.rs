//! `tacto lifecycle`'s verbs, with ros2lifecycle's arguments and flags.

use clap::Subcommand;

/// `tacto lifecycle`'s verbs, with ros2lifecycle's arguments and flags.
#[derive(Debug, Subcommand)]
pub(crate) enum LifecycleCommand {
    /// Output a list of nodes with lifecycle.
    Nodes {
        /// Display all nodes even hidden ones.
        #[arg(short = 'a', long)]
        all: bool,
        /// Only display the number of nodes discovered.
        #[arg(short = 'c', long)]
        count_nodes: bool,
    },
    /// Output a list of available transitions.
    List {
        /// Name of the ROS node.
        node_name: String,
        /// Consider hidden nodes as well.
        #[arg(long)]
        include_hidden_nodes: bool,
        /// Display all existing transitions.
        #[arg(short = 'a', long)]
        all: bool,
    },
    /// Get lifecycle state for one or more nodes.
    Get {
        /// Name of the ROS node. If no name is provided, then get the state for all nodes.
        node_name: Option<String>,
        /// Consider hidden nodes as well.
        #[arg(long)]
        include_hidden_nodes: bool,
    },
    /// Trigger lifecycle state transition.
    Set {
        /// Name of the ROS node.
        node_name: String,
        /// The lifecycle transition: its label (configure) or its id (1).
        transition: String,
        /// Consider hidden nodes as well.
        #[arg(long)]
        include_hidden_nodes: bool,
    },
}

impl LifecycleCommand {
    pub(crate) fn verb(self) -> tacto_graph::lifecycle::LifecycleVerb {
        use tacto_graph::lifecycle::LifecycleVerb as V;
        match self {
            LifecycleCommand::Nodes { all, count_nodes } => V::Nodes {
                all,
                count: count_nodes,
            },
            LifecycleCommand::List {
                node_name,
                include_hidden_nodes,
                all,
            } => V::List {
                node: node_name,
                all,
                include_hidden_nodes,
            },
            LifecycleCommand::Get {
                node_name,
                include_hidden_nodes,
            } => V::Get {
                node: node_name,
                include_hidden_nodes,
            },
            LifecycleCommand::Set {
                node_name,
                transition,
                include_hidden_nodes,
            } => V::Set {
                node: node_name,
                transition,
                include_hidden_nodes,
            },
        }
    }
}
