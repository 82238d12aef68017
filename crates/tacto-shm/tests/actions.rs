//! Actions over `ShmTransport`, across real processes: an action's three services and two
//! topics are a node's services, clients, publishers and subscriptions, so on a context whose
//! transport is shared memory they all go over iceoryx2. This test binary re-executes itself
//! as the server's process (`child_role`, selected by `TACTO_SHM_ACTION_ROLE`); action names
//! carry the parent's pid and the test's name, so parallel runs never share one.
//!
//! The goal's life and the cancel follow rclcpp_action's `test/test_client.cpp`
//! (`async_send_goal_with_feedback_callback_wait_for_result`, `async_cancel_one_goal`,
//! `async_get_result_on_terminated_goal`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::action::{ActionClient, ActionEvent, CancelCode, GoalHandle, GoalStatus};
use tacto::{Context, Executor, ExecutorThread, WaitSetExecutor};
use tacto_msgs::example_interfaces::action::{
    Fibonacci, Fibonacci_Feedback as Feedback, Fibonacci_Goal as Goal,
    Fibonacci_Result as FibResult,
};
use tacto_shm::ShmTransport;

mod support;
use support::{Child, PATIENCE, SAY};

const ROLE: &str = "TACTO_SHM_ACTION_ROLE";
/// The server's step: one Fibonacci number per step.
const STEP: Duration = Duration::from_millis(5);

fn fibonacci(order: usize) -> Vec<i32> {
    let mut sequence = vec![0, 1];
    while sequence.len() <= order {
        let n = sequence.len();
        sequence.push(sequence[n - 1] + sequence[n - 2]);
    }
    sequence
}

fn action_name(test: &str) -> String {
    format!("/a{}_{test}", std::process::id())
}

fn context(name: &str) -> Context {
    Context::builder()
        .transport(ShmTransport::new(name).unwrap())
        .create()
}

