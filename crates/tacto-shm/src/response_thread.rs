//! The process's one thread that hears responses for the shared-memory clients of tacto
//! `Client`s: the transport seam hands responses to a client's queue by a callback, and
//! shared memory has nobody to call it, so this thread waits (`epoll_wait`, never polling) on
//! the wake-up fds of every client link of the process and has the woken links collect.
//!
//! Started with the first client link, it lives as long as the process; a link leaves its
//! epoll set when dropped. One thread however many clients and services.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use tacto::transport::LinkError;

/// What the thread wakes: a client link's response side.
pub(crate) trait Woken: Send + Sync {
    /// The fd that becomes readable when responses may have arrived.
    fn fd(&self) -> RawFd;
    /// Drains the fd and hands on what arrived (on the thread).
    fn collect(&self);
}

/// The epoll set and who is in it.
struct Thread {
    epoll: OwnedFd,
    watched: Mutex<HashMap<u64, Weak<dyn Woken>>>,
    next_token: AtomicU64,
}

/// How many ready fds one `epoll_wait` reports at most (more are reported by the next).
const EVENTS: usize = 16;

/// The process's thread, started on first use.
fn thread() -> Result<&'static Thread, LinkError> {
    static THREAD: OnceLock<Result<Thread, String>> = OnceLock::new();
    THREAD
        .get_or_init(|| {
            // SAFETY: a plain system call; the result is checked.
            let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
            if fd < 0 {
                return Err(format!(
                    "cannot create the response thread's epoll set: {}",
                    std::io::Error::last_os_error()
                ));
            }
            // SAFETY: a new fd, owned by nobody else.
            let epoll = unsafe { OwnedFd::from_raw_fd(fd) };
            Ok(Thread {
                epoll,
                watched: Mutex::default(),
                next_token: AtomicU64::new(0),
            })
        })
        .as_ref()
        .map_err(|e| LinkError(e.clone()))
        .and_then(|thread| {
            static STARTED: OnceLock<Result<(), String>> = OnceLock::new();
            STARTED
                .get_or_init(|| {
                    std::thread::Builder::new()
                        .name("tacto-shm-responses".into())
                        .spawn(move || thread.run())
                        .map(drop)
                        .map_err(|e| format!("cannot start the response thread: {e}"))
                })
                .clone()
                .map_err(LinkError)?;
            Ok(thread)
        })
}

impl Thread {
    fn run(&self) {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; EVENTS];
        loop {
            // SAFETY: our epoll fd, alive for the process (a static); room for EVENTS events.
            let ready = unsafe {
                libc::epoll_wait(
                    self.epoll.as_raw_fd(),
                    events.as_mut_ptr(),
                    EVENTS as i32,
                    -1,
                )
            };
            // A negative count is EINTR (a signal): wait again.
            for event in events.iter().take(usize::try_from(ready).unwrap_or(0)) {
                let token = event.u64;
                let woken = (self.watched.lock().unwrap_or_else(PoisonError::into_inner))
                    .get(&token)
                    .and_then(Weak::upgrade);
                if let Some(woken) = woken {
                    woken.collect();
                }
            }
        }
    }
}

/// A link's place in the thread's epoll set; leaving it on drop.
#[derive(Debug)]
pub(crate) struct Watch {
    token: u64,
    fd: RawFd,
}

/// Has the thread call `woken.collect()` whenever its fd becomes readable, until the returned
/// [`Watch`] is dropped (which must happen before the fd is closed).
pub(crate) fn watch(woken: &Arc<dyn Woken>) -> Result<Watch, LinkError> {
    let thread = thread()?;
    let token = thread.next_token.fetch_add(1, Ordering::Relaxed);
    let fd = woken.fd();
    (thread
        .watched
        .lock()
        .unwrap_or_else(PoisonError::into_inner))
    .insert(token, Arc::downgrade(woken));
    // Edge-triggered: `collect` drains the fd each time; were a drain to fail, the thread
    // would not spin on a fd that stays readable.
    let mut event = libc::epoll_event {
        events: (libc::EPOLLIN | libc::EPOLLET) as u32,
        u64: token,
    };
    // SAFETY: our epoll fd and the link's open fd; `event` is read during the call only.
    let added = unsafe {
        libc::epoll_ctl(
            thread.epoll.as_raw_fd(),
            libc::EPOLL_CTL_ADD,
            fd,
            &mut event,
        )
    };
    if added != 0 {
        let error = std::io::Error::last_os_error();
        (thread
            .watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner))
        .remove(&token);
        return Err(LinkError(format!("cannot watch a response fd: {error}")));
    }
    Ok(Watch { token, fd })
}

impl Drop for Watch {
    fn drop(&mut self) {
        // The thread exists: this watch was made by it.
        let Ok(thread) = thread() else {
            return;
        };
        // SAFETY: our epoll fd; `fd` is still open (the owner drops this first). A failure
        // leaves an fd that wakes a token nobody answers to.
        unsafe {
            libc::epoll_ctl(
                thread.epoll.as_raw_fd(),
                libc::EPOLL_CTL_DEL,
                self.fd,
                std::ptr::null_mut(),
            )
        };
        (thread
            .watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner))
        .remove(&self.token);
    }
}
