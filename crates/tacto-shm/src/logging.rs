//! iceoryx2's log records, written by tacto's logging under the logger `iceoryx2`.
//!
//! iceoryx2 hands each record to one process-wide logger of its own (`iceoryx2_log::Log`),
//! which prints to the console in its own format by default. tacto sets its own in its place
//! before the process's first iceoryx2 call (the node's creation), so iceoryx2's lines look
//! like every other line of the process, go where tacto's go (console, `/rosout`, sinks), and
//! obey tacto's levels: `--log-level iceoryx2:=debug` shows iceoryx2's debug records.
//!
//! - Severities: trace and debug are DEBUG (rcutils has no trace), then INFO, WARN, ERROR,
//!   and FATAL as is. The record's origin (the iceoryx2 object that logged, as its `Debug`)
//!   follows the message in parentheses.
//! - Straight into `tacto::logging`, not through the `log` facade: tacto installs its bridge
//!   from the facade when a context is made, after its transport, so the records of the
//!   node's creation would otherwise go nowhere; and the facade has no FATAL.
//! - Until the `iceoryx2` logger is given a level of its own (by `--log-level iceoryx2:=...`
//!   or `tacto::logging::set_logger_level`), only its errors are written: a normal start logs
//!   warnings (a missing config file, defaults in use) that are noise in a tacto process, as
//!   tacto set iceoryx2's own level to ERROR before. `IOX2_LOG_LEVEL` still sets iceoryx2's
//!   own filter, applied before tacto sees a record.
//! - If the program set another iceoryx2 logger first, that one stays.

use std::fmt;
use std::sync::{LazyLock, Once};

use iceoryx2::prelude::{LogLevel, set_log_level_from_env_or, set_logger};
use tacto::logging::{Logger, Severity};

/// The name of the logger iceoryx2's records are written under.
pub(crate) const LOGGER_NAME: &str = "iceoryx2";

static LOGGER: LazyLock<Logger> = LazyLock::new(|| Logger::get(LOGGER_NAME));

/// Hands iceoryx2's records to tacto's logging, once per process; call before anything else
/// of iceoryx2.
pub(crate) fn route_to_tacto() {
    static ROUTE: Once = Once::new();
    ROUTE.call_once(|| {
        static TO_TACTO: ToTacto = ToTacto;
        set_logger(&TO_TACTO);
        // iceoryx2 filters before its logger: everything goes to tacto, whose levels decide.
        set_log_level_from_env_or(LogLevel::Trace);
    });
}

struct ToTacto;

impl iceoryx2_log::Log for ToTacto {
    fn log(&self, level: LogLevel, origin: fmt::Arguments, message: fmt::Arguments) {
        let severity = severity(level);
        let quiet = severity < Severity::Error && LOGGER.level() == Severity::Unset;
        if quiet || !LOGGER.is_enabled_for(severity) {
            return;
        }
        let from = Origin(origin);
        match severity {
            Severity::Fatal => tacto::fatal!(*LOGGER, "{message}{from}"),
            Severity::Error => tacto::error!(*LOGGER, "{message}{from}"),
            Severity::Warn => tacto::warn!(*LOGGER, "{message}{from}"),
            Severity::Info => tacto::info!(*LOGGER, "{message}{from}"),
            Severity::Debug | Severity::Unset => tacto::debug!(*LOGGER, "{message}{from}"),
        }
    }
}

/// The severity of an iceoryx2 level: rcutils has no trace, so trace is debug.
fn severity(level: LogLevel) -> Severity {
    match level {
        LogLevel::Trace | LogLevel::Debug => Severity::Debug,
        LogLevel::Info => Severity::Info,
        LogLevel::Warn => Severity::Warn,
        LogLevel::Error => Severity::Error,
        LogLevel::Fatal => Severity::Fatal,
    }
}

/// ` (from <origin>)` after the message, or nothing for a record without one (iceoryx2's
/// macros without `from` give an empty origin).
struct Origin<'a>(fmt::Arguments<'a>);

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_str() {
            Some("") => Ok(()),
            _ => write!(f, " (from {})", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iceoryx2_levels_map_onto_rcutils_severities() {
        assert_eq!(severity(LogLevel::Trace), Severity::Debug);
        assert_eq!(severity(LogLevel::Debug), Severity::Debug);
        assert_eq!(severity(LogLevel::Info), Severity::Info);
        assert_eq!(severity(LogLevel::Warn), Severity::Warn);
        assert_eq!(severity(LogLevel::Error), Severity::Error);
        assert_eq!(severity(LogLevel::Fatal), Severity::Fatal);
    }

    #[test]
    fn the_origin_follows_the_message_when_there_is_one() {
        assert_eq!(format!("x{}", Origin(format_args!(""))), "x");
        let node = "Node";
        assert_eq!(
            format!("x{}", Origin(format_args!("{node:?}"))),
            "x (from \"Node\")"
        );
    }
}
