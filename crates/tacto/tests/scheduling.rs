//! The order a single-threaded executor runs its due work in, under load: a period never
//! waits behind a round of data-triggered work, and a chain's next hop runs as its data
//! arrives.
//!
//! The work is simulated: data-triggered nodes that busy-wait a known time on each run and
//! feed themselves, so that they are always ready. The assertions are on the order of runs
//! and on the executor's own start-delay statistic counted in runs of that work, both taken
//! from the executor's own clock readings ([`Activation::time`], [`Activation::deadline`]),
//! never on how long anything took: a loaded machine stretches every run, not the order.
//!
//! No ROS 2 test covers this: rclcpp's executor tests (`test_executors.cpp`,
//! `test_events_executor.cpp`) check what runs, not when under load. The callback executor's
//! "timers before subscriptions" is rclcpp's `Executor::get_next_ready_executable` (timers,
//! then subscriptions, services, clients, waitables), applied before every run instead of once
//! per wait.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::Empty;
use tacto::{
    Activation, CallbackExecutor, Context, EventsExecutor, ExecutableStats, Executor, History,
    Node, StopHandle, Time, Trigger, WaitSetExecutor,
};

mod util;
use util::spin_until_stopped;

/// One run of a data-triggered node: the simulated work.
const WORK: Duration = Duration::from_millis(2);

/// The periodic node's period: a few runs of work, so that it comes due in the middle of a
/// round of the busy nodes.
const PERIOD: Duration = Duration::from_millis(7);

/// Periods watched per test.
const PERIODS: usize = 25;

/// A run, as the node's code saw it.
#[derive(Debug, Clone, PartialEq)]
enum Run {
    /// A data-triggered node's run, started at (the executor's) `time`.
    Data { node: &'static str, time: Time },
    /// A periodic run serving `deadline`, started at `time`.
    Period {
        node: &'static str,
        deadline: Time,
        time: Time,
    },
}

/// What the nodes ran, in order (one thread runs them all); stops the executor after
/// [`PERIODS`] runs of the periodic node named `until`.
#[derive(Clone)]
struct Log {
    runs: Arc<Mutex<Vec<Run>>>,
    stop: StopHandle,
    until: &'static str,
}

impl Log {
    fn new(executor: &impl Executor, until: &'static str) -> Log {
        Log {
            runs: Arc::default(),
            stop: executor.stop_handle(),
            until,
        }
    }

    fn push(&self, run: Run) {
        let mut runs = self.runs.lock().unwrap();
        runs.push(run);
        let periods = (runs.iter())
            .filter(|r| matches!(r, Run::Period { node, .. } if *node == self.until))
            .count();
        if periods == PERIODS {
            self.stop.stop();
        }
    }

    fn runs(&self) -> Vec<Run> {
        self.runs.lock().unwrap().clone()
    }
}

/// Busy-waits `work`: a node's computation, which a sleep would not be (the thread stays busy).
fn busy(work: Duration) {
    let start = Instant::now();
    while start.elapsed() < work {
        std::hint::spin_loop();
    }
}

/// A node whose code runs every `PERIOD` and takes `work`.
fn periodic(ctx: &Context, name: &'static str, log: &Log, work: Duration) -> Node {
    let mut node = ctx.node(name).unwrap();
    let log = log.clone();
    node.execute(Trigger::every(PERIOD), move |activation: &Activation| {
        log.push(Run::Period {
            node: name,
            deadline: activation
                .deadline()
                .expect("a periodic run serves a deadline"),
            time: activation.time(),
        });
        busy(work);
    })
    .unwrap();
    node
}

/// A node triggered by its own topic, `name`: each run takes its sample, works [`WORK`], and
/// publishes the next, so it is ready again as soon as it ran. Started by one sample published
/// on `name` before the spin.
fn always_ready(ctx: &Context, name: &'static str, log: &Log) -> Node {
    let mut node = ctx.node(name).unwrap();
    let input = node
        .subscription::<Empty>(name)
        .history(History::KeepLast(1))
        .create()
        .unwrap();
    let output = node.publisher::<Empty>(name).create().unwrap();
    let log = log.clone();
    node.execute(Trigger::on(&input), move |activation| {
        log.push(Run::Data {
            node: name,
            time: activation.time(),
        });
        input.take_all().for_each(drop);
        busy(WORK);
        output.publish(Empty::default());
    })
    .unwrap();
    node
}

fn start(ctx: &Context, topics: &[&str]) {
    let mut starter = ctx.node("starter").unwrap();
    for topic in topics {
        let publisher = starter.publisher::<Empty>(topic).create().unwrap();
        publisher.publish(Empty::default());
    }
}

/// The stats of node `name`'s only executable.
fn stats_of<'s>(stats: &'s [ExecutableStats], name: &str) -> &'s ExecutableStats {
    stats
        .iter()
        .find(|s| s.node.strip_prefix('/') == Some(name))
        .unwrap()
}

