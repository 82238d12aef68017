//! The core of the wait-set and callback executors: one thread that runs ready entries one at a
//! time, then blocks until the next deadline or notification. The two differ only in their
//! [`Policy`]: which triggers they accept.
//!
//! # The order of runs
//! Before each run, the thread picks what runs next:
//!
//! 1. **Periods first.** Every periodic entry whose deadline has passed runs, in registration
//!    order, before any further data-triggered entry (subscriptions, services, clients,
//!    readable fds) is started. A period that comes due while another entry runs waits for
//!    that one run, and for the periodic entries due with it and registered before it; never
//!    for a round of other work. A periodic entry runs at most once between two data-triggered
//!    runs, so one that overruns its period cannot starve the others.
//! 2. **Then one sweep in dataflow order.** The data-triggered entries are swept in the order
//!    of the dataflow between them, upstream first: the thread learns that entry B follows
//!    entry A when B's input arrives while A runs, and ranks B at least one above A (at most
//!    the number of entries, so that a cycle stops rising); the sweep takes lower ranks first,
//!    registration order among equals. Each ready entry runs once per sweep, when the sweep
//!    reaches it, so a chain whose first hop ran advances hop by hop within the same sweep,
//!    and every entry has its turn at the same place in each sweep. Entries nobody feeds from
//!    this executor (all rank 0) are swept in registration order.
//! 3. **The chain that just moved goes on, depth first.** After a data-triggered run, the
//!    entries whose input began to arrive during it and that have not run in this pass go on
//!    top of a stack, the one it reached last (the last subscriber of the run's last sample)
//!    on top; the thread takes from the top of that stack before the sweep goes on from
//!    where it was. So a sample runs down its chain hop after hop, ahead of the chains that
//!    other entries of the same sweep start: the rule of Go's `runnext` and Tokio's LIFO
//!    slot, whose reason holds here too (the data was just written, and a chain's latency
//!    becomes the sum of its hops' runs instead of a sweep per hop). Where one run feeds
//!    several entries, each branch runs to its end before the next starts, the last reached
//!    first, and none waits for the rest of the pass: a fan-out's later branch waits for the
//!    earlier branches' runs only, whatever order the nodes were added in. Ties of the clock
//!    go to registration order.
//!
//! A *pass* is one sweep: each data-triggered entry runs at most once in it (rule 3 included),
//! so none waits for more than the rest of one pass and the next, however busy the others are.
//! When a pass ends the thread looks at watched fds without blocking, so a busy executor still
//! sees them, and a new pass begins; when a pass finds nothing ready at all, the thread sleeps
//! until the next deadline or notification.
//!
//! Everything here reads the steady time once per run, at its end (see [`Entry::fire`]); the
//! arrival times that rules 2 and 3 learn from are those the start-delay statistic keeps
//! anyway. The order depends on what the thread saw arrive during runs, so input from other
//! threads (another executor, a transport) can raise a rank or be the last arrival too: it
//! reorders, and the pass still bounds every wait.

use std::io;
use std::time::Instant;

use super::base::Base;
use super::dispatch::{self, Entry, Pending, steady_time};
use super::poller::Woken;
use super::running::Running;
use super::timers::Timers;
use super::{AddError, ExecutableStats, ExecutorStats, SpinError, SpinOutcome, StopHandle};
use crate::clock::{ClockKind, Time, os_now};
use crate::node::{Executable, Node};

/// What makes a single-threaded executor the one it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Policy {
    /// Refuses triggers the model lacks: `Err((executor name, reason))`.
    pub(crate) accepts: fn(&Executable) -> Result<(), (&'static str, &'static str)>,
    /// The model's name in the stats topic.
    pub(crate) kind: &'static str,
}

#[derive(Debug)]
pub(crate) struct SingleThreaded {
    base: Base,
    entries: Vec<Entry>,
    /// Per entry: for a data-triggered one, the pass in which it last ran; for a periodic one,
    /// the number of data-triggered runs before its last run.
    last: Vec<u64>,
    /// Per entry: its place in the dataflow, learned (rule 2 of the module docs).
    rank: Vec<usize>,
    /// The data-triggered entries in sweep order: lowest rank first, then registration order.
    order: Vec<usize>,
    /// The next place in `order` the sweep looks at.
    cursor: usize,
    /// The entries to look at before the sweep goes on, the top first: those whose input the
    /// runs of the chain under way delivered, the last delivered on top (rule 3 of the module
    /// docs). Holds each entry at most once, so it never outgrows the capacity `add` gives it.
    chain: Vec<usize>,
    /// Scratch for `learn`: the entries one run fed, with when their input arrived.
    fed: Vec<(Time, usize)>,
    /// The current pass's number (see the module docs).
    pass: u64,
    /// Data-triggered runs so far.
    data_runs: u64,
    /// The periodic entries, and when to look at them next.
    timers: Timers,
    policy: Policy,
}

