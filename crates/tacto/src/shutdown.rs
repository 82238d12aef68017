//! Process-wide shutdown on SIGINT and SIGTERM.
//!
//! # What a signal does
//! The first executor to be created installs handlers for both signals.
//!
//! - The **first** SIGINT or SIGTERM asks the process to stop: every executor of the process
//!   returns [`SpinOutcome::Interrupted`](crate::executor::SpinOutcome::Interrupted), those
//!   created later included, and [`requested`] is true from then on.
//! - A **second** one, while that stop is pending (the process has not ended since the first,
//!   or since [`request`]), ends the process with the signal's default action, as if no
//!   handler were installed: the process dies by the signal. So a program stuck in a
//!   callback, or busy outside `spin`, still stops on a second Ctrl-C, and `timeout`,
//!   `docker stop` or systemd need not wait for their `SIGKILL`.
//!
//! A signal writes a byte into a socket that every executor watches and that is never
//! drained, so it wakes every executor, for good; it also sets a flag, which executors check
//! on every round, so a busy executor that never blocks stops too.
//!
//! # Handling signals yourself
//! A program that handles SIGINT and SIGTERM itself (it has cleanup to do first, or a
//! framework that owns them) calls [`leave_signals_alone`] before it creates its first
//! executor. tacto then installs no handler: the signals keep whatever the program makes of
//! them (by default they end the process at once). Executors still stop on their
//! [stop handles](crate::executor::StopHandle) and on [`request`], which the program's own
//! handler may call: it is async-signal-safe.
//!
//! ```
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use tacto::{Executor, SpinOutcome, WaitSetExecutor, shutdown};
//!
//! shutdown::leave_signals_alone()?;
//! // The program's own handler, installed with sigaction or a crate such as signal-hook,
//! // records the signal, and calls `shutdown::request()` when it wants the executors to stop.
//! static SIGNALLED: AtomicBool = AtomicBool::new(false);
//! let on_signal = || {
//!     SIGNALLED.store(true, Ordering::SeqCst);
//!     shutdown::request();
//! };
//!
//! let mut executor = WaitSetExecutor::new()?;
//! on_signal(); // as if SIGTERM had come
//! assert_eq!(executor.spin()?, SpinOutcome::Interrupted);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Fork
//! A child made by `fork()` starts with a shutdown of its own: not requested, and with a
//! socket of its own, so a signal in the child stops the child's executors and never its
//! parent's. The executors the parent created before the fork stay the parent's: their epoll
//! set, eventfd and timerfd are shared with it, so in the child their spins fail with
//! [`SpinError::CreatedBeforeFork`](crate::executor::SpinError::CreatedBeforeFork); a child
//! creates executors of its own. (Forks are seen through `pthread_atfork`, so through
//! `fork()` itself, not through a raw `clone` system call.)

use std::os::fd::{BorrowedFd, RawFd};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU64, Ordering::SeqCst};

/// True once a signal or [`request`] asked the process to stop.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The shutdown line: a socket pair, the read end in the low 32 bits, the write end in the high
/// ones; [`NO_LINE`] until an executor needs it. One atomic word, so that a signal handler
/// reads both ends at once and without a lock.
static LINE: AtomicU64 = AtomicU64::new(NO_LINE);
const NO_LINE: u64 = u64::MAX;

/// The process the line belongs to: a forked child that got a signal before its atfork handler
/// gave it a line of its own must not write into its parent's.
static OWNER: AtomicI32 = AtomicI32::new(0);

/// Forks this process came out of, as a child; see [`generation`].
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Whether tacto handles SIGINT and SIGTERM: [`UNDECIDED`] until the first executor
/// ([`INSTALLED`]) or [`leave_signals_alone`] ([`LEFT_ALONE`]) decides.
static SIGNALS: AtomicU8 = AtomicU8::new(UNDECIDED);
const UNDECIDED: u8 = 0;
const INSTALLED: u8 = 1;
const LEFT_ALONE: u8 = 2;

/// The two ends of the shutdown line.
#[derive(Clone, Copy)]
struct Line {
    read: RawFd,
    write: RawFd,
}

