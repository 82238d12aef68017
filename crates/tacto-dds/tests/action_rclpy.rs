//! tacto's actions on the ROS 2 graph, against rclpy's `ActionServer` and `ActionClient` on the
//! real rmw_cyclonedds (`tests/rclpy/fibonacci_action.py`): goals with feedback, a rejected
//! goal, a cancel, a result fetched after its goal ended, both ways; and the status and
//! feedback topics against rclpy on Fast DDS; and a goal request cut short, from the PyPI
//! `cyclonedds` package (`tests/cyclonedds/action_malformed_goal.py`). Domains 96-98, 100.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tacto::action::{ActionClient, ActionEvent, ActionServer, CancelCode, GoalHandle, GoalStatus};
use tacto::{ActionType, Context, Executor, ExecutorThread, Message, ServiceType, WaitSetExecutor};
use tacto_dds::DdsTransport;

mod support;
use support::{PATIENCE, RclpyNode, loopback_participant, rclpy_on_cyclone};

macro_rules! message {
    ($name:ident, $ros:literal, { $($field:ident: $ty:ty),* }) => {
        #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(crate = "tacto::serde")]
        struct $name { $($field: $ty),* }
        impl Message for $name {
            const TYPE_NAME: &'static str = $ros;
        }
    };
}

// test_msgs/action/Fibonacci (ROS 2 Jazzy's test_msgs, in the venv's wheels), written out.
message!(Goal, "test_msgs/action/Fibonacci_Goal", { order: i32 });
message!(FibResult, "test_msgs/action/Fibonacci_Result", { sequence: Vec<i32> });
message!(Feedback, "test_msgs/action/Fibonacci_Feedback", { sequence: Vec<i32> });
message!(SendGoalRequest, "test_msgs/action/Fibonacci_SendGoal_Request", { goal_id: [u8; 16], goal: Goal });
message!(SendGoalResponse, "test_msgs/action/Fibonacci_SendGoal_Response", { accepted: bool, stamp: tacto::msg::builtin_interfaces::Time });
message!(GetResultRequest, "test_msgs/action/Fibonacci_GetResult_Request", { goal_id: [u8; 16] });
message!(GetResultResponse, "test_msgs/action/Fibonacci_GetResult_Response", { status: i8, result: FibResult });
message!(FeedbackMessage, "test_msgs/action/Fibonacci_FeedbackMessage", { goal_id: [u8; 16], feedback: Feedback });

struct SendGoal;
impl ServiceType for SendGoal {
    const TYPE_NAME: &'static str = "test_msgs/action/Fibonacci_SendGoal";
    type Request = SendGoalRequest;
    type Response = SendGoalResponse;
}
struct GetResult;
impl ServiceType for GetResult {
    const TYPE_NAME: &'static str = "test_msgs/action/Fibonacci_GetResult";
    type Request = GetResultRequest;
    type Response = GetResultResponse;
}
struct Fibonacci;
impl ActionType for Fibonacci {
    const TYPE_NAME: &'static str = "test_msgs/action/Fibonacci";
    type Goal = Goal;
    type Result = FibResult;
    type Feedback = Feedback;
    type SendGoal = SendGoal;
    type GetResult = GetResult;
    type FeedbackMessage = FeedbackMessage;
}

fn dds_context(domain: u32) -> Context {
    Context::builder()
        .transport(DdsTransport::new(loopback_participant(domain)))
        .create()
}

/// The tacto twin of `fibonacci_action.py server`: an order above 40 is rejected, cancels are
/// accepted, order 0 holds until canceled, others add a number (and publish it as feedback)
/// every 10 ms run of the node, then succeed.
fn serve_fibonacci(ctx: &Context) -> ExecutorThread<WaitSetExecutor> {
    serve_fibonacci_counted(ctx).0
}

