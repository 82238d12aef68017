//! `geometry_msgs/msg/Transform` to and from nalgebra's `Isometry3<f64>`, the type Rust
//! robotics code computes with, and a `TransformStamped` made from one.

use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion};
use tacto::Time;
use tacto_msgs::geometry_msgs::msg::{
    Quaternion as QuaternionMsg, Transform, TransformStamped, Vector3,
};
use tacto_msgs::std_msgs::msg::Header;

/// The transform as an isometry, its rotation normalised; `None` when the rotation has no
/// direction to normalise (zero length, or not finite).
///
/// # Examples
/// ```
/// use tacto_msgs::geometry_msgs::msg::Transform;
/// use tacto_tf::convert::to_isometry;
///
/// let mut t = Transform::default();
/// t.translation.x = 1.0;
/// let iso = to_isometry(&t).unwrap();
/// assert_eq!(iso.translation.vector.x, 1.0);
///
/// t.rotation.w = 0.0;
/// assert!(to_isometry(&t).is_none());
/// ```
pub fn to_isometry(transform: &Transform) -> Option<Isometry3<f64>> {
    let q = &transform.rotation;
    let v = &transform.translation;
    let q = Quaternion::new(q.w, q.x, q.y, q.z);
    let norm = q.norm();
    if !(norm.is_finite() && norm > 0.0 && [v.x, v.y, v.z].iter().all(|x| x.is_finite())) {
        return None;
    }
    Some(Isometry3::from_parts(
        Translation3::new(v.x, v.y, v.z),
        UnitQuaternion::new_unchecked(q / norm),
    ))
}

/// The isometry as a `Transform` message.
///
/// # Examples
/// ```
/// use nalgebra::{Isometry3, Vector3};
/// use tacto_tf::convert::{from_isometry, to_isometry};
///
/// let iso = Isometry3::new(Vector3::new(1.0, 2.0, 3.0), Vector3::new(0.0, 0.0, 0.5));
/// let msg = from_isometry(&iso);
/// assert_eq!(msg.translation.z, 3.0);
/// assert!((to_isometry(&msg).unwrap().rotation.angle() - 0.5).abs() < 1e-12);
/// ```
pub fn from_isometry(isometry: &Isometry3<f64>) -> Transform {
    let v = &isometry.translation.vector;
    let q = isometry.rotation.quaternion();
    Transform {
        translation: Vector3 {
            x: v.x,
            y: v.y,
            z: v.z,
        },
        rotation: QuaternionMsg {
            x: q.i,
            y: q.j,
            z: q.k,
            w: q.w,
        },
    }
}

/// The `TransformStamped` that places `child` in `parent` at `stamp` by `isometry` (it takes
/// data in `child` to `parent`), as a broadcaster sends it.
///
/// # Examples
/// ```
/// use nalgebra::{Isometry3, Vector3};
/// use tacto::Time;
/// use tacto_tf::convert::stamped;
///
/// let laser = Isometry3::translation(0.2, 0.0, 0.1);
/// let t = stamped("base_link", "laser", Time::from_nanos(1_500_000_000), &laser);
/// assert_eq!((t.header.frame_id.as_str(), t.child_frame_id.as_str()), ("base_link", "laser"));
/// assert_eq!((t.header.stamp.sec, t.header.stamp.nanosec), (1, 500_000_000));
/// assert_eq!(t.transform.translation.x, 0.2);
/// ```
pub fn stamped(
    parent: &str,
    child: &str,
    stamp: Time,
    isometry: &Isometry3<f64>,
) -> TransformStamped {
    TransformStamped {
        header: Header {
            stamp: stamp.into(),
            frame_id: parent.to_owned(),
        },
        child_frame_id: child.to_owned(),
        transform: from_isometry(isometry),
    }
}
