//! A change of state: the transition asked for, the node's callback in the transition state,
//! and the way out its answer picks — rclcpp_lifecycle's `change_state`, step for step.

use std::panic::{self, AssertUnwindSafe};

use super::state_machine::{State, StateMachine, Transition, TransitionError};
use crate::logging::Logger;

/// What a managed node's callback answers: the way out of the transition state.
///
/// # Examples
/// ```
/// use tacto::lifecycle::CallbackReturn;
///
/// assert_eq!(CallbackReturn::Failure.id(), 98); // TRANSITION_CALLBACK_FAILURE
/// assert_eq!(CallbackReturn::Failure.label(), "transition_failure");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallbackReturn {
    /// Done: on to the transition's goal (`transition_success`).
    Success,
    /// Not done, nothing broken: back to where the node was (`transition_failure`).
    Failure,
    /// Broken: into error processing, where `on_error` decides (`transition_error`).
    Error,
}

impl CallbackReturn {
    /// `lifecycle_msgs/msg/Transition`'s `TRANSITION_CALLBACK_*` id: 97, 98 or 99.
    pub fn id(self) -> u8 {
        match self {
            CallbackReturn::Success => 97,
            CallbackReturn::Failure => 98,
            CallbackReturn::Error => 99,
        }
    }

    /// The label of the transition this answer takes out of a transition state.
    pub fn label(self) -> &'static str {
        match self {
            CallbackReturn::Success => "transition_success",
            CallbackReturn::Failure => "transition_failure",
            CallbackReturn::Error => "transition_error",
        }
    }
}

