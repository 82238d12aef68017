//! rclcpp beside tacto on ros2-performance's topologies: iRobot's own benchmark program
//! (`irobot_benchmark`, built against rclcpp Jazzy on rmw_cyclonedds) from the install that
//! `--rclcpp DIR` names (`../shared/peers/install-rclcpp.sh DIR`).
//!
//! The program runs a topology file (the format `tacto bench` reads) in one process on one of
//! rclcpp's executors (`-x 1`: `SingleThreadedExecutor`, `-x 3`: the `EventsExecutor`),
//! intra-process (`--ipc on`), for `-t` seconds, and writes its figures into
//! `<topology>_log/` of its working directory: `latency_total.txt` (messages received, mean
//! latency, late and lost) and `latency_all.txt` (per subscription, the maximum too). Its CPU
//! and memory are read here from `/proc` once a second, as for every process the seeds
//! measure from outside, over the same window after the same warm-up as tacto's runs.
//!
//! The install's `env.sh none` is set on the child alone, and rclcpp always joins DDS, so every
//! run is in a network namespace of its own, as tacto's DDS runs are: it reaches no other ROS 2
//! node ([`isolation`](super::isolation)).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tacto_launch::interrupt::Interrupt;

use super::events_suite::child::{self, ChildError};
use super::isolation::{Network, peer_environment};
use crate::deadline;

/// rclcpp's executors that the benchmark offers and the seed compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RclcppExecutor {
    /// `rclcpp::executors::SingleThreadedExecutor` (`-x 1`).
    Single,
    /// `rclcpp::experimental::executors::EventsExecutor` (`-x 3`).
    Events,
}

impl RclcppExecutor {
    /// Both, in the order runs alternate.
    pub(crate) const ALL: [RclcppExecutor; 2] = [RclcppExecutor::Single, RclcppExecutor::Events];

    /// Its name in keys and tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            RclcppExecutor::Single => "rclcpp-single",
            RclcppExecutor::Events => "rclcpp-events",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            RclcppExecutor::Single => "1",
            RclcppExecutor::Events => "3",
        }
    }
}

/// What one run of the benchmark measured.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IrobotRun {
    /// The process's CPU over the window after the warm-up, % of one core.
    pub cpu_pct_core: f64,
    /// Its resident set once a second over the window after the warm-up, kB.
    pub rss_kb_per_s: Vec<u64>,
    /// Messages received, over the whole run.
    pub received: u64,
    /// Lost, as the benchmark counts them.
    pub lost: u64,
    /// Mean latency over the whole run, ms.
    pub mean_ms: f64,
    /// The largest of any subscription, ms.
    pub max_ms: f64,
}

/// The benchmark program of an rclcpp install, and the environment it runs in.
#[derive(Debug, Clone)]
pub(crate) struct Irobot {
    program: PathBuf,
    env: Vec<(&'static str, OsString)>,
}

/// Where the benchmark lies in an install folder.
const PROGRAM: &str = "rclcpp-jazzy/perf/lib/irobot_benchmark/irobot_benchmark";

impl Irobot {
    /// The benchmark of the install in `dir` (the folder given to `install-rclcpp.sh`), or why
    /// there is none.
    pub(crate) fn find(dir: &Path) -> Result<Irobot, String> {
        let program = dir.join(PROGRAM);
        if !program.is_file() {
            return Err(format!(
                "{} has no rclcpp benchmark at {PROGRAM} (give the folder given to \
                 ../shared/peers/install-rclcpp.sh)",
                dir.display()
            ));
        }
        Ok(Irobot {
            program,
            env: peer_environment(&dir.join("rclcpp-jazzy"), None),
        })
    }

    /// Runs `topology` (a topology file's text, named `name`) on `executor` for `seconds`;
    /// CPU is measured after `warmup`.
    pub(crate) fn run(
        &self,
        name: &str,
        topology: &str,
        executor: RclcppExecutor,
        seconds: u64,
        warmup: Duration,
        interrupt: &Interrupt,
    ) -> Result<Option<IrobotRun>, String> {
        let dir = std::env::temp_dir().join(format!(
            "tacto-seeds-irobot-{}-{name}-{}",
            std::process::id(),
            executor.name()
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let file = dir.join(format!("{name}.json"));
        let ran = std::fs::write(&file, topology)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))
            .and_then(|()| self.run_in(&dir, &file, executor, seconds, warmup, interrupt));
        // Made above for this run only.
        let _ = std::fs::remove_dir_all(&dir);
        ran
    }

