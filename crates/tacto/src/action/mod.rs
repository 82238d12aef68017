//! Actions: long-running goals a client sends to a server, with feedback on the way, a
//! result at the end, and cancel requests in between — ROS 2's action design, as rcl_action
//! implements it.
//!
//! This module holds the design's semantics: an action's type ([`ActionType`], which
//! `tacto-msggen` implements for each `.action` file), a goal's state machine
//! ([`GoalStatus`], [`GoalEvent`]) and a server's bookkeeping of its goals ([`Goals`]:
//! acceptance, which goals a cancel request reaches, results kept for a timeout and then
//! expired, the status list), bounded; and on it an action's two ends, created from a node:
//! [`ActionServer`] ([`Node::action_server`]) and [`ActionClient`] ([`Node::action_client`]),
//! under rcl_action's names ([`ActionNames`]) and QoS. See `docs/actions.md`.

mod action_type;
mod client;
mod goals;
mod names;
mod server;
mod status;
mod wire;

pub use action_type::ActionType;
pub use client::{
    ActionCallError, ActionClient, ActionClientBuilder, ActionEvent, GoalOutcome, SendGoalError,
};
pub use names::{ActionNames, EmptyActionName};
pub use server::{
    ActionCreateError, ActionServer, ActionServerBuilder, CancelRequest, GoalHandle, GoalRequest,
};

pub use goals::{AcceptError, CancelCode, CancelReach, GoalId, GoalInfo, Goals, UpdateError};
pub use status::{GoalEvent, GoalStatus};

use crate::node::Node;

impl Node {
    /// Starts building a server of action `name` of type `A` (see [`ActionServer`]), under
    /// rcl_action's names: `<name>/_action/send_goal`, ... `name` resolves as a topic name.
    pub fn action_server<A: ActionType>(&mut self, name: &str) -> ActionServerBuilder<'_, A> {
        ActionServerBuilder::new(self, name)
    }

    /// Starts building a client of action `name` of type `A` (see [`ActionClient`]).
    pub fn action_client<A: ActionType>(&mut self, name: &str) -> ActionClientBuilder<'_, A> {
        ActionClientBuilder::new(self, name)
    }
}
