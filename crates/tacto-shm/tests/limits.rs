//! `ShmLimits` across real processes: a topic's limits are set by the process that creates
//! it, and a process asking for more is refused naming both. This test binary re-executes
//! itself as the other process (`child_role`, selected by `TACTO_SHM_LIMITS_ROLE`). Topic
//! names carry the parent's pid and the test's name, so parallel runs never share a service.

use std::time::Instant;

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, History, PublisherId};
use tacto_shm::{
    Limit, LimitsError, NodeError, ShmLimits, ShmNode, ShmSubscriber, ShmTransport,
    SubscriberError, TopicError,
};

mod support;
use support::{Child, PATIENCE, SAY};

const ROLE: &str = "TACTO_SHM_LIMITS_ROLE";

fn topic(test: &str) -> String {
    format!("/l{}_{test}", std::process::id())
}

/// The default limits with `subscribers` subscribers per topic.
fn subscribers(subscribers: usize) -> ShmLimits {
    ShmLimits {
        subscribers,
        ..ShmLimits::default()
    }
}

/// The other process: does what the role says with the limits of `SUBSCRIBERS`, prints the
/// outcome, then waits for its stdin to close, its ports alive.
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    let var = |name: &str| std::env::var(name).unwrap();
    let topic = var("TOPIC");
    let limits = subscribers(var("SUBSCRIBERS").parse().unwrap());
    // Kept alive until the parent is done.
    let mut keep: Vec<Box<dyn std::any::Any>> = Vec::new();
    match role.as_str() {
        // A publisher on its own node, sending COUNT samples.
        "publish" => {
            let node = ShmNode::builder("child").limits(limits).create().unwrap();
            let publisher = node
                .publisher::<Text>(&topic)
                .id(PublisherId([3; 16]))
                .create()
                .unwrap();
            for i in 0..var("COUNT").parse().unwrap() {
                let delivery = publisher.publish(&Text {
                    data: format!("sample {i}"),
                });
                println!("{SAY} reached {}", delivery.unwrap().subscribers);
            }
            keep.push(Box::new(publisher));
            keep.push(Box::new(node));
        }
        // A tacto subscription on a Context over ShmTransport.
        "subscribe" => {
            let transport = ShmTransport::builder("child")
                .limits(limits)
                .create()
                .unwrap();
            let ctx = Context::builder().transport(transport).create();
            let mut node = ctx.node("listener").unwrap();
            match node.subscription::<Text>(&topic).create() {
                Ok(subscription) => {
                    println!("{SAY} subscribed");
                    keep.push(Box::new(subscription));
                }
                Err(error) => println!("{SAY} refused: {error}"),
            }
            keep.push(Box::new(node));
            keep.push(Box::new(ctx));
        }
        other => panic!("unknown role {other}"),
    }
    std::io::stdin().lines().for_each(drop);
    drop(keep);
}

fn spawn(role: &str, topic: &str, limit: usize, env: &[(&str, String)]) -> Child {
    let mut all = vec![
        ("TOPIC", topic.to_owned()),
        ("SUBSCRIBERS", limit.to_string()),
    ];
    all.extend(env.iter().cloned());
    Child::spawn(ROLE, role, &all)
}

/// Takes the next sample, waiting for one to arrive.
fn next(sub: &ShmSubscriber<Text>) -> String {
    let start = Instant::now();
    loop {
        if let Some(received) = sub.take().unwrap() {
            assert_eq!(received.info.publisher, PublisherId([3; 16]));
            return received.message.data;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no sample arrived on {}: {:?}",
            sub.service_name(),
            sub.stats()
        );
        std::thread::yield_now();
    }
}

