//! The thread-pool executor: rclcpp's `MultiThreadedExecutor`, with its callback groups.
//!
//! The model is the [callback executor](super::CallbackExecutor)'s (one callback per message,
//! one per timer period; `all` and `when` triggers are refused), run by N workers that share
//! the ready work of every node. [Callback groups](crate::callback_group) say what may run in
//! parallel: by default all of a node's executables form one mutually exclusive group, so
//! nodes run in parallel with each other but each node's code runs one callback at a time.
//!
//! # How the workers share the work
//! The workers are the thread that calls `spin` and N−1 threads started for the spin and
//! joined before it returns, as in rclcpp. Everything they share is one [`State`] behind one
//! mutex: each executable's slot (holding it, or empty while a worker has it), each group's
//! busy flag, a queue of ready jobs, and the [`Poller`].
//!
//! - One worker at a time, the *leader*, takes the poller and blocks in `epoll_wait` until a
//!   sample, a readable fd, a deadline, a stop request or shutdown; a readable fd marks its
//!   executable pending, as a sample does. The others, *followers*, block on a condition
//!   variable. Nobody busy-waits.
//! - A worker looking for work takes the first job of the queue. If the queue is empty, it
//!   *collects*: it polls every executable that is in its slot and whose group is free, and
//!   moves each one whose trigger fired into the queue, marking its group busy if the group is
//!   mutually exclusive. So a job holds its group from collection to the end of its run, and an
//!   executable, being out of its slot, never runs concurrently with itself. A worker that
//!   collects while no leader waits first looks at the watched fds, without blocking.
//! - Having taken a job, a worker wakes one follower per job left in the queue, plus one to
//!   take over the poller if it was the leader, unless that work is short (below). Then it
//!   runs the job outside the lock, puts the executable back, frees its group, and looks for
//!   work again: whoever frees a group is the one who collects the work that waited for it.
//! - A worker that finds no work becomes the leader if the poller is free, a follower if not.
//!
//! So, as in rclcpp, work arriving at an idle pool of two or more threads costs two wake-ups:
//! the leader's, and that of the follower taking over the poller; short work costs one.
//!
//! # Short work
//! A follower starts 20–140 µs after it is notified on the machines measured, and the
//! notification costs the waking worker a syscall, and sometimes its CPU: the scheduler may run
//! the woken follower there first. Work that the waking worker finishes sooner gains nothing
//! from a helper, and pays for one. At crunch 0 in the reference system, where a 100 ms
//! deadline brings 5–7 runs of a few µs each, handing them over made the planner start a median
//! 68–71 µs after the leader's wake-up, against 43 µs without, and the follower ran it in
//! 40–57% of the periods, after a wake-up of its own (docs/benchmarks.md, "Crunch 0"). So a
//! worker that takes a job wakes nobody if that job and those left in the queue took less than
//! 50 µs (`HAND_OVER_NS`) together the last time each ran (a clock read before each run, on the
//! steady clock); an executable that never ran, or whose trigger is on another clock, is never
//! short. It runs them one after the other, collecting after each run as always, and the pool
//! goes back to one leader in the poller and the others asleep. While it does, nobody waits in
//! the poller: watched fds, deadlines, samples and stop requests are seen at its next
//! collection, once the short runs queued are done. A job that ran longer the last time is
//! handed over as before, so long work keeps every thread busy; a job that runs long only this
//! time delays the queue behind it by that run, once.
//!
//! The queue holds at most one job per executable (each is in its slot, queued, or running).
//! Collection goes round robin, starting after the executable collected last, so neither a
//! callback with a backlog nor a timer that overruns its period starves the others of its
//! group.
//!
//! # Deadlines
//! The leader sleeps until the earliest deadline among the timers that can run (in their slot,
//! group free) and the next periods of the timers that are queued or running. A timer that
//! cannot run now and whose deadline has passed does not count, or the leader would wake for
//! it again and again: the worker that puts it back or frees its group collects it. If that
//! worker then becomes a follower while the leader sleeps past the timer's next deadline, it
//! wakes the leader to choose again.
//!
//! # Ending a spin
//! The spin starts its N−1 threads one by one, and no more once the spin is ending, so a
//! large pool stopped while it starts returns at once. On a stop request, the spin's deadline
//! or shutdown, the workers finish the jobs already
//! collected, queued or running (their triggers are consumed), then return. A panicking callback ends the spin the same way; its
//! executable goes back to its slot and the panic resumes on the thread that called `spin`.

