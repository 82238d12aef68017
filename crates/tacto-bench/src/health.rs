//! Whether a run kept up with its own schedule: the checks behind `overloaded`.
//!
//! A run whose executor fell behind measures a different system: its periods stretch, its
//! queues fill, and its latencies and CPU say more about the machine than about the executor.
//! Such a run is flagged (`overloaded: true` with its reasons), so that nobody compares its
//! figures with those of runs that kept up. A run is overloaded when any of these holds:
//!
//! - the behaviour planner's mean period (reference system) is more than
//!   [`PERIOD_TOLERANCE`] off the period its topology file gives it;
//! - the process used at least [`BUSY_SHARE`] of the CPU it may use: one core for the
//!   single-threaded executors, the CPUs the process may run on for the others;
//! - a statistic the table shows comes from fewer than [`MIN_SAMPLES`] samples (or none).

use crate::result::RunResult;

/// How far the behaviour planner's mean period may be off its set period: 5%.
pub const PERIOD_TOLERANCE: f64 = 0.05;

/// The share of the CPU it may use above which a run is taken to have had no time to spare.
pub const BUSY_SHARE: f64 = 0.9;

/// The fewest samples a statistic may come from.
pub const MIN_SAMPLES: u64 = 10;

/// What a run that keeps up looks like.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectations {
    /// Cores the run can use at most (its executor threads, and the CPUs the process may
    /// run on).
    pub cores: f64,
    /// The statistics the topology measures.
    pub statistics: Statistics,
}

/// The statistics a topology's table shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Statistics {
    /// Reference system: hot-path latency and the behaviour planner's period, set to
    /// `planner_period_ms`.
    ReferenceSystem {
        /// The behaviour planner's period in the topology file, ms (`None` if the file's
        /// planner has no timer of its own).
        planner_period_ms: Option<f64>,
    },
    /// ros2-performance and nobleo: a latency per topic.
    Topics,
    /// A launch file of one's own components: what its processes use, no latency to judge.
    Usage,
}

/// Sets `result.overloaded` and `result.overload` from what the run measured.
///
/// # Examples
/// ```
/// use tacto_bench::health::{assess, Expectations, Statistics};
/// use tacto_bench::result::{Distribution, RunResult, Spread};
///
/// let expected = Expectations {
///     cores: 1.0,
///     statistics: Statistics::ReferenceSystem { planner_period_ms: Some(100.0) },
/// };
/// let mut run = RunResult {
///     cpu_pct_core: 40.0,
///     hot_path_latency_ms: Some(Distribution { n: 300, ..Default::default() }),
///     bp_period_ms: Some(Spread { mean: 100.4, n: 299, ..Default::default() }),
///     ..Default::default()
/// };
/// assess(&mut run, &expected);
/// assert!(!run.overloaded);
///
/// run.bp_period_ms = Some(Spread { mean: 112.0, n: 260, ..Default::default() });
/// assess(&mut run, &expected);
/// assert!(run.overloaded && run.overload[0].contains("112.0 ms"));
/// ```
pub fn assess(result: &mut RunResult, expected: &Expectations) {
    let mut reasons = Vec::new();
    let capacity = 100.0 * expected.cores;
    if result.cpu_pct_core >= BUSY_SHARE * capacity {
        reasons.push(format!(
            "it used {:.0}% of a core, {:.0}% of the {} it may use",
            result.cpu_pct_core,
            100.0 * result.cpu_pct_core / capacity,
            cores(expected.cores),
        ));
    }
    match expected.statistics {
        Statistics::ReferenceSystem { planner_period_ms } => {
            if let (Some(bp), Some(planner_period_ms)) = (&result.bp_period_ms, planner_period_ms) {
                let off = (bp.mean - planner_period_ms).abs() / planner_period_ms;
                if off > PERIOD_TOLERANCE {
                    reasons.push(format!(
                        "the behaviour planner's period was {:.1} ms, {:.0}% off its {} ms",
                        bp.mean,
                        100.0 * off,
                        planner_period_ms
                    ));
                }
            }
            let hp = result.hot_path_latency_ms.as_ref().map_or(0, |d| d.n);
            few(&mut reasons, "the hot-path latency", hp);
            let bp = result.bp_period_ms.as_ref().map_or(0, |s| s.n);
            few(&mut reasons, "the behaviour planner's period", bp);
        }
        Statistics::Usage => {}
        Statistics::Topics => {
            if result.topics.is_empty() {
                few(&mut reasons, "the latency", 0);
            }
            for topic in &result.topics {
                let what = format!("the latency on {}", topic.topic);
                few(&mut reasons, &what, topic.latency_ms.n);
            }
        }
    }
    result.overloaded = !reasons.is_empty();
    result.overload = reasons;
}

fn few(reasons: &mut Vec<String>, what: &str, n: u64) {
    if n < MIN_SAMPLES {
        reasons.push(format!(
            "{what} comes from {n} sample{} (fewer than {MIN_SAMPLES})",
            if n == 1 { "" } else { "s" }
        ));
    }
}

fn cores(n: f64) -> String {
    match n == 1.0 {
        true => "1 core".into(),
        false => format!("{n} cores"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Distribution, Spread, TopicResult};

    fn reference() -> Expectations {
        Expectations {
            cores: 2.0,
            statistics: Statistics::ReferenceSystem {
                planner_period_ms: Some(100.0),
            },
        }
    }

    fn healthy() -> RunResult {
        RunResult {
            cpu_pct_core: 10.0,
            hot_path_latency_ms: Some(Distribution {
                n: 10,
                ..Default::default()
            }),
            bp_period_ms: Some(Spread {
                mean: 104.9,
                n: 10,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_run_within_every_bound_is_not_overloaded() {
        let mut run = healthy();
        assess(&mut run, &reference());
        assert!(
            !run.overloaded && run.overload.is_empty(),
            "{:?}",
            run.overload
        );
    }

    #[test]
    fn a_run_near_the_cpu_it_may_use_is_overloaded() {
        let mut run = RunResult {
            cpu_pct_core: 185.0,
            ..healthy()
        };
        assess(&mut run, &reference());
        assert_eq!(run.overload.len(), 1, "{:?}", run.overload);
        assert!(run.overload[0].contains("of the 2 cores it may use"));
    }

    #[test]
    fn a_missing_or_thin_statistic_makes_a_run_overloaded() {
        let mut run = RunResult {
            hot_path_latency_ms: None,
            ..healthy()
        };
        assess(&mut run, &reference());
        assert!(run.overloaded);
        assert!(run.overload[0].contains("hot-path latency comes from 0 samples"));

        let topic = |n| TopicResult {
            topic: "amazon".into(),
            latency_ms: Distribution {
                n,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut run = RunResult {
            topics: vec![topic(9)],
            ..Default::default()
        };
        let topics = Expectations {
            cores: 1.0,
            statistics: Statistics::Topics,
        };
        assess(&mut run, &topics);
        assert!(run.overloaded && run.overload[0].contains("on amazon comes from 9 samples"));
        run.topics = vec![topic(10)];
        assess(&mut run, &topics);
        assert!(!run.overloaded);
    }
}
