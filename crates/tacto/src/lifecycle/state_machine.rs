//! The managed-node state machine: rcl_lifecycle's default state machine, state for state and
//! transition for transition, with `lifecycle_msgs`' ids and rcl's labels.

use std::fmt;

/// A state of a managed node: one of the four primary states, or a transition state the node
/// is in while one of its callbacks runs.
///
/// The ids are `lifecycle_msgs/msg/State`'s constants and the labels rcl_lifecycle's, so they
/// go on the wire (`get_state`, `transition_event`) as rclcpp sends them.
///
/// # Examples
/// ```
/// use tacto::lifecycle::State;
///
/// assert_eq!(State::INACTIVE.id(), 2);
/// assert_eq!(State::INACTIVE.label(), "inactive");
/// assert!(State::INACTIVE.is_primary());
/// assert!(!State::CONFIGURING.is_primary());
/// assert_eq!(State::from_id(13), Some(State::ACTIVATING));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    id: u8,
    label: &'static str,
}

impl State {
    /// `PRIMARY_STATE_UNKNOWN` (0): no state machine. Never a node's state; listed by
    /// `get_available_states` as rcl lists it.
    pub const UNKNOWN: State = State::new(0, "unknown");
    /// `PRIMARY_STATE_UNCONFIGURED` (1): where a managed node starts.
    pub const UNCONFIGURED: State = State::new(1, "unconfigured");
    /// `PRIMARY_STATE_INACTIVE` (2): configured, not running.
    pub const INACTIVE: State = State::new(2, "inactive");
    /// `PRIMARY_STATE_ACTIVE` (3): running.
    pub const ACTIVE: State = State::new(3, "active");
    /// `PRIMARY_STATE_FINALIZED` (4): shut down, for good.
    pub const FINALIZED: State = State::new(4, "finalized");
    /// `TRANSITION_STATE_CONFIGURING` (10): `on_configure` runs.
    pub const CONFIGURING: State = State::new(10, "configuring");
    /// `TRANSITION_STATE_CLEANINGUP` (11): `on_cleanup` runs.
    pub const CLEANING_UP: State = State::new(11, "cleaningup");
    /// `TRANSITION_STATE_SHUTTINGDOWN` (12): `on_shutdown` runs.
    pub const SHUTTING_DOWN: State = State::new(12, "shuttingdown");
    /// `TRANSITION_STATE_ACTIVATING` (13): `on_activate` runs.
    pub const ACTIVATING: State = State::new(13, "activating");
    /// `TRANSITION_STATE_DEACTIVATING` (14): `on_deactivate` runs.
    pub const DEACTIVATING: State = State::new(14, "deactivating");
    /// `TRANSITION_STATE_ERRORPROCESSING` (15): `on_error` runs, after a callback returned
    /// [`CallbackReturn::Error`](super::CallbackReturn::Error).
    pub const ERROR_PROCESSING: State = State::new(15, "errorprocessing");

    /// Every state, in the order rcl registers them (and `get_available_states` lists them).
    pub const ALL: [State; 11] = [
        State::UNKNOWN,
        State::UNCONFIGURED,
        State::INACTIVE,
        State::ACTIVE,
        State::FINALIZED,
        State::CONFIGURING,
        State::CLEANING_UP,
        State::SHUTTING_DOWN,
        State::ACTIVATING,
        State::DEACTIVATING,
        State::ERROR_PROCESSING,
    ];

    const fn new(id: u8, label: &'static str) -> Self {
        State { id, label }
    }

    /// The state with `lifecycle_msgs` id `id`, if there is one.
    pub fn from_id(id: u8) -> Option<State> {
        State::ALL.into_iter().find(|s| s.id == id)
    }

    /// The `lifecycle_msgs/msg/State` id.
    pub fn id(self) -> u8 {
        self.id
    }

    /// rcl's label: `"unconfigured"`, `"configuring"`, ...
    pub fn label(self) -> &'static str {
        self.label
    }

    /// Whether this is a primary state (ids below 10), one a node rests in between
    /// transitions.
    pub fn is_primary(self) -> bool {
        self.id < 10
    }

    /// The transitions that leave this state, in rcl's order (`get_available_transitions`).
    pub fn transitions(self) -> impl Iterator<Item = Transition> {
        Transition::ALL.into_iter().filter(move |t| t.start == self)
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.label, self.id)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label)
    }
}

