//! `ShmTransport` in a tacto `Context`, across real processes: this test binary re-executes
//! itself as the other process (`child_role`, selected by `TACTO_SHM_CONTEXT_ROLE`), which
//! builds its own context on shared memory. Topic names carry the parent's pid and the test's
//! name, so parallel runs never share a service.

use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tacto::msg::std_msgs::String as Text;
use tacto::transport::RemotePublishers;
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, History, SampleInfo, ThreadPoolExecutor,
    Trigger, WaitSetExecutor,
};
use tacto_shm::{ShmLimits, ShmTransport};

mod support;
use support::{Child, PATIENCE, SAY, spin_until};

const ROLE: &str = "TACTO_SHM_CONTEXT_ROLE";

/// The slots a subscription holds at most, by default.
const MAX_HELD: usize = ShmLimits::DEFAULT.held;

fn topic(test: &str) -> String {
    format!("/c{}_{test}", std::process::id())
}

fn context(name: &str) -> Context {
    Context::builder()
        .transport(ShmTransport::new(name).unwrap())
        .create()
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as i64
}

/// The other process: does what the role says, then waits for its stdin to close, its
/// endpoints alive (iceoryx2 discards what a dropped publisher sent and was not yet
/// received).
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    let topic = std::env::var("TOPIC").unwrap();
    let count: usize = std::env::var("COUNT").map_or(0, |c| c.parse().unwrap());
    let ctx = context("child");
    let mut node = ctx.node("child").unwrap();
    let mut lines = std::io::stdin().lines().map_while(Result::ok);
    match role.as_str() {
        "publish" => {
            let publisher = node.publisher::<Text>(&topic).create().unwrap();
            println!("{SAY} id {:?}", publisher.id().0);
            for i in 1..=count {
                publisher.publish(Text {
                    data: format!("m{i}"),
                });
            }
            println!("{SAY} sent {}", publisher.remote_writes());
            lines.for_each(drop);
        }
        "two_phases" => {
            // Paced: each sample is its own wake-up if anyone is woken.
            let polled = node.publisher::<Text>(&topic).create().unwrap();
            let triggering = (node.publisher::<Text>(&format!("{topic}_trig")))
                .create()
                .unwrap();
            for (phase, publisher) in [polled, triggering].iter().enumerate() {
                assert_eq!(lines.next().as_deref(), Some("go"));
                for i in 1..=count {
                    publisher.publish(Text {
                        data: format!("p{phase}-{i}"),
                    });
                    std::thread::sleep(Duration::from_millis(2));
                }
                println!("{SAY} phase {phase} sent {}", publisher.remote_writes());
            }
            lines.for_each(drop);
        }
        "subscribe" => {
            let sub = node
                .subscription::<Text>(&topic)
                .history(History::KeepLast(16))
                .create()
                .unwrap();
            println!("{SAY} ready");
            let mut got = Vec::new();
            let start = Instant::now();
            while got.len() < count && start.elapsed() < PATIENCE {
                got.extend(sub.take_all().map(|s| s.data.clone()));
                std::thread::sleep(Duration::from_millis(1));
            }
            println!("{SAY} got {}", got.join(","));
            lines.for_each(drop);
        }
        "large" => {
            // One message of COUNT bytes, then alive until killed or told to go.
            let publisher = node.publisher::<Text>(&topic).create().unwrap();
            publisher.publish(Text {
                data: pattern(count),
            });
            println!("{SAY} sent {}", publisher.remote_writes());
            lines.for_each(drop);
        }
        "on_demand" => {
            // `send K`: the next K samples, at once.
            let publisher = node.publisher::<Text>(&topic).create().unwrap();
            let mut sent = 0;
            for line in lines {
                let k: usize = line.strip_prefix("send ").unwrap().parse().unwrap();
                for _ in 0..k {
                    sent += 1;
                    publisher.publish(Text {
                        data: format!("m{sent}"),
                    });
                }
                println!("{SAY} sent {sent}");
            }
        }
        "burst" => {
            let publisher = node.publisher::<Text>(&topic).create().unwrap();
            println!("{SAY} bursting");
            loop {
                publisher.publish(Text {
                    data: "burst".into(),
                });
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        other => panic!("unknown role {other}"),
    }
}

/// `len` printable bytes that differ from any shifted or truncated copy of themselves.
fn pattern(len: usize) -> String {
    (0..len)
        .map(|i| char::from(b'!' + ((i * 31 + i / 4093) % 94) as u8))
        .collect()
}

/// This test's other process (`child_role`, see `support/`).
fn spawn(role: &str, topic: &str, count: usize) -> Child {
    let env = [("TOPIC", topic.into()), ("COUNT", count.to_string())];
    Child::spawn(ROLE, role, &env)
}

#[test]
fn a_triggered_subscription_gets_every_sample_in_order_with_its_info() {
    every_sample_in_order("wait_set", &mut WaitSetExecutor::new().unwrap());
}

#[test]
fn on_the_other_executors_too() {
    every_sample_in_order("callback", &mut CallbackExecutor::new().unwrap());
    every_sample_in_order("events", &mut EventsExecutor::new().unwrap());
    every_sample_in_order("thread_pool", &mut ThreadPoolExecutor::new().unwrap());
}

/// A publisher process sends 10 samples; the subscription's code, run by `executor` when its
/// listener fd is readable, gets each once, in order, with the publisher's facts.
fn every_sample_in_order(name: &str, executor: &mut dyn Executor) {
    let topic = topic(&format!("triggered_{name}"));
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(16))
        .create()
        .unwrap();
    let (tx, rx) = mpsc::channel::<(String, SampleInfo)>();
    let trigger = Trigger::on(&sub);
    node.execute(trigger, move |_| {
        for sample in sub.take_all() {
            tx.send((sample.data.clone(), *sample.info())).unwrap();
        }
    })
    .unwrap();
    executor.add(node).unwrap();

    let before = now_ns();
    let child = spawn("publish", &topic, 10);
    let id = child.next_line();
    assert_eq!(
        child.next_line(),
        "sent 10",
        "every sample went to shared memory"
    );
    let mut received = Vec::new();
    spin_until(executor, "10 samples ran the code", || {
        received.extend(rx.try_iter());
        received.len() >= 10
    });
    let after = now_ns();
    for (i, (data, info)) in received.iter().enumerate() {
        assert_eq!(*data, format!("m{}", i + 1), "in order");
        assert_eq!(info.sequence, i as u64 + 1);
        assert_eq!(
            format!("id {:?}", info.publisher.0),
            id,
            "the tacto publisher's id"
        );
        let published = info.publish_time.as_nanos();
        assert!(before <= published && published <= after, "{info:?}");
        assert!(info.receive_time >= info.publish_time, "{info:?}");
    }
    assert_eq!(received.len(), 10, "each sample once");
    assert!(executor.stats().executions >= 1);
    child.finish();
}

