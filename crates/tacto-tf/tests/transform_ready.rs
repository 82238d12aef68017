//! `TransformReady` on executors: code run when a message's transforms came, and `/tf`
//! waking nothing while nothing waits.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use common::{from_sec, transform};
use tacto::msg::std_msgs::Header as CoreHeader;
use tacto::sync::{ExactTime, Synchronizer};
use tacto::{CallbackExecutor, Context, Executor, LetExecutor, Time, WaitSetExecutor};
use tacto_msgs::geometry_msgs::msg::PointStamped;
use tacto_tf::{
    DropReason, Listener, StaticTransformBroadcaster, TransformBroadcaster, TransformQueue,
    TransformReady,
};

fn stamped_point(frame: &str, stamp: Time, x: f64) -> PointStamped {
    let mut p = PointStamped::default();
    p.header.frame_id = frame.into();
    p.header.stamp = stamp.into();
    p.point.x = x;
    p
}

/// What the tracker's code sends for each ready point: its x and each transform's x.
type Results = mpsc::Receiver<(f64, Vec<f64>)>;

/// A node "tracker" whose code sends, for each ready point, its x and the x of each of its
/// transforms.
fn tracker(
    ctx: &Context,
    queue: TransformQueue<tacto::Sample<PointStamped>>,
) -> (tacto::Node, TransformReady<PointStamped>, Results) {
    let mut node = ctx.node("tracker").unwrap();
    let points = node
        .subscription::<PointStamped>("points")
        .create()
        .unwrap();
    let listener = Listener::of(ctx).unwrap();
    let ready = TransformReady::new(&mut node, points, &listener, queue, |p| &p.header).unwrap();
    let (out, results) = mpsc::channel();
    let code = ready.clone();
    node.execute(ready.trigger(), move |_| {
        while let Some(r) = code.take() {
            let x = r.transforms.iter().map(|t| t.transform.translation.x);
            let _ = out.send((r.message.point.x, x.collect()));
        }
    })
    .unwrap();
    (node, ready, results)
}

fn spin_until<T>(
    executor: &mut impl Executor,
    results: &mpsc::Receiver<T>,
    within: Duration,
) -> Option<T> {
    let give_up = Instant::now() + within;
    while Instant::now() < give_up {
        executor.spin_for(Duration::from_millis(10)).unwrap();
        if let Ok(result) = results.try_recv() {
            return Some(result);
        }
    }
    None
}

// From geometry2 (jazzy) tf2_ros/test/message_filter_test.cpp,
// multiple_frames_and_time_tolerance: static map -> odom -> base, a point in base stamped
// now, published once a second (here every 10 ms), targets odom and map, a tolerance of 1 s;
// the filter's callback must fire.
#[test]
fn points_in_a_static_tree_are_ready_in_every_target_with_a_tolerance() {
    let ctx = Context::new();
    let queue = TransformQueue::new(&["odom", "map"], 10)
        .unwrap()
        .tolerance(Duration::from_secs(1));
    let (node, _ready, results) = tracker(&ctx, queue);
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    let mut driver = ctx.node("driver").unwrap();
    let tfb = StaticTransformBroadcaster::new(&mut driver).unwrap();
    tfb.send(transform("map", "odom", Time::ZERO, 0.0, 0.0, 0.0))
        .unwrap();
    tfb.send(transform("odom", "base", Time::ZERO, 0.0, 0.0, 0.0))
        .unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    let now = ctx.node("clock").unwrap().now();
    let mut fired = 0;
    for _ in 0..50 {
        publisher.publish(stamped_point("base", now, 0.1));
        executor.spin_for(Duration::from_millis(10)).unwrap();
        fired += results.try_iter().count();
        if fired > 5 {
            break;
        }
    }
    assert!(fired > 5, "the callback fired {fired} times");
}