/// As [`serve_fibonacci`], with the server, for its counters.
fn serve_fibonacci_counted(
    ctx: &Context,
) -> (
    ExecutorThread<WaitSetExecutor>,
    Arc<ActionServer<Fibonacci>>,
) {
    let mut node = ctx.node("fibonacci_server").expect("node");
    let server = (node.action_server::<Fibonacci>("fibonacci").create()).expect("server");
    let server = Arc::new(server);
    let counted = server.clone();
    let mut running: Vec<(GoalHandle<Fibonacci>, Vec<i32>)> = Vec::new();
    node.wall_timer(Duration::from_millis(10), move |_| {
        while let Some(request) = server.take_goal() {
            if request.goal().order > 40 {
                request.reject();
            } else if let Ok(handle) = request.accept() {
                handle.execute().expect("accepted goals execute");
                running.push((handle, vec![0, 1]));
            }
        }
        while let Some(cancel) = server.take_cancel() {
            cancel.decide(|_| true);
        }
        for (handle, sequence) in &mut running {
            let order = handle.goal().order as usize;
            if handle.is_canceling() {
                let result = FibResult {
                    sequence: sequence.clone(),
                };
                handle
                    .canceled(result)
                    .expect("canceling goals end canceled");
            } else if order == 0 {
                continue;
            } else if sequence.len() <= order {
                let n = sequence.len();
                sequence.push(sequence[n - 1] + sequence[n - 2]);
                let feedback = Feedback {
                    sequence: sequence.clone(),
                };
                handle.publish_feedback(feedback);
            } else {
                let result = FibResult {
                    sequence: sequence.clone(),
                };
                handle.succeed(result).expect("executing goals succeed");
            }
        }
        running.retain(|(handle, _)| handle.is_active());
    })
    .expect("timer");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(node).expect("add");
    let running = ExecutorThread::builder().spawn(executor).expect("spawn");
    (running, counted)
}

fn lines_until(peer: &RclpyNode, last: &str) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    let mut lines = Vec::new();
    loop {
        match peer.next_line(deadline) {
            Some(line) if line == last => return lines,
            Some(line) => lines.push(line),
            None => panic!(
                "no {last:?} line from the peer; it said {lines:?} and on stderr:\n{}",
                peer.stderr()
            ),
        }
    }
}

#[test]
fn a_tacto_server_serves_rclpy_clients_goals_feedback_rejects_cancels_and_late_results() {
    const TEST: &str =
        "a_tacto_server_serves_rclpy_clients_goals_feedback_rejects_cancels_and_late_results";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let ctx = dds_context(96);
    let running = serve_fibonacci(&ctx);
    let peer = rclpy.spawn("fibonacci_action.py", 96, &["client", "fibonacci"]);
    let lines = lines_until(&peer, "done");
    let after_ready = &lines[lines.iter().position(|l| l == "ready").expect("ready")..];
    let feedback: Vec<usize> = (after_ready.iter())
        .filter_map(|l| l.strip_prefix("feedback ")?.parse().ok())
        .collect();
    // Order 5: sequences of 3 to 6 numbers, in the order published (a first one may be
    // published before rclpy's subscription matched; rclpy drops none after).
    assert!(!feedback.is_empty(), "{lines:?}");
    assert!(
        feedback.windows(2).all(|w| w[1] == w[0] + 1),
        "{feedback:?}"
    );
    assert_eq!(feedback.last(), Some(&6), "{lines:?}");
    let rest: Vec<&str> = (after_ready.iter())
        .filter(|l| !l.starts_with("feedback ") && *l != "ready")
        .map(String::as_str)
        .collect();
    assert_eq!(
        rest,
        [
            "result 4 0,1,1,2,3,5",
            "rejected",
            "cancel 0 1",
            "result 5 0,1",
            "late 4 0,1,1,2",
        ]
    );
    running.stop();
    running.join().expect("join").1.expect("spin");
}

