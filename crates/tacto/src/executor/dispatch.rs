//! What the executors share: a node's executables as entries with their scheduling state, and
//! how a node is admitted.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Instant;

use super::AddError;
use super::base::Base;
use super::poller::{FdListener, Rearm, Watch};
use super::signal::Signal;
use super::stats::{Counters, ExecutableStats, nanos_between};
use crate::callback_group::CallbackGroup;
use crate::clock::{Clock, ClockKind, Time, os_now};

use crate::node::{Executable, Node};
use crate::subscription::{Input, Listener};
use crate::timer::Schedule;
use crate::trigger::Activation;

/// Marks an entry pending and wakes its executor: the listener of triggering subscriptions and
/// watched fds.
#[derive(Debug)]
pub(crate) struct Pending {
    flag: AtomicBool,
    /// When the first sample since the executor last took the flag arrived, steady
    /// nanoseconds (0: none), for the run's start delay. Set on the publisher's thread only
    /// when unset, so it costs one clock read per run, not per sample; a race with the
    /// executor taking it can only misdate one run's delay.
    since: AtomicI64,
    signal: Arc<Signal>,
}

impl Pending {
    /// Starts pending if `exe` has subscriptions: samples may have arrived before the node was
    /// added. An fd's level is reported by the poller once the fd is watched.
    pub(crate) fn new(signal: &Arc<Signal>, exe: &Executable) -> Arc<Self> {
        Arc::new(Pending {
            flag: AtomicBool::new(exe.trigger.fd().is_none()),
            since: AtomicI64::new(0),
            signal: signal.clone(),
        })
    }

    /// If the entry is pending on input whose first sample arrived at `mark` or later (steady
    /// clock): when that sample arrived. Does not take the flag.
    fn arrived_since(&self, mark: Time) -> Option<Time> {
        // `since` is stored before the flag is set, and read after it is seen.
        if !self.flag.load(Ordering::SeqCst) {
            return None;
        }
        let since = self.since.load(Ordering::Relaxed);
        (since >= mark.as_nanos()).then(|| Time::from_nanos(since))
    }

    /// Notes the arrival time if this is the first arrival since the last run.
    fn arrived(&self) {
        if self.since.load(Ordering::Relaxed) == 0 {
            let now = os_now(ClockKind::Steady).as_nanos();
            self.since.store(now, Ordering::Relaxed);
        }
    }
}

impl Listener for Pending {
    fn on_sample(&self) {
        self.arrived();
        // The flag must be visible before the executor takes the notification.
        self.flag.store(true, Ordering::SeqCst);
        self.signal.notify();
    }
}

impl FdListener for Pending {
    fn on_readable(&self) {
        self.arrived();
        // On the executor's thread, which looks for work next: no notification needed.
        self.flag.store(true, Ordering::SeqCst);
    }
}

/// Hears from the poller that a triggering subscription's transport fd is readable: drains it
/// and, if samples arrived, marks the entry as a sample would (on the executor's thread).
#[derive(Debug)]
struct InputWake<L> {
    input: Arc<dyn Input>,
    listener: Arc<L>,
}

impl<L: FdListener> FdListener for InputWake<L> {
    fn on_readable(&self) {
        if self.input.on_wake_fd() > 0 {
            self.listener.on_readable();
        }
    }
}

/// One executable inside an executor; `L` is what its triggering subscriptions call.
pub(crate) struct Entry<L = Pending> {
    exe: Executable,
    node: Arc<str>,
    /// Its position among its node's executables.
    index: usize,
    /// What it did so far.
    counters: Arc<Counters>,
    /// Set for periodic triggers.
    schedule: Option<Schedule>,
    /// For other triggers: when the input that this run serves began to arrive (steady
    /// clock), if known; the start delay counts from it.
    arrived: Option<Time>,
    listener: Arc<L>,
    /// Set for readable triggers: re-arms the fd after each run.
    watch: Option<Watch>,
    /// The node's clocks; they keep the `/clock` subscription of sim time alive.
    clock: Clock,
}

impl<L> std::fmt::Debug for Entry<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("node", &self.node)
            .field("trigger", &self.exe.trigger)
            .field("schedule", &self.schedule)
            .finish_non_exhaustive()
    }
}

impl<L> Entry<L> {
    pub(crate) fn is_periodic(&self) -> bool {
        self.schedule.is_some()
    }

    /// After a run: true if a subscription trigger's rule still holds over unread data, i.e.
    /// the code left input behind. A per-sample callback is then run again (each run takes a
    /// sample); other code waits for the next arrival, and the executor counts it in
    /// [`ExecutorStats::left_unread`].
    pub(crate) fn left_unread(&mut self) -> bool {
        self.schedule.is_none() && self.watch.is_none() && self.exe.trigger.holds()
    }

    /// True if the trigger's clock is the steady one, that of its activations' times.
    pub(crate) fn on_steady_clock(&self) -> bool {
        self.exe.trigger.clock == ClockKind::Steady
    }

    /// True for a classic per-message callback (see [`left_unread`](Self::left_unread)).
    pub(crate) fn is_per_sample(&self) -> bool {
        self.exe.trigger.per_sample
    }

