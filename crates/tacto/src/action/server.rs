//! An action server: takes goals and cancel requests as inputs of its node, and advances each
//! goal a step at each run of the node's code through the goal's handle.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::action_type::ActionType;
use super::goals::{AcceptError, CancelCode, GoalId, GoalInfo, Goals, UpdateError};
use super::names::ActionNames;
use super::status::{GoalEvent, GoalStatus};
use super::wire;
use crate::clock::{NodeClock, Time};
use crate::logging::Logger;
use crate::node::Node;
use crate::publisher::Publisher;
use crate::qos::Qos;
use crate::service::{RequestId, Service, ServiceCreateError};
use crate::trigger::Trigger;
use crate::{History, TopicError, TriggerError};

/// Why an action server or client could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ActionCreateError {
    /// The action's name does not resolve (it breaks ROS 2's naming rules, or is empty).
    #[error("action name {name:?}: {error}")]
    Name {
        /// The name as given.
        name: String,
        /// Why it does not resolve.
        error: TopicError,
    },
    /// One of the action's three services could not be created (served already, ...).
    #[error("cannot create the action's service: {0}")]
    Service(#[from] ServiceCreateError),
    /// One of the action's three clients could not be created.
    #[error("cannot create the action's client: {0}")]
    Client(#[from] crate::client::ClientCreateError),
    /// The feedback or status topic could not be created.
    #[error("cannot create the action's topic: {0}")]
    Topic(#[from] TopicError),
    /// The feedback or status subscription could not be created.
    #[error("cannot subscribe to the action's topic: {0}")]
    Subscription(#[from] crate::SubscriptionCreateError),
    /// The server's own executable (result requests, expiry) could not be registered.
    #[error("cannot register the action's executable: {0}")]
    Trigger(#[from] TriggerError),
    /// A bound of zero: nothing could ever be held.
    #[error("an action's {0} must be at least 1")]
    ZeroBound(&'static str),
}

/// rcl_action's status topic QoS (`rcl_action_qos_profile_status_default`): reliable,
/// transient-local, keep-last 1, so a late client gets the last status list.
pub(crate) fn status_qos() -> Qos {
    Qos::default()
        .reliable()
        .transient_local()
        .history(History::KeepLast(1))
}

/// Resolves action `name` for `node` as rcl_action does (as a topic name), into its names.
pub(crate) fn resolve(node: &Node, name: &str) -> Result<ActionNames, ActionCreateError> {
    let error = |error| ActionCreateError::Name {
        name: name.to_owned(),
        error,
    };
    if name.is_empty() {
        return Err(error(TopicError::InvalidName {
            name: String::new(),
            reason: "an action name must not be empty",
        }));
    }
    let resolved = node.resolve_topic_name(name).map_err(error)?;
    ActionNames::new(&resolved).map_err(|_| {
        error(TopicError::InvalidName {
            name: name.to_owned(),
            reason: "an action name must not be empty",
        })
    })
}

/// Builds an [`ActionServer`]; from [`Node::action_server`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct ActionServerBuilder<'a, A> {
    node: &'a mut Node,
    name: String,
    max_goals: usize,
    result_timeout: Duration,
    max_waiting_results: usize,
    _type: PhantomData<fn() -> A>,
}

impl<'a, A: ActionType> ActionServerBuilder<'a, A> {
    pub(crate) fn new(node: &'a mut Node, name: &str) -> Self {
        ActionServerBuilder {
            node,
            name: name.to_owned(),
            max_goals: 64,
            result_timeout: Goals::DEFAULT_RESULT_TIMEOUT,
            max_waiting_results: 256,
            _type: PhantomData,
        }
    }

    /// How many goals the server holds at most, running or ended with their results kept
    /// (default 64). A new goal past it evicts the oldest ended goal's result (counted in
    /// [`ActionServer::evicted_results`]); with every goal held still running, it is rejected
    /// (counted in [`ActionServer::refused_goals`]).
    pub fn max_goals(mut self, max_goals: usize) -> Self {
        self.max_goals = max_goals;
        self
    }

    /// How long an ended goal's result is kept, counted from the goal's acceptance as
    /// rcl_action counts it (default 10 s, rcl_action's).
    pub fn result_timeout(mut self, timeout: Duration) -> Self {
        self.result_timeout = timeout;
        self
    }

    /// How many result requests for goals still running wait at most for their goal to end
    /// (default 256). Past it the oldest waiting request is dropped, unanswered (its client's
    /// call times out), counted in [`ActionServer::dropped_result_requests`].
    pub fn max_waiting_results(mut self, max: usize) -> Self {
        self.max_waiting_results = max;
        self
    }

    /// Creates the server: its three services and two topics, and an executable of the node
    /// that answers result requests and expires results (on the result requests, and a
    /// period of a tenth of the result timeout, 1 ms to 1 s).
    pub fn create(self) -> Result<ActionServer<A>, ActionCreateError> {
        if self.max_goals == 0 {
            return Err(ActionCreateError::ZeroBound("max_goals"));
        }
        if self.max_waiting_results == 0 {
            return Err(ActionCreateError::ZeroBound("max_waiting_results"));
        }
        let node = self.node;
        let names = resolve(node, &self.name)?;
        let send_goal = node.service(&names.send_goal()).create()?;
        let cancel_goal = node.service(&names.cancel_goal()).create()?;
        let get_result = node.service(&names.get_result()).create()?;
        let feedback = node.publisher(&names.feedback()).create()?;
        let status = node.publisher(&names.status()).qos(status_qos()).create()?;
        let shared = Arc::new(Shared {
            send_goal,
            cancel_goal,
            get_result,
            feedback,
            status,
            clock: node.clock(),
            logger: node.logger().clone(),
            name: names.action().to_owned(),
            state: Mutex::new(State {
                goals: Goals::new(self.max_goals, self.result_timeout),
                results: HashMap::new(),
                waiting: VecDeque::new(),
            }),
            max_waiting_results: self.max_waiting_results,
            counters: Counters::default(),
        });
        let results = shared.clone();
        node.execute(Trigger::on_request(&shared.get_result), move |_| {
            results.serve_results()
        })?;
        let expiry = shared.clone();
        // Not below 1 ms: a result timeout of zero must not spin a timer at 10 kHz.
        let period =
            (self.result_timeout / 10).clamp(Duration::from_millis(1), Duration::from_secs(1));
        node.execute(Trigger::every(period), move |_| expiry.expire())?;
        Ok(ActionServer { shared })
    }
}

#[derive(Debug, Default)]
struct Counters {
    refused: AtomicU64,
    waiting_dropped: AtomicU64,
    unknown_results: AtomicU64,
}

/// What the server's executables and the goal handles share.
struct Shared<A: ActionType> {
    send_goal: Service<wire::SendGoal<A>>,
    cancel_goal: Service<wire::CancelGoal>,
    get_result: Service<wire::GetResult<A>>,
    feedback: Publisher<wire::FeedbackMessage<A>>,
    status: Publisher<wire::GoalStatusArray>,
    clock: NodeClock,
    logger: Logger,
    name: String,
    /// Locked by the node's code and the server's executable, which its executor runs one at
    /// a time (the node's default group), and by a handle used from another thread.
    state: Mutex<State<A>>,
    max_waiting_results: usize,
    counters: Counters,
}

struct State<A: ActionType> {
    goals: Goals,
    /// The results of ended goals, until they expire or are evicted with their goal.
    results: HashMap<GoalId, (GoalStatus, A::Result)>,
    /// Result requests for goals still running, answered when the goal ends.
    waiting: VecDeque<(RequestId, GoalId)>,
}

impl<A: ActionType> Shared<A> {
    fn lock(&self) -> MutexGuard<'_, State<A>> {
        // A panic in user code while the lock was held left consistent data: each change is
        // made under one lock, after its checks.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn publish_status(&self, state: &State<A>) {
        let status_list = state
            .goals
            .statuses()
            .map(|(info, status)| wire::GoalStatus {
                goal_info: to_wire(info),
                status: status.id(),
            })
            .collect();
        self.status.publish(wire::GoalStatusArray { status_list });
    }

    /// Answers the result requests waiting in the service: at once for an ended goal, and
    /// for an unknown one with `STATUS_UNKNOWN` as rclcpp answers; later for a running one.
    fn serve_results(&self) {
        while let Some((request, message)) = self.get_result.take_request() {
            let id = GoalId::from_bytes(message.goal_id.uuid);
            let mut state = self.lock();
            if let Some((status, result)) = state.results.get(&id) {
                let response = wire::GetResultResponse {
                    status: status.id(),
                    result: A::Result::clone(result),
                };
                drop(state);
                self.get_result.send_response(request, response);
            } else if state.goals.status(&id).is_some() {
                if state.waiting.len() >= self.max_waiting_results {
                    state.waiting.pop_front();
                    self.counters
                        .waiting_dropped
                        .fetch_add(1, Ordering::Relaxed);
                }
                state.waiting.push_back((request, id));
            } else {
                drop(state);
                self.counters
                    .unknown_results
                    .fetch_add(1, Ordering::Relaxed);
                let response = wire::GetResultResponse {
                    status: GoalStatus::Unknown.id(),
                    result: A::Result::default(),
                };
                self.get_result.send_response(request, response);
            }
        }
    }

    /// Drops the results that expired, and those of goals evicted for new ones.
    fn expire(&self) {
        let now = self.clock.now();
        let mut state = self.lock();
        let expired = state.goals.expire(now);
        for info in expired {
            state.results.remove(&info.id);
        }
    }

    /// Ends goal `id` by `event` with `result`: stores the result, answers the result
    /// requests waiting for it, publishes the status list.
    fn end(&self, id: &GoalId, event: GoalEvent, result: A::Result) -> Result<(), UpdateError> {
        let mut state = self.lock();
        let status = state.goals.update(id, event)?;
        let mut answered = Vec::new();
        state.waiting.retain(|(request, goal)| {
            let mine = goal == id;
            if mine {
                answered.push(*request);
            }
            !mine
        });
        for request in answered {
            let response = wire::GetResultResponse {
                status: status.id(),
                result: result.clone(),
            };
            self.get_result.send_response(request, response);
        }
        state.results.insert(*id, (status, result));
        self.publish_status(&state);
        Ok(())
    }

    fn update(&self, id: &GoalId, event: GoalEvent) -> Result<GoalStatus, UpdateError> {
        let mut state = self.lock();
        let status = state.goals.update(id, event)?;
        self.publish_status(&state);
        Ok(status)
    }
}

fn to_wire(info: GoalInfo) -> wire::GoalInfo {
    wire::GoalInfo {
        goal_id: wire::Uuid {
            uuid: *info.id.as_bytes(),
        },
        stamp: info.stamp.into(),
    }
}

/// Serves one action: takes goals and cancel requests, keeps each goal's state and result,
/// and answers result requests, as rclcpp_action's `Server` on rcl_action.
///
/// Created from a node ([`Node::action_server`]) under rcl_action's names
/// (`<action>/_action/send_goal`, `cancel_goal`, `get_result`, `feedback`, `status`) and
/// QoS, so ROS 2 clients (rclcpp, rclpy, `ros2 action`) talk to it over DDS.
///
/// **In tacto's model** goal and cancel requests are inputs of the node: a
/// [`trigger`](Self::trigger) runs the node's code when they arrive, or code that runs for
/// another reason (a period) takes them. The code decides ([`GoalRequest::accept`],
/// [`CancelRequest::decide`]) and advances each goal a step per run through its
/// [`GoalHandle`]: [`execute`](GoalHandle::execute),
/// [`publish_feedback`](GoalHandle::publish_feedback), and one of
/// [`succeed`](GoalHandle::succeed), [`abort`](GoalHandle::abort),
/// [`canceled`](GoalHandle::canceled) — never by blocking the executor's thread in a loop.
///
/// The server answers result requests itself (an executable of the node it adds): at once
/// for an ended goal, when the goal ends for a running one, with `STATUS_UNKNOWN` for an
/// unknown one. It publishes the status list on each change of a goal's state. Results are
/// kept for the result timeout from the goal's acceptance, then expire.
///
/// # Examples
/// A server counting to the goal, one step per period, with a client in the same process:
/// ```
/// # use tacto::serde::{Deserialize, Serialize};
/// # use tacto::{ActionType, Message, ServiceType};
/// # macro_rules! message {
/// #     ($name:ident, $ros:literal, { $($field:ident: $ty:ty),* }) => {
/// #         #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// #         #[serde(crate = "tacto::serde")]
/// #         pub struct $name { $(pub $field: $ty),* }
/// #         impl Message for $name { const TYPE_NAME: &'static str = $ros; }
/// #     };
/// # }
/// # message!(Goal, "demo_msgs/action/Count_Goal", { up_to: i32 });
/// # message!(Result, "demo_msgs/action/Count_Result", { reached: i32 });
/// # message!(Feedback, "demo_msgs/action/Count_Feedback", { now: i32 });
/// # message!(SendGoalRequest, "demo_msgs/action/Count_SendGoal_Request", { goal_id: [u8; 16], goal: Goal });
/// # message!(SendGoalResponse, "demo_msgs/action/Count_SendGoal_Response", { accepted: bool, stamp: tacto::msg::builtin_interfaces::Time });
/// # message!(GetResultRequest, "demo_msgs/action/Count_GetResult_Request", { goal_id: [u8; 16] });
/// # message!(GetResultResponse, "demo_msgs/action/Count_GetResult_Response", { status: i8, result: Result });
/// # message!(FeedbackMessage, "demo_msgs/action/Count_FeedbackMessage", { goal_id: [u8; 16], feedback: Feedback });
/// # pub struct SendGoal;
/// # impl ServiceType for SendGoal { const TYPE_NAME: &'static str = "demo_msgs/action/Count_SendGoal"; type Request = SendGoalRequest; type Response = SendGoalResponse; }
/// # pub struct GetResult;
/// # impl ServiceType for GetResult { const TYPE_NAME: &'static str = "demo_msgs/action/Count_GetResult"; type Request = GetResultRequest; type Response = GetResultResponse; }
/// # pub struct Count;
/// # impl ActionType for Count {
/// #     const TYPE_NAME: &'static str = "demo_msgs/action/Count";
/// #     type Goal = Goal; type Result = Result; type Feedback = Feedback;
/// #     type SendGoal = SendGoal; type GetResult = GetResult; type FeedbackMessage = FeedbackMessage;
/// # }
/// use std::time::Duration;
/// use tacto::action::GoalStatus;
/// use tacto::{Context, Executor, ExecutorThread, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("counter").unwrap();
/// let server = node.action_server::<Count>("count").create().unwrap();
/// let mut running = Vec::new();
/// node.wall_timer(Duration::from_millis(1), move |_| {
///     while let Some(request) = server.take_goal() {
///         let handle = request.accept().unwrap();
///         handle.execute().unwrap();
///         running.push((handle, 0));
///     }
///     for (handle, now) in &mut running {
///         *now += 1; // one step per run
///         handle.publish_feedback(Feedback { now: *now });
///         if *now == handle.goal().up_to {
///             handle.succeed(Result { reached: *now }).unwrap();
///         }
///     }
///     running.retain(|(handle, _)| handle.is_active());
/// })
/// .unwrap();
///
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(node).unwrap();
/// let running = ExecutorThread::builder().spawn(executor).unwrap();
///
/// let mut caller = ctx.node("caller").unwrap();
/// let client = caller.action_client::<Count>("count").create().unwrap();
/// let outcome = client.send_goal_and_wait(Goal { up_to: 3 }, Duration::from_secs(30)).unwrap();
/// running.stop();
/// assert_eq!(outcome.status, GoalStatus::Succeeded);
/// assert_eq!(outcome.result, Result { reached: 3 });
/// ```
pub struct ActionServer<A: ActionType> {
    shared: Arc<Shared<A>>,
}

impl<A: ActionType> fmt::Debug for ActionServer<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActionServer")
            .field("action", &self.shared.name)
            .field("type", &A::TYPE_NAME)
            .finish()
    }
}

impl<A: ActionType> ActionServer<A> {
    /// A trigger that runs code when goal or cancel requests arrive. Add other inputs with
    /// [`Trigger::with`] and such; a goal advanced on a period needs code on a timer too.
    pub fn trigger(&self) -> Trigger {
        Trigger::any()
            .with_requests(&self.shared.send_goal)
            .with_requests(&self.shared.cancel_goal)
    }

    /// Takes the oldest goal request waiting, for the code to accept or reject. A request
    /// dropped undecided is rejected.
    pub fn take_goal(&self) -> Option<GoalRequest<A>> {
        let (request, message) = self.shared.send_goal.take_request()?;
        Some(GoalRequest {
            shared: self.shared.clone(),
            request,
            id: GoalId::from_bytes(message.goal_id.uuid),
            goal: message.goal,
            decided: false,
        })
    }

    /// Takes the oldest cancel request that reaches running goals, for the code to decide
    /// on each: rcl_action's `rcl_action_process_cancel_request` chose them (one goal, all,
    /// or all accepted before a time). A request that reaches none is answered here, as
    /// rclcpp answers it (`ERROR_UNKNOWN_GOAL_ID`, `ERROR_GOAL_TERMINATED`, or `ERROR_NONE`
    /// with no goal), and the next one is looked at.
    pub fn take_cancel(&self) -> Option<CancelRequest<A>> {
        loop {
            let (request, message) = self.shared.cancel_goal.take_request()?;
            let info = GoalInfo {
                id: GoalId::from_bytes(message.goal_info.goal_id.uuid),
                stamp: Time::from(message.goal_info.stamp),
            };
            let reach = self.shared.lock().goals.cancel_reach(&info);
            if reach.code != CancelCode::None || reach.goals.is_empty() {
                let response = wire::CancelGoalResponse {
                    return_code: reach.code.id(),
                    goals_canceling: Vec::new(),
                };
                self.shared.cancel_goal.send_response(request, response);
                continue;
            }
            return Some(CancelRequest {
                shared: self.shared.clone(),
                request,
                goals: reach.goals,
                decided: false,
            });
        }
    }

    /// The state of goal `id`, if the server holds it.
    pub fn status(&self, id: &GoalId) -> Option<GoalStatus> {
        self.shared.lock().goals.status(id)
    }

    /// Goals held now: running, or ended with their results kept.
    pub fn goals(&self) -> usize {
        self.shared.lock().goals.len()
    }

    /// Results kept now, of ended goals: at most as many as [`goals`](Self::goals).
    pub fn kept_results(&self) -> usize {
        self.shared.lock().results.len()
    }

    /// Goals rejected because as many as the server may hold were running, since creation.
    pub fn refused_goals(&self) -> u64 {
        self.shared.counters.refused.load(Ordering::Relaxed)
    }

    /// Results dropped before their time to make room for new goals, since creation.
    pub fn evicted_results(&self) -> u64 {
        self.shared.lock().goals.evicted()
    }

    /// Result requests dropped unanswered because too many waited, since creation.
    pub fn dropped_result_requests(&self) -> u64 {
        self.shared.counters.waiting_dropped.load(Ordering::Relaxed)
    }

    /// Result requests for goals the server did not hold (unknown, or expired), answered
    /// `STATUS_UNKNOWN`, since creation.
    pub fn unknown_result_requests(&self) -> u64 {
        self.shared.counters.unknown_results.load(Ordering::Relaxed)
    }

    /// Goal, cancel and result requests that arrived from the wire and did not decode
    /// (dropped), since creation.
    pub fn malformed_requests(&self) -> u64 {
        self.shared.send_goal.malformed_requests()
            + self.shared.cancel_goal.malformed_requests()
            + self.shared.get_result.malformed_requests()
    }

    /// The action's resolved name, e.g. `/fibonacci`.
    pub fn name(&self) -> &str {
        &self.shared.name
    }
}

/// A goal a client sent, for the server's code to accept or reject; from
/// [`ActionServer::take_goal`]. Dropped undecided, it is rejected.
pub struct GoalRequest<A: ActionType> {
    shared: Arc<Shared<A>>,
    request: RequestId,
    id: GoalId,
    goal: A::Goal,
    /// Answered: accepted or rejected.
    decided: bool,
}

impl<A: ActionType> fmt::Debug for GoalRequest<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GoalRequest").field("id", &self.id).finish()
    }
}

