//! What the wait-set and callback executors share: a node's executables as entries with
//! their scheduling state, and the spin loop over them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::poller::{Poller, Woken};
use super::signal::Signal;
use super::{AddError, ExecutorStats, SpinError, SpinOutcome, StopHandle};
use crate::clock::{ClockKind, Time, os_now};
use crate::context::Context;
use crate::node::{Executable, Node};
use crate::subscription::{Input, Listener};
use crate::timer::Schedule;
use crate::trigger::Activation;

/// Marks an entry pending and wakes its executor: the listener of triggering subscriptions.
#[derive(Debug)]
pub(crate) struct Pending {
    flag: AtomicBool,
    signal: Arc<Signal>,
}

impl Listener for Pending {
    fn on_sample(&self) {
        // The flag must be visible before the executor takes the notification.
        self.flag.store(true, Ordering::SeqCst);
        self.signal.notify();
    }
}

/// One executable inside an executor.
pub(crate) struct Entry {
    pub(crate) node: Arc<str>,
    exe: Executable,
    /// Set for periodic triggers.
    schedule: Option<Schedule>,
    pending: Arc<Pending>,
    /// The node's context, for its clocks. Holding it keeps the graph alive as long as the
    /// node runs, and with it the `/clock` subscription that moves simulated time.
    context: Context,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("node", &self.node)
            .field("trigger", &self.exe.trigger)
            .field("schedule", &self.schedule)
            .finish_non_exhaustive()
    }
}

impl Entry {
    pub(crate) fn is_periodic(&self) -> bool {
        self.schedule.is_some()
    }

    /// The activation to run now, if the trigger fired.
    pub(crate) fn poll(&mut self) -> Option<Activation> {
        let kind = self.exe.trigger.clock;
        match &mut self.schedule {
            Some(schedule) => {
                let now = self.context.clock().now(kind);
                let missed_periods = schedule.fire(now)?;
                Some(Activation {
                    time: now,
                    missed_periods,
                })
            }
            None => {
                if !self.pending.flag.swap(false, Ordering::SeqCst) || !self.exe.trigger.holds() {
                    return None;
                }
                Some(Activation {
                    time: self.context.clock().now(kind),
                    missed_periods: 0,
                })
            }
        }
    }

    /// Runs the code; re-arms the entry if its trigger still holds afterwards (level trigger).
    pub(crate) fn run(&mut self, activation: &Activation) {
        (self.exe.run)(activation);
        if self.schedule.is_none() && self.exe.trigger.holds() {
            self.pending.on_sample();
        }
    }

    pub(crate) fn steady_deadline(&self) -> Option<Time> {
        self.schedule
            .as_ref()?
            .steady_deadline(self.context.clock())
    }
}

/// Takes `node` apart into entries and attaches its triggering subscriptions to `signal`.
///
/// `check` lets an executor refuse triggers its model lacks. Everything is checked before
/// anything is attached, so a refused node leaves no trace.
pub(crate) fn admit(
    node: Node,
    signal: &Arc<Signal>,
    existing: &[Entry],
    check: impl Fn(&Executable) -> Result<(), (&'static str, &'static str)>,
) -> Result<Vec<Entry>, AddError> {
    let name: Arc<str> = node.name().into();
    if existing.iter().any(|e| e.node == name) {
        return Err(AddError::DuplicateNode(name.to_string()));
    }
    let context = node.context().clone();
    let clock = context.clock();
    // A subscription named in two of the node's triggers would be attached once, then refused.
    let mut triggering: Vec<&Arc<dyn Input>> = Vec::new();
    for exe in &node.executables {
        check(exe).map_err(|(executor, reason)| AddError::UnsupportedTrigger {
            node: name.to_string(),
            executor,
            reason,
        })?;
        for input in &exe.trigger.inputs {
            if input.is_attached() || triggering.iter().any(|i| Arc::ptr_eq(i, input)) {
                return Err(AddError::InputAlreadyTriggering(name.to_string()));
            }
            triggering.push(input);
        }
    }
    let mut entries = Vec::with_capacity(node.executables.len());
    for exe in node.executables {
        let pending = Arc::new(Pending {
            flag: AtomicBool::new(false),
            signal: signal.clone(),
        });
        for input in &exe.trigger.inputs {
            if !input.attach(pending.clone()) {
                return Err(AddError::InputAlreadyTriggering(name.to_string()));
            }
        }
        // Samples may have arrived before the node was added.
        pending.on_sample();
        let schedule = exe.trigger.period.map(|period| {
            if exe.trigger.clock == ClockKind::Ros {
                clock.wake_on_sim_time(signal);
            }
            Schedule::new(period, exe.trigger.clock, clock.now(exe.trigger.clock))
        });
        entries.push(Entry {
            node: name.clone(),
            exe,
            schedule,
            pending,
            context: context.clone(),
        });
    }
    Ok(entries)
}

/// In which order one round runs ready entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// The order nodes and executables were added.
    Registration,
    /// Timers first, then subscriptions, as rclcpp's executors do.
    TimersFirst,
}

/// The spin loop: run a round of ready entries, then block until the next deadline or
/// notification.
pub(crate) fn spin(
    poller: &mut Poller,
    entries: &mut [Entry],
    stop: &StopHandle,
    stats: &mut ExecutorStats,
    order: Order,
    deadline: Option<Instant>,
) -> Result<SpinOutcome, SpinError> {
    let deadline = deadline.map(steady_time);
    loop {
        if stop.take_request() {
            return Ok(SpinOutcome::Stopped);
        }
        poller.signal().take_notified();
        match order {
            Order::Registration => run_round(entries, stats, |_| true),
            Order::TimersFirst => {
                run_round(entries, stats, Entry::is_periodic);
                run_round(entries, stats, |e| !e.is_periodic());
            }
        }
        stats.wakeups = poller.wakeups();
        if deadline.is_some_and(|d| os_now(ClockKind::Steady) >= d) {
            return Ok(SpinOutcome::Elapsed);
        }
        let next = entries
            .iter()
            .filter_map(Entry::steady_deadline)
            .chain(deadline)
            .min();
        if poller.wait(next)? == Woken::Shutdown {
            return Ok(SpinOutcome::Interrupted);
        }
    }
}

fn run_round(entries: &mut [Entry], stats: &mut ExecutorStats, select: impl Fn(&Entry) -> bool) {
    for entry in entries.iter_mut().filter(|e| select(e)) {
        if let Some(activation) = entry.poll() {
            entry.run(&activation);
            stats.executions += 1;
            stats.missed_periods += activation.missed_periods;
        }
    }
}

/// Converts an `Instant` to a time on the steady clock (both are `CLOCK_MONOTONIC`).
pub(crate) fn steady_time(instant: Instant) -> Time {
    let now = Instant::now();
    let steady = os_now(ClockKind::Steady);
    match instant.checked_duration_since(now) {
        Some(ahead) => steady + ahead,
        None => steady - now.duration_since(instant),
    }
}
