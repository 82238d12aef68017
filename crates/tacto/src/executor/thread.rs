//! Executors on threads of their own, optionally pinned to CPUs and scheduled in real time.
//!
//! A robot usually runs a few executors side by side: a hot control path pinned to an isolated
//! core under `SCHED_FIFO`, and everything else on ordinary threads. [`ExecutorThread`] starts
//! one executor on one thread, applies the thread's settings *before* the first node runs, and
//! reports a setting the OS refuses from [`spawn`](ExecutorThreadBuilder::spawn) itself, so a
//! program that asked for real time either gets it or knows at start-up.

use std::any::Any;
use std::ffi::CString;
use std::io;
use std::sync::mpsc;
use std::thread::JoinHandle;

use rustix::io::Errno;
use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

use super::{Executor, SpinError, SpinOutcome, StopHandle};

/// The longest thread name Linux keeps (`TASK_COMM_LEN` less the terminating NUL).
const MAX_NAME_BYTES: usize = 15;

/// The `SCHED_FIFO` priorities Linux offers (`sched_get_priority_min/max`).
const FIFO_PRIORITIES: std::ops::RangeInclusive<u8> = 1..=99;

/// An executor spinning on a thread of its own; from [`ExecutorThread::builder`].
///
/// The thread runs [`Executor::spin`] until [`stop`](Self::stop), SIGINT or SIGTERM, and
/// [`join`](Self::join) hands the executor back, so its [stats](Executor::stats) can be read or
/// it can spin again. Dropping the handle stops the executor at once, as `stop` does (the code
/// of a node that is running finishes first), and waits for its thread: keep the handle for as
/// long as the executor should run.
///
/// # Examples
/// ```
/// use std::sync::mpsc;
/// use std::time::Duration;
/// use tacto::{Context, Executor, ExecutorThread, SpinOutcome, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("heartbeat").unwrap();
/// let (beat, beats) = mpsc::channel();
/// node.wall_timer(Duration::from_millis(1), move |_| {
///     let _ = beat.send(std::thread::current().name().map(str::to_owned));
/// })
/// .unwrap();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(node).unwrap();
///
/// let handle = ExecutorThread::builder().name("heartbeat").spawn(executor).unwrap();
/// assert_eq!(beats.recv().unwrap().as_deref(), Some("heartbeat"));
/// handle.stop();
/// let (executor, outcome) = handle.join().unwrap();
/// assert_eq!(outcome.unwrap(), SpinOutcome::Stopped);
/// assert!(executor.stats().executions >= 1);
/// ```
#[derive(Debug)]
#[must_use = "dropping the handle stops the executor thread at once"]
pub struct ExecutorThread<E: Executor + 'static> {
    stop: StopHandle,
    name: Option<String>,
    /// `None` once joined. The thread returns `None` only when its setup failed, and then
    /// `spawn` returned the error instead of this handle.
    thread: Option<JoinHandle<Option<Finished<E>>>>,
}

/// What the thread hands back: the executor and why its spin returned.
type Finished<E> = (E, Result<SpinOutcome, SpinError>);

// On one concrete type only, so that `ExecutorThread::builder()` needs no type annotation; the
// builder spawns any executor.
impl ExecutorThread<Box<dyn Executor>> {
    /// Starts configuring a thread: no name, the process's CPUs, the default scheduler.
    pub fn builder() -> ExecutorThreadBuilder {
        ExecutorThreadBuilder::default()
    }
}

impl<E: Executor + 'static> ExecutorThread<E> {
    /// Makes the executor's spin return [`SpinOutcome::Stopped`]; returns at once.
    pub fn stop(&self) {
        self.stop.stop();
    }

    /// A handle that stops the executor from elsewhere, e.g. from a node on another executor.
    #[must_use]
    pub fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    /// Waits for the thread to end and returns the executor with the result of its spin.
    ///
    /// Blocks until the executor is stopped ([`stop`](Self::stop), SIGINT, SIGTERM); call
    /// `stop` first to end it now.
    pub fn join(mut self) -> Result<(E, Result<SpinOutcome, SpinError>), JoinError> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(Some(finished))) => Ok(finished),
            Some(Err(panic)) => Err(JoinError::Panicked {
                thread: self.name.take().unwrap_or_else(|| "<unnamed>".into()),
                message: panic_message(panic.as_ref()),
            }),
            // See the field's comment: a handle exists only for a thread that set up, and
            // `join` consumes it.
            Some(Ok(None)) | None => unreachable!("an executor thread is joined once"),
        }
    }
}