/// What the thread does next.
enum Next {
    /// Run entry `index` with this activation.
    Run(usize, crate::Activation),
    /// The pass is over.
    PassEnd,
}

impl SingleThreaded {
    pub(crate) fn new(policy: Policy) -> io::Result<Self> {
        Ok(SingleThreaded {
            base: Base::new(policy.kind)?,
            entries: Vec::new(),
            last: Vec::new(),
            rank: Vec::new(),
            order: Vec::new(),
            cursor: 0,
            chain: Vec::new(),
            fed: Vec::new(),
            pass: 0,
            data_runs: 0,
            timers: Timers::default(),
            policy,
        })
    }

    pub(crate) fn add(&mut self, node: Node) -> Result<(), AddError> {
        let signal = self.base.poller.signal().clone();
        let entries = dispatch::admit(
            node,
            &mut self.base,
            &self.entries,
            self.policy.accepts,
            |_, exe| Pending::new(&signal, exe),
        )?;
        let first = self.entries.len();
        // Neither "ran this pass" nor "ran since the last data-triggered run".
        self.last.resize(first + entries.len(), u64::MAX);
        self.rank.resize(first + entries.len(), 0);
        self.entries.extend(entries);
        // Reserved here so that runs never allocate (see `learn`).
        let count = self.entries.len();
        self.chain.reserve(count.saturating_sub(self.chain.len()));
        self.fed.reserve(count.saturating_sub(self.fed.len()));
        let data = (first..self.entries.len()).filter(|&i| !self.entries[i].is_periodic());
        self.order.extend(data);
        self.sort_order();
        self.timers.add(&self.entries, first);
        Ok(())
    }

