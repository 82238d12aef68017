//! The approximate-time policy: message_filters' `sync_policies::ApproximateTime`.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use super::output::{Output, Stats};
use super::set::{Set, Slot};
use super::{MAX_INPUTS, Policy, SyncError};
use crate::clock::{Time, duration_nanos};

/// Matches one item of each input into the set whose stamps lie closest together, among
/// the items that may still be part of one.
///
/// This is message_filters' `ApproximateTime` policy (Jazzy), the algorithm of
/// <https://wiki.ros.org/message_filters/ApproximateTime>, ported step for step, so a
/// sequence of items gives the same sets as in ROS 2:
///
/// - A set is output only once it is provably the best one for its *pivot*, the input
///   whose item ends the first candidate interval: that needs an item *after* it on every
///   input (or, with [`inter_message_lower_bound`](Self::inter_message_lower_bound), a
///   known gap that rules later items out). A set is never output twice, and items are
///   used in the order of their stamps.
/// - The best set is the one of the smallest stamp interval, candidates that end later
///   being penalized by [`age_penalty`](Self::age_penalty) (0.1 by default): a later
///   candidate must be shorter by a factor of `1 + age_penalty` to win.
/// - Intervals longer than [`max_interval_duration`](Self::max_interval_duration) are never
///   matched.
/// - Each input keeps at most `queue_size` items; one more drops its oldest, counted in
///   [`Stats::dropped`], as are items passed over by a better set.
/// - An item stamped before its input's previous one is logged once (as message_filters
///   does, with a warning that it arrived out of order) and then matched as any other: the
///   algorithm assumes stamps grow on each input, and a stamp going backwards may drop or
///   mismatch sets until they do again.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto::sync::{ApproximateTime, Policy};
///
/// let mut policy = ApproximateTime::<(i64, i64)>::new(10).unwrap();
/// let ms = |ms: i64| Time::from_nanos(ms * 1_000_000);
/// policy.add::<0>(ms(0), 0);
/// policy.add::<1>(ms(3), 3);
/// assert_eq!(policy.take(), None); // a later item on input 0 could still fit 3 better
/// policy.add::<0>(ms(10), 10);
/// assert_eq!(policy.take(), Some((0, 3))); // it did not: (0, 3) is the best for 3
/// policy.add::<1>(ms(12), 12);
/// assert_eq!(policy.take(), None); // (10, 12) waits for a later item on input 0
/// ```
pub struct ApproximateTime<S: Set> {
    queue_size: usize,
    /// Per input, the stamps of its items, oldest first.
    lanes: [Lane; MAX_INPUTS],
    /// Per input, its items, in step with `lanes`.
    items: S::Queues,
    /// The input whose item ends the first candidate, if there is a candidate. The candidate
    /// is then the first item of every lane.
    pivot: Option<usize>,
    candidate_start: i64,
    candidate_end: i64,
    pivot_time: i64,
    max_interval: i64,
    age_penalty: f64,
    has_dropped: [bool; MAX_INPUTS],
    lower_bounds: [i64; MAX_INPUTS],
    warned: [bool; MAX_INPUTS],
    output: Output<S>,
}

/// One input's stamps, in nanoseconds: message_filters' `past_` vector (the first `past`
/// ones, looked at and passed over for the current candidate) followed by its deque.
///
/// One queue for both works because every item moved to `past` comes from the deque's
/// front and goes back to it in the same order, and the candidate is always the first item
/// of both: every removal is a removal of the front, which the typed items can follow.
#[derive(Debug, Default)]
struct Lane {
    stamps: VecDeque<i64>,
    past: usize,
}

impl Lane {
    fn deque_len(&self) -> usize {
        self.stamps.len() - self.past
    }

    fn deque_front(&self) -> Option<i64> {
        self.stamps.get(self.past).copied()
    }
}