#[test]
fn ten_subscribers_on_one_topic_all_receive_with_the_limit_raised() {
    let topic = topic("ten");
    let node = ShmNode::builder("parent")
        .limits(subscribers(16))
        .create()
        .unwrap();
    let subs: Vec<_> = (0..10)
        .map(|_| node.subscriber::<Text>(&topic).create().unwrap())
        .collect();
    let child = spawn("publish", &topic, 16, &[("COUNT", "3".into())]);
    for _ in 0..3 {
        assert_eq!(child.next_line(), "reached 10");
    }
    for sub in &subs {
        for i in 0..3 {
            assert_eq!(next(sub), format!("sample {i}"));
        }
        assert_eq!(sub.stats(), Default::default());
    }
    child.finish();
}

#[test]
fn a_process_asking_for_more_than_the_topic_was_created_for_is_refused_naming_both() {
    let topic = topic("more");
    let node = ShmNode::create("parent").unwrap();
    let sub = node.subscriber::<Text>(&topic).create().unwrap();

    let more = spawn("subscribe", &topic, 16, &[]);
    let said = more.next_line();
    assert!(said.starts_with("refused: "), "{said}");
    for part in [
        topic.as_str(),
        "max_subscribers = 8 on this host",
        "asks for 16",
    ] {
        assert!(said.contains(part), "{said:?} should name {part:?}");
    }
    more.finish();

    // Asking for less than the topic's limits just works.
    let less = spawn("subscribe", &topic, 4, &[]);
    assert_eq!(less.next_line(), "subscribed");
    let publisher = spawn("publish", &topic, 4, &[("COUNT", "1".into())]);
    assert_eq!(publisher.next_line(), "reached 2");
    assert_eq!(next(&sub), "sample 0");
    publisher.finish();
    less.finish();

    // The same refusal in this process, typed.
    let greedy = ShmNode::builder("greedy")
        .limits(ShmLimits {
            depth: 32,
            ..ShmLimits::default()
        })
        .create()
        .unwrap();
    match greedy.subscriber::<Text>(&topic).create() {
        Err(SubscriberError::Topic(TopicError::Limits {
            limit: Limit::Depth,
            existing: 16,
            requested: 32,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_full_topic_names_its_limit() {
    let (topic, deep_topic) = (topic("full"), topic("full_deep"));
    let node = ShmNode::create("parent").unwrap();
    let subs: Vec<_> = (0..8)
        .map(|_| node.subscriber::<Text>(&topic).create().unwrap())
        .collect();
    let error = node.subscriber::<Text>(&topic).create().unwrap_err();
    assert!(
        matches!(error, SubscriberError::Full { limit: 8, .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains(&topic) && text.contains("already has its 8 subscribers"),
        "{text}"
    );
    drop(subs);
    // A history deeper than the node's depth is refused; a node allowing it creates it.
    let deep = History::KeepLast(32);
    let refused = node.subscriber::<Text>(&topic).history(deep).create();
    assert!(
        matches!(refused, Err(SubscriberError::History { depth: 16, .. })),
        "{refused:?}"
    );
    let deep_node = ShmNode::builder("deep")
        .limits(ShmLimits {
            depth: 32,
            ..ShmLimits::default()
        })
        .create()
        .unwrap();
    deep_node
        .subscriber::<Text>(&deep_topic)
        .history(deep)
        .create()
        .unwrap();
}

#[test]
fn limits_out_of_bounds_are_refused_before_a_node_exists() {
    let zero = ShmNode::builder("zero").limits(subscribers(0)).create();
    assert!(
        matches!(
            zero,
            Err(NodeError::Limits(LimitsError::Zero {
                limit: Limit::Subscribers
            }))
        ),
        "{zero:?}"
    );
    let huge = ShmNode::builder("huge")
        .limits(subscribers(100_000))
        .create();
    let Err(NodeError::Limits(error)) = huge else {
        panic!("{huge:?}");
    };
    assert_eq!(
        error.to_string(),
        "max_subscribers = 100000: give at most 256"
    );
    let slots = ShmLimits {
        subscribers: 256,
        depth: 256,
        ..ShmLimits::default()
    };
    assert!(matches!(
        slots.check(),
        Err(LimitsError::TooManySlots { slots: 69_891, .. })
    ));
}
