//! Action servers and clients in one process: the goal's life, cancel, results and their
//! expiry, against rclcpp_action's `test/test_server.cpp` and `test/test_client.cpp`, on each
//! executor kind that runs a node's code on a period.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tacto::action::{
    ActionCallError, ActionClient, ActionEvent, ActionNames, ActionServer, CancelCode, GoalHandle,
    GoalId, GoalStatus, SendGoalError,
};
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThread, ThreadPoolExecutor,
    WaitSetExecutor,
};

const PATIENCE: Duration = Duration::from_secs(30);

mod fibonacci;
use fibonacci::{Feedback, FibResult, Fibonacci, Goal, fibonacci};

/// What the test server's code does with what it is asked.
#[derive(Clone, Copy)]
struct Policy {
    /// Goals of an order above this are rejected (rclcpp's handle_goal).
    max_order: i32,
    /// Cancel requests are accepted (rclcpp's handle_cancel).
    accept_cancel: bool,
    /// Goals succeed; else they stay executing until canceled.
    finish: bool,
    /// Most goals held (running or ended with a kept result).
    max_goals: usize,
    result_timeout: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_order: 40,
            accept_cancel: true,
            finish: true,
            max_goals: 64,
            result_timeout: Duration::from_secs(10),
        }
    }
}

/// A Fibonacci server in the tutorials' manner, a step per run of a 1 ms period, never
/// blocking the executor: each run takes goals and cancels, then adds one number to each goal.
fn fibonacci_server(ctx: &Context, policy: Policy) -> (tacto::Node, Arc<ActionServer<Fibonacci>>) {
    let mut node = ctx.node("fibonacci_server").unwrap();
    let server = node
        .action_server::<Fibonacci>("fibonacci")
        .max_goals(policy.max_goals)
        .result_timeout(policy.result_timeout)
        .create()
        .unwrap();
    let server = Arc::new(server);
    let counted = server.clone();
    let mut running: Vec<(GoalHandle<Fibonacci>, Vec<i32>)> = Vec::new();
    node.wall_timer(Duration::from_millis(1), move |_| {
        while let Some(request) = server.take_goal() {
            if request.goal().order > policy.max_order {
                request.reject();
                continue;
            }
            if let Ok(handle) = request.accept() {
                handle.execute().unwrap();
                running.push((handle, vec![0, 1]));
            }
        }
        while let Some(cancel) = server.take_cancel() {
            cancel.decide(|_| policy.accept_cancel);
        }
        for (handle, sequence) in &mut running {
            if handle.is_canceling() {
                let result = FibResult {
                    sequence: sequence.clone(),
                };
                handle.canceled(result).unwrap();
                continue;
            }
            if !policy.finish {
                continue;
            }
            let n = sequence.len();
            if n <= handle.goal().order as usize {
                sequence.push(sequence[n - 1] + sequence[n - 2]);
                let feedback = Feedback {
                    sequence: sequence.clone(),
                };
                handle.publish_feedback(feedback);
            } else {
                let result = FibResult {
                    sequence: sequence.clone(),
                };
                handle.succeed(result).unwrap();
            }
        }
        running.retain(|(handle, _)| handle.is_active());
    })
    .unwrap();
    (node, counted)
}

/// Runs `server` on its own executor thread, and `test` with a client in this thread.
fn with_server<E: Executor + 'static>(
    executor: E,
    policy: Policy,
    test: impl FnOnce(&Context, ActionClient<Fibonacci>),
) {
    with_counted_server(executor, policy, |ctx, client, _| test(ctx, client))
}

/// As [`with_server`], `test` also given the server, for its counters.
fn with_counted_server<E: Executor + 'static>(
    mut executor: E,
    policy: Policy,
    test: impl FnOnce(&Context, ActionClient<Fibonacci>, &ActionServer<Fibonacci>),
) {
    let ctx = Context::new();
    let (node, server) = fibonacci_server(&ctx, policy);
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let client = caller
        .action_client::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    assert!(client.wait_for_server(PATIENCE));
    test(&ctx, client, &server);
    running.stop();
    running.join().unwrap().1.unwrap();
}

