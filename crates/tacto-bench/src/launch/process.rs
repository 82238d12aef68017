//! One process of a launch file, in the child (`tacto launch-process FILE NAME`): its nodes on
//! a context whose topics reach the other processes through shared memory or DDS, until
//! SIGTERM; then what it measured, its CPU use among it. For `tacto bench` over a launch file
//! ([`measure_process`]), the same nodes run for a warm-up and a measured window instead, and
//! the process prints what it measured as JSON.

use std::time::Duration;

use tacto::{Context, ExecutorThread};
use tacto_dds::DdsTransport;
use tacto_shm::ShmTransport;

use super::file::{LaunchFile, LaunchTopology, LaunchTransport, ProcessKind};
use super::host;
use crate::executors::ExecutorKind;
use crate::interrupt::Interrupt;
use crate::measure::{self, Snapshot};
use crate::result::RunResult;
use crate::system::SystemError;
use crate::topology::nobleo;
use crate::topology::reference_system::{self, PartConfig};

/// How often the process looks whether its command nodes received their first samples.
const LOOK: Duration = Duration::from_millis(200);

/// Why a process could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The file has no process of that name that runs nodes of its topology or components.
    #[error("the launch file has no process {0:?} that runs nodes of its topology or components")]
    Unknown(String),
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
    /// The nodes could not be built, their thread started (a CPU set or priority the OS
    /// refuses, say) or run.
    #[error(transparent)]
    System(#[from] SystemError),
    /// A signal stopped a measured run before its window ended.
    #[error("interrupted before the measured window ended")]
    Interrupted,
}

/// What a measured run of one process changes from its launch file, and how long it runs.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// The executor every process runs on, instead of the file's.
    pub executor: ExecutorKind,
    /// The reference system's crunch limit, instead of the file's.
    pub crunch: u64,
    /// Not measured, from the start of the nodes.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
}

/// Runs process `name` of `file` until a signal asks it to stop, printing on stdout what it
/// runs, when its command nodes first receive samples, and at the end how many they received
/// (of the reference system, how each command node's samples arrived: a line
/// `command NAME: ` and its [`Arrivals`](crate::topology::reference_system::Arrivals)).
pub fn run_process(
    file: &LaunchFile,
    name: &str,
    interrupt: &Interrupt,
) -> Result<(), ProcessError> {
    if let Some(ProcessKind::Components(components)) = file.process(name).map(|p| &p.kind) {
        return host::run(file, name, components, interrupt);
    }
    let (_, spec) = file
        .nodes_of(name)
        .ok_or_else(|| ProcessError::Unknown(name.to_owned()))?;
    let (_ctx, part) = start(file, name, spec.executor, file.crunch)?;
    let start = Snapshot::now();
    println!(
        "running {} on the {} executor",
        spec.nodes.join(", "),
        spec.executor
    );
    let (mut announced, mut all_heard) = (false, false);
    while !interrupt.requested() {
        interrupt.sleep(LOOK);
        let received = part.received();
        if received > 0 && !announced {
            announced = true;
            println!(
                "receiving: {received} samples {} so far",
                part.where_counted()
            );
        }
        if let (Running::Nobleo(nobleo), false) = (&part, all_heard) {
            let (heard, topics) = nobleo.heard();
            if heard == topics {
                all_heard = true;
                println!("hearing all {topics} topics");
            }
        }
    }
    let received = part.received();
    // Each command node's delivery facts, for whoever reads the output to check the transport.
    if let Running::ReferenceSystem(part) = &part {
        for (node, arrivals) in part.arrivals() {
            println!("command {node}: {arrivals}");
        }
    }
    let mut usage = RunResult::default();
    measure::fill(&mut usage, &start, &Snapshot::now());
    let place = part.where_counted();
    let summary = part.stop()?;
    println!(
        "cpu: {:.3} % of a core, {:.1} wake-ups/s, {} kB resident at the end",
        usage.cpu_pct_core, usage.wakeups_per_s, usage.rss_end_kb
    );
    println!("stopped: {received} samples {place}{summary}");
    Ok(())
}

/// Runs process `name` of `file` as `measured` says: its nodes on `measured.executor`, a
/// warm-up, then the measured window; returns what the process measured (its CPU, memory and
/// wake-ups, and what its nodes recorded: the reference system's KPIs of its command nodes, or
/// nobleo's topics its subscriptions heard).
pub fn measure_process(
    file: &LaunchFile,
    name: &str,
    measured: &Measured,
    interrupt: &Interrupt,
) -> Result<RunResult, ProcessError> {
    let (_ctx, part) = start(file, name, measured.executor, measured.crunch)?;
    if !interrupt.sleep(measured.warmup) {
        return Err(ProcessError::Interrupted);
    }
    part.reset();
    let start = Snapshot::now();
    // The resident set once a second: memory that grows shows as a slope, not only as the
    // difference between the window's ends.
    let mut rss_kb_per_s = Vec::new();
    let mut left = measured.duration;
    while !left.is_zero() {
        let step = left.min(Duration::from_secs(1));
        if !interrupt.sleep(step) {
            return Err(ProcessError::Interrupted);
        }
        left -= step;
        rss_kb_per_s.push(measure::rss_kb());
    }
    let end = Snapshot::now();
    let mut result = RunResult {
        executor: measured.executor.name().into(),
        rss_kb_per_s,
        ..Default::default()
    };
    measure::fill(&mut result, &start, &end);
    part.finish(&mut result, measured.duration)?;
    Ok(result)
}