    /// Runs ready entries in the order the module docs give, then blocks until the next
    /// deadline or notification.
    pub(crate) fn spin_until(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<SpinOutcome, SpinError> {
        self.base.poller.check_process()?;
        let deadline = deadline.map(steady_time);
        let key = std::sync::Arc::as_ptr(self.base.poller.signal()) as usize;
        // A spin starts a pass: the last one may have been cut short by a stop.
        self.new_pass();
        // Read after each wait, and moved on by each run (see `Entry::fire`).
        let mut now = os_now(ClockKind::Steady);
        // Whether this pass ran a data-triggered entry.
        let mut busy = false;
        loop {
            if self.base.stop.take_request() {
                return Ok(SpinOutcome::Stopped);
            }
            // A busy executor reaches the poller only between passes, which checks this too.
            if crate::shutdown::requested() {
                return Ok(SpinOutcome::Interrupted);
            }
            self.base.poller.signal().take_notified();
            self.run_due_periods(key, &mut now, false)?;
            match self.next_data(now) {
                Next::Run(index, activation) => {
                    let start = now;
                    self.run(index, &activation, key, &mut now)?;
                    self.learn(index, start);
                    self.data_runs += 1;
                    busy = true;
                }
                Next::PassEnd => {
                    let idle = !busy;
                    busy = false;
                    self.new_pass();
                    if !idle {
                        if self.base.poller.watches_fds()
                            && self.base.poller.poll_watched()? == Woken::Shutdown
                        {
                            return Ok(SpinOutcome::Interrupted);
                        }
                        continue;
                    }
                    // A whole pass, scanned since this turn took the notifications, found
                    // nothing data-triggered to run: a periodic entry due again starves no
                    // one, and otherwise the thread may sleep.
                    if self.run_due_periods(key, &mut now, true)? {
                        continue;
                    }
                    if deadline.is_some_and(|d| now >= d) {
                        return Ok(SpinOutcome::Elapsed);
                    }
                    let next = self.timers.next().into_iter().chain(deadline).min();
                    if self.base.poller.wait(next, now)? == Woken::Shutdown {
                        return Ok(SpinOutcome::Interrupted);
                    }
                    now = os_now(ClockKind::Steady);
                    continue;
                }
            }
            if deadline.is_some_and(|d| now >= d) {
                return Ok(SpinOutcome::Elapsed);
            }
        }
    }

    /// Rule 1: runs every periodic entry due at `now`, in registration order, skipping those
    /// that ran since the last data-triggered run unless `again`; looks again after each run,
    /// which moves `now`. True if any ran.
    ///
    /// Without `again`, it looks only once the earliest steady deadline has passed; `again`
    /// (once per idle turn) asks every periodic entry, since one on another clock may be due
    /// by its own clock a little before or after the steady deadline derived from it.
    fn run_due_periods(&mut self, key: usize, now: &mut Time, again: bool) -> io::Result<bool> {
        if !again && !self.timers.may_be_due(*now) {
            return Ok(false);
        }
        let mut ran = false;
        // After each run the search starts over: another may have come due meanwhile, and
        // those before this one come first.
        loop {
            let (last, data_runs) = (&self.last, self.data_runs);
            let skip = |index: usize| !again && last[index] == data_runs;
            let Some((index, activation)) = self.timers.fire_first(&mut self.entries, *now, skip)
            else {
                break;
            };
            self.last[index] = self.data_runs;
            self.run(index, &activation, key, now)?;
            ran = true;
        }
        self.timers.plan(&self.entries);
        Ok(ran)
    }

    /// Rules 3 and 2: the entry the last data-triggered run fed last if it is ready, else the
    /// next ready data-triggered entry of the sweep at `now`; each at most once per pass.
    fn next_data(&mut self, now: Time) -> Next {
        let pass = self.pass;
        while let Some(index) = self.chain.pop() {
            // Another entry of the chain may have run it since `learn` pushed it.
            if self.last[index] == pass {
                continue;
            }
            if let Some(activation) = self.entries[index].poll(now) {
                self.last[index] = pass;
                return Next::Run(index, activation);
            }
        }
        while let Some(&index) = self.order.get(self.cursor) {
            self.cursor += 1;
            if self.last[index] == pass {
                continue;
            }
            if let Some(activation) = self.entries[index].poll(now) {
                self.last[index] = pass;
                return Next::Run(index, activation);
            }
        }
        Next::PassEnd
    }

    fn new_pass(&mut self) {
        self.pass += 1;
        self.cursor = 0;
        self.chain.clear();
    }

    /// Learns from the run of entry `ran`, started at `start`: an entry whose input arrived
    /// since follows it (rule 2), and those of them that have not run in this pass go on top of
    /// the chain, the one whose input arrived last on top (rule 3).
    fn learn(&mut self, ran: usize, start: Time) {
        let rank = (self.rank[ran] + 1).min(self.entries.len());
        let mut moved = false;
        self.fed.clear();
        for &index in &self.order {
            if index == ran {
                continue;
            }
            let Some(arrived) = self.entries[index].arrived_since(start) else {
                continue;
            };
            if self.rank[index] < rank {
                self.rank[index] = rank;
                moved = true;
            }
            if self.last[index] != self.pass {
                self.fed.push((arrived, index));
            }
        }
        // Pushed earliest first, so the last arrival is on top. Ties (one clock tick) go to
        // the entry registered first: it is pushed last.
        (self.fed).sort_unstable_by_key(|&(arrived, index)| (arrived, std::cmp::Reverse(index)));
        for &(_, index) in &self.fed {
            // Fed again: it moves up to where this run's deliveries go.
            if let Some(place) = self.chain.iter().position(|&i| i == index) {
                self.chain.remove(place);
            }
            self.chain.push(index);
        }
        if moved {
            self.sort_order();
        }
    }

    /// Puts `order` in rule 2's order. Unstable, which allocates nothing: the keys are unique.
    /// Mid-sweep, an entry moved behind the cursor waits for the next pass: ranks settle
    /// within the first runs of a chain, so this is rare.
    fn sort_order(&mut self) {
        let rank = &self.rank;
        (self.order).sort_unstable_by_key(|&index| (rank[index], index));
    }

    /// Runs entry `index` as executor `key` (see [`Running`]); `now` moves to the run's end.
    fn run(
        &mut self,
        index: usize,
        activation: &crate::Activation,
        key: usize,
        now: &mut Time,
    ) -> io::Result<()> {
        let entry = &mut self.entries[index];
        let running = Running::enter(key);
        *now = entry.run(activation)?;
        drop(running);
        let stats = &mut self.base.stats;
        stats.record(activation);
        if entry.left_unread() {
            match entry.is_per_sample() {
                true => entry.rearm(),
                false => stats.left_unread += 1,
            }
        }
        Ok(())
    }

    pub(crate) fn stop_handle(&self) -> StopHandle {
        self.base.stop_handle()
    }

    pub(crate) fn stats(&self) -> ExecutorStats {
        self.base.stats()
    }

    pub(crate) fn executable_stats(&self) -> Vec<ExecutableStats> {
        self.entries.iter().map(Entry::stats).collect()
    }
}
