//! The executor threads that run a topology's nodes, for each executor kind.
//!
//! | kind | executors and threads |
//! |---|---|
//! | `callback`, `events`, `wait-set` | one executor with every node, on one thread |
//! | `let` | one `LetExecutor` with every node, at the period the topology gives |
//! | `callback-mt` | one `ThreadPoolExecutor`, one worker per CPU; each node's callbacks in its default (mutually exclusive) group |
//! | `prioritized` | one `CallbackExecutor` thread per node, nothing pinned and no real-time priority: these topologies have no hot path to favour |

use std::time::Duration;

use tacto::{
    CallbackExecutor, EventsExecutor, Executor, ExecutorThread, ExecutorThreadBuilder, LetExecutor,
    Node, ThreadPoolExecutor, WaitSetExecutor,
};

use crate::system::SystemError;
use tacto_launch::executors::ExecutorKind;

/// Executors spinning on threads of their own until [`stop`](Self::stop).
pub(crate) struct Threads(Vec<ExecutorThread<Box<dyn Executor>>>);

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Threads({})", self.0.len())
    }
}

impl Threads {
    /// Puts `nodes` on executors of `kind` and starts them; `let_period` is the LET executor's
    /// period.
    pub(crate) fn start(
        kind: ExecutorKind,
        nodes: Vec<Node>,
        let_period: Duration,
    ) -> Result<Threads, SystemError> {
        let groups: Vec<Vec<Node>> = match kind {
            ExecutorKind::Prioritized => nodes.into_iter().map(|node| vec![node]).collect(),
            _ => vec![nodes],
        };
        let mut threads = Vec::with_capacity(groups.len());
        for (i, group) in groups.into_iter().enumerate() {
            let name = match kind {
                ExecutorKind::Prioritized => format!("node{i}"),
                _ => kind.name().to_owned(),
            };
            let builder = ExecutorThread::builder().name(&name);
            threads.extend(Threads::one(kind, group, let_period, builder)?.0);
        }
        Ok(Threads(threads))
    }

    /// Puts `nodes` on one executor of `kind` and starts it on a thread `thread` sets up
    /// (CPUs, priority: a process of a launch file).
    pub(crate) fn one(
        kind: ExecutorKind,
        nodes: Vec<Node>,
        let_period: Duration,
        thread: ExecutorThreadBuilder,
    ) -> Result<Threads, SystemError> {
        let mut executor = executor(kind, let_period)?;
        for node in nodes {
            executor.add(node).map_err(build_error)?;
        }
        Ok(Threads(vec![thread.spawn(executor).map_err(build_error)?]))
    }

    /// Stops every executor, then waits for each thread.
    pub(crate) fn stop(self) -> Result<(), SystemError> {
        for thread in &self.0 {
            thread.stop();
        }
        for thread in self.0 {
            match thread.join() {
                Ok((_, Ok(_))) => {}
                Ok((_, Err(e))) => return Err(SystemError::Run(e.to_string())),
                Err(e) => return Err(SystemError::Run(e.to_string())),
            }
        }
        Ok(())
    }
}

fn executor(kind: ExecutorKind, let_period: Duration) -> Result<Box<dyn Executor>, SystemError> {
    Ok(match kind {
        ExecutorKind::Callback | ExecutorKind::Prioritized => {
            Box::new(CallbackExecutor::new().map_err(build_error)?)
        }
        ExecutorKind::CallbackMt => Box::new(ThreadPoolExecutor::new().map_err(build_error)?),
        ExecutorKind::Events => Box::new(EventsExecutor::new().map_err(build_error)?),
        ExecutorKind::WaitSet => Box::new(WaitSetExecutor::new().map_err(build_error)?),
        ExecutorKind::Let => Box::new(LetExecutor::new(let_period).map_err(build_error)?),
    })
}

fn build_error(e: impl std::fmt::Display) -> SystemError {
    SystemError::Build(e.to_string())
}
