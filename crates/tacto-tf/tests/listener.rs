//! The listener and the broadcasters within one process: what a lookup takes in, the
//! listener's own drains, sharing, bounds, refusals, and that `/tf` wakes no executor.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use common::{from_sec, transform};
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, Time, Trigger, WaitSetExecutor};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_msgs::tf2_msgs::msg::TFMessage;
use tacto_tf::{
    ErrorKind, LISTENER_AUTHORITY, Listener, ListenerOptions, RejectReason,
    StaticTransformBroadcaster, TransformBroadcaster,
};

/// Options with a `/tf` history of `history` messages and a drain period far beyond any
/// test's length: only lookups drain.
fn lookups_only(history: u32) -> ListenerOptions {
    let options = ListenerOptions {
        // A power of two, for an exact product.
        tf_rate: f64::from(history) / 64.0,
        drain_period: Duration::from_secs(64),
        headroom: 1.0,
        ..ListenerOptions::default()
    };
    assert_eq!(options.tf_history(), Ok(history as usize));
    options
}

/// Until what was published before is in the buffer: a drain of the listener's own thread
/// may be running, and a lookup's does not wait for it.
fn settle(listener: &Listener) {
    while !listener.drain() {
        thread::yield_now();
    }
}

fn rotated(mut t: TransformStamped) -> TransformStamped {
    t.transform.rotation.w = 1.0;
    t
}

// From tf2_ros/test/listener_unittest.cpp (transform_listener): a transform set in the
// listener's buffer is looked up with its values.
#[test]
fn a_transform_set_in_the_listener_s_buffer_is_looked_up_with_its_values() {
    let ctx = Context::new();
    let listener = Listener::of(&ctx).unwrap();
    let ts = transform("a", "b", from_sec(10.0), 1.0, 2.0, 3.0);
    listener
        .buffer()
        .set_transform(&ts, "authority", false)
        .unwrap();

    assert!(listener.can_transform("a", "b", from_sec(0.0)).is_ok());
    let out = listener.lookup_transform("a", "b", Time::ZERO).unwrap();
    let (v, q) = (&out.transform.translation, &out.transform.rotation);
    assert_eq!((v.x, v.y, v.z), (1.0, 2.0, 3.0));
    assert_eq!((q.w, q.x, q.y, q.z), (1.0, 0.0, 0.0, 0.0));
}

/// The two static links of test_tf2/test/static_publisher.launch.py's
/// static_transform_publishers: a→b at x = 1, b→c at y = 1.
fn launch_statics(ctx: &Context) -> StaticTransformBroadcaster {
    let mut node = ctx.node("static_transform_publisher").unwrap();
    let statics = StaticTransformBroadcaster::new(&mut node).unwrap();
    statics
        .send(transform("a", "b", Time::ZERO, 1.0, 0.0, 0.0))
        .unwrap();
    statics
        .send(transform("b", "c", Time::ZERO, 0.0, 1.0, 0.0))
        .unwrap();
    statics
}

// From test_tf2/test/test_static_publisher.cpp (a_b_different_times, a_c_different_times):
// static links hold at every time.
#[test]
fn static_links_from_a_broadcaster_hold_at_every_time() {
    let ctx = Context::new();
    let _statics = launch_statics(&ctx);
    let listener = Listener::of(&ctx).unwrap();
    settle(&listener);
    for t in [0.0, 100.0, 1000.0] {
        assert!(listener.can_transform("a", "b", from_sec(t)).is_ok());
    }
    for t in [0.0, 10.0, 1000.0] {
        assert!(listener.can_transform("a", "c", from_sec(t)).is_ok());
    }
    let out = listener.lookup_transform("a", "c", Time::ZERO).unwrap();
    assert_eq!(
        (out.transform.translation.x, out.transform.translation.y),
        (1.0, 1.0)
    );
}

