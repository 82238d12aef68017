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

use crate::components::{ComponentsProcess, ExecutorSpec};
use crate::executors::ExecutorKind;
use crate::file::LaunchFile;
use crate::interrupt::Interrupt;
use crate::measure::{Snapshot, Usage};
use crate::process::ProcessError;

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
    let usage = Usage::between(&start, &Snapshot::now());
    hosted.stop()?;
    println!(
        "cpu: {:.3} % of a core, {:.1} wake-ups/s, {} kB resident at the end",
        usage.cpu_pct_core, usage.wakeups_per_s, usage.rss_end_kb
    );
    Ok(())
}

/// A process's components, running on their executor threads; the context outlives them.
pub struct Hosted {
    threads: Vec<(String, ExecutorThread<Box<dyn Executor>>)>,
    _ctx: tacto::Context,
}

/// Makes the context, executors and nodes of process `name` of `file` and starts the executor
/// threads; says on stdout where each node is placed if `say`. What `tacto bench` measures of
/// a file of components.
pub fn start(
    file: &LaunchFile,
    name: &str,
    process: &ComponentsProcess,
    say: bool,
) -> Result<Hosted, ProcessError> {
    let ctx = file.context(name)?;
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
            .map_err(|e| ProcessError::Build(e.to_string()))?;
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
            .map_err(|e| ProcessError::Build(format!("executor {:?}: {e}", spec.thread)))?;
        threads.push((spec.thread.clone(), spawned));
    }
    Ok(Hosted { threads, _ctx: ctx })
}

impl std::fmt::Debug for Hosted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let threads: Vec<&str> = self.threads.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Hosted").field("threads", &threads).finish()
    }
}

impl Hosted {
    /// Stops every executor together, then joins them.
    pub fn stop(self) -> Result<(), ProcessError> {
        for (_, thread) in &self.threads {
            thread.stop();
        }
        for (name, thread) in self.threads {
            let (_, outcome) = thread
                .join()
                .map_err(|e| ProcessError::Run(format!("executor {name:?}: {e}")))?;
            outcome.map_err(|e| ProcessError::Run(format!("executor {name:?}: {e}")))?;
        }
        Ok(())
    }
}

/// The executor `spec` asks for.
fn executor(spec: &ExecutorSpec) -> Result<Box<dyn Executor>, ProcessError> {
    let creating = |e: &dyn std::error::Error| {
        ProcessError::Build(format!(
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
                ProcessError::Build(format!(
                    "executor {:?}: a let executor without period",
                    spec.thread
                ))
            })?;
            Box::new(LetExecutor::new(period).map_err(|e| creating(&e))?)
        }
        ExecutorKind::Prioritized => {
            return Err(ProcessError::Build(format!(
                "executor {:?}: prioritized is a layout of several threads, not one executor",
                spec.thread
            )));
        }
    })
}
