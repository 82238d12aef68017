//! The wake-up line into one executor thread: an eventfd, written only when the thread sleeps.
//!
//! A wake-up costs tens of microseconds of CPU; a flag costs nanoseconds. So a notification
//! first sets `notified`, and only writes the eventfd if the executor is actually blocked.
//! Notifications from the executor's own thread (a node publishing to a node of the same
//! executor) or while it is busy cost two atomic operations and no syscall.
//!
//! The two flags form a Dekker pair (both sides store, then load the other's flag, all SeqCst):
//! either the executor sees `notified` before it blocks, or the notifier sees `sleeping` and
//! writes the eventfd. A wake-up is never lost.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

use rustix::event::{EventfdFlags, eventfd};

#[derive(Debug)]
pub(crate) struct Signal {
    fd: OwnedFd,
    sleeping: AtomicBool,
    notified: AtomicBool,
}

impl Signal {
    pub(crate) fn new() -> io::Result<Self> {
        let fd = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
        Ok(Signal {
            fd,
            sleeping: AtomicBool::new(false),
            notified: AtomicBool::new(false),
        })
    }

    /// Asks the executor to look for work; thread-safe, callable from anywhere.
    pub(crate) fn notify(&self) {
        if !self.notified.swap(true, SeqCst) && self.sleeping.load(SeqCst) {
            // EAGAIN means the counter is saturated: the executor is being woken anyway.
            let _ = rustix::io::write(&self.fd, &1u64.to_ne_bytes());
        }
    }

    /// Consumes pending notifications; the executor calls it before it scans for work, so a
    /// notification that arrives during the scan keeps it from sleeping afterwards.
    pub(crate) fn take_notified(&self) -> bool {
        self.notified.swap(false, SeqCst)
    }

    /// Announces that the executor is about to block; false means work arrived meanwhile.
    pub(crate) fn prepare_sleep(&self) -> bool {
        self.sleeping.store(true, SeqCst);
        if self.notified.load(SeqCst) {
            self.sleeping.store(false, SeqCst);
            return false;
        }
        true
    }

    pub(crate) fn woke(&self) {
        self.sleeping.store(false, SeqCst);
    }

    /// Resets the eventfd's counter after it woke the executor.
    pub(crate) fn drain(&self) {
        let mut buf = [0u8; 8];
        let _ = rustix::io::read(&self.fd, &mut buf);
    }
}

impl AsFd for Signal {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