// From test_tf2/test/test_static_publisher.cpp (a_d_different_times): a moving link below
// static ones limits the chain to its own time.
#[test]
fn a_moving_link_below_static_ones_limits_the_chain_to_its_time() {
    let ctx = Context::new();
    let _statics = launch_statics(&ctx);
    let listener = Listener::of(&ctx).unwrap();
    settle(&listener);
    for t in [0.0, 100.0, 1000.0] {
        assert!(listener.can_transform("a", "c", from_sec(t)).is_ok());
    }
    let ts = rotated(transform("c", "d", from_sec(10.0), 0.0, 0.0, 0.0));
    listener
        .buffer()
        .set_transform(&ts, "authority", false)
        .unwrap();

    assert!(listener.can_transform("c", "d", from_sec(10.0)).is_ok());
    assert!(listener.can_transform("a", "d", from_sec(0.0)).is_ok());
    assert!(listener.can_transform("a", "d", from_sec(1.0)).is_err());
    assert!(listener.can_transform("a", "d", from_sec(10.0)).is_ok());
    assert!(listener.can_transform("a", "d", from_sec(1000.0)).is_err());
}

// From test_tf2/test/test_static_publisher.cpp (multiple_parent_test): a static transform
// of a child frame sent again with another parent replaces the first.
#[test]
fn a_static_child_sent_again_with_another_parent_moves_to_it() {
    let ctx = Context::new();
    let _statics = launch_statics(&ctx);
    let listener = Listener::of(&ctx).unwrap();
    settle(&listener);
    assert!(listener.can_transform("a", "b", from_sec(0.0)).is_ok());

    let mut node = ctx.node("test_node").unwrap();
    let stb = StaticTransformBroadcaster::new(&mut node).unwrap();
    let mut ts = rotated(transform("c", "d", from_sec(10.0), 0.0, 0.0, 0.0));
    stb.send(ts.clone()).unwrap();
    settle(&listener);
    for t in [0.0, 100.0, 1000.0] {
        assert!(listener.can_transform("a", "d", from_sec(t)).is_ok());
    }

    ts.header.frame_id = "new_parent".into();
    stb.send(ts.clone()).unwrap();
    ts.child_frame_id = "other_child".into();
    stb.send(ts.clone()).unwrap();
    ts.child_frame_id = "other_child2".into();
    stb.send(ts).unwrap();
    settle(&listener);

    assert!(
        listener
            .can_transform("new_parent", "d", Time::ZERO)
            .is_ok()
    );
    assert!(
        listener
            .can_transform("new_parent", "other_child", Time::ZERO)
            .is_ok()
    );
    assert!(
        listener
            .can_transform("new_parent", "other_child2", Time::ZERO)
            .is_ok()
    );
    assert!(listener.can_transform("a", "d", Time::ZERO).is_err());
}

#[test]
fn the_static_broadcasters_of_a_process_send_all_its_static_frames_in_one_message() {
    let ctx = Context::new();
    let mut reader = ctx.node("reader").unwrap();
    let heard = reader
        .subscription::<TFMessage>("/tf_static")
        .create()
        .unwrap();
    let mut first = ctx.node("first").unwrap();
    let mut second = ctx.node("second").unwrap();
    let one = StaticTransformBroadcaster::new(&mut first).unwrap();
    let two = StaticTransformBroadcaster::new(&mut second).unwrap();

    one.send(transform("base", "laser", Time::ZERO, 1.0, 0.0, 0.0))
        .unwrap();
    two.send(transform("base", "camera", Time::ZERO, 2.0, 0.0, 0.0))
        .unwrap();
    one.send(transform("base", "laser", Time::ZERO, 3.0, 0.0, 0.0))
        .unwrap();

    let last = heard.take_all().last().unwrap();
    let frames: Vec<_> = (last.transforms.iter())
        .map(|t| (t.child_frame_id.as_str(), t.transform.translation.x))
        .collect();
    assert_eq!(frames, [("laser", 3.0), ("camera", 2.0)]);
    assert_eq!((one.frames(), two.frames()), (2, 2));
}

#[test]
fn a_late_listener_gets_the_static_frames_sent_before_it() {
    let ctx = Context::new();
    let _statics = launch_statics(&ctx);
    let late = Listener::with_options(&ctx, lookups_only(100)).unwrap();
    let out = late.lookup_transform("a", "c", from_sec(5.0)).unwrap();
    assert_eq!(out.transform.translation.y, 1.0);
}

