//! The fusion node: radar triggers it; camera and tf are read when it runs, and wake nothing.
//!
//! On each radar scan the node takes every new scan, the latest camera frame and the latest
//! transform, and publishes where the target is. The sensors publish from another executor
//! thread (see `sensors/mod.rs`); at the end the fusion executor's wake-up count shows that
//! only radar woke it.
//!
//! ```sh
//! cargo run --release --example fusion
//! ```

mod sensors;

use std::error::Error;
use std::sync::atomic::Ordering;
use std::time::Instant;

use sensors::{Image, RadarScan, RunLog, Sensors, Transform};
use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};

/// Where the fused target is.
#[tacto::message("example_msgs/msg/Target")]
#[derive(Debug, Clone, Default)]
struct Target {
    /// Position along the road, metres.
    x_m: f64,
    /// True if the camera confirms it.
    confirmed: bool,
}

fn main() -> Result<(), Box<dyn Error>> {
    // `--ros-args` rename, remap and parameterise it as any ROS 2 node.
    let ctx = Context::from_args(std::env::args())?;
    let mut log = RunLog::new("fusion");
    let runs = log.runs();

    let mut fusion = ctx.node("fusion")?;
    let radar = fusion
        .subscription::<RadarScan>("radar")
        .history(History::KeepLast(10))
        .create()?;
    let camera = fusion
        .subscription::<Image>("camera")
        .history(History::KeepLast(1))
        .create()?;
    let tf = fusion
        .subscription::<Transform>("tf")
        .history(History::KeepLast(1))
        .create()?;
    let target = fusion.publisher::<Target>("target").create()?;
    fusion.execute(Trigger::on(&radar), move |_| {
        let (Some(image), Some(pose)) = (camera.latest(), tf.latest()) else {
            radar.take_all().for_each(drop); // consume what triggered us, or we run again at once
            return;
        };
        let mut scans = 0;
        for scan in radar.take_all() {
            let x_m = pose.x_m + scan.range_m;
            target.publish(Target {
                x_m,
                confirmed: image.target_seen,
            });
            scans += 1;
        }
        log.run(format_args!(
            "took {scans} radar scan(s); read camera frame #{}, tf #{}",
            image.info().sequence,
            pose.info().sequence,
        ));
    })?;

    let mut executor = WaitSetExecutor::new()?;
    executor.add(fusion)?;
    println!("fusion node: triggered by radar only; camera and tf are read when it runs.");

    let sensors = Sensors::start(&ctx)?;
    let start = Instant::now();
    let outcome = executor.spin_for(sensors::RUN_FOR)?;
    let published = sensors.stop()?;

    println!(
        "\n{}: sensors published {published}",
        sensors::ended(outcome, start)
    );
    println!(
        "fusion ran {} times for {} radar scans; its executor woke {} times.",
        runs.load(Ordering::Relaxed),
        published.radar,
        executor.stats().wakeups,
    );
    println!(
        "The {} camera and tf samples woke nothing: the node read the latest of each when it ran.",
        published.camera + published.tf
    );
    Ok(())
}