/// For each periodic run in `runs`: the data-triggered runs the executor started, by its own
/// clock, after the run's deadline had passed and before the run, other than the one a
/// periodic entry yields to after it ran (a period that overran, here when the machine
/// preempted the executor during the periodic run, comes due again at once, and runs after
/// one data-triggered run, so that it cannot starve them). The order of runs is the log's;
/// the times are the executor's readings, so this is exact whatever the load.
fn data_runs_started_while_due(runs: &[Run]) -> Vec<(Time, Vec<&'static str>)> {
    let mut waited = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Run::Period { deadline, .. } = run else {
            continue;
        };
        let mut before = Vec::new();
        for (j, earlier) in runs[..i].iter().enumerate() {
            let Run::Data { node, time } = earlier else {
                continue;
            };
            let yielded_to = match runs[..j]
                .iter()
                .rposition(|r| matches!(r, Run::Period { .. }))
            {
                Some(period) => runs[period + 1..j]
                    .iter()
                    .all(|r| matches!(r, Run::Period { .. })),
                None => false,
            };
            if time >= deadline && !yielded_to {
                before.push(*node);
            }
        }
        if !before.is_empty() {
            waited.push((*deadline, before));
        }
    }
    waited
}

/// Three always-ready nodes around a periodic one (registered first, as the worst place for a
/// round in registration order, and in the middle): the period comes due while one of them
/// runs, and must start before any other data-triggered run.
fn a_due_period_runs_before_further_data_work(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "ticker");
    let busy_nodes = ["busy_a", "busy_b", "busy_c"];
    executor.add(always_ready(&ctx, "busy_a", &log)).unwrap();
    executor
        .add(periodic(&ctx, "ticker", &log, Duration::ZERO))
        .unwrap();
    executor.add(always_ready(&ctx, "busy_b", &log)).unwrap();
    executor.add(always_ready(&ctx, "busy_c", &log)).unwrap();
    start(&ctx, &busy_nodes);
    spin_until_stopped(&mut executor);

    let runs = log.runs();
    assert_eq!(
        data_runs_started_while_due(&runs),
        [],
        "data-triggered runs started while a period was due"
    );
    // The executor's own statistic: a period waits for the run under way when it came due,
    // one run of work, never a round of them.
    let stats = executor.executable_stats();
    let ticker = stats_of(&stats, "ticker");
    let longest_run = (busy_nodes.iter())
        .map(|name| stats_of(&stats, name).run_time_max)
        .max()
        .unwrap();
    assert!(
        ticker.start_delay_max <= longest_run,
        "a period waited {:?}, more than one run of work (the longest took {:?})",
        ticker.start_delay_max,
        longest_run
    );
    // The busy nodes took turns: none ran twice while another waited.
    let counts: Vec<usize> = (busy_nodes.iter())
        .map(|name| {
            let mine = |r: &&Run| matches!(r, Run::Data { node, .. } if node == name);
            runs.iter().filter(mine).count()
        })
        .collect();
    let (fewest, most) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
    assert!(
        *fewest > 0 && most - fewest <= 1,
        "runs per busy node: {counts:?}"
    );
}

#[test]
fn a_due_period_runs_before_further_data_work_on_the_wait_set_executor() {
    a_due_period_runs_before_further_data_work(WaitSetExecutor::new().unwrap());
}

#[test]
fn a_due_period_runs_before_further_data_work_on_the_callback_executor() {
    a_due_period_runs_before_further_data_work(CallbackExecutor::new().unwrap());
}

#[test]
fn a_due_period_runs_before_further_data_work_on_the_events_executor() {
    a_due_period_runs_before_further_data_work(EventsExecutor::new().unwrap());
}

