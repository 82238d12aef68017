//! `tacto_dds::service`'s raw client and server against rclpy on the real rmw_cyclonedds
//! (`tests/rclpy/basic_types_service.py`, `test_msgs/srv/BasicTypes`), several clients at once
//! so that every reply must reach the client that asked: rmw_cyclonedds routes replies by the
//! client id in the request header (its request writer's instance handle) and USER_DATA
//! `clientid=`/`serviceid=`. Domains 140-141.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::thread;
use std::time::{Duration, Instant};

use support::test_msgs::{BasicTypes, BasicTypesService, Request, Response};
use support::{PATIENCE, RclpyNode, loopback_participant, rclpy_on_cyclone};
use tacto::RequestId;
use tacto_dds::service::{Client, Server};

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
fn raw_clients_calling_an_rclpy_service_at_once_each_get_only_their_own_replies() {
    const TEST: &str =
        "raw_clients_calling_an_rclpy_service_at_once_each_get_only_their_own_replies";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let domain = 140;
    let server = rclpy.spawn("basic_types_service.py", domain, &["server", "/raw_basic"]);
    expect_line(&server, "ready");
    let participant = loopback_participant(domain);
    let clients: Vec<Client<BasicTypesService>> = (0..3)
        .map(|_| Client::new(&participant, "/raw_basic").expect("client"))
        .collect();
    let deadline = Instant::now() + PATIENCE;
    while !clients
        .iter()
        .all(|c| c.service_is_ready().expect("status"))
    {
        assert!(
            Instant::now() < deadline,
            "no server matched; it said:\n{}",
            server.stderr()
        );
        thread::sleep(Duration::from_millis(10));
    }

    // Every request out before any reply is read: each client's reader sees all nine replies.
    let calls = 3;
    let mut asked = BTreeMap::new();
    for call in 0..calls {
        for (k, client) in clients.iter().enumerate() {
            let text = format!("raw client {k} call {call}");
            let id =
                (client.send_request(&Request(BasicTypes::new(call, text.clone())))).expect("send");
            assert_eq!(id.client, client.id());
            assert_eq!(id.sequence, call + 1, "each client counts from 1");
            asked.insert((k, id), text);
        }
    }
    let mut answered = BTreeMap::new();
    while answered.len() < asked.len() {
        assert!(
            Instant::now() < deadline,
            "{} of {} replies; the server said:\n{}",
            answered.len(),
            asked.len(),
            server.stderr()
        );
        for (k, client) in clients.iter().enumerate() {
            while let Some((id, Response(reply))) = client.take_response().expect("take") {
                let text = reply.string_value.clone();
                assert!(
                    answered
                        .insert((k, id), (reply.int64_value, text))
                        .is_none(),
                    "reply {id:?} came twice to client {k}"
                );
            }
        }
        thread::sleep(Duration::from_millis(10));
    }
    // Each client got exactly the replies to its own requests: nothing of the others'.
    let expected: BTreeMap<(usize, RequestId), (i64, String)> = asked
        .into_iter()
        .map(|((k, id), text)| ((k, id), (id.sequence, format!("{text} answered"))))
        .collect();
    assert_eq!(answered, expected);
}

#[test]
fn rclpy_clients_are_answered_by_a_raw_server_under_their_own_request_ids() {
    const TEST: &str = "rclpy_clients_are_answered_by_a_raw_server_under_their_own_request_ids";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let domain = 141;
    let participant = loopback_participant(domain);
    let server = Server::<BasicTypesService>::new(&participant, "raw_basic").expect("server");
    let (clients, calls) = (3, 3);
    let mut peer = rclpy.spawn(
        "basic_types_service.py",
        domain,
        &[
            "clients",
            "/raw_basic",
            &clients.to_string(),
            &calls.to_string(),
        ],
    );
    expect_line(&peer, "ready");

    // Serve until the peer printed all its responses.
    let mut requests = Vec::new();
    let mut lines = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    loop {
        while let Some((id, Request(request))) = server.take_request().expect("take") {
            server
                .send_response(id, &Response(request.answered()))
                .expect("send");
            requests.push((id, request.string_value));
        }
        match peer.next_line(Instant::now() + Duration::from_millis(10)) {
            Some(line) if line == "done" => break,
            Some(line) => lines.push(line),
            None => assert!(
                Instant::now() < deadline && peer.exited().is_none(),
                "{} responses of {}; the peer said:\n{}",
                lines.len(),
                clients * calls,
                peer.stderr()
            ),
        }
    }
    // rmw_cyclonedds' header: the client's request writer's instance handle, one per client,
    // and a sequence number counted for the whole process (a static counter in
    // rmw_send_request), so 1 to 9 across the three clients.
    let ids: BTreeSet<u64> = requests.iter().map(|(id, _)| id.client).collect();
    assert_eq!(ids.len(), clients, "{requests:?}");
    let sequences: BTreeSet<i64> = requests.iter().map(|(id, _)| id.sequence).collect();
    assert_eq!(
        sequences,
        (1..=(clients * calls) as i64).collect(),
        "{requests:?}"
    );
    for client in &ids {
        let strings: BTreeSet<&str> = (requests.iter())
            .filter(|(id, _)| id.client == *client)
            .map(|(_, text)| text.split(" call ").next().unwrap_or_default())
            .collect();
        assert_eq!(strings.len(), 1, "one rclpy client per id: {requests:?}");
    }
    // Each rclpy client got the answer to each of its own requests.
    let mut expected: Vec<String> = (0..calls)
        .flat_map(|c| (0..clients).map(move |k| (k, c)))
        .map(|(k, c)| {
            format!(
                "client {k} got {} client {k} call {c} answered",
                k * 1000 + c + 1
            )
        })
        .collect();
    expected.sort();
    lines.sort();
    assert_eq!(lines, expected);
}
