//! `/tf` from another process over shared memory: a `TransformReady` node runs when the
//! transform its message waits for arrives, and `/tf` wakes no executor while nothing waits.
//!
//! The other process is this test binary re-executed (`child_role`, ignored so that the
//! suite does not count it), broadcasting what its stdin says. Both remap `/tf` and
//! `/tf_static` to names carrying the parent's pid and the test's name: shared memory has no
//! domain, so parallel runs must not share a topic.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use common::{from_sec, transform};
use tacto::args::RosArgs;
use tacto::{Context, Executor, Time, WaitSetExecutor};
use tacto_msgs::geometry_msgs::msg::PointStamped;
use tacto_shm::ShmTransport;
use tacto_tf::{Listener, TransformBroadcaster, TransformQueue, TransformReady};

const ROLE: &str = "TACTO_TF_SHM_ROLE";
const TOPICS: &str = "TACTO_TF_SHM_TOPICS";
/// What starts a child's line meant for the parent (libtest may print before it on the line).
const SAY: &str = "tf-child:";
/// How long anything may take on a loaded 2-core machine.
const PATIENCE: Duration = Duration::from_secs(60);

/// A context on shared memory whose `/tf` and `/tf_static` are `/tf_<topics>` and
/// `/tf_static_<topics>`.
fn context(name: &str, topics: &str) -> Context {
    let args = RosArgs::parse([
        "--ros-args",
        "-r",
        &format!("/tf:=/tf_{topics}"),
        "-r",
        &format!("/tf_static:=/tf_static_{topics}"),
    ])
    .unwrap();
    Context::builder()
        .transport(ShmTransport::new(name).unwrap())
        .arguments(args)
        .unwrap()
        .create()
}

/// The other process: per line of stdin, `send PARENT CHILD SECONDS X` (one transform, then
/// `sent`) or `flood N` (N transforms `odom → base` 10 ms apart, then `flooded`: 100 Hz, which
/// a subscriber port of 16 samples holds between two of the listener's drains).
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    if std::env::var_os(ROLE).is_none() {
        return;
    }
    let ctx = context("tf_child", &std::env::var(TOPICS).unwrap());
    let mut node = ctx.node("tf_child").unwrap();
    let tf = TransformBroadcaster::new(&mut node).unwrap();
    let mut stamp = 100.0;
    for line in std::io::stdin().lines().map_while(Result::ok) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["send", parent, child, seconds, x] => {
                let (seconds, x) = (seconds.parse().unwrap(), x.parse().unwrap());
                tf.send(rotated(transform(
                    parent,
                    child,
                    from_sec(seconds),
                    x,
                    0.0,
                    0.0,
                )));
                println!("{SAY} sent");
            }
            ["flood", n] => {
                for _ in 0..n.parse::<u32>().unwrap() {
                    stamp += 0.01;
                    tf.send(rotated(transform(
                        "odom",
                        "base",
                        from_sec(stamp),
                        0.0,
                        0.0,
                        0.0,
                    )));
                    std::thread::sleep(Duration::from_millis(10));
                }
                println!("{SAY} flooded");
            }
            _ => panic!("unknown command {line:?}"),
        }
    }
}

fn rotated(
    mut t: tacto_msgs::geometry_msgs::msg::TransformStamped,
) -> tacto_msgs::geometry_msgs::msg::TransformStamped {
    t.transform.rotation.w = 1.0;
    t
}

/// The broadcasting process; killed if the test ends first.
struct Broadcaster {
    process: std::process::Child,
    said: mpsc::Receiver<String>,
}

impl Broadcaster {
    fn spawn(topics: &str) -> Broadcaster {
        let mut process = Command::new(std::env::current_exe().unwrap())
            .args(["child_role", "--exact", "--ignored", "--nocapture"])
            .env(ROLE, "broadcast")
            .env(TOPICS, topics)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(process.stdout.take().unwrap());
        let (tx, said) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if let Some((_, words)) = line.split_once(SAY) {
                    let _ = tx.send(words.trim().to_owned());
                }
            }
        });
        Broadcaster { process, said }
    }

    /// Sends `command` and waits for the child's answer.
    fn tell(&mut self, command: &str) -> String {
        let stdin = self.process.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        (self.said.recv_timeout(PATIENCE)).expect("the broadcaster said nothing (it died or hangs)")
    }
}

