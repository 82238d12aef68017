//! Services over `ShmTransport`, across real processes: this test binary re-executes itself as
//! the other process (`child_role`, selected by `TACTO_SHM_SERVICE_ROLE`), which builds its own
//! context on shared memory. Service names carry the parent's pid and the test's name, so
//! parallel runs never share a service.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iceoryx2::prelude::{
    MessagingPattern, NodeBuilder, ServiceName, SignalHandlingMode, ZeroCopySend,
};
use iceoryx2::service::ipc_threadsafe;
use tacto::client::{CallError, ClientCreateError, SendRequestError};
use tacto::serde::{Deserialize, Serialize};
use tacto::service::ServiceCreateError;
use tacto::{
    Context, Executor, ExecutorThread, History, Message, ServiceType, Trigger, WaitSetExecutor,
};
use tacto_shm::{MAX_IN_FLIGHT, ShmTransport};

mod support;
use support::{Child, PATIENCE, SAY, spin_until, static_config_path};

const ROLE: &str = "TACTO_SHM_SERVICE_ROLE";

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

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct EchoRequest {
    a: i64,
}

impl Message for EchoRequest {
    const TYPE_NAME: &'static str = "test_msgs/srv/Echo_Request";
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct EchoResponse {
    a: i64,
}

impl Message for EchoResponse {
    const TYPE_NAME: &'static str = "test_msgs/srv/Echo_Response";
}

/// Another service type on the same name, for the type check.
struct Echo;

impl ServiceType for Echo {
    const TYPE_NAME: &'static str = "test_msgs/srv/Echo";
    type Request = EchoRequest;
    type Response = EchoResponse;
}

fn service_name(test: &str) -> String {
    format!("/s{}_{test}", std::process::id())
}

/// A client history that holds the responses of a whole in-flight window.
fn window() -> History {
    History::KeepLast(MAX_IN_FLIGHT)
}

fn context(name: &str) -> Context {
    Context::builder()
        .transport(ShmTransport::new(name).unwrap())
        .create()
}

/// The other process: does what the role says.
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    let name = std::env::var("SERVICE").unwrap();
    let ctx = context("child");
    let mut node = ctx.node("child").unwrap();
    let lines = std::io::stdin().lines().map_while(Result::ok);
    match role.as_str() {
        // Answers every request with the sum, triggered on a wait-set executor, until stdin
        // closes.
        "serve" => {
            let service = node.service::<AddTwoInts>(&name).create().unwrap();
            let service = Arc::new(service);
            let serving = service.clone();
            node.execute(Trigger::on_request(&service), move |_| {
                while let Some((id, request)) = serving.take_request() {
                    let sum = request.a + request.b;
                    serving.send_response(id, AddResponse { sum });
                }
            })
            .unwrap();
            let mut executor = WaitSetExecutor::new().unwrap();
            executor.add(node).unwrap();
            let running = ExecutorThread::builder().spawn(executor).unwrap();
            println!("{SAY} ready");
            lines.for_each(drop);
            running.stop();
            running.join().unwrap().1.unwrap();
        }
        // Takes requests, polling, and never answers, until killed.
        "hold" => {
            let service = node.service::<AddTwoInts>(&name).create().unwrap();
            println!("{SAY} ready");
            let mut held = Vec::new();
            loop {
                match service.take_request() {
                    Some((id, request)) => {
                        held.push(id);
                        println!("{SAY} took {}", request.a);
                    }
                    None => std::thread::sleep(Duration::from_millis(1)),
                }
            }
        }
        // Takes nothing until told `take`, then answers everything waiting, polling.
        "later" => {
            let service = node.service::<AddTwoInts>(&name).create().unwrap();
            println!("{SAY} ready");
            for line in lines {
                assert_eq!(line, "take");
                let mut answered = 0;
                while let Some((id, request)) = service.take_request() {
                    service.send_response(
                        id,
                        AddResponse {
                            sum: request.a + request.b,
                        },
                    );
                    answered += 1;
                }
                println!("{SAY} answered {answered}");
            }
        }
        // A client: on each `go`, COUNT paced requests, first to the service SERVICE (not
        // waiting for answers), then, blocking, to SERVICE_trig.
        "two_phases" => {
            let count: i64 = std::env::var("COUNT").unwrap().parse().unwrap();
            let polled = node.client::<AddTwoInts>(&name).create().unwrap();
            let triggered = (node.client::<AddTwoInts>(&format!("{name}_trig")))
                .create()
                .unwrap();
            println!("{SAY} ready");
            let mut lines = lines;
            assert_eq!(lines.next().as_deref(), Some("go"));
            assert!(polled.wait_for_service(PATIENCE));
            for i in 0..count {
                polled.send_request(AddRequest { a: i, b: 0 }).unwrap();
                std::thread::sleep(Duration::from_millis(2));
            }
            println!("{SAY} sent {count}");
            assert_eq!(lines.next().as_deref(), Some("go"));
            for i in 0..count {
                let response = triggered.call(AddRequest { a: i, b: 1 }, PATIENCE).unwrap();
                assert_eq!(response.sum, i + 1);
            }
            println!("{SAY} called {count}");
            lines.for_each(drop);
        }
        // A client: on each `send K`, one request `a = K`, not waiting for its answer; on
        // `collect`, waits for the answers of all it sent and says their sums.
        "on_demand" => {
            let client = node.client::<AddTwoInts>(&name).create().unwrap();
            assert!(client.wait_for_service(PATIENCE));
            println!("{SAY} ready");
            let mut sent = 0;
            for line in lines {
                if let Some(k) = line.strip_prefix("send ") {
                    client
                        .send_request(AddRequest {
                            a: k.parse().unwrap(),
                            b: 0,
                        })
                        .unwrap();
                    sent += 1;
                    println!("{SAY} sent {k}");
                    continue;
                }
                assert_eq!(line, "collect");
                let mut sums = Vec::new();
                let start = Instant::now();
                while sums.len() < sent && start.elapsed() < PATIENCE {
                    match client.take_response() {
                        Some((_, response)) => sums.push(response.sum.to_string()),
                        None => std::thread::sleep(Duration::from_millis(1)),
                    }
                }
                println!("{SAY} got {}", sums.join(","));
            }
        }
        other => panic!("unknown role {other}"),
    }
}

