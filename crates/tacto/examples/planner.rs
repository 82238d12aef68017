//! The planner node: a period triggers it, and it takes everything new from three
//! subscriptions.
//!
//! Every 100 ms the node takes all radar scans, camera frames and transforms that arrived since
//! its last run. None of the 450 samples a second wakes its executor; only the period does.
//! Each history holds more than a period's worth of samples, so nothing is lost in between.
//!
//! ```sh
//! cargo run --release --example planner
//! ```

mod sensors;

use std::error::Error;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use sensors::{Image, RadarScan, RunLog, Sensors, Transform};
use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};

fn main() -> Result<(), Box<dyn Error>> {
    // `--ros-args` rename, remap and parameterise it as any ROS 2 node.
    let ctx = Context::from_args(std::env::args())?;
    let mut log = RunLog::new("planner");
    let runs = log.runs();

    let mut planner = ctx.node("planner")?;
    let radar = planner
        .subscription::<RadarScan>("radar")
        .history(History::KeepLast(5))
        .create()?;
    let camera = planner
        .subscription::<Image>("camera")
        .history(History::KeepLast(5))
        .create()?;
    let tf = planner
        .subscription::<Transform>("tf")
        .history(History::KeepLast(20))
        .create()?;
    planner.execute(Trigger::every(Duration::from_millis(100)), move |_| {
        // A real planner would plan a path from these; this one counts them.
        let scans = radar.take_all().count();
        let frames = camera.take_all().count();
        let poses = tf.take_all().count();
        let dropped = radar.dropped() + camera.dropped() + tf.dropped();
        log.run(format_args!(
            "took {scans} radar, {frames} camera, {poses} tf samples ({dropped} dropped so far)"
        ));
    })?;

    let mut executor = WaitSetExecutor::new()?;
    executor.add(planner)?;
    println!("planner node: triggered every 100 ms; takes everything new from radar, camera, tf.");

    let sensors = Sensors::start(&ctx)?;
    let start = Instant::now();
    let outcome = executor.spin_for(sensors::RUN_FOR)?;
    let published = sensors.stop()?;

    println!(
        "\n{}: sensors published {published}",
        sensors::ended(outcome, start)
    );
    println!(
        "planner ran {} times; its executor woke {} times: once per period, never for a sample.",
        runs.load(Ordering::Relaxed),
        executor.stats().wakeups,
    );
    Ok(())
}
