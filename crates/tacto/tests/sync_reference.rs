//! `ApproximateTime` against message_filters' algorithm as its source writes it.
//!
//! tacto keeps each input's `past` vector and deque as one queue, and its candidate as the
//! queues' fronts (see `sync/approximate.rs`). [`Reference`] below is
//! `message_filters/include/message_filters/sync_policies/approximate_time.h` (Jazzy)
//! transliterated line by line instead: separate deques and past vectors, the candidate a
//! copy, `num_non_empty_deques_` counted as there. Random sequences (out-of-order stamps,
//! small queues, lower bounds, age penalties and interval limits included) must give the
//! same sets and the same drops from both.

use std::collections::VecDeque;
use std::time::Duration;

use tacto::Time;
use tacto::sync::{ApproximateTime, Policy};

/// An item: its stamp (ns) and a name, `input * 1_000_000 + sequence`.
type Item = (i64, u32);

const N: usize = 3;

struct Reference {
    queue_size: usize,
    deques: [VecDeque<Item>; N],
    past: [Vec<Item>; N],
    candidate: Option<[Item; N]>,
    candidate_start: i64,
    candidate_end: i64,
    pivot_time: i64,
    pivot: Option<usize>,
    num_non_empty_deques: usize,
    max_interval_duration: i64,
    age_penalty: f64,
    has_dropped_messages: [bool; N],
    inter_message_lower_bounds: [i64; N],
    out: Vec<[u32; N]>,
    dropped: [u64; N],
}

impl Reference {
    fn new(queue_size: usize) -> Self {
        Reference {
            queue_size,
            deques: Default::default(),
            past: Default::default(),
            candidate: None,
            candidate_start: 0,
            candidate_end: 0,
            pivot_time: 0,
            pivot: None,
            num_non_empty_deques: 0,
            max_interval_duration: i32::MAX as i64 * 1_000_000_000 + 999_999_999,
            age_penalty: 0.1,
            has_dropped_messages: [false; N],
            inter_message_lower_bounds: [0; N],
            out: Vec::new(),
            dropped: [0; N],
        }
    }

    /// `Duration * (1 + age_penalty_)`; the penalties used here make the product exact.
    fn scaled(&self, d: i64) -> i64 {
        (d as f64 * (1.0 + self.age_penalty)) as i64
    }

    fn add(&mut self, i: usize, evt: Item) {
        self.deques[i].push_back(evt);
        if self.deques[i].len() == 1 {
            self.num_non_empty_deques += 1;
            if self.num_non_empty_deques == N {
                self.process();
            }
        }
        if self.deques[i].len() + self.past[i].len() > self.queue_size {
            self.num_non_empty_deques = 0;
            for j in 0..N {
                self.recover(j);
            }
            self.deques[i].pop_front();
            self.dropped[i] += 1;
            self.has_dropped_messages[i] = true;
            if self.pivot.is_some() {
                self.candidate = None;
                self.pivot = None;
                self.process();
            }
        }
    }

    fn deque_delete_front(&mut self, i: usize) {
        self.deques[i].pop_front();
        self.dropped[i] += 1;
        if self.deques[i].is_empty() {
            self.num_non_empty_deques -= 1;
        }
    }

    fn deque_move_front_to_past(&mut self, i: usize) {
        let front = self.deques[i].pop_front().unwrap();
        self.past[i].push(front);
        if self.deques[i].is_empty() {
            self.num_non_empty_deques -= 1;
        }
    }

    fn make_candidate(&mut self) {
        self.candidate = Some(std::array::from_fn(|i| self.deques[i][0]));
        for i in 0..N {
            self.dropped[i] += self.past[i].len() as u64;
            self.past[i].clear();
        }
    }

    fn recover_n(&mut self, i: usize, mut num_messages: usize) {
        while num_messages > 0 {
            let back = self.past[i].pop().unwrap();
            self.deques[i].push_front(back);
            num_messages -= 1;
        }
        if !self.deques[i].is_empty() {
            self.num_non_empty_deques += 1;
        }
    }

    fn recover(&mut self, i: usize) {
        while let Some(back) = self.past[i].pop() {
            self.deques[i].push_front(back);
        }
        if !self.deques[i].is_empty() {
            self.num_non_empty_deques += 1;
        }
    }

    fn recover_and_delete(&mut self, i: usize) {
        while let Some(back) = self.past[i].pop() {
            self.deques[i].push_front(back);
        }
        self.deques[i].pop_front();
        if !self.deques[i].is_empty() {
            self.num_non_empty_deques += 1;
        }
    }

    fn publish_candidate(&mut self) {
        let candidate = self.candidate.take().unwrap();
        self.out.push(candidate.map(|(_, name)| name));
        self.pivot = None;
        self.num_non_empty_deques = 0;
        for i in 0..N {
            self.recover_and_delete(i);
        }
    }

    fn get_candidate_boundary(&self, end: bool) -> (usize, i64) {
        let mut time = self.deques[0][0].0;
        let mut index = 0;
        for i in 1..N {
            let t = self.deques[i][0].0;
            if (t < time) ^ end {
                time = t;
                index = i;
            }
        }
        (index, time)
    }

    fn get_virtual_time(&self, i: usize) -> i64 {
        if self.deques[i].is_empty() {
            let last_msg_time = self.past[i].last().unwrap().0;
            let msg_time_lower_bound = last_msg_time + self.inter_message_lower_bounds[i];
            if msg_time_lower_bound > self.pivot_time {
                return msg_time_lower_bound;
            }
            return self.pivot_time;
        }
        self.deques[i][0].0
    }

