//! The action benchmark: a Fibonacci-style server and client, a goal every 100 ms, each goal
//! running 1 s with feedback at 10 Hz (about ten goals in flight), in one process or in two
//! over DDS. Prints the goals sent and lost, the goal round trip (send to result) p50/p99, the
//! CPU of each process and its RSS sampled once a second, with its growth after the warm-up.
//!
//! ```sh
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --duration 600
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --processes 2 --duration 600
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --executor events
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --processes 2 --load raw
//! ```
//!
//! Options: `--duration S` (measured, default 600), `--warmup S` (default 5), `--processes 1|2`
//! (default 1), `--executor wait-set|events|callback` (default wait-set), `--load
//! action|service|raw` (default action). With two processes the server is this program again
//! (`--serve`), on DDS in the domain of `ROS_DOMAIN_ID`. The last line is the result as JSON,
//! for scripts and tests.
//!
//! The loads other than `action` separate where memory goes over DDS: `service` is an
//! `example_interfaces/srv/AddTwoInts` call every 50 ms (a goal's two calls, send_goal and
//! get_result, per goal period) through tacto's nodes, executors and DDS links; `raw` is the
//! same calls through `tacto_dds::service`'s plain Cyclone reader and writer pairs, polled from
//! plain threads with no tacto runtime at all (two processes only): Cyclone's own baseline.

use std::collections::HashMap;
use std::error::Error;
use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::action::{ActionEvent, GoalHandle, GoalId, GoalStatus};
use tacto::{CallbackExecutor, Context, EventsExecutor, Executor, Node, Trigger, WaitSetExecutor};
use tacto_dds::service::{Client as RawClient, Server as RawServer};
use tacto_dds::{DdsTransport, Participant};
use tacto_msgs::example_interfaces::action::{
    Fibonacci, Fibonacci_Feedback, Fibonacci_Goal, Fibonacci_Result,
};
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

/// Goals of order 10: ten steps of 100 ms, so each runs about a second.
const ORDER: i32 = 10;
const STEP: Duration = Duration::from_millis(100);
const GOAL_PERIOD: Duration = Duration::from_millis(100);
/// The service loads' call period: a goal's two calls per goal period.
const CALL_PERIOD: Duration = Duration::from_millis(50);
/// How often the raw load's plain threads look for requests and replies.
const RAW_POLL: Duration = Duration::from_millis(1);

/// What the client sends and the server serves.
#[derive(Clone, Copy, PartialEq)]
enum Load {
    /// Fibonacci goals through tacto's action server and client.
    Action,
    /// AddTwoInts calls through tacto's service and client.
    Service,
    /// AddTwoInts calls through tacto-dds's raw Cyclone service endpoints, no tacto runtime.
    Raw,
}

impl Load {
    fn name(self) -> &'static str {
        match self {
            Load::Action => "action",
            Load::Service => "service",
            Load::Raw => "raw",
        }
    }
}

