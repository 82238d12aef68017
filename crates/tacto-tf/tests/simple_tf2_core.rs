//! Ported from tf2/test/simple_tf2_core.cpp (geometry2, jazzy): setting transforms and the
//! exceptions of simple lookups. Left out: `setTransformValidWithCallback` (transformable
//! requests are not built), the `tf2_time` tests (tf2's time conversions: tacto uses
//! `tacto::Time`) and `Covariance_RowMajor_To_Nested` (not the buffer's).

mod common;

use common::transform;
use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_tf::{Buffer, ErrorKind, RejectReason};

fn sec(s: i64) -> Time {
    Time::from_nanos(s * 1_000_000_000)
}

// TEST(tf2, setTransformFail)
#[test]
fn a_transform_without_frames_is_refused() {
    let buffer = Buffer::new();
    assert!(
        buffer
            .set_transform(&TransformStamped::default(), "authority1", false)
            .is_err()
    );
}

// TEST(tf2, setTransformValid)
#[test]
fn a_transform_with_frames_and_a_unit_rotation_is_taken() {
    let buffer = Buffer::new();
    let t = transform("foo", "child", sec(1), 0.0, 0.0, 0.0);
    assert_eq!(buffer.set_transform(&t, "authority1", false), Ok(()));
}

// TEST(tf2, setTransformInvalidQuaternion)
#[test]
fn a_zero_quaternion_is_refused() {
    let buffer = Buffer::new();
    let mut t = transform("foo", "child", sec(1), 0.0, 0.0, 0.0);
    t.transform.rotation.w = 0.0;
    let err = buffer.set_transform(&t, "authority1", false).unwrap_err();
    assert_eq!(err.reason(), RejectReason::DenormalizedQuaternion);
}

// TEST(tf2_lookupTransform, LookupException_Nothing_Exists)
#[test]
fn looking_up_in_an_empty_buffer_is_a_lookup_error() {
    let buffer = Buffer::new();
    let err = buffer.lookup_transform("a", "b", sec(1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Lookup);
}

// TEST(tf2_canTransform, Nothing_Exists)
#[test]
fn nothing_can_be_transformed_in_an_empty_buffer() {
    assert!(Buffer::new().can_transform("a", "b", sec(1)).is_err());
}

// TEST(tf2_lookupTransform, LookupException_One_Exists)
#[test]
fn looking_up_an_unknown_source_is_a_lookup_error() {
    let buffer = Buffer::new();
    let t = transform("foo", "child", sec(1), 0.0, 0.0, 0.0);
    buffer.set_transform(&t, "authority1", false).unwrap();
    let err = buffer.lookup_transform("foo", "bar", sec(1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Lookup);
}

// TEST(tf2_lookupTransform, TransformException_Backward_Forward)
#[test]
fn lookups_outside_the_data_are_backward_and_forward_extrapolations() {
    let buffer = Buffer::new();
    let mut t = transform("foo", "bar", sec(2), 0.0, 0.0, 0.0);
    buffer.set_transform(&t, "authority1", false).unwrap();
    assert!(buffer.lookup_transform("foo", "bar", sec(2)).is_ok());
    let err = buffer.lookup_transform("foo", "bar", sec(4)).unwrap_err();
    assert!(err.kind().is_extrapolation());
    assert_eq!(err.kind(), ErrorKind::NoDataForExtrapolation);

    t.header.stamp.sec = 3;
    buffer.set_transform(&t, "authority1", false).unwrap();
    let err = buffer.lookup_transform("foo", "bar", sec(1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackwardExtrapolation);
    let err = buffer.lookup_transform("foo", "bar", sec(4)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ForwardExtrapolation);
}

// TEST(tf2_canTransform, One_Exists)
#[test]
fn a_known_frame_cannot_be_transformed_to_an_unknown_one() {
    let buffer = Buffer::new();
    let t = transform("foo", "child", sec(1), 0.0, 0.0, 0.0);
    buffer.set_transform(&t, "authority1", false).unwrap();
    assert!(buffer.can_transform("foo", "bar", sec(1)).is_err());
}

// TEST(tf2_clear, LookUp_Static_Transfrom_Succeed)
#[test]
fn a_static_transform_set_after_clear_answers_at_any_time() {
    let buffer = Buffer::new();
    let t = transform("foo", "bar", sec(1), 0.0, 0.0, 0.0);
    buffer.clear();
    buffer.set_transform(&t, "authority1", true).unwrap();
    assert!(buffer.lookup_transform("foo", "bar", sec(2)).is_ok());
}

// TEST(tf2_clear, LookUp_Static_Transfrom_Fail)
#[test]
fn a_frame_turned_static_after_clear_answers_at_any_time() {
    let buffer = Buffer::new();
    let t = transform("foo", "bar", sec(1), 0.0, 0.0, 0.0);
    buffer.set_transform(&t, "authority1", false).unwrap();
    buffer.clear();
    buffer.set_transform(&t, "authority1", true).unwrap();
    assert!(buffer.lookup_transform("foo", "bar", sec(2)).is_ok());
}