impl<S: Set> fmt::Debug for ApproximateTime<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApproximateTime")
            .field("queue_size", &self.queue_size)
            .field("lanes", &&self.lanes[..S::INPUTS])
            .field("pivot", &self.pivot)
            .field("age_penalty", &self.age_penalty)
            .field("max_interval", &self.max_interval)
            .field("ready", &self.output.ready())
            .finish_non_exhaustive()
    }
}

/// message_filters' default `max_interval_duration`: `rclcpp::Duration(INT32_MAX,
/// 999999999)`, in nanoseconds.
const MAX_INTERVAL: i64 = i32::MAX as i64 * 1_000_000_000 + 999_999_999;

impl<S: Set> ApproximateTime<S> {
    /// A policy that keeps at most `queue_size` items per input, and at most `queue_size`
    /// matched sets for [`take`](Policy::take). message_filters recommends 2 or more: with
    /// 1, many items are dropped. 0 is refused ([`SyncError::ZeroQueueSize`]).
    pub fn new(queue_size: usize) -> Result<Self, SyncError> {
        if queue_size == 0 {
            return Err(SyncError::ZeroQueueSize);
        }
        Ok(ApproximateTime {
            queue_size,
            lanes: Default::default(),
            items: S::Queues::default(),
            pivot: None,
            candidate_start: 0,
            candidate_end: 0,
            pivot_time: 0,
            max_interval: MAX_INTERVAL,
            age_penalty: 0.1,
            has_dropped: [false; MAX_INPUTS],
            lower_bounds: [0; MAX_INPUTS],
            warned: [false; MAX_INPUTS],
            output: Output::new(queue_size),
        })
    }

    /// How much a candidate set that ends later than the current one is penalized: it wins
    /// only if its interval is shorter by a factor of `1 + age_penalty` (default 0.1).
    /// Higher values output sets sooner, lower ones wait for better ones. Must be a finite
    /// number of at least 0 ([`SyncError::AgePenalty`]).
    pub fn age_penalty(mut self, age_penalty: f64) -> Result<Self, SyncError> {
        if !(age_penalty.is_finite() && age_penalty >= 0.0) {
            return Err(SyncError::AgePenalty(age_penalty));
        }
        self.age_penalty = age_penalty;
        Ok(self)
    }

    /// The least time between two consecutive stamps of `input` (default 0): a known
    /// minimum period lets the policy prove a set optimal, and output it, without waiting
    /// for the input's next item. An input that breaks its bound is logged once.
    /// `input` must be one of the set's ([`SyncError::NoSuchInput`]).
    pub fn inter_message_lower_bound(
        mut self,
        input: usize,
        bound: Duration,
    ) -> Result<Self, SyncError> {
        if input >= S::INPUTS {
            return Err(SyncError::NoSuchInput {
                input,
                inputs: S::INPUTS,
            });
        }
        self.lower_bounds[input] = duration_nanos(bound);
        Ok(self)
    }

    /// The longest stamp interval a set may span (default: `i32::MAX` seconds, as
    /// message_filters'); items that can only be part of longer ones are dropped.
    pub fn max_interval_duration(mut self, max: Duration) -> Self {
        self.max_interval = duration_nanos(max);
        self
    }

    fn inputs(&self) -> std::ops::Range<usize> {
        0..S::INPUTS
    }

    fn all_deques_non_empty(&self) -> bool {
        self.lanes[..S::INPUTS]
            .iter()
            .all(|lane| lane.deque_len() > 0)
    }

