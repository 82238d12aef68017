//! One-way latency between two processes over Cyclone DDS on loopback, by payload size: the
//! raw Cyclone C calls (`dds_writecdr` through `tacto_dds::Writer::write_cdr`; a reader
//! blocked in a Cyclone wait-set, `dds_takecdr`, the bytes copied out) against tacto (a
//! `Context` on `DdsTransport`: a publisher, and a subscription triggering a node on a
//! `WaitSetExecutor` that takes and decodes it), in the same run, with the same bytes on the
//! wire (`std_msgs/msg/UInt8MultiArray`, reliable, volatile, keep last 10).
//!
//! `cargo bench -p tacto-dds --bench latency` (`TACTO_DDS_BENCH_COUNT=200` for a quick run).
//! Each size runs `TACTO_DDS_BENCH_ROUNDS` (3) rounds of raw then tacto, a receiver process
//! per round; the figures pool the rounds.
//!
//! The sender writes `CLOCK_MONOTONIC` (one clock for every process of the host) and the
//! message's index into the payload, sends, and waits for the receiver's acknowledgement (a
//! line on its stdout) before the next message, so one message is in flight. The receiver
//! reads the clock once it holds the payload: one-way latency includes the wake-up. CPU per
//! message is user + system time of both processes (every thread, Cyclone's included) over
//! the measured messages, divided by their number; the same for minor page faults (a fresh
//! large buffer is faulted in page by page). A message not acknowledged within 10 s
//! is counted lost (reliable QoS: there should be none). Domains 170 (raw) and 171 (tacto), or
//! `TACTO_DDS_BENCH_DOMAIN` and the one after it.

use std::ffi::CString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use tacto::{Context, Executor, Trigger, WaitSetExecutor};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant, Qos, Writer};
use tacto_msgs::std_msgs::msg::UInt8MultiArray as Blob;

