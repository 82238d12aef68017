//! The synchronization policies driven by hand, with message_filters' own test sequences
//! (ROS 2 Jazzy's `message_filters/test/*.cpp`): the inputs, and the sets expected out,
//! are the peer's.
//!
//! message_filters calls the callback from inside `add`; here a set is taken after each
//! add, which sees the same sets in the same order. Items are the stamps' whole seconds (or
//! a value that names the item), so a set shows which items were matched.

use std::time::Duration;

use tacto::Time;
use tacto::sync::{
    ApproximateEpsilonTime, ApproximateTime, ExactTime, MAX_INPUTS, Policy, SyncError,
};

/// `rclcpp::Time(sec, 0)`.
fn t(sec: i64) -> Time {
    Time::from_nanos(sec * 1_000_000_000)
}

/// Adds `(second, input)` pairs in order to a 2-input policy, taking every set as it comes.
fn run2<P: Policy<Set = (i64, i64)>>(policy: &mut P, input: &[(i64, usize)]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for &(sec, topic) in input {
        match topic {
            0 => policy.add::<0>(t(sec), sec),
            _ => policy.add::<1>(t(sec), sec),
        }
        out.extend(std::iter::from_fn(|| policy.take()));
    }
    out
}

/// [`run2`] for 4 inputs.
fn run4<P: Policy<Set = (i64, i64, i64, i64)>>(
    policy: &mut P,
    input: &[(i64, usize)],
) -> Vec<(i64, i64, i64, i64)> {
    let mut out = Vec::new();
    for &(sec, topic) in input {
        match topic {
            0 => policy.add::<0>(t(sec), sec),
            1 => policy.add::<1>(t(sec), sec),
            2 => policy.add::<2>(t(sec), sec),
            _ => policy.add::<3>(t(sec), sec),
        }
        out.extend(std::iter::from_fn(|| policy.take()));
    }
    out
}

fn approximate2(queue_size: usize) -> ApproximateTime<(i64, i64)> {
    ApproximateTime::new(queue_size).unwrap()
}

// ---------------------------------------------------------------------------------------
// From message_filters/test/test_approximate_time_policy.cpp (TEST(ApproxTimeSync, ...)).
// ---------------------------------------------------------------------------------------

#[test]
fn approximate_time_matches_an_exact_match_at_once() {
    // Input A:  a..b..c
    // Input B:  A..B..C
    // Output:   a..b..c
    //           A..B..C
    let input = [(0, 0), (0, 1), (3, 0), (3, 1), (6, 0), (6, 1)];
    let out = run2(&mut approximate2(10), &input);
    assert_eq!(out, [(0, 0), (3, 3), (6, 6)]);
}

#[test]
fn approximate_time_matches_a_perfect_match_once_later_items_arrive() {
    // Input A:  a..b..c.
    // Input B:  .A..B..C
    // Output:   ...a..b.
    //           ...A..B.
    let input = [(0, 0), (1, 1), (3, 0), (4, 1), (6, 0), (7, 1)];
    let out = run2(&mut approximate2(10), &input);
    assert_eq!(out, [(0, 1), (3, 4)]);
}

#[test]
fn approximate_time_passes_over_items_of_an_imperfect_match() {
    // Input A:  a.xb..c.
    // Input B:  .A...B.C
    // Output:   ..a...c.
    //           ..A...B.
    let input = [(0, 0), (1, 1), (2, 0), (3, 0), (5, 1), (6, 0), (7, 1)];
    let out = run2(&mut approximate2(10), &input);
    assert_eq!(out, [(0, 1), (6, 5)]);
}

#[test]
fn approximate_time_follows_an_accelerating_input() {
    // Time:     0123456789012345678
    // Input A:  a...........b....c.
    // Input B:  .......A.......B..C
    // Output:   ............b.....c
    //           ............A.....C
    let input = [(0, 0), (7, 1), (12, 0), (15, 1), (17, 0), (18, 1)];
    let out = run2(&mut approximate2(10), &input);
    assert_eq!(out, [(12, 7), (17, 18)]);
}

/// Time:     012345678901234
/// Input A:  a...b...c.d..e.
/// Input B:  .A.B...C...D..E
const DROPPED_MESSAGES: [(i64, usize); 10] = [
    (0, 0),
    (1, 1),
    (3, 1),
    (4, 0),
    (7, 1),
    (8, 0),
    (10, 0),
    (11, 1),
    (13, 0),
    (14, 1),
];

