//! Triggers: which samples wake an executor, and when a node's code runs.
//!
//! Each run stops the executor's spin, so a test spins exactly until the run it waits for; a
//! fixed window ([`SETTLE`]) only watches for runs that must not happen.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use tacto::msg::std_msgs::Empty;
use tacto::{
    ClockKind, Context, Executor, History, Publisher, SpinOutcome, StopHandle, Subscription,
    Trigger, TriggerError, WaitSetExecutor,
};

mod util;
use util::{SETTLE, spin_until_stopped};

/// Counts a node's runs, from inside it and from the test; each run stops the executor.
#[derive(Debug, Clone)]
struct Runs {
    count: Arc<AtomicUsize>,
    stop: StopHandle,
}

impl Runs {
    fn new(executor: &impl Executor) -> Self {
        Runs {
            count: Arc::default(),
            stop: executor.stop_handle(),
        }
    }
    fn add(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.stop.stop();
    }
    fn get(&self) -> usize {
        self.count.load(Ordering::SeqCst)
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
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let taken = Arc::new(AtomicUsize::new(0));
    let (r, t) = (runs.clone(), taken.clone());
    node.execute(Trigger::on(&radar), move |_| {
        t.fetch_add(take_all(&radar), Ordering::SeqCst);
        r.add();
    })
    .unwrap();
    executor.add(node).unwrap();
    let radar = publisher(&ctx, "radar");

    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 0, "nothing arrived, nothing ran");

    publish(&radar, 3);
    spin_until_stopped(&mut executor);
    // A window: a run per sample would follow the first at once.
    executor.spin_for(SETTLE).unwrap();
    assert_eq!((runs.get(), taken.load(Ordering::SeqCst)), (1, 3));
}

#[test]
fn samples_that_arrived_before_the_node_was_added_trigger_it() {
    let ctx = Context::new();
    let mut node = ctx.node("late").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let r = runs.clone();
    node.execute(Trigger::on(&input), move |_| {
        take_all(&input);
        r.add();
    })
    .unwrap();
    publish(&publisher(&ctx, "input"), 1);

    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
    assert_eq!(runs.get(), 1);
}

#[test]
fn any_runs_when_either_subscription_receives() {
    let ctx = Context::new();
    let mut node = ctx.node("merger").unwrap();
    let a = node.subscription::<Empty>("a").create().unwrap();
    let b = node.subscription::<Empty>("b").create().unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let r = runs.clone();
    node.execute(Trigger::any().with(&a).with(&b), move |_| {
        take_all(&a);
        take_all(&b);
        r.add();
    })
    .unwrap();
    executor.add(node).unwrap();
    let (a, b) = (publisher(&ctx, "a"), publisher(&ctx, "b"));

    publish(&b, 1);
    spin_until_stopped(&mut executor);
    assert_eq!(runs.get(), 1, "b alone triggers");
    publish(&a, 1);
    spin_until_stopped(&mut executor);
    assert_eq!(runs.get(), 2, "a alone triggers");
}

#[test]
fn all_waits_until_every_subscription_has_unread_data() {
    let ctx = Context::new();
    let mut node = ctx.node("pair").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let taken = Arc::new(Mutex::new(Vec::new()));
    let t = taken.clone();
    node.execute(Trigger::all().with(&radar).with(&camera), move |_| {
        t.lock()
            .unwrap()
            .push((take_all(&radar), take_all(&camera)));
        runs.add();
    })
    .unwrap();
    executor.add(node).unwrap();
    let (radar, camera) = (publisher(&ctx, "radar"), publisher(&ctx, "camera"));

    // Windows: nothing signals a run that does not happen.
    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    assert!(
        taken.lock().unwrap().is_empty(),
        "radar alone never runs it"
    );

    publish(&camera, 1);
    spin_until_stopped(&mut executor);
    assert_eq!(*taken.lock().unwrap(), [(2, 1)]);
}

#[test]
fn when_runs_once_its_condition_holds() {
    let ctx = Context::new();
    let mut node = ctx.node("batcher").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();
    let probe = input.probe();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let taken = Arc::new(Mutex::new(Vec::new()));
    let t = taken.clone();
    let three_new = Trigger::when(move || probe.unread() >= 3).with(&input);
    node.execute(three_new, move |_| {
        t.lock().unwrap().push(take_all(&input));
        runs.add();
    })
    .unwrap();
    executor.add(node).unwrap();
    let input = publisher(&ctx, "input");

    publish(&input, 2);
    executor.spin_for(SETTLE).unwrap(); // a window: watches for a run that must not happen
    assert!(taken.lock().unwrap().is_empty(), "two are not enough");
    publish(&input, 1);
    spin_until_stopped(&mut executor);
    assert_eq!(*taken.lock().unwrap(), [3]);
}

