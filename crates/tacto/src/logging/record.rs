//! One log record, as the logging thread hands it to the console, `/rosout` and sinks.

use std::borrow::Cow;
use std::sync::Arc;

use super::Severity;
use crate::clock::{self, Time};

/// A record: what was logged, by which logger, when and where.
///
/// # Examples
/// ```
/// use tacto::logging::{Location, OutputFormat, Record, Severity};
/// use tacto::Time;
///
/// let mut record = Record::new(Severity::Warn, "planner".into(), "no path".into());
/// record.time = Time::from_nanos(1_764_000_000_123_456_789);
/// record.location = Some(Location::new("plan", "src/planner.rs", 42));
/// assert_eq!(
///     OutputFormat::default().render(&record),
///     "[WARN] [1764000000.123456789] [planner]: no path"
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Its severity.
    pub severity: Severity,
    /// The name of the logger that made it.
    pub name: Arc<str>,
    /// The formatted message.
    pub message: String,
    /// When it was made, on the system clock (as rcutils stamps records, whatever clock the
    /// node uses).
    pub time: Time,
    /// The code that made it, if known.
    pub location: Option<Location>,
    /// False for records made on the logging thread itself (by `/rosout`'s transport, say):
    /// publishing them on `/rosout` could make more of them without end.
    pub(crate) to_rosout: bool,
}

impl Record {
    /// A record made now, with no location.
    pub fn new(severity: Severity, name: Arc<str>, message: String) -> Record {
        Record {
            severity,
            name,
            message,
            time: clock::system_now(),
            location: None,
            to_rosout: !super::output::on_logging_thread(),
        }
    }
}

/// Where a record was made (rcutils' `rcutils_log_location_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The function: its name for the macros (as C's `__func__`), the module path for records
    /// from the `log` facade.
    pub function: Cow<'static, str>,
    /// The source file.
    pub file: Cow<'static, str>,
    /// The line in it.
    pub line: u32,
}

impl Location {
    /// A location.
    pub fn new(
        function: impl Into<Cow<'static, str>>,
        file: impl Into<Cow<'static, str>>,
        line: u32,
    ) -> Location {
        Location {
            function: function.into(),
            file: file.into(),
            line,
        }
    }
}

/// The bare name of the function whose path is `path`, the type name of an item declared in
/// it (`crate::module::function::f`): `function`, as C's `__func__` gives it, closures
/// skipped.
#[doc(hidden)]
pub fn __function_name(path: &'static str) -> &'static str {
    let mut path = path.strip_suffix("::__f").unwrap_or(path);
    while let Some(outer) = path.strip_suffix("::{{closure}}") {
        path = outer;
    }
    path.rsplit("::").next().unwrap_or(path)
}
