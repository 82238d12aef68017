//! One process of a launch file, in the child (`tacto launch-process FILE NAME`): its nodes on
//! a context whose topics reach the other processes through shared memory or DDS, until
//! SIGTERM; then what it measured, its CPU use among it.

use std::time::Duration;

use tacto::{Context, ExecutorThread};
use tacto_dds::DdsTransport;
use tacto_shm::ShmTransport;

use super::file::{LaunchFile, LaunchTransport};
use crate::interrupt::Interrupt;
use crate::measure::{self, Snapshot};
use crate::result::RunResult;
use crate::system::SystemError;
use crate::topology::reference_system::{PartConfig, start_part};

/// How often the process looks whether its command nodes received their first samples.
const LOOK: Duration = Duration::from_millis(200);

/// Why a process could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The file has no process of that name.
    #[error("the launch file has no process {0:?}")]
    Unknown(String),
    /// The shared-memory transport could not be set up.
    #[error("the shared-memory transport: {0}")]
    Transport(#[from] tacto_shm::NodeError),
    /// The DDS transport could not join its domain.
    #[error("the DDS transport: {0}")]
    Dds(#[from] tacto_dds::ParticipantError),
    /// The nodes could not be built, their thread started (a CPU set or priority the OS
    /// refuses, say) or run.
    #[error(transparent)]
    System(#[from] SystemError),
}

/// Runs process `name` of `file` until a signal asks it to stop, printing on stdout what it
/// runs, when its command nodes first receive samples, and at the end how many they received.
pub fn run_process(
    file: &LaunchFile,
    name: &str,
    interrupt: &Interrupt,
) -> Result<(), ProcessError> {
    let spec = file
        .process(name)
        .ok_or_else(|| ProcessError::Unknown(name.to_owned()))?;
    let ctx = match file.transport {
        LaunchTransport::SharedMemory => Context::builder().transport(ShmTransport::new(name)?),
        LaunchTransport::Dds => Context::builder().transport(DdsTransport::from_env()?),
    }
    .create();
    let mut thread = ExecutorThread::builder().name("tacto-launch");
    if let Some(cpus) = &spec.cpus {
        thread = thread.cpus(cpus);
    }
    if let Some(priority) = spec.fifo_priority {
        thread = thread.fifo_priority(priority);
    }
    let config = PartConfig {
        nodes: &spec.nodes,
        executor: spec.executor,
        crunch: file.crunch,
        namespace: file.namespace.as_deref(),
    };
    let part = start_part(&file.topology, &ctx, &config, thread)?;
    let start = Snapshot::now();
    println!(
        "running {} on the {} executor",
        spec.nodes.join(", "),
        spec.executor
    );
    let mut announced = false;
    while !interrupt.requested() {
        interrupt.sleep(LOOK);
        let received = part.received();
        if received > 0 && !announced {
            announced = true;
            println!("receiving: {received} samples at the command nodes so far");
        }
    }
    let received = part.received();
    let mut usage = RunResult::default();
    measure::fill(&mut usage, &start, &Snapshot::now());
    let result = part.stop()?;
    println!(
        "cpu: {:.3} % of a core, {:.1} wake-ups/s, {} kB resident at the end",
        usage.cpu_pct_core, usage.wakeups_per_s, usage.rss_end_kb
    );
    match result.hot_path_latency_ms {
        Some(latency) => println!(
            "stopped: {received} samples at the command nodes; hot path latency p50 {:.2} ms, \
             max {:.2} ms over {} samples",
            latency.p50, latency.max, latency.n
        ),
        None => println!("stopped: {received} samples at the command nodes"),
    }
    Ok(())
}