struct Args {
    duration: Duration,
    warmup: Duration,
    processes: u32,
    executor: String,
    load: Load,
    serve: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        duration: Duration::from_secs(600),
        warmup: Duration::from_secs(5),
        processes: 1,
        executor: "wait-set".into(),
        load: Load::Action,
        serve: false,
    };
    let mut it = std::env::args().skip(1);
    let seconds = |value: Option<String>, what: &str| -> Result<Duration, String> {
        let value = value.ok_or(format!("{what} needs a number of seconds"))?;
        match value.parse::<f64>() {
            Ok(s) if (0.0..=7.0 * 86400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
            _ => Err(format!(
                "{what} {value:?}: expected seconds from 0 to a week"
            )),
        }
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--duration" => args.duration = seconds(it.next(), "--duration")?,
            "--warmup" => args.warmup = seconds(it.next(), "--warmup")?,
            "--processes" => {
                args.processes = match it.next().as_deref() {
                    Some("1") => 1,
                    Some("2") => 2,
                    other => return Err(format!("--processes {other:?}: expected 1 or 2")),
                }
            }
            "--executor" => {
                args.executor = it.next().ok_or("--executor needs a kind")?;
                if !["wait-set", "events", "callback"].contains(&args.executor.as_str()) {
                    return Err(format!(
                        "--executor {:?}: expected wait-set, events or callback",
                        args.executor
                    ));
                }
            }
            "--load" => {
                args.load = match it.next().as_deref() {
                    Some("action") => Load::Action,
                    Some("service") => Load::Service,
                    Some("raw") => Load::Raw,
                    other => {
                        return Err(format!("--load {other:?}: expected action, service or raw"));
                    }
                }
            }
            "--serve" => args.serve = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.duration.is_zero() {
        return Err("--duration must be above 0".into());
    }
    if args.load == Load::Raw && args.processes == 1 && !args.serve {
        return Err("--load raw needs --processes 2: it has no in-process path".into());
    }
    Ok(args)
}

/// The server's node: takes goals and cancels when they arrive (so acceptance measures the
/// goal service's round trip), and advances every goal one number per step.
fn server_node(ctx: &Context) -> Result<Node, Box<dyn Error>> {
    let mut node = ctx.node("fibonacci_bench_server")?;
    let server = Arc::new(node.action_server::<Fibonacci>("fibonacci").create()?);
    type Running = Vec<(GoalHandle<Fibonacci>, Vec<i32>)>;
    // Both executables run in the node's default group, one at a time: never contended.
    let goals: Arc<Mutex<Running>> = Arc::default();
    let (taking, running) = (server.clone(), goals.clone());
    node.execute(server.trigger(), move |_| {
        let mut goals = running.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(request) = taking.take_goal() {
            if let Ok(handle) = request.accept()
                && handle.execute().is_ok()
            {
                goals.push((handle, vec![0, 1]));
            }
        }
        while let Some(cancel) = taking.take_cancel() {
            cancel.decide(|_| true);
        }
    })?;
    node.wall_timer(STEP, move |_| {
        let mut goals = goals.lock().unwrap_or_else(|p| p.into_inner());
        for (handle, sequence) in goals.iter_mut() {
            if sequence.len() > handle.goal().order as usize {
                let _ = handle.succeed(Fibonacci_Result {
                    sequence: sequence.clone(),
                });
            } else {
                let n = sequence.len();
                sequence.push(sequence[n - 1] + sequence[n - 2]);
                handle.publish_feedback(Fibonacci_Feedback {
                    sequence: sequence.clone(),
                });
            }
        }
        goals.retain(|(handle, _)| handle.is_active());
    })?;
    Ok(node)
}

/// What the client measured.
#[derive(Default)]
struct Tally {
    sent: u64,
    succeeded: u64,
    rejected: u64,
    feedback: u64,
    /// Round trips of goals sent after the warm-up, in µs.
    round_trips: Vec<u64>,
    /// Send to acceptance of goals sent after the warm-up, in µs: the goal service's round
    /// trip through both nodes' executors.
    acceptances: Vec<u64>,
    in_flight: HashMap<GoalId, (Instant, bool)>,
    /// The service loads' calls in flight, by sequence number.
    calls: HashMap<i64, (Instant, bool)>,
}

impl Tally {
    /// Records a call sent at `sent` (measured or not) with sequence number `sequence`.
    fn call_sent(&mut self, sequence: i64, sent: Instant, measured: bool) {
        self.sent += 1;
        self.calls.insert(sequence, (sent, measured));
    }

    /// Records the answer `sum` to call `sequence` (AddTwoInts of 2 and 3).
    fn call_answered(&mut self, sequence: i64, sum: i64) {
        if let Some((sent, measured)) = self.calls.remove(&sequence) {
            if sum == 5 {
                self.succeeded += 1;
            }
            if measured {
                self.round_trips.push(sent.elapsed().as_micros() as u64);
            }
        }
    }
}

/// The service load's server node: answers each AddTwoInts request when it arrives.
fn service_server_node(ctx: &Context) -> Result<Node, Box<dyn Error>> {
    let mut node = ctx.node("add_two_ints_bench_server")?;
    let service = node.service::<AddTwoInts>("add_two_ints").create()?;
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = service.take_request() {
            let sum = request.a.wrapping_add(request.b);
            service.send_response(id, AddTwoInts_Response { sum });
        }
    })?;
    Ok(node)
}

