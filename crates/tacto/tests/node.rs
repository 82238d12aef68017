//! Nodes: what their code may be triggered by.

use tacto::msg::std_msgs::Empty;
use tacto::{CallbackGroupKind, Context, ExecuteInError, Trigger, TriggerError};

#[test]
fn a_trigger_naming_another_nodes_subscription_is_refused() {
    let ctx = Context::new();
    let mut radar_node = ctx.node("radar").unwrap();
    let radar = radar_node.subscription::<Empty>("radar").create().unwrap();
    let mut fusion = ctx.node("fusion").unwrap();
    let camera = fusion.subscription::<Empty>("camera").create().unwrap();

    let refused = fusion.execute(Trigger::on(&radar), |_| {});
    assert_eq!(refused, Err(TriggerError::ForeignSubscription));
    let refused = fusion.execute(Trigger::any().with(&camera).with(&radar), |_| {});
    assert_eq!(refused, Err(TriggerError::ForeignSubscription));
    let group = fusion.callback_group(CallbackGroupKind::Reentrant);
    let refused = fusion.execute_in(&group, Trigger::when(|| true).with(&radar), |_| {});
    assert_eq!(
        refused,
        Err(ExecuteInError::Trigger(TriggerError::ForeignSubscription))
    );

    assert_eq!(fusion.execute(Trigger::on(&camera), |_| {}), Ok(()));
    assert_eq!(radar_node.execute(Trigger::on(&radar), |_| {}), Ok(()));
}

#[test]
fn a_subscription_outliving_its_node_triggers_nothing_else() {
    let ctx = Context::new();
    let mut first = ctx.node("first").unwrap();
    let radar = first.subscription::<Empty>("radar").create().unwrap();
    drop(first);

    let mut second = ctx.node("second").unwrap();
    let refused = second.execute(Trigger::on(&radar), |_| {});
    assert_eq!(refused, Err(TriggerError::ForeignSubscription));
}
