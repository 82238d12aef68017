//! Guard conditions as trigger inputs on every executor, and arrival hooks on polling
//! subscriptions.

use std::sync::mpsc;
use std::time::{Duration, Instant};

mod loopback;

use tacto::condition::HookError;
use tacto::msg::std_msgs::String as Text;
use tacto::{
    AddError, CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThread, GuardCondition,
    LetExecutor, ThreadPoolExecutor, Trigger, TriggerError, WaitSetExecutor,
};

/// A node whose code runs on `condition` and reports whether it found it raised.
fn raised_node(ctx: &Context, name: &str) -> (tacto::Node, GuardCondition, mpsc::Receiver<bool>) {
    let mut node = ctx.node(name).unwrap();
    let condition = node.guard_condition();
    let (ran, runs) = mpsc::channel();
    let taken = condition.clone();
    node.execute(Trigger::on_condition(&condition), move |_| {
        let _ = ran.send(taken.take());
    })
    .unwrap();
    (node, condition, runs)
}

/// Spins `executor` until `runs` reports a run, or two seconds pass.
fn spin_until_run(executor: &mut impl Executor, runs: &mpsc::Receiver<bool>) -> Option<bool> {
    let give_up = Instant::now() + Duration::from_secs(2);
    while Instant::now() < give_up {
        executor.spin_for(Duration::from_millis(10)).unwrap();
        if let Ok(raised) = runs.try_recv() {
            return Some(raised);
        }
    }
    None
}

/// Raises the condition from another thread and checks the code ran once, found it raised,
/// and is not run again while it stays lowered.
fn runs_once_per_raising(executor: &mut impl Executor, name: &str) {
    let ctx = Context::new();
    let (node, condition, runs) = raised_node(&ctx, name);
    executor.add(node).unwrap();
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert!(runs.try_recv().is_err(), "{name}: ran without a raising");
    let raiser = condition.clone();
    std::thread::spawn(move || raiser.trigger()).join().unwrap();
    assert_eq!(spin_until_run(executor, &runs), Some(true), "{name}");
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert!(runs.try_recv().is_err(), "{name}: ran again unraised");
    condition.trigger();
    assert_eq!(spin_until_run(executor, &runs), Some(true), "{name}");
}

#[test]
fn a_raised_condition_runs_its_code_on_the_wait_set_executor() {
    runs_once_per_raising(&mut WaitSetExecutor::new().unwrap(), "wait_set");
}

#[test]
fn a_raised_condition_runs_its_code_on_the_events_executor() {
    runs_once_per_raising(&mut EventsExecutor::new().unwrap(), "events");
}

#[test]
fn a_raised_condition_runs_its_code_on_the_callback_executor() {
    runs_once_per_raising(&mut CallbackExecutor::new().unwrap(), "callback");
}

#[test]
fn a_raised_condition_runs_its_code_on_the_thread_pool_executor() {
    runs_once_per_raising(&mut ThreadPoolExecutor::new().unwrap(), "thread_pool");
}

#[test]
fn a_raised_condition_runs_its_code_at_the_next_let_period() {
    let mut executor = LetExecutor::new(Duration::from_millis(5)).unwrap();
    runs_once_per_raising(&mut executor, "let");
}

#[test]
fn a_raised_condition_runs_its_code_on_an_executor_thread() {
    let ctx = Context::new();
    let (node, condition, runs) = raised_node(&ctx, "threaded");
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let thread = ExecutorThread::builder().spawn(executor).unwrap();
    condition.trigger();
    assert_eq!(runs.recv_timeout(Duration::from_secs(2)), Ok(true));
    thread.stop();
    let (_, outcome) = thread.join().unwrap();
    outcome.unwrap();
}

#[test]
fn a_condition_raised_before_the_node_was_added_counts() {
    let ctx = Context::new();
    let (node, condition, runs) = raised_node(&ctx, "early");
    condition.trigger();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    assert_eq!(spin_until_run(&mut executor, &runs), Some(true));
}

#[test]
fn a_condition_and_a_subscription_both_fire_an_any_trigger() {
    let ctx = Context::new();
    let mut node = ctx.node("either").unwrap();
    let input = node.subscription::<Text>("input").create().unwrap();
    let condition = node.guard_condition();
    let publisher = node.publisher::<Text>("input").create().unwrap();
    let (ran, runs) = mpsc::channel();
    let taken = condition.clone();
    node.execute(
        Trigger::any().with(&input).with_condition(&condition),
        move |activation| {
            let sample = input.take().map(|s| s.data.clone());
            let fired = (activation.fired(0), activation.fired(1));
            let _ = ran.send((fired, sample, taken.take()));
        },
    )
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    publisher.publish(Text { data: "a".into() });
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert_eq!(
        runs.try_recv(),
        Ok(((true, false), Some("a".into()), false))
    );
    condition.trigger();
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert_eq!(runs.try_recv(), Ok(((false, true), None, true)));
}

