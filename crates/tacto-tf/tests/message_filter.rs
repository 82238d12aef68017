//! tf2_ros's message filter tests, on `TransformQueue` over a `Buffer`.
//!
//! tf2_ros calls the filter's callback synchronously, from `add` or from the buffer's
//! `setTransform`; here the queue is polled after each such step, and the count of messages
//! handed over ready is the test's `n.count_`. Expectations are the peer's.

mod common;

use std::time::Duration;

use common::{from_sec, transform};
use tacto::Time;
use tacto_tf::{Buffer, DropReason, TransformQueue};

/// A `geometry_msgs/PointStamped` as the tests make it: only its header matters.
#[derive(Debug, Clone, PartialEq)]
struct Point {
    frame: String,
    stamp: Time,
}

fn point(frame: &str, stamp: Time) -> Point {
    Point {
        frame: frame.into(),
        stamp,
    }
}

/// `filter.add(msg)`.
fn add(queue: &mut TransformQueue<Point>, msg: &Point) {
    queue.add(msg.clone(), &msg.frame, msg.stamp, Time::ZERO);
}

/// The callbacks tf2_ros would have made by now: the messages that became ready.
fn notified(queue: &mut TransformQueue<Point>, buffer: &Buffer) -> usize {
    std::iter::from_fn(|| queue.poll(buffer, Time::ZERO)).count()
}

// From geometry2 (jazzy) test_tf2/test/test_message_filter.cpp.

#[test]
fn no_transforms_notifies_nothing() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1"], 10).unwrap();
    add(&mut filter, &point("frame2", from_sec(1.0)));
    assert_eq!(notified(&mut filter, &buffer), 0);
}

#[test]
fn no_transforms_in_the_same_frame_notifies_at_once() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1"], 10).unwrap();
    add(&mut filter, &point("frame1", from_sec(1.0)));
    assert_eq!(notified(&mut filter, &buffer), 1);
}

#[test]
fn preexisting_transforms_notify_at_once() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1"], 10).unwrap();
    let stamp = from_sec(1.0);
    (buffer.set_transform(
        &transform("frame1", "frame2", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    add(&mut filter, &point("frame2", stamp));
    assert_eq!(notified(&mut filter, &buffer), 1);
}

#[test]
fn post_transforms_notify_once_the_transform_is_set() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1"], 10).unwrap();
    let stamp = from_sec(1.0);
    add(&mut filter, &point("frame2", stamp));
    assert_eq!(notified(&mut filter, &buffer), 0);
    (buffer.set_transform(
        &transform("frame1", "frame2", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    assert_eq!(notified(&mut filter, &buffer), 1);
}

#[test]
fn concurrent_transforms_notify_every_message() {
    const MESSAGES: usize = 30;
    let buffer = Buffer::new();
    let stamp = from_sec(1.0);
    let msg = point("frame2", stamp);
    for _ in 0..50 {
        let mut filter = TransformQueue::new(&["frame1"], MESSAGES).unwrap();
        let mut count = 0;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(1));
                let t = transform("frame1", "frame2", stamp, 1.0, 2.0, 3.0);
                buffer.set_transform(&t, "me", false).unwrap();
            });
            for _ in 0..MESSAGES {
                add(&mut filter, &msg);
                count += notified(&mut filter, &buffer);
            }
        });
        count += notified(&mut filter, &buffer);
        assert_eq!(count, MESSAGES);
        buffer.clear();
    }
}

