//! Conditions raised by code outside a node's inputs: a guard condition that a trigger can
//! name, and an arrival hook that a subscription calls only while it is armed.
//!
//! A trigger fires on arrivals on its node's own inputs. Some readiness is decided elsewhere:
//! a transform that a message waits for comes in on the process's `/tf`, a polling
//! subscription that wakes no one, and only the code that holds the message knows it waits.
//! The two parts here join them without making `/tf` wake anything while nothing waits:
//!
//! - a [`GuardCondition`], rclcpp's guard condition: raised from any thread, it is an input
//!   a [`Trigger`](crate::Trigger) names like a subscription, and it wakes the executor that
//!   runs the node;
//! - an [`ArrivalHook`] on a polling subscription, which runs a function on each arrival
//!   while armed, and costs one atomic load per arrival while disarmed.
//!
//! The waiting code arms the hook when it holds something to wait for, the hook raises the
//! condition on the next arrival, and the code, run by its trigger, looks again and disarms
//! it when nothing waits any more.

use std::fmt;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crate::subscription::{Input, Listener};
use crate::transport::LinkError;

/// A condition that code raises from any thread to run a node's executable: rclcpp's
/// `GuardCondition`, as an input of a [`Trigger`](crate::Trigger).
///
/// Make one with [`Node::guard_condition`](crate::Node::guard_condition) and name it in a
/// trigger of the same node ([`Trigger::on_condition`](crate::Trigger::on_condition),
/// [`Trigger::with_condition`](crate::Trigger::with_condition)). A
/// [`trigger`](Self::trigger) is an arrival: the executor running the node is woken and the
/// trigger's rule is evaluated, as for a sample. Raisings not yet [`take`](Self::take)n are
/// unread, as samples not yet taken: code that leaves the condition raised is not run again
/// until it is raised again. Raisings before the node was added to an executor count.
///
/// Every executor runs it: a LET executor sees a raising at its next period's start, as a
/// sample that arrived during the period.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("worker").unwrap();
/// let done = node.guard_condition();
/// let (ran, runs) = std::sync::mpsc::channel();
/// let condition = done.clone();
/// node.execute(Trigger::on_condition(&done), move |_| {
///     ran.send(condition.take()).unwrap();
/// })
/// .unwrap();
///
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(node).unwrap();
/// executor.spin_for(Duration::from_millis(5)).unwrap();
/// assert!(runs.try_recv().is_err()); // not raised: not run
///
/// std::thread::spawn(move || done.trigger()).join().unwrap();
/// executor.spin_for(Duration::from_millis(20)).unwrap();
/// assert_eq!(runs.try_recv(), Ok(true));
/// ```
#[derive(Clone)]
pub struct GuardCondition {
    shared: Arc<ConditionShared>,
}

impl fmt::Debug for GuardCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardCondition")
            .field("raised", &self.shared.raised.load(Ordering::Relaxed))
            .field("taken", &self.shared.taken.load(Ordering::Relaxed))
            .finish()
    }
}

#[derive(Debug, Default)]
pub(crate) struct ConditionShared {
    /// Raisings since creation.
    raised: AtomicU64,
    /// `raised` when the code last took the condition.
    taken: AtomicU64,
    /// Set once, by the executor that runs the node whose trigger names the condition.
    listener: OnceLock<Arc<dyn Listener>>,
}

impl GuardCondition {
    pub(crate) fn new() -> Self {
        GuardCondition {
            shared: Arc::default(),
        }
    }

    /// Raises the condition and wakes the executor that runs the trigger naming it; from any
    /// thread, without blocking (an atomic add and the executor's wake-up).
    pub fn trigger(&self) {
        // Counted before the wake-up, which the executor follows by reading it.
        self.shared.raised.fetch_add(1, Ordering::SeqCst);
        if let Some(listener) = self.shared.listener.get() {
            listener.on_sample();
        }
    }

    /// Lowers the condition: true if it was raised since the last `take`.
    pub fn take(&self) -> bool {
        let raised = self.shared.raised.load(Ordering::SeqCst);
        self.shared.taken.swap(raised, Ordering::SeqCst) != raised
    }

    /// How many times it was raised since creation.
    pub fn raisings(&self) -> u64 {
        self.shared.raised.load(Ordering::SeqCst)
    }

    pub(crate) fn input(&self) -> Arc<dyn Input> {
        self.shared.clone()
    }
}

/// What triggers need of an input: a raising is an arrival, raisings not taken are unread.
impl Input for ConditionShared {
    fn unread(&self) -> usize {
        let raised = self.raised.load(Ordering::SeqCst);
        let taken = self.taken.load(Ordering::SeqCst);
        usize::try_from(raised.saturating_sub(taken)).unwrap_or(usize::MAX)
    }

    fn arrivals(&self) -> u64 {
        self.raised.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> u64 {
        0
    }

    fn is_attached(&self) -> bool {
        self.listener.get().is_some()
    }

    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        Ok(self.listener.set(listener).is_ok())
    }

    // Nothing to freeze: a raising carries no data, and a LET period sees it from its start.
    fn freeze(&self) {}
}

