//! What every executor owns: its OS resources, its stop handle, its counters, and the names of
//! the nodes it runs.

use std::io;
use std::sync::Arc;

use super::poller::Poller;
use super::{ExecutorStats, StopHandle};
use crate::clock::{ClockKind, Time};

#[derive(Debug)]
pub(crate) struct Base {
    pub(crate) poller: Poller,
    pub(crate) stop: StopHandle,
    /// Counters; `wakeups` holds only wake-ups the poller does not count (thread-pool
    /// followers), see [`stats`](Self::stats).
    pub(crate) stats: ExecutorStats,
    /// The names of every node added, those without executables included: each keeps its
    /// name taken in its context while the executor lives.
    pub(crate) nodes: Vec<Arc<str>>,
    /// Per clock, the instant all periods of this executor count from (see `timer.rs`, "One
    /// grid per executor"); set by the first periodic trigger admitted on that clock.
    pub(crate) epochs: Vec<(ClockKind, Time)>,
}

impl Base {
    /// Creates the OS resources: an epoll set, an eventfd and a timerfd.
    pub(crate) fn new() -> io::Result<Self> {
        let poller = Poller::new()?;
        let stop = StopHandle::new(poller.signal().clone());
        Ok(Base {
            poller,
            stop,
            stats: ExecutorStats::default(),
            nodes: Vec::new(),
            epochs: Vec::new(),
        })
    }

    /// The grid's epoch for `clock`: the first `now` asked for, the same ever after.
    pub(crate) fn epoch(&mut self, clock: ClockKind, now: Time) -> Time {
        match self.epochs.iter().find(|(kind, _)| *kind == clock) {
            Some(&(_, epoch)) => epoch,
            None => {
                self.epochs.push((clock, now));
                now
            }
        }
    }

    pub(crate) fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    pub(crate) fn stats(&self) -> ExecutorStats {
        ExecutorStats {
            wakeups: self.poller.wakeups() + self.stats.wakeups,
            ..self.stats
        }
    }
}
