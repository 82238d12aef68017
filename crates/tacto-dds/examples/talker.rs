//! A ROS 2 talker, as demo_nodes_cpp's: publishes `std_msgs/String` "Hello World: N" on
//! `chatter` and logs each one at INFO (`Publishing: 'Hello World: N'`); rclpy's or rclcpp's
//! listener hears it, and so does the `listener` example. Its period is the parameter
//! `period` (seconds, default 1.0), which `ros2 param set /talker period 0.2` (or `tacto
//! param set`) changes while it runs.
//!
//! ```sh
//! cargo run -p tacto-dds --example talker                  # until Ctrl-C
//! cargo run -p tacto-dds --example talker -- --count 5     # 5 messages, then exit
//! cargo run -p tacto-dds --example talker -- --ros-args -r __node:=speaker -r __ns:=/robot1 \
//!     -r chatter:=out -p period:=0.2                      # /robot1/speaker on /robot1/out, 5 Hz
//! ```
//!
//! The domain is `ROS_DOMAIN_ID` (default 0); `ROS_AUTOMATIC_DISCOVERY_RANGE` and
//! `CYCLONEDDS_URI` apply as in rclcpp.

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use rustix::time::{Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec};
use tacto::params::{FloatingPointRange, ParameterDescriptor};
use tacto::{Context, Executor, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::std_msgs::msg::String as Text;

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let count = count_arg(&ctx.arguments().program_args())?;
    let mut node = ctx.node("talker")?;
    let chatter = node.publisher::<Text>("chatter").create()?;
    let descriptor = ParameterDescriptor {
        description: "seconds between two messages".into(),
        floating_point_range: Some(FloatingPointRange {
            from_value: 0.001,
            to_value: 3600.0,
            step: 0.0,
        }),
        ..ParameterDescriptor::default()
    };
    let parameters = node.parameters().clone();
    parameters.declare_parameter("period", 1.0, descriptor, false)?;
    let mut period = parameters.handle::<f64>("period")?;

    // A timer of its own, so that a new period applies at once: the node re-arms it when the
    // parameter changes, in its own executor.
    let timer = Arc::new(rustix::time::timerfd_create(
        TimerfdClockId::Monotonic,
        TimerfdFlags::CLOEXEC | TimerfdFlags::NONBLOCK,
    )?);
    arm(&timer, *period.get())?;
    let logger = node.logger().clone();
    let mut executor = WaitSetExecutor::new()?;
    let stop = executor.stop_handle();
    let mut sent = 0u64;
    let ticks = timer.clone();
    node.execute(Trigger::readable(timer.clone()), move |_| {
        let mut expirations = [0u8; 8];
        if rustix::io::read(&*ticks, &mut expirations).is_err() {
            return; // not due yet: a re-arm raced the wake-up
        }
        sent += 1;
        let data = format!("Hello World: {sent}");
        tacto::info!(logger, "Publishing: '{data}'");
        chatter.publish(Text { data });
        if count == Some(sent) {
            stop.stop();
        }
    })?;
    let watch = node.watch_parameters(&["period"]);
    let logger = node.logger().clone();
    node.execute(Trigger::on_parameters(&watch), move |_| {
        watch.changed();
        if let Err(error) = arm(&timer, *period.get()) {
            tacto::error!(logger, "cannot re-arm the timer: {error}");
        }
    })?;
    executor.add(node)?;
    // Returns on Ctrl-C (SIGINT) or SIGTERM as well.
    executor.spin()?;
    Ok(())
}

/// Arms `timer` to expire every `seconds`, the first time `seconds` from now.
fn arm(timer: &impl std::os::fd::AsFd, seconds: f64) -> rustix::io::Result<()> {
    let period = Duration::from_secs_f64(seconds);
    let spec = Timespec {
        tv_sec: period.as_secs() as i64,
        tv_nsec: period.subsec_nanos().into(),
    };
    let value = Itimerspec {
        it_interval: spec,
        it_value: spec,
    };
    rustix::time::timerfd_settime(timer, TimerfdTimerFlags::empty(), &value).map(drop)
}

/// `--count N`: stop after N messages.
fn count_arg(args: &[&str]) -> Result<Option<u64>, Box<dyn Error>> {
    match args.get(1..).unwrap_or_default() {
        [] => Ok(None),
        [flag, n] if *flag == "--count" => Ok(Some(n.parse()?)),
        _ => Err("usage: talker [--count N] [--ros-args ...]".into()),
    }
}