#[test]
fn approximate_time_with_a_queue_of_one_drops_items() {
    // Queue size 1 (too small)
    // Output:   .......b.....d.
    //           .......B.....D.
    let mut policy = approximate2(1);
    let out = run2(&mut policy, &DROPPED_MESSAGES);
    assert_eq!(out, [(4, 3), (10, 11)]);
    // Not in the peer's test: the items left unmatched were counted (a, A, c, C; e and E
    // still wait in the queues).
    assert_eq!(policy.stats().dropped(), [2, 2]);
}

#[test]
fn approximate_time_with_a_queue_of_two_matches_them_all() {
    // Queue size 2 (just enough)
    // Output:   ....a..b...c.d.
    //           ....A..B...C.D.
    let out = run2(&mut approximate2(2), &DROPPED_MESSAGES);
    assert_eq!(out, [(0, 1), (4, 3), (8, 7), (10, 11)]);
}

#[test]
fn approximate_time_with_a_long_queue_matches_across_it() {
    // Queue size 5
    // Time:     012345678901234
    // Input A:  abcdefghiklmnp.
    // Input B:  ...j......o....
    // Output:   ..........l....
    //           ..........o....
    let mut input: Vec<(i64, usize)> = (0..=8).map(|s| (s, 0)).collect();
    input.push((3, 1)); // j
    input.extend((9..=12).map(|s| (s, 0))); // k l m n
    input.push((10, 1)); // o
    input.push((13, 0)); // p
    let out = run2(&mut approximate2(5), &input);
    assert_eq!(out, [(10, 10)]);
}

#[test]
fn approximate_time_outputs_two_sets_on_one_arrival() {
    // Input A:  a..b
    // Input B:  .A.B
    // Output:   ...b
    //           ...B
    //              +
    //              a
    //              A
    let input = [(0, 0), (1, 1), (3, 1), (3, 0)];
    let out = run2(&mut approximate2(10), &input);
    assert_eq!(out, [(0, 1), (3, 3)]);
}

#[test]
fn approximate_time_matches_four_inputs() {
    // Time:     012345678901234
    // Input A:  a....e..i.m..n.
    // Input B:  .b....g..j....o
    // Input C:  ..c...h...k....
    // Input D:  ...d.f.....l...
    // Output:   ......a....e..m
    //           ......b....g..j
    //           ......c....h..k
    //           ......d....f..l
    let input = [
        (0, 0),  // a
        (1, 1),  // b
        (2, 2),  // c
        (3, 3),  // d
        (5, 0),  // e
        (5, 3),  // f
        (6, 1),  // g
        (6, 2),  // h
        (8, 0),  // i
        (9, 1),  // j
        (10, 2), // k
        (11, 3), // l
        (10, 0), // m
        (13, 0), // n
        (14, 1), // o
    ];
    let mut policy = ApproximateTime::<(i64, i64, i64, i64)>::new(10).unwrap();
    let out = run4(&mut policy, &input);
    assert_eq!(out, [(0, 1, 2, 3), (5, 6, 6, 5), (10, 9, 10, 11)]);
}

#[test]
fn approximate_time_publishes_once_every_input_has_a_later_item() {
    // Time:     012345678901234
    // Input A:  a......e
    // Input B:  .b......
    // Input C:  ..c.....
    // Input D:  ...d....
    // Output:   .......a
    //           .......b
    //           .......c
    //           .......d
    let input = [(0, 0), (1, 1), (2, 2), (3, 3), (7, 0)];
    let mut policy = ApproximateTime::<(i64, i64, i64, i64)>::new(10).unwrap();
    let out = run4(&mut policy, &input);
    assert_eq!(out, [(0, 1, 2, 3)]);
}

/// Input A:  a..b..c.
/// Input B:  .A..B..C
const RATE_BOUND: [(i64, usize); 6] = [(0, 0), (1, 1), (3, 0), (4, 1), (6, 0), (7, 1)];

#[test]
fn approximate_time_with_a_loose_rate_bound_waits_as_without() {
    // Rate bound A: 1.5
    // Output:   .a..b...
    //           .A..B...
    let mut policy = approximate2(10)
        .inter_message_lower_bound(0, Duration::from_millis(1500))
        .unwrap();
    let out = run2(&mut policy, &RATE_BOUND);
    assert_eq!(out, [(0, 1), (3, 4)]);
}

