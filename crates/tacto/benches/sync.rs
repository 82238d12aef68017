//! What matching costs per sample: each synchronization policy driven by hand, for 2 and 3
//! inputs at queue size 10, and a synchronizer fed by subscriptions against the same samples
//! published and taken from plain subscriptions in the same run.
//!
//! ```sh
//! cargo bench -p tacto --bench sync          # or: ... -- ROUNDS
//! ```
//!
//! Each figure is the best of ROUNDS rounds, in nanoseconds per sample added (every input's
//! samples counted); the ratios are the ones to compare across machines. The inputs run at
//! 100 Hz with a few milliseconds of stamp jitter (equal stamps for the exact policy), so
//! approximate matching finds a set for nearly every sample of each input.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::Header;
use tacto::sync::{ApproximateEpsilonTime, ApproximateTime, ExactTime, Policy, Synchronizer};
use tacto::{Context, Node, Publisher, Subscription, Time};

/// Samples per input per round.
const N: usize = 20_000;
const QUEUE: usize = 10;

/// Input `input`'s `i`-th stamp: 10 ms apart, jittered by up to 3 ms unless `exact`.
fn stamp(i: usize, input: usize, exact: bool) -> Time {
    let jitter = match exact {
        true => 0,
        false => ((i * 7 + input * 13) % 7) as i64 * 500_000,
    };
    Time::from_nanos(i as i64 * 10_000_000 + jitter)
}

fn best_ns_per_sample(rounds: u32, samples: usize, mut round: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            round();
            start.elapsed().as_secs_f64() * 1e9 / samples as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn by_hand2<P: Policy<Set = (u64, u64)>>(rounds: u32, exact: bool, new: impl Fn() -> P) -> f64 {
    best_ns_per_sample(rounds, 2 * N, || {
        let mut policy = new();
        for i in 0..N {
            policy.add::<0>(stamp(i, 0, exact), i as u64);
            policy.add::<1>(stamp(i, 1, exact), i as u64);
            while let Some(set) = policy.take() {
                black_box(set);
            }
        }
        black_box(policy.stats());
    })
}

fn by_hand3<P: Policy<Set = (u64, u64, u64)>>(
    rounds: u32,
    exact: bool,
    new: impl Fn() -> P,
) -> f64 {
    best_ns_per_sample(rounds, 3 * N, || {
        let mut policy = new();
        for i in 0..N {
            policy.add::<0>(stamp(i, 0, exact), i as u64);
            policy.add::<1>(stamp(i, 1, exact), i as u64);
            policy.add::<2>(stamp(i, 2, exact), i as u64);
            while let Some(set) = policy.take() {
                black_box(set);
            }
        }
        black_box(policy.stats());
    })
}

fn header(i: usize, input: usize) -> Header {
    Header {
        stamp: stamp(i, input, false).into(),
        frame_id: String::new(),
    }
}

/// A node with two subscriptions, and publishers to them.
fn topics(ctx: &Context) -> (Node, [Subscription<Header>; 2], [Publisher<Header>; 2]) {
    let mut node = ctx.node("fusion").unwrap();
    let subs = ["a", "b"].map(|topic| node.subscription::<Header>(topic).create().unwrap());
    let pubs = ["a", "b"].map(|topic| node.publisher::<Header>(topic).create().unwrap());
    (node, subs, pubs)
}

/// The same samples published, then taken from plain subscriptions, `batch` at a time.
fn plain(rounds: u32, batch: usize) -> f64 {
    let ctx = Context::new();
    let (_node, [a, b], [pa, pb]) = topics(&ctx);
    best_ns_per_sample(rounds, 2 * N, || {
        for start in (0..N).step_by(batch) {
            for i in start..start + batch {
                pa.publish(header(i, 0));
                pb.publish(header(i, 1));
            }
            while let Some(sample) = a.take() {
                black_box(sample);
            }
            while let Some(sample) = b.take() {
                black_box(sample);
            }
        }
    })
}

/// The same samples published, then matched by a synchronizer, `batch` at a time.
fn synchronized(rounds: u32, batch: usize) -> f64 {
    let ctx = Context::new();
    let (_node, [a, b], [pa, pb]) = topics(&ctx);
    let sync = Synchronizer::new(ApproximateTime::new(QUEUE).unwrap(), (a, b));
    // Stamps go on growing from round to round, as a sensor's do.
    let mut round = 0;
    best_ns_per_sample(rounds, 2 * N, || {
        round += 1;
        for start in (round * N..(round + 1) * N).step_by(batch) {
            for i in start..start + batch {
                pa.publish(header(i, 0));
                pb.publish(header(i, 1));
            }
            while let Some(set) = sync.take() {
                black_box(set);
            }
        }
    })
}

fn row(name: &str, ns: f64, base: f64) {
    println!("  {name:<44} {ns:8.1}   ({:.2}x)", ns / base);
}

fn main() {
    let rounds: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10);
    let epsilon = Duration::from_millis(4);

    println!("ns per sample, best of {rounds} rounds of {N} samples per input, queue {QUEUE}:");
    println!("by hand (add, take), against ExactTime with 2 inputs:");
    let exact2 = by_hand2(rounds, true, || ExactTime::new(QUEUE).unwrap());
    row("ExactTime, 2 inputs", exact2, exact2);
    let approx2 = by_hand2(rounds, false, || ApproximateTime::new(QUEUE).unwrap());
    row("ApproximateTime, 2 inputs", approx2, exact2);
    let eps2 = by_hand2(rounds, false, || {
        ApproximateEpsilonTime::new(QUEUE, epsilon).unwrap()
    });
    row("ApproximateEpsilonTime (4 ms), 2 inputs", eps2, exact2);
    let exact3 = by_hand3(rounds, true, || ExactTime::new(QUEUE).unwrap());
    row("ExactTime, 3 inputs", exact3, exact2);
    let approx3 = by_hand3(rounds, false, || ApproximateTime::new(QUEUE).unwrap());
    row("ApproximateTime, 3 inputs", approx3, exact2);
    let eps3 = by_hand3(rounds, false, || {
        ApproximateEpsilonTime::new(QUEUE, epsilon).unwrap()
    });
    row("ApproximateEpsilonTime (4 ms), 3 inputs", eps3, exact2);

    println!("through subscriptions (publish, then take), against plain subscriptions:");
    for batch in [1, 8] {
        let base = plain(rounds, batch);
        row(
            &format!("plain take, {batch} per input at a time"),
            base,
            base,
        );
        let synced = synchronized(rounds, batch);
        let name = format!("ApproximateTime sync, {batch} per input at a time");
        row(&name, synced, base);
    }
}
