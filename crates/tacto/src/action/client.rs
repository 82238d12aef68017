//! An action client: sends goals, and is told of their acceptance, feedback, status and result
//! as events its node's code takes, or waits for a goal's end from a plain thread.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::action_type::ActionType;
use super::goals::{CancelCode, GoalId, GoalInfo};
use super::server::{ActionCreateError, resolve, status_qos};
use super::status::GoalStatus;
use super::wire;
use crate::client::{CallError, Client, SendRequestError};
use crate::clock::Time;
use crate::history::History;
use crate::node::Node;
use crate::qos::Qos;
use crate::subscription::Subscription;
use crate::trigger::Trigger;

/// Builds an [`ActionClient`]; from [`Node::action_client`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct ActionClientBuilder<'a, A> {
    node: &'a mut Node,
    name: String,
    max_goals: usize,
    feedback_depth: usize,
    _type: PhantomData<fn() -> A>,
}

impl<'a, A: ActionType> ActionClientBuilder<'a, A> {
    pub(crate) fn new(node: &'a mut Node, name: &str) -> Self {
        ActionClientBuilder {
            node,
            name: name.to_owned(),
            max_goals: 64,
            feedback_depth: 10,
            _type: PhantomData,
        }
    }

    /// How many goals sent with [`ActionClient::send_goal`] the client follows at most, from
    /// sending to result (default 64). Past it `send_goal` refuses
    /// ([`SendGoalError::TooManyGoals`]) until a goal ends or is
    /// [forgotten](ActionClient::forget).
    pub fn max_goals(mut self, max_goals: usize) -> Self {
        self.max_goals = max_goals;
        self
    }

    /// How many feedback messages wait at most (default 10, the feedback topic's QoS depth
    /// in rcl_action); past it the oldest is dropped, counted in
    /// [`ActionClient::dropped_feedback`].
    pub fn feedback_depth(mut self, depth: usize) -> Self {
        self.feedback_depth = depth;
        self
    }

    /// Creates the client: three service clients and two subscriptions under rcl_action's
    /// names. It may exist before its server does.
    pub fn create(self) -> Result<ActionClient<A>, ActionCreateError> {
        if self.max_goals == 0 {
            return Err(ActionCreateError::ZeroBound("max_goals"));
        }
        if self.feedback_depth == 0 {
            return Err(ActionCreateError::ZeroBound("feedback_depth"));
        }
        let node = self.node;
        let names = resolve(node, &self.name)?;
        // Each goal's three answers (goal, result, cancel) fit; a reply past it drops the
        // oldest one not taken, counted by the service client.
        let replies = History::KeepLast(self.max_goals.saturating_mul(2));
        let send_goal = node.client(&names.send_goal()).history(replies).create()?;
        let cancel_goal = node
            .client(&names.cancel_goal())
            .history(replies)
            .create()?;
        let get_result = node.client(&names.get_result()).history(replies).create()?;
        let feedback = node
            .subscription(&names.feedback())
            .qos(Qos::default().history(History::KeepLast(self.feedback_depth)))
            .create()?;
        let status = node
            .subscription(&names.status())
            .qos(status_qos())
            .create()?;
        Ok(ActionClient {
            send_goal,
            cancel_goal,
            get_result,
            feedback,
            status,
            name: names.action().to_owned(),
            state: Mutex::new(State {
                sent: HashMap::new(),
                goals: HashMap::new(),
                results: HashMap::new(),
                to_ask: VecDeque::new(),
                events: VecDeque::new(),
                early: VecDeque::new(),
                early_dropped: 0,
            }),
            max_goals: self.max_goals,
            foreign_feedback: AtomicU64::new(0),
        })
    }
}

