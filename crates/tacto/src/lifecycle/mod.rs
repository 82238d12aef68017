//! Managed (lifecycle) nodes: ROS 2's state machine for nodes that a manager configures,
//! activates, deactivates, cleans up and shuts down in order.
//!
//! A managed node starts **unconfigured**; `configure` takes it to **inactive** (set up, not
//! running), `activate` to **active**, `deactivate` back, `cleanup` back to unconfigured, and
//! `shutdown` from any of the three to **finalized**. Each of these passes through a
//! transition state in which the node's callback runs and answers success (on to the goal),
//! failure (back) or error (into error processing, where `on_error` recovers the node to
//! unconfigured or finalizes it):
//!
//! ```text
//!                 configure              activate
//!  unconfigured ─────────────▶ inactive ───────────▶ active
//!       ▲   ◀─────────────────   │  ◀───────────────   │
//!       │        cleanup         │      deactivate     │
//!       └──── shutdown ──────────┴──── shutdown ───────┴──▶ finalized
//! ```
//!
//! [`StateMachine`] is rcl_lifecycle's default state machine (its states, transitions, ids
//! and labels, from `lifecycle_msgs`); [`change_state`] runs a [`Callbacks`] implementation
//! through one change as rclcpp_lifecycle's `LifecycleNode` does, and says which transitions
//! it took (each one a `transition_event`); [`Node::manage`](crate::Node::manage) makes a
//! node a managed node on the graph, with rclcpp_lifecycle's services and topic, whose
//! executables run only while it is active.

mod change;
mod managed;
mod state_machine;

pub use change::{CallbackReturn, Callbacks, Change, change_state};
pub(crate) use managed::{Gate, GateSlot, manage};
pub use managed::{Lifecycle, ManageError, RequestError};
pub use state_machine::{State, StateMachine, Transition, TransitionError};