impl<A: ActionType> GoalRequest<A> {
    /// The goal's id, chosen by the client.
    pub fn id(&self) -> GoalId {
        self.id
    }

    /// What the client asks for.
    pub fn goal(&self) -> &A::Goal {
        &self.goal
    }

    /// Accepts the goal: answers the client (accepted, with the acceptance stamp) and
    /// publishes the status list with the goal `ACCEPTED`. Refused (and answered rejected)
    /// if the server holds a goal of this id already, or holds as many running goals as it
    /// may ([`ActionServerBuilder::max_goals`]).
    pub fn accept(mut self) -> Result<GoalHandle<A>, AcceptError> {
        self.decided = true;
        let goal = std::mem::take(&mut self.goal);
        let shared = self.shared.clone();
        let now = shared.clock.now();
        let mut state = shared.lock();
        let evicted = state.goals.evicted();
        let accepted = state.goals.accept(self.id, now);
        // The result of a goal evicted for this one goes with it.
        if state.goals.evicted() != evicted {
            let State { goals, results, .. } = &mut *state;
            results.retain(|id, _| goals.status(id).is_some());
        }
        match accepted {
            Ok(info) => {
                let response = wire::SendGoalResponse {
                    accepted: true,
                    stamp: info.stamp.into(),
                    action: PhantomData,
                };
                shared.send_goal.send_response(self.request, response);
                shared.publish_status(&state);
                drop(state);
                Ok(GoalHandle {
                    shared,
                    id: self.id,
                    goal,
                })
            }
            Err(error) => {
                drop(state);
                if matches!(error, AcceptError::Full { .. }) {
                    shared.counters.refused.fetch_add(1, Ordering::Relaxed);
                }
                crate::warn!(
                    shared.logger,
                    "action {}: goal {} rejected: {error}",
                    shared.name,
                    self.id
                );
                respond_rejected(&shared, self.request);
                Err(error)
            }
        }
    }