#[test]
fn one_listener_serves_every_node_of_a_context_on_any_thread() {
    let ctx = Context::new();
    let listener = Listener::of(&ctx).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    tf.send(rotated(transform(
        "odom",
        "base",
        from_sec(1.0),
        1.0,
        0.0,
        0.0,
    )));

    // Taken in here: a lookup does not wait for a drain running on another thread, so the
    // threads' lookups could otherwise run while one of them is taking it in.
    assert!(listener.drain());

    let threads: Vec<_> = (0..4)
        .map(|_| {
            let ctx = ctx.clone();
            thread::spawn(move || {
                let mine = Listener::of(&ctx).unwrap();
                let x = (mine.lookup_transform("odom", "base", Time::ZERO))
                    .unwrap()
                    .transform
                    .translation
                    .x;
                (mine, x)
            })
        })
        .collect();
    for handle in threads {
        let (mine, x) = handle.join().unwrap();
        assert!(mine.same(&listener));
        assert_eq!(x, 1.0);
    }
    assert_eq!(listener.stats().messages, 1, "taken in once");

    let other = Listener::of(&Context::new()).unwrap();
    assert!(!other.same(&listener), "a listener per context");
}

#[test]
fn the_listener_s_thread_takes_in_what_arrived_without_a_lookup() {
    let ctx = Context::new();
    let options = ListenerOptions {
        drain_period: Duration::from_millis(10),
        ..ListenerOptions::default()
    };
    let listener = Listener::with_options(&ctx, options).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    tf.send(rotated(transform(
        "odom",
        "base",
        from_sec(1.0),
        1.0,
        0.0,
        0.0,
    )));

    let deadline = Instant::now() + Duration::from_secs(5);
    while !listener.buffer().frame_exists("base") {
        assert!(Instant::now() < deadline, "not taken in within 5 s");
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(listener.stats().transforms, 1);
}

#[test]
fn tf_s_history_is_the_rate_times_the_drain_period_times_the_headroom_and_overflow_is_counted() {
    assert_eq!(ListenerOptions::default().tf_history(), Ok(200));
    // 40 messages a second, drained each 100 ms, with a margin of 1.5: 6.
    let options = ListenerOptions {
        tf_rate: 40.0,
        drain_period: Duration::from_millis(100),
        headroom: 1.5,
        ..ListenerOptions::default()
    };
    assert_eq!(options.tf_history(), Ok(6));

    let ctx = Context::new();
    let listener = Listener::with_options(&ctx, lookups_only(1)).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    for i in 1..=5 {
        tf.send(rotated(transform(
            "odom",
            "base",
            from_sec(f64::from(i)),
            0.0,
            0.0,
            0.0,
        )));
    }
    listener.drain();
    let stats = listener.stats();
    assert_eq!((stats.messages, stats.dropped), (1, 4));
    assert_eq!(
        listener.buffer().latest_common_time("odom", "base"),
        Ok(from_sec(5.0)),
        "the newest was kept"
    );
}

#[test]
fn options_that_make_no_history_are_refused_with_what_was_wrong() {
    let ctx = Context::new();
    let refused = |options: ListenerOptions| {
        Listener::with_options(&ctx, options)
            .unwrap_err()
            .to_string()
    };
    let base = ListenerOptions::default();
    let text = refused(ListenerOptions {
        tf_rate: f64::NAN,
        ..base
    });
    assert!(text.contains("tf_rate must be a positive number"), "{text}");
    let text = refused(ListenerOptions {
        headroom: 0.5,
        ..base
    });
    assert!(
        text.contains("headroom must be a number of at least 1, not 0.5"),
        "{text}"
    );
    let text = refused(ListenerOptions {
        drain_period: Duration::ZERO,
        ..base
    });
    assert!(text.contains("drain_period"), "{text}");
    let text = refused(ListenerOptions {
        tf_rate: 1e9,
        ..base
    });
    assert!(text.contains("at most 100000 messages"), "{text}");
}

#[test]
fn a_nan_or_broken_transform_on_the_wire_is_refused_and_counted_and_the_tree_stays_whole() {
    let ctx = Context::new();
    let listener = Listener::with_options(&ctx, lookups_only(100)).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    let good = rotated(transform("odom", "base", from_sec(1.0), 1.0, 0.0, 0.0));
    let mut nan = rotated(transform("odom", "base", from_sec(2.0), f64::NAN, 0.0, 0.0));
    nan.transform.rotation.x = f64::NAN;
    let mut squashed = rotated(transform("odom", "base", from_sec(3.0), 0.0, 0.0, 0.0));
    squashed.transform.rotation.w = 0.5;
    let looped = rotated(transform("base", "base", from_sec(3.0), 0.0, 0.0, 0.0));
    tf.send_all(vec![good, nan, squashed, looped]);

    let out = listener
        .lookup_transform("odom", "base", Time::ZERO)
        .unwrap();
    assert_eq!(out.transform.translation.x, 1.0);
    assert_eq!(out.header.stamp, from_sec(1.0).into());
    let stats = listener.stats();
    assert_eq!((stats.transforms, stats.refused), (1, 3));
    assert_eq!(listener.refused(), 3);
    let last = listener.last_refusal().unwrap();
    assert_eq!(last.reason(), RejectReason::SelfTransform);
    assert!(
        last.message().contains(LISTENER_AUTHORITY),
        "{}",
        last.message()
    );
    let mut frames = listener.buffer().frame_names();
    frames.sort();
    assert_eq!(
        frames,
        ["base", "odom"],
        "{}",
        listener.buffer().all_frames_as_string()
    );
}

#[test]
fn a_lookup_through_the_listener_says_what_tf2_says() {
    let ctx = Context::new();
    let listener = Listener::with_options(&ctx, lookups_only(100)).unwrap();
    let err = listener
        .lookup_transform("map", "laser", Time::ZERO)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Lookup);
    assert_eq!(
        err.message(),
        "\"map\" passed to lookupTransform argument target_frame does not exist. "
    );
}