const SIZES: [usize; 5] = [64, 4 << 10, 64 << 10, 1 << 20, 4 << 20];
const WARMUP: u64 = 20;
const ROLE: &str = "TACTO_DDS_BENCH_ROLE";
const PATIENCE: Duration = Duration::from_secs(60);
const LOST_AFTER: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, PartialEq, Debug)]
enum Path {
    Raw,
    Tacto,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Raw => "raw",
            Path::Tacto => "tacto",
        }
    }

    /// Domains 170 (raw) and 171 (tacto), or `TACTO_DDS_BENCH_DOMAIN` and the one after it:
    /// runs beside tests that own 170 and 171 stay apart.
    fn domain(self) -> u32 {
        let base = std::env::var("TACTO_DDS_BENCH_DOMAIN")
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(170);
        match self {
            Path::Raw => base,
            Path::Tacto => base + 1,
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    if let Ok(role) = std::env::var(ROLE) {
        let path = if role == "raw" {
            Path::Raw
        } else {
            Path::Tacto
        };
        let topic = std::env::var("TOPIC")?;
        return match path {
            Path::Raw => receive_raw(&topic, std::env::var("OFFSET")?.parse()?),
            Path::Tacto => receive_tacto(&topic),
        };
    }
    // `cargo bench` passes `--bench`; nothing else is understood.
    let count: u64 = std::env::var("TACTO_DDS_BENCH_COUNT")
        .ok()
        .map(|c| c.parse())
        .transpose()?
        .unwrap_or(1000);
    let rounds: u64 = std::env::var("TACTO_DDS_BENCH_ROUNDS")
        .ok()
        .map(|c| c.parse())
        .transpose()?
        .unwrap_or(3);
    println!(
        "one-way latency over DDS (loopback), 2 processes, {rounds} rounds of {count} messages \
         per size and path"
    );
    println!(
        "{:>8} | {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8} | {:>5} {:>5} | {:>9} {:>9} {:>5} | {:>11} | {:>4}",
        "payload",
        "raw p50",
        "raw p99",
        "raw max",
        "tac p50",
        "tac p99",
        "tac max",
        "p50x",
        "p99x",
        "raw CPU/m",
        "tac CPU/m",
        "CPUx",
        "faults/m",
        "lost"
    );
    for size in SIZES {
        // Alternating, so that a change of the machine's load hits both paths alike.
        let (mut raw, mut tacto) = (Outcome::default(), Outcome::default());
        for _ in 0..rounds {
            raw.add(run(Path::Raw, size, count)?);
            tacto.add(run(Path::Tacto, size, count)?);
        }
        let (raw_p50, raw_p99, raw_max) = (raw.at(0.5), raw.at(0.99), raw.at(1.0));
        let (tacto_p50, tacto_p99, tacto_max) = (tacto.at(0.5), tacto.at(0.99), tacto.at(1.0));
        println!(
            "{:>8} | {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8} | {:>5.2} {:>5.2} | {:>9} {:>9} {:>5.2} | {:>11} | {:>4}",
            bytes(size),
            micros(raw_p50),
            micros(raw_p99),
            micros(raw_max),
            micros(tacto_p50),
            micros(tacto_p99),
            micros(tacto_max),
            tacto_p50 as f64 / raw_p50 as f64,
            tacto_p99 as f64 / raw_p99 as f64,
            micros(raw.cpu_per_message()),
            micros(tacto.cpu_per_message()),
            tacto.cpu_per_message() as f64 / raw.cpu_per_message() as f64,
            format!(
                "{}/{}",
                raw.faults_per_message(),
                tacto.faults_per_message()
            ),
            format!("{}/{}", raw.lost, tacto.lost),
        );
    }
    println!(
        "(times in µs; x = tacto / raw; faults/m: minor page faults per message, both processes, \
         raw/tacto; lost = raw/tacto, reliable QoS)"
    );
    Ok(())
}

/// Cyclone on loopback only, discovering peers on this host (as the tests do).
fn config(domain: u32) -> DomainConfig {
    let mut config = DomainConfig::new(domain);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(
        "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/>\
         </Interfaces></General></Domain></CycloneDDS>"
            .into(),
    );
    config
}

/// What runs of one path measured, pooled.
#[derive(Default)]
struct Outcome {
    latencies: Vec<u64>,
    cpu: u64,
    faults: u64,
    messages: u64,
    lost: u64,
}

impl Outcome {
    fn add(&mut self, run: Outcome) {
        self.latencies.extend(run.latencies);
        self.cpu += run.cpu;
        self.faults += run.faults;
        self.messages += run.messages;
        self.lost += run.lost;
    }

    /// The latency at quantile `q`.
    fn at(&mut self, q: f64) -> u64 {
        self.latencies.sort_unstable();
        self.latencies[((self.latencies.len() - 1) as f64 * q) as usize]
    }

    fn cpu_per_message(&self) -> u64 {
        self.cpu / self.messages.max(1)
    }

    fn faults_per_message(&self) -> u64 {
        self.faults / self.messages.max(1)
    }
}

/// How one path sends: the message built around `data`, stamped, written.
enum Sender {
    Raw {
        writer: Writer<Blob>,
        /// The CDR of a `Blob` of the payload size: written as is, stamped in place.
        cdr: Vec<u8>,
        offset: usize,
        _participant: Participant,
    },
    Tacto {
        publisher: tacto::Publisher<Blob>,
        data: Vec<u8>,
        _node: tacto::Node,
        _context: Context,
    },
}

impl Sender {
    fn new(path: Path, topic: &str, size: usize) -> Result<Sender> {
        let participant = Participant::new(&config(path.domain()))?;
        Ok(match path {
            Path::Raw => {
                let cdr = tacto::cdr::to_vec(&Blob {
                    data: vec![b'x'; size],
                    ..Blob::default()
                })?;
                Sender::Raw {
                    writer: Writer::new(&participant, topic, Qos::default())?,
                    offset: cdr.len() - size,
                    cdr,
                    _participant: participant,
                }
            }
            Path::Tacto => {
                let context = Context::builder()
                    .transport(DdsTransport::new(participant))
                    .create();
                let mut node = context.node("bench_sender")?;
                Sender::Tacto {
                    publisher: node.publisher::<Blob>(topic).create()?,
                    data: vec![b'x'; size],
                    _node: node,
                    _context: context,
                }
            }
        })
    }

    /// Where the payload starts in the raw CDR.
    fn offset(&self) -> usize {
        match self {
            Sender::Raw { offset, .. } => *offset,
            Sender::Tacto { .. } => 0,
        }
    }

    fn send(&mut self, index: u64) -> Result<()> {
        match self {
            Sender::Raw {
                writer,
                cdr,
                offset,
                ..
            } => {
                cdr[*offset + 8..*offset + 16].copy_from_slice(&index.to_le_bytes());
                cdr[*offset..*offset + 8].copy_from_slice(&monotonic_ns().to_le_bytes());
                writer.write_cdr(cdr)?;
            }
            Sender::Tacto {
                publisher, data, ..
            } => {
                // The application's message: built from its data (one copy), then stamped.
                let mut data = data.clone();
                data[8..16].copy_from_slice(&index.to_le_bytes());
                data[..8].copy_from_slice(&monotonic_ns().to_le_bytes());
                publisher.publish(Blob {
                    data,
                    ..Blob::default()
                });
            }
        }
        Ok(())
    }
}

/// Sends `WARMUP` then `count` messages of `size` bytes on `path` to a receiver process.
fn run(path: Path, size: usize, count: u64) -> Result<Outcome> {
    let topic = format!(
        "tacto_dds_bench_{}_{}_{size}",
        std::process::id(),
        path.name()
    );
    let mut sender = Sender::new(path, &topic, size)?;
    let mut child = Command::new(std::env::current_exe()?)
        .env(ROLE, path.name())
        .env("TOPIC", &topic)
        .env("OFFSET", sender.offset().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let ack = |index: u64, timeout: Duration| -> Result<bool> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match received.recv_timeout(left) {
                Ok(line) if line == format!("ack {index}") => return Ok(true),
                Ok(_) => {} // a late acknowledgement of a warm-up sent twice
                Err(mpsc::RecvTimeoutError::Timeout) => return Ok(false),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err("receiver died".into()),
            }
        }
    };
    // Warm-up: volatile QoS drops what is written before the reader matched, so resend.
    let deadline = Instant::now() + PATIENCE;
    for index in 0..WARMUP {
        loop {
            sender.send(index)?;
            if ack(index, Duration::from_millis(200))? {
                break;
            }
            if Instant::now() > deadline {
                return Err(
                    format!("{path:?} {size}: no acknowledgement of warm-up {index}").into(),
                );
            }
        }
    }
    let start = usage();
    let mut lost = 0;
    for index in WARMUP..WARMUP + count {
        sender.send(index)?;
        if !ack(index, LOST_AFTER)? {
            lost += 1;
        }
    }
    let sent = usage().since(start);
    drop(child.stdin.take()); // end of run: the receiver reports and exits
    let (mut latencies, mut receiver) = (Vec::new(), Usage::default());
    while let Ok(line) = received.recv_timeout(PATIENCE) {
        if let Some(ns) = line.strip_prefix("latency ") {
            latencies.push(ns.parse::<u64>()?);
        } else if let Some(ns) = line.strip_prefix("cpu ") {
            receiver.cpu_ns = ns.parse()?;
        } else if let Some(n) = line.strip_prefix("faults ") {
            receiver.faults = n.parse()?;
        }
    }
    child.wait()?;
    drop(sender);
    if latencies.is_empty() {
        return Err(format!("{path:?} {size}: nothing measured").into());
    }
    Ok(Outcome {
        latencies,
        cpu: sent.cpu_ns + receiver.cpu_ns,
        faults: sent.faults + receiver.faults,
        messages: count,
        lost,
    })
}

