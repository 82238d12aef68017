//! What hearing `/tf` costs a process: tacto's polling listener against a listener built as
//! tf2_ros builds one, side by side in one run.
//!
//! ```sh
//! cargo bench -p tacto-tf --bench listener_cpu          # or: ... -- SECONDS (default 5)
//! ```
//!
//! Another process (this binary again) broadcasts `/tf` over DDS (domain 66, loopback) at
//! 100 Hz, each message the 30 links of a chain `map → f0 → … → f29`, stamped now. This
//! process has 10 nodes needing transforms: each looks up `map → f29` at time zero on a
//! 10 Hz timer, the 10 on one executor thread. Two phases of SECONDS each:
//!
//! - **tacto**: the nodes share [`Listener::of`] (polling subscriptions, no executor; the
//!   lookups and its 100 ms drain take in what arrived);
//! - **tf2_ros-like**: each node has a listener of its own, as each rclcpp node holding a
//!   `tf2_ros::TransformListener` does: a `/tf` subscription whose callback inserts every
//!   message into the node's buffer, on an executor thread of its own (tf2_ros's
//!   `spin_thread`).
//!
//! - **tacto, wakers installed**: as the first, with a [`TfWaker`] per node installed and
//!   disarmed, as a node holding a [`TransformReady`](tacto_tf::TransformReady) with nothing
//!   waiting has: the listener's subscriptions then have an arrival hook, which DDS calls on
//!   each `/tf` message.
//!
//! Printed: the process's CPU time per second of each phase (user + system, from
//! `getrusage`, DDS's own threads included in both), their ratio, and the executor
//! wake-ups `/tf` caused: tacto's executors have no `/tf` subscription, so only the lookup
//! executor's timer wake-ups are counted there; the tf2_ros-like listeners' executors wake
//! for `/tf` alone.

use std::process::{Child, Command};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use tacto::{Context, Executor, History, Qos, Time, WaitSetExecutor};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_msgs::tf2_msgs::msg::TFMessage;
use tacto_tf::{Buffer, LISTENER_AUTHORITY, Listener, TfWaker, TransformBroadcaster};

const DOMAIN: u32 = 66;
const ROLE: &str = "TACTO_TF_BENCH_ROLE";
const FRAMES: usize = 30;
const NODES: usize = 10;

fn context() -> Context {
    let mut config = DomainConfig::new(DOMAIN);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(
        "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/>\
         </Interfaces></General></Domain></CycloneDDS>"
            .into(),
    );
    let participant = Participant::new(&config).expect("participant");
    Context::builder()
        .transport(DdsTransport::new(participant))
        .create()
}

fn frame(i: usize) -> String {
    if i == 0 {
        "map".into()
    } else {
        format!("f{}", i - 1)
    }
}

/// The other process: `/tf` at 100 Hz until killed.
fn broadcast() {
    let ctx = context();
    let mut node = ctx.node("tf_bench_broadcaster").unwrap();
    let tf = TransformBroadcaster::new(&mut node).unwrap();
    let period = Duration::from_millis(10);
    let mut next = Instant::now();
    loop {
        let stamp = ctx.clock().now(tacto::ClockKind::System);
        let links = (0..FRAMES)
            .map(|i| {
                let mut t = TransformStamped::default();
                t.header.frame_id = frame(i);
                t.header.stamp = stamp.into();
                t.child_frame_id = frame(i + 1);
                t.transform.translation.x = 0.1;
                t
            })
            .collect();
        tf.send_all(links);
        next += period;
        thread::sleep(next.saturating_duration_since(Instant::now()));
    }
}

