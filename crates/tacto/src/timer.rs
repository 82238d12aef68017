//! Periodic schedules, and what happens when a period is missed.
//!
//! # Missed periods: skip, never burst
//! A periodic trigger fires at `start + k·period`. If the executor comes late, past one or more
//! deadlines (a long callback, an overloaded CPU), the node runs **once**, its
//! [`Activation::missed_periods`](crate::Activation::missed_periods) says how many deadlines
//! passed unserved, and the next deadline is the first one still in the future: the phase is
//! kept and missed runs are never replayed in a burst (rclcpp's timers do the same; its
//! EventsExecutor does not, and floods).
//!
//! # ROS time jumping
//! A schedule on ROS time follows the clock's jumps as rcl's timers do (`rcl/src/rcl/timer.c`,
//! its time-jump callback):
//! - if the clock jumps back past the start of the current period (a simulation restarting
//!   `/clock`, or ROS time turning to `/clock` from system time), the schedule restarts: its
//!   next deadline is one period after the new time;
//! - a jump forward is a late executor: one run, the missed periods counted;
//! - ROS time zero is a clock not started yet (sim time before the first `/clock` message),
//!   not a jump: the schedule waits, untouched, as rcl's does, so that a timer whose node
//!   turned to sim time starts its period at the first `/clock` message, whenever the
//!   executor looked.
//!
//! So, under sim time, a timer runs only as `/clock` moves, and never while it stands still.
//!
//! # One grid per executor
//! The periods of one executor count from one instant per clock, the moment it admitted its
//! first periodic trigger on that clock: a period P fires at `epoch + k·P`. Periods that divide
//! each other then fire in one wake-up (25 ms and 100 ms wake the thread 40 times a second, not
//! 50, and the reference system's 25, 60, 100 and 120 ms sensors 53.3 times instead of up to
//! 83), where starts a few microseconds apart would give each its own. A node added later
//! fires first at the next point of its grid, within one period.
//!
//! # Far deadlines
//! Periods are at most [`Trigger::MAX_PERIOD`](crate::Trigger::MAX_PERIOD), but a deadline
//! is a time plus a period and may still lie beyond what a [`Time`] can count: it then
//! saturates to the last representable time, and the schedule never fires again.

use std::time::Duration;

use crate::clock::{Clock, ClockKind, Time, duration_nanos, os_now};

#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    period: Duration,
    clock: ClockKind,
    next: Time,
    /// The deadline the last [`fire`](Self::fire) served.
    served: Time,
}

impl Schedule {
    pub(crate) fn new(period: Duration, clock: ClockKind, now: Time) -> Self {
        Self::on_grid(period, clock, now, now)
    }

    /// A schedule whose deadlines are `epoch + k·period`, the first one after `now`.
    pub(crate) fn on_grid(period: Duration, clock: ClockKind, epoch: Time, now: Time) -> Self {
        let nanos = duration_nanos(period).max(1);
        let since = now.as_nanos().saturating_sub(epoch.as_nanos()).max(0);
        // At most `now + period`, which `Time` arithmetic saturates.
        let next = epoch + Duration::from_nanos((since / nanos + 1).saturating_mul(nanos) as u64);
        Schedule {
            period,
            clock,
            next,
            served: now,
        }
    }

    /// True if a deadline has passed at `now`. A clock that jumped back past the start of the
    /// current period restarts the schedule from `now`, unless it is ROS time zero, a clock
    /// not started (see the module's docs).
    pub(crate) fn is_due(&mut self, now: Time) -> bool {
        let started = self.clock != ClockKind::Ros || now != Time::ZERO;
        if started && now < self.next && self.next - now > self.period {
            self.next = now + self.period;
        }
        now >= self.next
    }

    /// If a deadline has passed at `now`, moves to the next future deadline and returns how
    /// many deadlines were missed beyond the one being served.
    pub(crate) fn fire(&mut self, now: Time) -> Option<u64> {
        if !self.is_due(now) {
            return None;
        }
        let period = duration_nanos(self.period).max(1);
        let (now, next) = (now.as_nanos(), self.next.as_nanos());
        // Saturating: `now - next` of a schedule laid at the dawn of `Time` (a LET grid of
        // centuries starts at `now - period`), and the next deadline, may not fit.
        let missed = now.saturating_sub(next) / period;
        // At most `now`: fits.
        self.served = Time::from_nanos(next + missed * period);
        self.next = Time::from_nanos(next.saturating_add((missed + 1).saturating_mul(period)));
        Some(missed as u64)
    }

    /// The deadline the last [`fire`](Self::fire) served: the start of the period it began.
    pub(crate) fn served(&self) -> Time {
        self.served
    }

    /// The next deadline, if the schedule follows the steady clock.
    pub(crate) fn steady_next(&self) -> Option<Time> {
        (self.clock == ClockKind::Steady).then_some(self.next)
    }

