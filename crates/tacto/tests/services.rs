//! Services and clients inside one process: every way to serve and to call, on every executor,
//! the bounds of their queues, and the names and types they refuse.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use tacto::client::{CallError, ClientCreateError, SendRequestError};
use tacto::service::ServiceCreateError;
use tacto::{
    AddError, CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThread, History,
    LetExecutor, LocalDelivery, RequestId, ServiceType, ThreadPoolExecutor, TopicError, Trigger,
    TriggerError, WaitSetExecutor,
};

mod util;
use util::{AddRequest, AddResponse, AddTwoInts, PATIENCE, spin_until_stopped};

/// Another service type, for type clashes.
struct Echo;

impl ServiceType for Echo {
    const TYPE_NAME: &'static str = "test_msgs/srv/Echo";
    type Request = AddRequest;
    type Response = AddRequest;
}

fn add(a: i64, b: i64) -> AddRequest {
    AddRequest { a, b }
}

/// A node whose service's requests trigger it; it answers every request it finds.
fn adder(ctx: &Context, name: &str) -> tacto::Node {
    let mut node = ctx.node(name).unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, r)) = service.take_request() {
            service.send_response(id, AddResponse { sum: r.a + r.b });
        }
    })
    .unwrap();
    node
}

#[test]
fn a_triggered_service_answers_a_blocking_call_from_another_thread() {
    let ctx = Context::new();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(adder(&ctx, "adder")).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    let mut caller = ctx.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>("add").create().unwrap();
    for i in 0..20 {
        let response = client.call(add(i, 100), PATIENCE).unwrap();
        assert_eq!(response.sum, i + 100);
    }
    running.stop();
    running.join().unwrap().1.unwrap();
}

#[test]
fn requests_and_responses_round_trip_through_cdr_when_delivery_is_serialized() {
    let ctx = Context::builder()
        .local_delivery(LocalDelivery::Serialized)
        .create();
    let mut node = ctx.node("n").unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    let sent = client.send_request(add(-7, 3)).unwrap();
    let (id, request) = service.take_request().unwrap();
    assert_eq!((id, request), (sent, add(-7, 3)));
    service.send_response(id, AddResponse { sum: -4 });
    assert_eq!(
        client.take_response(),
        Some((sent, AddResponse { sum: -4 }))
    );
}

