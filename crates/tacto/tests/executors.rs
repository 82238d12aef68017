//! Executors: the order they run things in, the nodes they refuse, and how a spin ends.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::{Empty, String as Text};
use tacto::{
    AddError, CallbackExecutor, Context, EventsExecutor, Executor, History, LetExecutor, Publisher,
    SpinOutcome, StopHandle, ThreadPoolExecutor, Trigger, WaitSetExecutor,
};

#[macro_use]
mod util;
use util::{PATIENCE, SETTLE, spin_until_stopped};

/// What nodes did, in order; stops the executor once `expected` events happened, so a test
/// spins exactly as long as the work takes.
#[derive(Debug, Clone)]
struct Events {
    log: Arc<Mutex<Vec<String>>>,
    stop: StopHandle,
    expected: usize,
}

impl Events {
    fn new(executor: &impl Executor, expected: usize) -> Self {
        Events {
            log: Arc::default(),
            stop: executor.stop_handle(),
            expected,
        }
    }
    fn push(&self, event: impl Into<String>) {
        let mut log = self.log.lock().unwrap();
        log.push(event.into());
        if log.len() == self.expected {
            self.stop.stop();
        }
    }
    fn all(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

fn publisher<T: tacto::Message>(ctx: &Context, topic: &str) -> Publisher<T> {
    let mut node = ctx.node("source").unwrap();
    node.publisher(topic).create().unwrap()
}

#[test]
fn the_callback_executor_runs_one_callback_per_message_in_arrival_order() {
    let ctx = Context::new();
    let mut node = ctx.node("listener").unwrap();
    let mut executor = CallbackExecutor::new().unwrap();
    let words = ["one", "two", "three", "four", "five"];
    let events = Events::new(&executor, words.len());
    let heard = events.clone();
    node.subscription::<Text>("chat")
        .history(History::KeepAll { max: 100 })
        .callback(move |msg| heard.push(msg.data.as_str()))
        .unwrap();
    executor.add(node).unwrap();

    let chat = publisher::<Text>(&ctx, "chat");
    for word in words {
        chat.publish(Text { data: word.into() });
    }
    spin_until_stopped(&mut executor);
    assert_eq!(events.all(), words);
    assert_eq!(executor.stats().executions, 5);
}

/// A node with a message callback registered before a 1 ms timer, both ready when `executor`
/// starts; returns the first two things it ran.
fn first_two_of_a_ready_callback_and_timer(mut executor: impl Executor) -> Vec<String> {
    let ctx = Context::new();
    let mut node = ctx.node("both").unwrap();
    let events = Events::new(&executor, 2);
    let (heard, ticked) = (events.clone(), events.clone());
    node.subscription::<Empty>("input")
        .callback(move |_| heard.push("message"))
        .unwrap();
    node.wall_timer(Duration::from_millis(1), move |_| ticked.push("timer"))
        .unwrap();
    executor.add(node).unwrap();
    thread::sleep(Duration::from_millis(5)); // the timer is due
    publisher::<Empty>(&ctx, "input").publish(Empty::default());

    spin_until_stopped(&mut executor);
    events.all()[..2].to_vec()
}

#[test]
fn the_callback_executor_runs_due_timers_first_in_a_round() {
    let first = first_two_of_a_ready_callback_and_timer(CallbackExecutor::new().unwrap());
    assert_eq!(first, ["timer", "message"]);
}

#[test]
fn the_wait_set_executor_runs_due_periods_before_ready_data() {
    // Registered after the message's code, the due period still runs first (see
    // tests/scheduling.rs for the order under load).
    let first = first_two_of_a_ready_callback_and_timer(WaitSetExecutor::new().unwrap());
    assert_eq!(first, ["timer", "message"]);
}

/// Three subscriptions' code, each with a sample waiting when `executor` starts: the order it
/// runs them in.
fn three_ready_subscriptions(mut executor: impl Executor) -> Vec<String> {
    let ctx = Context::new();
    let events = Events::new(&executor, 3);
    for name in ["one", "two", "three"] {
        let mut node = ctx.node(name).unwrap();
        let heard = events.clone();
        node.subscription::<Empty>(name)
            .callback(move |_| heard.push(name))
            .unwrap();
        executor.add(node).unwrap();
    }
    let mut source = ctx.node("source").unwrap();
    for name in ["three", "two", "one"] {
        let publisher = source.publisher::<Empty>(name).create().unwrap();
        publisher.publish(Empty::default());
    }
    spin_until_stopped(&mut executor);
    events.all()
}

#[test]
fn the_wait_set_and_callback_executors_run_data_ready_together_in_the_order_it_was_added() {
    for order in [
        three_ready_subscriptions(WaitSetExecutor::new().unwrap()),
        three_ready_subscriptions(CallbackExecutor::new().unwrap()),
    ] {
        assert_eq!(order, ["one", "two", "three"]);
    }
}

#[test]
fn the_callback_executor_refuses_all_and_when_triggers() {
    let ctx = Context::new();
    let mut executor = CallbackExecutor::new().unwrap();
    for (name, trigger) in [
        ("pair_all", Trigger::all()),
        ("pair_when", Trigger::when(|| true)),
    ] {
        let mut node = ctx.node(name).unwrap();
        let a = node.subscription::<Empty>("a").create().unwrap();
        let b = node.subscription::<Empty>("b").create().unwrap();
        node.execute(trigger.with(&a).with(&b), |_| {}).unwrap();
        match executor.add(node) {
            Err(AddError::UnsupportedTrigger { node, executor, .. }) => {
                assert_eq!(
                    (node.as_str(), executor),
                    (&*format!("/{name}"), "callback")
                );
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn the_classic_executors_refusal_names_what_they_run_and_what_not() {
    let classic: [(&str, Box<dyn Executor>); 2] = [
        ("callback", Box::new(CallbackExecutor::new().unwrap())),
        (
            "thread-pool",
            Box::new(
                tacto::ThreadPoolExecutor::builder()
                    .threads(1)
                    .create()
                    .unwrap(),
            ),
        ),
    ];
    for (kind, mut executor) in classic {
        let ctx = Context::new();
        // What they run: `on`/`any` subscription triggers, timers, readable triggers.
        let mut node = ctx.node("accepted").unwrap();
        let a = node.subscription::<Empty>("a").create().unwrap();
        let b = node.subscription::<Empty>("b").create().unwrap();
        node.execute(Trigger::any().with(&a).with(&b), |_| {})
            .unwrap();
        node.wall_timer(Duration::from_secs(1), |_| {}).unwrap();
        let (device, _peer) = std::os::unix::net::UnixDatagram::pair().unwrap();
        node.execute(Trigger::readable(device), |_| {}).unwrap();
        executor.add(node).unwrap();

        let mut node = ctx.node("refused").unwrap();
        let a = node.subscription::<Empty>("a").create().unwrap();
        node.execute(Trigger::all().with(&a), |_| {}).unwrap();
        match executor.add(node) {
            Err(AddError::UnsupportedTrigger { reason, .. }) => {
                for word in ["`all`", "`when`", "`any`", "timers", "readable"] {
                    assert!(reason.contains(word), "{kind}: {reason:?} lacks {word}");
                }
            }
            other => panic!("{kind}: {other:?}"),
        }
    }
}

/// A node that runs something.
fn ticking(ctx: &Context, name: &str) -> tacto::Node {
    let mut node = ctx.node(name).unwrap();
    node.wall_timer(Duration::from_secs(1), |_| {}).unwrap();
    node
}

#[test]
fn a_node_name_runs_once_per_executor() {
    // A context refuses a second live node of a name: these come from three contexts.
    let contexts = [Context::new(), Context::new(), Context::new()];
    let mut first = WaitSetExecutor::new().unwrap();
    let mut second = CallbackExecutor::new().unwrap();
    first.add(ticking(&contexts[0], "twin")).unwrap();
    second.add(ticking(&contexts[1], "twin")).unwrap();

    for executor in [&mut first as &mut dyn Executor, &mut second] {
        match executor.add(ticking(&contexts[2], "twin")) {
            Err(AddError::DuplicateNode(name)) => assert_eq!(name, "/twin"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_node_name_is_taken_even_by_a_node_with_nothing_to_run() {
    let ctx = Context::new();
    let executors: [Box<dyn Executor>; 4] = [
        Box::new(WaitSetExecutor::new().unwrap()),
        Box::new(CallbackExecutor::new().unwrap()),
        Box::new(tacto::EventsExecutor::new().unwrap()),
        Box::new(
            tacto::ThreadPoolExecutor::builder()
                .threads(1)
                .create()
                .unwrap(),
        ),
    ];
    for mut executor in executors {
        executor.add(ctx.node("quiet").unwrap()).unwrap();
        // The executor holds the name in `ctx`; another context's node may have it.
        match executor.add(ticking(&Context::new(), "quiet")) {
            Err(AddError::DuplicateNode(name)) => assert_eq!(name, "/quiet"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_subscription_triggers_one_executable_only() {
    // Another node's code cannot name it at all (see tests/node.rs); two of its own node's
    // executables can, and the executor refuses the node.
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    node.execute(Trigger::on(&radar), |_| {}).unwrap();
    node.execute(Trigger::any().with(&camera).with(&radar), |_| {})
        .unwrap();

    let mut executor = WaitSetExecutor::new().unwrap();
    match executor.add(node) {
        Err(AddError::InputAlreadyTriggering(node)) => assert_eq!(node, "/fusion"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_refused_node_leaves_no_trace_in_the_executor() {
    let ctx = Context::new();
    let mut refused = ctx.node("fusion").unwrap();
    let radar = refused.subscription::<Empty>("radar").create().unwrap();
    refused.execute(Trigger::on(&radar), |_| {}).unwrap();
    refused.execute(Trigger::on(&radar), |_| {}).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    match executor.add(refused) {
        Err(AddError::InputAlreadyTriggering(node)) => assert_eq!(node, "/fusion"),
        other => panic!("one subscription triggering two executables: {other:?}"),
    }

    // The name is free, in the context and in the executor.
    let mut fusion = ctx.node("fusion").unwrap();
    let radar = fusion.subscription::<Empty>("radar").create().unwrap();
    let runs = Events::new(&executor, 1);
    let ran = runs.clone();
    fusion
        .execute(Trigger::on(&radar), move |_| {
            radar.take_all().for_each(drop);
            ran.push("fusion");
        })
        .unwrap();
    executor.add(fusion).unwrap();
    publisher::<Empty>(&ctx, "radar").publish(Empty::default());
    spin_until_stopped(&mut executor);
    assert_eq!(runs.all(), ["fusion"]);
}

#[test]
fn a_stop_handle_stops_a_spin_from_another_thread() {
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    let stopper = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        stop.stop();
    });
    let outcome = executor.spin_for(Duration::from_secs(60)).unwrap();
    stopper.join().unwrap();
    assert_eq!(outcome, SpinOutcome::Stopped);
}

#[test]
fn a_stop_before_a_spin_ends_that_spin_and_only_that_one() {
    let mut executor = CallbackExecutor::new().unwrap();
    executor.stop_handle().stop();
    assert_eq!(executor.spin().unwrap(), SpinOutcome::Stopped);
    // A window: nothing could signal that the old request was not taken again.
    assert_eq!(executor.spin_for(SETTLE).unwrap(), SpinOutcome::Elapsed);
}

#[test]
fn spin_for_returns_elapsed_once_its_time_is_up() {
    for mut executor in [
        Box::new(WaitSetExecutor::new().unwrap()) as Box<dyn Executor>,
        Box::new(CallbackExecutor::new().unwrap()),
    ] {
        let start = Instant::now();
        assert_eq!(executor.spin_for(SETTLE).unwrap(), SpinOutcome::Elapsed);
        assert!(start.elapsed() >= SETTLE);
    }
}

#[test]
fn spin_for_duration_max_runs_until_stopped() {
    let executors: Vec<Box<dyn Executor>> = vec![
        Box::new(WaitSetExecutor::new().unwrap()),
        Box::new(CallbackExecutor::new().unwrap()),
        Box::new(EventsExecutor::new().unwrap()),
        Box::new(ThreadPoolExecutor::builder().threads(2).create().unwrap()),
        Box::new(LetExecutor::new(Duration::from_millis(1)).unwrap()),
    ];
    for mut executor in executors {
        let ctx = Context::new();
        let mut node = ctx.node("ticking").unwrap();
        let (tx, rx) = mpsc::channel();
        node.execute(Trigger::every(Duration::from_millis(1)), move |_| {
            let _ = tx.send(());
        })
        .unwrap();
        executor.add(node).unwrap();
        let stop = executor.stop_handle();
        // Stopped only once the executor has run a few periods: a spin that took
        // `Duration::MAX` for "already elapsed" would return before.
        let stopper = thread::spawn(move || {
            for _ in 0..3 {
                rx.recv_timeout(PATIENCE).expect("the executor never ran");
            }
            stop.stop();
        });
        let outcome = executor.spin_for(Duration::MAX).unwrap();
        stopper.join().unwrap();
        assert_eq!(outcome, SpinOutcome::Stopped);
    }
}

each_executor!(executable_stats_count_each_executables_runs_and_time);
/// Per-executable figures: a timer and a subscription-triggered executable of one node, in
/// registration order, each with its own runs; the timer's start delays are its own.
fn executable_stats_count_each_executables_runs_and_time(mut executor: impl Executor) {
    let ctx = Context::new();
    let mut node = ctx.node("counted").unwrap();
    let sub = node.subscription::<Empty>("pokes").create().unwrap();
    let pokes = node.publisher::<Empty>("pokes").create().unwrap();
    let stop = executor.stop_handle();
    let mut ticks = 0;
    node.execute(Trigger::every(Duration::from_millis(1)), move |_| {
        ticks += 1;
        if ticks <= 2 {
            pokes.publish(Empty::default());
        }
    })
    .unwrap();
    let mut taken = 0;
    node.execute(Trigger::on(&sub), move |_| {
        taken += sub.take_all().count();
        if taken == 2 {
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);

    let stats = executor.executable_stats();
    let names: Vec<_> = stats.iter().map(|s| (&*s.node, s.index)).collect();
    assert_eq!(names, [("/counted", 0), ("/counted", 1)]);
    let (timer, triggered) = (&stats[0], &stats[1]);
    assert!(timer.runs >= 2, "{timer:?}");
    assert!((1..=2).contains(&triggered.runs), "{triggered:?}");
    assert_eq!(
        timer.runs + triggered.runs,
        executor.stats().executions,
        "every run is some executable's"
    );
    for s in &stats {
        assert!(s.run_time_max <= s.run_time_total && s.run_time_mean() <= s.run_time_max);
    }
    assert!(triggered.start_delay_mean() <= triggered.start_delay_max);
    assert!(timer.start_delay_mean() <= timer.start_delay_max);
    assert_eq!((triggered.samples_in, triggered.samples_dropped), (2, 0));
    assert_eq!(
        (timer.samples_in, timer.samples_dropped),
        (0, 0),
        "no inputs"
    );
}

each_executor!(a_subscription_triggers_start_delay_counts_from_the_samples_arrival);
/// A sample that waits 20 ms for the spin to start: its run started at least 20 ms late.
fn a_subscription_triggers_start_delay_counts_from_the_samples_arrival(
    mut executor: impl Executor,
) {
    let ctx = Context::new();
    let mut node = ctx.node("late").unwrap();
    let sub = node.subscription::<Empty>("late_in").create().unwrap();
    let input = node.publisher::<Empty>("late_in").create().unwrap();
    let stop = executor.stop_handle();
    node.execute(Trigger::on(&sub), move |_| {
        sub.take_all().for_each(drop);
        stop.stop();
    })
    .unwrap();
    executor.add(node).unwrap();
    input.publish(Empty::default());
    thread::sleep(Duration::from_millis(20));
    spin_until_stopped(&mut executor);
    let stats = &executor.executable_stats()[0];
    assert_eq!(stats.runs, 1, "{stats:?}");
    assert!(
        stats.start_delay_max >= Duration::from_millis(20),
        "{stats:?}"
    );
}

#[test]
fn executable_stats_count_the_samples_its_trigger_lost_unread() {
    let ctx = Context::new();
    let mut node = ctx.node("slow").unwrap();
    let qos = tacto::Qos::default().history(tacto::History::KeepLast(1));
    let sub = node
        .subscription::<Empty>("burst")
        .qos(qos)
        .create()
        .unwrap();
    let burst = node.publisher::<Empty>("burst").create().unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    node.execute(Trigger::on(&sub), move |_| {
        sub.take();
        stop.stop();
    })
    .unwrap();
    executor.add(node).unwrap();
    for _ in 0..3 {
        burst.publish(Empty::default());
    }
    spin_until_stopped(&mut executor);
    let stats = &executor.executable_stats()[0];
    assert_eq!(
        (stats.samples_in, stats.samples_dropped),
        (3, 2),
        "{stats:?}"
    );
}
