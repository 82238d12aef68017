//! rclcpp beside tacto: the Autoware reference system's own executables, built on rclcpp Jazzy
//! by the peers' `install-rclcpp.sh DIR`, run for a warm-up and a measured window and measured
//! as `tacto bench reference-system` measures tacto's runs.
//!
//! - **The peer**: `DIR/rclcpp-jazzy` (or `DIR` itself, if it is that folder), found only where
//!   `--rclcpp DIR` says; its environment is what `source env.sh BUILD` gives (the libraries'
//!   paths, `RMW_IMPLEMENTATION`; [`isolation`](super::isolation) computes it), `BUILD` the
//!   reference-system build of the crunch the section runs: `refsys_crunch0` (every number
//!   cruncher's limit 0) or `refsys_upstream` (4096).
//! - **Its statistics**: each executable prints a block per message a sink receives
//!   (`print_sample_path` in upstream's `reference_system/sample_management.hpp`); for the
//!   samples that reach `VehicleDBWSystem` the block's `Statistics:` has the current hot-path
//!   latency, hot-path drops and behaviour-planner period. The samples printed in the measured
//!   window are kept (the executable flushes every line, so a line is read as it is printed).
//! - **Its CPU**: user + system time of the process, all its threads, from `/proc/PID/stat` at
//!   the window's start and end, as a percentage of one core.
//! - **Its DDS**: the executables are ROS 2 nodes on Cyclone DDS; each runs in a network
//!   namespace of its own ([`isolation`](super::isolation)), so its discovery reaches no other
//!   node and nothing outside hears it; where none can be made, on the host in DDS domain
//!   [`HOST_DOMAIN`] with discovery on localhost.
//! - **Real time**: `autoware_default_prioritized` asks for `SCHED_RR` on four threads and
//!   ignores a refusal (as in a user namespace); the threads it got are counted from
//!   `/proc/PID/task/*/stat` and reported.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::deadline;
use crate::result::{Distribution, RunResult, Spread};
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;
use tacto_launch::supervise::child_command;

use super::isolation::{Network, peer_environment};

/// Why rclcpp did not run when `--rclcpp` was not given.
pub(super) const NOT_GIVEN: &str =
    "no --rclcpp DIR given (DIR: what ../shared/peers/install-rclcpp.sh DIR makes)";

/// The DDS domain of rclcpp's runs where no network namespace can be made: one no test of
/// this project uses.
pub(super) const HOST_DOMAIN: u32 = 53;

/// The most samples of each kind one run keeps: a window of 30 s gives 300 at the planner's
/// 10 Hz, so this is never reached by the seeds' windows; beyond it, samples are counted but
/// not kept.
const MAX_SAMPLES: usize = 1 << 16;

/// The most bytes of an executable's error output kept for its error message (the end).
const MAX_STDERR: usize = 4096;

/// How long a stopped executable has to end after SIGINT before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// An install of rclcpp Jazzy made by the peers' `install-rclcpp.sh`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Peer {
    /// The folder holding `env.sh`.
    root: PathBuf,
}

impl Peer {
    /// The install in `dir`: `dir/rclcpp-jazzy`, what `install-rclcpp.sh DIR` makes, or `dir`
    /// itself if it holds `env.sh`; as an absolute path, since its programs run in a folder of
    /// their own. The error says what is missing.
    pub(super) fn find(dir: &Path) -> Result<Peer, String> {
        let nested = dir.join("rclcpp-jazzy");
        for root in [&nested, dir] {
            if root.join("env.sh").is_file() {
                let root =
                    std::path::absolute(root).map_err(|e| format!("{}: {e}", root.display()))?;
                return Ok(Peer { root });
            }
        }
        Err(format!(
            "{} has no rclcpp Jazzy install (no {}: make one with ../shared/peers/install-rclcpp.sh {})",
            dir.display(),
            nested.join("env.sh").display(),
            dir.display()
        ))
    }

