//! The events executor: rclcpp's `EventsExecutor`, with a bounded queue.
//!
//! Every sample that arrives on a triggering subscription becomes an event in one FIFO queue;
//! the thread takes events oldest first and runs one executable per event, and runs the
//! timers that came due before the next event. rclcpp's queue is unbounded, holds timers'
//! events too, and a timer that overruns fills it with one event per missed period, replayed
//! back to back. Here the queue has a fixed size, a timer never waits in it, a sample whose
//! event does not fit is still served, and the events a run queued run right after it, the
//! last queued first (see [`EventsExecutor`] for the exact policy).
//!
//! Publishers queue sample events on their own threads, through the listener attached to
//! each triggering subscription, and wake the executor through its [`Signal`] (no syscall
//! while it is busy). Timers are not queued: before each event the executor thread runs the
//! timers that came due (it reads their deadlines only once the earliest one has passed), and
//! sleeps in the poller until that deadline when the queue is empty. rclcpp's
//! `EventsExecutor` queues a timer's event behind the events already queued; here a timer
//! waits for at most the one run under way when it came due.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Instant;

use super::base::Base;
use super::dispatch::{self, Entry, steady_time};
use super::poller::{FdListener, Woken};
use super::running::Running;
use super::signal::Signal;
use super::timers::Timers;
use super::{
    AddError, ExecutableStats, Executor, ExecutorStats, SpinError, SpinOutcome, StopHandle,
};
use crate::clock::{ClockKind, Time, os_now};
use crate::node::Node;
use crate::pi_mutex::{PiGuard, PiMutex};
use crate::subscription::Listener;

