//! What a log call costs its caller: a record below its logger's level (`debug!` at the default
//! INFO) against a plain atomic load and compare, the same through the `log` facade, and a
//! written record (formatted and queued; the logging thread writes it, to no console here).
//! Nanoseconds per call, best of R rounds, all in one run so the ratios compare like with like.
//!
//! ```sh
//! cargo bench -p tacto --bench logging            # or: ... --bench logging -- ROUNDS
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use tacto::logging::{self, Config, Logger, Severity};

const CALLS: u32 = 10_000_000;
/// Fewer written records per round: the queue holds 4096, and a round that outruns the
/// logging thread measures drops.
const WRITTEN: u32 = 2_000;

fn best(rounds: u32, calls: u32, mut f: impl FnMut(u32)) -> f64 {
    let fastest = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for i in 0..calls {
                f(i);
            }
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO);
    fastest.as_secs_f64() * 1e9 / f64::from(calls)
}

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let _flush = logging::init(Config {
        console: false,
        rosout: false,
        ..Config::default()
    });
    let logger = Logger::get("bench");
    assert!(!logger.is_enabled_for(Severity::Debug));

    // What the check is at its least: the level in an atomic, loaded and compared.
    static LEVEL: AtomicU8 = AtomicU8::new(Severity::Info as u8);
    let atomic = best(rounds, CALLS, |i| {
        if Severity::Debug as u8 >= black_box(&LEVEL).load(Ordering::Relaxed) {
            black_box(i);
        }
    });
    let disabled = best(rounds, CALLS, |i| {
        tacto::debug!(black_box(&logger), "x = {}", black_box(i));
    });
    let facade = best(rounds, CALLS, |i| {
        log::debug!(target: "bench", "x = {}", black_box(i));
    });
    let written = best(rounds, WRITTEN, |i| {
        tacto::info!(logger, "x = {}", black_box(i));
        if i == WRITTEN - 1 {
            // Each round starts with an empty queue.
            logging::flush();
        }
    });
    println!("ns per call, best of {rounds} rounds");
    println!("atomic load and compare      {atomic:7.2}");
    println!(
        "debug! below the level       {disabled:7.2}   ({:.2}x the atomic)",
        disabled / atomic
    );
    println!(
        "log::debug! below the level  {facade:7.2}   ({:.2}x the atomic)",
        facade / atomic
    );
    println!("info! written (queued)       {written:7.2}");
    println!("records dropped: {}", logging::dropped());
}
