//! The approximate-epsilon-time policy: message_filters'
//! `sync_policies::ApproximateEpsilonTime`.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use super::output::{Output, Stats};
use super::set::{Set, Slot};
use super::{MAX_INPUTS, Policy, SyncError};
use crate::clock::{Time, duration_nanos};

/// Matches the oldest item of every input when all their stamps lie within `epsilon` of
/// the oldest one.
///
/// message_filters' `ApproximateEpsilonTime` policy (Jazzy), step for step. Once every
/// input has an item, the oldest items are looked at: if every one is at most `epsilon`
/// after the oldest of them, they are a set; otherwise each input's oldest item that is
/// within `epsilon` of the oldest one (that one included) is dropped, as it can no longer
/// be matched. Unlike [`ApproximateTime`](super::ApproximateTime), a set is output as soon
/// as it is found, without waiting for later items, and it need not be the closest one.
/// Each input keeps at most `queue_size` items while another input has none; one more drops
/// its oldest. Dropped items count in [`Stats::dropped`].
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::Time;
/// use tacto::sync::{ApproximateEpsilonTime, Policy};
///
/// let epsilon = Duration::from_millis(5);
/// let mut policy = ApproximateEpsilonTime::<(i64, i64)>::new(10, epsilon).unwrap();
/// let ms = |ms: i64| Time::from_nanos(ms * 1_000_000);
/// policy.add::<0>(ms(0), 0);
/// policy.add::<1>(ms(3), 3);
/// assert_eq!(policy.take(), Some((0, 3))); // within 5 ms: out at once
/// policy.add::<0>(ms(10), 10);
/// policy.add::<1>(ms(20), 20);
/// assert_eq!(policy.take(), None); // 10 ms apart: 10 is dropped
/// assert_eq!(policy.stats().dropped(), [1, 0]);
/// ```
pub struct ApproximateEpsilonTime<S: Set> {
    queue_size: usize,
    epsilon: i64,
    /// Per input, the stamps of its items in nanoseconds, oldest first.
    lanes: [VecDeque<i64>; MAX_INPUTS],
    /// Per input, its items, in step with `lanes`.
    items: S::Queues,
    output: Output<S>,
}

impl<S: Set> fmt::Debug for ApproximateEpsilonTime<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApproximateEpsilonTime")
            .field("queue_size", &self.queue_size)
            .field("epsilon", &self.epsilon)
            .field("lanes", &&self.lanes[..S::INPUTS])
            .field("ready", &self.output.ready())
            .finish_non_exhaustive()
    }
}

impl<S: Set> ApproximateEpsilonTime<S> {
    /// A policy matching items at most `epsilon` apart, keeping at most `queue_size` items
    /// per input and `queue_size` matched sets for [`take`](Policy::take). 0 is refused
    /// ([`SyncError::ZeroQueueSize`]).
    pub fn new(queue_size: usize, epsilon: Duration) -> Result<Self, SyncError> {
        if queue_size == 0 {
            return Err(SyncError::ZeroQueueSize);
        }
        Ok(ApproximateEpsilonTime {
            queue_size,
            epsilon: duration_nanos(epsilon),
            lanes: Default::default(),
            items: S::Queues::default(),
            output: Output::new(queue_size),
        })
    }

    fn all_non_empty(&self) -> bool {
        self.lanes[..S::INPUTS].iter().all(|lane| !lane.is_empty())
    }

    fn drop_front(&mut self, input: usize) {
        if self.lanes[input].pop_front().is_some() {
            S::pop_front(&mut self.items, input);
            self.output.dropped(input);
        }
    }

    /// message_filters' `process`.
    fn process(&mut self) {
        while self.all_non_empty() {
            // The oldest front, the first of equal ones; message_filters starts from the
            // largest time and no input.
            let mut older = (i64::MAX, None);
            for (input, lane) in self.lanes[..S::INPUTS].iter().enumerate() {
                match lane.front() {
                    Some(&stamp) if older.0 > stamp => older = (stamp, Some(input)),
                    _ => {}
                }
            }
            let within = older.0.saturating_add(self.epsilon);
            let all_within = self.lanes[..S::INPUTS]
                .iter()
                .enumerate()
                .all(|(input, lane)| {
                    Some(input) == older.1 || lane.front().is_some_and(|&s| within >= s)
                });
            if all_within {
                for lane in &mut self.lanes[..S::INPUTS] {
                    lane.pop_front();
                }
                if let Some(set) = S::pop_fronts(&mut self.items) {
                    self.output.emit(set);
                }
            } else {
                for input in 0..S::INPUTS {
                    if self.lanes[input].front().is_some_and(|&s| within >= s) {
                        self.drop_front(input);
                    }
                }
            }
        }
    }
}

impl<S: Set> Policy for ApproximateEpsilonTime<S> {
    type Set = S;

    fn add<const K: usize>(&mut self, stamp: Time, item: <S as Slot<K>>::Item)
    where
        S: Slot<K>,
    {
        self.lanes[K].push_back(stamp.as_nanos());
        <S as Slot<K>>::queue(&mut self.items).push_back(item);
        if self.all_non_empty() {
            self.process();
        } else if self.lanes[K].len() > self.queue_size {
            self.drop_front(K);
        }
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
