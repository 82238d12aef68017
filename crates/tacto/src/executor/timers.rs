//! The periodic entries of a one-thread executor (wait-set, callback, events): which one runs
//! next, and when to look at them again.
//!
//! A wake-up usually finds a few of an executor's timers due among many that are not (on
//! ros2-performance's `mont_blanc`, about seven of 23, with 35 subscriptions beside them). So
//! each timer's next deadline on the steady clock is kept beside its index, and a timer that
//! is not due costs one comparison, not the asking of its schedule; the entries that are not
//! timers are never looked at. The deadline is kept only where it is exact: a timer on the
//! steady clock, whose deadline changes only when it fires. One on the system or ROS clock
//! has a steady deadline only as an estimate (its clock can be set, or follow `/clock`), so
//! it is asked every time.

use super::dispatch::Entry;
use crate::clock::Time;
use crate::trigger::Activation;

/// The periodic entries of an executor, in registration order.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    /// Each timer's entry index, with its next deadline if it follows the steady clock.
    list: Vec<(usize, Option<Time>)>,
    /// The earliest steady deadline among them; `None`: none comes due on the steady clock.
    next: Option<Time>,
    /// Some timer follows simulated time, which has no steady deadline.
    sim: bool,
}

impl Timers {
    /// Adds the periodic ones of `entries[first..]`, then plans (see [`plan`](Self::plan)).
    pub(crate) fn add<L>(&mut self, entries: &[Entry<L>], first: usize) {
        for (index, entry) in entries.iter().enumerate().skip(first) {
            if entry.is_periodic() {
                self.list.push((index, entry.exact_steady_deadline()));
            }
        }
        self.plan(entries);
    }

    /// Notes when the timers must be looked at next: the earliest steady deadline, or at
    /// every turn while one follows simulated time.
    pub(crate) fn plan<L>(&mut self, entries: &[Entry<L>]) {
        self.next = None;
        self.sim = false;
        for &(index, exact) in &self.list {
            match exact.or_else(|| entries[index].steady_deadline()) {
                Some(deadline) => self.next = Some(self.next.map_or(deadline, |t| t.min(deadline))),
                None => self.sim = true,
            }
        }
    }

    /// True if some timer may be due at `now` (steady), by the last [`plan`](Self::plan).
    pub(crate) fn may_be_due(&self, now: Time) -> bool {
        self.sim || self.next.is_some_and(|t| t <= now)
    }

    /// The earliest steady deadline, by the last [`plan`](Self::plan).
    pub(crate) fn next(&self) -> Option<Time> {
        self.next
    }

    /// Fires the first timer, in registration order, that is due at `now` (steady) and that
    /// `skip` does not rule out: its entry index and activation, for the caller to run.
    pub(crate) fn fire_first<L>(
        &mut self,
        entries: &mut [Entry<L>],
        now: Time,
        skip: impl Fn(usize) -> bool,
    ) -> Option<(usize, Activation)> {
        for (index, exact) in &mut self.list {
            // Exact: a steady timer fires exactly when its deadline has passed.
            if exact.is_some_and(|deadline| deadline > now) || skip(*index) {
                continue;
            }
            let entry = &mut entries[*index];
            if let Some(activation) = entry.fire(now) {
                // Firing moved the deadline; running the code does not.
                *exact = entry.exact_steady_deadline();
                return Some((*index, activation));
            }
        }
        None
    }
}