    /// The folder holding `env.sh`.
    pub(super) fn root(&self) -> &Path {
        &self.root
    }
}

/// Which of the peer's two reference-system builds: they differ in the number crunchers'
/// limit only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Build {
    /// `refsys_crunch0`: every limit 0.
    Crunch0,
    /// `refsys_upstream`: upstream's 4096.
    Upstream,
}

impl Build {
    /// The build whose crunch is `crunch`; none for another limit.
    pub(super) fn for_crunch(crunch: u64) -> Option<Build> {
        match crunch {
            0 => Some(Build::Crunch0),
            4096 => Some(Build::Upstream),
            _ => None,
        }
    }

    /// `env.sh`'s name for it.
    fn name(self) -> &'static str {
        match self {
            Build::Crunch0 => "crunch0",
            Build::Upstream => "upstream",
        }
    }
}

/// One of rclcpp's reference-system executables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Executable {
    /// Its short name, in the report's rows and numbers.
    pub(super) name: &'static str,
    /// Its path under the build's `lib/`.
    path: &'static str,
    /// The tacto executor it runs after, so that the two meet the same minute of the machine.
    pub(super) beside: ExecutorKind,
}

/// The executables the reference-system section runs: rclcpp's `SingleThreadedExecutor`,
/// upstream's prioritized layout of five of them, and rclcpp's `EventsExecutor`.
pub(super) const REFERENCE_SYSTEM: [Executable; 3] = [
    Executable {
        name: "singlethreaded",
        path: "autoware_reference_system/autoware_default_singlethreaded",
        beside: ExecutorKind::Callback,
    },
    Executable {
        name: "prioritized",
        path: "autoware_reference_system/autoware_default_prioritized",
        beside: ExecutorKind::Prioritized,
    },
    Executable {
        name: "events",
        path: "peer_refsys_events/autoware_events_singlethreaded",
        beside: ExecutorKind::Events,
    },
];

/// rclcpp's reference system ready to run: the peer's environment for one build, and where
/// its DDS traffic stays.
#[derive(Debug)]
pub(super) struct Beside {
    peer: Peer,
    build: Build,
    env: Vec<(&'static str, OsString)>,
    network: &'static Network,
}

/// Why an executable's run gave no figures.
#[derive(Debug, PartialEq)]
pub(super) enum RclcppError {
    /// Ctrl-C or SIGTERM: the executable was killed.
    Interrupted,
    /// It could not start, or ended early, or printed no statistics: what went wrong.
    Failed(String),
}

impl Beside {
    /// The peer's reference system at `crunch`, or why it cannot run.
    pub(super) fn prepare(peer: &Peer, crunch: u64) -> Result<Beside, String> {
        let build = Build::for_crunch(crunch).ok_or_else(|| {
            format!("the peer has reference-system builds for crunch 0 and 4096 only, not {crunch}")
        })?;
        Ok(Beside {
            peer: peer.clone(),
            build,
            env: peer_environment(&peer.root, Some(build.name())),
            network: Network::here(),
        })
    }

    /// The peer, the build and the isolation, in a sentence for the report.
    pub(super) fn describe(&self) -> String {
        format!(
            "rclcpp Jazzy's reference-system executables from {} (refsys_{}), run {}; they \
             print a statistics block for every sink message, as upstream's do, which tacto's \
             runs do not",
            self.peer.root.display(),
            self.build.name(),
            match self.network.refused() {
                None => self.network.describe(),
                Some(why) => format!(
                    "on the host's network in DDS domain {HOST_DOMAIN}, discovery on localhost \
                     ({why})"
                ),
            }
        )
    }

    /// A command that runs `program` in the peer's environment, in a network namespace of its
    /// own or, where none can be made, on the host in [`HOST_DOMAIN`]; it dies with this
    /// process.
    fn command(&self, program: &Path) -> Command {
        let mut command = match self.network.command(program, std::iter::empty::<&str>()) {
            Some(command) => command,
            None => {
                let mut command = child_command(program);
                command
                    .env("ROS_DOMAIN_ID", HOST_DOMAIN.to_string())
                    .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
                command
            }
        };
        command.envs(self.env.iter().cloned());
        command
    }

