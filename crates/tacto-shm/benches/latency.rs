//! One-way latency between two processes through shared memory, by payload size: raw
//! iceoryx2 (a `[u8]` slice, read in place) against tacto-shm (a `std_msgs/String` of the
//! same size, CDR-encoded straight into the slot, decoded on receipt) and against the same
//! through a tacto `Context` on `ShmTransport` (a publisher's loan; a triggered subscription
//! on a wait-set executor), and against a flat message of the same size through the same
//! context path (`stamp` + `[u8; N - 8]`: `loan_flat` lends the shared-memory slot, the sender
//! writes the stamp and copies the payload into it as raw does, the receiver reads the stamp
//! in place), in the same run.
//!
//! `cargo bench -p tacto-shm --bench latency` (`TACTO_SHM_BENCH_COUNT=200` for a quick run).
//!
//! The sender stamps `CLOCK_MONOTONIC` (one clock for every process of the host) into the
//! payload, sends, and waits for the receiver's acknowledgement before the next message, so
//! one message is in flight. The receiver blocks on its iceoryx2 listener (raw) or polls the
//! subscriber's wake-up fd (tacto-shm) or spins its executor (Context, whose code stops the
//! spin), takes the sample, and reads the clock: one-way latency includes the wake-up. CPU per message is user + system time of both processes
//! over the measured messages, divided by their number.

use std::io::{BufRead, BufReader};
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::prelude::*;
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, History, SpinOutcome, Trigger, WaitSetExecutor};
use tacto_shm::{ShmNode, ShmTransport};

const SIZES: [usize; 6] = [64, 4 << 10, 64 << 10, 1 << 20, 4 << 20, 8 << 20];
const WARMUP: usize = 20;
const ROLE: &str = "TACTO_SHM_BENCH_ROLE";
const PATIENCE: Duration = Duration::from_secs(60);
/// The stamp at the start of a tacto-shm payload: 20 decimal digits.
const STAMP_DIGITS: usize = 20;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Path {
    Raw,
    Shm,
    Ctx,
    Flat,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Raw => "raw",
            Path::Shm => "shm",
            Path::Ctx => "ctx",
            Path::Flat => "flat",
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    // Quiet iceoryx2's "no config file, using defaults" (tacto-shm's node does the same).
    set_log_level_from_env_or(LogLevel::Error);
    if let Ok(role) = std::env::var(ROLE) {
        let path = match role.as_str() {
            "raw" => Path::Raw,
            "shm" => Path::Shm,
            "flat" => Path::Flat,
            _ => Path::Ctx,
        };
        let var = |name: &str| std::env::var(name).unwrap();
        return receive(
            path,
            &var("SERVICE"),
            var("SIZE").parse()?,
            var("COUNT").parse()?,
        );
    }
    // `cargo bench` passes `--bench`; nothing else is understood.
    let count: usize = std::env::var("TACTO_SHM_BENCH_COUNT")
        .ok()
        .map(|c| c.parse())
        .transpose()?
        .unwrap_or(1000);
    println!("one-way latency, 2 processes, {count} messages per size after {WARMUP} warm-up");
    println!(
        "{:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>5} {:>5} {:>5} {:>5} {:>6} | {:>8} {:>8} {:>8} {:>8}",
        "payload",
        "raw p50",
        "raw p99",
        "shm p50",
        "shm p99",
        "ctx p50",
        "ctx p99",
        "flat p50",
        "flat p99",
        "shm x",
        "ctx x",
        "shm99x",
        "ctx99x",
        "flat x",
        "raw CPU",
        "shm CPU",
        "ctx CPU",
        "flat CPU",
    );
    for size in SIZES {
        let raw = run(Path::Raw, size, count)?;
        let shm = run(Path::Shm, size, count)?;
        let ctx = run(Path::Ctx, size, count)?;
        let flat = run(Path::Flat, size, count)?;
        let x = |a: u64, b: u64| a as f64 / b as f64;
        println!(
            "{:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>5.2} {:>5.2} {:>5.2} {:>5.2} {:>6.2} | {:>8} {:>8} {:>8} {:>8}",
            bytes(size),
            micros(raw.p50),
            micros(raw.p99),
            micros(shm.p50),
            micros(shm.p99),
            micros(ctx.p50),
            micros(ctx.p99),
            micros(flat.p50),
            micros(flat.p99),
            x(shm.p50, raw.p50),
            x(ctx.p50, raw.p50),
            x(shm.p99, raw.p99),
            x(ctx.p99, raw.p99),
            x(flat.p50, raw.p50),
            micros(raw.cpu_per_message),
            micros(shm.cpu_per_message),
            micros(ctx.cpu_per_message),
            micros(flat.cpu_per_message),
        );
    }
    println!(
        "(times in µs; CPU per message, both processes; x = p50 / raw p50, 99x = p99 / raw p99)"
    );
    Ok(())
}

