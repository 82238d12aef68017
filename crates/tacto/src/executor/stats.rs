//! What one executable of an executor did: the live figures behind
//! [`Executor::executable_stats`](super::Executor::executable_stats).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::clock::{ClockKind, Time, os_now};
use crate::msg::tacto_msgs;
use crate::subscription::Input;

/// Counters and timings of one executable (a node's code registered with a trigger, a callback
/// or a timer) since it joined its executor.
///
/// Kept by the executor's own thread as it runs the code. A run's time counts from its
/// activation's [`time`](crate::Activation::time) to its end; the clock read at the end also
/// serves as the next activation's time, so the figures add no clock read of their own but
/// one per run of a subscription trigger (the first sample's arrival, read on the
/// publisher's thread). Reading them copies a few numbers per executable.
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
/// assert_eq!((&*stats.node, stats.index, stats.runs), ("/planner", 0, 3));
/// assert!(stats.run_time_max >= stats.run_time_mean());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutableStats {
    /// The node's fully qualified name (`/robot1/planner`).
    pub node: Arc<str>,
    /// Its position among the node's executables, in the order they were registered.
    pub index: usize,
    /// Times its code ran.
    pub runs: u64,
    /// Time in its code, all runs together.
    pub run_time_total: Duration,
    /// The longest run.
    pub run_time_max: Duration,
    /// From what each run served to its start, all runs together: how late the executor came.
    /// For a periodic trigger, from the deadline; for a subscription trigger, from the first
    /// sample that arrived since the previous run (the wait-set, callback and thread-pool
    /// executors) or from the sample of the event (events executor), on the steady clock;
    /// zero for readable triggers and for a subscription trigger on another clock. On a LET
    /// executor every run serves its period's start, so every trigger's delay counts from
    /// there.
    pub start_delay_total: Duration,
    /// The longest of those delays.
    pub start_delay_max: Duration,
    /// Periods that passed unserved (see [`crate::timer`]).
    pub missed_periods: u64,
    /// Samples that arrived on the subscriptions of its trigger (a callback's own
    /// subscription), since they were created. Subscriptions only polled by the code, which
    /// the executor does not know of, are not counted.
    pub samples_in: u64,
    /// Of those, samples lost unread (see [`Subscription::dropped`](crate::Subscription::dropped)).
    pub samples_dropped: u64,
}

impl ExecutableStats {
    /// The mean run time; zero before the first run.
    pub fn run_time_mean(&self) -> Duration {
        mean(self.run_time_total, self.runs)
    }

    /// The mean start delay; zero before the first run.
    pub fn start_delay_mean(&self) -> Duration {
        mean(self.start_delay_total, self.runs)
    }
}

/// What an executor keeps per executable on its hot path: plain nanoseconds, turned into
/// [`ExecutableStats`] only when someone asks.
///
/// Atomic because the stats reporter of a context reads them from its own thread (see
/// [`crate::executor::report`]); relaxed, because each figure stands alone: a reader may see a
/// run counted whose time is not added yet, which a live view can live with. Only the thread
/// that runs the executable writes them (an executable runs on one thread at a time; a
/// thread pool hands it on under its lock), so plain loads and stores do, without the cost of
/// a read-modify-write.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    runs: AtomicU64,
    run_ns_total: AtomicU64,
    run_ns_max: AtomicU64,
    delay_ns_total: AtomicU64,
    delay_ns_max: AtomicU64,
    missed_periods: AtomicU64,
}

impl Counters {
    /// Counts one run that started `delay_ns` after its deadline and took `took_ns`.
    pub(crate) fn record(&self, delay_ns: u64, took_ns: u64, missed_periods: u64) {
        add(&self.runs, 1);
        add(&self.run_ns_total, took_ns);
        raise(&self.run_ns_max, took_ns);
        add(&self.delay_ns_total, delay_ns);
        raise(&self.delay_ns_max, delay_ns);
        if missed_periods > 0 {
            add(&self.missed_periods, missed_periods);
        }
    }

