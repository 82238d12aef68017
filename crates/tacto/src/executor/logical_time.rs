//! The LET executor: Logical Execution Time, the semantics of the rclc executor's LET mode.
//!
//! Time is cut into periods of one length. At each period boundary the executor publishes what
//! its nodes produced in the period that ends, freezes every input of every node, then runs the
//! due executables in the order they were added. What a node reads, and when its results
//! appear, then depends on the period grid only, never on how long the nodes took or on the
//! order in which they happened to finish: a pipeline of nodes behaves the same on a fast and
//! on a slow machine, as long as each period's work fits in the period.

use std::fmt;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::base::Base;
use super::dispatch::steady_time;
use super::poller::Woken;
use super::stats::{Counters, nanos_between};
use super::{
    AddError, ExecutableStats, Executor, ExecutorStats, SpinError, SpinOutcome, StopHandle,
};
use crate::clock::{Clock, ClockKind, Time, os_now};
use crate::node::{Executable, Node};
use crate::publisher::{Deferred, Outbox};
use crate::subscription::Input;
use crate::timer::Schedule;
use crate::trigger::{Activation, Trigger};

/// Publications one period may hold back unless [`LetBuilder::outbox_capacity`] says otherwise.
const DEFAULT_OUTBOX_CAPACITY: usize = 1024;

/// Runs nodes with Logical Execution Time: inputs are read at the start of a period, outputs
/// published at its end.
///
/// # Semantics
/// The executor has one period `P`. At each period start it
/// 1. publishes every output its nodes produced during the previous period, in publication
///    order, at that period's deadline (not when the node published);
/// 2. freezes every subscription of every node it runs: samples that arrive afterwards stay
///    invisible to `take`, `read`, `latest` and `has_new` until the next period;
/// 3. runs the due executables once each, in the order nodes and executables were added:
///    - a periodic trigger of period `k·P` runs in the first period and in every `k`-th one
///      after it;
///    - an input trigger (`on`, `any`, `all`, `when`) runs if samples that arrived since its
///      last run became visible at this period's start and its rule holds on the frozen
///      inputs when its turn comes. It runs at most once per period; what it leaves unread
///      waits for the next period with new samples.
///
///    A [readable](crate::Trigger::readable) trigger is refused: an fd's data cannot be frozen.
///    So is a node with a [service](crate::Service) or [client](crate::Client): its requests
///    and responses would go out at once, not at the period's end.
///
/// So a node sees what its inputs held at its period's start, and a chain of nodes on one LET
/// executor takes exactly one period per hop.
///
/// # Guarantees
/// - Wakes once per period (on simulated ROS time: on each `/clock` message), and for stop
///   and shutdown; never for samples, and never busy-waits.
/// - Runs everything on the thread that spins it.
/// - A node's publishers hold their messages in a bounded outbox (see
///   [`LetBuilder::outbox_capacity`]): within a period, publications past its capacity are
///   dropped and counted by [`dropped_outputs`](Self::dropped_outputs), never queued
///   without bound.
/// - No allocation per period once the outbox has seen its busiest period.
///
/// # Overruns
/// If the nodes take longer than `P` (or the thread is descheduled), the period that overran
/// ends late, and its outputs go out then. The periods that passed meanwhile are skipped, not
/// replayed, as [`crate::timer`] does for timers: the next period starts at the next deadline
/// still on the grid, [`ExecutorStats::missed_periods`] counts the skipped periods, and each
/// periodic trigger's [`Activation::missed_periods`] counts its own skipped runs.
///
/// # Clock
/// Periods run on the steady clock unless [`LetBuilder::clock`] picks another one. On ROS time
/// under simulation, periods follow `/clock`: a period starts when `/clock` reaches its
/// deadline, however fast or slow simulated time runs. A periodic trigger must use the
/// executor's clock. [`Activation::time`] is the period's start (its logical time), on the
/// executor's clock; for an input trigger on another clock, it is when the run started on that
/// clock.
///
/// # Spinning
/// The first period starts when the executor first spins, and the period grid keeps its phase
/// across spins. A spin that ends in mid-period (its deadline, a stop, a shutdown) keeps that
/// period's outputs until the next spin reaches the period's end.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, Executor, LetExecutor, Trigger};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("controller").unwrap();
/// let command = node.publisher::<Text>("command").create().unwrap();
/// node.execute(Trigger::every(Duration::from_millis(50)), move |_| {
///     command.publish(Text { data: "go".into() });
/// })
/// .unwrap();
/// let mut probe = ctx.node("probe").unwrap();
/// let heard = probe.subscription::<Text>("command").create().unwrap();
///
/// let mut executor = LetExecutor::new(Duration::from_millis(50)).unwrap();
/// executor.add(node).unwrap();
/// executor.spin_for(Duration::from_millis(120)).unwrap();
/// // Each period's command went out when the period ended; the spin returned during the last
/// // period, whose command waits for that period's end.
/// let periods = executor.stats().executions;
/// assert_eq!(heard.take_all().count() as u64, periods - 1);
/// ```
pub struct LetExecutor {
    period: Duration,
    clock: Clock,
    kind: ClockKind,
    base: Base,
    /// The period grid; laid down by the first spin, so that the first period starts then.
    grid: Option<Schedule>,
    /// The number the next period gets if none is skipped; the first period is number 0.
    next_period: u64,
    entries: Vec<Entry>,
    /// Every subscription of every node, frozen at each period start. Held weakly, as its node
    /// held them: a subscription dropped meanwhile is freed at once, and its entry pruned at
    /// the next period start.
    inputs: Vec<Weak<dyn Input>>,
    outbox: Arc<Outbox>,
    /// The outbox's second buffer: flushing swaps the two instead of allocating.
    sending: Vec<Deferred>,
}

