//! A managed node on the graph: its lifecycle services and `transition_event` topic, served as
//! rclcpp_lifecycle serves them, and the gate its executables and publishers pass.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::change::{Callbacks, change_state};
use super::state_machine::{State, StateMachine, Transition};
use crate::logging::Logger;
use crate::msg::lifecycle_msgs::{msg, srv};
use crate::node::Node;
use crate::publisher::Publisher;
use crate::service::{Service, ServiceCreateError};
use crate::subscription::{Input, Listener};
use crate::transport::LinkError;
use crate::trigger::Trigger;
use crate::{TopicError, TriggerError};

/// The state a managed node's executables and publishers look at: written by the node's
/// lifecycle executable, read lock-free by everything else.
#[derive(Debug)]
pub(crate) struct Gate {
    state: AtomicU8,
    /// Times the node became active: a publisher warns once per spell of not being active,
    /// as rclcpp's lifecycle publisher re-arms its warning on activation.
    activations: AtomicU64,
    /// Samples that per-message callbacks did not get because the node was not active.
    dropped: AtomicU64,
}

/// Where a node keeps its gate: empty until the node is managed. Shared with the node's
/// executables and publishers, so those made before [`Node::manage`] obey it too.
pub(crate) type GateSlot = Arc<OnceLock<Arc<Gate>>>;

impl Gate {
    fn new() -> Self {
        Gate {
            state: AtomicU8::new(State::UNCONFIGURED.id()),
            activations: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    fn state(&self) -> State {
        State::from_id(self.state.load(Ordering::Acquire)).unwrap_or(State::UNKNOWN)
    }

    fn enter(&self, state: State) {
        if state == State::ACTIVATING {
            self.activations.fetch_add(1, Ordering::Relaxed);
        }
        self.state.store(state.id(), Ordering::Release);
    }

    /// Whether the node's executables run: only while it is active.
    pub(crate) fn runs(slot: &GateSlot) -> bool {
        slot.get()
            .is_none_or(|gate| gate.state.load(Ordering::Acquire) == State::ACTIVE.id())
    }

    /// Counts a sample a per-message callback did not get.
    pub(crate) fn drop_sample(slot: &GateSlot) {
        if let Some(gate) = slot.get() {
            gate.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether the node's publishers send: from the start of `on_activate` (which may publish,
    /// as an rclcpp node does after activating its publishers) until deactivating begins.
    pub(crate) fn publishes(&self) -> bool {
        let state = self.state.load(Ordering::Acquire);
        state == State::ACTIVE.id() || state == State::ACTIVATING.id()
    }

    /// The current spell's number, for a publisher's warn-once.
    pub(crate) fn activations(&self) -> u64 {
        self.activations.load(Ordering::Relaxed)
    }
}

/// A managed node's lifecycle, seen from outside its executor: its state now, and what its
/// being inactive cost. From [`Node::manage`]; cheap to clone, any thread.
///
/// # Examples
/// ```
/// use tacto::Context;
/// use tacto::lifecycle::{Callbacks, State};
///
/// struct Driver;
/// impl Callbacks for Driver {} // every transition succeeds
///
/// let ctx = Context::new();
/// let mut node = ctx.node("driver").unwrap();
/// let lifecycle = node.manage(Driver).unwrap();
/// assert_eq!(lifecycle.state(), State::UNCONFIGURED);
/// ```
#[derive(Clone)]
pub struct Lifecycle {
    gate: Arc<Gate>,
    requests: Arc<Requests>,
}

impl fmt::Debug for Lifecycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lifecycle")
            .field("state", &self.state())
            .finish()
    }
}

impl Lifecycle {
    /// The node's state now: a primary state, or the transition state a callback runs in.
    pub fn state(&self) -> State {
        self.gate.state()
    }

    /// Samples the node's per-message callbacks did not get because it was not active.
    pub fn dropped_samples(&self) -> u64 {
        self.gate.dropped.load(Ordering::Relaxed)
    }

    /// Asks the node to take `transition`, from this process, as rclcpp's
    /// `node->configure()`, `activate()`, ... do: the change runs on the executor that runs
    /// the node, at its next run (at once if it is spinning, at the start if it is not yet),
    /// between its other executables, exactly as a `change_state` request would, and is
    /// published as a `transition_event`. Requests run in the order made.
    ///
    /// The transition is looked up by its label from the state the node is in when it runs,
    /// as the `change_state` service does with a request's label: any of the three shutdowns
    /// shuts the node down from where it is (rclcpp's `shutdown()`), and a transition the
    /// state does not have is refused and logged, changing nothing. The outcome shows in
    /// [`state`](Self::state) and on the `transition_event` topic.
    ///
    /// A node that configures and activates itself at start (Nav2's `autostart`) makes both
    /// requests before spinning; if configuring fails, the activation is refused.
    ///
    /// At most [`MAX_REQUESTS`](Self::MAX_REQUESTS) wait at a time: beyond, the request is
    /// refused ([`RequestError::Full`]) and nothing is queued.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use tacto::lifecycle::{Callbacks, State, Transition};
    /// use tacto::{Context, Executor, WaitSetExecutor};
    ///
    /// struct Camera;
    /// impl Callbacks for Camera {}
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("camera").unwrap();
    /// let lifecycle = node.manage(Camera).unwrap();
    /// lifecycle.request(Transition::CONFIGURE).unwrap();
    /// lifecycle.request(Transition::ACTIVATE).unwrap();
    /// assert_eq!(lifecycle.state(), State::UNCONFIGURED); // not run yet: no executor
    ///
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(node).unwrap();
    /// executor.spin_for(Duration::from_millis(50)).unwrap();
    /// assert_eq!(lifecycle.state(), State::ACTIVE);
    /// ```
    pub fn request(&self, transition: Transition) -> Result<(), RequestError> {
        self.requests.push(transition)
    }

    /// How many requests of [`request`](Self::request) may wait at a time.
    pub const MAX_REQUESTS: usize = 16;
}

/// Why [`Lifecycle::request`] refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// [`Lifecycle::MAX_REQUESTS`] requests wait already: the node's executor is not running
    /// it, or is far behind.
    #[error(
        "{} lifecycle requests wait already: is the node's executor running?",
        Lifecycle::MAX_REQUESTS
    )]
    Full,
}

