//! The launching process: starts a child per process of the file (`tacto launch-process FILE
//! NAME` for built-in nodes, the executable itself for `exec`), prefixes their output lines
//! with `[name]`, restarts them by their policy, and on Ctrl-C or SIGTERM stops them all
//! together.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::file::{LaunchFile, ProcessKind, ProcessSpec, Restart};
use crate::interrupt::Interrupt;
use crate::order::{OrderError, Watcher};

/// How often the launch looks at its children and at the graph it waits for.
const POLL: Duration = Duration::from_millis(100);

/// The longest line passed on whole: a longer one is passed on in pieces of this size, so that
/// a child that never writes a newline cannot make the launch buffer without bound.
const MAX_LINE: u64 = 64 * 1024;

/// How often processes being stopped are looked at.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Why a launch ended other than by every process ending well.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A child process could not be started.
    #[error("cannot start process {name:?} ({}): {source}", program.display())]
    Spawn {
        /// The process.
        name: String,
        /// The program.
        program: PathBuf,
        /// The OS's reason.
        source: io::Error,
    },
    /// Ctrl-C or SIGTERM: every process has been stopped.
    #[error("interrupted")]
    Interrupted,
    /// What a process waited for did not come (every process has been stopped).
    #[error(transparent)]
    Order(#[from] OrderError),
    /// Every process ended, some of them failed (each was logged).
    #[error("{failed} of {total} processes failed")]
    Failed {
        /// How many.
        failed: usize,
        /// Out of.
        total: usize,
    },
}

/// One process of the file and its current child.
struct Slot<'f> {
    spec: &'f ProcessSpec,
    child: Option<Child>,
    restarts: u32,
    pipes: Vec<thread::JoinHandle<()>>,
    last: Option<ExitStatus>,
    /// Not started yet: waiting for what its `wait_for` names.
    pending: bool,
}

/// Runs every process of `file` (read from `path` with the launch arguments `args`, which each
/// child of components or topology nodes reads again) until all have ended or a signal comes.
/// Processes with waits start once what they wait for is on the graph; one whose wait times
/// out stops the launch.
pub fn launch(
    path: &Path,
    file: &LaunchFile,
    args: &[String],
    interrupt: &Interrupt,
) -> Result<(), LaunchError> {
    let program = std::env::current_exe().map_err(|source| LaunchError::Spawn {
        name: file.processes[0].name.clone(),
        program: PathBuf::from("tacto"),
        source,
    })?;
    let mut slots: Vec<Slot<'_>> = file
        .processes
        .iter()
        .map(|spec| Slot {
            spec,
            child: None,
            restarts: 0,
            pipes: Vec::new(),
            last: None,
            pending: !spec.waits.is_empty(),
        })
        .collect();
    let started = Instant::now();
    let mut watcher = match slots.iter().any(|s| s.pending) {
        true => match Watcher::join() {
            Ok(watcher) => Some(watcher),
            Err(e) => return Err(e.into()),
        },
        false => None,
    };
    for slot in slots.iter_mut().filter(|s| !s.pending) {
        if let Err(e) = start(&program, path, args, slot) {
            stop_all(&mut slots, file.grace);
            return Err(e);
        }
    }
    loop {
        if interrupt.requested() {
            stop_all(&mut slots, file.grace);
            return Err(LaunchError::Interrupted);
        }
        if let Some(watcher) = &mut watcher
            && let Err(e) = start_ready(watcher, &program, path, args, &mut slots, started)
        {
            stop_all(&mut slots, file.grace);
            return Err(e);
        }
        for slot in &mut slots {
            let Some(child) = &mut slot.child else {
                continue;
            };
            let status = match child.try_wait() {
                Ok(Some(status)) => status,
                Ok(None) => continue,
                Err(e) => {
                    eprintln!("tacto: [{}] cannot be waited for: {e}", slot.spec.name);
                    continue;
                }
            };
            slot.child = None;
            slot.last = Some(status);
            join_pipes(slot);
            let name = &slot.spec.name;
            if status.success() {
                eprintln!("tacto: [{name}] ended ({status})");
                continue;
            }
            match slot.spec.restart {
                Restart::OnFailure { max } if slot.restarts < max => {
                    slot.restarts += 1;
                    eprintln!(
                        "tacto: [{name}] failed ({status}); restarting ({} of {max})",
                        slot.restarts
                    );
                    if let Err(e) = start(&program, path, args, slot) {
                        stop_all(&mut slots, file.grace);
                        return Err(e);
                    }
                }
                Restart::OnFailure { max } => {
                    eprintln!(
                        "tacto: [{name}] failed ({status}); not restarted: {max} restarts used"
                    )
                }
                Restart::Never => {
                    eprintln!("tacto: [{name}] failed ({status}); not restarted (restart = never)")
                }
            }
        }
        if slots.iter().all(|s| s.child.is_none() && !s.pending) {
            break;
        }
        interrupt.sleep(POLL);
    }
    let failed = slots
        .iter()
        .filter(|s| s.last.is_some_and(|status| !status.success()))
        .count();
    match failed {
        0 => Ok(()),
        failed => Err(LaunchError::Failed {
            failed,
            total: slots.len(),
        }),
    }
}

