//! Autoware's gyro odometer, ported from rclcpp: `autoware_gyro_odometer` (autoware_core,
//! `localization/autoware_gyro_odometer`) as a tacto component, registered as
//! `autoware::gyro_odometer::GyroOdometerNode` (the name the original registers with
//! `RCLCPP_COMPONENTS_REGISTER_NODE`). It fuses the vehicle's longitudinal velocity
//! (`vehicle/twist_with_covariance`, `geometry_msgs/TwistWithCovarianceStamped`) with the IMU's
//! angular velocity (`imu`, `sensor_msgs/Imu`) into one twist, published on `twist_raw` and
//! `twist_with_covariance_raw`, and, with the angular velocity cleared at a standstill, on
//! `twist` and `twist_with_covariance` (`TwistStamped` and `TwistWithCovarianceStamped`).
//!
//! Kept from the original: its topic names (relative, as the original's, so that `__ns` and
//! remaps move them), its two required parameters (`output_frame`, `message_timeout_sec`, from
//! a params file in the original's format: `gyro_odometer.param.yaml` beside the launch
//! files), QoS (reliable, keep last 10), the queue-and-fuse logic of `gyro_odometer.cpp`
//! (`GyroOdometer` here), function by function, and its status lines, logged every 100 ms of
//! ROS time at most once a second, as the original's diagnostics timer logs them.
//!
//! What differs:
//! - **tf**: tacto has no tf buffer yet. The original looks up the transform from the IMU's
//!   frame to `output_frame` and rotates each queued angular velocity by it; this port accepts
//!   IMU samples already in `output_frame` (the transform tf gives between a frame and itself)
//!   and treats a sample in any other frame as the original treats a transform tf does not
//!   have: the fusion attempt is dropped and the status says "Please publish TF from ...".
//!   Rotating samples from other frames is what a tf buffer will add.
//! - **diagnostics**: `/diagnostics` is not published (the original's status goes there and to
//!   the log; here, only to the log).
//! - **the model**: the inputs are polling subscriptions; the node runs when a vehicle twist
//!   arrives (`fuse_on_vehicle_twist` says why). Triggers run on every executor, so the component
//!   builds the same node whatever the executor's style.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tacto::{ClockKind, History, Node, Publisher, Time, Trigger};
use tacto_component::{BuildError, Placement};
use tacto_msgs::geometry_msgs::msg::{TwistStamped, TwistWithCovarianceStamped};
use tacto_msgs::sensor_msgs::msg::Imu;

/// The original's diagnostics timer: every 100 ms of the node's (ROS) clock.
const STATUS_PERIOD: Duration = Duration::from_millis(100);

/// The original's `RCLCPP_*_STREAM_THROTTLE(..., 1000, ...)`: at most one status line a second.
const LOG_THROTTLE: Duration = Duration::from_secs(1);

/// IMU samples the subscription holds between two runs of the node. The node runs on each
/// vehicle twist, so this must cover the IMU samples of one twist period: 64 is 400 Hz IMU data
/// against vehicle twists down to 6.25 Hz. More are overwritten oldest first (KeepLast) and the
/// fusion averages the newest 64; nothing is on the wire, where depth is not matched.
const IMU_DEPTH: usize = 64;

/// The most samples each of the fusion's queues holds. The original's queues are unbounded;
/// they grow only while one side keeps arriving and the other, having arrived once, neither
/// comes nor times out (a large `message_timeout_sec`). Past this, the oldest is dropped, as a
/// KeepLast history drops it.
const MAX_QUEUED: usize = 1024;

/// Row-major indices of a 3×3 (x, y, z) covariance (`autoware_utils_geometry`'s
/// `XYZ_COV_IDX`).
mod xyz {
    pub const X_X: usize = 0;
    pub const Y_Y: usize = 4;
    pub const Z_Z: usize = 8;
}

/// Row-major indices of a 6×6 (x, y, z, roll, pitch, yaw) covariance (`XYZRPY_COV_IDX`).
mod xyzrpy {
    pub const X_X: usize = 0;
    pub const Y_Y: usize = 7;
    pub const Z_Z: usize = 14;
    pub const ROLL_ROLL: usize = 21;
    pub const PITCH_PITCH: usize = 28;
    pub const YAW_YAW: usize = 35;
}

tacto_component::component!("autoware::gyro_odometer::GyroOdometerNode", build);

/// The component's build function: the node, whatever executor it is placed on.
fn build(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    gyro_odometer(node)
}