#[test]
fn approximate_time_with_a_tight_rate_bound_proves_a_set_without_waiting() {
    // Rate bound A: 2
    // Output:   .a..b..c
    //           .A..B..C
    let mut policy = approximate2(10)
        .inter_message_lower_bound(0, Duration::from_secs(2))
        .unwrap();
    let out = run2(&mut policy, &RATE_BOUND);
    assert_eq!(out, [(0, 1), (3, 4), (6, 7)]);
}

// ---------------------------------------------------------------------------------------
// From message_filters/test/test_approximate_epsilon_time_policy.cpp
// (TEST(ApproxTimeSync, ...) there).
// ---------------------------------------------------------------------------------------

fn epsilon2(epsilon: Duration) -> ApproximateEpsilonTime<(i64, i64)> {
    ApproximateEpsilonTime::new(10, epsilon).unwrap()
}

#[test]
fn approximate_epsilon_time_matches_an_exact_match() {
    // Input A:  a..b..c
    // Input B:  A..B..C
    // Output:   a..b..c
    //           A..B..C
    let input = [(0, 0), (0, 1), (3, 0), (3, 1), (6, 0), (6, 1)];
    let out = run2(&mut epsilon2(Duration::from_millis(500)), &input);
    assert_eq!(out, [(0, 0), (3, 3), (6, 6)]);
}

#[test]
fn approximate_epsilon_time_matches_items_within_epsilon_at_once() {
    // Input A:  a..b..c.
    // Input B:  .A..B..C
    // Output:   ...a..b.c
    //           ...A..B.C
    let input = [(0, 0), (1, 1), (3, 0), (4, 1), (6, 0), (7, 1)];
    let out = run2(&mut epsilon2(Duration::from_millis(1500)), &input);
    assert_eq!(out, [(0, 1), (3, 4), (6, 7)]);
}

#[test]
fn approximate_epsilon_time_drops_an_item_out_of_epsilon() {
    // Input A:  a.xb..c.
    // Input B:  .A...B.C
    // Output:   ..a...b.c
    //           ..A...B.C
    let input = [(0, 0), (1, 1), (2, 0), (3, 0), (4, 1), (6, 0), (7, 1)];
    let mut policy = epsilon2(Duration::from_millis(1500));
    let out = run2(&mut policy, &input);
    assert_eq!(out, [(0, 1), (3, 4), (6, 7)]);
    // Not in the peer's test: x was the one item left out.
    assert_eq!(policy.stats().dropped(), [1, 0]);
}

// ---------------------------------------------------------------------------------------
// From message_filters/test/test_exact_time_policy.cpp (TEST(ExactTime, ...)) and
// message_filters/test/time_synchronizer_unittest.cpp (TEST(TimeSynchronizer, ...)), which
// drives the same policy through `TimeSynchronizer` with the same sequences.
// ---------------------------------------------------------------------------------------

/// `rclcpp::Time(100000000)`: 0.1 s.
const T_100MS: Time = Time::from_nanos(100_000_000);

#[test]
fn exact_time_matches_the_stamp_that_every_input_has() {
    // multipleTimes
    let mut policy = ExactTime::<(u8, u8, u8)>::new(2).unwrap();
    policy.add::<0>(Time::ZERO, 0);
    assert_eq!(policy.ready(), 0);
    policy.add::<1>(T_100MS, 1);
    assert_eq!(policy.ready(), 0);
    policy.add::<0>(T_100MS, 1);
    assert_eq!(policy.ready(), 0);
    policy.add::<2>(T_100MS, 1);
    assert_eq!(policy.ready(), 1);
    assert_eq!(policy.take(), Some((1, 1, 1)));
}

#[test]
fn exact_time_with_a_queue_of_one_fills_one_stamp_at_a_time() {
    // queueSize
    let mut policy = ExactTime::<(u8, u8, u8)>::new(1).unwrap();
    policy.add::<0>(Time::ZERO, 0);
    policy.add::<1>(Time::ZERO, 0);
    assert_eq!(policy.ready(), 0);
    policy.add::<1>(T_100MS, 1);
    assert_eq!(policy.ready(), 0);
    policy.add::<1>(Time::ZERO, 0);
    assert_eq!(policy.ready(), 0);
    policy.add::<2>(Time::ZERO, 0);
    assert_eq!(policy.ready(), 0);
    assert_eq!(policy.stats().matched(), 0);
}

