//! `example_interfaces/action/Fibonacci`, written out for this crate's action tests: tacto's
//! own tests cannot use the generated type of `tacto-msgs`, which depends on `tacto`.

use tacto::serde::{Deserialize, Serialize};
use tacto::{ActionType, Message, ServiceType};

macro_rules! message {
    ($name:ident, $ros:literal, { $($field:ident: $ty:ty),* }) => {
        #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(crate = "tacto::serde")]
        pub struct $name { $(pub $field: $ty),* }
        impl Message for $name {
            const TYPE_NAME: &'static str = $ros;
        }
    };
}

// example_interfaces/action/Fibonacci's shape.
message!(Goal, "example_interfaces/action/Fibonacci_Goal", { order: i32 });
message!(FibResult, "example_interfaces/action/Fibonacci_Result", { sequence: Vec<i32> });
message!(Feedback, "example_interfaces/action/Fibonacci_Feedback", { sequence: Vec<i32> });
message!(SendGoalRequest, "example_interfaces/action/Fibonacci_SendGoal_Request", { goal_id: [u8; 16], goal: Goal });
message!(SendGoalResponse, "example_interfaces/action/Fibonacci_SendGoal_Response", { accepted: bool, stamp: tacto::msg::builtin_interfaces::Time });
message!(GetResultRequest, "example_interfaces/action/Fibonacci_GetResult_Request", { goal_id: [u8; 16] });
message!(GetResultResponse, "example_interfaces/action/Fibonacci_GetResult_Response", { status: i8, result: FibResult });
message!(FeedbackMessage, "example_interfaces/action/Fibonacci_FeedbackMessage", { goal_id: [u8; 16], feedback: Feedback });

pub struct SendGoal;
impl ServiceType for SendGoal {
    const TYPE_NAME: &'static str = "example_interfaces/action/Fibonacci_SendGoal";
    type Request = SendGoalRequest;
    type Response = SendGoalResponse;
}
pub struct GetResult;
impl ServiceType for GetResult {
    const TYPE_NAME: &'static str = "example_interfaces/action/Fibonacci_GetResult";
    type Request = GetResultRequest;
    type Response = GetResultResponse;
}
pub struct Fibonacci;
impl ActionType for Fibonacci {
    const TYPE_NAME: &'static str = "example_interfaces/action/Fibonacci";
    type Goal = Goal;
    type Result = FibResult;
    type Feedback = Feedback;
    type SendGoal = SendGoal;
    type GetResult = GetResult;
    type FeedbackMessage = FeedbackMessage;
}

/// The Fibonacci sequence up to element `order`, as the tutorials' server computes it.
pub fn fibonacci(order: usize) -> Vec<i32> {
    let mut sequence = vec![0, 1];
    while sequence.len() <= order {
        let n = sequence.len();
        sequence.push(sequence[n - 1] + sequence[n - 2]);
    }
    sequence
}
