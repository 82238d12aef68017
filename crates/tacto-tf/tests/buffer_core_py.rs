//! Ported from tf2_py/test/test_buffer_core.py (geometry2, jazzy): tf2's `BufferCore` as
//! rclpy sees it. Left out: `test_velocity` (`lookupVelocity` is not built).

mod common;

use common::{from_sec, transform};
use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_tf::{Buffer, ErrorKind};

/// `build_transform`: two metres along x, no rotation.
fn build_transform(target: &str, source: &str, stamp: Time) -> TransformStamped {
    transform(target, source, stamp, 2.0, 0.0, 0.0)
}

// test_all_frames_as_yaml
#[test]
fn the_yaml_names_both_frames() {
    let buffer = Buffer::new();
    buffer
        .set_transform(
            &build_transform("bar", "foo", Time::ZERO),
            "unittest",
            false,
        )
        .unwrap();
    let yaml = buffer.all_frames_as_yaml(Time::ZERO);
    assert!(yaml.contains("foo"));
    assert!(yaml.contains("bar"));
}

// test_all_frames_as_string
#[test]
fn the_frame_list_names_both_frames() {
    let buffer = Buffer::new();
    buffer
        .set_transform(
            &build_transform("bar", "foo", Time::ZERO),
            "unittest",
            false,
        )
        .unwrap();
    let text = buffer.all_frames_as_string();
    assert!(text.contains("foo"));
    assert!(text.contains("bar"));
}

// test_set_transform
#[test]
fn one_timed_sample_does_not_answer_at_another_time() {
    let buffer = Buffer::new();
    let result = buffer.set_transform(
        &build_transform("bar", "foo", Time::ZERO),
        "unittest",
        false,
    );
    assert_eq!(result, Ok(()));
    assert!(buffer.can_transform("bar", "foo", from_sec(0.5)).is_err());
}

// test_set_transform_static
#[test]
fn one_static_sample_answers_at_any_time() {
    let buffer = Buffer::new();
    let result = buffer.set_transform(&build_transform("bar", "foo", Time::ZERO), "unittest", true);
    assert_eq!(result, Ok(()));
    assert_eq!(buffer.can_transform("bar", "foo", from_sec(0.5)), Ok(()));
}

// test_can_transform_core_pass
#[test]
fn a_time_between_two_samples_can_be_transformed() {
    let buffer = Buffer::new();
    for stamp in [Time::ZERO, from_sec(1.0)] {
        buffer
            .set_transform(&build_transform("bar", "foo", stamp), "unittest", false)
            .unwrap();
    }
    assert_eq!(buffer.can_transform("foo", "bar", from_sec(0.5)), Ok(()));
}

// test_can_transform_core_fail
#[test]
fn times_outside_the_samples_say_which_way_they_extrapolate() {
    let buffer = Buffer::new();
    for stamp in [from_sec(1.0), from_sec(2.0)] {
        buffer
            .set_transform(&build_transform("bar", "foo", stamp), "unittest", false)
            .unwrap();
    }
    let err = buffer
        .can_transform("foo", "bar", from_sec(2.5))
        .unwrap_err();
    assert!(
        err.message().contains("extrapolation into the future"),
        "{err}"
    );
    let err = buffer
        .can_transform("foo", "bar", from_sec(0.5))
        .unwrap_err();
    assert!(
        err.message().contains("extrapolation into the past"),
        "{err}"
    );
}

// test_can_transform_full_core
#[test]
fn two_links_through_their_common_parent_can_be_transformed() {
    let buffer = Buffer::new();
    buffer
        .set_transform(
            &build_transform("bar", "foo", Time::ZERO),
            "unittest",
            false,
        )
        .unwrap();
    buffer
        .set_transform(
            &build_transform("foo", "baz", Time::ZERO),
            "unittest",
            false,
        )
        .unwrap();
    let result = buffer.can_transform_full("foo", Time::ZERO, "baz", Time::ZERO, "bar");
    assert_eq!(result, Ok(()));
}

// test_get_latest_common_time
#[test]
fn the_latest_common_time_of_one_link_is_its_latest_stamp() {
    let buffer = Buffer::new();
    for stamp in [Time::ZERO, from_sec(1.0), from_sec(0.5)] {
        buffer
            .set_transform(&build_transform("bar", "foo", stamp), "unittest", false)
            .unwrap();
    }
    assert_eq!(buffer.latest_common_time("bar", "foo"), Ok(from_sec(1.0)));
}

// test_clear
#[test]
fn clear_forgets_timed_transforms() {
    let buffer = Buffer::new();
    buffer
        .set_transform(
            &build_transform("bar", "foo", Time::ZERO),
            "unittest",
            false,
        )
        .unwrap();
    assert!(buffer.can_transform("foo", "bar", Time::ZERO).is_ok());
    buffer.clear();
    assert!(buffer.can_transform("foo", "bar", Time::ZERO).is_err());
}

// test_lookup_transform_core_pass
#[test]
fn a_lookup_gives_back_the_transform_that_was_set() {
    let buffer = Buffer::new();
    let t = build_transform("bar", "foo", Time::ZERO);
    buffer.set_transform(&t, "unittest", false).unwrap();
    assert_eq!(buffer.lookup_transform("bar", "foo", Time::ZERO), Ok(t));
}

// test_lookup_transform_core_fail
#[test]
fn a_lookup_of_an_unknown_frame_is_a_lookup_error() {
    let buffer = Buffer::new();
    buffer
        .set_transform(
            &build_transform("bar", "foo", Time::ZERO),
            "unittest",
            false,
        )
        .unwrap();
    let err = buffer
        .lookup_transform("bar", "baz", Time::ZERO)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Lookup);
}