    fn run_in(
        &self,
        dir: &Path,
        file: &Path,
        executor: RclcppExecutor,
        seconds: u64,
        warmup: Duration,
        interrupt: &Interrupt,
    ) -> Result<Option<IrobotRun>, String> {
        let seconds_arg = seconds.to_string();
        let args: [&std::ffi::OsStr; 7] = [
            file.as_os_str(),
            "-x".as_ref(),
            executor.flag().as_ref(),
            "-t".as_ref(),
            seconds_arg.as_ref(),
            "--ipc".as_ref(),
            "on".as_ref(),
        ];
        let mut command = (Network::here().command(&self.program, args))
            .ok_or("irobot_benchmark runs only in a network namespace of its own")?;
        command.current_dir(dir).envs(self.env.iter().cloned());
        let ended = match child::run(
            command,
            true,
            deadline::limit(Duration::from_secs(seconds) + warmup),
            interrupt,
        ) {
            Ok(ended) => ended,
            Err(ChildError::Interrupted) => return Ok(None),
            Err(ChildError::Failed(reason)) => return Err(reason),
        };
        if !ended.status.success() {
            return Err(format!(
                "irobot_benchmark failed ({}): {}",
                ended.status,
                ended.last_words()
            ));
        }
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        let log = dir.join(format!("{stem}_log"));
        let read = |name: &str| {
            std::fs::read_to_string(log.join(name))
                .map_err(|e| format!("irobot_benchmark wrote no {name}: {e}"))
        };
        let total = parse_total(&read("latency_total.txt")?)?;
        let max_ms = parse_max_ms(&read("latency_all.txt")?)?;
        let cpu_pct_core = (ended.cpu_pct_core(warmup.as_secs_f64()))
            .ok_or("irobot_benchmark ended before its CPU could be read twice")?;
        Ok(Some(IrobotRun {
            cpu_pct_core,
            rss_kb_per_s: (ended.readings.iter())
                .filter(|r| r.at_s >= warmup.as_secs_f64())
                .map(|r| r.rss_kb)
                .collect(),
            received: total.0,
            lost: total.2,
            mean_ms: total.1,
            max_ms,
        }))
    }
}

/// `latency_total.txt`: a header line and a line of figures; messages received, mean latency
/// (ms) and lost.
fn parse_total(text: &str) -> Result<(u64, f64, u64), String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let values: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let column = |name: &str| -> Result<f64, String> {
        let i = (header.iter().position(|h| *h == name))
            .ok_or_else(|| format!("latency_total.txt has no column {name}: {text:?}"))?;
        (values.get(i).and_then(|v| v.parse().ok()))
            .ok_or_else(|| format!("latency_total.txt has no {name} figure: {text:?}"))
    };
    Ok((
        column("received_msgs")? as u64,
        column("mean_us")? / 1e3,
        column("lost_msgs")? as u64,
    ))
}

/// `latency_all.txt`: the largest `max_us` of the receivers' table, ms: the subscriptions'
/// (`Subscriptions stats:`), or the clients' (`Clients stats:`, a response's round trip) in a
/// topology of services. The publishers' table times their publishing, not a delivery.
fn parse_max_ms(text: &str) -> Result<f64, String> {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with("Subscriptions stats") && !l.starts_with("Clients stats"))
        .skip(1);
    let header: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let i = (header.iter().position(|h| *h == "max_us")).ok_or_else(|| {
        format!("latency_all.txt has no subscriptions' or clients' max_us: {text:?}")
    })?;
    let maxima: Vec<f64> = lines
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().nth(i)?.parse().ok())
        .collect();
    match maxima.is_empty() {
        true => Err(format!(
            "latency_all.txt lists no subscription or client: {text:?}"
        )),
        false => Ok(maxima.into_iter().fold(0.0, f64::max) / 1e3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The files as irobot_benchmark (ros2-performance d47cfb26) wrote them on this machine.
    const TOTAL: &str = "received_msgs  mean_us   late_msgs late_perc too_late_msgs  \
        too_late_perc  lost_msgs lost_perc \n300            43        0         0         0   \
        0              0         0         \n";
    const ALL: &str = "\nSubscriptions stats:\nnode           topic          size_b    \
        received_msgs  late_msgs too_late_msgs  lost_msgs mean_us   sd_us     min_us    max_us \
        freq_hz   throughput_Kb_per_sec\nsubscriber     payload        10        300            0 \
        0              0         43        7         18        140       100       0.976614  \
        \n\nPublishers stats:\nnode           topic          size_b    received_msgs  late_msgs \
        too_late_msgs  lost_msgs mean_us   sd_us     min_us    max_us    freq_hz   \
        throughput_Kb_per_sec\npublisher      payload        10        0              0        \
        0              0         31        5         13        90        100       0.976583\n";

    #[test]
    fn the_benchmarks_files_give_received_mean_lost_and_the_subscriptions_max() {
        assert_eq!(parse_total(TOTAL), Ok((300, 0.043, 0)));
        // The publishers' table (max 90 µs) is not the subscriptions'.
        assert_eq!(parse_max_ms(ALL), Ok(0.14));
        assert!(parse_total("").unwrap_err().contains("received_msgs"));
        assert!(parse_max_ms("Subscriptions stats:\n").is_err());
    }

    #[test]
    fn a_topology_of_services_gives_its_clients_round_trips() {
        // As irobot_benchmark wrote it for a server and a client calling every 10 ms.
        let clients = "\nClients stats:\nnode           topic          size_b    received_msgs  \
            late_msgs too_late_msgs  lost_msgs mean_us   sd_us     min_us    max_us    freq_hz   \
            throughput_Kb_per_sec\nclient         add            0         500            0         \
            0              0         90        24        41        454       100       0\n";
        assert_eq!(parse_max_ms(clients), Ok(0.454));
    }

    #[test]
    fn a_folder_without_the_benchmark_is_refused_saying_what_to_give() {
        let error = Irobot::find(Path::new("/no/such/install")).unwrap_err();
        assert!(error.contains("install-rclcpp.sh"), "{error}");
    }
}
