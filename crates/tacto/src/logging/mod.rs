//! Logging with ROS 2's semantics: rcutils' severities, logger names and level hierarchy,
//! rclcpp's macros, rcutils' console format, and `/rosout`.
//!
//! ```
//! use tacto::logging::{self, Logger, Severity};
//!
//! let logger = Logger::for_node("/", "talker"); // a node's logger is named after the node
//! tacto::info!(logger, "publishing {}", 42);    // [INFO] [1764000000.123456789] [talker]: publishing 42
//! tacto::debug!(logger, "not written");        // below the default level, INFO
//!
//! logging::set_logger_level("talker", Severity::Debug).unwrap(); // --log-level talker:=debug
//! tacto::debug!(logger.child("io"), "written"); // talker.io inherits talker's level
//! assert_eq!(logging::logger_level("talker.io"), Severity::Unset);
//! assert_eq!(logging::effective_level("talker.io"), Severity::Debug);
//! ```
//!
//! - **Levels** ([`set_logger_level`], [`set_default_level`]) are rcutils': a logger logs at
//!   its own level, else its nearest dotted ancestor's, else the default (INFO). Every
//!   [`Logger`] caches its effective level in an atomic, updated when any level changes, so a
//!   record below it costs one load and a compare, and its arguments are not evaluated.
//! - **Output**: a log call formats its message and queues the record (bounded,
//!   [`QUEUE_CAPACITY`]; when full the newest is dropped and counted, see [`dropped`]); one
//!   logging thread per process writes the console in rcutils' format ([`Config`],
//!   [`OutputFormat`]), publishes on `/rosout` ([`attach_rosout`]) and feeds [sinks](Sink). So
//!   no executor thread waits on a terminal, a pipe or the network. Records are written in
//!   call order, and the process's exit (or [`flush`], or dropping [`init`]'s guard) writes
//!   those still queued.
//! - **The `log` facade**: [`init`] makes tacto its logger, so crates that log through `log`
//!   are written and published as any record, their target as the logger name with `.` for
//!   `::` (`my_driver::usb` is below `my_driver`); `trace` is written as DEBUG.
//!
//! See `docs/logging.md`.

mod bridge;
mod config;
mod format;
mod levels;
mod logger;
mod macros;
mod output;
mod record;
mod rosout;
mod severity;

pub use config::{Colors, Config, ConfigError, Stream};
pub use format::OutputFormat;
pub use levels::{
    MAX_LOGGER_LEVELS, TooManyLevels, default_level, effective_level, logger_level,
    set_default_level, set_logger_level,
};
pub use logger::Logger;
#[doc(hidden)]
pub use macros::{__Once, __Throttle};
pub use macros::{Steady, TimeSource};
pub use output::{
    FlushGuard, QUEUE_CAPACITY, Sink, SinkHandle, add_sink, dropped, flush, init, rosout_enabled,
};
#[doc(hidden)]
pub use record::__function_name;
pub use record::{Location, Record};
pub use rosout::{ROSOUT_TOPIC, RosoutLink, attach_rosout, rosout_qos};
pub use severity::{ParseSeverityError, Severity};
