//! Which single-threaded executor runs code on this thread now, so that a blocking service
//! call from that code can be refused instead of waiting for a service that the same thread
//! would have to serve (see [`Client::call`](crate::Client::call)).

use std::cell::Cell;

thread_local! {
    /// The running executor's key (the address of its wake-up signal), or 0.
    static RUNNING: Cell<usize> = const { Cell::new(0) };
}

/// Marks the current thread as running code of executor `key` until dropped.
#[must_use = "the mark lasts as long as the guard"]
pub(crate) struct Running(usize);

impl Running {
    pub(crate) fn enter(key: usize) -> Self {
        Running(RUNNING.replace(key))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A node's code may spin another executor: the outer one runs again afterwards.
        RUNNING.set(self.0);
    }
}

/// The key of the single-threaded executor whose code runs on this thread, or 0.
pub(crate) fn current() -> usize {
    RUNNING.get()
}
