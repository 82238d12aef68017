//! tacto's `Service` and `Client` on the ROS 2 graph: a context with a `DdsTransport` serves
//! and calls services in other processes, checked against rclpy on the real rmw_cyclonedds
//! (`tests/rclpy/basic_types_service.py`, several clients at once so that every response must
//! reach the client that asked), against requests no ROS 2 client sends (the PyPI `cyclonedds`
//! package, `tests/cyclonedds/malformed_requests.py`) and against tacto in a second process
//! (this test binary, run again as a child). Domains 142-149.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use tacto::msg::rcl_interfaces::srv::{GetParameters, GetParameters_Request};
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, ExecutorThread, Service, SpinOutcome, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

mod support;
use support::test_msgs::{BasicTypes, BasicTypesService, Request, Response};
use support::{PATIENCE, RclpyNode, loopback_participant, rclpy_on_cyclone};

fn dds_context(domain: u32) -> Context {
    Context::builder()
        .transport(DdsTransport::new(loopback_participant(domain)))
        .create()
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

/// A node whose requests trigger it, answering `a + b`, on a wait-set executor thread; and
/// its service, for its counters.
fn serve_sums(ctx: &Context) -> (ExecutorThread<WaitSetExecutor>, Arc<Service<AddTwoInts>>) {
    let mut server = ctx.node("adder").expect("node");
    let service =
        Arc::new((server.service::<AddTwoInts>("add_two_ints").create()).expect("service"));
    let serving = service.clone();
    server
        .execute(Trigger::on_request(&service), move |_| {
            let service = &serving;
            while let Some((id, request)) = service.take_request() {
                let sum = request.a + request.b;
                service.send_response(id, AddTwoInts_Response { sum });
            }
        })
        .expect("trigger");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(server).expect("add");
    let running = ExecutorThread::builder().spawn(executor).expect("spawn");
    (running, service)
}

/// A node whose requests trigger it, answering as `basic_types_service.py` does, on a
/// wait-set executor thread.
fn serve_basic_types(ctx: &Context) -> ExecutorThread<WaitSetExecutor> {
    let mut server = ctx.node("basic_types").expect("node");
    let service = (server.service::<BasicTypesService>("basic_types").create()).expect("service");
    server
        .execute(Trigger::on_request(&service), move |_| {
            while let Some((id, Request(request))) = service.take_request() {
                service.send_response(id, Response(request.answered()));
            }
        })
        .expect("trigger");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(server).expect("add");
    ExecutorThread::builder().spawn(executor).expect("spawn")
}

/// The lines `basic_types_service.py clients NAME CLIENTS CALLS` prints when each of its clients
/// got the answer to each of its own requests, sorted.
fn rclpy_clients_answered(clients: i64, calls: i64) -> Vec<String> {
    let mut lines: Vec<String> = (0..clients)
        .flat_map(|k| (0..calls).map(move |c| (k, c)))
        .map(|(k, c)| {
            format!(
                "client {k} got {} client {k} call {c} answered",
                k * 1000 + c + 1
            )
        })
        .collect();
    lines.sort();
    lines
}

/// The `client ...` lines of an rclpy `clients` peer up to its `done`, sorted.
fn rclpy_client_lines(peer: &RclpyNode) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = expect_line(peer, "");
        if line == "done" {
            lines.sort();
            return lines;
        }
        if line.starts_with("client ") {
            lines.push(line);
        }
    }
}