/// What a receiver keeps: latencies of the measured messages, its CPU time over them.
#[derive(Default)]
struct Record {
    latencies: Vec<u64>,
    first: Option<Usage>,
    last: Usage,
}

impl Record {
    /// Notes a payload (stamp, index, ...) and acknowledges it.
    fn note(&mut self, payload: &[u8]) {
        let now = monotonic_ns();
        let word = |at: usize| u64::from_le_bytes(payload[at..at + 8].try_into().unwrap());
        let (stamp, index) = (word(0), word(8));
        if index >= WARMUP {
            self.first.get_or_insert_with(usage);
            self.latencies.push(now.saturating_sub(stamp));
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "ack {index}").and_then(|()| out.flush());
        if index >= WARMUP {
            self.last = usage();
        }
    }

    fn report(&self) {
        let mut out = std::io::stdout().lock();
        for ns in &self.latencies {
            let _ = writeln!(out, "latency {ns}");
        }
        let used = self.last.since(self.first.unwrap_or_default());
        let _ = writeln!(out, "cpu {}", used.cpu_ns);
        let _ = writeln!(out, "faults {}", used.faults);
    }
}

/// Set once the sender closed our stdin: the run is over.
fn run_ends() -> Arc<AtomicBool> {
    let ended = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ended);
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        flag.store(true, Ordering::Release);
    });
    ended
}