    /// Rejects the goal: answers the client (not accepted); the server keeps nothing of it.
    pub fn reject(mut self) {
        self.decided = true;
        respond_rejected(&self.shared, self.request);
    }
}

impl<A: ActionType> Drop for GoalRequest<A> {
    fn drop(&mut self) {
        if !self.decided {
            respond_rejected(&self.shared, self.request);
        }
    }
}

fn respond_rejected<A: ActionType>(shared: &Shared<A>, request: RequestId) {
    let response = wire::SendGoalResponse {
        accepted: false,
        stamp: Default::default(),
        action: PhantomData,
    };
    shared.send_goal.send_response(request, response);
}

/// A cancel request that reaches running goals, for the server's code to decide on each;
/// from [`ActionServer::take_cancel`]. Dropped undecided, it is rejected for every goal, as
/// rclpy's default cancel callback does.
pub struct CancelRequest<A: ActionType> {
    shared: Arc<Shared<A>>,
    request: RequestId,
    goals: Vec<GoalInfo>,
    decided: bool,
}

impl<A: ActionType> fmt::Debug for CancelRequest<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelRequest")
            .field("goals", &self.goals)
            .finish()
    }
}

impl<A: ActionType> CancelRequest<A> {
    /// The goals the request reaches, in the order they were accepted.
    pub fn goals(&self) -> &[GoalInfo] {
        &self.goals
    }