#[test]
fn a_service_can_be_polled_by_code_that_runs_for_another_reason() {
    let ctx = Context::new();
    let mut node = ctx.node("poller").unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();

    // Requests wake nothing until a trigger names the service: they wait to be taken.
    let first = client.send_request(add(1, 2)).unwrap();
    let second = client.send_request(add(3, 4)).unwrap();
    assert_eq!(service.pending(), 2);
    assert_eq!((first.client, first.sequence), (client.id(), 1));
    assert_eq!(second.sequence, 2);

    // A periodic node takes them when it runs.
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    node.execute(Trigger::every(Duration::from_millis(1)), move |_| {
        while let Some((id, r)) = service.take_request() {
            service.send_response(id, AddResponse { sum: r.a + r.b });
        }
        if client.pending() == 2 {
            let answers: Vec<_> = std::iter::from_fn(|| client.take_response()).collect();
            assert_eq!(
                answers,
                [
                    (first, AddResponse { sum: 3 }),
                    (second, AddResponse { sum: 7 })
                ]
            );
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
}

/// A server with a classic per-request callback, and a client node that sends from a timer
/// and takes the responses that trigger it: the callback model's own pieces only.
fn answers_in_the_callback_model(mut executor: impl Executor) {
    let ctx = Context::new();
    let stop = executor.stop_handle();
    let mut server = ctx.node("server").unwrap();
    server
        .service::<AddTwoInts>("add")
        .callback(|r| AddResponse { sum: r.a + r.b })
        .unwrap();

    let mut node = ctx.node("asker").unwrap();
    let client = Arc::new(node.client::<AddTwoInts>("add").create().unwrap());
    let asking = client.clone();
    let mut next = 0;
    node.wall_timer(Duration::from_millis(1), move |_| {
        if next < 5 {
            asking.send_request(add(next, next)).unwrap();
            next += 1;
        }
    })
    .unwrap();
    let mut sums = Vec::new();
    node.execute(Trigger::on_response(&client), {
        let client = client.clone();
        move |_| {
            while let Some((id, response)) = client.take_response() {
                sums.push((id.sequence, response.sum));
            }
            if sums.len() == 5 {
                assert_eq!(sums, [(1, 0), (2, 2), (3, 4), (4, 6), (5, 8)]);
                stop.stop();
            }
        }
    })
    .unwrap();

    executor.add(server).unwrap();
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
}

#[test]
fn a_service_callback_answers_on_the_callback_executor() {
    answers_in_the_callback_model(CallbackExecutor::new().unwrap());
}

#[test]
fn a_service_callback_answers_on_the_events_executor() {
    answers_in_the_callback_model(EventsExecutor::new().unwrap());
}

#[test]
fn a_service_callback_answers_on_the_thread_pool() {
    answers_in_the_callback_model(ThreadPoolExecutor::builder().threads(2).create().unwrap());
}

#[test]
fn a_service_callback_answers_on_the_wait_set_executor() {
    answers_in_the_callback_model(WaitSetExecutor::new().unwrap());
}

#[test]
fn a_triggered_node_sends_requests_and_is_triggered_by_their_responses() {
    let ctx = Context::new();
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    executor.add(adder(&ctx, "adder")).unwrap();
    let mut node = ctx.node("planner").unwrap();
    let client = Arc::new(node.client::<AddTwoInts>("add").create().unwrap());
    let first = client.send_request(add(20, 22)).unwrap();
    let answers = client.clone();
    let mut runs = 0;
    node.execute(Trigger::on_response(&client), move |activation| {
        runs += 1;
        assert!(activation.fired(0));
        let (id, response) = answers.take_response().unwrap();
        assert_eq!(id, first);
        assert_eq!(response.sum, 42);
        assert_eq!(runs, 1, "one response, one run");
        stop.stop();
    })
    .unwrap();
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
}

#[test]
fn each_client_gets_only_the_responses_to_its_own_requests() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    let one = node.client::<AddTwoInts>("add").create().unwrap();
    let two = node.client::<AddTwoInts>("add").create().unwrap();
    assert_ne!(one.id(), two.id());
    for i in 0..3 {
        one.send_request(add(i, 0)).unwrap();
        two.send_request(add(i, 1000)).unwrap();
    }
    while let Some((id, r)) = service.take_request() {
        service.send_response(id, AddResponse { sum: r.a + r.b });
    }
    let of = |client: &tacto::Client<AddTwoInts>| {
        std::iter::from_fn(|| client.take_response())
            .map(|(id, r)| (id.client, r.sum))
            .collect::<Vec<_>>()
    };
    assert_eq!(of(&one), [(one.id(), 0), (one.id(), 1), (one.id(), 2)]);
    assert_eq!(
        of(&two),
        [(two.id(), 1000), (two.id(), 1001), (two.id(), 1002)]
    );
}

#[test]
fn two_threads_calling_at_once_each_get_their_own_answer() {
    let ctx = Context::new();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(adder(&ctx, "adder")).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    // One client shared by two threads: each call waits for its own sequence number.
    let client = Arc::new(caller.client::<AddTwoInts>("add").create().unwrap());
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let client = client.clone();
            thread::spawn(move || {
                for i in 0..50 {
                    let sum = client.call(add(t * 1000, i), PATIENCE).unwrap().sum;
                    assert_eq!(sum, t * 1000 + i);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    running.stop();
    running.join().unwrap().1.unwrap();
}

#[test]
fn a_full_request_queue_drops_the_oldest_or_refuses_and_counts() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let last = (node.service::<AddTwoInts>("last"))
        .history(History::KeepLast(2))
        .create()
        .unwrap();
    let to_last = node.client::<AddTwoInts>("last").create().unwrap();
    for i in 0..5 {
        to_last.send_request(add(i, 0)).unwrap();
    }
    assert_eq!(last.dropped_requests(), 3);
    let kept: Vec<_> = std::iter::from_fn(|| last.take_request())
        .map(|(id, r)| (id.sequence, r.a))
        .collect();
    assert_eq!(kept, [(4, 3), (5, 4)], "KeepLast keeps the newest");

    let all = (node.service::<AddTwoInts>("all"))
        .history(History::KeepAll { max: 2 })
        .create()
        .unwrap();
    let to_all = node.client::<AddTwoInts>("all").create().unwrap();
    to_all.send_request(add(1, 0)).unwrap();
    to_all.send_request(add(2, 0)).unwrap();
    let refused = to_all.send_request(add(3, 0));
    assert!(matches!(refused, Err(SendRequestError::Full(name)) if name == "/all"));
    assert_eq!(all.dropped_requests(), 1);
    assert_eq!(
        all.take_request().unwrap().1,
        add(1, 0),
        "KeepAll keeps the oldest"
    );
}

#[test]
fn a_full_response_queue_drops_the_oldest_and_counts() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    let client = (node.client::<AddTwoInts>("add"))
        .history(History::KeepLast(1))
        .create()
        .unwrap();
    client.send_request(add(1, 1)).unwrap();
    client.send_request(add(2, 2)).unwrap();
    while let Some((id, r)) = service.take_request() {
        service.send_response(id, AddResponse { sum: r.a + r.b });
    }
    assert_eq!(client.dropped_responses(), 1);
    assert_eq!(client.take_response().unwrap().1.sum, 4);
    assert_eq!(client.take_response(), None);
}

#[test]
fn a_response_to_a_client_gone_is_dropped_without_error() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    client.send_request(add(1, 1)).unwrap();
    drop(client);
    let (id, _) = service.take_request().unwrap();
    service.send_response(id, AddResponse { sum: 2 });
    // A client made afterwards starts with nothing.
    let later = node.client::<AddTwoInts>("add").create().unwrap();
    assert_ne!(later.id(), id.client);
    assert_eq!(later.take_response(), None);
}

#[test]
fn a_call_to_a_service_that_does_not_exist_fails_with_a_typed_error() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let client = node.client::<AddTwoInts>("nobody").create().unwrap();
    assert!(!client.service_is_ready());
    assert!(!client.wait_for_service(Duration::from_millis(10)));
    let call = client.call(add(1, 1), Duration::from_millis(10));
    assert!(matches!(call, Err(CallError::NoService(name)) if name == "/nobody"));
    let send = client.send_request(add(1, 1));
    assert!(matches!(send, Err(SendRequestError::NoService(_))));
}

#[test]
fn a_call_that_is_never_answered_times_out_with_a_typed_error() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    // A service nobody runs: the request waits in its queue.
    let service = node.service::<AddTwoInts>("silent").create().unwrap();
    let client = node.client::<AddTwoInts>("silent").create().unwrap();
    let call = client.call(add(1, 1), Duration::from_millis(10));
    assert!(matches!(call, Err(CallError::Timeout(_))));
    assert_eq!(service.pending(), 1);
}

