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
//! A publisher made known to the scoreboard ([`Scoreboard::publisher`]) also has the samples
//! of the measured window accounted for exactly: the window starts at the tracking number that
//! publisher was at when the figures were reset, samples numbered before it count nowhere, and
//! each sample of the window is, for each subscription, taken, lost, or still unread when the
//! figures are read. So per topic, taken + lost + unread = published × subscriptions, however
//! late the executors ran; a sample taken twice breaks it.
//!
//! Memory is fixed: one [`Histogram`] per topic, one counter per publisher per subscription.

use std::sync::atomic::{AtomicU32, Ordering};
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
    topics: Vec<Topic>,
}

#[derive(Debug)]
struct Topic {
    name: String,
    stats: Arc<Mutex<TopicStats>>,
    /// The publishers made known, each with the tracking number it gives next.
    publishers: Vec<(PublisherId, Arc<AtomicU32>)>,
}

#[derive(Debug, Default)]
struct TopicStats {
    latency: Histogram,
    late: u64,
    too_late: u64,
    lost: u64,
    /// The smallest and largest payload taken, bytes.
    payload: Option<(u64, u64)>,
    /// Per publisher made known, the first tracking number of the measured window: set when
    /// the figures are reset, empty before.
    window: Vec<(PublisherId, u32)>,
    /// Per subscription, per publisher seen, the tracking number expected next. Kept across
    /// resets: a gap is a gap whenever the figures were reset.
    expected: Vec<Vec<(PublisherId, u32)>>,
}

/// Measures what one subscription takes.
#[derive(Debug)]
pub(crate) struct Tracker {
    stats: Arc<Mutex<TopicStats>>,
    /// This subscription's entry in the topic's `expected`.
    index: usize,
}

/// The tracking numbers of one publisher: [`PublishCount::next`] gives each message its own.
#[derive(Debug, Clone, Default)]
pub(crate) struct PublishCount(Arc<AtomicU32>);

