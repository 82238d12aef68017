//! *take-from-timer*: Autoware's proposal to read a node's inputs on its timer instead of
//! caching them in subscription callbacks, on its own node, both ways.
//!
//! The node: three inputs at 10, 30 and 50 Hz, a 10 Hz timer that reads the newest of each and
//! publishes one output. Written two ways:
//!
//! - *callbacks*: each input has a callback that stores the sample in a member (a
//!   `Mutex<Option<Sample>>`, rclcpp's `shared_ptr` member), and the timer reads the members;
//!   every input message wakes the executor and runs a callback.
//! - *polling*: the inputs are polling subscriptions (`KeepLast(1)`) that wake nothing; the
//!   timer `take()`s each, keeping the last value when nothing new came, as the cache does.
//!
//! `copies` such nodes run on one executor thread (`seeds-nodes`); the inputs are published
//! by one driver node on an executor thread of its own, identical in every variant. What a
//! variant costs is the CPU and wake-ups of the nodes' thread (from `/proc/self/task`), and of
//! the whole process (the driver included) beside it.

use std::fs;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tacto::msg::builtin_interfaces::Time;
use tacto::msg::std_msgs::Header;
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThread, History, Sample,
    WaitSetExecutor,
};

use crate::result::RunResult;
use tacto_launch::interrupt::Interrupt;
use tacto_launch::measure::Snapshot;

/// The inputs' rates, Hz, as in the proposal.
pub const INPUT_RATES_HZ: [u64; 3] = [10, 30, 50];
/// The node's timer.
pub const TIMER: Duration = Duration::from_millis(100);
/// The name of the thread the nodes run on, found again in `/proc/self/task`.
const NODES_THREAD: &str = "seeds-nodes";

/// How the node reads its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// Callbacks cache each input; the timer reads the cache.
    Callbacks,
    /// Polling subscriptions, taken on the timer.
    Polling,
}

/// The executor the nodes run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum On {
    /// `CallbackExecutor`, rclcpp's single-threaded executor.
    Callback,
    /// `EventsExecutor`.
    Events,
    /// `WaitSetExecutor`.
    WaitSet,
}

/// The variants, in the order they run and are listed: the proposal's "before" first.
pub const VARIANTS: [(Style, On); 4] = [
    (Style::Callbacks, On::Callback),
    (Style::Callbacks, On::Events),
    (Style::Polling, On::Callback),
    (Style::Polling, On::WaitSet),
];

/// What one variant measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// How the nodes read.
    pub style: Style,
    /// Their executor.
    pub on: On,
    /// The nodes' thread: CPU, % of one core.
    pub nodes_cpu_pct: f64,
    /// The nodes' thread: voluntary context switches per second.
    pub nodes_wakeups_per_s: f64,
    /// The whole process (the driver too): CPU, % of one core.
    pub process_cpu_pct: f64,
    /// The whole process: voluntary context switches per second.
    pub process_wakeups_per_s: f64,
    /// Outputs published per second, all copies (`copies` × 10 when the nodes keep up).
    pub outputs_per_s: f64,
}

impl Style {
    /// The name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Style::Callbacks => "callbacks (cache)",
            Style::Polling => "polling (take on timer)",
        }
    }
}

impl On {
    /// The executor's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            On::Callback => "callback",
            On::Events => "events",
            On::WaitSet => "wait-set",
        }
    }

    fn executor(self) -> Result<Box<dyn Executor>, String> {
        Ok(match self {
            On::Callback => Box::new(CallbackExecutor::new().map_err(|e| e.to_string())?),
            On::Events => Box::new(EventsExecutor::new().map_err(|e| e.to_string())?),
            On::WaitSet => Box::new(WaitSetExecutor::new().map_err(|e| e.to_string())?),
        })
    }
}

/// Why a variant did not finish.
#[derive(Debug)]
pub enum VariantError {
    /// Ctrl-C.
    Interrupted,
    /// Building or running failed, said in a sentence.
    Failed(String),
}

