//! Services whose callback sees each request's id and answers when it likes
//! (`ServiceBuilder::callback_with_id`, rclcpp's callbacks with the request header and the
//! deferred response), inside one process, on every executor.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use tacto::client::CallError;
use tacto::msg::std_msgs::Empty;
use tacto::{Context, Executor, ExecutorThread, RequestId, WaitSetExecutor};

#[macro_use]
mod util;
use util::{AddRequest, AddResponse, AddTwoInts, PATIENCE, SETTLE, spin_until_stopped};

fn add(a: i64, b: i64) -> AddRequest {
    AddRequest { a, b }
}

fn sum(request: &AddRequest) -> AddResponse {
    AddResponse {
        sum: request.a + request.b,
    }
}

type Waiting = Arc<Mutex<Vec<(RequestId, AddRequest)>>>;

each_executor!(a_request_kept_by_the_callback_is_answered_by_a_later_run_of_another_executable);
fn a_request_kept_by_the_callback_is_answered_by_a_later_run_of_another_executable(
    mut executor: impl Executor,
) {
    let ctx = Context::new();
    let mut server = ctx.node("planner").unwrap();
    let waiting = Waiting::default();
    let keep = waiting.clone();
    let stop = executor.stop_handle();
    let responder = server
        .service::<AddTwoInts>("plan")
        .callback_with_id(move |_, id, request| {
            keep.lock().unwrap().push((id, request));
            stop.stop();
        })
        .unwrap();
    // Answers what waits once the node has what it needs: here, a message on `ready`.
    let stop = executor.stop_handle();
    server
        .subscription::<Empty>("ready")
        .callback(move |_| {
            for (id, request) in waiting.lock().unwrap().drain(..) {
                responder.send_response(id, sum(&request));
            }
            stop.stop();
        })
        .unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>("plan").create().unwrap();
    let ready = caller.publisher::<Empty>("ready").create().unwrap();
    executor.add(server).unwrap();

    let sent = client.send_request(add(2, 3)).unwrap();
    spin_until_stopped(&mut executor);
    executor.spin_for(SETTLE).unwrap(); // a window: watches for an answer that must not come
    assert_eq!(client.take_response(), None, "taken, not answered yet");

    ready.publish(Empty::default());
    spin_until_stopped(&mut executor);
    assert_eq!(client.take_response(), Some((sent, AddResponse { sum: 5 })));
}

each_executor!(the_callback_sees_each_clients_id_and_its_sequence_counting_from_one);
/// The id is rmw's request header: the client's id (its writer's GUID in rmw) and the client's
/// sequence number, which rcl starts at 1 (`rcl/src/rcl/client.c`, `rcl_send_request`); the
/// callback answers at once, as rclcpp's callback with the header
/// (`test_any_service_callback.cpp`, `set_and_dispatch_header`).
fn the_callback_sees_each_clients_id_and_its_sequence_counting_from_one(
    mut executor: impl Executor,
) {
    let ctx = Context::new();
    let mut server = ctx.node("adder").unwrap();
    let (seen, ids) = mpsc::channel();
    let stop = executor.stop_handle();
    server
        .service::<AddTwoInts>("add")
        .callback_with_id(move |responder, id, request| {
            seen.send(id).unwrap();
            responder.send_response(id, sum(&request));
            stop.stop();
        })
        .unwrap();
    executor.add(server).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let first = caller.client::<AddTwoInts>("add").create().unwrap();
    let second = caller.client::<AddTwoInts>("add").create().unwrap();
    assert_ne!(first.id(), second.id());

    for (client, request) in [
        (&first, add(1, 1)),
        (&second, add(2, 2)),
        (&first, add(3, 3)),
    ] {
        let sent = client.send_request(request).unwrap();
        spin_until_stopped(&mut executor);
        assert_eq!(
            ids.try_recv(),
            Ok(sent),
            "the callback saw the id the client sent"
        );
    }
    let one = |sequence| RequestId {
        client: first.id(),
        sequence,
    };
    let two = RequestId {
        client: second.id(),
        sequence: 1,
    };
    assert_eq!(
        first.take_response(),
        Some((one(1), AddResponse { sum: 2 }))
    );
    assert_eq!(
        first.take_response(),
        Some((one(2), AddResponse { sum: 6 }))
    );
    assert_eq!(second.take_response(), Some((two, AddResponse { sum: 4 })));
}