    /// Logs once if `input`'s newest item broke the order of stamps or its lower bound
    /// (message_filters' `checkInterMessageBound`).
    fn check_inter_message_bound(&mut self, input: usize) {
        if self.warned[input] {
            return;
        }
        let lane = &self.lanes[input];
        let len = lane.stamps.len();
        if len < 2 {
            // The previous item was output (or there was none): nothing to compare with.
            return;
        }
        let (msg_time, previous) = (lane.stamps[len - 1], lane.stamps[len - 2]);
        if msg_time < previous {
            crate::warn!(
                crate::logging::Logger::get("tacto.sync"),
                once,
                "Messages of input {input} arrived out of order (will print only once)"
            );
            self.warned[input] = true;
        } else if diff(msg_time, previous) < self.lower_bounds[input] {
            crate::warn!(
                crate::logging::Logger::get("tacto.sync"),
                once,
                "Messages of input {input} arrived closer ({}) than the lower bound you \
                 provided ({}) (will print only once)",
                diff(msg_time, previous),
                self.lower_bounds[input]
            );
            self.warned[input] = true;
        }
    }

    /// Drops the front of `input`'s deque (message_filters' `dequeDeleteFront`). Only called
    /// without a candidate, when `past` is empty: the deque's front is the lane's.
    fn deque_delete_front(&mut self, input: usize) {
        self.drop_front(input);
    }

    fn drop_front(&mut self, input: usize) {
        if self.lanes[input].stamps.pop_front().is_some() {
            S::pop_front(&mut self.items, input);
            self.output.dropped(input);
        }
    }

    fn deque_move_front_to_past(&mut self, input: usize) {
        let lane = &mut self.lanes[input];
        if lane.deque_len() > 0 {
            lane.past += 1;
        }
    }

    /// Makes the deques' fronts the candidate: the items in `past` were passed over for a
    /// worse candidate, and are dropped.
    fn make_candidate(&mut self) {
        for input in self.inputs() {
            for _ in 0..std::mem::take(&mut self.lanes[input].past) {
                self.drop_front(input);
            }
        }
    }

    /// Moves every item of `past` back to its deque (message_filters' `recover()`).
    fn recover_all(&mut self) {
        for lane in &mut self.lanes {
            lane.past = 0;
        }
    }

    /// Outputs the candidate, the first item of every input (message_filters'
    /// `publishCandidate`, whose `recoverAndDelete` leaves the later ones in the deques).
    fn publish_candidate(&mut self) {
        self.pivot = None;
        self.recover_all();
        for lane in &mut self.lanes[..S::INPUTS] {
            lane.stamps.pop_front();
        }
        if let Some(set) = S::pop_fronts(&mut self.items) {
            self.output.emit(set);
        }
    }

    /// The earliest (`end` false) or latest (`end` true) deque front, and its input, the
    /// first of equal ones for the earliest and the last for the latest, as message_filters'
    /// `getCandidateBoundary`. Only called when every deque has an item.
    fn candidate_boundary(&self, end: bool) -> (usize, i64) {
        let mut boundary = (0, self.lanes[0].deque_front().unwrap_or_default());
        for input in 1..S::INPUTS {
            let time = self.lanes[input].deque_front().unwrap_or_default();
            if (time < boundary.1) ^ end {
                boundary = (input, time);
            }
        }
        boundary
    }

    /// The time of `input`'s next item, or if its deque is empty the earliest it can come:
    /// its last item's stamp plus its lower bound, but not before the pivot (message_filters'
    /// `getVirtualTime`).
    fn virtual_time(&self, input: usize) -> i64 {
        let lane = &self.lanes[input];
        match lane.deque_front() {
            Some(time) => time,
            None => {
                // With a candidate every input has an item, in `past` if not in the deque;
                // the pivot's time would stand in for a missing one.
                let last = match lane.past {
                    0 => self.pivot_time,
                    past => lane.stamps[past - 1],
                };
                last.saturating_add(self.lower_bounds[input])
                    .max(self.pivot_time)
            }
        }
    }

    /// [`candidate_boundary`](Self::candidate_boundary) over the virtual times.
    fn virtual_candidate_boundary(&self, end: bool) -> (usize, i64) {
        let mut boundary = (0, self.virtual_time(0));
        for input in 1..S::INPUTS {
            let time = self.virtual_time(input);
            if (time < boundary.1) ^ end {
                boundary = (input, time);
            }
        }
        boundary
    }