impl<E: Executor + 'static> Drop for ExecutorThread<E> {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.stop.stop();
            // A panic was the node's; the handle's owner chose not to look at it.
            let _ = thread.join();
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic with a payload that is not a string".into()
    }
}

/// Configures and starts an [`ExecutorThread`]; from [`ExecutorThread::builder`].
///
/// Settings are checked when [`spawn`](Self::spawn) is called; nothing is applied before.
#[derive(Debug, Clone, Default)]
#[must_use = "a builder does nothing until `spawn` is called"]
pub struct ExecutorThreadBuilder {
    name: Option<String>,
    cpus: Option<Vec<usize>>,
    fifo_priority: Option<u8>,
}

impl ExecutorThreadBuilder {
    /// Names the thread, as `top -H`, `ps -L` and debuggers show it: at most 15 bytes, the
    /// most Linux keeps. A longer name is refused rather than cut, so two threads never end up
    /// with the same visible name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_owned());
        self
    }

    /// Pins the thread to `cpus` (`sched_setaffinity`), numbered as in `/proc/cpuinfo`.
    pub fn cpus(mut self, cpus: &[usize]) -> Self {
        self.cpus = Some(cpus.to_vec());
        self
    }

    /// Runs the thread under `SCHED_FIFO` at `priority`, 1 (lowest) to 99 (highest).
    ///
    /// Needs `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` of at least `priority`, and, where the
    /// kernel groups real-time time by cgroup, a real-time budget for the process's cgroup.
    /// A node that never returns at this priority starves every normal thread of its CPUs.
    pub fn fifo_priority(mut self, priority: u8) -> Self {
        self.fifo_priority = Some(priority);
        self
    }

    /// Starts the thread, applies the settings on it, and returns once they are in force;
    /// then the thread spins `executor` until stopped.
    ///
    /// On error no thread is left running and `executor` is dropped.
    ///
    /// # Examples
    /// ```
    /// use tacto::{ExecutorThread, SpawnError, WaitSetExecutor};
    ///
    /// let executor = WaitSetExecutor::new().unwrap();
    /// let refused = ExecutorThread::builder().fifo_priority(0).spawn(executor);
    /// assert!(matches!(refused, Err(SpawnError::PriorityOutOfRange(0))));
    /// ```
    pub fn spawn<E: Executor + 'static>(
        self,
        mut executor: E,
    ) -> Result<ExecutorThread<E>, SpawnError> {
        let settings = self.validate()?;
        let stop = executor.stop_handle();
        let (report, setup) = mpsc::sync_channel(1);
        let mut thread = std::thread::Builder::new();
        if let Some(name) = &self.name {
            thread = thread.name(name.clone());
        }
        let thread = thread
            .spawn(move || {
                let applied = settings.apply();
                let failed = applied.is_err();
                let _ = report.send(applied);
                if failed {
                    return None;
                }
                let outcome = executor.spin();
                Some((executor, outcome))
            })
            .map_err(SpawnError::Os)?;
        let applied = setup.recv().unwrap_or_else(|_| {
            Err(SpawnError::Os(io::Error::other(
                "the executor thread ended while applying its settings",
            )))
        });
        if let Err(error) = applied {
            let _ = thread.join();
            return Err(error);
        }
        Ok(ExecutorThread {
            stop,
            name: self.name,
            thread: Some(thread),
        })
    }

    /// Checks everything that can be checked without a thread.
    fn validate(&self) -> Result<Settings, SpawnError> {
        if let Some(name) = &self.name {
            if name.len() > MAX_NAME_BYTES {
                return Err(SpawnError::NameTooLong(name.clone()));
            }
            // std panics on such a name; refuse it here instead.
            CString::new(name.as_str()).map_err(|_| SpawnError::NameContainsNul(name.clone()))?;
        }
        let cpus = match &self.cpus {
            None => None,
            Some(cpus) if cpus.is_empty() => return Err(SpawnError::NoCpus),
            Some(cpus) => {
                let mut set = CpuSet::new();
                for &cpu in cpus {
                    if cpu >= CpuSet::MAX_CPU {
                        return Err(SpawnError::CpuOutOfRange {
                            cpu,
                            limit: CpuSet::MAX_CPU,
                        });
                    }
                    set.set(cpu);
                }
                Some(set)
            }
        };
        if let Some(priority) = self.fifo_priority {
            if !FIFO_PRIORITIES.contains(&priority) {
                return Err(SpawnError::PriorityOutOfRange(priority));
            }
        }
        Ok(Settings {
            cpus,
            fifo_priority: self.fifo_priority,
        })
    }
}

