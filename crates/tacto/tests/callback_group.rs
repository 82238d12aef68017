//! Callback groups: owned by one node, ignored by the single-threaded executors.

use std::sync::mpsc;
use std::time::Duration;

use tacto::msg::std_msgs::String as Text;
use tacto::{
    CallbackExecutor, CallbackGroupKind, Context, ExecuteInError, Executor,
    SubscriptionCreateError, Trigger, WaitSetExecutor,
};

mod util;
use util::spin_until_stopped;

#[test]
fn a_node_refuses_the_callback_group_of_another_node() {
    let ctx = Context::new();
    let mut owner = ctx.node("owner").unwrap();
    let group = owner.callback_group(CallbackGroupKind::Reentrant);
    let mut other = ctx.node("other").unwrap();

    assert_eq!(
        other.execute_in(&group, Trigger::every(Duration::from_millis(10)), |_| {}),
        Err(ExecuteInError::ForeignCallbackGroup)
    );
    assert_eq!(
        other
            .subscription::<Text>("chat")
            .callback_in(&group, |_| {}),
        Err(SubscriptionCreateError::ForeignCallbackGroup)
    );
}

#[test]
fn execute_in_still_checks_the_trigger() {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    let group = node.callback_group(CallbackGroupKind::MutuallyExclusive);

    assert!(matches!(
        node.execute_in(&group, Trigger::every(Duration::ZERO), |_| {}),
        Err(ExecuteInError::Trigger(_))
    ));
}

#[test]
fn single_threaded_executors_run_code_of_any_group() {
    let executors: [Box<dyn Executor>; 2] = [
        Box::new(CallbackExecutor::new().unwrap()),
        Box::new(WaitSetExecutor::new().unwrap()),
    ];
    for mut executor in executors {
        let ctx = Context::new();
        let mut node = ctx.node("grouped").unwrap();
        let group = node.callback_group(CallbackGroupKind::Reentrant);
        let (tx, rx) = mpsc::channel();
        let stop = executor.stop_handle();
        node.subscription::<Text>("chat")
            .callback_in(&group, move |msg| {
                tx.send(msg.data.clone()).unwrap();
                stop.stop();
            })
            .unwrap();
        let mut talker = ctx.node("talker").unwrap();
        let publisher = talker.publisher::<Text>("chat").create().unwrap();
        executor.add(node).unwrap();

        publisher.publish(Text { data: "hi".into() });
        spin_until_stopped(&mut executor);
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), ["hi"]);
    }
}