/// The service load's client node: a call every period while `sending`, answers taken when
/// they arrive.
fn service_client_node(
    ctx: &Context,
    tally: Arc<Mutex<Tally>>,
    measure_from: Instant,
    send_until: Instant,
) -> Result<Node, Box<dyn Error>> {
    let mut node = ctx.node("add_two_ints_bench_client")?;
    let client = Arc::new(node.client::<AddTwoInts>("add_two_ints").create()?);
    let (sender, sent) = (client.clone(), tally.clone());
    node.wall_timer(CALL_PERIOD, move |_| {
        let now = Instant::now();
        if now >= send_until || !sender.service_is_ready() {
            return;
        }
        if let Ok(id) = sender.send_request(AddTwoInts_Request { a: 2, b: 3 }) {
            let mut tally = sent.lock().unwrap_or_else(|p| p.into_inner());
            tally.call_sent(id.sequence, now, now >= measure_from);
        }
    })?;
    let answers = client.clone();
    node.execute(Trigger::any().with_responses(&client), move |_| {
        let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
        while let Some((id, response)) = answers.take_response() {
            tally.call_answered(id.sequence, response.sum);
        }
    })?;
    Ok(node)
}

/// The raw load's server: tacto-dds's plain Cyclone service endpoints, polled until `until`.
fn serve_raw(until: Instant) -> Result<(), Box<dyn Error>> {
    let participant = Participant::from_env()?;
    let server = RawServer::<AddTwoInts>::new(&participant, "add_two_ints")?;
    println!("ready");
    while Instant::now() < until {
        while let Some((id, request)) = server.take_request()? {
            let sum = request.a.wrapping_add(request.b);
            server.send_response(id, &AddTwoInts_Response { sum })?;
        }
        std::thread::sleep(RAW_POLL);
    }
    Ok(())
}

/// The raw load's client, on a plain thread: a call every period while `sending`, answers
/// polled, until `until`.
fn raw_client(
    tally: Arc<Mutex<Tally>>,
    measure_from: Instant,
    send_until: Instant,
    until: Instant,
) -> std::thread::JoinHandle<()> {
    let run = move || -> Result<(), Box<dyn Error>> {
        let participant = Participant::from_env()?;
        let client = RawClient::<AddTwoInts>::new(&participant, "add_two_ints")?;
        let mut next_call = Instant::now();
        while Instant::now() < until {
            let now = Instant::now();
            if now >= next_call && now < send_until && client.service_is_ready()? {
                next_call = now + CALL_PERIOD;
                let id = client.send_request(&AddTwoInts_Request { a: 2, b: 3 })?;
                let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
                tally.call_sent(id.sequence, now, now >= measure_from);
            }
            while let Some((id, response)) = client.take_response()? {
                let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
                tally.call_answered(id.sequence, response.sum);
            }
            std::thread::sleep(RAW_POLL);
        }
        Ok(())
    };
    std::thread::spawn(move || {
        if let Err(error) = run() {
            eprintln!("raw client: {error}");
        }
    })
}

