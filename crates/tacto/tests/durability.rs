//! Transient-local durability in one process: late-joining subscriptions get what a
//! transient-local publisher kept, as DDS's TRANSIENT_LOCAL delivers it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, History, LocalDelivery, Publisher, Qos, Subscription, Trigger};
use tacto::{Node, WaitSetExecutor};

const PATIENCE: Duration = Duration::from_secs(60);

fn latched(depth: usize) -> Qos {
    Qos::default()
        .transient_local()
        .history(History::KeepLast(depth))
}

fn publish_all(publisher: &Publisher<Text>, words: &[&str]) {
    for word in words {
        publisher.publish(Text {
            data: (*word).into(),
        });
    }
}

fn taken(sub: &Subscription<Text>) -> Vec<String> {
    sub.take_all().map(|s| s.data.clone()).collect()
}

fn subscribe(node: &mut Node, topic: &str, qos: Qos) -> Subscription<Text> {
    node.subscription::<Text>(topic).qos(qos).create().unwrap()
}

/// The brief's case, on a context of each delivery.
fn late_joiner_gets_the_last_three(delivery: LocalDelivery) {
    let ctx = Context::builder().local_delivery(delivery).create();
    let mut node = ctx.node("mapper").unwrap();
    let publisher = node
        .publisher::<Text>("map")
        .qos(latched(3))
        .create()
        .unwrap();
    publish_all(&publisher, &["1", "2", "3", "4", "5"]);

    let late = subscribe(&mut node, "map", latched(10));
    let volatile = subscribe(&mut node, "map", Qos::default());
    let samples: Vec<_> = late.take_all().collect();
    let kept: Vec<_> = samples
        .iter()
        .map(|s| (s.data.clone(), s.info().sequence, s.info().publisher))
        .collect();
    let id = publisher.id();
    assert_eq!(
        kept,
        [
            ("3".into(), 3, id),
            ("4".into(), 4, id),
            ("5".into(), 5, id)
        ]
    );
    assert!(
        volatile.take().is_none(),
        "a volatile subscription got old samples"
    );

    // Both get what comes next, once.
    publish_all(&publisher, &["6"]);
    assert_eq!(taken(&late), ["6"]);
    assert_eq!(taken(&volatile), ["6"]);
}

#[test]
fn a_late_transient_local_subscription_gets_the_last_depth_samples_a_volatile_one_none() {
    late_joiner_gets_the_last_three(LocalDelivery::Shared);
}

#[test]
fn a_late_joiner_gets_them_under_serialized_delivery_too() {
    late_joiner_gets_the_last_three(LocalDelivery::Serialized);
}

#[test]
fn the_subscription_s_own_history_bounds_what_it_gets() {
    let ctx = Context::new();
    let mut node = ctx.node("mapper").unwrap();
    let publisher = node
        .publisher::<Text>("map")
        .qos(
            Qos::default()
                .transient_local()
                .history(History::KeepAll { max: 4 }),
        )
        .create()
        .unwrap();
    publish_all(&publisher, &["1", "2", "3", "4", "5"]);

    let shallow = subscribe(&mut node, "map", latched(2));
    assert_eq!(taken(&shallow), ["4", "5"]);
    let deep = subscribe(&mut node, "map", latched(10));
    assert_eq!(taken(&deep), ["2", "3", "4", "5"]);
}

#[test]
fn a_volatile_publisher_keeps_nothing_for_a_transient_local_subscription() {
    let ctx = Context::new();
    let mut node = ctx.node("talker").unwrap();
    let publisher = node.publisher::<Text>("chat").create().unwrap();
    publish_all(&publisher, &["old"]);

    let late = subscribe(&mut node, "chat", latched(10));
    assert!(late.take().is_none());
    publish_all(&publisher, &["new"]);
    assert_eq!(taken(&late), ["new"]);
}

#[test]
fn several_publishers_kept_samples_arrive_oldest_first() {
    let ctx = Context::new();
    let mut node = ctx.node("static_tf").unwrap();
    let a = node
        .publisher::<Text>("tf_static")
        .qos(latched(1))
        .create()
        .unwrap();
    let b = node
        .publisher::<Text>("tf_static")
        .qos(latched(2))
        .create()
        .unwrap();
    publish_all(&a, &["a1"]);
    publish_all(&b, &["b1"]);
    publish_all(&a, &["a2"]);
    publish_all(&b, &["b2"]);
    drop(a); // a dropped publisher's samples go with it

    let late = subscribe(&mut node, "tf_static", latched(10));
    assert_eq!(taken(&late), ["b1", "b2"]);

    let c = node
        .publisher::<Text>("tf_static")
        .qos(latched(1))
        .create()
        .unwrap();
    publish_all(&c, &["c1"]);
    let later = subscribe(&mut node, "tf_static", latched(10));
    assert_eq!(taken(&later), ["b1", "b2", "c1"]);
}

#[test]
fn a_triggered_late_joiner_runs_its_code_for_the_kept_samples() {
    let ctx = Context::new();
    let mut talker = ctx.node("describer").unwrap();
    let publisher = talker
        .publisher::<Text>("robot_description")
        .qos(latched(3))
        .create()
        .unwrap();
    publish_all(&publisher, &["1", "2", "3", "4", "5"]);

    let mut listener = ctx.node("listener").unwrap();
    let description = subscribe(&mut listener, "robot_description", latched(3));
    let heard = Arc::new(Mutex::new(Vec::new()));
    let log = heard.clone();
    listener
        .execute(Trigger::on(&description), move |_| {
            let mut log = log.lock().unwrap();
            log.extend(description.take_all().map(|s| s.data.clone()));
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(listener).unwrap();

    let start = Instant::now();
    while heard.lock().unwrap().len() < 3 {
        assert!(start.elapsed() < PATIENCE, "the code never ran for them");
        executor.spin_for(Duration::from_millis(10)).unwrap();
    }
    assert_eq!(*heard.lock().unwrap(), ["3", "4", "5"]);
}