/// A transition of the state machine: from a start state to a goal state, with
/// `lifecycle_msgs/msg/Transition`'s id and rcl's label.
///
/// The transitions a caller asks for (configure, cleanup, activate, deactivate, shutdown) go
/// from a primary state into a transition state; the node's callback then decides which of
/// the transition state's three ways out is taken (`transition_success`,
/// `transition_failure`, `transition_error`).
///
/// # Examples
/// ```
/// use tacto::lifecycle::{State, Transition};
///
/// let configure = Transition::CONFIGURE;
/// assert_eq!((configure.id(), configure.label()), (1, "configure"));
/// assert_eq!((configure.start(), configure.goal()), (State::UNCONFIGURED, State::CONFIGURING));
/// // Three transitions are labelled "shutdown", one from each state a node can shut down from.
/// assert_eq!(Transition::ALL.iter().filter(|t| t.label() == "shutdown").count(), 3);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Transition {
    id: u8,
    label: &'static str,
    start: State,
    goal: State,
}

const SUCCESS: &str = "transition_success";
const FAILURE: &str = "transition_failure";
const ERROR: &str = "transition_error";

impl Transition {
    /// `TRANSITION_CONFIGURE` (1): unconfigured → configuring.
    pub const CONFIGURE: Transition =
        Transition::new(1, "configure", State::UNCONFIGURED, State::CONFIGURING);
    /// `TRANSITION_CLEANUP` (2): inactive → cleaningup.
    pub const CLEANUP: Transition =
        Transition::new(2, "cleanup", State::INACTIVE, State::CLEANING_UP);
    /// `TRANSITION_ACTIVATE` (3): inactive → activating.
    pub const ACTIVATE: Transition =
        Transition::new(3, "activate", State::INACTIVE, State::ACTIVATING);
    /// `TRANSITION_DEACTIVATE` (4): active → deactivating.
    pub const DEACTIVATE: Transition =
        Transition::new(4, "deactivate", State::ACTIVE, State::DEACTIVATING);
    /// `TRANSITION_UNCONFIGURED_SHUTDOWN` (5): unconfigured → shuttingdown.
    pub const UNCONFIGURED_SHUTDOWN: Transition =
        Transition::new(5, "shutdown", State::UNCONFIGURED, State::SHUTTING_DOWN);
    /// `TRANSITION_INACTIVE_SHUTDOWN` (6): inactive → shuttingdown.
    pub const INACTIVE_SHUTDOWN: Transition =
        Transition::new(6, "shutdown", State::INACTIVE, State::SHUTTING_DOWN);
    /// `TRANSITION_ACTIVE_SHUTDOWN` (7): active → shuttingdown.
    pub const ACTIVE_SHUTDOWN: Transition =
        Transition::new(7, "shutdown", State::ACTIVE, State::SHUTTING_DOWN);
    /// `TRANSITION_ON_CONFIGURE_SUCCESS` (10): configuring → inactive.
    pub const ON_CONFIGURE_SUCCESS: Transition =
        Transition::new(10, SUCCESS, State::CONFIGURING, State::INACTIVE);
    /// `TRANSITION_ON_CONFIGURE_FAILURE` (11): configuring → unconfigured.
    pub const ON_CONFIGURE_FAILURE: Transition =
        Transition::new(11, FAILURE, State::CONFIGURING, State::UNCONFIGURED);
    /// `TRANSITION_ON_CONFIGURE_ERROR` (12): configuring → errorprocessing.
    pub const ON_CONFIGURE_ERROR: Transition =
        Transition::new(12, ERROR, State::CONFIGURING, State::ERROR_PROCESSING);
    /// `TRANSITION_ON_CLEANUP_SUCCESS` (20): cleaningup → unconfigured.
    pub const ON_CLEANUP_SUCCESS: Transition =
        Transition::new(20, SUCCESS, State::CLEANING_UP, State::UNCONFIGURED);
    /// `TRANSITION_ON_CLEANUP_FAILURE` (21): cleaningup → inactive.
    pub const ON_CLEANUP_FAILURE: Transition =
        Transition::new(21, FAILURE, State::CLEANING_UP, State::INACTIVE);
    /// `TRANSITION_ON_CLEANUP_ERROR` (22): cleaningup → errorprocessing.
    pub const ON_CLEANUP_ERROR: Transition =
        Transition::new(22, ERROR, State::CLEANING_UP, State::ERROR_PROCESSING);
    /// `TRANSITION_ON_ACTIVATE_SUCCESS` (30): activating → active.
    pub const ON_ACTIVATE_SUCCESS: Transition =
        Transition::new(30, SUCCESS, State::ACTIVATING, State::ACTIVE);
    /// `TRANSITION_ON_ACTIVATE_FAILURE` (31): activating → inactive.
    pub const ON_ACTIVATE_FAILURE: Transition =
        Transition::new(31, FAILURE, State::ACTIVATING, State::INACTIVE);
    /// `TRANSITION_ON_ACTIVATE_ERROR` (32): activating → errorprocessing.
    pub const ON_ACTIVATE_ERROR: Transition =
        Transition::new(32, ERROR, State::ACTIVATING, State::ERROR_PROCESSING);
    /// `TRANSITION_ON_DEACTIVATE_SUCCESS` (40): deactivating → inactive.
    pub const ON_DEACTIVATE_SUCCESS: Transition =
        Transition::new(40, SUCCESS, State::DEACTIVATING, State::INACTIVE);
    /// `TRANSITION_ON_DEACTIVATE_FAILURE` (41): deactivating → active.
    pub const ON_DEACTIVATE_FAILURE: Transition =
        Transition::new(41, FAILURE, State::DEACTIVATING, State::ACTIVE);
    /// `TRANSITION_ON_DEACTIVATE_ERROR` (42): deactivating → errorprocessing.
    pub const ON_DEACTIVATE_ERROR: Transition =
        Transition::new(42, ERROR, State::DEACTIVATING, State::ERROR_PROCESSING);
    /// `TRANSITION_ON_SHUTDOWN_SUCCESS` (50): shuttingdown → finalized.
    pub const ON_SHUTDOWN_SUCCESS: Transition =
        Transition::new(50, SUCCESS, State::SHUTTING_DOWN, State::FINALIZED);
    /// `TRANSITION_ON_SHUTDOWN_FAILURE` (51): shuttingdown → finalized (a shutdown that fails
    /// still ends the node).
    pub const ON_SHUTDOWN_FAILURE: Transition =
        Transition::new(51, FAILURE, State::SHUTTING_DOWN, State::FINALIZED);
    /// `TRANSITION_ON_SHUTDOWN_ERROR` (52): shuttingdown → errorprocessing.
    pub const ON_SHUTDOWN_ERROR: Transition =
        Transition::new(52, ERROR, State::SHUTTING_DOWN, State::ERROR_PROCESSING);
    /// `TRANSITION_ON_ERROR_SUCCESS` (60): errorprocessing → unconfigured (recovered).
    pub const ON_ERROR_SUCCESS: Transition =
        Transition::new(60, SUCCESS, State::ERROR_PROCESSING, State::UNCONFIGURED);
    /// `TRANSITION_ON_ERROR_FAILURE` (61): errorprocessing → finalized.
    pub const ON_ERROR_FAILURE: Transition =
        Transition::new(61, FAILURE, State::ERROR_PROCESSING, State::FINALIZED);
    /// `TRANSITION_ON_ERROR_ERROR` (62): errorprocessing → finalized.
    pub const ON_ERROR_ERROR: Transition =
        Transition::new(62, ERROR, State::ERROR_PROCESSING, State::FINALIZED);

