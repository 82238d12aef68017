//! A ROS 2 talker: publishes `std_msgs/String` "Hello World: N" on `/chatter` once a second,
//! as the `demo_nodes_py` talker does; rclpy's or rclcpp's listener hears it, and so does the
//! `listener` example.
//!
//! ```sh
//! cargo run -p tacto-dds --example talker              # until Ctrl-C
//! cargo run -p tacto-dds --example talker -- --count 5 # 5 messages, then exit
//! ```
//!
//! The domain is `ROS_DOMAIN_ID` (default 0); `ROS_AUTOMATIC_DISCOVERY_RANGE` and
//! `CYCLONEDDS_URI` apply as in rclcpp.

use std::error::Error;
use std::time::Duration;

use tacto::{Context, Executor, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::std_msgs::msg::String as Text;

fn main() -> Result<(), Box<dyn Error>> {
    let count = count_arg()?;
    let ctx = Context::builder()
        .transport(DdsTransport::from_env()?)
        .create();
    let mut node = ctx.node("talker")?;
    let chatter = node.publisher::<Text>("chatter").create()?;
    let mut executor = WaitSetExecutor::new()?;
    let stop = executor.stop_handle();
    let mut sent = 0u64;
    node.timer(Duration::from_secs(1), move |_| {
        sent += 1;
        let data = format!("Hello World: {sent}");
        println!("Publishing: '{data}'");
        chatter.publish(Text { data });
        if count == Some(sent) {
            stop.stop();
        }
    })?;
    executor.add(node)?;
    // Returns on Ctrl-C (SIGINT) or SIGTERM as well.
    executor.spin()?;
    Ok(())
}

/// `--count N`: stop after N messages.
fn count_arg() -> Result<Option<u64>, Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => Ok(None),
        [flag, n] if flag == "--count" => Ok(Some(n.parse()?)),
        _ => Err("usage: talker [--count N]".into()),
    }
}
