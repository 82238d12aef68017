//! Time points and the three clocks of ROS 2: steady, system and ROS time.
//!
//! ROS time equals system time until the context is told to use simulated time; from then on it
//! is whatever the last `rosgraph_msgs/msg/Clock` message on `/clock` said (zero before the
//! first one), exactly as in ROS 2. Executors that own timers on ROS time are woken by every
//! `/clock` update, so sim time works on every executor.

use std::fmt;
use std::ops::{Add, Sub};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::executor::signal::Signal;
use crate::msg::{builtin_interfaces, rosgraph_msgs};
use crate::subscription::{Inbox, Listener, Subscription};
use crate::transport::LinkError;

/// A point in time: signed nanoseconds since the epoch of the clock that produced it.
///
/// Steady time counts from boot, system and ROS time from the Unix epoch. Adding or
/// subtracting a `Duration` saturates at the ends of the range (about 292 years either side of
/// the epoch) instead of overflowing: a deadline that far away is never reached.
///
/// Converts to and from a message's [`builtin_interfaces::Time`] with `From`/`Into`, as stamps
/// are written and read. A message time always fits; a `Time` outside a message's range (its
/// `i32` seconds end in 1901 and 2038) saturates at the nearest end, as arithmetic on `Time`
/// does, so stamping never fails and never wraps (see [`to_sec_nanosec`](Self::to_sec_nanosec)).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::Time;
/// use tacto::msg::builtin_interfaces;
///
/// let t = Time::from_nanos(1_500_000_000);
/// assert_eq!(t + Duration::from_millis(500), Time::from_nanos(2_000_000_000));
/// assert_eq!(Time::from_nanos(2_000_000_000) - t, Duration::from_millis(500));
/// assert_eq!(t + Duration::MAX, Time::from_nanos(i64::MAX));
///
/// let stamp: builtin_interfaces::Time = t.into();
/// assert_eq!(stamp, builtin_interfaces::Time { sec: 1, nanosec: 500_000_000 });
/// assert_eq!(Time::from(stamp), t);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    nanos: i64,
}

impl Time {
    /// The epoch itself.
    pub const ZERO: Time = Time { nanos: 0 };

    /// A time `nanos` nanoseconds after the epoch.
    pub const fn from_nanos(nanos: i64) -> Time {
        Time { nanos }
    }

    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> i64 {
        self.nanos
    }

    /// The time as `builtin_interfaces/msg/Time` counts it: whole seconds (rounded down, so
    /// that `nanosec` is never negative) and nanoseconds, below 1 000 000 000.
    ///
    /// Saturates outside the `i32` seconds of a message: times before
    /// 1901-12-13T20:45:52Z give `(i32::MIN, 0)`, times after 2038-01-19T03:14:07.999999999Z
    /// give `(i32::MAX, 999_999_999)`. `Into<builtin_interfaces::Time>` does the same.
    ///
    /// # Examples
    /// ```
    /// use tacto::Time;
    ///
    /// assert_eq!(Time::from_nanos(-1).to_sec_nanosec(), (-1, 999_999_999));
    /// assert_eq!(Time::from_nanos(i64::MAX).to_sec_nanosec(), (i32::MAX, 999_999_999));
    /// assert_eq!(Time::from_nanos(i64::MIN).to_sec_nanosec(), (i32::MIN, 0));
    /// ```
    pub const fn to_sec_nanosec(self) -> (i32, u32) {
        let sec = self.nanos.div_euclid(NANOS_PER_SEC);
        if sec > i32::MAX as i64 {
            (i32::MAX, (NANOS_PER_SEC - 1) as u32)
        } else if sec < i32::MIN as i64 {
            (i32::MIN, 0)
        } else {
            (sec as i32, self.nanos.rem_euclid(NANOS_PER_SEC) as u32)
        }
    }

    /// The time from `builtin_interfaces/msg/Time` fields; exact for any fields, a `nanosec`
    /// of a second or more included (it carries into the seconds, as in rclcpp).
    pub const fn from_sec_nanosec(sec: i32, nanosec: u32) -> Time {
        Time {
            // At most 2^31 * 10^9 + 2^32 in magnitude: far inside an i64.
            nanos: sec as i64 * NANOS_PER_SEC + nanosec as i64,
        }
    }
}

const NANOS_PER_SEC: i64 = 1_000_000_000;

/// A message's stamp as a time; exact (see [`Time::from_sec_nanosec`]).
impl From<builtin_interfaces::Time> for Time {
    fn from(stamp: builtin_interfaces::Time) -> Time {
        Time::from_sec_nanosec(stamp.sec, stamp.nanosec)
    }
}