impl PublishCount {
    /// The number of the message being published; numbers start at 0.
    pub(crate) fn next(&self) -> u32 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

fn lock(stats: &Mutex<TopicStats>) -> MutexGuard<'_, TopicStats> {
    // Recording never panics while holding the lock, so a poisoned one still holds valid counts.
    stats.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Scoreboard {
    fn topic(&mut self, topic: &str) -> &mut Topic {
        let at = match self.topics.iter().position(|t| t.name == topic) {
            Some(at) => at,
            None => {
                self.topics.push(Topic {
                    name: topic.to_owned(),
                    stats: Arc::default(),
                    publishers: Vec::new(),
                });
                self.topics.len() - 1
            }
        };
        &mut self.topics[at]
    }

    /// A tracker for one more subscription of `topic`.
    pub(crate) fn tracker(&mut self, topic: &str) -> Tracker {
        let stats = Arc::clone(&self.topic(topic).stats);
        let index = {
            let mut stats = lock(&stats);
            stats.expected.push(Vec::new());
            stats.expected.len() - 1
        };
        Tracker { stats, index }
    }

    /// The tracking numbers of `publisher`, a publisher of `topic`: what it publishes in the
    /// measured window is accounted for (see the module's docs).
    pub(crate) fn publisher(&mut self, topic: &str, publisher: PublisherId) -> PublishCount {
        let count = PublishCount::default();
        let topic = self.topic(topic);
        topic.publishers.push((publisher, Arc::clone(&count.0)));
        count
    }

    /// Forgets every figure (trackers keep the tracking numbers they expect): the measured
    /// window starts now.
    pub(crate) fn reset(&self) {
        for topic in &self.topics {
            let mut stats = lock(&topic.stats);
            // Read under the lock: a sample recorded before it was numbered before the window,
            // one recorded after it finds the window set.
            let window = (topic.publishers.iter())
                .map(|(id, next)| (*id, next.load(Ordering::Relaxed)))
                .collect();
            let expected = std::mem::take(&mut stats.expected);
            *stats = TopicStats {
                window,
                expected,
                ..TopicStats::default()
            };
        }
    }

    /// The figures per topic.
    pub(crate) fn results(&self) -> Vec<TopicResult> {
        self.topics
            .iter()
            .map(|topic| {
                let stats = lock(&topic.stats);
                // Read under the lock, so every sample recorded was numbered before this.
                let ends: Vec<(PublisherId, u32)> = (topic.publishers.iter())
                    .map(|(id, next)| (*id, next.load(Ordering::Relaxed)))
                    .collect();
                let accounted = !stats.window.is_empty();
                TopicResult {
                    topic: topic.name.clone(),
                    latency_ms: stats.latency.distribution_ms(),
                    late: stats.late,
                    too_late: stats.too_late,
                    lost: stats.lost,
                    published: accounted.then(|| stats.published(&ends)),
                    unread: accounted.then(|| stats.unread(&ends)),
                    payload_bytes: stats.payload,
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
            stats.take(
                self.index,
                sample.info().publisher,
                header.tracking_number,
                now - stamp(header),
                header.period(),
                sample.data.size() as u64,
            );
        }
    }
}

/// The tracking numbers skipped before `number` of `publisher`, given the numbers `expected`
/// next of each publisher seen so far, counting from `start` of the measured window if the
/// publisher is known (its samples before `start` are no loss of the window).
fn gap(
    expected: &mut Vec<(PublisherId, u32)>,
    publisher: PublisherId,
    number: u32,
    start: Option<u32>,
) -> u64 {
    let Some((_, next)) = expected.iter_mut().find(|(p, _)| *p == publisher) else {
        expected.push((publisher, number.wrapping_add(1)));
        // An unknown publisher may have published before the subscription existed; a known
        // one was there before every subscription, so all it numbered is owed.
        return start.map_or(0, |start| u64::from(number.saturating_sub(start)));
    };
    // A number below the one expected is a duplicate or out of order: nothing lost.
    let lost = number.saturating_sub((*next).max(start.unwrap_or(0)));
    *next = (*next).max(number.wrapping_add(1));
    u64::from(lost)
}

impl TopicStats {
    /// Records what subscription `index` took: sample `number` of `publisher`, `latency`
    /// after its stamp, from a publisher of `period`, with `size` payload bytes.
    fn take(
        &mut self,
        index: usize,
        publisher: PublisherId,
        number: u32,
        latency: Duration,
        period: Option<Duration>,
        size: u64,
    ) {
        let start = self.start(publisher);
        let expected = &mut self.expected[index];
        if start.is_some_and(|start| number < start) {
            // Published before the window: counts nowhere, but is no gap either.
            gap(expected, publisher, number, None);
            return;
        }
        let lost = gap(expected, publisher, number, start);
        self.payload = Some(match self.payload {
            Some((min, max)) => (min.min(size), max.max(size)),
            None => (size, size),
        });
        self.add(latency, period, lost);
    }

    /// The first tracking number of `publisher` in the measured window, if it is known.
    fn start(&self, publisher: PublisherId) -> Option<u32> {
        (self.window.iter())
            .find(|(p, _)| *p == publisher)
            .map(|(_, start)| *start)
    }

    /// What the known publishers numbered from the window's start to `ends`.
    fn published(&self, ends: &[(PublisherId, u32)]) -> u64 {
        (ends.iter())
            .map(|(p, end)| u64::from(end.saturating_sub(self.start(*p).unwrap_or(*end))))
            .sum()
    }

    /// Of what the known publishers numbered in the window up to `ends`, what each
    /// subscription had neither taken nor counted lost.
    fn unread(&self, ends: &[(PublisherId, u32)]) -> u64 {
        let mut unread = 0;
        for expected in &self.expected {
            for (p, end) in ends {
                let Some(start) = self.start(*p) else {
                    continue;
                };
                let next = (expected.iter().find(|(q, _)| q == p)).map_or(start, |(_, n)| *n);
                unread += u64::from(end.saturating_sub(next.max(start)));
            }
        }
        unread
    }

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
        assert_eq!(gap(&mut expected, a, 7, None), 0);
        assert_eq!(gap(&mut expected, b, 0, None), 0);
        assert_eq!(gap(&mut expected, a, 8, None), 0);
        assert_eq!(gap(&mut expected, a, 11, None), 2);
        assert_eq!(gap(&mut expected, b, 1, None), 0);
        assert_eq!(gap(&mut expected, a, 10, None), 0); // out of order
        assert_eq!(gap(&mut expected, a, 12, None), 0);
    }

    #[test]
    fn every_sample_of_the_window_is_taken_lost_or_unread_by_each_subscription() {
        let (a, b) = (PublisherId([1; 16]), PublisherId([2; 16]));
        let mut board = Scoreboard::default();
        let counts = [board.publisher("t", a), board.publisher("t", b)];
        let (first, second) = (board.tracker("t"), board.tracker("t"));
        // Before the window: a numbers 0..=4, b 0..=1; the first subscription sees a's 3.
        (0..5).for_each(|_| _ = counts[0].next());
        (0..2).for_each(|_| _ = counts[1].next());
        let ms = Duration::from_millis(1);
        let take = |tracker: &Tracker, publisher, number| {
            lock(&tracker.stats).take(tracker.index, publisher, number, ms, None, 16);
        };
        take(&first, a, 3);
        board.reset();
        // In the window: a numbers 5..=9, b 2..=4.
        (0..5).for_each(|_| _ = counts[0].next());
        (0..3).for_each(|_| _ = counts[1].next());
        take(&first, a, 4); // before the window: nowhere
        take(&first, a, 6); // 5 lost
        take(&first, a, 6); // taken twice
        take(&first, b, 3); // 2 lost; 4 unread, and a's 7..=9
        take(&second, b, 2); // a's 5..=9 and b's 3, 4 unread
        let [result] = &board.results()[..] else {
            panic!("one topic");
        };
        assert_eq!(result.published, Some(8));
        assert_eq!(
            (result.latency_ms.n, result.lost, result.unread),
            (4, 2, Some(4 + 7))
        );
        // The sample taken twice is the one too many.
        let accounted = result.latency_ms.n + result.lost + result.unread.unwrap();
        assert_eq!(accounted, 2 * 8 + 1);
        assert_eq!(result.payload_bytes, Some((16, 16)));
    }
}
