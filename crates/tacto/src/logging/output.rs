//! The logging thread: records queue up in a bounded queue, and one thread per process writes
//! them to the console, publishes them on `/rosout` and hands them to sinks, so that a log call
//! on an executor's thread never waits for a terminal, a pipe or the network.

use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt;
use std::io::{IsTerminal, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use std::thread::Thread;

use super::format::{COLOUR_RESET, colour};
use super::{Colors, Config, Record, Severity, Stream, rosout};
use crate::pi_mutex::PiMutex;

/// The most records waiting for the logging thread. A record that finds the queue full is
/// dropped and counted ([`dropped`]): the newest goes, never one already queued, and the
/// logging thread says on the console how many it lost.
pub const QUEUE_CAPACITY: usize = 4096;

/// Waiting records, in call order. Priority-inheriting: a real-time thread that logs while the
/// logging thread holds the lock lends it its priority for the few moves it takes.
static QUEUE: PiMutex<VecDeque<Record>> = PiMutex::new(VecDeque::new());
/// Records dropped because the queue was full, since the process started.
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Held while a batch is written, by the logging thread or a [`flush`]: batches never
/// interleave, so lines stay in call order.
static WRITER: Mutex<Writer> = Mutex::new(Writer {
    reported_drops: 0,
    lines: String::new(),
});
/// The logging thread, once started; `None` if it could not be, and then [`submit`] writes
/// itself.
static THREAD: OnceLock<Option<Thread>> = OnceLock::new();
/// The configuration, once [`init`] gave one or the first record read the environment.
static CONFIG: RwLock<Option<Arc<Config>>> = RwLock::new(None);
/// Sinks, with the number their handle removes them by.
static SINKS: Mutex<Vec<(u64, Arc<dyn Sink>)>> = Mutex::new(Vec::new());

thread_local! {
    static ON_LOGGING_THREAD: Cell<bool> = const { Cell::new(false) };
}

struct Writer {
    /// `DROPPED` as last reported on the console.
    reported_drops: u64,
    /// The console's lines, kept from batch to batch for its allocation.
    lines: String,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // What these locks guard stays consistent (no user code runs under them), so a panic
    // elsewhere while one was held leaves it usable.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn on_logging_thread() -> bool {
    ON_LOGGING_THREAD.with(Cell::get)
}

/// Queues `record` for the logging thread, or counts it dropped if the queue is full.
pub(crate) fn submit(record: Record) {
    let thread = THREAD.get_or_init(start);
    {
        let mut queue = QUEUE.lock();
        if queue.len() >= QUEUE_CAPACITY {
            drop(queue);
            // Freed outside the lock: a long message is not freed while others wait.
            drop(record);
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        }
        queue.push_back(record);
    }
    match thread {
        // Cheap unless the thread sleeps: then one futex wake.
        Some(thread) => thread.unpark(),
        None => flush(),
    }
}

/// Starts the logging thread, and has the records still queued written when the process
/// exits.
fn start() -> Option<Thread> {
    extern "C" fn flush_at_exit() {
        flush();
    }
    // SAFETY: FFI; `atexit` takes a function of the C ABI with no arguments, which
    // `flush_at_exit` is; it runs on the exiting thread, where `flush` only locks and writes
    // (a panic in it would abort, not unwind into C).
    unsafe { libc::atexit(flush_at_exit) };
    std::thread::Builder::new()
        .name("tacto-logging".into())
        .spawn(|| {
            ON_LOGGING_THREAD.with(|on| on.set(true));
            loop {
                std::thread::park();
                drain();
            }
        })
        .ok()
        .map(|handle| handle.thread().clone())
}

/// Writes every record queued so far, on this thread, before returning; records queued
/// meanwhile by other threads may be written too. The logging thread does this whenever it
/// wakes; call it where lines must be out now (before a `fork`, say). Dropping a
/// [`FlushGuard`] and the process's exit call it too.
///
/// Called from a [`Sink`] (on the logging thread), it does nothing: the logging thread writes
/// the rest when the sink returns.
pub fn flush() {
    if !on_logging_thread() {
        drain();
    }
}

/// Writes every queued record, and says how many were dropped since it last did.
fn drain() {
    let mut writer = lock(&WRITER);
    let mut batch = Vec::new();
    loop {
        {
            let mut queue = QUEUE.lock();
            if queue.is_empty() {
                break;
            }
            batch.extend(queue.drain(..));
        }
        write(&mut writer, &batch);
        // Freed here, not under the queue's lock.
        batch.clear();
    }
    let dropped = DROPPED.load(Ordering::Relaxed);
    if dropped > writer.reported_drops {
        let lost = dropped - writer.reported_drops;
        writer.reported_drops = dropped;
        let report = Record::new(
            Severity::Warn,
            "tacto.logging".into(),
            format!(
                "{lost} log records dropped: the queue to the logging thread was full \
                 ({QUEUE_CAPACITY} records); {dropped} dropped since the process started"
            ),
        );
        write(&mut writer, std::slice::from_ref(&report));
    }
}

/// Records dropped because the logging thread's queue was full ([`QUEUE_CAPACITY`]), since the
/// process started. The logging thread also says so on the console, after the lines it wrote
/// before it noticed.
pub fn dropped() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

fn write(writer: &mut Writer, batch: &[Record]) {
    let config = config();
    if config.console {
        console(writer, &config, batch);
    }
    if config.rosout {
        for record in batch.iter().filter(|r| r.to_rosout) {
            rosout::publish(record);
        }
    }
    let sinks: Vec<Arc<dyn Sink>> = lock(&SINKS).iter().map(|(_, s)| s.clone()).collect();
    for sink in sinks {
        for record in batch {
            // A panicking sink loses its record, not the logging thread.
            let _ = catch_unwind(AssertUnwindSafe(|| sink.write(record)));
        }
    }
}

fn console(writer: &mut Writer, config: &Config, batch: &[Record]) {
    let mut stderr;
    let mut stdout;
    let (stream, terminal): (&mut dyn Write, bool) = match config.stream {
        Stream::Stderr => {
            stderr = std::io::stderr().lock();
            let terminal = stderr.is_terminal();
            (&mut stderr, terminal)
        }
        Stream::Stdout => {
            stdout = std::io::stdout().lock();
            let terminal = stdout.is_terminal();
            (&mut stdout, terminal)
        }
    };
    let coloured = match config.colors {
        Colors::Auto => terminal,
        Colors::Always => true,
        Colors::Never => false,
    };
    let lines = &mut writer.lines;
    lines.clear();
    for record in batch {
        if coloured {
            lines.push_str(colour(record.severity));
        }
        config.format.write(record, lines);
        if coloured {
            lines.push_str(COLOUR_RESET);
        }
        lines.push('\n');
        if config.buffered.is_some() {
            // Nothing to tell if the console is gone: the lines are lost, as rcutils's are.
            let _ = stream.write_all(lines.as_bytes());
            let _ = stream.flush();
            lines.clear();
        }
    }
    let _ = stream.write_all(lines.as_bytes());
    let _ = stream.flush();
    if lines.capacity() > 1 << 20 {
        // One burst of long lines does not keep a megabyte for ever.
        *lines = String::new();
    }
}

/// The configuration in force: [`init`]'s, else the environment's, read once. An environment
/// rcutils would refuse gives the defaults, said once on stderr.
fn config() -> Arc<Config> {
    if let Some(config) = CONFIG.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return config.clone();
    }
    let mut config = CONFIG.write().unwrap_or_else(|e| e.into_inner());
    config
        .get_or_insert_with(|| {
            Arc::new(Config::from_env().unwrap_or_else(|error| {
                eprintln!("tacto logging: {error}; using rcutils' defaults instead");
                Config::default()
            }))
        })
        .clone()
}

