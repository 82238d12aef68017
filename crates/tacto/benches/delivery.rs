//! What one delivered message costs under each execution model, with the publisher on its own
//! thread as a sensor driver would be.
//!
//! ```sh
//! cargo bench --bench delivery
//! TACTO_BENCH_RATE=1000 TACTO_BENCH_SECS=5 cargo bench --bench delivery
//! ```
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `TACTO_BENCH_RATE` | messages per second | 10000 |
//! | `TACTO_BENCH_SECS` | seconds each case publishes | 2.5 |
//! | `TACTO_BENCH_BURST` | messages per burst in the second table (0 skips it) | 100 |
//! | `TACTO_BENCH_PIN` | `0` lets the OS place the threads; else executor on CPU 0, publisher on CPU 1 | 1 |
//!
//! Each case runs one receiving node on a fresh executor on this thread while another thread
//! publishes `std_msgs/Empty`: first one message per tick, sleeping in between (a steady
//! sensor stream), then bursts of back-to-back messages at the same average rate (the data
//! path with wake-ups amortised). Each case's time is cut into rounds, run in turn with the
//! other cases', so that a busy moment of the machine falls on all of them alike. CPU time is
//! read per thread (`CLOCK_THREAD_CPUTIME_ID`). The publisher also times each `publish()` call,
//! because most of its thread's CPU goes into its own pacing sleeps, which no executor causes.
//! `docs/benchmarks.md` explains every figure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use tacto::msg::std_msgs::Empty;

mod os;
use os::{cpu_time, env, monotonic, sleep_until};
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, History, Node, Publisher, SpinOutcome,
    StopHandle, Subscription, Trigger, WaitSetExecutor,
};

/// The executors and receiving nodes compared, in table order. Adding an executor is one entry.
const CASES: &[Case] = &[
    Case {
        id: "a",
        name: "callback executor, callback subscription",
        executor: || Box::new(CallbackExecutor::new().expect("callback executor")),
        receiver: Receiver::Callback,
    },
    Case {
        id: "b",
        name: "wait-set, Trigger::on(&sub), take_all",
        executor: || Box::new(WaitSetExecutor::new().expect("wait-set executor")),
        receiver: Receiver::Triggered,
    },
    Case {
        id: "c",
        name: "wait-set, polled from a 10 ms timer",
        executor: || Box::new(WaitSetExecutor::new().expect("wait-set executor")),
        receiver: Receiver::Polled,
    },
    Case {
        id: "d",
        name: "wait-set, bare wake-up (rule false)",
        executor: || Box::new(WaitSetExecutor::new().expect("wait-set executor")),
        receiver: Receiver::BareWakeup,
    },
    Case {
        id: "e",
        name: "events executor, callback subscription",
        executor: || Box::new(EventsExecutor::new().expect("events executor")),
        receiver: Receiver::Callback,
    },
];

/// The period of the polling node (c), as in Autoware's timer-driven nodes.
const POLL_PERIOD: Duration = Duration::from_millis(10);
/// Deep enough that the poller, which drains `rate × POLL_PERIOD` messages per tick, and the
/// bursts lose nothing at the default settings; a loss shows in the `lost` column.
const HISTORY: History = History::KeepLast(1024);
const TOPIC: &str = "sensor";
/// Each case's time is split into this many rounds, run in turn with the other cases'.
const ROUNDS: u32 = 20;
/// A `publish()` call that took longer than this was preempted, not slow: it is left out of
/// the publisher's per-call time and counted instead.
const PREEMPTED_NS: u64 = 50_000;

/// How the receiving node takes its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Receiver {
    /// `subscription(..).callback(..)`: one callback per message.
    Callback,
    /// `Trigger::on(&sub)`, `take_all` inside.
    Triggered,
    /// A subscription no trigger names, drained by `take_all` from `Trigger::every(POLL_PERIOD)`.
    Polled,
    /// `Trigger::when(|| false).with(&sub)` with an empty body: every message wakes the
    /// executor, which checks the rule and runs nothing. The floor to subtract.
    BareWakeup,
}

struct Case {
    id: &'static str,
    name: &'static str,
    executor: fn() -> Box<dyn Executor>,
    receiver: Receiver,
}

#[derive(Debug, Clone, Copy)]
struct Load {
    rate: f64,
    secs: f64,
    /// Messages published back to back per tick; a tick lasts `burst / rate` seconds.
    burst: u32,
    /// False for the baseline that only paces, to measure timer ticks and pacing alone.
    publish: bool,
}

