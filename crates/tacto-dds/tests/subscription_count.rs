//! `Publisher::subscription_count()` counts, as rclcpp's `get_subscription_count()`, the
//! subscriptions of its own context and those of other processes: a second tacto process over
//! DDS, over shared memory, over both (counted once); an rclpy subscriber (the PyPI wheels,
//! Fast DDS); never a subscription whose QoS cannot match. This test binary re-executes itself
//! as the other tacto process (`tacto_subscriber`). Domains 209 to 212.

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::{PATIENCE, RclpyNode, loopback_participant};
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Publisher, Qos, Reliability};
use tacto_dds::DdsTransport;
use tacto_shm::ShmTransport;

/// Unique per run, so that parallel runs never share a topic (nor an iceoryx2 service).
fn topic(test: &str) -> String {
    format!("/count{}_{test}", std::process::id())
}

/// A context on `transports` (`dds`, `shm` or `both`), DDS in `domain` on loopback.
fn context(transports: &str, domain: u32, name: &str) -> Context {
    let dds = |key: Option<&str>| {
        let participant = loopback_participant(domain);
        match key {
            Some(key) => DdsTransport::beside_shm(participant, key),
            None => DdsTransport::new(participant),
        }
    };
    let builder = Context::builder();
    match transports {
        "dds" => builder.transport(dds(None)).create(),
        "shm" => builder.transport(ShmTransport::new(name).unwrap()).create(),
        "both" => {
            let shm = ShmTransport::new(name).unwrap();
            let key = shm.node().host_key().unwrap();
            builder.transport(shm).transport(dds(Some(&key))).create()
        }
        _ => panic!("no transports {transports:?}"),
    }
}

/// The other tacto process; its role (`support::ROLE`) says `<transports> <domain> <topic>`:
/// subscribes to the topic, prints "ready", and returns (its context dropped, its
/// subscription gone from the graph) once it has received "bye".
#[test]
#[ignore = "the other process of this file's tests, which run it with --include-ignored"]
fn tacto_subscriber() {
    let role = std::env::var(support::ROLE).expect(support::ROLE);
    let words: Vec<&str> = role.split(' ').collect();
    let [transports, domain, topic] = words[..] else {
        panic!("role {role:?}");
    };
    let ctx = context(transports, domain.parse().unwrap(), "tacto_subscriber");
    let mut node = ctx.node("tacto_subscriber").unwrap();
    let subscription = node.subscription::<Text>(topic).create().unwrap();
    println!("subscriber: ready");
    let deadline = Instant::now() + PATIENCE;
    while !subscription.take_all().any(|sample| sample.data == "bye") {
        assert!(Instant::now() < deadline, "no bye within {PATIENCE:?}");
        thread::sleep(Duration::from_millis(10));
    }
    println!("subscriber: done");
}