    /// The program of `executable` in this build.
    fn program(&self, executable: &Executable) -> PathBuf {
        (self.peer.root)
            .join(format!("refsys_{}", self.build.name()))
            .join("lib")
            .join(executable.path)
    }

    /// Runs `executable` for `warmup`, then measures it for `duration`, then stops it with
    /// SIGINT (killed if it does not end); a signal to this process kills it at once.
    pub(super) fn run(
        &self,
        executable: &Executable,
        warmup: Duration,
        duration: Duration,
        interrupt: &Interrupt,
    ) -> Result<Measured, RclcppError> {
        let program = self.program(executable);
        if !program.is_file() {
            return Err(RclcppError::Failed(format!(
                "no executable {}",
                program.display()
            )));
        }
        // rcl's log files go to a folder of this run's, removed after it.
        let scratch = std::env::temp_dir().join(format!(
            "tacto-seeds-rclcpp-{}-{}",
            std::process::id(),
            executable.name
        ));
        std::fs::create_dir_all(&scratch)
            .map_err(|e| RclcppError::Failed(format!("cannot make {}: {e}", scratch.display())))?;
        let mut command = self.command(&program);
        command
            .env("ROS_LOG_DIR", &scratch)
            .current_dir(&scratch)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let ran = match command.spawn() {
            Ok(child) => measure(child, warmup, duration, interrupt),
            Err(e) => Err(RclcppError::Failed(format!(
                "cannot start {}: {e}",
                program.display()
            ))),
        };
        // Its logs are of no use once it ended.
        let _ = std::fs::remove_dir_all(&scratch);
        ran
    }
}

/// What one run of an executable measured over its window.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Measured {
    /// Its statistics, from the samples printed in the window.
    pub(super) statistics: Statistics,
    /// Its CPU over the window, % of one core.
    pub(super) cpu_pct_core: f64,
    /// Its threads at a real-time policy (`SCHED_FIFO` or `SCHED_RR`) in the window.
    pub(super) realtime_threads: usize,
}

impl Measured {
    /// As a tacto run's result, labelled `executor`.
    pub(super) fn result(&self, executor: String) -> RunResult {
        let mut hot_path = self.statistics.hot_path_ms.clone();
        RunResult {
            executor,
            cpu_pct_core: self.cpu_pct_core,
            hot_path_latency_ms: Distribution::of(&mut hot_path),
            hot_path_drops: (!self.statistics.hot_path_ms.is_empty())
                .then_some(self.statistics.hot_path_drops),
            bp_period_ms: Spread::of(&self.statistics.planner_period_ms),
            ..Default::default()
        }
    }
}

