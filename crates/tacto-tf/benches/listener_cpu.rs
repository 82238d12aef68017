//! What hearing `/tf` costs a process: tacto's polling listener against a listener built as
//! tf2_ros builds one, side by side in one run, with the floor under both.
//!
//! ```sh
//! cargo bench -p tacto-tf --bench listener_cpu                 # 5 s per phase, one round
//! cargo bench -p tacto-tf --bench listener_cpu -- 10 3         # 10 s per phase, three rounds
//! cargo bench -p tacto-tf --bench listener_cpu -- 10 1 tacto   # only the phases named
//! ```
//!
//! Another process (this binary again) broadcasts `/tf` over DDS (domain 66, loopback) at
//! 100 Hz, each message the 30 links of a chain `map → f0 → … → f29`, stamped now. This
//! process has 10 nodes needing transforms: each looks up `map → f29` at time zero on a
//! 10 Hz timer, the 10 on one executor thread. The phases, SECONDS each, in this order in
//! every round (a round runs them all, so that a change of the machine's load between rounds
//! reaches every phase alike):
//!
//! - **`floor`**: a subscription to `/tf` with the listener's QoS that nothing reads, and
//!   no executor: what Cyclone's receive path costs (its receive thread, its reader cache),
//!   which any listener over DDS pays. Nothing of tacto runs per message.
//! - **`floor_nodes`**: the floor with the 10 nodes' timers, their lookups empty: what the
//!   whole scenario costs without tf.
//! - **`tacto`**: the nodes share [`Listener::of`] (polling subscriptions, no executor; the
//!   lookups and its 100 ms drain take in what arrived);
//! - **`wakers`**: as `tacto`, with a [`TfWaker`] per node installed and disarmed, as a node
//!   holding a [`TransformReady`](tacto_tf::TransformReady) with nothing waiting has: the
//!   listener's subscriptions then have an arrival hook, which DDS calls on each `/tf`
//!   message.
//! - **`tf2_ros`**: each node has a listener of its own, as each rclcpp node holding a
//!   `tf2_ros::TransformListener` does: a node with `/tf` and `/tf_static` subscriptions
//!   whose callbacks set every transform of every message into the node's buffer, on an
//!   executor thread of its own (tf2_ros's `spin_thread`), the node's lookups in that buffer.
//!   No more: the same decoding as any subscription of `TFMessage`, one `set_transform` a
//!   transform as tf2's `setTransform` takes its mutex for each.
//! - **`shm`** (not the DDS comparison): as `tacto`, `/tf` coming from a broadcaster process
//!   over shared memory (iceoryx2) instead of DDS; the DDS broadcaster is stopped meanwhile.
//!
//! Printed: the process's CPU time per second of each phase (user + system, from
//! `getrusage`, the transport's own threads included), its ratio to `tf2_ros`, and the
//! executor wake-ups `/tf` caused: tacto's executors have no `/tf` subscription, so only the
//! lookup executor's timer wake-ups are counted there; the tf2_ros-like listeners' executors
//! wake for `/tf` alone.

use std::process::{Child, Command};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use tacto::args::RosArgs;
use tacto::{Context, Executor, History, Qos, Time, WaitSetExecutor};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_msgs::tf2_msgs::msg::TFMessage;
use tacto_shm::ShmTransport;
use tacto_tf::{
    Buffer, LISTENER_AUTHORITY, Listener, ListenerOptions, TfWaker, TransformBroadcaster,
};

const DOMAIN: u32 = 66;
const ROLE: &str = "TACTO_TF_BENCH_ROLE";
/// The `/tf` topic of the shared-memory phase, unique per run: shared memory has no domain.
const SHM_TOPIC: &str = "TACTO_TF_BENCH_SHM_TOPIC";
const FRAMES: usize = 30;
const NODES: usize = 10;

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    Dds,
    Shm,
}