/// The original's `GyroOdometerNode` constructor: declares the parameters, creates the
/// subscriptions and publishers, and registers what runs. The component's build function, and
/// what a program of its own calls on a node it made (the tacto-dds `gyro_odometer` example).
///
/// # Errors
/// A parameter missing or of another type, or a topic name the node refuses.
pub fn gyro_odometer(node: &mut Node) -> Result<(), BuildError> {
    // declare_parameter<T>(name): no default, so a params file or -p must give them.
    let output_frame: String = node.parameters().declare_required("output_frame")?;
    let message_timeout_sec: f64 = node.parameters().declare_required("message_timeout_sec")?;

    let vehicle_twist = node
        .subscription::<TwistWithCovarianceStamped>("vehicle/twist_with_covariance")
        .create()?;
    let imu = node
        .subscription::<Imu>("imu")
        .history(History::KeepLast(IMU_DEPTH))
        .create()?;
    let outputs = Outputs {
        twist_raw: node.publisher("twist_raw").create()?,
        twist_with_covariance_raw: node.publisher("twist_with_covariance_raw").create()?,
        twist: node.publisher("twist").create()?,
        twist_with_covariance: node.publisher("twist_with_covariance").create()?,
    };

    // Shared by the two pieces of code below, which one executor thread runs one after the
    // other: the lock is never contended.
    let odometer = Arc::new(Mutex::new(GyroOdometer::new(message_timeout_sec)));
    let clock = node.context().clock().clone();
    node.execute(
        Trigger::on(&vehicle_twist),
        fuse_on_vehicle_twist(
            vehicle_twist,
            imu,
            outputs,
            Arc::clone(&odometer),
            clock.clone(),
            output_frame.clone(),
        ),
    )?;

    // publish_diagnostics: the status, logged as the original logs it; what it would put on
    // /diagnostics, at DEBUG.
    let logger = node.logger().clone();
    node.execute(
        Trigger::every(STATUS_PERIOD).clock(ClockKind::Ros),
        move |_| {
            let status = lock(&odometer).status();
            tacto::debug!(
                logger,
                "latest_vehicle_twist_time_stamp: {}, latest_imu_time_stamp: {}, \
                 is_arrived_first_vehicle_twist: {}, is_arrived_first_imu: {}, \
                 vehicle_twist_time_stamp_dt: {}, imu_time_stamp_dt: {}, \
                 vehicle_twist_queue_size: {}, imu_queue_size: {}, is_succeed_transform_imu: {}",
                status.latest_vehicle_twist_ros_time,
                status.latest_imu_ros_time,
                status.vehicle_twist_arrived,
                status.imu_arrived,
                status.latest_vehicle_twist_dt,
                status.latest_imu_dt,
                status.vehicle_twist_queue_size,
                status.imu_queue_size,
                status.is_succeed_transform_imu
            );
            let result = determine_diagnostics(
                &status.diagnostics_state(message_timeout_sec, &output_frame),
            );
            match result.level {
                Level::Ok => {}
                Level::Warn => {
                    tacto::warn!(
                        logger,
                        throttle(clock, LOG_THROTTLE),
                        "{}",
                        result.log_message
                    )
                }
                Level::Error => {
                    tacto::error!(
                        logger,
                        throttle(clock, LOG_THROTTLE),
                        "{}",
                        result.log_message
                    )
                }
            }
        },
    )?;
    Ok(())
}

/// The original's two subscription callbacks, as one piece of code run when vehicle twists
/// arrive.
///
/// Why on the vehicle twist: a fusion needs both sides, and the IMU is the fast one (100 to
/// 400 Hz against the vehicle's tens of Hz), so in the original most IMU callbacks only queue
/// a sample; running on each twist wakes the node once per fusion, and the IMU samples that
/// arrived since wait in the subscription's history, waking nothing. Each run takes what both
/// subscriptions hold and feeds it to the fusion in the order it was published (each sample's
/// source timestamp: DDS keeps no reception time), which over a link that does not reorder is
/// the order the original's callbacks would have seen: the same fusions, the same outputs.
/// What differs is when: a fusion the original makes on an IMU sample that completes a pair (a
/// twist came first, with no IMU sample queued) is made here when the next twist arrives, of
/// the same samples; and "now" is read once per run, not per message.
fn fuse_on_vehicle_twist(
    vehicle_twist: tacto::Subscription<TwistWithCovarianceStamped>,
    imu: tacto::Subscription<Imu>,
    outputs: Outputs,
    odometer: Arc<Mutex<GyroOdometer>>,
    clock: tacto::Clock,
    output_frame: String,
) -> impl FnMut(&tacto::Activation) + Send + 'static {
    let (mut twists, mut imus) = (Vec::new(), Vec::new());
    move |_| {
        twists.extend(vehicle_twist.take_all());
        imus.extend(imu.take_all());
        let now = clock.now(ClockKind::Ros);
        let transform = |queue: &mut VecDeque<Imu>| transform_gyro_queue(queue, &output_frame);
        let mut odometer = lock(&odometer);
        let mut imus_in = imus.drain(..).peekable();
        let mut twists_in = twists.drain(..).peekable();
        loop {
            // Earliest first; an IMU sample published with a twist goes first, as the twist is
            // what ran the node.
            let imu_first = match (imus_in.peek(), twists_in.peek()) {
                (Some(i), Some(t)) => i.info().publish_time <= t.info().publish_time,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let output = match imu_first {
                true => imus_in
                    .next()
                    .and_then(|sample| odometer.input_imu(&sample, now, transform)),
                false => twists_in
                    .next()
                    .and_then(|sample| odometer.input_vehicle_twist(&sample, now, transform)),
            };
            if let Some(output) = output {
                outputs.publish(output);
            }
        }
    }
}

fn lock(odometer: &Mutex<GyroOdometer>) -> MutexGuard<'_, GyroOdometer> {
    // Nothing that holds the lock can panic half-way through a change, so a poisoned lock
    // still holds a consistent state.
    odometer.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The four publishers of the original, in its order.
struct Outputs {
    twist_raw: Publisher<TwistStamped>,
    twist_with_covariance_raw: Publisher<TwistWithCovarianceStamped>,
    twist: Publisher<TwistStamped>,
    twist_with_covariance: Publisher<TwistWithCovarianceStamped>,
}

impl Outputs {
    /// `publish_data`.
    fn publish(&self, output: Output) {
        self.twist_raw.publish(output.twist_raw);
        self.twist_with_covariance_raw
            .publish(output.twist_with_covariance_raw);
        self.twist.publish(output.twist);
        self.twist_with_covariance
            .publish(output.twist_with_covariance);
    }
}

/// What one fusion produces (the original's `OutputData`): the raw fused twist, with and
/// without covariance, and the same with the angular velocity cleared at a standstill.
#[derive(Debug, Clone, PartialEq)]
struct Output {
    twist_raw: TwistStamped,
    twist_with_covariance_raw: TwistWithCovarianceStamped,
    twist: TwistStamped,
    twist_with_covariance: TwistWithCovarianceStamped,
}

/// The state the status lines report (the original's `GyroOdometer::Status`). The queue sizes
/// are those of the latest fusion attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Status {
    vehicle_twist_arrived: bool,
    imu_arrived: bool,
    is_succeed_transform_imu: bool,
    latest_vehicle_twist_dt: f64,
    latest_imu_dt: f64,
    latest_vehicle_twist_ros_time: Time,
    latest_imu_ros_time: Time,
    vehicle_twist_queue_size: usize,
    imu_queue_size: usize,
}