fn main() {
    let settings = Settings::from_env();
    println!(
        "tacto delivery benchmark: {} msg/s, {} s per case, {} CPUs, executor on CPU 0 and \
         publisher on CPU 1: {}",
        settings.rate,
        settings.secs,
        cpus(),
        if settings.pin {
            "yes"
        } else {
            "no (TACTO_BENCH_PIN=0)"
        },
    );
    println!(
        "exec: executor thread CPU; publish(): time inside publish() on the publisher thread; \
         total = exec + publish();\npub thr: publisher thread CPU, its pacing sleeps included; \
         process: all threads; cs/s: the executor's voluntary context switches per second"
    );
    pin_if(0, settings.pin);
    let mut loads = vec![(
        "steady stream: one message per tick".to_owned(),
        settings.load(1),
    )];
    if settings.burst > 0 {
        loads.push((
            format!("bursts: {} back-to-back messages per tick", settings.burst),
            settings.load(settings.burst),
        ));
    }
    for (title, load) in loads {
        // Short rounds, case after case, so that the host's moods fall on every case alike:
        // (b) - (d) compares measurements taken seconds apart.
        let round = Load {
            secs: load.secs / f64::from(ROUNDS),
            ..load
        };
        let mut idle = Measurement::default();
        let mut results: Vec<_> = CASES.iter().map(Results::new).collect();
        for _ in 0..ROUNDS {
            let quiet = Load {
                publish: false,
                ..round
            };
            idle.add(&measure(case("c"), quiet, &settings));
            for r in &mut results {
                let m = measure(r.case, round, &settings);
                r.total.add(&m);
                r.rounds.push(m);
            }
        }
        // The issue sets its targets for a steady stream, where each message wakes a callback
        // executor; in bursts the wake-ups are shared, so the figures are for reference there.
        report(&title, load, &results, &idle, load.burst == 1);
    }
    report_data_path(1_000_000);
}

fn case(id: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.id == id)
        .expect("a case with this id")
}

/// Runs one case: the receiving node on this thread's executor, the publisher on another.
fn measure(case: &Case, load: Load, settings: &Settings) -> Measurement {
    let ctx = Context::new();
    let delivered = Arc::new(AtomicU64::new(0));
    let mut receiver = ctx.node("receiver").expect("node");
    // Dropping a subscription unsubscribes it, so the bare wake-up's one lives until the end.
    let _kept = add_receiver(&mut receiver, case.receiver, delivered.clone());
    let mut executor = (case.executor)();
    executor.add(receiver).expect("the executor takes the node");
    let publisher = ctx
        .node("sensor")
        .expect("node")
        .publisher::<Empty>(TOPIC)
        .create()
        .expect("publisher");

    let start = Arc::new(Barrier::new(2));
    let publisher_thread = {
        let (start, stop, pin) = (start.clone(), executor.stop_handle(), settings.pin);
        // The bare wake-up takes nothing, so there is nothing to wait for before stopping.
        let taken = (case.receiver != Receiver::BareWakeup).then(|| delivered.clone());
        thread::spawn(move || publish_steadily(publisher, load, &start, stop, taken, pin))
    };
    start.wait();
    let process = cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID);
    let (begin, started) = (Usage::begin(), monotonic());
    let outcome = executor.spin().expect("spin");
    let (executor_usage, spun) = (Usage::since(begin), monotonic() - started);
    let publisher_side = publisher_thread.join().expect("publisher thread");
    let process = cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID) - process;
    if outcome == SpinOutcome::Interrupted {
        std::process::exit(130);
    }
    Measurement {
        messages: match case.receiver {
            Receiver::BareWakeup => publisher_side.calls * u64::from(load.publish),
            _ => delivered.load(Relaxed),
        },
        wakeups: executor.stats().wakeups,
        spun,
        executor: executor_usage,
        publisher: publisher_side,
        process,
    }
}

fn add_receiver(
    node: &mut Node,
    receiver: Receiver,
    delivered: Arc<AtomicU64>,
) -> Option<Subscription<Empty>> {
    let subscription = node.subscription::<Empty>(TOPIC).history(HISTORY);
    if receiver == Receiver::Callback {
        subscription
            .callback(move |_| {
                delivered.fetch_add(1, Relaxed);
            })
            .expect("callback subscription");
        return None;
    }
    let sub = subscription.create().expect("subscription");
    let trigger = match receiver {
        Receiver::Triggered => Trigger::on(&sub),
        Receiver::Polled => Trigger::every(POLL_PERIOD),
        _ => {
            node.execute(Trigger::when(|| false).with(&sub), |_| {})
                .expect("trigger");
            return Some(sub);
        }
    };
    node.execute(trigger, move |_| {
        delivered.fetch_add(sub.take_all().count() as u64, Relaxed);
    })
    .expect("trigger");
    None
}

