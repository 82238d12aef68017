//! The type of an action: what an `.action` file defines and what ROS 2 derives from it.

use crate::message::Message;
use crate::service::ServiceType;

/// An action type: the goal, result and feedback messages of an `.action` file under one ROS 2
/// name (`package/action/Type`), and the services and message ROS 2 derives from them, which
/// carry an action on the wire.
///
/// By rosidl's convention, for an action `package/action/X`:
/// - `X_Goal`, `X_Result` and `X_Feedback` are the three parts of the file;
/// - `X_SendGoal` is the service a client sends a goal with (request `goal_id`
///   (`unique_identifier_msgs/msg/UUID`) and `goal`; response `accepted` and `stamp`);
/// - `X_GetResult` is the service a client asks for a goal's result with (request `goal_id`;
///   response `status`, an `action_msgs/msg/GoalStatus` status, and `result`);
/// - `X_FeedbackMessage` is what the server publishes as feedback (`goal_id` and `feedback`).
///
/// All are named `package/action/X_<part>`. `tacto-msggen` generates them, and this trait's
/// implementation, from the `.action` file.
///
/// # Examples
/// With types written by hand (a generated action has the same shape):
/// ```
/// use tacto::serde::{Deserialize, Serialize};
/// use tacto::{ActionType, Message, ServiceType};
///
/// macro_rules! message {
///     ($name:ident, $ros:literal, { $($field:ident: $ty:ty),* }) => {
///         #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
///         #[serde(crate = "tacto::serde")]
///         pub struct $name { $(pub $field: $ty),* }
///         impl Message for $name {
///             const TYPE_NAME: &'static str = $ros;
///         }
///     };
/// }
/// message!(Goal, "demo_msgs/action/Count_Goal", { up_to: i32 });
/// message!(Result, "demo_msgs/action/Count_Result", { reached: i32 });
/// message!(Feedback, "demo_msgs/action/Count_Feedback", { now: i32 });
/// message!(SendGoalRequest, "demo_msgs/action/Count_SendGoal_Request", { goal_id: [u8; 16], goal: Goal });
/// message!(SendGoalResponse, "demo_msgs/action/Count_SendGoal_Response", { accepted: bool, stamp: tacto::msg::builtin_interfaces::Time });
/// message!(GetResultRequest, "demo_msgs/action/Count_GetResult_Request", { goal_id: [u8; 16] });
/// message!(GetResultResponse, "demo_msgs/action/Count_GetResult_Response", { status: i8, result: Result });
/// message!(FeedbackMessage, "demo_msgs/action/Count_FeedbackMessage", { goal_id: [u8; 16], feedback: Feedback });
///
/// pub struct SendGoal;
/// impl ServiceType for SendGoal {
///     const TYPE_NAME: &'static str = "demo_msgs/action/Count_SendGoal";
///     type Request = SendGoalRequest;
///     type Response = SendGoalResponse;
/// }
/// pub struct GetResult;
/// impl ServiceType for GetResult {
///     const TYPE_NAME: &'static str = "demo_msgs/action/Count_GetResult";
///     type Request = GetResultRequest;
///     type Response = GetResultResponse;
/// }
///
/// pub struct Count;
/// impl ActionType for Count {
///     const TYPE_NAME: &'static str = "demo_msgs/action/Count";
///     type Goal = Goal;
///     type Result = Result;
///     type Feedback = Feedback;
///     type SendGoal = SendGoal;
///     type GetResult = GetResult;
///     type FeedbackMessage = FeedbackMessage;
/// }
///
/// fn send_goal_service<A: ActionType>() -> &'static str {
///     <A::SendGoal as ServiceType>::TYPE_NAME
/// }
/// assert_eq!(send_goal_service::<Count>(), "demo_msgs/action/Count_SendGoal");
/// ```
pub trait ActionType: Send + Sync + 'static {
    /// The ROS 2 type name, `package/action/Type`, e.g. `example_interfaces/action/Fibonacci`.
    const TYPE_NAME: &'static str;
    /// The ROS 2 type hash of the action, `RIHS01_<64 hex>`, if known (see
    /// [`Message::TYPE_HASH`]); it covers every type below.
    const TYPE_HASH: Option<&'static str> = None;
    /// What a client asks for: `Type_Goal`. Its default stands in for a goal handed on.
    type Goal: Message + Default;
    /// What the server answers when a goal ends: `Type_Result`. Cloned for each result
    /// request; its default is the result of a goal the server does not know, or of one whose
    /// handle was dropped while it ran.
    type Result: Message + Clone + Default;
    /// What the server sends while it works on a goal: `Type_Feedback`. Cloned out of the
    /// shared sample a client takes.
    type Feedback: Message + Clone;
    /// The service a client sends a goal with: `Type_SendGoal`.
    type SendGoal: ServiceType;
    /// The service a client asks for a goal's result with: `Type_GetResult`.
    type GetResult: ServiceType;
    /// A feedback with its goal's id, as the server publishes it: `Type_FeedbackMessage`.
    type FeedbackMessage: Message;
}