/// The client's node: sends a goal every period while `sending`, and records results.
fn client_node(
    ctx: &Context,
    tally: Arc<Mutex<Tally>>,
    measure_from: Instant,
    send_until: Instant,
) -> Result<Node, Box<dyn Error>> {
    let mut node = ctx.node("fibonacci_bench_client")?;
    let client = Arc::new(node.action_client::<Fibonacci>("fibonacci").create()?);
    let sender = client.clone();
    let sent = tally.clone();
    node.wall_timer(GOAL_PERIOD, move |_| {
        let now = Instant::now();
        if now >= send_until || !sender.server_is_ready() {
            return;
        }
        if let Ok(id) = sender.send_goal(Fibonacci_Goal { order: ORDER }) {
            let mut tally = sent.lock().unwrap_or_else(|p| p.into_inner());
            tally.sent += 1;
            tally.in_flight.insert(id, (now, now >= measure_from));
        }
    })?;
    let events = client.clone();
    node.execute(client.trigger(), move |_| {
        let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(event) = events.take_event() {
            match event {
                ActionEvent::Feedback { .. } => tally.feedback += 1,
                ActionEvent::Accepted { goal, .. } => {
                    if let Some(&(sent, true)) = tally.in_flight.get(&goal) {
                        tally.acceptances.push(sent.elapsed().as_micros() as u64);
                    }
                }
                ActionEvent::Rejected { goal } => {
                    tally.rejected += 1;
                    tally.in_flight.remove(&goal);
                }
                ActionEvent::Result { goal, status, .. } => {
                    if let Some((sent, measured)) = tally.in_flight.remove(&goal) {
                        if status == GoalStatus::Succeeded {
                            tally.succeeded += 1;
                        }
                        if measured {
                            tally.round_trips.push(sent.elapsed().as_micros() as u64);
                        }
                    }
                }
                _ => {}
            }
        }
    })?;
    Ok(node)
}

/// Spins `nodes` on an executor of `kind` on a thread of its own until `stop` is set.
fn spin(kind: &str, nodes: Vec<Node>, until: Instant) -> std::thread::JoinHandle<()> {
    let kind = kind.to_owned();
    std::thread::spawn(move || {
        fn run<E: Executor>(mut executor: E, nodes: Vec<Node>, until: Instant) {
            for node in nodes {
                if let Err(error) = executor.add(node) {
                    eprintln!("cannot add a node: {error}");
                    return;
                }
            }
            let left = until.saturating_duration_since(Instant::now());
            if let Err(error) = executor.spin_for(left) {
                eprintln!("spin: {error}");
            }
        }
        let made = match kind.as_str() {
            "events" => EventsExecutor::new()
                .map(|e| run(e, nodes, until))
                .map_err(|e| e.to_string()),
            "callback" => CallbackExecutor::new()
                .map(|e| run(e, nodes, until))
                .map_err(|e| e.to_string()),
            _ => WaitSetExecutor::new()
                .map(|e| run(e, nodes, until))
                .map_err(|e| e.to_string()),
        };
        if let Err(error) = made {
            eprintln!("cannot make the executor: {error}");
        }
    })
}

/// A process's resident set and its anonymous part, in KiB: `VmRSS` and `RssAnon` of
/// `/proc/<pid>/status`. The rest of the resident set is file pages (the program's and its
/// libraries' code and data, mapped in as code first runs) and shared memory.
fn rss_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((field("VmRSS:")?, field("RssAnon:")?))
}

/// A process's CPU time (user + system), in seconds, from `/proc/<pid>/stat`.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th
    // fields of the line, 12th and 13th after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // Linux counts them in USER_HZ, 100 per second on every architecture it exports them.
    Some(ticks as f64 / 100.0)
}

/// The bytes this process has allocated with malloc and not freed, its Rust code's and
/// Cyclone's alike: glibc's in-use count over all arenas plus its mmapped blocks. Unlike the
/// RSS, it does not move when pages of a block already allocated are first touched (Cyclone's
/// 1 MiB receive buffers, filled front to back), so it shows a leak alone.
fn heap_bytes() -> u64 {
    // SAFETY: mallinfo2 takes nothing and returns a plain struct; glibc locks each arena
    // while it walks it.
    let info = unsafe { libc::mallinfo2() };
    (info.uordblks + info.hblkhd) as u64
}