impl Status {
    /// What the status lines are decided from.
    fn diagnostics_state<'a>(
        &self,
        message_timeout_sec: f64,
        output_frame: &'a str,
    ) -> DiagnosticsState<'a> {
        DiagnosticsState {
            vehicle_twist_arrived: self.vehicle_twist_arrived,
            imu_arrived: self.imu_arrived,
            is_succeed_transform_imu: self.is_succeed_transform_imu,
            latest_vehicle_twist_dt: self.latest_vehicle_twist_dt,
            latest_imu_dt: self.latest_imu_dt,
            message_timeout_sec,
            output_frame,
        }
    }
}

/// The queue-and-fuse logic of the original (`GyroOdometer` in `gyro_odometer.cpp`): each input
/// is queued and a fusion attempted; a fusion averages everything queued on both sides and
/// empties both queues. Holds no clock and no transform: the caller gives both.
#[derive(Debug)]
struct GyroOdometer {
    message_timeout_sec: f64,
    status: Status,
    vehicle_twist_queue: VecDeque<TwistWithCovarianceStamped>,
    gyro_queue: VecDeque<Imu>,
}

impl GyroOdometer {
    fn new(message_timeout_sec: f64) -> GyroOdometer {
        GyroOdometer {
            message_timeout_sec,
            status: Status::default(),
            vehicle_twist_queue: VecDeque::new(),
            gyro_queue: VecDeque::new(),
        }
    }

    /// Queues a vehicle twist and attempts a fusion at `now`: its output if one completed.
    fn input_vehicle_twist(
        &mut self,
        msg: &TwistWithCovarianceStamped,
        now: Time,
        transform: impl Fn(&mut VecDeque<Imu>) -> bool,
    ) -> Option<Output> {
        self.status.vehicle_twist_arrived = true;
        self.status.latest_vehicle_twist_ros_time = msg.header.stamp.into();
        push_bounded(&mut self.vehicle_twist_queue, msg.clone());
        self.concat_gyro_and_odometer(now, transform)
            .map(|fused| make_output(&fused))
    }

    /// Queues an IMU sample and attempts a fusion at `now`: its output if one completed.
    fn input_imu(
        &mut self,
        msg: &Imu,
        now: Time,
        transform: impl Fn(&mut VecDeque<Imu>) -> bool,
    ) -> Option<Output> {
        self.status.imu_arrived = true;
        self.status.latest_imu_ros_time = msg.header.stamp.into();
        push_bounded(&mut self.gyro_queue, msg.clone());
        self.concat_gyro_and_odometer(now, transform)
            .map(|fused| make_output(&fused))
    }

    fn status(&self) -> Status {
        self.status
    }

    fn concat_gyro_and_odometer(
        &mut self,
        now: Time,
        transform: impl Fn(&mut VecDeque<Imu>) -> bool,
    ) -> Option<TwistWithCovarianceStamped> {
        let status = &mut self.status;
        // Until both sides have arrived once, nothing is kept.
        if !status.vehicle_twist_arrived || !status.imu_arrived {
            self.clear();
            return None;
        }
        status.latest_vehicle_twist_dt = seconds_between(now, status.latest_vehicle_twist_ros_time);
        status.latest_imu_dt = seconds_between(now, status.latest_imu_ros_time);
        if status.latest_vehicle_twist_dt > self.message_timeout_sec
            || status.latest_imu_dt > self.message_timeout_sec
        {
            self.clear();
            return None;
        }
        status.vehicle_twist_queue_size = self.vehicle_twist_queue.len();
        status.imu_queue_size = self.gyro_queue.len();
        // Waiting for the other side: what is queued is kept for the next attempt.
        if self.vehicle_twist_queue.is_empty() || self.gyro_queue.is_empty() {
            return None;
        }
        status.is_succeed_transform_imu = transform(&mut self.gyro_queue);
        if !status.is_succeed_transform_imu {
            self.clear();
            return None;
        }
        let fused = fuse_twist(&self.vehicle_twist_queue, &self.gyro_queue);
        self.clear();
        Some(fused)
    }

    fn clear(&mut self) {
        self.vehicle_twist_queue.clear();
        self.gyro_queue.clear();
    }
}

fn push_bounded<T>(queue: &mut VecDeque<T>, item: T) {
    if queue.len() == MAX_QUEUED {
        queue.pop_front();
    }
    queue.push_back(item);
}

/// `std::abs((now - then).seconds())`, rclcpp's difference of two times in seconds.
fn seconds_between(now: Time, then: Time) -> f64 {
    now.as_nanos().abs_diff(then.as_nanos()) as f64 * 1e-9
}

/// The original's `transform_gyro_queue` without tf: the transform from the oldest queued
/// sample's frame to `output_frame` exists only when the two are the same frame (the identity),
/// and is applied to every queued sample, as the original applies the one it looked up: the
/// samples are labelled with `output_frame` and their angular velocity covariance reduced by
/// [`transform_covariance`]. False, leaving the queue as it is, for any other frame.
fn transform_gyro_queue(queue: &mut VecDeque<Imu>, output_frame: &str) -> bool {
    if queue
        .front()
        .is_none_or(|gyro| gyro.header.frame_id != output_frame)
    {
        return false;
    }
    for gyro in queue {
        gyro.header.frame_id = output_frame.to_owned();
        gyro.angular_velocity_covariance = transform_covariance(&gyro.angular_velocity_covariance);
    }
    true
}

/// An angular velocity covariance made isotropic: the largest of the three variances on the
/// whole diagonal, every other term zero.
fn transform_covariance(cov: &[f64; 9]) -> [f64; 9] {
    let max = cov[xyz::X_X].max(cov[xyz::Y_Y]).max(cov[xyz::Z_Z]);
    let mut transformed = [0.0; 9];
    transformed[xyz::X_X] = max;
    transformed[xyz::Y_Y] = max;
    transformed[xyz::Z_Z] = max;
    transformed
}

