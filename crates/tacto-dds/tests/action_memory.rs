//! No memory kept per goal or per call over DDS, in either process: a Fibonacci server in
//! another process (this test binary again) and a client here run goals (and AddTwoInts
//! calls) back to back, in windows of a fixed count after a warm-up; each process's heap in
//! use (glibc's count: tacto's, Cyclone's and the test's allocations alike) is taken at the
//! same point of each window. A leak of anything per goal or per call, at least one malloc
//! chunk of 32 bytes, grows every window by that much times the window; a one-time growth
//! (a map's table doubling once) grows one window only. So the smallest window's growth
//! must stay under half of a leak's smallest.
//!
//! The RSS is not what is measured: Cyclone receives into a 1 MiB buffer it fills front to
//! back, whose pages count in the RSS as they are first touched whatever is freed (see
//! docs/actions.md, "Benchmark"). Domain 227.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use support::{PATIENCE, ROLE, RclpyNode, loopback_participant};
use tacto::action::GoalHandle;
use tacto::{Context, Executor, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_msgs::example_interfaces::action::{
    Fibonacci, Fibonacci_Feedback, Fibonacci_Goal, Fibonacci_Result,
};
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

const DOMAIN: u32 = 227;
const TEST: &str = "no_memory_is_kept_per_goal_or_per_call_in_either_process";
/// Goals (and calls) per window; the warm-up is one window too.
const WINDOW: usize = 200;
const WINDOWS: usize = 3;
/// The smallest leak: one malloc chunk (glibc's smallest is 32 bytes) per goal.
const SMALLEST_LEAK: u64 = 32;

/// This process's heap in use: glibc's count of bytes allocated and not freed, over all
/// arenas, plus its mmapped blocks.
fn heap_bytes() -> u64 {
    // SAFETY: mallinfo2 takes nothing and returns a plain struct.
    let info = unsafe { libc::mallinfo2() };
    (info.uordblks + info.hblkhd) as u64
}

fn context() -> Context {
    Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create()
}

/// The server's process: serves the action and the service, and prints `heap <k> <bytes>`
/// when its `k`-th window of goals (counted as they succeed) is done, then the same for calls.
fn serve() {
    let ctx = context();
    let mut node = ctx.node("memory_server").unwrap();
    let server = Arc::new(
        node.action_server::<Fibonacci>("fibonacci")
            .create()
            .unwrap(),
    );
    let taking = server.clone();
    let mut running: Vec<(GoalHandle<Fibonacci>, Vec<i32>)> = Vec::new();
    let mut succeeded = 0;
    // Goals taken when they arrive and advanced a number per millisecond, in one executable.
    node.wall_timer(Duration::from_millis(1), move |_| {
        while let Some(request) = taking.take_goal() {
            let handle = request.accept().unwrap();
            handle.execute().unwrap();
            running.push((handle, vec![0, 1]));
        }
        for (handle, sequence) in &mut running {
            if sequence.len() > handle.goal().order as usize {
                let result = Fibonacci_Result {
                    sequence: std::mem::take(sequence),
                };
                handle.succeed(result).unwrap();
                succeeded += 1;
                if succeeded % WINDOW == 0 {
                    println!("heap goals {} {}", succeeded / WINDOW, heap_bytes());
                }
            } else {
                let n = sequence.len();
                sequence.push(sequence[n - 1] + sequence[n - 2]);
                let feedback = Fibonacci_Feedback {
                    sequence: sequence.clone(),
                };
                handle.publish_feedback(feedback);
            }
        }
        running.retain(|(handle, _)| handle.is_active());
    })
    .unwrap();
    let service = node.service::<AddTwoInts>("add_two_ints").create().unwrap();
    let mut answered = 0;
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = service.take_request() {
            let sum = request.a + request.b;
            service.send_response(id, AddTwoInts_Response { sum });
            answered += 1;
            if answered % WINDOW == 0 {
                println!("heap calls {} {}", answered / WINDOW, heap_bytes());
            }
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    println!("ready");
    executor.spin_for(PATIENCE * 4).unwrap();
}

/// The `label` heap samples the server prints, one per window.
fn server_heaps(server: &RclpyNode, label: &str) -> Vec<u64> {
    let deadline = Instant::now() + PATIENCE;
    let mut heaps = Vec::new();
    while heaps.len() < WINDOWS + 1 {
        let line = server
            .next_line(deadline)
            .unwrap_or_else(|| panic!("no heap line from the server: {}", server.stderr()));
        let words: Vec<&str> = line.split(' ').collect();
        if let ["heap", kind, _, bytes] = words[..]
            && kind == label
        {
            heaps.push(bytes.parse().unwrap());
        }
    }
    heaps
}

/// Panics unless the smallest growth from one window to the next stays under half of the
/// smallest leak's.
fn assert_no_leak(what: &str, heaps: &[u64]) {
    let growths: Vec<i64> = heaps
        .windows(2)
        .map(|w| w[1] as i64 - w[0] as i64)
        .collect();
    let smallest = *growths.iter().min().unwrap();
    let bound = (SMALLEST_LEAK * WINDOW as u64 / 2) as i64;
    assert!(
        smallest < bound,
        "{what}: the heap grew every window of {WINDOW}, at least {smallest} B (a leak of \
         {} B each): heaps {heaps:?}, growths {growths:?}",
        smallest / WINDOW as i64
    );
}

#[test]
fn no_memory_is_kept_per_goal_or_per_call_in_either_process() {
    if std::env::var(ROLE).as_deref() == Ok("server") {
        return serve();
    }
    let mut server = RclpyNode::this_test(TEST, "server", &[]);
    let deadline = Instant::now() + PATIENCE;
    while server.next_line(deadline).as_deref() != Some("ready") {
        assert!(server.exited().is_none(), "{}", server.stderr());
        assert!(Instant::now() < deadline, "the server did not start");
    }
    let ctx = context();
    let mut node = ctx.node("memory_client").unwrap();
    let client = node
        .action_client::<Fibonacci>("fibonacci")
        .create()
        .unwrap();
    assert!(client.wait_for_server(PATIENCE));
    let mut client_heaps = Vec::new();
    for _ in 0..=WINDOWS {
        for _ in 0..WINDOW {
            let outcome = client
                .send_goal_and_wait(Fibonacci_Goal { order: 3 }, PATIENCE)
                .unwrap();
            assert_eq!(outcome.result.sequence, [0, 1, 1, 2]);
        }
        client_heaps.push(heap_bytes());
    }
    assert_no_leak("the action server", &server_heaps(&server, "goals"));
    assert_no_leak("the action client", &client_heaps);

    let adder = node.client::<AddTwoInts>("add_two_ints").create().unwrap();
    assert!(adder.wait_for_service(PATIENCE));
    let mut client_heaps = Vec::new();
    for _ in 0..=WINDOWS {
        for i in 0..WINDOW as i64 {
            let response = adder
                .call(AddTwoInts_Request { a: i, b: 1 }, PATIENCE)
                .unwrap();
            assert_eq!(response.sum, i + 1);
        }
        client_heaps.push(heap_bytes());
    }
    assert_no_leak("the service", &server_heaps(&server, "calls"));
    assert_no_leak("the service's client", &client_heaps);
    assert!(server.exited().is_none(), "{}", server.stderr());
}