// From rcl_action test/rcl_action/test_names.cpp, `validate_action_derived_getter` with its
// five subjects, and its empty action name (`RCL_RET_ACTION_NAME_INVALID`).
#[test]
fn an_actions_services_and_topics_are_named_under_action() {
    let names = ActionNames::new("test_it").unwrap();
    assert_eq!(names.send_goal(), "test_it/_action/send_goal");
    assert_eq!(names.cancel_goal(), "test_it/_action/cancel_goal");
    assert_eq!(names.get_result(), "test_it/_action/get_result");
    assert_eq!(names.feedback(), "test_it/_action/feedback");
    assert_eq!(names.status(), "test_it/_action/status");
    assert!(ActionNames::new("").is_err());
}

#[test]
fn a_server_resolves_its_name_under_the_nodes_namespace() {
    let ctx = Context::new();
    let mut node = ctx.node_builder("n").namespace("/robot").create().unwrap();
    let server = node
        .action_server::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    assert_eq!(server.name(), "/robot/fibonacci");
    let bad = node.action_server::<Fibonacci>("").create();
    assert!(bad.unwrap_err().to_string().contains("must not be empty"));
    let bad = node.action_server::<Fibonacci>("two//slashes").create();
    assert!(bad.is_err(), "an invalid name is refused");
}

#[test]
fn a_second_server_of_one_action_is_refused_with_its_services_name() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let _first = node
        .action_server::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    let second = node.action_server::<Fibonacci>("fibonacci").create();
    let error = second.unwrap_err().to_string();
    assert!(error.contains("/fibonacci/_action/send_goal"), "{error}");
}

/// The goal's life seen through a client's events, on `executor`.
fn goal_runs_to_success_with_feedback_in_order<E: Executor + 'static>(executor: E) {
    with_server(executor, Policy::default(), |_, client| {
        let id = client.send_goal(Goal { order: 5 }).unwrap();
        let mut events = Vec::new();
        let deadline = std::time::Instant::now() + PATIENCE;
        while !matches!(events.last(), Some(ActionEvent::Result { .. })) {
            assert!(
                std::time::Instant::now() < deadline,
                "no result: {events:?}"
            );
            match client.take_event() {
                Some(event) => events.push(event),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        assert!(matches!(events[0], ActionEvent::Accepted { goal, .. } if goal == id));
        let feedback: Vec<_> = (events.iter())
            .filter_map(|e| match e {
                ActionEvent::Feedback { goal, feedback } if *goal == id => {
                    Some(feedback.sequence.len())
                }
                _ => None,
            })
            .collect();
        // Each feedback one number longer than the one before: in the order published.
        assert!(!feedback.is_empty());
        assert!(
            feedback.windows(2).all(|w| w[1] == w[0] + 1),
            "{feedback:?}"
        );
        let ActionEvent::Result {
            goal,
            status,
            result,
        } = events.last().unwrap()
        else {
            unreachable!()
        };
        assert_eq!((*goal, *status), (id, GoalStatus::Succeeded));
        assert_eq!(result.sequence, fibonacci(5));
        assert_eq!(client.goals(), 0, "an ended goal is forgotten");
    });
}

#[test]
fn a_goal_runs_to_success_with_feedback_in_order_on_a_wait_set_executor() {
    goal_runs_to_success_with_feedback_in_order(WaitSetExecutor::new().unwrap());
}

#[test]
fn a_goal_runs_to_success_with_feedback_in_order_on_a_callback_executor() {
    goal_runs_to_success_with_feedback_in_order(CallbackExecutor::new().unwrap());
}

#[test]
fn a_goal_runs_to_success_with_feedback_in_order_on_an_events_executor() {
    goal_runs_to_success_with_feedback_in_order(EventsExecutor::new().unwrap());
}

#[test]
fn a_goal_runs_to_success_with_feedback_in_order_on_a_thread_pool_executor() {
    goal_runs_to_success_with_feedback_in_order(ThreadPoolExecutor::new().unwrap());
}

// From rclcpp_action test/test_client.cpp, `async_send_goal_no_callbacks` (accepted, result
// succeeded with the sequence).
#[test]
fn a_blocking_goal_returns_its_result() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            let outcome = client
                .send_goal_and_wait(Goal { order: 10 }, PATIENCE)
                .unwrap();
            assert_eq!(outcome.status, GoalStatus::Succeeded);
            assert_eq!(outcome.result.sequence, fibonacci(10));
        },
    );
}

