//! The core of the wait-set and callback executors: one thread that runs a round of ready
//! entries, then blocks until the next deadline or notification. The two differ only in their
//! [`Policy`]: which triggers they accept, and in which order a round runs its entries.

use std::io;
use std::time::Instant;

use super::base::Base;
use super::dispatch::{self, Entry, Pending, steady_time};
use super::poller::Woken;
use super::running::Running;
use super::{AddError, ExecutableStats, ExecutorStats, SpinError, SpinOutcome, StopHandle};
use crate::clock::{ClockKind, Time, os_now};
use crate::node::{Executable, Node};

/// What makes a single-threaded executor the one it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Policy {
    /// Refuses triggers the model lacks: `Err((executor name, reason))`.
    pub(crate) accepts: fn(&Executable) -> Result<(), (&'static str, &'static str)>,
    pub(crate) order: Order,
    /// The model's name in the stats topic.
    pub(crate) kind: &'static str,
}

/// In which order one round runs ready entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// The order nodes and executables were added.
    Registration,
    /// Timers first, then subscriptions, as rclcpp's executors do.
    TimersFirst,
}

#[derive(Debug)]
pub(crate) struct SingleThreaded {
    base: Base,
    entries: Vec<Entry>,
    policy: Policy,
}

impl SingleThreaded {
    pub(crate) fn new(policy: Policy) -> io::Result<Self> {
        Ok(SingleThreaded {
            base: Base::new(policy.kind)?,
            entries: Vec::new(),
            policy,
        })
    }

    pub(crate) fn add(&mut self, node: Node) -> Result<(), AddError> {
        let signal = self.base.poller.signal().clone();
        let entries = dispatch::admit(
            node,
            &mut self.base,
            &self.entries,
            self.policy.accepts,
            |_, exe| Pending::new(&signal, exe),
        )?;
        self.entries.extend(entries);
        Ok(())
    }

    /// Runs a round of ready entries, then blocks until the next deadline or notification.
    pub(crate) fn spin_until(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<SpinOutcome, SpinError> {
        let Base {
            poller,
            stop,
            stats,
            ..
        } = &mut self.base;
        poller.check_process()?;
        let deadline = deadline.map(steady_time);
        let key = std::sync::Arc::as_ptr(poller.signal()) as usize;
        // Read after each wait, and moved on by each run (see `Entry::fire`).
        let mut now = os_now(ClockKind::Steady);
        loop {
            if stop.take_request() {
                return Ok(SpinOutcome::Stopped);
            }
            poller.signal().take_notified();
            let entries = &mut self.entries;
            match self.policy.order {
                Order::Registration => run_round(entries, stats, key, &mut now, |_| true)?,
                Order::TimersFirst => {
                    run_round(entries, stats, key, &mut now, Entry::is_periodic)?;
                    run_round(entries, stats, key, &mut now, |e| !e.is_periodic())?;
                }
            }
            if deadline.is_some_and(|d| now >= d) {
                return Ok(SpinOutcome::Elapsed);
            }
            let next = (self.entries.iter())
                .filter_map(Entry::steady_deadline)
                .chain(deadline)
                .min();
            if poller.wait(next, now)? == Woken::Shutdown {
                return Ok(SpinOutcome::Interrupted);
            }
            now = os_now(ClockKind::Steady);
        }
    }

    pub(crate) fn stop_handle(&self) -> StopHandle {
        self.base.stop_handle()
    }

    pub(crate) fn stats(&self) -> ExecutorStats {
        self.base.stats()
    }

    pub(crate) fn executable_stats(&self) -> Vec<ExecutableStats> {
        self.entries.iter().map(Entry::stats).collect()
    }
}

/// Runs, in order, each selected entry whose trigger fired since it last ran, as executor
/// `key` (see [`Running`]); `now` is the steady time as last read, moved on by each run (see
/// [`Entry::fire`]).
fn run_round(
    entries: &mut [Entry],
    stats: &mut ExecutorStats,
    key: usize,
    now: &mut Time,
    select: impl Fn(&Entry) -> bool,
) -> io::Result<()> {
    for entry in entries.iter_mut().filter(|e| select(e)) {
        if let Some(activation) = entry.poll(*now) {
            let running = Running::enter(key);
            *now = entry.run(&activation)?;
            drop(running);
            stats.record(&activation);
            if entry.left_unread() {
                match entry.is_per_sample() {
                    true => entry.rearm(),
                    false => stats.left_unread += 1,
                }
            }
        }
    }
    Ok(())
}
