//! Executors: the threads that run nodes' code when their triggers fire.
//!
//! | executor | model | wakes for |
//! |---|---|---|
//! | [`WaitSetExecutor`] | triggers + polling subscriptions (Apex.AI, rclc) | triggering samples and periods only |
//! | [`CallbackExecutor`] | one callback per message (rclcpp's single-threaded executor) | every callback's samples, every timer |
//! | [`ThreadPoolExecutor`] | the callback model on N threads, in [callback groups](crate::callback_group) (rclcpp's multi-threaded executor) | every callback's samples, every timer; one thread waits, the others wake to share the work |
//! | [`LetExecutor`] | Logical Execution Time (rclc's LET): inputs frozen at each period start, outputs published at its end | its period only |
//! | [`EventsExecutor`] | one bounded FIFO of sample events, one run per event (rclcpp's events executor); the event a run queued last goes first, due timers before the next event | every triggering sample, every timer |
//!
//! All of them block in `epoll_wait` (see the `poller` module), never busy-wait, and stop on
//! SIGINT/SIGTERM (see [`crate::shutdown`]). Only the thread pool runs code in parallel; the
//! others ignore callback groups.
//!
//! [Readable triggers](crate::Trigger::readable) add their fds to the same epoll set: every
//! executor but the LET one runs them, as the same kind of work as a triggering sample.
//!
//! [`ExecutorThread`] runs any of them on a thread of its own, pinned to CPUs and under
//! `SCHED_FIFO` if asked.

mod base;
mod callback;
mod dispatch;
mod events;
mod logical_time;
pub(crate) mod poller;
pub(crate) mod report;
pub(crate) mod running;
pub(crate) mod signal;
mod single_threaded;
pub(crate) mod stats;
mod thread;
mod thread_pool;
mod timers;
mod wait_set;

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use callback::CallbackExecutor;
pub use events::{EventsExecutor, EventsExecutorBuilder, EventsExecutorCreateError};
pub use logical_time::{LetBuilder, LetCreateError, LetExecutor};
pub use stats::ExecutableStats;
pub use thread::{ExecutorThread, ExecutorThreadBuilder, JoinError, SpawnError};
pub use thread_pool::{ThreadPoolBuilder, ThreadPoolCreateError, ThreadPoolExecutor};
pub use wait_set::WaitSetExecutor;

use crate::node::Node;
use signal::Signal;

/// Runs nodes. Implemented by every executor, so a program or a benchmark can pick one at run
/// time (`Box<dyn Executor>`).
pub trait Executor: Send {
    /// Takes a node and runs its executables from the next spin on.
    fn add(&mut self, node: Node) -> Result<(), AddError>;

    /// Runs until `deadline`, a stop request, or shutdown; `None` runs until stopped.
    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError>;

    /// A handle that stops this executor's spin from any thread.
    #[must_use]
    fn stop_handle(&self) -> StopHandle;

    /// Counters since creation.
    fn stats(&self) -> ExecutorStats;

    /// What each executable did since it joined, in the order they were added: runs, run
    /// time, how late periodic ones started, missed periods. Between spins, or from the
    /// thread that spins.
    fn executable_stats(&self) -> Vec<ExecutableStats>;

    /// Runs for `duration` (or until stopped); the usual way to run an executor in a test.
    /// A duration too long for the OS's clock (such as `Duration::MAX`) sets no deadline.
    fn spin_for(&mut self, duration: Duration) -> Result<SpinOutcome, SpinError> {
        self.spin_until(Instant::now().checked_add(duration))
    }

    /// Runs until stopped, by a [`StopHandle`], SIGINT or SIGTERM.
    fn spin(&mut self) -> Result<SpinOutcome, SpinError> {
        self.spin_until(None)
    }
}

/// A boxed executor is an executor, so one picked at run time can go wherever one is expected,
/// e.g. onto an [`ExecutorThread`].
impl<E: Executor + ?Sized> Executor for Box<E> {
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        (**self).add(node)
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        (**self).spin_until(deadline)
    }

    fn stop_handle(&self) -> StopHandle {
        (**self).stop_handle()
    }

    fn stats(&self) -> ExecutorStats {
        (**self).stats()
    }

    fn executable_stats(&self) -> Vec<ExecutableStats> {
        (**self).executable_stats()
    }
}

/// Why a spin returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpinOutcome {
    /// The deadline of `spin_for`/`spin_until` passed.
    Elapsed,
    /// [`StopHandle::stop`] was called.
    Stopped,
    /// SIGINT, SIGTERM or [`crate::shutdown::request`]: the process is stopping.
    Interrupted,
}