fn dds_context() -> Context {
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

/// A context on shared memory whose `/tf` is remapped to `topic`.
fn shm_context(name: &str, topic: &str) -> Context {
    let args = RosArgs::parse(["--ros-args", "-r", &format!("/tf:={topic}")]).unwrap();
    Context::builder()
        .transport(ShmTransport::new(name).expect("shared memory"))
        .arguments(args)
        .unwrap()
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
fn broadcast(ctx: &Context) {
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

fn spawn_broadcaster(wire: Wire) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    match wire {
        Wire::Dds => command.env(ROLE, "dds"),
        Wire::Shm => command.env(ROLE, "shm").env(SHM_TOPIC, shm_topic()),
    };
    command.spawn().expect("the broadcasting process")
}

fn shm_topic() -> String {
    std::env::var(SHM_TOPIC).unwrap_or_else(|_| format!("/tf_bench_{}", std::process::id()))
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

/// Cyclone's threads (receive, timed events, garbage, delivery): the part of a phase that no
/// listener design changes.
const CYCLONE: [&str; 6] = ["recv", "tev", "gc", "dq.", "lease", "xmit"];
/// tacto's listener's thread.
const LISTENER: [&str; 1] = ["tf_listener"];

/// CPU time so far of this process's threads whose names start with one of `names`, and the
/// times they were scheduled in, from each thread's `schedstat`.
fn threads_time(names: &[&str]) -> (Duration, u64) {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return (Duration::ZERO, 0);
    };
    let (nanos, runs) = tasks
        .filter_map(Result::ok)
        .filter(|task| {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            names.iter().any(|name| comm.trim().starts_with(name))
        })
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| {
            let mut fields = stat.split_whitespace();
            let nanos = fields.next()?.parse::<u64>().ok()?;
            let runs = fields.nth(1)?.parse::<u64>().ok()?;
            Some((nanos, runs))
        })
        .fold((0, 0), |(n, r), (nanos, runs)| (n + nanos, r + runs));
    (Duration::from_nanos(nanos), runs)
}

#[derive(Default, Clone, Copy)]
struct Phase {
    cpu: Duration,
    /// Of `cpu`, the transport's threads'.
    transport: Duration,
    /// Of `cpu`, the listener's thread's, and the times it was scheduled in.
    listener: Duration,
    listener_runs: u64,
    seconds: u64,
    lookup_wakeups: u64,
    tf_wakeups: u64,
    lookups_ok: u64,
}

impl Phase {
    fn per_second(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e3 / self.seconds as f64
    }

    fn transport_per_second(&self) -> f64 {
        self.transport.as_secs_f64() * 1e3 / self.seconds as f64
    }

    fn listener_per_second(&self) -> f64 {
        self.listener.as_secs_f64() * 1e3 / self.seconds as f64
    }

    fn add(&mut self, other: &Phase) {
        self.cpu += other.cpu;
        self.transport += other.transport;
        self.listener += other.listener;
        self.listener_runs += other.listener_runs;
        self.seconds += other.seconds;
        self.lookup_wakeups += other.lookup_wakeups;
        self.tf_wakeups += other.tf_wakeups;
        self.lookups_ok += other.lookups_ok;
    }
}

/// Runs for `seconds`: `NODES` nodes looking up on a 10 Hz timer with `lookup` as each
/// node's (none if `None`), beside `listeners`, executors of `/tf` alone.
fn phase(
    ctx: &Context,
    seconds: u64,
    lookup: Option<Box<dyn Fn(usize) -> bool + Send + Sync>>,
    mut listeners: Vec<WaitSetExecutor>,
) -> Phase {
    let run = Duration::from_secs(seconds);
    let ok = Arc::new(AtomicU64::new(0));
    let mut executor = lookup.map(|lookup| {
        let lookup: Arc<dyn Fn(usize) -> bool + Send + Sync> = Arc::from(lookup);
        let mut executor = WaitSetExecutor::new().unwrap();
        for i in 0..NODES {
            let mut node = ctx.node(&format!("needs_tf_{i}")).unwrap();
            let (lookup, ok) = (lookup.clone(), ok.clone());
            node.wall_timer(Duration::from_millis(100), move |_| {
                if lookup(i) {
                    ok.fetch_add(1, Ordering::Relaxed);
                }
            })
            .unwrap();
            executor.add(node).unwrap();
        }
        executor
    });
    let start_cpu = cpu_time();
    let start_transport = threads_time(&CYCLONE).0;
    let start_listener = threads_time(&LISTENER);
    let spinning: Vec<_> = listeners
        .drain(..)
        .map(|mut e| {
            thread::spawn(move || {
                e.spin_for(run).unwrap();
                e.stats().wakeups
            })
        })
        .collect();
    match &mut executor {
        Some(executor) => {
            executor.spin_for(run).unwrap();
        }
        None => thread::sleep(run),
    }
    let tf_wakeups = spinning.into_iter().map(|h| h.join().unwrap()).sum();
    let cpu = cpu_time() - start_cpu;
    Phase {
        cpu,
        transport: threads_time(&CYCLONE).0.saturating_sub(start_transport),
        listener: threads_time(&LISTENER).0.saturating_sub(start_listener.0),
        listener_runs: threads_time(&LISTENER).1.saturating_sub(start_listener.1),
        seconds,
        lookup_wakeups: executor.map_or(0, |e| e.stats().wakeups),
        tf_wakeups,
        lookups_ok: ok.load(Ordering::Relaxed),
    }
}

/// Waits, outside the measure, until `ready` holds: discovery and the first messages.
fn warm_up(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "no /tf from the broadcaster ({what})"
        );
        thread::sleep(Duration::from_millis(50));
    }
}

