//! A tacto `Context` on shared memory and DDS at once (`ShmTransport`, then
//! `DdsTransport::beside_shm`), across real processes: tacto peers of this host meet through
//! shared memory only, rclpy nodes (the PyPI wheels, Fast DDS) through DDS, and no sample
//! arrives twice. This test binary re-executes itself as the other tacto process
//! (`tacto_peer`). Domains 150 to 152, one per test.

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::{PATIENCE, RclpyNode, loopback_participant};
use tacto::msg::std_msgs::String as Text;
use tacto::transport::{RosType, Transport};
use tacto::{Context, Executor, History, Qos, SpinOutcome, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_shm::ShmTransport;

/// A context on shared memory and, beside it, DDS in `domain` on loopback; and its DDS
/// transport.
fn both(domain: u32, name: &str) -> (Context, std::sync::Arc<DdsTransport>) {
    let shm = ShmTransport::new(name).unwrap();
    let host_key = shm.node().host_key().unwrap();
    let dds = DdsTransport::beside_shm(loopback_participant(domain), &host_key);
    let ctx = Context::builder()
        .transport(shm)
        .transport(dds.clone())
        .create();
    (ctx, dds)
}

/// Unique per run, so that parallel runs never share a topic (nor an iceoryx2 service).
fn topic(test: &str) -> String {
    format!("/both{}_{test}", std::process::id())
}

fn hex(id: tacto::PublisherId) -> String {
    id.0.iter().map(|b| format!("{b:02x}")).collect()
}

/// The other tacto process, on both transports; its role (`support::ROLE`) says
/// `<what> <domain> <topic> <number>`:
/// - `count`: once a DDS writer without shared memory (a probe, on a participant of its own)
///   sees the test's reader, publishes "m1".."mN"; prints its publisher's id, then how many
///   went out, then whether a DDS writer of its context's transport has readers to send to.
/// - `paced`: publishes "tacto 1", "tacto 2", ... every N µs, until killed.
#[test]
#[ignore = "the other process of this file's tests, which run it with --include-ignored"]
fn tacto_peer() {
    let role = std::env::var(support::ROLE).expect(support::ROLE);
    let words: Vec<&str> = role.split(' ').collect();
    let [what, domain, topic, number] = words[..] else {
        panic!("role {role:?}");
    };
    let (domain, number): (u32, u64) = (domain.parse().unwrap(), number.parse().unwrap());
    let (ctx, dds) = both(domain, "tacto_peer");
    let mut node = ctx.node("tacto_peer").unwrap();
    let publisher = node.publisher::<Text>(topic).create().unwrap();
    println!("peer: id {}", hex(publisher.id()));
    match what {
        "count" => {
            let probe = DdsTransport::new(loopback_participant(domain));
            let ros_type = RosType::of::<Text>();
            let probe = probe
                .writer(None, topic, ros_type, &Qos::default())
                .unwrap();
            let beside = dds.writer(None, topic, ros_type, &Qos::default()).unwrap();
            let deadline = Instant::now() + PATIENCE;
            while !probe.has_remote_readers() {
                assert!(Instant::now() < deadline, "DDS never saw the test's reader");
                thread::sleep(Duration::from_millis(10));
            }
            for i in 1..=number {
                publisher.publish(Text {
                    data: format!("m{i}"),
                });
            }
            println!("peer: sent {}", publisher.remote_writes());
            println!("peer: beside {}", beside.has_remote_readers());
        }
        "paced" => {
            for i in 1.. {
                publisher.publish(Text {
                    data: format!("tacto {i}"),
                });
                thread::sleep(Duration::from_micros(number));
            }
        }
        _ => panic!("role {role:?}"),
    }
    // Alive until killed: a dropped publisher's unread samples would go with it.
    loop {
        thread::park();
    }
}

/// What follows `key` in the next line of `peer` that has it (a tacto peer's lines may follow
/// libtest's "test tacto_peer ... " on the same line).
fn line(peer: &mut RclpyNode, key: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let Some(line) = peer.next_line(deadline) else {
            panic!("no {key:?} line; stderr:\n{}", peer.stderr());
        };
        if let Some((_, rest)) = line.split_once(key) {
            return rest.trim().to_owned();
        }
    }
}

