//! The bounded sample cache behind every subscription, its QoS policy, and DDS sample states.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::sample::SampleInfo;
use crate::transport::RemoteBytes;

/// How many samples a subscription keeps, and what happens when it is full.
///
/// | policy | capacity | when full |
/// |---|---|---|
/// | `KeepLast(n)` | `n` | the oldest sample is overwritten; if it was unread, it counts as dropped |
/// | `KeepAll { max }` | `max` | the arriving sample is refused and counts as dropped; nothing kept is ever lost |
///
/// Both are hard bounds: a subscription's memory never grows past its capacity, however slow
/// its reader (under a [LET executor](crate::LetExecutor), a `KeepLast(n)` subscription holds
/// up to `n` frozen samples plus `n` arrivals of the running period). Memory is taken as
/// samples arrive, never reserved up front, so a large bound costs nothing until it is used.
/// Capacity 0 is refused when the subscription is created.
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

/// A message as a history holds it.
#[derive(Debug)]
pub(crate) enum Payload<T> {
    /// Shared with the publisher and the other subscriptions of this process.
    Value(Arc<T>),
    /// CDR as it came from another type or transport, decoded only when a reader asks for it:
    /// a node that only ever looks at the latest sample decodes one sample per look, not one
    /// per arrival.
    Serialized(RemoteBytes),
}

impl<T> Clone for Payload<T> {
    fn clone(&self) -> Self {
        match self {
            Payload::Value(value) => Payload::Value(value.clone()),
            Payload::Serialized(bytes) => Payload::Serialized(bytes.clone()),
        }
    }
}

/// A sample handed out by the cache: its payload, its facts, and its ordinal, which names it
/// for [`HistoryCache::memo`] and [`HistoryCache::discard`] after the lock was released.
#[derive(Debug)]
pub(crate) struct Stored<T> {
    pub(crate) payload: Payload<T>,
    pub(crate) info: SampleInfo,
    pub(crate) ordinal: u64,
}

/// One stored sample and its DDS sample state: 64 bytes, one cache line.
#[derive(Debug)]
struct Slot<T> {
    payload: Payload<T>,
    info: SampleInfo,
    /// Its number among the samples that became visible, from 1 (0 while hidden), and in the
    /// top bit DDS's READ sample state.
    state: u64,
}

const READ: u64 = 1 << 63;

/// The samples of one subscription, oldest first, each READ or NOT_READ as in DDS.
///
/// A LET executor freezes the cache at each period start: samples that arrive afterwards stay
/// invisible to the reader until the next freeze, so a node sees the inputs of its period's
/// start, whatever arrives while it runs. Arrivals never evict a visible sample while frozen:
/// they replace each other (`KeepLast`) until the next freeze makes them visible.
#[derive(Debug)]
pub(crate) struct HistoryCache<T> {
    policy: History,
    /// Visible samples first, then (only while frozen) hidden arrivals.
    slots: VecDeque<Slot<T>>,
    /// How many of the first slots the reader sees.
    visible: usize,
    /// Visible samples not read yet.
    unread: usize,
    /// Samples that became visible since creation; a reader's "new arrivals" mark.
    arrivals: u64,
    frozen: bool,
    dropped: u64,
    /// Serialized samples that failed to decode, discarded.
    malformed: u64,
}

/// What happened to a sample offered to the cache.
#[derive(Debug)]
pub(crate) enum Offer<T> {
    Stored,
    /// Stored, and this sample was evicted to make room: the caller drops it outside the lock,
    /// as freeing a large message must not delay other threads waiting for the lock.
    StoredEvicting(Payload<T>),
    /// Refused because a `KeepAll` cache was full.
    Refused,
}

