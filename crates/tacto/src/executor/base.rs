//! What every executor owns: its OS resources, its stop handle, its counters, and the names of
//! the nodes it runs.

use std::io;
use std::sync::Arc;

use std::sync::atomic::Ordering;

use super::poller::Poller;
use super::stats::{Board, Counters};
use super::{ExecutorStats, StopHandle};
use crate::clock::{ClockKind, Time};
use crate::context::Context;
use crate::subscription::Input;

#[derive(Debug)]
pub(crate) struct Base {
    pub(crate) poller: Poller,
    pub(crate) stop: StopHandle,
    /// Counters; `wakeups` is unused: the poller counts them (see [`stats`](Self::stats)).
    pub(crate) stats: ExecutorStats,
    /// The figures the stats reporters of the nodes' contexts read.
    pub(crate) board: Arc<Board>,
    /// The names of every node added, those without executables included: each keeps its
    /// name taken in its context while the executor lives.
    pub(crate) nodes: Vec<Arc<str>>,
    /// The contexts of those nodes, each once: a node's context lives while the node runs
    /// (as an rclcpp node holds its context), so its parameter services, `/rosout` link and
    /// presence on the graph stay whatever happened to the program's own `Context` handle.
    contexts: Vec<Context>,
    /// Per clock, the instant all periods of this executor count from (see `timer.rs`, "One
    /// grid per executor"); set by the first periodic trigger admitted on that clock.
    pub(crate) epochs: Vec<(ClockKind, Time)>,
}

impl Base {
    /// Creates the OS resources: an epoll set, an eventfd and a timerfd. `kind` names the
    /// model in the stats topic.
    pub(crate) fn new(kind: &'static str) -> io::Result<Self> {
        let poller = Poller::new()?;
        let stop = StopHandle::new(poller.signal().clone());
        let board = Arc::new(Board::new(kind, poller.wakeups().clone()));
        Ok(Base {
            poller,
            stop,
            stats: ExecutorStats::default(),
            board,
            nodes: Vec::new(),
            contexts: Vec::new(),
            epochs: Vec::new(),
        })
    }

    /// Takes node `name` of `context` in: its name stays claimed, and its context alive, while
    /// the executor lives.
    pub(crate) fn keep(&mut self, name: Arc<str>, context: &Context) {
        self.nodes.push(name);
        if !self.contexts.iter().any(|kept| kept.same(context)) {
            self.contexts.push(context.clone());
        }
    }

    /// The grid's epoch for `clock`: the first `now` asked for, the same ever after.
    pub(crate) fn epoch(&mut self, clock: ClockKind, now: Time) -> Time {
        match self.epochs.iter().find(|(kind, _)| *kind == clock) {
            Some(&(_, epoch)) => epoch,
            None => {
                self.epochs.push((clock, now));
                now
            }
        }
    }

    pub(crate) fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    pub(crate) fn stats(&self) -> ExecutorStats {
        ExecutorStats {
            wakeups: self.poller.wakeups().load(Ordering::Relaxed),
            ..self.stats
        }
    }

    /// The counters of executable number `index` of node `node` of `context`, triggered by
    /// `inputs`, listed on the board; the context starts reporting this executor if its
    /// transport carries the stats.
    pub(crate) fn counters(
        &self,
        context: &Context,
        node: &Arc<str>,
        index: usize,
        inputs: &[Arc<dyn Input>],
    ) -> Arc<Counters> {
        let counters = Arc::new(Counters::default());
        self.board.add(node, index, &counters, inputs);
        context.report(&self.board);
        counters
    }
}