/// Starts each pending process whose waits are met; the first whose wait timed out is the
/// error.
fn start_ready(
    watcher: &mut Watcher,
    program: &Path,
    path: &Path,
    args: &[String],
    slots: &mut [Slot<'_>],
    started: Instant,
) -> Result<(), LaunchError> {
    for slot in slots.iter_mut().filter(|s| s.pending) {
        if watcher.ready(slot.spec)? {
            eprintln!("tacto: [{}] what it waits for is there", slot.spec.name);
            slot.pending = false;
            start(program, path, args, slot)?;
        } else if let Some(overdue) = watcher.overdue(slot.spec, started) {
            return Err(overdue.into());
        }
    }
    Ok(())
}

/// Starts `slot`'s process, its output passed on with its name: `program` (this one) running
/// the file at `path`'s process with the launch arguments `args`, or the process's own
/// executable.
fn start(
    program: &Path,
    path: &Path,
    args: &[String],
    slot: &mut Slot<'_>,
) -> Result<(), LaunchError> {
    let name = &slot.spec.name;
    let (program, mut command) = match &slot.spec.kind {
        ProcessKind::Nodes(_) | ProcessKind::Components(_) => {
            let mut command = child_command(program);
            command.arg("launch-process").arg(path).arg(name).args(args);
            (program, command)
        }
        ProcessKind::Exec(exec) => {
            let mut command = child_command(&exec.program);
            command
                .args(exec.arguments())
                .envs(exec.env.iter().map(|(k, v)| (k, v)));
            (exec.program.as_path(), command)
        }
    };
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| LaunchError::Spawn {
            name: name.clone(),
            program: program.to_owned(),
            source,
        })?;
    eprintln!("tacto: [{name}] started, pid {}", child.id());
    if let Some(out) = child.stdout.take() {
        slot.pipes.push(pass_on(out, name.clone(), io::stdout));
    }
    if let Some(err) = child.stderr.take() {
        slot.pipes.push(pass_on(err, name.clone(), io::stderr));
    }
    slot.child = Some(child);
    Ok(())
}

/// Copies `pipe`'s lines to `out`, each after `[name] `, on a thread of its own (so that a full
/// pipe never blocks the child), until the child closes it.
fn pass_on<R, W>(pipe: R, name: String, out: fn() -> W) -> thread::JoinHandle<()>
where
    R: Read + Send + 'static,
    W: Write + 'static,
{
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.last() != Some(&b'\n') {
                line.push(b'\n');
            }
            let mut prefixed = format!("[{name}] ").into_bytes();
            prefixed.extend_from_slice(&line);
            // One write per line, so that lines of two processes never interleave; a closed
            // output (the launch's reader went away) drops the line.
            let _ = out().write_all(&prefixed);
        }
    })
}

fn join_pipes(slot: &mut Slot<'_>) {
    for pipe in slot.pipes.drain(..) {
        // A thread that passes lines on has nothing that could panic but a write's panic
        // inside std, which there is no one to report to.
        let _ = pipe.join();
    }
}

/// SIGTERM to every running process at once, then SIGKILL to those still running after
/// `grace`; returns once all have ended and their output has been passed on.
fn stop_all(slots: &mut [Slot<'_>], grace: Duration) {
    for slot in slots.iter() {
        if let Some(child) = &slot.child
            && let Ok(pid) = libc::pid_t::try_from(child.id())
        {
            // SAFETY: `kill` is a plain system call; `pid` is our child, not yet waited for,
            // so the id cannot have been reused.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
    let deadline = Instant::now() + grace;
    loop {
        let mut running = 0;
        for slot in slots.iter_mut() {
            let Some(child) = &mut slot.child else {
                continue;
            };
            match child.try_wait() {
                Ok(None) if Instant::now() >= deadline => {
                    eprintln!(
                        "tacto: [{}] still running {} s after SIGTERM: killed",
                        slot.spec.name,
                        grace.as_secs_f64()
                    );
                    let _ = child.kill();
                    let _ = child.wait();
                    slot.child = None;
                }
                Ok(None) => running += 1,
                Ok(Some(status)) => {
                    eprintln!("tacto: [{}] stopped ({status})", slot.spec.name);
                    slot.child = None;
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    slot.child = None;
                }
            }
        }
        if running == 0 {
            break;
        }
        thread::sleep(STOP_POLL);
    }
    for slot in slots.iter_mut() {
        join_pipes(slot);
    }
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