use std::any::Any;
use std::collections::VecDeque;
use std::io;
use std::num::NonZeroUsize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Instant;

use super::base::Base;
use super::dispatch::{self, Entry, Pending};
use super::poller::{Poller, Woken};
use super::signal::Signal;
use super::stats::nanos_between;
use super::{
    AddError, ExecutableStats, Executor, ExecutorStats, SpinError, SpinOutcome, StopHandle,
};
use crate::callback_group::{CallbackGroup, CallbackGroupKind};
use crate::clock::{ClockKind, Time, os_now};
use crate::node::Node;
use crate::shutdown;
use crate::trigger::Activation;

/// Runs callbacks on N threads, in callback groups, like rclcpp's multi-threaded executor.
///
/// # Guarantees
/// - Two executables of one mutually exclusive group never run at the same time; an
///   executable never runs concurrently with itself, so a callback sees its messages one at a
///   time, in order.
/// - Blocks in the OS when there is no work: one worker in `epoll_wait`, the others on a
///   condition variable. [`ExecutorStats::wakeups`] counts the wake-ups of all of them.
/// - Ready work waits in a queue of at most one job per executable.
///
/// # Examples
/// ```
/// use std::sync::mpsc;
/// use std::time::Duration;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{CallbackGroupKind, Context, Executor, ThreadPoolExecutor};
///
/// let ctx = Context::new();
/// let mut executor = ThreadPoolExecutor::builder().threads(2).create().unwrap();
/// let stop = executor.stop_handle();
/// let mut node = ctx.node("listener").unwrap();
/// // Callbacks of a reentrant group may run in parallel (each one's messages stay in order).
/// let parallel = node.callback_group(CallbackGroupKind::Reentrant);
/// let (tx, rx) = mpsc::channel();
/// for topic in ["left", "right"] {
///     let tx = tx.clone();
///     node.subscription::<Text>(topic)
///         .callback_in(&parallel, move |msg| tx.send(msg.data.clone()).unwrap())
///         .unwrap();
/// }
/// let mut talker = ctx.node("talker").unwrap();
/// let left = talker.publisher::<Text>("left").create().unwrap();
/// let right = talker.publisher::<Text>("right").create().unwrap();
///
/// executor.add(node).unwrap();
/// left.publish(Text { data: "l".into() });
/// right.publish(Text { data: "r".into() });
/// std::thread::spawn(move || {
///     let mut heard = vec![rx.recv().unwrap(), rx.recv().unwrap()];
///     heard.sort();
///     assert_eq!(heard, ["l", "r"]);
///     stop.stop();
/// });
/// executor.spin_for(Duration::from_secs(10)).unwrap();
/// assert_eq!(executor.stats().executions, 2);
/// ```
#[derive(Debug)]
pub struct ThreadPoolExecutor {
    threads: NonZeroUsize,
    base: Base,
    entries: Vec<Entry>,
    /// For each entry, its group: an index into `groups`.
    group_of: Vec<usize>,
    /// The groups of the added nodes that have executables.
    groups: Vec<CallbackGroup>,
}

/// Configures a [`ThreadPoolExecutor`]; from [`ThreadPoolExecutor::builder`].
#[derive(Debug, Clone, Default)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct ThreadPoolBuilder {
    threads: Option<usize>,
}