/// Fuses the two queues (both non-empty, the IMU's already in the output frame): the mean
/// longitudinal velocity and the mean angular velocity, their mean variances divided again by
/// the number of samples (more samples, a surer mean), a large variance for the lateral and
/// vertical velocities it does not estimate, the later of the two sides' latest stamps, and the
/// oldest IMU sample's frame.
fn fuse_twist(
    vehicle_twist_queue: &VecDeque<TwistWithCovarianceStamped>,
    gyro_queue: &VecDeque<Imu>,
) -> TwistWithCovarianceStamped {
    let twists = vehicle_twist_queue.len() as f64;
    let gyros = gyro_queue.len() as f64;
    let mut vx_mean = 0.0;
    let mut vx_covariance = 0.0;
    for vehicle_twist in vehicle_twist_queue {
        vx_mean += vehicle_twist.twist.twist.linear.x;
        vx_covariance += vehicle_twist.twist.covariance[xyzrpy::X_X];
    }
    vx_mean /= twists;
    vx_covariance /= twists;
    let (mut mean, mut covariance) = ([0.0; 3], [0.0; 3]);
    for gyro in gyro_queue {
        let w = &gyro.angular_velocity;
        let cov = &gyro.angular_velocity_covariance;
        for (axis, (value, variance)) in [
            (w.x, cov[xyz::X_X]),
            (w.y, cov[xyz::Y_Y]),
            (w.z, cov[xyz::Z_Z]),
        ]
        .into_iter()
        .enumerate()
        {
            mean[axis] += value;
            covariance[axis] += variance;
        }
    }
    for axis in 0..3 {
        mean[axis] /= gyros;
        covariance[axis] /= gyros;
    }

    let mut fused = TwistWithCovarianceStamped::default();
    let latest_vehicle_twist =
        (vehicle_twist_queue.back()).map_or_else(Default::default, |t| t.header.stamp);
    let latest_imu = gyro_queue
        .back()
        .map_or_else(Default::default, |g| g.header.stamp);
    fused.header.stamp = match Time::from(latest_vehicle_twist) < Time::from(latest_imu) {
        true => latest_imu,
        false => latest_vehicle_twist,
    };
    if let Some(gyro) = gyro_queue.front() {
        fused.header.frame_id = gyro.header.frame_id.clone();
    }
    let twist = &mut fused.twist.twist;
    twist.linear.x = vx_mean;
    (twist.angular.x, twist.angular.y, twist.angular.z) = (mean[0], mean[1], mean[2]);
    let cov = &mut fused.twist.covariance;
    cov[xyzrpy::X_X] = vx_covariance / twists;
    cov[xyzrpy::Y_Y] = 100_000.0;
    cov[xyzrpy::Z_Z] = 100_000.0;
    cov[xyzrpy::ROLL_ROLL] = covariance[0] / gyros;
    cov[xyzrpy::PITCH_PITCH] = covariance[1] / gyros;
    cov[xyzrpy::YAW_YAW] = covariance[2] / gyros;
    fused
}

/// Clears the angular velocity when the vehicle is judged stopped (|yaw rate| and |vx| both
/// below 0.01): what the IMU reports then is its bias.
fn apply_stop_compensation(
    twist_with_cov: &TwistWithCovarianceStamped,
) -> TwistWithCovarianceStamped {
    let mut result = twist_with_cov.clone();
    let twist = &twist_with_cov.twist.twist;
    if twist.angular.z.abs() < 0.01 && twist.linear.x.abs() < 0.01 {
        result.twist.twist.angular = Default::default();
    }
    result
}

/// `make_output`: the four messages of one fusion.
fn make_output(raw: &TwistWithCovarianceStamped) -> Output {
    let compensated = apply_stop_compensation(raw);
    Output {
        twist_raw: TwistStamped {
            header: raw.header.clone(),
            twist: raw.twist.twist.clone(),
        },
        twist_with_covariance_raw: raw.clone(),
        twist: TwistStamped {
            header: compensated.header.clone(),
            twist: compensated.twist.twist.clone(),
        },
        twist_with_covariance: compensated,
    }
}

/// A status's severity (`diagnostic_msgs/DiagnosticStatus`'s OK, WARN, ERROR), in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Ok,
    Warn,
    Error,
}

/// What the status is decided from (the original's `DiagnosticsState`).
struct DiagnosticsState<'a> {
    vehicle_twist_arrived: bool,
    imu_arrived: bool,
    is_succeed_transform_imu: bool,
    latest_vehicle_twist_dt: f64,
    latest_imu_dt: f64,
    message_timeout_sec: f64,
    output_frame: &'a str,
}

/// The status (the original's `DiagnosticsResult`): one entry per condition found, in the
/// original's order, the worst level, and every message followed by "; ".
#[derive(Debug, PartialEq)]
struct DiagnosticsResult {
    entries: Vec<(Level, String)>,
    level: Level,
    log_message: String,
}