each_executor!(a_callback_that_does_not_answer_sends_nothing_and_the_next_request_is_served);
/// rclcpp's deferred callbacks return no response (`test_any_service_callback.cpp`,
/// `set_and_dispatch_defered`, `set_and_dispatch_defered_with_service_handle`): nothing is
/// sent and nothing is kept; the client's call times out.
fn a_callback_that_does_not_answer_sends_nothing_and_the_next_request_is_served(
    mut executor: impl Executor,
) {
    let ctx = Context::new();
    let mut server = ctx.node("picky").unwrap();
    let stop = executor.stop_handle();
    server
        .service::<AddTwoInts>("add")
        .callback_with_id(move |responder, id, request| {
            if request.a >= 0 {
                responder.send_response(id, sum(&request));
            }
            stop.stop();
        })
        .unwrap();
    executor.add(server).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>("add").create().unwrap();

    let ignored = client.send_request(add(-1, 0)).unwrap();
    spin_until_stopped(&mut executor);
    let answered = client.send_request(add(1, 0)).unwrap();
    spin_until_stopped(&mut executor);
    assert_eq!(ignored.sequence + 1, answered.sequence);
    assert_eq!(
        client.take_response(),
        Some((answered, AddResponse { sum: 1 }))
    );
    assert_eq!(client.take_response(), None, "nothing for the ignored one");
}

#[test]
fn a_blocking_call_is_answered_from_a_thread_the_callback_handed_the_request_to() {
    let ctx = Context::new();
    let mut server = ctx.node("offloader").unwrap();
    server
        .service::<AddTwoInts>("slow_add")
        .callback_with_id(|responder, id, request| {
            // The work goes to a thread of its own; the executor serves others meanwhile.
            let responder = responder.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(5));
                responder.send_response(id, sum(&request));
            });
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(server).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    let mut caller = ctx.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>("slow_add").create().unwrap();
    for n in 0..3 {
        let response = client.call(add(n, 10), PATIENCE).unwrap();
        assert_eq!(response.sum, n + 10);
    }
    running.stop();
    running.join().unwrap().1.unwrap();
}

#[test]
fn a_request_never_answered_times_out_its_call() {
    let ctx = Context::new();
    let mut server = ctx.node("mute").unwrap();
    server
        .service::<AddTwoInts>("add")
        .callback_with_id(|_, _, _| {})
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(server).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>("add").create().unwrap();
    let call = client.call(add(1, 2), Duration::from_millis(50));
    assert!(matches!(call, Err(CallError::Timeout(_))), "{call:?}");
    running.stop();
    running.join().unwrap().1.unwrap();
}

#[test]
fn a_responder_outliving_its_service_answers_no_one_and_frees_the_name() {
    let ctx = Context::new();
    let mut server = ctx.node("short_lived").unwrap();
    let waiting = Waiting::default();
    let keep = waiting.clone();
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    let responder = server
        .service::<AddTwoInts>("add")
        .callback_with_id(move |_, id, request| {
            keep.lock().unwrap().push((id, request));
            stop.stop();
        })
        .unwrap();
    executor.add(server).unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>("add").create().unwrap();
    client.send_request(add(1, 2)).unwrap();
    spin_until_stopped(&mut executor);
    let (id, request) = waiting.lock().unwrap().pop().expect("taken");

    drop(executor);
    assert!(
        !client.service_is_ready(),
        "the service went with its executor"
    );
    responder.send_response(id, sum(&request));
    assert_eq!(client.take_response(), None);
    let mut successor = ctx.node("successor").unwrap();
    assert!(successor.service::<AddTwoInts>("add").create().is_ok());
}