/// Waits until `publisher` counts `wanted` subscriptions, publishing `publish` (if any) every
/// tick meanwhile; fails with what it counted at the deadline.
fn wait_for_count(
    publisher: &Publisher<Text>,
    wanted: usize,
    publish: Option<&str>,
    peer: &RclpyNode,
) {
    let deadline = Instant::now() + PATIENCE;
    while publisher.subscription_count() != wanted {
        assert!(
            Instant::now() < deadline,
            "subscription_count() is {}, not {wanted}, after {PATIENCE:?}; peer:\n{}",
            publisher.subscription_count(),
            peer.stderr()
        );
        if let Some(data) = publish {
            publisher.publish(Text { data: data.into() });
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// The next stdout line of `peer` that contains `key`.
fn expect_line(peer: &RclpyNode, key: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match peer.next_line(deadline) {
            Some(line) if line.contains(key) => return,
            Some(_) => continue,
            None => panic!("no {key:?} line; stderr:\n{}", peer.stderr()),
        }
    }
}

/// The sequence of rclcpp's `TestPublisherSubscriptionCount.increasing_and_decreasing_counts`
/// (rclcpp/test/rclcpp/test_publisher_subscription_count_api.cpp): 0; 1 with a subscription
/// of the same node; 2 with another node's; 1 when that one goes; 0 when the first goes. The
/// other node is in another tacto process (`transports` for both): rclcpp's variants with two
/// contexts in one process would count nothing more here, because a tacto context's
/// transport never delivers to its own process (no echo), so it does not count there either.
fn increasing_and_decreasing_counts(transports: &str, domain: u32) {
    let topic = topic(transports);
    let ctx = context(transports, domain, "count_publisher");
    let mut node = ctx.node("my_node").unwrap();
    let publisher = node.publisher::<Text>(&topic).create().unwrap();
    assert_eq!(publisher.subscription_count(), 0);
    let subscription = node.subscription::<Text>(&topic).create().unwrap();
    assert_eq!(publisher.subscription_count(), 1);

    let role = format!("{transports} {domain} {topic}");
    let peer = RclpyNode::this_test("tacto_subscriber", &role, &[]);
    expect_line(&peer, "subscriber: ready");
    wait_for_count(&publisher, 2, None, &peer);
    // Still 2 a moment later: the peer's subscription is counted once, whatever the path.
    thread::sleep(Duration::from_millis(300));
    assert_eq!(publisher.subscription_count(), 2);

    wait_for_count(&publisher, 1, Some("bye"), &peer);
    expect_line(&peer, "subscriber: done");
    drop(subscription);
    assert_eq!(publisher.subscription_count(), 0);
}

#[test]
fn a_tacto_subscriber_in_another_process_is_counted_over_dds() {
    increasing_and_decreasing_counts("dds", 209);
}

#[test]
fn a_tacto_subscriber_in_another_process_is_counted_over_shared_memory() {
    increasing_and_decreasing_counts("shm", 0);
}

#[test]
fn a_tacto_subscriber_on_both_transports_is_counted_once() {
    increasing_and_decreasing_counts("both", 210);
}

#[test]
fn an_rclpy_subscriber_is_counted_until_it_leaves() {
    const DOMAIN: u32 = 211;
    let topic = topic("rclpy");
    let transport = DdsTransport::new(loopback_participant(DOMAIN));
    let ctx = Context::builder().transport(transport).create();
    let mut node = ctx.node("talker").unwrap();
    let publisher = node.publisher::<Text>(&topic).create().unwrap();
    assert_eq!(publisher.subscription_count(), 0);
    // Leaves after one message starting with "bye", shutting its participant down.
    let listener = RclpyNode::spawn("listener.py", DOMAIN, &[&topic, "bye", "1"]);
    expect_line(&listener, "ready");
    wait_for_count(&publisher, 1, None, &listener);
    wait_for_count(&publisher, 0, Some("bye"), &listener);
}

/// rcl's `TestCountFixture.test_count_matched_functions_mismatched_qos`
/// (rcl/test/rcl/test_count_matched.cpp): a best-effort publisher and reliable subscriptions
/// do not match, so none is counted, however many there are. Here the subscriptions are two
/// rclpy nodes', found (as incompatible) before the count is read.
#[test]
fn reliable_subscriptions_are_not_counted_by_a_best_effort_publisher() {
    const DOMAIN: u32 = 212;
    let topic = topic("qos");
    let transport = DdsTransport::new(loopback_participant(DOMAIN));
    let ctx = Context::builder().transport(transport).create();
    let mut node = ctx.node("talker").unwrap();
    let best_effort = Qos {
        reliability: Reliability::BestEffort,
        ..Qos::default()
    };
    let publisher = (node.publisher::<Text>(&topic))
        .qos(best_effort)
        .create()
        .unwrap();
    assert_eq!(publisher.subscription_count(), 0);
    let listeners = [
        RclpyNode::spawn("listener.py", DOMAIN, &[&topic, "never", "1"]),
        RclpyNode::spawn("listener.py", DOMAIN, &[&topic, "never", "1"]),
    ];
    let deadline = Instant::now() + PATIENCE;
    while publisher.incompatible_qos() < 2 {
        assert!(
            Instant::now() < deadline,
            "the reliable listeners were not found; listener:\n{}",
            listeners[0].stderr()
        );
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(publisher.subscription_count(), 0);
}
