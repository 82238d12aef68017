//! What a run measured, as the report and `--json` give it.
//!
//! Key names are stable: other tools read them.

use serde::{Deserialize, Serialize};

use tacto_launch::measure::Usage;

/// A whole `tacto bench` invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The topology's name (`reference-system`, `nobleo`, or the file's name).
    pub topology: String,
    /// Measured seconds per run (warm-up excluded).
    pub duration_s: f64,
    /// The reference system's crunch limit (0: runtime cost only).
    pub crunch: u64,
    /// Reference system: how long one crunch at `crunch` took on this machine when the bench
    /// started, ms (the CPU time of the fastest of five). Compare runs on different machines,
    /// or against rclcpp, at equal `crunch_ms` rather than equal `crunch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crunch_ms: Option<f64>,
    /// Reference system: the crunch time asked for with `--crunch-ms`, ms; `crunch` is the
    /// limit found for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crunch_ms_target: Option<f64>,
    /// One run per executor, in the order they ran.
    pub runs: Vec<RunResult>,
    /// True if Ctrl-C (or SIGTERM) stopped the bench: `runs` holds the runs finished before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// One executor's run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The executor kind's name.
    pub executor: String,
    /// True if the run fell behind its own schedule or measured too little: its figures are
    /// not comparable with those of runs that kept up. `overload` says why.
    #[serde(default)]
    pub overloaded: bool,
    /// Why the run counts as overloaded, one reason per entry (empty when it kept up).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overload: Vec<String>,
    /// Reference system: one crunch, measured by the run's own process just before it
    /// started, ms (as the report's `crunch_ms`). Far above the report's figure, it says the
    /// machine was busier during this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crunch_ms: Option<f64>,
    /// User + system CPU seconds of the process over the measured window.
    pub cpu_s: f64,
    /// `cpu_s` as a percentage of one core over the window.
    pub cpu_pct_core: f64,
    /// Peak resident set of the process (VmHWM), kB.
    pub rss_peak_kb: u64,
    /// Resident set when the measured window started (after warm-up), kB.
    pub rss_start_kb: u64,
    /// Resident set when it ended, kB.
    pub rss_end_kb: u64,
    /// Voluntary context switches of all the process's threads per second: each is a thread
    /// blocking and being woken again.
    pub wakeups_per_s: f64,
    /// Samples missed anywhere. Reference system: as upstream counts them, the gaps in
    /// sequence numbers that each node saw on its inputs (the `dropped_samples` of every node
    /// run that reached a sink, each counted once), plus the gaps the sinks saw on their own
    /// inputs. Other topologies: the samples never received (the topics' `lost`).
    pub drops_total: u64,
    /// Reference system: end-to-end latency of the hot path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_path_latency_ms: Option<Distribution>,
    /// Reference system: samples the hot path's nodes missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_path_drops: Option<u64>,
    /// Reference system: the behaviour planner's period as seen downstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bp_period_ms: Option<Spread>,
    /// Reference system: how late the executor started the periodic nodes' runs (sensors,
    /// cyclic nodes, the behaviour planner), from the deadline each run serves, as the
    /// executor's own start-delay statistic counts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periodic_start_delay_ms: Option<Distribution>,
    /// ros2-performance and nobleo: per-topic delivery figures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<TopicResult>,
    /// nobleo: samples delivered to subscriptions per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliveries_per_s: Option<f64>,
    /// What the reader should know about this run (e.g. real-time priority was refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A process of a run over a launch file: its resident set once a second over the
    /// measured window, kB (one number per second: bounded by the window).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rss_kb_per_s: Vec<u64>,
    /// A run over a launch file: each process's own figures, in the file's order (the run's
    /// are their sums).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessResult>,
}

impl RunResult {
    /// Sets the process's CPU, memory and wake-up figures to what it used over the measured
    /// window.
    pub fn set_usage(&mut self, usage: &Usage) {
        self.cpu_s = usage.cpu_s;
        self.cpu_pct_core = usage.cpu_pct_core;
        self.rss_start_kb = usage.rss_start_kb;
        self.rss_end_kb = usage.rss_end_kb;
        self.rss_peak_kb = usage.rss_peak_kb;
        self.wakeups_per_s = usage.wakeups_per_s;
    }
}

/// One process of a run over a launch file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessResult {
    /// Its name in the launch file.
    pub name: String,
    /// User + system CPU seconds over the measured window.
    pub cpu_s: f64,
    /// `cpu_s` as a percentage of one core.
    pub cpu_pct_core: f64,
    /// Resident set at the window's end, kB.
    pub rss_end_kb: u64,
    /// Voluntary context switches per second.
    pub wakeups_per_s: f64,
    /// Samples its nodes missed (see [`RunResult::drops_total`]).
    pub drops_total: u64,
    /// Its resident set once a second over the measured window, kB.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rss_kb_per_s: Vec<u64>,
}

/// A latency distribution, ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
    /// Number of samples.
    pub n: u64,
}

/// A period's spread, ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub sd: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Number of periods.
    pub n: u64,
}

/// Delivery on one topic (ros2-performance, nobleo).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TopicResult {
    /// The topic.
    pub topic: String,
    /// Publish-to-take latency, ms, over every subscriber of the topic.
    pub latency_ms: Distribution,
    /// Samples later than min(20% of the period, 5 ms).
    pub late: u64,
    /// Samples later than min(the period, 50 ms).
    pub too_late: u64,
    /// Samples never received (gaps in tracking numbers).
    pub lost: u64,
    /// ros2-performance: samples the topic's publishers published in the measured window.
    /// Each is, for each subscription of the topic, taken (`latency_ms.n`), `lost`, or
    /// `unread`: their sum is `published` × the topic's subscriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<u64>,
    /// ros2-performance: samples published in the window that a subscription had neither taken
    /// nor counted lost when the run stopped (still in its history, or replaced there unseen),
    /// over every subscription.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread: Option<u64>,
    /// The smallest and the largest payload taken, bytes (`None` if nothing was taken).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_bytes: Option<(u64, u64)>,
}

impl Distribution {
    /// The distribution of `samples` (any order); `None` if there are none.
    pub fn of(samples: &mut [f64]) -> Option<Distribution> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        let rank = |q: f64| samples[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(Distribution {
            mean: samples.iter().sum::<f64>() / n as f64,
            p50: rank(0.50),
            p99: rank(0.99),
            max: samples[n - 1],
            n: n as u64,
        })
    }
}

impl Spread {
    /// The spread of `samples`; `None` if there are none.
    pub fn of(samples: &[f64]) -> Option<Spread> {
        if samples.is_empty() {
            return None;
        }
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        Some(Spread {
            mean,
            sd: var.sqrt(),
            min: samples.iter().copied().fold(f64::INFINITY, f64::min),
            max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            n: samples.len() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        let d = Distribution::of(&mut v).unwrap();
        assert_eq!((d.p50, d.p99, d.max, d.n), (50.0, 99.0, 100.0, 100));
        assert_eq!(d.mean, 50.5);
        assert!(Distribution::of(&mut []).is_none());
    }

    #[test]
    fn spread_is_the_population_standard_deviation() {
        let s = Spread::of(&[98.0, 100.0, 102.0]).unwrap();
        assert_eq!((s.mean, s.min, s.max, s.n), (100.0, 98.0, 102.0, 3));
        assert!((s.sd - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }
}
