//! The exact-time policy: message_filters' `sync_policies::ExactTime`.

use std::collections::BTreeMap;
use std::fmt;

use super::output::{Output, Stats};
use super::set::{Set, Slot};
use super::{Policy, SyncError};
use crate::clock::Time;

/// Matches items whose stamps are equal: one set per stamp that every input has.
///
/// message_filters' `ExactTime` policy (Jazzy), step for step: each stamp seen opens a set
/// being filled; an item fills its input's place in the set of its stamp (replacing, and
/// counting as dropped, an item of the same input and stamp). When a set is full it is
/// matched, and every set being filled with a stamp up to its stamp is dropped: those can
/// no longer be completed in order. At most `queue_size` sets are being filled; beyond that
/// the one with the oldest stamp is dropped. A dropped set's items count in
/// [`Stats::dropped`].
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto::sync::{ExactTime, Policy};
///
/// let mut policy = ExactTime::<(&str, &str)>::new(10).unwrap();
/// let t = Time::from_nanos;
/// policy.add::<0>(t(100), "lidar 100");
/// policy.add::<1>(t(90), "camera 90");
/// assert_eq!(policy.take(), None); // no stamp on both inputs yet
/// policy.add::<1>(t(100), "camera 100");
/// assert_eq!(policy.take(), Some(("lidar 100", "camera 100")));
/// assert_eq!(policy.stats().dropped(), [0, 1]); // 90 can no longer be matched
/// ```
pub struct ExactTime<S: Set> {
    queue_size: usize,
    /// The sets being filled, by stamp.
    partial: BTreeMap<Time, S::Partial>,
    output: Output<S>,
}

impl<S: Set> fmt::Debug for ExactTime<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExactTime")
            .field("queue_size", &self.queue_size)
            .field("filling", &self.partial.len())
            .field("ready", &self.output.ready())
            .finish()
    }
}

impl<S: Set> ExactTime<S> {
    /// A policy that fills at most `queue_size` sets at once (sets of different stamps),
    /// and keeps at most `queue_size` matched sets for [`take`](Policy::take).
    ///
    /// message_filters takes 0 for "unbounded"; here every queue is bounded, so 0 is refused
    /// ([`SyncError::ZeroQueueSize`]).
    pub fn new(queue_size: usize) -> Result<Self, SyncError> {
        if queue_size == 0 {
            return Err(SyncError::ZeroQueueSize);
        }
        Ok(ExactTime {
            queue_size,
            partial: BTreeMap::new(),
            output: Output::new(queue_size),
        })
    }

    /// After an item of stamp `stamp` was added (message_filters' `checkTuple`).
    fn check(&mut self, stamp: Time) {
        if let Some(set) = self.partial.get_mut(&stamp).and_then(S::complete) {
            self.output.emit(set);
            // The set's stamp is the last signal time (message_filters takes input 0's,
            // the same stamp): every set up to it is dropped, the matched one is gone.
            self.partial.remove(&stamp);
            while let Some(entry) = self.partial.first_entry() {
                if *entry.key() > stamp {
                    break;
                }
                S::count_present(&entry.remove(), self.output.dropped_counts());
            }
        }
        while self.partial.len() > self.queue_size {
            if let Some((_, oldest)) = self.partial.pop_first() {
                S::count_present(&oldest, self.output.dropped_counts());
            }
        }
    }
}

impl<S: Set> Policy for ExactTime<S> {
    type Set = S;

    fn add<const K: usize>(&mut self, stamp: Time, item: <S as Slot<K>>::Item)
    where
        S: Slot<K>,
    {
        let partial = self.partial.entry(stamp).or_default();
        if <S as Slot<K>>::slot(partial).replace(item).is_some() {
            self.output.dropped(K);
        }
        self.check(stamp);
    }

    fn take(&mut self) -> Option<S> {
        self.output.take()
    }

    fn ready(&self) -> usize {
        self.output.ready()
    }

    fn stats(&self) -> Stats {
        self.output.stats()
    }
}