/// RSS samples of one process after the warm-up (all of it, and its anonymous part: memory
/// the process allocated), and their growth.
#[derive(Default)]
struct Memory {
    samples: Vec<u64>,
    anon: Vec<u64>,
    /// This process's [`heap_bytes`], or the server's first and last as it reported them.
    heap: Vec<u64>,
}

impl Memory {
    fn new(room: usize) -> Memory {
        Memory {
            samples: touched(room),
            anon: touched(room),
            heap: touched(room),
        }
    }

    /// Samples process `pid`'s RSS, and this process's heap if `pid` is this process.
    fn sample(&mut self, pid: u32) {
        if let Some((rss, anon)) = rss_kib(pid) {
            self.samples.push(rss);
            self.anon.push(anon);
        }
        if pid == std::process::id() {
            self.heap.push(heap_bytes());
        }
    }

    /// The heap's growth, in %.
    fn heap_growth(&self) -> f64 {
        growth(&self.heap)
    }

    /// RSS growth from the first sample after the warm-up to the mean of the last three, in %.
    fn growth(&self) -> f64 {
        growth(&self.samples)
    }

    /// The anonymous RSS's growth, in %.
    fn anon_growth(&self) -> f64 {
        growth(&self.anon)
    }

    /// First and last samples, RSS and anonymous, in KiB.
    fn ends(&self) -> [u64; 4] {
        let first = |v: &[u64]| v.first().copied().unwrap_or(0);
        let last = |v: &[u64]| v.last().copied().unwrap_or(0);
        [
            first(&self.samples),
            last(&self.samples),
            first(&self.anon),
            last(&self.anon),
        ]
    }

    /// "a -> b KiB (+x%; anonymous c -> d KiB, +y%; heap e -> f B, +z%)".
    fn describe(&self) -> String {
        let [a, b, c, d] = self.ends();
        let heap_first = self.heap.first().copied().unwrap_or(0);
        let heap_last = self.heap.last().copied().unwrap_or(0);
        format!(
            "{a} -> {b} KiB ({:+.2}%; anonymous {c} -> {d} KiB, {:+.2}%; heap in use \
             {heap_first} -> {heap_last} B, {:+.2}%)",
            self.growth(),
            self.anon_growth(),
            self.heap_growth()
        )
    }
}

/// Growth from the first sample to the mean of the last three, in %.
fn growth(samples: &[u64]) -> f64 {
    let (Some(first), true) = (samples.first(), samples.len() >= 2) else {
        return 0.0;
    };
    let tail = &samples[samples.len().saturating_sub(3)..];
    let last = tail.iter().sum::<u64>() as f64 / tail.len() as f64;
    (last - *first as f64) / *first as f64 * 100.0
}

/// An empty vector whose room for `n` numbers is already in memory (written once).
fn touched(n: usize) -> Vec<u64> {
    let mut v = vec![1u64; n];
    v.clear();
    v
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)] as f64 / 1000.0
}

/// `ms` for the JSON line: `null` when nothing was measured (a service load has no acceptance).
fn json_ms(ms: f64) -> String {
    if ms.is_nan() {
        "null".to_owned()
    } else {
        format!("{ms:.3}")
    }
}

