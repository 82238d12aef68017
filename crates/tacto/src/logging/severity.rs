//! rcutils' log severities.

use std::fmt;
use std::str::FromStr;

/// How severe a log record is, with rcutils' values (`RCUTILS_LOG_SEVERITY_*`), which are also
/// `rcl_interfaces/msg/Log`'s levels on `/rosout`, and its names.
///
/// A logger's level is the least severe record it lets through; [`Unset`](Severity::Unset)
/// means "inherit the ancestor's level", as in rcutils.
///
/// # Examples
/// ```
/// use tacto::logging::Severity;
///
/// assert_eq!("warn".parse::<Severity>(), Ok(Severity::Warn));
/// assert!("WARNING".parse::<Severity>().is_err()); // as rcutils: only its own names
/// assert!(Severity::Error > Severity::Info);
/// assert_eq!(Severity::Info as u8, 20);
/// assert_eq!(Severity::Fatal.to_string(), "FATAL");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(u8)]
pub enum Severity {
    /// No level of its own: the logger takes its ancestor's.
    #[default]
    Unset = 0,
    /// `RCUTILS_LOG_SEVERITY_DEBUG`.
    Debug = 10,
    /// `RCUTILS_LOG_SEVERITY_INFO`.
    Info = 20,
    /// `RCUTILS_LOG_SEVERITY_WARN`.
    Warn = 30,
    /// `RCUTILS_LOG_SEVERITY_ERROR`.
    Error = 40,
    /// `RCUTILS_LOG_SEVERITY_FATAL`.
    Fatal = 50,
}

impl Severity {
    /// The name rcutils prints for it: `DEBUG`, `INFO`, `WARN`, `ERROR`, `FATAL`, `UNSET`.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Unset => "UNSET",
            Severity::Debug => "DEBUG",
            Severity::Info => "INFO",
            Severity::Warn => "WARN",
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
        }
    }

    /// The severity of an rcutils value (`Log.level` on `/rosout`), if it is one.
    pub const fn from_u8(value: u8) -> Option<Severity> {
        Some(match value {
            0 => Severity::Unset,
            10 => Severity::Debug,
            20 => Severity::Info,
            30 => Severity::Warn,
            40 => Severity::Error,
            50 => Severity::Fatal,
            _ => return None,
        })
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A string that names no severity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a log severity: expected one of debug, info, warn, error, fatal, unset")]
pub struct ParseSeverityError(pub String);

impl FromStr for Severity {
    type Err = ParseSeverityError;

    /// As `rcutils_logging_severity_level_from_string` (Jazzy): one of its names, in any case;
    /// `WARNING` is not one (rcutils compares with its name table, which has `WARN` only).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let upper = s.to_ascii_uppercase();
        Ok(match upper.as_str() {
            "UNSET" => Severity::Unset,
            "DEBUG" => Severity::Debug,
            "INFO" => Severity::Info,
            "WARN" => Severity::Warn,
            "ERROR" => Severity::Error,
            "FATAL" => Severity::Fatal,
            _ => return Err(ParseSeverityError(s.to_owned())),
        })
    }
}