#[test]
fn a_condition_of_another_node_is_refused() {
    let ctx = Context::new();
    let mut owner = ctx.node("owner").unwrap();
    let condition = owner.guard_condition();
    let mut other = ctx.node("other").unwrap();
    let refused = other.execute(Trigger::on_condition(&condition), |_| {});
    assert_eq!(refused, Err(TriggerError::ForeignSubscription));
}

#[test]
fn take_lowers_the_condition_and_says_whether_it_was_raised() {
    let ctx = Context::new();
    let mut node = ctx.node("plain").unwrap();
    let condition = node.guard_condition();
    assert!(!condition.take());
    condition.trigger();
    condition.trigger();
    assert_eq!(condition.raisings(), 2);
    assert!(condition.take());
    assert!(!condition.take());
}

#[test]
fn an_arrival_hook_is_called_only_while_armed() {
    let ctx = Context::new();
    let mut node = ctx.node("hooked").unwrap();
    let topic = node.subscription::<Text>("topic").create().unwrap();
    let publisher = node.publisher::<Text>("topic").create().unwrap();
    let (called, calls) = mpsc::channel();
    let hook = topic.on_arrival(move || called.send(()).unwrap()).unwrap();
    assert!(!hook.is_armed());
    publisher.publish(Text { data: "1".into() });
    assert_eq!(calls.try_iter().count(), 0);
    hook.arm();
    publisher.publish(Text { data: "2".into() });
    publisher.publish(Text { data: "3".into() });
    assert_eq!(calls.try_iter().count(), 2);
    hook.disarm();
    publisher.publish(Text { data: "4".into() });
    assert_eq!(calls.try_iter().count(), 0);
    // The samples are all there: the hook only tells.
    assert_eq!(topic.take_all().count(), 4);
}

#[test]
fn an_arrival_hook_hears_another_process_s_samples_through_the_transport_while_armed() {
    let hub = loopback::Hub::new();
    let (talker, ctx) = (hub.context(), hub.context());
    let publisher = (talker.node("talker").unwrap())
        .publisher::<Text>("remote")
        .create()
        .unwrap();
    let topic = (ctx.node("hooked").unwrap())
        .subscription::<Text>("remote")
        .create()
        .unwrap();
    let (called, calls) = mpsc::channel();
    let hook = topic.on_arrival(move || called.send(()).unwrap()).unwrap();
    publisher.publish(Text { data: "1".into() });
    assert_eq!(calls.try_iter().count(), 0);
    hook.arm();
    publisher.publish(Text { data: "2".into() });
    assert_eq!(calls.try_iter().count(), 1);
    assert_eq!(topic.take_all().count(), 2);
}

#[test]
fn an_armed_hook_raising_a_condition_wakes_the_waiting_code() {
    let ctx = Context::new();
    let mut node = ctx.node("waiter").unwrap();
    let side = node.subscription::<Text>("side").create().unwrap();
    let (node_, condition, runs) = {
        let condition = node.guard_condition();
        let (ran, runs) = mpsc::channel();
        let taken = condition.clone();
        node.execute(Trigger::on_condition(&condition), move |_| {
            let _ = ran.send(taken.take());
        })
        .unwrap();
        (node, condition, runs)
    };
    let raise = condition.clone();
    let hook = side.on_arrival(move || raise.trigger()).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node_).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("side").create().unwrap();
    publisher.publish(Text::default());
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert!(
        runs.try_recv().is_err(),
        "disarmed: the arrival woke nothing"
    );
    assert_eq!(executor.stats().executions, 0);
    hook.arm();
    publisher.publish(Text::default());
    assert_eq!(spin_until_run(&mut executor, &runs), Some(true));
}

#[test]
fn a_subscription_named_in_a_trigger_refuses_a_hook() {
    let ctx = Context::new();
    let mut node = ctx.node("named").unwrap();
    let topic = node.subscription::<Text>("topic").create().unwrap();
    let probe = topic.probe();
    node.execute(Trigger::on(&topic), move |_| {
        let _ = probe.unread();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let refused = topic.on_arrival(|| {});
    assert_eq!(refused.unwrap_err(), HookError::AlreadyAnnounced);
}

#[test]
fn a_subscription_with_a_hook_refuses_a_second_one_and_a_trigger() {
    let ctx = Context::new();
    let mut node = ctx.node("hooked_once").unwrap();
    let topic = node.subscription::<Text>("topic").create().unwrap();
    let _hook = topic.on_arrival(|| {}).unwrap();
    assert_eq!(
        topic.on_arrival(|| {}).unwrap_err(),
        HookError::AlreadyAnnounced
    );
    node.execute(Trigger::on(&topic), |_| {}).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    assert!(matches!(
        executor.add(node),
        Err(AddError::InputAlreadyTriggering(_) | AddError::Link { .. })
    ));
}
