//! A ROS 2 client of `/add_two_ints` (`example_interfaces/srv/AddTwoInts`): waits for the
//! service, sends `a + b` and prints the sum. The service may be the `add_two_ints_server`
//! example or an rclcpp/rclpy server on rmw_cyclonedds.
//!
//! ```sh
//! cargo run -p tacto-dds --example add_two_ints_client -- 2 3
//! cargo run -p tacto-dds --example add_two_ints_client -- 2 3 --ros-args -r add_two_ints:=/adder/add
//! ```

use std::error::Error;
use std::time::Duration;

use tacto::Context;
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request};

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let usage = "usage: add_two_ints_client A B [--ros-args ...]";
    let args: Vec<i64> = (ctx
        .arguments()
        .program_args()
        .iter()
        .skip(1)
        .map(|a| a.parse()))
    .collect::<Result<_, _>>()
    .map_err(|_| usage)?;
    let [a, b] = args[..] else {
        return Err(usage.into());
    };
    let mut node = ctx.node("add_two_ints_client")?;
    let client = node.client::<AddTwoInts>("add_two_ints").create()?;
    // No executor runs here, so no signal handler is installed: Ctrl-C ends the process.
    while !client.wait_for_service(Duration::from_secs(1)) {
        println!("service not available, waiting again...");
    }
    let response = client.call(AddTwoInts_Request { a, b }, Duration::from_secs(10))?;
    println!("Result of add_two_ints: for {a} + {b} = {}", response.sum);
    Ok(())
}
