//! The worst case of `publish()` on the real-time path: a SCHED_FIFO publisher and a SCHED_FIFO
//! subscriber, alone and then with a normal-priority thread contending for the same locks.
//!
//! ```sh
//! cargo bench --bench worst_case
//! TACTO_BENCH_SECS=20 cargo bench --bench worst_case
//! ```
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `TACTO_BENCH_RATE` | messages per second | 10000 |
//! | `TACTO_BENCH_SECS` | seconds per phase | 5 |
//!
//! The publisher (a sensor driver) runs at SCHED_FIFO 80 on CPU 1 and times every `publish()`
//! of a 64 KiB message into a `KeepLast(4)` subscription, so most publications evict (and
//! free) an older message. The subscriber is a wait-set executor at SCHED_FIFO 70 on CPU 0
//! whose node takes every message. In the second phase a thread of normal priority, also on
//! CPU 0, contends for every lock a publication takes: it polls the same subscription's
//! history, and subscribes and unsubscribes on the topic, without pause. The locks on this
//! path inherit priority, so the contending thread holds them only as long as its own short
//! critical section, boosted, and the publisher's worst case should barely move. A third
//! phase repeats the contended one with `Publisher::loan`, which in steady state neither
//! allocates nor frees on the publisher's thread: glibc's malloc arena lock does not inherit
//! priority, so that is the remedy for what the runtime's own locks cannot cure. The phases
//! run in one process, one after the other, and the table gives their ratios.
//! `docs/benchmarks.md` has a run.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread;
use std::time::Duration;

use tacto::{Context, Executor, ExecutorThread, History, Publisher, Trigger, WaitSetExecutor};

mod os;
use os::{env, monotonic, sleep_until};

/// A 64 KiB payload, large enough that freeing an evicted one is not free.
#[tacto::message("tacto_bench/msg/Frame")]
#[derive(Debug, Clone, Default)]
struct Frame {
    data: Vec<u8>,
}

const TOPIC: &str = "frames";

fn main() {
    let rate: f64 = env("TACTO_BENCH_RATE", 10_000.0);
    let secs: f64 = env("TACTO_BENCH_SECS", 5.0);
    let ctx = Context::new();

    let mut node = ctx.node("rt_subscriber").expect("node");
    let frames = node
        .subscription::<Frame>(TOPIC)
        .history(History::KeepLast(4))
        .create()
        .expect("subscription");
    let probe = frames.probe();
    node.execute(Trigger::on(&frames), move |_| {
        frames.take_all().for_each(drop);
    })
    .expect("trigger");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(node).expect("add");
    let (subscriber, fifo) = match ExecutorThread::builder()
        .cpus(&[0])
        .fifo_priority(70)
        .spawn(executor)
    {
        Ok(thread) => (thread, true),
        Err(e) => {
            eprintln!("SCHED_FIFO refused ({e}); the figures below are at normal priority");
            let mut executor = WaitSetExecutor::new().expect("executor");
            let mut node = ctx.node("subscriber").expect("node");
            let frames = node.subscription::<Frame>(TOPIC).create().expect("sub");
            node.execute(Trigger::on(&frames), move |_| {
                frames.take_all().for_each(drop)
            })
            .expect("trigger");
            executor.add(node).expect("add");
            (
                ExecutorThread::builder().spawn(executor).expect("thread"),
                false,
            )
        }
    };
    let publisher = ctx
        .node("driver")
        .expect("node")
        .publisher::<Frame>(TOPIC)
        .create()
        .expect("publisher");

    let contender = || {
        let mut churn = ctx.node("contender").expect("node");
        let mut i = 0u64;
        let stop = CONTENDING.load(Relaxed);
        while CONTENDING.load(Relaxed) == stop {
            // The subscription's history lock, as a monitoring thread polling it would.
            std::hint::black_box(probe.unread());
            // The topic's subscriber list, as a node starting and stopping would.
            if i % 64 == 0 {
                drop(churn.subscription::<Frame>(TOPIC).create().expect("sub"));
            }
            i += 1;
        }
    };
    let quiet = run_phase(&publisher, rate, secs, fifo, Publish::Owned, || {});
    let contended = run_phase(&publisher, rate, secs, fifo, Publish::Owned, contender);
    let loaned = run_phase(&publisher, rate, secs, fifo, Publish::Loaned, contender);
    subscriber.stop();
    drop(subscriber.join());

    println!(
        "publish() of a 64 KiB message at {rate} Hz, SCHED_FIFO {}, {secs} s per phase",
        if fifo { "yes" } else { "no" }
    );
    println!(
        "{:<34} {:>8} {:>8} {:>8} {:>10} {:>10}",
        "phase", "n", "p50 µs", "p99 µs", "p99.99 µs", "max µs"
    );
    for (name, times) in [
        ("alone", &quiet),
        ("with a normal-priority contender", &contended),
        ("contender, loaned messages", &loaned),
    ] {
        println!(
            "{name:<34} {:>8} {:>8.2} {:>8.2} {:>10.2} {:>10.2}",
            times.len(),
            micros(percentile(times, 0.50)),
            micros(percentile(times, 0.99)),
            micros(percentile(times, 0.9999)),
            micros(*times.last().unwrap_or(&0)),
        );
    }
    println!(
        "contended / alone: p99.99 {:.2}x, max {:.2}x",
        ratio(percentile(&contended, 0.9999), percentile(&quiet, 0.9999)),
        ratio(*contended.last().unwrap_or(&0), *quiet.last().unwrap_or(&0)),
    );
    println!(
        "contended, loaned / alone: p99.99 {:.2}x, max {:.2}x",
        ratio(percentile(&loaned, 0.9999), percentile(&quiet, 0.9999)),
        ratio(*loaned.last().unwrap_or(&0), *quiet.last().unwrap_or(&0)),
    );
}

