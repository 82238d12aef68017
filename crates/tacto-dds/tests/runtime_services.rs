//! tacto's `Service` and `Client` on the ROS 2 graph: a context with a `DdsTransport` serves
//! and calls services in other processes, checked against an independent Cyclone peer (the
//! PyPI `cyclonedds` package, `tests/cyclonedds/add_two_ints.py`) and against tacto in a
//! second process (this test binary, run again as a child). Domains 142-147.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, ExecutorThread, SpinOutcome, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

mod support;
use support::{PATIENCE, RclpyNode, loopback_participant};

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

/// A node whose requests trigger it, answering `a + b`, on a wait-set executor thread.
fn serve_sums(ctx: &Context) -> ExecutorThread<WaitSetExecutor> {
    let mut server = ctx.node("adder").expect("node");
    let service = (server.service::<AddTwoInts>("add_two_ints").create()).expect("service");
    server
        .execute(Trigger::on_request(&service), move |_| {
            while let Some((id, request)) = service.take_request() {
                let sum = request.a + request.b;
                service.send_response(id, AddTwoInts_Response { sum });
            }
        })
        .expect("trigger");
    let mut executor = WaitSetExecutor::new().expect("executor");
    executor.add(server).expect("add");
    ExecutorThread::builder().spawn(executor).expect("spawn")
}

#[test]
fn a_tacto_client_calls_a_cyclonedds_server_and_gets_only_its_own_replies() {
    let domain = 142;
    let server = RclpyNode::spawn_in(
        "cyclonedds",
        "add_two_ints.py",
        domain,
        &["server", &domain.to_string()],
    );
    expect_line(&server, "ready");
    let ctx = dds_context(domain);
    let mut node = ctx.node("caller").expect("node");
    let client = node
        .client::<AddTwoInts>("add_two_ints")
        .create()
        .expect("client");
    assert!(
        client.wait_for_service(PATIENCE),
        "no server matched; the peer said:\n{}",
        server.stderr()
    );
    assert!(client.service_is_ready());
    // The peer answers another client id first: that reply must not reach this client.
    let response = client
        .call(AddTwoInts_Request { a: 40, b: 2 }, PATIENCE)
        .unwrap_or_else(|e| panic!("{e}; the peer said:\n{}", server.stderr()));
    assert_eq!(response.sum, 42);
    assert!(
        expect_line(&server, "answered").ends_with(" 1"),
        "sequence 1"
    );
    let response = client
        .call(AddTwoInts_Request { a: -5, b: 3 }, PATIENCE)
        .expect("second call");
    assert_eq!(response.sum, -2);
    assert_eq!(client.pending(), 0, "the foreign reply was skipped");
}

#[test]
fn a_cyclonedds_client_is_answered_by_a_triggered_tacto_service() {
    let domain = 143;
    let ctx = dds_context(domain);
    let running = serve_sums(&ctx);
    let peer = RclpyNode::spawn_in(
        "cyclonedds",
        "add_two_ints.py",
        domain,
        &["client", &domain.to_string(), "20", "22"],
    );
    // The peer's request header: client id 0x1234abcd, sequence 7; the reply carries both.
    let line = expect_line(&peer, "reply");
    assert_eq!(line, format!("reply {} 7 42", 0x1234_abcd));
    running.stop();
    running.join().expect("executor").1.expect("spin");
}

#[test]
fn remote_requests_wake_an_executor_only_for_a_triggered_service() {
    let domain = 146;
    let peer = RclpyNode::spawn_in(
        "cyclonedds",
        "add_two_ints.py",
        domain,
        &["flood", &domain.to_string()],
    );

    // A service polled by its node, which a topic nobody publishes triggers.
    let polling_ctx = dds_context(domain);
    let mut poller = polling_ctx.node("polled_adder").expect("node");
    let polled = (poller.service::<AddTwoInts>("add_two_ints").create()).expect("service");
    let quiet = (poller.subscription::<Text>("quiet").create()).expect("subscription");
    poller
        .execute(Trigger::on(&quiet), |_| {})
        .expect("trigger");
    let mut polling = WaitSetExecutor::new().expect("executor");
    polling.add(poller).expect("add");

    // The same service in another context, triggered by its requests.
    let triggered_ctx = dds_context(domain);
    let mut reactor = triggered_ctx.node("triggered_adder").expect("node");
    let triggering = (reactor.service::<AddTwoInts>("add_two_ints").create()).expect("service");
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
    let (_, request) = polled.take_request().expect("a request");
    assert_eq!(request.b, 1, "the flood's requests add 1");

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
    let running = serve_sums(&ctx);
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

#[test]
fn a_tacto_client_calls_a_tacto_service_in_another_process() {
    let domain = 144;
    let mut child = ChildProcess(
        Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "child_serves_add_two_ints",
                "--ignored",
                "--nocapture",
            ])
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
    assert!(ready, "the child never served");

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
    let asking = std::sync::Arc::new(
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
