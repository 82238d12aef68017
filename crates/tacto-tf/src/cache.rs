//! One frame's transforms to its parent over time: tf2's `TimeCache` and `StaticCache`
//! (`tf2/src/cache.cpp`, `tf2/src/static_cache.cpp`).

use std::collections::VecDeque;

use nalgebra::{Quaternion, Vector3};
use tacto::Time;

use crate::error::{ErrorKind, TfError};
use crate::math;
use crate::time_text::display;

/// A frame's index in the buffer; 0 is tf2's `NO_PARENT`, the parent of no frame.
pub(crate) type FrameId = u32;

/// tf2's `TransformStorage`: one transform of a frame to its parent, at one time.
///
/// The child frame is the cache's own, so it is not stored (tf2 stores it, always the same).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sample {
    pub(crate) stamp: Time,
    pub(crate) rotation: Quaternion<f64>,
    pub(crate) translation: Vector3<f64>,
    pub(crate) parent: FrameId,
}

/// Why a cache has no transform at a time: tf2's `findClosest` failures, kept unformatted so
/// that a lookup that recovers (another path, `can_transform`'s `false`) formats nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Miss {
    /// No samples at all; tf2 sets the error code and leaves the text empty.
    Empty,
    /// One sample, at another time.
    OnlyOne { requested: Time, only: Time },
    /// After the latest sample.
    Future { requested: Time, latest: Time },
    /// Before the earliest sample.
    Past { requested: Time, earliest: Time },
}

impl Miss {
    /// tf2's error code and text for it, with `suffix` after the text (the walk adds the
    /// frames it was looking up).
    pub(crate) fn into_error(self, suffix: &str) -> TfError {
        let (kind, text) = match self {
            Miss::Empty => (ErrorKind::NoDataForExtrapolation, String::new()),
            Miss::OnlyOne { requested, only } => (
                ErrorKind::NoDataForExtrapolation,
                format!(
                    "Lookup would require extrapolation at time {}, but only time {} is in the \
                     buffer",
                    display(requested),
                    display(only)
                ),
            ),
            Miss::Future { requested, latest } => (
                ErrorKind::ForwardExtrapolation,
                format!(
                    "Lookup would require extrapolation into the future.  Requested time {} but \
                     the latest data is at time {}",
                    display(requested),
                    display(latest)
                ),
            ),
            Miss::Past {
                requested,
                earliest,
            } => (
                ErrorKind::BackwardExtrapolation,
                format!(
                    "Lookup would require extrapolation into the past.  Requested time {} but \
                     the earliest data is at time {}",
                    display(requested),
                    display(earliest)
                ),
            ),
        };
        TfError::new(kind, text + suffix)
    }
}

/// The one or two samples around a time.
enum Closest<'a> {
    One(&'a Sample),
    /// The older and the newer neighbour, strictly around the time.
    Two(&'a Sample, &'a Sample),
}

/// What [`TimeCache::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inserted {
    /// Stored, or already there (tf2 does not store an exact duplicate, and says `true`).
    Kept,
    /// Stored, and the oldest sample dropped to stay within the count bound.
    KeptEvictingOldest,
    /// Older than the cache time behind the latest sample: refused (tf2's `false`).
    TooOld,
}

/// A frame's samples over the last `max_age`: tf2's `TimeCache`.
///
/// Oldest first, newest last (tf2 keeps a list the other way round); samples with the same
/// stamp stay in their order of insertion, so "the newest at a stamp" is the last one here as
/// it is the first in tf2's list.
#[derive(Debug, Clone)]
pub(crate) struct TimeCache {
    samples: VecDeque<Sample>,
    /// The samples' stamps again, in their order: a lookup's search reads 8 bytes a sample
    /// instead of a sample's 72, and stays within a few cache lines.
    stamps: VecDeque<Time>,
    max_age_nanos: i64,
    max_len: usize,
}

impl TimeCache {
    pub(crate) fn new(max_age_nanos: i64, max_len: usize) -> TimeCache {
        TimeCache {
            samples: VecDeque::new(),
            stamps: VecDeque::new(),
            max_age_nanos,
            // A cache that holds nothing would refuse every sample; one is the least useful.
            max_len: max_len.max(1),
        }
    }

