//! The executor kinds, by the names launch files and the command line give them.

use std::fmt;
use std::str::FromStr;

/// One way of executing a topology: an executor and the node style natural to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExecutorKind {
    /// `callback`: one `CallbackExecutor`, callback-style nodes (rclcpp's single-threaded).
    Callback,
    /// `callback-mt`: one `ThreadPoolExecutor` over callback groups (rclcpp's multi-threaded).
    CallbackMt,
    /// `prioritized`: several executor threads; the hot path pinned and at real-time priority
    /// where permitted, as upstream's callback-group executor setup does.
    Prioritized,
    /// `events`: one `EventsExecutor`, callback-style nodes.
    Events,
    /// `wait-set`: one `WaitSetExecutor`, triggered and periodic nodes with polling
    /// subscriptions.
    WaitSet,
    /// `let`: one `LetExecutor`, polling nodes under Logical Execution Time.
    Let,
}

impl ExecutorKind {
    /// Every kind, in the order reports list them (the baseline first).
    pub const ALL: [ExecutorKind; 6] = [
        ExecutorKind::Callback,
        ExecutorKind::CallbackMt,
        ExecutorKind::Prioritized,
        ExecutorKind::Events,
        ExecutorKind::WaitSet,
        ExecutorKind::Let,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            ExecutorKind::Callback => "callback",
            ExecutorKind::CallbackMt => "callback-mt",
            ExecutorKind::Prioritized => "prioritized",
            ExecutorKind::Events => "events",
            ExecutorKind::WaitSet => "wait-set",
            ExecutorKind::Let => "let",
        }
    }

    /// True for the kinds that run every node on one thread, and so can use one core at most.
    pub fn single_threaded(self) -> bool {
        matches!(
            self,
            ExecutorKind::Callback
                | ExecutorKind::Events
                | ExecutorKind::WaitSet
                | ExecutorKind::Let
        )
    }

    /// True for the kinds whose nodes are written with per-message callbacks.
    pub fn uses_callbacks(self) -> bool {
        matches!(
            self,
            ExecutorKind::Callback
                | ExecutorKind::CallbackMt
                | ExecutorKind::Prioritized
                | ExecutorKind::Events
        )
    }
}

impl fmt::Display for ExecutorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An executor name that is not one of [`ExecutorKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown executor {0:?} (known: callback, callback-mt, prioritized, events, wait-set, let)"
)]
pub struct UnknownExecutor(pub String);

impl FromStr for ExecutorKind {
    type Err = UnknownExecutor;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ExecutorKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownExecutor(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_parses_from_its_name() {
        for kind in ExecutorKind::ALL {
            assert_eq!(kind.name().parse::<ExecutorKind>(), Ok(kind));
        }
        assert!("multi".parse::<ExecutorKind>().is_err());
    }
}