impl Line {
    /// A new non-blocking, close-on-exec socket pair; `None` if the OS refuses (out of fds).
    /// Async-signal-safe: the atfork child handler calls it.
    fn create() -> Option<Line> {
        let mut fds = [-1; 2];
        let kind = libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
        // SAFETY: FFI; `fds` is a valid array of two ints for the kernel to fill.
        let made = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) };
        (made == 0).then_some(Line {
            read: fds[0],
            write: fds[1],
        })
    }

    fn pack(self) -> u64 {
        u64::from(self.read as u32) | u64::from(self.write as u32) << 32
    }

    fn unpack(word: u64) -> Option<Line> {
        (word != NO_LINE).then_some(Line {
            read: word as u32 as RawFd,
            write: (word >> 32) as u32 as RawFd,
        })
    }

    fn close(self) {
        for fd in [self.read, self.write] {
            // SAFETY: FFI; the line owns both fds, and a line is closed once, by whoever took
            // it out of `LINE` or never put it there.
            unsafe { libc::close(fd) };
        }
    }
}

/// Makes the line readable, for good, if this process owns it. Async-signal-safe: an atomic
/// load, `getpid` and `write`.
fn raise_line() {
    let Some(line) = Line::unpack(LINE.load(SeqCst)) else {
        return;
    };
    // SAFETY: FFI; `getpid` cannot fail.
    if OWNER.load(SeqCst) != unsafe { libc::getpid() } {
        return;
    }
    // A full socket (EAGAIN) is readable already; nothing else can fail that matters here.
    // SAFETY: FFI; the buffer is one valid byte, and `write` takes any fd number.
    unsafe { libc::write(line.write, [1u8].as_ptr().cast(), 1) };
}

/// The line, created on first use (by the first executor).
fn line() -> Option<Line> {
    if let Some(line) = Line::unpack(LINE.load(SeqCst)) {
        return Some(line);
    }
    let line = Line::create()?;
    // SAFETY: FFI; `getpid` cannot fail.
    OWNER.store(unsafe { libc::getpid() }, SeqCst);
    match LINE.compare_exchange(NO_LINE, line.pack(), SeqCst, SeqCst) {
        Ok(_) => {
            // A request made before the line existed wrote nothing; `request` stores the flag
            // before it loads the line, and this loads the flag after storing the line, so one
            // of the two writes the byte.
            if REQUESTED.load(SeqCst) {
                raise_line();
            }
            Some(line)
        }
        Err(other) => {
            // Another thread made one first.
            line.close();
            Line::unpack(other)
        }
    }
}

/// The signal handlers' action, for SIGINT and SIGTERM; async-signal-safe (atomics, `getpid`,
/// `write`, and signal-hook's emulation of the default action, made for signal handlers).
fn on_signal(signal: libc::c_int) {
    if REQUESTED.swap(true, SeqCst) {
        // A stop was pending already, and the process is still here: end it as the signal
        // would have without a handler.
        let _ = signal_hook::low_level::emulate_default_handler(signal);
        return;
    }
    raise_line();
}

/// Installs the handlers, unless [`leave_signals_alone`] came first.
fn install_handlers() {
    if SIGNALS
        .compare_exchange(UNDECIDED, INSTALLED, SeqCst, SeqCst)
        .is_err()
    {
        return;
    }
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `on_signal` is async-signal-safe (see there), as `register` requires.
        let registered =
            unsafe { signal_hook::low_level::register(signal, move || on_signal(signal)) };
        // Only forbidden signals (SIGKILL, SIGSTOP...) are refused, and these two are not; if
        // one ever were, it would keep its default action, which ends the process.
        debug_assert!(registered.is_ok(), "{registered:?}");
    }
}

