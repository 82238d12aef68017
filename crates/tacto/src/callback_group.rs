//! Callback groups: which of a node's executables may run at the same time on a thread pool.
//!
//! As in ROS 2, every executable of a node belongs to one group of that node. A node starts
//! with one mutually exclusive group that holds everything registered with
//! [`Node::execute`](crate::Node::execute), [`Node::timer`](crate::Node::timer) and
//! [`SubscriptionBuilder::callback`](crate::SubscriptionBuilder::callback); more groups come
//! from [`Node::callback_group`](crate::Node::callback_group), and code goes into them with
//! [`Node::execute_in`](crate::Node::execute_in) (timers: `Trigger::every`) and
//! [`SubscriptionBuilder::callback_in`](crate::SubscriptionBuilder::callback_in).
//!
//! | group | two executables of the group | one executable with itself |
//! |---|---|---|
//! | [`MutuallyExclusive`](CallbackGroupKind::MutuallyExclusive) | never at the same time | never |
//! | [`Reentrant`](CallbackGroupKind::Reentrant) | in parallel | never |
//!
//! An executable never runs concurrently with itself, whatever its group (rclcpp's timers and
//! subscriptions behave the same: a running timer is taken, a callback takes one message). So
//! a callback that runs for message after message keeps its order and its `FnMut` state.
//!
//! Groups matter only to the [`ThreadPoolExecutor`](crate::ThreadPoolExecutor). The
//! single-threaded executors run one executable at a time anyway and ignore them.

/// Which executables of a [`CallbackGroup`] may run at the same time; see the
/// [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallbackGroupKind {
    /// At most one executable of the group runs at a time (rclcpp's default).
    MutuallyExclusive,
    /// Different executables of the group may run in parallel.
    Reentrant,
}

/// A handle to one callback group of one node; from
/// [`Node::callback_group`](crate::Node::callback_group).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{CallbackGroupKind, Context, Trigger};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("controller").unwrap();
/// // A timer that keeps its period while the node's other callbacks are busy.
/// let fast = node.callback_group(CallbackGroupKind::MutuallyExclusive);
/// node.execute_in(&fast, Trigger::every(Duration::from_millis(10)), |_| {}).unwrap();
/// assert_eq!(fast.kind(), CallbackGroupKind::MutuallyExclusive);
///
/// // A group belongs to the node that made it.
/// let mut other = ctx.node("other").unwrap();
/// assert!(other.execute_in(&fast, Trigger::every(Duration::from_millis(10)), |_| {}).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallbackGroup {
    /// The node's process-unique id: groups of different nodes never compare equal.
    pub(crate) node: u64,
    /// The group's number within its node; 0 is the node's default group.
    index: usize,
    kind: CallbackGroupKind,
}

impl CallbackGroup {
    pub(crate) fn new(node: u64, index: usize, kind: CallbackGroupKind) -> Self {
        CallbackGroup { node, index, kind }
    }

    /// Whether the group's executables may run in parallel.
    pub fn kind(&self) -> CallbackGroupKind {
        self.kind
    }
}