/// What happened to the client's goals: from [`ActionClient::take_event`].
pub enum ActionEvent<A: ActionType> {
    /// The server accepted goal `goal` at `stamp`. The client asked for its result.
    Accepted {
        /// The goal.
        goal: GoalId,
        /// When the server accepted it.
        stamp: Time,
    },
    /// The server rejected goal `goal`; the client forgets it.
    Rejected {
        /// The goal.
        goal: GoalId,
    },
    /// A feedback of goal `goal`, in the order the server published them.
    Feedback {
        /// The goal.
        goal: GoalId,
        /// The feedback.
        feedback: A::Feedback,
    },
    /// Goal `goal`'s state changed on the status topic.
    Status {
        /// The goal.
        goal: GoalId,
        /// Its new state.
        status: GoalStatus,
    },
    /// Goal `goal` ended: its final state and result. The client forgets it.
    Result {
        /// The goal.
        goal: GoalId,
        /// `SUCCEEDED`, `ABORTED` or `CANCELED` (`UNKNOWN` if the server no longer knew it).
        status: GoalStatus,
        /// The result.
        result: A::Result,
    },
    /// The server's answer to a cancel request.
    Canceling {
        /// `ERROR_NONE`, or why nothing is canceling.
        code: CancelCode,
        /// The goals now canceling.
        goals: Vec<GoalInfo>,
    },
}

impl<A: ActionType> ActionEvent<A> {
    /// The one goal the event is about; `None` for a cancel answer.
    fn goal(&self) -> Option<GoalId> {
        match self {
            ActionEvent::Accepted { goal, .. }
            | ActionEvent::Rejected { goal }
            | ActionEvent::Feedback { goal, .. }
            | ActionEvent::Status { goal, .. }
            | ActionEvent::Result { goal, .. } => Some(*goal),
            ActionEvent::Canceling { .. } => None,
        }
    }
}

/// A goal's end, from [`ActionClient::send_goal_and_wait`].
pub struct GoalOutcome<A: ActionType> {
    /// The goal's id.
    pub goal: GoalId,
    /// `SUCCEEDED`, `ABORTED` or `CANCELED`.
    pub status: GoalStatus,
    /// The result.
    pub result: A::Result,
}

// By hand: derived, they would ask the action's marker type, not its parts, for the traits.
impl<A: ActionType> Clone for ActionEvent<A> {
    fn clone(&self) -> Self {
        match self {
            ActionEvent::Accepted { goal, stamp } => ActionEvent::Accepted {
                goal: *goal,
                stamp: *stamp,
            },
            ActionEvent::Rejected { goal } => ActionEvent::Rejected { goal: *goal },
            ActionEvent::Feedback { goal, feedback } => ActionEvent::Feedback {
                goal: *goal,
                feedback: feedback.clone(),
            },
            ActionEvent::Status { goal, status } => ActionEvent::Status {
                goal: *goal,
                status: *status,
            },
            ActionEvent::Result {
                goal,
                status,
                result,
            } => ActionEvent::Result {
                goal: *goal,
                status: *status,
                result: result.clone(),
            },
            ActionEvent::Canceling { code, goals } => ActionEvent::Canceling {
                code: *code,
                goals: goals.clone(),
            },
        }
    }
}

impl<A: ActionType> fmt::Debug for ActionEvent<A>
where
    A::Feedback: fmt::Debug,
    A::Result: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionEvent::Accepted { goal, stamp } => (f.debug_struct("Accepted"))
                .field("goal", goal)
                .field("stamp", stamp)
                .finish(),
            ActionEvent::Rejected { goal } => {
                f.debug_struct("Rejected").field("goal", goal).finish()
            }
            ActionEvent::Feedback { goal, feedback } => (f.debug_struct("Feedback"))
                .field("goal", goal)
                .field("feedback", feedback)
                .finish(),
            ActionEvent::Status { goal, status } => (f.debug_struct("Status"))
                .field("goal", goal)
                .field("status", status)
                .finish(),
            ActionEvent::Result {
                goal,
                status,
                result,
            } => (f.debug_struct("Result"))
                .field("goal", goal)
                .field("status", status)
                .field("result", result)
                .finish(),
            ActionEvent::Canceling { code, goals } => (f.debug_struct("Canceling"))
                .field("code", code)
                .field("goals", goals)
                .finish(),
        }
    }
}

