//! Process-wide shutdown on SIGINT and SIGTERM.
//!
//! The first executor to be created installs handlers for both signals. A signal writes a byte
//! into a socket that every executor watches and that is never drained, so one signal stops
//! every executor of the process, including those created later, and each returns
//! [`SpinOutcome::Interrupted`](crate::executor::SpinOutcome::Interrupted). The handler also
//! sets a flag, which executors check on every round, so a busy executor that never blocks
//! stops too.

use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

struct ShutdownLine {
    read: UnixStream,
    write: UnixStream,
    requested: Arc<AtomicBool>,
}

fn line() -> Option<&'static ShutdownLine> {
    static LINE: OnceLock<Option<ShutdownLine>> = OnceLock::new();
    LINE.get_or_init(|| {
        let (read, write) = UnixStream::pair().ok()?;
        read.set_nonblocking(true).ok()?;
        write.set_nonblocking(true).ok()?;
        let requested = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register(signal, requested.clone()).ok()?;
            signal_hook::low_level::pipe::register(signal, write.try_clone().ok()?).ok()?;
        }
        Some(ShutdownLine {
            read,
            write,
            requested,
        })
    })
    .as_ref()
}

/// The descriptor that becomes readable, for good, at shutdown; installs the handlers.
///
/// `None` if the handlers could not be installed (out of descriptors): executors then only stop
/// through their stop handles.
pub(crate) fn fd() -> Option<BorrowedFd<'static>> {
    line().map(|l| l.read.as_fd())
}

/// Stops every executor of the process, as SIGINT would.
pub fn request() {
    if let Some(line) = line() {
        line.requested.store(true, Ordering::SeqCst);
        let _ = (&line.write).write(&[1]);
    }
}

/// True once SIGINT, SIGTERM or [`request`] asked the process to stop.
///
/// # Examples
/// ```
/// assert!(!tacto::shutdown::requested());
/// ```
pub fn requested() -> bool {
    line().is_some_and(|l| l.requested.load(Ordering::SeqCst))
}