/// The server child of a two-process run, killed when dropped, and what it prints.
struct ServerProcess {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

impl ServerProcess {
    /// The heap samples the server reports at the end of its measurement (see
    /// [`report_heap`]): its first after the warm-up, then its last three.
    fn heap(&mut self) -> Vec<u64> {
        let line = self.lines.next().and_then(Result::ok).unwrap_or_default();
        let Some(numbers) = line.strip_prefix("heap ") else {
            eprintln!("the server reported no heap: {line:?}");
            return Vec::new();
        };
        numbers.split(' ').filter_map(|n| n.parse().ok()).collect()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// In a server process: samples its heap once a second from `measure_from` to `measure_until`,
/// then prints `heap <first> <last three>` for the client to read.
fn report_heap(measure_from: Instant, measure_until: Instant) {
    std::thread::spawn(move || {
        std::thread::sleep(measure_from.saturating_duration_since(Instant::now()));
        let first = heap_bytes();
        let mut last = [first; 3];
        let mut next = measure_from;
        while Instant::now() < measure_until {
            next += Duration::from_secs(1);
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
            last.rotate_left(1);
            last[2] = heap_bytes();
        }
        println!("heap {first} {} {} {}", last[0], last[1], last[2]);
    });
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    // Drain: every goal sent before the end must come back; one goal takes about a second.
    let drain = Duration::from_secs(5);
    if args.serve {
        let until = Instant::now() + args.warmup + args.duration + drain + Duration::from_secs(30);
        let measure_from = Instant::now() + args.warmup;
        report_heap(measure_from, measure_from + args.duration);
        if args.load == Load::Raw {
            return serve_raw(until);
        }
        let ctx = Context::builder()
            .transport(DdsTransport::from_env()?)
            .create();
        let node = match args.load {
            Load::Action => server_node(&ctx)?,
            _ => service_server_node(&ctx)?,
        };
        println!("ready");
        spin(&args.executor, vec![node], until)
            .join()
            .map_err(|_| "the server's executor thread panicked")?;
        return Ok(());
    }

    let start = Instant::now();
    let measure_from = start + args.warmup;
    let send_until = measure_from + args.duration;
    let until = send_until + drain;
    // The measurements' own buffers, allocated and written before the warm-up ends, so that
    // the RSS measured after it is the runtime's, not theirs.
    // Room for every goal (10 a second) or call (20 a second) of the run.
    let goals = (args.warmup + args.duration).as_secs() as usize * 20 + 100;
    let samples = (args.duration.as_secs() as usize) + 10;
    let mut tally = Tally {
        round_trips: touched(goals),
        acceptances: touched(goals),
        ..Tally::default()
    };
    tally.in_flight.reserve(1000);
    tally.calls.reserve(1000);
    let tally = Arc::new(Mutex::new(tally));
    let me = std::process::id();
    let client = |ctx: &Context| match args.load {
        Load::Action => client_node(ctx, tally.clone(), measure_from, send_until),
        _ => service_client_node(ctx, tally.clone(), measure_from, send_until),
    };
    let (ctx, mut server, spinner) = match args.processes {
        1 => {
            let ctx = Context::new();
            let server = match args.load {
                Load::Action => server_node(&ctx)?,
                _ => service_server_node(&ctx)?,
            };
            let nodes = vec![server, client(&ctx)?];
            let spinner = spin(&args.executor, nodes, until);
            (Some(ctx), None, spinner)
        }
        _ => {
            let mut child = Command::new(std::env::current_exe()?)
                .args(["--serve", "--executor", &args.executor])
                .args(["--load", args.load.name()])
                .arg("--duration")
                .arg(args.duration.as_secs_f64().to_string())
                .arg("--warmup")
                .arg(args.warmup.as_secs_f64().to_string())
                .stdout(Stdio::piped())
                .spawn()?;
            let stdout = child.stdout.take().ok_or("no stdout")?;
            let mut child = ServerProcess {
                child,
                lines: BufReader::new(stdout).lines(),
            };
            if child.lines.next().and_then(Result::ok).as_deref() != Some("ready") {
                return Err("the server process did not start".into());
            }
            if args.load == Load::Raw {
                let spinner = raw_client(tally.clone(), measure_from, send_until, until);
                (None, Some(child), spinner)
            } else {
                let ctx = Context::builder()
                    .transport(DdsTransport::from_env()?)
                    .create();
                let spinner = spin(&args.executor, vec![client(&ctx)?], until);
                (Some(ctx), Some(child), spinner)
            }
        }
    };
    let server_pid = server.as_ref().map(|s| s.child.id());
    let mut memory = Memory::new(samples);
    let mut server_memory = Memory::new(samples);
    let mut cpu_at_warmup = None;
    let mut next_sample = measure_from;
    while Instant::now() < send_until {
        std::thread::sleep(next_sample.saturating_duration_since(Instant::now()));
        next_sample += Duration::from_secs(1);
        if cpu_at_warmup.is_none() {
            cpu_at_warmup = Some((
                Instant::now(),
                cpu_seconds(me).unwrap_or(0.0),
                server_pid.and_then(cpu_seconds).unwrap_or(0.0),
            ));
        }
        memory.sample(me);
        if let Some(pid) = server_pid {
            server_memory.sample(pid);
        }
    }
    let (warm, cpu0, server_cpu0) = cpu_at_warmup.unwrap_or((measure_from, 0.0, 0.0));
    let measured = warm.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(me).unwrap_or(0.0) - cpu0) / measured * 100.0;
    let server_cpu = server_pid
        .and_then(cpu_seconds)
        .map(|now| (now - server_cpu0) / measured * 100.0);
    spinner.join().map_err(|_| "the executor thread panicked")?;
    if let Some(server) = &mut server {
        server_memory.heap = server.heap();
    }
    drop(server);
    drop(ctx);

    let tally = tally.lock().unwrap_or_else(|p| p.into_inner());
    let mut round_trips = tally.round_trips.clone();
    round_trips.sort_unstable();
    let lost = tally.sent - tally.succeeded - tally.rejected;
    let (p50, p99) = (
        percentile(&round_trips, 50.0),
        percentile(&round_trips, 99.0),
    );
    let mut acceptances = tally.acceptances.clone();
    acceptances.sort_unstable();
    let (accept_p50, accept_p99) = (
        percentile(&acceptances, 50.0),
        percentile(&acceptances, 99.0),
    );
    let processes = args.processes;
    println!(
        "{} load, {processes} process(es), {} executor, {:.0} s: {} sent, {} succeeded, \
         {} rejected, {lost} lost; {} feedback",
        args.load.name(),
        args.executor,
        args.duration.as_secs_f64(),
        tally.sent,
        tally.succeeded,
        tally.rejected,
        tally.feedback
    );
    println!(
        "round trip (send to result, {} measured; a goal runs ten 100 ms steps, a call none): \
         p50 {p50:.2} ms, p99 {p99:.2} ms",
        round_trips.len()
    );
    println!("send to acceptance: p50 {accept_p50:.3} ms, p99 {accept_p99:.3} ms");
    match server_cpu {
        None => println!(
            "CPU {cpu:.2}% of a core; RSS after warm-up -> end {}",
            memory.describe()
        ),
        Some(server_cpu) => println!(
            "CPU client {cpu:.2}%, server {server_cpu:.2}% of a core; RSS client {}, server {}",
            memory.describe(),
            server_memory.describe()
        ),
    }
    println!(
        "{{\"load\":\"{}\",\"processes\":{processes},\"executor\":\"{}\",\"sent\":{},\"succeeded\":{},\
         \"rejected\":{},\"lost\":{lost},\"measured_goals\":{},\"p50_ms\":{p50:.3},\
         \"p99_ms\":{p99:.3},\"accept_p50_ms\":{},\"accept_p99_ms\":{},\"cpu_percent\":{cpu:.3},\"server_cpu_percent\":{},\
         \"rss_samples\":{},\"rss_growth_percent\":{:.3},\"server_rss_growth_percent\":{:.3},\
         \"rss_anon_growth_percent\":{:.3},\"server_rss_anon_growth_percent\":{:.3},\
         \"heap_growth_percent\":{:.3},\"server_heap_growth_percent\":{:.3}}}",
        args.load.name(),
        args.executor,
        tally.sent,
        tally.succeeded,
        tally.rejected,
        round_trips.len(),
        json_ms(accept_p50),
        json_ms(accept_p99),
        server_cpu.map_or("null".to_owned(), |c| format!("{c:.3}")),
        memory.samples.len(),
        memory.growth(),
        server_memory.growth(),
        memory.anon_growth(),
        server_memory.anon_growth(),
        memory.heap_growth(),
        server_memory.heap_growth(),
    );
    Ok(())
}