#[test]
fn a_client_waits_for_a_service_that_appears_later() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let client = node.client::<AddTwoInts>("late").create().unwrap();
    let (made, made_rx) = mpsc::channel();
    let server_ctx = ctx.clone();
    let server = thread::spawn(move || {
        let mut node = server_ctx.node("late_server").unwrap();
        let service = node.service::<AddTwoInts>("late").create().unwrap();
        made.send(()).unwrap();
        service
    });
    assert!(client.wait_for_service(PATIENCE));
    made_rx.recv().unwrap();
    let service = server.join().unwrap();
    assert!(client.service_is_ready());
    drop(service);
    assert!(
        !client.service_is_ready(),
        "a dropped service is gone at once"
    );
}

#[test]
fn a_blocking_call_from_the_executor_that_serves_the_service_is_refused() {
    let ctx = Context::new();
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    executor.add(adder(&ctx, "adder")).unwrap();
    let mut node = ctx.node("caller").unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    // The service takes one request on this executor first: then the executor is known.
    client.send_request(add(0, 0)).unwrap();
    let outcome = Arc::new(Mutex::new(None));
    let seen = outcome.clone();
    node.execute(Trigger::every(Duration::from_millis(1)), move |_| {
        if client.take_response().is_some() {
            *seen.lock().unwrap() = Some(client.call(add(1, 1), PATIENCE));
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
    let outcome = outcome.lock().unwrap().take().unwrap();
    assert!(
        matches!(outcome, Err(CallError::WouldDeadlock(_))),
        "{outcome:?}"
    );
}

#[test]
fn a_blocking_call_from_one_executor_to_a_service_on_another_is_answered() {
    let ctx = Context::new();
    let mut server = WaitSetExecutor::new().unwrap();
    server.add(adder(&ctx, "adder")).unwrap();
    let serving = ExecutorThread::builder().spawn(server).unwrap();

    let mut executor = EventsExecutor::new().unwrap();
    let stop = executor.stop_handle();
    let mut node = ctx.node("caller").unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    let mut calls = 0;
    node.wall_timer(Duration::from_millis(1), move |_| {
        calls += 1;
        assert_eq!(client.call(add(calls, 1), PATIENCE).unwrap().sum, calls + 1);
        if calls == 3 {
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
    serving.stop();
    serving.join().unwrap().1.unwrap();
}

#[test]
fn the_let_executor_refuses_services_and_clients() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(Duration::from_millis(10)).unwrap();
    let mut server = ctx.node("server").unwrap();
    server
        .service::<AddTwoInts>("add")
        .callback(|r| AddResponse { sum: r.a + r.b })
        .unwrap();
    let refused = executor.add(server);
    assert!(matches!(
        refused,
        Err(AddError::ServicesUnsupported {
            executor: "LET",
            ..
        })
    ));

    let mut node = ctx.node("asker").unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    node.execute(Trigger::every(Duration::from_millis(10)), move |_| {
        let _ = client.send_request(add(1, 1));
    })
    .unwrap();
    let refused = executor.add(node);
    assert!(matches!(refused, Err(AddError::ServicesUnsupported { .. })));
}

#[test]
fn the_callback_executor_refuses_conditions_over_requests_as_over_samples() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let service = node.service::<AddTwoInts>("add").create().unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    let trigger = Trigger::all()
        .with_requests(&service)
        .with_responses(&client);
    node.execute(trigger, |_| {}).unwrap();
    let refused = CallbackExecutor::new().unwrap().add(node);
    assert!(matches!(refused, Err(AddError::UnsupportedTrigger { .. })));
}

#[test]
fn a_trigger_over_another_nodes_service_is_refused() {
    let ctx = Context::new();
    let mut owner = ctx.node("owner").unwrap();
    let service = owner.service::<AddTwoInts>("add").create().unwrap();
    let mut other = ctx.node("other").unwrap();
    let refused = other.execute(Trigger::on_request(&service), |_| {});
    assert_eq!(refused, Err(TriggerError::ForeignSubscription));
}

#[test]
fn bad_names_types_and_sizes_are_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    for name in ["", "a//b", "1add", "add-two", "a/"] {
        let service = node.service::<AddTwoInts>(name).create();
        assert!(
            matches!(service, Err(ServiceCreateError::Name(TopicError::Name(_)))),
            "{name:?}: {service:?}"
        );
        let client = node.client::<AddTwoInts>(name).create();
        assert!(
            matches!(client, Err(ClientCreateError::Name(TopicError::Name(_)))),
            "{name:?}: {client:?}"
        );
    }
    let long = "a".repeat(300);
    assert!(matches!(
        node.service::<AddTwoInts>(&long).create(),
        Err(ServiceCreateError::Name(TopicError::Name(
            tacto::names::NameError::FullName { .. }
        )))
    ));

    let service = node.service::<AddTwoInts>("add").create().unwrap();
    assert_eq!(service.name(), "/add");
    assert!(matches!(
        node.service::<AddTwoInts>("/add").create(),
        Err(ServiceCreateError::AlreadyServed(name)) if name == "/add"
    ));
    assert!(matches!(
        node.client::<Echo>("add").create(),
        Err(ClientCreateError::TypeMismatch {
            existing: "example_interfaces/srv/AddTwoInts",
            ..
        })
    ));
    assert!(matches!(
        (node.service::<AddTwoInts>("zero"))
            .history(History::KeepLast(0))
            .create(),
        Err(ServiceCreateError::ZeroCapacity)
    ));
    assert!(matches!(
        (node.client::<AddTwoInts>("zero"))
            .history(History::KeepAll { max: 0 })
            .create(),
        Err(ClientCreateError::ZeroCapacity)
    ));
    // Once the service is gone, its name may serve again, with any type.
    drop(service);
    assert!(node.service::<Echo>("add").create().is_ok());
}

#[test]
fn request_ids_name_the_client_and_count_from_one() {
    let ctx = Context::new();
    let mut node = ctx.node("n").unwrap();
    let _service = node.service::<AddTwoInts>("add").create().unwrap();
    let client = node.client::<AddTwoInts>("add").create().unwrap();
    let ids: Vec<RequestId> = (0..3)
        .map(|_| client.send_request(add(0, 0)).unwrap())
        .collect();
    let expected: Vec<_> = (1..=3)
        .map(|sequence| RequestId {
            client: client.id(),
            sequence,
        })
        .collect();
    assert_eq!(ids, expected);
}