#[test]
fn a_polling_subscription_reads_the_latest_and_its_samples_wake_nothing() {
    let topic = topic("polling");
    let ctx = context("parent");
    let mut poller = ctx.node("poller").unwrap();
    let polled = poller.subscription::<Text>(&topic).create().unwrap();
    let mut reactor = ctx.node("reactor").unwrap();
    let triggering = (reactor.subscription::<Text>(&format!("{topic}_trig")))
        .history(History::KeepLast(16))
        .create()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    reactor
        .execute(Trigger::on(&triggering), move |_| {
            for sample in triggering.take_all() {
                tx.send(sample.data.clone()).unwrap();
            }
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(poller).unwrap();
    executor.add(reactor).unwrap();

    let count = 20;
    let mut child = spawn("two_phases", &topic, count);
    // Phase 0: paced samples on the polled topic only.
    child.tell("go");
    let last = format!("p0-{count}");
    let start = executor.stats();
    let windows = spin_until(&mut executor, "the polled topic's last sample", || {
        polled.latest().is_some_and(|s| s.data == last)
    });
    let polled_stats = executor.stats();
    assert_eq!(child.next_line(), format!("phase 0 sent {count}"));
    assert_eq!(polled_stats.executions, start.executions, "no code ran");
    // Each window ends with its deadline: at most one wake-up each, none from the samples.
    assert!(
        polled_stats.wakeups - start.wakeups <= windows,
        "{count} polled samples woke the executor: {} wake-ups in {windows} windows",
        polled_stats.wakeups - start.wakeups
    );
    assert!(!polled.has_new(), "latest marked everything read");

    // Phase 1: the same on the triggering topic wakes the executor and runs the code.
    child.tell("go");
    let mut received = Vec::new();
    spin_until(&mut executor, "the triggering topic's samples", || {
        received.extend(rx.try_iter());
        received.len() >= count
    });
    let triggered_stats = executor.stats();
    assert!(triggered_stats.executions > polled_stats.executions);
    assert!(triggered_stats.wakeups > polled_stats.wakeups);
    assert_eq!(child.next_line(), format!("phase 1 sent {count}"));
    child.finish();
}

#[test]
fn a_process_never_receives_its_own_samples_through_shared_memory() {
    let topic = topic("no_echo");
    let ctx = context("parent");
    let mut node = ctx.node("talker").unwrap();
    let publisher = node.publisher::<Text>(&topic).create().unwrap();
    let local = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(16))
        .create()
        .unwrap();
    publisher.publish(Text { data: "m0".into() });
    assert_eq!(
        publisher.remote_writes(),
        0,
        "no other process listens: not encoded"
    );
    assert_eq!(local.take().unwrap().data, "m0");

    let child = spawn("subscribe", &topic, 3);
    assert_eq!(child.next_line(), "ready");
    for i in 1..=3 {
        publisher.publish(Text {
            data: format!("m{i}"),
        });
    }
    assert_eq!(
        publisher.remote_writes(),
        3,
        "a subscriber in another process"
    );
    assert_eq!(child.next_line(), "got m1,m2,m3");
    // The local subscription's port received them too, and dropped them: each arrived once,
    // through the intra-process path.
    let got: Vec<_> = local.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(got, ["m1", "m2", "m3"]);
    assert!(local.take().is_none());
    assert_eq!(local.dropped(), 0);
    child.finish();
}

#[test]
fn a_killed_publisher_leaves_the_subscriber_running() {
    let topic = topic("killed");
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(16))
        .create()
        .unwrap();
    // A second subscription, only to poll the publishers' liveliness.
    let watch = node.subscription::<Text>(&topic).create().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    node.execute(Trigger::on(&sub), move |_| {
        for sample in sub.take_all() {
            tx.send(sample.data.clone()).unwrap();
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let publishers = || watch.remote_publishers().expect("shared memory tells");
    assert_eq!(publishers(), RemotePublishers { alive: 0, gone: 0 });

    let mut burst = spawn("burst", &topic, 0);
    assert_eq!(burst.next_line(), "bursting");
    spin_until(&mut executor, "burst samples", || {
        rx.try_iter().any(|data| data == "burst")
    });
    assert_eq!(publishers().alive, 1);
    burst.process.kill().unwrap();
    burst.process.wait().unwrap();
    // The subscriber polls it: alive no more, gone until a dead-node cleanup forgets it.
    let deadline = Instant::now() + PATIENCE;
    while publishers().alive != 0 {
        assert!(Instant::now() < deadline, "{:?}", publishers());
        std::thread::sleep(Duration::from_millis(10));
    }
    // The executor goes on, and a new publisher process reaches it.
    executor.spin_for(Duration::from_millis(50)).unwrap();
    rx.try_iter().for_each(drop);
    let child = spawn("publish", &topic, 3);
    child.next_line();
    assert_eq!(child.next_line(), "sent 3");
    let mut received = Vec::new();
    spin_until(&mut executor, "the new publisher's samples", || {
        received.extend(rx.try_iter());
        received.len() >= 3
    });
    assert_eq!(received, ["m1", "m2", "m3"]);
    child.finish();
}

/// Polls `read` every millisecond until it returns something.
fn poll<R>(what: &str, mut read: impl FnMut() -> Option<R>) -> R {
    let start = Instant::now();
    loop {
        if let Some(found) = read() {
            return found;
        }
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Several MiB through shared memory: the subscription decodes them from the publisher's
/// slot, which it keeps while the sample stays in its history, so a second read decodes the
/// same bytes again.
#[test]
fn a_message_of_several_mib_arrives_byte_identical() {
    let topic = topic("large");
    let size = (6 << 20) + 7;
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(4))
        .create()
        .unwrap();
    let child = spawn("large", &topic, size);
    assert_eq!(child.next_line(), "sent 1");
    let expected = pattern(size);
    let latest = poll("the large sample", || sub.latest());
    assert!(
        latest.data == expected,
        "the bytes sent, read where they are"
    );
    assert_eq!(sub.len(), 1, "kept in the history");
    let taken = sub.take().unwrap();
    assert!(taken.data == expected, "the kept slot, read again");
    assert_eq!(taken.info().sequence, 1);
    assert!(sub.take().is_none());
    child.finish();
}

/// A sample the subscription still holds in its slot when its publisher process is killed
/// stays readable, also after the dead publisher's resources are cleaned up; then a new
/// publisher reaches the subscription.
#[test]
fn a_held_sample_of_a_killed_publisher_stays_readable() {
    let topic = topic("held_killed");
    let size = 3 << 20;
    let transport = ShmTransport::new("parent").unwrap();
    let ctx = Context::builder().transport(transport.clone()).create();
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(4))
        .create()
        .unwrap();
    let mut child = spawn("large", &topic, size);
    assert_eq!(child.next_line(), "sent 1");
    let expected = pattern(size);
    // Read, not taken: the sample stays in the cache, its slot held.
    let read = poll("the large sample", || sub.read_new());
    assert!(read.data == expected);
    drop(read);
    child.process.kill().unwrap();
    child.process.wait().unwrap();
    poll("the publisher reported dead", || {
        (sub.remote_publishers()?.alive == 0).then_some(())
    });
    // The dead node's shared memory is removed; the held slot is still mapped here. Another
    // test's node may be cleaning it up at the same moment (every node created does), in which
    // case this cleanup reports it failed and the other finishes it: wait for that.
    poll("the dead publisher cleaned up", || {
        transport.node().cleanup_dead_nodes();
        (sub.remote_publishers()?.gone == 0).then_some(())
    });
    let taken = sub.take().expect("the held sample");
    assert!(taken.data == expected, "readable after its publisher died");
    drop(taken); // its slot returned to a publisher that is gone: no crash

    let child = spawn("large", &topic, 64);
    assert_eq!(child.next_line(), "sent 1");
    let fresh = poll("the new publisher's sample", || sub.take());
    assert_eq!(fresh.data, pattern(64));
    child.finish();
}

/// A subscription that reads its samples but never takes them holds `MAX_HELD` slots at once:
/// each arrival then frees the oldest, and it keeps receiving. Samples that arrive faster
/// than it reads are dropped and counted, exactly once each.
#[test]
fn a_subscription_holding_its_samples_keeps_receiving_and_counts_drops() {
    let topic = topic("holding");
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(MAX_HELD))
        .create()
        .unwrap();
    let mut child = spawn("on_demand", &topic, 0);
    // Paced: each sample read (kept, marked read) before the next is sent.
    for i in 1..=2 * MAX_HELD {
        child.tell("send 1");
        assert_eq!(child.next_line(), format!("sent {i}"));
        let sample = poll("the next sample", || sub.read_new());
        assert_eq!(sample.data, format!("m{i}"));
    }
    assert_eq!(sub.len(), MAX_HELD, "the history is full");
    assert_eq!(sub.dropped(), 0, "only read samples left it");

    // A burst of twice the history, unread: the newest MAX_HELD stay, the rest are counted.
    let total = 4 * MAX_HELD;
    child.tell(&format!("send {}", 2 * MAX_HELD));
    assert_eq!(child.next_line(), format!("sent {total}"));
    let last = format!("m{total}");
    let probe = sub.probe();
    poll("the burst's last sample", || {
        probe.peek_latest().filter(|s| s.data == last)
    });
    assert_eq!(sub.unread(), MAX_HELD);
    assert_eq!(
        sub.dropped(),
        MAX_HELD as u64,
        "each lost sample counted once"
    );
    let kept: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    let newest: Vec<_> = (total - MAX_HELD + 1..=total)
        .map(|i| format!("m{i}"))
        .collect();
    assert_eq!(kept, newest);
    child.finish();
}

/// A history deeper than `MAX_HELD`, read without taking: past `MAX_HELD` held slots, the
/// samples are copied out of theirs, and every one is kept.
#[test]
fn a_history_deeper_than_the_held_slots_keeps_every_sample() {
    let topic = topic("deep");
    let depth = 3 * MAX_HELD;
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(depth))
        .create()
        .unwrap();
    let mut child = spawn("on_demand", &topic, 0);
    for i in 1..=depth {
        child.tell("send 1");
        assert_eq!(child.next_line(), format!("sent {i}"));
        let sample = poll("the next sample", || sub.read_new());
        assert_eq!(sample.data, format!("m{i}"));
    }
    assert_eq!(sub.len(), depth);
    assert_eq!(sub.dropped(), 0);
    let all: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    let sent: Vec<_> = (1..=depth).map(|i| format!("m{i}")).collect();
    assert_eq!(all, sent);
    child.finish();
}

/// Samples that `window` moves from the link into the subscription's own history keep their
/// slots until decoded: they count against `MAX_HELD` as well, so the port keeps flowing.
#[test]
fn samples_moved_into_the_local_history_count_against_the_held_slots() {
    let topic = topic("absorbed");
    let depth = 3 * MAX_HELD;
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(depth))
        .create()
        .unwrap();
    let mut child = spawn("on_demand", &topic, 0);
    for i in 1..=depth {
        child.tell("send 1");
        assert_eq!(child.next_line(), format!("sent {i}"));
        // An empty window decodes nothing, but moves what arrived into the local history.
        poll("the next sample", || {
            assert_eq!(sub.window(0).count(), 0);
            (sub.len() == i).then_some(())
        });
    }
    assert_eq!(sub.window(0).count(), 0);
    let all: Vec<_> = sub.window(depth).map(|s| s.data.clone()).collect();
    let sent: Vec<_> = (1..=depth).map(|i| format!("m{i}")).collect();
    assert_eq!(all, sent);
    assert_eq!(sub.dropped(), 0);
    child.finish();
}