/// What the publisher thread did.
#[derive(Debug, Clone, Copy, Default)]
struct PublisherSide {
    thread: Usage,
    /// Time inside `publish()` calls (the empty window when not publishing), preempted calls
    /// left out.
    in_publish: Duration,
    calls: u64,
    preempted: u64,
}

/// Publishes `load` on a fixed schedule, then stops the executor as soon as the node has
/// taken every message (`taken` counts them), so that the executor's rates cover its work.
fn publish_steadily(
    publisher: Publisher<Empty>,
    load: Load,
    start: &Barrier,
    stop: StopHandle,
    taken: Option<Arc<AtomicU64>>,
    pin: bool,
) -> PublisherSide {
    pin_if(1, pin);
    set_precise_sleeps();
    let tick = Duration::from_secs_f64(f64::from(load.burst) / load.rate);
    start.wait();
    let begin = Usage::begin();
    let first = monotonic();
    let end = first + Duration::from_secs_f64(load.secs);
    let (mut next, mut in_publish, mut calls, mut preempted) = (first, 0, 0, 0);
    while next < end {
        sleep_until(next);
        for _ in 0..load.burst {
            let t = monotonic();
            if load.publish {
                publisher.publish(Empty::default());
            }
            let spent = (monotonic() - t).as_nanos() as u64;
            calls += 1;
            if spent < PREEMPTED_NS {
                in_publish += spent;
            } else {
                preempted += 1;
            }
        }
        // A late tick is not made up with a burst: the stream stays steady.
        next = (next + tick).max(monotonic());
    }
    let side = PublisherSide {
        thread: Usage::since(begin),
        in_publish: Duration::from_nanos(in_publish),
        calls,
        preempted,
    };
    // The poller takes the last messages at its next tick; a lost message would never come.
    let published = calls * u64::from(load.publish);
    let give_up = monotonic() + POLL_PERIOD * 5;
    while let Some(taken) = &taken {
        if taken.load(Relaxed) >= published || monotonic() > give_up {
            break;
        }
        thread::sleep(Duration::from_millis(1));
    }
    stop.stop();
    side
}

/// Counters of one thread over a span.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    cpu: Duration,
    voluntary_switches: u64,
    allocations: u64,
}

impl Usage {
    /// Reads `/proc` first, so that its allocations and CPU fall outside the span.
    fn begin() -> Self {
        let voluntary_switches = voluntary_switches();
        Usage {
            allocations: allocations(),
            cpu: cpu_time(libc::CLOCK_THREAD_CPUTIME_ID),
            voluntary_switches,
        }
    }

    /// The counters since `begin`, reading `/proc` last.
    fn since(begin: Usage) -> Self {
        let cpu = cpu_time(libc::CLOCK_THREAD_CPUTIME_ID);
        let allocations = allocations();
        Usage {
            cpu: cpu - begin.cpu,
            voluntary_switches: voluntary_switches() - begin.voluntary_switches,
            allocations: allocations - begin.allocations,
        }
    }

    fn add(&mut self, other: &Usage) {
        self.cpu += other.cpu;
        self.voluntary_switches += other.voluntary_switches;
        self.allocations += other.allocations;
    }
}

/// One case's measurements: each round's, and their sum.
struct Results {
    case: &'static Case,
    total: Measurement,
    rounds: Vec<Measurement>,
}

