//! The graph of a context: how long its topics and node names live, and the names it refuses.

use std::sync::Arc;
use std::time::Duration;

use tacto::msg::std_msgs::{Empty, String as Text};
use tacto::names::{FullTopicNameInvalid, NameError, NodeNameInvalid};
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, LetExecutor, LocalDelivery,
    NodeCreateError, ThreadPoolExecutor, TopicError, Trigger, WaitSetExecutor,
};

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
    // Shared delivery: the test follows the publisher's own `Arc`.
    let ctx = Context::builder()
        .local_delivery(LocalDelivery::Shared)
        .create();
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
    // Shared delivery: the test follows the publisher's own `Arc`.
    let ctx = Context::builder()
        .local_delivery(LocalDelivery::Shared)
        .create();
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

#[test]
fn a_second_live_node_of_the_same_name_is_refused() {
    let ctx = Context::new();
    let _first = ctx.node("twin").unwrap();
    match ctx.node("twin") {
        Err(NodeCreateError::NameTaken(name)) => assert_eq!(name, "/twin"),
        other => panic!("{other:?}"),
    }
    // The name is the namespace and the name: another namespace is another node.
    let other = ctx
        .node_builder("twin")
        .namespace("/left")
        .create()
        .unwrap();
    assert_eq!(other.fully_qualified_name(), "/left/twin");
}

#[test]
fn a_node_name_is_free_again_once_the_node_is_dropped() {
    let ctx = Context::new();
    drop(ctx.node("twin").unwrap());
    assert!(ctx.node("twin").is_ok());
}

fn executors() -> Vec<(&'static str, Box<dyn Executor>)> {
    vec![
        ("wait-set", Box::new(WaitSetExecutor::new().unwrap())),
        ("callback", Box::new(CallbackExecutor::new().unwrap())),
        ("events", Box::new(EventsExecutor::new().unwrap())),
        (
            "thread-pool",
            Box::new(ThreadPoolExecutor::builder().threads(1).create().unwrap()),
        ),
        (
            "let",
            Box::new(LetExecutor::new(Duration::from_millis(10)).unwrap()),
        ),
    ]
}

#[test]
fn a_node_name_stays_taken_while_an_executor_holds_the_node() {
    for (kind, mut executor) in executors() {
        let ctx = Context::new();
        let mut node = ctx.node("twin").unwrap();
        node.wall_timer(Duration::from_secs(1), |_| {}).unwrap();
        executor.add(node).unwrap();
        executor.add(ctx.node("quiet").unwrap()).unwrap();
        for name in ["twin", "quiet"] {
            let taken = ctx.node(name);
            assert!(
                matches!(taken, Err(NodeCreateError::NameTaken(_))),
                "{kind}"
            );
        }

        drop(executor);
        assert!(ctx.node("twin").is_ok());
        assert!(ctx.node("quiet").is_ok());
    }
}

#[test]
fn a_node_an_executor_refused_leaves_its_name_free() {
    let ctx = Context::new();
    let mut refused = ctx.node("refused").unwrap();
    let (a, b) = (
        refused.subscription::<Empty>("a").create().unwrap(),
        refused.subscription::<Empty>("b").create().unwrap(),
    );
    refused
        .execute(Trigger::all().with(&a).with(&b), |_| {})
        .unwrap();
    let mut executor = CallbackExecutor::new().unwrap();
    assert!(executor.add(refused).is_err());
    assert!(ctx.node("refused").is_ok());
}

#[test]
fn node_names_are_unique_per_context_only() {
    let (a, b) = (Context::new(), Context::new());
    let _first = a.node("twin").unwrap();
    assert!(b.node("twin").is_ok());
    // A clone is the same graph.
    assert!(matches!(
        a.clone().node("twin"),
        Err(NodeCreateError::NameTaken(_))
    ));
}

#[test]
fn a_node_name_of_255_characters_is_accepted_and_one_of_256_refused() {
    let ctx = Context::new();
    assert!(ctx.node(&"n".repeat(255)).is_ok());
    match ctx.node(&"n".repeat(256)) {
        Err(NodeCreateError::Name(NameError::NodeName { invalid, .. })) => {
            assert_eq!(invalid.reason, NodeNameInvalid::TooLong);
            assert_eq!(
                invalid.index, 254,
                "rmw reports the last index within the limit"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_topic_name_of_247_characters_once_resolved_is_accepted_and_one_of_248_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    // Relative names resolve to "/" + name.
    assert!(node.publisher::<Text>(&"t".repeat(246)).create().is_ok());
    assert!(
        node.publisher::<Text>(&format!("/{}", "u".repeat(246)))
            .create()
            .is_ok()
    );
    for name in ["t".repeat(247), format!("/{}", "u".repeat(247))] {
        match node.publisher::<Text>(&name).create() {
            Err(TopicError::Name(NameError::FullName {
                resolved, invalid, ..
            })) => {
                assert_eq!(invalid.reason, FullTopicNameInvalid::TooLong);
                assert_eq!(resolved.len(), 248);
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let refused = node.subscription::<Text>(&"t".repeat(300)).create();
    assert!(refused.is_err(), "subscriptions check the length too");
}