/// A managed node's transition callbacks, rclcpp_lifecycle's `LifecycleNodeInterface`: each
/// runs in its transition state, is given the primary state the change started from, and
/// answers [`Success`](CallbackReturn::Success) unless overridden.
///
/// A callback that panics answers [`Error`](CallbackReturn::Error), as a callback that throws
/// does in rclcpp; the panic is logged.
pub trait Callbacks {
    /// In `configuring`: load parameters, create what the node needs.
    fn on_configure(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// In `cleaningup`: release what `on_configure` made.
    fn on_cleanup(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// In `shuttingdown`, from any of unconfigured, inactive and active.
    fn on_shutdown(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// In `activating`: start doing the work.
    fn on_activate(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// In `deactivating`: stop doing it.
    fn on_deactivate(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// In `errorprocessing`, after another callback answered
    /// [`Error`](CallbackReturn::Error): success recovers to unconfigured, anything else
    /// finalizes the node.
    fn on_error(&mut self, _previous: State) -> CallbackReturn {
        CallbackReturn::Success
    }
}

/// What [`change_state`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The state the node is in now.
    pub state: State,
    /// What the transition's own callback answered (not `on_error`'s, if it ran): the
    /// `change_state` service answers `success` only for
    /// [`Success`](CallbackReturn::Success).
    pub callback: CallbackReturn,
}

/// Takes a managed node through transition `id` from the state `machine` is in, running its
/// callback on the way, as rclcpp_lifecycle's `change_state` does:
///
/// 1. the transition `id` out of the current (primary) state into its transition state;
///    refused, with nothing changed, if the current state has no such transition;
/// 2. the transition state's callback of `node`, given the state the change started from;
/// 3. the way out of the transition state its answer labels (success, failure, error);
/// 4. after an error, `on_error` in `errorprocessing`, and the way out its answer labels
///    (to unconfigured on success, to finalized otherwise).
///
/// `on_transition` is told of each transition as it is taken, before the callback of the
/// state it reaches runs: two per change, or three through error processing. A managed node
/// publishes each as a `transition_event`, as rcl_lifecycle does. `logger` gets rclcpp's
/// messages: a refused transition, a callback's panic, an error; a refused transition is
/// also warned of on the `rcl_lifecycle` logger, as rcl does.
///
/// # Examples
/// ```
/// use tacto::lifecycle::{CallbackReturn, Callbacks, State, StateMachine, Transition, change_state};
/// use tacto::logging::Logger;
///
/// struct Camera {
///     opened: bool,
/// }
/// impl Callbacks for Camera {
///     fn on_configure(&mut self, _previous: State) -> CallbackReturn {
///         self.opened = true;
///         CallbackReturn::Success
///     }
///     fn on_activate(&mut self, _previous: State) -> CallbackReturn {
///         CallbackReturn::Failure // the device is not ready yet
///     }
/// }
///
/// let mut machine = StateMachine::new();
/// let mut camera = Camera { opened: false };
/// let logger = Logger::get("camera");
/// let mut taken = Vec::new();
/// let configure = Transition::CONFIGURE.id();
/// let configured = change_state(&mut machine, configure, &mut camera, &logger, |t| taken.push(t))
///     .unwrap();
/// assert_eq!(configured.state, State::INACTIVE);
/// assert!(camera.opened);
/// assert_eq!(taken, [Transition::CONFIGURE, Transition::ON_CONFIGURE_SUCCESS]);
/// let activate = Transition::ACTIVATE.id();
/// let refused = change_state(&mut machine, activate, &mut camera, &logger, |_| {}).unwrap();
/// assert_eq!((refused.state, refused.callback), (State::INACTIVE, CallbackReturn::Failure));
/// ```
pub fn change_state(
    machine: &mut StateMachine,
    id: u8,
    node: &mut (impl Callbacks + ?Sized),
    logger: &Logger,
    mut on_transition: impl FnMut(Transition),
) -> Result<Change, TransitionError> {
    let initial = machine.current();
    let start = machine.trigger(id).inspect_err(|error| {
        // rcl_lifecycle's warning, on its logger, then rclcpp's error with rcl's reason.
        crate::warn!(Logger::get("rcl_lifecycle"), "{error}");
        crate::error!(
            logger,
            "Unable to start transition {id} from current state {}: Transition is not \
             registered.",
            initial.label()
        );
    })?;
    on_transition(start);

    let callback = run_callback(node, machine.current(), initial, logger);
    on_transition(finish(machine, callback)?);

    if callback == CallbackReturn::Error {
        // rclcpp's text for going into error processing.
        crate::warn!(logger, "Error occurred while doing error handling.");
        let on_error = run_callback(node, machine.current(), initial, logger);
        on_transition(finish(machine, on_error)?);
    }
    Ok(Change {
        state: machine.current(),
        callback,
    })
}

/// The way out of a transition state. Every transition state has all three labels, and
/// [`run_callback`] runs only in transition states, so this cannot fail for the default
/// state machine; the error is passed on rather than assumed away.
fn finish(
    machine: &mut StateMachine,
    answer: CallbackReturn,
) -> Result<Transition, TransitionError> {
    machine.trigger_label(answer.label())
}

fn run_callback<C: Callbacks + ?Sized>(
    node: &mut C,
    state: State,
    previous: State,
    logger: &Logger,
) -> CallbackReturn {
    let callback: fn(&mut C, State) -> CallbackReturn = match state {
        State::CONFIGURING => Callbacks::on_configure,
        State::CLEANING_UP => Callbacks::on_cleanup,
        State::SHUTTING_DOWN => Callbacks::on_shutdown,
        State::ACTIVATING => Callbacks::on_activate,
        State::DEACTIVATING => Callbacks::on_deactivate,
        State::ERROR_PROCESSING => Callbacks::on_error,
        // Primary states have no callback: rclcpp forwards with success.
        _ => return CallbackReturn::Success,
    };
    // The node's state after a panic is the node's own business, as after an exception in
    // rclcpp; the state machine itself is untouched by the callback.
    match panic::catch_unwind(AssertUnwindSafe(|| callback(node, previous))) {
        Ok(answer) => answer,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            crate::error!(
                logger,
                "Caught exception in callback for transition {}",
                state.id()
            );
            crate::error!(logger, "Original error: {what}");
            CallbackReturn::Error
        }
    }
}
