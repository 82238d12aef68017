//! tacto-shm across real processes: this test binary re-executes itself as the other process
//! (`child_role` below, selected by the `TACTO_SHM_ROLE` environment variable), so each test
//! is a subscriber here and a publisher there. Topic names carry the parent's pid and the
//! test's name, so parallel runs never share a service.

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use std::os::unix::fs::PermissionsExt;

use iceoryx2::node::{Node, NodeState, NodeView};
use iceoryx2::prelude::{CallbackProgression, MessagingPattern};
use iceoryx2::service::ipc_threadsafe;
use tacto::msg::builtin_interfaces::Time as TimeMsg;
use tacto::msg::std_msgs::String as Text;
use tacto::{History, PublisherId};
use tacto_shm::{Liveliness, PublisherError, ShmNode, ShmSubscriber, TopicError};

mod support;
use support::{Child, PATIENCE, SAY, static_config_path};

const ROLE: &str = "TACTO_SHM_ROLE";

fn topic(test: &str) -> String {
    format!("/t{}_{test}", std::process::id())
}

fn text_of(size: usize) -> String {
    (0..size)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect()
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as i64
}

/// The other process: does what `TACTO_SHM_ROLE` says, prints its results, then waits for
/// the parent to close its stdin (so its ports outlive the parent's reads).
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    let var = |name: &str| std::env::var(name).unwrap();
    let topic = var("TOPIC");
    if role == "churn" {
        // Creates and drops the topic until killed, so that a kill may land mid-creation.
        println!("{SAY} churning");
        loop {
            let node = ShmNode::create("churn").unwrap();
            let publisher = node.publisher::<Text>(&topic).create().unwrap();
            publisher.publish(&Text { data: "x".into() }).unwrap();
        }
    }
    if role == "stale" {
        // A node killed while it registered with a service: the tag that marks it registered
        // is left as iceoryx2 first creates it, empty and writable (it makes a finished one
        // read-only). Made by hand, since a kill lands in that window only now and then.
        let node = ShmNode::create(&var("NAME")).unwrap();
        let id = own_node_id(&var("NAME"));
        let global = &iceoryx2::config::Config::global_config().global;
        let tag = node_dir().join(id.to_string()).join(format!(
            "{}{}{}",
            global.prefix,
            "0".repeat(40),
            global.node.service_tag_suffix
        ));
        std::fs::write(&tag, b"").unwrap();
        std::fs::set_permissions(&tag, std::fs::Permissions::from_mode(0o600)).unwrap();
        println!("{SAY} stale {id}");
        // Killed here: the node stays registered as alive until then.
        std::io::stdin().lines().for_each(drop);
        drop(node);
        return;
    }
    if role == "hold" {
        // Registered with the topic until killed.
        let node = ShmNode::create("hold").unwrap();
        let sub = node.subscriber::<Text>(&topic).create().unwrap();
        println!("{SAY} holding");
        std::io::stdin().lines().for_each(drop);
        drop((sub, node));
        return;
    }
    let node = ShmNode::create("child").unwrap();
    let publisher = node
        .publisher::<Text>(&topic)
        .id(PublisherId([var("ID").parse().unwrap(); 16]))
        .create()
        .unwrap();
    // Publishers that must live until the parent has read: iceoryx2 discards what a dropped
    // publisher sent and was not yet received.
    let mut keep = Vec::new();
    match role.as_str() {
        "publish" => {
            let count: usize = var("COUNT").parse().unwrap();
            let text = text_of(var("SIZE").parse().unwrap());
            for _ in 0..count {
                publisher.publish(&Text { data: text.clone() }).unwrap();
            }
        }
        "malformed" => {
            // A string whose length prefix (100) runs past the end of the payload.
            publisher
                .publish_cdr(&[0, 1, 0, 0, 100, 0, 0, 0, b'h', 0, 0, 0])
                .unwrap();
            publisher.publish(&Text { data: "ok".into() }).unwrap();
        }
        "burst" => {
            // Publishes until killed; says so once the first sample is out.
            publisher
                .publish(&Text {
                    data: "first".into(),
                })
                .unwrap();
            println!("{SAY} burst");
            loop {
                publisher
                    .publish(&Text {
                        data: "burst".into(),
                    })
                    .unwrap();
            }
        }
        "wake" => {
            let polled = node
                .publisher::<Text>(&var("TOPIC_POLLED"))
                .create()
                .unwrap();
            let a = publisher
                .publish(&Text {
                    data: "wake".into(),
                })
                .unwrap();
            let b = polled
                .publish(&Text {
                    data: "poll".into(),
                })
                .unwrap();
            println!("{SAY} reached {} {}", a.subscribers, b.subscribers);
            println!("{SAY} woken {} {}", a.woken, b.woken);
            keep.push(polled);
        }
        other => panic!("unknown role {other}"),
    }
    println!("{SAY} done");
    std::io::stdin().lines().for_each(drop);
    drop(keep);
}

