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
//!
//! The poller watches the eventfd edge-triggered, so the executor never reads it: each write
//! is one event, and the counter just grows by one per wake-up.

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
            let one = 1u64.to_ne_bytes();
            // EAGAIN: the counter, never read down, reached its maximum after 2^64 - 2
            // wake-ups; reset it, or this write would raise no event.
            if rustix::io::write(&self.fd, &one) == Err(rustix::io::Errno::AGAIN) {
                let _ = rustix::io::read(&self.fd, &mut [0u8; 8]);
                let _ = rustix::io::write(&self.fd, &one);
            }
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
}

impl AsFd for Signal {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