    /// Every transition, in the order rcl registers them (and `get_transition_graph` lists
    /// them).
    pub const ALL: [Transition; 25] = [
        Transition::CONFIGURE,
        Transition::ON_CONFIGURE_SUCCESS,
        Transition::ON_CONFIGURE_FAILURE,
        Transition::ON_CONFIGURE_ERROR,
        Transition::CLEANUP,
        Transition::ON_CLEANUP_SUCCESS,
        Transition::ON_CLEANUP_FAILURE,
        Transition::ON_CLEANUP_ERROR,
        Transition::ACTIVATE,
        Transition::ON_ACTIVATE_SUCCESS,
        Transition::ON_ACTIVATE_FAILURE,
        Transition::ON_ACTIVATE_ERROR,
        Transition::DEACTIVATE,
        Transition::ON_DEACTIVATE_SUCCESS,
        Transition::ON_DEACTIVATE_FAILURE,
        Transition::ON_DEACTIVATE_ERROR,
        Transition::UNCONFIGURED_SHUTDOWN,
        Transition::INACTIVE_SHUTDOWN,
        Transition::ACTIVE_SHUTDOWN,
        Transition::ON_SHUTDOWN_SUCCESS,
        Transition::ON_SHUTDOWN_FAILURE,
        Transition::ON_SHUTDOWN_ERROR,
        Transition::ON_ERROR_SUCCESS,
        Transition::ON_ERROR_FAILURE,
        Transition::ON_ERROR_ERROR,
    ];

