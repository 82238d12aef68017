//! The nodes of the `gyro_system` example, as components: written once, placed by a launch
//! file in one process, in a process each, or on two hosts (see the example's README).
//!
//! | component | node | what |
//! |---|---|---|
//! | `gyro_system::VehicleSimulator` | [`vehicle_simulator`] | an IMU at 100 Hz and the vehicle's twist at 50 Hz, driving when commanded |
//! | `autoware::gyro_odometer::GyroOdometerNode` | [`gyro_odometer`](mod@gyro_odometer) | Autoware's gyro odometer, ported: the two fused into one twist |
//! | `gyro_system::DeadReckoning` | [`dead_reckoning`] | the pose integrated from the fused twist |
//!
//! A binary that links this crate (`use gyro_nodes as _;`) hosts the three; the example's
//! `gyro_system` binary is such a launcher. [`gyro_odometer()`] is also public, for a program
//! that makes its own node (tacto-dds' `gyro_odometer` example).
//!
//! # Examples
//!
//! The three in one context, as a launch file of one process places them, driven by a command:
//! the simulator's samples reach the integrator through the gyro odometer.
//!
//! ```
//! use gyro_nodes as _; // links the crate: its components register
//! use std::time::Duration;
//! use tacto_msgs::geometry_msgs::msg::{PoseStamped, Twist};
//! use tacto::{Context, Executor, WaitSetExecutor};
//! use tacto_component::Style;
//!
//! let ctx = Context::new();
//! let mut executor = WaitSetExecutor::new()?;
//! for (component, arguments) in [
//!     ("gyro_system::VehicleSimulator", &[][..]),
//!     (
//!         "autoware::gyro_odometer::GyroOdometerNode",
//!         &["--ros-args", "-p", "output_frame:=base_link", "-p", "message_timeout_sec:=1.0"][..],
//!     ),
//!     ("gyro_system::DeadReckoning", &[][..]),
//! ] {
//!     let found = tacto_component::find(component)?;
//!     executor.add(found.instantiate(&ctx, None, None, arguments, Style::Polling)?)?;
//! }
//! let mut operator = ctx.node("operator")?;
//! let poses = operator.subscription::<PoseStamped>("pose").create()?;
//! let drive = operator.publisher::<Twist>("drive_command").create()?;
//! executor.spin_for(Duration::from_millis(200))?;
//! // Standing still: poses at the origin.
//! assert_eq!(poses.take_all().last().expect("a pose").pose.position.x, 0.0);
//! let mut command = Twist::default();
//! command.linear.x = 2.0; // m/s
//! drive.publish(command);
//! executor.spin_for(Duration::from_millis(500))?;
//! assert!(poses.take_all().last().expect("a pose").pose.position.x > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod dead_reckoning;
pub mod gyro_odometer;
pub mod vehicle_simulator;

pub use gyro_odometer::gyro_odometer;