/// A time as a message's stamp; saturates outside the message's range (see
/// [`Time::to_sec_nanosec`]).
impl From<Time> for builtin_interfaces::Time {
    fn from(time: Time) -> builtin_interfaces::Time {
        let (sec, nanosec) = time.to_sec_nanosec();
        builtin_interfaces::Time { sec, nanosec }
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time {
            nanos: self.nanos.saturating_add(duration_nanos(d)),
        }
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    fn sub(self, d: Duration) -> Time {
        Time {
            nanos: self.nanos.saturating_sub(duration_nanos(d)),
        }
    }
}

/// The time from `rhs` to `self`, zero if `rhs` is later.
impl Sub<Time> for Time {
    type Output = Duration;
    fn sub(self, rhs: Time) -> Duration {
        Duration::from_nanos(self.nanos.saturating_sub(rhs.nanos).max(0) as u64)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Every time, also those a message cannot hold: not through `to_sec_nanosec`.
        let (s, ns) = (
            self.nanos.div_euclid(NANOS_PER_SEC),
            self.nanos.rem_euclid(NANOS_PER_SEC),
        );
        write!(f, "{s}.{ns:09}")
    }
}

pub(crate) fn duration_nanos(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// Which clock a timer or a timestamp follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ClockKind {
    /// Monotonic time (`CLOCK_MONOTONIC`): never jumps; the right clock for control periods.
    #[default]
    Steady,
    /// Wall-clock time (`CLOCK_REALTIME`): comparable across processes and machines.
    System,
    /// ROS time: system time, or the simulated time published on `/clock` when the context uses
    /// sim time.
    Ros,
}

/// Reads the current time of one clock kind.
pub(crate) fn os_now(kind: ClockKind) -> Time {
    let id = match kind {
        ClockKind::Steady => rustix::time::ClockId::Monotonic,
        ClockKind::System | ClockKind::Ros => rustix::time::ClockId::Realtime,
    };
    let ts = rustix::time::clock_gettime(id);
    Time::from_nanos(ts.tv_sec * 1_000_000_000 + ts.tv_nsec)
}

/// The wall-clock time, as samples are stamped.
pub(crate) fn system_now() -> Time {
    os_now(ClockKind::System)
}

/// A context's clocks; cheap to clone.
///
/// # Examples
/// ```
/// use tacto::{ClockKind, Context};
///
/// let ctx = Context::new();
/// let clock = ctx.clock();
/// let a = clock.now(ClockKind::Steady);
/// let b = clock.now(ClockKind::Steady);
/// assert!(b >= a);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Clock {
    sim: Arc<SimTime>,
}

/// The simulated time last received on `/clock`, and the executors to wake when it moves.
#[derive(Debug, Default)]
pub(crate) struct SimTime {
    active: AtomicBool,
    nanos: AtomicI64,
    /// Executors with timers on ROS time, one entry each. Held weakly: a dropped executor is
    /// pruned on the next call of `wake_on_sim_time` or `set_sim_time`.
    waiters: Mutex<Vec<Weak<Signal>>>,
    /// The subscription to `/clock`. Held here, so that sim time moves for as long as anyone
    /// (a node, an executor) holds the clock, whatever happened to the context.
    source: Mutex<Option<Subscription<rosgraph_msgs::Clock>>>,
}

impl Clock {
    /// The current time of `kind`.
    pub fn now(&self, kind: ClockKind) -> Time {
        match kind {
            ClockKind::Ros if self.is_sim_time() => {
                Time::from_nanos(self.sim.nanos.load(Ordering::Acquire))
            }
            _ => os_now(kind),
        }
    }

    /// True when ROS time follows `/clock` instead of the system clock.
    pub fn is_sim_time(&self) -> bool {
        self.sim.active.load(Ordering::Acquire)
    }

    /// Makes ROS time follow the samples of `source`, a subscription to `/clock`.
    pub(crate) fn follow(
        &self,
        source: Subscription<rosgraph_msgs::Clock>,
    ) -> Result<(), LinkError> {
        let mut current = self.sim.source.lock().unwrap_or_else(|e| e.into_inner());
        if current.is_some() {
            return Ok(());
        }
        let listener = SimClockListener {
            inbox: Arc::downgrade(source.inbox()),
            sim: Arc::downgrade(&self.sim),
        };
        source.inbox().attach_listener(Arc::new(listener))?;
        *current = Some(source);
        self.sim.active.store(true, Ordering::Release);
        Ok(())
    }

    /// Sets simulated time and wakes every executor with timers on ROS time.
    pub(crate) fn set_sim_time(&self, t: Time) {
        self.sim.nanos.store(t.as_nanos(), Ordering::Release);
        let mut waiters = self.sim.waiters.lock().unwrap_or_else(|e| e.into_inner());
        waiters.retain(|w| match w.upgrade() {
            Some(signal) => {
                signal.notify();
                true
            }
            None => false,
        });
    }