#[test]
fn tacto_clients_calling_an_rclpy_service_at_once_each_get_only_their_own_responses() {
    const TEST: &str =
        "tacto_clients_calling_an_rclpy_service_at_once_each_get_only_their_own_responses";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let domain = 142;
    let server = rclpy.spawn(
        "basic_types_service.py",
        domain,
        &["server", "/basic_types"],
    );
    expect_line(&server, "ready");
    let ctx = dds_context(domain);
    // Three clients in three nodes, and rclpy's own clients of the same service at the same
    // time: every client's reply reader sees every reply, and keeps its own.
    let clients: Vec<_> = (0..3)
        .map(|k| {
            let mut node = ctx.node(&format!("caller_{k}")).expect("node");
            (node.client::<BasicTypesService>("basic_types").create()).expect("client")
        })
        .collect();
    for client in &clients {
        assert!(
            client.wait_for_service(PATIENCE),
            "no server matched; the peer said:\n{}",
            server.stderr()
        );
    }
    let rclpy_clients = rclpy.spawn(
        "basic_types_service.py",
        domain,
        &["clients", "/basic_types", "2", "3"],
    );
    let calls = 3;
    let mut asked = BTreeMap::new();
    for call in 0..calls {
        for (k, client) in clients.iter().enumerate() {
            let text = format!("tacto client {k} call {call}");
            let id = (client.send_request(Request(BasicTypes::new(call, text.clone()))))
                .unwrap_or_else(|e| panic!("send: {e}"));
            asked.insert((k, id), BasicTypes::new(call, text).answered());
        }
    }
    let deadline = Instant::now() + PATIENCE;
    let mut answered = BTreeMap::new();
    while answered.len() < asked.len() {
        assert!(
            Instant::now() < deadline,
            "{} of {} responses; the server said:\n{}",
            answered.len(),
            asked.len(),
            server.stderr()
        );
        for (k, client) in clients.iter().enumerate() {
            while let Some((id, Response(response))) = client.take_response() {
                assert!(
                    answered.insert((k, id), response).is_none(),
                    "response {id:?} came twice to client {k}"
                );
            }
        }
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(answered, asked);
    assert_eq!(
        rclpy_client_lines(&rclpy_clients),
        rclpy_clients_answered(2, 3)
    );
    thread::sleep(Duration::from_millis(200));
    for (k, client) in clients.iter().enumerate() {
        assert_eq!(client.pending(), 0, "client {k} got another's response");
    }
}

#[test]
fn rclpy_clients_calling_at_once_are_answered_by_a_triggered_tacto_service() {
    const TEST: &str = "rclpy_clients_calling_at_once_are_answered_by_a_triggered_tacto_service";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let domain = 143;
    let ctx = dds_context(domain);
    let running = serve_basic_types(&ctx);
    // Two processes of two clients, each client with two calls out at once: eight requests,
    // whose replies every client's reader receives (rmw_cyclonedds' clients share one reply
    // topic and keep their own by id). More than the readers' depth of 10 (rclpy's default
    // service QoS) loses requests or replies on rmw_cyclonedds itself: with 2 × 3 × 3, an
    // rclpy server on rmw_cyclonedds left a client unanswered in 2 of 20 runs, as tacto did.
    let peers: Vec<RclpyNode> = (0..2)
        .map(|_| {
            rclpy.spawn(
                "basic_types_service.py",
                domain,
                &["clients", "/basic_types", "2", "2"],
            )
        })
        .collect();
    for peer in &peers {
        assert_eq!(rclpy_client_lines(peer), rclpy_clients_answered(2, 2));
    }
    running.stop();
    running.join().expect("executor").1.expect("spin");
}

/// Requests no rclpy client sends, from the `cyclonedds` package: one too short for its
/// request header (dropped before decoding, as `service_link.rs` says), one whose body is cut
/// (counted malformed), then a good one, answered under its own id.
#[test]
fn malformed_requests_are_skipped_and_the_next_good_one_is_answered() {
    let domain = 148;
    let ctx = dds_context(domain);
    let (running, service) = serve_sums(&ctx);
    let peer = RclpyNode::spawn_in(
        "cyclonedds",
        "malformed_requests.py",
        domain,
        &[&domain.to_string()],
    );
    // The peer's header: client id 0x1234abcd, sequence 2; the reply carries both.
    let line = expect_line(&peer, "reply");
    assert_eq!(line, format!("reply {} 2 42", 0x1234_abcd));
    // The peer wrote each after the one before was acknowledged: both were taken before it.
    assert_eq!(service.malformed_requests(), 1, "the cut body");
    running.stop();
    running.join().expect("executor").1.expect("spin");
}

#[test]
fn remote_requests_wake_an_executor_only_for_a_triggered_service() {
    const TEST: &str = "remote_requests_wake_an_executor_only_for_a_triggered_service";
    let Some(rclpy) = rclpy_on_cyclone(TEST) else {
        return;
    };
    let domain = 146;
    let peer = rclpy.spawn("basic_types_service.py", domain, &["flood", "/basic_types"]);

    // A service polled by its node, which a topic nobody publishes triggers.
    let polling_ctx = dds_context(domain);
    let mut poller = polling_ctx.node("polled_adder").expect("node");
    let polled = (poller.service::<BasicTypesService>("basic_types").create()).expect("service");
    let quiet = (poller.subscription::<Text>("quiet").create()).expect("subscription");
    poller
        .execute(Trigger::on(&quiet), |_| {})
        .expect("trigger");
    let mut polling = WaitSetExecutor::new().expect("executor");
    polling.add(poller).expect("add");

    // The same service in another context, triggered by its requests.
    let triggered_ctx = dds_context(domain);
    let mut reactor = triggered_ctx.node("triggered_adder").expect("node");
    let triggering =
        (reactor.service::<BasicTypesService>("basic_types").create()).expect("service");
    let trigger = Trigger::on_request(&triggering);
    reactor
        .execute(
            trigger,
            move |_| while triggering.take_request().is_some() {},
        )
        .expect("trigger");
    let mut reacting = WaitSetExecutor::new().expect("executor");
    reacting.add(reactor).expect("add");

    let deadline = Instant::now() + PATIENCE;
    while polled.pending() == 0 {
        assert!(
            Instant::now() < deadline,
            "no request arrived; the peer said:\n{}",
            peer.stderr()
        );
        thread::sleep(Duration::from_millis(10));
    }
    while polled.take_request().is_some() {}

    // Windows of 200 ms: the polling executor wakes at most once per window, for its
    // deadline, while requests arrive every 10 ms; the triggered one runs its node for them.
    let windows = 5;
    let before = polling.stats().wakeups;
    for _ in 0..windows {
        let outcome = polling.spin_for(Duration::from_millis(200)).expect("spin");
        assert_eq!(outcome, SpinOutcome::Elapsed);
    }
    let wakeups = polling.stats().wakeups - before;
    assert!(polled.pending() > 0, "requests arrived during the windows");
    assert!(
        wakeups <= windows,
        "{wakeups} wake-ups of the executor of a polled service"
    );
    let (_, Request(request)) = polled.take_request().expect("a request");
    assert_eq!(request.string_value, "flood");

    let before = reacting.stats().executions;
    for _ in 0..windows {
        reacting.spin_for(Duration::from_millis(200)).expect("spin");
    }
    let runs = reacting.stats().executions - before;
    assert!(
        runs > windows,
        "{runs} runs of the triggered service's node"
    );
    assert_eq!(
        polling.stats().executions,
        0,
        "the quiet trigger never fired"
    );
}

/// The child's side of [`a_tacto_client_calls_a_tacto_service_in_another_process`]: serves
/// sums in domain `TACTO_TEST_DOMAIN` until killed (at most [`PATIENCE`] twice).
#[test]
#[ignore = "run as a child process by a_tacto_client_calls_a_tacto_service_in_another_process"]
fn child_serves_add_two_ints() {
    let domain = std::env::var("TACTO_TEST_DOMAIN")
        .expect("TACTO_TEST_DOMAIN")
        .parse()
        .expect("a domain id");
    let ctx = dds_context(domain);
    let (running, _) = serve_sums(&ctx);
    println!("ready");
    thread::sleep(2 * PATIENCE);
    running.stop();
}

/// A child process, killed when dropped.
struct ChildProcess(Child);

impl Drop for ChildProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts this test binary's ignored test `role` as a child process in `domain`, and waits
/// until it prints "ready".
fn start_child(role: &str, domain: u32) -> ChildProcess {
    let mut child = ChildProcess(
        Command::new(std::env::current_exe().expect("test binary"))
            .args(["--exact", role, "--ignored", "--nocapture"])
            .env("TACTO_TEST_DOMAIN", domain.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("child"),
    );
    let stdout = child.0.stdout.take().expect("piped");
    let (lines, from_child) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let ready = loop {
        match from_child.recv_timeout(PATIENCE) {
            Ok(line) if line == "ready" => break true,
            Ok(_) => {}
            Err(_) => break false,
        }
    };
    assert!(ready, "the child {role} never said it was ready");
    child
}

#[test]
fn a_tacto_client_calls_a_tacto_service_in_another_process() {
    let domain = 144;
    let child = start_child("child_serves_add_two_ints", domain);

    let ctx = dds_context(domain);
    let mut node = ctx.node("caller").expect("node");
    let client = node
        .client::<AddTwoInts>("add_two_ints")
        .create()
        .expect("client");
    for (a, b) in [(1, 2), (30, 12), (-7, 7)] {
        let response = (client.call(AddTwoInts_Request { a, b }, PATIENCE))
            .unwrap_or_else(|e| panic!("call {a} + {b}: {e}"));
        assert_eq!(response.sum, a + b);
    }

    // Non-blocking: a node that its responses trigger, on this process's executor.
    let mut asker = ctx.node("asker").expect("node");
    let asking = Arc::new(
        asker
            .client::<AddTwoInts>("add_two_ints")
            .create()
            .expect("client"),
    );
    assert!(asking.wait_for_service(PATIENCE));
    let id = asking
        .send_request(AddTwoInts_Request { a: 100, b: 1 })
        .expect("send");
    let (sums, got) = mpsc::channel();
    let answers = asking.clone();
    asker
        .execute(Trigger::on_response(&answers), move |_| {
            while let Some(answer) = answers.take_response() {
                let _ = sums.send(answer);
            }
        })
        .expect("trigger");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(asker).expect("add");
    let running = ExecutorThread::builder().spawn(executor).expect("spawn");
    let (answered, response) = got.recv_timeout(PATIENCE).expect("a triggered response");
    assert_eq!((answered, response.sum), (id, 101));
    running.stop();
    running.join().expect("executor").1.expect("spin");

    // A service in this process takes over: calls stay in the process.
    let mut local = ctx.node("local_adder").expect("node");
    (local.service::<AddTwoInts>("add_two_ints"))
        .callback(|request| AddTwoInts_Response {
            sum: request.a * request.b,
        })
        .expect("local service");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(local).expect("add");
    let running = ExecutorThread::builder().spawn(executor).expect("spawn");
    let response = client
        .call(AddTwoInts_Request { a: 6, b: 7 }, PATIENCE)
        .expect("local call");
    assert_eq!(
        response.sum, 42,
        "answered by the local service, which multiplies"
    );
    running.stop();
    running.join().expect("executor").1.expect("spin");
    drop(child);
}

/// The built example `name`, which `cargo test -p tacto-dds` builds before the tests.
fn example(name: &str) -> std::path::PathBuf {
    let path = std::env::current_exe()
        .expect("test binary")
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir")
        .join("examples")
        .join(name);
    assert!(
        path.exists(),
        "{} is not built: run `cargo test -p tacto-dds` (which builds the examples) or \
         `cargo build -p tacto-dds --examples` first",
        path.display()
    );
    path
}

/// The loopback interface for Cyclone, where rclpy's Fast DDS meets it under LOCALHOST
/// discovery (the README's setting for this).
const LOOPBACK_URI: &str = "<CycloneDDS><Domain><General><Interfaces>\
    <NetworkInterface name=\"lo\"/></Interfaces></General></Domain></CycloneDDS>";

/// Starts example `name` with `--count count` in DDS domain `domain`, loopback discovery.
fn spawn_example(name: &str, count: &str, domain: u32) -> ChildProcess {
    ChildProcess(
        Command::new(example(name))
            .args(["--count", count])
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env("CYCLONEDDS_URI", LOOPBACK_URI)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}")),
    )
}

/// Waits for `child` to exit by itself, successfully, and returns its stdout.
fn output_of(mut child: ChildProcess, what: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "{what} within {PATIENCE:?}");
        thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{what}: it failed, {status}");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.0.stdout.take().expect("piped"), &mut out)
        .expect("stdout");
    out
}

