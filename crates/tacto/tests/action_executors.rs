//! An action's server and client both run by one executor, in one process, on every executor
//! kind: each goal's life (accepted, feedback in order, result) and a cancel, as rclcpp_action's
//! `test/test_client.cpp` drives them (`async_send_goal_with_feedback_callback_wait_for_result`,
//! `async_cancel_one_goal`), with the client's code run by its trigger instead of futures.
//!
//! The server and client take goals, cancels and answers through `Trigger::any` triggers, the
//! server's result requests through `Trigger::on_request` and its expiry through
//! `Trigger::every`: all three run on the wait-set, callback, events and thread-pool executors
//! (the callback and thread-pool executors refuse only `all` and `when`, which actions do not
//! use). The LET executor refuses any node with a service or client, so it refuses an action's
//! server and client, with an error naming the node.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::action::{ActionEvent, GoalHandle, GoalId, GoalStatus};
use tacto::{
    AddError, CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThread, LetExecutor,
    Node, ThreadPoolExecutor, WaitSetExecutor,
};

const PATIENCE: Duration = Duration::from_secs(30);
/// The server's step and the client's sending period.
const STEP: Duration = Duration::from_millis(5);
/// The order of the goal that runs to success.
const ORDER: i32 = 6;
/// The order of the goal the client cancels: far more steps than the test waits for.
const LONG_ORDER: i32 = 46;

mod fibonacci;
use fibonacci::{Feedback, FibResult, Fibonacci, Goal, fibonacci};

/// The tutorials' server in tacto's manner: goals and cancels taken when they arrive, every
/// goal advanced one number per step of a timer, never blocking the executor. Cancels are
/// accepted.
fn server_node(ctx: &Context) -> Node {
    let mut node = ctx.node("fibonacci_server").unwrap();
    let server = Arc::new(
        node.action_server::<Fibonacci>("fibonacci")
            .create()
            .unwrap(),
    );
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
    node
}

/// What the client's code saw.
#[derive(Default)]
struct Seen {
    /// The goal that runs to success, and the one canceled, once sent.
    short: Option<GoalId>,
    long: Option<GoalId>,
    accepted: Vec<GoalId>,
    /// The lengths of the short goal's feedback sequences, in arrival order.
    feedback: Vec<usize>,
    results: Vec<(GoalId, GoalStatus, Vec<i32>)>,
}

/// A client node: once the server is there, sends a short and a long goal from a timer, and
/// cancels the long one when it is accepted; its events are taken by its trigger's code.
fn client_node(ctx: &Context, seen: Arc<Mutex<Seen>>) -> Node {
    let mut node = ctx.node("fibonacci_client").unwrap();
    let client = Arc::new(
        node.action_client::<Fibonacci>("fibonacci")
            .create()
            .unwrap(),
    );
    let (sender, sending) = (client.clone(), seen.clone());
    node.wall_timer(STEP, move |_| {
        let mut seen = sending.lock().unwrap();
        if seen.long.is_some() || !sender.server_is_ready() {
            return;
        }
        seen.short = Some(sender.send_goal(Goal { order: ORDER }).unwrap());
        seen.long = Some(sender.send_goal(Goal { order: LONG_ORDER }).unwrap());
    })
    .unwrap();
    let events = client.clone();
    node.execute(client.trigger(), move |_| {
        let mut seen = seen.lock().unwrap();
        while let Some(event) = events.take_event() {
            match event {
                ActionEvent::Accepted { goal, .. } => {
                    seen.accepted.push(goal);
                    if Some(goal) == seen.long {
                        events.cancel_goal(goal).unwrap();
                    }
                }
                ActionEvent::Feedback { goal, feedback } if Some(goal) == seen.short => {
                    seen.feedback.push(feedback.sequence.len());
                }
                ActionEvent::Result {
                    goal,
                    status,
                    result,
                } => seen.results.push((goal, status, result.sequence)),
                _ => {}
            }
        }
    })
    .unwrap();
    node
}

/// Runs a server and a client on `executor` until both goals ended, and checks what the
/// client saw.
fn both_goals_end_on(mut executor: impl Executor + 'static) {
    let ctx = Context::new();
    let seen = Arc::new(Mutex::new(Seen::default()));
    executor.add(server_node(&ctx)).unwrap();
    executor.add(client_node(&ctx, seen.clone())).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let deadline = Instant::now() + PATIENCE;
    while seen.lock().unwrap().results.len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    running.stop();
    running.join().unwrap().1.unwrap();

    let seen = seen.lock().unwrap();
    let (short, long) = (seen.short.unwrap(), seen.long.unwrap());
    assert_eq!(seen.accepted.len(), 2, "both goals accepted");
    assert!(seen.accepted.contains(&short) && seen.accepted.contains(&long));
    let result = |id| seen.results.iter().find(|(goal, ..)| *goal == id);
    let (_, status, sequence) = result(short).expect("the short goal's result");
    assert_eq!(*status, GoalStatus::Succeeded);
    assert_eq!(*sequence, fibonacci(ORDER as usize));
    let (_, status, sequence) = result(long).expect("the canceled goal's result");
    assert_eq!(*status, GoalStatus::Canceled);
    assert!(sequence.len() < fibonacci(LONG_ORDER as usize).len());
    // Feedback of 3 to ORDER + 1 numbers, each one longer than the one before: every one, in
    // the order published.
    let expected: Vec<usize> = (3..=ORDER as usize + 1).collect();
    assert_eq!(seen.feedback, expected);
}

#[test]
fn a_server_and_client_run_both_goals_to_their_end_on_a_wait_set_executor() {
    both_goals_end_on(WaitSetExecutor::new().unwrap());
}

#[test]
fn a_server_and_client_run_both_goals_to_their_end_on_a_callback_executor() {
    both_goals_end_on(CallbackExecutor::new().unwrap());
}

#[test]
fn a_server_and_client_run_both_goals_to_their_end_on_an_events_executor() {
    both_goals_end_on(EventsExecutor::new().unwrap());
}

#[test]
fn a_server_and_client_run_both_goals_to_their_end_on_a_thread_pool_executor() {
    both_goals_end_on(ThreadPoolExecutor::new().unwrap());
}

#[test]
fn a_let_executor_refuses_an_action_server_and_client_naming_the_node() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(STEP).unwrap();
    let seen = Arc::new(Mutex::new(Seen::default()));
    for (node, name) in [
        (server_node(&ctx), "/fibonacci_server"),
        (client_node(&ctx, seen), "/fibonacci_client"),
    ] {
        let error = executor.add(node).unwrap_err();
        assert!(
            matches!(&error, AddError::ServicesUnsupported { node, executor: "LET" } if node == name),
            "{error:?}"
        );
        assert!(error.to_string().contains(name), "{error}");
    }
}