    /// Asks for `signal` to be raised whenever simulated time moves; once per signal, however
    /// many timers ask.
    pub(crate) fn wake_on_sim_time(&self, signal: &Arc<Signal>) {
        let mut waiters = self.sim.waiters.lock().unwrap_or_else(|e| e.into_inner());
        // Pruned here too, not only when `/clock` moves: without sim time it never does, and
        // executors come and go.
        waiters.retain(|w| w.strong_count() > 0);
        if !waiters
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(signal)))
        {
            waiters.push(Arc::downgrade(signal));
        }
    }
}

/// A node's ROS clock, as rclcpp's `node->get_clock()`: [`now`](Self::now) is the node's
/// ROS time (system time, or `/clock`'s once the context uses sim time), read from any thread.
///
/// From [`Node::clock`](crate::Node::clock). It is a handle on the context's clocks, one
/// reference count: move a clone into the code an executor runs, where the node itself
/// cannot go. Reading it costs what [`Clock::now`] costs, an atomic load and, without sim
/// time, a `clock_gettime` of the system clock; code that never reads the time pays nothing,
/// as no executor reads ROS time for it. It also serves the logging macros' `throttle`.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::msg::{builtin_interfaces, rosgraph_msgs, std_msgs};
/// use tacto::params::Parameter;
/// use tacto::{Context, Executor, Time, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut node = ctx
///     .node_builder("stamper")
///     .parameter_override(Parameter::new("use_sim_time", true))
///     .create()
///     .unwrap();
/// let input = node.subscription::<std_msgs::String>("in").create().unwrap();
/// let output = node.publisher::<std_msgs::Header>("out").create().unwrap();
/// let clock = node.clock();
/// node.execute(Trigger::on(&input), move |_| {
///     for text in input.take_all() {
///         output.publish(std_msgs::Header { stamp: clock.now().into(), frame_id: text.data.clone() });
///     }
/// })
/// .unwrap();
///
/// let mut probe = ctx.node("probe").unwrap();
/// let heard = probe.subscription::<std_msgs::Header>("out").create().unwrap();
/// let say = probe.publisher::<std_msgs::String>("in").create().unwrap();
/// let sim = probe.publisher::<rosgraph_msgs::Clock>("/clock").create().unwrap();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(node).unwrap();
/// sim.publish(rosgraph_msgs::Clock { clock: builtin_interfaces::Time { sec: 42, nanosec: 0 } });
/// say.publish(std_msgs::String { data: "map".into() });
/// executor.spin_for(Duration::from_millis(20)).unwrap();
/// assert_eq!(Time::from(heard.take().unwrap().stamp), Time::from_nanos(42_000_000_000));
/// ```
#[derive(Debug, Clone)]
pub struct NodeClock {
    clock: Clock,
}

impl NodeClock {
    pub(crate) fn new(clock: Clock) -> Self {
        NodeClock { clock }
    }

    /// The ROS time now, as rclcpp's `node->now()`.
    pub fn now(&self) -> Time {
        self.clock.now(ClockKind::Ros)
    }

    /// True when ROS time follows `/clock` instead of the system clock.
    pub fn is_sim_time(&self) -> bool {
        self.clock.is_sim_time()
    }
}

/// Moves ROS time forward on each `/clock` sample, on the publisher's thread.
///
/// Holds its clock weakly: the clock owns the subscription that owns this listener.
struct SimClockListener {
    inbox: Weak<Inbox<rosgraph_msgs::Clock>>,
    sim: Weak<SimTime>,
}

impl fmt::Debug for SimClockListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimClockListener").finish_non_exhaustive()
    }
}

impl Listener for SimClockListener {
    fn on_sample(&self) {
        let (Some(inbox), Some(sim)) = (self.inbox.upgrade(), self.sim.upgrade()) else {
            return;
        };
        if let Some(sample) = inbox.latest() {
            Clock { sim }.set_sim_time(sample.clock.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiters(clock: &Clock) -> usize {
        clock.sim.waiters.lock().unwrap().len()
    }

    #[test]
    fn an_executor_waits_on_sim_time_once_however_many_timers_it_has() {
        let clock = Clock::default();
        let signal = Arc::new(Signal::new().unwrap());
        for _ in 0..3 {
            clock.wake_on_sim_time(&signal);
        }
        assert_eq!(waiters(&clock), 1);
    }

    #[test]
    fn dropped_executors_stop_waiting_on_sim_time_without_a_clock_message() {
        let clock = Clock::default();
        for _ in 0..100 {
            let signal = Arc::new(Signal::new().unwrap());
            clock.wake_on_sim_time(&signal);
        }
        assert!(waiters(&clock) <= 1, "{} waiters", waiters(&clock));
    }
}
