//! The graph of a context: how long its topics live.

use std::sync::Arc;
use std::time::Duration;

use tacto::msg::std_msgs::{Empty, String as Text};
use tacto::{Context, Executor, LetExecutor, TopicError};

#[test]
fn a_topic_whose_last_endpoint_was_dropped_can_carry_another_type() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    let publisher = node.publisher::<Text>("chat").create().unwrap();
    drop((sub, publisher));

    // The node lives on: only the topic's endpoints are gone.
    let retyped = node.publisher::<Empty>("chat").create();
    assert!(retyped.is_ok(), "{retyped:?}");
}

#[test]
fn a_re_created_topic_checks_its_new_type() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    drop(node.subscription::<Text>("chat").create().unwrap());
    let _empty = node.subscription::<Empty>("chat").create().unwrap();

    match node.publisher::<Text>("chat").create() {
        Err(TopicError::TypeMismatch {
            existing,
            requested,
            ..
        }) => assert_eq!(
            (existing, requested),
            ("std_msgs/msg/Empty", "std_msgs/msg/String")
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_re_created_topic_delivers() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    drop(node.subscription::<Text>("chat").create().unwrap());

    let sub = node.subscription::<Text>("chat").create().unwrap();
    let publisher = node.publisher::<Text>("chat").create().unwrap();
    publisher.publish(Text { data: "hi".into() });
    assert_eq!(sub.take().unwrap().data, "hi");
    assert_eq!(publisher.subscription_count(), 1);
}

#[test]
fn a_dropped_subscription_releases_its_samples_while_its_node_lives() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    let publisher = node.publisher::<Text>("chat").create().unwrap();
    let msg = Arc::new(Text { data: "big".into() });
    publisher.publish_shared(msg.clone());
    assert_eq!(Arc::strong_count(&msg), 2, "the history holds the message");

    drop(sub);
    assert_eq!(Arc::strong_count(&msg), 1);
}

#[test]
fn a_subscription_of_a_node_in_a_let_executor_releases_its_samples_when_dropped() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    // The LET executor freezes every subscription of its nodes each period.
    let mut executor = LetExecutor::new(Duration::from_millis(10)).unwrap();
    executor.add(node).unwrap();
    let mut source = ctx.node("source").unwrap();
    let publisher = source.publisher::<Text>("chat").create().unwrap();
    let msg = Arc::new(Text { data: "big".into() });
    publisher.publish_shared(msg.clone());

    drop(sub);
    assert_eq!(Arc::strong_count(&msg), 1);
}