    /// Decides, goal by goal, with `accept` (rclcpp's cancel callback: true to accept, false
    /// to reject): the goals accepted move to `CANCELING`, and the client is answered with
    /// them, as rclcpp's `ServerBase` answers: `ERROR_NONE`, or `ERROR_REJECTED` if the
    /// request reached goals and the code accepted none. The server's code then ends each
    /// canceling goal ([`GoalHandle::canceled`], or succeed or abort).
    pub fn decide(mut self, mut accept: impl FnMut(&GoalInfo) -> bool) {
        self.decided = true;
        let mut state = self.shared.lock();
        let mut canceling = Vec::new();
        for info in &self.goals {
            if accept(info) && state.goals.update(&info.id, GoalEvent::CancelGoal).is_ok() {
                canceling.push(to_wire(*info));
            }
        }
        let return_code = match canceling.is_empty() {
            true => CancelCode::Rejected,
            false => {
                self.shared.publish_status(&state);
                CancelCode::None
            }
        };
        drop(state);
        let response = wire::CancelGoalResponse {
            return_code: return_code.id(),
            goals_canceling: canceling,
        };
        self.shared
            .cancel_goal
            .send_response(self.request, response);
    }
}

impl<A: ActionType> Drop for CancelRequest<A> {
    fn drop(&mut self) {
        if !self.decided {
            let response = wire::CancelGoalResponse {
                return_code: CancelCode::Rejected.id(),
                goals_canceling: Vec::new(),
            };
            self.shared
                .cancel_goal
                .send_response(self.request, response);
        }
    }
}