/// The other process: a Fibonacci server on shared memory, goals and cancels taken when they
/// arrive and advanced a number per step, cancels accepted, until stdin closes.
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    assert_eq!(role, "serve", "unknown role {role}");
    let name = std::env::var("ACTION").unwrap();
    let ctx = context("child");
    let mut node = ctx.node("fibonacci_server").unwrap();
    let server = Arc::new(node.action_server::<Fibonacci>(&name).create().unwrap());
    type Running = Vec<(GoalHandle<Fibonacci>, Vec<i32>)>;
    let goals: Arc<Mutex<Running>> = Arc::default();
    let (taking, running) = (server.clone(), goals.clone());
    node.execute(server.trigger(), move |_| {
        let mut goals = running.lock().unwrap();
        while let Some(request) = taking.take_goal() {
            let handle = request.accept().unwrap();
            handle.execute().unwrap();
            goals.push((handle, vec![0, 1]));
        }
        while let Some(cancel) = taking.take_cancel() {
            cancel.decide(|_| true);
        }
    })
    .unwrap();
    node.wall_timer(STEP, move |_| {
        let mut goals = goals.lock().unwrap();
        for (handle, sequence) in goals.iter_mut() {
            let result = FibResult {
                sequence: sequence.clone(),
            };
            if handle.is_canceling() {
                handle.canceled(result).unwrap();
            } else if sequence.len() > handle.goal().order as usize {
                handle.succeed(result).unwrap();
            } else {
                let n = sequence.len();
                sequence.push(sequence[n - 1] + sequence[n - 2]);
                handle.publish_feedback(Feedback {
                    sequence: sequence.clone(),
                });
            }
        }
        goals.retain(|(handle, _)| handle.is_active());
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    println!("{SAY} ready");
    std::io::stdin()
        .lines()
        .map_while(Result::ok)
        .for_each(drop);
    running.stop();
    running.join().unwrap().1.unwrap();
}

/// The server's process, once it said it is ready, and a client of its action in this one.
fn server_and_client(test: &str) -> (Child, Context, ActionClient<Fibonacci>) {
    let name = action_name(test);
    let child = Child::spawn(ROLE, "serve", &[("ACTION", name.clone())]);
    assert_eq!(child.next_line(), "ready");
    let ctx = context("parent");
    let mut node = ctx.node("fibonacci_client").unwrap();
    let client = node.action_client::<Fibonacci>(&name).create().unwrap();
    assert!(client.wait_for_server(PATIENCE));
    (child, ctx, client)
}

/// The client's events until `done` holds for the last one (polled: no executor needed).
fn events_until(
    client: &ActionClient<Fibonacci>,
    mut done: impl FnMut(&ActionEvent<Fibonacci>) -> bool,
) -> Vec<ActionEvent<Fibonacci>> {
    let deadline = Instant::now() + PATIENCE;
    let mut events = Vec::new();
    loop {
        assert!(
            Instant::now() < deadline,
            "timed out: {} events",
            events.len()
        );
        match client.take_event() {
            Some(event) => {
                let last = done(&event);
                events.push(event);
                if last {
                    return events;
                }
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}

#[test]
fn a_goal_in_another_process_runs_to_success_with_every_feedback_in_order() {
    let (server, _ctx, client) = server_and_client("success");
    let id = client.send_goal(Goal { order: 8 }).unwrap();
    let events = events_until(&client, |e| matches!(e, ActionEvent::Result { .. }));
    assert!(
        matches!(events[0], ActionEvent::Accepted { goal, .. } if goal == id),
        "the goal's answer comes first"
    );
    let feedback: Vec<usize> = (events.iter())
        .filter_map(|event| match event {
            ActionEvent::Feedback { goal, feedback } if *goal == id => {
                Some(feedback.sequence.len())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        feedback,
        (3..=9).collect::<Vec<_>>(),
        "every feedback, in order"
    );
    let Some(ActionEvent::Result {
        goal,
        status,
        result,
    }) = events.last()
    else {
        unreachable!("events end with the result")
    };
    assert_eq!((*goal, *status), (id, GoalStatus::Succeeded));
    assert_eq!(result.sequence, fibonacci(8));
    // The status topic (transient-local, keep-last 1) showed the goal executing and ended.
    let statuses: Vec<GoalStatus> = (events.iter())
        .filter_map(|event| match event {
            ActionEvent::Status { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert!(statuses.contains(&GoalStatus::Executing), "{statuses:?}");
    // A result asked again after the goal ended is still there (kept for the result timeout).
    let again = client.get_result_and_wait(id, PATIENCE).unwrap();
    assert_eq!(again.status, GoalStatus::Succeeded);
    assert_eq!(again.result.sequence, fibonacci(8));
    server.finish();
}

#[test]
fn a_goal_in_another_process_is_canceled_on_request() {
    let (server, _ctx, client) = server_and_client("cancel");
    // Far more steps than the test waits for: it ends only by the cancel.
    let id = client.send_goal(Goal { order: 46 }).unwrap();
    events_until(
        &client,
        |e| matches!(e, ActionEvent::Accepted { goal, .. } if *goal == id),
    );
    let (code, canceling) = client.cancel_goal_and_wait(id, PATIENCE).unwrap();
    assert_eq!(code, CancelCode::None);
    assert_eq!(canceling.iter().map(|g| g.id).collect::<Vec<_>>(), [id]);
    let events = events_until(&client, |e| matches!(e, ActionEvent::Result { .. }));
    let Some(ActionEvent::Result { goal, status, .. }) = events.last() else {
        unreachable!("events end with the result")
    };
    assert_eq!((*goal, *status), (id, GoalStatus::Canceled));
    server.finish();
}

#[test]
fn a_blocking_goal_in_another_process_returns_its_result() {
    let (server, _ctx, client) = server_and_client("blocking");
    let outcome = client
        .send_goal_and_wait(Goal { order: 5 }, PATIENCE)
        .unwrap();
    assert_eq!(outcome.status, GoalStatus::Succeeded);
    assert_eq!(outcome.result.sequence, fibonacci(5));
    server.finish();
}

/// Sends `count` goals, 2 ms apart, all running at once (each waiting for its result), and
/// returns how many results came back before a patience that covers all of them with room
/// to spare.
fn results_of_concurrent_goals(test: &str, count: usize) -> usize {
    let (server, _ctx, client) = server_and_client(test);
    let sent: Vec<_> = (0..count)
        .map(|_| {
            let id = client.send_goal(Goal { order: 40 }).unwrap();
            std::thread::sleep(Duration::from_millis(2));
            id
        })
        .collect();
    let mut results = 0;
    // Each goal runs 41 steps of 5 ms, all at once: well under a second.
    let deadline = Instant::now() + Duration::from_secs(8);
    while Instant::now() < deadline && results < count {
        match client.take_event() {
            Some(ActionEvent::Result { goal, status, .. }) => {
                assert!(sent.contains(&goal));
                assert_eq!(status, GoalStatus::Succeeded);
                results += 1;
            }
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    server.finish();
    results
}

// A client's requests in flight are bounded (MAX_IN_FLIGHT): every running goal would hold
// one, its result request, until it ends. Past that bound the client asks for the other
// results as earlier ones come back, so that the link never forgets a result request.
#[test]
fn as_many_goals_as_a_client_has_requests_in_flight_all_get_their_result() {
    let count = tacto_shm::MAX_IN_FLIGHT;
    assert_eq!(results_of_concurrent_goals("in_flight", count), count);
}

#[test]
fn twice_as_many_goals_as_requests_in_flight_all_get_their_result() {
    let count = 2 * tacto_shm::MAX_IN_FLIGHT;
    assert_eq!(results_of_concurrent_goals("twice_in_flight", count), count);
}
