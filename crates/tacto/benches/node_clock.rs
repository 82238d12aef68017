//! What code in an executor pays to read the node's ROS time through a `NodeClock`, against
//! reading the system clock itself in the same run; and what handing every activation a
//! clock of its own would have cost (a clone and a drop of the handle), which the node's code
//! does once instead, when it moves its clock in.
//!
//! ```sh
//! cargo bench -p tacto --bench node_clock          # or: ... -- ROUNDS
//! ```
//!
//! Each figure is the best of ROUNDS rounds of N calls, in nanoseconds per call; the ratios
//! to the system clock are the ones to compare across machines.

use std::hint::black_box;
use std::time::{Instant, SystemTime};

use tacto::msg::{builtin_interfaces, rosgraph_msgs};
use tacto::params::Parameter;
use tacto::{Context, NodeClock};

const N: u32 = 2_000_000;

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

fn main() {
    let rounds: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10);
    let wall = Context::new();
    let clock: NodeClock = wall.node("wall").unwrap().clock();
    let sim = Context::new();
    let node = sim
        .node_builder("sim")
        .parameter_override(Parameter::new("use_sim_time", true))
        .create()
        .unwrap();
    let sim_clock = node.clock();
    let mut simulator = sim.node("simulator").unwrap();
    let publisher = simulator
        .publisher::<rosgraph_msgs::Clock>("/clock")
        .create()
        .unwrap();
    publisher.publish(rosgraph_msgs::Clock {
        clock: builtin_interfaces::Time { sec: 7, nanosec: 0 },
    });
    assert!(sim_clock.is_sim_time() && !clock.is_sim_time());

    let system = best_ns_per_call(rounds, || {
        black_box(SystemTime::now());
    });
    let now = best_ns_per_call(rounds, || {
        black_box(black_box(&clock).now());
    });
    let sim_now = best_ns_per_call(rounds, || {
        black_box(black_box(&sim_clock).now());
    });
    let clone = best_ns_per_call(rounds, || {
        drop(black_box(black_box(&clock).clone()));
    });

    println!("ns per call, best of {rounds} x {N}:");
    println!("  SystemTime::now (clock_gettime)     {system:8.2}");
    println!(
        "  NodeClock::now, system time         {now:8.2}   ({:.2}x the system clock)",
        now / system
    );
    println!(
        "  NodeClock::now, sim time            {sim_now:8.2}   ({:.2}x the system clock)",
        sim_now / system
    );
    println!(
        "  NodeClock clone + drop              {clone:8.2}   (per activation, had each carried one)"
    );
}