impl<A: ActionType> PartialEq for ActionEvent<A>
where
    A::Feedback: PartialEq,
    A::Result: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        use ActionEvent as E;
        match (self, other) {
            (E::Accepted { goal: a, stamp: s }, E::Accepted { goal: b, stamp: t }) => {
                a == b && s == t
            }
            (E::Rejected { goal: a }, E::Rejected { goal: b }) => a == b,
            (
                E::Feedback {
                    goal: a,
                    feedback: x,
                },
                E::Feedback {
                    goal: b,
                    feedback: y,
                },
            ) => a == b && x == y,
            (E::Status { goal: a, status: x }, E::Status { goal: b, status: y }) => {
                a == b && x == y
            }
            (
                E::Result {
                    goal: a,
                    status: s,
                    result: x,
                },
                E::Result {
                    goal: b,
                    status: t,
                    result: y,
                },
            ) => a == b && s == t && x == y,
            (E::Canceling { code: a, goals: x }, E::Canceling { code: b, goals: y }) => {
                a == b && x == y
            }
            _ => false,
        }
    }
}

impl<A: ActionType> Clone for GoalOutcome<A> {
    fn clone(&self) -> Self {
        GoalOutcome {
            goal: self.goal,
            status: self.status,
            result: self.result.clone(),
        }
    }
}

impl<A: ActionType> fmt::Debug for GoalOutcome<A>
where
    A::Result: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GoalOutcome")
            .field("goal", &self.goal)
            .field("status", &self.status)
            .field("result", &self.result)
            .finish()
    }
}

impl<A: ActionType> PartialEq for GoalOutcome<A>
where
    A::Result: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        self.goal == other.goal && self.status == other.status && self.result == other.result
    }
}

/// What is left of `timeout` from now, each time it is called; a timeout too long for the
/// clock (such as `Duration::MAX`) never runs out.
fn time_left(timeout: Duration) -> impl Fn() -> Duration {
    let deadline = Instant::now().checked_add(timeout);
    move || {
        deadline.map_or(Duration::MAX, |d| {
            d.saturating_duration_since(Instant::now())
        })
    }
}

/// A `CancelGoal` answer as the client reports it: its code, and the goals now canceling.
fn canceling(response: &wire::CancelGoalResponse) -> (CancelCode, Vec<GoalInfo>) {
    let code = CancelCode::from_id(response.return_code);
    let goals = (response.goals_canceling.iter())
        .map(|info| GoalInfo {
            id: GoalId::from_bytes(info.goal_id.uuid),
            stamp: Time::from(info.stamp),
        })
        .collect();
    (code, goals)
}