#[test]
fn a_lookup_does_not_wait_for_a_drain_running_on_another_thread() {
    let ctx = Context::new();
    let listener = Listener::with_options(&ctx, lookups_only(2000)).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let tf = TransformBroadcaster::new(&mut driver).unwrap();
    // Enough for a drain that takes a while: 2000 messages of 50 transforms.
    for i in 0..2000 {
        let stamp = from_sec(1.0 + f64::from(i) * 0.001);
        let links = (0..50)
            .map(|j| rotated(transform("odom", &format!("f{j}"), stamp, 0.0, 0.0, 0.0)))
            .collect();
        tf.send_all(links);
    }
    let (started, start) = mpsc::channel();
    let draining = {
        let listener = listener.clone();
        thread::spawn(move || {
            started.send(()).unwrap();
            listener.drain()
        })
    };
    start.recv().unwrap();
    // Once the other drain is under way, a drain called while it is still running (it had
    // taken some messages before the call and not all of them after) must not wait for it.
    let mut seen_during = false;
    loop {
        let before = listener.stats().messages;
        if before == 0 {
            thread::yield_now();
            continue;
        }
        let ours = listener.drain();
        let after = listener.stats().messages;
        if after < 2000 {
            assert!(!ours, "a drain ran beside another");
            seen_during = true;
        }
        if after == 2000 {
            break;
        }
    }
    assert!(draining.join().unwrap(), "the first drain ran");
    assert!(seen_during, "the other drain was never caught running");
    assert_eq!(
        listener.stats().messages,
        2000,
        "each message taken in once"
    );
}

#[test]
fn tf_at_a_high_rate_wakes_the_executor_of_a_node_holding_a_listener_zero_times() {
    let ctx = Context::new();
    let mut node = ctx.node("planner").unwrap();
    let listener = Listener::of(&ctx).unwrap();
    let goals = node.subscription::<Text>("goal").create().unwrap();
    let (looked_up, results) = mpsc::channel();
    node.execute(Trigger::on(&goals), move |_| {
        goals.take_all().for_each(drop);
        looked_up
            .send(
                listener
                    .lookup_transform("odom", "base", Time::ZERO)
                    .is_ok(),
            )
            .unwrap();
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    // What a spin of nothing counts (its end).
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
                tf.send(rotated(transform("odom", "base", stamp, 0.0, 0.0, 0.0)));
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