    /// The figures of the executable of `node` number `index` triggered by `inputs`.
    pub(crate) fn stats(
        &self,
        node: &Arc<str>,
        index: usize,
        inputs: &[Arc<dyn Input>],
    ) -> ExecutableStats {
        ExecutableStats {
            node: node.clone(),
            index,
            runs: self.runs.load(Relaxed),
            run_time_total: Duration::from_nanos(self.run_ns_total.load(Relaxed)),
            run_time_max: Duration::from_nanos(self.run_ns_max.load(Relaxed)),
            start_delay_total: Duration::from_nanos(self.delay_ns_total.load(Relaxed)),
            start_delay_max: Duration::from_nanos(self.delay_ns_max.load(Relaxed)),
            missed_periods: self.missed_periods.load(Relaxed),
            samples_in: inputs.iter().map(|input| input.arrivals()).sum(),
            samples_dropped: inputs.iter().map(|input| input.dropped()).sum(),
        }
    }
}

/// Adds `by` to a counter only this thread writes; u64 nanoseconds wrap after 584 years.
fn add(counter: &AtomicU64, by: u64) {
    counter.store(counter.load(Relaxed).wrapping_add(by), Relaxed);
}

/// Raises a maximum only this thread writes to `to`, if higher.
fn raise(max: &AtomicU64, to: u64) {
    if to > max.load(Relaxed) {
        max.store(to, Relaxed);
    }
}

/// One executor's figures, shared with the stats reporter of each context whose nodes it
/// runs: its wake-up count and each executable's counters.
#[derive(Debug)]
pub(crate) struct Board {
    /// The executor's model, as [`tacto_msgs::ExecutorStats::kind`] names it.
    pub(crate) kind: &'static str,
    /// Its number in the process, from 0 in the order of creation.
    pub(crate) number: u32,
    /// Wake-ups of all its threads.
    pub(crate) wakeups: Arc<AtomicU64>,
    executables: Mutex<Vec<Listed>>,
}

/// An executable on a board.
#[derive(Debug)]
struct Listed {
    node: Arc<str>,
    index: usize,
    counters: Arc<Counters>,
    /// Its trigger's subscriptions.
    inputs: Vec<Arc<dyn Input>>,
}

impl Board {
    pub(crate) fn new(kind: &'static str, wakeups: Arc<AtomicU64>) -> Self {
        static CREATED: AtomicU32 = AtomicU32::new(0);
        Board {
            kind,
            number: CREATED.fetch_add(1, Relaxed),
            wakeups,
            executables: Mutex::new(Vec::new()),
        }
    }

    /// Lists an executable, as its executor admits it.
    pub(crate) fn add(
        &self,
        node: &Arc<str>,
        index: usize,
        counters: &Arc<Counters>,
        inputs: &[Arc<dyn Input>],
    ) {
        let mut executables = self
            .executables
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        executables.push(Listed {
            node: node.clone(),
            index,
            counters: counters.clone(),
            inputs: inputs.to_vec(),
        });
    }

    /// The figures now, as the stats topic carries them.
    pub(crate) fn report(&self, host: &str) -> tacto_msgs::ExecutorStats {
        let executables = self
            .executables
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let executables = (executables.iter())
            .map(|listed| {
                let stats = (listed.counters).stats(&listed.node, listed.index, &listed.inputs);
                tacto_msgs::ExecutableStats {
                    node: listed.node.to_string(),
                    index: u32::try_from(listed.index).unwrap_or(u32::MAX),
                    runs: stats.runs,
                    run_ns_total: nanos(stats.run_time_total),
                    run_ns_max: nanos(stats.run_time_max),
                    start_delay_ns_total: nanos(stats.start_delay_total),
                    start_delay_ns_max: nanos(stats.start_delay_max),
                    missed_periods: stats.missed_periods,
                    samples_in: stats.samples_in,
                    samples_dropped: stats.samples_dropped,
                }
            })
            .collect();
        tacto_msgs::ExecutorStats {
            stamp: os_now(ClockKind::System).into(),
            host: host.to_owned(),
            pid: std::process::id(),
            executor: self.number,
            kind: self.kind.to_owned(),
            wakeups: self.wakeups.load(Relaxed),
            executables,
        }
    }
}

/// The nanoseconds from `from` to `to`, zero if `to` is earlier.
pub(crate) fn nanos_between(from: Time, to: Time) -> u64 {
    // Not negative after `max`: the cast keeps the value.
    to.as_nanos().saturating_sub(from.as_nanos()).max(0) as u64
}

fn mean(total: Duration, runs: u64) -> Duration {
    match u32::try_from(runs) {
        Ok(0) => Duration::ZERO,
        Ok(runs) => total / runs,
        Err(_) => Duration::from_secs_f64(total.as_secs_f64() / runs as f64),
    }
}
