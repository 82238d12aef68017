//! The interface between the harness and a topology: build it on an executor kind, measure,
//! stop.

use std::time::Duration;

use crate::executors::ExecutorKind;
use crate::result::RunResult;

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