impl fmt::Debug for LetExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LetExecutor")
            .field("period", &self.period)
            .field("clock", &self.kind)
            .field("nodes", &self.base.nodes)
            .field("entries", &self.entries)
            .field("outbox", &self.outbox)
            .field("stats", &self.base.stats)
            .finish_non_exhaustive()
    }
}

/// One executable of a LET executor.
struct Entry {
    exe: Executable,
    node: Arc<str>,
    /// Its position among its node's executables.
    index: usize,
    /// What it did so far.
    counters: Arc<Counters>,
    /// Set for periodic triggers.
    due: Option<Due>,
    /// The node's clocks, for the time of an input trigger on another clock.
    clock: Clock,
}

/// When a periodic trigger runs, counted in periods.
#[derive(Debug)]
struct Due {
    every: u64,
    next: u64,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("trigger", &self.exe.trigger)
            .field("due", &self.due)
            .finish_non_exhaustive()
    }
}

impl Entry {
    /// The activation to run in period number `period`, starting at `start` on `kind`, if due.
    fn poll(&mut self, period: u64, start: Time, kind: ClockKind) -> Option<Activation> {
        let missed_periods = match &mut self.due {
            Some(due) => {
                let late = period.checked_sub(due.next)?;
                // Skip, never burst: run once, keep the phase (see `crate::timer`).
                let missed = late / due.every;
                due.next += (missed + 1) * due.every;
                missed
            }
            None => 0,
        };
        let fired = match self.due {
            Some(_) => 0,
            None => self.exe.trigger.fire()?,
        };
        let trigger = &self.exe.trigger;
        let time = if trigger.clock == kind {
            start
        } else {
            self.clock.now(trigger.clock)
        };
        // Every run serves its period's start; a periodic trigger's deadline is that start, on
        // the executor's clock.
        let deadline = (self.due.is_some() && trigger.clock == kind).then_some(start);
        Some(Activation {
            time,
            deadline,
            missed_periods,
            fired,
        })
    }
}

/// Why a [`LetExecutor`] could not be created.
#[derive(Debug, thiserror::Error)]
pub enum LetCreateError {
    /// The period is shorter than [`Trigger::MIN_PERIOD`] (zero
    /// included): the executor would do little but wake.
    #[error("a LET executor's period must be at least {:?}", Trigger::MIN_PERIOD)]
    PeriodTooShort,
    /// The period is longer than [`Trigger::MAX_PERIOD`], the span
    /// a [`Time`] can count.
    #[error("a LET executor's period must be at most {:?}", Trigger::MAX_PERIOD)]
    PeriodTooLong,
    /// An outbox that holds nothing would drop every output.
    #[error("a LET executor's outbox capacity must be at least 1")]
    ZeroOutboxCapacity,
    /// The OS refused the executor's resources (epoll set, eventfd, timerfd).
    #[error("the executor could not be set up: {0}")]
    Os(#[from] std::io::Error),
}

/// Configures a [`LetExecutor`]; from [`LetExecutor::builder`].
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::executor::{LetCreateError, LetExecutor};
/// use tacto::{ClockKind, Context};
///
/// let ctx = Context::new();
/// let executor = LetExecutor::builder(Duration::from_millis(10))
///     .clock(ctx.clock(), ClockKind::Ros)
///     .outbox_capacity(64)
///     .create();
/// assert!(executor.is_ok());
///
/// let empty = LetExecutor::builder(Duration::from_millis(10)).outbox_capacity(0).create();
/// assert!(matches!(empty, Err(LetCreateError::ZeroOutboxCapacity)));
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct LetBuilder {
    period: Duration,
    clock: Clock,
    kind: ClockKind,
    outbox_capacity: usize,
}

impl LetBuilder {
    /// Runs the periods on `kind` of `clock` (default: steady). For ROS time, pass the
    /// context's clock (`ctx.clock()`), so that periods follow its `/clock` under sim time.
    pub fn clock(mut self, clock: &Clock, kind: ClockKind) -> Self {
        self.clock = clock.clone();
        self.kind = kind;
        self
    }