impl Results {
    fn new(case: &'static Case) -> Self {
        Results {
            case,
            total: Measurement::default(),
            rounds: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Measurement {
    /// Messages the node took (for the bare wake-up, which takes nothing: messages published).
    messages: u64,
    wakeups: u64,
    /// How long the executor spun: while messages came, and until the node took the last one.
    spun: Duration,
    executor: Usage,
    publisher: PublisherSide,
    process: Duration,
}

impl Measurement {
    /// Adds another round's counters.
    fn add(&mut self, round: &Measurement) {
        self.executor.add(&round.executor);
        let (p, r) = (&mut self.publisher, &round.publisher);
        p.thread.add(&r.thread);
        p.in_publish += r.in_publish;
        p.calls += r.calls;
        p.preempted += r.preempted;
        self.messages += round.messages;
        self.wakeups += round.wakeups;
        self.spun += round.spun;
        self.process += round.process;
    }

    fn per_message_us(&self, d: Duration) -> f64 {
        d.as_secs_f64() * 1e6 / self.messages.max(1) as f64
    }

    fn executor_us(&self) -> f64 {
        self.per_message_us(self.executor.cpu)
    }

    /// `publish()` per message, without the clock reads around it (`clock_ns`).
    fn publish_us(&self, clock_ns: f64) -> f64 {
        let calls = (self.publisher.calls - self.publisher.preempted).max(1) as f64;
        (self.publisher.in_publish.as_secs_f64() * 1e9 / calls - clock_ns) / 1e3
    }

    fn lost(&self) -> u64 {
        self.publisher.calls.saturating_sub(self.messages)
    }

    /// The time a `publish()` timing window costs when it holds nothing.
    fn clock_ns(&self) -> f64 {
        self.publisher.in_publish.as_secs_f64() * 1e9 / self.publisher.calls.max(1) as f64
    }
}

fn report(title: &str, load: Load, results: &[Results], idle: &Measurement, targets: bool) {
    let clock_ns = idle.clock_ns();
    println!(
        "\n== {title}: {} msg/s, {} s per case ==",
        load.rate, load.secs
    );
    println!(
        "{:<46} {:>7} {:>5} | {:>7} {:>9} {:>7} | {:>7} {:>7} | {:>9} {:>7} {:>8} | {:>6} {:>6}",
        "case",
        "msgs",
        "lost",
        "exec",
        "publish()",
        "total",
        "pub thr",
        "process",
        "wakeups/s",
        "wake/msg",
        "exec cs/s",
        "exec",
        "pub",
    );
    println!(
        "{:<46} {:>7} {:>5} | {:>7} {:>9} {:>7} | {:>7} {:>7} | {:>9} {:>7} {:>8} | {:>6} {:>6}",
        "",
        "",
        "",
        "µs/msg",
        "µs/msg",
        "µs/msg",
        "µs/msg",
        "µs/msg",
        "",
        "",
        "(vol)",
        "allocs",
        "al/msg",
    );
    for Results { case, total: m, .. } in results {
        let secs = m.spun.as_secs_f64();
        let lost = match case.receiver {
            Receiver::BareWakeup => "-".to_owned(),
            _ => m.lost().to_string(),
        };
        println!(
            "{:<46} {:>7} {:>5} | {:>7.3} {:>9.3} {:>7.3} | {:>7.3} {:>7.3} | {:>9.0} {:>7.3} {:>8.0} | {:>6} {:>6.2}",
            format!("({}) {}", case.id, case.name),
            m.messages,
            lost,
            m.executor_us(),
            m.publish_us(clock_ns),
            m.executor_us() + m.publish_us(clock_ns),
            m.per_message_us(m.publisher.thread.cpu),
            m.per_message_us(m.process),
            m.wakeups as f64 / secs,
            m.wakeups as f64 / m.messages.max(1) as f64,
            m.executor.voluntary_switches as f64 / secs,
            m.executor.allocations,
            m.publisher.thread.allocations as f64 / m.messages.max(1) as f64,
        );
        if m.publisher.preempted > 0 {
            println!(
                "    ({} of {} publish() calls were preempted and left out of publish())",
                m.publisher.preempted, m.publisher.calls
            );
        }
    }
    let ticks = idle.publisher.calls / u64::from(load.burst);
    let span = idle.spun.as_secs_f64();
    println!(
        "baseline without messages: the poller (c) costs {:.1} µs per timer tick ({:.0} wake-ups/s); \
         the publisher's pacing {:.1} µs per tick; a timing window {:.0} ns",
        idle.executor.cpu.as_secs_f64() * 1e6 / idle.wakeups.max(1) as f64,
        idle.wakeups as f64 / span,
        idle.publisher.thread.cpu.as_secs_f64() * 1e6 / ticks.max(1) as f64,
        clock_ns,
    );
    report_targets(results, idle, targets);
}

/// The figures the issue sets targets for, from the table and the idle baseline.
fn report_targets(results: &[Results], idle: &Measurement, targets: bool) {
    let clock_ns = idle.clock_ns();
    let find = |id| {
        results
            .iter()
            .find(|r| r.case.id == id)
            .expect("case present")
    };
    let (a, b, c, d) = (&find("a").total, find("b"), &find("c").total, find("d"));
    // Wake-ups cost microseconds and drift with the host's load, so (b) - (d) is taken round by
    // round, and the median kept.
    let mut differences: Vec<f64> = (b.rounds.iter().zip(&d.rounds))
        .map(|(b, d)| b.executor_us() - d.executor_us())
        .collect();
    differences.sort_by(f64::total_cmp);
    let beyond_wakeup = differences[differences.len() / 2];
    // (c) spins a little longer than the idle poller, up to its tick after the last message:
    // its timer ticks are the idle poller's CPU per second of spinning.
    let ticks = idle.executor.cpu.as_secs_f64() / idle.spun.as_secs_f64() * c.spun.as_secs_f64();
    let take_us = (c.executor.cpu.as_secs_f64() - ticks) * 1e6 / c.messages.max(1) as f64;
    let polling = take_us + c.publish_us(clock_ns);
    let callback = a.executor_us() + a.publish_us(clock_ns);
    let verdict = |target: &str, pass: bool| match (targets, pass) {
        (false, _) => format!("(the target, {target}, is set for the steady stream)"),
        (true, true) => format!("target {target}: PASS"),
        (true, false) => format!("target {target}: MISS"),
    };
    println!(
        "polling data path per message: take {:.3} µs ((c) minus the idle poller's ticks) + publish() {:.3} µs \
         = {:.3} µs   {}",
        take_us,
        c.publish_us(clock_ns),
        polling,
        verdict("<= 0.2 µs", polling <= 0.2)
    );
    println!(
        "triggered execution beyond the bare wake-up, executor thread ((b) - (d), median of {} \
         rounds, {:.3} to {:.3}): {beyond_wakeup:.3} µs   {}",
        differences.len(),
        differences[0],
        differences[differences.len() - 1],
        verdict("<= 1 µs", beyond_wakeup <= 1.0)
    );
    println!(
        "callback / polling per message ((a) total / polling data path): {:.1}x   {}",
        callback / polling,
        verdict(">= 10x", callback / polling >= 10.0)
    );
}

/// Publish and take on one thread, no executor: the floor under every case.
fn report_data_path(messages: u64) {
    println!(
        "\n== pure data path: publish + take on one thread, no executor, {messages} messages =="
    );
    for batch in [1, 100] {
        let ctx = Context::new();
        let mut node = ctx.node("alone").expect("node");
        let sub = node
            .subscription::<Empty>(TOPIC)
            .history(HISTORY)
            .create()
            .expect("subscription");
        let publisher = node.publisher::<Empty>(TOPIC).create().expect("publisher");
        let begin = Usage::begin();
        let mut taken = 0;
        for _ in 0..messages / batch {
            for _ in 0..batch {
                publisher.publish(Empty::default());
            }
            taken += sub.take_all().map(black_box).count() as u64;
        }
        let usage = Usage::since(begin);
        assert_eq!(taken, messages / batch * batch, "every message taken");
        println!(
            "publish {batch:>3}, then take_all: {:>6.1} ns/msg, {:.2} allocations/msg",
            usage.cpu.as_secs_f64() * 1e9 / taken as f64,
            usage.allocations as f64 / taken as f64,
        );
    }
}

struct Settings {
    rate: f64,
    secs: f64,
    burst: u32,
    pin: bool,
}

impl Settings {
    fn from_env() -> Self {
        // `cargo bench` passes `--bench`; any other run (`cargo test --benches`) is a smoke run.
        let benching = std::env::args().any(|a| a == "--bench");
        Settings {
            rate: env("TACTO_BENCH_RATE", 10_000.0),
            secs: env("TACTO_BENCH_SECS", if benching { 2.5 } else { 0.1 }),
            burst: env("TACTO_BENCH_BURST", 100),
            pin: env("TACTO_BENCH_PIN", 1) != 0 && cpus() >= 2,
        }
    }

    fn load(&self, burst: u32) -> Load {
        Load {
            rate: self.rate,
            secs: self.secs,
            burst,
            publish: true,
        }
    }
}

/// Pins the calling thread to `cpu` if `pin`; a refusal ends the bench with what to do.
fn pin_if(cpu: usize, pin: bool) {
    if pin {
        assert!(
            os::pin_to(cpu),
            "cannot pin to CPU {cpu}; set TACTO_BENCH_PIN=0"
        );
    }
}

fn cpus() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// Linux delays a thread's timers by up to 50 µs by default (timer slack), which would make a
/// 10 kHz stream uneven.
fn set_precise_sleeps() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// The calling thread's voluntary context switches so far: how often it blocked.
fn voluntary_switches() -> u64 {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0)
}

/// Counts allocations per thread, to show that delivery allocates nothing but the message.
struct CountingAllocator;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn count_allocation() {
    // try_with: a thread being torn down still allocates; const-initialised, so never allocates.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to the system allocator with the caller's arguments unchanged,
// so the caller's guarantees pass through; counting touches only a thread-local integer.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        // SAFETY: forwarded unchanged, see the impl.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        // SAFETY: forwarded unchanged, see the impl.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocation();
        // SAFETY: forwarded unchanged, see the impl.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged, see the impl.
        unsafe { System.dealloc(ptr, layout) }
    }
}
