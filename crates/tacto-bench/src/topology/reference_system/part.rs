//! Some of the reference system's nodes, on one executor thread, in a context the caller made:
//! what one process of `tacto launch` runs, its topics reaching the other processes through
//! the context's transport.

use std::sync::{Arc, Mutex};

use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThreadBuilder, LetExecutor,
    ThreadPoolExecutor, WaitSetExecutor,
};

use super::arrivals::Arrivals;
use super::kpi::Kpis;
use super::nodes::lock;
use super::{Spec, Thread, component, let_period};
use crate::result::RunResult;
use crate::system::SystemError;
use tacto_launch::executors::ExecutorKind;

/// What a part is asked to run.
#[derive(Debug, Clone)]
pub struct PartConfig<'a> {
    /// The nodes, by their names in the spec; each must exist.
    pub nodes: &'a [String],
    /// One executor (not `prioritized`, which is a layout of several).
    pub executor: ExecutorKind,
    /// Work per processing node run.
    pub crunch: u64,
    /// Every topic goes under this namespace, if any (see the launch file's `namespace`).
    pub namespace: Option<&'a str>,
}

/// Some of the nodes, running; [`stop`](Part::stop) ends them.
pub struct Part {
    thread: Thread,
    kpis: Arc<Mutex<Kpis>>,
    /// The names of its nodes.
    nodes: Vec<String>,
}

/// Places `config.nodes` on `ctx` as components (`reference_system::NAME`, through the
/// registry users' components go through) and starts their executor on a thread set up by
/// `thread`.
pub fn start_part(
    spec: &Spec,
    ctx: &Context,
    config: &PartConfig<'_>,
    thread: ExecutorThreadBuilder,
) -> Result<Part, SystemError> {
    // The table the nodes record into: made before them, so it is this spec's.
    let kpis = component::kpis(ctx, spec);
    let style = match config.executor.uses_callbacks() {
        true => tacto_component::Style::Callbacks,
        false => tacto_component::Style::Polling,
    };
    let creating = |e: &dyn std::error::Error| {
        SystemError::Build(format!("creating the {} executor: {e}", config.executor))
    };
    let mut executor: Box<dyn Executor> = match config.executor {
        ExecutorKind::Callback => Box::new(CallbackExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::CallbackMt => Box::new(ThreadPoolExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::Events => Box::new(EventsExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::WaitSet => Box::new(WaitSetExecutor::new().map_err(|e| creating(&e))?),
        ExecutorKind::Let => {
            Box::new(LetExecutor::new(let_period(spec)).map_err(|e| creating(&e))?)
        }
        ExecutorKind::Prioritized => {
            return Err(SystemError::Unsupported {
                topology: "reference-system".into(),
                executor: config.executor,
                reason: "it is a layout of several threads, not one executor".into(),
            });
        }
    };
    let crunch = format!("{}:={}", component::CRUNCH_PARAMETER, config.crunch);
    let arguments = ["--ros-args", "-p", crunch.as_str()];
    for name in config.nodes {
        let node = tacto_component::find(&format!("{}{name}", component::PREFIX))
            .and_then(|c| c.instantiate(ctx, None, config.namespace, &arguments, style))
            .map_err(|e| SystemError::Build(e.to_string()))?;
        executor
            .add(node)
            .map_err(|e| SystemError::Build(e.to_string()))?;
    }
    let thread = thread
        .spawn(executor)
        .map_err(|e| SystemError::Build(format!("starting an executor thread: {e}")))?;
    Ok(Part {
        thread,
        kpis,
        nodes: config.nodes.to_vec(),
    })
}

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Part").finish_non_exhaustive()
    }
}

impl Part {
    /// Samples this part's command nodes received so far (0 if it has none).
    pub fn received(&self) -> u64 {
        lock(&self.kpis).received()
    }

    /// Per command node of this part, by name, how its samples arrived so far.
    pub fn arrivals(&self) -> Vec<(String, Arrivals)> {
        let here = |name: &String| self.nodes.contains(name);
        let all = lock(&self.kpis).arrivals();
        all.into_iter().filter(|(name, _)| here(name)).collect()
    }

    /// Forgets what the KPIs recorded so far: the measured window starts now.
    pub fn reset(&self) {
        lock(&self.kpis).reset();
    }

    /// Stops the executor and returns the command nodes' KPIs (latency, drops).
    pub fn stop(self) -> Result<RunResult, SystemError> {
        self.thread.stop();
        let (_, outcome) = self
            .thread
            .join()
            .map_err(|e| SystemError::Run(e.to_string()))?;
        outcome.map_err(|e| SystemError::Run(e.to_string()))?;
        let mut result = RunResult::default();
        lock(&self.kpis).fill(&mut result);
        Ok(result)
    }
}
