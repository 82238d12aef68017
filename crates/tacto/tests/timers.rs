//! Periodic triggers: one run per period, and missed periods skipped, never replayed.
//!
//! A loaded machine may serve a period late, so the tests count periods rather than time runs:
//! every deadline that passed is either run or reported missed, exactly once. How many periods
//! run on time rather than being reported missed is a performance figure, for benchmarks on a
//! quiet machine; no test here asserts it.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use tacto::{Activation, ClockKind, Context, Executor, Trigger, WaitSetExecutor};

/// When a run started and ended, and the activation it was given.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: Instant,
    end: Instant,
    activation: Activation,
}

/// Runs a periodic node with `work` for `span`; returns its runs, the periods that fit
/// between just before it was added and just after the spin ended, and the executor.
fn run_periodic(
    trigger: Trigger,
    period: Duration,
    span: Duration,
    mut work: impl FnMut(usize) + Send + 'static,
) -> (Vec<Run>, u64, WaitSetExecutor) {
    let ctx = Context::new();
    let mut node = ctx.node("periodic").unwrap();
    let runs = Arc::new(Mutex::new(Vec::new()));
    let log = runs.clone();
    node.execute(trigger, move |activation| {
        let start = Instant::now();
        let n = log.lock().unwrap().len();
        work(n);
        let end = Instant::now();
        log.lock().unwrap().push(Run {
            start,
            end,
            activation: *activation,
        });
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    let before = Instant::now();
    executor.add(node).unwrap();
    executor.spin_for(span).unwrap();
    let fitting = before.elapsed().as_nanos() / period.as_nanos();
    let runs = runs.lock().unwrap().clone();
    (runs, fitting as u64, executor)
}

fn missed(runs: &[Run]) -> u64 {
    runs.iter().map(|r| r.activation.missed_periods()).sum()
}

#[test]
fn a_periodic_trigger_runs_or_reports_missed_every_period_of_the_span() {
    let period = Duration::from_millis(20);
    let trigger = Trigger::every(period);
    let (runs, fitting, executor) = run_periodic(trigger, period, period * 20, |_| {});

    let served = runs.len() as u64 + missed(&runs);
    assert!(
        served >= 20,
        "{served} periods served of the 20 in the span"
    );
    assert!(served <= fitting, "{served} served, only {fitting} passed");
    let stats = executor.stats();
    assert_eq!(stats.executions, runs.len() as u64);
    assert_eq!(stats.missed_periods, missed(&runs));
}

#[test]
fn a_timer_on_the_system_clock_runs_every_period_too() {
    let period = Duration::from_millis(20);
    let trigger = Trigger::every(period).clock(ClockKind::System);
    let (runs, fitting, _) = run_periodic(trigger, period, period * 10, |_| {});

    let served = runs.len() as u64 + missed(&runs);
    // System time may be stepped by NTP, so only bounds that survive a small step are checked.
    assert!(served >= 8, "{served} periods served of the 10 in the span");
    assert!(
        served <= fitting + 2,
        "{served} served, only {fitting} passed"
    );
}

#[test]
fn a_node_overrunning_three_and_a_half_periods_runs_once_late_then_keeps_its_pace() {
    let period = Duration::from_millis(20);
    let overrun = period * 7 / 2;
    let trigger = Trigger::every(period);
    let (runs, fitting, executor) = run_periodic(trigger, period, period * 15, move |n| {
        if n == 0 {
            thread::sleep(overrun);
        }
    });

    assert!(runs.len() >= 2, "{runs:?}");
    let late = runs[1].activation.missed_periods();
    assert!(
        late >= 2,
        "the run after the overrun reports {late} missed periods"
    );
    assert!(executor.stats().missed_periods >= 2);

    // Replaying the missed periods would run three or more times right after the overrun;
    // skipping them leaves room for at most one more deadline in half a period, however late
    // the runs start: each run serves the latest deadline passed, the next one is a period on.
    let overrun_end = runs[0].end;
    let burst = runs
        .iter()
        .filter(|r| r.start >= overrun_end && r.start < overrun_end + period / 2)
        .count();
    assert!(
        burst <= 2,
        "{burst} runs within half a period of the overrun: {runs:?}"
    );
    let served = runs.len() as u64 + missed(&runs);
    assert!(served <= fitting, "{served} served, only {fitting} passed");
}

/// Periods of one executor share one grid: a 100 ms node added 12 ms after a 25 ms node still
/// runs in the 25 ms node's wake-ups, so the executor wakes once per 25 ms period, not five
/// times per 100 ms. A late executor only merges more deadlines, so the bound holds under load.
#[test]
fn periods_of_one_executor_share_one_grid_and_their_wake_ups() {
    let ctx = Context::new();
    let mut executor = WaitSetExecutor::new().unwrap();
    // Runs, and periods served: runs plus the periods they report missed (a loaded machine
    // may serve a deadline late, past the next ones).
    let fast_counts = Arc::new(Mutex::new((0u64, 0u64)));
    let mut fast = ctx.node("fast").unwrap();
    let counter = fast_counts.clone();
    fast.execute(
        Trigger::every(Duration::from_millis(25)),
        move |activation| {
            let mut counts = counter.lock().unwrap();
            counts.0 += 1;
            counts.1 += 1 + activation.missed_periods();
        },
    )
    .unwrap();
    executor.add(fast).unwrap();
    thread::sleep(Duration::from_millis(12));

    let mut slow = ctx.node("slow").unwrap();
    let stop = executor.stop_handle();
    let mut slow_periods = 0;
    slow.execute(
        Trigger::every(Duration::from_millis(100)),
        move |activation| {
            slow_periods += 1 + activation.missed_periods();
            if slow_periods >= 5 {
                stop.stop();
            }
        },
    )
    .unwrap();
    executor.add(slow).unwrap();
    executor.spin().unwrap();

    let (fast_runs, fast_periods) = *fast_counts.lock().unwrap();
    let wakeups = executor.stats().wakeups;
    // Five 100 ms periods hold twenty 25 ms ones, each run or reported missed.
    assert!(
        fast_periods >= 20,
        "the 25 ms node served {fast_periods} periods"
    );
    // One wake-up may end the spin (the stop), one may be spurious at start.
    assert!(
        wakeups <= fast_runs + 2,
        "{wakeups} wake-ups for {fast_runs} runs of the 25 ms node and 5 periods of the 100 ms node"
    );
}