/// Checked settings, applied by the new thread to itself.
#[derive(Debug)]
struct Settings {
    cpus: Option<CpuSet>,
    fifo_priority: Option<u8>,
}

impl Settings {
    /// Affinity first, so a real-time thread never runs on a CPU it was kept off.
    fn apply(&self) -> Result<(), SpawnError> {
        if let Some(cpus) = &self.cpus {
            set_affinity(cpus)?;
        }
        if let Some(priority) = self.fifo_priority {
            set_fifo_priority(priority)?;
        }
        Ok(())
    }
}

fn set_affinity(cpus: &CpuSet) -> Result<(), SpawnError> {
    let requested = || (0..CpuSet::MAX_CPU).filter(|&cpu| cpus.is_set(cpu));
    match sched_setaffinity(None, cpus) {
        // None of them is usable.
        Err(Errno::INVAL) => Err(SpawnError::CpusUnavailable(requested().collect())),
        Err(e) => Err(SpawnError::Affinity(e.into())),
        // The kernel silently drops CPUs that are offline, absent or outside the process's
        // cpuset: read back what it kept.
        Ok(()) => {
            let kept = sched_getaffinity(None).map_err(|e| SpawnError::Affinity(e.into()))?;
            let dropped: Vec<usize> = requested().filter(|&cpu| !kept.is_set(cpu)).collect();
            if dropped.is_empty() {
                Ok(())
            } else {
                Err(SpawnError::CpusUnavailable(dropped))
            }
        }
    }
}

fn set_fifo_priority(priority: u8) -> Result<(), SpawnError> {
    let param = libc::sched_param {
        sched_priority: priority.into(),
    };
    // SAFETY: `pthread_self()` is the calling thread, alive for the whole call, and `param` is
    // an initialised `sched_param` that outlives the call, which only reads it.
    let errno =
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
    match errno {
        0 => Ok(()),
        libc::EPERM => Err(SpawnError::PriorityNotPermitted(priority)),
        errno => Err(SpawnError::Priority(io::Error::from_raw_os_error(errno))),
    }
}

