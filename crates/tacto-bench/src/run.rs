//! Running a topology: here, for one executor, or in a child process per executor.
//!
//! `tacto bench` runs each executor in a child process of its own (`tacto run-one ...`), one
//! after another, so that each run's CPU time and RSS are its own and no run inherits another's
//! threads or memory. The child prints its [`RunResult`] as one line of JSON on stdout.
//!
//! Over a launch file ([`run_launched`]), a run is every process of the file at once, each a
//! child (`tacto launch-process ... --duration`) on the run's executor, and the run's figures
//! are theirs added up.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::deadline::{self, Waited};
use crate::health::{self, Expectations};
use crate::result::{ProcessResult, RunResult};
use crate::system::{RunConfig, SystemError};
use crate::topology::Topology;
use crate::topology::reference_system::crunch_time;
use tacto_launch::interrupt::Interrupt;
use tacto_launch::measure::{Snapshot, Usage};
use tacto_launch::supervise::child_command;
use tacto_launch::{LaunchFile, LaunchTransport};

/// How often a waiting parent looks at its child (a signal cuts the wait short).
pub const POLL: Duration = Duration::from_millis(100);

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The topology could not be built or run on this executor.
    #[error(transparent)]
    System(#[from] SystemError),
    /// The child process could not be started.
    #[error("cannot start the run's process {program}: {source}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The OS's reason.
        source: io::Error,
    },
    /// The child process failed; its error output is attached.
    #[error("the {executor} run failed ({status}): {stderr}")]
    Child {
        /// The executor kind's name.
        executor: String,
        /// How the process ended.
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// Ctrl-C or SIGTERM stopped the run before it finished (its process, if any, was
    /// killed).
    #[error("the {executor} run was interrupted")]
    Interrupted {
        /// The executor kind's name.
        executor: String,
    },
    /// The child did not end long after its run should have: killed, with what its threads
    /// were doing.
    #[error("the {executor} run hung: {why}")]
    Hung {
        /// The executor kind's name.
        executor: String,
        /// How long it was given, and its threads' state.
        why: String,
    },
    /// The child's output was not a result.
    #[error("the {executor} run printed no result: {reason}")]
    Output {
        /// The executor kind's name.
        executor: String,
        /// What was wrong.
        reason: String,
    },
}

/// Runs `topology` on `config.executor` in this process: one crunch timed, then warm-up, then
/// the measured window; a signal (`interrupt`) cuts it short.
pub fn run_here(
    topology: &Topology,
    config: &RunConfig,
    interrupt: &Interrupt,
) -> Result<RunResult, RunError> {
    let interrupted = || RunError::Interrupted {
        executor: config.executor.name().into(),
    };
    // Timed before the system starts, so that its own threads do not compete with it.
    let crunch_ms = topology
        .crunches()
        .then(|| crunch_time(config.crunch).as_secs_f64() * 1e3);
    let mut system = topology.start(config)?;
    if !interrupt.sleep(config.warmup) {
        return Err(interrupted());
    }
    system.reset();
    let start = Snapshot::now();
    if !interrupt.sleep(config.duration) {
        return Err(interrupted());
    }
    let end = Snapshot::now();
    let mut result = RunResult {
        executor: config.executor.name().into(),
        crunch_ms,
        ..Default::default()
    };
    result.set_usage(&Usage::between(&start, &end));
    system.finish(&mut result)?;
    health::assess(&mut result, &topology.expectations(config.executor));
    Ok(result)
}

/// Runs `topology_arg` on `config.executor` in a child process of this program, showing
/// progress on stderr; `label` says which of the runs this is (e.g. `2/6`), `after` how long
/// the runs after this one will take. When a signal comes (Ctrl-C), kills the child and
/// returns [`RunError::Interrupted`]; kills one that has not ended a minute past twice its
/// warm-up and window and returns [`RunError::Hung`]. The child is made by [`child_command`].
pub fn run_in_child(
    topology_arg: &str,
    config: &RunConfig,
    label: &str,
    after: Duration,
    interrupt: &Interrupt,
) -> Result<RunResult, RunError> {
    let program = this_program()?;
    let executor = config.executor.name().to_owned();
    let mut child = MeasuringChild::start(&program, &["run-one", topology_arg], config)?;
    let progress = Progress::start(label, &executor, config.warmup + config.duration, after);
    let limit = deadline::limit(config.warmup + config.duration);
    let status = deadline::wait(&mut child.child, limit, interrupt);
    progress.finish();
    child.result(status, executor, program)
}

/// This program, to start children of.
fn this_program() -> Result<PathBuf, RunError> {
    std::env::current_exe().map_err(|source| RunError::Spawn {
        program: PathBuf::from("tacto"),
        source,
    })
}