#[test]
fn a_when_condition_is_checked_when_a_named_subscription_receives_and_not_otherwise() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    let (r, c) = (radar.probe(), camera.probe());
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let count = runs.clone();
    // Only radar is named: a camera frame makes the condition true but checks nothing.
    let trigger = Trigger::when(move || r.has_new() && c.has_new()).with(&radar);
    node.execute(trigger, move |_| {
        take_all(&radar);
        take_all(&camera);
        count.add();
    })
    .unwrap();
    executor.add(node).unwrap();
    let (radar, camera) = (publisher(&ctx, "radar"), publisher(&ctx, "camera"));

    // Windows: nothing signals a run that does not happen.
    publish(&radar, 1);
    executor.spin_for(SETTLE).unwrap();
    publish(&camera, 1);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(runs.get(), 0, "the camera frame was not a reason to check");

    publish(&radar, 1);
    spin_until_stopped(&mut executor);
    assert_eq!(runs.get(), 1);
}

/// The review's reproduction: code that never consumed its input ran 338k times in 300 ms.
#[test]
fn code_that_leaves_its_input_unread_runs_once_per_arrival_and_is_counted() {
    let ctx = Context::new();
    let mut node = ctx.node("forgetful").unwrap();
    let input = node.subscription::<Empty>("input").create().unwrap();
    let probe = input.probe();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let r = runs.clone();
    node.execute(Trigger::on(&input), move |_| {
        let _keep_it_alive = &input;
        r.add();
    })
    .unwrap();
    executor.add(node).unwrap();
    let input = publisher(&ctx, "input");

    publish(&input, 3);
    spin_until_stopped(&mut executor);
    // A window: a run for what it left would follow at once.
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(
        runs.get(),
        1,
        "one run for the burst, none for what it left"
    );
    assert_eq!(probe.unread(), 3);
    assert_eq!(executor.stats().left_unread, 1);

    publish(&input, 1);
    spin_until_stopped(&mut executor);
    assert_eq!(runs.get(), 2, "the next arrival runs it again");
    assert_eq!(executor.stats().left_unread, 2);
}

#[test]
fn all_runs_when_the_last_missing_input_arrives() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Empty>("radar").create().unwrap();
    let camera = node.subscription::<Empty>("camera").create().unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let r = runs.clone();
    let trigger = Trigger::all().with(&radar).with(&camera);
    node.execute(trigger, move |activation| {
        assert!(activation.fired(1), "camera arrived last");
        take_all(&radar);
        take_all(&camera);
        r.add();
    })
    .unwrap();
    executor.add(node).unwrap();

    publish(&publisher(&ctx, "radar"), 2);
    executor.spin_for(SETTLE).unwrap(); // a window: watches for a run that must not happen
    assert_eq!(runs.get(), 0);
    publish(&publisher(&ctx, "camera"), 1);
    spin_until_stopped(&mut executor);
    assert_eq!(runs.get(), 1);
    assert_eq!(executor.stats().left_unread, 0);
}

/// While the executor sleeps until its deadline, another thread publishes samples, about
/// 0.5 ms apart, on a subscription of its node that no trigger names; the node never runs.
///
/// A window: nothing can signal a wake-up that does not happen. The executor wakes once, for
/// its deadline, however loaded the machine; one that the samples woke would count a wake-up
/// for each sample that found it asleep.
#[test]
fn samples_on_a_non_triggering_subscription_wake_nothing() {
    const QUIET: usize = 200;
    let ctx = Context::new();
    let mut node = ctx.node("listener").unwrap();
    let trigger = node.subscription::<Empty>("trigger").create().unwrap();
    let quiet = node
        .subscription::<Empty>("quiet")
        .history(History::KeepAll { max: QUIET })
        .create()
        .unwrap();
    let quiet_probe = quiet.probe();
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    let r = runs.clone();
    node.execute(Trigger::on(&trigger), move |_| {
        take_all(&trigger);
        take_all(&quiet);
        r.add();
    })
    .unwrap();
    executor.add(node).unwrap();

    let samples = publisher(&ctx, "quiet");
    let publishing = thread::spawn(move || {
        for _ in 0..QUIET {
            samples.publish(Empty::default());
            thread::sleep(Duration::from_micros(500));
        }
    });
    // Far longer than publishing the samples takes.
    let outcome = executor.spin_for(Duration::from_millis(300)).unwrap();
    publishing.join().unwrap();
    assert_eq!(outcome, SpinOutcome::Elapsed);
    assert_eq!(runs.get(), 0);
    assert_eq!(quiet_probe.unread(), QUIET, "the quiet samples did arrive");
    let wakeups = executor.stats().wakeups;
    assert!(wakeups <= 1, "{QUIET} quiet samples: {wakeups} wake-ups");
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
        let classic = node.wall_timer(too_short, |_| {});
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
    let mut executor = WaitSetExecutor::new().unwrap();
    let runs = Runs::new(&executor);
    for clock in [ClockKind::Steady, ClockKind::System, ClockKind::Ros] {
        let runs = runs.clone();
        let trigger = Trigger::every(Trigger::MAX_PERIOD).clock(clock);
        node.execute(trigger, move |_| runs.add()).unwrap();
    }
    executor.add(node).unwrap();
    // A window: watches for a run that must not happen.
    assert_eq!(executor.spin_for(SETTLE).unwrap(), SpinOutcome::Elapsed);
    assert_eq!(runs.get(), 0);
}