    /// The next deadline on the steady clock, for the OS wait; `None` while ROS time is
    /// simulated (the executor is woken by `/clock` instead).
    pub(crate) fn steady_deadline(&self, clock: &Clock) -> Option<Time> {
        match self.clock {
            ClockKind::Steady => Some(self.next),
            ClockKind::Ros if clock.is_sim_time() => None,
            ClockKind::System | ClockKind::Ros => {
                let wait = self.next - os_now(ClockKind::System);
                Some(os_now(ClockKind::Steady) + wait)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn a_schedule_on_a_grid_fires_at_the_next_point_of_the_grid() {
        let period = Duration::from_millis(25);
        let s = Schedule::on_grid(
            period,
            ClockKind::Steady,
            Time::ZERO,
            Time::from_nanos(60 * MS),
        );
        assert_eq!(s.next, Time::from_nanos(75 * MS));
        let s = Schedule::on_grid(
            period,
            ClockKind::Steady,
            Time::ZERO,
            Time::from_nanos(75 * MS),
        );
        assert_eq!(
            s.next,
            Time::from_nanos(100 * MS),
            "a point now is past: the next one"
        );
        let s = Schedule::on_grid(
            period,
            ClockKind::Steady,
            Time::from_nanos(5),
            Time::from_nanos(5),
        );
        assert_eq!(
            s.next,
            Time::from_nanos(5 + 25 * MS),
            "from the epoch: one whole period"
        );
        let far = Schedule::on_grid(Duration::MAX, ClockKind::Steady, Time::ZERO, Time::ZERO);
        assert!(far.next > Time::ZERO, "saturates, never wraps");
    }

    #[test]
    fn a_late_executor_runs_once_and_keeps_the_phase() {
        let mut s = Schedule::new(Duration::from_millis(10), ClockKind::Steady, Time::ZERO);
        assert_eq!(s.fire(Time::from_nanos(9 * MS)), None);
        assert_eq!(s.fire(Time::from_nanos(10 * MS)), Some(0));
        // Late by 3.5 periods: deadlines 20, 30, 40 passed; served once, next is 50.
        assert_eq!(s.fire(Time::from_nanos(45 * MS)), Some(2));
        assert_eq!(s.fire(Time::from_nanos(49 * MS)), None);
        assert_eq!(s.fire(Time::from_nanos(50 * MS)), Some(0));
    }

    #[test]
    fn a_deadline_beyond_the_range_of_time_saturates_and_never_comes() {
        let period = Duration::from_nanos(i64::MAX as u64);
        let mut s = Schedule::new(period, ClockKind::Steady, Time::from_nanos(i64::MIN + 1));
        assert_eq!(s.fire(Time::from_nanos(0)), Some(0));
        assert_eq!(s.served(), Time::from_nanos(0));
        // Due at 0 + period = i64::MAX, the last time there is.
        assert_eq!(s.fire(Time::from_nanos(i64::MAX - 1)), None);
        // Laid later on the same grid, the next deadline would be past the end: saturated.
        let mut s = Schedule::new(period, ClockKind::Steady, Time::from_nanos(-1));
        assert_eq!(s.fire(Time::from_nanos(i64::MAX - 1)), Some(0));
        assert_eq!(s.fire(Time::from_nanos(i64::MAX - 1)), None);
    }

    #[test]
    fn ros_time_zero_is_a_clock_not_started_and_leaves_the_schedule_alone() {
        let start = Time::from_nanos(1_700_000_000_000 * MS);
        let mut s = Schedule::new(Duration::from_millis(10), ClockKind::Ros, start);
        assert_eq!(s.fire(Time::ZERO), None);
        assert_eq!(s.next, start + Duration::from_millis(10), "untouched");
        // The first `/clock` message restarts it: one period after it.
        assert_eq!(s.fire(Time::from_nanos(500 * MS)), None);
        assert_eq!(s.fire(Time::from_nanos(509 * MS)), None);
        assert_eq!(s.fire(Time::from_nanos(510 * MS)), Some(0));
        // On another clock, zero is a time like any other: a jump back, which restarts.
        let mut s = Schedule::new(Duration::from_millis(10), ClockKind::System, start);
        assert_eq!(s.fire(Time::ZERO), None);
        assert_eq!(s.fire(Time::from_nanos(10 * MS)), Some(0));
    }

    #[test]
    fn a_clock_jumping_back_restarts_the_schedule() {
        let mut s = Schedule::new(Duration::from_millis(10), ClockKind::Ros, Time::ZERO);
        assert_eq!(s.fire(Time::from_nanos(1000 * MS)), Some(99));
        assert_eq!(s.fire(Time::from_nanos(5 * MS)), None);
        assert_eq!(s.fire(Time::from_nanos(15 * MS)), Some(0));
    }
}