/// Two periodic nodes on one period, both always due together, beside busy nodes: they run in
/// the order they were added, one right after the other, every period.
fn periods_due_together_run_in_registration_order(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "second");
    executor.add(always_ready(&ctx, "busy_a", &log)).unwrap();
    executor
        .add(periodic(&ctx, "first", &log, Duration::ZERO))
        .unwrap();
    executor.add(always_ready(&ctx, "busy_b", &log)).unwrap();
    executor
        .add(periodic(&ctx, "second", &log, Duration::ZERO))
        .unwrap();
    start(&ctx, &["busy_a", "busy_b"]);
    spin_until_stopped(&mut executor);

    // Each deadline both served: "first", then "second" right after it. (A run that the
    // machine preempted for a whole period makes the other serve a later deadline instead,
    // with a missed period: such deadlines are not shared. And if "first" started its late
    // run for one deadline just before the next, "second" serves that next one right after
    // it, and "first" serves it after one data-triggered run, as it ran since the last.)
    let runs = log.runs();
    let mut shared = 0;
    for (i, run) in runs.iter().enumerate() {
        let Run::Period {
            node: "second",
            deadline,
            ..
        } = run
        else {
            continue;
        };
        let first = (runs.iter()).position(
            |r| matches!(r, Run::Period { node: "first", deadline: d, .. } if d == deadline),
        );
        let first_was_late = i.checked_sub(1).is_some_and(|before| {
            matches!(
                runs[before],
                Run::Period { node: "first", deadline: d, .. } if d < *deadline
            )
        });
        if let Some(first) = first.filter(|_| !first_was_late) {
            assert_eq!(first + 1, i, "{runs:?}");
            shared += 1;
        }
    }
    assert!(shared > 0, "no deadline served by both: {runs:?}");
}

#[test]
fn periods_due_together_run_in_registration_order_on_the_wait_set_executor() {
    periods_due_together_run_in_registration_order(WaitSetExecutor::new().unwrap());
}

#[test]
fn periods_due_together_run_in_registration_order_on_the_callback_executor() {
    periods_due_together_run_in_registration_order(CallbackExecutor::new().unwrap());
}

#[test]
fn periods_due_together_run_in_registration_order_on_the_events_executor() {
    periods_due_together_run_in_registration_order(EventsExecutor::new().unwrap());
}

/// A periodic node whose every run takes longer than its period, so that it is always due,
/// beside an always-ready node: the data-triggered node still runs, between its runs.
fn an_overrunning_period_does_not_starve_data_work(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "hog");
    executor
        .add(periodic(&ctx, "hog", &log, PERIOD + WORK))
        .unwrap();
    executor.add(always_ready(&ctx, "busy", &log)).unwrap();
    start(&ctx, &["busy"]);
    spin_until_stopped(&mut executor);

    let runs = log.runs();
    let busy = |r: &Run| matches!(r, Run::Data { .. });
    let first_busy = runs.iter().position(busy).expect("the busy node ran");
    // After its first run, the busy node runs between every two runs of the hog.
    for pair in runs[first_busy..].windows(2) {
        assert!(busy(&pair[0]) || busy(&pair[1]), "{runs:?}");
    }
    assert!(executor.stats().missed_periods > 0, "the hog overran");
}

#[test]
fn an_overrunning_period_does_not_starve_data_work_on_the_wait_set_executor() {
    an_overrunning_period_does_not_starve_data_work(WaitSetExecutor::new().unwrap());
}

#[test]
fn an_overrunning_period_does_not_starve_data_work_on_the_callback_executor() {
    an_overrunning_period_does_not_starve_data_work(CallbackExecutor::new().unwrap());
}

#[test]
fn an_overrunning_period_does_not_starve_data_work_on_the_events_executor() {
    an_overrunning_period_does_not_starve_data_work(EventsExecutor::new().unwrap());
}

/// A hop of a chain: runs on `input`, works [`WORK`], publishes on `output` (the last hop
/// stops the executor after its third run instead).
fn hop(ctx: &Context, name: &'static str, input: &str, output: Option<&str>, log: &Log) -> Node {
    let mut node = ctx.node(name).unwrap();
    let input = node.subscription::<Empty>(input).create().unwrap();
    let output = output.map(|topic| node.publisher::<Empty>(topic).create().unwrap());
    let log = log.clone();
    let mut runs = 0;
    node.execute(Trigger::on(&input), move |activation| {
        log.push(Run::Data {
            node: name,
            time: activation.time(),
        });
        input.take_all().for_each(drop);
        busy(WORK);
        runs += 1;
        match &output {
            Some(output) => output.publish(Empty::default()),
            None if runs == 3 => log.stop.stop(),
            None => {}
        }
    })
    .unwrap();
    node
}

/// A node that publishes on each of `topics`, in order, every `period`.
fn feeder(ctx: &Context, topics: &[&str], period: Duration) -> Node {
    let mut node = ctx.node("feeder").unwrap();
    let outputs: Vec<_> = (topics.iter())
        .map(|topic| node.publisher::<Empty>(topic).create().unwrap())
        .collect();
    node.execute(Trigger::every(period), move |_| {
        for output in &outputs {
            output.publish(Empty::default());
        }
    })
    .unwrap();
    node
}

