//! Services over DDS against an independent Cyclone peer: the PyPI `cyclonedds` package
//! (`tests/cyclonedds/add_two_ints.py`), its request and reply types written as rmw_cyclonedds
//! lays them out. Domains 140-149.

use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tacto::{Message, RequestId, ServiceType};
use tacto_dds::service::{Client, Server};

mod support;
use support::{PATIENCE, RclpyNode, loopback_participant};

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct AddRequest {
    a: i64,
    b: i64,
}

impl Message for AddRequest {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request";
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct AddResponse {
    sum: i64,
}

impl Message for AddResponse {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response";
}

struct AddTwoInts;

impl ServiceType for AddTwoInts {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
    type Request = AddRequest;
    type Response = AddResponse;
}

/// Polls `poll` every 10 ms until it returns something; fails after [`PATIENCE`], with the
/// peer's stderr.
fn wait_for<T>(peer: &RclpyNode, what: &str, mut poll: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = poll() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "{what} within {PATIENCE:?}; the peer said:\n{}",
            peer.stderr()
        );
        thread::sleep(Duration::from_millis(10));
    }
}

fn expect_line(peer: &RclpyNode, prefix: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match peer.next_line(deadline) {
            Some(line) if line.starts_with(prefix) => return line,
            Some(_) => {}
            None => panic!(
                "no {prefix:?} line from the peer; it said:\n{}",
                peer.stderr()
            ),
        }
    }
}

#[test]
fn a_tacto_client_is_answered_by_a_cyclonedds_server_and_skips_replies_to_others() {
    let domain = 140;
    let server = RclpyNode::spawn_in(
        "cyclonedds",
        "add_two_ints.py",
        domain,
        &["server", &domain.to_string()],
    );
    expect_line(&server, "ready");
    let participant = loopback_participant(domain);
    let client = Client::<AddTwoInts>::new(&participant, "/add_two_ints").expect("client");
    wait_for(&server, "a matched server", || {
        client.service_is_ready().expect("status").then_some(())
    });

    let id = client
        .send_request(&AddRequest { a: 40, b: 2 })
        .expect("send");
    assert_eq!(
        id,
        RequestId {
            client: client.id(),
            sequence: 1
        }
    );
    let (answered, response) =
        wait_for(&server, "a reply", || client.take_response().expect("take"));
    // The peer sent a reply to another client id first: it was skipped.
    assert_eq!((answered, response), (id, AddResponse { sum: 42 }));
    let line = expect_line(&server, "answered");
    assert_eq!(line, format!("answered {} 1", client.id()));

    let second = client
        .send_request(&AddRequest { a: -5, b: 3 })
        .expect("send");
    assert_eq!(second.sequence, 2);
    let (answered, response) = wait_for(&server, "a second reply", || {
        client.take_response().expect("take")
    });
    assert_eq!((answered, response.sum), (second, -2));
}

#[test]
fn a_tacto_server_answers_a_cyclonedds_client_under_its_request_id() {
    let domain = 141;
    let participant = loopback_participant(domain);
    let server = Server::<AddTwoInts>::new(&participant, "add_two_ints").expect("server");
    let peer = RclpyNode::spawn_in(
        "cyclonedds",
        "add_two_ints.py",
        domain,
        &["client", &domain.to_string(), "20", "22"],
    );
    let (id, request) = wait_for(&peer, "a request", || server.take_request().expect("take"));
    // The peer's header: client id 0x1234abcd, sequence 7.
    assert_eq!(
        id,
        RequestId {
            client: 0x1234_abcd,
            sequence: 7
        }
    );
    assert_eq!(request, AddRequest { a: 20, b: 22 });
    server
        .send_response(
            id,
            &AddResponse {
                sum: request.a + request.b,
            },
        )
        .expect("send");
    let line = expect_line(&peer, "reply");
    assert_eq!(line, format!("reply {} 7 42", 0x1234_abcd));
}
