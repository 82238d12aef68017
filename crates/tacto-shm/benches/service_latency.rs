//! Round-trip latency of one service call with a 64-byte request (CDR, encapsulation
//! included): a blocking `Client::call` to a service triggered on a wait-set executor thread,
//! in one process (no transport) against another process through `ShmTransport`.
//!
//! `cargo bench -p tacto-shm --bench service_latency` (`TACTO_SHM_BENCH_COUNT=500` for a
//! quick run; default 2000 calls per path after 100 warm-up calls).
//!
//! In-process, a call costs two thread wake-ups (the executor's eventfd, then the caller's
//! condition variable). Over shared memory it costs the request's loan and copy, the server's
//! iceoryx2 listener fd in its executor's epoll set, the response's loan and copy, the client
//! process's response thread woken by its listener, then the caller's condition variable.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tacto::serde::{Deserialize, Serialize};
use tacto::{Context, Executor, ExecutorThread, Message, ServiceType, Trigger, WaitSetExecutor};
use tacto_shm::ShmTransport;

const ROLE: &str = "TACTO_SHM_SERVICE_BENCH_ROLE";
const WARMUP: usize = 100;
const PATIENCE: Duration = Duration::from_secs(60);

/// 64 bytes in CDR: encapsulation (4), string length (4), 55 characters and the NUL.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct EchoRequest {
    data: String,
}

impl Message for EchoRequest {
    const TYPE_NAME: &'static str = "tacto_bench/srv/Echo_Request";
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
struct EchoResponse {
    length: u64,
}

impl Message for EchoResponse {
    const TYPE_NAME: &'static str = "tacto_bench/srv/Echo_Response";
}

struct Echo;

impl ServiceType for Echo {
    const TYPE_NAME: &'static str = "tacto_bench/srv/Echo";
    type Request = EchoRequest;
    type Response = EchoResponse;
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    if let Ok(name) = std::env::var(ROLE) {
        return serve_until_stdin_closes(&name);
    }
    let count: usize = std::env::var("TACTO_SHM_BENCH_COUNT")
        .ok()
        .map(|c| c.parse())
        .transpose()?
        .unwrap_or(2000);
    let request = EchoRequest {
        data: "x".repeat(55),
    };
    assert_eq!(tacto::cdr::to_vec(&request)?.len(), 64);
    println!("service round trip, 64 B request, {count} calls after {WARMUP} warm-up (µs)");
    println!("{:>12} | {:>8} {:>8} {:>8}", "path", "p50", "p99", "mean");

    // In one process: the service on an executor thread, the caller on this one.
    let ctx = Context::new();
    let name = format!("/service_bench_{}", std::process::id());
    let running = serve(&ctx, &name)?;
    let mut caller = ctx.node("caller")?;
    let client = caller.client::<Echo>(&name).create()?;
    report("in-process", &measure(&client, &request, count)?);
    running.stop();
    drop(running.join());

    // Over shared memory: the same service in a child process.
    let name = format!("/service_bench_shm_{}", std::process::id());
    let mut child = Command::new(std::env::current_exe()?)
        .env(ROLE, &name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut said = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    assert_eq!(said.next().transpose()?.as_deref(), Some("ready"));
    let ctx = Context::builder()
        .transport(ShmTransport::new("service_bench")?)
        .create();
    let mut caller = ctx.node("caller")?;
    let client = caller.client::<Echo>(&name).create()?;
    assert!(client.wait_for_service(PATIENCE));
    report("shm", &measure(&client, &request, count)?);
    drop(child.stdin.take());
    child.wait()?;
    Ok(())
}

/// The service `name` of `ctx`, answering on a wait-set executor thread.
fn serve(ctx: &Context, name: &str) -> Result<ExecutorThread<WaitSetExecutor>> {
    let mut server = ctx.node("server")?;
    let service = Arc::new(server.service::<Echo>(name).create()?);
    let serving = service.clone();
    server.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = serving.take_request() {
            let length = request.data.len() as u64;
            serving.send_response(id, EchoResponse { length });
        }
    })?;
    let mut executor = WaitSetExecutor::new()?;
    executor.add(server)?;
    Ok(ExecutorThread::builder().spawn(executor)?)
}

/// The child: serves over shared memory until its stdin closes.
fn serve_until_stdin_closes(name: &str) -> Result<()> {
    let ctx = Context::builder()
        .transport(ShmTransport::new("service_bench_server")?)
        .create();
    let running = serve(&ctx, name)?;
    println!("ready");
    std::io::stdin().lines().for_each(drop);
    running.stop();
    drop(running.join());
    Ok(())
}

/// The duration of each of `count` calls, in µs, sorted.
fn measure(client: &tacto::Client<Echo>, request: &EchoRequest, count: usize) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(count);
    for i in 0..WARMUP + count {
        let start = Instant::now();
        let response = client.call(request.clone(), PATIENCE)?;
        let took = start.elapsed();
        assert_eq!(response.length, 55);
        if i >= WARMUP {
            times.push(took.as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

fn report(path: &str, times: &[f64]) {
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "{path:>12} | {:>8.1} {:>8.1} {:>8.1}",
        at(0.5),
        at(0.99),
        mean
    );
}
