//! The rigid-transform arithmetic of tf2's `LinearMath`, on nalgebra's types.
//!
//! nalgebra gives the types and the matrix products; the formulas that decide what a lookup
//! returns are tf2's own, because users compare numbers with rclcpp's: tf2 keeps a stored quaternion
//! as it came (it only rejects those far from unit length, it never normalises them), rotates
//! with `q v q*` (so a quaternion of length `n` scales by `n²`, as in tf2), interpolates with
//! its slerp, and returns every looked-up rotation through a rotation matrix
//! (`Matrix3x3::setRotation`, then `getRotation`), which normalises it and fixes its sign.

use nalgebra::{Matrix3, Quaternion, Vector3};

/// The identity rotation.
pub(crate) fn identity() -> Quaternion<f64> {
    Quaternion::new(1.0, 0.0, 0.0, 0.0)
}

/// tf2's `operator*(Quaternion, Quaternion)`, the Hamilton product, written out: on the
/// lookup's path, where nalgebra's generic product is not inlined.
#[inline]
pub(crate) fn mul(a: &Quaternion<f64>, b: &Quaternion<f64>) -> Quaternion<f64> {
    Quaternion::new(
        a.w * b.w - a.i * b.i - a.j * b.j - a.k * b.k,
        a.w * b.i + a.i * b.w + a.j * b.k - a.k * b.j,
        a.w * b.j + a.j * b.w + a.k * b.i - a.i * b.k,
        a.w * b.k + a.k * b.w + a.i * b.j - a.j * b.i,
    )
}

/// `quatRotate`: `q * v * q.inverse()`, where tf2's `inverse` is the conjugate.
#[inline]
pub(crate) fn quat_rotate(q: &Quaternion<f64>, v: &Vector3<f64>) -> Vector3<f64> {
    // tf2's `operator*(Quaternion, Vector3)`: `q` times the pure quaternion `v`.
    let p = Quaternion::new(
        -q.i * v.x - q.j * v.y - q.k * v.z,
        q.w * v.x + q.j * v.z - q.k * v.y,
        q.w * v.y + q.k * v.x - q.i * v.z,
        q.w * v.z + q.i * v.y - q.j * v.x,
    );
    mul(&p, &q.conjugate()).imag()
}

/// `Quaternion::slerp`: from `a` (at 0) to `b` (at 1) along the shorter arc.
///
/// tf2's formula, with one change that saves a third of its time: `sin(theta)`, for `theta`
/// the `acos` of a cosine `c`, is taken as `sqrt((1 - c)(1 + c))` instead of through `sin`.
/// `1 - c` is exact for `c` in [0.5, 1] and accurate below, so the two agree to an ulp or two
/// (the test below holds them to 1e-15) and this is as accurate for the small angles between
/// two samples.
#[inline]
pub(crate) fn slerp(a: &Quaternion<f64>, b: &Quaternion<f64>, t: f64) -> Quaternion<f64> {
    let (cos, theta) = half_angle_shortest_path(a, b);
    if theta == 0.0 {
        return *a;
    }
    let d = 1.0 / ((1.0 - cos) * (1.0 + cos)).sqrt();
    let s0 = ((1.0 - t) * theta).sin();
    let s1 = (t * theta).sin();
    // The long-angle case: -b is the same rotation, and nearer.
    let b = if a.dot(b) < 0.0 { -b } else { *b };
    (a * s0 + b * s1) * d
}

/// Half of `Quaternion::angleShortestPath` (the angle between `a` and `b` the short way), with
/// its cosine: `acos(|a.b| / (|a| |b|))`, clamped as tf2's `tf2Acos` clamps.
#[inline]
fn half_angle_shortest_path(a: &Quaternion<f64>, b: &Quaternion<f64>) -> (f64, f64) {
    let s = (a.norm_squared() * b.norm_squared()).sqrt();
    let cos = (a.dot(b).abs() / s).clamp(-1.0, 1.0);
    (cos, cos.acos())
}

/// `Matrix3x3::setRotation`: the rotation matrix of `q`, normalised by its squared length.
fn basis(q: &Quaternion<f64>) -> Matrix3<f64> {
    let (x, y, z, w) = (q.i, q.j, q.k, q.w);
    let s = 2.0 / q.norm_squared();
    let (xs, ys, zs) = (x * s, y * s, z * s);
    let (wx, wy, wz) = (w * xs, w * ys, w * zs);
    let (xx, xy, xz) = (x * xs, x * ys, x * zs);
    let (yy, yz, zz) = (y * ys, y * zs, z * zs);
    Matrix3::new(
        1.0 - (yy + zz),
        xy - wz,
        xz + wy,
        xy + wz,
        1.0 - (xx + zz),
        yz - wx,
        xz - wy,
        yz + wx,
        1.0 - (xx + yy),
    )
}

/// `Matrix3x3::getRotation`: the quaternion of a rotation matrix, `w > 0` when the trace is.
fn rotation(m: &Matrix3<f64>) -> Quaternion<f64> {
    let trace = m[(0, 0)] + m[(1, 1)] + m[(2, 2)];
    // [x, y, z, w], indexed as tf2 does.
    let mut q = [0.0; 4];
    if trace > 0.0 {
        let s = (trace + 1.0).sqrt();
        q[3] = s * 0.5;
        let s = 0.5 / s;
        q[0] = (m[(2, 1)] - m[(1, 2)]) * s;
        q[1] = (m[(0, 2)] - m[(2, 0)]) * s;
        q[2] = (m[(1, 0)] - m[(0, 1)]) * s;
    } else {
        let i = if m[(0, 0)] < m[(1, 1)] {
            if m[(1, 1)] < m[(2, 2)] { 2 } else { 1 }
        } else if m[(0, 0)] < m[(2, 2)] {
            2
        } else {
            0
        };
        let j = (i + 1) % 3;
        let k = (i + 2) % 3;
        let s = (m[(i, i)] - m[(j, j)] - m[(k, k)] + 1.0).sqrt();
        q[i] = s * 0.5;
        let s = 0.5 / s;
        q[3] = (m[(k, j)] - m[(j, k)]) * s;
        q[j] = (m[(j, i)] + m[(i, j)]) * s;
        q[k] = (m[(k, i)] + m[(i, k)]) * s;
    }
    Quaternion::new(q[3], q[0], q[1], q[2])
}

