//! `tacto bench payload`: one-way latency by payload size, through each path a message can
//! take, in one run: within a process, and between two processes through raw iceoryx2 (no
//! tacto), through tacto contexts on shared memory, and through tacto contexts on DDS.
//!
//! The sender stamps `CLOCK_MONOTONIC` (one clock for every process of the host) into the
//! message, publishes, and waits for the receiver's acknowledgement before the next one, so
//! one message is in flight and none can be lost on the way: a loss would stall the run, which
//! then fails after [`PATIENCE`]. The receiver wakes as its path does (its executor, or raw
//! iceoryx2's listener), takes the message and reads the clock: one-way latency includes the
//! wake-up. CPU per message is the user + system time of the sender and the receiver over the
//! measured messages, divided by their number.
//!
//! | path    | processes | what travels                                                    |
//! |---------|-----------|-----------------------------------------------------------------|
//! | `intra` | 1         | a `std_msgs/String` through a context without transport: the `Arc` |
//! | `raw`   | 2         | a `[u8]` slice in an iceoryx2 slot, read in place (the floor)   |
//! | `shm`   | 2         | a `std_msgs/String` through contexts on `ShmTransport`: encoded once into the slot, decoded from it |
//! | `raw-loan` | 2      | raw iceoryx2 as a zero-copy user writes it: the slice filled in the loaned slot, stamped last |
//! | `flat`  | 2         | a flat message (`stamp` + bytes) through contexts on `ShmTransport`: filled in the loaned slot, stamped last, read in place |
//! | `dds`   | 2         | a `std_msgs/String` through contexts on `DdsTransport` (Cyclone DDS, the domain of `ROS_DOMAIN_ID`): serialized, sent over the loopback, deserialized, as the default ROS 2 path does |
//!
//! `raw` and `shm` build the message, stamp it and then copy it into the slot (tacto encodes
//! it there): their latency includes that copy. `raw-loan` and `flat` build the message in the
//! slot and stamp it just before sending, as zero-copy publishers do: their latency is the
//! hand-over alone. Each tacto path is compared with the raw path that works alike (`shm` with
//! `raw`, `flat` with `raw-loan`).
//!
//! `dds` is the default ROS 2 path, the one zero-copy results are quoted against: it is not
//! run unless asked for (`--path`), as it needs a network stack and a free DDS domain. Its
//! sender waits for DDS discovery to match its writer with the receiver's reader before the
//! first message, so that none is published before anyone can hear it.
//!
//! Two-process paths run the receiver as a child of this program (`tacto payload-receiver`,
//! hidden), which prints its figures as one line of JSON.

use std::fmt::Write as _;
use std::io;
use std::path::{Path as FilePath, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use iceoryx2::port::listener::Listener;
use iceoryx2::prelude::*;
use serde::{Deserialize, Serialize};
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;
use tacto_shm::ShmTransport;

use crate::run::POLL;
use tacto_launch::interrupt::Interrupt;
use tacto_launch::supervise::child_command;

/// The payload sizes of the events-executor benchmark, and of `--sizes` by default.
pub const SIZES: [usize; 6] = [64, 4 << 10, 64 << 10, 1 << 20, 4 << 20, 8 << 20];
/// Messages sent before the measured ones, per path and size.
pub const WARMUP: usize = 20;
/// How long a message may take before the run is declared stalled.
pub const PATIENCE: Duration = Duration::from_secs(60);
/// The stamp at the start of a `std_msgs/String` payload: 20 decimal digits.
const STAMP_DIGITS: usize = 20;

/// A way from publisher to subscriber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Path {
    /// One process, a context without transport.
    Intra,
    /// Two processes, raw iceoryx2.
    Raw,
    /// Two processes, tacto contexts on shared memory.
    Shm,
    /// Two processes, raw iceoryx2, the message built in the loaned slot.
    RawLoan,
    /// Two processes, tacto contexts on shared memory, a flat message built in the slot.
    Flat,
    /// Two processes, tacto contexts on DDS.
    Dds,
}

impl Path {
    /// The paths run by default: those within this host's memory.
    pub const ALL: [Path; 5] = [Path::Intra, Path::Raw, Path::Shm, Path::RawLoan, Path::Flat];
    /// Every path, in the order of the table: [`ALL`](Self::ALL), then `dds`.
    pub const EVERY: [Path; 6] = [
        Path::Intra,
        Path::Raw,
        Path::Shm,
        Path::RawLoan,
        Path::Flat,
        Path::Dds,
    ];

    /// The path's name in tables, options and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Path::Intra => "intra",
            Path::Raw => "raw",
            Path::Shm => "shm",
            Path::RawLoan => "raw-loan",
            Path::Flat => "flat",
            Path::Dds => "dds",
        }
    }

    /// The raw iceoryx2 path that works as this tacto path does, for the ratio columns.
    pub fn reference(self) -> Option<Path> {
        match self {
            Path::Shm => Some(Path::Raw),
            Path::Flat => Some(Path::RawLoan),
            Path::Intra | Path::Raw | Path::RawLoan | Path::Dds => None,
        }
    }
}