/// Waits out the warm-up, measures the window, stops the child.
fn measure(
    mut child: Child,
    warmup: Duration,
    duration: Duration,
    interrupt: &Interrupt,
) -> Result<Measured, RclcppError> {
    let statistics = Arc::new(Mutex::new(Reading::default()));
    let stdout = child.stdout.take().map(|pipe| {
        let statistics = statistics.clone();
        thread::spawn(move || {
            // Read to the end whatever it holds (a line that is not UTF-8 too), so that the
            // executable never blocks on a full pipe.
            let mut pipe = BufReader::new(pipe);
            let mut line = Vec::new();
            loop {
                line.clear();
                match pipe.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if let Ok(mut reading) = statistics.lock() {
                            reading.line(String::from_utf8_lossy(&line).trim_end());
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        })
    });
    let stderr = child
        .stderr
        .take()
        .map(|pipe| thread::spawn(move || tail(pipe)));
    let pid = child.id();
    let measured = (|| {
        if !interrupt.sleep(warmup) {
            return Err(RclcppError::Interrupted);
        }
        ended_early(&mut child)?;
        let start = (Instant::now(), cpu_seconds(pid)?);
        set_measuring(&statistics, true);
        if !interrupt.sleep(duration) {
            return Err(RclcppError::Interrupted);
        }
        let realtime_threads = realtime_threads(pid);
        let end = (Instant::now(), cpu_seconds(pid)?);
        set_measuring(&statistics, false);
        ended_early(&mut child)?;
        let window = end.0.duration_since(start.0).as_secs_f64();
        Ok(Measured {
            statistics: Statistics::default(),
            cpu_pct_core: 100.0 * (end.1 - start.1) / window,
            realtime_threads,
        })
    })();
    stop(&mut child, measured.is_ok());
    // Its statistics are read as they come: what the reader has not read by now is lost.
    if let Some(reader) = stdout {
        let _ = deadline::join(reader);
    }
    let stderr = stderr.and_then(deadline::join).unwrap_or_default();
    let mut measured = measured.map_err(|e| match e {
        RclcppError::Failed(why) if !stderr.trim().is_empty() => {
            RclcppError::Failed(format!("{why}: {}", stderr.trim()))
        }
        e => e,
    })?;
    measured.statistics = match statistics.lock() {
        Ok(reading) => reading.statistics.clone(),
        Err(_) => return Err(RclcppError::Failed("its output's reader failed".into())),
    };
    if measured.statistics.hot_path_ms.is_empty() {
        return Err(RclcppError::Failed(format!(
            "no hot-path statistics printed in the window: {}",
            stderr.trim()
        )));
    }
    Ok(measured)
}

fn set_measuring(statistics: &Mutex<Reading>, on: bool) {
    if let Ok(mut reading) = statistics.lock() {
        reading.measuring = on;
    }
}

/// An error if `child` has ended (it runs until stopped).
fn ended_early(child: &mut Child) -> Result<(), RclcppError> {
    match child.try_wait() {
        Ok(None) => Ok(()),
        Ok(Some(status)) => Err(RclcppError::Failed(format!("it ended early ({status})"))),
        Err(e) => Err(RclcppError::Failed(format!("waiting for it: {e}"))),
    }
}

/// Stops `child`: SIGINT and a grace period when `gently` (its own shutdown, as upstream is
/// stopped), SIGKILL otherwise or after the grace (see [`deadline::kill`]).
fn stop(child: &mut Child, gently: bool) {
    if gently && let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) on the id of this process's own child, which is not reaped yet (its
        // `Child` is still waited on below), so the id is not another process's.
        unsafe { libc::kill(pid, libc::SIGINT) };
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
    deadline::kill(child);
}

/// The last [`MAX_STDERR`] bytes `pipe` gives before it ends.
fn tail(mut pipe: impl Read) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                kept.extend_from_slice(&buffer[..n]);
                if kept.len() > MAX_STDERR {
                    kept.drain(..kept.len() - MAX_STDERR);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// User + system CPU of process `pid`, all its threads (the living and the ended), s.
fn cpu_seconds(pid: u32) -> Result<f64, RclcppError> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| RclcppError::Failed(format!("cannot read /proc/{pid}/stat: {e}")))?;
    let field = |i: usize| stat_field(&stat, i);
    match (field(14), field(15)) {
        (Some(user), Some(system)) => Ok((user + system) as f64 / clock_ticks()),
        _ => Err(RclcppError::Failed(format!(
            "/proc/{pid}/stat does not read: {stat:?}"
        ))),
    }
}

/// Field `n` (numbered from 1, as proc(5) numbers them) of a `/proc/.../stat` line, from
/// field 3 on: the second, the command, may hold spaces and parentheses, so the fields are
/// counted after its last `)`.
fn stat_field(stat: &str, n: usize) -> Option<u64> {
    let after = stat.rsplit_once(')')?.1;
    after
        .split_whitespace()
        .nth(n.checked_sub(3)?)?
        .parse()
        .ok()
}