// From rclcpp_action test/test_client.cpp, `async_send_goal_rejected` (a goal the server's
// handle_goal rejects).
#[test]
fn a_rejected_goal_is_reported_rejected() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            let error = client
                .send_goal_and_wait(Goal { order: 99 }, PATIENCE)
                .unwrap_err();
            assert!(matches!(error, ActionCallError::Rejected(_)), "{error}");
            let id = client.send_goal(Goal { order: 99 }).unwrap();
            let event = next_event(&client);
            assert_eq!(event, ActionEvent::Rejected { goal: id });
            assert_eq!(client.goals(), 0);
        },
    );
}

fn next_event(client: &ActionClient<Fibonacci>) -> ActionEvent<Fibonacci> {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        if let Some(event) = client.take_event() {
            return event;
        }
        assert!(std::time::Instant::now() < deadline, "no event");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn event_until(
    client: &ActionClient<Fibonacci>,
    mut wanted: impl FnMut(&ActionEvent<Fibonacci>) -> bool,
) -> ActionEvent<Fibonacci> {
    loop {
        let event = next_event(client);
        if wanted(&event) {
            return event;
        }
    }
}

fn hold_goals() -> Policy {
    Policy {
        finish: false,
        ..Policy::default()
    }
}

// From rclcpp_action test/test_server.cpp, `handle_cancel_called` and
// `publish_status_canceling`/`publish_status_canceled`: an accepted cancel moves the goal to
// CANCELING, and the server ends it CANCELED.
#[test]
fn an_accepted_cancel_ends_the_goal_canceled() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        hold_goals(),
        |_, client| {
            let id = client.send_goal(Goal { order: 5 }).unwrap();
            event_until(&client, |e| {
                matches!(
                    e,
                    ActionEvent::Status {
                        status: GoalStatus::Executing,
                        ..
                    }
                )
            });
            let (code, goals) = client.cancel_goal_and_wait(id, PATIENCE).unwrap();
            assert_eq!(code, CancelCode::None);
            assert_eq!(goals.iter().map(|g| g.id).collect::<Vec<_>>(), vec![id]);
            let result = event_until(&client, |e| matches!(e, ActionEvent::Result { .. }));
            let ActionEvent::Result { goal, status, .. } = result else {
                unreachable!()
            };
            assert_eq!((goal, status), (id, GoalStatus::Canceled));
        },
    );
}

// From rclcpp_action test/test_server.cpp, `handle_cancel_reject`.
#[test]
fn a_cancel_the_server_rejects_answers_error_rejected() {
    let policy = Policy {
        accept_cancel: false,
        ..hold_goals()
    };
    with_server(WaitSetExecutor::new().unwrap(), policy, |_, client| {
        let id = client.send_goal(Goal { order: 5 }).unwrap();
        event_until(&client, |e| matches!(e, ActionEvent::Accepted { .. }));
        let (code, goals) = client.cancel_goal_and_wait(id, PATIENCE).unwrap();
        assert_eq!((code, goals.len()), (CancelCode::Rejected, 0));
    });
}

// From rclcpp_action test/test_server.cpp, `handle_cancel_unknown_goal`.
#[test]
fn a_cancel_of_an_unknown_goal_answers_error_unknown_goal_id() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        hold_goals(),
        |_, client| {
            client.send_goal(Goal { order: 5 }).unwrap();
            event_until(&client, |e| matches!(e, ActionEvent::Accepted { .. }));
            let unknown =
                GoalId::from_bytes([11, 22, 33, 44, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
            let (code, _) = client.cancel_goal_and_wait(unknown, PATIENCE).unwrap();
            assert_eq!(code, CancelCode::UnknownGoalId);
        },
    );
}