/// Why a [`ThreadPoolExecutor`] could not be created.
#[derive(Debug, thiserror::Error)]
pub enum ThreadPoolCreateError {
    /// A pool without threads would never run anything.
    #[error("a thread pool needs at least one thread")]
    ZeroThreads,
    /// More threads than [`ThreadPoolExecutor::MAX_THREADS`] were asked for.
    #[error("a thread pool has at most {max} threads ({requested} asked for)")]
    TooManyThreads {
        /// The number asked for.
        requested: usize,
        /// [`ThreadPoolExecutor::MAX_THREADS`].
        max: usize,
    },
    /// The executor could not create its OS resources.
    #[error("the executor could not be set up: {0}")]
    Os(#[from] io::Error),
}

impl ThreadPoolBuilder {
    /// The number of worker threads, the one that spins included, from 1 to
    /// [`ThreadPoolExecutor::MAX_THREADS`] (default: the number of CPUs this process may use,
    /// or 1 if the OS cannot tell, at most `MAX_THREADS`).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Creates the executor and its OS resources (an epoll set, an eventfd, a timerfd);
    /// threads start with each spin.
    pub fn create(self) -> Result<ThreadPoolExecutor, ThreadPoolCreateError> {
        let threads = match self.threads {
            Some(requested) if requested > ThreadPoolExecutor::MAX_THREADS => {
                return Err(ThreadPoolCreateError::TooManyThreads {
                    requested,
                    max: ThreadPoolExecutor::MAX_THREADS,
                });
            }
            Some(n) => NonZeroUsize::new(n).ok_or(ThreadPoolCreateError::ZeroThreads)?,
            None => default_threads(),
        };
        Ok(ThreadPoolExecutor::with_threads(threads)?)
    }
}

/// One worker per CPU this process may use, within [`ThreadPoolExecutor::MAX_THREADS`].
fn default_threads() -> NonZeroUsize {
    let cpus = thread::available_parallelism().unwrap_or(NonZeroUsize::MIN);
    cpus.min(NonZeroUsize::new(ThreadPoolExecutor::MAX_THREADS).unwrap_or(NonZeroUsize::MIN))
}

impl ThreadPoolExecutor {
    /// The most worker threads a pool may have: 1024.
    ///
    /// More than the CPUs of any machine this runs on, and far more than a pool can use: its
    /// workers share one lock and one poller, so past a few threads per CPU more only adds
    /// wake-ups. A count beyond it is a mistake (a size in bytes, an uninitialised value), and
    /// it would start threads until the OS refused.
    pub const MAX_THREADS: usize = 1024;

    /// Creates the executor with one thread per CPU this process may use (at most
    /// [`MAX_THREADS`](Self::MAX_THREADS)).
    pub fn new() -> io::Result<Self> {
        Self::with_threads(default_threads())
    }

    fn with_threads(threads: NonZeroUsize) -> io::Result<Self> {
        Ok(ThreadPoolExecutor {
            threads,
            base: Base::new("thread-pool")?,
            entries: Vec::new(),
            group_of: Vec::new(),
            groups: Vec::new(),
        })
    }

