//! Running a topology: here, for one executor, or in a child process per executor.
//!
//! `tacto bench` runs each executor in a child process of its own (`tacto run-one ...`), one
//! after another, so that each run's CPU time and RSS are its own and no run inherits another's
//! threads or memory. The child prints its [`RunResult`] as one line of JSON on stdout.

use std::io::{self, IsTerminal, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::health;
use crate::interrupt::Interrupt;
use crate::measure::{self, Snapshot};
use crate::result::RunResult;
use crate::system::{RunConfig, SystemError};
use crate::topology::Topology;
use crate::topology::reference_system::crunch_time;

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
    measure::fill(&mut result, &start, &end);
    system.finish(&mut result)?;
    health::assess(&mut result, &topology.expectations(config.executor));
    Ok(result)
}

/// Runs `topology_arg` on `config.executor` in a child process of this program, showing
/// progress on stderr; `label` says which of the runs this is (e.g. `2/6`), `after` how long
/// the runs after this one will take. When a signal comes (Ctrl-C), kills the child and
/// returns [`RunError::Interrupted`]. The child is made by [`child_command`].
pub fn run_in_child(
    topology_arg: &str,
    config: &RunConfig,
    label: &str,
    after: Duration,
    interrupt: &Interrupt,
) -> Result<RunResult, RunError> {
    let program = std::env::current_exe().map_err(|source| RunError::Spawn {
        program: PathBuf::from("tacto"),
        source,
    })?;
    let executor = config.executor.name().to_owned();
    let mut command = child_command(&program);
    command
        .arg("run-one")
        .arg(topology_arg)
        .args(["--executor", &executor])
        .args(["--duration", &config.duration.as_secs_f64().to_string()])
        .args(["--warmup", &config.warmup.as_secs_f64().to_string()])
        .args(["--crunch", &config.crunch.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|source| RunError::Spawn {
        program: program.clone(),
        source,
    })?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let total = config.warmup + config.duration;
    let progress = Progress::start(label, &executor, total, after);
    let status = wait_unless(&mut child, interrupt);
    progress.finish();
    let (stdout, stderr) = (collect(stdout), collect(stderr));
    let status = match status {
        Ok(Some(status)) => status,
        Ok(None) => return Err(RunError::Interrupted { executor }),
        Err(source) => return Err(RunError::Spawn { program, source }),
    };
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

/// A command for `program` (this one) whose process runs in a process group of its own, so
/// that a Ctrl-C at the terminal reaches only this process, which decides what to stop; and
/// that dies with the thread that spawns it (this process's main thread), so that no child
/// outlives its parent, whatever ends the parent.
pub fn child_command(program: &Path) -> Command {
    let mut command = Command::new(program);
    command.process_group(0);
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed; `prctl` is a plain system call, and the closure
    // allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// Waits for `child` to end, or kills it once a signal comes: `Ok(None)` then.
fn wait_unless(
    child: &mut Child,
    interrupt: &Interrupt,
) -> io::Result<Option<std::process::ExitStatus>> {
    loop {
        if interrupt.requested() {
            // SIGKILL: certain and immediate. The run's figures are discarded anyway, so it
            // has nothing to finish.
            let _ = child.kill();
            child.wait()?;
            return Ok(None);
        }
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        interrupt.sleep(POLL);
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
    reader.and_then(|r| r.join().ok()).unwrap_or_default()
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
