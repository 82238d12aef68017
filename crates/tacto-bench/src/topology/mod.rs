//! The topologies `tacto bench` runs, and how a command-line name or path finds one.
//!
//! | argument | topology |
//! |---|---|
//! | `reference-system` | the Autoware reference system ([`reference_system`]) |
//! | `nobleo`, `nobleo-1` | nobleo's LET comparison: 10 nodes, or the same traffic from one ([`nobleo`]) |
//! | a path to a `.json` file | a ros2-performance topology ([`ros2_performance`]) |
//!
//! Topology files shipped beside the project are found in `../shared/topologies` (relative to
//! the workspace root), or in the folder named by `TACTO_TOPOLOGIES`.

pub mod nobleo;
pub mod reference_system;
pub mod ros2_performance;
mod threads;
mod tracking;

use std::path::{Path, PathBuf};

use crate::system::{RunConfig, System, SystemError};

/// A topology ready to run.
#[derive(Debug, Clone)]
pub enum Topology {
    /// The Autoware reference system.
    ReferenceSystem(reference_system::Spec),
    /// A ros2-performance topology file.
    Ros2Performance(ros2_performance::Spec),
    /// nobleo's LET comparison.
    Nobleo(nobleo::Spec),
}

/// Why a topology could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// Neither a known name nor an existing file.
    #[error(
        "unknown topology {0:?}: use reference-system, nobleo, nobleo-1 or a path to a ros2-performance JSON file"
    )]
    Unknown(String),
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// The file is not valid JSON of the expected shape.
    #[error("{path}: not a valid topology: {reason}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong, with its location.
        reason: String,
    },
    /// The file parses but describes an impossible graph.
    #[error("{path}: {reason}")]
    Inconsistent {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the node, topic or field.
        reason: String,
    },
}

impl Topology {
    /// Finds the topology that `arg` names.
    pub fn load(arg: &str) -> Result<Topology, TopologyError> {
        match arg {
            "reference-system" => {
                let path = topologies_dir().join("autoware_reference_system.json");
                reference_system::Spec::from_file(&path).map(Topology::ReferenceSystem)
            }
            "nobleo" => Ok(Topology::Nobleo(nobleo::Spec::ten_nodes())),
            "nobleo-1" => Ok(Topology::Nobleo(nobleo::Spec::one_node())),
            path if Path::new(path).is_file() => {
                ros2_performance::Spec::from_file(Path::new(path)).map(Topology::Ros2Performance)
            }
            _ => Err(TopologyError::Unknown(arg.to_owned())),
        }
    }

    /// The name reports give it.
    pub fn name(&self) -> String {
        match self {
            Topology::ReferenceSystem(_) => "reference-system".into(),
            Topology::Ros2Performance(spec) => spec.name.clone(),
            Topology::Nobleo(spec) => spec.name().into(),
        }
    }

    /// Builds the topology on `config.executor` and starts its executors.
    pub fn start(&self, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
        match self {
            Topology::ReferenceSystem(spec) => reference_system::start(spec, config),
            Topology::Ros2Performance(spec) => ros2_performance::start(spec, config),
            Topology::Nobleo(spec) => nobleo::start(spec, config),
        }
    }
}

/// Where the shared topology files are.
pub fn topologies_dir() -> PathBuf {
    match std::env::var_os("TACTO_TOPOLOGIES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/topologies"),
    }
}
