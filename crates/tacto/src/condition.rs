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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

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
            }),
        }
    }

    pub(crate) fn shared(&self) -> &Arc<HookShared> {
        &self.shared
    }

    /// From now on, each arrival calls the function.
    pub fn arm(&self) {
        self.shared.armed.store(true, Ordering::SeqCst);
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
    /// The subscription's transport cannot call a function on arrival: a shared-memory
    /// reader wakes only through an fd, which an executor's poller watches.
    #[error("the subscription's transport cannot call a hook on arrival: {0}")]
    Transport(String),
}