struct Outcome {
    p50: u64,
    p99: u64,
    cpu_per_message: u64,
}

/// Sends `count` messages of `size` bytes on `path` to a receiver process.
fn run(path: Path, size: usize, count: usize) -> Result<Outcome> {
    let service = format!(
        "tacto_shm_bench_{}_{}_{size}",
        std::process::id(),
        path.name()
    );
    let node = NodeBuilder::new()
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc::Service>()?;
    let acks = node
        .service_builder(&ServiceName::new(&format!("{service}/ack"))?)
        .event()
        .open_or_create()?
        .listener_builder()
        .create()?;
    let shm_node = ShmNode::create("bench_sender")?;
    let sender = Sender::new(path, &node, &shm_node, &service, size)?;

    let mut child = Command::new(std::env::current_exe()?)
        .env(ROLE, path.name())
        .env("SERVICE", &service)
        .env("SIZE", size.to_string())
        .env("COUNT", count.to_string())
        .stdout(Stdio::piped())
        .spawn()?;
    wait(&acks)?; // the receiver's ports exist
    let mut payload = vec![b'x'; size];
    let mut cpu_start = 0;
    for i in 0..WARMUP + count {
        if i == WARMUP {
            cpu_start = cpu_ns();
        }
        sender.send(&mut payload)?;
        wait(&acks)?;
    }
    let sender_cpu = cpu_ns() - cpu_start;

    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
    if !child.wait()?.success() {
        return Err("the receiver failed".into());
    }
    let numbers: Vec<u64> = line
        .split_whitespace()
        .map(str::parse)
        .collect::<std::result::Result<_, _>>()?;
    let [p50, p99, _max, receiver_cpu] = numbers[..] else {
        return Err(format!("unexpected receiver output {line:?}").into());
    };
    Ok(Outcome {
        p50,
        p99,
        cpu_per_message: (sender_cpu + receiver_cpu) / count as u64,
    })
}

enum Sender {
    Raw(
        iceoryx2::port::publisher::Publisher<ipc::Service, [u8], ()>,
        Notifier<ipc::Service>,
    ),
    /// The publisher and the message, built once; each send restamps it in place.
    Shm(tacto_shm::ShmPublisher<Text>, std::cell::RefCell<Text>),
    /// A context's publisher, its context kept alive; each send loans the message back.
    Ctx {
        publisher: tacto::Publisher<Text>,
        _context: Context,
    },
    /// A context's publisher of the flat type of this size; each send loans a slot.
    Flat(FlatSend),
}

impl Sender {
    fn new(
        path: Path,
        node: &Node<ipc::Service>,
        shm_node: &ShmNode,
        service: &str,
        size: usize,
    ) -> Result<Sender> {
        Ok(match path {
            Path::Raw => {
                let name = ServiceName::new(&format!("rt/{service}"))?;
                let publisher = node
                    .service_builder(&name)
                    .publish_subscribe::<[u8]>()
                    .open_or_create()?
                    .publisher_builder()
                    .initial_max_slice_len(size)
                    .create()?;
                let notifier = node
                    .service_builder(&name)
                    .event()
                    .open_or_create()?
                    .notifier_builder()
                    .create()?;
                Sender::Raw(publisher, notifier)
            }
            Path::Shm => Sender::Shm(
                shm_node
                    .publisher::<Text>(&format!("/{service}"))
                    .create()?,
                std::cell::RefCell::new(Text {
                    data: "x".repeat(size),
                }),
            ),
            Path::Ctx => {
                let ctx = Context::builder()
                    .transport(ShmTransport::new("bench_ctx_sender")?)
                    .create();
                let publisher = ctx
                    .node("bench_sender")?
                    .publisher::<Text>(&format!("/{service}"))
                    .create()?;
                Sender::Ctx {
                    publisher,
                    _context: ctx,
                }
            }
            Path::Flat => Sender::Flat(by_size!(size, flat_sender, service)?),
        })
    }