#[test]
fn a_changed_target_frame_is_the_one_looked_up() {
    // setTargetFrame("frame1000") on a filter made for "frame1": a queue for frame1000.
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1000"], 10).unwrap();
    let stamp = from_sec(1.0);
    (buffer.set_transform(
        &transform("frame1000", "frame2", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    add(&mut filter, &point("frame2", stamp));
    assert_eq!(notified(&mut filter, &buffer), 1);
}

#[test]
fn multiple_target_frames_wait_for_every_one() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1", "frame2"], 10).unwrap();
    let stamp = from_sec(1.0);
    (buffer.set_transform(
        &transform("frame1", "frame3", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    add(&mut filter, &point("frame3", stamp));
    // frame1->frame3 exists, frame2->frame3 does not (yet)
    assert_eq!(notified(&mut filter, &buffer), 0);
    (buffer.set_transform(
        &transform("frame1", "frame2", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    // frame2->frame3 now exists
    assert_eq!(notified(&mut filter, &buffer), 1);
}

#[test]
fn a_tolerance_waits_for_data_past_the_stamp_by_it() {
    let buffer = Buffer::new();
    let offset = Duration::from_millis(200);
    let mut filter = TransformQueue::new(&["frame1"], 10)
        .unwrap()
        .tolerance(offset);
    let stamp = Time::from_nanos(1_000_000_000); // rclcpp::Time(1, 0)
    (buffer.set_transform(
        &transform("frame1", "frame2", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    let mut msg = point("frame2", stamp);
    add(&mut filter, &msg);
    let mut count = notified(&mut filter, &buffer);
    assert_eq!(count, 0, "no return due to lack of space for offset");

    // The test's double arithmetic: 1 + 0.2 * 1.1 seconds, split as it splits it.
    let time_stamp = 1.0 + offset.as_secs_f64() * 1.1;
    let whole = time_stamp as i64;
    let stamp_transform =
        Time::from_nanos(whole * 1_000_000_000 + ((time_stamp - whole as f64) * 1e9) as i64);
    let later = transform("frame1", "frame2", stamp_transform, 1.0, 2.0, 3.0);
    buffer.set_transform(&later, "me", false).unwrap();
    count += notified(&mut filter, &buffer);
    assert_eq!(count, 1, "now have data for the message published earlier");

    // rclcpp::Time(static_cast<int64_t>(1.2)): one nanosecond.
    let time_stamp = 1.0 + offset.as_secs_f64();
    msg.stamp = Time::from_nanos(time_stamp as i64);
    add(&mut filter, &msg);
    count += notified(&mut filter, &buffer);
    assert_eq!(count, 1, "latest message is off the end of the offset");
}

#[test]
fn a_stamp_is_looked_up_without_loss_of_precision() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["frame1"], 10).unwrap();
    // rclcpp::Time(1000000000, 000000001)
    let stamp = Time::from_nanos(1_000_000_000 * 1_000_000_000 + 1);
    (buffer.set_transform(
        &transform("frame1", "frame2", stamp, 1.0, 2.0, 3.0),
        "me",
        false,
    ))
    .unwrap();
    add(&mut filter, &point("frame2", stamp));
    assert_eq!(notified(&mut filter, &buffer), 1);
}

// From geometry2 (jazzy) tf2_ros/test/message_filter_test.cpp.

#[test]
fn every_failure_reason_but_unknown_has_its_own_text() {
    assert_eq!(DropReason::Unknown.text(), "unknown");
    for reason in &DropReason::ALL[1..] {
        assert_ne!(reason.text(), "unknown", "{reason:?}");
    }
    // The texts of get_filter_failure_reason_string, word for word.
    assert_eq!(
        DropReason::OutTheBack.text(),
        "the timestamp on the message is earlier than all the data in the transform cache"
    );
    assert_eq!(
        DropReason::EmptyFrameId.text(),
        "the frame id of the message is empty"
    );
    assert_eq!(
        DropReason::NoTransformFound.text(),
        "did not find a valid transform, this usually happens at startup ..."
    );
    assert_eq!(
        DropReason::QueueFull.text(),
        "discarding message because the queue is full"
    );
}

// The drop rules of tf2_ros's message_filter.h (add, transformReadyCallback) and tf2's
// BufferCore::testTransformableRequests, which its tests do not exercise.

#[test]
fn a_message_with_an_empty_frame_is_dropped_as_empty_frame_id() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["map"], 10).unwrap();
    add(&mut filter, &point("", from_sec(1.0)));
    add(&mut filter, &point("/", from_sec(1.0)));
    assert_eq!(filter.len(), 0);
    assert_eq!(filter.stats().dropped_for(DropReason::EmptyFrameId), 2);
    assert_eq!(filter.stats().incoming, 0);
    assert_eq!(notified(&mut filter, &buffer), 0);
}

#[test]
fn a_full_queue_drops_its_oldest_message_as_queue_full() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["map"], 2).unwrap();
    for s in 1..=3 {
        add(&mut filter, &point("laser", from_sec(f64::from(s))));
    }
    assert_eq!(filter.len(), 2);
    assert_eq!(filter.stats().dropped_for(DropReason::QueueFull), 1);
    let t = |s| transform("map", "laser", from_sec(s), 0.0, 0.0, 0.0);
    buffer.set_transform(&t(1.0), "me", false).unwrap();
    buffer.set_transform(&t(3.0), "me", false).unwrap();
    let ready: Vec<Time> = std::iter::from_fn(|| filter.poll(&buffer, Time::ZERO))
        .map(|r| r.message.stamp)
        .collect();
    assert_eq!(
        ready,
        [from_sec(2.0), from_sec(3.0)],
        "the message at 1 s was pushed out"
    );
}

#[test]
fn a_message_more_than_the_cache_time_behind_the_data_is_dropped_as_out_the_back() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["map"], 10).unwrap();
    add(&mut filter, &point("laser", from_sec(1.0)));
    add(&mut filter, &point("laser", from_sec(11.5)));
    // Data from 11 s on: 1 s is never coming (11 + ... - 10 s cache), 11.5 s is.
    for s in [11.0, 12.0] {
        let t = transform("map", "laser", from_sec(s), 0.0, 0.0, 0.0);
        buffer.set_transform(&t, "me", false).unwrap();
    }
    let ready = filter.poll(&buffer, Time::ZERO).unwrap();
    assert_eq!(ready.message.stamp, from_sec(11.5));
    assert_eq!(filter.stats().dropped_for(DropReason::OutTheBack), 1);
    assert!(filter.is_empty());
}

#[test]
fn a_message_that_waited_past_the_timeout_is_dropped_as_timeout() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["map"], 10)
        .unwrap()
        .timeout(Duration::from_millis(100));
    filter.add(
        point("laser", from_sec(1.0)),
        "laser",
        from_sec(1.0),
        from_sec(50.0),
    );
    assert!(filter.poll(&buffer, from_sec(50.099)).is_none());
    assert_eq!(filter.len(), 1, "not yet timed out");
    assert!(filter.poll(&buffer, from_sec(50.1)).is_none());
    assert_eq!(filter.len(), 0);
    assert_eq!(filter.stats().dropped_for(DropReason::Timeout), 1);
}

#[test]
fn a_ready_message_carries_the_transform_into_each_target_at_its_stamp() {
    let buffer = Buffer::new();
    let mut filter = TransformQueue::new(&["/map", "odom"], 10).unwrap();
    assert_eq!(
        filter.targets(),
        ["map", "odom"],
        "a leading slash dropped, as tf2"
    );
    let t = |parent, child, s, x| transform(parent, child, from_sec(s), x, 0.0, 0.0);
    buffer
        .set_transform(&t("map", "odom", 0.0, 100.0), "me", true)
        .unwrap();
    buffer
        .set_transform(&t("odom", "base", 1.0, 1.0), "me", false)
        .unwrap();
    buffer
        .set_transform(&t("odom", "base", 2.0, 3.0), "me", false)
        .unwrap();
    add(&mut filter, &point("/base", from_sec(1.5)));
    let ready = filter.poll(&buffer, Time::ZERO).unwrap();
    let x: Vec<f64> = ready
        .transforms
        .iter()
        .map(|t| t.transform.translation.x)
        .collect();
    assert_eq!(x, [102.0, 2.0]);
    assert_eq!(ready.transforms[0].header.frame_id, "map");
    assert_eq!(ready.transforms[1].child_frame_id, "base");
    assert_eq!(Time::from(ready.transforms[1].header.stamp), from_sec(1.5));
}

#[test]
fn a_queue_without_targets_or_room_is_refused() {
    use tacto_tf::ReadyError;
    assert_eq!(
        TransformQueue::<Point>::new(&[], 10).unwrap_err(),
        ReadyError::NoTargetFrames
    );
    assert_eq!(
        TransformQueue::<Point>::new(&["map", "/"], 10).unwrap_err(),
        ReadyError::EmptyTargetFrame(1)
    );
    assert_eq!(
        TransformQueue::<Point>::new(&["map"], 0).unwrap_err(),
        ReadyError::ZeroQueueSize
    );
}
