//! What the examples share: three sensor messages, a sensor rig that publishes them at real
//! rates on its own executor thread, and a short log of a node's runs.
//!
//! The scene: a vehicle drives along a road at 10 m/s towards a car parked 100 m ahead. The
//! radar measures the range to it, the camera says whether it sees it, and the transform
//! (a one-dimensional tf) gives the vehicle's position.

use std::error::Error;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tacto::{
    Context, Executor, Message, Node, SpinError, SpinOutcome, StopHandle, WaitSetExecutor,
};

/// How long each example runs, unless Ctrl-C stops it first.
pub const RUN_FOR: Duration = Duration::from_secs(3);

/// A radar sweep, reduced to the range of the target ahead.
#[tacto::message("example_msgs/msg/RadarScan")]
#[derive(Debug, Clone, Default)]
pub struct RadarScan {
    /// Distance to the target, metres.
    pub range_m: f64,
}

/// A camera frame, reduced to what a detector found in it.
#[tacto::message("example_msgs/msg/Image")]
#[derive(Debug, Clone, Default)]
pub struct Image {
    /// True if the target is in view.
    pub target_seen: bool,
}

/// The vehicle's pose in the map frame, reduced to its position along the road.
#[tacto::message("example_msgs/msg/Transform")]
#[derive(Debug, Clone, Default)]
pub struct Transform {
    /// Position along the road, metres.
    pub x_m: f64,
}

const SPEED_M_S: f64 = 10.0;
const TARGET_X_M: f64 = 100.0;

/// How many samples each sensor published.
#[derive(Debug, Clone, Copy)]
pub struct Published {
    pub radar: u64,
    pub camera: u64,
    pub tf: u64,
}

impl fmt::Display for Published {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Published { radar, camera, tf } = self;
        write!(f, "radar {radar}, camera {camera}, tf {tf}")
    }
}

/// Radar at 20 Hz, camera at 30 Hz and tf at 100 Hz, published by timers of a node that runs
/// on its own executor and thread, as drivers in another process would.
pub struct Sensors {
    counts: [Arc<AtomicU64>; 3],
    stop: StopHandle,
    thread: JoinHandle<Result<SpinOutcome, SpinError>>,
}

impl Sensors {
    /// Starts the sensors, and says so.
    pub fn start(ctx: &Context) -> Result<Self, Box<dyn Error>> {
        let start = Instant::now();
        let x_m = move || start.elapsed().as_secs_f64() * SPEED_M_S;
        let mut node = ctx.node("sensors")?;
        let counts = [
            sensor(&mut node, "radar", 20, move || RadarScan {
                range_m: TARGET_X_M - x_m(),
            })?,
            sensor(&mut node, "camera", 30, move || Image {
                target_seen: TARGET_X_M - x_m() < 80.0,
            })?,
            sensor(&mut node, "tf", 100, move || Transform { x_m: x_m() })?,
        ];
        let mut executor = WaitSetExecutor::new()?;
        executor.add(node)?;
        let stop = executor.stop_handle();
        let thread = std::thread::spawn(move || executor.spin());
        println!("sensors: radar 20 Hz, camera 30 Hz, tf 100 Hz, on their own executor thread.");
        println!("Running {} s; Ctrl-C stops.\n", RUN_FOR.as_secs());
        Ok(Sensors {
            counts,
            stop,
            thread,
        })
    }

    /// Stops the sensors and says how many samples each published.
    pub fn stop(self) -> Result<Published, Box<dyn Error>> {
        self.stop.stop();
        self.thread
            .join()
            .map_err(|_| "the sensor thread panicked")??;
        let [radar, camera, tf] = self.counts.map(|c| c.load(Ordering::Relaxed));
        Ok(Published { radar, camera, tf })
    }
}

/// A timer publishing `make()` on `topic` `hz` times a second; returns its publication count.
fn sensor<T: Message>(
    node: &mut Node,
    topic: &str,
    hz: u32,
    make: impl Fn() -> T + Send + 'static,
) -> Result<Arc<AtomicU64>, Box<dyn Error>> {
    let publisher = node.publisher::<T>(topic).create()?;
    let count = Arc::new(AtomicU64::new(0));
    let counter = count.clone();
    node.wall_timer(Duration::from_secs(1) / hz, move |_| {
        publisher.publish(make());
        counter.fetch_add(1, Ordering::Relaxed);
    })?;
    Ok(count)
}

/// Prints a node's runs: the first five, then one a second, each with the time since start.
pub struct RunLog {
    node: &'static str,
    start: Instant,
    runs: Arc<AtomicU64>,
    next_second: u64,
}

impl RunLog {
    pub fn new(node: &'static str) -> Self {
        RunLog {
            node,
            start: Instant::now(),
            runs: Arc::new(AtomicU64::new(0)),
            next_second: 1,
        }
    }

    /// A counter of this log's runs, to read after the executor stopped.
    pub fn runs(&self) -> Arc<AtomicU64> {
        self.runs.clone()
    }

    /// Counts a run, and prints `what` happened in it if it is one of the runs shown.
    pub fn run(&mut self, what: fmt::Arguments<'_>) {
        let run = self.runs.fetch_add(1, Ordering::Relaxed) + 1;
        let t = self.start.elapsed();
        if run <= 5 || t.as_secs() >= self.next_second {
            self.next_second = t.as_secs() + 1;
            println!(
                "{:7.3} s  {:>8} run {run:4}: {what}",
                t.as_secs_f64(),
                self.node
            );
        }
    }
}

/// One line saying how and when the spin ended.
pub fn ended(outcome: SpinOutcome, start: Instant) -> String {
    let how = match outcome {
        SpinOutcome::Interrupted => "interrupted",
        SpinOutcome::Elapsed | SpinOutcome::Stopped => "stopped",
    };
    format!("{how} after {:.2} s", start.elapsed().as_secs_f64())
}