fn next_event(client: &ActionClient<Fibonacci>) -> ActionEvent<Fibonacci> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(event) = client.take_event() {
            return event;
        }
        assert!(Instant::now() < deadline, "no event from the rclpy server");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_tacto_client_drives_an_rclpy_server_through_goals_feedback_rejects_cancels_and_late_results() {
    const TEST: &str = "a_tacto_client_drives_an_rclpy_server_through_goals_feedback_rejects_cancels_and_late_results";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let server = rclpy.spawn("fibonacci_action.py", 97, &["server", "fibonacci"]);
    lines_until(&server, "ready");
    let ctx = dds_context(97);
    let mut node = ctx.node("fibonacci_client").expect("node");
    let client = (node.action_client::<Fibonacci>("fibonacci").create()).expect("client");
    assert!(client.wait_for_server(PATIENCE), "no rclpy action server");

    // Blocking, then the result fetched again after the goal ended.
    let outcome = client
        .send_goal_and_wait(Goal { order: 5 }, PATIENCE)
        .expect("goal");
    assert_eq!(outcome.status, GoalStatus::Succeeded);
    assert_eq!(outcome.result.sequence, [0, 1, 1, 2, 3, 5]);
    let late = client
        .get_result_and_wait(outcome.goal, PATIENCE)
        .expect("late result");
    assert_eq!(late, outcome);

    // Events: accepted, feedback in order, the result.
    let id = client.send_goal(Goal { order: 8 }).expect("send");
    let mut feedback = Vec::new();
    let (status, result) = loop {
        match next_event(&client) {
            ActionEvent::Feedback { goal, feedback: f } if goal == id => {
                feedback.push(f.sequence.len())
            }
            ActionEvent::Result {
                goal,
                status,
                result,
            } if goal == id => break (status, result),
            _ => {}
        }
    };
    assert_eq!(status, GoalStatus::Succeeded);
    assert_eq!(result.sequence, [0, 1, 1, 2, 3, 5, 8, 13, 21]);
    assert!(!feedback.is_empty());
    assert!(
        feedback.windows(2).all(|w| w[1] == w[0] + 1),
        "{feedback:?}"
    );

    // Rejected.
    let id = client.send_goal(Goal { order: 99 }).expect("send");
    loop {
        match next_event(&client) {
            ActionEvent::Rejected { goal } if goal == id => break,
            ActionEvent::Accepted { goal, .. } if goal == id => panic!("accepted order 99"),
            _ => {}
        }
    }

    // Canceled.
    let id = client.send_goal(Goal { order: 0 }).expect("send");
    loop {
        if let ActionEvent::Accepted { goal, .. } = next_event(&client) {
            assert_eq!(goal, id);
            break;
        }
    }
    let (code, goals) = client.cancel_goal_and_wait(id, PATIENCE).expect("cancel");
    assert_eq!(code, CancelCode::None);
    assert_eq!(goals.iter().map(|g| g.id).collect::<Vec<_>>(), [id]);
    let status = loop {
        if let ActionEvent::Result { goal, status, .. } = next_event(&client) {
            assert_eq!(goal, id);
            break status;
        }
    };
    assert_eq!(status, GoalStatus::Canceled);
}

#[test]
fn an_actions_status_and_feedback_topics_reach_rclpy_on_fast_dds() {
    let ctx = dds_context(98);
    let running = serve_fibonacci(&ctx);
    let peer = RclpyNode::spawn("fibonacci_action.py", 98, &["topics", "fibonacci"]);
    lines_until(&peer, "ready");
    let mut node = ctx.node("fibonacci_client").expect("node");
    let client = (node.action_client::<Fibonacci>("fibonacci").create()).expect("client");
    let deadline = Instant::now() + PATIENCE;
    let (mut feedback, mut succeeded) = (false, false);
    // Until discovery is done, a goal's topics reach no one: send goals until both arrive.
    while !(feedback && succeeded) {
        assert!(
            Instant::now() < deadline,
            "feedback {feedback}, status {succeeded}"
        );
        let outcome = client
            .send_goal_and_wait(Goal { order: 5 }, PATIENCE)
            .expect("goal");
        assert_eq!(outcome.status, GoalStatus::Succeeded);
        while let Ok(line) = peer.lines.recv_timeout(Duration::from_millis(200)) {
            feedback |= line.starts_with("feedback ");
            // The status list with the last goal succeeded (4), as rclpy reads it.
            succeeded |= line.starts_with("status ") && line.ends_with('4');
        }
    }
    running.stop();
    running.join().expect("join").1.expect("spin");
}

#[test]
fn a_goal_request_cut_short_is_counted_and_the_next_goal_is_answered() {
    let domain = 100;
    let ctx = dds_context(domain);
    let (running, server) = serve_fibonacci_counted(&ctx);
    let peer = RclpyNode::spawn_in(
        "cyclonedds",
        "action_malformed_goal.py",
        domain,
        &[&domain.to_string()],
    );
    let deadline = Instant::now() + PATIENCE;
    let reply = loop {
        match peer.next_line(deadline) {
            Some(line) if line.starts_with("reply") => break line,
            Some(_) => {}
            None => panic!("no reply; the peer said on stderr:\n{}", peer.stderr()),
        }
    };
    assert_eq!(reply, format!("reply {} 2 True", 0x1234_abcd));
    // The peer wrote the good goal after the cut one was acknowledged: both were taken.
    assert_eq!(server.malformed_requests(), 1, "the cut goal id");
    running.stop();
    running.join().expect("join").1.expect("spin");
}