/// An accepted goal, through which the server's code advances it: rclcpp_action's
/// `ServerGoalHandle`. Use it from the node's code, a step per run.
///
/// A handle dropped while its goal still runs ends it `CANCELED` with a default result, as
/// rclcpp's handle does when it is destroyed, so no client waits for ever.
pub struct GoalHandle<A: ActionType> {
    shared: Arc<Shared<A>>,
    id: GoalId,
    goal: A::Goal,
}

impl<A: ActionType> fmt::Debug for GoalHandle<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GoalHandle")
            .field("id", &self.id)
            .field("status", &self.status())
            .finish()
    }
}

impl<A: ActionType> GoalHandle<A> {
    /// The goal's id.
    pub fn id(&self) -> GoalId {
        self.id
    }

    /// What the client asked for.
    pub fn goal(&self) -> &A::Goal {
        &self.goal
    }

    /// The goal's state now (`UNKNOWN` once its result expired).
    pub fn status(&self) -> GoalStatus {
        (self.shared.lock().goals.status(&self.id)).unwrap_or(GoalStatus::Unknown)
    }

    /// Whether the goal still runs (accepted, executing or canceling).
    pub fn is_active(&self) -> bool {
        self.status().is_active()
    }

    /// Whether a cancel of the goal was accepted: the code should wind it up and call
    /// [`canceled`](Self::canceled).
    pub fn is_canceling(&self) -> bool {
        self.status() == GoalStatus::Canceling
    }