/// Clock ticks per second, the unit of `/proc`'s CPU times.
fn clock_ticks() -> f64 {
    // SAFETY: sysconf(3) only reads a configuration value; `_SC_CLK_TCK` is a valid name.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    // Linux's USER_HZ, where sysconf cannot say.
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

/// The threads of `pid` at `SCHED_FIFO` or `SCHED_RR` (field 41 of each task's `stat`).
fn realtime_threads(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    (tasks.flatten())
        .filter_map(|task| std::fs::read_to_string(task.path().join("stat")).ok())
        .filter(|stat| {
            matches!(
                stat_field(stat, 41).and_then(|p| i32::try_from(p).ok()),
                Some(libc::SCHED_FIFO | libc::SCHED_RR)
            )
        })
        .count()
}

/// The figures of the samples that reached `VehicleDBWSystem` in the window.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Statistics {
    /// Each sample's hot-path latency, ms.
    pub(super) hot_path_ms: Vec<f64>,
    /// Each sample's behaviour-planner period, ms.
    pub(super) planner_period_ms: Vec<f64>,
    /// The hot-path drops of the samples, added up.
    pub(super) hot_path_drops: u64,
    /// Samples beyond [`MAX_SAMPLES`], not kept.
    pub(super) not_kept: u64,
}

/// An executable's output read line by line.
#[derive(Debug, Default)]
struct Reading {
    /// True in the measured window.
    measuring: bool,
    /// The sink of the block being read.
    sink: Option<String>,
    statistics: Statistics,
}

/// The sink whose blocks carry the hot path's statistics.
const HOT_PATH_SINK: &str = "VehicleDBWSystem";

impl Reading {
    /// Takes one line of the output. The lines read, as `print_sample_path` prints them:
    /// `sample path: (SINK) ` opens a block; in its `Statistics:`, `  hot path latency:
    /// 21.0566ms [min=...]`, `  hot path drops: 0 [min=...]` and `  behavior planner period:
    /// 100.02ms [min=...]`, the figure before the `[` the sample's own.
    fn line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("sample path: (") {
            self.sink = rest.split_once(')').map(|(sink, _)| sink.to_owned());
            return;
        }
        if !self.measuring || self.sink.as_deref() != Some(HOT_PATH_SINK) {
            return;
        }
        let Some((key, value)) = line.trim_start().split_once(':') else {
            return;
        };
        let current = value.split('[').next().unwrap_or_default().trim();
        let ms = || current.strip_suffix("ms")?.trim().parse::<f64>().ok();
        let stats = &mut self.statistics;
        match key {
            "hot path latency" => keep(&mut stats.hot_path_ms, &mut stats.not_kept, ms()),
            "behavior planner period" => {
                keep(&mut stats.planner_period_ms, &mut stats.not_kept, ms());
            }
            "hot path drops" => {
                if let Ok(drops) = current.parse::<f64>() {
                    stats.hot_path_drops += drops as u64;
                }
            }
            _ => {}
        }
    }
}

