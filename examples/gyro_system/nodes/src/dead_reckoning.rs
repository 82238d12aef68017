//! Dead reckoning: the vehicle's pose in the plane, integrated from the gyro odometer's fused
//! twist. Registered as `gyro_system::DeadReckoning`.
//!
//! - Subscribes to `twist_with_covariance` (`geometry_msgs/TwistWithCovarianceStamped`, the
//!   gyro odometer's output with the angular velocity cleared at a standstill) and publishes
//!   `pose` (`geometry_msgs/PoseStamped`, in `frame_id`, default `odom`) for each twist, with
//!   the twist's stamp. Reliable; the subscription keeps the last 100 twists (2 s at 50 Hz),
//!   the publisher the last 10.
//! - Starts at the origin, heading along x. Each twist moves the pose over the time since the
//!   previous twist's stamp (the first one only sets the start time), by explicit Euler with
//!   the heading at the start of the interval: `x += vx · cos(yaw) · dt`, `y += vx · sin(yaw) ·
//!   dt`, then `yaw += wz · dt`, with `dt` the stamps' difference in nanoseconds times 1e-9.
//!   The orientation is the quaternion of `yaw` about z.
//! - A twist stamped no later than the previous one (repeated, or reordered by a transport that
//!   does not keep order) moves nothing and is logged as a warning; its pose is published
//!   unchanged.
//! - **Logs**, at INFO, each pose a moving twist (a speed or a yaw rate not zero) gives:
//!   `pose at T x X y Y yaw A` (`T` as `sec.nanosec`, the numbers to the last bit).

use tacto::{History, Node, Time, Trigger};
use tacto_component::{BuildError, Placement};
use tacto_msgs::geometry_msgs::msg::{PoseStamped, TwistWithCovarianceStamped};

tacto_component::component!("gyro_system::DeadReckoning", build);

/// Twists the subscription holds between two runs. A twist overwritten before it is read
/// would merge two intervals into one (integrated with the later twist alone), so this covers
/// a stall of 2 s at 50 Hz; past it, the oldest is dropped (KeepLast).
const TWIST_DEPTH: usize = 100;

/// Builds the integrator on `node` (see the module's documentation).
fn build(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let frame_id = node.parameters().declare("frame_id", "odom".to_string())?;
    let twist = node
        .subscription::<TwistWithCovarianceStamped>("twist_with_covariance")
        .history(History::KeepLast(TWIST_DEPTH))
        .create()?;
    let pose = node.publisher::<PoseStamped>("pose").create()?;
    let logger = node.logger().clone();
    let mut reckoning = DeadReckoning::default();
    node.execute(Trigger::on(&twist), move |_| {
        for sample in twist.take_all() {
            let stamp = Time::from(sample.header.stamp);
            let moved = reckoning.advance(stamp, &sample.twist.twist);
            let (sec, nanosec) = stamp.to_sec_nanosec();
            match moved {
                Advance::Moved => tacto::info!(
                    logger,
                    "pose at {sec}.{nanosec:09} x {:?} y {:?} yaw {:?}",
                    reckoning.x,
                    reckoning.y,
                    reckoning.yaw
                ),
                Advance::OutOfOrder => tacto::warn!(
                    logger,
                    "twist at {sec}.{nanosec:09} is not later than the previous one: ignored"
                ),
                Advance::Still => {}
            }
            let mut out = PoseStamped::default();
            out.header.stamp = sample.header.stamp;
            out.header.frame_id.clone_from(&frame_id);
            out.pose.position.x = reckoning.x;
            out.pose.position.y = reckoning.y;
            out.pose.orientation.z = (reckoning.yaw / 2.0).sin();
            out.pose.orientation.w = (reckoning.yaw / 2.0).cos();
            pose.publish(out);
        }
    })?;
    Ok(())
}

/// What one twist did to the pose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Advance {
    /// The twist had a speed or a yaw rate.
    Moved,
    /// The twist stood still, or was the first.
    Still,
    /// The twist's stamp was not later than the previous one's.
    OutOfOrder,
}

/// The pose and the stamp it is at.
#[derive(Debug, Default)]
struct DeadReckoning {
    last: Option<Time>,
    x: f64,
    y: f64,
    yaw: f64,
}

impl DeadReckoning {
    /// Moves the pose by `twist` over the time since the previous stamp.
    fn advance(&mut self, stamp: Time, twist: &tacto_msgs::geometry_msgs::msg::Twist) -> Advance {
        let Some(last) = self.last else {
            self.last = Some(stamp);
            return Advance::Still;
        };
        if stamp <= last {
            return Advance::OutOfOrder;
        }
        self.last = Some(stamp);
        let (vx, wz) = (twist.linear.x, twist.angular.z);
        if vx == 0.0 && wz == 0.0 {
            return Advance::Still;
        }
        let dt = (stamp.as_nanos() - last.as_nanos()) as f64 * 1e-9;
        self.x += vx * self.yaw.cos() * dt;
        self.y += vx * self.yaw.sin() * dt;
        self.yaw += wz * dt;
        Advance::Moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto_msgs::geometry_msgs::msg::Twist;

    fn twist(vx: f64, wz: f64) -> Twist {
        let mut twist = Twist::default();
        twist.linear.x = vx;
        twist.angular.z = wz;
        twist
    }

    const SECOND: i64 = 1_000_000_000;

    #[test]
    fn the_first_twist_only_sets_the_start_time() {
        let mut reckoning = DeadReckoning::default();
        let advance = reckoning.advance(Time::from_nanos(SECOND), &twist(1.0, 0.5));
        assert_eq!(advance, Advance::Still);
        assert_eq!((reckoning.x, reckoning.y, reckoning.yaw), (0.0, 0.0, 0.0));
    }

    #[test]
    fn a_straight_drive_moves_along_x_by_speed_times_time() {
        let mut reckoning = DeadReckoning::default();
        reckoning.advance(Time::from_nanos(SECOND), &twist(0.0, 0.0));
        let advance = reckoning.advance(Time::from_nanos(3 * SECOND), &twist(2.0, 0.0));
        assert_eq!(advance, Advance::Moved);
        assert_eq!((reckoning.x, reckoning.y, reckoning.yaw), (4.0, 0.0, 0.0));
    }

    #[test]
    fn the_heading_turns_after_the_interval_is_driven() {
        let mut reckoning = DeadReckoning::default();
        reckoning.advance(Time::from_nanos(0), &twist(0.0, 0.0));
        reckoning.advance(
            Time::from_nanos(SECOND),
            &twist(1.0, std::f64::consts::FRAC_PI_2),
        );
        assert_eq!((reckoning.x, reckoning.y), (1.0, 0.0));
        reckoning.advance(Time::from_nanos(2 * SECOND), &twist(1.0, 0.0));
        assert!((reckoning.x - 1.0).abs() < 1e-15, "{}", reckoning.x);
        assert_eq!(reckoning.y, 1.0);
    }

    #[test]
    fn a_twist_not_later_than_the_previous_moves_nothing() {
        let mut reckoning = DeadReckoning::default();
        reckoning.advance(Time::from_nanos(2 * SECOND), &twist(0.0, 0.0));
        let advance = reckoning.advance(Time::from_nanos(SECOND), &twist(5.0, 1.0));
        assert_eq!(advance, Advance::OutOfOrder);
        assert_eq!((reckoning.x, reckoning.y, reckoning.yaw), (0.0, 0.0, 0.0));
    }
}