/// Runs `copies` nodes of `style` on `on` for `warmup`, then measures them for `window`.
pub fn run(
    style: Style,
    on: On,
    copies: usize,
    warmup: Duration,
    window: Duration,
    interrupt: &Interrupt,
) -> Result<Measured, VariantError> {
    let failed =
        |e: String| VariantError::Failed(format!("{} on {}: {e}", style.name(), on.name()));
    let ctx = Context::new();
    let outputs = Arc::new(AtomicU64::new(0));
    let mut nodes = Vec::with_capacity(copies);
    for copy in 0..copies {
        nodes.push(node(&ctx, copy, style, &outputs).map_err(failed)?);
    }
    let driver = driver(&ctx, copies).map_err(failed)?;
    let mut executor = on.executor().map_err(failed)?;
    for node in nodes {
        executor.add(node).map_err(|e| failed(e.to_string()))?;
    }
    let spawn = |name: &str, executor: Box<dyn Executor>| {
        ExecutorThread::builder()
            .name(name)
            .spawn(executor)
            .map_err(|e| failed(e.to_string()))
    };
    let nodes_thread = spawn(NODES_THREAD, executor)?;
    let mut driver_executor: Box<dyn Executor> =
        Box::new(WaitSetExecutor::new().map_err(|e| failed(e.to_string()))?);
    driver_executor
        .add(driver)
        .map_err(|e| failed(e.to_string()))?;
    let driver_thread = spawn("seeds-inputs", driver_executor)?;

    let measured = (|| {
        if !interrupt.sleep(warmup) {
            return Err(VariantError::Interrupted);
        }
        let tid = thread_id(NODES_THREAD)
            .ok_or_else(|| failed(format!("no thread {NODES_THREAD} in /proc/self/task")))?;
        let (start, thread_start) = (Snapshot::now(), ThreadUsage::of(tid).map_err(failed)?);
        let outputs_start = outputs.load(Ordering::Relaxed);
        let began = Instant::now();
        if !interrupt.sleep(window) {
            return Err(VariantError::Interrupted);
        }
        let (end, thread_end) = (Snapshot::now(), ThreadUsage::of(tid).map_err(failed)?);
        let seconds = began.elapsed().as_secs_f64();
        let mut process = RunResult::default();
        process.set_usage(&tacto_launch::measure::Usage::between(&start, &end));
        Ok(Measured {
            style,
            on,
            nodes_cpu_pct: (thread_end.cpu_ns - thread_start.cpu_ns) as f64 / 1e9 / seconds * 100.0,
            nodes_wakeups_per_s: (thread_end.wakeups - thread_start.wakeups) as f64 / seconds,
            process_cpu_pct: process.cpu_pct_core,
            process_wakeups_per_s: process.wakeups_per_s,
            outputs_per_s: (outputs.load(Ordering::Relaxed) - outputs_start) as f64 / seconds,
        })
    })();
    for thread in [&nodes_thread, &driver_thread] {
        thread.stop();
    }
    for thread in [nodes_thread, driver_thread] {
        match thread.join() {
            Ok((_, Ok(_))) => {}
            Ok((_, Err(e))) => return Err(failed(e.to_string())),
            Err(e) => return Err(failed(e.to_string())),
        }
    }
    measured
}

/// The topic of copy `copy`'s input at `rate` Hz.
fn input(copy: usize, rate: u64) -> String {
    format!("/take_from_timer_{copy}/input_{rate}hz")
}

/// One copy of the proposal's node, written in `style`; each output counts in `outputs`.
fn node(
    ctx: &Context,
    copy: usize,
    style: Style,
    outputs: &Arc<AtomicU64>,
) -> Result<tacto::Node, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let mut node = ctx
        .node(&format!("take_from_timer_{copy}"))
        .map_err(|e| text(&e))?;
    let output = (node.publisher::<Header>(&format!("/take_from_timer_{copy}/output")))
        .create()
        .map_err(|e| text(&e))?;
    let outputs = outputs.clone();
    // The output carries the newest input's stamp: the timer reads every input.
    let publish = move |newest: Time| {
        output.publish(Header {
            stamp: newest,
            frame_id: String::new(),
        });
        outputs.fetch_add(1, Ordering::Relaxed);
    };
    let newest = |inputs: &[Option<Sample<Header>>]| {
        (inputs.iter().flatten())
            .map(|s| s.stamp)
            .max_by_key(|t| (t.sec, t.nanosec))
            .unwrap_or_default()
    };
    match style {
        Style::Callbacks => {
            let mut caches = Vec::new();
            for rate in INPUT_RATES_HZ {
                let cache = Arc::new(Mutex::new(None::<Sample<Header>>));
                let store = cache.clone();
                (node.subscription::<Header>(&input(copy, rate)))
                    .history(History::KeepLast(1))
                    .callback(move |sample| {
                        *store.lock().unwrap_or_else(PoisonError::into_inner) = Some(sample);
                    })
                    .map_err(|e| text(&e))?;
                caches.push(cache);
            }
            node.wall_timer(TIMER, move |_| {
                let inputs: Vec<Option<Sample<Header>>> = (caches.iter())
                    .map(|c| c.lock().unwrap_or_else(PoisonError::into_inner).clone())
                    .collect();
                publish(newest(&inputs));
            })
            .map_err(|e| text(&e))?;
        }
        Style::Polling => {
            let mut subscriptions = Vec::new();
            for rate in INPUT_RATES_HZ {
                subscriptions.push(
                    (node.subscription::<Header>(&input(copy, rate)))
                        .history(History::KeepLast(1))
                        .create()
                        .map_err(|e| text(&e))?,
                );
            }
            let mut last: Vec<Option<Sample<Header>>> = vec![None; subscriptions.len()];
            node.wall_timer(TIMER, move |_| {
                for (sub, last) in subscriptions.iter().zip(&mut last) {
                    if let Some(sample) = sub.take() {
                        *last = Some(sample);
                    }
                }
                publish(newest(&last));
            })
            .map_err(|e| text(&e))?;
        }
    }
    Ok(node)
}

