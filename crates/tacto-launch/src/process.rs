//! One process of a launch file, in the child (`tacto launch-process FILE NAME`): its
//! components ([`host`]) or its nodes of a built-in topology (run by the crate
//! that registers the topology, [`topology`]), on a context whose topics
//! reach the other processes through shared memory or DDS ([`LaunchFile::context`]), until
//! SIGTERM.

use crate::file::{LaunchFile, ProcessKind};
use crate::interrupt::Interrupt;
use crate::{host, topology};

/// Why a process could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The file has no process of that name that runs nodes of its topology or components.
    #[error("the launch file has no process {0:?} that runs nodes of its topology or components")]
    Unknown(String),
    /// The file's topology is registered by no crate this program links.
    #[error(
        "topology {0:?} is not built into this program (it links the crate that registers it, \
         tacto-bench for tacto's own, to run its nodes)"
    )]
    NoTopology(String),
    /// A component could not be found or built.
    #[error(transparent)]
    Component(#[from] tacto_component::ComponentError),
    /// The shared-memory transport could not be set up.
    #[error("the shared-memory transport: {0}")]
    Transport(#[from] tacto_shm::NodeError),
    /// The DDS transport could not join its domain.
    #[error("the DDS transport: {0}")]
    Dds(#[from] tacto_dds::ParticipantError),
    /// Beside DDS, the shared-memory transport could not name this host's shared memory.
    #[error("this host's shared-memory key: {0}")]
    HostKey(#[from] std::io::Error),
    /// The executors could not be made or their threads started (a CPU set or priority the
    /// OS refuses, say), or the runtime refused a node.
    #[error("building the graph failed: {0}")]
    Build(String),
    /// An executor failed while running.
    #[error("an executor failed: {0}")]
    Run(String),
    /// A built-in topology's nodes could not be built or run (the topology's own error).
    #[error(transparent)]
    Nodes(Box<dyn std::error::Error + Send + Sync>),
    /// A signal stopped a measured run before its window ended.
    #[error("interrupted before the measured window ended")]
    Interrupted,
}

/// Runs process `name` of `file` until a signal asks it to stop, printing on stdout what it
/// runs and, at the end, its CPU use (and what a topology's nodes received).
pub fn run_process(
    file: &LaunchFile,
    name: &str,
    interrupt: &Interrupt,
) -> Result<(), ProcessError> {
    match file.process(name).map(|p| &p.kind) {
        Some(ProcessKind::Components(components)) => host::run(file, name, components, interrupt),
        Some(ProcessKind::Nodes(_)) => {
            let topology_name = file.topology.as_deref().unwrap_or_default();
            let topology = topology::find(topology_name)
                .ok_or_else(|| ProcessError::NoTopology(topology_name.to_owned()))?;
            (topology.run)(file, name, interrupt)
        }
        Some(ProcessKind::Exec(_)) | None => Err(ProcessError::Unknown(name.to_owned())),
    }
}
