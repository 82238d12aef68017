//! The OS layer under every executor: one epoll set with the executor's [`Signal`], one timerfd
//! for the earliest deadline, the process's shutdown line, and the fds that nodes watch.
//!
//! All of them belong to the process that made the poller: a forked child shares them with its
//! parent, so there the poller refuses to wait ([`WaitError::CreatedBeforeFork`]; see
//! [`crate::shutdown`]).
//!
//! Blocking happens only here, in `epoll_wait`; an executor never busy-waits. The timerfd is
//! armed with an absolute `CLOCK_MONOTONIC` deadline and re-armed only when the deadline
//! changes, so a periodic executor pays one `timerfd_settime` per period.
//!
//! # Watched fds
//! A watched fd (a [`Trigger::readable`](crate::Trigger::readable) source) is in the epoll set
//! level-triggered and one-shot: when `epoll_wait` reports it readable, the poller tells its
//! [`FdListener`] and the kernel stops reporting it until its [`Watch`] re-arms it, which the
//! executor does after the code it triggered ran. Re-arming makes epoll look at the fd's level
//! then, so an fd the code left readable is reported at once and a drained one is not: the
//! level is the re-check, and it is never reported while its code is queued or running (a
//! thread-pool leader waiting meanwhile would otherwise be woken by it over and over).
//!
//! A transport's wake-up fd (a triggering subscription's [`LinkReader::wake_fd`]) is watched
//! level-triggered without one-shot ([`Rearm::Never`]): its listener drains it as it is
//! reported, so it is reported again only when new samples arrive.
//!
//! [`LinkReader::wake_fd`]: crate::transport::LinkReader::wake_fd
//!
//! Watched fds are only seen when the executor calls `epoll_wait`. An executor that is busy
//! does not block, so it looks at them without blocking once per pass over its work (see
//! [`Poller::poll_watched`]): a node that always has work cannot starve a driver.

use std::fmt;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::event::epoll;
use rustix::time::{
    Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, timerfd_create, timerfd_settime,
};

use super::SpinError;
use super::signal::Signal;
use crate::clock::Time;
use crate::shutdown;

const SIGNAL: u64 = 0;
const TIMER: u64 = 1;
const SHUTDOWN: u64 = 2;
/// Tokens from here on are watched fds: `token - FIRST_WATCHED` indexes `Poller::watched`.
const FIRST_WATCHED: u64 = 3;

/// Events taken per `epoll_wait`, in a buffer on the stack: the poller's own three descriptors
/// and a dozen ready watched fds. Further ready fds stay ready, and the next call reports them.
const EVENTS: usize = 16;

/// Told by the poller that a watched fd is readable.
///
/// Called on the thread that waits in (or polls) the poller, before it looks for work, so it
/// need not wake anyone: mark the executable pending, or queue its event.
pub(crate) trait FdListener: Send + Sync + fmt::Debug {
    fn on_readable(&self);
}

/// One watched fd's place in a poller's epoll set.
#[derive(Debug)]
pub(crate) struct Watch {
    epoll: Arc<OwnedFd>,
    token: u64,
}

impl Watch {
    /// Lets epoll report `fd` again; it looks at the fd's level now, so an fd left readable is
    /// reported by the next wait. Safe to call from any thread, even while another waits.
    pub(crate) fn rearm(&self, fd: BorrowedFd<'_>) -> io::Result<()> {
        let data = epoll::EventData::new_u64(self.token);
        Ok(epoll::modify(&*self.epoll, fd, data, WATCHED_FLAGS)?)
    }
}

/// Level-triggered, reported once per arming (see the module docs).
const WATCHED_FLAGS: epoll::EventFlags = epoll::EventFlags::IN.union(epoll::EventFlags::ONESHOT);

/// How a watched fd is reported again after a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rearm {
    /// Once its [`Watch`] re-arms it, after the code it triggered ran: a readable trigger.
    AfterRun,
    /// Whenever it is readable: its listener drains it as it is reported.
    Never,
}

/// Why [`Poller::wait`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woken {
    /// Notified, a deadline passed, or a spurious wake-up: look for work.
    Work,
    /// SIGINT, SIGTERM or `shutdown::request()`.
    Shutdown,
}