/// A rigid transform as `tf2::Transform` holds it: a rotation matrix and an origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rigid {
    basis: Matrix3<f64>,
    origin: Vector3<f64>,
}

impl Rigid {
    /// `Transform(q, v)`: the rotation goes through `setRotation`.
    pub(crate) fn new(rotation: &Quaternion<f64>, origin: Vector3<f64>) -> Rigid {
        Rigid {
            basis: basis(rotation),
            origin,
        }
    }

    /// The rotation as `Transform::getRotation` gives it.
    pub(crate) fn rotation(&self) -> Quaternion<f64> {
        rotation(&self.basis)
    }

    /// The translation.
    pub(crate) fn origin(&self) -> Vector3<f64> {
        self.origin
    }

    /// `Transform::operator*`: `self` applied after `other`.
    pub(crate) fn then_after(&self, other: &Rigid) -> Rigid {
        Rigid {
            basis: self.basis * other.basis,
            origin: self.basis * other.origin + self.origin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Quaternion::setEuler(yaw, pitch, roll)` of tf2's LinearMath, for the ported test.
    fn set_euler(yaw: f64, pitch: f64, roll: f64) -> Quaternion<f64> {
        let (sy, cy) = (yaw * 0.5).sin_cos();
        let (sp, cp) = (pitch * 0.5).sin_cos();
        let (sr, cr) = (roll * 0.5).sin_cos();
        Quaternion::new(
            cr * cp * cy + sr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            sr * cp * cy - cr * sp * sy,
        )
    }

    /// `Quaternion::angle`: half the angle between two rotations.
    fn half_angle(a: &Quaternion<f64>, b: &Quaternion<f64>) -> f64 {
        (a.dot(b) / (a.norm_squared() * b.norm_squared()).sqrt())
            .clamp(-1.0, 1.0)
            .acos()
    }

    /// tf2's `slerp` as written: `sin(theta)` through `sin`.
    fn tf2_slerp(a: &Quaternion<f64>, b: &Quaternion<f64>, t: f64) -> Quaternion<f64> {
        let (_, theta) = half_angle_shortest_path(a, b);
        if theta == 0.0 {
            return *a;
        }
        let d = 1.0 / theta.sin();
        let (s0, s1) = (((1.0 - t) * theta).sin(), (t * theta).sin());
        let b = if a.dot(b) < 0.0 { -b } else { *b };
        (a * s0 + b * s1) * d
    }

    #[test]
    fn slerp_agrees_with_tf2s_sine_to_the_last_digits() {
        let a = set_euler(0.3, -0.2, 0.1);
        // From a billionth of a radian to nearly a half turn, both ways round.
        for exponent in -9..=0 {
            for sign in [1.0, -1.0] {
                let angle = 3.1 * 10f64.powi(exponent);
                let b = sign * mul(&a, &set_euler(angle, 0.0, 0.0));
                for t in [0.0, 0.25, 0.5, 0.9, 1.0] {
                    let (ours, theirs) = (slerp(&a, &b, t), tf2_slerp(&a, &b, t));
                    assert!((ours - theirs).norm() < 1e-15, "{angle} at {t}");
                }
            }
        }
    }

    // From tf2/test/cache_unittest.cpp, TEST(Bullet, Slerp): the same pseudo-random values.
    #[test]
    fn slerp_halfway_is_as_far_from_either_end() {
        let mut rand = crate::cache::tests::PseudoRand::new();
        let q1 = set_euler(0.0, 0.0, 0.0);
        for _ in 0..100 {
            let q2 = set_euler(rand.next(), rand.next(), rand.next());
            let q3 = slerp(&q1, &q2, 0.5);
            assert!((half_angle(&q3, &q1) - half_angle(&q2, &q3)).abs() < 1e-5);
        }
    }

    #[test]
    fn a_rotation_comes_back_normalised_through_the_matrix() {
        let q = Quaternion::new(2.0, 0.0, 0.0, 2.0);
        let r = Rigid::new(&q, Vector3::zeros()).rotation();
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((r - Quaternion::new(h, 0.0, 0.0, h)).norm() < 1e-12);
    }

    #[test]
    fn a_half_turn_the_other_way_keeps_tf2s_sign() {
        // -135° about z: the trace is negative, tf2 takes z from the diagonal (positive) and w
        // from the off-diagonal (negative), as the ring_45 expectations of buffer_core_test.cpp.
        let a = -3.0 * std::f64::consts::PI / 8.0;
        let q = Quaternion::new(a.cos(), 0.0, 0.0, a.sin());
        let r = Rigid::new(&q, Vector3::zeros()).rotation();
        assert!(r.k > 0.0 && r.w < 0.0);
        assert!((r + q).norm() < 1e-12);
    }

    #[test]
    fn rotating_by_a_quarter_turn_about_z_takes_x_to_y() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let v = quat_rotate(&Quaternion::new(h, 0.0, 0.0, h), &Vector3::x());
        assert!((v - Vector3::y()).norm() < 1e-12);
    }
}
