//! The wait-set executor: runs an executable only when its trigger fires.
//!
//! Inside, nodes take what they need from their polling subscriptions; a subscription that is
//! not in a trigger never wakes this thread. This is the execution model of Apex.AI's
//! "executor based on wait-set and polling subscription" and of the rclc executor.

use std::sync::Arc;
use std::time::Instant;

use super::dispatch::{self, Entry, Order, Pending};
use super::poller::Poller;
use super::{AddError, Executor, ExecutorStats, SpinError, SpinOutcome, StopHandle};
use crate::node::Node;

/// Runs nodes' executables when their [`Trigger`](crate::Trigger)s fire, one thread.
///
/// # Guarantees
/// - Blocks in `epoll_wait` when nothing is ready; never busy-waits.
/// - A sample on a subscription that no trigger names causes no wake-up.
/// - Executables run in the order they were added, each at most once per round; an executable
///   whose trigger still holds after it ran runs again in the next round, without sleeping.
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
pub struct WaitSetExecutor {
    poller: Poller,
    entries: Vec<Entry>,
    /// The names of every node added, those without executables included.
    nodes: Vec<Arc<str>>,
    stop: StopHandle,
    stats: ExecutorStats,
}

impl WaitSetExecutor {
    /// Creates the executor and its OS resources (an epoll set, an eventfd, a timerfd).
    pub fn new() -> std::io::Result<Self> {
        let poller = Poller::new()?;
        let stop = StopHandle::new(poller.signal().clone());
        Ok(WaitSetExecutor {
            poller,
            entries: Vec::new(),
            nodes: Vec::new(),
            stop,
            stats: ExecutorStats::default(),
        })
    }
}

impl Executor for WaitSetExecutor {
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        let signal = self.poller.signal().clone();
        let entries = dispatch::admit(
            node,
            &mut self.poller,
            &mut self.nodes,
            &self.entries,
            |_| Ok(()),
            |_, exe| Pending::new(&signal, exe),
        )?;
        self.entries.extend(entries);
        Ok(())
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        let (poller, entries, stats) = (&mut self.poller, &mut self.entries, &mut self.stats);
        dispatch::spin(
            poller,
            entries,
            &self.stop,
            stats,
            Order::Registration,
            deadline,
        )
    }

    fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    fn stats(&self) -> ExecutorStats {
        ExecutorStats {
            wakeups: self.poller.wakeups(),
            ..self.stats
        }
    }
}
