//! A service and two kinds of client in one process, on one wait-set executor.
//!
//! The `add_two_ints` server node is triggered by its service's requests
//! (`Trigger::on_request`) and answers each with the sum. The `asker` node never blocks: every
//! 100 ms it sends a request (`send_request`), and the responses trigger it
//! (`Trigger::on_response`) to take them. Meanwhile the main thread, plain code outside any
//! executor, makes blocking calls (`Client::call`) to the same service. It runs for 3 seconds
//! (Ctrl-C stops it sooner) and prints what each side sent and got.
//!
//! ```sh
//! cargo run -p tacto --example add_two_ints
//! ```
//!
//! The service type is written by hand here, as `example_interfaces/srv/AddTwoInts` defines it.

use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tacto::serde::{Deserialize, Serialize};
use tacto::{Context, Executor, ExecutorThread, Message, ServiceType, Trigger, WaitSetExecutor};

const RUN_FOR: Duration = Duration::from_secs(3);

/// `int64 a`, `int64 b`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct AddTwoIntsRequest {
    a: i64,
    b: i64,
}

impl Message for AddTwoIntsRequest {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request";
}

/// `int64 sum`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct AddTwoIntsResponse {
    sum: i64,
}

impl Message for AddTwoIntsResponse {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response";
}

struct AddTwoInts;

impl ServiceType for AddTwoInts {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
    type Request = AddTwoIntsRequest;
    type Response = AddTwoIntsResponse;
}

fn main() -> Result<(), Box<dyn Error>> {
    // `--ros-args` rename, remap and parameterise it as any ROS 2 node.
    let ctx = Context::from_args(std::env::args())?;

    let mut server = ctx.node("add_two_ints_server")?;
    let service = server.service::<AddTwoInts>("add_two_ints").create()?;
    server.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = service.take_request() {
            let sum = request.a + request.b;
            println!(
                "server: request {} of client {}: {} + {} = {sum}",
                id.sequence, id.client, request.a, request.b
            );
            service.send_response(id, AddTwoIntsResponse { sum });
        }
    })?;

    // The non-blocking client: one node, two executables over one client.
    let mut asker = ctx.node("asker")?;
    let client = Arc::new(asker.client::<AddTwoInts>("add_two_ints").create()?);
    let sending = client.clone();
    let mut next = 0;
    asker.execute(Trigger::every(Duration::from_millis(100)), move |_| {
        next += 1;
        match sending.send_request(AddTwoIntsRequest {
            a: next,
            b: 10 * next,
        }) {
            Ok(id) => println!("asker:  sent request {}", id.sequence),
            Err(e) => println!("asker:  {e}"),
        }
    })?;
    let answers = client.clone();
    asker.execute(Trigger::on_response(&client), move |_| {
        while let Some((id, response)) = answers.take_response() {
            println!("asker:  response to {}: {}", id.sequence, response.sum);
        }
    })?;

    let mut executor = WaitSetExecutor::new()?;
    executor.add(server)?;
    executor.add(asker)?;
    let running = ExecutorThread::builder().name("executor").spawn(executor)?;

    // The blocking client, from plain code on the main thread.
    let mut main = ctx.node("caller")?;
    let caller = main.client::<AddTwoInts>("add_two_ints").create()?;
    let start = Instant::now();
    let mut calls = 0;
    let mut waited = Duration::ZERO;
    while start.elapsed() < RUN_FOR && !tacto::shutdown::requested() {
        calls += 1;
        let request = AddTwoIntsRequest { a: calls, b: -1 };
        let sent = Instant::now();
        let response = caller.call(request, Duration::from_secs(5))?;
        waited += sent.elapsed();
        println!("caller: call {calls} answered {}", response.sum);
        std::thread::sleep(Duration::from_millis(300));
    }

    running.stop();
    let (executor, spun) = running.join()?;
    spun?;
    let stats = executor.stats();
    println!(
        "{calls} blocking calls, {:?} each on average (request, wake-up, answer); the executor \
         ran {} executables and woke {} times",
        waited / u32::try_from(calls.max(1))?,
        stats.executions,
        stats.wakeups
    );
    Ok(())
}
