//! Transient-local durability over shared memory, across real processes: a subscription
//! created after a transient-local publisher of another process published, and went idle,
//! gets what it published. The child is this test binary re-executed (`child_role`, selected
//! by `TACTO_SHM_DURABILITY_ROLE`, see `support/`); topic names carry the parent's pid.

use std::sync::{Arc, Mutex};

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, History, Qos, Subscription, Trigger, WaitSetExecutor};
use tacto_shm::{ShmLimits, ShmTransport};

mod support;
use support::{Child, spin_until};

const ROLE: &str = "TACTO_SHM_DURABILITY_ROLE";

fn topic(test: &str) -> String {
    format!("/d{}_{test}", std::process::id())
}

/// A context whose topics keep 4 samples per port for late joiners (the default keeps 1),
/// as every process of these tests asks, unless `TACTO_SHM_HISTORY` says otherwise.
fn context(name: &str) -> Context {
    let history = std::env::var("TACTO_SHM_HISTORY").map_or(4, |h| h.parse().unwrap());
    context_keeping(name, history)
}

fn context_keeping(name: &str, history: usize) -> Context {
    let limits = ShmLimits {
        history,
        ..ShmLimits::default()
    };
    let transport = ShmTransport::builder(name).limits(limits).create().unwrap();
    Context::builder().transport(transport).create()
}

fn latched(depth: usize) -> Qos {
    Qos::default()
        .transient_local()
        .history(History::KeepLast(depth))
}

fn text(data: &str) -> Text {
    Text { data: data.into() }
}

/// The other process: does what the role says, then stays idle, its endpoints alive, until
/// its stdin closes.
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    let topic = std::env::var("TOPIC").unwrap();
    let ctx = context("child");
    let mut node = ctx.node("child").unwrap();
    let mut lines = std::io::stdin().lines().map_while(Result::ok);
    match role.as_str() {
        "latch_once" => {
            let map = node
                .publisher::<Text>(&topic)
                .qos(latched(1))
                .create()
                .unwrap();
            map.publish(text("the map"));
            println!("{} published {:?}", support::SAY, map.id().0);
            lines.for_each(drop);
        }
        "latch_last_two" => {
            let latched = node
                .publisher::<Text>(&topic)
                .qos(latched(2))
                .create()
                .unwrap();
            for word in ["k1", "k2", "k3", "k4", "k5"] {
                latched.publish(text(word));
            }
            println!("{} published", support::SAY);
            lines.for_each(drop);
        }
        "latch_and_volatile" => {
            let latched = node
                .publisher::<Text>(&topic)
                .qos(latched(16))
                .create()
                .unwrap();
            let volatile = node.publisher::<Text>(&topic).create().unwrap();
            for word in ["t1", "t2"] {
                latched.publish(text(word));
            }
            // The parent's volatile subscription listens: these go through shared memory,
            // and iceoryx2 keeps them in the volatile port's history too.
            for word in ["v1", "v2"] {
                volatile.publish(text(word));
            }
            println!("{} published {}", support::SAY, volatile.remote_writes());
            assert_eq!(lines.next().as_deref(), Some("again"));
            // The volatile port updates its connections: the late joiner is handed its
            // history (v1, v2), which it must not keep, then v3.
            volatile.publish(text("v3"));
            println!("{} published again", support::SAY);
            lines.for_each(drop);
        }
        other => panic!("unknown role {other}"),
    }
}

fn spawn(role: &str, topic: &str) -> Child {
    Child::spawn(ROLE, role, &[("TOPIC", topic.into())])
}

/// A transient-local subscription of a node in a wait-set executor, whose code logs what it
/// takes.
fn logged(ctx: &Context, topic: &str, depth: usize) -> (WaitSetExecutor, Arc<Mutex<Vec<String>>>) {
    let mut node = ctx.node("late").unwrap();
    let sub: Subscription<Text> = node
        .subscription::<Text>(topic)
        .qos(latched(depth))
        .create()
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let heard = log.clone();
    node.execute(Trigger::on(&sub), move |_| {
        let mut heard = heard.lock().unwrap();
        heard.extend(sub.take_all().map(|s| s.data.clone()));
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    (executor, log)
}

#[test]
fn a_subscriber_started_after_an_idle_transient_local_publisher_gets_its_sample() {
    let topic = topic("latch_once");
    let child = spawn("latch_once", &topic);
    let said = child.next_line();
    assert!(said.starts_with("published"), "{said}");

    // This process's transport and subscriptions exist only now; the child stays idle.
    let ctx = context("late_joiner");
    let mut node = ctx.node("volatile").unwrap();
    let volatile = node.subscription::<Text>(&topic).create().unwrap();
    let (mut executor, log) = logged(&ctx, &topic, 5);
    spin_until(&mut executor, "the late joiner ran for the map", || {
        !log.lock().unwrap().is_empty()
    });
    assert_eq!(*log.lock().unwrap(), ["the map"]);
    // Connected in the same pass as the late joiner, before it: it asked for no history.
    assert!(
        volatile.take().is_none(),
        "a volatile subscription got an old sample"
    );
    child.finish();
}

#[test]
fn a_late_joiner_keeps_no_old_sample_of_a_volatile_publisher() {
    let topic = topic("mixed");
    let ctx = context("mixed");
    let mut node = ctx.node("volatile").unwrap();
    let volatile = node.subscription::<Text>(&topic).create().unwrap();
    let mut child = spawn("latch_and_volatile", &topic);
    assert_eq!(child.next_line(), "published 2");

    let (mut executor, log) = logged(&ctx, &topic, 16);
    spin_until(&mut executor, "the late joiner got t1 and t2", || {
        log.lock().unwrap().len() >= 2
    });
    child.tell("again");
    assert_eq!(child.next_line(), "published again");
    spin_until(&mut executor, "the late joiner got v3", || {
        log.lock().unwrap().contains(&"v3".to_owned())
    });
    assert_eq!(*log.lock().unwrap(), ["t1", "t2", "v3"]);
    let seen: Vec<_> = volatile.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(seen, ["t1", "t2", "v1", "v2", "v3"]);
    child.finish();
}

#[test]
fn a_late_joiner_gets_only_the_last_depth_samples_of_the_publisher() {
    let topic = topic("last_two");
    let child = spawn("latch_last_two", &topic);
    assert_eq!(child.next_line(), "published");

    // Deeper than the publisher: the port hands over all five, the publisher kept two.
    let ctx = context("deep_joiner");
    let (mut executor, log) = logged(&ctx, &topic, 10);
    spin_until(&mut executor, "the late joiner got k5", || {
        log.lock().unwrap().contains(&"k5".to_owned())
    });
    assert_eq!(*log.lock().unwrap(), ["k4", "k5"]);
    child.finish();
}

/// With the default limits a port keeps one sample for late joiners, whatever the writer's
/// depth: the newest.
#[test]
fn by_default_a_late_joiner_gets_the_newest_sample_only() {
    let topic = topic("default_one");
    let child = Child::spawn(
        ROLE,
        "latch_last_two",
        &[("TOPIC", topic.clone()), ("TACTO_SHM_HISTORY", "1".into())],
    );
    assert_eq!(child.next_line(), "published");
    let ctx = context_keeping("default_joiner", ShmLimits::DEFAULT.history);
    let (mut executor, log) = logged(&ctx, &topic, 10);
    spin_until(&mut executor, "the late joiner got k5", || {
        log.lock().unwrap().contains(&"k5".to_owned())
    });
    assert_eq!(*log.lock().unwrap(), ["k5"]);
    child.finish();
}
