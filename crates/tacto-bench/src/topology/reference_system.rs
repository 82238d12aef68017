//! The Autoware reference system. (Skeleton: the port lands here.)

use std::path::Path;

use super::TopologyError;
use crate::system::{RunConfig, System, SystemError};

/// The parsed topology file.
#[derive(Debug, Clone)]
pub struct Spec {}

impl Spec {
    /// Reads and checks `autoware_reference_system.json`.
    pub fn from_file(_path: &Path) -> Result<Spec, TopologyError> {
        Ok(Spec {})
    }
}

/// Builds the system on the configured executor kind.
pub fn start(_spec: &Spec, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
    Err(SystemError::Unsupported {
        topology: "reference-system".into(),
        executor: config.executor,
        reason: "not ported yet".into(),
    })
}