/// The node that publishes every copy's inputs, one timer per rate.
fn driver(ctx: &Context, copies: usize) -> Result<tacto::Node, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let mut node = ctx.node("take_from_timer_inputs").map_err(|e| text(&e))?;
    let clock = ctx.clock().clone();
    for rate in INPUT_RATES_HZ {
        let publishers = (0..copies)
            .map(|copy| node.publisher::<Header>(&input(copy, rate)).create())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| text(&e))?;
        let clock = clock.clone();
        node.wall_timer(Duration::from_secs(1) / rate as u32, move |_| {
            let now = clock.now(tacto::ClockKind::System);
            for publisher in &publishers {
                publisher.publish(Header {
                    stamp: now.into(),
                    frame_id: "base_link".into(),
                });
            }
        })
        .map_err(|e| text(&e))?;
    }
    Ok(node)
}

/// The id of this process's thread named `name`.
fn thread_id(name: &str) -> Option<u64> {
    let tasks = fs::read_dir("/proc/self/task").ok()?;
    tasks.flatten().find_map(|task| {
        let comm = fs::read_to_string(task.path().join("comm")).ok()?;
        (comm.trim_end() == name)
            .then(|| task.file_name().to_str()?.parse().ok())
            .flatten()
    })
}

/// One thread's CPU time and voluntary context switches so far.
struct ThreadUsage {
    cpu_ns: u64,
    wakeups: u64,
}

impl ThreadUsage {
    fn of(tid: u64) -> Result<ThreadUsage, String> {
        let dir = format!("/proc/self/task/{tid}");
        let read = |file: &str| {
            fs::read_to_string(format!("{dir}/{file}")).map_err(|e| format!("{dir}/{file}: {e}"))
        };
        // schedstat: time on the CPU (ns), time waiting for it, time slices.
        let cpu_ns = (read("schedstat")?.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("{dir}/schedstat: no CPU time"))?;
        let status = read("status")?;
        let wakeups = (status.lines())
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("{dir}/status: no voluntary_ctxt_switches"))?;
        Ok(ThreadUsage { cpu_ns, wakeups })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nodes_thread_is_found_by_name_and_its_usage_read() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("seeds-probe".into())
            .spawn(move || rx.recv())
            .unwrap();
        // The thread names itself once it runs.
        let deadline = Instant::now() + Duration::from_secs(5);
        let tid = loop {
            match thread_id("seeds-probe") {
                Some(tid) => break tid,
                None if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                None => panic!("no thread seeds-probe in /proc/self/task"),
            }
        };
        let usage = ThreadUsage::of(tid).unwrap();
        assert!(usage.cpu_ns > 0);
        tx.send(()).unwrap();
        thread.join().unwrap().unwrap();
        assert_eq!(thread_id("no-such-thread"), None);
    }

    #[test]
    fn both_styles_publish_one_output_per_copy_and_timer_period() {
        let interrupt = Interrupt::install().unwrap();
        for (style, on) in [
            (Style::Callbacks, On::Callback),
            (Style::Polling, On::WaitSet),
        ] {
            let m = run(
                style,
                on,
                2,
                Duration::from_millis(200),
                Duration::from_secs(1),
                &interrupt,
            )
            .unwrap_or_else(|e| panic!("{style:?} on {on:?}: {e:?}"));
            // 2 copies at 10 Hz: 20 a second, give or take the window's edges.
            assert!((14.0..=26.0).contains(&m.outputs_per_s), "{m:?}");
            assert!(m.nodes_cpu_pct > 0.0 && m.process_cpu_pct > 0.0, "{m:?}");
        }
    }
}