/// The data-triggered runs in `log`, in order.
fn data_runs(log: &Log) -> Vec<&'static str> {
    (log.runs().into_iter())
        .filter_map(|r| match r {
            Run::Data { node, .. } => Some(node),
            Run::Period { .. } => None,
        })
        .collect()
}

/// A chain of three hops fed every period, registered last hop first, beside two always-ready
/// nodes: once the executor has seen the chain's data flow, a sample runs down the whole chain
/// in one sweep, hop after hop, before the always-ready nodes run again. (In registration
/// order, each hop would wait for a round of the others.)
fn a_chain_advances_as_its_data_arrives(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "none");
    executor.add(hop(&ctx, "third", "c", None, &log)).unwrap();
    executor
        .add(hop(&ctx, "second", "b", Some("c"), &log))
        .unwrap();
    executor.add(always_ready(&ctx, "busy_a", &log)).unwrap();
    executor.add(always_ready(&ctx, "busy_b", &log)).unwrap();
    executor
        .add(hop(&ctx, "first", "a", Some("b"), &log))
        .unwrap();
    executor.add(feeder(&ctx, &["a"], PERIOD)).unwrap();
    start(&ctx, &["busy_a", "busy_b"]);
    spin_until_stopped(&mut executor);

    let order = data_runs(&log);
    // The first traversal teaches the executor the chain; the last one is checked.
    assert_eq!(
        order[order.len() - 3..],
        ["first", "second", "third"],
        "{order:?}"
    );
}

#[test]
fn a_chain_advances_as_its_data_arrives_on_the_wait_set_executor() {
    a_chain_advances_as_its_data_arrives(WaitSetExecutor::new().unwrap());
}

#[test]
fn a_chain_advances_as_its_data_arrives_on_the_callback_executor() {
    a_chain_advances_as_its_data_arrives(CallbackExecutor::new().unwrap());
}

#[test]
fn a_chain_advances_as_its_data_arrives_on_the_events_executor() {
    a_chain_advances_as_its_data_arrives(EventsExecutor::new().unwrap());
}

/// Long enough for the four hops below to run in one period even when the machine stretches
/// them: each test here checks the order within a period.
const LONG_PERIOD: Duration = Duration::from_millis(30);

/// One period starts two chains: `first` → `second` → `third`, and `other`, registered
/// between `first` and `second`. The sample `first` publishes goes on down its chain before
/// `other` starts (rule 3, "the chain that just moved goes on"); swept in dataflow order alone,
/// `other`, a chain start like `first`, would run before `second`.
fn the_chain_that_just_moved_goes_on_before_other_chains_start(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "none");
    executor
        .add(hop(&ctx, "first", "a", Some("b"), &log))
        .unwrap();
    executor
        .add(hop(&ctx, "other", "x", Some("nowhere"), &log))
        .unwrap();
    executor
        .add(hop(&ctx, "second", "b", Some("c"), &log))
        .unwrap();
    executor.add(hop(&ctx, "third", "c", None, &log)).unwrap();
    executor
        .add(feeder(&ctx, &["a", "x"], LONG_PERIOD))
        .unwrap();
    spin_until_stopped(&mut executor);

    let order = data_runs(&log);
    let firsts: Vec<usize> = (0..order.len()).filter(|&i| order[i] == "first").collect();
    assert_eq!(firsts.len(), 3, "{order:?}");
    for i in firsts {
        assert_eq!(order[i..i + 3], ["first", "second", "third"], "{order:?}");
    }
    assert!(order.contains(&"other"), "{order:?}");
}

#[test]
fn the_chain_that_just_moved_goes_on_before_other_chains_start_on_the_wait_set_executor() {
    the_chain_that_just_moved_goes_on_before_other_chains_start(WaitSetExecutor::new().unwrap());
}

#[test]
fn the_chain_that_just_moved_goes_on_before_other_chains_start_on_the_callback_executor() {
    the_chain_that_just_moved_goes_on_before_other_chains_start(CallbackExecutor::new().unwrap());
}

#[test]
fn the_chain_that_just_moved_goes_on_before_other_chains_start_on_the_events_executor() {
    the_chain_that_just_moved_goes_on_before_other_chains_start(EventsExecutor::new().unwrap());
}

