//! The logging macros, rclcpp's `RCLCPP_<SEVERITY>[_<CONDITION>]` as
//! `tacto::<severity>!(logger, [condition,] "format", args...)`, and the state their conditions
//! keep per call site.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use crate::clock::{self, Clock, ClockKind, NodeClock, Time, duration_nanos};

/// Logs a record of severity `DEBUG` (rclcpp's `RCLCPP_DEBUG*`); see [`info!`](crate::info)
/// for the forms.
#[macro_export]
macro_rules! debug {
    ($logger:expr, $($rest:tt)+) => {
        $crate::__log!($crate::logging::Severity::Debug, $logger, $($rest)+)
    };
}

/// Logs a record of severity `INFO` (rclcpp's `RCLCPP_INFO*`).
///
/// The first argument is a [`Logger`](crate::logging::Logger) (or anything that borrows as one:
/// `&Logger`, `Arc<Logger>`), the
/// last ones a `format!` string and its arguments. Between them, at most one condition, as
/// rclcpp's macros have them; conditions and arguments are evaluated only if the logger is
/// enabled for the severity, and each call site keeps its own state:
///
/// | form | rclcpp | logs |
/// |---|---|---|
/// | `info!(logger, "x = {}", x)` | `RCLCPP_INFO` | every time |
/// | `info!(logger, once, ...)` | `_ONCE` | the first time only |
/// | `info!(logger, skip_first, ...)` | `_SKIPFIRST` | every time but the first |
/// | `info!(logger, when(cond), ...)` | `_EXPRESSION`, `_FUNCTION` | when `cond` is true |
/// | `info!(logger, throttle(clock, period), ...)` | `_THROTTLE` | if at least `period` passed on `clock` since it last logged |
/// | `info!(logger, skip_first, throttle(clock, period), ...)` | `_SKIPFIRST_THROTTLE` | as throttle, but the first one that passes is skipped |
///
/// `clock` is a [`TimeSource`](crate::logging::TimeSource): [`Steady`](crate::logging::Steady)
/// (`RCUTILS_STEADY_TIME`), a [`Clock`](crate::Clock) for ROS time (a node's clock: simulated
/// time under `use_sim_time`), or a closure returning a [`Time`](crate::Time). As in rcutils,
/// throttling starts from time zero: the first call logs once `period` has passed since the
/// clock's epoch, and each logged call restarts the period.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::logging::{Logger, Steady};
///
/// let logger = Logger::get("lidar");
/// for scan in 0..100 {
///     tacto::info!(logger, "scan {scan}");
///     tacto::info!(logger, once, "first scan at {scan}");
///     tacto::warn!(logger, when(scan % 10 == 0), "scan {scan} is a tenth");
///     tacto::warn!(logger, throttle(Steady, Duration::from_secs(1)), "at most once a second");
/// }
/// ```
#[macro_export]
macro_rules! info {
    ($logger:expr, $($rest:tt)+) => {
        $crate::__log!($crate::logging::Severity::Info, $logger, $($rest)+)
    };
}

/// Logs a record of severity `WARN` (rclcpp's `RCLCPP_WARN*`); see [`info!`](crate::info) for
/// the forms.
#[macro_export]
macro_rules! warn {
    ($logger:expr, $($rest:tt)+) => {
        $crate::__log!($crate::logging::Severity::Warn, $logger, $($rest)+)
    };
}

/// Logs a record of severity `ERROR` (rclcpp's `RCLCPP_ERROR*`); see [`info!`](crate::info)
/// for the forms.
#[macro_export]
macro_rules! error {
    ($logger:expr, $($rest:tt)+) => {
        $crate::__log!($crate::logging::Severity::Error, $logger, $($rest)+)
    };
}

/// Logs a record of severity `FATAL` (rclcpp's `RCLCPP_FATAL*`); see [`info!`](crate::info)
/// for the forms.
#[macro_export]
macro_rules! fatal {
    ($logger:expr, $($rest:tt)+) => {
        $crate::__log!($crate::logging::Severity::Fatal, $logger, $($rest)+)
    };
}

