//! The stats topic: each context with a transport publishes the figures of the executors that
//! run its nodes, once a second, while someone subscribes (`tacto top` does).
//!
//! A thread of the context's own does it, not the executors: an executor's thread may be
//! real-time, and a write to the transport is not. The thread wakes once a second and, with
//! no subscriber, only asks the publisher whether one came: a few microseconds per second. It
//! reads the executors' [`Board`]s, whose counters the executors keep anyway, so the
//! executors pay nothing for it.
//!
//! A context without a transport, or whose transport does not
//! [carry the graph's topics](crate::transport::Transport::carries_graph_topics) (shared memory), starts
//! no thread: in the process, executors answer
//! [`Executor::executable_stats`](super::Executor::executable_stats) directly.

use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::stats::Board;
use crate::msg::tacto_msgs::ExecutorStats;
use crate::publisher::Publisher;

/// How often the figures go out.
pub(crate) const PERIOD: Duration = Duration::from_secs(1);

/// A context's reporting thread; dropping it (with the context) stops the thread.
#[derive(Debug)]
pub(crate) struct Reporter {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct Shared {
    /// The executors that run the context's nodes; held weakly, so a dropped executor leaves
    /// the report (and the list, at the next addition).
    boards: Mutex<Vec<Weak<Board>>>,
    stopped: Mutex<bool>,
    stop: Condvar,
}

impl Reporter {
    /// Starts the thread, which publishes with `publisher`.
    pub(crate) fn start(publisher: Publisher<ExecutorStats>) -> std::io::Result<Reporter> {
        let shared = Arc::new(Shared::default());
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|name| name.trim().to_owned())
            .unwrap_or_default();
        let thread = thread::Builder::new().name("tacto-stats".into()).spawn({
            let shared = shared.clone();
            move || shared.run(&publisher, &host)
        })?;
        Ok(Reporter {
            shared,
            thread: Some(thread),
        })
    }

    /// Reports `board` from now on; once, however often it is added.
    pub(crate) fn add(&self, board: &Arc<Board>) {
        let mut boards = (self.shared.boards.lock()).unwrap_or_else(PoisonError::into_inner);
        boards.retain(|known| known.strong_count() > 0);
        if !boards
            .iter()
            .any(|known| known.as_ptr() == Arc::as_ptr(board))
        {
            boards.push(Arc::downgrade(board));
        }
    }
}

impl Shared {
    fn run(&self, publisher: &Publisher<ExecutorStats>, host: &str) {
        let mut next = Instant::now() + PERIOD;
        loop {
            if self.sleep_until(next) {
                return;
            }
            // A late tick (a suspended machine) starts a new grid rather than catching up.
            next = (next + PERIOD).max(Instant::now());
            if !publisher.is_heard() {
                continue;
            }
            let boards: Vec<Arc<Board>> = (self.boards.lock())
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .filter_map(Weak::upgrade)
                .collect();
            for board in boards {
                publisher.publish(board.report(host));
            }
        }
    }

    /// Sleeps until `deadline`; true if the reporter was stopped meanwhile.
    fn sleep_until(&self, deadline: Instant) -> bool {
        let mut stopped = self.stopped.lock().unwrap_or_else(PoisonError::into_inner);
        while !*stopped {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            stopped = (self.stop.wait_timeout(stopped, left))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        *self
            .shared
            .stopped
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        self.shared.stop.notify_all();
        if let Some(thread) = self.thread.take() {
            // It holds no context, so the last one is never dropped on it: joining is safe.
            let _ = thread.join();
        }
    }
}
