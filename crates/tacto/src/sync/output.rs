//! What a policy hands out and what it counts: its matched sets, waiting to be taken, and
//! its statistics.

use std::collections::VecDeque;

use super::MAX_INPUTS;
use super::set::Set;

/// A policy's counts since it was made: the sets it matched, and per input the items that
/// left it without being part of one.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto::sync::{ExactTime, Policy};
///
/// let mut policy = ExactTime::<(u32, u32)>::new(1).unwrap();
/// policy.add::<0>(Time::from_nanos(1), 10);
/// policy.add::<0>(Time::from_nanos(2), 20); // a second stamp: the queue holds one
/// policy.add::<1>(Time::from_nanos(2), 21);
/// assert_eq!(policy.take(), Some((20, 21)));
/// let stats = policy.stats();
/// assert_eq!(stats.matched(), 1);
/// assert_eq!(stats.dropped(), [1, 0]); // the item stamped 1 aged out
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    matched: u64,
    dropped: [u64; MAX_INPUTS],
    inputs: usize,
}

impl Stats {
    /// Counts of a policy of one's own (see [`Policy`](super::Policy)): `matched` sets, and
    /// `dropped[i]` items of input `i` dropped unmatched, for the first
    /// [`MAX_INPUTS`](super::MAX_INPUTS) inputs (a set has no more).
    pub fn new(matched: u64, dropped: &[u64]) -> Self {
        let inputs = dropped.len().min(MAX_INPUTS);
        let mut counts = [0; MAX_INPUTS];
        counts[..inputs].copy_from_slice(&dropped[..inputs]);
        Stats {
            matched,
            dropped: counts,
            inputs,
        }
    }

    /// The matched sets the policy made, taken or not.
    pub fn matched(&self) -> u64 {
        self.matched
    }

    /// Per input, in the order of the set, the items dropped unmatched: aged out of a full
    /// queue, passed over by a better match, replaced by an item of the same stamp
    /// ([`ExactTime`](super::ExactTime)), or part of a matched set dropped because
    /// [`take`](super::Policy::take) did not keep up (see [`Policy`](super::Policy)).
    pub fn dropped(&self) -> &[u64] {
        &self.dropped[..self.inputs]
    }
}

/// The matched sets waiting to be taken, at most `capacity`, and the counts.
#[derive(Debug)]
pub(crate) struct Output<S> {
    sets: VecDeque<S>,
    capacity: usize,
    stats: Stats,
}

impl<S: Set> Output<S> {
    pub(crate) fn new(capacity: usize) -> Self {
        Output {
            sets: VecDeque::new(),
            capacity,
            stats: Stats {
                matched: 0,
                dropped: [0; MAX_INPUTS],
                inputs: S::INPUTS,
            },
        }
    }

    /// Queues a matched set; when `capacity` sets wait already, the oldest is dropped (and
    /// its items counted), as a history drops its oldest sample.
    pub(crate) fn emit(&mut self, set: S) {
        self.stats.matched += 1;
        if self.sets.len() >= self.capacity && self.sets.pop_front().is_some() {
            for dropped in &mut self.stats.dropped[..S::INPUTS] {
                *dropped += 1;
            }
        }
        self.sets.push_back(set);
    }

    /// Counts an item of `input` dropped unmatched.
    pub(crate) fn dropped(&mut self, input: usize) {
        if let Some(count) = self.stats.dropped.get_mut(input) {
            *count += 1;
        }
    }

    /// The counts, for [`Set::count_present`].
    pub(crate) fn dropped_counts(&mut self) -> &mut [u64; MAX_INPUTS] {
        &mut self.stats.dropped
    }

    pub(crate) fn take(&mut self) -> Option<S> {
        self.sets.pop_front()
    }

    pub(crate) fn ready(&self) -> usize {
        self.sets.len()
    }

    pub(crate) fn stats(&self) -> Stats {
        self.stats
    }
}