/// How the publisher makes and sends each frame.
#[derive(Clone, Copy)]
enum Publish {
    /// A new frame each time, built before the clock starts; `publish()` allocates the `Arc`
    /// and frees evicted frames.
    Owned,
    /// A frame lent by the publisher and filled in place; `loan()` and `publish()` are timed.
    Loaned,
}

/// Flipped at the end of each phase; the contender runs while it keeps its value.
static CONTENDING: AtomicBool = AtomicBool::new(false);

/// Publishes at `rate` for `secs` on a SCHED_FIFO 80 thread on CPU 1 while `contender` runs
/// on CPU 0 at normal priority; returns every publication's duration in ns, sorted.
fn run_phase(
    publisher: &Publisher<Frame>,
    rate: f64,
    secs: f64,
    fifo: bool,
    publish: Publish,
    contender: impl FnOnce() + Send,
) -> Vec<u64> {
    let times = thread::scope(|s| {
        s.spawn(|| {
            os::pin_to(0);
            contender();
        });
        let timer = s.spawn(|| {
            os::pin_to(1);
            if fifo {
                set_fifo(80);
            }
            let tick = Duration::from_secs_f64(1.0 / rate);
            let count = (rate * secs) as usize;
            let mut times = Vec::with_capacity(count);
            let mut next = monotonic();
            for _ in 0..count {
                sleep_until(next);
                let took = match publish {
                    Publish::Owned => {
                        let mut frame = Frame::default();
                        frame.data.resize(64 * 1024, 1);
                        let t = monotonic();
                        publisher.publish(frame);
                        monotonic() - t
                    }
                    Publish::Loaned => {
                        let t = monotonic();
                        let mut frame = publisher.loan();
                        let lent = monotonic() - t;
                        // A reused frame already has its 64 KiB; a fresh one grows once.
                        frame.data.resize(64 * 1024, 1);
                        frame.data[0] = frame.data[0].wrapping_add(1);
                        let t = monotonic();
                        frame.publish();
                        lent + (monotonic() - t)
                    }
                };
                times.push(took.as_nanos() as u64);
                next = (next + tick).max(monotonic());
            }
            times
        });
        let times = timer.join().expect("publisher thread");
        CONTENDING.fetch_xor(true, Relaxed);
        times
    });
    let mut times = times;
    times.sort_unstable();
    times
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or(0)
}

fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / b.max(1) as f64
}

fn set_fifo(priority: i32) {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` is a valid sched_param that the call only reads; pid 0 is this thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
}