    /// Starts executing an accepted goal (`EXECUTING`); publishes the status list.
    pub fn execute(&self) -> Result<(), UpdateError> {
        self.shared.update(&self.id, GoalEvent::Execute).map(drop)
    }

    /// Publishes `feedback` for the goal on the feedback topic.
    pub fn publish_feedback(&self, feedback: A::Feedback) {
        self.shared.feedback.publish(wire::FeedbackMessage {
            goal_id: wire::Uuid {
                uuid: *self.id.as_bytes(),
            },
            feedback,
        });
    }

    /// Ends the goal done (`SUCCEEDED`) with `result`.
    pub fn succeed(&self, result: A::Result) -> Result<(), UpdateError> {
        self.shared.end(&self.id, GoalEvent::Succeed, result)
    }

    /// Ends the goal given up (`ABORTED`) with `result`.
    pub fn abort(&self, result: A::Result) -> Result<(), UpdateError> {
        self.shared.end(&self.id, GoalEvent::Abort, result)
    }

    /// Ends a canceling goal (`CANCELED`) with `result`.
    pub fn canceled(&self, result: A::Result) -> Result<(), UpdateError> {
        self.shared.end(&self.id, GoalEvent::Canceled, result)
    }
}

impl<A: ActionType> Drop for GoalHandle<A> {
    fn drop(&mut self) {
        let status = self.shared.lock().goals.status(&self.id);
        if status.is_some_and(GoalStatus::is_cancelable) {
            let _ = self.shared.update(&self.id, GoalEvent::CancelGoal);
        }
        if status.is_some_and(GoalStatus::is_active) {
            let _ = (self.shared).end(&self.id, GoalEvent::Canceled, A::Result::default());
        }
    }
}
