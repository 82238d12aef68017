//! A ROS 2 service `/add_two_ints` (`example_interfaces/srv/AddTwoInts`): a node that its
//! requests trigger answers each with the sum. Clients on rmw_cyclonedds (rclcpp, rclpy) and
//! the `add_two_ints_client` example call it; clients on Fast DDS do not match (services do
//! not cross DDS vendors, a limit of rmw_cyclonedds' mapping).
//!
//! ```sh
//! cargo run -p tacto-dds --example add_two_ints_server   # until Ctrl-C
//! cargo run -p tacto-dds --example add_two_ints_server -- --ros-args -r __ns:=/adder
//! ```

use std::error::Error;

use tacto::{Context, Executor, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Response};

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let mut node = ctx.node("add_two_ints_server")?;
    let service = node.service::<AddTwoInts>("add_two_ints").create()?;
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = service.take_request() {
            let sum = request.a.wrapping_add(request.b);
            println!(
                "Incoming request: a: {} b: {} -> {sum}",
                request.a, request.b
            );
            service.send_response(id, AddTwoInts_Response { sum });
        }
    })?;
    let mut executor = WaitSetExecutor::new()?;
    executor.add(node)?;
    println!("Serving /add_two_ints");
    // Returns on Ctrl-C (SIGINT) or SIGTERM.
    executor.spin()?;
    Ok(())
}