/// This test's other process (`child_role`, see `support/`), once it said it is ready.
fn spawn(role: &str, service: &str) -> Child {
    spawn_with(role, service, 0)
}

fn spawn_with(role: &str, service: &str, count: usize) -> Child {
    let env = [("SERVICE", service.into()), ("COUNT", count.to_string())];
    let child = Child::spawn(ROLE, role, &env);
    assert_eq!(child.next_line(), "ready");
    child
}

#[test]
fn a_client_calls_a_service_in_another_process() {
    let name = service_name("call");
    let server = spawn("serve", &name);
    let ctx = context("parent");
    let mut node = ctx.node("caller").unwrap();
    let client = node.client::<AddTwoInts>(&name).create().unwrap();
    assert!(client.wait_for_service(PATIENCE));
    let response = client.call(AddRequest { a: 2, b: 3 }, PATIENCE).unwrap();
    assert_eq!(response.sum, 5);
    let response = client.call(AddRequest { a: -7, b: 70 }, PATIENCE).unwrap();
    assert_eq!(response.sum, 63);
    server.finish();
}

#[test]
fn many_concurrent_calls_get_their_own_responses() {
    let name = service_name("many");
    let server = spawn("serve", &name);
    let ctx = context("parent");
    let mut node = ctx.node("callers").unwrap();
    let clients: Vec<_> = (0..4)
        .map(|_| {
            // Room for a whole in-flight window of responses not taken yet.
            let client = node.client::<AddTwoInts>(&name).history(window());
            Arc::new(client.create().unwrap())
        })
        .collect();
    assert!(clients[0].wait_for_service(PATIENCE));
    // Blocking calls from several threads, two threads sharing each client.
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let client = clients[t % clients.len()].clone();
            std::thread::spawn(move || {
                for i in 0..25i64 {
                    let a = (t as i64) * 1000 + i;
                    let response = client.call(AddRequest { a, b: i }, PATIENCE).unwrap();
                    assert_eq!(response.sum, a + i, "thread {t} call {i}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    // A client's whole in-flight window at once, answered in any order, matched by id.
    let client = &clients[0];
    let sent: Vec<_> = (0..MAX_IN_FLIGHT as i64)
        .map(|i| {
            (
                client
                    .send_request(AddRequest { a: i, b: 100 * i })
                    .unwrap(),
                101 * i,
            )
        })
        .collect();
    let mut got = Vec::new();
    let start = Instant::now();
    while got.len() < sent.len() {
        assert!(start.elapsed() < PATIENCE, "got {got:?} of {sent:?}");
        match client.take_response() {
            Some((id, response)) => got.push((id, response.sum)),
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    got.sort();
    assert_eq!(got, sent);
    server.finish();
}

#[test]
fn requests_to_a_polled_service_wake_nothing_a_triggered_one_runs_its_code() {
    let name = service_name("polled");
    let ctx = context("parent");
    let mut poller = ctx.node("poller").unwrap();
    let polled = poller.service::<AddTwoInts>(&name).create().unwrap();
    let mut reactor = ctx.node("reactor").unwrap();
    let triggered = Arc::new(
        (reactor.service::<AddTwoInts>(&format!("{name}_trig")))
            .create()
            .unwrap(),
    );
    let serving = triggered.clone();
    reactor
        .execute(Trigger::on_request(&triggered), move |_| {
            while let Some((id, request)) = serving.take_request() {
                serving.send_response(
                    id,
                    AddResponse {
                        sum: request.a + request.b,
                    },
                );
            }
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(poller).unwrap();
    executor.add(reactor).unwrap();

    // Fewer than a client's window: none is forgotten.
    let count = 10;
    let mut client = spawn_with("two_phases", &name, count);
    // Phase 0: paced requests to the polled service only.
    client.tell("go");
    let start = executor.stats();
    let windows = spin_until(&mut executor, "the polled service's requests", || {
        polled.pending() == count
    });
    let polled_stats = executor.stats();
    assert_eq!(client.next_line(), format!("sent {count}"));
    assert_eq!(polled_stats.executions, start.executions, "no code ran");
    // Each window ends with its deadline: at most one wake-up each, none from the requests.
    assert!(
        polled_stats.wakeups - start.wakeups <= windows,
        "{count} requests to a polled service woke the executor: {} wake-ups in {windows} windows",
        polled_stats.wakeups - start.wakeups
    );
    let taken: Vec<_> = std::iter::from_fn(|| polled.take_request())
        .map(|(_, request)| request.a)
        .collect();
    assert_eq!(taken, (0..count as i64).collect::<Vec<_>>());

    // Phase 1: blocking calls to the triggered service wake the executor and run the code.
    client.tell("go");
    spin_until(&mut executor, "the triggered service's calls", || {
        client
            .said
            .try_recv()
            .ok()
            .is_some_and(|said| said == format!("called {count}"))
    });
    let triggered_stats = executor.stats();
    // One run may answer several calls: the next request can arrive while it still takes.
    assert!(triggered_stats.executions > polled_stats.executions);
    assert!(triggered_stats.wakeups > polled_stats.wakeups);
    client.finish();
}

#[test]
fn a_killed_server_fails_the_pending_call_is_not_ready_and_a_restarted_one_answers() {
    let name = service_name("killed");
    let ctx = context("parent");
    let mut node = ctx.node("caller").unwrap();
    let client = Arc::new(node.client::<AddTwoInts>(&name).create().unwrap());
    let mut holder = spawn("hold", &name);
    assert!(client.wait_for_service(PATIENCE));
    let calling = client.clone();
    let call =
        std::thread::spawn(move || calling.call(AddRequest { a: 1, b: 1 }, Duration::from_secs(5)));
    // The server has the request; it dies with it.
    assert_eq!(holder.next_line(), "took 1");
    holder.kill();
    assert!(matches!(call.join().unwrap(), Err(CallError::Timeout(_))));
    // Still listed on the service (nobody cleaned up after it), but its process is dead.
    assert!(!client.service_is_ready(), "a killed server is not ready");
    assert!(matches!(
        client.call(AddRequest { a: 1, b: 2 }, Duration::from_millis(300)),
        Err(CallError::NoService(_))
    ));

    // A new server process is reached by the same client.
    let server = spawn("serve", &name);
    let response = client.call(AddRequest { a: 20, b: 22 }, PATIENCE).unwrap();
    assert_eq!(response.sum, 42);
    server.finish();
}

#[test]
fn a_full_server_queue_refuses_requests_and_never_blocks_the_client() {
    let name = service_name("full");
    let mut server = spawn("later", &name);
    let ctx = context("parent");
    let mut node = ctx.node("caller").unwrap();
    let client = (node.client::<AddTwoInts>(&name).history(window()))
        .create()
        .unwrap();
    assert!(client.wait_for_service(PATIENCE));
    // The server takes nothing: its buffer for this client fills, then refuses.
    let sent: Vec<_> = (0..MAX_IN_FLIGHT as i64)
        .map(|i| client.send_request(AddRequest { a: i, b: 0 }).unwrap())
        .collect();
    let refused = client.send_request(AddRequest { a: 99, b: 0 });
    assert!(
        matches!(refused, Err(SendRequestError::Link { .. })),
        "{refused:?}"
    );
    // The refused request made the client forget its oldest one, which the server now
    // drops; the others are answered.
    server.tell("take");
    assert_eq!(
        server.next_line(),
        format!("answered {}", MAX_IN_FLIGHT - 1)
    );
    let mut got = Vec::new();
    let start = Instant::now();
    while got.len() < MAX_IN_FLIGHT - 1 {
        assert!(start.elapsed() < PATIENCE, "got {got:?}");
        match client.take_response() {
            Some((id, response)) => got.push((id, response.sum)),
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    got.sort();
    let expected: Vec<_> = sent[1..].iter().map(|id| (*id, id.sequence - 1)).collect();
    assert_eq!(got, expected);
    server.finish();
}

#[test]
fn a_service_of_other_types_is_refused_by_name() {
    // Two contexts of this process, each on its own iceoryx2 node: the exchange of one does
    // not know the other's service, so the check is shared memory's.
    let name = service_name("types");
    let serving = context("serving");
    let mut node = serving.node("server").unwrap();
    let _service = node.service::<AddTwoInts>(&name).create().unwrap();
    let calling = context("calling");
    let mut other = calling.node("caller").unwrap();
    let error = other.client::<Echo>(&name).create().unwrap_err();
    let ClientCreateError::Link { error, .. } = error else {
        panic!("not a link error: {error:?}");
    };
    for type_name in [
        "example_interfaces/srv/AddTwoInts_Request",
        "example_interfaces/srv/AddTwoInts_Response",
        "test_msgs/srv/Echo_Request",
        "test_msgs/srv/Echo_Response",
    ] {
        assert!(error.0.contains(type_name), "{error}");
    }
    let error = other.service::<Echo>(&name).create().unwrap_err();
    assert!(
        matches!(&error, ServiceCreateError::Link { error, .. } if error.0.contains("test_msgs/srv/Echo_Request")),
        "{error:?}"
    );
    // The right types are accepted.
    assert!(other.client::<AddTwoInts>(&name).create().is_ok());
}

/// A service that another iceoryx2 version created (its static config says so) is refused
/// with both versions named, and nothing of the existing service is touched.
#[test]
fn a_service_of_another_iceoryx2_version_is_refused_naming_both() {
    let name = service_name("version");
    let serving = context("serving");
    let mut node = serving.node("server").unwrap();
    let _service = node.service::<AddTwoInts>(&name).create().unwrap();
    let path = static_config_path(&format!("rq{name}"), MessagingPattern::RequestResponse);
    let config = std::fs::read_to_string(&path).unwrap();
    let table = "[iceoryx2_version]\nmajor = 0\nminor = 10\npatch = 0\n";
    assert!(config.contains(table), "{config}");
    // As a process of iceoryx2 0.9.3 would have written it (the file is read-only; root may
    // write it anyway, and the test restores it before the service is removed).
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    let other = config.replace(
        table,
        "[iceoryx2_version]\nmajor = 0\nminor = 9\npatch = 3\n",
    );
    std::fs::write(&path, &other).unwrap_or_else(|e| panic!("{}: {e}", path.display()));

    let calling = context("calling");
    let mut caller = calling.node("caller").unwrap();
    let refused = caller.client::<AddTwoInts>(&name).create();
    std::fs::write(&path, &config).unwrap();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    match refused {
        Err(ClientCreateError::Link { error, .. }) => {
            assert!(error.0.contains("iceoryx2 0.9.3"), "{error}");
            assert!(error.0.contains("iceoryx2 0.10.0"), "{error}");
        }
        other => panic!("expected a version error, got {other:?}"),
    }
    let opened = caller.client::<AddTwoInts>(&name).create().map(drop);
    assert!(opened.is_ok(), "the same version opens again: {opened:?}");
}

/// The layout of tacto-shm's request header, as a peer that writes garbage has it.
#[derive(Debug, Default, Clone, Copy, ZeroCopySend)]
#[repr(C)]
#[type_name("tacto_shm::RequestHeader/1")]
struct RawHeader {
    client: u64,
    sequence: i64,
}

#[test]
fn a_malformed_request_is_counted_and_the_service_goes_on() {
    let name = service_name("malformed");
    let ctx = context("parent");
    let mut node = ctx.node("server").unwrap();
    let service = Arc::new(node.service::<AddTwoInts>(&name).create().unwrap());
    let serving = service.clone();
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = serving.take_request() {
            serving.send_response(
                id,
                AddResponse {
                    sum: request.a + request.b,
                },
            );
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    // A raw iceoryx2 client of the same service sends 3 bytes that are no CDR request.
    let raw = NodeBuilder::new()
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc_threadsafe::Service>()
        .unwrap();
    let rq = raw
        .service_builder(&ServiceName::new(&format!("rq{name}")).unwrap())
        .request_response::<[u8], [u8]>()
        .request_user_header::<RawHeader>()
        .open()
        .unwrap();
    let raw_client = rq
        .client_builder()
        .initial_max_slice_len(64)
        .create()
        .unwrap();
    let mut request = raw_client.loan_slice_uninit(3).unwrap();
    *request.user_header_mut() = RawHeader {
        client: 7,
        sequence: 1,
    };
    let _pending = request.write_from_slice(&[1, 2, 3]).send().unwrap();
    let wake = raw
        .service_builder(&ServiceName::new(&format!("rq{name}")).unwrap())
        .event()
        .open()
        .unwrap();
    wake.notifier_builder().create().unwrap().notify().unwrap();
    let start = Instant::now();
    while service.malformed_requests() == 0 {
        assert!(
            start.elapsed() < PATIENCE,
            "the malformed request was not counted"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(service.malformed_requests(), 1);

    // A client of another process is still answered.
    let calling = context("calling");
    let mut caller = calling.node("caller").unwrap();
    let client = caller.client::<AddTwoInts>(&name).create().unwrap();
    let response = client.call(AddRequest { a: 4, b: 5 }, PATIENCE).unwrap();
    assert_eq!(response.sum, 9);
    running.stop();
    running.join().unwrap().1.unwrap();
}

/// A request that arrives while the service's code runs, after its last take, is moved in by
/// the trigger's check of its rule once the run ends, before its notification is drained; the
/// drain must still count it, or it waits with no run to answer it (as for topics: see
/// `tests/context.rs`, `a_sample_moved_in_before_its_wake_up_is_drained_still_runs_the_code`).
#[test]
fn a_request_moved_in_before_its_wake_up_is_drained_still_runs_the_code() {
    let name = service_name("moved_before_drain");
    let ctx = context("parent");
    let mut node = ctx.node("server").unwrap();
    let service = Arc::new(node.service::<AddTwoInts>(&name).create().unwrap());
    let client = Arc::new(std::sync::Mutex::new(None::<Child>));
    let serving = service.clone();
    let asking = client.clone();
    let asked = Arc::new(AtomicBool::new(false));
    let asked_in_run = asked.clone();
    node.execute(Trigger::on_request(&service), move |_| {
        let mut taken = Vec::new();
        while let Some((id, request)) = serving.take_request() {
            taken.push(request.a);
            serving.send_response(id, AddResponse { sum: request.a });
        }
        if taken == [1] {
            // The next request, sent and notified before this run returns.
            let mut child = asking.lock().unwrap();
            let child = child.as_mut().unwrap();
            child.tell("send 2");
            assert_eq!(child.next_line(), "sent 2");
            asked_in_run.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    *client.lock().unwrap() = Some(spawn("on_demand", &name));
    let tell = |line: &str| client.lock().unwrap().as_mut().unwrap().tell(line);
    let next_line = || client.lock().unwrap().as_ref().unwrap().next_line();

    tell("send 1");
    assert_eq!(next_line(), "sent 1");
    spin_until(&mut executor, "both requests ran the code", || {
        asked.load(Ordering::SeqCst) && service.pending() == 0
    });
    tell("collect");
    assert_eq!(next_line(), "got 1,2");
    drop(executor);
    let child = client.lock().unwrap().take().unwrap();
    child.finish();
}
