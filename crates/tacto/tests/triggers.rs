//! Triggers: which samples wake an executor, and when a node's code runs.
//!
//! Samples are published before the executor spins, so every run they cause happens in its
//! first round; the spin durations only bound the test and never decide its outcome.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use tacto::msg::std_msgs::Empty;
use tacto::{
    ClockKind, Context, Executor, Publisher, SpinOutcome, Subscription, Trigger, TriggerError,
    WaitSetExecutor,
};

/// Long enough for an executor to run everything already ready.
const SETTLE: Duration = Duration::from_millis(30);

/// Counts a node's runs, from inside it and from the test.
#[derive(Debug, Clone, Default)]
struct Runs(Arc<AtomicUsize>);

impl Runs {
    fn add(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

fn publisher(ctx: &Context, topic: &str) -> Publisher<Empty> {
    let mut node = ctx.node("source").unwrap();
    node.publisher(topic).create().unwrap()
}

fn publish(publisher: &Publisher<Empty>, n: usize) {
    (0..n).for_each(|_| publisher.publish(Empty::default()));
}

fn take_all(sub: &Subscription<Empty>) -> usize {
    sub.take_all().count()
}

#[test]
fn on_runs_the_node_once_for_the_samples_it_takes_in_one_go() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let (runs, taken) = (Runs::default(), Runs::default());
    let (r, t) = (runs.clone(), taken.clone());
    node.execute(Trigger::on(&radar), move |_| {
        r.add();
        (0..take_all(&radar)).for_each(|_| t.add());
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let radar = publisher(&ctx, "radar");

    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 0, "nothing arrived, nothing ran");

    publish(&radar, 3);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!((runs.get(), taken.get()), (1, 3));
}

#[test]
fn samples_that_arrived_before_the_node_was_added_trigger_it() {
    let ctx = Context::new();
    let mut node = ctx.node("late").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();
    let runs = Runs::default();
    let r = runs.clone();
    node.execute(Trigger::on(&input), move |_| {
        take_all(&input);
        r.add();
    })
    .unwrap();
    publish(&publisher(&ctx, "input"), 1);

    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 1);
}

#[test]
fn any_runs_when_either_subscription_receives() {
    let ctx = Context::new();
    let mut node = ctx.node("merger").unwrap();
    let a = node.subscription::<Empty>("a").create().unwrap();
    let b = node.subscription::<Empty>("b").create().unwrap();
    let runs = Runs::default();
    let r = runs.clone();
    node.execute(Trigger::any().with(&a).with(&b), move |_| {
        take_all(&a);
        take_all(&b);
        r.add();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let (a, b) = (publisher(&ctx, "a"), publisher(&ctx, "b"));

    publish(&b, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 1, "b alone triggers");
    publish(&a, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 2, "a alone triggers");
}

#[test]
fn all_waits_until_every_subscription_has_unread_data() {
    let ctx = Context::new();
    let mut node = ctx.node("pair").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    let taken = Arc::new(Mutex::new(Vec::new()));
    let t = taken.clone();
    node.execute(Trigger::all().with(&radar).with(&camera), move |_| {
        t.lock()
            .unwrap()
            .push((take_all(&radar), take_all(&camera)));
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let (radar, camera) = (publisher(&ctx, "radar"), publisher(&ctx, "camera"));

    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    assert!(
        taken.lock().unwrap().is_empty(),
        "radar alone never runs it"
    );

    publish(&camera, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(*taken.lock().unwrap(), [(2, 1)]);
}

#[test]
fn when_runs_once_its_condition_holds() {
    let ctx = Context::new();
    let mut node = ctx.node("batcher").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();
    let probe = input.probe();
    let taken = Arc::new(Mutex::new(Vec::new()));
    let t = taken.clone();
    let three_new = Trigger::when(move || probe.unread() >= 3).with(&input);
    node.execute(three_new, move |_| t.lock().unwrap().push(take_all(&input)))
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let input = publisher(&ctx, "input");

    publish(&input, 2);
    executor.spin_for(SETTLE).unwrap();
    assert!(taken.lock().unwrap().is_empty(), "two are not enough");
    publish(&input, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(*taken.lock().unwrap(), [3]);
}

#[test]
fn a_when_condition_is_checked_when_a_named_subscription_receives_and_not_otherwise() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    let (r, c) = (radar.probe(), camera.probe());
    let runs = Runs::default();
    let count = runs.clone();
    // Only radar is named: a camera frame makes the condition true but checks nothing.
    let trigger = Trigger::when(move || r.has_new() && c.has_new()).with(&radar);
    node.execute(trigger, move |_| {
        take_all(&radar);
        take_all(&camera);
        count.add();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let (radar, camera) = (publisher(&ctx, "radar"), publisher(&ctx, "camera"));

    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    publish(&camera, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 0, "the camera frame was not a reason to check");

    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 1);
}

/// The review's reproduction: code that never consumed its input ran 338k times in 300 ms.
#[test]
fn code_that_leaves_its_input_unread_runs_once_per_arrival_and_is_counted() {
    let ctx = Context::new();
    let mut node = ctx.node("forgetful").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();
    let probe = input.probe();
    let runs = Runs::default();
    let r = runs.clone();
    node.execute(Trigger::on(&input), move |_| {
        let _keep_it_alive = &input;
        r.add();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let input = publisher(&ctx, "input");

    publish(&input, 3);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(
        runs.get(),
        1,
        "one run for the burst, none for what it left"
    );
    assert_eq!(probe.unread(), 3);
    assert_eq!(executor.stats().left_unread, 1);

    publish(&input, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 2, "the next arrival runs it again");
    assert_eq!(executor.stats().left_unread, 2);
}

#[test]
fn all_runs_when_the_last_missing_input_arrives() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    let runs = Runs::default();
    let r = runs.clone();
    let trigger = Trigger::all().with(&radar).with(&camera);
    node.execute(trigger, move |activation| {
        assert!(activation.fired(1), "camera arrived last");
        take_all(&radar);
        take_all(&camera);
        r.add();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    publish(&publisher(&ctx, "radar"), 2);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 0);
    publish(&publisher(&ctx, "camera"), 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 1);
    assert_eq!(executor.stats().left_unread, 0);
}

/// Spins while another thread publishes 1000 samples on `topic`, about 100 µs apart, to a node
/// triggered by `trigger` that also subscribes to `quiet`; returns the executor's wake-ups.
fn wakeups_while_publishing_on(topic: &str) -> u64 {
    let ctx = Context::new();
    let mut node = ctx.node("listener").unwrap();
    let trigger = node.subscription::<Empty>("trigger").create().unwrap();
    let quiet = node.subscription::<Empty>("quiet").create().unwrap();
    let quiet_probe = quiet.probe();
    node.execute(Trigger::on(&trigger), move |_| {
        take_all(&trigger);
        take_all(&quiet);
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    let burst = publisher(&ctx, topic);
    let stop = executor.stop_handle();
    let publishing = thread::spawn(move || {
        for _ in 0..1000 {
            burst.publish(Empty::default());
            thread::sleep(Duration::from_micros(100));
        }
        stop.stop();
    });
    let outcome = executor.spin_for(Duration::from_secs(60)).unwrap();
    publishing.join().unwrap();
    assert_eq!(outcome, SpinOutcome::Stopped);
    if topic == "quiet" {
        assert!(quiet_probe.has_new(), "the quiet samples did arrive");
    }
    executor.stats().wakeups
}

#[test]
fn samples_on_a_non_triggering_subscription_wake_nothing() {
    let quiet = wakeups_while_publishing_on("quiet");
    assert!(
        quiet <= 5,
        "1000 quiet samples woke the executor {quiet} times"
    );

    let triggering = wakeups_while_publishing_on("trigger");
    assert!(
        triggering >= 20,
        "1000 triggering samples woke the executor only {triggering} times"
    );
}

#[test]
fn triggers_that_could_never_fire_sensibly_are_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("refused").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();

    let no_inputs = node.execute(Trigger::any(), |_| {});
    assert_eq!(no_inputs, Err(TriggerError::NoInputs));
    let no_period = node.execute(Trigger::every(Duration::ZERO), |_| {});
    assert_eq!(no_period, Err(TriggerError::PeriodTooShort));
    let both = node.execute(
        Trigger::every(Duration::from_millis(10)).with(&input),
        |_| {},
    );
    assert_eq!(both, Err(TriggerError::PeriodWithInputs));
}

#[test]
fn periods_shorter_than_the_minimum_or_longer_than_time_can_count_are_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("periods").unwrap();
    let below = Trigger::MIN_PERIOD - Duration::from_nanos(1);
    for too_short in [Duration::from_nanos(1), below] {
        let refused = node.execute(Trigger::every(too_short), |_| {});
        assert_eq!(refused, Err(TriggerError::PeriodTooShort), "{too_short:?}");
        let classic = node.timer(too_short, |_| {});
        assert_eq!(classic, Err(TriggerError::PeriodTooShort), "{too_short:?}");
    }
    let centuries = Duration::from_secs(300 * 365 * 24 * 3600);
    for too_long in [
        centuries,
        Trigger::MAX_PERIOD + Duration::from_nanos(1),
        Duration::MAX,
    ] {
        let refused = node.execute(Trigger::every(too_long), |_| {});
        assert_eq!(refused, Err(TriggerError::PeriodTooLong), "{too_long:?}");
    }
    assert_eq!(
        node.execute(Trigger::every(Trigger::MIN_PERIOD), |_| {}),
        Ok(())
    );
    assert_eq!(
        node.execute(Trigger::every(Trigger::MAX_PERIOD), |_| {}),
        Ok(())
    );
}

#[test]
fn a_timer_of_the_longest_period_runs_without_overflow_on_every_clock() {
    let ctx = Context::new();
    let mut node = ctx.node("patient").unwrap();
    let runs = Runs::default();
    for clock in [ClockKind::Steady, ClockKind::System, ClockKind::Ros] {
        let runs = runs.clone();
        let trigger = Trigger::every(Trigger::MAX_PERIOD).clock(clock);
        node.execute(trigger, move |_| runs.add()).unwrap();
    }
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    assert_eq!(executor.spin_for(SETTLE).unwrap(), SpinOutcome::Elapsed);
    assert_eq!(runs.get(), 0);
}
