//! The topologies `tacto bench` runs, and how a command-line name or path finds one.
//!
//! | argument | topology |
//! |---|---|
//! | `reference-system` | the Autoware reference system ([`reference_system`]) |
//! | `nobleo`, `nobleo-1` | nobleo's LET comparison: 10 nodes, or the same traffic from one ([`nobleo`]) |
//! | `mont-blanc`, `sierra-nevada` | the ros2-performance topologies of those names ([`ros2_performance`]) |
//! | a path to a `.json` file | a ros2-performance topology, or a reference system if the file has a `hot_path` |
//!
//! The named topologies are compiled into the binary ([`embedded`]), so they need nothing
//! beside the program; `topologies/README.md` in this crate says where each file comes from and
//! under which license.

pub mod nobleo;
pub mod reference_system;
pub mod ros2_performance;
mod threads;
mod tracking;

use std::path::{Path, PathBuf};

use crate::health::{Expectations, Statistics};
use crate::system::{RunConfig, System, SystemError};
use tacto_launch::executors::ExecutorKind;

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
    /// Neither a known name nor anything that looks like a path.
    #[error(
        "unknown topology {0:?}: use reference-system, nobleo, nobleo-1, mont-blanc, sierra-nevada or the path of a topology JSON file"
    )]
    Unknown(String),
    /// A path that names no file.
    #[error("{}: file not found", .0.display())]
    NotFound(PathBuf),
    /// A path that names something other than a file (a folder, say).
    #[error("{}: not a file", .0.display())]
    NotAFile(PathBuf),
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

/// The topology files compiled into the binary, by their `tacto bench` names.
pub mod embedded {
    /// The Autoware reference system (Apache-2.0, from ros-realtime/reference-system).
    pub const REFERENCE_SYSTEM: &str =
        include_str!("../../topologies/autoware_reference_system.json");
    /// ros2-performance's `mont_blanc.json` (BSD-3-Clause, iRobot).
    pub const MONT_BLANC: &str = include_str!("../../topologies/ros2-performance/mont_blanc.json");
    /// ros2-performance's `sierra_nevada.json` (BSD-3-Clause, iRobot).
    pub const SIERRA_NEVADA: &str =
        include_str!("../../topologies/ros2-performance/sierra_nevada.json");
}

impl Topology {
    /// Finds the topology that `arg` names: a built-in name, or the path of a file.
    ///
    /// # Examples
    /// ```
    /// use tacto_bench::topology::{Topology, TopologyError};
    ///
    /// assert_eq!(Topology::load("reference-system").unwrap().name(), "reference-system");
    /// assert_eq!(Topology::load("mont-blanc").unwrap().name(), "mont_blanc");
    /// assert!(matches!(Topology::load("no/such.json"), Err(TopologyError::NotFound(_))));
    /// assert!(matches!(Topology::load("autoware"), Err(TopologyError::Unknown(_))));
    /// ```
    pub fn load(arg: &str) -> Result<Topology, TopologyError> {
        // Errors name the embedded files by the path they have in the repository.
        let embedded = |file: &str| PathBuf::from(format!("crates/tacto-bench/topologies/{file}"));
        match arg {
            "reference-system" => reference_system::Spec::from_json(
                embedded::REFERENCE_SYSTEM,
                &embedded("autoware_reference_system.json"),
            )
            .map(Topology::ReferenceSystem),
            "mont-blanc" => ros2_performance::Spec::parse(
                &embedded("ros2-performance/mont_blanc.json"),
                embedded::MONT_BLANC,
            )
            .map(Topology::Ros2Performance),
            "sierra-nevada" => ros2_performance::Spec::parse(
                &embedded("ros2-performance/sierra_nevada.json"),
                embedded::SIERRA_NEVADA,
            )
            .map(Topology::Ros2Performance),
            "nobleo" => Ok(Topology::Nobleo(nobleo::Spec::ten_nodes())),
            "nobleo-1" => Ok(Topology::Nobleo(nobleo::Spec::one_node())),
            _ => Topology::from_path(arg),
        }
    }

    /// Loads the file at `arg`, or says why it cannot: an argument without a `/` and without a
    /// `.json` ending that names nothing is taken for a mistyped name, not a missing file.
    fn from_path(arg: &str) -> Result<Topology, TopologyError> {
        let path = Path::new(arg);
        let looks_like_path = arg.contains('/') || arg.ends_with(".json");
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => return Err(TopologyError::NotAFile(path.to_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(match looks_like_path {
                    true => TopologyError::NotFound(path.to_owned()),
                    false => TopologyError::Unknown(arg.to_owned()),
                });
            }
            Err(source) => {
                return Err(TopologyError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        }
        let json = std::fs::read_to_string(path).map_err(|source| TopologyError::Read {
            path: path.to_owned(),
            source,
        })?;
        // The reference system's format is the one with a hot path; anything else is read as
        // ros2-performance's, whose errors then say what is missing.
        let is_reference_system = serde_json::from_str::<serde_json::Value>(&json)
            .is_ok_and(|v| v.get("hot_path").is_some());
        match is_reference_system {
            true => reference_system::Spec::from_json(&json, path).map(Topology::ReferenceSystem),
            false => ros2_performance::Spec::parse(path, &json).map(Topology::Ros2Performance),
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

    /// True for the reference system, whose work per node is the crunch.
    pub fn crunches(&self) -> bool {
        matches!(self, Topology::ReferenceSystem(_))
    }

    /// What a run of this topology on `executor` looks like when it keeps up.
    pub fn expectations(&self, executor: ExecutorKind) -> Expectations {
        // `available_parallelism` counts the CPUs this process may run on (its affinity mask
        // and its cgroup's CPU quota), not the machine's.
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let cores = match executor.single_threaded() {
            true => 1.0,
            false => cpus as f64,
        };
        let statistics = match self {
            Topology::ReferenceSystem(spec) => Statistics::ReferenceSystem {
                planner_period_ms: spec.planner_period().map(|p| p.as_secs_f64() * 1e3),
            },
            Topology::Ros2Performance(_) | Topology::Nobleo(_) => Statistics::Topics,
        };
        Expectations { cores, statistics }
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