/// The process's CPU time so far (user + system, threads that ended included), to the
/// microsecond: `/proc/self/stat`'s ticks (10 ms) are too coarse for a few ms a second.
fn cpu_time() -> Duration {
    // SAFETY: getrusage only writes the struct it is given, which lives for the call.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

struct Phase {
    cpu_per_second: Duration,
    lookup_wakeups: u64,
    tf_wakeups: u64,
    lookups_ok: u64,
}

/// Runs `NODES` nodes looking up on a 10 Hz timer for `seconds`, with `lookup` as each
/// node's; `listeners` are executors of `/tf` alone, spun beside them.
fn phase(
    ctx: &Context,
    seconds: u64,
    lookup: impl Fn(usize) -> bool + Send + Sync + 'static,
    mut listeners: Vec<WaitSetExecutor>,
) -> Phase {
    let lookup = Arc::new(lookup);
    let ok = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut executor = WaitSetExecutor::new().unwrap();
    for i in 0..NODES {
        let mut node = ctx.node(&format!("needs_tf_{i}")).unwrap();
        let (lookup, ok) = (lookup.clone(), ok.clone());
        node.wall_timer(Duration::from_millis(100), move |_| {
            if lookup(i) {
                ok.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .unwrap();
        executor.add(node).unwrap();
    }
    let run = Duration::from_secs(seconds);
    let start_cpu = cpu_time();
    let spinning: Vec<_> = listeners
        .drain(..)
        .map(|mut e| {
            thread::spawn(move || {
                e.spin_for(run).unwrap();
                e.stats().wakeups
            })
        })
        .collect();
    executor.spin_for(run).unwrap();
    let tf_wakeups = spinning.into_iter().map(|h| h.join().unwrap()).sum();
    let cpu = cpu_time() - start_cpu;
    Phase {
        cpu_per_second: cpu / seconds as u32,
        lookup_wakeups: executor.stats().wakeups,
        tf_wakeups,
        lookups_ok: ok.load(std::sync::atomic::Ordering::Relaxed),
    }
}

fn main() {
    if std::env::var_os(ROLE).is_some() {
        broadcast();
        return;
    }
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let mut broadcaster: Child = Command::new(std::env::current_exe().unwrap())
        .env(ROLE, "broadcaster")
        .spawn()
        .expect("the broadcasting process");

    let target = frame(FRAMES);
    // tacto: one shared listener, no executor; with `wakers`, a disarmed waker per node.
    let tacto = |wakers: bool| {
        let ctx = context();
        let listener = Listener::of(&ctx).unwrap();
        let mut holder = ctx.node("holds_wakers").unwrap();
        let _wakers: Vec<TfWaker> = (0..NODES * usize::from(wakers))
            .map(|_| listener.waker(holder.guard_condition()).unwrap())
            .collect();
        // Discovery and the first messages, outside the measure.
        let deadline = Instant::now() + Duration::from_secs(60);
        while listener
            .lookup_transform("map", &target, Time::ZERO)
            .is_err()
        {
            assert!(Instant::now() < deadline, "no /tf from the broadcaster");
            thread::sleep(Duration::from_millis(50));
        }
        let target = target.clone();
        let shared = listener.clone();
        let phase = phase(
            &ctx,
            seconds,
            move |_| shared.lookup_transform("map", &target, Time::ZERO).is_ok(),
            Vec::new(),
        );
        assert_eq!(listener.stats().dropped, 0, "{:?}", listener.stats());
        phase
    };
    let tacto_wakers = tacto(true);
    let tacto = tacto(false);
    // tf2_ros-like: a listener per node, a callback per message on its own executor.
    let tf2_ros = {
        let ctx = context();
        let buffers: Vec<Arc<Buffer>> = (0..NODES).map(|_| Arc::new(Buffer::new())).collect();
        let mut executors = Vec::new();
        for (i, buffer) in buffers.iter().enumerate() {
            let mut node = ctx.node(&format!("transform_listener_impl_{i}")).unwrap();
            let buffer = buffer.clone();
            (node.subscription::<TFMessage>("/tf"))
                .qos(Qos::default().history(History::KeepLast(100)))
                .callback(move |msg| {
                    for t in &msg.transforms {
                        let _ = buffer.set_transform(t, LISTENER_AUTHORITY, false);
                    }
                })
                .unwrap();
            let mut executor = WaitSetExecutor::new().unwrap();
            executor.add(node).unwrap();
            executors.push(executor);
        }
        let warm: Vec<_> = executors
            .into_iter()
            .map(|mut e| {
                thread::spawn(move || {
                    e.spin_for(Duration::from_secs(2)).unwrap();
                    e
                })
            })
            .collect();
        let executors: Vec<_> = warm.into_iter().map(|h| h.join().unwrap()).collect();
        let before: u64 = executors.iter().map(|e| e.stats().wakeups).sum();
        let target = target.clone();
        let mut phase = phase(
            &ctx,
            seconds,
            move |i| {
                buffers[i]
                    .lookup_transform("map", &target, Time::ZERO)
                    .is_ok()
            },
            executors,
        );
        phase.tf_wakeups -= before;
        phase
    };
    let _ = broadcaster.kill();
    let _ = broadcaster.wait();

    println!(
        "/tf at 100 Hz, {FRAMES} links per message, {NODES} nodes looking up at 10 Hz, {seconds} s per phase"
    );
    let phases = [
        ("tacto Listener::of", &tacto),
        ("tacto, wakers", &tacto_wakers),
        ("tf2_ros-like", &tf2_ros),
    ];
    for (name, p) in phases {
        println!(
            "{name:>20}: CPU {:>7.2} ms/s, lookups ok {:>4}, lookup executor wake-ups {:>4}, wake-ups of /tf executors {:>5}",
            p.cpu_per_second.as_secs_f64() * 1e3,
            p.lookups_ok,
            p.lookup_wakeups,
            p.tf_wakeups,
        );
    }
    println!(
        "CPU ratio tacto / tf2_ros-like: {:.3}; with wakers: {:.3}",
        tacto.cpu_per_second.as_secs_f64() / tf2_ros.cpu_per_second.as_secs_f64(),
        tacto_wakers.cpu_per_second.as_secs_f64() / tf2_ros.cpu_per_second.as_secs_f64()
    );
}