    /// Starts configuring an executor.
    pub fn builder() -> ThreadPoolBuilder {
        ThreadPoolBuilder::default()
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads.get()
    }
}

impl Executor for ThreadPoolExecutor {
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        let signal = self.base.poller.signal().clone();
        let entries = dispatch::admit(
            node,
            &mut self.base,
            &self.entries,
            super::callback::classic("thread-pool"),
            |_, exe| Pending::new(&signal, exe),
        )?;
        for entry in &entries {
            let group = entry.group();
            let index = match self.groups.iter().position(|g| *g == group) {
                Some(index) => index,
                None => {
                    self.groups.push(group);
                    self.groups.len() - 1
                }
            };
            self.group_of.push(index);
        }
        self.entries.extend(entries);
        Ok(())
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        let Base {
            poller,
            stop,
            stats,
            ..
        } = &mut self.base;
        poller.check_process()?;
        let (threads, executables) = (self.threads.get(), self.entries.len());
        let pool = Pool {
            signal: poller.signal().clone(),
            wakeups: poller.wakeups().clone(),
            state: Mutex::new(State {
                poller: Some(poller),
                leader_deadline: None,
                slots: self
                    .entries
                    .iter_mut()
                    .zip(&self.group_of)
                    .map(|(entry, &group)| Slot {
                        entry: Some(entry),
                        group,
                        deadline: None,
                        last_run: None,
                    })
                    .collect(),
                groups: self
                    .groups
                    .iter()
                    .map(|g| Group {
                        exclusive: g.kind() == CallbackGroupKind::MutuallyExclusive,
                        busy: false,
                    })
                    .collect(),
                ready: VecDeque::with_capacity(executables),
                cursor: 0,
                idle: 0,
                notified: 0,
                ending: None,
                stats: ExecutorStats::default(),
            }),
            followers: Condvar::new(),
            stop,
            deadline: deadline.map(dispatch::steady_time),
        };
        thread::scope(|scope| {
            let started = start_workers(
                threads,
                || pool.is_ending(),
                |i| {
                    thread::Builder::new()
                        .name(format!("tacto-pool-{i}"))
                        .spawn_scoped(scope, || pool.work())
                        .map(drop)
                },
            );
            if let Err(e) = started {
                pool.end(&mut pool.lock(), Ending::Failed(SpinError::Spawn(e)));
            }
            pool.work();
        });
        let state = pool
            .state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        stats.executions += state.stats.executions;
        stats.missed_periods += state.stats.missed_periods;
        stats.left_unread += state.stats.left_unread;
        match state.ending {
            Some(Ending::Outcome(outcome)) => Ok(outcome),
            Some(Ending::Failed(e)) => Err(e),
            Some(Ending::Panicked(payload)) => panic::resume_unwind(payload),
            None => unreachable!("workers return only once the spin has ended"),
        }
    }

    fn stop_handle(&self) -> StopHandle {
        self.base.stop_handle()
    }

    fn stats(&self) -> ExecutorStats {
        self.base.stats()
    }

    fn executable_stats(&self) -> Vec<ExecutableStats> {
        self.entries.iter().map(Entry::stats).collect()
    }
}

/// Starts workers 1 to `threads - 1` with `spawn` (worker 0 is the thread that spins), until
/// the spin ends: a large pool asked to stop (a stop, its deadline, SIGTERM) while it starts
/// its threads starts no more.
fn start_workers(
    threads: usize,
    mut is_ending: impl FnMut() -> bool,
    mut spawn: impl FnMut(usize) -> io::Result<()>,
) -> io::Result<()> {
    for i in 1..threads {
        if is_ending() {
            break;
        }
        spawn(i)?;
    }
    Ok(())
}

/// A follower's wake-up on the machines measured: 20–140 µs from the notification to its
/// first instruction (docs/benchmarks.md, "Crunch 0"). Work this worker finishes sooner is not
/// worth a second thread's wake-up (see "Short work" in the module docs).
const HAND_OVER_NS: u64 = 50_000;

/// What the workers of one spin share.
struct Pool<'a> {
    state: Mutex<State<'a>>,
    /// Where followers wait.
    followers: Condvar,
    /// The poller's wake-up line, to wake the leader.
    signal: Arc<Signal>,
    /// The poller's wake-up count, which counts the followers' wake-ups too.
    wakeups: Arc<AtomicU64>,
    stop: &'a StopHandle,
    /// The spin's deadline, on the steady clock.
    deadline: Option<Time>,
}

/// The scheduling state, behind the pool's one lock.
struct State<'a> {
    /// `None` while the leader waits in it.
    poller: Option<&'a mut Poller>,
    /// When the leader chose to wake up, while it waits (`None`: only when notified).
    leader_deadline: Option<Time>,
    slots: Vec<Slot<'a>>,
    groups: Vec<Group>,
    /// Jobs collected and not yet taken by a worker.
    ready: VecDeque<Job<'a>>,
    /// Where the next collection starts: just after the slot collected last.
    cursor: usize,
    /// Followers waiting on the condition variable.
    idle: usize,
    /// Of those, the ones notified that have not yet returned from their wait: a follower
    /// stays counted in `idle` until it runs again, and each notification costs a syscall.
    notified: usize,
    /// Why the spin ends, once it does.
    ending: Option<Ending>,
    /// Runs, missed periods, runs that left input unread and followers' wake-ups, of this spin.
    stats: ExecutorStats,
}