/// Runs one executable per event, in the order events arrive: rclcpp's `EventsExecutor`, with a
/// bounded queue, and chains that advance as their data arrives.
///
/// Each sample that arrives on a triggering subscription queues one event for the executable
/// it triggers. The thread takes events oldest first and runs the executable once per event,
/// and before each event the timers that came due, so a callback subscription
/// ([`SubscriptionBuilder::callback`](crate::SubscriptionBuilder::callback)) runs once per
/// message, in arrival order across all subscriptions.
///
/// # A chain advances as its data arrives
/// After a run, the events that the run queued are taken next, ahead of the older events,
/// the one queued last (the last subscriber its last sample reached) first: the rule of Go's
/// `runnext` and Tokio's LIFO slot, applied depth first. A sample then runs down its chain of
/// nodes hop after hop instead of waiting, at each hop, behind every event queued before it
/// (rclcpp's `EventsExecutor` is strictly FIFO); where one run feeds several nodes, each
/// branch runs to its end before the next branch starts, and none waits behind the queue.
/// The jumps are bounded: an event taken in queue order starts a *chain*, and an event jumps
/// only if its executable has not run in the chain yet and has no other event jumping, so a
/// cycle or a node that feeds itself cannot hold the thread; between two events taken in
/// queue order run at most as many as there are executables.
///
/// # The queue, and what happens when it is full
/// The queue holds at most `capacity` sample events (default
/// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), set with
/// [`EventsExecutorBuilder::capacity`]), plus at most one *due* event per executable, in a
/// slot reserved for it: `capacity` + executables events in all, in memory allocated when the
/// executor is created and nodes are added. Nothing is allocated per event.
///
/// - **A sample that finds `capacity` sample events queued** queues none; the refusal counts in
///   [`dropped_events`](Self::dropped_events). The sample stays in its subscription's history,
///   and its executable gets a due event, unless one is queued already: the due event takes
///   the refused sample's place in line. No sample is lost to the queue; a sample is only ever
///   lost to its history's own policy (counted by
///   [`Subscription::dropped`](crate::Subscription::dropped)).
/// - **A due event** runs its executable once, if its trigger fires. Afterwards, for a
///   per-message callback with samples still unread and no event queued, a new due event joins
///   the back of the queue. So a callback whose sample events were refused works off its
///   history one message per turn, taking turns with everything else, until nothing unread is
///   left.
/// - **Timers jump the queue, never overflow and never burst.** A timer takes no place in the
///   queue: once due, it runs before the next event, timers due together in the order they
///   were added, each at most once between two events (so one that overruns cannot starve
///   them). A timer that overruns runs once, with the deadlines it missed in
///   [`Activation::missed_periods`](crate::Activation::missed_periods) (see [`crate::timer`]).
/// - **Readable fds** ([`Trigger::readable`](crate::Trigger::readable)) queue due events too,
///   one when the fd becomes readable: an fd's event runs its code once, however much data
///   waits, and its code, if it leaves the fd readable, gets the next event through the
///   poller. While the queue is busy, the executor looks at its fds once per pass over the
///   queue, so that their events take turns with the others.
///
/// # Triggers
/// Every [`Trigger`](crate::Trigger) works. An event runs its executable only if the trigger
/// fires when the event's turn comes: new samples arrived since the executable last ran, and
/// its rule holds. If it does not, the event is skipped and the samples wait in their
/// histories. So `Trigger::all()` runs on the event that finds every input with unread data,
/// `Trigger::when(f)` on an event for which `f()` is true, and a polling node that takes all
/// its samples in one run runs once for a burst (the burst's later events find no new arrival
/// and are skipped). As on every executor, code that leaves input unread is not run again
/// before the next arrival.
///
/// # Guarantees
/// - Events run in the order they were queued, one run at most per event, except that the
///   event a run queued last runs right after it (above); a subscription's samples are taken
///   oldest first.
/// - A timer that came due starts before the next event: its start delay is at most the one
///   run under way when it came due, plus the timers due with it and added before it.
/// - Blocks in `epoll_wait` when the queue is empty; never busy-waits.
/// - Bounded memory and no allocation per event; no sample is lost to the queue.
/// - Timers on ROS time follow `/clock` when the context uses sim time.
///
/// # Examples
/// A queue of two events meets a burst of three messages: one event is dropped, no message.
/// ```
/// use std::sync::mpsc;
/// use std::time::Duration;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, EventsExecutor, Executor, SpinOutcome};
///
/// let ctx = Context::new();
/// let mut executor = EventsExecutor::builder().capacity(2).create().unwrap();
/// let stop = executor.stop_handle();
/// let mut node = ctx.node("listener").unwrap();
/// let (tx, rx) = mpsc::channel();
/// node.subscription::<Text>("chat")
///     .callback(move |msg| {
///         if msg.data == "three" {
///             stop.stop();
///         }
///         tx.send(msg.data.clone()).unwrap();
///     })
///     .unwrap();
/// let mut talker = ctx.node("talker").unwrap();
/// let publisher = talker.publisher::<Text>("chat").create().unwrap();
///
/// executor.add(node).unwrap();
/// for word in ["one", "two", "three"] {
///     publisher.publish(Text { data: word.into() });
/// }
/// assert_eq!(executor.dropped_events(), 1); // "three" found the queue full...
/// assert_eq!(executor.spin_for(Duration::from_secs(10)).unwrap(), SpinOutcome::Stopped);
/// assert_eq!(rx.try_iter().collect::<Vec<_>>(), ["one", "two", "three"]); // ...and still ran
/// ```
#[derive(Debug)]
pub struct EventsExecutor {
    base: Base,
    queue: Arc<EventQueue>,
    /// Indexed by the executable numbers that events carry.
    entries: Vec<Entry<Source>>,
    /// The timers among `entries`, and when to look at them next.
    timers: Timers,
    /// Events to run before looking at watched fds again while the queue is busy: those queued
    /// when they were looked at last.
    until_fds: usize,
    /// Events taken so far.
    event_runs: u64,
    /// Per executable: for a timer, `event_runs` when it last ran (a timer runs at most once
    /// between two events while events wait).
    timer_runs: Vec<u64>,
    /// Events taken in queue order so far: each starts a chain of events taken next (see
    /// [`EventsExecutor`], "a chain advances as its data arrives").
    chains: u64,
    /// Per executable: the chain in which its last event was taken.
    chain_runs: Vec<u64>,
}

impl EventsExecutor {
    /// The queue's capacity in sample events unless [`EventsExecutorBuilder::capacity`] says
    /// otherwise: a full default history (depth 10) for each of about a hundred subscriptions,
    /// in 16 KiB.
    pub const DEFAULT_CAPACITY: usize = 1024;

    /// Creates the executor with the default capacity: `EventsExecutor::builder().create()`.
    pub fn new() -> Result<Self, EventsExecutorCreateError> {
        Self::builder().create()
    }

    /// Starts configuring an executor.
    pub fn builder() -> EventsExecutorBuilder {
        EventsExecutorBuilder {
            capacity: Self::DEFAULT_CAPACITY,
        }
    }

    /// Sample events refused since creation because the queue was full. Their samples are
    /// still served, through due events (see the policy on [`EventsExecutor`]).
    pub fn dropped_events(&self) -> u64 {
        self.queue.lock().dropped
    }