/// The built `talker` and `listener` examples, as two processes: the listener hears the
/// talker's messages. Both stop by `--count`.
#[test]
fn the_talker_example_reaches_the_listener_example() {
    let domain = 145;
    let listener = spawn_example("listener", "3", domain);
    // Talks long enough for discovery on a loaded machine; the listener needs 3 messages.
    let _talker = spawn_example("talker", "90", domain);
    let out = output_of(listener, "the listener heard 3 messages");
    let heard: Vec<&str> = out.lines().collect();
    assert_eq!(heard.len(), 3, "{out}");
    for line in heard {
        assert!(line.starts_with("I heard: [Hello World: "), "{line}");
    }
}

/// The examples and rclpy's nodes (Fast DDS) on one topic: the `listener` example hears an
/// rclpy talker, an rclpy listener hears the `talker` example.
#[test]
fn the_examples_talk_with_rclpy() {
    let domain = 147;
    let _rclpy_talker = RclpyNode::spawn("talker.py", domain, &["chatter", "from rclpy"]);
    let listener = spawn_example("listener", "3", domain);
    let out = output_of(listener, "the listener heard 3 messages of rclpy");
    for line in out.lines() {
        assert!(line.starts_with("I heard: [from rclpy "), "{line}");
    }
    assert_eq!(out.lines().count(), 3, "{out}");

    let rclpy_listener = RclpyNode::spawn("listener.py", domain, &["chatter", "Hello World:", "3"]);
    expect_line(&rclpy_listener, "ready");
    let _talker = spawn_example("talker", "90", domain);
    for _ in 0..3 {
        expect_line(&rclpy_listener, "Hello World: ");
    }
}

