//! Autoware's gyro odometer, ported from rclcpp (`autoware_gyro_odometer`), as a program of its
//! own on DDS: `rclcpp::init`, one node named `gyro_odometer`, one executor. The node itself is
//! the `autoware::gyro_odometer::GyroOdometerNode` component of the gyro_system example
//! (`examples/gyro_system/nodes/src/gyro_odometer.rs`: what it does, what differs from the
//! original, and its tests); this is the same node started as the original's executable is.
//!
//! ```sh
//! cargo run -p tacto-dds --example gyro_odometer -- --ros-args \
//!     --params-file crates/tacto-dds/examples/gyro_odometer.param.yaml \
//!     -r vehicle/twist_with_covariance:=/sensing/vehicle_velocity_converter/twist_with_covariance \
//!     -r imu:=/sensing/imu/imu_data
//! cargo run -- launch crates/tacto-dds/examples/gyro_odometer.launch.toml   # the same, launched
//! ```
//!
//! The domain is `ROS_DOMAIN_ID` (default 0); `ROS_AUTOMATIC_DISCOVERY_RANGE` and
//! `CYCLONEDDS_URI` apply as in rclcpp.

use std::error::Error;
use std::process::ExitCode;

use tacto::args::RosArgs;
use tacto::{Context, Executor, WaitSetExecutor};
use tacto_dds::DdsTransport;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gyro_odometer: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error + Send + Sync>> {
    // rclcpp::init(argc, argv): --ros-args, then a context on DDS.
    let ctx = Context::builder()
        .arguments(RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let mut node = ctx.node("gyro_odometer")?;
    gyro_nodes::gyro_odometer(&mut node)?;
    let mut executor = WaitSetExecutor::new()?;
    executor.add(node)?;
    // Returns on Ctrl-C (SIGINT) or SIGTERM as well.
    executor.spin()?;
    Ok(())
}