/// Why the payload bench failed.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// A path could not be set up, or a message not sent or received.
    #[error("{path} path, {size} B: {reason}")]
    Path {
        /// The path.
        path: &'static str,
        /// The payload size.
        size: usize,
        /// What went wrong.
        reason: String,
    },
    /// The receiver process could not be started or failed.
    #[error("{path} path, {size} B: the receiver process {reason}")]
    Receiver {
        /// The path.
        path: &'static str,
        /// The payload size.
        size: usize,
        /// What went wrong, with its error output.
        reason: String,
    },
    /// Ctrl-C or SIGTERM stopped the bench.
    #[error("interrupted")]
    Interrupted,
}

/// One path at one payload size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The path.
    pub path: Path,
    /// Payload bytes (the raw slice's length; the string's length for tacto's paths).
    pub size: usize,
    /// Measured messages.
    pub n: usize,
    /// One-way latency, µs.
    pub p50_us: f64,
    /// One-way latency, µs.
    pub p99_us: f64,
    /// One-way latency, µs.
    pub max_us: f64,
    /// CPU per message of sender and receiver together, µs.
    pub cpu_us: f64,
}

/// A whole `tacto bench payload` invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PayloadReport {
    /// Measured messages per path and size.
    pub count: usize,
    /// By size, then path, in the order they ran.
    pub cells: Vec<Cell>,
    /// True if Ctrl-C stopped the bench: `cells` holds those finished before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl PayloadReport {
    /// The cell of `path` at `size`, if it ran.
    pub fn cell(&self, path: Path, size: usize) -> Option<&Cell> {
        self.cells.iter().find(|c| c.path == path && c.size == size)
    }
}

/// What a receiver measured, as it prints it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Received {
    /// One-way latencies, ns, of the measured messages, sorted.
    latencies_ns: Vec<u64>,
    /// The receiver's CPU over the measured messages, ns.
    cpu_ns: u64,
}

/// How many rounds a size's paths take turns in: each path measures its share of the messages
/// in every round, so that a change of the machine's state during a size (this VM's wake-ups
/// move between about 5 and 20 µs for minutes at a time, raw iceoryx2's too) falls on every
/// path alike instead of on whichever ran then.
const ROUNDS: usize = 5;
/// The fewest messages a round measures: fewer messages take fewer rounds (one below 200), as
/// each round starts a receiver (and over DDS waits for discovery) again.
const MIN_SHARE: usize = 100;