// From rclcpp_action test/test_server.cpp, `handle_cancel_terminated_goal`.
#[test]
fn a_cancel_of_an_ended_goal_answers_error_goal_terminated() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            let outcome = client
                .send_goal_and_wait(Goal { order: 3 }, PATIENCE)
                .unwrap();
            let (code, _) = client.cancel_goal_and_wait(outcome.goal, PATIENCE).unwrap();
            assert_eq!(code, CancelCode::GoalTerminated);
        },
    );
}

// From rclcpp_action test/test_client.cpp, `async_cancel_all_goals`: both goals canceling.
#[test]
fn a_cancel_of_all_goals_reaches_every_running_goal() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        hold_goals(),
        |_, client| {
            let first = client.send_goal(Goal { order: 5 }).unwrap();
            let second = client.send_goal(Goal { order: 6 }).unwrap();
            let mut accepted = 0;
            while accepted < 2 {
                if let ActionEvent::Accepted { .. } = next_event(&client) {
                    accepted += 1;
                }
            }
            client.cancel_all_goals().unwrap();
            let ActionEvent::Canceling { code, goals } =
                event_until(&client, |e| matches!(e, ActionEvent::Canceling { .. }))
            else {
                unreachable!()
            };
            assert_eq!(code, CancelCode::None);
            let mut ids: Vec<_> = goals.iter().map(|g| g.id).collect();
            ids.sort();
            let mut expected = vec![first, second];
            expected.sort();
            assert_eq!(ids, expected);
        },
    );
}

// From rclcpp_action test/test_server.cpp, `get_result`: the result of an ended goal, then,
// after the result timeout, STATUS_UNKNOWN.
#[test]
fn a_result_is_kept_for_the_result_timeout_then_unknown() {
    let policy = Policy {
        result_timeout: Duration::from_millis(50),
        ..Policy::default()
    };
    with_server(WaitSetExecutor::new().unwrap(), policy, |_, client| {
        let outcome = client
            .send_goal_and_wait(Goal { order: 4 }, PATIENCE)
            .unwrap();
        // rcl counts the timeout from acceptance: wait past it, and past a period of expiry.
        std::thread::sleep(Duration::from_millis(200));
        let late = client.get_result_and_wait(outcome.goal, PATIENCE).unwrap();
        assert_eq!(late.status, GoalStatus::Unknown);
        assert_eq!(late.result, FibResult::default());
    });
}

// From rclcpp_action test/test_server.cpp, `get_result_deferred`: a result asked for while the
// goal runs comes when it ends; and an ended goal's result, asked again, comes at once.
#[test]
fn a_result_asked_before_the_goal_ends_comes_when_it_ends() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            let id = client.send_goal(Goal { order: 20 }).unwrap();
            event_until(&client, |e| matches!(e, ActionEvent::Accepted { .. }));
            let outcome = client.get_result_and_wait(id, PATIENCE).unwrap();
            assert_eq!(outcome.status, GoalStatus::Succeeded);
            let again = client.get_result_and_wait(id, PATIENCE).unwrap();
            assert_eq!(again, outcome);
        },
    );
}

#[test]
fn a_result_request_for_an_unknown_goal_answers_status_unknown() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            let outcome = client
                .get_result_and_wait(GoalId::from_bytes([7; 16]), PATIENCE)
                .unwrap();
            assert_eq!(outcome.status, GoalStatus::Unknown);
        },
    );
}

// rcl_action's `rcl_action_accept_new_goal` refuses an id it holds ("goal ID already exists").
#[test]
fn a_duplicate_goal_id_is_rejected() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        hold_goals(),
        |ctx, client| {
            let id = GoalId::from_bytes([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
            client.send_goal_with_id(id, Goal { order: 5 }).unwrap();
            let first = event_until(&client, |e| matches!(e, ActionEvent::Accepted { .. }));
            assert!(matches!(first, ActionEvent::Accepted { goal, .. } if goal == id));
            let mut other = ctx.node("other_caller").unwrap();
            let again = other
                .action_client::<Fibonacci>("fibonacci")
                .create()
                .unwrap();
            again.send_goal_with_id(id, Goal { order: 5 }).unwrap();
            let answer = event_until(&again, |e| {
                matches!(
                    e,
                    ActionEvent::Accepted { .. } | ActionEvent::Rejected { .. }
                )
            });
            assert_eq!(answer, ActionEvent::Rejected { goal: id });
        },
    );
}

