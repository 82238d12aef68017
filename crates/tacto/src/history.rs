//! The bounded sample cache behind every subscription, and its QoS policy.

use std::collections::VecDeque;

use crate::sample::Sample;

/// How many samples a subscription keeps, and what happens when it is full.
///
/// | policy | capacity | when full |
/// |---|---|---|
/// | `KeepLast(n)` | `n` | the oldest sample is overwritten; if it was unread, it counts as dropped |
/// | `KeepAll { max }` | `max` | the arriving sample is refused and counts as dropped; nothing kept is ever lost |
///
/// Both are hard bounds: a subscription's memory never grows past its capacity, however slow
/// its reader. Capacity 0 is refused when the subscription is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Keep the newest `n` samples (ROS 2's default QoS keeps the last 10).
    KeepLast(usize),
    /// Keep every sample up to `max`, then refuse new ones until some are taken.
    KeepAll {
        /// The hard bound.
        max: usize,
    },
}

impl Default for History {
    fn default() -> Self {
        History::KeepLast(10)
    }
}

impl History {
    /// The number of samples the cache holds at most.
    pub fn capacity(self) -> usize {
        match self {
            History::KeepLast(n) | History::KeepAll { max: n } => n,
        }
    }
}

/// The samples of one subscription, oldest first.
///
/// Read samples always precede unread ones: `read` marks the oldest unread sample, `take`
/// removes it, so "read" is a prefix of the queue and one index describes the state.
///
/// A LET executor freezes the cache at each period start: samples that arrive afterwards stay
/// invisible to the reader until the next freeze, so a node sees the inputs of its period's
/// start, whatever arrives while it runs.
#[derive(Debug)]
pub(crate) struct HistoryCache<T> {
    policy: History,
    samples: VecDeque<Sample<T>>,
    /// How many of the oldest samples have been read.
    read: usize,
    /// How many samples were ever stored; the newest stored one is number `arrived`.
    arrived: u64,
    /// While frozen, only samples among the first `horizon` arrivals are visible.
    horizon: Option<u64>,
    dropped: u64,
}

/// What happened to a sample offered to the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    Stored,
    /// Stored, and an unread sample was overwritten to make room.
    StoredOverwriting,
    /// Refused because a `KeepAll` cache was full.
    Refused,
}

impl<T> HistoryCache<T> {
    pub(crate) fn new(policy: History) -> Self {
        HistoryCache {
            policy,
            samples: VecDeque::with_capacity(policy.capacity()),
            read: 0,
            arrived: 0,
            horizon: None,
            dropped: 0,
        }
    }

    pub(crate) fn offer(&mut self, sample: Sample<T>) -> Offer {
        let mut outcome = Offer::Stored;
        if self.samples.len() >= self.policy.capacity() {
            match self.policy {
                History::KeepAll { .. } => {
                    self.dropped += 1;
                    return Offer::Refused;
                }
                History::KeepLast(_) => {
                    self.samples.pop_front();
                    if self.read > 0 {
                        self.read -= 1;
                    } else {
                        self.dropped += 1;
                        outcome = Offer::StoredOverwriting;
                    }
                }
            }
        }
        self.arrived += 1;
        self.samples.push_back(sample);
        outcome
    }

    pub(crate) fn take(&mut self) -> Option<Sample<T>> {
        if self.unread() == 0 {
            return None;
        }
        self.samples.remove(self.read)
    }

    pub(crate) fn read(&mut self) -> Option<Sample<T>> {
        if self.unread() == 0 {
            return None;
        }
        let sample = self.samples.get(self.read)?.clone();
        self.read += 1;
        Some(sample)
    }

    /// The newest visible sample; every visible sample counts as read afterwards.
    pub(crate) fn latest(&mut self) -> Option<Sample<T>> {
        let visible = self.len();
        let sample = self.samples.get(visible.checked_sub(1)?)?.clone();
        self.read = visible;
        Some(sample)
    }

    /// The newest visible sample, leaving the read state alone.
    pub(crate) fn peek_latest(&self) -> Option<Sample<T>> {
        self.samples.get(self.len().checked_sub(1)?).cloned()
    }

    /// Visible samples not read yet.
    pub(crate) fn unread(&self) -> usize {
        self.len() - self.read
    }

    /// Visible samples, read or not.
    pub(crate) fn len(&self) -> usize {
        match self.horizon {
            None => self.samples.len(),
            Some(h) => {
                let hidden = usize::try_from(self.arrived - h).unwrap_or(usize::MAX);
                self.samples.len().saturating_sub(hidden)
            }
        }
    }

    /// Hides every later arrival until the next `freeze` (LET period start).
    pub(crate) fn freeze(&mut self) {
        self.horizon = Some(self.arrived);
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }
}
