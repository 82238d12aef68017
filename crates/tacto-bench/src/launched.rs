//! The built-in topologies' nodes in the processes of a launch file, and `tacto bench` over a
//! launch file.
//!
//! The reference system and nobleo's topologies are registered with tacto-launch
//! ([`tacto_launch::topology`]), so that a launch file's `topology = "..."` processes run their
//! nodes (`tacto launch-process FILE NAME`: `run_process`, until SIGTERM; then what it
//! measured, its CPU use among it) in any program that links this crate. For `tacto bench`
//! over a launch file ([`bench_target`]), a process runs for a warm-up and a measured window
//! instead, and prints what it measured as JSON: nodes of a topology on the run's executor
//! ([`measure_process`]), components as placed ([`measure_components`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tacto::{Context, ExecutorThread};
use tacto_launch::interrupt::Interrupt;
use tacto_launch::measure::{self, Snapshot, Usage};
use tacto_launch::{ComponentsProcess, ExecutorKind, LaunchFile, ProcessError, ProcessKind, host};

use crate::result::{Distribution, RunResult};
use crate::system::SystemError;
use crate::topology::reference_system::{self, PartConfig};
use crate::topology::{Topology, TopologyError, nobleo};

inventory::submit! {
    tacto_launch::topology::Topology {
        name: "reference-system",
        nodes: || node_names("reference-system"),
        run: run_process,
    }
}

inventory::submit! {
    tacto_launch::topology::Topology {
        name: "nobleo",
        nodes: || node_names("nobleo"),
        run: run_process,
    }
}

inventory::submit! {
    tacto_launch::topology::Topology {
        name: "nobleo-1",
        nodes: || node_names("nobleo-1"),
        run: run_process,
    }
}

/// The nodes of built-in topology `name`, which a launch file's processes may place.
fn node_names(name: &str) -> Result<Vec<String>, String> {
    Ok(
        match LaunchTopology::load(name).map_err(|e| e.to_string())? {
            LaunchTopology::ReferenceSystem(spec) => spec.node_names().map(str::to_owned).collect(),
            LaunchTopology::Nobleo(spec) => spec.layout().into_iter().map(|l| l.name).collect(),
        },
    )
}

/// The topologies a launch file can spread over processes.
#[derive(Debug, Clone)]
enum LaunchTopology {
    /// `reference-system`: the Autoware reference system.
    ReferenceSystem(reference_system::Spec),
    /// `nobleo` or `nobleo-1`: nobleo's many subscriptions at 50 Hz.
    Nobleo(nobleo::Spec),
}

impl LaunchTopology {
    /// The topology a launch file names; only those registered above are launchable, which
    /// tacto-launch checked when it read the file.
    fn load(name: &str) -> Result<LaunchTopology, TopologyError> {
        match Topology::load(name)? {
            Topology::ReferenceSystem(spec) => Ok(LaunchTopology::ReferenceSystem(spec)),
            Topology::Nobleo(spec) => Ok(LaunchTopology::Nobleo(spec)),
            _ => Err(TopologyError::Unknown(name.to_owned())),
        }
    }

    /// The topology of `file`, whose process `name` runs its nodes.
    fn of(file: &LaunchFile, name: &str) -> Result<LaunchTopology, ProcessError> {
        let topology = file
            .topology
            .as_deref()
            .ok_or_else(|| ProcessError::Unknown(name.to_owned()))?;
        LaunchTopology::load(topology).map_err(|e| ProcessError::Nodes(Box::new(e)))
    }
}

impl From<SystemError> for ProcessError {
    fn from(error: SystemError) -> ProcessError {
        ProcessError::Nodes(Box::new(error))
    }
}

/// What `tacto bench` measures of a launch file.
#[derive(Debug, Clone)]
pub enum BenchTarget {
    /// Nodes of the file's built-in topology, on each executor in turn (the file's own
    /// executors overridden), with the topology's figures.
    Topology(Topology),
    /// Components, on the executors the file places them on, by what their processes use.
    Components,
}