/// Gives a forked child a shutdown of its own (see "Fork" in the module docs). Runs in the
/// child, inside `fork`, before any other thread of the child exists; async-signal-safe.
extern "C" fn after_fork_in_child() {
    FORKS.fetch_add(1, SeqCst);
    REQUESTED.store(false, SeqCst);
    // SAFETY: FFI; `getpid` cannot fail.
    OWNER.store(unsafe { libc::getpid() }, SeqCst);
    // The child's copies of the parent's line: the parent's executors keep theirs open.
    if let Some(inherited) = Line::unpack(LINE.swap(NO_LINE, SeqCst)) {
        // Failing, the child makes one when it first needs it.
        if let Some(own) = Line::create() {
            LINE.store(own.pack(), SeqCst);
        }
        inherited.close();
    }
}

/// Watches for forks, once per process, before its first executor exists.
fn watch_forks() {
    static WATCHING: Once = Once::new();
    WATCHING.call_once(|| {
        // SAFETY: FFI; the handler is an `extern "C" fn` without arguments that lives as long
        // as the process, and does only async-signal-safe things, as a child handler must.
        let failed = unsafe { libc::pthread_atfork(None, None, Some(after_fork_in_child)) };
        // ENOMEM only: forks would go unseen, as they always did before this existed.
        debug_assert_eq!(failed, 0);
    });
}

/// Prepares the process for a new executor: watches for forks, installs the handlers (unless
/// left alone), and passes `f` the descriptor that becomes readable, for good, at
/// shutdown.
///
/// `None` if the OS refused the socket pair (out of descriptors): executors then see shutdown
/// through the flag only, when they look for work.
pub(crate) fn watch<R>(f: impl FnOnce(BorrowedFd<'_>) -> R) -> Option<R> {
    watch_forks();
    install_handlers();
    let line = line()?;
    // SAFETY: the line's fds are closed only in a forked child's atfork handler, which runs
    // inside `fork`, before the child has a thread that could be here; and the borrow ends
    // with this call.
    let fd = unsafe { BorrowedFd::borrow_raw(line.read) };
    Some(f(fd))
}

/// How many forks this process came out of: an executor created with another count belongs to
/// an ancestor. One relaxed atomic load, for the hot path.
pub(crate) fn generation() -> u64 {
    // Written only in a forked child before it has a second thread, so nothing races with it.
    FORKS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Stops every executor of the process, as SIGINT would.
///
/// Async-signal-safe: a program that [handles signals itself](leave_signals_alone) may call it
/// from its own handler.
///
/// # Examples
/// ```
/// use tacto::{Executor, SpinOutcome, WaitSetExecutor, shutdown};
///
/// let mut executor = WaitSetExecutor::new()?;
/// shutdown::request();
/// assert!(shutdown::requested());
/// assert_eq!(executor.spin()?, SpinOutcome::Interrupted);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn request() {
    REQUESTED.store(true, SeqCst);
    raise_line();
}

/// True once SIGINT, SIGTERM or [`request`] asked the process to stop.
///
/// # Examples
/// ```
/// assert!(!tacto::shutdown::requested());
/// ```
pub fn requested() -> bool {
    REQUESTED.load(SeqCst)
}

/// Why [`leave_signals_alone`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LeaveSignalsError {
    /// An executor was created before, and installed tacto's handlers; they cannot be taken
    /// back cleanly (signal-hook would leave the signals ignored).
    #[error(
        "tacto's SIGINT/SIGTERM handlers are installed already: call this before creating the first executor"
    )]
    AlreadyInstalled,
}

/// Keeps tacto from installing SIGINT and SIGTERM handlers, for a program that handles them
/// itself (see "Handling signals yourself" in the [module docs](self)). Call it before creating
/// the first executor; calling it again is harmless.
///
/// # Examples
/// ```
/// use tacto::shutdown::{self, LeaveSignalsError};
/// use tacto::WaitSetExecutor;
///
/// shutdown::leave_signals_alone()?;
/// let executor = WaitSetExecutor::new()?; // installs nothing
/// assert_eq!(shutdown::leave_signals_alone(), Ok(()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn leave_signals_alone() -> Result<(), LeaveSignalsError> {
    match SIGNALS.compare_exchange(UNDECIDED, LEFT_ALONE, SeqCst, SeqCst) {
        Ok(_) | Err(LEFT_ALONE) => Ok(()),
        Err(_) => Err(LeaveSignalsError::AlreadyInstalled),
    }
}