    /// The time on the trigger's clock, given the steady time the executor last read.
    fn now(&self, steady: Time) -> Time {
        match self.exe.trigger.clock {
            ClockKind::Steady => steady,
            kind => self.clock.now(kind),
        }
    }

    /// The activation to run now, if the trigger fires: a deadline passed, a subscription
    /// trigger fires (see [`Trigger`](crate::Trigger)), or (for a readable trigger, which is
    /// only asked when the poller reported its fd) always.
    ///
    /// `now` is the steady time as the executor's thread last read it: before its round of
    /// checks, or at the end of the run before (see [`Entry::run`]). It lags the true time by
    /// the checks of the entries in between, well under a microsecond each, and saves a clock
    /// read per check and per run.
    pub(crate) fn fire(&mut self, now: Time) -> Option<Activation> {
        let fired = match self.schedule.is_some() || self.watch.is_some() {
            true => 0,
            false => self.exe.trigger.fire()?,
        };
        let time = self.now(now);
        let (missed_periods, deadline) = match &mut self.schedule {
            Some(schedule) => (schedule.fire(time)?, Some(schedule.served())),
            None => (0, None),
        };
        Some(Activation {
            time,
            deadline,
            missed_periods,
            fired,
        })
    }

    /// Runs the code and counts the run; returns the steady time at its end, which serves as
    /// `now` for the next entry the thread fires (see [`Entry::fire`]). Fails only if a
    /// readable trigger's fd could not be re-armed.
    pub(crate) fn run(&mut self, activation: &Activation) -> io::Result<Time> {
        // The activation's time is when the run starts; on the steady clock (the default) it
        // serves as the start, and a run costs one clock read, its end, which the next run's
        // activation takes as its time.
        let start = match self.exe.trigger.clock {
            ClockKind::Steady => activation.time,
            ClockKind::System | ClockKind::Ros => os_now(ClockKind::Steady),
        };
        (self.exe.run)(activation);
        let end = os_now(ClockKind::Steady);
        let took = nanos_between(start, end);
        // The activation's time was read just before the run, on the trigger's clock.
        let delay = match (&self.schedule, self.arrived.take()) {
            (Some(schedule), _) => nanos_between(schedule.served(), activation.time),
            (None, Some(arrived)) if self.exe.trigger.clock == ClockKind::Steady => {
                nanos_between(arrived, activation.time)
            }
            (None, _) => 0,
        };
        (self.counters).record(delay, took, activation.missed_periods);
        // Level trigger, for an fd: epoll looks at its level as it is re-armed, so an fd left
        // readable is reported again, by the next wait.
        if let (Some(watch), Some(fd)) = (&self.watch, self.exe.trigger.fd()) {
            watch.rearm(fd)?;
        }
        Ok(end)
    }

    /// Notes when the input of the next run began to arrive, on the steady clock.
    pub(crate) fn arrived_at(&mut self, time: Time) {
        self.arrived = Some(time);
    }

    pub(crate) fn group(&self) -> CallbackGroup {
        self.exe.group
    }

    pub(crate) fn stats(&self) -> ExecutableStats {
        (self.counters).stats(&self.node, self.index, &self.exe.trigger.inputs)
    }

    pub(crate) fn steady_deadline(&self) -> Option<Time> {
        self.schedule.as_ref()?.steady_deadline(&self.clock)
    }

    /// The next deadline of a periodic trigger on the steady clock; `None` for other triggers
    /// and other clocks, whose steady deadline is only an estimate.
    pub(crate) fn exact_steady_deadline(&self) -> Option<Time> {
        self.schedule.as_ref()?.steady_next()
    }
}

impl Entry<Pending> {
    /// The activation to run now, if the trigger fired since the entry last ran; `now` as
    /// [`Entry::fire`] takes it.
    pub(crate) fn poll(&mut self, now: Time) -> Option<Activation> {
        if !self.is_periodic() {
            // A load first: most entries an executor asks are not pending, and a swap would
            // write the cache line of each.
            if !self.listener.flag.load(Ordering::SeqCst)
                || !self.listener.flag.swap(false, Ordering::SeqCst)
            {
                return None;
            }
            // A publisher writes `since` only while it is 0: a load, then a store of 0 only
            // when it was set, loses nothing a swap would keep.
            let since = self.listener.since.load(Ordering::Relaxed);
            if since != 0 {
                self.listener.since.store(0, Ordering::Relaxed);
                self.arrived = Some(Time::from_nanos(since));
            }
        }
        self.fire(now)
    }

    /// If the entry is pending on input that began to arrive at `mark` or later (steady
    /// clock): when it began to arrive. The trigger is not asked.
    pub(crate) fn arrived_since(&self, mark: Time) -> Option<Time> {
        match self.is_periodic() {
            true => None,
            false => self.listener.arrived_since(mark),
        }
    }

    /// Marks the entry pending and wakes its executor, as a sample would.
    pub(crate) fn rearm(&self) {
        self.listener.on_sample();
    }