    fn with_capacity(capacity: usize) -> Result<Self, EventsExecutorCreateError> {
        if capacity == 0 {
            return Err(EventsExecutorCreateError::ZeroCapacity);
        }
        let mut events = VecDeque::new();
        events
            .try_reserve_exact(capacity)
            .map_err(|_| EventsExecutorCreateError::TooLarge(capacity))?;
        let base = Base::new("events")?;
        let ring = Ring {
            events,
            chain: Vec::new(),
            pushed: 0,
            capacity,
            samples: 0,
            queued: Vec::new(),
            dropped: 0,
        };
        Ok(EventsExecutor {
            queue: Arc::new(EventQueue {
                ring: PiMutex::new(ring),
                signal: base.poller.signal().clone(),
            }),
            base,
            entries: Vec::new(),
            timers: Timers::default(),
            until_fds: 0,
            event_runs: 0,
            timer_runs: Vec::new(),
            chains: 0,
            chain_runs: Vec::new(),
        })
    }

    /// Runs every timer due at `now` (steady), in registration order, skipping those that ran
    /// since the last event unless `again`; looks again after each run, which moves `now`.
    /// Notes when to look next; true if any ran.
    fn run_due_timers(&mut self, now: &mut Time, again: bool) -> io::Result<bool> {
        let mut ran = false;
        let (timer_runs, event_runs) = (&mut self.timer_runs, self.event_runs);
        // After each run the search starts over: another may have come due meanwhile, and
        // those before this one come first.
        while let Some((index, activation)) =
            (self.timers).fire_first(&mut self.entries, *now, |index| {
                !again && timer_runs[index] == event_runs
            })
        {
            timer_runs[index] = event_runs;
            let running = Running::enter(Arc::as_ptr(self.base.poller.signal()) as usize);
            *now = self.entries[index].run(&activation)?;
            drop(running);
            self.base.stats.record(&activation);
            ran = true;
        }
        self.timers.plan(&self.entries);
        Ok(ran)
    }

    /// Takes the next event (the top of the chain, else the oldest) and runs its executable once if its trigger fires; false if the queue was
    /// empty. `now` is the steady time as last read (see `dispatch::Entry::fire`), moved on to
    /// the run's end, or read again if nothing ran.
    fn run_next(&mut self, now: &mut Time) -> io::Result<bool> {
        let Some(taken) = self.queue.lock().pop() else {
            return Ok(false);
        };
        let Taken {
            index,
            arrived,
            more,
            promoted,
            pushed,
        } = taken;
        self.until_fds = self.until_fds.saturating_sub(1);
        self.event_runs += 1;
        if !promoted {
            self.chains += 1;
        }
        if let Some(chain) = self.chain_runs.get_mut(index) {
            *chain = self.chains;
        }
        // Only a node refused half-way through `add` leaves listeners without an entry.
        let Some(entry) = self.entries.get_mut(index) else {
            return Ok(true);
        };
        if let Some(arrived) = arrived {
            entry.arrived_at(arrived);
        }
        if let Some(activation) = entry.fire(*now) {
            let running = Running::enter(Arc::as_ptr(self.base.poller.signal()) as usize);
            *now = entry.run(&activation)?;
            drop(running);
            self.base.stats.record(&activation);
            let left_unread = entry.left_unread();
            let per_sample = entry.is_per_sample();
            let mut queue = self.queue.lock();
            // The chain goes on with the events this run queued.
            let (chain_runs, chain) = (&self.chain_runs, self.chains);
            queue.promote_since(pushed, |index| chain_runs.get(index) == Some(&chain));
            if left_unread {
                // A per-sample callback needs an event for its next sample, unless one is
                // queued (in a burst, the next sample's event serves it); other code waits for
                // the next arrival.
                match per_sample {
                    true if !more => queue.requeue(index),
                    true => {}
                    false => self.base.stats.left_unread += 1,
                }
            }
        } else {
            // Events that run nothing must not let `now` fall behind in a long burst.
            *now = os_now(ClockKind::Steady);
        }
        Ok(true)
    }
}