/// `/tf` with nothing of tacto on top: a subscription nothing reads, with the listener's QoS.
fn floor(seconds: u64, nodes: bool) -> Phase {
    let ctx = dds_context();
    let mut node = ctx.node("tf_floor").unwrap();
    let history = ListenerOptions::default().tf_history().unwrap();
    let tf = (node.subscription::<TFMessage>("/tf"))
        .qos(Qos::default().history(History::KeepLast(history)))
        .create()
        .unwrap();
    warm_up("floor", || tf.take().is_some());
    let lookup: Box<dyn Fn(usize) -> bool + Send + Sync> = Box::new(|_| true);
    phase(&ctx, seconds, nodes.then_some(lookup), Vec::new())
}

/// tacto's listener, shared by the nodes; with `wakers`, a disarmed waker per node.
fn tacto(ctx: &Context, seconds: u64, wakers: bool) -> Phase {
    let listener = Listener::of(ctx).unwrap();
    let mut holder = ctx.node("holds_wakers").unwrap();
    let _wakers: Vec<TfWaker> = (0..NODES * usize::from(wakers))
        .map(|_| listener.waker(holder.guard_condition()).unwrap())
        .collect();
    let target = frame(FRAMES);
    warm_up("tacto", || {
        listener
            .lookup_transform("map", &target, Time::ZERO)
            .is_ok()
    });
    let shared = listener.clone();
    let phase = phase(
        ctx,
        seconds,
        Some(Box::new(move |_| {
            shared.lookup_transform("map", &target, Time::ZERO).is_ok()
        })),
        Vec::new(),
    );
    assert_eq!(listener.stats().dropped, 0, "{:?}", listener.stats());
    phase
}

/// A listener per node, a callback per message on its own executor thread.
fn tf2_ros(seconds: u64) -> Phase {
    let ctx = dds_context();
    let buffers: Vec<Arc<Buffer>> = (0..NODES).map(|_| Arc::new(Buffer::new())).collect();
    let mut executors = Vec::new();
    for (i, buffer) in buffers.iter().enumerate() {
        let mut node = ctx.node(&format!("transform_listener_impl_{i}")).unwrap();
        // As tf2_ros's TransformListener: both topics, each message's transforms set one by
        // one into the node's buffer. DynamicListenerQoS: reliable, volatile, keep last 100;
        // StaticListenerQoS: the same, transient local (no static broadcaster here: idle).
        for (topic, qos, is_static) in [
            ("/tf", Qos::default(), false),
            ("/tf_static", Qos::default().transient_local(), true),
        ] {
            let buffer = buffer.clone();
            (node.subscription::<TFMessage>(topic))
                .qos(qos.history(History::KeepLast(100)))
                .callback(move |msg| {
                    for t in &msg.transforms {
                        let _ = buffer.set_transform(t, LISTENER_AUTHORITY, is_static);
                    }
                })
                .unwrap();
        }
        let mut executor = WaitSetExecutor::new().unwrap();
        executor.add(node).unwrap();
        executors.push(executor);
    }
    let target = frame(FRAMES);
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
    let mut phase = phase(
        &ctx,
        seconds,
        Some(Box::new(move |i| {
            buffers[i]
                .lookup_transform("map", &target, Time::ZERO)
                .is_ok()
        })),
        executors,
    );
    phase.tf_wakeups -= before;
    phase
}

