//! The interface between the harness and a topology: build it on an executor kind, measure,
//! stop.

use std::time::Duration;

use tacto::{Context, Node};
use tacto_dds::DdsTransport;

use crate::result::RunResult;
use tacto_launch::executors::ExecutorKind;

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The executor kind (and with it, the node style).
    pub executor: ExecutorKind,
    /// Work per processing node of the reference system (0: none).
    pub crunch: u64,
    /// Warm-up, not measured.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
    /// Every node also on the ROS 2 graph over DDS (the domain of `ROS_DOMAIN_ID`, as any tacto
    /// node): it serves its parameter services and publishes `/rosout` and
    /// `/parameter_events`, as a node of a real system does. Topics still go through the
    /// process, and over DDS only to readers of other processes.
    pub ros_graph: bool,
    /// Parameters each node declares (see [`declare_parameters`]).
    pub node_parameters: usize,
}

impl RunConfig {
    /// The context the run's nodes are made in: this process only, or with
    /// [`ros_graph`](Self::ros_graph) on DDS too.
    pub fn context(&self) -> Result<Context, SystemError> {
        if !self.ros_graph {
            return Ok(Context::new());
        }
        let transport = DdsTransport::from_env()
            .map_err(|e| SystemError::Build(format!("joining the ROS 2 graph: {e}")))?;
        Ok(Context::builder().transport(transport).create())
    }
}

/// The most parameters [`declare_parameters`] declares on one node.
pub const MAX_NODE_PARAMETERS: usize = 1000;

/// Declares `count` parameters on `node`, as a configured node has: `param_0`, `param_1`, ...,
/// a double, an integer, a boolean and a string in turn. Nothing reads them: what they cost is
/// what they cost a node that never looks (memory, and the services that serve them).
pub fn declare_parameters(node: &Node, count: usize) -> Result<(), SystemError> {
    let parameters = node.parameters();
    for i in 0..count.min(MAX_NODE_PARAMETERS) {
        let name = format!("param_{i}");
        let declared = match i % 4 {
            0 => parameters.declare(&name, i as f64 * 0.5).map(drop),
            1 => parameters.declare(&name, i as i64).map(drop),
            2 => parameters.declare(&name, i % 8 == 2).map(drop),
            _ => parameters.declare(&name, format!("value {i}")).map(drop),
        };
        declared.map_err(|e| {
            SystemError::Build(format!("node {}: {name}: {e}", node.fully_qualified_name()))
        })?;
    }
    Ok(())
}

/// A topology built and running: its executors spin on threads of their own.
pub trait System {
    /// Forgets everything measured so far (called when the warm-up ends).
    fn reset(&mut self);

    /// Stops every executor and fills in the topology's own KPIs (latency, drops, periods,
    /// per-topic figures) computed from timestamps carried in the messages.
    fn finish(self: Box<Self>, result: &mut RunResult) -> Result<(), SystemError>;
}

/// Why a topology could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum SystemError {
    /// This topology has no meaningful mapping onto this executor kind.
    #[error("{topology} does not run on the {executor} executor: {reason}")]
    Unsupported {
        /// The topology.
        topology: String,
        /// The executor kind.
        executor: ExecutorKind,
        /// Why.
        reason: String,
    },
    /// The runtime refused to build the graph.
    #[error("building the graph failed: {0}")]
    Build(String),
    /// An executor failed while running.
    #[error("an executor failed: {0}")]
    Run(String),
}
