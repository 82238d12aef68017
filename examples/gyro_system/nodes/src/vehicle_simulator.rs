//! A vehicle's sensor drivers, simulated: an IMU and the vehicle's velocity converter, as
//! Autoware's sensing stack publishes them to the gyro odometer. Registered as
//! `gyro_system::VehicleSimulator`.
//!
//! - Publishes `imu` (`sensor_msgs/Imu`) at `imu_rate_hz` (default 100) and, after every
//!   `imu_per_twist`-th IMU sample (default 2, so 50 Hz), `vehicle/twist_with_covariance`
//!   (`geometry_msgs/TwistWithCovarianceStamped`): both in `frame_id` (default `base_link`),
//!   reliable, keep last 10.
//! - Stands still until a `drive_command` (`geometry_msgs/Twist`: `linear.x` the speed in m/s,
//!   `angular.z` the yaw rate in rad/s) arrives, then drives for `drive_cycles` vehicle twists
//!   (default 100, 2 s at 50 Hz) and stands still again. A command that arrives while it
//!   drives is refused with a warning; one sent after is driven again.
//! - While driving, twist cycle `c` (from 0) reports the speed ramping up over 20 cycles
//!   (`speed · min(1, (c + 1) / 20)`), and IMU sample `g` (from 0) the yaw rate with a ripple
//!   of ±25 % (`yaw_rate · (1 + 0.125 · (g mod 5 − 2))`), so that a fusion's mean of several
//!   IMU samples differs from any one of them.
//! - **Stamps** advance by exactly one IMU period per sample while driving, so the intervals a
//!   consumer integrates over are the same on every run and in every placement; standing
//!   still, they catch up with the clock (ROS time) when the timer missed periods, so that a
//!   receiver's timeout (the gyro odometer's `message_timeout_sec`) never sees them lag.
//! - **Logs**, at INFO: the command driven (`drive command: speed S yaw rate W after stamp T`),
//!   each twist cycle driven (`drive cycle C stamp T vx V wz [W, ...]`: the twist's stamp and
//!   speed and the yaw rates of the IMU samples before it, as sent, to the last bit), and the
//!   end (`drive done: N cycles`). Stamps are `sec.nanosec`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tacto::logging::Logger;
use tacto::{ClockKind, Node, Publisher, Subscription, Time, Trigger};
use tacto_component::{BuildError, Placement};
use tacto_msgs::geometry_msgs::msg::{Twist, TwistWithCovarianceStamped};
use tacto_msgs::sensor_msgs::msg::Imu;

tacto_component::component!("gyro_system::VehicleSimulator", build);

/// The variance of the simulated IMU's angular velocity on each axis, (rad/s)².
const IMU_VARIANCE: f64 = 1e-4;

/// The variance of the simulated vehicle speed, (m/s)².
const SPEED_VARIANCE: f64 = 0.04;

/// Twist cycles over which the speed ramps up to the commanded one.
const RAMP_CYCLES: u64 = 20;

/// Builds the simulator on `node` (see the module's documentation for its topics and
/// parameters).
fn build(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let imu_rate_hz = ranged(node, "imu_rate_hz", 100, 1..=1000)?;
    let imu_per_twist = ranged(node, "imu_per_twist", 2, 1..=32)?;
    let drive_cycles = ranged(node, "drive_cycles", 100, 1..=1_000_000)?;
    let frame_id = node
        .parameters()
        .declare("frame_id", "base_link".to_string())?;

    let command = node.subscription::<Twist>("drive_command").create()?;
    let imu = node.publisher::<Imu>("imu").create()?;
    let twist = node
        .publisher::<TwistWithCovarianceStamped>("vehicle/twist_with_covariance")
        .create()?;
    let period = Duration::from_nanos(1_000_000_000 / imu_rate_hz);
    let clock = node.context().clock().clone();
    let simulator = Arc::new(Mutex::new(Simulator {
        period,
        imu_per_twist,
        drive_cycles,
        frame_id,
        stamp: None,
        in_cycle: 0,
        yaw_rates: Vec::new(),
        drive: None,
        pending: None,
        logger: node.logger().clone(),
    }));
    node.execute(Trigger::every(period), move |_| {
        let now = clock.now(ClockKind::Ros);
        let mut simulator = simulator.lock().unwrap_or_else(PoisonError::into_inner);
        simulator.tick(now, &command, &imu, &twist);
    })?;
    Ok(())
}

/// An integer parameter declared with `default`, refused outside `range`, naming it.
fn ranged(
    node: &Node,
    name: &str,
    default: i64,
    range: std::ops::RangeInclusive<i64>,
) -> Result<u64, BuildError> {
    let value: i64 = node.parameters().declare(name, default)?;
    match range.contains(&value) {
        true => Ok(value.unsigned_abs()),
        false => Err(format!(
            "parameter {name}: {value} is out of range: give {} to {}",
            range.start(),
            range.end()
        )
        .into()),
    }
}

