//! Executors: the order they run things in, the nodes they refuse, and how a spin ends.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::{Empty, String as Text};
use tacto::{
    AddError, CallbackExecutor, Context, EventsExecutor, Executor, History, LetExecutor, Publisher,
    SpinOutcome, ThreadPoolExecutor, Trigger, WaitSetExecutor,
};

/// Long enough for an executor to run everything already ready.
const SETTLE: Duration = Duration::from_millis(30);

/// Long enough never to run out on a slow, loaded machine; reaching it means the test failed.
const PATIENCE: Duration = Duration::from_secs(30);

/// What nodes did, in order.
#[derive(Debug, Clone, Default)]
struct Events(Arc<Mutex<Vec<String>>>);

impl Events {
    fn push(&self, event: impl Into<String>) {
        self.0.lock().unwrap().push(event.into());
    }
    fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
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
    let events = Events::default();
    let heard = events.clone();
    node.subscription::<Text>("chat")
        .history(History::KeepAll { max: 100 })
        .callback(move |msg| heard.push(msg.data.as_str()))
        .unwrap();
    let mut executor = CallbackExecutor::new().unwrap();
    executor.add(node).unwrap();

    let chat = publisher::<Text>(&ctx, "chat");
    let words = ["one", "two", "three", "four", "five"];
    for word in words {
        chat.publish(Text { data: word.into() });
    }
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(events.all(), words);
    assert_eq!(executor.stats().executions, 5);
}

/// A node with a message callback registered before a 1 ms timer, both ready when `executor`
/// starts; returns the first two things it ran.
fn first_two_of_a_ready_callback_and_timer(mut executor: impl Executor) -> Vec<String> {
    let ctx = Context::new();
    let mut node = ctx.node("both").unwrap();
    let events = Events::default();
    let (heard, ticked) = (events.clone(), events.clone());
    node.subscription::<Empty>("input")
        .callback(move |_| heard.push("message"))
        .unwrap();
    node.timer(Duration::from_millis(1), move |_| ticked.push("timer"))
        .unwrap();
    executor.add(node).unwrap();
    thread::sleep(Duration::from_millis(5)); // the timer is due
    publisher::<Empty>(&ctx, "input").publish(Empty::default());

    executor.spin_for(SETTLE).unwrap();
    events.all()[..2].to_vec()
}

#[test]
fn the_callback_executor_runs_due_timers_first_in_a_round() {
    let first = first_two_of_a_ready_callback_and_timer(CallbackExecutor::new().unwrap());
    assert_eq!(first, ["timer", "message"]);
}

#[test]
fn the_wait_set_executor_runs_ready_executables_in_the_order_they_were_added() {
    let first = first_two_of_a_ready_callback_and_timer(WaitSetExecutor::new().unwrap());
    assert_eq!(first, ["message", "timer"]);
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
                assert_eq!((node.as_str(), executor), (name, "callback"));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// A node that runs something.
fn ticking(ctx: &Context, name: &str) -> tacto::Node {
    let mut node = ctx.node(name).unwrap();
    node.timer(Duration::from_secs(1), |_| {}).unwrap();
    node
}

#[test]
fn a_node_name_runs_once_per_executor() {
    let ctx = Context::new();
    let mut first = WaitSetExecutor::new().unwrap();
    let mut second = CallbackExecutor::new().unwrap();
    first.add(ticking(&ctx, "twin")).unwrap();
    second.add(ticking(&ctx, "twin")).unwrap();

    for executor in [&mut first as &mut dyn Executor, &mut second] {
        match executor.add(ticking(&ctx, "twin")) {
            Err(AddError::DuplicateNode(name)) => assert_eq!(name, "twin"),
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
        match executor.add(ticking(&ctx, "quiet")) {
            Err(AddError::DuplicateNode(name)) => assert_eq!(name, "quiet"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_subscription_triggers_the_code_of_one_node_only() {
    let ctx = Context::new();
    let mut first = ctx.node("first").unwrap();
    let radar = first.subscription::<Empty>("radar").create().unwrap();
    first.execute(Trigger::on(&radar), |_| {}).unwrap();
    let mut second = ctx.node("second").unwrap();
    second.execute(Trigger::on(&radar), |_| {}).unwrap();
    let mut third = ctx.node("third").unwrap();
    third.execute(Trigger::on(&radar), |_| {}).unwrap();

    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(first).unwrap();
    match executor.add(second) {
        Err(AddError::InputAlreadyTriggering(node)) => assert_eq!(node, "second"),
        other => panic!("{other:?}"),
    }
    let mut other_executor = WaitSetExecutor::new().unwrap();
    match other_executor.add(third) {
        Err(AddError::InputAlreadyTriggering(node)) => assert_eq!(node, "third"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_refused_node_leaves_its_subscriptions_free_for_another_node() {
    let ctx = Context::new();
    let mut refused = ctx.node("refused").unwrap();
    let radar = refused.subscription::<Empty>("radar").create().unwrap();
    refused.execute(Trigger::on(&radar), |_| {}).unwrap();
    refused.execute(Trigger::on(&radar), |_| {}).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    match executor.add(refused) {
        Err(AddError::InputAlreadyTriggering(node)) => assert_eq!(node, "refused"),
        other => panic!("one subscription triggering two executables: {other:?}"),
    }

    let mut fusion = ctx.node("fusion").unwrap();
    let runs = Events::default();
    let ran = runs.clone();
    fusion
        .execute(Trigger::on(&radar), move |_| {
            radar.take_all().for_each(drop);
            ran.push("fusion");
        })
        .unwrap();
    let mut other_executor = WaitSetExecutor::new().unwrap();
    other_executor.add(fusion).unwrap();
    publisher::<Empty>(&ctx, "radar").publish(Empty::default());
    other_executor.spin_for(SETTLE).unwrap();
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
