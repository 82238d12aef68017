//! The managed-node state machine against rcl_lifecycle's and rclcpp_lifecycle's own tests.

use tacto::lifecycle::{
    CallbackReturn, Callbacks, State, StateMachine, Transition, TransitionError, change_state,
};
use tacto::logging::Logger;

/// rcl_lifecycle `test_default_state_machine.cpp`'s `test_trigger_transition`: the machine is
/// in `start`, takes `transition` by id, and is in `goal`.
fn step(machine: &mut StateMachine, transition: Transition, start: State, goal: State) {
    assert_eq!(machine.current(), start, "before {transition:?}");
    assert_eq!(machine.trigger(transition.id()), Ok(transition));
    assert_eq!(machine.current(), goal, "after {transition:?}");
}

fn steps(machine: &mut StateMachine, sequence: &[(Transition, State, State)]) {
    for &(transition, start, goal) in sequence {
        step(machine, transition, start, goal);
    }
}

use State as S;
use Transition as T;

// From rcl_lifecycle test/test_default_state_machine.cpp, `default_sequence`.
#[test]
fn the_default_sequence_goes_round_and_ends_finalized() {
    let mut machine = StateMachine::new();
    steps(
        &mut machine,
        &[
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
            (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
            (T::ON_ACTIVATE_SUCCESS, S::ACTIVATING, S::ACTIVE),
            (T::DEACTIVATE, S::ACTIVE, S::DEACTIVATING),
            (T::ON_DEACTIVATE_SUCCESS, S::DEACTIVATING, S::INACTIVE),
            (T::CLEANUP, S::INACTIVE, S::CLEANING_UP),
            (T::ON_CLEANUP_SUCCESS, S::CLEANING_UP, S::UNCONFIGURED),
            (T::UNCONFIGURED_SHUTDOWN, S::UNCONFIGURED, S::SHUTTING_DOWN),
            (T::ON_SHUTDOWN_SUCCESS, S::SHUTTING_DOWN, S::FINALIZED),
        ],
    );
}

/// Every transition id the peer's `wrong_default_sequence` tries.
const EVERY_ID: [Transition; 25] = Transition::ALL;

/// In `state`, every transition but `valid` is refused and leaves the machine where it was.
fn only_these_leave(machine: &mut StateMachine, valid: &[Transition]) {
    let state = machine.current();
    for transition in EVERY_ID {
        if valid.contains(&transition) {
            continue;
        }
        assert_eq!(
            machine.trigger(transition.id()),
            Err(TransitionError::NoSuchId {
                id: transition.id(),
                state
            }),
            "{transition:?} from {state:?}"
        );
        assert_eq!(machine.current(), state);
    }
}

// From rcl_lifecycle test/test_default_state_machine.cpp, `wrong_default_sequence`.
#[test]
fn each_state_refuses_every_transition_but_its_own_and_stays() {
    let mut machine = StateMachine::new();
    only_these_leave(&mut machine, &[T::CONFIGURE, T::UNCONFIGURED_SHUTDOWN]);
    step(&mut machine, T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING);
    only_these_leave(
        &mut machine,
        &[
            T::ON_CONFIGURE_SUCCESS,
            T::ON_CONFIGURE_FAILURE,
            T::ON_CONFIGURE_ERROR,
        ],
    );
    step(
        &mut machine,
        T::ON_CONFIGURE_SUCCESS,
        S::CONFIGURING,
        S::INACTIVE,
    );
    only_these_leave(
        &mut machine,
        &[T::CLEANUP, T::ACTIVATE, T::INACTIVE_SHUTDOWN],
    );
    step(&mut machine, T::ACTIVATE, S::INACTIVE, S::ACTIVATING);
    only_these_leave(
        &mut machine,
        &[
            T::ON_ACTIVATE_SUCCESS,
            T::ON_ACTIVATE_FAILURE,
            T::ON_ACTIVATE_ERROR,
        ],
    );
    step(
        &mut machine,
        T::ON_ACTIVATE_SUCCESS,
        S::ACTIVATING,
        S::ACTIVE,
    );
    only_these_leave(&mut machine, &[T::DEACTIVATE, T::ACTIVE_SHUTDOWN]);
    step(&mut machine, T::DEACTIVATE, S::ACTIVE, S::DEACTIVATING);
    only_these_leave(
        &mut machine,
        &[
            T::ON_DEACTIVATE_SUCCESS,
            T::ON_DEACTIVATE_FAILURE,
            T::ON_DEACTIVATE_ERROR,
        ],
    );
    step(
        &mut machine,
        T::ON_DEACTIVATE_SUCCESS,
        S::DEACTIVATING,
        S::INACTIVE,
    );
    step(&mut machine, T::CLEANUP, S::INACTIVE, S::CLEANING_UP);
    only_these_leave(
        &mut machine,
        &[
            T::ON_CLEANUP_SUCCESS,
            T::ON_CLEANUP_FAILURE,
            T::ON_CLEANUP_ERROR,
        ],
    );
    step(
        &mut machine,
        T::ON_CLEANUP_SUCCESS,
        S::CLEANING_UP,
        S::UNCONFIGURED,
    );
    step(
        &mut machine,
        T::UNCONFIGURED_SHUTDOWN,
        S::UNCONFIGURED,
        S::SHUTTING_DOWN,
    );
    only_these_leave(
        &mut machine,
        &[
            T::ON_SHUTDOWN_SUCCESS,
            T::ON_SHUTDOWN_FAILURE,
            T::ON_SHUTDOWN_ERROR,
        ],
    );
    step(
        &mut machine,
        T::ON_SHUTDOWN_SUCCESS,
        S::SHUTTING_DOWN,
        S::FINALIZED,
    );
    only_these_leave(&mut machine, &[]);
}

// From rcl_lifecycle test/test_default_state_machine.cpp, `default_in_a_loop`.
#[test]
fn the_round_can_be_gone_five_times_before_shutting_down() {
    let mut machine = StateMachine::new();
    for _ in 0..5 {
        steps(
            &mut machine,
            &[
                (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
                (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
                (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
                (T::ON_ACTIVATE_SUCCESS, S::ACTIVATING, S::ACTIVE),
                (T::DEACTIVATE, S::ACTIVE, S::DEACTIVATING),
                (T::ON_DEACTIVATE_SUCCESS, S::DEACTIVATING, S::INACTIVE),
                (T::CLEANUP, S::INACTIVE, S::CLEANING_UP),
                (T::ON_CLEANUP_SUCCESS, S::CLEANING_UP, S::UNCONFIGURED),
            ],
        );
    }
    steps(
        &mut machine,
        &[
            (T::UNCONFIGURED_SHUTDOWN, S::UNCONFIGURED, S::SHUTTING_DOWN),
            (T::ON_SHUTDOWN_SUCCESS, S::SHUTTING_DOWN, S::FINALIZED),
        ],
    );
}

// From rcl_lifecycle test/test_default_state_machine.cpp, `default_sequence_failure`.
#[test]
fn a_failure_goes_back_where_the_transition_started_and_a_failed_shutdown_still_ends() {
    let mut machine = StateMachine::new();
    steps(
        &mut machine,
        &[
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_FAILURE, S::CONFIGURING, S::UNCONFIGURED),
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
            (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
            (T::ON_ACTIVATE_FAILURE, S::ACTIVATING, S::INACTIVE),
            (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
            (T::ON_ACTIVATE_SUCCESS, S::ACTIVATING, S::ACTIVE),
            (T::DEACTIVATE, S::ACTIVE, S::DEACTIVATING),
            (T::ON_DEACTIVATE_FAILURE, S::DEACTIVATING, S::ACTIVE),
            (T::DEACTIVATE, S::ACTIVE, S::DEACTIVATING),
            (T::ON_DEACTIVATE_SUCCESS, S::DEACTIVATING, S::INACTIVE),
            (T::CLEANUP, S::INACTIVE, S::CLEANING_UP),
            (T::ON_CLEANUP_FAILURE, S::CLEANING_UP, S::INACTIVE),
            (T::CLEANUP, S::INACTIVE, S::CLEANING_UP),
            (T::ON_CLEANUP_SUCCESS, S::CLEANING_UP, S::UNCONFIGURED),
            (T::UNCONFIGURED_SHUTDOWN, S::UNCONFIGURED, S::SHUTTING_DOWN),
            (T::ON_SHUTDOWN_FAILURE, S::SHUTTING_DOWN, S::FINALIZED),
        ],
    );
}

// From rcl_lifecycle test/test_default_state_machine.cpp, `default_sequence_error_resolved`.
#[test]
fn an_error_resolved_in_error_processing_goes_back_to_unconfigured() {
    let mut machine = StateMachine::new();
    steps(
        &mut machine,
        &[
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_ERROR, S::CONFIGURING, S::ERROR_PROCESSING),
            (T::ON_ERROR_SUCCESS, S::ERROR_PROCESSING, S::UNCONFIGURED),
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
            (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
            (T::ON_ACTIVATE_ERROR, S::ACTIVATING, S::ERROR_PROCESSING),
            (T::ON_ERROR_SUCCESS, S::ERROR_PROCESSING, S::UNCONFIGURED),
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
            (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
            (T::ON_ACTIVATE_SUCCESS, S::ACTIVATING, S::ACTIVE),
            (T::DEACTIVATE, S::ACTIVE, S::DEACTIVATING),
            (T::ON_DEACTIVATE_ERROR, S::DEACTIVATING, S::ERROR_PROCESSING),
            (T::ON_ERROR_SUCCESS, S::ERROR_PROCESSING, S::UNCONFIGURED),
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
            (T::CLEANUP, S::INACTIVE, S::CLEANING_UP),
            (T::ON_CLEANUP_ERROR, S::CLEANING_UP, S::ERROR_PROCESSING),
            (T::ON_ERROR_SUCCESS, S::ERROR_PROCESSING, S::UNCONFIGURED),
            (T::UNCONFIGURED_SHUTDOWN, S::UNCONFIGURED, S::SHUTTING_DOWN),
            (T::ON_SHUTDOWN_ERROR, S::SHUTTING_DOWN, S::ERROR_PROCESSING),
            (T::ON_ERROR_SUCCESS, S::ERROR_PROCESSING, S::UNCONFIGURED),
        ],
    );
}

// From rcl_lifecycle test/test_default_state_machine.cpp, `default_sequence_error_unresolved`.
#[test]
fn an_error_not_resolved_in_error_processing_finalizes() {
    let mut machine = StateMachine::new();
    steps(
        &mut machine,
        &[
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_ERROR, S::CONFIGURING, S::ERROR_PROCESSING),
            (T::ON_ERROR_FAILURE, S::ERROR_PROCESSING, S::FINALIZED),
        ],
    );
    let mut machine = StateMachine::new();
    steps(
        &mut machine,
        &[
            (T::CONFIGURE, S::UNCONFIGURED, S::CONFIGURING),
            (T::ON_CONFIGURE_SUCCESS, S::CONFIGURING, S::INACTIVE),
            (T::ACTIVATE, S::INACTIVE, S::ACTIVATING),
            (T::ON_ACTIVATE_ERROR, S::ACTIVATING, S::ERROR_PROCESSING),
            (T::ON_ERROR_ERROR, S::ERROR_PROCESSING, S::FINALIZED),
        ],
    );
}

// rcl_lifecycle's default state machine (src/default_state_machine.c) registers its states
// and transitions in this order; rclcpp's get_available_states, get_available_transitions and
// get_transition_graph list them in it, and ros2 lifecycle prints them so.
#[test]
fn states_and_transitions_are_listed_in_rcls_order() {
    let states: Vec<_> = State::ALL.iter().map(|s| (s.id(), s.label())).collect();
    assert_eq!(
        states,
        [
            (0, "unknown"),
            (1, "unconfigured"),
            (2, "inactive"),
            (3, "active"),
            (4, "finalized"),
            (10, "configuring"),
            (11, "cleaningup"),
            (12, "shuttingdown"),
            (13, "activating"),
            (14, "deactivating"),
            (15, "errorprocessing"),
        ]
    );
    let from = |s: State| s.transitions().map(|t| t.id()).collect::<Vec<_>>();
    assert_eq!(from(S::UNCONFIGURED), [1, 5]);
    assert_eq!(from(S::INACTIVE), [2, 3, 6]);
    assert_eq!(from(S::ACTIVE), [4, 7]);
    assert_eq!(from(S::FINALIZED), [0u8; 0]);
    assert_eq!(from(S::CONFIGURING), [10, 11, 12]);
    assert_eq!(from(S::ERROR_PROCESSING), [60, 61, 62]);
    let graph: Vec<_> = Transition::ALL.iter().map(|t| t.id()).collect();
    assert_eq!(
        graph,
        [
            1, 10, 11, 12, 2, 20, 21, 22, 3, 30, 31, 32, 4, 40, 41, 42, 5, 6, 7, 50, 51, 52, 60,
            61, 62
        ]
    );
}

// rcl_lifecycle src/rcl_lifecycle.c: `rcl_lifecycle_get_transition_by_id` and `_by_label`'s
// warnings.
#[test]
fn a_refused_transition_says_so_in_rcls_words() {
    let mut machine = StateMachine::new();
    let by_id = machine.trigger(T::ACTIVATE.id()).unwrap_err();
    assert_eq!(
        by_id.to_string(),
        "No transition matching 3 found for current state unconfigured"
    );
    let by_label = machine.trigger_label("activate").unwrap_err();
    assert_eq!(
        by_label.to_string(),
        "No transition matching activate found for current state unconfigured"
    );
    assert_eq!(machine.current(), S::UNCONFIGURED);
}

/// rclcpp_lifecycle test/test_lifecycle_node.cpp's `MoodyLifecycleNode`: every callback
/// answers `mood` and counts itself; `on_error` answers success.
struct Moody {
    mood: CallbackReturn,
    callbacks: usize,
    error_handled: usize,
    /// (callback, previous state) of each call.
    seen: Vec<(&'static str, State)>,
}

impl Moody {
    fn new(mood: CallbackReturn) -> Self {
        Moody {
            mood,
            callbacks: 0,
            error_handled: 0,
            seen: Vec::new(),
        }
    }
    fn call(&mut self, name: &'static str, previous: State) -> CallbackReturn {
        self.callbacks += 1;
        self.seen.push((name, previous));
        self.mood
    }
}

impl Callbacks for Moody {
    fn on_configure(&mut self, previous: State) -> CallbackReturn {
        self.call("configure", previous)
    }
    fn on_activate(&mut self, previous: State) -> CallbackReturn {
        self.call("activate", previous)
    }
    fn on_deactivate(&mut self, previous: State) -> CallbackReturn {
        self.call("deactivate", previous)
    }
    fn on_cleanup(&mut self, previous: State) -> CallbackReturn {
        self.call("cleanup", previous)
    }
    fn on_shutdown(&mut self, previous: State) -> CallbackReturn {
        self.call("shutdown", previous)
    }
    fn on_error(&mut self, previous: State) -> CallbackReturn {
        self.error_handled += 1;
        self.seen.push(("error", previous));
        CallbackReturn::Success
    }
}

/// A node with rclcpp's default callbacks, all success.
struct Empty;
impl Callbacks for Empty {}

fn logger() -> Logger {
    Logger::get("testnode")
}

/// `LifecycleNode::trigger_transition(id)`: the state after the change.
fn trigger(machine: &mut StateMachine, id: u8, node: &mut impl Callbacks) -> State {
    match change_state(machine, id, node, &logger(), |_| {}) {
        Ok(change) => change.state,
        Err(_) => machine.current(),
    }
}

// From rclcpp_lifecycle test/test_lifecycle_node.cpp, `trigger_transition` and
// `call_transitions_without_code`.
#[test]
fn a_node_with_default_callbacks_goes_round_to_finalized() {
    let mut machine = StateMachine::new();
    let mut node = Empty;
    assert_eq!(machine.current(), S::UNCONFIGURED);
    assert_eq!(
        trigger(&mut machine, T::CONFIGURE.id(), &mut node),
        S::INACTIVE
    );
    assert_eq!(
        trigger(&mut machine, T::ACTIVATE.id(), &mut node),
        S::ACTIVE
    );
    assert_eq!(
        trigger(&mut machine, T::DEACTIVATE.id(), &mut node),
        S::INACTIVE
    );
    assert_eq!(
        trigger(&mut machine, T::CLEANUP.id(), &mut node),
        S::UNCONFIGURED
    );
    assert_eq!(
        trigger(&mut machine, T::UNCONFIGURED_SHUTDOWN.id(), &mut node),
        S::FINALIZED
    );
}

// From rclcpp_lifecycle test/test_lifecycle_node.cpp, `trigger_transition_with_error_code` and
// `call_transitions_with_error_code`.
#[test]
fn each_change_of_a_default_node_answers_success() {
    let mut machine = StateMachine::new();
    for transition in [
        T::CONFIGURE,
        T::ACTIVATE,
        T::DEACTIVATE,
        T::CLEANUP,
        T::UNCONFIGURED_SHUTDOWN,
    ] {
        let change =
            change_state(&mut machine, transition.id(), &mut Empty, &logger(), |_| {}).unwrap();
        assert_eq!(change.callback, CallbackReturn::Success, "{transition:?}");
    }
}

// From rclcpp_lifecycle test/test_lifecycle_node.cpp, `good_mood`.
#[test]
fn a_good_mood_node_runs_each_callback_once_in_its_transition_state() {
    let mut machine = StateMachine::new();
    let mut node = Moody::new(CallbackReturn::Success);
    assert_eq!(
        trigger(&mut machine, T::CONFIGURE.id(), &mut node),
        S::INACTIVE
    );
    assert_eq!(
        trigger(&mut machine, T::ACTIVATE.id(), &mut node),
        S::ACTIVE
    );
    assert_eq!(
        trigger(&mut machine, T::DEACTIVATE.id(), &mut node),
        S::INACTIVE
    );
    assert_eq!(
        trigger(&mut machine, T::CLEANUP.id(), &mut node),
        S::UNCONFIGURED
    );
    assert_eq!(
        trigger(&mut machine, T::UNCONFIGURED_SHUTDOWN.id(), &mut node),
        S::FINALIZED
    );
    assert_eq!(node.callbacks, 5);
    assert_eq!(node.error_handled, 0);
    // Each callback is given the primary state the change started from.
    assert_eq!(
        node.seen,
        [
            ("configure", S::UNCONFIGURED),
            ("activate", S::INACTIVE),
            ("deactivate", S::ACTIVE),
            ("cleanup", S::INACTIVE),
            ("shutdown", S::UNCONFIGURED),
        ]
    );
}

// From rclcpp_lifecycle test/test_lifecycle_node.cpp, `bad_mood`.
#[test]
fn a_bad_mood_node_stays_unconfigured_after_one_callback() {
    let mut machine = StateMachine::new();
    let mut node = Moody::new(CallbackReturn::Failure);
    assert_eq!(
        trigger(&mut machine, T::CONFIGURE.id(), &mut node),
        S::UNCONFIGURED
    );
    assert_eq!(node.callbacks, 1);
}

/// rclcpp's `LifecycleNode::shutdown()`: the transition labelled "shutdown" out of the
/// current state, if there is one.
fn shutdown(machine: &mut StateMachine, node: &mut impl Callbacks) -> Option<CallbackReturn> {
    let transition = machine.transition_by_label("shutdown").ok()?;
    Some(
        change_state(machine, transition.id(), node, &logger(), |_| {})
            .unwrap()
            .callback,
    )
}

// From rclcpp_lifecycle test/test_lifecycle_node.cpp, `shutdown_from_each_primary_state`.
#[test]
fn shutdown_finalizes_from_each_primary_state_and_not_again() {
    for path in [
        &[][..],
        &[(T::CONFIGURE, S::INACTIVE)][..],
        &[(T::CONFIGURE, S::INACTIVE), (T::ACTIVATE, S::ACTIVE)][..],
    ] {
        let mut machine = StateMachine::new();
        for &(transition, reached) in path {
            let change = change_state(&mut machine, transition.id(), &mut Empty, &logger(), |_| {});
            assert_eq!(change.unwrap().state, reached);
        }
        assert_eq!(
            shutdown(&mut machine, &mut Empty),
            Some(CallbackReturn::Success)
        );
        assert_eq!(machine.current(), S::FINALIZED);
    }
    // From finalized there is no shutdown: nothing runs, nothing changes.
    let mut machine = StateMachine::new();
    shutdown(&mut machine, &mut Empty);
    assert_eq!(shutdown(&mut machine, &mut Empty), None);
    assert_eq!(machine.current(), S::FINALIZED);
}

/// rclcpp_lifecycle test/test_callback_exceptions.cpp's nodes: `on_configure` throws (here:
/// panics), `on_error` answers `on_error`.
struct Throwing {
    on_error: CallbackReturn,
    callbacks: usize,
}

impl Callbacks for Throwing {
    fn on_configure(&mut self, _previous: State) -> CallbackReturn {
        self.callbacks += 1;
        panic!("custom exception raised in configure callback");
    }
    fn on_error(&mut self, _previous: State) -> CallbackReturn {
        self.callbacks += 1;
        self.on_error
    }
}

// From rclcpp_lifecycle test/test_callback_exceptions.cpp, `positive_on_error` and
// `positive_on_error_with_code`.
#[test]
fn a_panicking_callback_is_an_error_that_on_error_can_recover() {
    let mut machine = StateMachine::new();
    let mut node = Throwing {
        on_error: CallbackReturn::Success,
        callbacks: 0,
    };
    let mut taken = Vec::new();
    let change = change_state(&mut machine, T::CONFIGURE.id(), &mut node, &logger(), |t| {
        taken.push(t)
    })
    .unwrap();
    assert_eq!(change.state, S::UNCONFIGURED);
    assert_eq!(change.callback, CallbackReturn::Error);
    assert_eq!(node.callbacks, 2);
    assert_eq!(
        taken,
        [T::CONFIGURE, T::ON_CONFIGURE_ERROR, T::ON_ERROR_SUCCESS]
    );
}

// From rclcpp_lifecycle test/test_callback_exceptions.cpp, `negative_on_error` and
// `negative_on_error_with_code`.
#[test]
fn a_panicking_callback_whose_error_handling_fails_finalizes() {
    let mut machine = StateMachine::new();
    let mut node = Throwing {
        on_error: CallbackReturn::Error,
        callbacks: 0,
    };
    let mut taken = Vec::new();
    let change = change_state(&mut machine, T::CONFIGURE.id(), &mut node, &logger(), |t| {
        taken.push(t)
    })
    .unwrap();
    assert_eq!(change.state, S::FINALIZED);
    assert_eq!(change.callback, CallbackReturn::Error);
    assert_eq!(node.callbacks, 2);
    assert_eq!(
        taken,
        [T::CONFIGURE, T::ON_CONFIGURE_ERROR, T::ON_ERROR_ERROR]
    );
}

// rclcpp_lifecycle src/lifecycle_node_interface_impl.cpp, `change_state`: a transition the
// current state does not have is refused before any callback runs.
#[test]
fn a_transition_the_state_lacks_runs_no_callback_and_changes_nothing() {
    let mut machine = StateMachine::new();
    let mut node = Moody::new(CallbackReturn::Success);
    let refused = change_state(&mut machine, T::ACTIVATE.id(), &mut node, &logger(), |_| {});
    assert_eq!(
        refused,
        Err(TransitionError::NoSuchId {
            id: 3,
            state: S::UNCONFIGURED
        })
    );
    assert_eq!(node.callbacks, 0);
    assert_eq!(machine.current(), S::UNCONFIGURED);
}

// rcl_lifecycle: each transition taken is one `transition_event`, from its start to its goal.
#[test]
fn a_change_reports_each_transition_it_took() {
    let mut machine = StateMachine::new();
    let mut events = Vec::new();
    change_state(
        &mut machine,
        T::CONFIGURE.id(),
        &mut Empty,
        &logger(),
        |t| events.push((t.start().label(), t.goal().label())),
    )
    .unwrap();
    assert_eq!(
        events,
        [("unconfigured", "configuring"), ("configuring", "inactive")]
    );
}