/// Runs every path of `paths` at every size of `sizes`, `count` measured messages each, the
/// paths taking turns in up to five rounds per size, of at least 100 messages each (one round
/// below 200); a signal stops it between two messages (`interrupted`, with the sizes finished
/// before).
pub fn run(
    paths: &[Path],
    sizes: &[usize],
    count: usize,
    interrupt: &Interrupt,
) -> Result<PayloadReport, PayloadError> {
    if paths.contains(&Path::Flat)
        && let Some(&size) = sizes.iter().find(|s| !SIZES.contains(s))
    {
        return Err(PayloadError::Path {
            path: Path::Flat.name(),
            size,
            reason: "the flat path has a message type for 64 B, 4 KiB, 64 KiB, 1 MiB, 4 MiB and \
                     8 MiB only"
                .into(),
        });
    }
    let mut report = PayloadReport {
        count,
        cells: Vec::new(),
        interrupted: false,
    };
    let rounds = (count / MIN_SHARE).clamp(1, ROUNDS);
    for &size in sizes {
        let mut measured: Vec<Measured> = paths.iter().map(|_| Measured::default()).collect();
        for round in 0..rounds {
            // The rounds' shares add up to `count`.
            let share = count * (round + 1) / rounds - count * round / rounds;
            for (&path, pooled) in paths.iter().zip(&mut measured) {
                eprintln!("[{}] {} {}/{rounds}", bytes(size), path.name(), round + 1);
                let one = match path {
                    Path::Intra => intra(size, share, interrupt),
                    Path::Raw | Path::Shm | Path::RawLoan | Path::Flat | Path::Dds => {
                        across(path, size, share, interrupt)
                    }
                };
                match one {
                    Ok(one) => {
                        pooled.latencies_ns.extend(one.latencies_ns);
                        pooled.cpu_ns += one.cpu_ns;
                    }
                    Err(PayloadError::Interrupted) => {
                        report.interrupted = true;
                        return Ok(report);
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        for (&path, pooled) in paths.iter().zip(measured) {
            report
                .cells
                .push(cell(path, size, pooled.latencies_ns, pooled.cpu_ns));
        }
    }
    Ok(report)
}

/// What one path measured at one size: each message's latency, and the CPU of all of them.
#[derive(Debug, Default)]
struct Measured {
    latencies_ns: Vec<u64>,
    cpu_ns: u64,
}

fn cell(path: Path, size: usize, mut latencies_ns: Vec<u64>, cpu_ns: u64) -> Cell {
    latencies_ns.sort_unstable();
    let n = latencies_ns.len();
    let at = |q: f64| match n {
        0 => 0.0,
        _ => latencies_ns[((n - 1) as f64 * q).round() as usize] as f64 / 1e3,
    };
    Cell {
        path,
        size,
        n,
        p50_us: at(0.5),
        p99_us: at(0.99),
        max_us: at(1.0),
        cpu_us: cpu_ns as f64 / n.max(1) as f64 / 1e3,
    }
}

/// The intra-process path: a publisher's loan to a triggered subscription on a wait-set
/// executor spinning on a thread of its own.
fn intra(size: usize, count: usize, interrupt: &Interrupt) -> Result<Measured, PayloadError> {
    let failed = |reason: String| PayloadError::Path {
        path: Path::Intra.name(),
        size,
        reason,
    };
    let ctx = Context::new();
    let mut node = ctx
        .node("payload_intra")
        .map_err(|e| failed(e.to_string()))?;
    let publisher =
        (node.publisher::<Text>("/payload_intra").create()).map_err(|e| failed(e.to_string()))?;
    let sub = (node.subscription::<Text>("/payload_intra"))
        .history(History::KeepLast(1))
        .create()
        .map_err(|e| failed(e.to_string()))?;
    let (ack, acks) = mpsc::sync_channel::<Option<u64>>(1);
    node.execute(Trigger::on(&sub), move |_| {
        while let Some(sample) = sub.take() {
            let now = monotonic_ns();
            let _ = ack.send(stamp_of(&sample.data, size).map(|stamp| now - stamp));
        }
    })
    .map_err(|e| failed(e.to_string()))?;
    let mut executor = WaitSetExecutor::new().map_err(|e| failed(e.to_string()))?;
    let stop = executor.stop_handle();
    executor.add(node).map_err(|e| failed(e.to_string()))?;
    let spinner = thread::spawn(move || executor.spin().map(drop));

    let mut latencies = Vec::with_capacity(count);
    let mut cpu_start = 0;
    let mut outcome = Ok(());
    for i in 0..WARMUP + count {
        if i == WARMUP {
            cpu_start = process_cpu_ns();
        }
        send_text(&publisher, size);
        match wait_for(&acks, interrupt) {
            Ok(Some(latency)) if i >= WARMUP => latencies.push(latency),
            Ok(Some(_)) => {}
            Ok(None) => {
                outcome = Err(failed("a message arrived without its stamp".into()));
                break;
            }
            Err(e) => {
                outcome = Err(e.map_or(PayloadError::Interrupted, failed));
                break;
            }
        }
    }
    let cpu = process_cpu_ns() - cpu_start;
    stop.stop();
    let spun = spinner
        .join()
        .map_err(|_| failed("the executor panicked".into()))?;
    outcome?;
    spun.map_err(|e| failed(e.to_string()))?;
    Ok(Measured {
        latencies_ns: latencies,
        cpu_ns: cpu,
    })
}

/// Waits for the next acknowledgement: `Err(None)` on a signal, `Err(Some(reason))` after
/// [`PATIENCE`].
fn wait_for<T>(acks: &mpsc::Receiver<T>, interrupt: &Interrupt) -> Result<T, Option<String>> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match acks.recv_timeout(POLL) {
            Ok(value) => return Ok(value),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Some("the subscription's executable is gone".into()));
            }
            Err(mpsc::RecvTimeoutError::Timeout) if interrupt.requested() => return Err(None),
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() > deadline => {
                return Err(Some(format!("no message within {} s", PATIENCE.as_secs())));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Loans the message published last time (the pool has it back once the subscriber dropped
/// it), stamps it and publishes it.
fn send_text(publisher: &tacto::Publisher<Text>, size: usize) {
    let stamp = format!("{:0width$}", monotonic_ns(), width = STAMP_DIGITS);
    let mut text = publisher.loan();
    if text.data.len() != size {
        text.data = "x".repeat(size.max(STAMP_DIGITS));
    }
    text.data.replace_range(..STAMP_DIGITS, &stamp);
    text.publish();
}

/// The stamp of a `std_msgs/String` payload of `size` bytes.
fn stamp_of(data: &str, size: usize) -> Option<u64> {
    if data.len() != size.max(STAMP_DIGITS) {
        return None;
    }
    data.get(..STAMP_DIGITS)?.parse().ok()
}

/// A two-process path: this process sends, a child of this program receives.
fn across(
    path: Path,
    size: usize,
    count: usize,
    interrupt: &Interrupt,
) -> Result<Measured, PayloadError> {
    let failed = |reason: String| PayloadError::Path {
        path: path.name(),
        size,
        reason,
    };
    let service = format!(
        "tacto_payload_{}_{}_{size}",
        std::process::id(),
        path.name()
    );
    let node = iceoryx_node().map_err(failed)?;
    let acks = ack_port(&node, &service)
        .and_then(|s| s.listener_builder().create().map_err(|e| e.to_string()))
        .map_err(failed)?;
    let sender = Sender::new(path, &node, &service, size).map_err(failed)?;
    let mut receiver = Receiver::start(path, &service, size, count)?;

    let mut wait = |what: &str| -> Result<(), PayloadError> {
        match wait_event(&acks, interrupt) {
            Ok(()) => Ok(()),
            Err(None) => Err(PayloadError::Interrupted),
            Err(Some(reason)) => Err(receiver.failed(format!("{what}: {reason}"))),
        }
    };
    wait("did not get ready")?;
    sender
        .matched(interrupt)
        .map_err(|e| e.map_or(PayloadError::Interrupted, failed))?;
    let mut payload = vec![b'x'; size.max(8)];
    let mut cpu_start = 0;
    for i in 0..WARMUP + count {
        if i == WARMUP {
            cpu_start = process_cpu_ns();
        }
        sender.send(&mut payload).map_err(failed)?;
        wait("acknowledged nothing")?;
    }
    let sender_cpu = process_cpu_ns() - cpu_start;
    let received = receiver.finish()?;
    Ok(Measured {
        latencies_ns: received.latencies_ns,
        cpu_ns: sender_cpu + received.cpu_ns,
    })
}

/// The receiver process of a two-process path; killed if dropped before it finished.
struct Receiver {
    child: Child,
    path: Path,
    size: usize,
}

impl Receiver {
    fn start(
        path: Path,
        service: &str,
        size: usize,
        count: usize,
    ) -> Result<Receiver, PayloadError> {
        let program = std::env::current_exe().map_err(|e| PayloadError::Receiver {
            path: path.name(),
            size,
            reason: format!("cannot be found: {e}"),
        })?;
        let child = child_command(&program)
            .args(["payload-receiver", path.name(), service])
            .args([size.to_string(), count.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| PayloadError::Receiver {
                path: path.name(),
                size,
                reason: format!("cannot be started ({}): {e}", program.display()),
            })?;
        Ok(Receiver { child, path, size })
    }

    /// The error `reason`, with the receiver's own words if it has died.
    fn failed(&mut self, reason: String) -> PayloadError {
        let stderr = match self.child.try_wait() {
            Ok(Some(status)) => format!(" (it ended: {status}; {})", self.stderr()),
            _ => String::new(),
        };
        PayloadError::Receiver {
            path: self.path.name(),
            size: self.size,
            reason: format!("{reason}{stderr}"),
        }
    }

    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = io::Read::read_to_string(&mut pipe, &mut text);
        }
        text.trim().to_owned()
    }

    /// Its figures, once it has ended.
    fn finish(mut self) -> Result<Received, PayloadError> {
        let mut line = String::new();
        if let Some(mut pipe) = self.child.stdout.take() {
            let _ = io::Read::read_to_string(&mut pipe, &mut line);
        }
        let status = self.child.wait().map_err(|e| self.failed(e.to_string()))?;
        if !status.success() {
            return Err(self.failed(format!("failed ({status})")));
        }
        serde_json::from_str(line.trim())
            .map_err(|e| self.failed(format!("printed no result: {e}")))
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn iceoryx_node() -> Result<Node<ipc::Service>, String> {
    // tacto owns the signals; quiet iceoryx2's "no config file, using defaults".
    set_log_level_from_env_or(LogLevel::Error);
    NodeBuilder::new()
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc::Service>()
        .map_err(|e| e.to_string())
}

/// The event service on which the receiver says it is ready and acknowledges each message.
fn ack_port(
    node: &Node<ipc::Service>,
    service: &str,
) -> Result<iceoryx2::service::port_factory::event::PortFactory<ipc::Service>, String> {
    let name = ServiceName::new(&format!("{service}/ack")).map_err(|e| e.to_string())?;
    (node.service_builder(&name).event())
        .event_id_max_value(0)
        .open_or_create()
        .map_err(|e| e.to_string())
}

/// Waits for one event: `Err(None)` on a signal, `Err(Some(reason))` after [`PATIENCE`].
fn wait_event(
    listener: &Listener<ipc::Service>,
    interrupt: &Interrupt,
) -> Result<(), Option<String>> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match listener.timed_wait(|_| {}, POLL) {
            Ok(0) if interrupt.requested() => return Err(None),
            Ok(0) if Instant::now() > deadline => {
                return Err(Some(format!("within {} s", PATIENCE.as_secs())));
            }
            Ok(0) => {}
            Ok(_) => return Ok(()),
            Err(e) => return Err(Some(e.to_string())),
        }
    }
}

type RawData =
    iceoryx2::service::port_factory::publish_subscribe::PortFactory<ipc::Service, [u8], ()>;
type RawEvents = iceoryx2::service::port_factory::event::PortFactory<ipc::Service>;

/// Raw iceoryx2's two services of one path: the `[u8]` slices and the event that wakes.
fn raw_services(node: &Node<ipc::Service>, service: &str) -> Result<(RawData, RawEvents), String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let name = ServiceName::new(&format!("rt/{service}")).map_err(|e| text(&e))?;
    let data = (node.service_builder(&name).publish_subscribe::<[u8]>())
        .open_or_create()
        .map_err(|e| text(&e))?;
    // One event id, as tacto's topics have: iceoryx2's default of 256 makes every drain swap
    // 256 counters, which raw would pay and tacto not.
    let events = (node.service_builder(&name).event())
        .event_id_max_value(0)
        .open_or_create()
        .map_err(|e| text(&e))?;
    Ok((data, events))
}

/// Raw iceoryx2's sending ports: the slice publisher and the notifier that wakes the listener.
type RawPorts = (
    iceoryx2::port::publisher::Publisher<ipc::Service, [u8], ()>,
    iceoryx2::port::notifier::Notifier<ipc::Service>,
);

/// The sending end of a two-process path.
enum Sender {
    /// Boxed: iceoryx2's ports are large, and a sender is made once per path and size.
    Raw {
        ports: Box<RawPorts>,
        /// `raw-loan`: the message is built in the slot, stamped last.
        in_place: bool,
    },
    /// A context's publisher of the flat type of this size, behind its sending function.
    Flat(FlatSend),
    /// A context's publisher on shared memory or DDS, its context kept alive.
    Text {
        publisher: tacto::Publisher<Text>,
        _context: Context,
        /// The path, for what it checks after each message.
        path: Path,
    },
}

impl Sender {
    fn new(
        path: Path,
        node: &Node<ipc::Service>,
        service: &str,
        size: usize,
    ) -> Result<Sender, String> {
        let text = |e: &dyn std::fmt::Display| e.to_string();
        Ok(match path {
            Path::Raw | Path::RawLoan => {
                let (data, events) = raw_services(node, service)?;
                let publisher = data
                    .publisher_builder()
                    .initial_max_slice_len(size.max(8))
                    .create()
                    .map_err(|e| text(&e))?;
                let notifier = events.notifier_builder().create().map_err(|e| text(&e))?;
                Sender::Raw {
                    ports: Box::new((publisher, notifier)),
                    in_place: path == Path::RawLoan,
                }
            }
            Path::Intra => return Err("the intra path has no sender process".into()),
            Path::Flat => Sender::Flat(by_size!(size, flat_sender, service)?),
            Path::Shm | Path::Dds => {
                let ctx = transport_context(path, "payload_sender")?;
                let publisher = (ctx.node("payload_sender").map_err(|e| text(&e))?)
                    .publisher::<Text>(&format!("/{service}"))
                    .create()
                    .map_err(|e| text(&e))?;
                Sender::Text {
                    publisher,
                    _context: ctx,
                    path,
                }
            }
        })
    }

    /// Waits until the receiver's reader is matched with this sender's writer: DDS discovery
    /// takes a moment after the receiver says it is ready, and a message published before it
    /// would be lost (the other paths are connected once both ends exist). `Err(None)` on a
    /// signal, `Err(Some(reason))` after [`PATIENCE`].
    fn matched(&self, interrupt: &Interrupt) -> Result<(), Option<String>> {
        let Sender::Text {
            publisher,
            path: Path::Dds,
            ..
        } = self
        else {
            return Ok(());
        };
        let deadline = Instant::now() + PATIENCE;
        while publisher.subscription_count() == 0 {
            if Instant::now() > deadline {
                return Err(Some(format!(
                    "DDS discovery matched no reader within {} s",
                    PATIENCE.as_secs()
                )));
            }
            if !interrupt.sleep(Duration::from_millis(10)) {
                return Err(None);
            }
        }
        Ok(())
    }

    /// Stamps and sends one message; `payload` is the raw path's bytes, reused.
    fn send(&self, payload: &mut [u8]) -> Result<(), String> {
        match self {
            Sender::Raw { ports, in_place } => {
                let (publisher, notifier) = &**ports;
                if !in_place {
                    payload[..8].copy_from_slice(&monotonic_ns().to_le_bytes());
                }
                let slot =
                    (publisher.loan_slice_uninit(payload.len())).map_err(|e| e.to_string())?;
                let mut sample = slot.write_from_slice(payload);
                if *in_place {
                    sample.payload_mut()[..8].copy_from_slice(&monotonic_ns().to_le_bytes());
                }
                sample.send().map_err(|e| e.to_string())?;
                notifier.notify().map_err(|e| e.to_string())?;
            }
            Sender::Flat(send) => send(payload)?,
            Sender::Text {
                publisher, path, ..
            } => {
                send_text(publisher, payload.len());
                if publisher.remote_writes() == 0 {
                    let transport = match path {
                        Path::Dds => "DDS",
                        _ => "shared memory",
                    };
                    return Err(format!("the message did not reach {transport}"));
                }
            }
        }
        Ok(())
    }
}

/// The receiver process of `path` (`tacto payload-receiver`): says it is ready, then takes
/// `WARMUP + count` messages, acknowledging each, and returns the measured ones' figures.
pub fn receive(path: Path, service: &str, size: usize, count: usize) -> Result<Received, String> {
    let node = iceoryx_node()?;
    let ack = ack_port(&node, service)?
        .notifier_builder()
        .create()
        .map_err(|e| e.to_string())?;
    let mut take = receiver_of(path, &node, service, size)?;
    let mut latencies_ns = Vec::with_capacity(count);
    ack.notify().map_err(|e| e.to_string())?; // ready
    let mut cpu_start = 0;
    for i in 0..WARMUP + count {
        if i == WARMUP {
            cpu_start = process_cpu_ns();
        }
        let latency = take()?;
        if i >= WARMUP {
            latencies_ns.push(latency);
        }
        ack.notify().map_err(|e| e.to_string())?;
    }
    let cpu_ns = process_cpu_ns() - cpu_start;
    latencies_ns.sort_unstable();
    Ok(Received {
        latencies_ns,
        cpu_ns,
    })
}

type Take = Box<dyn FnMut() -> Result<u64, String>>;

fn receiver_of(
    path: Path,
    node: &Node<ipc::Service>,
    service: &str,
    size: usize,
) -> Result<Take, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    match path {
        Path::Raw | Path::RawLoan => {
            let (data, events) = raw_services(node, service)?;
            let subscriber = data.subscriber_builder().create().map_err(|e| text(&e))?;
            let listener = events.listener_builder().create().map_err(|e| text(&e))?;
            let size = size.max(8);
            Ok(Box::new(move || {
                let deadline = Instant::now() + PATIENCE;
                loop {
                    if let Some(sample) = subscriber.receive().map_err(|e| text(&e))? {
                        let now = monotonic_ns();
                        let payload = sample.payload();
                        if payload.len() != size {
                            return Err(format!("{} bytes, not {size}", payload.len()));
                        }
                        let stamp =
                            u64::from_le_bytes(payload[..8].try_into().map_err(|e| text(&e))?);
                        return Ok(now - stamp);
                    }
                    if Instant::now() > deadline {
                        return Err("no message within the patience".into());
                    }
                    listener.timed_wait(|_| {}, POLL).map_err(|e| text(&e))?;
                }
            }))
        }
        Path::Intra => Err("the intra path has no receiver process".into()),
        Path::Flat => by_size!(size, flat_receiver, service),
        Path::Shm | Path::Dds => {
            let ctx = transport_context(path, "payload_receiver")?;
            context_receiver::<Text>(ctx, service, move |text| stamp_of(&text.data, size))
        }
    }
}

/// One flat message type per size of [`SIZES`]: a stamp, then the rest of the payload.
macro_rules! flat_types {
    ($($name:ident = $size:expr),* $(,)?) => {
        $(
            /// The `flat` path's message of this size.
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
                fn fill(&mut self, payload: &[u8]) {
                    self.payload.copy_from_slice(&payload[8..]);
                }
                fn set_stamp(&mut self, stamp: u64) {
                    self.stamp = stamp;
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

/// Calls `$function::<the flat type of $size bytes>($service)`.
macro_rules! by_size {
    ($size:expr, $function:ident, $service:expr) => {
        match $size {
            64 => $function::<Flat64>($service),
            s if s == 4 << 10 => $function::<Flat4K>($service),
            s if s == 64 << 10 => $function::<Flat64K>($service),
            s if s == 1 << 20 => $function::<Flat1M>($service),
            s if s == 4 << 20 => $function::<Flat4M>($service),
            s if s == 8 << 20 => $function::<Flat8M>($service),
            s => Err(format!("no flat message type of {s} bytes")),
        }
    };
}
use by_size;

/// What the `flat` path needs of its message types.
trait Stamped: tacto::Flat {
    fn stamp(&self) -> u64;
    /// Writes the payload after its first 8 bytes (the stamp's place in raw's slice).
    fn fill(&mut self, payload: &[u8]);
    fn set_stamp(&mut self, stamp: u64);
}

/// Builds one flat message in a loaned slot from raw's payload, stamps it and sends it.
type FlatSend = Box<dyn Fn(&[u8]) -> Result<(), String>>;

fn flat_sender<T: Stamped>(service: &str) -> Result<FlatSend, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let transport = ShmTransport::new("payload_flat_sender").map_err(|e| text(&e))?;
    let ctx = Context::builder().transport(transport).create();
    let publisher = (ctx.node("payload_sender").map_err(|e| text(&e))?)
        .publisher::<T>(&format!("/{service}"))
        .create()
        .map_err(|e| text(&e))?;
    Ok(Box::new(move |payload: &[u8]| {
        let _keep = &ctx;
        let mut message = publisher.loan_flat_reused();
        if !message.is_in_place() {
            return Err("the flat loan is not a shared-memory slot".into());
        }
        message.fill(payload);
        message.set_stamp(monotonic_ns());
        message.publish();
        Ok(())
    }))
}

fn flat_receiver<T: Stamped>(service: &str) -> Result<Take, String> {
    // Read in place: the stamp is in the publisher's slot.
    let ctx = transport_context(Path::Flat, "payload_receiver")?;
    context_receiver::<T>(ctx, service, |message| Some(message.stamp()))
}

/// A context on the transport of `path`: shared memory for `shm` and `flat`, DDS (the domain
/// of the ROS 2 environment variables) for `dds`.
fn transport_context(path: Path, name: &str) -> Result<Context, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    Ok(match path {
        Path::Dds => {
            let transport = DdsTransport::from_env().map_err(|e| format!("DDS: {e}"))?;
            Context::builder().transport(transport).create()
        }
        _ => {
            let transport = ShmTransport::new(name).map_err(|e| text(&e))?;
            Context::builder().transport(transport).create()
        }
    })
}

/// A receiver on `ctx` (a context on a transport): a triggered subscription of `T` on a
/// wait-set executor, whose code sends each message's latency (`None`: a message without its
/// stamp) to the receiving loop.
fn context_receiver<T: tacto::Message>(
    ctx: Context,
    service: &str,
    stamp: impl Fn(&T) -> Option<u64> + Send + 'static,
) -> Result<Take, String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let mut node = ctx.node("payload_receiver").map_err(|e| text(&e))?;
    let sub = (node.subscription::<T>(&format!("/{service}")))
        .history(History::KeepLast(1))
        .create()
        .map_err(|e| text(&e))?;
    let (tx, rx) = mpsc::channel();
    node.execute(Trigger::on(&sub), move |_| {
        while let Some(sample) = sub.take() {
            let now = monotonic_ns();
            let _ = tx.send(stamp(&sample).map(|stamp| now - stamp));
        }
    })
    .map_err(|e| text(&e))?;
    let mut executor = WaitSetExecutor::new().map_err(|e| text(&e))?;
    executor.add(node).map_err(|e| text(&e))?;
    // Spins until the process ends, after its figures are printed.
    thread::spawn(move || executor.spin());
    Ok(Box::new(move || {
        let _keep = &ctx;
        match rx.recv_timeout(PATIENCE) {
            Ok(Some(latency)) => Ok(latency),
            Ok(None) => Err("a message arrived without its stamp".into()),
            Err(e) => Err(format!("no message: {e}")),
        }
    }))
}

/// The table: per size, each path's p50 and p99 in µs, tacto's paths against raw iceoryx2,
/// and CPU per message.
pub fn table(report: &PayloadReport) -> String {
    let paths: Vec<Path> = Path::EVERY
        .into_iter()
        .filter(|&p| report.cells.iter().any(|c| c.path == p))
        .collect();
    let mut sizes: Vec<usize> = report.cells.iter().map(|c| c.size).collect();
    sizes.dedup();
    let mut out = format!(
        "one-way latency by payload, {} messages per path and size after {WARMUP} of warm-up, \
         one in flight\n",
        report.count
    );
    let _ = write!(out, "{:>8}", "payload");
    for p in &paths {
        let _ = write!(
            out,
            " | {:>9} {:>9} {:>9}",
            format!("{} p50", p.name()),
            "p99",
            "CPU"
        );
    }
    let compared: Vec<(Path, Path)> = (paths.iter())
        .filter_map(|&p| Some((p, p.reference().filter(|r| paths.contains(r))?)))
        .collect();
    for (p, r) in &compared {
        let _ = write!(
            out,
            " | {:>13} {:>7}",
            format!("{}/{}", p.name(), r.name()),
            "p99"
        );
    }
    out.push('\n');
    for size in sizes {
        let _ = write!(out, "{:>8}", bytes(size));
        for &p in &paths {
            match report.cell(p, size) {
                Some(c) => {
                    let _ = write!(
                        out,
                        " | {:>9.1} {:>9.1} {:>9.1}",
                        c.p50_us, c.p99_us, c.cpu_us
                    );
                }
                None => {
                    let _ = write!(out, " | {:>9} {:>9} {:>9}", "-", "-", "-");
                }
            }
        }
        for (p, r) in &compared {
            match (report.cell(*p, size), report.cell(*r, size)) {
                (Some(c), Some(r)) => {
                    let _ = write!(
                        out,
                        " | {:>13.2} {:>7.2}",
                        c.p50_us / r.p50_us,
                        c.p99_us / r.p99_us
                    );
                }
                _ => {
                    let _ = write!(out, " | {:>13} {:>7}", "-", "-");
                }
            }
        }
        out.push('\n');
    }
    out += "legend: p50, p99: one-way latency, µs (publish to take, wake-up included); CPU: µs of \
            CPU per message, sender and receiver together; x/y: path x's latency over that of y, \
            the raw iceoryx2 path that works alike, at the same size (p50, p99); raw and shm \
            stamp before copying into the slot, raw-loan and flat after building the message \
            in it; dds serializes through Cyclone DDS over the loopback\n";
    out
}

/// Latency against payload on log axes, one line per path (p50 solid, p99 dashed).
pub fn svg(report: &PayloadReport) -> String {
    const COLORS: [&str; 6] = [
        "#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2",
    ];
    const LEFT: f64 = 70.0;
    const TOP: f64 = 40.0;
    const W: f64 = 460.0;
    const H: f64 = 300.0;
    let sizes: Vec<f64> = report.cells.iter().map(|c| c.size as f64).collect();
    let times: Vec<f64> = (report.cells.iter())
        .flat_map(|c| [c.p50_us, c.p99_us])
        // An infinite time would stretch the axis over billions of decades.
        .filter(|&t| t.is_finite() && t > 0.0)
        .collect();
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min).max(1e-3);
        let hi = v.iter().copied().fold(0.0, f64::max).max(lo * 10.0);
        (lo.log10().floor(), hi.log10().ceil())
    };
    let (x0, x1) = range(&sizes);
    let (y0, y1) = range(&times);
    let x = |v: f64| LEFT + W * (v.max(1e-3).log10() - x0) / (x1 - x0);
    let y = |v: f64| TOP + H * (1.0 - (v.max(1e-3).log10() - y0) / (y1 - y0));
    let mut body = String::new();
    for decade in x0 as i32..=x1 as i32 {
        let v = 10f64.powi(decade);
        let _ = writeln!(
            body,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{b}" stroke="#eee"/><text x="{px:.1}" y="{ty}" text-anchor="middle">{label}</text>"##,
            px = x(v),
            b = TOP + H,
            ty = TOP + H + 16.0,
            label = decade_label(decade),
        );
    }
    for decade in y0 as i32..=y1 as i32 {
        let v = 10f64.powi(decade);
        let _ = writeln!(
            body,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{r}" y2="{py:.1}" stroke="#eee"/><text x="{tx}" y="{py:.1}" text-anchor="end">{v} µs</text>"##,
            py = y(v),
            r = LEFT + W,
            tx = LEFT - 6.0,
        );
    }
    for (i, path) in Path::EVERY.into_iter().enumerate() {
        let cells: Vec<&Cell> = report.cells.iter().filter(|c| c.path == path).collect();
        if cells.is_empty() {
            continue;
        }
        let color = COLORS[i % COLORS.len()];
        for (dash, pick) in [
            ("", (|c: &Cell| c.p50_us) as fn(&Cell) -> f64),
            ("6,4", |c: &Cell| c.p99_us),
        ] {
            let points: Vec<String> = (cells.iter())
                .map(|c| format!("{:.1},{:.1}", x(c.size as f64), y(pick(c))))
                .collect();
            let _ = writeln!(
                body,
                r##"<polyline fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}" points="{}"/>"##,
                points.join(" ")
            );
        }
        let _ = writeln!(
            body,
            r##"<text x="{lx}" y="{ly}" fill="{color}">{}</text>"##,
            path.name(),
            lx = LEFT + W + 14.0,
            ly = TOP + 14.0 + 18.0 * i as f64,
        );
    }
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="22" font-size="15" font-weight="bold">one-way latency by payload (log axes)</text>
<rect x="{LEFT}" y="{TOP}" width="{W}" height="{H}" fill="none" stroke="#999"/>
{body}<text x="{LEFT}" y="{ay}" fill="#555">payload; solid p50, dashed p99</text>
</svg>
"##,
        w = LEFT + W + 120.0,
        h = TOP + H + 50.0,
        ay = TOP + H + 38.0,
    )
}