fn receive_tacto(topic: &str) -> Result<()> {
    let participant = Participant::new(&config(Path::Tacto.domain()))?;
    let context = Context::builder()
        .transport(DdsTransport::new(participant))
        .create();
    let mut node = context.node("bench_receiver")?;
    let subscription = node.subscription::<Blob>(topic).create()?;
    let record = Arc::new(Mutex::new(Record::default()));
    let noted = Arc::clone(&record);
    node.execute(Trigger::on(&subscription), move |_| {
        for sample in subscription.take_all() {
            noted.lock().unwrap().note(&sample.data);
        }
    })?;
    let mut executor = WaitSetExecutor::new()?;
    executor.add(node)?;
    let ended = run_ends();
    while !ended.load(Ordering::Acquire) {
        executor.spin_for(Duration::from_millis(100))?;
    }
    record.lock().unwrap().report();
    Ok(())
}

/// The raw receiver: Cyclone's C API through cyclors, no tacto in between.
fn receive_raw(topic: &str, offset: usize) -> Result<()> {
    let domain_id = Path::Raw.domain();
    let xml = CString::new(config(domain_id).cyclone_config())?;
    let dds_topic = CString::new(tacto_dds::naming::dds_topic_name(topic)?)?;
    let dds_type = CString::new(tacto_dds::naming::dds_type_name(
        "std_msgs/msg/UInt8MultiArray",
    )?)?;
    // SAFETY: a valid C string, copied by Cyclone.
    let domain = check(unsafe { cyclors::dds_create_domain(domain_id, xml.as_ptr()) })?;
    // SAFETY: the domain exists; no QoS, no listener.
    let participant =
        check(unsafe { cyclors::dds_create_participant(domain_id, ptr::null(), ptr::null()) })?;
    // SAFETY: a live participant; valid C strings, copied (the `*mut` is a missing const).
    let topic = check(unsafe {
        cyclors::cdds_create_blob_topic(
            participant,
            dds_topic.as_ptr().cast_mut(),
            dds_type.as_ptr().cast_mut(),
            true,
        )
    })?;
    // SAFETY: a new QoS object, set, used, deleted here; Cyclone copies it into the reader.
    let reader = unsafe {
        let qos = cyclors::dds_create_qos();
        cyclors::dds_qset_reliability(
            qos,
            cyclors::dds_reliability_kind_DDS_RELIABILITY_RELIABLE,
            100_000_000,
        );
        cyclors::dds_qset_history(qos, cyclors::dds_history_kind_DDS_HISTORY_KEEP_LAST, 10);
        let reader = cyclors::dds_create_reader(participant, topic, qos, ptr::null());
        cyclors::dds_delete_qos(qos);
        check(reader)?
    };
    // SAFETY: live participant and reader; the condition is attached to the wait-set once.
    let waitset = unsafe {
        let waitset = check(cyclors::dds_create_waitset(participant))?;
        let condition = check(cyclors::dds_create_readcondition(
            reader,
            cyclors::DDS_ANY_STATE,
        ))?;
        check(cyclors::dds_waitset_attach(waitset, condition, 0))?;
        waitset
    };
    let mut record = Record::default();
    let ended = run_ends();
    while !ended.load(Ordering::Acquire) {
        // SAFETY: a live wait-set; no room for triggered entities asked for (0).
        let woken = unsafe { cyclors::dds_waitset_wait(waitset, ptr::null_mut(), 0, 100_000_000) };
        check(woken)?;
        while let Some(bytes) = take_raw(reader)? {
            record.note(&bytes[offset..]);
        }
    }
    record.report();
    // SAFETY: deletes the domain and everything in it, once, after the last use.
    unsafe { cyclors::dds_delete(domain) };
    Ok(())
}

