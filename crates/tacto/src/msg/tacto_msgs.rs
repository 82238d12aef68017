//! `tacto_msgs`: what tacto processes tell about themselves; `tacto top` reads it. The
//! definitions are also in `crates/tacto/interfaces/tacto_msgs/msg/`, which the `tacto`
//! binary embeds so that `tacto topic echo` decodes them (tests keep the two equal, type
//! hashes included).

use crate::msg::builtin_interfaces::Time;

/// One executor of one process, as the process publishes it on [`EXECUTOR_STATS_TOPIC`] once
/// a second while someone subscribes, through the transport of the executor's nodes' context
/// (see [`ContextBuilder::transport`](crate::ContextBuilder::transport)). Counters run from
/// the executor's creation; rates come from two reports.
#[tacto::message(
    "tacto_msgs/msg/ExecutorStats",
    hash = "RIHS01_fe6e83f6c9c89939c207e611ab183223d83cff3651d08c4849c916687611cb4f"
)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecutorStats {
    /// When the figures were read, on the system clock.
    pub stamp: Time,
    /// The host of the process.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The executor's number in its process, from 0 in the order of creation.
    pub executor: u32,
    /// Its model: `wait-set`, `callback`, `thread-pool`, `events` or `let`.
    pub kind: String,
    /// Times its threads were woken (see [`crate::ExecutorStats::wakeups`]).
    pub wakeups: u64,
    /// Each of its executables, in the order they were added.
    pub executables: Vec<ExecutableStats>,
}

/// One executable: the figures of [`crate::ExecutableStats`], in nanoseconds.
#[tacto::message(
    "tacto_msgs/msg/ExecutableStats",
    hash = "RIHS01_98f8abe71ebf188bf24b3ddd7633da4305cf99c5dacbf347e04cdb1745ce9054"
)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecutableStats {
    /// The node's name.
    pub node: String,
    /// Its position among the node's executables.
    pub index: u32,
    /// Times its code ran.
    pub runs: u64,
    /// Time in its code, all runs together.
    pub run_ns_total: u64,
    /// The longest run.
    pub run_ns_max: u64,
    /// From what each run served (see [`crate::ExecutableStats::start_delay_total`]) to its
    /// start, all runs together.
    pub start_delay_ns_total: u64,
    /// The longest such delay.
    pub start_delay_ns_max: u64,
    /// Periods that passed unserved.
    pub missed_periods: u64,
    /// Samples that arrived on the subscriptions of its trigger.
    pub samples_in: u64,
    /// Of those, samples lost unread.
    pub samples_dropped: u64,
}

/// The topic of [`ExecutorStats`]; hidden, as a name with a token starting with `_` is to ROS
/// 2's tools.
pub const EXECUTOR_STATS_TOPIC: &str = "/_tacto/executor_stats";
