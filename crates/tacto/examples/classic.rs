//! Migrating from ROS 2: a classic node (a callback per message, and a timer) and a polling
//! node, side by side in one executor.
//!
//! Both compute the same thing: where the target is, from each radar scan and the latest
//! camera frame and transform. The classic node, as in rclcpp, runs a callback for every
//! camera and tf message only to store it for the radar callback. The polling node runs once
//! per radar scan and reads the latest camera frame and transform when it needs them. Nodes
//! can be migrated one at a time: the wait-set executor runs both styles.
//!
//! ```sh
//! cargo run --release --example classic
//! ```

mod sensors;

use std::error::Error;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

    // Classic: callbacks store the latest camera frame and pose for the radar callback.
    let mut classic = ctx.node("classic")?;
    let image = Arc::new(Mutex::new(Image::default()));
    let pose = Arc::new(Mutex::new(Transform::default()));
    let latest = image.clone();
    classic
        .subscription::<Image>("camera")
        .callback(move |msg| {
            *latest.lock().unwrap() = (*msg).clone();
        })?;
    let latest = pose.clone();
    classic
        .subscription::<Transform>("tf")
        .callback(move |msg| {
            *latest.lock().unwrap() = (*msg).clone();
        })?;
    let target = classic.publisher::<Target>("target").create()?;
    let (latest_image, latest_pose) = (image.clone(), pose.clone());
    classic
        .subscription::<RadarScan>("radar")
        .callback(move |scan| {
            let x_m = latest_pose.lock().unwrap().x_m + scan.range_m;
            let confirmed = latest_image.lock().unwrap().target_seen;
            target.publish(Target { x_m, confirmed });
        })?;
    let start = Instant::now();
    classic.wall_timer(Duration::from_secs(1), move |_| {
        let t = start.elapsed().as_secs_f64();
        let x_m = pose.lock().unwrap().x_m;
        println!("{t:7.3} s   classic timer: vehicle at {x_m:.1} m");
    })?;

    // Polling: radar triggers the node; camera and tf are read when it runs.
    let mut log = RunLog::new("polling");
    let runs = log.runs();
    let mut polling = ctx.node("polling")?;
    let radar = polling
        .subscription::<RadarScan>("radar")
        .history(History::KeepLast(10))
        .create()?;
    let camera = polling
        .subscription::<Image>("camera")
        .history(History::KeepLast(1))
        .create()?;
    let tf = polling
        .subscription::<Transform>("tf")
        .history(History::KeepLast(1))
        .create()?;
    let target = polling.publisher::<Target>("target").create()?;
    polling.execute(Trigger::on(&radar), move |_| {
        let pose_x_m = tf.latest().map_or(0.0, |pose| pose.x_m);
        let confirmed = camera.latest().is_some_and(|image| image.target_seen);
        let mut scans = 0;
        for scan in radar.take_all() {
            target.publish(Target {
                x_m: pose_x_m + scan.range_m,
                confirmed,
            });
            scans += 1;
        }
        log.run(format_args!(
            "took {scans} radar scan(s); read the latest camera frame and tf"
        ));
    })?;

    let mut executor = WaitSetExecutor::new()?;
    executor.add(classic)?;
    executor.add(polling)?;
    println!("classic node: a callback per radar, camera and tf message, and a 1 s timer.");
    println!("polling node: triggered by radar; reads the latest camera and tf when it runs.");

    let sensors = Sensors::start(&ctx)?;
    let start = Instant::now();
    let outcome = executor.spin_for(sensors::RUN_FOR)?;
    let published = sensors.stop()?;

    println!(
        "\n{}: sensors published {published}",
        sensors::ended(outcome, start)
    );
    let stats = executor.stats();
    let polling_runs = runs.load(Ordering::Relaxed);
    println!(
        "For the same targets, classic ran {} times (a callback per message, and its timer), polling {polling_runs} times.",
        stats.executions - polling_runs,
    );
    println!("The executor woke {} times.", stats.wakeups);
    Ok(())
}
