//! A mutex with priority inheritance, for the locks on the real-time data path.
//!
//! A publisher at real-time priority that finds a subscription's history locked by a thread of
//! normal priority must not wait while a third thread of middle priority runs: that is priority
//! inversion, and std's mutex lets it last unboundedly. The kernel's PI futexes lend the
//! waiter's priority to the holder until it unlocks.
//!
//! This is the PI-futex protocol itself (futex(2), "Priority-inheritance futexes"), not a
//! `pthread_mutex_t`: uncontended, locking and unlocking are one compare-and-swap each of the
//! owner's thread id in user space, about a tenth of the instructions of glibc's generic PI
//! mutex path. Only a contended lock or unlock enters the kernel, which queues the waiter by
//! priority and boosts the owner.
//!
//! There is no poisoning: the runtime runs no user code under these locks, and its own code
//! there does not panic.

use std::cell::{Cell, UnsafeCell};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU32, Ordering};

pub(crate) struct PiMutex<T> {
    /// 0 when free, else the owner's thread id, with `FUTEX_WAITERS` set by the kernel while
    /// threads wait.
    futex: AtomicU32,
    value: UnsafeCell<T>,
}

// SAFETY: the mutex hands out access to `value` to one thread at a time, so it may be shared
// and sent whenever `T` may be sent, as std's `Mutex<T>`.
unsafe impl<T: Send> Send for PiMutex<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for PiMutex<T> {}

impl<T> PiMutex<T> {
    pub(crate) const fn new(value: T) -> Self {
        PiMutex {
            futex: AtomicU32::new(0),
            value: UnsafeCell::new(value),
        }
    }

    pub(crate) fn lock(&self) -> PiGuard<'_, T> {
        let tid = thread_id();
        if self
            .futex
            .compare_exchange(0, tid, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_contended(tid);
        }
        PiGuard { mutex: self }
    }

    #[cold]
    fn lock_contended(&self, tid: u32) {
        loop {
            // SAFETY: FFI; the futex word is a valid, aligned u32 that lives as long as `self`,
            // and FUTEX_LOCK_PI takes no other pointer (no timeout).
            let locked = unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.futex.as_ptr(),
                    libc::FUTEX_LOCK_PI | libc::FUTEX_PRIVATE_FLAG,
                    0,
                    std::ptr::null::<libc::timespec>(),
                )
            };
            if locked == 0 {
                // The kernel wrote our id into the word (with the waiters bit if others wait).
                std::sync::atomic::fence(Ordering::Acquire);
                return;
            }
            match std::io::Error::last_os_error().raw_os_error() {
                // The owner is exiting, or a signal came: try again.
                Some(libc::EAGAIN | libc::EINTR) => {}
                // No PI futexes in this kernel: take the lock by spinning, without inheritance.
                _ => {
                    while self
                        .futex
                        .compare_exchange(0, tid, Ordering::Acquire, Ordering::Relaxed)
                        .is_err()
                    {
                        std::thread::yield_now();
                    }
                    return;
                }
            }
        }
    }

    fn unlock(&self) {
        // This thread owns the lock, so the word holds its id, plus the waiters bit if the
        // kernel queued someone: then the exchange fails and the kernel hands the lock over.
        let owner = self.futex.load(Ordering::Relaxed) & libc::FUTEX_TID_MASK;
        if self
            .futex
            .compare_exchange(owner, 0, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // SAFETY: FFI; the futex word is valid and this thread owns the lock.
            unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.futex.as_ptr(),
                    libc::FUTEX_UNLOCK_PI | libc::FUTEX_PRIVATE_FLAG,
                )
            };
        }
    }
}

/// This thread's kernel id, read once per thread: the PI-futex protocol names owners by it.
fn thread_id() -> u32 {
    thread_local! {
        static TID: Cell<u32> = const { Cell::new(0) };
    }
    TID.with(|tid| {
        if tid.get() == 0 {
            // SAFETY: gettid has no preconditions and cannot fail.
            tid.set(unsafe { libc::gettid() } as u32);
        }
        tid.get()
    })
}

impl<T> fmt::Debug for PiMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PiMutex").finish_non_exhaustive()
    }
}

/// Holds a [`PiMutex`] locked; unlocks when dropped.
pub(crate) struct PiGuard<'a, T> {
    mutex: &'a PiMutex<T>,
}

impl<T> Deref for PiGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard's existence means this thread holds the lock.
        unsafe { &*self.mutex.value.get() }
    }
}

impl<T> DerefMut for PiGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard's existence means this thread holds the lock, and `&mut self`
        // that no other reference through this guard is alive.
        unsafe { &mut *self.mutex.value.get() }
    }
}

impl<T> Drop for PiGuard<'_, T> {
    fn drop(&mut self) {
        self.mutex.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn it_excludes_other_threads() {
        let counter = Arc::new(PiMutex::new(0u64));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let counter = counter.clone();
                s.spawn(move || {
                    for _ in 0..20_000 {
                        *counter.lock() += 1;
                    }
                });
            }
        });
        assert_eq!(*counter.lock(), 80_000);
    }

    /// While locked, the futex word names the owner, as the kernel's PI protocol requires to
    /// boost it; free, it is 0.
    #[test]
    fn the_futex_word_names_the_owner() {
        let mutex = PiMutex::new(7);
        let guard = mutex.lock();
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() } as u32;
        assert_eq!(
            mutex.futex.load(Ordering::Relaxed) & libc::FUTEX_TID_MASK,
            tid
        );
        assert_eq!(*guard, 7);
        drop(guard);
        assert_eq!(mutex.futex.load(Ordering::Relaxed), 0);
    }

    /// A waiter blocks in the kernel (FUTEX_LOCK_PI), which sets the waiters bit, and gets
    /// the lock when the owner unlocks through FUTEX_UNLOCK_PI.
    #[test]
    fn a_contended_lock_goes_through_the_kernel_and_is_handed_over() {
        let mutex = Arc::new(PiMutex::new(0u32));
        let guard = mutex.lock();
        let waiter = {
            let mutex = mutex.clone();
            std::thread::spawn(move || *mutex.lock() += 1)
        };
        while mutex.futex.load(Ordering::Relaxed) & libc::FUTEX_WAITERS == 0 {
            std::thread::yield_now();
        }
        drop(guard);
        waiter.join().unwrap();
        assert_eq!(*mutex.lock(), 1);
    }
}