impl Executor for EventsExecutor {
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        let queue = &self.queue;
        let source = |index, _: &_| {
            queue.lock().register(index);
            Arc::new(Source {
                index,
                queue: queue.clone(),
            })
        };
        let entries = dispatch::admit(node, &mut self.base, &self.entries, |_| Ok(()), source)?;
        let first = self.entries.len();
        self.entries.extend(entries);
        self.timer_runs.resize(self.entries.len(), u64::MAX);
        self.timers.add(&self.entries, first);
        self.chain_runs.resize(self.entries.len(), 0);
        // Samples that arrived before the node was added have no events: one due event serves
        // them all. The trigger is checked without the lock, as its code may publish.
        for index in first..self.entries.len() {
            if self.entries[index].left_unread() {
                self.queue.lock().push_due(index);
            }
        }
        Ok(())
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        self.base.poller.check_process()?;
        let deadline = deadline.map(steady_time);
        // Read after each wait, and moved on by each run (see `dispatch::Entry::fire`).
        let mut now = os_now(ClockKind::Steady);
        loop {
            if self.base.stop.take_request() {
                return Ok(SpinOutcome::Stopped);
            }
            // A busy queue never reaches the poller, which checks this too.
            if crate::shutdown::requested() {
                return Ok(SpinOutcome::Interrupted);
            }
            self.base.poller.signal().take_notified();
            if self.timers.may_be_due(now) {
                self.run_due_timers(&mut now, false)?;
            }
            let busy = self.run_next(&mut now)?;
            if deadline.is_some_and(|d| now >= d) {
                return Ok(SpinOutcome::Elapsed);
            }
            // With no event left, a timer due again starves no one. Every timer is asked: one
            // on another clock may be due by its own clock before the steady deadline derived
            // from it.
            if !busy && self.run_due_timers(&mut now, true)? {
                continue;
            }
            if !busy {
                let next = self.timers.next().into_iter().chain(deadline).min();
                if self.base.poller.wait(next, now)? == Woken::Shutdown {
                    return Ok(SpinOutcome::Interrupted);
                }
                now = os_now(ClockKind::Steady);
            } else if self.until_fds == 0 && self.base.poller.watches_fds() {
                // A busy queue never reaches the wait, which would look at the fds.
                self.until_fds = self.queue.lock().events.len();
                if self.until_fds > 0 && self.base.poller.poll_watched()? == Woken::Shutdown {
                    return Ok(SpinOutcome::Interrupted);
                }
            }
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

/// Configures an [`EventsExecutor`]; from [`EventsExecutor::builder`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct EventsExecutorBuilder {
    capacity: usize,
}

impl EventsExecutorBuilder {
    /// How many sample events the queue holds before it refuses more (default
    /// [`EventsExecutor::DEFAULT_CAPACITY`]); 24 bytes each.
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    /// Creates the executor, its queue and its OS resources (an epoll set, an eventfd, a
    /// timerfd).
    pub fn create(self) -> Result<EventsExecutor, EventsExecutorCreateError> {
        EventsExecutor::with_capacity(self.capacity)
    }
}

/// Why an [`EventsExecutor`] could not be created.
#[derive(Debug, thiserror::Error)]
pub enum EventsExecutorCreateError {
    /// A queue of capacity 0 would refuse every sample event.
    #[error("the event queue needs a capacity of at least 1")]
    ZeroCapacity,
    /// The queue's memory could not be allocated.
    #[error("an event queue of capacity {0} does not fit in memory")]
    TooLarge(usize),
    /// The OS refused the executor's descriptors.
    #[error("the executor could not be set up: {0}")]
    Os(#[from] io::Error),
}

/// The queue, shared by the executor thread and the listeners that fill it.
///
/// A mutex around a preallocated ring: each critical section pushes or pops one event and
/// updates two counters, tens of nanoseconds. A lock-free ring would need `unsafe` slot code,
/// which tacto keeps to FFI boundaries, and could not update the queue and an executable's
/// counts in one step, which the overflow policy relies on.
struct EventQueue {
    /// Priority-inheriting: publishers of any priority queue events here.
    ring: PiMutex<Ring>,
    signal: Arc<Signal>,
}

impl fmt::Debug for EventQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ring = self.lock();
        f.debug_struct("EventQueue")
            .field("len", &ring.events.len())
            .field("capacity", &ring.capacity)
            .field("dropped", &ring.dropped)
            .finish()
    }
}

impl EventQueue {
    fn lock(&self) -> PiGuard<'_, Ring> {
        self.ring.lock()
    }
}

#[derive(Debug)]
struct Ring {
    /// Never grows past its reserved size: `capacity` sample events and one due event per
    /// executable (with `chain`).
    events: VecDeque<Event>,
    /// Events taken out of `events` to be taken before the others, the top first: those the
    /// runs of the chain under way queued (see [`EventsExecutor`]). Still counted as queued;
    /// at most one per executable, so it never outgrows the room `register` gives it.
    chain: Vec<Event>,
    /// Events queued so far, to tell which ones a run queued.
    pushed: u64,
    /// Sample events beyond this many are refused.
    capacity: usize,
    /// Sample events queued now.
    samples: usize,
    /// What each executable has queued, by index.
    queued: Vec<Queued>,
    /// Sample events refused because the queue was full.
    dropped: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Queued {
    samples: usize,
    due: bool,
    /// One of its events is on the chain.
    chained: bool,
}

/// An executable to run once, by its index in the executor.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A sample arrived on one of its triggering subscriptions, at this time (steady clock).
    Sample(usize, Time),
    /// It is due without a sample event of its own: a readable fd, or its trigger holds on
    /// samples without events (refused, older than the node's `add`, or left unread by its
    /// last run).
    Due(usize),
}