/// A drive under way.
#[derive(Debug)]
struct Drive {
    speed: f64,
    yaw_rate: f64,
    /// Twist cycles driven so far.
    cycle: u64,
    /// IMU samples sent so far.
    sample: u64,
}

/// The simulator's state, run by its timer.
#[derive(Debug)]
struct Simulator {
    period: Duration,
    imu_per_twist: u64,
    drive_cycles: u64,
    frame_id: String,
    /// The stamp of the last sample sent.
    stamp: Option<Time>,
    /// IMU samples sent in the current twist cycle.
    in_cycle: u64,
    /// Their yaw rates, for the cycle's log line.
    yaw_rates: Vec<f64>,
    drive: Option<Drive>,
    /// A command received, to be driven when the current twist cycle ends.
    pending: Option<(f64, f64)>,
    logger: Logger,
}

impl Simulator {
    /// One IMU period: an IMU sample, and the vehicle twist when it closes a cycle.
    fn tick(
        &mut self,
        now: Time,
        command: &Subscription<Twist>,
        imu: &Publisher<Imu>,
        twist: &Publisher<TwistWithCovarianceStamped>,
    ) {
        for received in command.take_all() {
            self.command(&received);
        }
        if let (0, Some((speed, yaw_rate))) = (self.in_cycle, self.pending) {
            self.pending = None;
            tacto::info!(
                self.logger,
                "drive command: speed {speed:?} yaw rate {yaw_rate:?} after stamp {}",
                self.stamp.map_or_else(|| "none".into(), stamp_text)
            );
            self.drive = Some(Drive {
                speed,
                yaw_rate,
                cycle: 0,
                sample: 0,
            });
        }
        let stamp = match (self.stamp, &self.drive) {
            (None, _) => now,
            (Some(last), Some(_)) => last + self.period,
            (Some(last), None) => now.max(last + self.period),
        };
        self.stamp = Some(stamp);

        let yaw_rate = self.drive.as_mut().map_or(0.0, |drive| {
            let ripple = (drive.sample % 5) as f64 - 2.0;
            drive.sample += 1;
            drive.yaw_rate * (1.0 + 0.125 * ripple)
        });
        let mut sample = Imu::default();
        sample.header.stamp = stamp.into();
        sample.header.frame_id.clone_from(&self.frame_id);
        sample.angular_velocity.z = yaw_rate;
        for diagonal in [0, 4, 8] {
            sample.angular_velocity_covariance[diagonal] = IMU_VARIANCE;
        }
        imu.publish(sample);
        self.yaw_rates.push(yaw_rate);
        self.in_cycle += 1;
        if self.in_cycle < self.imu_per_twist {
            return;
        }

        let speed = self.drive.as_ref().map_or(0.0, |drive| {
            let ramp = (drive.cycle + 1).min(RAMP_CYCLES) as f64 / RAMP_CYCLES as f64;
            drive.speed * ramp
        });
        let mut vehicle = TwistWithCovarianceStamped::default();
        vehicle.header.stamp = stamp.into();
        vehicle.header.frame_id.clone_from(&self.frame_id);
        vehicle.twist.twist.linear.x = speed;
        vehicle.twist.covariance[0] = SPEED_VARIANCE;
        twist.publish(vehicle);
        let yaw_rates = std::mem::take(&mut self.yaw_rates);
        self.in_cycle = 0;
        if let Some(drive) = &mut self.drive {
            tacto::info!(
                self.logger,
                "drive cycle {} stamp {} vx {speed:?} wz {yaw_rates:?}",
                drive.cycle,
                stamp_text(stamp)
            );
            drive.cycle += 1;
            if drive.cycle == self.drive_cycles {
                tacto::info!(self.logger, "drive done: {} cycles", drive.cycle);
                self.drive = None;
            }
        }
    }

    /// A drive command: kept until the current twist cycle ends (a drive starts with a cycle),
    /// refused while a drive is under way.
    fn command(&mut self, command: &Twist) {
        let (speed, yaw_rate) = (command.linear.x, command.angular.z);
        match self.drive {
            Some(_) => tacto::warn!(
                self.logger,
                "drive command (speed {speed:?}, yaw rate {yaw_rate:?}) refused: a drive is \
                 under way"
            ),
            None => self.pending = Some((speed, yaw_rate)),
        }
    }
}

/// A stamp as `sec.nanosec`, as the log lines give it.
fn stamp_text(stamp: Time) -> String {
    let (sec, nanosec) = stamp.to_sec_nanosec();
    format!("{sec}.{nanosec:09}")
}
