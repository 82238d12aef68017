//! The callback executor: the classic ROS 2 model, kept as the honest baseline.
//!
//! Every subscription has a callback that runs once per message, every timer a callback per
//! period, as with rclcpp's `SingleThreadedExecutor`: due timers first, then one message per
//! ready subscription. rclcpp looks at its timers once per wait; this executor looks before
//! every callback, so a timer waits for at most the one callback under way when it came due. Trigger conditions (`all`, `when`) are not part of this
//! model and are refused; polling subscriptions read from a timer work as in rclcpp. A
//! [readable](crate::Trigger::readable) trigger runs its code once per round while its fd is
//! readable, like a callback subscription's once per message.

use std::time::Instant;

use super::single_threaded::{Policy, SingleThreaded};
use super::{
    AddError, ExecutableStats, Executor, ExecutorStats, SpinError, SpinOutcome, StopHandle,
};
use crate::node::{Executable, Node};
use crate::trigger::Rule;

/// Refuses, for an executor of the callback model (`executor`), the triggers that model lacks.
pub(super) fn classic(
    executor: &'static str,
) -> impl Fn(&Executable) -> Result<(), (&'static str, &'static str)> {
    move |exe| match exe.trigger.rule {
        // `every` is an `any` rule with a period.
        Rule::Any | Rule::Readable(_) => Ok(()),
        Rule::All | Rule::When(_) => Err((
            executor,
            "it runs `on`/`any` subscription triggers, timers and readable triggers; `all` and \
             `when` are conditions, not callbacks",
        )),
    }
}

/// Runs callbacks one message at a time on one thread, like rclcpp's single-threaded executor.
///
/// # Guarantees
/// - A timer that came due runs before the next message callback is started: its start delay
///   is at most the one callback under way when it came due, plus the timers due with it and
///   added before it. Timers due together run in the order they were added; a timer runs at
///   most once between two message callbacks, so one that overruns cannot starve them.
/// - Message callbacks run in dataflow order, one message each per pass, as
///   [`WaitSetExecutor`](crate::WaitSetExecutor) runs its triggers: the callback that a
///   callback's last message reached runs next, so a chain of callbacks advances hop by hop
///   as its data arrives; a subscription's messages are taken oldest first.
/// - Blocks in `epoll_wait` when nothing is ready; never busy-waits.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{CallbackExecutor, Context, Executor};
///
/// let ctx = Context::new();
/// let mut executor = CallbackExecutor::new().unwrap();
/// let stop = executor.stop_handle();
/// let mut node = ctx.node("listener").unwrap();
/// let mut heard = Vec::new();
/// node.subscription::<Text>("chat")
///     .callback(move |msg| {
///         heard.push(msg.data.clone());
///         if heard == ["one", "two"] {
///             stop.stop(); // one callback per message, in order
///         }
///     })
///     .unwrap();
/// let mut talker = ctx.node("talker").unwrap();
/// let publisher = talker.publisher::<Text>("chat").create().unwrap();
///
/// executor.add(node).unwrap();
/// publisher.publish(Text { data: "one".into() });
/// publisher.publish(Text { data: "two".into() });
/// executor.spin_for(Duration::from_secs(10)).unwrap();
/// assert_eq!(executor.stats().executions, 2);
/// ```
#[derive(Debug)]
pub struct CallbackExecutor(SingleThreaded);

impl CallbackExecutor {
    /// Creates the executor and its OS resources (an epoll set, an eventfd, a timerfd).
    pub fn new() -> std::io::Result<Self> {
        SingleThreaded::new(Policy {
            accepts: |exe| classic("callback")(exe),
            kind: "callback",
        })
        .map(CallbackExecutor)
    }
}

impl Executor for CallbackExecutor {
    fn add(&mut self, node: Node) -> Result<(), AddError> {
        self.0.add(node)
    }

    fn spin_until(&mut self, deadline: Option<Instant>) -> Result<SpinOutcome, SpinError> {
        self.0.spin_until(deadline)
    }

    fn stop_handle(&self) -> StopHandle {
        self.0.stop_handle()
    }

    fn stats(&self) -> ExecutorStats {
        self.0.stats()
    }

    fn executable_stats(&self) -> Vec<ExecutableStats> {
        self.0.executable_stats()
    }
}