/// Why [`ExecutorThreadBuilder::spawn`] started no executor thread.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The name is longer than the 15 bytes Linux keeps for a thread.
    #[error("thread name {0:?} is longer than the 15 bytes Linux keeps")]
    NameTooLong(String),
    /// The name contains a NUL byte, which cannot reach the OS.
    #[error("thread name {0:?} contains a NUL byte")]
    NameContainsNul(String),
    /// [`cpus`](ExecutorThreadBuilder::cpus) was given no CPU: the thread could run nowhere.
    #[error("the CPU set is empty: the thread could run nowhere")]
    NoCpus,
    /// A CPU number is beyond what a CPU set can hold.
    #[error("CPU {cpu} is out of range: CPU sets hold CPUs 0 to {}", limit - 1)]
    CpuOutOfRange {
        /// The CPU asked for.
        cpu: usize,
        /// The size of a CPU set (`CPU_SETSIZE`).
        limit: usize,
    },
    /// The thread may not run on these CPUs: they are absent, offline, or outside the
    /// process's cpuset (cgroup, `taskset`).
    #[error("the thread cannot run on CPUs {0:?}: absent, offline or outside the process's cpuset")]
    CpusUnavailable(Vec<usize>),
    /// `sched_setaffinity` failed for another reason.
    #[error("setting the thread's CPU affinity failed: {0}")]
    Affinity(#[source] io::Error),
    /// `SCHED_FIFO` priorities run from 1 to 99.
    #[error("SCHED_FIFO priority {0} is out of range 1..=99")]
    PriorityOutOfRange(u8),
    /// The OS refused `SCHED_FIFO` (`EPERM`).
    #[error(
        "SCHED_FIFO priority {0} not permitted: the process needs CAP_SYS_NICE or an \
         RLIMIT_RTPRIO of at least {0} (`ulimit -r`, limits.conf `rtprio`), and its cgroup a \
         real-time budget (cpu.rt_runtime_us) where the kernel has one per group"
    )]
    PriorityNotPermitted(u8),
    /// `pthread_setschedparam` failed for another reason.
    #[error("setting the thread's SCHED_FIFO priority failed: {0}")]
    Priority(#[source] io::Error),
    /// The OS could not create the thread.
    #[error("the OS could not start the thread: {0}")]
    Os(#[source] io::Error),
}

/// Why [`ExecutorThread::join`] could not hand the executor back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// Code on the thread, normally a node's, panicked; the executor went down with it.
    #[error("executor thread {thread:?} panicked: {message}")]
    Panicked {
        /// The thread's name, or `<unnamed>`.
        thread: String,
        /// The panic's message.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{self, TryRecvError};
    use std::time::Duration;

    use super::ExecutorThread;
    use crate::msg::std_msgs::String as Text;
    use crate::{
        CallbackExecutor, Context, EventsExecutor, Executor, LetExecutor, ThreadPoolExecutor,
        Trigger, WaitSetExecutor,
    };

    /// Long enough never to pass on a slow, loaded machine; reaching it means the test failed.
    const PATIENCE: Duration = Duration::from_secs(30);

    #[test]
    fn dropping_the_handle_stops_every_executor_while_it_waits_for_work() {
        // The LET executor's next period is an hour away; the others wait with no deadline.
        let hour = Duration::from_secs(3600);
        let executors: Vec<(&str, Box<dyn Executor>)> = vec![
            ("wait-set", Box::new(WaitSetExecutor::new().unwrap())),
            ("callback", Box::new(CallbackExecutor::new().unwrap())),
            ("events", Box::new(EventsExecutor::new().unwrap())),
            (
                "thread pool",
                Box::new(ThreadPoolExecutor::builder().threads(2).create().unwrap()),
            ),
            ("LET", Box::new(LetExecutor::new(hour).unwrap())),
        ];
        for (name, mut executor) in executors {
            let ctx = Context::new();
            let mut node = ctx.node("sleeper").unwrap();
            let input = node.subscription::<Text>("wake").create().unwrap();
            let (ran, runs) = mpsc::channel();
            // The node owns `ran`: the channel disconnects once the executor is dropped.
            node.execute(Trigger::on(&input), move |_| {
                input.take_all().for_each(drop);
                let _ = ran.send(());
            })
            .unwrap();
            let mut waker = ctx.node("waker").unwrap();
            let wake = waker.publisher::<Text>("wake").create().unwrap();
            executor.add(node).unwrap();
            wake.publish(Text::default());
            let handle = ExecutorThread::builder().spawn(executor).unwrap();
            // It spins: the node ran once, and nothing will wake it again.
            runs.recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("{name}: the node never ran"));

            // Dropped on a thread of its own, so that a drop that never returns fails the test
            // instead of hanging it.
            let (dropped, drops) = mpsc::channel();
            std::thread::spawn(move || {
                drop(handle);
                let _ = dropped.send(());
            });
            drops
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("{name}: dropping the handle did not stop the thread"));
            // The thread ended and took the executor, its node and the node's sender with it.
            assert_eq!(runs.try_recv(), Err(TryRecvError::Disconnected), "{name}");
        }
    }
}