/// Why a spin failed.
#[derive(Debug, thiserror::Error)]
pub enum SpinError {
    /// The OS refused to wait (`epoll_wait` or `timerfd_settime` failed).
    #[error("waiting for work failed: {0}")]
    Wait(#[from] io::Error),
    /// The OS refused to start a worker thread of a [`ThreadPoolExecutor`].
    #[error("starting a worker thread failed: {0}")]
    Spawn(io::Error),
    /// The executor was created before this process was forked from its parent: its epoll
    /// set, eventfd and timerfd are the parent's too, so it would wake and re-arm the parent's
    /// executor. Create executors in the child (see [`crate::shutdown`]).
    #[error("the executor was created before a fork: create a new one in the child process")]
    CreatedBeforeFork,
}

/// Why a node could not be added to an executor.
#[derive(Debug, thiserror::Error)]
pub enum AddError {
    /// Another node of the same name already runs on this executor. Within one context the
    /// context itself refuses the name ([`NodeCreateError::NameTaken`](crate::NodeCreateError));
    /// nodes of two contexts can meet here.
    #[error("a node named {0:?} was already added to this executor")]
    DuplicateNode(String),
    /// One of the node's triggering subscriptions already triggers another executable (a
    /// subscription wakes exactly one executable of one executor).
    #[error("node {0:?}: a subscription in its triggers already triggers other code")]
    InputAlreadyTriggering(String),
    /// The executor's model has no such trigger.
    #[error("node {node:?}: the {executor} executor cannot run this trigger: {reason}")]
    UnsupportedTrigger {
        /// The node.
        node: String,
        /// The executor.
        executor: &'static str,
        /// What it cannot do.
        reason: &'static str,
    },
    /// The context's transport could not give a triggering subscription's reader its
    /// data-available listener.
    #[error("node {node:?}: the transport cannot wake the executor: {error}")]
    Link {
        /// The node.
        node: String,
        /// What the transport said.
        error: crate::transport::LinkError,
    },
    /// The node has a [`Service`](crate::Service) or a [`Client`](crate::Client), which the
    /// executor cannot run: a LET executor holds every output to its period's end, and a
    /// request or response sent at once would escape that.
    #[error("node {node:?}: the {executor} executor cannot run services or clients")]
    ServicesUnsupported {
        /// The node.
        node: String,
        /// The executor.
        executor: &'static str,
    },
    /// The OS refused to watch the fd of one of the node's
    /// [readable triggers](crate::Trigger::readable) (or the wake-up fd of a triggering
    /// subscription's transport, see [`LinkReader::wake_fd`](crate::transport::LinkReader::wake_fd)):
    /// a regular file or a directory (`EPERM`:
    /// always readable, so nothing to wait for), or an fd this executor already watches
    /// (`EEXIST`). The node's other fds are not watched either.
    #[error("node {node:?}: the executor cannot watch a readable trigger's fd: {source}")]
    Watch {
        /// The node.
        node: String,
        /// What the OS said.
        source: io::Error,
    },
    /// The executor could not create its OS resources.
    #[error("the executor could not be set up: {0}")]
    Os(#[from] io::Error),
}

/// Counters of one executor since its creation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecutorStats {
    /// Times the thread blocked in the OS and was woken: the dominant CPU cost of a runtime.
    pub wakeups: u64,
    /// Executables run.
    pub executions: u64,
    /// Periods that passed unserved (see [`crate::timer`]).
    pub missed_periods: u64,
    /// Runs of subscription-triggered code that left unread the input it was triggered for.
    /// Such code is not run again before the next arrival (see [`Trigger`](crate::Trigger)),
    /// so a steadily growing count means a node that does not consume its input.
    pub left_unread: u64,
}

impl ExecutorStats {
    /// Counts one run.
    pub(crate) fn record(&mut self, activation: &crate::Activation) {
        self.executions += 1;
        self.missed_periods += activation.missed_periods;
    }
}

/// Stops an executor's spin from any thread; from [`Executor::stop_handle`].
///
/// # Examples
/// ```
/// use tacto::{Executor, SpinOutcome, WaitSetExecutor};
///
/// let mut executor = WaitSetExecutor::new().unwrap();
/// let stop = executor.stop_handle();
/// std::thread::spawn(move || stop.stop());
/// assert_eq!(executor.spin().unwrap(), SpinOutcome::Stopped);
/// ```
#[derive(Debug, Clone)]
pub struct StopHandle {
    requested: Arc<AtomicBool>,
    signal: Arc<Signal>,
}

impl StopHandle {
    pub(crate) fn new(signal: Arc<Signal>) -> Self {
        StopHandle {
            requested: Arc::new(AtomicBool::new(false)),
            signal,
        }
    }

    /// Makes the executor's current or next spin return [`SpinOutcome::Stopped`].
    pub fn stop(&self) {
        self.requested.store(true, Ordering::SeqCst);
        self.signal.notify();
    }

    /// Consumes a stop request, so the executor can spin again afterwards.
    pub(crate) fn take_request(&self) -> bool {
        self.requested.swap(false, Ordering::SeqCst)
    }
}