    /// Stamps and sends one message. `payload` is the raw path's bytes, reused.
    fn send(&self, payload: &mut [u8]) -> Result<()> {
        match self {
            Sender::Raw(publisher, notifier) => {
                payload[..8].copy_from_slice(&monotonic_ns().to_le_bytes());
                let sample = publisher.loan_slice_uninit(payload.len())?;
                sample.write_from_slice(payload).send()?;
                notifier.notify()?;
            }
            Sender::Shm(publisher, text) => {
                let stamp = format!("{:0width$}", monotonic_ns(), width = STAMP_DIGITS);
                let mut text = text.borrow_mut();
                text.data.replace_range(..STAMP_DIGITS, &stamp);
                publisher.publish(&text)?;
            }
            Sender::Ctx { publisher, .. } => {
                let stamp = format!("{:0width$}", monotonic_ns(), width = STAMP_DIGITS);
                // The loan is the message published last time, once the pool has it back.
                let mut text = publisher.loan();
                if text.data.len() != payload.len() {
                    text.data = "x".repeat(payload.len());
                }
                text.data.replace_range(..STAMP_DIGITS, &stamp);
                text.publish();
                if publisher.remote_writes() == 0 {
                    return Err("the context path did not reach shared memory".into());
                }
            }
            Sender::Flat(send) => send(payload)?,
        }
        Ok(())
    }
}

/// One flat message type per payload size: a stamp, then the rest of the payload.
macro_rules! flat_types {
    ($($name:ident = $size:expr),* $(,)?) => {
        $(
            #[tacto::message("tacto_bench/msg/Flat", flat)]
            #[derive(Clone, Copy)]
            struct $name {
                stamp: u64,
                #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
                payload: [u8; ($size) - 8],
            }

            impl Stamped for $name {
                fn stamp(&self) -> u64 {
                    self.stamp
                }
                fn fill(&mut self, stamp: u64, payload: &[u8]) {
                    self.stamp = stamp;
                    self.payload.copy_from_slice(&payload[8..]);
                }
            }
        )*
    };
}

flat_types!(
    Flat64 = 64,
    Flat4K = 4 << 10,
    Flat64K = 64 << 10,
    Flat1M = 1 << 20,
    Flat4M = 4 << 20,
    Flat8M = 8 << 20,
);

/// Calls `$function::<the flat type of $size bytes>($args)`.
macro_rules! by_size {
    ($size:expr, $function:ident, $($args:expr),*) => {
        match $size {
            64 => $function::<Flat64>($($args),*),
            s if s == 4 << 10 => $function::<Flat4K>($($args),*),
            s if s == 64 << 10 => $function::<Flat64K>($($args),*),
            s if s == 1 << 20 => $function::<Flat1M>($($args),*),
            s if s == 4 << 20 => $function::<Flat4M>($($args),*),
            s if s == 8 << 20 => $function::<Flat8M>($($args),*),
            s => Err(format!("no flat type of {s} bytes").into()),
        }
    };
}
use by_size;

/// What the bench needs of a flat type.
trait Stamped: tacto::Flat {
    fn stamp(&self) -> u64;
    /// Writes the stamp and the payload (after its first 8 bytes, the stamp's place in raw).
    fn fill(&mut self, stamp: u64, payload: &[u8]);
}

/// Stamps and sends one flat message, given raw's payload.
type FlatSend = Box<dyn Fn(&[u8]) -> Result<()>>;

fn flat_sender<T: Stamped>(service: &str) -> Result<FlatSend> {
    let ctx = Context::builder()
        .transport(ShmTransport::new("bench_flat_sender")?)
        .create();
    let publisher = ctx
        .node("bench_sender")?
        .publisher::<T>(&format!("/{service}"))
        .create()?;
    Ok(Box::new(move |payload: &[u8]| {
        let _keep = &ctx;
        let mut message = publisher.loan_flat();
        if !message.is_in_place() {
            return Err("the flat loan is not a shared-memory slot".into());
        }
        message.fill(monotonic_ns(), payload);
        message.publish();
        Ok(())
    }))
}

fn flat_receiver<T: Stamped>(service: &str) -> Result<Box<dyn FnMut() -> Result<u64>>> {
    let ctx = Context::builder()
        .transport(ShmTransport::new("bench_flat_receiver")?)
        .create();
    let mut node = ctx.node("bench_receiver")?;
    let sub = node
        .subscription::<T>(&format!("/{service}"))
        .history(History::KeepLast(1))
        .create()?;
    let mut executor = WaitSetExecutor::new()?;
    let stop = executor.stop_handle();
    let latest = Arc::new(Mutex::new(None));
    let seen = latest.clone();
    node.execute(Trigger::on(&sub), move |_| {
        if let Some(sample) = sub.take() {
            // Read in place: the stamp is in the publisher's slot.
            let latency = monotonic_ns() - sample.stamp();
            *seen.lock().unwrap() = Some(latency);
            stop.stop();
        }
    })?;
    executor.add(node)?;
    Ok(Box::new(move || {
        let _keep = &ctx;
        if executor.spin_for(PATIENCE)? != SpinOutcome::Stopped {
            return Err("no sample within the patience".into());
        }
        latest.lock().unwrap().take().ok_or("no sample".into())
    }))
}

