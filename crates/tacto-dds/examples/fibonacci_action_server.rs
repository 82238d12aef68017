//! A ROS 2 action server `/fibonacci` (`example_interfaces/action/Fibonacci`), as the ROS 2
//! tutorials' `fibonacci_action_server`: a goal of order n is answered with the first n + 1
//! Fibonacci numbers, one number per period (the parameter `period`, seconds, default 1.0,
//! the tutorial's rate), each published as feedback; a cancel is accepted. The goal advances a
//! step per run of the node's timer: no thread waits in a loop. Clients on rmw_cyclonedds
//! (rclcpp, rclpy, `ros2 action send_goal`) and the `fibonacci_action_client` example use it.
//!
//! ```sh
//! cargo run -p tacto-dds --example fibonacci_action_server   # until Ctrl-C
//! cargo run -p tacto-dds --example fibonacci_action_server -- --ros-args -p period:=0.1
//! ```

use std::error::Error;
use std::time::Duration;

use tacto::action::GoalHandle;
use tacto::{Context, Executor, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::action::{Fibonacci, Fibonacci_Feedback, Fibonacci_Result};

/// The tutorial's bound: larger orders overflow an `int32`.
const MAX_ORDER: i32 = 46;

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let mut node = ctx.node("fibonacci_action_server")?;
    let period: f64 = node.parameters().declare("period", 1.0)?;
    if !(period.is_finite() && period > 0.0) {
        return Err(
            format!("parameter period: {period} is not a positive number of seconds").into(),
        );
    }
    let server = node.action_server::<Fibonacci>("fibonacci").create()?;
    let logger = node.logger().clone();
    let mut goals: Vec<(GoalHandle<Fibonacci>, Vec<i32>)> = Vec::new();
    node.wall_timer(Duration::from_secs_f64(period), move |_| {
        while let Some(request) = server.take_goal() {
            let order = request.goal().order;
            tacto::info!(logger, "Received goal request with order {order}");
            if !(0..=MAX_ORDER).contains(&order) {
                tacto::info!(logger, "Rejected: the order must be 0 to {MAX_ORDER}");
                request.reject();
                continue;
            }
            match request.accept() {
                Ok(handle) => {
                    tacto::info!(logger, "Executing goal");
                    if handle.execute().is_ok() {
                        goals.push((handle, vec![0, 1]));
                    }
                }
                Err(error) => tacto::warn!(logger, "Goal not accepted: {error}"),
            }
        }
        while let Some(cancel) = server.take_cancel() {
            tacto::info!(logger, "Received request to cancel goal");
            cancel.decide(|_| true);
        }
        for (handle, sequence) in &mut goals {
            let result = || Fibonacci_Result {
                sequence: sequence.clone(),
            };
            if handle.is_canceling() {
                let _ = handle.canceled(result());
                tacto::info!(logger, "Goal canceled");
            } else if sequence.len() > handle.goal().order as usize {
                let _ = handle.succeed(result());
                tacto::info!(logger, "Goal succeeded");
            } else {
                let n = sequence.len();
                sequence.push(sequence[n - 1] + sequence[n - 2]);
                handle.publish_feedback(Fibonacci_Feedback {
                    sequence: sequence.clone(),
                });
                tacto::info!(logger, "Publish feedback");
            }
        }
        goals.retain(|(handle, _)| handle.is_active());
    })?;
    let mut executor = WaitSetExecutor::new()?;
    executor.add(node)?;
    println!("Serving the action /fibonacci");
    // Returns on Ctrl-C (SIGINT) or SIGTERM.
    executor.spin()?;
    Ok(())
}
