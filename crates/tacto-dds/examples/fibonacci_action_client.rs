//! A ROS 2 action client of `/fibonacci` (`example_interfaces/action/Fibonacci`), as the ROS 2
//! tutorials' `fibonacci_action_client`: waits for the server, sends a goal of order 10 (or
//! the first argument), prints each feedback and the result, and exits. Its node is run by
//! what arrives (answers, feedback, status, result), never by a thread waiting. The server may
//! be the `fibonacci_action_server` example or an rclcpp/rclpy server on rmw_cyclonedds.
//!
//! ```sh
//! cargo run -p tacto-dds --example fibonacci_action_client
//! cargo run -p tacto-dds --example fibonacci_action_client -- 5 --ros-args -r __ns:=/robot
//! ```

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use tacto::action::{ActionEvent, GoalStatus};
use tacto::{Context, Executor, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::action::{Fibonacci, Fibonacci_Goal};

fn numbers(sequence: &[i32]) -> String {
    sequence.iter().map(|n| format!("{n} ")).collect()
}

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let usage = "usage: fibonacci_action_client [ORDER] [--ros-args ...]";
    let order = match ctx.arguments().program_args().get(1) {
        None => 10,
        Some(order) => order.parse::<i32>().map_err(|_| usage)?,
    };
    let mut node = ctx.node("fibonacci_action_client")?;
    let client = Arc::new(node.action_client::<Fibonacci>("fibonacci").create()?);
    while !client.wait_for_server(Duration::from_secs(1)) {
        println!("Action server not available, waiting again...");
    }
    let mut executor = WaitSetExecutor::new()?;
    let stop = executor.stop_handle();
    let events = client.clone();
    let logger = node.logger().clone();
    let (ended, outcome) = std::sync::mpsc::channel();
    node.execute(client.trigger(), move |_| {
        while let Some(event) = events.take_event() {
            match event {
                ActionEvent::Accepted { .. } => {
                    tacto::info!(logger, "Goal accepted by server, waiting for result")
                }
                ActionEvent::Rejected { .. } => {
                    tacto::error!(logger, "Goal was rejected by server");
                    let _ = ended.send(false);
                    stop.stop();
                }
                ActionEvent::Feedback { feedback, .. } => tacto::info!(
                    logger,
                    "Next number in sequence received: {}",
                    numbers(&feedback.sequence)
                ),
                ActionEvent::Result { status, result, .. } => {
                    match status {
                        GoalStatus::Succeeded => {
                            tacto::info!(logger, "Result received: {}", numbers(&result.sequence))
                        }
                        other => tacto::error!(logger, "Goal ended {other}"),
                    }
                    let _ = ended.send(status == GoalStatus::Succeeded);
                    stop.stop();
                }
                ActionEvent::Status { .. } | ActionEvent::Canceling { .. } => {}
            }
        }
    })?;
    tacto::info!(node.logger(), "Sending goal");
    client.send_goal(Fibonacci_Goal { order })?;
    executor.add(node)?;
    executor.spin()?;
    match outcome.try_recv() {
        Ok(true) => Ok(()),
        Ok(false) => Err("the goal did not succeed".into()),
        Err(_) => Err("stopped before the goal ended".into()),
    }
}
