//! A tacto service over DDS whose callback keeps its requests and answers them later
//! (`ServiceBuilder::callback_with_id`), called by rclpy on rmw_cyclonedds. DDS domain 48.

mod support;

use std::sync::mpsc;
use std::time::Instant;

use support::test_msgs::{BasicTypesService, Request, Response};
use support::{PATIENCE, RclpyNode, loopback_participant, rclpy_on_cyclone};
use tacto::{Context, Executor, ExecutorThread, RequestId, WaitSetExecutor};
use tacto_dds::DdsTransport;

/// The `client ...` lines of an rclpy `clients` peer up to its `done`.
fn client_lines(peer: &RclpyNode) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    let mut lines = Vec::new();
    loop {
        match peer.next_line(deadline) {
            Some(line) if line == "done" => return lines,
            Some(line) if line.starts_with("client ") => lines.push(line),
            Some(_) => {}
            None => panic!("rclpy did not finish; it said:\n{}", peer.stderr()),
        }
    }
}

#[test]
fn an_rclpy_client_is_answered_by_a_tacto_service_that_answers_later_in_another_order() {
    const TEST: &str =
        "an_rclpy_client_is_answered_by_a_tacto_service_that_answers_later_in_another_order";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    const DOMAIN: u32 = 48;
    const CALLS: usize = 3;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut server = ctx.node("basic_types").unwrap();
    let (seen, ids) = mpsc::channel();
    let mut waiting = Vec::new();
    server
        .service::<BasicTypesService>("basic_types")
        .callback_with_id(move |responder, id, Request(request)| {
            seen.send(id).unwrap();
            waiting.push((id, request));
            // Nothing is answered until all calls are in; then the newest first.
            if waiting.len() == CALLS {
                for (id, request) in waiting.drain(..).rev() {
                    responder.send_response(id, Response(request.answered()));
                }
            }
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(server).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    // One client with its three calls out at once.
    let peer = rclpy.spawn(
        "basic_types_service.py",
        DOMAIN,
        &["clients", "/basic_types", "1", &CALLS.to_string()],
    );
    let mut lines = client_lines(&peer);
    lines.sort();
    let expected: Vec<String> = (0..CALLS)
        .map(|c| format!("client 0 got {} client 0 call {c} answered", c + 1))
        .collect();
    assert_eq!(lines, expected);

    // rmw's request header: the client's id, and its sequence numbers from 1.
    let ids: Vec<RequestId> = ids.try_iter().collect();
    assert_eq!(ids.len(), CALLS);
    assert!(ids.iter().all(|id| id.client == ids[0].client), "{ids:?}");
    let mut sequences: Vec<i64> = ids.iter().map(|id| id.sequence).collect();
    sequences.sort();
    assert_eq!(sequences, [1, 2, 3]);
    running.stop();
    running.join().unwrap().1.unwrap();
}
