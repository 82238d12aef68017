//! The OS layer under every executor: one epoll set with the executor's [`Signal`], one timerfd
//! for the earliest deadline, and the process's shutdown line.
//!
//! Blocking happens only here, in `epoll_wait`; an executor never busy-waits. The timerfd is
//! armed with an absolute `CLOCK_MONOTONIC` deadline and re-armed only when the deadline
//! changes, so a periodic executor pays one `timerfd_settime` per period.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::sync::Arc;

use rustix::event::epoll;
use rustix::time::{
    Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, timerfd_create, timerfd_settime,
};

use super::signal::Signal;
use crate::clock::{ClockKind, Time, os_now};
use crate::shutdown;

const SIGNAL: u64 = 0;
const TIMER: u64 = 1;
const SHUTDOWN: u64 = 2;

/// Why [`Poller::wait`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woken {
    /// Notified, a deadline passed, or a spurious wake-up: look for work.
    Work,
    /// SIGINT, SIGTERM or `shutdown::request()`.
    Shutdown,
}

#[derive(Debug)]
pub(crate) struct Poller {
    epoll: OwnedFd,
    signal: Arc<Signal>,
    timer: OwnedFd,
    /// The deadline the timerfd is armed with.
    armed: Option<Time>,
    wakeups: u64,
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
        epoll::add(&epoll, &timer, epoll::EventData::new_u64(TIMER), readable)?;
        if let Some(fd) = shutdown::fd() {
            epoll::add(&epoll, fd, epoll::EventData::new_u64(SHUTDOWN), readable)?;
        }
        Ok(Poller {
            epoll,
            signal,
            timer,
            armed: None,
            wakeups: 0,
        })
    }

    pub(crate) fn signal(&self) -> &Arc<Signal> {
        &self.signal
    }

    /// How many times the thread blocked and was woken.
    pub(crate) fn wakeups(&self) -> u64 {
        self.wakeups
    }

    /// Blocks until notified, until `deadline` (steady clock) or until shutdown.
    ///
    /// Returns at once, without a syscall, if shutdown was requested, a notification arrived
    /// since the executor last took them, or the deadline has passed.
    pub(crate) fn wait(&mut self, deadline: Option<Time>) -> io::Result<Woken> {
        // Checked first, so that an executor that always has work still stops.
        if shutdown::requested() {
            return Ok(Woken::Shutdown);
        }
        if let Some(d) = deadline {
            if d <= os_now(ClockKind::Steady) {
                return Ok(Woken::Work);
            }
        }
        self.arm(deadline)?;
        if !self.signal.prepare_sleep() {
            return Ok(Woken::Work);
        }
        // One slot per registered descriptor, on the stack: waiting allocates nothing.
        let mut buffer = [MaybeUninit::<epoll::Event>::uninit(); 3];
        let result = epoll::wait(&self.epoll, &mut buffer, None);
        self.signal.woke();
        self.wakeups += 1;
        let events = match result {
            Ok((events, _)) => events,
            Err(rustix::io::Errno::INTR) => return Ok(Woken::Work),
            Err(e) => return Err(e.into()),
        };
        let mut woken = Woken::Work;
        for event in events.iter() {
            match event.data.u64() {
                // Edge-triggered (see `new`): nothing to reset.
                SIGNAL => {}
                TIMER => {
                    let mut expirations = [0u8; 8];
                    let _ = rustix::io::read(&self.timer, &mut expirations);
                    self.armed = None;
                }
                _ => woken = Woken::Shutdown,
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
