//! The action benchmark: a Fibonacci-style server and client, a goal every 100 ms, each goal
//! running 1 s with feedback at 10 Hz (about ten goals in flight), in one process or in two
//! over DDS. Prints the goals sent and lost, the goal round trip (send to result) p50/p99, the
//! CPU of each process and its RSS sampled once a second, with its growth after the warm-up.
//!
//! ```sh
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --duration 600
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --processes 2 --duration 600
//! cargo run --release -p tacto-dds --example fibonacci_action_bench -- --executor events
//! ```
//!
//! Options: `--duration S` (measured, default 600), `--warmup S` (default 5), `--processes 1|2`
//! (default 1), `--executor wait-set|events|callback` (default wait-set). With two processes
//! the server is this program again (`--serve`), on DDS in the domain of `ROS_DOMAIN_ID`.
//! The last line is the result as JSON, for scripts and tests.

use std::collections::HashMap;
use std::error::Error;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::action::{ActionEvent, GoalHandle, GoalId, GoalStatus};
use tacto::{CallbackExecutor, Context, EventsExecutor, Executor, Node, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::action::{
    Fibonacci, Fibonacci_Feedback, Fibonacci_Goal, Fibonacci_Result,
};

/// Goals of order 10: ten steps of 100 ms, so each runs about a second.
const ORDER: i32 = 10;
const STEP: Duration = Duration::from_millis(100);
const GOAL_PERIOD: Duration = Duration::from_millis(100);

struct Args {
    duration: Duration,
    warmup: Duration,
    processes: u32,
    executor: String,
    serve: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        duration: Duration::from_secs(600),
        warmup: Duration::from_secs(5),
        processes: 1,
        executor: "wait-set".into(),
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
            "--serve" => args.serve = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.duration.is_zero() {
        return Err("--duration must be above 0".into());
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

/// A process's resident set, in KiB: `VmRSS` of `/proc/<pid>/status`.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
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

/// RSS samples of one process after the warm-up, and its growth over them.
#[derive(Default)]
struct Memory {
    samples: Vec<u64>,
}

impl Memory {
    /// Growth from the first sample after the warm-up to the mean of the last three, in %.
    fn growth(&self) -> f64 {
        let (Some(first), true) = (self.samples.first(), self.samples.len() >= 2) else {
            return 0.0;
        };
        let tail = &self.samples[self.samples.len().saturating_sub(3)..];
        let last = tail.iter().sum::<u64>() as f64 / tail.len() as f64;
        (last - *first as f64) / *first as f64 * 100.0
    }
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

/// The server child of a two-process run, killed when dropped.
struct ServerProcess(Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    // Drain: every goal sent before the end must come back; one goal takes about a second.
    let drain = Duration::from_secs(5);
    if args.serve {
        let ctx = Context::builder()
            .transport(DdsTransport::from_env()?)
            .create();
        let until = Instant::now() + args.warmup + args.duration + drain + Duration::from_secs(30);
        println!("ready");
        spin(&args.executor, vec![server_node(&ctx)?], until)
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
    let goals = (args.warmup + args.duration).as_secs() as usize * 10 + 100;
    let samples = (args.duration.as_secs() as usize) + 10;
    let mut tally = Tally {
        round_trips: touched(goals),
        acceptances: touched(goals),
        ..Tally::default()
    };
    tally.in_flight.reserve(1000);
    let tally = Arc::new(Mutex::new(tally));
    let me = std::process::id();
    let (ctx, server, spinner) = match args.processes {
        1 => {
            let ctx = Context::new();
            let nodes = vec![
                server_node(&ctx)?,
                client_node(&ctx, tally.clone(), measure_from, send_until)?,
            ];
            let spinner = spin(&args.executor, nodes, until);
            (ctx, None, spinner)
        }
        _ => {
            let mut child = ServerProcess(
                Command::new(std::env::current_exe()?)
                    .args(["--serve", "--executor", &args.executor])
                    .arg("--duration")
                    .arg(args.duration.as_secs_f64().to_string())
                    .arg("--warmup")
                    .arg(args.warmup.as_secs_f64().to_string())
                    .stdout(Stdio::piped())
                    .spawn()?,
            );
            let stdout = child.0.stdout.take().ok_or("no stdout")?;
            let mut lines = BufReader::new(stdout).lines();
            if lines.next().and_then(Result::ok).as_deref() != Some("ready") {
                return Err("the server process did not start".into());
            }
            let ctx = Context::builder()
                .transport(DdsTransport::from_env()?)
                .create();
            let nodes = vec![client_node(&ctx, tally.clone(), measure_from, send_until)?];
            let spinner = spin(&args.executor, nodes, until);
            (ctx, Some(child), spinner)
        }
    };
    let server_pid = server.as_ref().map(|s| s.0.id());
    let mut memory = Memory {
        samples: touched(samples),
    };
    let mut server_memory = Memory {
        samples: touched(samples),
    };
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
        memory.samples.extend(rss_kib(me));
        if let Some(pid) = server_pid {
            server_memory.samples.extend(rss_kib(pid));
        }
    }
    let (warm, cpu0, server_cpu0) = cpu_at_warmup.unwrap_or((measure_from, 0.0, 0.0));
    let measured = warm.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(me).unwrap_or(0.0) - cpu0) / measured * 100.0;
    let server_cpu = server_pid
        .and_then(cpu_seconds)
        .map(|now| (now - server_cpu0) / measured * 100.0);
    spinner.join().map_err(|_| "the executor thread panicked")?;
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
        "actions, {processes} process(es), {} executor, {:.0} s: {} goals sent, {} succeeded, \
         {} rejected, {lost} lost; {} feedback",
        args.executor,
        args.duration.as_secs_f64(),
        tally.sent,
        tally.succeeded,
        tally.rejected,
        tally.feedback
    );
    println!(
        "goal round trip (send to result, {} goals; a goal runs ten 100 ms steps): p50 \
         {p50:.2} ms, p99 {p99:.2} ms",
        round_trips.len()
    );
    println!("send to acceptance: p50 {accept_p50:.3} ms, p99 {accept_p99:.3} ms");
    let first = |m: &Memory| m.samples.first().copied().unwrap_or(0);
    let last = |m: &Memory| m.samples.last().copied().unwrap_or(0);
    match server_cpu {
        None => println!(
            "CPU {cpu:.2}% of a core; RSS {} KiB after warm-up, {} KiB at the end ({:+.2}%)",
            first(&memory),
            last(&memory),
            memory.growth()
        ),
        Some(server_cpu) => println!(
            "CPU client {cpu:.2}%, server {server_cpu:.2}% of a core; RSS client {} -> {} KiB \
             ({:+.2}%), server {} -> {} KiB ({:+.2}%)",
            first(&memory),
            last(&memory),
            memory.growth(),
            first(&server_memory),
            last(&server_memory),
            server_memory.growth()
        ),
    }
    println!(
        "{{\"processes\":{processes},\"executor\":\"{}\",\"sent\":{},\"succeeded\":{},\
         \"rejected\":{},\"lost\":{lost},\"measured_goals\":{},\"p50_ms\":{p50:.3},\
         \"p99_ms\":{p99:.3},\"accept_p50_ms\":{accept_p50:.3},\"accept_p99_ms\":{accept_p99:.3},\"cpu_percent\":{cpu:.3},\"server_cpu_percent\":{},\
         \"rss_samples\":{},\"rss_growth_percent\":{:.3},\"server_rss_growth_percent\":{:.3}}}",
        args.executor,
        tally.sent,
        tally.succeeded,
        tally.rejected,
        round_trips.len(),
        server_cpu.map_or("null".to_owned(), |c| format!("{c:.3}")),
        memory.samples.len(),
        memory.growth(),
        server_memory.growth(),
    );
    Ok(())
}