/// The macros' body: the level check first (one atomic load), then the condition, as rcutils'
/// `RCUTILS_LOG_COND_NAMED`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log {
    ($severity:expr, $logger:expr, once, $($arg:tt)+) => {
        // A match keeps a temporary logger (`Logger::get(..)`) alive for the whole call.
        match &$logger {
            logger => {
                let logger: &$crate::logging::Logger = ::core::borrow::Borrow::borrow(logger);
                if logger.is_enabled_for($severity) {
                    static ONCE: $crate::logging::__Once = $crate::logging::__Once::new();
                    if ONCE.first() {
                        $crate::__write!(logger, $severity, $($arg)+);
                    }
                }
            }
        }
    };
    ($severity:expr, $logger:expr, skip_first, throttle($clock:expr, $period:expr), $($arg:tt)+) => {
        // A match keeps a temporary logger (`Logger::get(..)`) alive for the whole call.
        match &$logger {
            logger => {
                let logger: &$crate::logging::Logger = ::core::borrow::Borrow::borrow(logger);
                if logger.is_enabled_for($severity) {
                    // rcutils nests skip-first inside throttle: the first call that passes the
                    // throttle is the one skipped.
                    static THROTTLE: $crate::logging::__Throttle = $crate::logging::__Throttle::new();
                    static FIRST: $crate::logging::__Once = $crate::logging::__Once::new();
                    let now = {
                        use $crate::logging::TimeSource as _;
                        (&$clock).time()
                    };
                    if THROTTLE.pass(now, $period) && !FIRST.first() {
                        $crate::__write!(logger, $severity, $($arg)+);
                    }
                }
            }
        }
    };
    ($severity:expr, $logger:expr, skip_first, $($arg:tt)+) => {
        // A match keeps a temporary logger (`Logger::get(..)`) alive for the whole call.
        match &$logger {
            logger => {
                let logger: &$crate::logging::Logger = ::core::borrow::Borrow::borrow(logger);
                if logger.is_enabled_for($severity) {
                    static FIRST: $crate::logging::__Once = $crate::logging::__Once::new();
                    if !FIRST.first() {
                        $crate::__write!(logger, $severity, $($arg)+);
                    }
                }
            }
        }
    };
    ($severity:expr, $logger:expr, throttle($clock:expr, $period:expr), $($arg:tt)+) => {
        // A match keeps a temporary logger (`Logger::get(..)`) alive for the whole call.
        match &$logger {
            logger => {
                let logger: &$crate::logging::Logger = ::core::borrow::Borrow::borrow(logger);
                if logger.is_enabled_for($severity) {
                    static THROTTLE: $crate::logging::__Throttle = $crate::logging::__Throttle::new();
                    let now = {
                        use $crate::logging::TimeSource as _;
                        (&$clock).time()
                    };
                    if THROTTLE.pass(now, $period) {
                        $crate::__write!(logger, $severity, $($arg)+);
                    }
                }
            }
        }
    };
    ($severity:expr, $logger:expr, when($condition:expr), $($arg:tt)+) => {
        // A match keeps a temporary logger (`Logger::get(..)`) alive for the whole call.
        match &$logger {
            logger => {
                let logger: &$crate::logging::Logger = ::core::borrow::Borrow::borrow(logger);
                if logger.is_enabled_for($severity) && $condition {
                    $crate::__write!(logger, $severity, $($arg)+);
                }
            }
        }
    };
    ($severity:expr, $logger:expr, $($arg:tt)+) => {
        // A match keeps a temporary logger (`Logger::get(..)`) alive for the whole call.
        match &$logger {
            logger => {
                let logger: &$crate::logging::Logger = ::core::borrow::Borrow::borrow(logger);
                if logger.is_enabled_for($severity) {
                    $crate::__write!(logger, $severity, $($arg)+);
                }
            }
        }
    };
}

/// Formats and queues the record, with the call site's location.
#[doc(hidden)]
#[macro_export]
macro_rules! __write {
    ($logger:expr, $severity:expr, $($arg:tt)+) => {
        $logger.__write(
            $severity,
            $crate::logging::Location::new(
                {
                    // The enclosing function's path is this item's type name, less `::__f`.
                    fn __f() {}
                    $crate::logging::__function_name(::core::any::type_name_of_val(&__f))
                },
                ::core::file!(),
                ::core::line!(),
            ),
            ::core::format_args!($($arg)+),
        )
    };
}

/// A clock for the macros' `throttle` (rcutils' `get_time_point_value`).
///
/// Implemented by [`Steady`], by [`Clock`] and [`NodeClock`] (ROS time, as rclcpp's node clock), and by closures
/// returning a [`Time`].
///
/// # Examples
/// ```
/// use std::sync::atomic::{AtomicI64, Ordering};
/// use std::time::Duration;
/// use tacto::logging::{Logger, TimeSource};
/// use tacto::Time;
///
/// let now = AtomicI64::new(0);
/// let clock = || Time::from_nanos(now.load(Ordering::Relaxed));
/// assert_eq!(clock.time(), Time::ZERO);
/// now.store(5_000_000_000, Ordering::Relaxed);
/// tacto::info!(Logger::get("sim"), throttle(clock, Duration::from_secs(1)), "at 5 s");
/// ```
pub trait TimeSource {
    /// The time now.
    fn time(&self) -> Time;
}

/// Monotonic time since boot, rcutils' `RCUTILS_STEADY_TIME`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Steady;

impl TimeSource for Steady {
    fn time(&self) -> Time {
        clock::os_now(ClockKind::Steady)
    }
}

/// ROS time: a node's clock, as rclcpp's macros take it (system time, or `/clock`'s under sim
/// time).
impl TimeSource for Clock {
    fn time(&self) -> Time {
        self.now(ClockKind::Ros)
    }
}

/// ROS time: a node's clock, as rclcpp's macros take it.
impl TimeSource for NodeClock {
    fn time(&self) -> Time {
        self.now()
    }
}

impl<F: Fn() -> Time> TimeSource for F {
    fn time(&self) -> Time {
        self()
    }
}

/// A call site's "done once" flag (rcutils' `__rcutils_logging_once`, atomic: the first of
/// several threads wins).
#[doc(hidden)]
#[derive(Debug)]
pub struct __Once(AtomicBool);

impl __Once {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        __Once(AtomicBool::new(false))
    }

    /// True the first time only.
    #[inline]
    pub fn first(&self) -> bool {
        // Loaded first, so that the calls after the first only read the shared line.
        !self.0.load(Ordering::Relaxed) && !self.0.swap(true, Ordering::Relaxed)
    }
}

/// A call site's last logged time (rcutils' `__rcutils_logging_last_logged`, from 0).
#[doc(hidden)]
#[derive(Debug)]
pub struct __Throttle(AtomicI64);

impl __Throttle {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        __Throttle(AtomicI64::new(0))
    }

    /// rcutils' `now >= last_logged + duration`, then `last_logged = now`; of threads that
    /// pass at once, one logs.
    pub fn pass(&self, now: Time, period: Duration) -> bool {
        let now = now.as_nanos();
        let last = self.0.load(Ordering::Relaxed);
        now >= last.saturating_add(duration_nanos(period))
            && (self.0)
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}