#[test]
fn exact_time_counts_a_set_dropped_from_a_full_queue() {
    // dropCallback: the drop callback is called once, for the set of stamp 0.
    let mut policy = ExactTime::<(u8, u8)>::new(1).unwrap();
    policy.add::<0>(Time::ZERO, 0);
    assert_eq!(policy.stats().dropped(), [0, 0]);
    policy.add::<0>(T_100MS, 1);
    assert_eq!(policy.stats().dropped(), [1, 0]);
}

#[test]
fn exact_time_hands_out_the_items_it_was_given() {
    // eventInEventOut: the event's receipt time comes out with it.
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Event {
        receipt_time: Time,
    }
    let event = Event { receipt_time: t(4) };
    let mut policy = ExactTime::<(Event, Event)>::new(2).unwrap();
    policy.add::<0>(Time::ZERO, event);
    policy.add::<1>(Time::ZERO, event);
    let (e1, e2) = policy.take().unwrap();
    assert_eq!((e1.receipt_time, e2.receipt_time), (t(4), t(4)));
}

/// From time_synchronizer_unittest.cpp's immediate2 to immediate9: one item per input, all
/// of one stamp, the set out with the last one.
macro_rules! immediate {
    ($name:ident, $($k:tt),+ ; $last:tt) => {
        #[test]
        fn $name() {
            let mut policy = ExactTime::<($(immediate!(@u8 $k),)+ u8)>::new(1).unwrap();
            let stamp = t(1_700_000_000);
            $(
                policy.add::<$k>(stamp, $k);
                assert_eq!(policy.ready(), 0);
            )+
            policy.add::<$last>(stamp, $last);
            assert_eq!(policy.ready(), 1);
        }
    };
    (@u8 $k:tt) => { u8 };
}

immediate!(exact_time_matches_2_inputs_with_the_last_item, 0; 1);
immediate!(exact_time_matches_3_inputs_with_the_last_item, 0, 1; 2);
immediate!(exact_time_matches_4_inputs_with_the_last_item, 0, 1, 2; 3);
immediate!(exact_time_matches_5_inputs_with_the_last_item, 0, 1, 2, 3; 4);
immediate!(exact_time_matches_6_inputs_with_the_last_item, 0, 1, 2, 3, 4; 5);
immediate!(exact_time_matches_7_inputs_with_the_last_item, 0, 1, 2, 3, 4, 5; 6);
immediate!(exact_time_matches_8_inputs_with_the_last_item, 0, 1, 2, 3, 4, 5, 6; 7);
immediate!(exact_time_matches_9_inputs_with_the_last_item, 0, 1, 2, 3, 4, 5, 6, 7; 8);

/// From message_filters/test/test_fuzz.cpp, fuzz_synchronizer: pairs stamped by the clock,
/// each pair matched as its second message arrives, with a queue of one. The peer loops for
/// 5 s of wall time; the same loop over 10 000 clock readings here.
#[test]
fn exact_time_matches_every_pair_of_clock_stamps_with_a_queue_of_one() {
    let mut policy = ExactTime::<(f32, f32)>::new(1).unwrap();
    let start = std::time::SystemTime::now();
    for i in 0..10_000u16 {
        let now = start.elapsed().unwrap_or_default();
        let stamp = Time::from_nanos(now.as_nanos() as i64);
        policy.add::<0>(stamp, f32::from(i));
        assert_eq!(policy.ready(), 0);
        policy.add::<1>(stamp, -f32::from(i));
        assert_eq!(policy.take(), Some((f32::from(i), -f32::from(i))));
    }
}

// ---------------------------------------------------------------------------------------
// tacto's own: bounds, counts and refused settings, where message_filters asserts or has
// no counterpart.
// ---------------------------------------------------------------------------------------

#[test]
fn a_queue_size_of_zero_is_refused_by_every_policy() {
    assert_eq!(
        ExactTime::<(u8, u8)>::new(0).unwrap_err(),
        SyncError::ZeroQueueSize
    );
    assert_eq!(
        ApproximateTime::<(u8, u8)>::new(0).unwrap_err(),
        SyncError::ZeroQueueSize
    );
    assert_eq!(
        ApproximateEpsilonTime::<(u8, u8)>::new(0, Duration::ZERO).unwrap_err(),
        SyncError::ZeroQueueSize
    );
}

#[test]
fn a_negative_or_nan_age_penalty_is_refused() {
    for bad in [-0.1, f64::NAN, f64::INFINITY] {
        let error = approximate2(2).age_penalty(bad).unwrap_err();
        assert!(matches!(error, SyncError::AgePenalty(_)), "{bad}");
        assert!(error.to_string().contains("at least 0"));
    }
}

