//! What the listener's thread sleeps on: a timer that expires when no drain took `/tf` in for
//! a drain period, pushed back by every drain, and an fd that wakes it to stop or to watch
//! other fds.
//!
//! A thread that woke every period whatever happened would cost a wake-up each period even
//! while lookups drain anyway. Pushing a sleeping thread's deadline back costs a system call,
//! so a drain moves the timer only when that moves it by more than a quarter period: at most
//! four calls a period however often lookups drain. The deadline a drain sets is five
//! quarters of a period ahead, so that it stays at least a period ahead: the thread sleeps
//! for good while lookups drain at least once a period (a node looking up at the period's
//! rate, the common case, included), and drains after one to five quarters of a period
//! without a drain.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use rustix::event::{EventfdFlags, eventfd};
use rustix::time::{
    ClockId, Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, clock_gettime,
    timerfd_create, timerfd_settime,
};

/// The listener thread's timer and control fd.
#[derive(Debug)]
pub(crate) struct Sleeper {
    /// Readable when someone wants the thread to look again: to stop, or because the fds it
    /// should watch changed.
    control: OwnedFd,
    /// Readable once the deadline passed.
    timer: OwnedFd,
    /// The timer's deadline, in nanoseconds of the monotonic clock.
    deadline: AtomicI64,
    period: i64,
    stopped: AtomicBool,
}

/// Nanoseconds of the monotonic clock, which the timer counts in.
fn now() -> i64 {
    let t = clock_gettime(ClockId::Monotonic);
    t.tv_sec
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec)
}

impl Sleeper {
    /// A sleeper whose timer expires five quarters of a `period` from now.
    pub(crate) fn new(period: Duration) -> rustix::io::Result<Sleeper> {
        let control = eventfd(0, EventfdFlags::NONBLOCK | EventfdFlags::CLOEXEC)?;
        let timer = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )?;
        let sleeper = Sleeper {
            control,
            timer,
            deadline: AtomicI64::new(0),
            period: i64::try_from(period.as_nanos()).unwrap_or(i64::MAX),
            stopped: AtomicBool::new(false),
        };
        sleeper.set_deadline(sleeper.next_deadline())?;
        Ok(sleeper)
    }

    /// Five quarters of a period from now: see the module's docs.
    fn next_deadline(&self) -> i64 {
        now()
            .saturating_add(self.period)
            .saturating_add(self.period / 4)
    }

    fn set_deadline(&self, deadline: i64) -> rustix::io::Result<()> {
        let value = Timespec {
            tv_sec: deadline / 1_000_000_000,
            tv_nsec: deadline % 1_000_000_000,
        };
        let zero = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let spec = Itimerspec {
            it_interval: zero,
            it_value: value,
        };
        timerfd_settime(&self.timer, TimerfdTimerFlags::ABSTIME, &spec)?;
        self.deadline.store(deadline, Ordering::Relaxed);
        Ok(())
    }

    /// A drain has just taken in what arrived: the next is due five quarters of a period
    /// from now. Moves the timer only if that moves it by more than a quarter period, so it
    /// stays at least a period ahead of every drain (see the module's docs); called by one
    /// drain at a time.
    pub(crate) fn drained(&self) {
        let next = self.next_deadline();
        if next - self.deadline.load(Ordering::Relaxed) > self.period / 4 {
            // A timer that cannot be set leaves the old deadline, which the thread's drain
            // tries again.
            let _ = self.set_deadline(next);
        }
    }

    /// The thread's drain found another drain under way, which moves the timer when it ends,
    /// unless it looked at it before it expired: the next is due as after a drain.
    pub(crate) fn expired_while_draining(&self) {
        let _ = self.set_deadline(self.next_deadline());
    }

    /// Consumes the timer's expiry; true if it had expired.
    pub(crate) fn take_expiry(&self) -> bool {
        let mut count = [0u8; 8];
        rustix::io::read(&self.timer, &mut count).is_ok_and(|n| n == 8)
    }

    /// Wakes the thread to look again.
    pub(crate) fn poke(&self) {
        // A full counter (never, at 2^64 - 1 pokes) is readable already.
        let _ = rustix::io::write(&self.control, &1u64.to_ne_bytes());
    }

    /// Consumes the pokes.
    pub(crate) fn take_pokes(&self) {
        let mut count = [0u8; 8];
        let _ = rustix::io::read(&self.control, &mut count);
    }

    /// The drain period.
    pub(crate) fn period(&self) -> Duration {
        Duration::from_nanos(u64::try_from(self.period).unwrap_or(0))
    }

    /// Tells the thread to end.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.poke();
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    pub(crate) fn control_fd(&self) -> BorrowedFd<'_> {
        self.control.as_fd()
    }

    pub(crate) fn timer_fd(&self) -> BorrowedFd<'_> {
        self.timer.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_drain_leaves_the_timer_one_to_five_quarters_of_a_period_ahead() {
        let period = Duration::from_millis(40);
        let sleeper = Sleeper::new(period).unwrap();
        let p = sleeper.period;
        for _ in 0..12 {
            sleeper.drained();
            let ahead = sleeper.deadline.load(Ordering::Relaxed) - now();
            assert!(
                ahead >= p - 1_000_000 && ahead <= p + p / 4,
                "{ahead} ns ahead"
            );
            // A third of a period apart, most drains move nothing; the deadline still
            // never comes within a period.
            std::thread::sleep(Duration::from_millis(13));
        }
        assert!(!sleeper.take_expiry());
    }
}
