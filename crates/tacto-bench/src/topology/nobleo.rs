//! nobleo's LET comparison. (Skeleton: the topology lands here.)

use crate::system::{RunConfig, System, SystemError};

/// Which variant.
#[derive(Debug, Clone)]
pub struct Spec {
    nodes: usize,
}

impl Spec {
    /// 10 nodes, each with 2 publishers on one 50 Hz timer and 20 subscriptions.
    pub fn ten_nodes() -> Spec {
        Spec { nodes: 10 }
    }

    /// The same traffic from one node with one timer.
    pub fn one_node() -> Spec {
        Spec { nodes: 1 }
    }

    /// `nobleo` or `nobleo-1`.
    pub fn name(&self) -> &'static str {
        if self.nodes == 1 {
            "nobleo-1"
        } else {
            "nobleo"
        }
    }
}

/// Builds the topology on the configured executor kind.
pub fn start(spec: &Spec, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
    Err(SystemError::Unsupported {
        topology: spec.name().into(),
        executor: config.executor,
        reason: "not ported yet".into(),
    })
}