/// Writes `report.md` (the table) and `latency-payload.svg` into `dir`.
pub fn write_markdown(report: &PayloadReport, dir: &FilePath) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("latency-payload.svg"), svg(report))?;
    let md = format!(
        "# tacto bench payload\n\n![Latency by payload](latency-payload.svg)\n\n```\n{}```\n",
        table(report)
    );
    let path = dir.join("report.md");
    std::fs::write(&path, md)?;
    Ok(path)
}

/// 10 to the `power` bytes, in SI units: 10 B, 1 kB, 10 MB.
fn decade_label(power: i32) -> String {
    let units = ["B", "kB", "MB", "GB"];
    let unit = (power.max(0) / 3).min(3);
    format!(
        "{} {}",
        10u64.pow((power.max(0) - 3 * unit) as u32),
        units[unit as usize]
    )
}

/// A payload size as people write it: 64 B, 4 KiB, 8 MiB.
pub fn bytes(size: usize) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{} MiB", s >> 20),
        s if s >= 1 << 10 && s % (1 << 10) == 0 => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

/// Parses a payload size: `64`, `4K`/`4KiB`, `8M`/`8MiB` (binary units), at most 64 MiB.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s
        .trim()
        .trim_end_matches(['B', 'b'])
        .trim_end_matches(['i', 'I']);
    let (digits, unit) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 1 << 10),
        Some((i, 'M' | 'm')) => (&t[..i], 1 << 20),
        _ => (t, 1),
    };
    let n: usize =
        (digits.trim().parse()).map_err(|_| format!("{s:?} is not a size (e.g. 64, 4K, 8M)"))?;
    match n.checked_mul(unit) {
        Some(size) if (1..=64 << 20).contains(&size) => Ok(size),
        _ => Err(format!("{s}: a payload from 1 B to 64 MiB")),
    }
}