    fn get_virtual_candidate_boundary(&self, end: bool) -> (usize, i64) {
        let virtual_times: Vec<i64> = (0..N).map(|i| self.get_virtual_time(i)).collect();
        let mut time = virtual_times[0];
        let mut index = 0;
        for (i, &t) in virtual_times.iter().enumerate() {
            if (t < time) ^ end {
                time = t;
                index = i;
            }
        }
        (index, time)
    }

    // Two branches publish alike, as in the source (its comment: the second case "is
    // subsumed by the next, but it may save some unnecessary work").
    #[allow(clippy::if_same_then_else)]
    fn process(&mut self) {
        while self.num_non_empty_deques == N {
            let (end_index, end_time) = self.get_candidate_boundary(true);
            let (start_index, start_time) = self.get_candidate_boundary(false);
            for i in 0..N {
                if i != end_index {
                    self.has_dropped_messages[i] = false;
                }
            }
            if self.pivot.is_none() {
                if end_time - start_time > self.max_interval_duration {
                    self.deque_delete_front(start_index);
                    continue;
                }
                if self.has_dropped_messages[end_index] {
                    self.deque_delete_front(start_index);
                    continue;
                }
                self.make_candidate();
                self.candidate_start = start_time;
                self.candidate_end = end_time;
                self.pivot = Some(end_index);
                self.pivot_time = end_time;
                self.deque_move_front_to_past(start_index);
            } else if self.scaled(end_time - self.candidate_end)
                >= start_time - self.candidate_start
            {
                self.deque_move_front_to_past(start_index);
            } else {
                self.make_candidate();
                self.candidate_start = start_time;
                self.candidate_end = end_time;
                self.deque_move_front_to_past(start_index);
            }
            if Some(start_index) == self.pivot {
                self.publish_candidate();
            } else if self.scaled(end_time - self.candidate_end)
                >= self.pivot_time - self.candidate_start
            {
                self.publish_candidate();
            } else if self.num_non_empty_deques < N {
                let mut num_virtual_moves = [0; N];
                loop {
                    let (_, end_time) = self.get_virtual_candidate_boundary(true);
                    let (start_index, start_time) = self.get_virtual_candidate_boundary(false);
                    if self.scaled(end_time - self.candidate_end)
                        >= self.pivot_time - self.candidate_start
                    {
                        self.publish_candidate();
                        break;
                    }
                    if self.scaled(end_time - self.candidate_end)
                        < start_time - self.candidate_start
                    {
                        self.num_non_empty_deques = 0;
                        for (i, &moves) in num_virtual_moves.iter().enumerate() {
                            self.recover_n(i, moves);
                        }
                        break;
                    }
                    self.deque_move_front_to_past(start_index);
                    num_virtual_moves[start_index] += 1;
                }
            }
        }
    }
}

/// A small deterministic generator (64-bit LCG), so a failure replays.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

/// One random run: `steps` items on random inputs, stamps in ms that mostly grow.
fn compare(seed: u64, steps: usize) {
    let mut rng = Lcg(seed);
    let queue_size = 1 + rng.next(6) as usize;
    let age_penalty = [0.0, 0.25, 0.5, 1.0][rng.next(4) as usize];
    let max_interval_ms = [5, 20, 1_000_000][rng.next(3) as usize];
    let bounds_ms: [i64; N] = std::array::from_fn(|_| [0, 0, 2, 5][rng.next(4) as usize]);

    let mut reference = Reference::new(queue_size);
    reference.age_penalty = age_penalty;
    reference.max_interval_duration = max_interval_ms * 1_000_000;
    reference.inter_message_lower_bounds = bounds_ms.map(|ms| ms * 1_000_000);
    let mut policy = ApproximateTime::<(u32, u32, u32)>::new(queue_size)
        .unwrap()
        .age_penalty(age_penalty)
        .unwrap()
        .max_interval_duration(Duration::from_millis(max_interval_ms as u64));
    for (input, ms) in bounds_ms.iter().enumerate() {
        let bound = Duration::from_millis(*ms as u64);
        policy = policy.inter_message_lower_bound(input, bound).unwrap();
    }

    let mut clock = 0i64;
    let mut taken = Vec::new();
    for step in 0..steps {
        let input = rng.next(N as u64) as usize;
        // One timeline for all inputs, each item stamped up to 6 ms after it, now and then
        // 10 ms before it: mostly growing stamps, some out of order.
        clock += rng.next(4) as i64;
        let ms = match rng.next(12) {
            0 => clock - 10,
            _ => clock + rng.next(7) as i64,
        };
        let stamp = ms * 1_000_000;
        let name = (input * 1_000_000 + step) as u32;
        reference.add(input, (stamp, name));
        let at = Time::from_nanos(stamp);
        match input {
            0 => policy.add::<0>(at, name),
            1 => policy.add::<1>(at, name),
            _ => policy.add::<2>(at, name),
        }
        while let Some((a, b, c)) = policy.take() {
            taken.push([a, b, c]);
        }
        assert_eq!(taken, reference.out, "seed {seed}, step {step}");
    }
    assert_eq!(policy.stats().dropped(), reference.dropped, "seed {seed}");
}

#[test]
fn approximate_time_gives_the_sets_and_drops_of_message_filters_source_on_random_sequences() {
    for seed in 0..400 {
        compare(seed, 300);
    }
}