/// The receiver process: takes `count` messages after the warm-up, prints
/// `p50 p99 max cpu` in nanoseconds (cpu: its own, over the measured messages).
fn receive(path: Path, service: &str, size: usize, count: usize) -> Result<()> {
    let node = NodeBuilder::new()
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc::Service>()?;
    let ack = node
        .service_builder(&ServiceName::new(&format!("{service}/ack"))?)
        .event()
        .open_or_create()?
        .notifier_builder()
        .create()?;
    let shm_node = ShmNode::create("bench_receiver")?;
    let mut latencies = Vec::with_capacity(count);
    let mut cpu_start = 0;
    let mut take: Box<dyn FnMut() -> Result<u64>> = match path {
        Path::Raw => {
            let name = ServiceName::new(&format!("rt/{service}"))?;
            let subscriber = node
                .service_builder(&name)
                .publish_subscribe::<[u8]>()
                .open_or_create()?
                .subscriber_builder()
                .create()?;
            let listener = node
                .service_builder(&name)
                .event()
                .open_or_create()?
                .listener_builder()
                .create()?;
            Box::new(move || {
                loop {
                    if let Some(sample) = subscriber.receive()? {
                        let now = monotonic_ns();
                        let stamp = u64::from_le_bytes(sample.payload()[..8].try_into()?);
                        assert_eq!(sample.payload().len(), size);
                        return Ok(now - stamp);
                    }
                    wait(&listener)?;
                }
            })
        }
        Path::Shm => {
            let subscriber = shm_node
                .subscriber::<Text>(&format!("/{service}"))
                .history(History::KeepLast(1))
                .wake_ups()
                .create()?;
            Box::new(move || {
                loop {
                    if let Some(received) = subscriber.take()? {
                        let now = monotonic_ns();
                        let stamp: u64 = received.message.data[..STAMP_DIGITS].parse()?;
                        assert_eq!(received.message.data.len(), size);
                        return Ok(now - stamp);
                    }
                    let wake_up = subscriber.wake_up().ok_or("no wake-up")?;
                    poll_readable(wake_up.as_raw_fd())?;
                    wake_up.drain()?;
                }
            })
        }
        Path::Ctx => {
            let ctx = Context::builder()
                .transport(ShmTransport::new("bench_ctx_receiver")?)
                .create();
            let mut node = ctx.node("bench_receiver")?;
            let sub = node
                .subscription::<Text>(&format!("/{service}"))
                .history(History::KeepLast(1))
                .create()?;
            let mut executor = WaitSetExecutor::new()?;
            let stop = executor.stop_handle();
            let latest = Arc::new(Mutex::new(None));
            let seen = latest.clone();
            node.execute(Trigger::on(&sub), move |_| {
                if let Some(sample) = sub.take() {
                    let now = monotonic_ns();
                    *seen.lock().unwrap() = Some((now, sample));
                    stop.stop();
                }
            })?;
            executor.add(node)?;
            Box::new(move || {
                let _keep = &ctx;
                if executor.spin_for(PATIENCE)? != SpinOutcome::Stopped {
                    return Err("no sample within the patience".into());
                }
                let (now, sample) = latest.lock().unwrap().take().ok_or("no sample")?;
                let stamp: u64 = sample.data[..STAMP_DIGITS].parse()?;
                assert_eq!(sample.data.len(), size);
                Ok(now - stamp)
            })
        }
        Path::Flat => by_size!(size, flat_receiver, service)?,
    };
    ack.notify()?; // ready
    for i in 0..WARMUP + count {
        if i == WARMUP {
            cpu_start = cpu_ns();
        }
        let latency = take()?;
        if i >= WARMUP {
            latencies.push(latency);
        }
        ack.notify()?;
    }
    let cpu = cpu_ns() - cpu_start;
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    println!("{} {} {} {cpu}", at(0.5), at(0.99), at(1.0));
    Ok(())
}

fn wait(listener: &Listener<ipc::Service>) -> Result<()> {
    if listener.timed_wait(|_| {}, PATIENCE)? == 0 {
        return Err("no event within the patience".into());
    }
    Ok(())
}

fn poll_readable(fd: i32) -> Result<()> {
    let mut fds = [libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }];
    // SAFETY: one valid pollfd for the duration of the call.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, PATIENCE.as_millis() as i32) };
    match ready {
        1 => Ok(()),
        0 => Err("no wake-up within the patience".into()),
        _ => Err(std::io::Error::last_os_error().into()),
    }
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// User + system CPU time of this process.
fn cpu_ns() -> u64 {
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    ns(usage.ru_utime) + ns(usage.ru_stime)
}

fn bytes(size: usize) -> String {
    match size {
        s if s >= 1 << 20 => format!("{} MiB", s >> 20),
        s if s >= 1 << 10 => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

fn micros(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1000.0)
}