/// Builds process `name`'s nodes on a context on the file's transport and starts them on
/// `executor`; the context must outlive the nodes.
fn start(
    file: &LaunchFile,
    name: &str,
    executor: ExecutorKind,
    crunch: u64,
) -> Result<(Context, Running), ProcessError> {
    let (topology, spec) = file
        .nodes_of(name)
        .ok_or_else(|| ProcessError::Unknown(name.to_owned()))?;
    let ctx = context(file, name)?;
    let mut thread = ExecutorThread::builder().name("tacto-launch");
    if let Some(cpus) = &spec.cpus {
        thread = thread.cpus(cpus);
    }
    if let Some(priority) = spec.fifo_priority {
        thread = thread.fifo_priority(priority);
    }
    let namespace = file.namespace.as_deref();
    let part = match topology {
        LaunchTopology::ReferenceSystem(topology) => {
            let config = PartConfig {
                nodes: &spec.nodes,
                executor,
                crunch,
                namespace,
            };
            Running::ReferenceSystem(reference_system::start_part(
                topology, &ctx, &config, thread,
            )?)
        }
        LaunchTopology::Nobleo(topology) => Running::Nobleo(nobleo::start_part(
            topology,
            &ctx,
            &spec.nodes,
            executor,
            namespace,
            thread,
        )?),
    };
    Ok((ctx, part))
}

/// A context for process `name` of `file`, on the file's transport.
pub(super) fn context(file: &LaunchFile, name: &str) -> Result<Context, ProcessError> {
    // Every process of the file has the file's limits, so whichever creates a topic, the
    // others can open it.
    let shm = || ShmTransport::builder(name).limits(file.shm).create();
    Ok(match file.transport {
        LaunchTransport::SharedMemory => Context::builder().transport(shm()?),
        LaunchTransport::Dds => Context::builder().transport(DdsTransport::from_env()?),
        LaunchTransport::SharedMemoryAndDds => {
            let shm = shm()?;
            let participant = tacto_dds::Participant::from_env()?;
            let dds = DdsTransport::beside_shm(participant, &shm.node().host_key()?);
            Context::builder().transport(shm).transport(dds)
        }
    }
    .create())
}

/// The process's nodes, running.
enum Running {
    ReferenceSystem(reference_system::Part),
    Nobleo(nobleo::Part),
}

impl Running {
    /// Samples counted so far where [`where_counted`](Self::where_counted) says.
    fn received(&self) -> u64 {
        match self {
            Running::ReferenceSystem(part) => part.received(),
            Running::Nobleo(part) => part.received(),
        }
    }

    /// Starts the measured window: what the nodes recorded so far is forgotten.
    fn reset(&self) {
        match self {
            Running::ReferenceSystem(part) => part.reset(),
            Running::Nobleo(part) => part.reset(),
        }
    }

    /// Stops the nodes and adds what they recorded over the measured `window` to `result`.
    fn finish(self, result: &mut RunResult, window: Duration) -> Result<(), SystemError> {
        match self {
            Running::ReferenceSystem(part) => {
                let kpis = part.stop()?;
                result.hot_path_latency_ms = kpis.hot_path_latency_ms;
                result.hot_path_drops = kpis.hot_path_drops;
                result.bp_period_ms = kpis.bp_period_ms;
                result.drops_total = kpis.drops_total;
            }
            Running::Nobleo(part) => {
                let topics = part.stop()?;
                let delivered: u64 = topics.iter().map(|t| t.latency_ms.n).sum();
                result.deliveries_per_s = Some(delivered as f64 / window.as_secs_f64());
                result.drops_total = topics.iter().map(|t| t.lost).sum();
                result.topics = topics;
            }
        }
        Ok(())
    }

    fn where_counted(&self) -> &'static str {
        match self {
            Running::ReferenceSystem(_) => "at the command nodes",
            Running::Nobleo(_) => "taken by the subscriptions",
        }
    }

    /// Stops the nodes; what they measured, as the end of the `stopped:` line.
    fn stop(self) -> Result<String, SystemError> {
        Ok(match self {
            Running::ReferenceSystem(part) => match part.stop()?.hot_path_latency_ms {
                Some(latency) => format!(
                    "; hot path latency p50 {:.2} ms, max {:.2} ms over {} samples",
                    latency.p50, latency.max, latency.n
                ),
                None => String::new(),
            },
            Running::Nobleo(part) => {
                let topics = part.stop()?;
                let worst = |of: fn(&crate::result::Distribution) -> f64| {
                    (topics.iter())
                        .map(|t| of(&t.latency_ms))
                        .fold(0.0, f64::max)
                };
                let lost: u64 = topics.iter().map(|t| t.lost).sum();
                let heard = topics.iter().filter(|t| t.latency_ms.n > 0).count();
                format!(
                    "; {heard} of its {} topics heard; latency worst p50 {:.2} ms, worst max \
                     {:.2} ms; {lost} lost",
                    topics.len(),
                    worst(|d| d.p50),
                    worst(|d| d.max)
                )
            }
        })
    }
}
