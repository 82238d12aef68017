//! A tacto `Context` on the DDS transport against real rclpy nodes (Fast DDS, the PyPI
//! wheels) in other processes: polling and triggered subscriptions on the reader's cache,
//! publishers that encode only for matched remote readers, no echo, and wake-ups only for
//! triggering readers. Domains 100 to 110, one per test.

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use support::{PATIENCE, RclpyNode, loopback_participant};
use tacto::msg::std_msgs::String as Text;
use tacto::transport::RemotePublishers;
use tacto::{
    Context, Executor, History, LetExecutor, Publisher, PublisherId, Qos, Sample, SpinOutcome,
    Time, Trigger, WaitSetExecutor,
};
use tacto_dds::DdsTransport;

/// A context whose topics also go over DDS, in `domain`, on loopback.
fn dds_context(domain: u32) -> Context {
    Context::builder()
        .transport(DdsTransport::new(loopback_participant(domain)))
        .create()
}

/// Polls `condition` until it holds, failing with `what` and the peer's stderr at the deadline.
fn wait_for(peer: &mut RclpyNode, what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !condition() {
        if let Some(status) = peer.exited() {
            panic!("the rclpy node exited ({status}):\n{}", peer.stderr());
        }
        assert!(
            Instant::now() < deadline,
            "{what} within {PATIENCE:?}; the peer's stderr:\n{}",
            peer.stderr()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Starts the counted run of a `sender.py` peer: once `warmed_up` says its warm-ups reach us
/// (our reader knows its writer), publishes "go" until the peer says it started.
fn start_counted(peer: &mut RclpyNode, go: &Publisher<Text>, mut warmed_up: impl FnMut() -> bool) {
    wait_for(peer, "the sender's warm-ups", &mut warmed_up);
    let deadline = Instant::now() + PATIENCE;
    loop {
        go.publish(Text { data: "go".into() });
        if let Some(line) = peer.next_line(Instant::now() + Duration::from_millis(100))
            && line == "started"
        {
            return;
        }
        assert!(peer.exited().is_none(), "{}", peer.stderr());
        assert!(Instant::now() < deadline, "no start:\n{}", peer.stderr());
    }
}

fn texts(samples: impl IntoIterator<Item = Sample<Text>>) -> Vec<String> {
    samples.into_iter().map(|s| s.data.clone()).collect()
}

fn numbered(prefix: &str, numbers: impl IntoIterator<Item = u32>) -> Vec<String> {
    numbers
        .into_iter()
        .map(|n| format!("{prefix} {n}"))
        .collect()
}

#[test]
fn a_polling_subscription_reads_the_dds_cache_with_sample_states() {
    const DOMAIN: u32 = 100;
    let prefix = format!("polled {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_poller").unwrap();
    let sub = (node.subscription::<Text>("tacto_polled"))
        .history(History::KeepLast(10))
        .create()
        .unwrap();
    let go = node.publisher::<Text>("tacto_polled_go").create().unwrap();
    let mut talker = RclpyNode::spawn("sender.py", DOMAIN, &["tacto_polled", &prefix, "0.02", "5"]);
    start_counted(&mut talker, &go, || !sub.is_empty());
    let probe = sub.probe();
    let last = format!("{prefix} 4");
    wait_for(&mut talker, "the last sample in the reader's cache", || {
        probe.peek_latest().is_some_and(|s| s.data == last)
    });
    // Warm-ups came first, from the same writer, in order: only they precede the five.
    for _ in 5..sub.len() {
        assert_eq!(sub.take().unwrap().data, "warmup");
    }

    // The samples waited in Cyclone's cache, each NOT_READ until read.
    assert_eq!((sub.unread(), sub.has_new()), (5, true));
    assert_eq!(sub.read_new().unwrap().data, format!("{prefix} 0"));
    assert_eq!((sub.unread(), sub.len()), (4, 5), "read, not taken");
    assert_eq!(sub.take_new().unwrap().data, format!("{prefix} 1"));
    let latest = sub.latest().unwrap();
    assert_eq!(latest.data, format!("{prefix} 4"));
    assert_eq!((sub.unread(), sub.len(), sub.has_new()), (0, 4, false));
    let rest: Vec<_> = sub.take_all().collect();
    assert_eq!(texts(rest.clone()), numbered(&prefix, [0, 2, 3, 4]));
    assert!(sub.is_empty());

    // One rclpy publisher: one writer GUID; its source timestamps in publication order.
    let publisher = latest.info().publisher;
    assert_ne!(publisher, PublisherId::default());
    assert!(rest.iter().all(|s| s.info().publisher == publisher));
    let times: Vec<Time> = rest.iter().map(|s| s.info().publish_time).collect();
    assert!(times[0] > Time::ZERO && times.is_sorted(), "{times:?}");
    assert_eq!(sub.malformed(), 0);
}

#[test]
fn an_rclpy_talker_triggers_a_node_on_a_wait_set_executor() {
    const DOMAIN: u32 = 101;
    let prefix = format!("triggered {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_triggered").unwrap();
    let go = node
        .publisher::<Text>("tacto_triggering_go")
        .create()
        .unwrap();
    let sub = node
        .subscription::<Text>("tacto_triggering")
        .create()
        .unwrap();
    let (sender, received) = mpsc::channel();
    node.execute(Trigger::on(&sub), move |_| {
        for sample in sub.take_all() {
            sender.send(sample.data.clone()).unwrap();
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    let mut talker = RclpyNode::spawn(
        "sender.py",
        DOMAIN,
        &["tacto_triggering", &prefix, "0.02", "5"],
    );
    let mut got = Vec::new();
    start_counted(&mut talker, &go, || {
        executor.spin_for(Duration::from_millis(20)).unwrap();
        received.try_iter().count() > 0
    });
    let deadline = Instant::now() + PATIENCE;
    while got.len() < 5 {
        assert_eq!(
            executor.spin_for(Duration::from_millis(100)).unwrap(),
            SpinOutcome::Elapsed
        );
        got.extend(received.try_iter().filter(|t| t != "warmup"));
        assert!(talker.exited().is_none(), "{}", talker.stderr());
        assert!(
            Instant::now() < deadline,
            "got {got:?}:\n{}",
            talker.stderr()
        );
    }
    assert_eq!(got, numbered(&prefix, 0..5));
    assert!(executor.stats().executions >= 1);
}

#[test]
fn a_tacto_publisher_reaches_an_rclpy_listener_without_echo() {
    const DOMAIN: u32 = 102;
    let prefix = format!("to rclpy {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_talker").unwrap();
    let publisher = node.publisher::<Text>("tacto_chatter").create().unwrap();
    let local = (node.subscription::<Text>("tacto_chatter"))
        .history(History::KeepAll { max: 100_000 })
        .create()
        .unwrap();
    let mut listener = RclpyNode::spawn("listener.py", DOMAIN, &["tacto_chatter", &prefix, "3"]);

    // Volatile: what is published before the listener matches reaches only the local
    // subscription, so keep publishing until the listener has printed three of ours.
    let deadline = Instant::now() + PATIENCE;
    let mut sent = Vec::new();
    let mut received = Vec::new();
    while received.len() < 3 {
        let text = format!("{prefix} {}", sent.len());
        publisher.publish(Text { data: text.clone() });
        sent.push(text);
        while let Some(line) = listener.next_line(Instant::now() + Duration::from_millis(100)) {
            if line.starts_with(&prefix) {
                received.push(line);
            }
        }
        if received.len() < 3 {
            assert!(listener.exited().is_none(), "{}", listener.stderr());
            assert!(
                Instant::now() < deadline,
                "{received:?}\n{}",
                listener.stderr()
            );
        }
    }
    let start = sent.iter().position(|t| *t == received[0]).unwrap();
    assert_eq!(received, sent[start..start + 3], "every field, in order");

    // Encoded only while the listener was matched; and the local subscription got each
    // publication once, from the intra path, never back from DDS.
    let writes = publisher.remote_writes();
    assert!(
        writes >= 3 && writes <= sent.len() as u64,
        "{writes} writes"
    );
    assert_eq!(texts(local.take_all()), sent);
    assert_eq!(publisher.encode_errors(), 0);
}

#[test]
fn a_topic_nobody_outside_reads_is_never_encoded() {
    const DOMAIN: u32 = 103;
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_alone").unwrap();
    let publisher = node.publisher::<Text>("tacto_private").create().unwrap();
    let sub = (node.subscription::<Text>("tacto_private"))
        .history(History::KeepLast(100))
        .create()
        .unwrap();
    for n in 0..100 {
        publisher.publish(Text {
            data: n.to_string(),
        });
    }
    assert_eq!(
        texts(sub.take_all()),
        (0..100).map(|n| n.to_string()).collect::<Vec<_>>()
    );
    // The DDS reader of this process's own subscription does not count: it ignores local
    // writers, so nothing was encoded and nothing echoed.
    assert_eq!(publisher.remote_writes(), 0);
    assert!(sub.is_empty() && !sub.has_new());
}

#[test]
fn at_1_khz_of_remote_input_only_a_triggering_reader_wakes_its_executor() {
    const DOMAIN: u32 = 104;
    let prefix = format!("fast {}", std::process::id());
    let ctx = dds_context(DOMAIN);

    // Polls the fast topic; triggered only by a topic nobody publishes.
    let mut poller = ctx.node("tacto_fast_poller").unwrap();
    let polled = (poller.subscription::<Text>("tacto_fast"))
        .history(History::KeepAll { max: 1_000_000 })
        .create()
        .unwrap();
    let quiet = poller.subscription::<Text>("tacto_quiet").create().unwrap();
    poller.execute(Trigger::on(&quiet), |_| {}).unwrap();
    let mut polling = WaitSetExecutor::new().unwrap();
    polling.add(poller).unwrap();

    // Triggered by the fast topic.
    let mut reactor = ctx.node("tacto_fast_reactor").unwrap();
    let triggering = reactor.subscription::<Text>("tacto_fast").create().unwrap();
    let trigger = Trigger::on(&triggering);
    reactor
        .execute(trigger, move |_| triggering.take_all().for_each(drop))
        .unwrap();
    let mut reacting = WaitSetExecutor::new().unwrap();
    reacting.add(reactor).unwrap();

    let mut talker = RclpyNode::spawn("sender.py", DOMAIN, &["tacto_fast", &prefix, "0.001", "0"]);
    wait_for(&mut talker, "the first samples", || !polled.is_empty());

    // Windows of 200 ms: the polling executor wakes once per window, for its deadline, however
    // many samples arrive meanwhile; the triggered one runs its node for them.
    let (windows, start) = (5u64, polled.len());
    let before = polling.stats().wakeups;
    for _ in 0..windows {
        assert_eq!(
            polling.spin_for(Duration::from_millis(200)).unwrap(),
            SpinOutcome::Elapsed
        );
    }
    let polling_wakeups = polling.stats().wakeups - before;
    let arrived = polled.len() - start;
    assert!(
        arrived as u64 > 10 * windows,
        "only {arrived} samples arrived in {windows} windows:\n{}",
        talker.stderr()
    );
    assert!(
        polling_wakeups <= windows,
        "{polling_wakeups} wake-ups of the polling executor for {arrived} samples"
    );

    let before = reacting.stats().executions;
    let start = polled.len();
    for _ in 0..windows {
        reacting.spin_for(Duration::from_millis(200)).unwrap();
    }
    let runs = reacting.stats().executions - before;
    let arrived = polled.len() - start;
    assert!(
        runs > windows,
        "{runs} runs of the triggered node for {arrived} samples"
    );
    assert_eq!(
        polling.stats().executions,
        0,
        "the quiet trigger never fired"
    );
    println!(
        "1 kHz input: polling executor {polling_wakeups} wake-ups in {windows} windows; \
         triggered node {runs} runs for {arrived} samples"
    );
}

#[test]
fn a_let_period_sees_the_remote_samples_of_its_start_only() {
    const DOMAIN: u32 = 105;
    let prefix = format!("frozen {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_let").unwrap();
    let sub = (node.subscription::<Text>("tacto_frozen"))
        .history(History::KeepAll { max: 1_000_000 })
        .create()
        .unwrap();
    let (sender, runs) = mpsc::channel();
    node.execute(Trigger::every(Duration::from_millis(50)), move |_| {
        // Samples keep arriving at 1 kHz while the code runs: it sees none of them.
        let before = sub.len();
        thread::sleep(Duration::from_millis(20));
        let after = sub.len();
        let taken = texts(sub.take_all());
        sender.send((before, after, taken)).unwrap();
    })
    .unwrap();
    let mut executor = LetExecutor::new(Duration::from_millis(50)).unwrap();
    executor.add(node).unwrap();

    let mut talker = RclpyNode::spawn(
        "sender.py",
        DOMAIN,
        &["tacto_frozen", &prefix, "0.001", "0"],
    );
    let mut taken = Vec::new();
    let mut periods = Vec::new();
    wait_for(&mut talker, "three periods with samples", || {
        executor.spin_for(Duration::from_millis(100)).unwrap();
        for (before, after, texts) in runs.try_iter() {
            periods.push((before, after, texts.len()));
            taken.extend(texts);
        }
        periods.iter().filter(|(_, _, n)| *n > 0).count() >= 3
    });
    assert!(
        periods
            .iter()
            .all(|&(before, after, n)| before == after && after == n),
        "(len at start, len 20 ms later, taken) per period: {periods:?}"
    );
    // Nothing lost or repeated between periods: consecutive numbers.
    let numbers: Vec<u32> = (taken.iter())
        .map(|t| t.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{numbers:?}");
}

#[test]
fn a_transient_local_publisher_serves_an_rclpy_late_joiner() {
    const DOMAIN: u32 = 106;
    let prefix = format!("latched {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_latched").unwrap();
    let latched = Qos::default()
        .transient_local()
        .history(History::KeepLast(1));
    let publisher = (node.publisher::<Text>("tacto_latched"))
        .qos(latched)
        .create()
        .unwrap();
    // Before anyone listens: kept by the writer for late joiners (only the last one).
    publisher.publish(Text {
        data: format!("{prefix} superseded"),
    });
    publisher.publish(Text {
        data: format!("{prefix} last"),
    });
    assert_eq!(
        publisher.remote_writes(),
        2,
        "written with no reader matched"
    );

    let listener = RclpyNode::spawn(
        "listener.py",
        DOMAIN,
        &["tacto_latched", &prefix, "1", "transient_local"],
    );
    let mut received = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    while let Some(line) = listener.next_line(deadline) {
        if line.starts_with(&prefix) {
            received.push(line);
            break;
        }
    }
    assert_eq!(
        received,
        [format!("{prefix} last")],
        "{}",
        listener.stderr()
    );
}

#[test]
fn a_best_effort_rclpy_publisher_is_counted_incompatible_by_a_reliable_subscription() {
    const DOMAIN: u32 = 107;
    let prefix = format!("best effort {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_reliable").unwrap();
    let reliable = node
        .subscription::<Text>("tacto_unmatched")
        .create()
        .unwrap();
    let sensor = (node.subscription::<Text>("tacto_unmatched_sensor"))
        .qos(Qos::sensor_data())
        .create()
        .unwrap();
    let mut unreliable = RclpyNode::spawn(
        "sender.py",
        DOMAIN,
        &["tacto_unmatched", &prefix, "0.01", "0", "best_effort"],
    );
    let mut sensor_talker = RclpyNode::spawn(
        "sender.py",
        DOMAIN,
        &[
            "tacto_unmatched_sensor",
            &prefix,
            "0.01",
            "0",
            "best_effort",
        ],
    );
    wait_for(&mut unreliable, "an incompatible-QoS report", || {
        reliable.incompatible_qos() > 0
    });
    // A best-effort subscription (SensorDataQoS) matches the same kind of publisher.
    wait_for(&mut sensor_talker, "sensor data", || !sensor.is_empty());
    assert_eq!(sensor.incompatible_qos(), 0);
    assert!(reliable.is_empty(), "nothing crosses an incompatible QoS");
}

#[test]
fn rclpy_lists_the_tacto_node_and_its_publisher() {
    const DOMAIN: u32 = 108;
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_graph_node").unwrap();
    let _publisher = node
        .publisher::<Text>("tacto_graph_topic")
        .create()
        .unwrap();
    let _subscription = node
        .subscription::<Text>("tacto_graph_input")
        .create()
        .unwrap();

    let graph = RclpyNode::spawn(
        "graph.py",
        DOMAIN,
        &["tacto_graph_node", "/tacto_graph_topic"],
    );
    let mut lines = Vec::new();
    while let Some(line) = graph.next_line(Instant::now() + PATIENCE) {
        lines.push(line);
    }
    assert_eq!(
        lines,
        ["node / tacto_graph_node", "publisher / tacto_graph_node"],
        "{}",
        graph.stderr()
    );
}

#[test]
fn a_subscription_orders_local_and_remote_samples_by_publication() {
    const DOMAIN: u32 = 109;
    let prefix = format!("mixed {}", std::process::id());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_mixed").unwrap();
    // Room for every warm-up the handshake may take, however slow the machine.
    let sub = (node.subscription::<Text>("tacto_mixed"))
        .history(History::KeepAll { max: 100_000 })
        .create()
        .unwrap();
    let local = node.publisher::<Text>("tacto_mixed").create().unwrap();
    let go = node.publisher::<Text>("tacto_mixed_go").create().unwrap();
    local.publish(Text {
        data: "local first".into(),
    });
    let mut talker = RclpyNode::spawn("sender.py", DOMAIN, &["tacto_mixed", &prefix, "0.02", "3"]);
    start_counted(&mut talker, &go, || sub.len() > 1);
    let probe = sub.probe();
    let last = format!("{prefix} 2");
    wait_for(&mut talker, "the last remote sample", || {
        probe.peek_latest().is_some_and(|s| s.data == last)
    });
    local.publish(Text {
        data: "local last".into(),
    });
    assert_eq!(
        sub.latest().unwrap().data,
        "local last",
        "the newest of both"
    );
    assert!(!sub.has_new());

    let all: Vec<String> = texts(sub.take_all())
        .into_iter()
        .filter(|t| t != "warmup")
        .collect();
    let mut expected = vec!["local first".to_owned()];
    expected.extend(numbered(&prefix, 0..3));
    expected.push("local last".into());
    assert_eq!(all, expected, "oldest published first, across both sources");
    assert!(sub.is_empty());
}

#[test]
fn a_subscription_sees_an_rclpy_publisher_come_and_go() {
    const DOMAIN: u32 = 110;
    let ctx = dds_context(DOMAIN);
    let sub = (ctx.node("liveliness_watch").unwrap())
        .subscription::<Text>("brief")
        .create()
        .unwrap();
    assert_eq!(sub.remote_publishers(), Some(RemotePublishers::default()));
    let mut talker = RclpyNode::spawn("brief_talker.py", DOMAIN, &["/brief", "5"]);
    let deadline = Instant::now() + PATIENCE;
    assert_eq!(
        talker.next_line(deadline).as_deref(),
        Some("matched"),
        "{}",
        talker.stderr()
    );
    let mut most_alive = 0;
    while talker.exited().is_none() {
        assert!(Instant::now() < deadline, "{}", talker.stderr());
        most_alive = most_alive.max(sub.remote_publishers().unwrap().alive);
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        most_alive, 1,
        "the talker was seen alive while it published"
    );
    // It destroyed its publisher before it exited: gone at once, no lease to wait out.
    while sub.remote_publishers().unwrap().alive != 0 {
        assert!(Instant::now() < deadline, "{:?}", sub.remote_publishers());
        std::thread::sleep(Duration::from_millis(10));
    }
}