impl Event {
    fn index(self) -> usize {
        match self {
            Event::Sample(index, _) | Event::Due(index) => index,
        }
    }
}

impl Ring {
    /// Makes room for executable `index` and its reserved slot; called before its listener
    /// is attached, so only `add` allocates.
    fn register(&mut self, index: usize) {
        if self.queued.len() <= index {
            self.queued.resize(index + 1, Queued::default());
        }
        let room = self.capacity + self.queued.len() - self.events.len();
        self.events.reserve_exact(room);
        let room = self.queued.len() - self.chain.len();
        self.chain.reserve_exact(room);
    }

    fn push_sample(&mut self, index: usize, arrived: Time) {
        if self.samples < self.capacity {
            self.samples += 1;
            self.queued[index].samples += 1;
            self.events.push_back(Event::Sample(index, arrived));
            self.pushed += 1;
        } else {
            self.dropped += 1;
            self.push_due(index);
        }
    }

    /// Queues a due event unless the executable has one queued: the coalescing that keeps
    /// timers from bursting and the queue within its bound.
    fn push_due(&mut self, index: usize) {
        let queued = &mut self.queued[index];
        if !queued.due {
            queued.due = true;
            self.events.push_back(Event::Due(index));
            self.pushed += 1;
        }
    }

    /// After a run whose trigger still holds: the next run needs an event, unless one is queued.
    fn requeue(&mut self, index: usize) {
        if self.queued[index].samples == 0 {
            self.push_due(index);
        }
    }

    /// Moves onto the chain, the last queued on top, the events queued since `pushed` counted
    /// them: of each executable, its last one, unless `ran` says its executable ran in this
    /// chain or one of its events is on the chain already. The others keep their places.
    fn promote_since(&mut self, pushed: u64, ran: impl Fn(usize) -> bool) {
        let new = usize::try_from(self.pushed - pushed).unwrap_or(usize::MAX);
        let start = self.events.len().saturating_sub(new);
        let first = self.chain.len();
        // From the back, so that an executable's last event is the one found.
        for place in (start..self.events.len()).rev() {
            let index = self.events[place].index();
            if ran(index) || self.queued[index].chained {
                continue;
            }
            if let Some(event) = self.events.remove(place) {
                self.queued[index].chained = true;
                self.chain.push(event);
            }
        }
        self.chain[first..].reverse();
    }

    /// The next event: the promoted one, else the oldest.
    fn pop(&mut self) -> Option<Taken> {
        let pushed = self.pushed;
        let (event, promoted) = match self.chain.pop() {
            Some(event) => {
                self.queued[event.index()].chained = false;
                (event, true)
            }
            None => (self.events.pop_front()?, false),
        };
        let (index, arrived) = match event {
            Event::Sample(index, arrived) => {
                self.samples -= 1;
                self.queued[index].samples -= 1;
                (index, Some(arrived))
            }
            Event::Due(index) => {
                self.queued[index].due = false;
                (index, None)
            }
        };
        let queued = self.queued[index];
        Some(Taken {
            index,
            arrived,
            more: queued.samples > 0 || queued.due,
            promoted,
            pushed,
        })
    }
}

/// An event taken from the [`Ring`].
#[derive(Debug, Clone, Copy)]
struct Taken {
    /// Its executable.
    index: usize,
    /// When its sample arrived (a sample event).
    arrived: Option<Time>,
    /// Another event of the executable is still queued.
    more: bool,
    /// It came from the chain (see [`Ring::promote_since`]).
    promoted: bool,
    /// [`Ring::pushed`] when it was taken: events queued later were queued by its run.
    pushed: u64,
}

/// Queues an event for one executable whenever one of its triggering subscriptions receives a
/// sample; runs on the publisher's thread.
struct Source {
    index: usize,
    queue: Arc<EventQueue>,
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl Listener for Source {
    fn on_sample(&self) {
        let arrived = os_now(ClockKind::Steady);
        self.queue.lock().push_sample(self.index, arrived);
        self.queue.signal.notify();
    }
}

impl FdListener for Source {
    /// On the executor's thread, which looks at the queue next: no notification needed.
    fn on_readable(&self) {
        self.queue.lock().push_due(self.index);
    }
}
