//! Ctrl-C (SIGINT) and SIGTERM as something a thread can wait for.
//!
//! A signal handler may only do async-signal-safe things, so the handlers installed here set a
//! flag and write a byte into a socket that nobody drains: from then on the socket is readable
//! for good, and [`Interrupt::sleep`] returns as soon as it is. A thread that waits this way
//! sleeps in one `poll` for the whole wait and wakes only once, at its end or at the signal,
//! so that a run's own main thread adds no wake-ups to what the run measures.

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The exit code of a process that a second signal ends at once: that of a command stopped by
/// SIGINT, as shells report it.
pub const EXIT_CODE: i32 = 130;

/// The signals that ask the process to stop, once installed.
#[derive(Debug)]
pub struct Interrupt {
    requested: Arc<AtomicBool>,
    read: UnixStream,
}

impl Interrupt {
    /// Installs the handlers for SIGINT and SIGTERM. A second signal, once the first has been
    /// seen, ends the process at once with [`EXIT_CODE`], for a program that does not stop
    /// quickly enough.
    pub fn install() -> io::Result<Interrupt> {
        let (read, write) = UnixStream::pair()?;
        read.set_nonblocking(true)?;
        write.set_nonblocking(true)?;
        let requested = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // The order matters: the conditional exit must see the flag as the previous
            // signal left it.
            signal_hook::flag::register_conditional_shutdown(signal, EXIT_CODE, requested.clone())?;
            signal_hook::flag::register(signal, requested.clone())?;
            signal_hook::low_level::pipe::register(signal, write.try_clone()?)?;
        }
        Ok(Interrupt { requested, read })
    }

    /// True once a signal asked the process to stop.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    /// Sleeps for `duration`, unless a signal asks the process to stop first; true if it
    /// slept the whole time.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use tacto_launch::interrupt::Interrupt;
    ///
    /// let interrupt = Interrupt::install().unwrap();
    /// assert!(interrupt.sleep(Duration::from_millis(1)));
    /// ```
    pub fn sleep(&self, duration: Duration) -> bool {
        let deadline = Instant::now() + duration;
        loop {
            if self.requested() {
                return false;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            // Rounded up, so that the last poll does not end a little early and spin.
            let ms = left.as_nanos().div_ceil(1_000_000);
            let timeout = i32::try_from(ms).unwrap_or(i32::MAX);
            let mut fd = libc::pollfd {
                fd: self.read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: `fd` is one valid `pollfd` that lives for the call, and the count is 1.
            // The socket stays open as long as `self`. A return of -1 (EINTR, when another
            // signal arrives) just goes round the loop again.
            unsafe { libc::poll(&mut fd, 1, timeout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_cuts_a_sleep_short() {
        let interrupt = Interrupt::install().unwrap();
        assert!(!interrupt.requested());
        // SAFETY: `raise` sends SIGTERM to this process, whose handler was just installed
        // above (it sets a flag and writes a byte; the process goes on).
        assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
        // A day: the test would hang if the signal did not end the sleep.
        assert!(!interrupt.sleep(Duration::from_secs(24 * 3600)));
        assert!(interrupt.requested());
    }
}