/// A child of this program that runs `config`'s executor, crunch, warm-up and window, then
/// prints its [`RunResult`] as one line of JSON; its pipes are drained as it runs.
struct MeasuringChild {
    child: Child,
    stdout: Option<thread::JoinHandle<String>>,
    stderr: Option<thread::JoinHandle<String>>,
}

impl MeasuringChild {
    /// Starts `program args... --executor --crunch --duration --warmup [--node-parameters]
    /// [--ros-graph]` (see [`child_command`]).
    fn start<A: AsRef<std::ffi::OsStr>>(
        program: &Path,
        args: &[A],
        config: &RunConfig,
    ) -> Result<MeasuringChild, RunError> {
        let mut command = child_command(program);
        command
            .args(args)
            .args(["--executor", config.executor.name()])
            .args(["--crunch", &config.crunch.to_string()])
            .args(["--duration", &config.duration.as_secs_f64().to_string()])
            .args(["--warmup", &config.warmup.as_secs_f64().to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Only when asked for: a launch file's processes take neither (bench refuses them).
        if config.node_parameters > 0 {
            command.args(["--node-parameters", &config.node_parameters.to_string()]);
        }
        if config.ros_graph {
            command.arg("--ros-graph");
        }
        let mut child = command.spawn().map_err(|source| RunError::Spawn {
            program: program.to_owned(),
            source,
        })?;
        Ok(MeasuringChild {
            stdout: drain(child.stdout.take()),
            stderr: drain(child.stderr.take()),
            child,
        })
    }

    /// What the child printed, given how it ended (`status`, from [`deadline::wait`], which
    /// killed it unless it ended by itself). `executor` names it in errors.
    fn result(
        self,
        status: io::Result<Waited>,
        executor: String,
        program: PathBuf,
    ) -> Result<RunResult, RunError> {
        let status = match status {
            Ok(Waited::Ended(status)) => status,
            Ok(Waited::Interrupted) => return Err(RunError::Interrupted { executor }),
            Ok(Waited::Overran(why)) => return Err(RunError::Hung { executor, why }),
            Err(source) => return Err(RunError::Spawn { program, source }),
        };
        // It ended, so its pipes are closed (unless a child of its own holds them).
        let (stdout, stderr) = (collect(self.stdout), collect(self.stderr));
        if !status.success() {
            return Err(RunError::Child {
                executor,
                status: status.to_string(),
                stderr: stderr.trim().to_owned(),
            });
        }
        let line = stdout.lines().last().unwrap_or_default();
        serde_json::from_str(line).map_err(|e| RunError::Output {
            executor,
            reason: e.to_string(),
        })
    }
}

/// Runs every process of the launch file at `path` (`file`, loaded from it) on
/// `config.executor` at once, each in a child process of this program, for `config`'s warm-up
/// and window; returns their figures added up (see [`merge`]), assessed against `expected`.
/// `label` and `after` as for [`run_in_child`]. A signal kills every child.
pub fn run_launched(
    path: &Path,
    file: &LaunchFile,
    config: &RunConfig,
    expected: &Expectations,
    label: &str,
    after: Duration,
    interrupt: &Interrupt,
) -> Result<RunResult, RunError> {
    let program = this_program()?;
    let executor = config.executor.name().to_owned();
    let mut children = Vec::new();
    for process in &file.processes {
        let args: [&std::ffi::OsStr; 3] = [
            "launch-process".as_ref(),
            path.as_os_str(),
            process.name.as_ref(),
        ];
        // Children already started die with this thread, or are killed below.
        children.push((
            process.name.as_str(),
            MeasuringChild::start(&program, &args, config)?,
        ));
    }
    let progress = Progress::start(label, &executor, config.warmup + config.duration, after);
    // One deadline for all: they run at once.
    let until = Instant::now() + deadline::limit(config.warmup + config.duration);
    let mut statuses = Vec::new();
    for (_, child) in &mut children {
        let limit = until.saturating_duration_since(Instant::now());
        statuses.push(deadline::wait(&mut child.child, limit, interrupt));
    }
    progress.finish();
    let mut parts = Vec::new();
    for ((name, child), status) in children.into_iter().zip(statuses) {
        let part = child.result(
            status,
            format!("{executor} (process {name})"),
            program.clone(),
        );
        match part {
            // One interrupted child: the run is.
            Err(RunError::Interrupted { .. }) => return Err(RunError::Interrupted { executor }),
            part => parts.push((name, part?)),
        }
    }
    let results: Vec<&RunResult> = parts.iter().map(|(_, part)| part).collect();
    let mut result = merge(&executor, &results);
    result.processes = (parts.iter())
        .map(|(name, p)| ProcessResult {
            name: (*name).to_owned(),
            cpu_s: p.cpu_s,
            cpu_pct_core: p.cpu_pct_core,
            rss_end_kb: p.rss_end_kb,
            wakeups_per_s: p.wakeups_per_s,
            drops_total: p.drops_total,
            rss_kb_per_s: p.rss_kb_per_s.clone(),
        })
        .collect();
    let over = match file.transport {
        LaunchTransport::SharedMemory => "shared memory",
        LaunchTransport::Dds => "DDS",
        LaunchTransport::SharedMemoryAndDds => "shared memory and DDS",
    };
    result.notes.insert(
        0,
        format!(
            "{} processes over {over}: CPU, memory, wake-ups and drops are their sums",
            parts.len()
        ),
    );
    health::assess(&mut result, expected);
    Ok(result)
}

/// The figures of a run made of `parts`, one per process: CPU, memory, wake-ups and drops
/// added up; each latency, period or start delay from the process that measured it (the one with the most
/// samples); nobleo's topics side by side (each topic is heard in the processes that
/// subscribe to it).
pub fn merge(executor: &str, parts: &[&RunResult]) -> RunResult {
    let most = |n: fn(&RunResult) -> u64| parts.iter().max_by_key(|p| n(p));
    let hp = most(|p| p.hot_path_latency_ms.as_ref().map_or(0, |d| d.n));
    let bp = most(|p| p.bp_period_ms.as_ref().map_or(0, |s| s.n));
    let delay = most(|p| p.periodic_start_delay_ms.as_ref().map_or(0, |d| d.n));
    let hot_path_drops = parts
        .iter()
        .filter_map(|p| p.hot_path_drops)
        .reduce(|a, b| a + b);
    let deliveries = parts
        .iter()
        .filter_map(|p| p.deliveries_per_s)
        .reduce(|a, b| a + b);
    RunResult {
        executor: executor.to_owned(),
        cpu_s: parts.iter().map(|p| p.cpu_s).sum(),
        cpu_pct_core: parts.iter().map(|p| p.cpu_pct_core).sum(),
        rss_peak_kb: parts.iter().map(|p| p.rss_peak_kb).sum(),
        rss_start_kb: parts.iter().map(|p| p.rss_start_kb).sum(),
        rss_end_kb: parts.iter().map(|p| p.rss_end_kb).sum(),
        wakeups_per_s: parts.iter().map(|p| p.wakeups_per_s).sum(),
        drops_total: parts.iter().map(|p| p.drops_total).sum(),
        hot_path_latency_ms: hp.and_then(|p| p.hot_path_latency_ms.clone()),
        hot_path_drops,
        bp_period_ms: bp.and_then(|p| p.bp_period_ms.clone()),
        periodic_start_delay_ms: delay.and_then(|p| p.periodic_start_delay_ms.clone()),
        topics: parts.iter().flat_map(|p| p.topics.clone()).collect(),
        deliveries_per_s: deliveries,
        notes: parts.iter().flat_map(|p| p.notes.clone()).collect(),
        ..Default::default()
    }
}

/// Reads a child's pipe to its end on a thread of its own, so that a full pipe never blocks
/// the child.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Option<thread::JoinHandle<String>> {
    let mut pipe = pipe?;
    Some(thread::spawn(move || {
        let mut bytes = Vec::new();
        // What was read before an error is all there is to read.
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    }))
}

fn collect(reader: Option<thread::JoinHandle<String>>) -> String {
    reader.and_then(deadline::join).unwrap_or_default()
}

/// A one-line progress bar on stderr, redrawn twice a second by a thread of its own; a plain
/// line per run when stderr is not a terminal (CI logs).
struct Progress {
    stop: std::sync::mpsc::Sender<()>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Progress {
    fn start(label: &str, executor: &str, total: Duration, after: Duration) -> Progress {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let text = format!("[{label}] {executor:<12}");
        if !io::stderr().is_terminal() {
            eprintln!(
                "{text} {} s, {} s in all",
                total.as_secs(),
                (total + after).as_secs()
            );
            return Progress { stop, thread: None };
        }
        let thread = thread::spawn(move || {
            let start = Instant::now();
            const WIDTH: usize = 30;
            loop {
                let done = start.elapsed().as_secs_f64() / total.as_secs_f64().max(1e-9);
                let filled = ((done.min(1.0)) * WIDTH as f64) as usize;
                let left = total.saturating_sub(start.elapsed());
                eprint!(
                    "\r{text} [{}{}] {:>4} s left, {:>5} s in all ",
                    "#".repeat(filled),
                    "-".repeat(WIDTH - filled),
                    left.as_secs(),
                    (left + after).as_secs(),
                );
                let _ = io::stderr().flush();
                if stopped.recv_timeout(Duration::from_millis(500)).is_ok() {
                    break;
                }
            }
            eprint!("\r{}\r", " ".repeat(text.len() + WIDTH + 32));
        });
        Progress {
            stop,
            thread: Some(thread),
        }
    }

    fn finish(self) {
        let _ = self.stop.send(());
        if let Some(thread) = self.thread {
            let _ = thread.join();
        }
    }
}