/// Where an executable is kept between runs.
struct Slot<'a> {
    /// `None` while the executable is queued or running.
    entry: Option<&'a mut Entry>,
    group: usize,
    /// A taken timer's next deadline, for the leader to wait for while the timer runs.
    deadline: Option<Time>,
    /// How long the executable's last run took, in ns; `None` before it ran.
    last_run: Option<u64>,
}

struct Group {
    exclusive: bool,
    /// An executable of this exclusive group is queued or running.
    busy: bool,
}

/// An executable whose trigger fired, taken out of its slot.
struct Job<'a> {
    slot: usize,
    entry: &'a mut Entry,
    activation: Activation,
}

enum Ending {
    Outcome(SpinOutcome),
    Failed(SpinError),
    Panicked(Box<dyn Any + Send>),
}

impl<'a> Pool<'a> {
    /// Our code never panics while holding the lock, and callbacks run outside it, so a
    /// poisoned lock still holds a consistent state.
    fn lock(&self) -> MutexGuard<'_, State<'a>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True once the spin is ending; ends it if its deadline passed, a stop was requested or
    /// the process is shutting down, as a worker looking for work would.
    fn is_ending(&self) -> bool {
        let mut state = self.lock();
        if state.ending.is_none() {
            let expired = self
                .deadline
                .is_some_and(|d| os_now(ClockKind::Steady) >= d);
            if expired {
                self.end(&mut state, Ending::Outcome(SpinOutcome::Elapsed));
            } else if self.stop.take_request() {
                self.end(&mut state, Ending::Outcome(SpinOutcome::Stopped));
            } else if shutdown::requested() {
                self.end(&mut state, Ending::Outcome(SpinOutcome::Interrupted));
            }
        }
        state.ending.is_some()
    }

    /// One worker's loop; returns once the spin has ended and no job is left.
    fn work(&self) {
        let mut state = self.lock();
        loop {
            let expired = self
                .deadline
                .is_some_and(|d| os_now(ClockKind::Steady) >= d);
            if expired && state.ending.is_none() {
                self.end(&mut state, Ending::Outcome(SpinOutcome::Elapsed));
            }
            if state.ready.is_empty() && state.ending.is_none() {
                self.collect(&mut state);
            }
            if let Some(job) = state.ready.pop_front() {
                if !Self::finishes_before_a_helper_wakes(&state, &job) {
                    self.wake_helpers(&mut state);
                }
                drop(state);
                state = self.run(job);
            } else if state.ending.is_some() {
                return;
            } else if let Some(poller) = state.poller.take() {
                state = self.lead(state, poller);
            } else {
                state = self.follow(state);
            }
        }
    }

    /// Moves every executable that can run now and whose trigger fired into the queue.
    fn collect(&self, state: &mut State<'a>) {
        // Whoever takes the notifications looks at all they may mean: a stop request and
        // pending executables. One that arrives later keeps the leader from sleeping.
        self.signal.take_notified();
        if self.stop.take_request() {
            self.end(state, Ending::Outcome(SpinOutcome::Stopped));
            return;
        }
        // Checked here too, so that a pool that always has work still stops.
        if shutdown::requested() {
            self.end(state, Ending::Outcome(SpinOutcome::Interrupted));
            return;
        }
        // Without a leader in the poller, nobody would see watched fds until the pool idles.
        if let Some(poller) = state.poller.as_mut() {
            match poller.poll_watched() {
                Ok(Woken::Work) => {}
                Ok(Woken::Shutdown) => {
                    self.end(state, Ending::Outcome(SpinOutcome::Interrupted));
                    return;
                }
                Err(e) => {
                    self.end(state, Ending::Failed(e.into()));
                    return;
                }
            }
        }
        let State {
            slots,
            groups,
            ready,
            cursor,
            ..
        } = state;
        let (n, start) = (slots.len(), *cursor);
        // One read for the whole pass (see `dispatch::Entry::fire`).
        let now = os_now(ClockKind::Steady);
        for i in (start..n).chain(0..start) {
            let slot = &mut slots[i];
            let group = &mut groups[slot.group];
            if group.busy {
                continue;
            }
            let Some(entry) = slot.entry.take() else {
                continue;
            };
            let Some(activation) = entry.poll(now) else {
                slot.entry = Some(entry);
                continue;
            };
            slot.deadline = entry.steady_deadline();
            group.busy = group.exclusive;
            ready.push_back(Job {
                slot: i,
                entry,
                activation,
            });
            *cursor = (i + 1) % n;
        }
    }

