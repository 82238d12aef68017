//! Actions: long-running goals a client sends to a server, with feedback on the way, a
//! result at the end, and cancel requests in between — ROS 2's action design, as rcl_action
//! implements it.
//!
//! This module holds the design's semantics: an action's type ([`ActionType`], which
//! `tacto-msggen` implements for each `.action` file), a goal's state machine
//! ([`GoalStatus`], [`GoalEvent`]) and a server's bookkeeping of its goals ([`Goals`]:
//! acceptance, which goals a cancel request reaches, results kept for a timeout and then
//! expired, the status list), bounded.

mod action_type;
mod goals;
mod status;

pub use action_type::ActionType;

pub use goals::{AcceptError, CancelCode, CancelReach, GoalId, GoalInfo, Goals, UpdateError};
pub use status::{GoalEvent, GoalStatus};
