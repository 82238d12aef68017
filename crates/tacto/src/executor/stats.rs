//! What one executable of an executor did: the live figures behind
//! [`Executor::executable_stats`](super::Executor::executable_stats).

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Time;

/// Counters and timings of one executable (a node's code registered with a trigger, a callback
/// or a timer) since it joined its executor.
///
/// Kept by the executor's own thread as it runs the code, at the cost of one read of the
/// monotonic clock per run (two for a trigger on another clock); reading them copies a few
/// numbers per executable. A run's time counts from its activation's
/// [`time`](crate::Activation::time) to its end.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("planner").unwrap();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// let stop = executor.stop_handle();
/// let mut runs = 0;
/// node.execute(Trigger::every(Duration::from_millis(1)), move |_| {
///     runs += 1;
///     if runs == 3 {
///         stop.stop();
///     }
/// })
/// .unwrap();
/// executor.add(node).unwrap();
/// executor.spin().unwrap();
///
/// let stats = &executor.executable_stats()[0];
/// assert_eq!((&*stats.node, stats.index, stats.runs), ("planner", 0, 3));
/// assert!(stats.run_time_max >= stats.run_time_mean());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutableStats {
    /// The node's name.
    pub node: Arc<str>,
    /// Its position among the node's executables, in the order they were registered.
    pub index: usize,
    /// Times its code ran.
    pub runs: u64,
    /// Time in its code, all runs together.
    pub run_time_total: Duration,
    /// The longest run.
    pub run_time_max: Duration,
    /// For a periodic trigger, from each deadline to the start of the run that served it, all
    /// runs together: how late the executor came. Zero for other triggers.
    pub start_delay_total: Duration,
    /// For a periodic trigger, the longest of those delays.
    pub start_delay_max: Duration,
    /// Periods that passed unserved (see [`crate::timer`]).
    pub missed_periods: u64,
}

impl ExecutableStats {
    /// The mean run time; zero before the first run.
    pub fn run_time_mean(&self) -> Duration {
        mean(self.run_time_total, self.runs)
    }

    /// The mean start delay of a periodic trigger; zero before the first run.
    pub fn start_delay_mean(&self) -> Duration {
        mean(self.start_delay_total, self.runs)
    }
}

/// What an executor keeps per executable on its hot path: plain nanoseconds, turned into
/// [`ExecutableStats`] only when someone asks.
#[derive(Debug, Clone, Default)]
pub(crate) struct Counters {
    runs: u64,
    run_ns_total: u64,
    run_ns_max: u64,
    delay_ns_total: u64,
    delay_ns_max: u64,
    missed_periods: u64,
}

impl Counters {
    /// Counts one run that started `delay_ns` after its deadline and took `took_ns`.
    pub(crate) fn record(&mut self, delay_ns: u64, took_ns: u64, missed_periods: u64) {
        self.runs += 1;
        self.run_ns_total = self.run_ns_total.saturating_add(took_ns);
        self.run_ns_max = self.run_ns_max.max(took_ns);
        self.delay_ns_total = self.delay_ns_total.saturating_add(delay_ns);
        self.delay_ns_max = self.delay_ns_max.max(delay_ns);
        self.missed_periods += missed_periods;
    }

    pub(crate) fn stats(&self, node: &Arc<str>, index: usize) -> ExecutableStats {
        ExecutableStats {
            node: node.clone(),
            index,
            runs: self.runs,
            run_time_total: Duration::from_nanos(self.run_ns_total),
            run_time_max: Duration::from_nanos(self.run_ns_max),
            start_delay_total: Duration::from_nanos(self.delay_ns_total),
            start_delay_max: Duration::from_nanos(self.delay_ns_max),
            missed_periods: self.missed_periods,
        }
    }
}

/// The nanoseconds from `from` to `to`, zero if `to` is earlier.
pub(crate) fn nanos_between(from: Time, to: Time) -> u64 {
    u64::try_from(to.as_nanos().saturating_sub(from.as_nanos())).unwrap_or(0)
}

fn mean(total: Duration, runs: u64) -> Duration {
    match u32::try_from(runs) {
        Ok(0) => Duration::ZERO,
        Ok(runs) => total / runs,
        Err(_) => Duration::from_secs_f64(total.as_secs_f64() / runs as f64),
    }
}