/// Why `tacto bench` cannot measure a launch file.
#[derive(Debug, thiserror::Error)]
pub enum BenchFileError {
    /// The file has what a measured run cannot have.
    #[error("{}: tacto bench measures a file of nodes of a built-in topology or of components: {reason}", path.display())]
    NotBenchable {
        /// The file.
        path: PathBuf,
        /// What else it has.
        reason: String,
    },
    /// The file's topology could not be loaded.
    #[error(transparent)]
    Topology(#[from] TopologyError),
}

/// What `tacto bench` measures of `file`: nodes of its built-in topology (on each executor in
/// turn), or components (as placed); refused if a process runs an executable or waits, or the
/// file mixes the two (`path` names the file in the error).
pub fn bench_target(file: &LaunchFile, path: &Path) -> Result<BenchTarget, BenchFileError> {
    let is = |f: fn(&ProcessKind) -> bool| file.processes.iter().filter(|p| f(&p.kind)).count();
    let nodes = is(|k| matches!(k, ProcessKind::Nodes(_)));
    let components = is(|k| matches!(k, ProcessKind::Components(_)));
    let exec = (file.processes.iter()).find(|p| matches!(p.kind, ProcessKind::Exec(_)));
    let waits = file.processes.iter().find(|p| !p.waits.is_empty());
    let reason = match (exec, &file.topology) {
        (Some(exec), _) => format!("process {:?} runs an executable", exec.name),
        (None, _) if waits.is_some() => format!(
            "process {:?} waits (wait_for), and a measured run starts every process at once",
            waits.map_or("", |p| p.name.as_str())
        ),
        (None, Some(topology)) if components == 0 => {
            return Ok(BenchTarget::Topology(Topology::load(topology)?));
        }
        (None, _) if nodes == 0 => return Ok(BenchTarget::Components),
        (None, _) => "it mixes nodes of the topology and components".into(),
    };
    Err(BenchFileError::NotBenchable {
        path: path.to_owned(),
        reason,
    })
}

/// How often the process looks whether its command nodes received their first samples.
const LOOK: Duration = Duration::from_millis(200);

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

/// Runs process `name` of `file`, a process of nodes of a built-in topology, until a signal
/// asks it to stop, printing on stdout what it runs, when its command nodes first receive
/// samples, and at the end how many they received (of the reference system, how each command
/// node's samples arrived: a line `command NAME: ` and its
/// [`Arrivals`](crate::topology::reference_system::Arrivals)).
fn run_process(file: &LaunchFile, name: &str, interrupt: &Interrupt) -> Result<(), ProcessError> {
    let spec = file
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
    let usage = Usage::between(&start, &Snapshot::now());
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
    let rss_kb_per_s = rss_each_second(measured.duration, interrupt)?;
    let end = Snapshot::now();
    let mut result = RunResult {
        executor: measured.executor.name().into(),
        rss_kb_per_s,
        ..Default::default()
    };
    result.set_usage(&Usage::between(&start, &end));
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
    let spec = file
        .nodes_of(name)
        .ok_or_else(|| ProcessError::Unknown(name.to_owned()))?;
    let topology = LaunchTopology::of(file, name)?;
    let ctx = file.context(name)?;
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
                &topology, &ctx, &config, thread,
            )?)
        }
        LaunchTopology::Nobleo(topology) => Running::Nobleo(nobleo::start_part(
            &topology,
            &ctx,
            &spec.nodes,
            executor,
            namespace,
            thread,
        )?),
    };
    Ok((ctx, part))
}

/// Runs the components of process `name` of `file` as placed for `warmup`, then measures the
/// process over `duration` (its CPU, memory once a second, wake-ups), as `tacto bench` measures
/// a run; the result's executor is [`AS_PLACED`].
pub fn measure_components(
    file: &LaunchFile,
    name: &str,
    process: &ComponentsProcess,
    warmup: Duration,
    duration: Duration,
    interrupt: &Interrupt,
) -> Result<RunResult, ProcessError> {
    let hosted = host::start(file, name, process, false)?;
    if !interrupt.sleep(warmup) {
        return Err(ProcessError::Interrupted);
    }
    let start = Snapshot::now();
    let rss_kb_per_s = rss_each_second(duration, interrupt)?;
    let mut result = RunResult {
        executor: AS_PLACED.into(),
        rss_kb_per_s,
        ..Default::default()
    };
    result.set_usage(&Usage::between(&start, &Snapshot::now()));
    hosted.stop()?;
    Ok(result)
}

/// What a measured run of a file of components calls its executors: the file's own.
pub const AS_PLACED: &str = "as placed";

/// Sleeps through the measured window, reading the resident set once a second: memory that
/// grows shows as a slope, not only as the difference between the window's ends.
fn rss_each_second(window: Duration, interrupt: &Interrupt) -> Result<Vec<u64>, ProcessError> {
    let mut rss_kb_per_s = Vec::new();
    let mut left = window;
    while !left.is_zero() {
        let step = left.min(Duration::from_secs(1));
        if !interrupt.sleep(step) {
            return Err(ProcessError::Interrupted);
        }
        left -= step;
        rss_kb_per_s.push(measure::rss_kb());
    }
    Ok(rss_kb_per_s)
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
                let worst = |of: fn(&Distribution) -> f64| {
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