/// Transitions asked for with [`Lifecycle::request`], waiting for the lifecycle executable:
/// an input of its trigger, as a service's requests are.
#[derive(Debug)]
struct Requests {
    queue: Mutex<VecDeque<Transition>>,
    /// Requests made since creation.
    arrivals: AtomicU64,
    listener: OnceLock<Arc<dyn Listener>>,
}

impl Requests {
    fn new() -> Self {
        Requests {
            queue: Mutex::new(VecDeque::new()),
            arrivals: AtomicU64::new(0),
            listener: OnceLock::new(),
        }
    }

    fn push(&self, transition: Transition) -> Result<(), RequestError> {
        {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            if queue.len() >= Lifecycle::MAX_REQUESTS {
                return Err(RequestError::Full);
            }
            queue.push_back(transition);
        }
        // Counted before the wake-up, which the executor follows by reading it.
        self.arrivals.fetch_add(1, Ordering::SeqCst);
        if let Some(listener) = self.listener.get() {
            listener.on_sample();
        }
        Ok(())
    }

    fn pop(&self) -> Option<Transition> {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.pop_front()
    }
}

impl Input for Requests {
    fn unread(&self) -> usize {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn arrivals(&self) -> u64 {
        self.arrivals.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> u64 {
        0
    }

    fn is_attached(&self) -> bool {
        self.listener.get().is_some()
    }

    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        Ok(self.listener.set(listener).is_ok())
    }

    // Not frozen by a LET period: a request is taken at the lifecycle executable's next run.
    fn freeze(&self) {}
}

/// Why a node could not be made a managed node.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    /// [`Node::manage`] was called on this node before.
    #[error("the node is managed already")]
    AlreadyManaged,
    /// A lifecycle service could not be created (its name is served already, ...).
    #[error("cannot create the lifecycle services: {0}")]
    Service(#[from] ServiceCreateError),
    /// The `transition_event` topic could not be created.
    #[error("cannot create the transition_event topic: {0}")]
    Topic(#[from] TopicError),
    /// The lifecycle services' executable could not be registered.
    #[error("cannot register the lifecycle executable: {0}")]
    Trigger(#[from] TriggerError),
}

/// The five services rclcpp_lifecycle's node serves, under the node's name.
struct Services {
    change_state: Service<srv::ChangeState>,
    get_state: Service<srv::GetState>,
    get_available_states: Service<srv::GetAvailableStates>,
    get_available_transitions: Service<srv::GetAvailableTransitions>,
    get_transition_graph: Service<srv::GetAvailableTransitions>,
}

/// Makes `node` a managed node run by `callbacks`; see [`Node::manage`].
pub(crate) fn manage(
    node: &mut Node,
    slot: &GateSlot,
    callbacks: Box<dyn Callbacks + Send>,
) -> Result<Lifecycle, ManageError> {
    if slot.get().is_some() {
        return Err(ManageError::AlreadyManaged);
    }
    let services = Services {
        change_state: node.service("~/change_state").create()?,
        get_state: node.service("~/get_state").create()?,
        get_available_states: node.service("~/get_available_states").create()?,
        get_available_transitions: node.service("~/get_available_transitions").create()?,
        get_transition_graph: node.service("~/get_transition_graph").create()?,
    };
    // Outside the gate: rcl_lifecycle publishes every transition, in every state.
    let events = node.ungated_publisher::<msg::TransitionEvent>("~/transition_event")?;
    let requests = Arc::new(Requests::new());
    crate::node::remember(&mut node.inputs, Arc::downgrade(&requests) as _);
    let trigger = Trigger::any()
        .with_input(requests.clone())
        .with_requests(&services.change_state)
        .with_requests(&services.get_state)
        .with_requests(&services.get_available_states)
        .with_requests(&services.get_available_transitions)
        .with_requests(&services.get_transition_graph);
    let gate = Arc::new(Gate::new());
    let mut server = Server {
        services,
        requests: requests.clone(),
        events,
        machine: StateMachine::new(),
        callbacks,
        gate: gate.clone(),
        logger: node.logger().clone(),
    };
    // Not gated: it is what takes the node out of the states its other executables wait in.
    node.execute_ungated(trigger, move |_| server.serve())?;
    // Set last: until here, nothing of the node is gated.
    let _ = slot.set(gate.clone());
    Ok(Lifecycle { gate, requests })
}

/// The lifecycle executable's state: the services, the state machine and the node's callbacks.
struct Server {
    services: Services,
    requests: Arc<Requests>,
    events: Publisher<msg::TransitionEvent>,
    machine: StateMachine,
    callbacks: Box<dyn Callbacks + Send>,
    gate: Arc<Gate>,
    logger: Logger,
}

impl Server {
    fn serve(&mut self) {
        while let Some(transition) = self.requests.pop() {
            self.change_state(&msg::Transition {
                id: transition.id(),
                label: transition.label().to_owned(),
            });
        }
        while let Some((id, request)) = self.services.change_state.take_request() {
            let success = self.change_state(&request.transition);
            (self.services.change_state).send_response(id, srv::ChangeState_Response { success });
        }
        while let Some((id, _)) = self.services.get_state.take_request() {
            let current_state = state_message(self.machine.current());
            (self.services.get_state).send_response(id, srv::GetState_Response { current_state });
        }
        while let Some((id, _)) = self.services.get_available_states.take_request() {
            let available_states = State::ALL.into_iter().map(state_message).collect();
            let response = srv::GetAvailableStates_Response { available_states };
            (self.services.get_available_states).send_response(id, response);
        }
        while let Some((id, _)) = self.services.get_available_transitions.take_request() {
            let available_transitions = (self.machine.available_transitions())
                .map(description)
                .collect();
            let response = srv::GetAvailableTransitions_Response {
                available_transitions,
            };
            (self.services.get_available_transitions).send_response(id, response);
        }
        while let Some((id, _)) = self.services.get_transition_graph.take_request() {
            let available_transitions = Transition::ALL.into_iter().map(description).collect();
            let response = srv::GetAvailableTransitions_Response {
                available_transitions,
            };
            (self.services.get_transition_graph).send_response(id, response);
        }
    }

    /// rclcpp_lifecycle's `on_change_state`: a label, if the request has one, takes
    /// precedence over the id (`ros2 service call` leaves the id zero); success only if the
    /// transition's callback answered success.
    fn change_state(&mut self, requested: &msg::Transition) -> bool {
        let id = match requested.label.is_empty() {
            true => requested.id,
            false => match self.machine.transition_by_label(&requested.label) {
                Ok(transition) => transition.id(),
                Err(error) => {
                    // rcl_lifecycle's warning; rclcpp adds nothing on this path.
                    crate::warn!(Logger::get("rcl_lifecycle"), "{error}");
                    return false;
                }
            },
        };
        let (gate, events) = (&self.gate, &self.events);
        let changed = change_state(
            &mut self.machine,
            id,
            &mut *self.callbacks,
            &self.logger,
            |transition| {
                gate.enter(transition.goal());
                // As rcl_lifecycle fills it: the two states; timestamp and transition stay
                // zero.
                events.publish(msg::TransitionEvent {
                    start_state: state_message(transition.start()),
                    goal_state: state_message(transition.goal()),
                    ..Default::default()
                });
            },
        );
        changed.is_ok_and(|change| change.callback == super::CallbackReturn::Success)
    }
}

fn state_message(state: State) -> msg::State {
    msg::State {
        id: state.id(),
        label: state.label().to_owned(),
    }
}

fn description(transition: Transition) -> msg::TransitionDescription {
    msg::TransitionDescription {
        transition: msg::Transition {
            id: transition.id(),
            label: transition.label().to_owned(),
        },
        start_state: state_message(transition.start()),
        goal_state: state_message(transition.goal()),
    }
}