    /// `(end_time - candidate_end) * (1 + age_penalty)`, as rclcpp computes a
    /// `Duration * double`.
    fn penalized(&self, end_time: i64) -> i64 {
        scale(diff(end_time, self.candidate_end), 1.0 + self.age_penalty)
    }

    /// message_filters' `process`: makes and outputs sets while every deque has an item.
    fn process(&mut self) {
        while self.all_deques_non_empty() {
            let (end_index, end_time) = self.candidate_boundary(true);
            let (start_index, start_time) = self.candidate_boundary(false);
            for input in self.inputs() {
                if input != end_index {
                    // No dropped item could have been better than the ones we have, so the
                    // input may be the pivot again.
                    self.has_dropped[input] = false;
                }
            }
            match self.pivot {
                None => {
                    if diff(end_time, start_time) > self.max_interval {
                        // Too long to be a candidate: on to the next.
                        self.deque_delete_front(start_index);
                        continue;
                    }
                    if self.has_dropped[end_index] {
                        // The input that would be the pivot dropped items: not a good pivot.
                        self.deque_delete_front(start_index);
                        continue;
                    }
                    self.make_candidate();
                    self.candidate_start = start_time;
                    self.candidate_end = end_time;
                    self.pivot = Some(end_index);
                    self.pivot_time = end_time;
                    self.deque_move_front_to_past(start_index);
                }
                Some(_) => {
                    if self.penalized(end_time) < diff(start_time, self.candidate_start) {
                        // A better candidate; the pivot stays.
                        self.make_candidate();
                        self.candidate_start = start_time;
                        self.candidate_end = end_time;
                    }
                    self.deque_move_front_to_past(start_index);
                }
            }
            if Some(start_index) == self.pivot {
                // Every candidate for this pivot was looked at: the best one goes out.
                self.publish_candidate();
            } else if self.penalized(end_time) >= diff(self.pivot_time, self.candidate_start) {
                // Provably optimal: any later candidate contains [pivot_time, end_time],
                // which is already too long.
                self.publish_candidate();
            } else if !self.all_deques_non_empty() {
                self.virtual_search();
            }
        }
    }

    /// Tries to prove the candidate optimal from the lower bounds, moving items to `past`
    /// as if the inputs' next items came as early as their bounds allow; outputs the
    /// candidate if that proves it, and undoes the moves otherwise.
    fn virtual_search(&mut self) {
        let mut moves = [0usize; MAX_INPUTS];
        loop {
            let (_, end_time) = self.virtual_candidate_boundary(true);
            let (start_index, start_time) = self.virtual_candidate_boundary(false);
            if self.penalized(end_time) >= diff(self.pivot_time, self.candidate_start) {
                // Proved optimal (and the moves are undone on the way).
                self.publish_candidate();
                return;
            }
            if self.penalized(end_time) < diff(start_time, self.candidate_start)
                // Cannot happen (message_filters asserts it): the two tests above are each
                // other's negation when the start is the pivot's, whose deque is empty.
                || self.lanes[start_index].deque_len() == 0
            {
                // An optimistic candidate would be better: not proved, undo the moves.
                for (lane, moved) in self.lanes.iter_mut().zip(moves) {
                    lane.past = lane.past.saturating_sub(moved);
                }
                return;
            }
            self.deque_move_front_to_past(start_index);
            moves[start_index] += 1;
        }
    }
}

impl<S: Set> Policy for ApproximateTime<S> {
    type Set = S;

