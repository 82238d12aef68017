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
//!   drives, or one with a speed or yaw rate that is not a finite number, is refused with a
//!   warning; one sent after a drive is driven again.
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
    let mut simulator = Simulator {
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
    };
    node.execute(Trigger::every(period), move |_| {
        simulator.tick(clock.now(ClockKind::Ros), &command, &imu, &twist);
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
        if !speed.is_finite() || !yaw_rate.is_finite() {
            tacto::warn!(
                self.logger,
                "drive command (speed {speed:?}, yaw rate {yaw_rate:?}) refused: give finite \
                 numbers"
            );
            return;
        }
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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use tacto::logging::{self, Record, Severity};
    use tacto::{Context, Executor, History, WaitSetExecutor};
    use tacto_component::Style;
    use tacto_msgs::geometry_msgs::msg::{Twist, TwistWithCovarianceStamped};
    use tacto_msgs::sensor_msgs::msg::Imu;

    /// More than a test's run sends: the probes keep every sample.
    const ALL: History = History::KeepLast(1000);

    /// The simulator in `ctx` with `parameters` (`name:=value`), on an executor.
    fn simulator(ctx: &Context, parameters: &[&str]) -> Result<WaitSetExecutor, String> {
        let mut arguments = vec!["--ros-args"];
        for parameter in parameters {
            arguments.extend(["-p", parameter]);
        }
        let component = tacto_component::find("gyro_system::VehicleSimulator").unwrap();
        let node = component
            .instantiate(ctx, None, None, &arguments, Style::Polling)
            .map_err(|e| e.to_string())?;
        let mut executor = WaitSetExecutor::new().unwrap();
        executor.add(node).unwrap();
        Ok(executor)
    }

    fn nanos(stamp: &tacto::msg::builtin_interfaces::Time) -> i64 {
        tacto::Time::from(*stamp).as_nanos()
    }

    #[test]
    fn standing_still_it_sends_zero_rates_and_a_twist_after_every_imu_per_twist_samples() {
        let ctx = Context::new();
        let mut executor = simulator(&ctx, &["imu_rate_hz:=200", "imu_per_twist:=3"]).unwrap();
        let mut probe = ctx.node("probe").unwrap();
        let imu = probe
            .subscription::<Imu>("imu")
            .history(ALL)
            .create()
            .unwrap();
        let twist = probe
            .subscription::<TwistWithCovarianceStamped>("vehicle/twist_with_covariance")
            .history(ALL)
            .create()
            .unwrap();
        executor.spin_for(Duration::from_millis(200)).unwrap();
        let imus: Vec<_> = imu.take_all().collect();
        let twists: Vec<_> = twist.take_all().collect();
        assert!(imus.len() >= 6, "{} IMU samples", imus.len());
        assert_eq!(twists.len(), imus.len() / 3);
        assert!(imus.iter().all(|s| s.angular_velocity.z == 0.0));
        assert!(twists.iter().all(|s| s.twist.twist.linear.x == 0.0));
        // A twist carries the stamp of the IMU sample that closed its cycle.
        assert_eq!(twists[0].header.stamp, imus[2].header.stamp);
        assert_eq!(imus[0].header.frame_id, "base_link");
    }

    #[test]
    fn a_drive_ramps_up_with_a_rippled_yaw_rate_and_stamps_one_period_apart() {
        let ctx = Context::new();
        let parameters = ["imu_rate_hz:=200", "imu_per_twist:=2", "drive_cycles:=4"];
        let mut executor = simulator(&ctx, &parameters).unwrap();
        let mut probe = ctx.node("probe").unwrap();
        let command = probe.publisher::<Twist>("drive_command").create().unwrap();
        let imu = probe
            .subscription::<Imu>("imu")
            .history(ALL)
            .create()
            .unwrap();
        let twist = probe
            .subscription::<TwistWithCovarianceStamped>("vehicle/twist_with_covariance")
            .history(ALL)
            .create()
            .unwrap();
        let mut drive = Twist::default();
        (drive.linear.x, drive.angular.z) = (4.0, 0.8);
        command.publish(drive);
        executor.spin_for(Duration::from_millis(300)).unwrap();
        let twists: Vec<_> = twist.take_all().collect();
        let driven: Vec<_> = twists
            .iter()
            .skip_while(|s| s.twist.twist.linear.x == 0.0)
            .take_while(|s| s.twist.twist.linear.x != 0.0)
            .collect();
        // 4 / 20 · (c + 1), for the 4 cycles of the drive, then standing still again.
        let speeds: Vec<f64> = driven.iter().map(|s| s.twist.twist.linear.x).collect();
        let ramp: Vec<f64> = (1..=4).map(|c| 4.0 * (c as f64 / 20.0)).collect();
        assert_eq!(speeds, ramp);
        assert!(twists.len() > driven.len() + 1, "it stands still after");
        for pair in driven.windows(2) {
            let step = nanos(&pair[1].header.stamp) - nanos(&pair[0].header.stamp);
            assert_eq!(step, 10_000_000, "two IMU periods of 5 ms");
        }
        let rates: Vec<f64> = imu
            .take_all()
            .map(|s| s.angular_velocity.z)
            .filter(|&w| w != 0.0)
            .collect();
        // 0.8 · (1 + 0.125 · (g mod 5 − 2)) for the drive's 8 IMU samples.
        let rippled: Vec<f64> = (0..8)
            .map(|g| 0.8 * (1.0 + 0.125 * ((g % 5) as f64 - 2.0)))
            .collect();
        assert_eq!(rates, rippled);
    }

    #[test]
    fn a_command_that_is_not_a_finite_number_is_not_driven() {
        let ctx = Context::new();
        let mut executor = simulator(&ctx, &["imu_rate_hz:=200"]).unwrap();
        let mut probe = ctx.node("probe").unwrap();
        let command = probe.publisher::<Twist>("drive_command").create().unwrap();
        let twist = probe
            .subscription::<TwistWithCovarianceStamped>("vehicle/twist_with_covariance")
            .history(ALL)
            .create()
            .unwrap();
        let mut drive = Twist::default();
        (drive.linear.x, drive.angular.z) = (f64::NAN, 0.5);
        command.publish(drive);
        executor.spin_for(Duration::from_millis(100)).unwrap();
        let speeds: Vec<f64> = twist.take_all().map(|s| s.twist.twist.linear.x).collect();
        assert!(!speeds.is_empty());
        assert!(speeds.iter().all(|&v| v == 0.0), "{speeds:?}");
    }

    #[test]
    fn a_command_during_a_drive_is_refused_with_a_warning_and_the_drive_goes_on_unchanged() {
        // The simulator's warnings, wherever its logger's records go.
        let warnings = Arc::new(Mutex::new(Vec::new()));
        let keep = warnings.clone();
        let _sink = logging::add_sink(move |record: &Record| {
            if &*record.name == "VehicleSimulator" && record.severity == Severity::Warn {
                keep.lock().unwrap().push(record.message.clone());
            }
        });
        let ctx = Context::new();
        let parameters = ["imu_rate_hz:=200", "imu_per_twist:=2", "drive_cycles:=10"];
        let mut executor = simulator(&ctx, &parameters).unwrap();
        let mut probe = ctx.node("probe").unwrap();
        let command = probe.publisher::<Twist>("drive_command").create().unwrap();
        let imu = probe
            .subscription::<Imu>("imu")
            .history(ALL)
            .create()
            .unwrap();
        let twist = probe
            .subscription::<TwistWithCovarianceStamped>("vehicle/twist_with_covariance")
            .history(ALL)
            .create()
            .unwrap();
        let mut drive = Twist::default();
        (drive.linear.x, drive.angular.z) = (4.0, 0.8);
        command.publish(drive);

        // Until the drive's first twist, in short spins: the drive is then under way, a few
        // cycles in at most of its 10, and does not advance while the executor does not spin.
        // Twists as (speed, stamp in ns), IMU samples as their yaw rates.
        let deadline = Instant::now() + Duration::from_secs(10);
        let (mut twists, mut rates) = (Vec::<(f64, i64)>::new(), Vec::new());
        // A spin of `for_ms`, and what the probes took meanwhile.
        let spin = |executor: &mut WaitSetExecutor, for_ms: u64| {
            executor.spin_for(Duration::from_millis(for_ms)).unwrap();
            let twists: Vec<(f64, i64)> = (twist.take_all())
                .map(|s| (s.twist.twist.linear.x, nanos(&s.header.stamp)))
                .collect();
            let rates: Vec<f64> = imu.take_all().map(|s| s.angular_velocity.z).collect();
            (twists, rates)
        };
        while !twists.iter().any(|&(vx, _)| vx != 0.0) {
            assert!(Instant::now() < deadline, "the drive did not start");
            let (taken, taken_rates) = spin(&mut executor, 5);
            twists.extend(taken);
            rates.extend(taken_rates);
        }
        let mut other = Twist::default();
        (other.linear.x, other.angular.z) = (1.5, -0.3);
        command.publish(other);
        // The drive's twists (from `start`, `driven` of them) and how many came after.
        let drive_of = |twists: &[(f64, i64)]| {
            let start = (twists.iter())
                .position(|&(vx, _)| vx != 0.0)
                .unwrap_or(twists.len());
            let driven = (twists[start..].iter())
                .take_while(|&&(vx, _)| vx != 0.0)
                .count();
            (start, driven, twists.len() - start - driven)
        };
        // Until 5 twists after the drive's last: the refused command, had it been kept, would
        // be driven from the first of them.
        while drive_of(&twists).2 < 5 {
            assert!(Instant::now() < deadline, "the drive did not end");
            let (taken, taken_rates) = spin(&mut executor, 50);
            twists.extend(taken);
            rates.extend(taken_rates);
        }
        logging::flush();

        let refusal = "drive command (speed 1.5, yaw rate -0.3) refused: a drive is under way";
        let warned = warnings.lock().unwrap().clone();
        assert_eq!(
            warned.iter().filter(|w| *w == refusal).count(),
            1,
            "{warned:?}"
        );
        // The first drive, all of it as if nothing had come: 4 / 20 · (c + 1) for its 10
        // cycles, stamps two IMU periods apart, then standing still, the command not driven.
        let (start, driven, _) = drive_of(&twists);
        let (drive, after) = twists[start..].split_at(driven);
        let speeds: Vec<f64> = drive.iter().map(|&(vx, _)| vx).collect();
        let ramp: Vec<f64> = (1..=10).map(|c| 4.0 * (c as f64 / 20.0)).collect();
        assert_eq!(speeds, ramp);
        assert!(after.iter().all(|&(vx, _)| vx == 0.0), "{twists:?}");
        for pair in drive.windows(2) {
            assert_eq!(pair[1].1 - pair[0].1, 10_000_000, "two IMU periods of 5 ms");
        }
        // 0.8 · (1 + 0.125 · (g mod 5 − 2)) for the drive's 20 IMU samples, and no other.
        let rates: Vec<f64> = rates.into_iter().filter(|&w| w != 0.0).collect();
        let rippled: Vec<f64> = (0..20)
            .map(|g| 0.8 * (1.0 + 0.125 * ((g % 5) as f64 - 2.0)))
            .collect();
        assert_eq!(rates, rippled);
    }

    #[test]
    fn a_rate_out_of_range_is_refused_naming_the_parameter() {
        let ctx = Context::new();
        let error = simulator(&ctx, &["imu_rate_hz:=0"]).unwrap_err();
        assert!(
            error.contains("parameter imu_rate_hz: 0 is out of range: give 1 to 1000"),
            "{error}"
        );
    }
}
