//! A subscriber's wake-up: the fd of its iceoryx2 listener, for an executor's epoll set.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};

use iceoryx2::port::listener::{Listener, ListenerWaitError};
use iceoryx2::prelude::FileDescriptorBased;

use crate::node::Ipc;

/// Why the wake-ups could not be drained.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DrainError {
    /// The listener's fd could not be read.
    #[error("cannot drain the shared-memory listener: {0:?}")]
    Wait(ListenerWaitError),
}

/// The readiness of a subscriber that asked for wake-ups: its fd becomes readable when a
/// publisher (in another process or this one) has sent, and stays readable (level-triggered)
/// until [`drain`](Self::drain)ed. Drain on every wake, then take from the subscriber.
///
/// # Examples
/// ```
/// use std::os::fd::AsRawFd;
///
/// use tacto::msg::std_msgs::String as Text;
/// use tacto_shm::ShmNode;
///
/// let node = ShmNode::create("doc_wake_up")?;
/// // Unique per process, so that parallel runs never share it.
/// let topic = format!("/doc_wake_up_{}", std::process::id());
/// let sub = node.subscriber::<Text>(&topic).wake_ups().create()?;
/// let publisher = node.publisher::<Text>(&topic).create()?;
/// let wake_up = sub.wake_up().expect("asked for wake-ups");
/// assert!(wake_up.as_raw_fd() >= 0);
/// assert_eq!(publisher.publish(&Text { data: "hi".into() })?.woken, 1);
/// assert_eq!(wake_up.drain()?, 1);
/// assert_eq!(wake_up.drain()?, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct WakeUp {
    listener: Listener<Ipc>,
}

impl WakeUp {
    pub(crate) fn new(listener: Listener<Ipc>) -> WakeUp {
        WakeUp { listener }
    }

    /// Consumes every pending notification without blocking; returns how many there were
    /// (0 on a spurious wake).
    pub fn drain(&self) -> Result<u64, DrainError> {
        let mut count = 0;
        self.listener
            .try_wait(|_| count += 1)
            .map_err(DrainError::Wait)?;
        Ok(count)
    }
}

impl AsRawFd for WakeUp {
    fn as_raw_fd(&self) -> RawFd {
        // SAFETY: the number is only handed out, never closed here; callers get it as a
        // `RawFd`, whose contract (valid while the owner, this listener, lives) is the one
        // iceoryx2 asks for.
        unsafe { self.listener.file_descriptor().native_handle() }
    }
}

impl AsFd for WakeUp {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the fd belongs to the listener, which `self` owns and which keeps it open
        // and unchanged for its whole life; the borrow cannot outlive `self`.
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}
