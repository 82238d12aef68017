//! A ROS 2 listener, polling: a node that a timer runs every 100 ms reads what arrived on
//! `/chatter` (`std_msgs/String`) since its last run, from the DDS reader's cache. No callback
//! per message, and the arrivals wake nothing. It hears rclpy's or rclcpp's talker and the
//! `talker` example.
//!
//! ```sh
//! cargo run -p tacto-dds --example listener              # until Ctrl-C
//! cargo run -p tacto-dds --example listener -- --count 5 # 5 messages, then exit
//! cargo run -p tacto-dds --example listener -- --ros-args -r chatter:=/robot1/out
//! ```

use std::error::Error;
use std::time::Duration;

use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::std_msgs::msg::String as Text;

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let count = count_arg(&ctx.arguments().program_args())?;
    let mut node = ctx.node("listener")?;
    let chatter = node
        .subscription::<Text>("chatter")
        .history(History::KeepLast(10))
        .create()?;
    let mut executor = WaitSetExecutor::new()?;
    let stop = executor.stop_handle();
    let mut heard = 0u64;
    node.execute(Trigger::every(Duration::from_millis(100)), move |_| {
        for sample in chatter.take_all() {
            heard += 1;
            println!("I heard: [{}]", sample.data);
            if count == Some(heard) {
                stop.stop();
                return;
            }
        }
    })?;
    executor.add(node)?;
    // Returns on Ctrl-C (SIGINT) or SIGTERM as well.
    executor.spin()?;
    Ok(())
}

/// `--count N`: stop after N messages.
fn count_arg(args: &[&str]) -> Result<Option<u64>, Box<dyn Error>> {
    match args.get(1..).unwrap_or_default() {
        [] => Ok(None),
        [flag, n] if *flag == "--count" => Ok(Some(n.parse()?)),
        _ => Err("usage: listener [--count N] [--ros-args ...]".into()),
    }
}