/// `determine_diagnostics`, with the original's messages byte for byte.
fn determine_diagnostics(state: &DiagnosticsState<'_>) -> DiagnosticsResult {
    let mut result = DiagnosticsResult {
        entries: Vec::new(),
        level: Level::Ok,
        log_message: String::new(),
    };
    let mut raise = |level: Level, message: String| {
        result.level = result.level.max(level);
        result.log_message.push_str(&message);
        result.log_message.push_str("; ");
        result.entries.push((level, message));
    };
    if !state.vehicle_twist_arrived {
        raise(Level::Warn, "Twist msg has not been arrived yet.".into());
    }
    if !state.imu_arrived {
        raise(Level::Warn, "IMU msg has not been arrived yet.".into());
    }
    if state.latest_vehicle_twist_dt > state.message_timeout_sec {
        raise(
            Level::Error,
            format!(
                "Vehicle twist msg is timeout. vehicle_twist_dt: {}[sec], tolerance {}[sec]",
                state.latest_vehicle_twist_dt, state.message_timeout_sec
            ),
        );
    }
    if state.latest_imu_dt > state.message_timeout_sec {
        raise(
            Level::Error,
            format!(
                "IMU msg is timeout. imu_dt: {}[sec], tolerance {}[sec]",
                state.latest_imu_dt, state.message_timeout_sec
            ),
        );
    }
    if !state.is_succeed_transform_imu {
        raise(
            Level::Error,
            format!(
                "Please publish TF from {} to frame of IMU.",
                state.output_frame
            ),
        );
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto::msg::builtin_interfaces;
    use tacto::params::Parameter;
    use tacto::{Context, Executor, WaitSetExecutor};

    fn stamp(sec: i32, nanosec: u32) -> builtin_interfaces::Time {
        builtin_interfaces::Time { sec, nanosec }
    }

    fn make_imu(
        stamp: builtin_interfaces::Time,
        frame_id: &str,
        (wx, wy, wz): (f64, f64, f64),
        (cov_xx, cov_yy, cov_zz): (f64, f64, f64),
    ) -> Imu {
        let mut imu = Imu::default();
        imu.header.stamp = stamp;
        imu.header.frame_id = frame_id.into();
        (
            imu.angular_velocity.x,
            imu.angular_velocity.y,
            imu.angular_velocity.z,
        ) = (wx, wy, wz);
        imu.angular_velocity_covariance[xyz::X_X] = cov_xx;
        imu.angular_velocity_covariance[xyz::Y_Y] = cov_yy;
        imu.angular_velocity_covariance[xyz::Z_Z] = cov_zz;
        imu
    }

    fn make_vehicle_twist(
        stamp: builtin_interfaces::Time,
        vx: f64,
        cov_xx: f64,
    ) -> TwistWithCovarianceStamped {
        let mut twist = TwistWithCovarianceStamped::default();
        twist.header.stamp = stamp;
        twist.header.frame_id = "base_link".into();
        twist.twist.twist.linear.x = vx;
        twist.twist.covariance[xyzrpy::X_X] = cov_xx;
        twist
    }

    // From test/test_gyro_odometer.cpp (autoware_core, autoware_gyro_odometer).

    #[test]
    fn transform_covariance_puts_the_largest_variance_on_the_diagonal_and_zeroes_the_rest() {
        let mut cov = [0.0; 9];
        cov[xyz::X_X] = 1.0;
        cov[xyz::Y_Y] = 5.0;
        cov[xyz::Z_Z] = 3.0;
        cov[1] = 42.0; // X_Y
        cov[6] = -7.0; // Z_X
        let out = transform_covariance(&cov);
        assert_eq!([out[xyz::X_X], out[xyz::Y_Y], out[xyz::Z_Z]], [5.0; 3]);
        // X_Y, X_Z, Y_X, Y_Z, Z_X, Z_Y
        for off_diagonal in [1, 2, 3, 5, 6, 7] {
            assert_eq!(out[off_diagonal], 0.0);
        }
    }

    #[test]
    fn fuse_twist_averages_both_queues_reduces_their_variances_and_takes_the_later_stamp() {
        let vehicle_twists = VecDeque::from([
            make_vehicle_twist(stamp(10, 0), 2.0, 4.0),
            make_vehicle_twist(stamp(12, 0), 4.0, 8.0),
        ]);
        let gyros = VecDeque::from([
            make_imu(stamp(11, 0), "base_link", (0.2, 0.4, 0.6), (1.0, 2.0, 3.0)),
            make_imu(stamp(13, 0), "base_link", (0.4, 0.8, 1.2), (3.0, 6.0, 9.0)),
        ]);
        let out = fuse_twist(&vehicle_twists, &gyros);
        let twist = &out.twist.twist;
        assert_eq!(twist.linear.x, 3.0);
        assert_f64_eq(twist.angular.x, 0.3);
        assert_f64_eq(twist.angular.y, 0.6);
        assert_f64_eq(twist.angular.z, 0.9);
        let cov = &out.twist.covariance;
        assert_eq!(cov[xyzrpy::X_X], 3.0);
        assert_eq!(cov[xyzrpy::Y_Y], 100_000.0);
        assert_eq!(cov[xyzrpy::Z_Z], 100_000.0);
        assert_eq!(cov[xyzrpy::ROLL_ROLL], 1.0);
        assert_eq!(cov[xyzrpy::PITCH_PITCH], 2.0);
        assert_eq!(cov[xyzrpy::YAW_YAW], 3.0);
        assert_eq!(out.header.stamp, stamp(13, 0));
        assert_eq!(out.header.frame_id, "base_link");
    }

    #[test]
    fn fuse_twist_takes_the_vehicle_twists_stamp_when_it_is_the_later() {
        let vehicle_twists = VecDeque::from([make_vehicle_twist(stamp(20, 500), 0.0, 0.0)]);
        let gyros = VecDeque::from([make_imu(
            stamp(20, 100),
            "imu_link",
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
        )]);
        let out = fuse_twist(&vehicle_twists, &gyros);
        assert_eq!(out.header.stamp, stamp(20, 500));
        assert_eq!(out.header.frame_id, "imu_link");
    }

    fn twist_with(vx: f64, (wx, wy, wz): (f64, f64, f64)) -> TwistWithCovarianceStamped {
        let mut twist = TwistWithCovarianceStamped::default();
        twist.twist.twist.linear.x = vx;
        let angular = &mut twist.twist.twist.angular;
        (angular.x, angular.y, angular.z) = (wx, wy, wz);
        twist
    }

    fn angular(twist: &TwistWithCovarianceStamped) -> (f64, f64, f64) {
        let w = &twist.twist.twist.angular;
        (w.x, w.y, w.z)
    }

    #[test]
    fn stop_compensation_clears_the_angular_velocity_when_stopped() {
        let out = apply_stop_compensation(&twist_with(0.005, (0.5, -0.4, 0.001)));
        assert_eq!(angular(&out), (0.0, 0.0, 0.0));
        assert_eq!(out.twist.twist.linear.x, 0.005);
    }

    #[test]
    fn stop_compensation_keeps_the_angular_velocity_when_moving() {
        let out = apply_stop_compensation(&twist_with(3.0, (0.5, -0.4, 0.001)));
        assert_eq!(angular(&out), (0.5, -0.4, 0.001));
        assert_eq!(out.twist.twist.linear.x, 3.0);
    }

    #[test]
    fn stop_compensation_keeps_the_angular_velocity_when_turning_in_place() {
        let out = apply_stop_compensation(&twist_with(0.0, (0.1, 0.0, 0.5)));
        assert_eq!(angular(&out), (0.1, 0.0, 0.5));
    }

    // From test/test_gyro_odometer_diagnostics.cpp.

    fn state(
        (vehicle_twist_arrived, imu_arrived, is_succeed_transform_imu): (bool, bool, bool),
        latest_vehicle_twist_dt: f64,
    ) -> DiagnosticsState<'static> {
        DiagnosticsState {
            vehicle_twist_arrived,
            imu_arrived,
            is_succeed_transform_imu,
            latest_vehicle_twist_dt,
            latest_imu_dt: 0.0,
            message_timeout_sec: 1.0,
            output_frame: "base_link",
        }
    }

    fn levels(result: &DiagnosticsResult) -> Vec<Level> {
        result.entries.iter().map(|(level, _)| *level).collect()
    }

    #[test]
    fn a_healthy_state_is_ok_with_no_entries_and_no_log() {
        let mut healthy = state((true, true, true), 0.01);
        healthy.latest_imu_dt = 0.01;
        let result = determine_diagnostics(&healthy);
        assert_eq!(result.level, Level::Ok);
        assert!(result.entries.is_empty());
        assert_eq!(result.log_message, "");
    }

    #[test]
    fn inputs_that_have_not_arrived_warn() {
        let result = determine_diagnostics(&state((false, false, true), 0.0));
        assert_eq!(result.level, Level::Warn);
        assert_eq!(levels(&result), [Level::Warn, Level::Warn]);
    }

    #[test]
    fn a_timeout_is_an_error() {
        let result = determine_diagnostics(&state((true, true, true), 2.0));
        assert_eq!(result.level, Level::Error);
        assert_eq!(levels(&result), [Level::Error]);
    }

    #[test]
    fn a_transform_that_failed_is_an_error() {
        let result = determine_diagnostics(&state((true, true, false), 0.0));
        assert_eq!(result.level, Level::Error);
        assert_eq!(levels(&result), [Level::Error]);
    }

    #[test]
    fn the_level_is_the_worst_entrys_and_the_entries_keep_their_order() {
        let result = determine_diagnostics(&state((false, true, false), 0.0));
        assert_eq!(result.level, Level::Error);
        assert_eq!(levels(&result), [Level::Warn, Level::Error]);
    }

    // From test/test_gyro_odometer_node_characterization.cpp, driving the fusion directly (as
    // that file's builders allow): "now" is the simulated clock it sets, 100 s unless moved.

    const NOW: Time = Time::from_nanos(100_000_000_000);

    /// The fusion with the characterization's node parameters, its transform that of tf with no
    /// transform broadcast (only `base_link` to itself).
    struct Fixture {
        odometer: GyroOdometer,
        output: Option<Output>,
    }

    impl Fixture {
        fn start(message_timeout_sec: f64) -> Fixture {
            Fixture {
                odometer: GyroOdometer::new(message_timeout_sec),
                output: None,
            }
        }

        fn send_vehicle_twist(&mut self, twist: TwistWithCovarianceStamped, now: Time) {
            let transform = |queue: &mut VecDeque<Imu>| transform_gyro_queue(queue, "base_link");
            if let Some(output) = self.odometer.input_vehicle_twist(&twist, now, transform) {
                self.output = Some(output);
            }
        }

        fn send_imu(&mut self, imu: Imu, now: Time) {
            let transform = |queue: &mut VecDeque<Imu>| transform_gyro_queue(queue, "base_link");
            if let Some(output) = self.odometer.input_imu(&imu, now, transform) {
                self.output = Some(output);
            }
        }

        /// The first message of each kind only marks its side arrived: a first fusion empties
        /// the queues, so that a scenario knows what they hold.
        fn prime(&mut self) {
            self.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 0.0, 0.0), NOW);
            self.send_imu(
                base_imu(stamp(100, 0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
                NOW,
            );
            self.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 0.0, 0.0), NOW);
            assert!(
                self.take_output().is_some(),
                "priming did not reach a first fusion"
            );
        }

        fn take_output(&mut self) -> Option<Output> {
            self.output.take()
        }

        fn diagnostics(&self) -> DiagnosticsResult {
            let timeout = self.odometer.message_timeout_sec;
            determine_diagnostics(
                &self
                    .odometer
                    .status()
                    .diagnostics_state(timeout, "base_link"),
            )
        }
    }

    fn base_imu(stamp: builtin_interfaces::Time, w: (f64, f64, f64), cov: (f64, f64, f64)) -> Imu {
        make_imu(stamp, "base_link", w, cov)
    }

    #[test]
    fn with_no_input_neither_message_has_arrived() {
        let fixture = Fixture::start(10.0);
        let status = fixture.odometer.status();
        assert!(!status.vehicle_twist_arrived && !status.imu_arrived);
        let message = fixture.diagnostics().log_message;
        assert!(
            message.contains("Twist msg has not been arrived yet."),
            "{message}"
        );
        assert!(
            message.contains("IMU msg has not been arrived yet."),
            "{message}"
        );
    }

    #[test]
    fn vehicle_twists_queued_before_an_imu_sample_are_averaged_into_one_fusion() {
        let mut fixture = Fixture::start(10.0);
        fixture.prime();
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 3.0, 4.0), NOW);
        assert!(
            fixture.take_output().is_none(),
            "fused before an IMU sample completed the pair"
        );
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.1, 0.2, 0.3), (0.01, 0.02, 0.03)),
            NOW,
        );
        let fused = fixture
            .take_output()
            .expect("a fusion")
            .twist_with_covariance_raw;
        assert_eq!(fused.twist.twist.linear.x, 2.0);
        assert_eq!(fused.twist.covariance[xyzrpy::X_X], 2.0);
        assert_eq!(angular(&fused), (0.1, 0.2, 0.3));
        let status = fixture.odometer.status();
        assert_eq!(
            (status.vehicle_twist_queue_size, status.imu_queue_size),
            (2, 1)
        );
    }

    #[test]
    fn a_completed_pair_gives_all_four_outputs() {
        let mut fixture = Fixture::start(10.0);
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.1, 0.2, 0.3), (0.01, 0.02, 0.03)),
            NOW,
        );
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        let output = fixture.take_output().expect("a fusion");
        assert_eq!(output.twist_raw.twist.linear.x, 1.0);
        assert_eq!(output.twist_raw.twist.angular.z, 0.3);
        assert_eq!(output.twist.twist.linear.x, 1.0);
        assert_eq!(output.twist.twist.angular.z, 0.3);
        let raw = &output.twist_with_covariance_raw;
        assert_eq!(raw.header.frame_id, "base_link");
        assert_eq!(raw.twist.twist.linear.x, 1.0);
        assert_eq!(angular(raw), (0.1, 0.2, 0.3));
        assert_eq!(
            (raw.twist.twist.linear.y, raw.twist.twist.linear.z),
            (0.0, 0.0)
        );
        let cov = &raw.twist.covariance;
        assert_eq!((cov[xyzrpy::Y_Y], cov[xyzrpy::Z_Z]), (100_000.0, 100_000.0));
        // The largest of the IMU's variances, on all three axes.
        assert_eq!(
            (
                cov[xyzrpy::ROLL_ROLL],
                cov[xyzrpy::PITCH_PITCH],
                cov[xyzrpy::YAW_YAW]
            ),
            (0.03, 0.03, 0.03)
        );
        assert_eq!(
            output.twist_with_covariance.twist.covariance,
            raw.twist.covariance
        );
    }

    #[test]
    fn imu_samples_alone_never_fuse() {
        let mut fixture = Fixture::start(10.0);
        for _ in 0..3 {
            fixture.send_imu(
                base_imu(stamp(100, 0), (0.1, 0.2, 0.3), (0.01, 0.02, 0.03)),
                NOW,
            );
        }
        assert!(fixture.take_output().is_none());
        let status = fixture.odometer.status();
        assert!(status.imu_arrived && !status.vehicle_twist_arrived);
        let message = fixture.diagnostics().log_message;
        assert!(
            message.contains("Twist msg has not been arrived yet."),
            "{message}"
        );
    }

    #[test]
    fn vehicle_twists_alone_never_fuse() {
        let mut fixture = Fixture::start(10.0);
        for _ in 0..3 {
            fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        }
        assert!(fixture.take_output().is_none());
        let status = fixture.odometer.status();
        assert!(status.vehicle_twist_arrived && !status.imu_arrived);
        let message = fixture.diagnostics().log_message;
        assert!(
            message.contains("IMU msg has not been arrived yet."),
            "{message}"
        );
    }

    #[test]
    fn imu_samples_queued_before_a_vehicle_twist_are_averaged_into_one_fusion() {
        let mut fixture = Fixture::start(10.0);
        fixture.prime();
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.0, 0.0, 0.2), (0.01, 0.01, 0.01)),
            NOW,
        );
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.0, 0.0, 0.4), (0.01, 0.01, 0.01)),
            NOW,
        );
        assert!(
            fixture.take_output().is_none(),
            "fused before a vehicle twist completed the pair"
        );
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        let fused = fixture
            .take_output()
            .expect("a fusion")
            .twist_with_covariance_raw;
        assert_f64_eq(fused.twist.twist.angular.z, 0.3);
        assert_f64_eq(fused.twist.covariance[xyzrpy::YAW_YAW], 0.005);
        let status = fixture.odometer.status();
        assert_eq!(
            (status.vehicle_twist_queue_size, status.imu_queue_size),
            (1, 2)
        );
    }

    #[test]
    fn the_output_carries_the_vehicle_twists_stamp_when_it_is_the_later() {
        let mut fixture = Fixture::start(10.0);
        fixture.prime();
        fixture.send_imu(
            base_imu(stamp(98, 0), (0.1, 0.2, 0.3), (0.01, 0.01, 0.01)),
            NOW,
        );
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(99, 0), 1.0, 4.0), NOW);
        let fused = fixture
            .take_output()
            .expect("a fusion")
            .twist_with_covariance_raw;
        assert_eq!(fused.header.stamp, stamp(99, 0));
    }

    #[test]
    fn the_output_carries_the_imu_stamp_when_it_is_the_later() {
        let mut fixture = Fixture::start(10.0);
        fixture.prime();
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(98, 0), 1.0, 4.0), NOW);
        fixture.send_imu(
            base_imu(stamp(99, 0), (0.1, 0.2, 0.3), (0.01, 0.01, 0.01)),
            NOW,
        );
        let fused = fixture
            .take_output()
            .expect("a fusion")
            .twist_with_covariance_raw;
        assert_eq!(fused.header.stamp, stamp(99, 0));
    }

    #[test]
    fn a_vehicle_twist_older_than_the_tolerance_drops_what_is_queued() {
        let mut fixture = Fixture::start(1.0);
        fixture.prime();
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        let later = Time::from_nanos(105_000_000_000);
        fixture.send_imu(
            base_imu(stamp(105, 0), (0.1, 0.2, 0.3), (0.01, 0.01, 0.01)),
            later,
        );
        assert!(fixture.take_output().is_none());
        let diagnostics = fixture.diagnostics();
        assert_eq!(diagnostics.level, Level::Error);
        assert!(
            diagnostics
                .log_message
                .contains("Vehicle twist msg is timeout. vehicle_twist_dt: 5[sec]"),
            "{}",
            diagnostics.log_message
        );
    }

    #[test]
    fn an_imu_sample_older_than_the_tolerance_drops_what_is_queued() {
        let mut fixture = Fixture::start(1.0);
        fixture.prime();
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.1, 0.2, 0.3), (0.01, 0.01, 0.01)),
            NOW,
        );
        let later = Time::from_nanos(105_000_000_000);
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(105, 0), 1.0, 4.0), later);
        assert!(fixture.take_output().is_none());
        let diagnostics = fixture.diagnostics();
        assert_eq!(diagnostics.level, Level::Error);
        assert!(
            diagnostics
                .log_message
                .contains("IMU msg is timeout. imu_dt: 5[sec]"),
            "{}",
            diagnostics.log_message
        );
    }

    #[test]
    fn an_imu_frame_without_a_transform_drops_what_is_queued() {
        let mut fixture = Fixture::start(10.0);
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        let imu = make_imu(
            stamp(100, 0),
            "imu_link",
            (0.1, 0.2, 0.3),
            (0.01, 0.01, 0.01),
        );
        fixture.send_imu(imu, NOW);
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        assert!(fixture.take_output().is_none());
        assert!(!fixture.odometer.status().is_succeed_transform_imu);
        let diagnostics = fixture.diagnostics();
        assert_eq!(diagnostics.level, Level::Error);
        assert!(
            diagnostics
                .log_message
                .contains("Please publish TF from base_link to frame of IMU."),
            "{}",
            diagnostics.log_message
        );
    }

    #[test]
    fn an_imu_sample_without_a_transform_keeps_its_rate_out_of_every_output() {
        let mut fixture = Fixture::start(10.0);
        fixture.prime();
        let unresolvable = make_imu(
            stamp(100, 0),
            "unresolvable_link",
            (10.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
        );
        fixture.send_imu(unresolvable, NOW);
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.0, 0.0, 0.3), (0.01, 0.01, 0.01)),
            NOW,
        );
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 1.0, 4.0), NOW);
        assert!(fixture.take_output().is_none());
        assert!(!fixture.odometer.status().is_succeed_transform_imu);
    }

    #[test]
    fn at_a_standstill_only_the_compensated_outputs_lose_the_angular_velocity() {
        let mut fixture = Fixture::start(10.0);
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 0.0, 0.0), NOW);
        fixture.send_imu(
            base_imu(stamp(100, 0), (0.5, 0.6, 0.0), (0.01, 0.01, 0.01)),
            NOW,
        );
        fixture.send_vehicle_twist(make_vehicle_twist(stamp(100, 0), 0.0, 4.0), NOW);
        let output = fixture.take_output().expect("a fusion");
        assert_eq!(angular(&output.twist_with_covariance_raw), (0.5, 0.6, 0.0));
        assert_eq!(output.twist_raw.twist.angular.x, 0.5);
        assert_eq!(angular(&output.twist_with_covariance), (0.0, 0.0, 0.0));
        assert_eq!(
            (output.twist.twist.angular.x, output.twist.twist.angular.y),
            (0.0, 0.0)
        );
    }

    // From test/test_gyro_odometer_node.cpp: the node itself, over its topics (intra-process
    // here), with its parameters given as overrides.

    fn node_under_test(ctx: &Context) -> Node {
        let mut node = ctx
            .node_builder("gyro_odometer")
            .parameter_override(Parameter::new("output_frame", "base_link"))
            .parameter_override(Parameter::new("message_timeout_sec", 1e12))
            .create()
            .unwrap();
        gyro_odometer(&mut node).unwrap();
        node
    }

    fn sample_imu() -> Imu {
        base_imu(stamp(0, 0), (0.1, 0.2, 0.3), (0.0, 0.0, 0.0))
    }

    fn sample_velocity() -> TwistWithCovarianceStamped {
        make_vehicle_twist(stamp(0, 0), 1.0, 0.0)
    }

    /// Runs the node and a test node that publishes `inputs` into it, and returns what came
    /// out on `/twist_with_covariance`.
    fn run_node(inputs: &[Input]) -> Vec<TwistWithCovarianceStamped> {
        let ctx = Context::new();
        let gyro = node_under_test(&ctx);
        let mut control = ctx.node("test_control_node").unwrap();
        let out = control
            .subscription::<TwistWithCovarianceStamped>("/twist_with_covariance")
            .create()
            .unwrap();
        let imu = control.publisher::<Imu>("/imu").create().unwrap();
        let velocity = control
            .publisher::<TwistWithCovarianceStamped>("/vehicle/twist_with_covariance")
            .create()
            .unwrap();
        for input in inputs {
            match input {
                Input::Imu(msg) => imu.publish(msg.clone()),
                Input::Velocity(msg) => velocity.publish(msg.clone()),
            }
        }
        let mut executor = WaitSetExecutor::new().unwrap();
        executor.add(gyro).unwrap();
        executor.spin_for(Duration::from_millis(200)).unwrap();
        out.take_all().map(|sample| (*sample).clone()).collect()
    }

    enum Input {
        Imu(Imu),
        Velocity(TwistWithCovarianceStamped),
    }

    #[test]
    fn with_imu_and_velocity_the_node_publishes_the_fused_twist() {
        let received = run_node(&[
            Input::Velocity(sample_velocity()),
            Input::Imu(sample_imu()),
            Input::Velocity(sample_velocity()),
            Input::Imu(sample_imu()),
        ]);
        let twist = received.last().expect("a fused twist");
        assert_eq!(twist.twist.twist.linear.x, 1.0);
        assert_eq!(angular(twist), (0.1, 0.2, 0.3));
        assert_eq!(
            (twist.twist.twist.linear.y, twist.twist.twist.linear.z),
            (0.0, 0.0)
        );
    }

    #[test]
    fn with_imu_samples_only_the_node_publishes_nothing() {
        let received = run_node(&[Input::Imu(sample_imu())]);
        assert!(received.is_empty(), "{received:?}");
    }

    /// EXPECT_DOUBLE_EQ: within 4 units in the last place.
    fn assert_f64_eq(actual: f64, expected: f64) {
        let ulps = (actual.to_bits() as i64 - expected.to_bits() as i64).unsigned_abs();
        assert!(ulps <= 4, "{actual} is not {expected} (within 4 ulps)");
    }
}
