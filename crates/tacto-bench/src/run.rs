//! Running a topology: here, for one executor, or in a child process per executor.
//!
//! `tacto bench` runs each executor in a child process of its own (`tacto run-one ...`), one
//! after another, so that each run's CPU time and RSS are its own and no run inherits another's
//! threads or memory. The child prints its [`RunResult`] as one line of JSON on stdout.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::measure::{self, Snapshot};
use crate::result::RunResult;
use crate::system::{RunConfig, SystemError};
use crate::topology::Topology;

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
    /// The child's output was not a result.
    #[error("the {executor} run printed no result: {reason}")]
    Output {
        /// The executor kind's name.
        executor: String,
        /// What was wrong.
        reason: String,
    },
}

/// Runs `topology` on `config.executor` in this process: warm-up, then the measured window.
pub fn run_here(topology: &Topology, config: &RunConfig) -> Result<RunResult, RunError> {
    let mut system = topology.start(config)?;
    thread::sleep(config.warmup);
    system.reset();
    let start = Snapshot::now();
    thread::sleep(config.duration);
    let end = Snapshot::now();
    let mut result = RunResult {
        executor: config.executor.name().into(),
        ..Default::default()
    };
    measure::fill(&mut result, &start, &end);
    system.finish(&mut result)?;
    Ok(result)
}

/// Runs `topology_arg` on `config.executor` in a child process of this program, showing
/// progress on stderr; `label` says which of the runs this is (e.g. `2/6`), `after` how long
/// the runs after this one will take.
pub fn run_in_child(
    topology_arg: &str,
    config: &RunConfig,
    label: &str,
    after: Duration,
) -> Result<RunResult, RunError> {
    let program = std::env::current_exe().map_err(|source| RunError::Spawn {
        program: PathBuf::from("tacto"),
        source,
    })?;
    let executor = config.executor.name().to_owned();
    let child = Command::new(&program)
        .arg("run-one")
        .arg(topology_arg)
        .args(["--executor", &executor])
        .args(["--duration", &config.duration.as_secs_f64().to_string()])
        .args(["--warmup", &config.warmup.as_secs_f64().to_string()])
        .args(["--crunch", &config.crunch.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| RunError::Spawn {
            program: program.clone(),
            source,
        })?;
    let total = config.warmup + config.duration;
    let progress = Progress::start(label, &executor, total, after);
    let output = child.wait_with_output();
    progress.finish();
    let output = output.map_err(|source| RunError::Spawn { program, source })?;
    if !output.status.success() {
        return Err(RunError::Child {
            executor,
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).map_err(|e| RunError::Output {
        executor,
        reason: e.to_string(),
    })
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