#[test]
#[ignore = "run as a child process by a_node_whose_context_handle_is_dropped_still_serves_its_parameters"]
fn child_runs_a_node_without_its_context_handle() {
    let domain = std::env::var("TACTO_TEST_DOMAIN")
        .expect("TACTO_TEST_DOMAIN")
        .parse()
        .expect("a domain id");
    let ctx = dds_context(domain);
    let mut node = ctx.node("kept").expect("node");
    node.parameters().declare("gain", 2.5).expect("declared");
    let quiet = (node.subscription::<Text>("quiet").create()).expect("subscription");
    node.execute(Trigger::on(&quiet), |_| {}).expect("trigger");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(node).expect("add");
    // What a program that builds its nodes in a function and returns the executor does.
    drop(ctx);
    let running = ExecutorThread::builder().spawn(executor).expect("spawn");
    println!("ready");
    thread::sleep(2 * PATIENCE);
    running.stop();
}

/// A node's context stays while an executor runs the node, as an rclcpp node holds its
/// context: its parameter services answer though the program dropped its `Context`.
#[test]
fn a_node_whose_context_handle_is_dropped_still_serves_its_parameters() {
    let domain = 149;
    let _child = start_child("child_runs_a_node_without_its_context_handle", domain);
    let ctx = dds_context(domain);
    let mut node = ctx.node("asking").expect("node");
    let get = (node.client::<GetParameters>("/kept/get_parameters"))
        .create()
        .expect("client");
    let request = GetParameters_Request {
        names: vec!["gain".into()],
    };
    let values = get.call(request, PATIENCE).expect("an answer").values;
    assert_eq!(values.len(), 1);
    assert_eq!(values[0].double_value, 2.5);
}
