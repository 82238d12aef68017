//! What a lookup costs: `lookup_transform` across a chain of ten frames at a time between two
//! samples of every link (nine interpolations and their composition), beside the same lookup
//! at time zero (the latest common time's walk first), `can_transform`, and one link.
//!
//! ```sh
//! cargo bench -p tacto-tf --bench lookup          # or: ... -- ROUNDS
//! ```
//!
//! Each figure is the best of ROUNDS rounds of N calls, in nanoseconds per call. Every link
//! holds ten seconds at 100 Hz (1001 samples), rotating and moving, as a robot's joints do.

use std::hint::black_box;
use std::time::Instant;

use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_tf::Buffer;

const N: u32 = 200_000;
const FRAMES: usize = 10;
const SAMPLES: i64 = 1001;
const PERIOD_NANOS: i64 = 10_000_000;

fn best_ns_per_call(rounds: u32, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..N {
                f();
            }
            start.elapsed().as_secs_f64() * 1e9 / f64::from(N)
        })
        .fold(f64::INFINITY, f64::min)
}

fn chain() -> Buffer {
    let buffer = Buffer::new();
    let mut t = TransformStamped::default();
    for i in 0..SAMPLES {
        let stamp = Time::from_nanos(1_000_000_000 + i * PERIOD_NANOS);
        t.header.stamp = stamp.into();
        let angle = i as f64 * 0.001;
        for link in 1..FRAMES {
            t.header.frame_id = format!("frame_{}", link - 1);
            t.child_frame_id = format!("frame_{link}");
            t.transform.translation.x = 0.1 * link as f64 + angle;
            t.transform.rotation.z = (angle / 2.0).sin();
            t.transform.rotation.w = (angle / 2.0).cos();
            buffer
                .set_transform(&t, "bench", false)
                .expect("a valid transform");
        }
    }
    buffer
}

fn main() {
    let rounds: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10);
    let buffer = chain();
    let leaf = format!("frame_{}", FRAMES - 1);
    // Between two samples, two thirds of the way, in the middle of the history.
    let between = Time::from_nanos(1_000_000_000 + 500 * PERIOD_NANOS + 6_666_667);
    buffer
        .lookup_transform("frame_0", &leaf, between)
        .expect("the chain has data at that time");

    println!("tf buffer lookups, {FRAMES}-frame chain, best of {rounds} rounds of {N} calls");
    let chain_ns = best_ns_per_call(rounds, || {
        black_box(buffer.lookup_transform("frame_0", black_box(&leaf), black_box(between))).ok();
    });
    println!("  lookup_transform, interpolated:     {chain_ns:8.1} ns");
    let latest_ns = best_ns_per_call(rounds, || {
        black_box(buffer.lookup_transform("frame_0", black_box(&leaf), Time::ZERO)).ok();
    });
    println!("  lookup_transform, time zero:        {latest_ns:8.1} ns");
    let can_ns = best_ns_per_call(rounds, || {
        black_box(buffer.can_transform("frame_0", black_box(&leaf), black_box(between))).ok();
    });
    println!("  can_transform, interpolated time:   {can_ns:8.1} ns");
    let link_ns = best_ns_per_call(rounds, || {
        black_box(buffer.lookup_transform("frame_0", black_box("frame_1"), black_box(between)))
            .ok();
    });
    println!("  lookup_transform, one link:         {link_ns:8.1} ns");
    println!(
        "  per link of the chain:              {:8.1} ns  (target: the chain's lookup <= 1000 ns)",
        chain_ns / (FRAMES - 1) as f64
    );
}