#[test]
fn a_point_waits_until_tf_brings_its_transform_and_then_tf_wakes_nothing() {
    let ctx = Context::new();
    let (node, ready, results) = tracker(&ctx, TransformQueue::new(&["map"], 10).unwrap());
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();

    publisher.publish(stamped_point("laser", from_sec(2.0), 1.0));
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert!(results.try_recv().is_err());
    assert_eq!(ready.waiting(), 1);
    let runs_waiting = executor.stats().executions;

    // Data before the stamp only: a wake-up, no answer yet.
    tf.send(transform("map", "laser", from_sec(1.0), 10.0, 0.0, 0.0));
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert!(results.try_recv().is_err());
    assert_eq!(
        executor.stats().executions,
        runs_waiting + 1,
        "woken by /tf"
    );

    tf.send(transform("map", "laser", from_sec(3.0), 30.0, 0.0, 0.0));
    let (x, transforms) = spin_until(&mut executor, &results, Duration::from_secs(2)).unwrap();
    assert_eq!((x, transforms), (1.0, vec![20.0]), "interpolated at 2 s");
    assert_eq!(ready.waiting(), 0);

    // Nothing waits: /tf wakes nothing any more.
    let runs = executor.stats().executions;
    for s in 4..20 {
        tf.send(transform(
            "map",
            "laser",
            from_sec(f64::from(s)),
            0.0,
            0.0,
            0.0,
        ));
    }
    executor.spin_for(Duration::from_millis(50)).unwrap();
    assert_eq!(executor.stats().executions, runs);
    assert_eq!(ready.stats().ready, 1);
}

#[test]
fn with_nothing_waiting_tf_at_a_high_rate_wakes_the_executor_zero_times() {
    let ctx = Context::new();
    let (node, _ready, results) = tracker(&ctx, TransformQueue::new(&["odom"], 10).unwrap());
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    executor.spin_for(Duration::from_millis(50)).unwrap();
    let idle = executor.stats();

    let running = Arc::new(AtomicBool::new(true));
    let publisher = {
        let ctx = ctx.clone();
        let running = running.clone();
        thread::spawn(move || {
            let mut driver = ctx.node("driver").unwrap();
            let tf = TransformBroadcaster::new(&mut driver).unwrap();
            let mut sent = 0u32;
            while running.load(Ordering::Relaxed) {
                sent += 1;
                let stamp = from_sec(f64::from(sent) * 0.001);
                tf.send(transform("odom", "base", stamp, 0.0, 0.0, 0.0));
                thread::sleep(Duration::from_micros(500));
            }
            sent
        })
    };
    executor.spin_for(Duration::from_millis(300)).unwrap();
    running.store(false, Ordering::Relaxed);
    let sent = publisher.join().unwrap();
    let stats = executor.stats();
    assert!(sent > 100, "only {sent} /tf messages sent");
    assert_eq!(
        (stats.wakeups - idle.wakeups * 2, stats.executions),
        (0, 0),
        "{sent} /tf messages"
    );
    assert!(results.try_recv().is_err());
}

#[test]
fn messages_that_can_never_be_transformed_are_dropped_and_counted() {
    let ctx = Context::new();
    let queue = TransformQueue::new(&["map"], 2).unwrap();
    let (node, ready, results) = tracker(&ctx, queue);
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    publisher.publish(stamped_point("", from_sec(1.0), 0.0));
    for s in [1.0, 2.0, 3.0] {
        publisher.publish(stamped_point("laser", from_sec(s), s));
    }
    executor.spin_for(Duration::from_millis(20)).unwrap();
    // The stamp at 1 s was pushed out; data from 12.5 s to 12.9 s leaves 2 s out the back
    // (2 + 10 < 12.9), not 3 s.
    tf.send(transform("map", "laser", from_sec(12.5), 0.0, 0.0, 0.0));
    tf.send(transform("map", "laser", from_sec(12.9), 0.0, 0.0, 0.0));
    executor.spin_for(Duration::from_millis(50)).unwrap();
    let stats = ready.stats();
    assert_eq!(stats.dropped_for(DropReason::EmptyFrameId), 1);
    assert_eq!(stats.dropped_for(DropReason::QueueFull), 1);
    assert_eq!(stats.dropped_for(DropReason::OutTheBack), 1);
    assert_eq!(
        ready.waiting(),
        1,
        "3 s waits: 3 + 10 s is not behind 12.9 s"
    );
    assert!(results.try_recv().is_err());
}