/// Whether records go to `/rosout` ([`Config::rosout`]): a node creates its `/rosout`
/// publisher only if so, as rcl does under `--disable-rosout-logs`.
pub fn rosout_enabled() -> bool {
    config().rosout
}

/// Sets how records are written (see [`Config`]), installs tacto as the `log` facade's logger
/// (unless the program installed another first), starts the logging thread, and returns a
/// guard that [flushes](flush) when dropped.
///
/// Optional: without it, the first record reads the environment ([`Config::from_env`]) and
/// starts the thread, and the process's exit flushes. Call it again to change the
/// configuration; lines already written keep theirs.
///
/// # Examples
/// ```
/// use tacto::logging::{self, Config, Logger};
///
/// // At the start of `main`:
/// let _flush = logging::init(Config::from_env()?);
/// tacto::info!(Logger::get("demo"), "up");
/// // At the end of `main`, `_flush` drops: "up" is on the console before the process ends.
/// # Ok::<(), logging::ConfigError>(())
/// ```
pub fn init(config: Config) -> FlushGuard {
    *CONFIG.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(config));
    super::bridge::install();
    THREAD.get_or_init(start);
    FlushGuard { _private: () }
}

/// Flushes the records queued so far when dropped (see [`flush`]); from [`init`].
#[must_use = "dropping the guard flushes at once"]
pub struct FlushGuard {
    _private: (),
}

impl Drop for FlushGuard {
    fn drop(&mut self) {
        flush();
    }
}

impl fmt::Debug for FlushGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FlushGuard")
    }
}

/// Where records go besides the console and `/rosout`: a file, a test's list, another logging
/// system (rcutils' output handlers). Runs on the logging thread, every record that passed its
/// logger's level, in call order.
///
/// Closures `Fn(&Record) + Send + Sync` are sinks.
///
/// # Examples
/// ```
/// use std::sync::{Arc, Mutex};
/// use tacto::logging::{self, Logger, Record};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let keep = seen.clone();
/// let _sink = logging::add_sink(move |record: &Record| {
///     if &*record.name == "sink_demo" {
///         keep.lock().unwrap().push(record.message.clone());
///     }
/// });
/// tacto::warn!(Logger::get("sink_demo"), "{} left", 3);
/// logging::flush();
/// assert_eq!(*seen.lock().unwrap(), ["3 left"]);
/// ```
pub trait Sink: Send + Sync {
    /// Takes one record.
    fn write(&self, record: &Record);
}

impl<F: Fn(&Record) + Send + Sync> Sink for F {
    fn write(&self, record: &Record) {
        self(record)
    }
}

/// Adds `sink`; it gets records until the returned handle is dropped.
pub fn add_sink(sink: impl Sink + 'static) -> SinkHandle {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    lock(&SINKS).push((id, Arc::new(sink)));
    SinkHandle { id }
}

/// Keeps a sink of [`add_sink`]; dropping it removes the sink.
#[must_use = "dropping the handle removes the sink at once"]
pub struct SinkHandle {
    id: u64,
}

impl Drop for SinkHandle {
    fn drop(&mut self) {
        lock(&SINKS).retain(|(id, _)| *id != self.id);
    }
}

impl fmt::Debug for SinkHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SinkHandle").field("id", &self.id).finish()
    }
}