impl Drop for Broadcaster {
    fn drop(&mut self) {
        drop(self.process.stdin.take());
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Until the listener has heard the broadcaster: shared memory connects a publisher to a
/// subscriber of another process when it publishes.
fn connect(broadcaster: &mut Broadcaster, listener: &Listener) {
    let start = Instant::now();
    while listener
        .lookup_transform("map", "connected", Time::ZERO)
        .is_err()
    {
        assert!(
            start.elapsed() < PATIENCE,
            "/tf never came over shared memory"
        );
        assert_eq!(broadcaster.tell("send map connected 1 0"), "sent");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stamped_point(frame: &str, stamp: Time, x: f64) -> PointStamped {
    let mut p = PointStamped::default();
    p.header.frame_id = frame.into();
    p.header.stamp = stamp.into();
    p.point.x = x;
    p
}

/// Spins while the broadcaster floods `/tf` with 30 messages: the executor's wake-ups and
/// runs in that time, and in as long an idle spin before.
fn spin_through_a_flood(
    executor: &mut WaitSetExecutor,
    broadcaster: &mut Broadcaster,
    listener: &Listener,
) -> ((u64, u64), (u64, u64)) {
    let window = Duration::from_millis(500);
    let before = executor.stats();
    executor.spin_for(window).unwrap();
    let idle = executor.stats();
    let heard = listener.stats().messages;
    let stdin = broadcaster.process.stdin.as_mut().unwrap();
    writeln!(stdin, "flood 30").unwrap();
    // The flood takes about 300 ms of the window.
    executor.spin_for(window).unwrap();
    assert_eq!(broadcaster.said.recv_timeout(PATIENCE).unwrap(), "flooded");
    let flooded = executor.stats();
    while !listener.drain() {}
    let stats = listener.stats();
    assert!(stats.messages >= heard + 30, "the flood came: {stats:?}");
    assert_eq!(stats.dropped, 0, "the listener's thread drained it in time");
    (
        (
            idle.wakeups - before.wakeups,
            idle.executions - before.executions,
        ),
        (
            flooded.wakeups - idle.wakeups,
            flooded.executions - idle.executions,
        ),
    )
}

#[test]
fn a_transform_ready_node_runs_when_its_transform_comes_over_shared_memory_and_tf_wakes_nothing_meanwhile()
 {
    let topics = format!("{}_ready", std::process::id());
    let ctx = context("tf_ready", &topics);
    let listener = Listener::of(&ctx).unwrap();
    let mut node = ctx.node("tracker").unwrap();
    let points = (node.subscription::<PointStamped>("points"))
        .create()
        .unwrap();
    let queue = TransformQueue::new(&["map"], 10).unwrap();
    let ready = TransformReady::new(&mut node, points, &listener, queue, |p| &p.header).unwrap();
    let (out, results) = mpsc::channel();
    let code = ready.clone();
    node.execute(ready.trigger(), move |_| {
        while let Some(r) = code.take() {
            let _ = out.send((r.message.point.x, r.transforms[0].transform.translation.x));
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let mut broadcaster = Broadcaster::spawn(&topics);
    connect(&mut broadcaster, &listener);

    // Nothing waits: the flood wakes the executor no more than an idle spin does, and runs
    // nothing.
    let (idle, flood) = spin_through_a_flood(&mut executor, &mut broadcaster, &listener);
    assert_eq!(flood, idle, "(wake-ups, runs) during the flood, and idle");
    assert_eq!(flood.1, 0);

    // A point whose transform is not there yet: it waits.
    let mut driver = ctx.node("driver").unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    publisher.publish(stamped_point("laser", from_sec(5.0), 1.0));
    executor.spin_for(Duration::from_millis(50)).unwrap();
    assert!(results.try_recv().is_err());
    assert_eq!(ready.waiting(), 1);

    // The transform comes from the other process: the node runs, with it.
    assert_eq!(broadcaster.tell("send map laser 5 2.5"), "sent");
    let start = Instant::now();
    let result = loop {
        executor.spin_for(Duration::from_millis(10)).unwrap();
        if let Ok(result) = results.try_recv() {
            break result;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "the node never ran with its transform"
        );
    };
    assert_eq!(result, (1.0, 2.5));
    assert_eq!(ready.waiting(), 0);

    // Nothing waits again: /tf wakes nothing again.
    let (idle, flood) = spin_through_a_flood(&mut executor, &mut broadcaster, &listener);
    assert_eq!(flood, idle, "(wake-ups, runs) during the flood, and idle");
    assert_eq!(ready.stats().ready, 1);
}

#[test]
fn over_shared_memory_a_waker_raises_its_condition_only_while_armed() {
    let topics = format!("{}_waker", std::process::id());
    let ctx = context("tf_waker", &topics);
    let listener = Listener::of(&ctx).unwrap();
    let mut node = ctx.node("waiting").unwrap();
    let condition = node.guard_condition();
    let waker = listener.waker(condition.clone()).unwrap();
    let mut broadcaster = Broadcaster::spawn(&topics);
    connect(&mut broadcaster, &listener);

    // Disarmed: arrivals raise nothing.
    let raised = condition.raisings();
    for s in 2..5 {
        assert_eq!(broadcaster.tell(&format!("send map base {s} 0")), "sent");
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(condition.raisings(), raised);

    // Armed: the next arrival raises it, from the listener's thread.
    waker.arm();
    assert_eq!(broadcaster.tell("send map base 6 0"), "sent");
    let start = Instant::now();
    while condition.raisings() == raised {
        assert!(start.elapsed() < PATIENCE, "never raised");
        std::thread::sleep(Duration::from_millis(1));
    }

    // Disarmed again: nothing more.
    waker.disarm();
    let raised = condition.raisings();
    assert_eq!(broadcaster.tell("send map base 7 0"), "sent");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(condition.raisings(), raised);
}

#[test]
fn an_arrival_hook_over_shared_memory_announces_through_its_fd() {
    let topics = format!("{}_hook", std::process::id());
    let ctx = context("tf_hook", &topics);
    let mut node = ctx.node("hooked").unwrap();
    let tf = (node.subscription::<tacto_msgs::tf2_msgs::msg::TFMessage>("/tf"))
        .create()
        .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let hook = tf
        .on_arrival(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let fd = hook
        .wake_fd()
        .expect("shared memory announces through an fd");
    let readable = |timeout: Duration| {
        let mut fds = [rustix::event::PollFd::from_borrowed_fd(
            fd,
            rustix::event::PollFlags::IN,
        )];
        let timeout = rustix::time::Timespec {
            tv_sec: timeout.as_secs() as i64,
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        rustix::event::poll(&mut fds, Some(&timeout)).unwrap() == 1
    };
    let mut broadcaster = Broadcaster::spawn(&topics);
    let start = Instant::now();
    while tf.take().is_none() {
        assert!(
            start.elapsed() < PATIENCE,
            "/tf never came over shared memory"
        );
        assert_eq!(broadcaster.tell("send map base 1 0"), "sent");
        std::thread::sleep(Duration::from_millis(20));
    }
    tf.take_all().for_each(drop);

    // Arming consumes what was announced before; the next arrival makes the fd readable,
    // and `on_readable` consumes that and calls the function.
    hook.arm();
    assert!(!readable(Duration::ZERO));
    assert_eq!(broadcaster.tell("send map base 2 0"), "sent");
    assert!(readable(PATIENCE));
    hook.on_readable();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert!(!readable(Duration::ZERO), "consumed");

    // An arrival taken before the fd is looked at is still told: the waiting code must hear
    // that /tf brought data, whoever took it in.
    assert_eq!(broadcaster.tell("send map base 3 0"), "sent");
    assert!(readable(PATIENCE));
    assert_eq!(tf.take_all().count(), 2);
    hook.on_readable();
    assert_eq!(calls.load(Ordering::SeqCst), 2);

    // Disarmed, a readable fd calls nothing.
    hook.disarm();
    assert_eq!(broadcaster.tell("send map base 4 0"), "sent");
    assert!(readable(PATIENCE));
    hook.on_readable();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        tf.take_all().count(),
        1,
        "the sample is there: the hook only tells"
    );
}