    /// True if `job` and the jobs left in the queue last so little, as they did the last
    /// time, that this worker runs them all before a follower it woke could start one (see
    /// "Short work" in the module docs).
    fn finishes_before_a_helper_wakes(state: &State<'a>, job: &Job<'a>) -> bool {
        let mut left = HAND_OVER_NS;
        for slot in std::iter::once(job.slot).chain(state.ready.iter().map(|j| j.slot)) {
            match state.slots[slot].last_run {
                Some(took) if took < left => left -= took,
                _ => return false,
            }
        }
        true
    }

    /// Wakes a follower for each job left in the queue, and one to take over the poller if
    /// the leader just left it for a job, counting those already woken.
    fn wake_helpers(&self, state: &mut State<'a>) {
        let wanted = state.ready.len() + usize::from(state.poller.is_some());
        let asleep = state.idle - state.notified;
        for _ in 0..wanted.saturating_sub(state.notified).min(asleep) {
            self.followers.notify_one();
            state.notified += 1;
        }
    }

    /// Runs a job outside the lock, then puts its executable back and frees its group.
    fn run(&self, job: Job<'a>) -> MutexGuard<'_, State<'a>> {
        let Job {
            slot,
            entry,
            activation,
        } = job;
        // The activation's time is the collection's; the wait in the queue is not the run's.
        let start = os_now(ClockKind::Steady);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            let ran = entry.run(&activation);
            // A per-sample callback runs again while samples are unread; other code waits for
            // the next arrival. No need to wake anyone: this worker collects again before it
            // ever sleeps.
            let left_unread = entry.left_unread();
            if left_unread && entry.is_per_sample() {
                entry.rearm_quietly();
            }
            (ran, left_unread && !entry.is_per_sample())
        }));
        let mut state = self.lock();
        state.stats.record(&activation);
        let result = result.map(|(ran, left_unread)| {
            state.stats.left_unread += u64::from(left_unread);
            ran
        });
        // The end as the run read it: on the steady clock only, so another clock's job never
        // counts as short.
        state.slots[slot].last_run = match &result {
            Ok(Ok(end)) if entry.on_steady_clock() => Some(nanos_between(start, *end)),
            _ => None,
        };
        let group = state.slots[slot].group;
        state.groups[group].busy = false;
        state.slots[slot].entry = Some(entry);
        match result {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => self.end(&mut state, Ending::Failed(e.into())),
            Err(payload) => self.end(&mut state, Ending::Panicked(payload)),
        }
        state
    }

    /// Waits in the poller until there may be work, then puts the poller back.
    fn lead<'g>(
        &'g self,
        mut state: MutexGuard<'g, State<'a>>,
        poller: &'a mut Poller,
    ) -> MutexGuard<'g, State<'a>> {
        let wake_at = self.wake_time(&state);
        state.leader_deadline = wake_at;
        drop(state);
        let woken = poller.wait(wake_at, os_now(ClockKind::Steady));
        let mut state = self.lock();
        state.poller = Some(poller);
        match woken {
            Ok(Woken::Work) => {}
            Ok(Woken::Shutdown) => self.end(&mut state, Ending::Outcome(SpinOutcome::Interrupted)),
            Err(e) => self.end(&mut state, Ending::Failed(e.into())),
        }
        state
    }

    /// Waits on the condition variable until a job is left for this worker, the poller is
    /// free, or the spin ends.
    fn follow<'g>(&'g self, mut state: MutexGuard<'g, State<'a>>) -> MutexGuard<'g, State<'a>> {
        // This worker may have freed a timer the leader did not count when it went to sleep.
        let sooner = match (self.wake_time(&state), state.leader_deadline) {
            (Some(mine), Some(leader)) => mine < leader,
            (mine, leader) => mine.is_some() && leader.is_none(),
        };
        if sooner {
            self.signal.notify();
        }
        state.idle += 1;
        let mut state = self
            .followers
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
        state.idle -= 1;
        state.notified = state.notified.saturating_sub(1);
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        state
    }

    /// When the leader must wake up at the latest: the spin's deadline, or a timer's (see
    /// "Deadlines" in the module docs).
    fn wake_time(&self, state: &State<'a>) -> Option<Time> {
        let now = os_now(ClockKind::Steady);
        let timers = state.slots.iter().filter_map(|slot| match &slot.entry {
            Some(entry) if !state.groups[slot.group].busy => entry.steady_deadline(),
            Some(entry) => entry.steady_deadline().filter(|d| *d > now),
            None => slot.deadline.filter(|d| *d > now),
        });
        timers.chain(self.deadline).min()
    }

    /// Ends the spin: the first reason wins, except that a panic is always reported.
    fn end(&self, state: &mut State<'a>, ending: Ending) {
        let replace = match (&state.ending, &ending) {
            (None, _) => true,
            (Some(Ending::Panicked(_)), _) => false,
            (Some(_), Ending::Panicked(_)) => true,
            (Some(_), _) => false,
        };
        if replace {
            state.ending = Some(ending);
        }
        self.followers.notify_all();
        state.notified = state.idle;
        if state.poller.is_none() {
            self.signal.notify();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use super::*;
    use crate::{Context, Trigger};

    #[test]
    fn short_timers_due_together_wake_one_worker_per_period() {
        const PERIODS: usize = 40;
        let ctx = Context::new();
        let mut executor = ThreadPoolExecutor::builder().threads(2).create().unwrap();
        let stop = executor.stop_handle();
        // Three nodes, three groups: the pool may run their timers in parallel, and would
        // wake the follower for them if they were long.
        let periods = Arc::new(AtomicUsize::new(0));
        for name in ["a", "b", "c"] {
            let mut node = ctx.node(name).unwrap();
            let (periods, stop) = (periods.clone(), stop.clone());
            node.execute(Trigger::every(Duration::from_millis(5)), move |_| {
                if name == "a" && periods.fetch_add(1, Ordering::Relaxed) + 1 == PERIODS {
                    stop.stop();
                }
            })
            .unwrap();
            executor.add(node).unwrap();
        }
        executor.spin().unwrap();

        // The leader's wake-up for each period, and the follower's once: for the first
        // period, whose runs have no length yet, and at the end, to return. Handing the
        // short runs over would count two per period. A run that a loaded machine stretches
        // past the hand-over's cost hands the next period over, hence the margin.
        let wakeups = executor.stats().wakeups;
        assert!(
            wakeups < (PERIODS + PERIODS / 2) as u64,
            "{wakeups} wake-ups for {PERIODS} periods"
        );
    }

    #[test]
    fn workers_stop_being_started_once_the_spin_ends() {
        let started = std::cell::RefCell::new(Vec::new());
        let result = start_workers(
            ThreadPoolExecutor::MAX_THREADS,
            || started.borrow().len() >= 3,
            |i| {
                started.borrow_mut().push(i);
                Ok(())
            },
        );
        assert!(result.is_ok());
        assert_eq!(*started.borrow(), [1, 2, 3]);
    }
}