#[test]
fn a_goal_past_the_servers_bound_of_running_goals_is_rejected_and_counted() {
    let policy = Policy {
        max_goals: 2,
        ..hold_goals()
    };
    with_counted_server(
        WaitSetExecutor::new().unwrap(),
        policy,
        |_, client, server| {
            let mut answers = Vec::new();
            for _ in 0..3 {
                client.send_goal(Goal { order: 5 }).unwrap();
                answers.push(event_until(&client, |e| {
                    matches!(
                        e,
                        ActionEvent::Accepted { .. } | ActionEvent::Rejected { .. }
                    )
                }));
            }
            assert!(matches!(answers[0], ActionEvent::Accepted { .. }));
            assert!(matches!(answers[1], ActionEvent::Accepted { .. }));
            assert!(matches!(answers[2], ActionEvent::Rejected { .. }));
            assert_eq!(server.refused_goals(), 1);
        },
    );
}

#[test]
fn a_client_refuses_goals_past_its_bound() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let _server = node
        .action_server::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    let client = node
        .action_client::<Fibonacci>("fibonacci")
        .max_goals(1)
        .create()
        .unwrap();
    let first = client.send_goal(Goal { order: 1 }).unwrap();
    let error = client.send_goal(Goal { order: 1 }).unwrap_err();
    assert!(matches!(error, SendGoalError::TooManyGoals(1)), "{error}");
    client.forget(&first);
    client.send_goal(Goal { order: 1 }).unwrap();
}

// rclcpp_action's ServerGoalHandle destructor: a handle dropped while its goal runs ends it
// CANCELED, so its client is answered.
#[test]
fn a_goal_whose_handle_is_dropped_ends_canceled() {
    let ctx = Context::new();
    let mut node = ctx.node("dropper").unwrap();
    let server = node
        .action_server::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    let kept = Arc::new(Mutex::new(None));
    let keep = kept.clone();
    node.execute(server.trigger(), move |_| {
        while let Some(request) = server.take_goal() {
            let handle = request.accept().unwrap();
            handle.execute().unwrap();
            drop(handle);
            *keep.lock().unwrap() = Some(());
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let client = caller
        .action_client::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    let outcome = client
        .send_goal_and_wait(Goal { order: 3 }, PATIENCE)
        .unwrap();
    assert_eq!(outcome.status, GoalStatus::Canceled);
    assert_eq!(*kept.lock().unwrap(), Some(()));
    running.stop();
    running.join().unwrap().1.unwrap();
}

// From rclcpp_action test/test_server.cpp, `publish_status_accepted` … `_succeeded`: the
// status topic shows each state in turn.
#[test]
fn the_status_topic_shows_each_state_of_a_goal() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            let id = client.send_goal(Goal { order: 8 }).unwrap();
            let mut seen = Vec::new();
            loop {
                match next_event(&client) {
                    ActionEvent::Status { goal, status } if goal == id => seen.push(status),
                    ActionEvent::Result { .. } => break,
                    _ => {}
                }
            }
            // Status keeps the last list only: an intermediate state may be overtaken.
            assert!(seen.contains(&GoalStatus::Executing), "{seen:?}");
            assert!(seen.windows(2).all(|w| w[0].id() < w[1].id()), "{seen:?}");
        },
    );
}

