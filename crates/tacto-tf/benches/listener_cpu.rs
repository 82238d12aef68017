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
//! - **`rclcpp`** (with rclcpp's peer): rclcpp itself receiving a message of `/tf`'s size at
//!   its rate in 10 subscriptions, each node on a `SingleThreadedExecutor` thread of its own
//!   as each tf2_ros listener is, the callbacks empty: ros2-performance's `irobot_benchmark`,
//!   one process publishing, the measured one subscribing. The least a process of 10 rclcpp
//!   nodes holding tf2_ros listeners pays, before tf2's own work.
//! - **`ddsperf`** (with rclcpp's peer): raw Cyclone DDS (the peer's, 0.10.5) receiving a
//!   message of that size at that rate, `ddsperf sub` measured beside `ddsperf pub`: the
//!   floor without tacto's sample type or configuration.
//! - **`shm`** (not the DDS comparison): as `tacto`, `/tf` coming from a broadcaster process
//!   over shared memory (iceoryx2) instead of DDS; the DDS broadcaster is stopped meanwhile.
//!
//! rclcpp's peer is the `rclcpp-jazzy` folder `../shared/peers/install-rclcpp.sh` unpacks,
//! found at `RCLCPP_PEER` or `target/rclcpp-peer/rclcpp-jazzy` (where the tests unpack it);
//! without it those two phases are skipped, with a line saying so.
//!
//! Printed: the process's CPU time per second of each phase (user + system, from
//! `getrusage`, the transport's own threads included; for `rclcpp` and `ddsperf`, the
//! measured peer process's, from its threads' `schedstat`), its ratio to `tf2_ros`, and the
//! executor wake-ups `/tf` caused: tacto's executors have no `/tf` subscription, so only the
//! lookup executor's timer wake-ups are counted there; the tf2_ros-like listeners' executors
//! and rclcpp's listener threads wake for `/tf` alone.

mod chain;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use tacto::args::RosArgs;
use tacto::{Context, Executor, History, Qos, Time, WaitSetExecutor};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};
use tacto_msgs::tf2_msgs::msg::TFMessage;
use tacto_shm::ShmTransport;
use tacto_tf::{
    Buffer, LISTENER_AUTHORITY, Listener, ListenerOptions, TfWaker, TransformBroadcaster,
};

use chain::{FRAMES, frame, links};

const DOMAIN: u32 = 66;
const ROLE: &str = "TACTO_TF_BENCH_ROLE";
/// The `/tf` topic of the shared-memory phase, unique per run: shared memory has no domain.
const SHM_TOPIC: &str = "TACTO_TF_BENCH_SHM_TOPIC";
/// Cyclone on loopback alone, for this process and the peer's.
const LOOPBACK: &str = "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/>\
                        </Interfaces></General></Domain></CycloneDDS>";
const NODES: usize = 10;

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    Dds,
    Shm,
}

