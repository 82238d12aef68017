//! What a transient-local publisher keeps for subscriptions of this process created after it
//! published (DDS's TRANSIENT_LOCAL durability, intra-process).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::pi_mutex::PiMutex;
use crate::sample::SampleInfo;

/// The last `capacity` samples of one transient-local publisher, shared `Arc`s, oldest first.
///
/// Bounded: a sample past `capacity` evicts the oldest, as the publisher's `KeepLast(n)` or
/// `KeepAll { max }` history says (DDS keeps `depth` samples per instance). Written under the
/// lock of the fan-out that delivers the sample and read under it by a subscription being
/// created, so a late joiner gets each sample exactly once: kept before it joined, or
/// delivered after.
#[derive(Debug)]
pub(crate) struct Kept<T> {
    samples: PiMutex<VecDeque<(Arc<T>, SampleInfo)>>,
    capacity: usize,
}

impl<T> Kept<T> {
    /// A store of `capacity` samples; `capacity` is at least 1.
    pub(crate) fn new(capacity: usize) -> Self {
        Kept {
            samples: PiMutex::new(VecDeque::with_capacity(capacity)),
            capacity,
        }
    }

    /// Keeps `msg`, returning the sample it evicts: the caller drops it outside the fan-out's
    /// lock (a large message must not be freed under it).
    pub(crate) fn keep(&self, msg: Arc<T>, info: SampleInfo) -> Option<Arc<T>> {
        let mut samples = self.samples.lock();
        let evicted = match samples.len() >= self.capacity {
            true => samples.pop_front().map(|(msg, _)| msg),
            false => None,
        };
        samples.push_back((msg, info));
        evicted
    }

    /// The kept samples, oldest first, appended to `into`.
    pub(crate) fn copy_into(&self, into: &mut Vec<(Arc<T>, SampleInfo)>) {
        into.extend(self.samples.lock().iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::PublisherId;

    fn info(sequence: u64) -> SampleInfo {
        SampleInfo {
            publish_time: crate::clock::system_now(),
            receive_time: crate::clock::system_now(),
            publisher: PublisherId([0; 16]),
            sequence,
        }
    }

    #[test]
    fn keeps_the_last_capacity_samples_oldest_first() {
        let kept = Kept::new(3);
        let evicted: Vec<_> = (1..=5)
            .filter_map(|n| kept.keep(Arc::new(n), info(n)))
            .map(|msg| *msg)
            .collect();
        assert_eq!(evicted, [1, 2]);
        let mut samples = Vec::new();
        kept.copy_into(&mut samples);
        let kept: Vec<_> = samples.iter().map(|(m, i)| (**m, i.sequence)).collect();
        assert_eq!(kept, [(3, 3), (4, 4), (5, 5)]);
    }
}