// Bad input: a client that vanishes with goals in flight leaves nothing behind: its goals run
// to their end, and their results expire.
#[test]
fn the_goals_of_a_vanished_client_end_and_their_results_expire() {
    let policy = Policy {
        result_timeout: Duration::from_millis(50),
        ..Policy::default()
    };
    with_counted_server(WaitSetExecutor::new().unwrap(), policy, |ctx, _, server| {
        let mut gone = ctx.node("gone").unwrap();
        let client = gone
            .action_client::<Fibonacci>("fibonacci")
            .create()
            .unwrap();
        for order in [10, 20, 30] {
            client.send_goal(Goal { order }).unwrap();
        }
        let deadline = std::time::Instant::now() + PATIENCE;
        while server.goals() < 3 {
            assert!(std::time::Instant::now() < deadline, "goals not accepted");
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(client);
        drop(gone);
        while server.goals() > 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "{} goals left",
                server.goals()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(server.evicted_results(), 0, "expired, not evicted");
    });
}

// A timeout too long for the clock waits for ever, as `Client::call`'s does, and does not
// overflow.
#[test]
fn a_blocking_goal_with_an_endless_timeout_returns_its_result() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        Policy::default(),
        |_, client| {
            assert!(client.wait_for_server(Duration::MAX));
            let outcome = client
                .send_goal_and_wait(Goal { order: 2 }, Duration::MAX)
                .unwrap();
            assert_eq!(outcome.result.sequence, fibonacci(2));
        },
    );
}

// From rclcpp_action test/test_client.cpp, `wait_for_action_server`: no server, no wait
// succeeds; once it is there, the wait does.
#[test]
fn waiting_for_a_server_fails_until_there_is_one() {
    let ctx = Context::new();
    let mut node = ctx.node("caller").unwrap();
    let client = node
        .action_client::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    assert!(!client.wait_for_server(Duration::ZERO));
    assert!(!client.wait_for_server(Duration::from_millis(10)));
    assert!(!client.server_is_ready());
    let mut server_node = ctx.node("fibonacci_server").unwrap();
    let _server = server_node
        .action_server::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    assert!(client.wait_for_server(PATIENCE));
}

// rcl_action's `rcl_action_process_cancel_request` with a zero id and a stamp: the goals
// accepted at or before it (rclcpp_action's `async_cancel_goals_before`).
#[test]
fn a_cancel_before_a_time_reaches_only_goals_accepted_by_then() {
    with_server(
        WaitSetExecutor::new().unwrap(),
        hold_goals(),
        |_, client| {
            let accepted = |client: &ActionClient<Fibonacci>| match event_until(client, |e| {
                matches!(e, ActionEvent::Accepted { .. })
            }) {
                ActionEvent::Accepted { goal, stamp } => (goal, stamp),
                _ => unreachable!(),
            };
            let first = client.send_goal(Goal { order: 5 }).unwrap();
            let (goal, first_stamp) = accepted(&client);
            assert_eq!(goal, first);
            std::thread::sleep(Duration::from_millis(5));
            client.send_goal(Goal { order: 6 }).unwrap();
            let (_, second_stamp) = accepted(&client);
            assert!(second_stamp > first_stamp);
            client.cancel_goals_before(first_stamp).unwrap();
            let ActionEvent::Canceling { code, goals } =
                event_until(&client, |e| matches!(e, ActionEvent::Canceling { .. }))
            else {
                unreachable!()
            };
            assert_eq!(code, CancelCode::None);
            assert_eq!(goals.iter().map(|g| g.id).collect::<Vec<_>>(), vec![first]);
        },
    );
}

// Bounded: a goal past the bound evicts the oldest ended goal, and its result goes with it.
#[test]
fn an_evicted_goals_result_is_dropped_with_it() {
    let policy = Policy {
        max_goals: 2,
        ..Policy::default()
    };
    with_counted_server(
        WaitSetExecutor::new().unwrap(),
        policy,
        |_, client, server| {
            let mut first = None;
            for _ in 0..5 {
                let outcome = client
                    .send_goal_and_wait(Goal { order: 2 }, PATIENCE)
                    .unwrap();
                first.get_or_insert(outcome.goal);
            }
            assert_eq!(server.goals(), 2);
            assert_eq!(server.kept_results(), 2);
            assert_eq!(server.evicted_results(), 3);
            let gone = client
                .get_result_and_wait(first.unwrap(), PATIENCE)
                .unwrap();
            assert_eq!(gone.status, GoalStatus::Unknown);
        },
    );
}
