//! A process of components, in the child (`tacto launch-process FILE NAME`): a component
//! container. It makes the process's context on the file's transport, its executors (each on a
//! thread of its own, with its name, CPUs and priority), places each node (found in the
//! component registry, named, namespaced and given its arguments) on its executor, and runs
//! until SIGTERM; then it stops the executors and reports its CPU use.

use std::time::Duration;

use tacto::{
    CallbackExecutor, EventsExecutor, Executor, ExecutorThread, LetExecutor, ThreadPoolExecutor,
    WaitSetExecutor,
};
use tacto_component::Style;

use super::components::{ComponentsProcess, ExecutorSpec};
use super::file::LaunchFile;
use super::process::{ProcessError, context};
use crate::executors::ExecutorKind;
use crate::interrupt::Interrupt;
use crate::measure::{self, Snapshot};
use crate::result::RunResult;
use crate::system::SystemError;

/// How often the process looks whether it was asked to stop.
const LOOK: Duration = Duration::from_millis(200);

/// Runs the components of process `name` of `file` until a signal asks it to stop, printing
/// what runs where, and at the end its CPU use.
pub fn run(
    file: &LaunchFile,
    name: &str,
    process: &ComponentsProcess,
    interrupt: &Interrupt,
) -> Result<(), ProcessError> {
    let hosted = start(file, name, process, true)?;
    let start = Snapshot::now();
    println!(
        "running {} nodes on {} executors",
        process.nodes.len(),
        process.executors.len()
    );
    while !interrupt.requested() {
        interrupt.sleep(LOOK);
    }
    let mut usage = RunResult::default();
    measure::fill(&mut usage, &start, &Snapshot::now());
    hosted.stop()?;
    println!(
        "cpu: {:.3} % of a core, {:.1} wake-ups/s, {} kB resident at the end",
        usage.cpu_pct_core, usage.wakeups_per_s, usage.rss_end_kb
    );
    Ok(())
}

/// Runs the components of process `name` of `file` as placed for `warmup`, then measures the
/// process over `duration` (its CPU, memory once a second, wake-ups), as `tacto bench` measures
/// a run; the result's executor is `as placed`.
pub fn measure(
    file: &LaunchFile,
    name: &str,
    process: &ComponentsProcess,
    warmup: Duration,
    duration: Duration,
    interrupt: &Interrupt,
) -> Result<RunResult, ProcessError> {
    let hosted = start(file, name, process, false)?;
    if !interrupt.sleep(warmup) {
        return Err(ProcessError::Interrupted);
    }
    let start = Snapshot::now();
    let mut rss_kb_per_s = Vec::new();
    let mut left = duration;
    while !left.is_zero() {
        let step = left.min(Duration::from_secs(1));
        if !interrupt.sleep(step) {
            return Err(ProcessError::Interrupted);
        }
        left -= step;
        rss_kb_per_s.push(measure::rss_kb());
    }
    let mut result = RunResult {
        executor: AS_PLACED.into(),
        rss_kb_per_s,
        ..Default::default()
    };
    measure::fill(&mut result, &start, &Snapshot::now());
    hosted.stop()?;
    Ok(result)
}

/// What a measured run of a file of components calls its executors: the file's own.
pub const AS_PLACED: &str = "as placed";

/// A process's components, running on their executor threads; the context outlives them.
struct Hosted {
    threads: Vec<(String, ExecutorThread<Box<dyn Executor>>)>,
    _ctx: tacto::Context,
}

/// Makes the process's context, executors and nodes and starts the executor threads; says
/// where each node is placed if `say`.
fn start(
    file: &LaunchFile,
    name: &str,
    process: &ComponentsProcess,
    say: bool,
) -> Result<Hosted, ProcessError> {
    let ctx = context(file, name)?;
    let mut executors = Vec::new();
    for spec in &process.executors {
        executors.push(executor(spec)?);
    }
    for placement in &process.nodes {
        let spec = &process.executors[placement.executor];
        let style = match spec.kind.uses_callbacks() {
            true => Style::Callbacks,
            false => Style::Polling,
        };
        let node = tacto_component::find(&placement.component)?.instantiate(
            &ctx,
            Some(&placement.name),
            Some(&placement.namespace),
            &placement.arguments(),
            style,
        )?;
        executors[placement.executor]
            .add(node)
            .map_err(|e| SystemError::Build(e.to_string()))?;
        if say {
            println!(
                "placed {} ({}) on {} ({})",
                placement.fully_qualified_name(),
                placement.component,
                spec.thread,
                spec.kind
            );
        }
    }
    let mut threads = Vec::new();
    for (spec, executor) in process.executors.iter().zip(executors) {
        let mut thread = ExecutorThread::builder().name(&spec.thread);
        if let Some(cpus) = &spec.cpus {
            thread = thread.cpus(cpus);
        }
        if let Some(priority) = spec.fifo_priority {
            thread = thread.fifo_priority(priority);
        }
        let spawned = thread
            .spawn(executor)
            .map_err(|e| SystemError::Build(format!("executor {:?}: {e}", spec.thread)))?;
        threads.push((spec.thread.clone(), spawned));
    }
    Ok(Hosted { threads, _ctx: ctx })
}

impl Hosted {
    /// Stops every executor together, then joins them.
    fn stop(self) -> Result<(), SystemError> {
        for (_, thread) in &self.threads {
            thread.stop();
        }
        for (name, thread) in self.threads {
            let (_, outcome) = thread
                .join()
                .map_err(|e| SystemError::Run(format!("executor {name:?}: {e}")))?;
            outcome.map_err(|e| SystemError::Run(format!("executor {name:?}: {e}")))?;
        }
        Ok(())
    }
}

/// The executor `spec` asks for.
fn executor(spec: &ExecutorSpec) -> Result<Box<dyn Executor>, SystemError> {
    let creating = |e: &dyn std::error::Error| {
        SystemError::Build(format!(
            "creating executor {:?} ({}): {e}",
            spec.thread, spec.kind
        ))
    };
    Ok(match spec.kind {
        ExecutorKind::Callback => Box::new(CallbackExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::CallbackMt => Box::new(ThreadPoolExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::Events => Box::new(EventsExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::WaitSet => Box::new(WaitSetExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::Let => {
            let period = spec.let_period.ok_or_else(|| {
                SystemError::Build(format!(
                    "executor {:?}: a let executor without period",
                    spec.thread
                ))
            })?;
            Box::new(LetExecutor::new(period).map_err(|e| creating(&e))?)
        }
        ExecutorKind::Prioritized => {
            return Err(SystemError::Build(format!(
                "executor {:?}: prioritized is a layout of several threads, not one executor",
                spec.thread
            )));
        }
    })
}
