//! The wait-set executor: runs an executable only when its trigger fires.
//!
//! Inside, nodes take what they need from their polling subscriptions; a subscription that is
//! not in a trigger never wakes this thread. This is the execution model of Apex.AI's
//! "executor based on wait-set and polling subscription" and of the rclc executor.

use std::time::Instant;

use super::single_threaded::{Policy, SingleThreaded};
use super::{
    AddError, ExecutableStats, Executor, ExecutorStats, SpinError, SpinOutcome, StopHandle,
};
use crate::node::Node;

/// Runs nodes' executables when their [`Trigger`](crate::Trigger)s fire, one thread.
///
/// # Guarantees
/// - Blocks in `epoll_wait` when nothing is ready; never busy-waits.
/// - A sample on a subscription that no trigger names causes no wake-up.
/// - **Periods first**: a periodic trigger that came due runs before any further
///   data-triggered executable is started. Its start delay is at most the one run under way
///   when it came due, plus the periodic executables due with it and added before it; never a
///   round of other work. Periodic executables due together run in the order they were added;
///   one runs at most once between two data-triggered runs, so an overrunning period cannot
///   starve them.
/// - **A chain advances as its data arrives**: after a data-triggered run, the executable
///   whose input it reached last (the last subscriber of its last sample) runs next, ahead of
///   the others.
/// - **Dataflow order**: otherwise data-triggered executables are swept upstream first (the
///   executor learns that B follows A when B's input arrives while A runs; among equals, the
///   order they were added). Each runs at most once per pass, so none waits for more than the
///   rest of one pass and the next. An executable whose trigger still holds after it ran runs
///   again in the next pass, without sleeping.
/// - No allocation per execution in steady state.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{Context, Executor, SpinOutcome, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// let stop = executor.stop_handle();
/// let mut node = ctx.node("ticker").unwrap();
/// let mut ticks = 0;
/// node.execute(Trigger::every(Duration::from_millis(10)), move |_| {
///     ticks += 1;
///     if ticks == 3 {
///         stop.stop(); // the spin returns after this run
///     }
/// })
/// .unwrap();
///
/// executor.add(node).unwrap();
/// let outcome = executor.spin_for(Duration::from_secs(10)).unwrap();
/// assert_eq!(outcome, SpinOutcome::Stopped);
/// assert_eq!(executor.stats().executions, 3);
/// ```
#[derive(Debug)]
pub struct WaitSetExecutor(SingleThreaded);

impl WaitSetExecutor {
    /// Creates the executor and its OS resources (an epoll set, an eventfd, a timerfd).
    pub fn new() -> std::io::Result<Self> {
        SingleThreaded::new(Policy {
            accepts: |_| Ok(()),
            kind: "wait-set",
        })
        .map(WaitSetExecutor)
    }
}

impl Executor for WaitSetExecutor {
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        self.0.add(node)
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        self.0.spin_until(deadline)
    }

    fn stop_handle(&self) -> StopHandle {
        self.0.stop_handle()
    }

    fn stats(&self) -> ExecutorStats {
        self.0.stats()
    }

    fn executable_stats(&self) -> Vec<ExecutableStats> {
        self.0.executable_stats()
    }
}