    /// Marks the entry pending without waking the executor: for the thread pool, whose
    /// workers look for work after every run anyway.
    pub(crate) fn rearm_quietly(&self) {
        self.listener.flag.store(true, Ordering::SeqCst);
    }
}

/// Takes `node` apart into entries, watches the fds of its readable triggers in the executor's
/// poller, and attaches each executable's triggering subscriptions to the listener that
/// `listener` makes for it, given the index the entry will have after `existing`. The poller's
/// signal is woken when simulated time moves. The node's name joins the executor's.
///
/// `check` lets an executor refuse triggers its model lacks. Everything is checked, and every
/// fd watched, before anything is attached, so a refused node leaves no trace.
pub(crate) fn admit<L: Listener + FdListener + 'static>(
    node: Node,
    base: &mut Base,
    existing: &[Entry<L>],
    check: impl Fn(&Executable) -> Result<(), (&'static str, &'static str)>,
    mut listener: impl FnMut(usize, &Executable) -> Arc<L>,
) -> Result<Vec<Entry<L>>, AddError> {
    // The node's own name: while the executor holds it, the context refuses the name.
    let name = node.name.clone();
    if base.nodes.contains(&name) {
        return Err(AddError::DuplicateNode(name.to_string()));
    }
    let context = node.context().clone();
    let clock = context.clock().clone();
    // A subscription named in two of the node's triggers would be attached once, then refused.
    let mut triggering: Vec<&Arc<dyn Input>> = Vec::new();
    for exe in &node.executables {
        check(exe).map_err(|(executor, reason)| AddError::UnsupportedTrigger {
            node: name.to_string(),
            executor,
            reason,
        })?;
        for input in &exe.trigger.inputs {
            if input.is_attached() || triggering.iter().any(|i| Arc::ptr_eq(i, input)) {
                return Err(AddError::InputAlreadyTriggering(name.to_string()));
            }
            triggering.push(input);
        }
    }
    let listeners: Vec<Arc<L>> = (node.executables.iter().enumerate())
        .map(|(i, exe)| listener(existing.len() + i, exe))
        .collect();
    let mut fds: Vec<(_, Arc<dyn FdListener>, Rearm)> = (node.executables.iter())
        .zip(&listeners)
        .filter_map(|(exe, listener)| {
            Some((exe.trigger.fd()?, listener.clone() as _, Rearm::AfterRun))
        })
        .collect();
    let readable = fds.len();
    // Triggering subscriptions whose transport wakes through an fd: asked before they are
    // attached, so that the transport calls no listener of its own for them.
    for (exe, listener) in node.executables.iter().zip(&listeners) {
        for input in &exe.trigger.inputs {
            let fd = input.wake_fd().map_err(|error| AddError::Link {
                node: name.to_string(),
                error,
            })?;
            if let Some(fd) = fd {
                let wake = Arc::new(InputWake {
                    input: input.clone(),
                    listener: listener.clone(),
                });
                fds.push((fd, wake, Rearm::Never));
            }
        }
    }
    let mut watches = (base.poller)
        .watch_all(&fds)
        .map_err(|source| AddError::Watch {
            node: name.to_string(),
            source,
        })?
        .into_iter()
        .take(readable);
    drop(fds);
    let signal = base.poller.signal().clone();
    let mut entries = Vec::with_capacity(node.executables.len());
    for (index, (exe, listener)) in node.executables.into_iter().zip(listeners).enumerate() {
        for input in &exe.trigger.inputs {
            let attached = input
                .attach(listener.clone())
                .map_err(|error| AddError::Link {
                    node: name.to_string(),
                    error,
                })?;
            if !attached {
                return Err(AddError::InputAlreadyTriggering(name.to_string()));
            }
            // What a transport received before its wake fd existed was announced to no one
            // (a transient-local publisher's kept samples, handed over when the subscription
            // connected): drained once now, as if the fd had been reported, so it fires.
            if input.on_wake_fd() > 0 {
                listener.on_readable();
            }
        }
        let watch = exe.trigger.fd().and_then(|_| watches.next());
        let schedule = exe.trigger.period.map(|period| {
            if exe.trigger.clock == ClockKind::Ros {
                clock.wake_on_sim_time(&signal);
            }
            let now = clock.now(exe.trigger.clock);
            let epoch = base.epoch(exe.trigger.clock, now);
            Schedule::on_grid(period, exe.trigger.clock, epoch, now)
        });
        let counters = base.counters(&context, &name, index, &exe.trigger.inputs);
        entries.push(Entry {
            exe,
            node: name.clone(),
            index,
            counters,
            schedule,
            arrived: None,
            listener,
            watch,
            clock: clock.clone(),
        });
    }
    base.keep(name, &context);
    Ok(entries)
}

/// Converts an `Instant` to a time on the steady clock (both are `CLOCK_MONOTONIC`).
pub(crate) fn steady_time(instant: Instant) -> Time {
    let now = Instant::now();
    let steady = os_now(ClockKind::Steady);
    match instant.checked_duration_since(now) {
        Some(ahead) => steady + ahead,
        None => steady - now.duration_since(instant),
    }
}