/// `first`'s sample reaches `left`, then `right` (subscribed in that order): both run before
/// `other`, which the period fed before, `right`, reached last, first. (With only the last
/// reached going on, `left` would keep its place in the sweep, after `other`: a branch of a
/// fan-out would wait for the rest of the pass.)
fn where_a_run_feeds_several_each_branch_runs_before_other_chains(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "feeder");
    let mut feeder_node = feeder(&ctx, &["a", "x"], LONG_PERIOD);
    // The feeder's runs are logged, so that the log stops the executor after `PERIODS` of them.
    let periods = log.clone();
    feeder_node
        .execute(Trigger::every(LONG_PERIOD), move |activation| {
            periods.push(Run::Period {
                node: "feeder",
                deadline: activation.deadline().unwrap(),
                time: activation.time(),
            })
        })
        .unwrap();
    executor
        .add(hop(&ctx, "first", "a", Some("b"), &log))
        .unwrap();
    executor
        .add(hop(&ctx, "other", "x", Some("nowhere"), &log))
        .unwrap();
    executor
        .add(hop(&ctx, "left", "b", Some("nowhere"), &log))
        .unwrap();
    executor
        .add(hop(&ctx, "right", "b", Some("nowhere"), &log))
        .unwrap();
    executor.add(feeder_node).unwrap();
    spin_until_stopped(&mut executor);

    let order = data_runs(&log);
    let firsts: Vec<usize> = (0..order.len()).filter(|&i| order[i] == "first").collect();
    // A machine that stretches a period past the next one merges two periods' samples into one
    // run of `first` (it takes them all): how many runs there are is the load's, the order in
    // each is the executor's.
    assert!(firsts.len() >= 3, "{order:?}");
    // From each run of `first` to the next (the stop may cut the last one short).
    for pair in firsts.windows(2) {
        let period = &order[pair[0]..pair[1]];
        assert_eq!(period.get(1..3), Some(&["right", "left"][..]), "{order:?}");
    }
}

#[test]
fn where_a_run_feeds_several_each_branch_runs_before_other_chains_on_the_wait_set_executor() {
    where_a_run_feeds_several_each_branch_runs_before_other_chains(WaitSetExecutor::new().unwrap());
}

#[test]
fn where_a_run_feeds_several_each_branch_runs_before_other_chains_on_the_callback_executor() {
    where_a_run_feeds_several_each_branch_runs_before_other_chains(
        CallbackExecutor::new().unwrap(),
    );
}

#[test]
fn where_a_run_feeds_several_each_branch_runs_before_other_chains_on_the_events_executor() {
    where_a_run_feeds_several_each_branch_runs_before_other_chains(EventsExecutor::new().unwrap());
}

/// Two nodes that feed each other (`ping` → `pong` → `ping` ...) beside an always-ready one:
/// the chain goes on at most until each of its nodes ran once, so the always-ready node runs
/// between every few runs of the cycle (at most two passes' worth, `2 × 2` runs, on the
/// wait-set and callback executors; at most one chain's, 2, on the events executor).
fn a_cycle_does_not_hold_the_thread(mut executor: impl Executor) {
    let ctx = Context::new();
    let log = Log::new(&executor, "ticker");
    executor
        .add(hop(&ctx, "ping", "ping", Some("pong"), &log))
        .unwrap();
    executor
        .add(hop(&ctx, "pong", "pong", Some("ping"), &log))
        .unwrap();
    executor.add(always_ready(&ctx, "busy", &log)).unwrap();
    executor
        .add(periodic(&ctx, "ticker", &log, Duration::ZERO))
        .unwrap();
    start(&ctx, &["ping", "busy"]);
    spin_until_stopped(&mut executor);

    let order = data_runs(&log);
    let busy: Vec<usize> = (0..order.len()).filter(|&i| order[i] == "busy").collect();
    assert!(busy.len() > 2, "{order:?}");
    for pair in busy.windows(2) {
        assert!(pair[1] - pair[0] - 1 <= 4, "{order:?}");
    }
    assert!(order.contains(&"pong"), "{order:?}");
}

#[test]
fn a_cycle_does_not_hold_the_thread_on_the_wait_set_executor() {
    a_cycle_does_not_hold_the_thread(WaitSetExecutor::new().unwrap());
}

#[test]
fn a_cycle_does_not_hold_the_thread_on_the_callback_executor() {
    a_cycle_does_not_hold_the_thread(CallbackExecutor::new().unwrap());
}

#[test]
fn a_cycle_does_not_hold_the_thread_on_the_events_executor() {
    a_cycle_does_not_hold_the_thread(EventsExecutor::new().unwrap());
}
