//! A mutex with priority inheritance, for the locks on the real-time data path.
//!
//! A publisher at real-time priority that finds a subscription's history locked by a thread of
//! normal priority must not wait while a third thread of middle priority runs: that is priority
//! inversion, and std's mutex lets it last unboundedly. A POSIX mutex with the
//! `PTHREAD_PRIO_INHERIT` protocol lends the waiter's priority to the holder until it unlocks
//! (the kernel's PI futexes). Uncontended, locking and unlocking are one compare-and-swap each
//! in user space, as with std's mutex.
//!
//! There is no poisoning: the runtime runs no user code under these locks, and its own code
//! there does not panic.

use std::cell::UnsafeCell;
use std::fmt;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

pub(crate) struct PiMutex<T> {
    /// Boxed: a pthread mutex must not move once initialised.
    raw: Box<UnsafeCell<libc::pthread_mutex_t>>,
    value: UnsafeCell<T>,
}

// SAFETY: the mutex hands out access to `value` to one thread at a time, so it may be shared
// and sent whenever `T` may be sent, as std's `Mutex<T>`.
unsafe impl<T: Send> Send for PiMutex<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for PiMutex<T> {}

impl<T> PiMutex<T> {
    pub(crate) fn new(value: T) -> Self {
        let raw = Box::new(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER));
        let mut attr = MaybeUninit::<libc::pthread_mutexattr_t>::uninit();
        // SAFETY: `attr` is initialised by `pthread_mutexattr_init` before any other use and
        // destroyed after `pthread_mutex_init` copied what it needs; `raw` is a valid, boxed
        // (never moving) mutex that nothing else uses yet. These calls fail only on invalid
        // arguments (EINVAL) or, for PRIO_INHERIT, where the system lacks PI futexes (ENOTSUP);
        // the mutex then stays the PTHREAD_MUTEX_INITIALIZER one, a valid ordinary mutex.
        unsafe {
            libc::pthread_mutexattr_init(attr.as_mut_ptr());
            libc::pthread_mutexattr_setprotocol(attr.as_mut_ptr(), libc::PTHREAD_PRIO_INHERIT);
            libc::pthread_mutex_init(raw.get(), attr.as_ptr());
            libc::pthread_mutexattr_destroy(attr.as_mut_ptr());
        }
        PiMutex {
            raw,
            value: UnsafeCell::new(value),
        }
    }

    pub(crate) fn lock(&self) -> PiGuard<'_, T> {
        // SAFETY: `raw` is an initialised mutex that lives as long as `self`. A default
        // (non-error-checking) mutex locked again by its holder would deadlock, never return
        // an error; the runtime never locks one of these twice on one thread.
        unsafe { libc::pthread_mutex_lock(self.raw.get()) };
        PiGuard { mutex: self }
    }
}

impl<T> Drop for PiMutex<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self` proves no guard is alive, so the mutex is unlocked and unused.
        unsafe { libc::pthread_mutex_destroy(self.raw.get()) };
    }
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
        // SAFETY: this thread locked the mutex when it made the guard, and unlocks it once.
        unsafe { libc::pthread_mutex_unlock(self.mutex.raw.get()) };
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
                    for _ in 0..10_000 {
                        *counter.lock() += 1;
                    }
                });
            }
        });
        assert_eq!(*counter.lock(), 40_000);
    }

    /// A PI mutex follows the kernel's PI-futex protocol: while locked, its futex word (the
    /// first field of glibc's mutex) holds the owner's thread id; an ordinary one holds 1.
    #[test]
    fn it_is_a_kernel_pi_futex() {
        let mutex = PiMutex::new(7);
        let guard = mutex.lock();
        // SAFETY: reads the mutex's first 4 bytes while this thread holds it; nothing writes
        // them until the unlock below.
        let word = unsafe { std::ptr::read_volatile(mutex.raw.get().cast::<i32>()) };
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        assert_eq!(word & 0x3fff_ffff, tid, "the futex word names the owner");
        assert_eq!(*guard, 7);
    }
}