impl<T> HistoryCache<T> {
    pub(crate) fn new(policy: History) -> Self {
        HistoryCache {
            policy,
            slots: VecDeque::new(),
            visible: 0,
            unread: 0,
            arrivals: 0,
            frozen: false,
            dropped: 0,
            malformed: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn offer(&mut self, payload: Payload<T>, info: SampleInfo) -> Offer<T> {
        let capacity = self.policy.capacity();
        let mut evicted = None;
        match self.policy {
            History::KeepAll { .. } if self.slots.len() >= capacity => {
                self.dropped += 1;
                return Offer::Refused;
            }
            History::KeepAll { .. } => {}
            History::KeepLast(_) if self.frozen => {
                if self.slots.len() - self.visible >= capacity {
                    // The oldest hidden arrival was never visible, hence never read.
                    evicted = self.slots.remove(self.visible);
                    self.dropped += 1;
                }
            }
            History::KeepLast(_) if self.slots.len() >= capacity => {
                evicted = self.pop_front();
                self.visible -= 1;
                self.count_dropped_if_unread(&evicted);
            }
            History::KeepLast(_) => {}
        }
        let ordinal = match self.frozen {
            // Numbered when a freeze shows it.
            true => 0,
            false => {
                self.arrivals += 1;
                self.unread += 1;
                self.visible += 1;
                self.arrivals
            }
        };
        self.slots.push_back(Slot {
            payload,
            info,
            state: ordinal,
        });
        match evicted {
            Some(slot) => Offer::StoredEvicting(slot.payload),
            None => Offer::Stored,
        }
    }

    /// Counts an evicted sample as dropped if nobody read it.
    fn count_dropped_if_unread(&mut self, evicted: &Option<Slot<T>>) {
        if evicted.as_ref().is_some_and(|s| !s.is_read()) {
            self.dropped += 1;
        }
    }

    /// Removes the oldest slot, keeping the unread count; the caller fixes `visible`.
    fn pop_front(&mut self) -> Option<Slot<T>> {
        let slot = self.slots.pop_front()?;
        if !slot.is_read() {
            self.unread -= 1;
        }
        Some(slot)
    }

    /// Makes every stored sample visible.
    fn show_all(&mut self) {
        for slot in self.slots.range_mut(self.visible..) {
            self.arrivals += 1;
            slot.state = self.arrivals;
            self.unread += 1;
        }
        self.visible = self.slots.len();
    }

    /// The oldest visible sample NOT_READ.
    fn first_unread(&self) -> Option<usize> {
        if self.unread == 0 {
            return None;
        }
        self.slots
            .iter()
            .take(self.visible)
            .position(|s| !s.is_read())
    }

    /// Removes and returns the oldest visible sample, whatever its state.
    pub(crate) fn take(&mut self) -> Option<Stored<T>> {
        if self.visible == 0 {
            return None;
        }
        self.visible -= 1;
        self.pop_front().map(Slot::into_stored)
    }

    /// Removes and returns the oldest visible sample NOT_READ.
    pub(crate) fn take_new(&mut self) -> Option<Stored<T>> {
        let index = self.first_unread()?;
        self.visible -= 1;
        self.unread -= 1;
        self.slots.remove(index).map(Slot::into_stored)
    }

    /// Returns the oldest visible sample NOT_READ, and marks it READ.
    pub(crate) fn read_new(&mut self) -> Option<Stored<T>> {
        let index = self.first_unread()?;
        let slot = &mut self.slots[index];
        slot.state |= READ;
        self.unread -= 1;
        Some(slot.stored())
    }

    /// The newest visible sample; every visible sample is READ afterwards (older ones are
    /// superseded by it).
    pub(crate) fn latest(&mut self) -> Option<Stored<T>> {
        let newest = self.visible.checked_sub(1)?;
        if self.unread > 0 {
            self.slots
                .iter_mut()
                .take(self.visible)
                .for_each(|s| s.state |= READ);
            self.unread = 0;
        }
        Some(self.slots[newest].stored())
    }

    /// The newest visible sample, leaving the states alone.
    pub(crate) fn peek_latest(&self) -> Option<Stored<T>> {
        let newest = self.visible.checked_sub(1)?;
        Some(self.slots[newest].stored())
    }

    /// Marks the newest `n` visible samples READ and returns the ordinals of the oldest and
    /// the newest of them, for [`next_in`](Self::next_in).
    pub(crate) fn read_window(&mut self, n: usize) -> Option<(u64, u64)> {
        let n = n.min(self.visible);
        let window = self.slots.range_mut(self.visible - n..self.visible);
        let mut bounds = None;
        for slot in window {
            if !slot.is_read() {
                slot.state |= READ;
                self.unread -= 1;
            }
            let (first, _) = bounds.unwrap_or((slot.ordinal(), 0));
            bounds = Some((first, slot.ordinal()));
        }
        bounds
    }

    /// The oldest visible sample whose ordinal is in `from..=to`: samples taken or evicted
    /// since the window was read are skipped.
    pub(crate) fn next_in(&self, from: u64, to: u64) -> Option<Stored<T>> {
        let index = self.position(|ordinal| ordinal >= from)?;
        let slot = &self.slots[index];
        (slot.ordinal() <= to).then(|| slot.stored())
    }

    /// Replaces a serialized sample, if still there, by its decoded value, so that it is
    /// decoded once however often it is read.
    pub(crate) fn memo(&mut self, ordinal: u64, value: Arc<T>) {
        if let Some(index) = self.position(|o| o == ordinal) {
            self.slots[index].payload = Payload::Value(value);
        }
    }

    /// Counts a serialized sample that failed to decode, and removes it if still there.
    pub(crate) fn discard(&mut self, ordinal: u64) -> Option<Payload<T>> {
        self.malformed += 1;
        let index = self.position(|o| o == ordinal)?;
        self.visible -= 1;
        let slot = self.slots.remove(index)?;
        if !slot.is_read() {
            self.unread -= 1;
        }
        Some(slot.payload)
    }

    /// The index of the first visible slot whose ordinal satisfies `test`.
    fn position(&self, test: impl Fn(u64) -> bool) -> Option<usize> {
        self.slots
            .range(..self.visible)
            .position(|s| test(s.ordinal()))
    }

    /// Visible samples NOT_READ.
    pub(crate) fn unread(&self) -> usize {
        self.unread
    }

    /// Removes and returns the oldest visible sample with the number of visible samples left
    /// after it: one lock for the first step of a [`take_all`](crate::Subscription::take_all).
    pub(crate) fn take_counting(&mut self) -> (Option<Stored<T>>, usize) {
        let taken = self.take();
        (taken, self.visible)
    }

    /// Visible samples, read or not.
    pub(crate) fn len(&self) -> usize {
        self.visible
    }

    /// Samples that became visible since creation.
    pub(crate) fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Makes everything that arrived visible, then hides every later arrival until the next
    /// `freeze` (LET period start). A `KeepLast(n)` cache may hold more than `n` samples
    /// afterwards: [`evict_excess`](Self::evict_excess) drops them.
    pub(crate) fn freeze(&mut self) {
        self.frozen = true;
        self.show_all();
    }

    /// Removes the oldest sample if a `KeepLast` cache holds more than its capacity (after a
    /// freeze), counting it as dropped if unread; one at a time, so that the caller frees each
    /// outside the lock.
    pub(crate) fn evict_excess(&mut self) -> Option<Payload<T>> {
        let History::KeepLast(n) = self.policy else {
            return None;
        };
        if self.visible <= n {
            return None;
        }
        let slot = self.pop_front();
        self.visible -= 1;
        self.count_dropped_if_unread(&slot);
        slot.map(|s| s.payload)
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// True once a LET executor froze the cache.
    pub(crate) fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// The facts of the oldest visible sample (of the oldest NOT_READ one if `new_only`), to
    /// order this cache's samples against a transport's.
    pub(crate) fn oldest_info(&self, new_only: bool) -> Option<SampleInfo> {
        let index = match new_only {
            true => self.first_unread()?,
            false => (self.visible > 0).then_some(0)?,
        };
        Some(self.slots[index].info)
    }

    /// Counts a sample from elsewhere (a transport's cache) that failed to decode.
    pub(crate) fn count_malformed(&mut self) {
        self.malformed += 1;
    }

    pub(crate) fn malformed(&self) -> u64 {
        self.malformed
    }
}

impl<T> Slot<T> {
    fn is_read(&self) -> bool {
        self.state & READ != 0
    }

    fn ordinal(&self) -> u64 {
        self.state & !READ
    }

    fn stored(&self) -> Stored<T> {
        Stored {
            payload: self.payload.clone(),
            info: self.info,
            ordinal: self.ordinal(),
        }
    }

    fn into_stored(self) -> Stored<T> {
        let ordinal = self.ordinal();
        Stored {
            payload: self.payload,
            info: self.info,
            ordinal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PublisherId, Time};

    fn offer(cache: &mut HistoryCache<u64>, n: u64) -> Offer<u64> {
        let info = SampleInfo {
            publish_time: Time::ZERO,
            receive_time: Time::ZERO,
            publisher: PublisherId::default(),
            sequence: n,
        };
        cache.offer(Payload::Value(Arc::new(n)), info)
    }

    fn value(stored: Option<Stored<u64>>) -> Option<u64> {
        match stored?.payload {
            Payload::Value(v) => Some(*v),
            Payload::Serialized(_) => None,
        }
    }

    #[test]
    fn a_frozen_keep_last_1_keeps_its_visible_sample_whatever_arrives() {
        let mut cache = HistoryCache::new(History::KeepLast(1));
        offer(&mut cache, 1);
        cache.freeze();
        for n in 2..5 {
            offer(&mut cache, n);
            assert_eq!(value(cache.peek_latest()), Some(1));
            assert_eq!(cache.len(), 1);
        }
        // 2 and 3 were replaced while hidden: dropped unread.
        assert_eq!(cache.dropped(), 2);
        cache.freeze();
        let evicted = std::iter::from_fn(|| cache.evict_excess()).count();
        assert_eq!(evicted, 1, "the old frozen sample goes at the next period");
        assert_eq!(value(cache.latest()), Some(4));
        assert_eq!(cache.dropped(), 3, "1 was never read");
    }

    #[test]
    fn keep_last_evicts_the_oldest_and_hands_it_back() {
        let mut cache = HistoryCache::new(History::KeepLast(2));
        offer(&mut cache, 1);
        offer(&mut cache, 2);
        match offer(&mut cache, 3) {
            Offer::StoredEvicting(Payload::Value(v)) => assert_eq!(*v, 1),
            other => panic!("expected an eviction, got {other:?}"),
        }
        assert_eq!(cache.dropped(), 1);
    }

    #[test]
    fn a_huge_capacity_reserves_nothing() {
        let mut cache = HistoryCache::new(History::KeepAll { max: usize::MAX });
        offer(&mut cache, 1);
        assert_eq!(cache.len(), 1);
        let cache = HistoryCache::<u64>::new(History::KeepLast(usize::MAX));
        assert!(cache.slots.capacity() < 64);
    }

    #[test]
    fn window_marks_only_its_samples_read() {
        let mut cache = HistoryCache::new(History::KeepLast(5));
        (1..=4).for_each(|n| {
            offer(&mut cache, n);
        });
        assert_eq!(cache.read_window(2), Some((3, 4)));
        assert_eq!(cache.unread(), 2);
        assert_eq!(value(cache.next_in(3, 4)), Some(3));
        assert_eq!(value(cache.take_new()), Some(1));
        offer(&mut cache, 5);
        assert_eq!(value(cache.next_in(4, 4)), Some(4));
        assert!(cache.next_in(5, 4).is_none());
        assert_eq!(value(cache.take()), Some(2));
        assert_eq!(value(cache.take()), Some(3), "take takes read samples too");
    }

    #[test]
    fn a_slot_of_a_shared_message_fills_one_cache_line() {
        assert_eq!(size_of::<Slot<u64>>(), 64);
    }

    #[test]
    fn a_discarded_sample_leaves_the_counts_consistent() {
        let mut cache = HistoryCache::new(History::KeepLast(5));
        (1..=3).for_each(|n| {
            offer(&mut cache, n);
        });
        cache.read_new();
        assert!(cache.discard(2).is_some());
        assert_eq!((cache.len(), cache.unread(), cache.malformed()), (2, 1, 1));
        assert_eq!(value(cache.take_new()), Some(3));
    }
}
