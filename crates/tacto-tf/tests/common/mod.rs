//! What the ported tests build their transforms and times with.

// Each test file uses its own share of these.
#![allow(dead_code)]

use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;

/// tf2's `timeFromSec`: whole seconds, and the rest rounded to nanoseconds.
pub fn from_sec(t: f64) -> Time {
    let sec = t.floor();
    let nsec = ((t - sec) * 1e9).round() as i64;
    Time::from_nanos(sec as i64 * 1_000_000_000 + nsec)
}

/// A transform from `parent` to `child` at `stamp`, translated by `(x, y, z)`, not rotated.
pub fn transform(
    parent: &str,
    child: &str,
    stamp: Time,
    x: f64,
    y: f64,
    z: f64,
) -> TransformStamped {
    let mut t = TransformStamped::default();
    t.header.frame_id = parent.into();
    t.child_frame_id = child.into();
    t.header.stamp = stamp.into();
    t.transform.translation.x = x;
    t.transform.translation.y = y;
    t.transform.translation.z = z;
    t
}

/// `Quaternion::setEuler(yaw, pitch, roll)` of tf2's LinearMath, as `[x, y, z, w]`.
pub fn set_euler(yaw: f64, pitch: f64, roll: f64) -> [f64; 4] {
    let (sy, cy) = (yaw * 0.5).sin_cos();
    let (sp, cp) = (pitch * 0.5).sin_cos();
    let (sr, cr) = (roll * 0.5).sin_cos();
    [
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        sr * cp * cy - cr * sp * sy,
        cr * cp * cy + sr * sp * sy,
    ]
}

/// Sets the rotation of `t` from `[x, y, z, w]`.
pub fn rotate(mut t: TransformStamped, q: [f64; 4]) -> TransformStamped {
    let r = &mut t.transform.rotation;
    (r.x, r.y, r.z, r.w) = (q[0], q[1], q[2], q[3]);
    t
}

/// `EXPECT_NEAR`.
#[track_caller]
pub fn near(actual: f64, expected: f64, epsilon: f64) {
    assert!(
        (actual - expected).abs() <= epsilon,
        "{actual} is not within {epsilon} of {expected}"
    );
}