#[test]
fn a_lower_bound_for_an_input_the_set_lacks_is_refused() {
    let error = approximate2(2)
        .inter_message_lower_bound(2, Duration::from_secs(1))
        .unwrap_err();
    assert_eq!(
        error,
        SyncError::NoSuchInput {
            input: 2,
            inputs: 2
        }
    );
    assert_eq!(
        error.to_string(),
        "input 2 does not exist: the policy's sets have inputs 0 to 1"
    );
}

#[test]
fn an_input_that_never_matches_keeps_at_most_its_queue() {
    let mut policy = approximate2(3);
    for sec in 0..1000 {
        policy.add::<0>(t(sec), sec);
    }
    assert_eq!(policy.take(), None);
    assert_eq!(policy.stats().dropped(), [997, 0]);
    // The three newest wait: a match for the newest comes out once both inputs move on.
    policy.add::<1>(t(999), 999);
    policy.add::<0>(t(1000), 1000);
    policy.add::<1>(t(1000), 1000);
    assert_eq!(policy.take(), Some((999, 999)));
}

#[test]
fn exact_time_never_fills_more_stamps_than_its_queue() {
    let mut policy = ExactTime::<(i64, i64)>::new(4).unwrap();
    for sec in 0..100 {
        policy.add::<0>(t(sec), sec);
    }
    assert_eq!(policy.stats().dropped(), [96, 0]);
    policy.add::<1>(t(99), 99);
    assert_eq!(policy.take(), Some((99, 99)));
    // The older stamps 96 to 98 can no longer be matched in order: dropped.
    assert_eq!(policy.stats().dropped(), [99, 0]);
}

#[test]
fn exact_time_counts_an_item_replaced_by_one_of_the_same_stamp() {
    let mut policy = ExactTime::<(&str, &str)>::new(4).unwrap();
    policy.add::<0>(t(1), "first");
    policy.add::<0>(t(1), "second");
    policy.add::<1>(t(1), "other");
    assert_eq!(policy.take(), Some(("second", "other")));
    assert_eq!(policy.stats().dropped(), [1, 0]);
}

#[test]
fn matched_sets_not_taken_beyond_the_queue_size_drop_the_oldest() {
    let mut policy = ExactTime::<(i64, i64)>::new(2).unwrap();
    for sec in 0..5 {
        policy.add::<0>(t(sec), sec);
        policy.add::<1>(t(sec), sec);
    }
    assert_eq!(policy.stats().matched(), 5);
    assert_eq!(policy.ready(), 2);
    assert_eq!(policy.take(), Some((3, 3)));
    assert_eq!(policy.take(), Some((4, 4)));
    assert_eq!(policy.stats().dropped(), [3, 3]);
}

#[test]
fn a_stamp_going_backwards_is_matched_and_never_panics() {
    // message_filters logs it once and goes on; so does tacto. Whatever the order, the
    // policy stays within its bounds.
    let mut approximate = approximate2(4);
    let mut exact = ExactTime::<(i64, i64)>::new(4).unwrap();
    let mut epsilon = epsilon2(Duration::from_millis(500));
    let stamps = [5, 3, 9, 1, 1, 7, 2, 8, 0, 6, i64::MAX / 2_000_000_000, -4];
    let mut input = 0;
    for (i, &sec) in stamps.iter().cycle().take(200).enumerate() {
        input = (input + i % 3) % 2;
        let out = [
            run2(&mut approximate, &[(sec, input)]).len(),
            run2(&mut exact, &[(sec, input)]).len(),
            run2(&mut epsilon, &[(sec, input)]).len(),
        ];
        assert!(out.iter().all(|&n| n <= 4), "{out:?}");
    }
    for stats in [approximate.stats(), exact.stats(), epsilon.stats()] {
        assert_eq!(stats.dropped().len(), 2);
        let matched = stats.matched() * 2;
        let dropped: u64 = stats.dropped().iter().sum();
        assert!(matched + dropped <= 200, "{stats:?}");
        assert!(matched + dropped >= 200 - 2 * 5, "{stats:?}");
    }
}

#[test]
fn a_policy_has_at_most_nine_inputs() {
    assert_eq!(MAX_INPUTS, 9);
    let mut policy = ApproximateTime::<(u8, u8, u8, u8, u8, u8, u8, u8, u8)>::new(2).unwrap();
    policy.add::<8>(t(0), 8);
    assert_eq!(policy.stats().dropped().len(), 9);
}