/// Adds `value` to `values` up to [`MAX_SAMPLES`], counting the rest in `not_kept`.
fn keep(values: &mut Vec<f64>, not_kept: &mut u64, value: Option<f64>) {
    match value {
        Some(v) if values.len() < MAX_SAMPLES => values.push(v),
        Some(_) => *not_kept += 1,
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two blocks as `autoware_default_singlethreaded` of the peer printed them (crunch 4096),
    /// one of another sink between them.
    const OUTPUT: &str = "\
----------------------------------------------------------
sample path: (VehicleDBWSystem) 
  order timepoint           sequence nr.                  node name     dropped samples
bp period
latency

Statistics:
  latency:                  135.559ms [min=128.759ms, max=248.772ms, average=153.669ms, deviation=32.0857ms]
hotpath
  hot path:                 FrontLidarDriver/RearLidarDriver -> ObjectCollisionEstimator
  hot path latency:         21.0566ms [min=16.93ms, max=26.4789ms, average=20.605ms, deviation=2.4435ms]
  hot path drops:           0 [min=0, max=0, average=0, deviation=0]
  behavior planner period:  100.02ms [min=94.5251ms, max=106.197ms, average=99.9997ms, deviation=2.34826ms]
----------------------------------------------------------

----------------------------------------------------------
sample path: (IntersectionOutput) 
  order timepoint           sequence nr.                  node name     dropped samples
latency

Statistics:
  latency:                  10.65ms [min=2.14019ms, max=32.2317ms, average=10.2102ms, deviation=7.48923ms]
  hot path latency:         99.0ms [min=1ms, max=99ms, average=9ms, deviation=1ms]
----------------------------------------------------------
sample path: (VehicleDBWSystem) 
Statistics:
  hot path latency:         19.5ms [min=16.93ms, max=26.4789ms, average=20.6ms, deviation=2.4ms]
  hot path drops:           2 [min=0, max=2, average=0.01, deviation=0.1]
  behavior planner period:  99.98ms [min=94.5251ms, max=106.197ms, average=99.9997ms, deviation=2.34826ms]
";

    fn read(measuring: bool) -> Statistics {
        let mut reading = Reading {
            measuring,
            ..Default::default()
        };
        OUTPUT.lines().for_each(|line| reading.line(line));
        reading.statistics
    }

    #[test]
    fn the_hot_path_sinks_current_figures_are_read_and_other_sinks_ignored() {
        let statistics = read(true);
        assert_eq!(statistics.hot_path_ms, [21.0566, 19.5]);
        assert_eq!(statistics.planner_period_ms, [100.02, 99.98]);
        assert_eq!(statistics.hot_path_drops, 2);
        let result = Measured {
            statistics,
            cpu_pct_core: 40.0,
            realtime_threads: 0,
        }
        .result("rclcpp singlethreaded".into());
        let latency = result.hot_path_latency_ms.unwrap();
        assert_eq!((latency.max, latency.n), (21.0566, 2));
        let period = result.bp_period_ms.unwrap();
        assert!((period.mean - 100.0).abs() < 1e-9 && (period.sd - 0.02).abs() < 1e-9);
        assert_eq!(result.hot_path_drops, Some(2));
    }

    #[test]
    fn nothing_is_kept_outside_the_measured_window() {
        assert_eq!(read(false), Statistics::default());
    }

    #[test]
    fn the_peer_is_found_in_the_install_folder_or_as_that_folder() {
        let dir = std::env::temp_dir().join(format!("tacto-seeds-peer-{}", std::process::id()));
        let root = dir.join("rclcpp-jazzy");
        std::fs::create_dir_all(&root).unwrap();
        let missing = Peer::find(&dir).unwrap_err();
        assert!(
            missing.contains("has no rclcpp Jazzy install") && missing.contains("env.sh"),
            "{missing}"
        );
        std::fs::write(root.join("env.sh"), "").unwrap();
        assert_eq!(Peer::find(&dir).unwrap().root(), root);
        assert_eq!(Peer::find(&root).unwrap().root(), root);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_build_follows_the_crunch() {
        assert_eq!(Build::for_crunch(0), Some(Build::Crunch0));
        assert_eq!(Build::for_crunch(4096), Some(Build::Upstream));
        assert_eq!(Build::for_crunch(100), None);
    }

    #[test]
    fn a_stat_line_is_read_after_the_commands_last_parenthesis() {
        let stat = "42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0";
        assert_eq!(
            stat_field(stat, 3),
            None,
            "field 3 is the state, not a number"
        );
        assert_eq!(stat_field(stat, 4), Some(1));
        assert_eq!(
            (stat_field(stat, 14), stat_field(stat, 15)),
            (Some(7), Some(3))
        );
    }
}
