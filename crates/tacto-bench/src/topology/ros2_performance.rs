//! ros2-performance topologies. (Skeleton: the loader lands here.)

use std::path::Path;

use super::TopologyError;
use crate::system::{RunConfig, System, SystemError};

/// The parsed topology file.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The topology's name (its file name without extension).
    pub name: String,
}

impl Spec {
    /// Reads and checks a topology file.
    pub fn from_file(path: &Path) -> Result<Spec, TopologyError> {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        Ok(Spec {
            name: name.unwrap_or_default(),
        })
    }
}

/// Builds the topology on the configured executor kind.
pub fn start(spec: &Spec, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
    Err(SystemError::Unsupported {
        topology: spec.name.clone(),
        executor: config.executor,
        reason: "not ported yet".into(),
    })
}
