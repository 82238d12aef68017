//! A node with a condition trigger: it runs only when radar AND camera both have unread data.
//!
//! The condition looks at the subscriptions through `Probe`s, which see their histories without
//! marking anything read. Radar and camera samples both wake the executor, to check the
//! condition; the node itself runs only when it holds. `Trigger::all()` is the shorthand for
//! this condition; a second node uses it on its own subscriptions and runs as often.
//!
//! ```sh
//! cargo run --release --example condition
//! ```

mod sensors;

use std::error::Error;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use sensors::{Image, RadarScan, RunLog, Sensors};
use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};

fn main() -> Result<(), Box<dyn Error>> {
    // `--ros-args` rename, remap and parameterise it as any ROS 2 node.
    let ctx = Context::from_args(std::env::args())?;
    let mut log = RunLog::new("paired");
    let runs = log.runs();

    let mut paired = ctx.node("paired")?;
    let radar = paired
        .subscription::<RadarScan>("radar")
        .history(History::KeepLast(10))
        .create()?;
    let camera = paired
        .subscription::<Image>("camera")
        .history(History::KeepLast(1))
        .create()?;
    let (r, c) = (radar.probe(), camera.probe());
    let both_new = Trigger::when(move || r.has_new() && c.has_new())
        .with(&radar)
        .with(&camera);
    paired.execute(both_new, move |_| {
        let scans = radar.take_all().count();
        let frame = camera.latest().map_or(0, |image| image.info().sequence);
        log.run(format_args!(
            "took {scans} radar scan(s); read camera frame #{frame}"
        ));
    })?;

    // The same rule, written with the shorthand.
    let mut paired_all = ctx.node("paired_all")?;
    let radar = paired_all
        .subscription::<RadarScan>("radar")
        .history(History::KeepLast(10))
        .create()?;
    let camera = paired_all
        .subscription::<Image>("camera")
        .history(History::KeepLast(1))
        .create()?;
    let runs_all = Arc::new(AtomicU64::new(0));
    let counter = runs_all.clone();
    paired_all.execute(Trigger::all().with(&radar).with(&camera), move |_| {
        radar.take_all().for_each(drop);
        camera.latest();
        counter.fetch_add(1, Ordering::Relaxed);
    })?;

    let mut executor = WaitSetExecutor::new()?;
    executor.add(paired)?;
    executor.add(paired_all)?;
    println!("paired node: runs when radar and camera both have unread data (Trigger::when).");

    let sensors = Sensors::start(&ctx)?;
    let start = Instant::now();
    let outcome = executor.spin_for(sensors::RUN_FOR)?;
    let published = sensors.stop()?;

    println!(
        "\n{}: sensors published {published}",
        sensors::ended(outcome, start)
    );
    println!(
        "The {} radar and camera samples woke the executor {} times to check the condition;",
        published.radar + published.camera,
        executor.stats().wakeups,
    );
    println!(
        "it held {} times for paired, {} times for paired_all (Trigger::all).",
        runs.load(Ordering::Relaxed),
        runs_all.load(Ordering::Relaxed),
    );
    Ok(())
}