    /// How many publications one period may hold back, all nodes together (default 1024).
    ///
    /// Overflow policy: once a period's outbox is full, the period's later publications are
    /// dropped and counted ([`LetExecutor::dropped_outputs`]); those already held go out.
    pub fn outbox_capacity(mut self, capacity: usize) -> Self {
        self.outbox_capacity = capacity;
        self
    }

    /// Creates the executor and its OS resources (an epoll set, an eventfd, a timerfd).
    pub fn create(self) -> Result<LetExecutor, LetCreateError> {
        if self.period < Trigger::MIN_PERIOD {
            return Err(LetCreateError::PeriodTooShort);
        }
        if self.period > Trigger::MAX_PERIOD {
            return Err(LetCreateError::PeriodTooLong);
        }
        if self.outbox_capacity == 0 {
            return Err(LetCreateError::ZeroOutboxCapacity);
        }
        let base = Base::new("let")?;
        if self.kind == ClockKind::Ros {
            self.clock.wake_on_sim_time(base.poller.signal());
        }
        Ok(LetExecutor {
            period: self.period,
            clock: self.clock,
            kind: self.kind,
            base,
            grid: None,
            next_period: 0,
            entries: Vec::new(),
            inputs: Vec::new(),
            outbox: Arc::new(Outbox::new(self.outbox_capacity)),
            sending: Vec::new(),
        })
    }
}

impl LetExecutor {
    /// Creates an executor with period `period` on the steady clock and the default outbox.
    pub fn new(period: Duration) -> Result<Self, LetCreateError> {
        Self::builder(period).create()
    }

    /// Starts configuring an executor with period `period`, from [`Trigger::MIN_PERIOD`] to
    /// [`Trigger::MAX_PERIOD`] ([`create`](LetBuilder::create) refuses others).
    pub fn builder(period: Duration) -> LetBuilder {
        LetBuilder {
            period,
            clock: Clock::default(),
            kind: ClockKind::Steady,
            outbox_capacity: DEFAULT_OUTBOX_CAPACITY,
        }
    }

    /// Publications dropped because a period's outbox was full, since creation.
    pub fn dropped_outputs(&self) -> u64 {
        self.outbox.dropped()
    }

    /// Every how many periods `exe` runs; `None` for input triggers. Refuses what LET cannot run.
    fn periods_of(&self, exe: &Executable) -> Result<Option<u64>, &'static str> {
        if exe.trigger.fd().is_some() {
            // A subscription's history can be frozen at the period start; an fd's kernel buffer
            // cannot, so what the node read would depend on when it ran in the period.
            return Err("a readable trigger's fd cannot be frozen at the period start");
        }
        let Some(period) = exe.trigger.period else {
            return Ok(None);
        };
        if exe.trigger.clock != self.kind {
            return Err("a periodic trigger must use the executor's clock");
        }
        let (nanos, unit) = (period.as_nanos(), self.period.as_nanos());
        if nanos % unit != 0 {
            return Err("a periodic trigger's period must be a whole multiple of the executor's");
        }
        Ok(Some(u64::try_from(nanos / unit).unwrap_or(u64::MAX)))
    }

