//! `Time` against message stamps (`builtin_interfaces/msg/Time`), and `Node::now`.

use tacto::msg::{builtin_interfaces, rosgraph_msgs};
use tacto::{ClockKind, Context, Time};

fn stamp(sec: i32, nanosec: u32) -> builtin_interfaces::Time {
    builtin_interfaces::Time { sec, nanosec }
}

#[test]
fn a_stamp_becomes_the_same_time_and_back() {
    for (sec, nanosec, nanos) in [
        (0, 0, 0),
        (1, 500_000_000, 1_500_000_000),
        (-1, 999_999_999, -1),
        (
            i32::MAX,
            999_999_999,
            i32::MAX as i64 * 1_000_000_000 + 999_999_999,
        ),
        (i32::MIN, 0, i32::MIN as i64 * 1_000_000_000),
    ] {
        let time = Time::from(stamp(sec, nanosec));
        assert_eq!(time, Time::from_nanos(nanos));
        assert_eq!(builtin_interfaces::Time::from(time), stamp(sec, nanosec));
    }
}

#[test]
fn nanoseconds_of_a_second_or_more_carry_into_the_seconds() {
    assert_eq!(
        Time::from(stamp(1, 2_500_000_000)),
        Time::from_nanos(3_500_000_000)
    );
    assert_eq!(
        Time::from(stamp(i32::MAX, u32::MAX)),
        Time::from_nanos(i32::MAX as i64 * 1_000_000_000 + u32::MAX as i64)
    );
}

#[test]
fn a_time_beyond_what_a_stamp_holds_saturates_at_its_ends() {
    let last = stamp(i32::MAX, 999_999_999);
    let first = stamp(i32::MIN, 0);
    let after = Time::from(last).as_nanos() + 1;
    let before = Time::from(first).as_nanos() - 1;
    assert_eq!(
        builtin_interfaces::Time::from(Time::from_nanos(after)),
        last
    );
    assert_eq!(
        builtin_interfaces::Time::from(Time::from_nanos(i64::MAX)),
        last
    );
    assert_eq!(
        builtin_interfaces::Time::from(Time::from_nanos(before)),
        first
    );
    assert_eq!(
        builtin_interfaces::Time::from(Time::from_nanos(i64::MIN)),
        first
    );
}

#[test]
fn node_now_is_the_ros_time_of_its_context() {
    let ctx = Context::new();
    ctx.use_sim_time().unwrap();
    let mut node = ctx.node("stamper").unwrap();
    assert_eq!(node.now(), Time::ZERO, "sim time before the first /clock");

    let clock = node
        .publisher::<rosgraph_msgs::Clock>("/clock")
        .create()
        .unwrap();
    clock.publish(rosgraph_msgs::Clock {
        clock: stamp(42, 7),
    });
    assert_eq!(node.now(), Time::from_nanos(42_000_000_007));
    assert_eq!(node.now(), ctx.clock().now(ClockKind::Ros));
}