/// The next sample's bytes, copied out of Cyclone.
fn take_raw(reader: i32) -> Result<Option<Vec<u8>>> {
    let mut serdata: *mut cyclors::ddsi_serdata = ptr::null_mut();
    // SAFETY: an all-zero sample info is a valid value of this plain C struct.
    let mut info: cyclors::dds_sample_info_t = unsafe { std::mem::zeroed() };
    // SAFETY: a live reader; room for one sample pointer and one info. On success we own one
    // reference to `serdata`, released below.
    let n =
        unsafe { cyclors::dds_takecdr(reader, &mut serdata, 1, &mut info, cyclors::DDS_ANY_STATE) };
    if check(n)? == 0 || serdata.is_null() {
        return Ok(None);
    }
    let bytes = if info.valid_data {
        // SAFETY: we hold a reference, so the sample is alive during the call.
        unsafe { serdata_bytes(serdata) }
    } else {
        Some(Vec::new()) // a writer gone: nothing to note, but the next take may have data
    };
    // SAFETY: releases the one reference dds_takecdr gave us.
    unsafe { cyclors::ddsi_serdata_unref(serdata) };
    match bytes {
        Some(bytes) if bytes.is_empty() => take_raw(reader),
        Some(bytes) => Ok(Some(bytes)),
        None => Err("Cyclone gave no bytes".into()),
    }
}

/// A copy of the serialized bytes of `serdata`.
///
/// # Safety
/// `serdata` must be alive for the call (the caller holds a reference).
unsafe fn serdata_bytes(serdata: *mut cyclors::ddsi_serdata) -> Option<Vec<u8>> {
    // SAFETY: the caller guarantees the sample is alive.
    let size = unsafe { cyclors::ddsi_serdata_size(serdata) } as usize;
    let mut iov = cyclors::ddsrt_iovec_t {
        iov_base: ptr::null_mut(),
        iov_len: 0,
    };
    // SAFETY: as above; on success a second reference pins the bytes `iov` points at.
    let pinned = unsafe { cyclors::ddsi_serdata_to_ser_ref(serdata, 0, size, &mut iov) };
    if pinned.is_null() || iov.iov_base.is_null() {
        return None;
    }
    // SAFETY: `iov_len` readable bytes at `iov_base` while the pinning reference is held.
    let bytes = unsafe { std::slice::from_raw_parts(iov.iov_base.cast::<u8>(), iov.iov_len) };
    let bytes = bytes.to_vec();
    // SAFETY: releases exactly the reference to_ser_ref returned, with its iovec.
    unsafe { cyclors::ddsi_serdata_to_ser_unref(pinned, &iov) };
    Some(bytes)
}

/// A Cyclone return value: an entity handle or count, or a negative error code.
fn check(ret: i32) -> Result<i32> {
    match ret {
        0.. => Ok(ret),
        _ => Err(format!("Cyclone returned {ret}").into()),
    }
}

fn monotonic_ns() -> u64 {
    // SAFETY: an all-zero timespec is a valid value.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// CPU time (user + system, every thread) and minor page faults of this process so far.
#[derive(Clone, Copy, Default)]
struct Usage {
    cpu_ns: u64,
    faults: u64,
}

impl Usage {
    fn since(self, start: Usage) -> Usage {
        Usage {
            cpu_ns: self.cpu_ns.saturating_sub(start.cpu_ns),
            faults: self.faults.saturating_sub(start.faults),
        }
    }
}

fn usage() -> Usage {
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    Usage {
        cpu_ns: ns(usage.ru_utime) + ns(usage.ru_stime),
        faults: usage.ru_minflt as u64,
    }
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