/// Where iceoryx2 keeps the directories of this host's nodes, each named by its node's id.
fn node_dir() -> std::path::PathBuf {
    let global = &iceoryx2::config::Config::global_config().global;
    std::path::PathBuf::from(global.node_dir().to_string())
}

/// The id of the live node named `name` (names are unique to the test that gives them).
fn own_node_id(name: &str) -> u128 {
    let mut id = None;
    listed_nodes(|state| {
        if let NodeState::Alive(view) = state
            && view
                .details()
                .as_ref()
                .is_some_and(|d| d.name().as_str() == name)
        {
            id = Some(view.id().value());
        }
    });
    id.unwrap_or_else(|| panic!("no live node {name}"))
}

/// Calls `each` with every node iceoryx2 lists on this host.
fn listed_nodes(mut each: impl FnMut(&NodeState<ipc_threadsafe::Service>)) {
    Node::<ipc_threadsafe::Service>::list(iceoryx2::config::Config::global_config(), |state| {
        each(&state);
        CallbackProgression::Continue
    })
    .unwrap();
}

/// This test's other process (`child_role`, see `support/`), with `env` beside its topic and id.
fn spawn(role: &str, topic: &str, id: u8, env: &[(&str, String)]) -> Child {
    let mut all = vec![("TOPIC", topic.to_owned()), ("ID", id.to_string())];
    all.extend(env.iter().cloned());
    Child::spawn(ROLE, role, &all)
}

