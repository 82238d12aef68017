//! `tacto bench`: a topology or a launch file on each executor, and `bench payload`; the
//! hidden `run-one` and `payload-receiver` that `bench` runs its children with.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use tacto_bench::health::{Expectations, Statistics};
use tacto_bench::launched::{AS_PLACED, BenchTarget, bench_target};
use tacto_bench::output::{check_output_dir, check_output_file};
use tacto_bench::payload;
use tacto_bench::report;
use tacto_bench::result::Report;
use tacto_bench::run::{RunError, run_here, run_in_child, run_launched};
use tacto_bench::system::{MAX_NODE_PARAMETERS, RunConfig};
use tacto_bench::topology::Topology;
use tacto_bench::topology::reference_system::{MAX_CRUNCH_MS, crunch_time, limit_for};
use tacto_launch::interrupt::Interrupt;
use tacto_launch::{ExecutorKind, LaunchFile, ProcessKind};

use crate::Failure;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// One-way latency by payload size through each path, one message in flight: in one
    /// process, and between two through raw iceoryx2 and through tacto on shared memory.
    Payload {
        /// Paths, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',', default_values_t = payload::Path::ALL)]
        path: Vec<payload::Path>,
        /// Payload sizes, comma-separated: 64, 4K, 1M, ... (binary units).
        #[arg(long, value_delimiter = ',', default_values = ["64", "4K", "64K", "1M", "4M", "8M"], value_parser = payload::parse_size)]
        sizes: Vec<usize>,
        /// Measured messages per path and size (after 20 of warm-up).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        count: u32,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a Markdown report with a plot of latency against payload into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// The published experiments behind tacto's execution models in one run, each beside
    /// tacto's baselines: take-from-timer, reference-system, let-nobleo, zero-copy,
    /// events-executor.
    Seeds {
        /// Short runs that check every section works (CI), not measurements.
        #[arg(long)]
        quick: bool,
        /// Sections, comma-separated (default: every one).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a Markdown report with plots into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// rclcpp Jazzy's install folder (what ../shared/peers/install-rclcpp.sh DIR makes):
        /// reference-system runs its executables beside tacto's executors. Without it, or
        /// without an install in it, the report says rclcpp was not measured.
        #[arg(long, value_name = "DIR")]
        rclcpp: Option<PathBuf>,
    },
}

/// The longest warm-up or measured window: a week. Longer is surely a typo, and would overflow
/// the arithmetic of the progress display.
pub(crate) const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// The largest crunch limit: one crunch then takes seconds, far beyond any period of the
/// reference system (use --crunch-ms to pick a limit by time).
pub(crate) const MAX_CRUNCH: u64 = 65_536;

/// The default crunch limit, upstream's.
pub(crate) const DEFAULT_CRUNCH: u64 = 4096;

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// reference-system, nobleo, nobleo-1, mont-blanc, sierra-nevada, the path of a topology
    /// JSON file, or (bench only) a launch file (.toml): its processes run together, each on
    /// the run's executor, and their figures are added up.
    // Optional to clap only so that `bench payload` may leave it out; required otherwise.
    #[arg(required = true)]
    pub(crate) topology: Option<String>,
    /// Seconds measured per executor (above 0).
    #[arg(long, value_name = "S", default_value = "30", value_parser = window, allow_negative_numbers = true)]
    pub(crate) duration: Duration,
    /// Seconds of warm-up per executor, not measured (0 or more).
    #[arg(long, value_name = "S", default_value = "3", value_parser = warmup, allow_negative_numbers = true)]
    pub(crate) warmup: Duration,
    /// Reference system: work per node run (count the primes up to N); 0 leaves only the
    /// runtime's cost. Default 4096, upstream's.
    #[arg(long, value_name = "N", value_parser = crunch, allow_negative_numbers = true)]
    pub(crate) crunch: Option<u64>,
    /// Every node also on the ROS 2 graph over DDS (the domain of ROS_DOMAIN_ID): it serves
    /// its parameter services and publishes /rosout and /parameter_events, as a node of a real
    /// system; topics go over DDS only to readers in other processes.
    #[arg(long)]
    pub(crate) ros_graph: bool,
    /// Parameters each node declares (0 to 1000), as a configured node has.
    #[arg(long, value_name = "N", default_value = "0", value_parser = node_parameters)]
    pub(crate) node_parameters: usize,
}

/// A number of seconds from 0 to a week.
pub(crate) fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_nan() => Err(format!("{s:?} is not a number of seconds")),
        Ok(v) if v < 0.0 => Err(format!("{s} s is negative")),
        Ok(v) if v > MAX_SECONDS => Err(format!(
            "{s} s is more than a week ({MAX_SECONDS} s), the longest allowed"
        )),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("{s:?} is not a number of seconds")),
    }
}

pub(crate) fn node_parameters(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n <= MAX_NODE_PARAMETERS => Ok(n),
        Ok(n) => Err(format!(
            "{n} parameters per node: give at most {MAX_NODE_PARAMETERS}"
        )),
        Err(_) => Err(format!(
            "{s:?} is not a number of parameters (0 to {MAX_NODE_PARAMETERS})"
        )),
    }
}

