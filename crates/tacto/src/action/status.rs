//! A goal's state machine: rcl_action's, with `action_msgs/msg/GoalStatus`' ids.

use std::fmt;

/// Where a goal is: `action_msgs/msg/GoalStatus`' `STATUS_*` constants.
///
/// A goal is accepted, may execute, may be asked to cancel, and ends succeeded, canceled or
/// aborted. [`Unknown`](GoalStatus::Unknown) is what the status topic and a result request
/// say of a goal the server does not know.
///
/// # Examples
/// ```
/// use tacto::action::{GoalEvent, GoalStatus};
///
/// let executing = GoalStatus::Accepted.on(GoalEvent::Execute).unwrap();
/// assert_eq!(executing, GoalStatus::Executing);
/// assert_eq!(executing.id(), 2);
/// assert!(executing.is_active() && executing.is_cancelable());
/// // An accepted goal cannot succeed before it executes.
/// assert_eq!(GoalStatus::Accepted.on(GoalEvent::Succeed), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GoalStatus {
    /// `STATUS_UNKNOWN` (0).
    Unknown,
    /// `STATUS_ACCEPTED` (1): accepted, not executing yet.
    Accepted,
    /// `STATUS_EXECUTING` (2).
    Executing,
    /// `STATUS_CANCELING` (3): asked to cancel, cancel accepted, still running.
    Canceling,
    /// `STATUS_SUCCEEDED` (4): ended, done.
    Succeeded,
    /// `STATUS_CANCELED` (5): ended by a cancel.
    Canceled,
    /// `STATUS_ABORTED` (6): ended by the server, not done.
    Aborted,
}

/// What happens to a goal: rcl_action's `GOAL_EVENT_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GoalEvent {
    /// The server starts executing an accepted goal.
    Execute,
    /// The server accepted a request to cancel the goal.
    CancelGoal,
    /// The goal is done.
    Succeed,
    /// The server gives the goal up.
    Abort,
    /// The server finished canceling the goal.
    Canceled,
}

impl GoalStatus {
    /// The `action_msgs/msg/GoalStatus` id, 0 to 6.
    pub fn id(self) -> i8 {
        match self {
            GoalStatus::Unknown => 0,
            GoalStatus::Accepted => 1,
            GoalStatus::Executing => 2,
            GoalStatus::Canceling => 3,
            GoalStatus::Succeeded => 4,
            GoalStatus::Canceled => 5,
            GoalStatus::Aborted => 6,
        }
    }

    /// The status of id `id`, if it is one of the seven.
    pub fn from_id(id: i8) -> Option<GoalStatus> {
        Some(match id {
            0 => GoalStatus::Unknown,
            1 => GoalStatus::Accepted,
            2 => GoalStatus::Executing,
            3 => GoalStatus::Canceling,
            4 => GoalStatus::Succeeded,
            5 => GoalStatus::Canceled,
            6 => GoalStatus::Aborted,
            _ => return None,
        })
    }

    /// The status `event` leads to from this one, or `None` if rcl_action's state machine
    /// has no such transition (rcl answers `GOAL_STATE_UNKNOWN`).
    pub fn on(self, event: GoalEvent) -> Option<GoalStatus> {
        use GoalEvent as E;
        use GoalStatus as S;
        match (self, event) {
            (S::Accepted, E::Execute) => Some(S::Executing),
            (S::Accepted | S::Executing, E::CancelGoal) => Some(S::Canceling),
            (S::Executing | S::Canceling, E::Succeed) => Some(S::Succeeded),
            (S::Executing | S::Canceling, E::Abort) => Some(S::Aborted),
            (S::Canceling, E::Canceled) => Some(S::Canceled),
            _ => None,
        }
    }

    /// Whether the goal still runs: accepted, executing or canceling.
    pub fn is_active(self) -> bool {
        matches!(
            self,
            GoalStatus::Accepted | GoalStatus::Executing | GoalStatus::Canceling
        )
    }

    /// Whether a cancel request can still reach the goal (accepted or executing).
    pub fn is_cancelable(self) -> bool {
        self.on(GoalEvent::CancelGoal).is_some()
    }
}

impl fmt::Display for GoalStatus {
    /// As `ros2 action send_goal` prints a result's status: `SUCCEEDED`, `ABORTED`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GoalStatus::Unknown => "UNKNOWN",
            GoalStatus::Accepted => "ACCEPTED",
            GoalStatus::Executing => "EXECUTING",
            GoalStatus::Canceling => "CANCELING",
            GoalStatus::Succeeded => "SUCCEEDED",
            GoalStatus::Canceled => "CANCELED",
            GoalStatus::Aborted => "ABORTED",
        })
    }
}