/// Takes the next sample, waiting for one to arrive.
fn next<T: tacto::Message>(sub: &ShmSubscriber<T>) -> tacto_shm::Received<T> {
    let start = Instant::now();
    loop {
        if let Some(received) = sub.take().unwrap() {
            return received;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no sample arrived on {}: {:?}, publishers {:?}",
            sub.service_name(),
            sub.stats(),
            sub.publishers()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Polls `check` until it holds.
fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < PATIENCE, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn string_round_trip_with_sample_info() {
    let topic = topic("round_trip");
    let node = ShmNode::create("parent").unwrap();
    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let before = now_ns();
    let child = spawn(
        "publish",
        &topic,
        7,
        &[("COUNT", "3".into()), ("SIZE", "5".into())],
    );
    assert_eq!(child.next_line(), "done");
    for sequence in 1..=3 {
        let received = next(&sub);
        assert_eq!(received.message.data, "abcde");
        let info = received.info;
        assert_eq!(info.sequence, sequence);
        assert_eq!(info.publisher, PublisherId([7; 16]));
        assert!(info.publish_time.as_nanos() >= before);
        assert!(info.receive_time >= info.publish_time);
    }
    assert!(sub.take().unwrap().is_none());
    assert_eq!(sub.stats(), Default::default());
    child.finish();
}

#[test]
fn four_mib_payload_round_trip() {
    const SIZE: usize = 4 << 20;
    let topic = topic("four_mib");
    let node = ShmNode::create("parent").unwrap();
    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let child = spawn(
        "publish",
        &topic,
        1,
        &[("COUNT", "2".into()), ("SIZE", SIZE.to_string())],
    );
    let expected = text_of(SIZE);
    for sequence in 1..=2 {
        let received = next(&sub);
        assert_eq!(received.message.data.len(), SIZE);
        assert!(received.message.data == expected, "the payload differs");
        assert_eq!(received.info.sequence, sequence);
    }
    assert_eq!(sub.stats().lost, 0);
    child.finish();
}

#[test]
fn own_samples_are_not_echoed() {
    let topic = topic("no_echo");
    let node = ShmNode::create("parent").unwrap();
    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let own = node.publisher::<Text>(&topic).create().unwrap();
    assert_eq!(
        own.publish(&Text { data: "own".into() })
            .unwrap()
            .subscribers,
        1
    );
    let child = spawn(
        "publish",
        &topic,
        2,
        &[("COUNT", "1".into()), ("SIZE", "3".into())],
    );
    // The own sample was queued first; what comes out is the other process's.
    assert_eq!(next(&sub).message.data, "abc");
    assert_eq!(sub.stats().own_dropped, 1);
    assert!(sub.take().unwrap().is_none());
    child.finish();
}

#[test]
fn slow_subscriber_loses_oldest_and_counts_them() {
    let topic = topic("overflow");
    let node = ShmNode::create("parent").unwrap();
    let sub = node
        .subscriber::<Text>(&topic)
        .history(History::KeepLast(4))
        .create()
        .unwrap();
    let child = spawn(
        "publish",
        &topic,
        3,
        &[("COUNT", "20".into()), ("SIZE", "8".into())],
    );
    // The publisher sent all 20 without waiting for this subscriber, which read nothing.
    assert_eq!(child.next_line(), "done");
    let sequences: Vec<u64> = std::iter::from_fn(|| sub.take().unwrap())
        .map(|r| r.info.sequence)
        .collect();
    assert_eq!(sequences, [17, 18, 19, 20]);
    assert_eq!(sub.stats().lost, 16);
    child.finish();
}

#[test]
fn malformed_payload_is_counted_and_skipped() {
    let topic = topic("malformed");
    let node = ShmNode::create("parent").unwrap();
    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let child = spawn("malformed", &topic, 4, &[]);
    let received = next(&sub);
    assert_eq!(received.message.data, "ok");
    assert_eq!(received.info.sequence, 2);
    assert_eq!(sub.stats().malformed, 1);
    child.finish();
}

#[test]
fn another_type_on_the_topic_is_refused_naming_both() {
    let topic = topic("mismatch");
    // Another process made the topic, for std_msgs/String.
    let child = spawn(
        "publish",
        &topic,
        12,
        &[("COUNT", "0".into()), ("SIZE", "0".into())],
    );
    assert_eq!(child.next_line(), "done");
    let node = ShmNode::create("parent").unwrap();
    let err = node.subscriber::<TimeMsg>(&topic).create().unwrap_err();
    match err {
        tacto_shm::SubscriberError::Topic(TopicError::TypeMismatch {
            topic: service,
            existing,
            requested,
        }) => {
            assert_eq!(service, format!("rt{topic}"));
            assert_eq!(existing, "std_msgs/msg/String");
            assert_eq!(requested, "builtin_interfaces/msg/Time");
        }
        other => panic!("expected a type mismatch, got {other}"),
    }
    // The topic itself is untouched: its own type still opens.
    node.subscriber::<Text>(&topic).create().unwrap();
    child.finish();
}

#[test]
fn only_subscribers_that_asked_are_woken() {
    let topic_woken = topic("woken");
    let topic_polled = topic("polled");
    let node = ShmNode::create("parent").unwrap();
    let woken = node
        .subscriber::<Text>(&topic_woken)
        .wake_ups()
        .create()
        .unwrap();
    let polled = node.subscriber::<Text>(&topic_polled).create().unwrap();
    assert!(polled.wake_up().is_none());
    let wake_up = woken.wake_up().unwrap();

    let child = spawn("wake", &topic_woken, 5, &[("TOPIC_POLLED", topic_polled)]);
    assert_eq!(child.next_line(), "reached 1 1");
    // The publisher of the polled topic found no listener and notified nobody.
    assert_eq!(child.next_line(), "woken 1 0");

    let mut fds = [libc::pollfd {
        fd: wake_up.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    // SAFETY: one valid pollfd for the duration of the call.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, PATIENCE.as_millis() as i32) };
    assert_eq!(ready, 1);
    assert_eq!(wake_up.drain().unwrap(), 1);
    assert_eq!(wake_up.drain().unwrap(), 0, "drained: nothing left");
    assert_eq!(next(&woken).message.data, "wake");
    assert_eq!(next(&polled).message.data, "poll");
    child.finish();
}

#[test]
fn killed_publisher_is_reported_and_the_topic_reconnects() {
    let topic = topic("kill");
    let node = ShmNode::create("parent").unwrap();
    let sub = node
        .subscriber::<Text>(&topic)
        .history(History::KeepLast(4))
        .create()
        .unwrap();
    let mut burst = spawn("burst", &topic, 6, &[]);
    assert_eq!(burst.next_line(), "burst");
    assert_eq!(next(&sub).info.publisher, PublisherId([6; 16]));
    assert_eq!(sub.publishers().unwrap(), Liveliness { alive: 1, dead: 0 });

    // SIGKILL in the middle of the burst.
    burst.process.kill().unwrap();
    burst.process.wait().unwrap();
    wait_until("the publisher is no longer alive", || {
        sub.publishers().unwrap().alive == 0
    });
    // Its port stays registered until a node cleans up dead nodes, as a node does when it
    // is created (a restarted process; maybe another process's node did it first).
    // (Another process may be cleaning it right now, which this cleanup then skips.)
    let _restarted = ShmNode::create("restarted").unwrap();
    wait_until("the dead publisher's port is removed", || {
        sub.publishers().unwrap() == Liveliness { alive: 0, dead: 0 }
    });

    // The subscriber still works, and a new publisher process reaches it.
    let child = spawn(
        "publish",
        &topic,
        8,
        &[("COUNT", "1".into()), ("SIZE", "4".into())],
    );
    let received = loop {
        let received = next(&sub);
        if received.info.publisher == PublisherId([8; 16]) {
            break received;
        }
    };
    assert_eq!(received.message.data, "abcd");
    assert_eq!(received.info.sequence, 1);
    child.finish();
}

/// What a process killed while creating a topic leaves behind: the service's static config
/// file, still writable (iceoryx2 makes it read-only once the service is complete). Made
/// here by hand, since a kill lands in that window only now and then (docs/shm.md).
#[test]
fn topic_left_half_created_by_a_killed_process_is_recovered() {
    use std::os::unix::fs::PermissionsExt;

    let topic = topic("half_created");
    let node = ShmNode::create("parent").unwrap();
    let path = static_config_path(&format!("rt{topic}"), MessagingPattern::PublishSubscribe);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();

    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let finished = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        finished, 0o400,
        "a complete service's static config is read-only"
    );
    let child = spawn(
        "publish",
        &topic,
        9,
        &[("COUNT", "1".into()), ("SIZE", "2".into())],
    );
    assert_eq!(next(&sub).message.data, "ab");
    child.finish();
}

/// A topic whose service another iceoryx2 version created (its static config says so) is
/// refused with both versions named, and nothing of the existing service is touched.
#[test]
fn a_topic_of_another_iceoryx2_version_is_refused_naming_both() {
    let topic = topic("other_version");
    let node = ShmNode::create("parent").unwrap();
    let _first = node.subscriber::<Text>(&topic).create().unwrap();
    let path = static_config_path(&format!("rt{topic}"), MessagingPattern::PublishSubscribe);
    let config = std::fs::read_to_string(&path).unwrap();
    let table = "[iceoryx2_version]\nmajor = 0\nminor = 10\npatch = 0\n";
    assert!(config.contains(table), "{config}");
    // As a process of iceoryx2 0.9.3 would have written it (the file is read-only; root may
    // write it anyway, and the test restores it before the service is removed).
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    let other = config.replace(
        table,
        "[iceoryx2_version]\nmajor = 0\nminor = 9\npatch = 3\n",
    );
    std::fs::write(&path, &other).unwrap_or_else(|e| panic!("{}: {e}", path.display()));

    let refused = node.publisher::<Text>(&topic).create();
    std::fs::write(&path, &config).unwrap();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    match refused {
        Err(PublisherError::Topic(TopicError::Version { existing, ours, .. })) => {
            assert_eq!((existing.as_str(), ours.as_str()), ("0.9.3", "0.10.0"));
        }
        other => panic!("expected a version error, got {other:?}"),
    }
    let message = node.publisher::<Text>(&topic).create().map(drop);
    assert!(message.is_ok(), "the same version opens again: {message:?}");
}

/// `kill -9` of a process that keeps creating and dropping a topic: sometimes the kill lands
/// while it creates the services (the previous test's state), most times elsewhere; either
/// way the topic opens afterwards.
#[test]
fn topic_reopens_after_kills_during_creation() {
    for trial in 0..10 {
        let topic = topic(&format!("churn{trial}"));
        let mut churn = spawn("churn", &topic, 10, &[]);
        assert_eq!(churn.next_line(), "churning");
        // Let it go round a few times; where it is when killed varies from trial to trial.
        std::thread::sleep(Duration::from_millis(5 + 7 * trial));
        churn.process.kill().unwrap();
        churn.process.wait().unwrap();
        let node = ShmNode::create("parent").unwrap();
        let sub = node.subscriber::<Text>(&topic).create().unwrap();
        let child = spawn(
            "publish",
            &topic,
            11,
            &[("COUNT", "1".into()), ("SIZE", "1".into())],
        );
        assert_eq!(next(&sub).message.data, "a");
        child.finish();
    }
}

/// Dead nodes that iceoryx2's cleanup cannot remove (killed while registering with a service,
/// their tag left unfinished) are removed by a node's cleanup all the same, so that they do
/// not pile up and slow down every node's creation on the host, and topics still open.
#[test]
fn dead_nodes_killed_while_registering_are_removed_and_topics_still_open() {
    /// Dead nodes made for the test.
    const STALE: usize = 3;
    /// Cleanups the test's node may need: one skips a dead node only while another process's
    /// cleanup holds it, which is over in a few milliseconds.
    const PASSES: usize = 20;
    let topic = topic("stale");
    let mut ids = Vec::new();
    for i in 0..STALE {
        let name = format!("stale_{}_{i}", std::process::id());
        let mut child = spawn("stale", &topic, 12, &[("NAME", name)]);
        let said = child.next_line();
        ids.push(
            said.strip_prefix("stale ")
                .unwrap()
                .parse::<u128>()
                .unwrap(),
        );
        child.kill();
    }
    let still_listed = || {
        let mut listed = 0;
        listed_nodes(|state| listed += usize::from(ids.contains(&state.node_id().value())));
        listed
    };
    // Its creation cleans up once; then a pass per loop, each waiting for no clock.
    let node = ShmNode::create("parent").unwrap();
    let mut passes = 1;
    while still_listed() > 0 && passes < PASSES {
        std::thread::sleep(Duration::from_millis(10));
        node.cleanup_dead_nodes();
        passes += 1;
    }
    assert_eq!(still_listed(), 0, "dead nodes left after {passes} cleanups");
    for id in &ids {
        assert!(
            !node_dir().join(id.to_string()).exists(),
            "the directory of dead node {id} is removed"
        );
    }

    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let child = spawn(
        "publish",
        &topic,
        13,
        &[("COUNT", "1".into()), ("SIZE", "3".into())],
    );
    assert_eq!(next(&sub).message.data, "abc");
    child.finish();
}

/// The shared-memory segment of the topic's dynamic config (`/dev/shm/<prefix>…_<id>.dynamic`).
fn dynamic_segment(topic: &str) -> std::path::PathBuf {
    use iceoryx2::service::Service;

    let config = iceoryx2::config::Config::global_config();
    let name = iceoryx2::prelude::ServiceName::new(&format!("rt{topic}")).unwrap();
    let details =
        ipc_threadsafe::Service::details(&name, config, MessagingPattern::PublishSubscribe)
            .unwrap()
            .expect("the topic exists");
    let id = details.static_details.unique_service_id().to_string();
    let id = u128::from_str_radix(&id, 16).unwrap();
    let global = &config.global;
    let ending = format!("_{id}{}", global.service.dynamic_config_storage_suffix);
    let prefix = global.prefix.to_string();
    (std::fs::read_dir("/dev/shm").unwrap().flatten())
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(&ending)
        })
        .expect("the topic's dynamic config segment")
}

/// A process killed between creating a topic's dynamic config segment and giving it a size
/// leaves an empty segment, which iceoryx2 waits on without end whenever it opens it: at every
/// dead-node cleanup of a node registered with the topic, which every node's creation runs.
/// The next process's node removes it, so it starts, publishes and reaches the subscriber.
#[test]
fn a_topic_segment_left_unsized_by_a_killed_process_stops_no_one() {
    use std::os::unix::fs::OpenOptionsExt;

    let stuck = topic("unsized_stuck");
    let topic = topic("unsized");
    let node = ShmNode::create("parent").unwrap();
    let sub = node.subscriber::<Text>(&topic).create().unwrap();
    let mut holder = spawn("hold", &stuck, 14, &[]);
    assert_eq!(holder.next_line(), "holding");
    // The segment as its creator leaves it when killed right after creating it: empty, and
    // writable only (iceoryx2 makes it readable once it is initialized). The holder keeps its
    // own mapping of the old one.
    let segment = dynamic_segment(&stuck);
    std::fs::remove_file(&segment).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o200)
        .open(&segment)
        .unwrap();
    holder.kill();

    // Its node's creation cleans up the dead holder, registered with the stuck topic.
    let child = spawn(
        "publish",
        &topic,
        15,
        &[("COUNT", "1".into()), ("SIZE", "5".into())],
    );
    assert_eq!(child.next_line(), "done", "the publisher process started");
    assert_eq!(next(&sub).message.data, "abcde");
    child.finish();
    assert!(!segment.exists(), "the empty segment is removed");
    // The stuck topic opens again here too.
    node.subscriber::<Text>(&stuck).create().unwrap();
}