pub(crate) fn window(s: &str) -> Result<Duration, String> {
    match seconds(s)? {
        0.0 => Err("a measured window of 0 s measures nothing: give more than 0 s".into()),
        v => Ok(Duration::from_secs_f64(v)),
    }
}

pub(crate) fn warmup(s: &str) -> Result<Duration, String> {
    seconds(s).map(Duration::from_secs_f64)
}

pub(crate) fn crunch(s: &str) -> Result<u64, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "{s} is negative: give a limit from 0 to {MAX_CRUNCH}"
        ));
    }
    match s.trim().parse::<u64>() {
        Ok(v) if v <= MAX_CRUNCH => Ok(v),
        Ok(_) => Err(format!(
            "{s} is above {MAX_CRUNCH}, where one crunch takes seconds; use --crunch-ms for a \
             time per run"
        )),
        Err(_) => Err(format!(
            "{s:?} is not a whole number from 0 to {MAX_CRUNCH}"
        )),
    }
}

pub(crate) fn crunch_ms(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=MAX_CRUNCH_MS).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a time in ms from 0 to {MAX_CRUNCH_MS}"
        )),
    }
}

impl RunArgs {
    pub(crate) fn topology(&self) -> Result<&str, String> {
        self.topology
            .as_deref()
            .ok_or_else(|| "no topology given".into())
    }

    pub(crate) fn config(&self, executor: ExecutorKind, crunch: u64) -> RunConfig {
        RunConfig {
            executor,
            crunch,
            warmup: self.warmup,
            duration: self.duration,
            ros_graph: self.ros_graph,
            node_parameters: self.node_parameters,
        }
    }
}

