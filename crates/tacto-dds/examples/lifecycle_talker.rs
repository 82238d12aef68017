//! A managed (lifecycle) talker, as ROS 2 demos' `lifecycle_talker`: the node `lc_talker`
//! publishes `std_msgs/String` "Lifecycle HelloWorld #N" on `lifecycle_chatter` once a second
//! while it is active, and logs in its callbacks as the demo does. It starts unconfigured;
//! `ros2 lifecycle set /lc_talker configure` (or `tacto lifecycle set`), then `activate`,
//! start the messages; `deactivate` stops them, `cleanup` and `shutdown` follow.
//!
//! ```sh
//! cargo run -p tacto-dds --example lifecycle_talker                # until Ctrl-C
//! cargo run -p tacto-dds --example lifecycle_talker -- --autostart # configures, activates itself
//! cargo run -p tacto-dds --example lifecycle_talker -- --ros-args -r __node:=lc_talker2
//! ```
//!
//! Two differences from the demo, both tacto's model: the timer is made with the node and runs
//! only while the node is active (the demo makes it in `on_configure`, and it logs "Lifecycle
//! publisher is currently inactive" each second while inactive), so the count goes on from
//! where it stopped rather than counting the silent seconds; and `on_activate` does not sleep
//! two seconds on the executor's thread as the demo's does to show a slow transition.
//!
//! The domain is `ROS_DOMAIN_ID` (default 0); `ROS_AUTOMATIC_DISCOVERY_RANGE` and
//! `CYCLONEDDS_URI` apply as in rclcpp.

use std::error::Error;
use std::time::Duration;

use tacto::lifecycle::{CallbackReturn, Callbacks, State, Transition};
use tacto::logging::Logger;
use tacto::{Context, Executor, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::std_msgs::msg::String as Text;

/// The demo's callbacks: each says it was called.
struct LifecycleTalker {
    logger: Logger,
}

impl Callbacks for LifecycleTalker {
    fn on_configure(&mut self, _previous: State) -> CallbackReturn {
        tacto::info!(self.logger, "on_configure() is called.");
        CallbackReturn::Success
    }
    fn on_activate(&mut self, _previous: State) -> CallbackReturn {
        tacto::info!(self.logger, "on_activate() is called.");
        CallbackReturn::Success
    }
    fn on_deactivate(&mut self, _previous: State) -> CallbackReturn {
        tacto::info!(self.logger, "on_deactivate() is called.");
        CallbackReturn::Success
    }
    fn on_cleanup(&mut self, _previous: State) -> CallbackReturn {
        tacto::info!(self.logger, "on cleanup is called.");
        CallbackReturn::Success
    }
    fn on_shutdown(&mut self, previous: State) -> CallbackReturn {
        tacto::info!(
            self.logger,
            "on shutdown is called from state {}.",
            previous.label()
        );
        CallbackReturn::Success
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = Context::builder()
        .arguments(tacto::args::RosArgs::from_env()?)?
        .transport(DdsTransport::from_env()?)
        .create();
    let autostart = match ctx.arguments().program_args().get(1..).unwrap_or_default() {
        [] => false,
        ["--autostart"] => true,
        _ => return Err("usage: lifecycle_talker [--autostart] [--ros-args ...]".into()),
    };
    let mut node = ctx.node("lc_talker")?;
    // Made now, sends only while the node is activating or active (rclcpp's lifecycle
    // publisher, activated and deactivated with the node).
    let chatter = node.publisher::<Text>("lifecycle_chatter").create()?;
    let logger = node.logger().clone();
    let mut count = 0u64;
    // Runs only while the node is active.
    node.execute(Trigger::every(Duration::from_secs(1)), move |_| {
        count += 1;
        let data = format!("Lifecycle HelloWorld #{count}");
        tacto::info!(
            logger,
            "Lifecycle publisher is active. Publishing: [{data}]"
        );
        chatter.publish(Text { data });
    })?;
    let logger = node.logger().clone();
    let lifecycle = node.manage(LifecycleTalker { logger })?;
    if autostart {
        // Run by the executor as soon as it spins: rclcpp's `configure()` and `activate()`.
        lifecycle.request(Transition::CONFIGURE)?;
        lifecycle.request(Transition::ACTIVATE)?;
    }
    let mut executor = WaitSetExecutor::new()?;
    executor.add(node)?;
    // Returns on Ctrl-C (SIGINT) or SIGTERM as well.
    executor.spin()?;
    Ok(())
}