    #[inline]
    fn find_closest(&self, time: Time) -> Result<Closest<'_>, Miss> {
        let (Some(earliest), Some(latest)) = (self.samples.front(), self.samples.back()) else {
            return Err(Miss::Empty);
        };
        // Time zero means "the latest".
        if time == Time::ZERO {
            return Ok(Closest::One(latest));
        }
        if self.samples.len() == 1 {
            return if latest.stamp == time {
                Ok(Closest::One(latest))
            } else {
                Err(Miss::OnlyOne {
                    requested: time,
                    only: latest.stamp,
                })
            };
        }
        if time == latest.stamp {
            return Ok(Closest::One(latest));
        }
        if time == earliest.stamp {
            return Ok(Closest::One(earliest));
        }
        if time > latest.stamp {
            return Err(Miss::Future {
                requested: time,
                latest: latest.stamp,
            });
        }
        if time < earliest.stamp {
            return Err(Miss::Past {
                requested: time,
                earliest: earliest.stamp,
            });
        }
        // Strictly between the ends: the newest sample at or before the time, and the next.
        let older = self.last_at_or_before(time);
        Ok(Closest::Two(&self.samples[older], &self.samples[older + 1]))
    }

    /// The index of the last sample stamped at or before `time`, which lies strictly between
    /// the first and the last stamps.
    ///
    /// tf is published periodically, so a stamp's place in the time span is close to its
    /// index's place in the cache: the search starts there and gallops out, a few probes
    /// instead of a binary search's dozen unpredictable branches; on uneven data it costs at
    /// most twice a binary search.
    fn last_at_or_before(&self, time: Time) -> usize {
        let stamps = &self.stamps;
        let n = stamps.len();
        let (first, last) = (stamps[0].as_nanos(), stamps[n - 1].as_nanos());
        let share = (time.as_nanos() - first) as f64 / (last - first) as f64;
        let guess = ((share * (n - 1) as f64) as usize).min(n - 2);
        // Bracket: stamps[lo] <= time < stamps[hi].
        let (mut lo, mut hi);
        if stamps[guess] <= time {
            lo = guess;
            let mut step = 1;
            loop {
                let next = lo + step;
                // The last stamp is after the time: `next` stops there at the latest.
                if next >= n - 1 || stamps[next] > time {
                    hi = next.min(n - 1);
                    break;
                }
                lo = next;
                step *= 2;
            }
        } else {
            hi = guess;
            let mut step = 1;
            loop {
                // The first stamp is before the time: `hi - step` stops there at the latest.
                let next = hi.saturating_sub(step);
                if next == 0 || stamps[next] <= time {
                    lo = next;
                    break;
                }
                hi = next;
                step *= 2;
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if stamps[mid] <= time {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// `TimeCache::getData`: the transform at `time`, interpolated between the neighbours
    /// when they have the same parent, else the older one's.
    #[inline]
    pub(crate) fn get(&self, time: Time) -> Result<Sample, Miss> {
        Ok(match self.find_closest(time)? {
            Closest::One(s) => *s,
            Closest::Two(one, two) if one.parent == two.parent => interpolate(one, two, time),
            Closest::Two(one, _) => *one,
        })
    }

    /// `TimeCache::getParent`: the parent at `time`, without interpolating.
    pub(crate) fn parent(&self, time: Time) -> Result<FrameId, Miss> {
        Ok(match self.find_closest(time)? {
            Closest::One(s) | Closest::Two(s, _) => s.parent,
        })
    }

    /// `TimeCache::insertData`: prunes, refuses data older than the cache time behind the
    /// latest sample, skips exact duplicates, and keeps the samples sorted.
    pub(crate) fn insert(&mut self, sample: Sample) -> Inserted {
        let latest = self.latest();
        // tf2 prunes first, against the latest stamp before this sample.
        self.prune();
        if !self.samples.is_empty()
            && sample.stamp.as_nanos() < latest.as_nanos().saturating_sub(self.max_age_nanos)
        {
            return Inserted::TooOld;
        }
        // Samples arrive in stamp order nearly always, each newer than the last: then the
        // place is the end, no sample can be an exact duplicate, and a push does it (neither
        // the binary search, a cache miss per step in a long cache, nor the scan of equal
        // stamps, nor the general insertion's bookkeeping).
        match self.stamps.back() {
            Some(&last) if last >= sample.stamp => {}
            _ => {
                self.samples.push_back(sample);
                self.stamps.push_back(sample.stamp);
                return self.evict_past_max_len();
            }
        }
        let at = self.stamps.partition_point(|&s| s <= sample.stamp);
        let same_stamp = self.samples.range(..at).rev();
        if same_stamp
            .take_while(|s| s.stamp == sample.stamp)
            .any(|s| *s == sample)
        {
            return Inserted::Kept;
        }
        self.samples.insert(at, sample);
        self.stamps.insert(at, sample.stamp);
        self.evict_past_max_len()
    }

    /// Drops the oldest sample if the cache holds more than its count bound.
    fn evict_past_max_len(&mut self) -> Inserted {
        if self.samples.len() > self.max_len {
            self.samples.pop_front();
            self.stamps.pop_front();
            return Inserted::KeptEvictingOldest;
        }
        Inserted::Kept
    }

    /// `TimeCache::pruneList`: drops samples older than the cache time behind the latest.
    fn prune(&mut self) {
        let latest = self.latest().as_nanos();
        while self
            .stamps
            .front()
            .is_some_and(|s| s.as_nanos().saturating_add(self.max_age_nanos) < latest)
        {
            self.samples.pop_front();
            self.stamps.pop_front();
        }
    }

    pub(crate) fn clear(&mut self) {
        self.samples.clear();
        self.stamps.clear();
    }

    pub(crate) fn len(&self) -> usize {
        self.samples.len()
    }

    /// The latest stamp; zero when empty, as tf2.
    pub(crate) fn latest(&self) -> Time {
        // From the stamps, not the samples: eight to a cache line, so an insertion into a
        // cache that went cold since the last one (the listener's case) misses once, not
        // once more for the sample before it.
        self.stamps.back().copied().unwrap_or(Time::ZERO)
    }

    /// The oldest stamp; zero when empty, as tf2.
    pub(crate) fn oldest(&self) -> Time {
        self.stamps.front().copied().unwrap_or(Time::ZERO)
    }

    /// `getLatestTimeAndParent`: the latest stamp and its parent, `(0, NO_PARENT)` if empty.
    pub(crate) fn latest_time_and_parent(&self) -> (Time, FrameId) {
        self.samples
            .back()
            .map_or((Time::ZERO, 0), |s| (s.stamp, s.parent))
    }

    #[cfg(test)]
    fn items(&self) -> impl DoubleEndedIterator<Item = &Sample> {
        self.samples.iter()
    }
}

/// `TimeCache::interpolate`: linear in translation, slerp in rotation. The result keeps the
/// older sample's stamp, as tf2's does (the lookup reports the requested time).
#[inline]
fn interpolate(one: &Sample, two: &Sample, time: Time) -> Sample {
    if one.stamp == two.stamp {
        return *two;
    }
    let ratio = (time.as_nanos() - one.stamp.as_nanos()) as f64
        / (two.stamp.as_nanos() - one.stamp.as_nanos()) as f64;
    Sample {
        stamp: one.stamp,
        rotation: math::slerp(&one.rotation, &two.rotation, ratio),
        translation: one.translation * (1.0 - ratio) + two.translation * ratio,
        parent: one.parent,
    }
}

/// A frame's cache: timed, or static (`StaticCache`: one sample, valid at every time).
#[derive(Debug, Clone)]
pub(crate) enum FrameCache {
    Timed(TimeCache),
    Static(Sample),
}

impl FrameCache {
    pub(crate) fn is_static(&self) -> bool {
        matches!(self, FrameCache::Static(_))
    }

    /// The transform at `time`; a static one answers for any time, stamped with it.
    #[inline]
    pub(crate) fn get(&self, time: Time) -> Result<Sample, Miss> {
        match self {
            FrameCache::Timed(c) => c.get(time),
            FrameCache::Static(s) => Ok(Sample { stamp: time, ..*s }),
        }
    }

    pub(crate) fn parent(&self, time: Time) -> Result<FrameId, Miss> {
        match self {
            FrameCache::Timed(c) => c.parent(time),
            FrameCache::Static(s) => Ok(s.parent),
        }
    }

    /// A static cache's time is zero: it is no constraint on the latest common time.
    pub(crate) fn latest_time_and_parent(&self) -> (Time, FrameId) {
        match self {
            FrameCache::Timed(c) => c.latest_time_and_parent(),
            FrameCache::Static(s) => (Time::ZERO, s.parent),
        }
    }

    pub(crate) fn insert(&mut self, sample: Sample) -> Inserted {
        match self {
            FrameCache::Timed(c) => c.insert(sample),
            FrameCache::Static(s) => {
                *s = sample;
                Inserted::Kept
            }
        }
    }

    /// Empties a timed cache; a static one keeps its transform, as tf2's `clear` does.
    pub(crate) fn clear(&mut self) {
        if let FrameCache::Timed(c) = self {
            c.clear();
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            FrameCache::Timed(c) => c.len(),
            FrameCache::Static(_) => 1,
        }
    }

    pub(crate) fn latest(&self) -> Time {
        match self {
            FrameCache::Timed(c) => c.latest(),
            FrameCache::Static(_) => Time::ZERO,
        }
    }

    pub(crate) fn oldest(&self) -> Time {
        match self {
            FrameCache::Timed(c) => c.oldest(),
            FrameCache::Static(_) => Time::ZERO,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const TEN_SECONDS: i64 = 10_000_000_000;

    /// `seed_rand`/`get_rand` of tf2's cache_unittest.cpp: 2000 values in [-1, 1) from
    /// `floor(i * pi) % 100`.
    pub(crate) struct PseudoRand {
        values: Vec<f64>,
        step: usize,
    }

    impl PseudoRand {
        pub(crate) fn new() -> PseudoRand {
            let values = (0..2000u32)
                .map(|i| {
                    let pseudo = (f64::from(i) * std::f64::consts::PI).floor() as i64;
                    (pseudo % 100) as f64 / 50.0 - 1.0
                })
                .collect();
            PseudoRand { values, step: 0 }
        }

        pub(crate) fn next(&mut self) -> f64 {
            // As tf2's: the first call returns the second value. tf2 reads one past the end
            // before it wraps; this wraps at the end (the tests use far fewer values).
            if self.step >= self.values.len() - 1 {
                self.step = 0;
            } else {
                self.step += 1;
            }
            self.values[self.step]
        }
    }

    fn at(nanos: i64) -> Time {
        Time::from_nanos(nanos)
    }

    fn identity_sample(nanos: i64, parent: FrameId) -> Sample {
        Sample {
            stamp: at(nanos),
            rotation: math::identity(),
            translation: Vector3::zeros(),
            parent,
        }
    }

    fn cache() -> TimeCache {
        TimeCache::new(TEN_SECONDS, usize::MAX)
    }

    /// `(stamp, parent)` of every sample, newest first as tf2's list.
    fn newest_first(c: &TimeCache) -> Vec<(i64, FrameId)> {
        c.items()
            .rev()
            .map(|s| (s.stamp.as_nanos(), s.parent))
            .collect()
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, GetAllItems).
    #[test]
    fn samples_stay_sorted_newest_first_and_stale_ones_are_pruned() {
        let mut c = TimeCache::new(10, usize::MAX);
        let [a, b, cc, d, e, f, g] = [(0, 0), (10, 1), (5, 2), (3, 3), (8, 4), (8, 5), (8, 6)]
            .map(|(t, id)| identity_sample(t, id));
        for s in [a, b, cc, d, e, f, g] {
            c.insert(s);
        }
        assert_eq!(c.latest().as_nanos() - c.oldest().as_nanos(), 10);
        // Same stamps: reversed insertion order, newest first.
        let expected = vec![(10, 1), (8, 6), (8, 5), (8, 4), (5, 2), (3, 3), (0, 0)];
        assert_eq!(newest_first(&c), expected);

        // Inserted again, in reverse: nothing changes.
        for s in [g, f, e, d, cc, b, a] {
            c.insert(s);
        }
        assert_eq!(newest_first(&c), expected);

        // Newer data prunes the stale, even data inserted just now.
        c.insert(identity_sample(15, 7));
        assert_eq!(c.insert(identity_sample(0, 8)), Inserted::TooOld);
        c.insert(identity_sample(5, 9));
        assert_eq!(
            newest_first(&c),
            vec![(15, 7), (10, 1), (8, 6), (8, 5), (8, 4), (5, 9), (5, 2)]
        );
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, Repeatability).
    #[test]
    fn each_sample_is_found_at_its_own_stamp() {
        let mut c = cache();
        for i in 1..100 {
            c.insert(identity_sample(i, i as FrameId));
        }
        assert_eq!(c.len(), 99);
        for i in 1..100 {
            let s = c.get(at(i)).unwrap();
            assert_eq!(s.parent, i as FrameId);
            assert_eq!(s.stamp, at(i));
        }
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, RepeatabilityReverseInsertOrder).
    #[test]
    fn samples_inserted_newest_first_are_found_at_their_stamps() {
        let mut c = cache();
        for i in (0..100).rev() {
            c.insert(identity_sample(i, i as FrameId));
        }
        assert_eq!(c.len(), 100);
        for i in 1..100 {
            let s = c.get(at(i)).unwrap();
            assert_eq!(s.parent, i as FrameId);
            assert_eq!(s.stamp, at(i));
        }
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, RepeatedElements).
    #[test]
    fn an_exact_duplicate_is_stored_once() {
        let mut c = cache();
        assert_eq!(c.len(), 0);
        for _ in 1..100 {
            c.insert(identity_sample(0, 0));
        }
        assert_eq!(c.len(), 1);
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, ZeroAtFront).
    #[test]
    fn time_zero_gives_the_latest_sample() {
        let runs = 100;
        let mut c = cache();
        for i in 1..runs {
            c.insert(identity_sample(i, i as FrameId));
        }
        c.insert(identity_sample(runs, runs as FrameId));
        for i in 1..runs {
            let s = c.get(at(i)).unwrap();
            assert_eq!(s.parent, i as FrameId);
            assert_eq!(s.stamp, at(i));
        }
        let s = c.get(Time::ZERO).unwrap();
        assert_eq!(s.parent, runs as FrameId);
        assert_eq!(s.stamp, at(runs));

        // A new sample at the front is what zero gives now.
        c.insert(identity_sample(runs + 1, runs as FrameId));
        let s = c.get(Time::ZERO).unwrap();
        assert_eq!(s.parent, runs as FrameId);
        assert_eq!(s.stamp, at(runs + 1));
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, CartesianInterpolation).
    #[test]
    fn translation_is_interpolated_linearly() {
        let epsilon = 2e-6;
        let mut rand = PseudoRand::new();
        let mut c = cache();
        let offset = 200;
        for _ in 1..100 {
            let mut values = [[0.0; 3]; 2];
            for (step, v) in values.iter_mut().enumerate() {
                *v = [10.0 * rand.next(), 10.0 * rand.next(), 10.0 * rand.next()];
                let mut s = identity_sample(step as i64 * 100 + offset, 2);
                s.translation = Vector3::new(v[0], v[1], v[2]);
                c.insert(s);
            }
            for pos in 0..100 {
                let s = c.get(at(offset + pos)).unwrap();
                let r = pos as f64 / 100.0;
                let ends = values[0].iter().zip(&values[1]);
                for ((v0, v1), out) in ends.zip(s.translation.iter()) {
                    assert!((out - (v0 + (v1 - v0) * r)).abs() < epsilon);
                }
            }
            c.clear();
        }
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, ReparentingInterpolationProtection).
    #[test]
    fn samples_with_different_parents_are_not_interpolated() {
        let epsilon = 1e-6;
        let offset = 555;
        let mut rand = PseudoRand::new();
        let mut c = cache();
        let mut first = Vector3::zeros();
        for step in 0..2 {
            let v = Vector3::new(10.0 * rand.next(), 10.0 * rand.next(), 10.0 * rand.next());
            if step == 0 {
                first = v;
            }
            let mut s = identity_sample(step * 100 + offset, step as FrameId + 4);
            s.translation = v;
            c.insert(s);
        }
        for pos in 0..100 {
            let s = c.get(at(offset + pos)).unwrap();
            assert!((s.translation - first).amax() < epsilon);
        }
    }

    /// `Quaternion::setRPY` of tf2's LinearMath.
    fn set_rpy(roll: f64, pitch: f64, yaw: f64) -> Quaternion<f64> {
        let (sy, cy) = (yaw * 0.5).sin_cos();
        let (sp, cp) = (pitch * 0.5).sin_cos();
        let (sr, cr) = (roll * 0.5).sin_cos();
        Quaternion::new(
            cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
        )
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, AngularInterpolation).
    #[test]
    fn rotation_is_interpolated_by_slerp() {
        let epsilon = 1e-6;
        let mut rand = PseudoRand::new();
        let mut c = cache();
        let offset = 200;
        for _ in 1..100 {
            let mut quats = [math::identity(); 2];
            for (step, q) in quats.iter_mut().enumerate() {
                *q = set_rpy(10.0 * rand.next() / 100.0, 0.0, 0.0);
                let mut s = identity_sample(offset + step as i64 * 100, 3);
                s.rotation = *q;
                c.insert(s);
            }
            for pos in 0..100 {
                let s = c.get(at(offset + pos)).unwrap();
                let truth = math::slerp(&quats[0], &quats[1], pos as f64 / 100.0);
                // tf2's `angle`: half the angle between them.
                let cos = truth.dot(&s.rotation)
                    / (truth.norm_squared() * s.rotation.norm_squared()).sqrt();
                assert!(cos.clamp(-1.0, 1.0).acos().abs() < epsilon);
            }
            c.clear();
        }
    }

    // From tf2/test/cache_unittest.cpp, TEST(TimeCache, DuplicateEntries).
    #[test]
    fn a_duplicate_entry_does_not_grow_the_cache_or_break_it() {
        let mut c = cache();
        c.insert(identity_sample(1, 3));
        assert_eq!(c.len(), 1);
        c.insert(identity_sample(1, 3));
        assert_eq!(c.len(), 1);
        let s = c.get(at(1)).unwrap();
        assert!(!s.translation.iter().any(|x| x.is_nan()));
        assert!(!s.rotation.coords.iter().any(|x| x.is_nan()));
    }

    // From tf2/test/static_cache_test.cpp, TEST(StaticCache, Repeatability).
    #[test]
    fn a_static_cache_answers_with_its_last_sample_at_the_requested_time() {
        let mut c = FrameCache::Static(identity_sample(0, 0));
        for i in 1..100 {
            c.insert(identity_sample(i, i as FrameId));
            let s = c.get(at(i)).unwrap();
            assert_eq!(s.parent, i as FrameId);
            assert_eq!(s.stamp, at(i));
        }
    }

    // From tf2/test/static_cache_test.cpp, TEST(StaticCache, DuplicateEntries).
    #[test]
    fn a_static_cache_takes_a_duplicate_entry() {
        let mut c = FrameCache::Static(identity_sample(0, 0));
        c.insert(identity_sample(1, 3));
        c.insert(identity_sample(1, 3));
        let s = c.get(at(1)).unwrap();
        assert!(!s.translation.iter().any(|x| x.is_nan()));
        assert!(!s.rotation.coords.iter().any(|x| x.is_nan()));
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn the_search_from_the_guess_finds_what_a_binary_search_finds() {
        // Even, uneven and repeated stamps; every time strictly between the ends.
        let mut rand = PseudoRand::new();
        let layouts: [Vec<i64>; 3] = [
            (0..50).map(|i| i * 10).collect(),
            (0..50).map(|i| i * i * i).collect(),
            (0..60)
                .scan(0, |t, _| {
                    *t += (5.0 * (rand.next() + 1.0)) as i64;
                    Some(*t)
                })
                .collect(),
        ];
        for stamps in layouts {
            let mut c = TimeCache::new(i64::MAX, usize::MAX);
            for (i, &t) in stamps.iter().enumerate() {
                c.insert(identity_sample(t, i as FrameId));
            }
            let (first, last) = (stamps[0], stamps[stamps.len() - 1]);
            for t in first + 1..last {
                let expected = c.stamps.partition_point(|&s| s <= at(t)) - 1;
                assert_eq!(c.last_at_or_before(at(t)), expected, "at {t} in {stamps:?}");
            }
        }
    }

    #[test]
    fn a_full_cache_drops_its_oldest_sample() {
        let mut c = TimeCache::new(TEN_SECONDS, 3);
        for i in 1..=3 {
            assert_eq!(c.insert(identity_sample(i, 1)), Inserted::Kept);
        }
        assert_eq!(
            c.insert(identity_sample(4, 1)),
            Inserted::KeptEvictingOldest
        );
        assert_eq!(newest_first(&c), vec![(4, 1), (3, 1), (2, 1)]);
    }

    #[test]
    fn lookups_between_and_outside_the_samples_fail_as_tf2s() {
        let mut c = cache();
        assert_eq!(c.get(at(5)), Err(Miss::Empty));
        c.insert(identity_sample(10, 1));
        assert_eq!(
            c.get(at(5)),
            Err(Miss::OnlyOne {
                requested: at(5),
                only: at(10)
            })
        );
        c.insert(identity_sample(20, 1));
        assert_eq!(
            c.get(at(25)),
            Err(Miss::Future {
                requested: at(25),
                latest: at(20)
            })
        );
        assert_eq!(
            c.get(at(5)),
            Err(Miss::Past {
                requested: at(5),
                earliest: at(10)
            })
        );
        assert_eq!(c.get(at(15)).unwrap().stamp, at(10));
    }
}