/// Why a goal could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SendGoalError {
    /// The client follows as many goals as it may ([`ActionClientBuilder::max_goals`]).
    #[error("the action client already follows {0} goals, its bound")]
    TooManyGoals(usize),
    /// No random goal id could be had from the kernel.
    #[error("no random goal id: {0}")]
    Random(#[from] std::io::Error),
    /// The request could not be sent (no server, ...).
    #[error(transparent)]
    Send(#[from] SendRequestError),
}

/// Why a blocking goal did not end with an outcome.
#[derive(Debug, thiserror::Error)]
pub enum ActionCallError {
    /// No random goal id could be had from the kernel.
    #[error("no random goal id: {0}")]
    Random(#[from] std::io::Error),
    /// A request failed or timed out (its service names which).
    #[error(transparent)]
    Call(#[from] CallError),
    /// The server rejected the goal.
    #[error("the action server rejected goal {0}")]
    Rejected(GoalId),
}

struct State<A: ActionType> {
    /// Goals sent and not answered yet, by the sequence of their goal request.
    sent: HashMap<i64, GoalId>,
    /// Goals followed (sent or accepted, not ended), with the last state seen.
    goals: HashMap<GoalId, GoalStatus>,
    /// Result requests sent, by sequence.
    results: HashMap<i64, GoalId>,
    /// Accepted goals whose result request waits to be sent, oldest first: while the link
    /// keeps as many requests in flight as it can (shared memory: `tacto_shm::MAX_IN_FLIGHT`),
    /// one more would make it forget the oldest, a result lost. Sent as results come back.
    to_ask: VecDeque<GoalId>,
    /// Events made by the last drain, not yet taken.
    events: VecDeque<ActionEvent<A>>,
    /// Feedback and status changes of goals sent and not answered yet, oldest first: feedback
    /// travels on a topic and the answer on a service, so feedback can arrive first. Held
    /// until the answer, and queued after it (or passed over if the goal was rejected); at
    /// most [`EARLY`], past which the oldest is dropped and counted in
    /// [`ActionClient::dropped_feedback`].
    early: VecDeque<ActionEvent<A>>,
    /// Early events dropped because `early` was full.
    early_dropped: u64,
}

/// Events of goals not answered yet that a client holds (see `State::early`).
const EARLY: usize = 64;

/// Sends goals to one action server and follows them: rclcpp_action's `Client`.
///
/// Created from a node ([`Node::action_client`]) under rcl_action's names and QoS. Two ways
/// to use it:
/// - **in a node**: [`send_goal`](Self::send_goal) never blocks; a
///   [`trigger`](Self::trigger) runs the node's code when an answer, a feedback or a status
///   arrives, and the code takes them as [`ActionEvent`]s with
///   [`take_event`](Self::take_event). On acceptance the client asks for the goal's result
///   itself, so the result comes as an event when the goal ends.
/// - **from a plain thread**: [`send_goal_and_wait`](Self::send_goal_and_wait) blocks until
///   the goal ends, at most a timeout.
///
/// Goal ids are random version 4 UUIDs. Bounded: at most
/// [`max_goals`](ActionClientBuilder::max_goals) goals followed, a feedback queue of
/// [`feedback_depth`](ActionClientBuilder::feedback_depth), a status of depth 1.
///
/// # Examples
/// A node run by its client's events, with a server in the same process that ends each goal
/// at once:
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
/// use tacto::action::{ActionEvent, GoalStatus};
/// use tacto::{Context, Executor, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut server_node = ctx.node("counter").unwrap();
/// let server = server_node.action_server::<Count>("count").create().unwrap();
/// server_node
///     .execute(server.trigger(), move |_| {
///         while let Some(request) = server.take_goal() {
///             let up_to = request.goal().up_to;
///             let handle = request.accept().unwrap();
///             handle.execute().unwrap();
///             handle.publish_feedback(Feedback { now: up_to });
///             handle.succeed(Result { reached: up_to }).unwrap();
///         }
///     })
///     .unwrap();
///
/// let mut node = ctx.node("caller").unwrap();
/// let client = std::sync::Arc::new(node.action_client::<Count>("count").create().unwrap());
/// let mut executor = WaitSetExecutor::new().unwrap();
/// let stop = executor.stop_handle();
/// let (ended, outcome) = std::sync::mpsc::channel();
/// let events = client.clone();
/// node.execute(client.trigger(), move |_| {
///     while let Some(event) = events.take_event() {
///         if let ActionEvent::Result { status, result, .. } = event {
///             ended.send((status, result.reached)).unwrap();
///             stop.stop();
///         }
///     }
/// })
/// .unwrap();
/// client.send_goal(Goal { up_to: 7 }).unwrap();
/// executor.add(server_node).unwrap();
/// executor.add(node).unwrap();
/// executor.spin_for(Duration::from_secs(30)).unwrap();
/// assert_eq!(outcome.try_recv(), Ok((GoalStatus::Succeeded, 7)));
/// ```
pub struct ActionClient<A: ActionType> {
    send_goal: Client<wire::SendGoal<A>>,
    cancel_goal: Client<wire::CancelGoal>,
    get_result: Client<wire::GetResult<A>>,
    feedback: Subscription<wire::FeedbackMessage<A>>,
    status: Subscription<wire::GoalStatusArray>,
    name: String,
    state: Mutex<State<A>>,
    max_goals: usize,
    foreign_feedback: AtomicU64,
}

impl<A: ActionType> fmt::Debug for ActionClient<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActionClient")
            .field("action", &self.name)
            .field("type", &A::TYPE_NAME)
            .finish()
    }
}

impl<A: ActionType> ActionClient<A> {
    fn lock(&self) -> MutexGuard<'_, State<A>> {
        // Each change is made under one lock after its checks: a panic elsewhere left it whole.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A trigger that runs code when an answer (goal, result, cancel), a feedback or a status
    /// arrives.
    pub fn trigger(&self) -> Trigger {
        Trigger::any()
            .with_responses(&self.send_goal)
            .with_responses(&self.get_result)
            .with_responses(&self.cancel_goal)
            .with(&self.feedback)
            .with(&self.status)
    }

    /// Whether the action's server is there: its three services are ready.
    pub fn server_is_ready(&self) -> bool {
        self.send_goal.service_is_ready()
            && self.cancel_goal.service_is_ready()
            && self.get_result.service_is_ready()
    }

    /// Blocks until the server is there, at most `timeout`; false if it did not come.
    pub fn wait_for_server(&self, timeout: Duration) -> bool {
        let left = time_left(timeout);
        self.send_goal.wait_for_service(left())
            && self.cancel_goal.wait_for_service(left())
            && self.get_result.wait_for_service(left())
    }

    /// Sends `goal` under a new random id, and returns the id; never blocks. Its acceptance
    /// or rejection, feedback, status and result come as events
    /// ([`take_event`](Self::take_event)).
    pub fn send_goal(&self, goal: A::Goal) -> Result<GoalId, SendGoalError> {
        self.send_goal_with_id(GoalId::random()?, goal)
    }

    /// Sends `goal` under id `id`, as [`send_goal`](Self::send_goal) does: for tools and
    /// tests that choose ids. A server refuses an id it holds already.
    pub fn send_goal_with_id(&self, id: GoalId, goal: A::Goal) -> Result<GoalId, SendGoalError> {
        let mut state = self.lock();
        if state.goals.len() >= self.max_goals {
            return Err(SendGoalError::TooManyGoals(self.max_goals));
        }
        let request = wire::SendGoalRequest {
            goal_id: wire::Uuid {
                uuid: *id.as_bytes(),
            },
            goal,
        };
        let sent = self.send_goal.send_request(request)?;
        state.sent.insert(sent.sequence, id);
        state.goals.entry(id).or_insert(GoalStatus::Unknown);
        Ok(id)
    }

    /// Asks the server to cancel goal `id`; never blocks. The answer comes as
    /// [`ActionEvent::Canceling`].
    pub fn cancel_goal(&self, id: GoalId) -> Result<(), SendRequestError> {
        self.cancel(id, Time::ZERO)
    }

    /// Asks the server to cancel every goal (of every client); never blocks.
    pub fn cancel_all_goals(&self) -> Result<(), SendRequestError> {
        self.cancel(GoalId::ZERO, Time::ZERO)
    }

    /// Asks the server to cancel every goal accepted at or before `stamp`; never blocks.
    pub fn cancel_goals_before(&self, stamp: Time) -> Result<(), SendRequestError> {
        self.cancel(GoalId::ZERO, stamp)
    }

    fn cancel(&self, id: GoalId, stamp: Time) -> Result<(), SendRequestError> {
        let request = wire::CancelGoalRequest {
            goal_info: wire::GoalInfo {
                goal_id: wire::Uuid {
                    uuid: *id.as_bytes(),
                },
                stamp: stamp.into(),
            },
        };
        self.cancel_goal.send_request(request).map(drop)
    }

    /// Stops following goal `id` (a server that vanished will never end it): its events
    /// are no longer made, and it no longer counts against the bound.
    pub fn forget(&self, id: &GoalId) {
        let mut state = self.lock();
        state.goals.remove(id);
        state.sent.retain(|_, goal| goal != id);
        state.results.retain(|_, goal| goal != id);
        state.to_ask.retain(|goal| goal != id);
    }

    /// Goals followed now, sent and not ended.
    pub fn goals(&self) -> usize {
        self.lock().goals.len()
    }

    /// Feedback messages dropped because the queue was full, since creation: the
    /// subscription's, and the one holding what arrived before its goal's answer.
    pub fn dropped_feedback(&self) -> u64 {
        self.feedback.dropped() + self.lock().early_dropped
    }

    /// Feedback messages of goals this client does not follow (another client's), passed
    /// over, since creation.
    pub fn foreign_feedback(&self) -> u64 {
        self.foreign_feedback.load(Ordering::Relaxed)
    }

    /// The oldest event not taken yet: answers to goals and cancel requests, feedback of
    /// this client's goals, changes of their state, results. Never blocks.
    pub fn take_event(&self) -> Option<ActionEvent<A>> {
        let mut state = self.lock();
        if state.events.is_empty() {
            self.drain(&mut state);
        }
        state.events.pop_front()
    }

    /// Moves what arrived into events, in the order of a goal's life: answers to goals,
    /// status, feedback, cancel answers, results. Bounded by the queues it drains.
    fn drain(&self, state: &mut State<A>) {
        let push = |state: &mut State<A>, event| state.events.push_back(event);
        let hold = |state: &mut State<A>, event| {
            if state.early.len() == EARLY {
                state.early.pop_front();
                state.early_dropped += 1;
            }
            state.early.push_back(event);
        };
        while let Some((request, response)) = self.send_goal.take_response() {
            let Some(goal) = state.sent.remove(&request.sequence) else {
                continue;
            };
            if !response.accepted {
                state.goals.remove(&goal);
                state.early.retain(|event| event.goal() != Some(goal));
                push(state, ActionEvent::Rejected { goal });
                continue;
            }
            let stamp = Time::from(response.stamp);
            state.goals.insert(goal, GoalStatus::Accepted);
            push(state, ActionEvent::Accepted { goal, stamp });
            state.to_ask.push_back(goal);
            // What arrived before the answer follows it, in arrival order.
            while let Some(place) = state.early.iter().position(|e| e.goal() == Some(goal)) {
                let Some(event) = state.early.remove(place) else {
                    break;
                };
                match event {
                    ActionEvent::Status { status, .. } => {
                        if state.goals.insert(goal, status) != Some(status) {
                            push(state, event);
                        }
                    }
                    event => push(state, event),
                }
            }
        }
        self.ask_results(state);
        while let Some(sample) = self.status.take() {
            for status in &sample.status_list {
                let goal = GoalId::from_bytes(status.goal_info.goal_id.uuid);
                let Some(seen) = state.goals.get_mut(&goal) else {
                    continue;
                };
                let now = GoalStatus::from_id(status.status).unwrap_or(GoalStatus::Unknown);
                if *seen == GoalStatus::Unknown {
                    // Sent, not answered yet.
                    hold(state, ActionEvent::Status { goal, status: now });
                } else if *seen != now {
                    *seen = now;
                    push(state, ActionEvent::Status { goal, status: now });
                }
            }
        }
        while let Some(sample) = self.feedback.take() {
            let goal = GoalId::from_bytes(sample.goal_id.uuid);
            if !state.goals.contains_key(&goal) {
                self.foreign_feedback.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let feedback = sample.feedback.clone();
            let event = ActionEvent::Feedback { goal, feedback };
            match state.goals.get(&goal) {
                Some(GoalStatus::Unknown) => hold(state, event),
                _ => push(state, event),
            }
        }
        while let Some((_, response)) = self.cancel_goal.take_response() {
            let (code, goals) = canceling(&response);
            push(state, ActionEvent::Canceling { code, goals });
        }
        while let Some((request, response)) = self.get_result.take_response() {
            let Some(goal) = state.results.remove(&request.sequence) else {
                continue;
            };
            state.goals.remove(&goal);
            let status = GoalStatus::from_id(response.status).unwrap_or(GoalStatus::Unknown);
            let result = response.result;
            push(
                state,
                ActionEvent::Result {
                    goal,
                    status,
                    result,
                },
            );
        }
        // Results that came back freed places in flight.
        self.ask_results(state);
    }

    /// Sends the result requests of accepted goals, oldest first, as long as the link has
    /// room for them in flight. A request that cannot be sent (a server gone between its
    /// answer and this) is tried again at the next drain.
    fn ask_results(&self, state: &mut State<A>) {
        let room = self.get_result.in_flight_limit().unwrap_or(usize::MAX);
        while state.results.len() < room {
            let Some(&goal) = state.to_ask.front() else {
                return;
            };
            let request = wire::GetResultRequest {
                goal_id: wire::Uuid {
                    uuid: *goal.as_bytes(),
                },
                action: PhantomData,
            };
            match self.get_result.send_request(request) {
                Ok(sent) => {
                    state.to_ask.pop_front();
                    state.results.insert(sent.sequence, goal);
                }
                Err(_) => return,
            }
        }
    }

    /// Sends `goal` and blocks until it ends, at most `timeout` in all: for plain code and
    /// tests, never from the code of an executor that runs the server (see
    /// [`Client::call`]). Its feedback is not kept.
    pub fn send_goal_and_wait(
        &self,
        goal: A::Goal,
        timeout: Duration,
    ) -> Result<GoalOutcome<A>, ActionCallError> {
        let left = time_left(timeout);
        let id = GoalId::random()?;
        let goal_id = wire::Uuid {
            uuid: *id.as_bytes(),
        };
        let request = wire::SendGoalRequest { goal_id, goal };
        if !self.send_goal.call(request, left())?.accepted {
            return Err(ActionCallError::Rejected(id));
        }
        let request = wire::GetResultRequest {
            goal_id,
            action: PhantomData,
        };
        let response = self.get_result.call(request, left())?;
        Ok(GoalOutcome {
            goal: id,
            status: GoalStatus::from_id(response.status).unwrap_or(GoalStatus::Unknown),
            result: response.result,
        })
    }

    /// Asks for goal `id`'s result and blocks until it comes, at most `timeout`: the goal's
    /// end, or `UNKNOWN` for a goal the server does not hold (never sent, or expired).
    pub fn get_result_and_wait(
        &self,
        id: GoalId,
        timeout: Duration,
    ) -> Result<GoalOutcome<A>, CallError> {
        let request = wire::GetResultRequest {
            goal_id: wire::Uuid {
                uuid: *id.as_bytes(),
            },
            action: PhantomData,
        };
        let response = self.get_result.call(request, timeout)?;
        Ok(GoalOutcome {
            goal: id,
            status: GoalStatus::from_id(response.status).unwrap_or(GoalStatus::Unknown),
            result: response.result,
        })
    }

    /// Asks the server to cancel goal `id` and blocks for its answer, at most `timeout`:
    /// the code, and the goals now canceling.
    pub fn cancel_goal_and_wait(
        &self,
        id: GoalId,
        timeout: Duration,
    ) -> Result<(CancelCode, Vec<GoalInfo>), CallError> {
        let request = wire::CancelGoalRequest {
            goal_info: wire::GoalInfo {
                goal_id: wire::Uuid {
                    uuid: *id.as_bytes(),
                },
                stamp: Default::default(),
            },
        };
        let response = self.cancel_goal.call(request, timeout)?;
        Ok(canceling(&response))
    }

    /// The action's resolved name, e.g. `/fibonacci`.
    pub fn name(&self) -> &str {
        &self.name
    }
}
