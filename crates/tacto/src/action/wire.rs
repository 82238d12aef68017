//! What an action puts on the wire: `action_msgs`' types, and an action's derived request,
//! response and feedback types with the action's own goal, result and feedback inside.
//!
//! The derived types are written here once for every action, generic over [`ActionType`],
//! rather than taken from the generated `X_SendGoal_Request`...: the server and client need to
//! read and fill their fields (`goal_id`, `goal`, `status`, `result`, `feedback`), which a
//! generated type does not expose to generic code. They carry the generated types' ROS names
//! and hashes, and have their fields in rosidl's order, so their CDR is rosidl's.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use super::action_type::ActionType;
use crate::message::Message;
use crate::msg::builtin_interfaces::Time;
use crate::service::ServiceType;

/// `unique_identifier_msgs/msg/UUID`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Uuid {
    pub(crate) uuid: [u8; 16],
}

/// `action_msgs/msg/GoalInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct GoalInfo {
    pub(crate) goal_id: Uuid,
    pub(crate) stamp: Time,
}

/// `action_msgs/msg/GoalStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct GoalStatus {
    pub(crate) goal_info: GoalInfo,
    pub(crate) status: i8,
}

/// `action_msgs/msg/GoalStatusArray`: the status topic's message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct GoalStatusArray {
    pub(crate) status_list: Vec<GoalStatus>,
}

impl Message for GoalStatusArray {
    const TYPE_NAME: &'static str = "action_msgs/msg/GoalStatusArray";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_6c1684b00f177d37438febe6e709fc4e2b0d4248dca4854946f9ed8b30cda83e");
}

/// `action_msgs/srv/CancelGoal_Request`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct CancelGoalRequest {
    pub(crate) goal_info: GoalInfo,
}

impl Message for CancelGoalRequest {
    const TYPE_NAME: &'static str = "action_msgs/srv/CancelGoal_Request";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_3d3c84653c1f96918086887e1dcb236faec88b81a5b14fd4cf4840065bcdf8af");
}

/// `action_msgs/srv/CancelGoal_Response`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct CancelGoalResponse {
    pub(crate) return_code: i8,
    pub(crate) goals_canceling: Vec<GoalInfo>,
}

impl Message for CancelGoalResponse {
    const TYPE_NAME: &'static str = "action_msgs/srv/CancelGoal_Response";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_35e682cf3f510e83c70a82a4aac888496dedee56773bf9d8e5e0aa81f9e1c960");
}

/// `action_msgs/srv/CancelGoal`.
pub(crate) struct CancelGoal;

impl ServiceType for CancelGoal {
    const TYPE_NAME: &'static str = "action_msgs/srv/CancelGoal";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_573d8b0a534451d7bc2ac8c5ffde8ac14b8593b7001175d0cd6516dcbeb8689a");
    type Request = CancelGoalRequest;
    type Response = CancelGoalResponse;
}

type SendGoalOf<A> = <A as ActionType>::SendGoal;
type GetResultOf<A> = <A as ActionType>::GetResult;

/// `X_SendGoal_Request`: `goal_id`, `goal`.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct SendGoalRequest<A: ActionType> {
    pub(crate) goal_id: Uuid,
    pub(crate) goal: A::Goal,
}

impl<A: ActionType> Message for SendGoalRequest<A> {
    const TYPE_NAME: &'static str = <<SendGoalOf<A> as ServiceType>::Request>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <<SendGoalOf<A> as ServiceType>::Request>::TYPE_HASH;
}

/// `X_SendGoal_Response`: `accepted`, `stamp`.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct SendGoalResponse<A: ActionType> {
    pub(crate) accepted: bool,
    pub(crate) stamp: Time,
    #[serde(skip)]
    pub(crate) action: PhantomData<fn() -> A>,
}

impl<A: ActionType> Message for SendGoalResponse<A> {
    const TYPE_NAME: &'static str = <<SendGoalOf<A> as ServiceType>::Response>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <<SendGoalOf<A> as ServiceType>::Response>::TYPE_HASH;
}

/// `X_SendGoal`.
pub(crate) struct SendGoal<A>(PhantomData<fn() -> A>);

impl<A: ActionType> ServiceType for SendGoal<A> {
    const TYPE_NAME: &'static str = <SendGoalOf<A> as ServiceType>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <SendGoalOf<A> as ServiceType>::TYPE_HASH;
    type Request = SendGoalRequest<A>;
    type Response = SendGoalResponse<A>;
}

/// `X_GetResult_Request`: `goal_id`.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct GetResultRequest<A: ActionType> {
    pub(crate) goal_id: Uuid,
    #[serde(skip)]
    pub(crate) action: PhantomData<fn() -> A>,
}

impl<A: ActionType> Message for GetResultRequest<A> {
    const TYPE_NAME: &'static str = <<GetResultOf<A> as ServiceType>::Request>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <<GetResultOf<A> as ServiceType>::Request>::TYPE_HASH;
}

/// `X_GetResult_Response`: `status`, `result`.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct GetResultResponse<A: ActionType> {
    pub(crate) status: i8,
    pub(crate) result: A::Result,
}

impl<A: ActionType> Message for GetResultResponse<A> {
    const TYPE_NAME: &'static str = <<GetResultOf<A> as ServiceType>::Response>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <<GetResultOf<A> as ServiceType>::Response>::TYPE_HASH;
}

/// `X_GetResult`.
pub(crate) struct GetResult<A>(PhantomData<fn() -> A>);

impl<A: ActionType> ServiceType for GetResult<A> {
    const TYPE_NAME: &'static str = <GetResultOf<A> as ServiceType>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <GetResultOf<A> as ServiceType>::TYPE_HASH;
    type Request = GetResultRequest<A>;
    type Response = GetResultResponse<A>;
}

/// `X_FeedbackMessage`: `goal_id`, `feedback`.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct FeedbackMessage<A: ActionType> {
    pub(crate) goal_id: Uuid,
    pub(crate) feedback: A::Feedback,
}

impl<A: ActionType> Message for FeedbackMessage<A> {
    const TYPE_NAME: &'static str = <A::FeedbackMessage as Message>::TYPE_NAME;
    const TYPE_HASH: Option<&'static str> = <A::FeedbackMessage as Message>::TYPE_HASH;
}