    /// Ends the current period and runs the one that starts at `start`, `missed` periods after
    /// the one expected.
    fn run_period(&mut self, start: Time, missed: u64) {
        // Outputs go out before the inputs are frozen: a node of this executor that subscribes
        // to them sees them in this period, one period after they were produced.
        self.outbox.flush(&mut self.sending);
        self.inputs.retain(|input| match input.upgrade() {
            Some(input) => {
                input.freeze();
                true
            }
            None => false,
        });
        let period = self.next_period + missed;
        self.next_period = period + 1;
        for entry in &mut self.entries {
            if let Some(activation) = entry.poll(period, start, self.kind) {
                let began = os_now(ClockKind::Steady);
                // Every run serves its period's start, its logical time, whatever its trigger:
                // the delay is how late in the period it starts (the nodes before it ran first).
                let delay = match self.kind {
                    ClockKind::Steady => nanos_between(start, began),
                    ClockKind::System | ClockKind::Ros => {
                        nanos_between(start, self.clock.now(self.kind))
                    }
                };
                (entry.exe.run)(&activation);
                let took = nanos_between(began, os_now(ClockKind::Steady));
                (entry.counters).record(delay, took, activation.missed_periods());
                self.base.stats.executions += 1;
                if entry.due.is_none() && entry.exe.trigger.holds() {
                    self.base.stats.left_unread += 1;
                }
            }
        }
        self.base.stats.missed_periods += missed;
    }
}

impl Executor for LetExecutor {
    /// Takes `node`; refuses periodic triggers on another clock than the executor's, or whose
    /// period is not a whole multiple of the executor's, and readable triggers
    /// ([`AddError::UnsupportedTrigger`]): LET reads inputs as they were at the period start, and
    /// an fd's data, in the kernel, cannot be frozen then. Refuses nodes with services or
    /// clients too ([`AddError::ServicesUnsupported`]): their requests and responses are sent
    /// at once, not held to the period's end. A driver reading an fd can run on
    /// another executor and publish to the LET nodes' subscriptions, which are frozen.
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        if self.base.nodes.contains(&node.name) {
            return Err(AddError::DuplicateNode(node.name.to_string()));
        }
        if node.calls.iter().any(|call| call.strong_count() > 0) {
            return Err(AddError::ServicesUnsupported {
                node: node.name.to_string(),
                executor: "LET",
            });
        }
        // Everything is checked before the node's publishers are redirected, so a refused node
        // leaves no trace.
        let mut periods = Vec::with_capacity(node.executables.len());
        for exe in &node.executables {
            let every = self
                .periods_of(exe)
                .map_err(|reason| AddError::UnsupportedTrigger {
                    node: node.name.to_string(),
                    executor: "LET",
                    reason,
                })?;
            periods.push(every);
        }
        for output in node.outputs.iter().filter_map(Weak::upgrade) {
            let redirected = output.defer_to(self.outbox.clone());
            debug_assert!(redirected, "a publisher belongs to one node, added once");
        }
        let context = node.context().clone();
        let clock = context.clock().clone();
        self.base.keep(node.name.clone(), &context);
        self.inputs.extend(node.inputs);
        let next = self.next_period;
        let name = node.name.clone();
        let entries = node.executables.into_iter().zip(periods).enumerate();
        let base = &self.base;
        self.entries
            .extend(entries.map(|(index, (exe, every))| Entry {
                counters: base.counters(&context, &name, index, &exe.trigger.inputs),
                exe,
                node: name.clone(),
                index,
                due: every.map(|every| Due { every, next }),
                clock: clock.clone(),
            }));
        Ok(())
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        self.base.poller.check_process()?;
        let deadline = deadline.map(steady_time);
        let (period, kind) = (self.period, self.kind);
        loop {
            if self.base.stop.take_request() {
                return Ok(SpinOutcome::Stopped);
            }
            self.base.poller.signal().take_notified();
            let now = self.clock.now(kind);
            // The grid's first deadline is now: the first period starts with the first spin.
            let grid = self
                .grid
                .get_or_insert_with(|| Schedule::new(period, kind, now - period));
            if let Some(missed) = grid.fire(now) {
                let start = grid.served();
                self.run_period(start, missed);
            }
            let steady = os_now(ClockKind::Steady);
            if deadline.is_some_and(|d| steady >= d) {
                return Ok(SpinOutcome::Elapsed);
            }
            let next = self
                .grid
                .as_ref()
                .and_then(|grid| grid.steady_deadline(&self.clock))
                .into_iter()
                .chain(deadline)
                .min();
            if self.base.poller.wait(next, steady)? == Woken::Shutdown {
                return Ok(SpinOutcome::Interrupted);
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
        (self.entries.iter())
            .map(|e| e.counters.stats(&e.node, e.index, &e.exe.trigger.inputs))
            .collect()
    }
}