#[test]
fn the_callback_executor_runs_a_transform_ready_trigger() {
    let ctx = Context::new();
    let (node, _ready, results) = tracker(&ctx, TransformQueue::new(&["map"], 10).unwrap());
    let mut executor = CallbackExecutor::new().unwrap();
    executor.add(node).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    publisher.publish(stamped_point("laser", from_sec(1.0), 1.0));
    executor.spin_for(Duration::from_millis(20)).unwrap();
    tf.send(transform("map", "laser", from_sec(1.0), 5.0, 0.0, 0.0));
    let got = spin_until(&mut executor, &results, Duration::from_secs(2));
    assert_eq!(got, Some((1.0, vec![5.0])));
}

#[test]
fn a_let_executor_hands_over_a_ready_message_at_a_period_start() {
    let ctx = Context::new();
    let (node, _ready, results) = tracker(&ctx, TransformQueue::new(&["map"], 10).unwrap());
    let mut executor = LetExecutor::new(Duration::from_millis(5)).unwrap();
    executor.add(node).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    publisher.publish(stamped_point("laser", from_sec(1.0), 1.0));
    executor.spin_for(Duration::from_millis(20)).unwrap();
    tf.send(transform("map", "laser", from_sec(1.0), 5.0, 0.0, 0.0));
    let got = spin_until(&mut executor, &results, Duration::from_secs(2));
    assert_eq!(got, Some((1.0, vec![5.0])));
}

// Synchronized inputs whose frames need a transform: a Synchronizer's sets fed into a
// TransformQueue, its arrival trigger joined by the listener's waker's condition.
#[test]
fn synchronized_sets_wait_for_their_transform_through_a_waker() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let lidar = node.subscription::<CoreHeader>("lidar").create().unwrap();
    let camera = node.subscription::<CoreHeader>("camera").create().unwrap();
    let sync = Synchronizer::new(ExactTime::new(10).unwrap(), (lidar, camera));
    let listener = Listener::of(&ctx).unwrap();
    let transform_came = node.guard_condition();
    let waker = listener.waker(transform_came.clone()).unwrap();
    let mut queue = TransformQueue::new(&["map"], 10).unwrap();
    let (out, results) = mpsc::channel();
    let trigger = sync.arrival_trigger().with_condition(&transform_came);
    node.execute(trigger, move |_| {
        transform_came.take();
        while let Some((lidar, camera)) = sync.take() {
            let (frame, stamp) = (lidar.frame_id.clone(), Time::from(lidar.stamp));
            queue.add((lidar, camera), &frame, stamp, Time::ZERO);
        }
        if queue.is_empty() {
            return;
        }
        waker.arm();
        while !listener.drain() {
            thread::yield_now();
        }
        while let Some(ready) = queue.poll(listener.buffer(), Time::ZERO) {
            let (lidar, camera) = &ready.message;
            let x = ready.transforms[0].transform.translation.x;
            let _ = out.send((lidar.frame_id.clone(), camera.frame_id.clone(), x));
        }
        if queue.is_empty() {
            waker.disarm();
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    let mut driver = ctx.node("driver").unwrap();
    let lidar_out = driver.publisher::<CoreHeader>("lidar").create().unwrap();
    let camera_out = driver.publisher::<CoreHeader>("camera").create().unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    let header = |frame: &str| CoreHeader {
        stamp: from_sec(1.0).into(),
        frame_id: frame.into(),
    };
    lidar_out.publish(header("lidar"));
    camera_out.publish(header("camera"));
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert!(
        results.try_recv().is_err(),
        "matched, but map -> lidar not there yet"
    );
    tf.send(transform("map", "lidar", from_sec(1.0), 7.0, 0.0, 0.0));
    let got = spin_until(&mut executor, &results, Duration::from_secs(2));
    assert_eq!(got, Some(("lidar".into(), "camera".into(), 7.0)));
}