/// `CLOCK_MONOTONIC`, ns: one clock for every process of the host.
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes the timespec it is given, which lives for the call.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn process_cpu_ns() -> u64 {
    tacto_launch::measure::process_cpu().as_nanos() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_binary_units_and_print_back() {
        assert_eq!(parse_size("64"), Ok(64));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("8M"), Ok(8 << 20));
        assert!(parse_size("0").is_err());
        assert!(parse_size("65M").is_err());
        assert!(parse_size("-4").is_err());
        assert!(parse_size("lots").is_err());
        assert_eq!(bytes(8 << 20), "8 MiB");
        assert_eq!(bytes(4096), "4 KiB");
        assert_eq!(bytes(100), "100 B");
    }

    #[test]
    fn a_stamp_is_read_only_from_a_message_of_the_expected_length() {
        let text = format!("{:020}{}", 1234, "x".repeat(44));
        assert_eq!(stamp_of(&text, 64), Some(1234));
        assert_eq!(stamp_of(&text, 65), None);
        assert_eq!(stamp_of("x", 1), None);
    }

    #[test]
    fn the_table_and_plot_show_each_path_and_its_ratio_to_raw() {
        let c = |path, size, p50_us| Cell {
            path,
            size,
            n: 10,
            p50_us,
            p99_us: p50_us * 2.0,
            max_us: p50_us * 3.0,
            cpu_us: 1.0,
        };
        let report = PayloadReport {
            count: 10,
            cells: vec![
                c(Path::Raw, 64, 5.0),
                c(Path::Shm, 64, 10.0),
                c(Path::Raw, 8 << 20, 600.0),
                c(Path::Shm, 8 << 20, 1800.0),
            ],
            interrupted: false,
        };
        let table = table(&report);
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[1].contains("raw p50") && lines[1].contains("shm/raw"),
            "{table}"
        );
        assert!(
            lines[2].starts_with("    64 B") && lines[2].ends_with("2.00    2.00"),
            "{table}"
        );
        assert!(
            lines[3].starts_with("   8 MiB") && lines[3].ends_with("3.00    3.00"),
            "{table}"
        );
        let svg = svg(&report);
        assert_eq!(
            svg.matches("<polyline").count(),
            4,
            "p50 and p99 of two paths"
        );
        for decade in ["10 B", "100 B", "1 kB", "10 kB", "100 kB", "1 MB", "10 MB"] {
            assert!(
                svg.contains(&format!(">{decade}<")),
                "{decade} on the x axis: {svg}"
            );
        }
    }
}
