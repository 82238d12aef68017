//! What a node pays to read a parameter through a typed handle while nothing changes,
//! against a plain atomic load in the same run, and after each set (the refresh).
//!
//! ```sh
//! cargo bench -p tacto --bench parameter_handle          # or: ... -- ROUNDS
//! ```
//!
//! Each figure is the best of ROUNDS rounds of N reads, in nanoseconds per read; the ratio
//! handle / atomic is the one to compare across machines.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tacto::params::{Parameter, ParameterStore};

const N: u32 = 10_000_000;

fn best_ns_per_read(rounds: u32, mut f: impl FnMut()) -> f64 {
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
    let store = ParameterStore::builder("/bench").build().unwrap();
    store.declare("gain", 0.5).unwrap();
    let mut gain = store.handle::<f64>("gain").unwrap();
    let plain = AtomicU64::new(0.5f64.to_bits());

    let atomic = best_ns_per_read(rounds, || {
        black_box(f64::from_bits(black_box(&plain).load(Ordering::Acquire)));
    });
    let handle = best_ns_per_read(rounds, || {
        black_box(*black_box(&mut gain).get());
    });
    let get_parameter = best_ns_per_read(rounds.min(3), || {
        black_box(store.get_parameter(black_box("gain")).unwrap());
    });
    // A set, then the first read that converts the new value: the cost of a change.
    let mut value = 0.0;
    let sets = 100_000;
    let start = Instant::now();
    for _ in 0..sets {
        value += 1.0;
        store.set_parameter(Parameter::new("gain", value));
        black_box(*gain.get());
    }
    let set_and_refresh = start.elapsed().as_secs_f64() * 1e9 / f64::from(sets);
    assert_eq!(*gain.get(), value);

    println!("read, nothing changed (ns per read, best of {rounds} x {N}):");
    println!("  plain atomic load (AtomicU64 -> f64)  {atomic:8.2}");
    println!(
        "  ParameterHandle::<f64>::get           {handle:8.2}   ({:.2}x the atomic load)",
        handle / atomic
    );
    println!(
        "  ParameterStore::get_parameter         {get_parameter:8.2}   (lock, map lookup, clone)"
    );
    println!("a change (ns): set_parameter + the next get  {set_and_refresh:8.0}");
}