    const fn new(id: u8, label: &'static str, start: State, goal: State) -> Self {
        Transition {
            id,
            label,
            start,
            goal,
        }
    }

    /// The `lifecycle_msgs/msg/Transition` id.
    pub fn id(self) -> u8 {
        self.id
    }

    /// rcl's label: `"configure"`, `"shutdown"`, `"transition_success"`, ...
    pub fn label(self) -> &'static str {
        self.label
    }

    /// The state the transition leaves.
    pub fn start(self) -> State {
        self.start
    }

    /// The state the transition reaches.
    pub fn goal(self) -> State {
        self.goal
    }
}

impl fmt::Debug for Transition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}]: {:?} -> {:?}",
            self.label, self.id, self.start, self.goal
        )
    }
}

/// A transition the state machine's current state does not have.
///
/// The state machine is left as it was. The text is rcl_lifecycle's warning, word for word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransitionError {
    /// No transition of this id leaves the current state.
    NoSuchId {
        /// The id asked for.
        id: u8,
        /// The state the machine is in.
        state: State,
    },
    /// No transition of this label leaves the current state.
    NoSuchLabel {
        /// The label asked for.
        label: String,
        /// The state the machine is in.
        state: State,
    },
}

impl fmt::Display for TransitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransitionError::NoSuchId { id, state } => write!(
                f,
                "No transition matching {id} found for current state {}",
                state.label
            ),
            TransitionError::NoSuchLabel { label, state } => write!(
                f,
                "No transition matching {label} found for current state {}",
                state.label
            ),
        }
    }
}

impl std::error::Error for TransitionError {}

/// rcl_lifecycle's default state machine: where a managed node is, and the one step at a time
/// it may take.
///
/// It starts unconfigured. [`trigger`](Self::trigger) takes one transition by its id, as
/// `rcl_lifecycle_trigger_transition_by_id` does; [`trigger_label`](Self::trigger_label) by
/// its label, from the current state. A transition the current state does not have is
/// refused and changes nothing. Running a node's callbacks in between is
/// [`change_state`](super::change_state)'s work.
///
/// # Examples
/// ```
/// use tacto::lifecycle::{State, StateMachine, Transition};
///
/// let mut machine = StateMachine::new();
/// assert_eq!(machine.current(), State::UNCONFIGURED);
/// machine.trigger(Transition::CONFIGURE.id()).unwrap();
/// assert_eq!(machine.current(), State::CONFIGURING);
/// machine.trigger_label("transition_success").unwrap();
/// assert_eq!(machine.current(), State::INACTIVE);
/// // Deactivating is not a way out of inactive.
/// assert!(machine.trigger(Transition::DEACTIVATE.id()).is_err());
/// assert_eq!(machine.current(), State::INACTIVE);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateMachine {
    current: State,
}

impl Default for StateMachine {
    fn default() -> Self {
        Self::new()
    }
}

impl StateMachine {
    /// A state machine in the unconfigured state.
    pub fn new() -> Self {
        StateMachine {
            current: State::UNCONFIGURED,
        }
    }

    /// The state the machine is in.
    pub fn current(&self) -> State {
        self.current
    }

    /// The transitions out of the current state, in rcl's order (`get_available_transitions`).
    pub fn available_transitions(&self) -> impl Iterator<Item = Transition> {
        self.current.transitions()
    }

    /// Takes the transition of id `id` out of the current state, and returns it.
    pub fn trigger(&mut self, id: u8) -> Result<Transition, TransitionError> {
        let transition =
            self.current
                .transitions()
                .find(|t| t.id == id)
                .ok_or(TransitionError::NoSuchId {
                    id,
                    state: self.current,
                })?;
        self.current = transition.goal;
        Ok(transition)
    }

    /// Takes the transition labelled `label` out of the current state, and returns it.
    pub fn trigger_label(&mut self, label: &str) -> Result<Transition, TransitionError> {
        let transition = self.transition_by_label(label)?;
        self.current = transition.goal;
        Ok(transition)
    }

    /// The transition labelled `label` out of the current state, without taking it: as
    /// rclcpp's `change_state` service resolves a request's label.
    pub fn transition_by_label(&self, label: &str) -> Result<Transition, TransitionError> {
        self.current
            .transitions()
            .find(|t| t.label == label)
            .ok_or_else(|| TransitionError::NoSuchLabel {
                label: label.to_owned(),
                state: self.current,
            })
    }
}