    fn add<const K: usize>(&mut self, stamp: Time, item: <S as Slot<K>>::Item)
    where
        S: Slot<K>,
    {
        self.lanes[K].stamps.push_back(stamp.as_nanos());
        <S as Slot<K>>::queue(&mut self.items).push_back(item);
        if self.lanes[K].deque_len() == 1 {
            // The deque was empty: with every deque non-empty, sets may be made.
            if self.all_deques_non_empty() {
                self.process();
            }
        } else {
            self.check_inter_message_bound(K);
        }
        // During `process` the input may hold `queue_size + 1` items.
        if self.lanes[K].stamps.len() > self.queue_size {
            // The candidate search starts over.
            self.recover_all();
            self.drop_front(K);
            self.has_dropped[K] = true;
            if self.pivot.take().is_some() {
                // The candidate lost an item; the rest may still make one.
                self.process();
            }
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

/// `a - b` in nanoseconds, saturating where rclcpp would throw.
fn diff(a: i64, b: i64) -> i64 {
    a.saturating_sub(b)
}

/// `nanos * factor` as rclcpp's `Duration::operator*(double)` computes it on x86-64: both
/// as `long double` (64-bit significand), the product rounded to nearest-even there, then
/// truncated toward zero. Saturates where rclcpp would throw. `factor` is finite and at
/// least 1 (`1 + age_penalty`).
fn scale(nanos: i64, factor: f64) -> i64 {
    let bits = factor.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (significand, mut exponent) = match exponent {
        0 => (fraction, -1074),
        e => (fraction | 1 << 52, e - 1075),
    };
    if nanos == 0 {
        return 0;
    }
    // Exact: under 2^63 * 2^53.
    let mut product = u128::from(nanos.unsigned_abs()) * u128::from(significand);
    let width = 128 - product.leading_zeros() as i32;
    if width > 64 {
        let shift = (width - 64) as u32;
        let rest = product & ((1 << shift) - 1);
        let half = 1u128 << (shift - 1);
        product >>= shift;
        if rest > half || (rest == half && product & 1 == 1) {
            product += 1;
        }
        exponent += shift as i32;
    }
    let magnitude = if exponent >= 0 {
        // Beyond 2^128: saturate.
        match product.checked_shl(exponent as u32) {
            Some(value) if value >> exponent == product => value,
            _ => u128::MAX,
        }
    } else if exponent <= -128 {
        0
    } else {
        product >> -exponent
    };
    let magnitude = i64::try_from(magnitude).unwrap_or(i64::MAX);
    if nanos < 0 { -magnitude } else { magnitude }
}

#[cfg(test)]
mod tests {
    use super::scale;

    #[test]
    fn a_duration_scales_as_rclcpp_truncating_toward_zero() {
        assert_eq!(scale(10, 1.1), 11);
        assert_eq!(scale(3, 1.1), 3);
        assert_eq!(scale(-3, 1.1), -3);
        assert_eq!(scale(-10, 1.5), -15);
        assert_eq!(scale(1_000_000_000, 1.1), 1_100_000_000);
        assert_eq!(scale(0, 1e300), 0);
        assert_eq!(scale(i64::MAX, 2.0), i64::MAX);
        assert_eq!(scale(i64::MIN + 1, 2.0), -i64::MAX);
    }

    #[test]
    fn a_product_beyond_64_significant_bits_rounds_to_nearest_even_first() {
        // 2^62 - 1 (62 bits) times 1.5 (3 * 2^-1) needs 64 bits: exact.
        assert_eq!(scale((1 << 62) - 1, 1.5), ((1i64 << 62) - 1) / 2 * 3 + 1);
        // (2^63 - 1) * (1 + 2^-52) needs 116 bits; its 64-bit rounding ends in 2^63 - 1 +
        // 2^11, beyond i64: saturated, as rclcpp would throw.
        assert_eq!(scale(i64::MAX, 1.0 + f64::EPSILON), i64::MAX);
        // 2^62 + 1 times (1 + 2^-52): 2^62 + 1 + 2^10 + 2^-52, which 64 bits round to
        // 2^62 + 1 + 2^10 (the fraction is below half of the last place, 1).
        assert_eq!(
            scale((1 << 62) + 1, 1.0 + f64::EPSILON),
            (1 << 62) + 1 + (1 << 10)
        );
    }
}