/// Polls `condition` until it holds, failing with `what` at the deadline.
fn wait_for(what: &str, peers: &mut [&mut RclpyNode], mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !condition() {
        for peer in peers.iter_mut() {
            if let Some(status) = peer.exited() {
                panic!("a peer exited ({status}) before {what}:\n{}", peer.stderr());
            }
        }
        assert!(Instant::now() < deadline, "no {what} within {PATIENCE:?}");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn two_tacto_processes_on_both_transports_meet_through_shared_memory_only() {
    const DOMAIN: u32 = 150;
    // Fewer than a shm port buffers (`tacto_shm::ShmLimits::DEFAULT.depth`, 16): sent at once.
    const COUNT: usize = 12;
    let topic = topic("once");
    let (ctx, _dds) = both(DOMAIN, "receiver");
    let mut node = ctx.node("receiver").unwrap();
    let sub = (node.subscription::<Text>(&topic))
        .history(History::KeepAll { max: 10 * COUNT })
        .create()
        .unwrap();

    let role = format!("count {DOMAIN} {topic} {COUNT}");
    let mut peer = RclpyNode::this_test("tacto_peer", &role, &[]);
    let id = line(&mut peer, "peer: id ");
    assert_eq!(line(&mut peer, "peer: sent "), COUNT.to_string());
    // The peer's DDS writers see this reader (its probe did), and leave it to shared memory.
    assert_eq!(line(&mut peer, "peer: beside "), "false");

    wait_for("samples", &mut [&mut peer], || sub.len() >= COUNT);
    // Nothing more comes, through either transport: a duplicate would be as fast as these.
    thread::sleep(Duration::from_millis(500));
    let samples: Vec<_> = sub.take_all().collect();
    let data: Vec<_> = samples.iter().map(|s| s.data.clone()).collect();
    let wanted: Vec<_> = (1..=COUNT).map(|i| format!("m{i}")).collect();
    assert_eq!(data, wanted, "each sample once, in order");
    // Through shared memory: the tacto publisher's id and sequence numbers (DDS would give
    // its writer's GUID and no sequence).
    for (sample, sequence) in samples.iter().zip(1..) {
        assert_eq!(hex(sample.info().publisher), id);
        assert_eq!(sample.info().sequence, sequence);
    }
}

#[test]
fn rclpy_peers_are_served_over_dds_beside_shared_memory_once() {
    const DOMAIN: u32 = 151;
    let topic = topic("rclpy");
    let (ctx, _dds) = both(DOMAIN, "receiver");
    let mut node = ctx.node("receiver").unwrap();
    let sub = (node.subscription::<Text>(&topic))
        .history(History::KeepAll { max: 100_000 })
        .create()
        .unwrap();

    let mut listener = RclpyNode::spawn("listener.py", DOMAIN, &[&topic, "tacto", "3"]);
    assert_eq!(line(&mut listener, ""), "ready");
    let mut talker = RclpyNode::spawn("talker.py", DOMAIN, &[&topic, "rclpy"]);
    let role = format!("paced {DOMAIN} {topic} 20000");
    let mut peer = RclpyNode::this_test("tacto_peer", &role, &[]);
    let id = line(&mut peer, "peer: id ");

    // The tacto peer reaches the rclpy listener over DDS.
    for _ in 0..3 {
        let heard = line(&mut listener, "tacto ");
        assert!(heard.parse::<u64>().is_ok(), "{heard}");
    }
    let mut got = Vec::new();
    wait_for("samples of both", &mut [&mut talker, &mut peer], || {
        got.extend(sub.take_all());
        let rclpy = got.iter().filter(|s| s.data.starts_with("rclpy")).count();
        rclpy >= 5 && got.len() - rclpy >= 50
    });
    drop(peer);
    drop(talker);
    got.extend(sub.take_all());

    let (tacto, rclpy): (Vec<_>, Vec<_>) = got.iter().partition(|s| s.data.starts_with("tacto"));
    let numbers = |samples: &[&tacto::Sample<Text>], prefix: &str| -> Vec<u64> {
        (samples.iter())
            .map(|s| s.data.strip_prefix(prefix).unwrap().parse().unwrap())
            .collect()
    };
    // Each sample of the tacto peer once, through shared memory, in order.
    let tacto_numbers = numbers(&tacto, "tacto ");
    let first = tacto_numbers[0];
    let wanted: Vec<u64> = (first..first + tacto_numbers.len() as u64).collect();
    assert_eq!(tacto_numbers, wanted);
    assert!(tacto.iter().all(|s| hex(s.info().publisher) == id));
    // Each of the rclpy talker once, over DDS.
    let rclpy_numbers = numbers(&rclpy, "rclpy ");
    let first = rclpy_numbers[0];
    let wanted: Vec<u64> = (first..first + rclpy_numbers.len() as u64).collect();
    assert_eq!(rclpy_numbers, wanted);
}

#[test]
fn on_both_transports_only_a_triggering_subscription_wakes_its_executor() {
    const DOMAIN: u32 = 152;
    let topic = topic("fast");
    let (ctx, _dds) = both(DOMAIN, "receiver");

    // Polls the fast topic; triggered only by a topic nobody publishes.
    let mut poller = ctx.node("poller").unwrap();
    let polled = (poller.subscription::<Text>(&topic))
        .history(History::KeepAll { max: 1_000_000 })
        .create()
        .unwrap();
    let quiet = (poller.subscription::<Text>(&format!("{topic}_quiet")))
        .create()
        .unwrap();
    poller.execute(Trigger::on(&quiet), |_| {}).unwrap();
    let mut polling = WaitSetExecutor::new().unwrap();
    polling.add(poller).unwrap();

    // Triggered by the fast topic: woken through both links' one fd.
    let mut reactor = ctx.node("reactor").unwrap();
    let triggering = reactor.subscription::<Text>(&topic).create().unwrap();
    let trigger = Trigger::on(&triggering);
    let (seen_tacto, seen_rclpy) = (
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    let (tacto_flag, rclpy_flag) = (seen_tacto.clone(), seen_rclpy.clone());
    reactor
        .execute(trigger, move |_| {
            for sample in triggering.take_all() {
                let flag = match sample.data.starts_with("tacto") {
                    true => &tacto_flag,
                    false => &rclpy_flag,
                };
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .unwrap();
    let mut reacting = WaitSetExecutor::new().unwrap();
    reacting.add(reactor).unwrap();

    // 1 kHz from each side: a tacto process (shared memory), an rclpy node (DDS).
    let role = format!("paced {DOMAIN} {topic} 1000");
    let mut peer = RclpyNode::this_test("tacto_peer", &role, &[]);
    let mut sender = RclpyNode::spawn("sender.py", DOMAIN, &[&topic, "rclpy", "0.001", "0"]);
    let (mut tacto, mut rclpy) = (false, false);
    wait_for("samples of both", &mut [&mut peer, &mut sender], || {
        for sample in polled.take_all() {
            tacto |= sample.data.starts_with("tacto");
            rclpy |= sample.data.starts_with("rclpy");
        }
        tacto && rclpy
    });

    // Windows of 200 ms: the polling executor wakes once per window, for its deadline, however
    // many samples arrive meanwhile.
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
    assert!(arrived as u64 > 10 * windows, "only {arrived} samples");
    assert!(
        polling_wakeups <= windows,
        "{polling_wakeups} wake-ups of the polling executor for {arrived} samples"
    );

    // The triggered node runs for the samples of each transport.
    let deadline = Instant::now() + PATIENCE;
    while !(seen_tacto.load(std::sync::atomic::Ordering::Relaxed)
        && seen_rclpy.load(std::sync::atomic::Ordering::Relaxed))
    {
        assert!(
            Instant::now() < deadline,
            "the triggered node saw tacto: {seen_tacto:?}, rclpy: {seen_rclpy:?}"
        );
        reacting.spin_for(Duration::from_millis(200)).unwrap();
    }
    assert_eq!(
        polling.stats().executions,
        0,
        "the quiet trigger never fired"
    );
    println!(
        "both transports at 2 kHz: polling executor {polling_wakeups} wake-ups in {windows} windows for {arrived} samples"
    );
}