const PHASES: [&str; 6] = ["floor", "floor_nodes", "tacto", "wakers", "tf2_ros", "shm"];

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("dds") => return broadcast(&dds_context()),
        Ok(_) => return broadcast(&shm_context("tf_bench_broadcaster", &shm_topic())),
        Err(_) => {}
    }
    let mut numbers = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<u64>().ok());
    let seconds = numbers.next().unwrap_or(5);
    let rounds = numbers.next().unwrap_or(1);
    let named: Vec<String> = (std::env::args().skip(1))
        .filter(|a| PHASES.contains(&a.as_str()))
        .collect();
    let runs = |name: &str| named.is_empty() || named.iter().any(|n| n == name);

    let mut totals = [Phase::default(); PHASES.len()];
    let mut ratios: Vec<[f64; PHASES.len()]> = Vec::new();
    for _ in 0..rounds {
        let mut round = [None; PHASES.len()];
        let mut dds = spawn_broadcaster(Wire::Dds);
        if runs("floor") {
            round[0] = Some(floor(seconds, false));
        }
        if runs("floor_nodes") {
            round[1] = Some(floor(seconds, true));
        }
        if runs("tacto") {
            round[2] = Some(tacto(&dds_context(), seconds, false));
        }
        if runs("wakers") {
            round[3] = Some(tacto(&dds_context(), seconds, true));
        }
        if runs("tf2_ros") {
            round[4] = Some(tf2_ros(seconds));
        }
        let _ = dds.kill();
        let _ = dds.wait();
        if runs("shm") {
            let topic = shm_topic();
            let ctx = shm_context("tf_bench_listener", &topic);
            let mut shm = spawn_broadcaster(Wire::Shm);
            round[5] = Some(tacto(&ctx, seconds, false));
            let _ = shm.kill();
            let _ = shm.wait();
        }
        let tf2 = round[4].map(|p| p.per_second());
        let mut ratio = [f64::NAN; PHASES.len()];
        for (i, phase) in round.iter().enumerate() {
            if let Some(phase) = phase {
                totals[i].add(phase);
                ratio[i] = tf2.map_or(f64::NAN, |tf2| phase.per_second() / tf2);
            }
        }
        ratios.push(ratio);
    }

    println!(
        "/tf at 100 Hz, {FRAMES} links per message, {NODES} nodes looking up at 10 Hz, \
         {seconds} s per phase, {rounds} round(s)"
    );
    println!(
        "{:>12} {:>9} {:>10} {:>9} {:>9} {:>9} {:>22} {:>8} {:>10} {:>8}",
        "phase",
        "CPU ms/s",
        "transport",
        "listener",
        "the rest",
        "lst runs",
        "ratio to tf2_ros",
        "lookups",
        "lookup wk",
        "/tf wk"
    );
    for (i, name) in PHASES.iter().enumerate() {
        let total = &totals[i];
        if total.seconds == 0 {
            continue;
        }
        let each: Vec<String> = ratios.iter().map(|r| format!("{:.3}", r[i])).collect();
        println!(
            "{name:>12} {:>9.2} {:>10.2} {:>9.2} {:>9.2} {:>9} {:>22} {:>8} {:>10} {:>8}",
            total.per_second(),
            total.transport_per_second(),
            total.listener_per_second(),
            total.per_second() - total.transport_per_second() - total.listener_per_second(),
            total.listener_runs,
            each.join(" "),
            total.lookups_ok,
            total.lookup_wakeups,
            total.tf_wakeups,
        );
    }
}