/// A sample that arrives while the code runs, after its last take, is moved into the cache by
/// the trigger's check of its rule once the run ends, before its notification is drained; the
/// drain then moves nothing. It must still count that sample, or the sample waits unread with
/// no run to take it (a lost wake-up, found by `tacto bench payload` once in a few thousand
/// messages; here forced every time).
#[test]
fn a_sample_moved_in_before_its_wake_up_is_drained_still_runs_the_code() {
    let topic = topic("moved_before_drain");
    let ctx = context("parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Text>(&topic)
        .history(History::KeepLast(16))
        .create()
        .unwrap();
    let child = std::sync::Arc::new(std::sync::Mutex::new(spawn("on_demand", &topic, 0)));
    let (tx, rx) = mpsc::channel::<Vec<String>>();
    let asking = child.clone();
    node.execute(Trigger::on(&sub), move |_| {
        let taken: Vec<String> = sub.take_all().map(|s| s.data.clone()).collect();
        if taken == ["m1"] {
            // The next sample, sent and notified before this run returns.
            let mut child = asking.lock().unwrap();
            child.tell("send 1");
            assert_eq!(child.next_line(), "sent 2");
        }
        tx.send(taken).unwrap();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    child.lock().unwrap().tell("send 1");
    assert_eq!(child.lock().unwrap().next_line(), "sent 1");
    let mut received = Vec::new();
    spin_until(&mut executor, "both samples ran the code", || {
        received.extend(rx.try_iter().flatten());
        received.len() >= 2
    });
    assert_eq!(received, ["m1", "m2"]);
    drop(executor);
    let Ok(child) = std::sync::Arc::try_unwrap(child) else {
        panic!("the executable, holding the child, is gone with its executor");
    };
    child.into_inner().unwrap().finish();
}
