//! `tacto top`: the executors of every tacto process on the graph, from the reports they
//! publish on the stats topic ([`tacto::msg::tacto_msgs::ExecutorStats`], once a second while
//! someone subscribes), as a table or JSON.
//!
//! Reports carry counters since each executor's creation; rates (runs per second, share of a
//! CPU) come from an executor's last two reports, so they need two.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde_json::json;
use tacto::msg::tacto_msgs::{ExecutableStats, ExecutorStats};

/// An executor whose last report is older than this is gone (its process ended or left the
/// graph): reports come once a second.
pub const GONE_AFTER: Duration = Duration::from_secs(3);

/// The executors heard, each with its last two reports.
///
/// # Examples
/// ```
/// use std::time::Instant;
/// use tacto::msg::tacto_msgs::{ExecutableStats, ExecutorStats};
/// use tacto_graph::top::Executors;
///
/// let mut executors = Executors::default();
/// let report = |sec, runs| ExecutorStats {
///     stamp: tacto::msg::builtin_interfaces::Time { sec, nanosec: 0 },
///     pid: 7,
///     kind: "wait-set".into(),
///     executables: vec![ExecutableStats { node: "ticker".into(), runs, ..Default::default() }],
///     ..Default::default()
/// };
/// executors.heard(report(10, 100), Instant::now());
/// executors.heard(report(11, 150), Instant::now());
/// assert!(executors.table().contains(" ticker "));
/// assert!(executors.table().contains(" 50.0 ")); // runs per second
/// ```
#[derive(Debug, Default)]
pub struct Executors {
    /// By (host, pid, executor number): the previous report, the last one, when it came.
    known: BTreeMap<(String, u32, u32), Heard>,
}

#[derive(Debug)]
struct Heard {
    previous: Option<ExecutorStats>,
    last: ExecutorStats,
    at: Instant,
}

impl Executors {
    /// Takes in a report that arrived at `now`.
    pub fn heard(&mut self, report: ExecutorStats, now: Instant) {
        let key = (report.host.clone(), report.pid, report.executor);
        let previous = self.known.remove(&key).map(|heard| heard.last);
        // A report older than the one kept (reordered on the way) would give negative rates.
        let previous = previous.filter(|p| nanos(p) < nanos(&report));
        let heard = Heard {
            previous,
            last: report,
            at: now,
        };
        self.known.insert(key, heard);
    }

    /// Forgets executors not heard of since [`GONE_AFTER`] before `now`.
    pub fn forget_gone(&mut self, now: Instant) {
        (self.known).retain(|_, heard| now.duration_since(heard.at) < GONE_AFTER);
    }

    /// How many executors are known.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// True if none is.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// True if every executor known has sent two reports, so all rates can be shown.
    pub fn all_have_rates(&self) -> bool {
        self.known.values().all(|heard| heard.previous.is_some())
    }

    /// One row per executable, under a heading; `-` where a rate needs a second report.
    pub fn table(&self) -> String {
        let mut table = format!(
            "{:<16} {:>7} {:>4} {:<11} {:>8}  {:<20} {:>3} {:>9} {:>9} {:>6} {:>9} {:>9} {:>9} {:>6} {:>8} {:>8}\n",
            "HOST",
            "PID",
            "EXEC",
            "KIND",
            "WAKE/S",
            "NODE",
            "#",
            "RUNS",
            "RUNS/S",
            "CPU%",
            "MEAN(us)",
            "MAX(us)",
            "DELAY(us)",
            "MISSED",
            "IN/S",
            "DROPPED"
        );
        for heard in self.known.values() {
            let report = &heard.last;
            let wakeups = rate(heard, |r| r.wakeups);
            for executable in &report.executables {
                let of = |r: &ExecutorStats| find(r, executable).cloned().unwrap_or_default();
                let runs_per_s = rate(heard, |r| of(r).runs);
                let busy = rate(heard, |r| of(r).run_ns_total);
                let in_per_s = rate(heard, |r| of(r).samples_in);
                let _ = writeln!(
                    table,
                    "{:<16} {:>7} {:>4} {:<11} {:>8}  {:<20} {:>3} {:>9} {:>9} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>6} {:>8} {:>8}",
                    clip(&report.host, 16),
                    report.pid,
                    report.executor,
                    report.kind,
                    shown(wakeups, 1.0, 1),
                    clip(&executable.node, 20),
                    executable.index,
                    executable.runs,
                    shown(runs_per_s, 1.0, 1),
                    // Nanoseconds busy per second of wall time, as a percentage of one CPU.
                    shown(busy, 1e-7, 2),
                    mean_us(executable),
                    executable.run_ns_max as f64 / 1e3,
                    executable.start_delay_ns_max as f64 / 1e3,
                    executable.missed_periods,
                    shown(in_per_s, 1.0, 1),
                    executable.samples_dropped,
                );
            }
        }
        table
    }

    /// The same as [`table`](Self::table), as one JSON object (a line of `--json` output).
    pub fn json(&self) -> serde_json::Value {
        let executors: Vec<_> = (self.known.values())
            .map(|heard| {
                let report = &heard.last;
                let executables: Vec<_> = (report.executables.iter())
                    .map(|e| {
                        let of = |r: &ExecutorStats| find(r, e).cloned().unwrap_or_default();
                        json!({
                            "node": e.node,
                            "index": e.index,
                            "runs": e.runs,
                            "runs_per_s": rate(heard, |r| of(r).runs),
                            "cpu_percent": rate(heard, |r| of(r).run_ns_total).map(|ns| ns * 1e-7),
                            "mean_run_us": mean_us(e),
                            "max_run_us": e.run_ns_max as f64 / 1e3,
                            "max_start_delay_us": e.start_delay_ns_max as f64 / 1e3,
                            "missed_periods": e.missed_periods,
                            "samples_in": e.samples_in,
                            "samples_in_per_s": rate(heard, |r| of(r).samples_in),
                            "samples_dropped": e.samples_dropped,
                        })
                    })
                    .collect();
                json!({
                    "host": report.host,
                    "pid": report.pid,
                    "executor": report.executor,
                    "kind": report.kind,
                    "wakeups": report.wakeups,
                    "wakeups_per_s": rate(heard, |r| r.wakeups),
                    "executables": executables,
                })
            })
            .collect();
        json!({ "executors": executors })
    }
}

/// The report's stamp in nanoseconds.
fn nanos(report: &ExecutorStats) -> i128 {
    i128::from(report.stamp.sec) * 1_000_000_000 + i128::from(report.stamp.nanosec)
}

/// The per-second rate of `counter` between the two reports, if there are two.
fn rate(heard: &Heard, counter: impl Fn(&ExecutorStats) -> u64) -> Option<f64> {
    let previous = heard.previous.as_ref()?;
    let seconds = (nanos(&heard.last) - nanos(previous)) as f64 / 1e9;
    let grown = counter(&heard.last).saturating_sub(counter(previous));
    Some(grown as f64 / seconds)
}

/// The same executable in another report of its executor.
fn find<'r>(report: &'r ExecutorStats, of: &ExecutableStats) -> Option<&'r ExecutableStats> {
    (report.executables.iter()).find(|e| e.node == of.node && e.index == of.index)
}

fn mean_us(executable: &ExecutableStats) -> f64 {
    match executable.runs {
        0 => 0.0,
        runs => executable.run_ns_total as f64 / runs as f64 / 1e3,
    }
}

/// `value` times `scale` with `decimals`, or `-` without a value.
fn shown(value: Option<f64>, scale: f64, decimals: usize) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{:.decimals$}", v * scale))
}

/// `text` cut to `width` characters.
fn clip(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}