/// `tacto run-one`: one executor's run of a topology in this process, its result printed as
/// JSON (a child of `tacto bench`).
pub(crate) fn run_one(
    run: &RunArgs,
    executor: ExecutorKind,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    let topology = Topology::load(run.topology()?)?;
    let config = run.config(executor, run.crunch.unwrap_or(DEFAULT_CRUNCH));
    let result = match run_here(&topology, &config, interrupt) {
        Err(RunError::Interrupted { .. }) => return Err(Failure::Interrupted),
        other => other?,
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

/// `tacto payload-receiver`: one path's receiving side of `bench payload`, its figures printed
/// as JSON.
pub(crate) fn payload_receiver(
    path: payload::Path,
    service: &str,
    size: usize,
    count: usize,
) -> Result<(), Failure> {
    let received = payload::receive(path, service, size, count)?;
    println!("{}", serde_json::to_string(&received)?);
    Ok(())
}

pub(crate) fn bench(
    run: &RunArgs,
    crunch_ms_target: Option<f64>,
    executors: &[ExecutorKind],
    json: Option<PathBuf>,
    out: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    // Everything that can be refused is checked here, before any run starts.
    let topology_name = run.topology()?;
    let launch_path = Path::new(topology_name);
    let launch = match topology_name.ends_with(".toml") {
        true => Some(LaunchFile::load(launch_path)?),
        false => None,
    };
    let topology = match &launch {
        Some(file) => match bench_target(file, launch_path)? {
            BenchTarget::Topology(topology) => topology,
            BenchTarget::Components => {
                let given = (executors != ExecutorKind::ALL).then_some("--executor");
                let given = given
                    .or(crunch_ms_target.is_some().then_some("--crunch-ms"))
                    .or(run.crunch.is_some().then_some("--crunch"))
                    .or((run.ros_graph || run.node_parameters > 0).then_some("--ros-graph"));
                if let Some(option) = given {
                    return Err(format!(
                        "{option} applies to a built-in topology: a file of components runs as \
                         it places them"
                    )
                    .into());
                }
                return bench_components(run, launch_path, file, json, out, interrupt);
            }
        },
        None => Topology::load(topology_name)?,
    };
    // A launch file gives each process one executor; `prioritized` is a layout of several.
    let executors: Vec<ExecutorKind> = match &launch {
        Some(_) if executors == ExecutorKind::ALL => (executors.iter().copied())
            .filter(|&kind| kind != ExecutorKind::Prioritized)
            .collect(),
        Some(_) if executors.contains(&ExecutorKind::Prioritized) => {
            return Err(
                "--executor prioritized: a launch file gives each process one \
                        executor, and prioritized is a layout of several threads"
                    .into(),
            );
        }
        _ => executors.to_vec(),
    };
    let executors = &executors[..];
    if launch.is_some() && (run.ros_graph || run.node_parameters > 0) {
        return Err(
            "--ros-graph and --node-parameters apply to a topology, not to a launch file: its \
             processes are on the transport the file gives"
                .into(),
        );
    }
    if let Some(path) = &json {
        check_output_file(path).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &out {
        check_output_dir(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    if crunch_ms_target.is_some() && !topology.crunches() {
        return Err(format!(
            "--crunch-ms applies to the reference system only, not to {}",
            topology.name()
        )
        .into());
    }
    let crunch = match (crunch_ms_target, &launch) {
        (Some(ms), _) => limit_for(ms)?,
        (None, Some(file)) => run.crunch.unwrap_or(file.crunch),
        (None, None) => run.crunch.unwrap_or(DEFAULT_CRUNCH),
    };
    let mut report = Report {
        topology: match &launch {
            Some(file) => format!(
                "{} in {} processes ({})",
                topology.name(),
                file.processes.len(),
                topology_name
            ),
            None => topology.name(),
        },
        duration_s: run.duration.as_secs_f64(),
        crunch,
        crunch_ms: topology
            .crunches()
            .then(|| crunch_time(crunch).as_secs_f64() * 1e3),
        crunch_ms_target,
        runs: Vec::new(),
        interrupted: false,
    };
    let per_run = run.warmup + run.duration;
    let mut failures = Vec::new();
    for (i, &kind) in executors.iter().enumerate() {
        let label = format!("{}/{}", i + 1, executors.len());
        let after = per_run * (executors.len() - i - 1) as u32;
        let config = run.config(kind, crunch);
        let result = match &launch {
            Some(file) => {
                // Its processes spread over the CPUs: each executor thread may have one.
                let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
                let expected = Expectations {
                    cores: file.processes.len().min(cpus) as f64,
                    ..topology.expectations(kind)
                };
                run_launched(
                    launch_path,
                    file,
                    &config,
                    &expected,
                    &label,
                    after,
                    interrupt,
                )
            }
            None => run_in_child(topology_name, &config, &label, after, interrupt),
        };
        match result {
            Ok(result) => report.runs.push(result),
            Err(RunError::Interrupted { .. }) => {
                report.interrupted = true;
                break;
            }
            Err(e) => {
                eprintln!("tacto: {e}");
                failures.push(kind);
            }
        }
        if interrupt.requested() {
            report.interrupted = true;
            break;
        }
    }
    print!("{}", report::table(&report));
    if report.interrupted {
        eprintln!(
            "tacto: interrupted: {} of {} runs finished, shown above",
            report.runs.len(),
            executors.len()
        );
    }
    if let Some(path) = json {
        report::write_json(&report, &path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = out {
        report::write_markdown(&report, &dir)
            .map_err(|e| format!("cannot write the report into {}: {e}", dir.display()))?;
        println!("report: {}", dir.join("report.md").display());
    }
    if report.interrupted {
        return Err(Failure::Interrupted);
    }
    match failures.is_empty() {
        true => Ok(()),
        false => Err(format!("{} of {} runs failed", failures.len(), executors.len()).into()),
    }
}

/// `tacto bench FILE.toml` of a file of components: one run of its processes as placed (their
/// own executors, threads, CPUs and priorities), what each process and all together use.
pub(crate) fn bench_components(
    run: &RunArgs,
    path: &Path,
    file: &LaunchFile,
    json: Option<PathBuf>,
    out: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    if let Some(path) = &json {
        check_output_file(path).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &out {
        check_output_dir(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    // The children run the file's executors; the one named here only labels the progress.
    let config = run.config(ExecutorKind::WaitSet, 0);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: usize = (file.processes.iter())
        .map(|p| match &p.kind {
            ProcessKind::Components(c) => c.executors.len(),
            _ => 1,
        })
        .sum();
    let expected = Expectations {
        cores: threads.min(cpus) as f64,
        statistics: Statistics::Usage,
    };
    let mut report = Report {
        topology: format!(
            "{} processes of components ({})",
            file.processes.len(),
            path.display()
        ),
        duration_s: run.duration.as_secs_f64(),
        crunch: 0,
        crunch_ms: None,
        crunch_ms_target: None,
        runs: Vec::new(),
        interrupted: false,
    };
    match run_launched(
        path,
        file,
        &config,
        &expected,
        "1/1",
        Duration::ZERO,
        interrupt,
    ) {
        Ok(mut result) => {
            result.executor = AS_PLACED.into();
            report.runs.push(result);
        }
        Err(RunError::Interrupted { .. }) => report.interrupted = true,
        Err(e) => return Err(e.into()),
    }
    print!("{}", report::table(&report));
    if let Some(path) = json {
        report::write_json(&report, &path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = out {
        report::write_markdown(&report, &dir)
            .map_err(|e| format!("cannot write the report into {}: {e}", dir.display()))?;
        println!("report: {}", dir.join("report.md").display());
    }
    match report.interrupted {
        true => Err(Failure::Interrupted),
        false => Ok(()),
    }
}

pub(crate) fn bench_payload(
    paths: &[payload::Path],
    sizes: &[usize],
    count: usize,
    json: Option<PathBuf>,
    out: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    if let Some(path) = &json {
        check_output_file(path).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &out {
        check_output_dir(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    let report = payload::run(paths, sizes, count, interrupt)?;
    print!("{}", payload::table(&report));
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report)?;
        fs::write(&path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = out {
        let written = payload::write_markdown(&report, &dir)
            .map_err(|e| format!("cannot write the report into {}: {e}", dir.display()))?;
        println!("report: {}", written.display());
    }
    match report.interrupted {
        true => {
            eprintln!("tacto: interrupted: the sizes finished are shown above");
            Err(Failure::Interrupted)
        }
        false => Ok(()),
    }
}