fn dds_context() -> Context {
    let mut config = DomainConfig::new(DOMAIN);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(LOOPBACK.into());
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

/// The other process: `/tf` at 100 Hz until killed.
fn broadcast(ctx: &Context) {
    let mut node = ctx.node("tf_bench_broadcaster").unwrap();
    let tf = TransformBroadcaster::new(&mut node).unwrap();
    let period = Duration::from_millis(10);
    let mut next = Instant::now();
    loop {
        tf.send_all(links(ctx.clock().now(tacto::ClockKind::System)));
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

/// CPU time so far of the threads of process `pid` (`"self"` for this one) whose names start
/// with one of `names` (every thread if `names` is empty), and the times they were scheduled
/// in, from each thread's `schedstat`.
fn threads_time(pid: &str, names: &[&str]) -> (Duration, u64) {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return (Duration::ZERO, 0);
    };
    let (nanos, runs) = tasks
        .filter_map(Result::ok)
        .filter(|task| {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            names.is_empty() || names.iter().any(|name| comm.trim().starts_with(name))
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
    let start_transport = threads_time("self", &CYCLONE).0;
    let start_listener = threads_time("self", &LISTENER);
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
        transport: threads_time("self", &CYCLONE)
            .0
            .saturating_sub(start_transport),
        listener: threads_time("self", &LISTENER)
            .0
            .saturating_sub(start_listener.0),
        listener_runs: threads_time("self", &LISTENER)
            .1
            .saturating_sub(start_listener.1),
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

/// rclcpp's peer (the `rclcpp-jazzy` folder `install-rclcpp.sh` unpacks): `RCLCPP_PEER`, or
/// where the tests unpack it, `target/rclcpp-peer/rclcpp-jazzy`.
fn rclcpp_peer() -> Option<PathBuf> {
    let dir = std::env::var_os("RCLCPP_PEER").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/rclcpp-peer/rclcpp-jazzy"),
        PathBuf::from,
    );
    dir.join("env.sh").exists().then_some(dir)
}

/// A process of rclcpp's peer, `command` run in `dir` with the peer on its paths, on this
/// benchmark's domain over loopback; killed on drop.
struct PeerProcess(Child);

impl PeerProcess {
    fn start(peer: &Path, dir: &Path, command: &str) -> PeerProcess {
        let child = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source \"$1/env.sh\" none && cd \"$2\" && exec {command}"
            ))
            .arg("peer")
            .arg(peer)
            .arg(dir)
            .env("ROS_DOMAIN_ID", DOMAIN.to_string())
            .env("CYCLONEDDS_URI", LOOPBACK)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("bash runs");
        PeerProcess(child)
    }

    fn pid(&self) -> String {
        self.0.id().to_string()
    }
}

impl Drop for PeerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The serialized size of one of the broadcaster's `/tf` messages.
fn tf_message_size() -> usize {
    let message = TFMessage {
        transforms: links(Time::ZERO),
    };
    tacto::cdr::to_vec(&message)
        .expect("a TFMessage encodes")
        .len()
}

/// Measures process `pid` for `seconds` once its threads named `ready` exist (all of its
/// threads if `ready` is empty) and it has run two seconds more; the scheduling-ins of its
/// threads named `wakers`, if any, are counted as wake-ups for `/tf`.
fn measure_peer(
    what: &str,
    pid: &str,
    ready: &[&str],
    wakers: Option<&[&str]>,
    seconds: u64,
) -> Phase {
    let wakeups = || wakers.map_or(0, |names| threads_time(pid, names).1);
    warm_up(what, || threads_time(pid, ready).1 > 0);
    thread::sleep(Duration::from_secs(2));
    let (start, start_transport) = (threads_time(pid, &[]).0, threads_time(pid, &CYCLONE).0);
    let start_wakeups = wakeups();
    thread::sleep(Duration::from_secs(seconds));
    let cpu = threads_time(pid, &[]).0.saturating_sub(start);
    assert!(cpu > Duration::ZERO, "{what}: the process ended early");
    Phase {
        cpu,
        transport: threads_time(pid, &CYCLONE)
            .0
            .saturating_sub(start_transport),
        seconds,
        tf_wakeups: wakeups().saturating_sub(start_wakeups),
        ..Phase::default()
    }
}

/// rclcpp receiving a message of `/tf`'s size at `/tf`'s rate in `NODES` subscriptions, each
/// node on a `SingleThreadedExecutor` thread of its own as a tf2_ros listener is, the
/// callbacks doing nothing: iRobot's `irobot_benchmark` from the peer, a process publishing
/// and the measured one subscribing. What any rclcpp listener pays before tf2's own work.
fn rclcpp(peer: &Path, seconds: u64) -> Phase {
    let dir = std::env::temp_dir().join(format!("tacto_tf_bench_rclcpp_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let size = tf_message_size();
    let publisher = format!(
        r#"{{"nodes": [{{"node_name": "tf_like_broadcaster", "publishers": [{{"topic_name": "tf_like",
            "msg_type": "stamped_vector", "msg_size": {size}, "period_ms": 10, "msg_pass_by": "shared_ptr"}}]}}]}}"#
    );
    let subscribers: Vec<String> = (0..NODES)
        .map(|i| {
            format!(
                r#"{{"node_name": "listener_{i}", "executor_id": {i}, "subscribers":
                    [{{"topic_name": "tf_like", "msg_type": "stamped_vector"}}]}}"#
            )
        })
        .collect();
    let subscribers = format!(r#"{{"nodes": [{}]}}"#, subscribers.join(", "));
    std::fs::write(dir.join("publisher.json"), publisher).expect("a topology file");
    std::fs::write(dir.join("listeners.json"), subscribers).expect("a topology file");
    // Long enough for discovery and the measure; both are killed once measured.
    let benchmark = format!(
        "\"$RCLCPP_PEER/perf/lib/irobot_benchmark/irobot_benchmark\" --ipc off -x 1 -t {}",
        seconds + 60
    );
    let _publisher = PeerProcess::start(peer, &dir, &format!("{benchmark} publisher.json"));
    let listeners = PeerProcess::start(peer, &dir, &format!("{benchmark} listeners.json"));
    let phase = measure_peer(
        "rclcpp",
        &listeners.pid(),
        &["listener_"],
        Some(&["listener_"]),
        seconds,
    );
    drop(listeners);
    let _ = std::fs::remove_dir_all(&dir);
    phase
}

/// Raw Cyclone receiving a message of `/tf`'s size at `/tf`'s rate: `ddsperf` from the peer
/// (Cyclone DDS 0.10.5, its own keyed type), a process publishing and the measured one
/// subscribing. What Cyclone's receive path costs without tacto's sample type or config.
fn ddsperf(peer: &Path, seconds: u64) -> Phase {
    let dir = std::env::temp_dir();
    let run = format!("ddsperf -D {} -i {DOMAIN}", seconds + 60);
    let size = tf_message_size();
    let _publisher = PeerProcess::start(peer, &dir, &format!("{run} pub 100Hz size {size}"));
    let subscriber = PeerProcess::start(peer, &dir, &format!("{run} sub"));
    measure_peer("ddsperf", &subscriber.pid(), &["recv"], None, seconds)
}

const PHASES: [&str; 8] = [
    "floor",
    "floor_nodes",
    "tacto",
    "wakers",
    "tf2_ros",
    "rclcpp",
    "ddsperf",
    "shm",
];

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

    let peer = rclcpp_peer();
    if peer.is_none() && (runs("rclcpp") || runs("ddsperf")) {
        eprintln!(
            "rclcpp and ddsperf: skipped: no rclcpp peer at RCLCPP_PEER or \
             target/rclcpp-peer/rclcpp-jazzy (../shared/peers/install-rclcpp.sh target/rclcpp-peer)"
        );
    }
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
        if let Some(peer) = &peer {
            if runs("rclcpp") {
                round[5] = Some(rclcpp(peer, seconds));
            }
            if runs("ddsperf") {
                round[6] = Some(ddsperf(peer, seconds));
            }
        }
        if runs("shm") {
            let topic = shm_topic();
            let ctx = shm_context("tf_bench_listener", &topic);
            let mut shm = spawn_broadcaster(Wire::Shm);
            round[7] = Some(tacto(&ctx, seconds, false));
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
        "/tf at 100 Hz, {FRAMES} links per message ({} bytes of CDR), {NODES} nodes looking \
         up at 10 Hz, {seconds} s per phase, {rounds} round(s)",
        tf_message_size()
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