/// A function a polling subscription calls on each arrival while the hook is armed: see
/// [`Subscription::on_arrival`](crate::Subscription::on_arrival).
///
/// Disarmed (as made), an arrival costs one atomic load more. Armed, the function runs on the
/// thread that delivers the sample (the publisher's, or the transport's receive thread), so it
/// must be quick and must not block: raise a [`GuardCondition`], set a flag. Clones share the
/// hook; it stays installed while the subscription lives.
///
/// A transport that cannot call a function (shared memory: a reader wakes through an fd)
/// announces its arrivals through [`wake_fd`](Self::wake_fd) instead: whoever holds the hook
/// watches that fd while the hook is armed and calls [`on_readable`](Self::on_readable)
/// when it is readable, which calls the function. Arrivals in the process still call it
/// directly. Nothing watches the fd while the hook is disarmed, so then an arrival wakes no
/// thread at all.
#[derive(Clone)]
pub struct ArrivalHook {
    shared: Arc<HookShared>,
}

impl fmt::Debug for ArrivalHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrivalHook")
            .field("armed", &self.is_armed())
            .finish_non_exhaustive()
    }
}

impl ArrivalHook {
    pub(crate) fn new(call: Box<dyn Fn() + Send + Sync>) -> Self {
        ArrivalHook {
            shared: Arc::new(HookShared {
                armed: AtomicBool::new(false),
                call,
                watched: OnceLock::new(),
            }),
        }
    }

    pub(crate) fn shared(&self) -> &Arc<HookShared> {
        &self.shared
    }

    /// Has the transport's arrivals announced through `fd` (a copy of the reader's wake-up
    /// fd), drained by `input`, instead of by a call.
    pub(crate) fn watch(&self, fd: OwnedFd, input: Weak<dyn Input>) {
        let _ = self.shared.watched.set(Watched { fd, input });
    }

    /// From now on, each arrival calls the function. Arrivals before are not announced,
    /// through the [fd](Self::wake_fd) either: arming consumes its readiness.
    pub fn arm(&self) {
        let was_armed = self.shared.armed.swap(true, Ordering::SeqCst);
        // A sample whose readiness this consumes arrived before the arming code's look at
        // the history, which follows: it is seen there.
        if let (false, Some(watched)) = (was_armed, self.shared.watched.get()) {
            watched.drain();
        }
    }

    /// The fd through which the subscription's transport announces arrivals, if it cannot
    /// call the function itself (shared memory): readable while samples may have arrived
    /// since the last [`on_readable`](Self::on_readable). Watch it (level-triggered) while
    /// the hook is armed. `None` when every arrival calls the function directly.
    pub fn wake_fd(&self) -> Option<BorrowedFd<'_>> {
        self.shared.watched.get().map(|watched| watched.fd.as_fd())
    }

    /// To call when the [`wake_fd`](Self::wake_fd) is readable: consumes its readiness and,
    /// if the hook is armed, calls the function, on this thread. Readable means samples
    /// arrived, even if someone has taken them since: the function is told of the arrival,
    /// as a transport that calls it would have told it.
    pub fn on_readable(&self) {
        if let Some(watched) = self.shared.watched.get() {
            watched.drain();
        }
        self.shared.arrived();
    }

    /// From now on, arrivals call nothing.
    pub fn disarm(&self) {
        self.shared.armed.store(false, Ordering::SeqCst);
    }

    /// True while armed.
    pub fn is_armed(&self) -> bool {
        self.shared.armed.load(Ordering::SeqCst)
    }
}

pub(crate) struct HookShared {
    armed: AtomicBool,
    call: Box<dyn Fn() + Send + Sync>,
    /// Set for a transport that wakes through an fd.
    watched: OnceLock<Watched>,
}

/// A transport's wake-up fd that a hook's holder watches.
struct Watched {
    /// A copy of the reader's fd: readable as the reader's is, owned by the hook.
    fd: OwnedFd,
    /// The subscription, which drains the reader's fd; weak, as it owns the hook.
    input: Weak<dyn Input>,
}

impl Watched {
    /// Consumes the fd's readiness.
    fn drain(&self) {
        if let Some(input) = self.input.upgrade() {
            input.on_wake_fd();
        }
    }
}

impl HookShared {
    /// Called on each arrival, after the sample was stored.
    #[inline(always)]
    pub(crate) fn arrived(&self) {
        // SeqCst, as `arm`: an arm that follows the arming code's last look at the history is
        // seen by any arrival stored after that look.
        if self.armed.load(Ordering::SeqCst) {
            (self.call)();
        }
    }
}

/// Why a subscription refused an arrival hook.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// The subscription already wakes an executor (a trigger names it) or has a hook: an
    /// arrival is announced to one party.
    #[error(
        "the subscription already announces its arrivals (a trigger names it, or it has a hook)"
    )]
    AlreadyAnnounced,
    /// The subscription's transport refused to announce arrivals (by a call, or through its
    /// wake-up fd): its own words.
    #[error("the subscription's transport cannot announce arrivals to a hook: {0}")]
    Transport(String),
}