/// Why [`Poller::wait`] or [`Poller::poll_watched`] failed.
#[derive(Debug)]
pub(crate) enum WaitError {
    /// The OS refused (`epoll_wait`, `timerfd_settime`).
    Os(io::Error),
    /// The poller was made before this process was forked: see [`Poller::check_process`].
    CreatedBeforeFork,
}

impl From<io::Error> for WaitError {
    fn from(e: io::Error) -> Self {
        WaitError::Os(e)
    }
}

impl From<WaitError> for SpinError {
    fn from(e: WaitError) -> Self {
        match e {
            WaitError::Os(e) => SpinError::Wait(e),
            WaitError::CreatedBeforeFork => SpinError::CreatedBeforeFork,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Poller {
    /// Shared with the [`Watch`]es, which re-arm their fds from any worker thread.
    epoll: Arc<OwnedFd>,
    signal: Arc<Signal>,
    timer: OwnedFd,
    /// The deadline the timerfd is armed with.
    armed: Option<Time>,
    /// Shared with the executor's [`Board`](super::stats::Board).
    wakeups: Arc<AtomicU64>,
    /// Who hears of each watched fd, by token.
    watched: Vec<Arc<dyn FdListener>>,
    /// The process's fork generation when the poller was made: in a forked child, the OS
    /// resources above are shared with the parent (see [`crate::shutdown`]).
    generation: u64,
}

impl Poller {
    pub(crate) fn new() -> io::Result<Self> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let signal = Arc::new(Signal::new()?);
        let timer = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::CLOEXEC | TimerfdFlags::NONBLOCK,
        )?;
        let readable = epoll::EventFlags::IN;
        // Edge-triggered: each write raises one event, so a wake-up needs no read to reset the
        // eventfd (one syscall fewer per message for a node woken by every message).
        epoll::add(
            &epoll,
            &*signal,
            epoll::EventData::new_u64(SIGNAL),
            readable | epoll::EventFlags::ET,
        )?;
        // Edge-triggered too: an expiry raises one event, and the timerfd is never read; the
        // next `timerfd_settime` (every deadline served re-arms it) resets its count. One
        // syscall fewer per timer wake-up.
        epoll::add(
            &epoll,
            &timer,
            epoll::EventData::new_u64(TIMER),
            readable | epoll::EventFlags::ET,
        )?;
        let shutdown = epoll::EventData::new_u64(SHUTDOWN);
        if let Some(added) = shutdown::watch(|fd| epoll::add(&epoll, fd, shutdown, readable)) {
            added?;
        }
        Ok(Poller {
            generation: shutdown::generation(),
            epoll: Arc::new(epoll),
            signal,
            timer,
            armed: None,
            wakeups: Arc::default(),
            watched: Vec::new(),
        })
    }

    pub(crate) fn signal(&self) -> &Arc<Signal> {
        &self.signal
    }

    /// How many times the thread blocked and was woken (with the thread pool's followers,
    /// which count themselves here too).
    pub(crate) fn wakeups(&self) -> &Arc<AtomicU64> {
        &self.wakeups
    }

    /// Adds each fd to the epoll set, to be reported to its listener (see the module docs);
    /// all or none: if the OS refuses one, those added before it are removed.
    pub(crate) fn watch_all(
        &mut self,
        fds: &[(BorrowedFd<'_>, Arc<dyn FdListener>, Rearm)],
    ) -> io::Result<Vec<Watch>> {
        let first = self.watched.len();
        let mut watches = Vec::with_capacity(fds.len());
        for (fd, listener, rearm) in fds {
            let token = FIRST_WATCHED + self.watched.len() as u64;
            let data = epoll::EventData::new_u64(token);
            let flags = match rearm {
                Rearm::AfterRun => WATCHED_FLAGS,
                Rearm::Never => epoll::EventFlags::IN,
            };
            if let Err(e) = epoll::add(&*self.epoll, fd, data, flags) {
                for (fd, _, _) in &fds[..watches.len()] {
                    let _ = epoll::delete(&*self.epoll, fd);
                }
                self.watched.truncate(first);
                return Err(e.into());
            }
            self.watched.push(listener.clone());
            watches.push(Watch {
                epoll: self.epoll.clone(),
                token,
            });
        }
        Ok(watches)
    }

    /// Fails in a forked child if the poller was made before the fork: its epoll set, eventfd
    /// and timerfd are the parent's too, and using them would wake or re-arm the parent's
    /// executor. Executors check it as their spin starts; [`wait`](Self::wait) and
    /// [`poll_watched`](Self::poll_watched) check it too, for a child forked by a callback.
    pub(crate) fn check_process(&self) -> Result<(), WaitError> {
        if shutdown::generation() == self.generation {
            Ok(())
        } else {
            Err(WaitError::CreatedBeforeFork)
        }
    }

    /// Blocks until notified, until `deadline` (steady clock) or until shutdown; `now` is the
    /// steady time as the caller last read it (a deadline it has not reached is armed, and
    /// fires at once if it passed meanwhile).
    ///
    /// Returns at once, without blocking, if shutdown was requested, a notification arrived
    /// since the executor last took them, or the deadline has passed; watched fds are then
    /// polled, so that they are seen by an executor that is never idle.
    pub(crate) fn wait(&mut self, deadline: Option<Time>, now: Time) -> Result<Woken, WaitError> {
        self.check_process()?;
        // Checked first, so that an executor that always has work still stops.
        if shutdown::requested() {
            return Ok(Woken::Shutdown);
        }
        if deadline.is_some_and(|d| d <= now) {
            return self.poll_watched();
        }
        self.arm(deadline)?;
        if !self.signal.prepare_sleep() {
            return self.poll_watched();
        }
        let woken = self.take_events(None);
        self.signal.woke();
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        match woken {
            Err(rustix::io::Errno::INTR) => Ok(Woken::Work),
            result => Ok(result.map_err(io::Error::from)?),
        }
    }

    /// True if some fd is watched.
    pub(crate) fn watches_fds(&self) -> bool {
        !self.watched.is_empty()
    }

    /// Tells the listeners of watched fds that are readable now, without blocking; one
    /// syscall if fds are watched, none otherwise. For a busy executor, once per pass over its
    /// work.
    pub(crate) fn poll_watched(&mut self) -> Result<Woken, WaitError> {
        self.check_process()?;
        if self.watched.is_empty() {
            return Ok(Woken::Work);
        }
        let now = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        match self.take_events(Some(&now)) {
            Err(rustix::io::Errno::INTR) => Ok(Woken::Work),
            result => Ok(result.map_err(io::Error::from)?),
        }
    }

    /// One `epoll_wait`, and what its events mean.
    fn take_events(
        &mut self,
        timeout: Option<&rustix::time::Timespec>,
    ) -> Result<Woken, rustix::io::Errno> {
        // On the stack: waiting allocates nothing.
        let mut buffer = [MaybeUninit::<epoll::Event>::uninit(); EVENTS];
        let (events, _) = epoll::wait(&*self.epoll, &mut buffer, timeout)?;
        let mut woken = Woken::Work;
        for event in events.iter() {
            match event.data.u64() {
                // Edge-triggered (see `new`): nothing to reset.
                SIGNAL => {}
                // Edge-triggered (see `new`): forgetting the deadline makes the next wait re-arm.
                TIMER => self.armed = None,
                SHUTDOWN => woken = Woken::Shutdown,
                token => {
                    let index = usize::try_from(token - FIRST_WATCHED).ok();
                    if let Some(listener) = index.and_then(|i| self.watched.get(i)) {
                        listener.on_readable();
                    }
                }
            }
        }
        Ok(woken)
    }

    fn arm(&mut self, deadline: Option<Time>) -> io::Result<()> {
        if deadline == self.armed {
            return Ok(());
        }
        // A zero it_value disarms the timer.
        let nanos = deadline.map_or(0, |d| d.as_nanos().max(1));
        let value = rustix::time::Timespec {
            tv_sec: nanos / 1_000_000_000,
            tv_nsec: nanos % 1_000_000_000,
        };
        let zero = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let spec = Itimerspec {
            it_interval: zero,
            it_value: value,
        };
        timerfd_settime(&self.timer, TimerfdTimerFlags::ABSTIME, &spec)?;
        self.armed = deadline;
        Ok(())
    }
}
