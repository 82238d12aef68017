//! Delivery figures the ros2-performance way: from the stamp and tracking number that every
//! message carries in its [`PerformanceHeader`], never from executor internals.
//!
//! Each subscription has a [`Tracker`]; the trackers of one topic add into one shared record,
//! so figures are per topic, over all its subscribers. For each sample taken:
//! - latency = the time it is taken (system clock) − its stamp;
//! - late if the latency exceeds min(20 % of the publisher's period, 5 ms), too late if it
//!   exceeds min(the period, 50 ms) (so too late is also late); the period comes from the
//!   header's frequency, as upstream's tracker does;
//! - lost: the gaps in each publisher's tracking numbers (a subscription that joins late does
//!   not count what came before its first sample).
//!
//! Memory is fixed: one [`Histogram`] per topic, one counter per publisher per subscription.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tacto::{PublisherId, Sample, Time};

use super::ros2_performance::messages::{Payload, PerformanceHeader, Stamped};
use crate::histogram::Histogram;
use crate::result::TopicResult;

const LATE_SHARE: u32 = 5;
const LATE_MAX: Duration = Duration::from_millis(5);
const TOO_LATE_MAX: Duration = Duration::from_millis(50);

/// The figures of every topic, in the order topics were first tracked.
#[derive(Debug, Default)]
pub(crate) struct Scoreboard {
    topics: Vec<(String, Arc<Mutex<TopicStats>>)>,
}

#[derive(Debug, Default)]
struct TopicStats {
    latency: Histogram,
    late: u64,
    too_late: u64,
    lost: u64,
}

/// Measures what one subscription takes.
#[derive(Debug)]
pub(crate) struct Tracker {
    stats: Arc<Mutex<TopicStats>>,
    /// Per publisher seen, the tracking number expected next.
    next: Vec<(PublisherId, u32)>,
}

fn lock(stats: &Mutex<TopicStats>) -> MutexGuard<'_, TopicStats> {
    // Recording never panics while holding the lock, so a poisoned one still holds valid counts.
    stats.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Scoreboard {
    /// A tracker for one more subscription of `topic`.
    pub(crate) fn tracker(&mut self, topic: &str) -> Tracker {
        let stats = match self.topics.iter().find(|(t, _)| t == topic) {
            Some((_, stats)) => stats.clone(),
            None => {
                let stats = Arc::default();
                self.topics.push((topic.to_owned(), Arc::clone(&stats)));
                stats
            }
        };
        Tracker {
            stats,
            next: Vec::new(),
        }
    }

    /// Forgets every figure (trackers keep the tracking numbers they expect).
    pub(crate) fn reset(&self) {
        for (_, stats) in &self.topics {
            *lock(stats) = TopicStats::default();
        }
    }

    /// The figures per topic.
    pub(crate) fn results(&self) -> Vec<TopicResult> {
        self.topics
            .iter()
            .map(|(topic, stats)| {
                let stats = lock(stats);
                TopicResult {
                    topic: topic.clone(),
                    latency_ms: stats.latency.distribution_ms(),
                    late: stats.late,
                    too_late: stats.too_late,
                    lost: stats.lost,
                }
            })
            .collect()
    }
}

impl Tracker {
    /// Records `samples`, taken at `now` (system clock).
    pub(crate) fn record<P: Payload>(
        &mut self,
        now: Time,
        samples: impl IntoIterator<Item = Sample<Stamped<P>>>,
    ) {
        let mut stats = lock(&self.stats);
        for sample in samples {
            let header = &sample.header;
            let lost = gap(
                &mut self.next,
                sample.info().publisher,
                header.tracking_number,
            );
            stats.add(now - stamp(header), header.period(), lost);
        }
    }
}

/// The tracking numbers skipped before `number` of `publisher`, given the numbers `expected`
/// next of each publisher seen so far.
fn gap(expected: &mut Vec<(PublisherId, u32)>, publisher: PublisherId, number: u32) -> u64 {
    let Some((_, next)) = expected.iter_mut().find(|(p, _)| *p == publisher) else {
        expected.push((publisher, number.wrapping_add(1)));
        return 0;
    };
    // A number below the one expected is a duplicate or out of order: nothing lost.
    let lost = number.saturating_sub(*next);
    *next = (*next).max(number.wrapping_add(1));
    u64::from(lost)
}

impl TopicStats {
    fn add(&mut self, latency: Duration, period: Option<Duration>, lost: u64) {
        let late = period.map_or(LATE_MAX, |p| (p / LATE_SHARE).min(LATE_MAX));
        let too_late = period.map_or(TOO_LATE_MAX, |p| p.min(TOO_LATE_MAX));
        self.latency
            .record(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
        self.late += u64::from(latency > late);
        self.too_late += u64::from(latency > too_late);
        self.lost += lost;
    }
}

fn stamp(header: &PerformanceHeader) -> Time {
    header.stamp.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_the_period_up_to_their_caps() {
        let mut stats = TopicStats::default();
        let period = Some(Duration::from_millis(10));
        stats.add(Duration::from_micros(1_900), period, 0); // under 2 ms
        stats.add(Duration::from_micros(2_100), period, 0); // late
        stats.add(Duration::from_micros(10_100), period, 0); // late and too late
        let slow = Some(Duration::from_secs(1));
        stats.add(Duration::from_millis(6), slow, 0); // late: capped at 5 ms
        stats.add(Duration::from_millis(51), slow, 0); // too late: capped at 50 ms
        assert_eq!((stats.late, stats.too_late, stats.latency.len()), (4, 2, 5));
    }

    #[test]
    fn gaps_count_per_publisher_from_its_first_sample() {
        let mut expected = Vec::new();
        let (a, b) = (PublisherId([1; 16]), PublisherId([2; 16]));
        assert_eq!(gap(&mut expected, a, 7), 0);
        assert_eq!(gap(&mut expected, b, 0), 0);
        assert_eq!(gap(&mut expected, a, 8), 0);
        assert_eq!(gap(&mut expected, a, 11), 2);
        assert_eq!(gap(&mut expected, b, 1), 0);
        assert_eq!(gap(&mut expected, a, 10), 0); // out of order
        assert_eq!(gap(&mut expected, a, 12), 0);
    }
}
