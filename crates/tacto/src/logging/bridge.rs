//! The `log` facade's records, as tacto's: library crates (the DDS transport, user crates,
//! iceoryx2 through its `log` backend) log into the same console and `/rosout`, under their
//! target as the logger name.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{LazyLock, Once, RwLock};

use super::{Location, Logger, Record, Severity, output};

struct Bridge;

static BRIDGE: Bridge = Bridge;

/// Makes tacto the `log` facade's logger, unless the program set another first (then that
/// one keeps the facade's records).
pub(crate) fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        if log::set_logger(&BRIDGE).is_ok() {
            log::set_max_level(max_level(super::levels::most_verbose()));
        }
    });
}

/// Keeps the facade's own filter, which `log::debug!` and the rest check before anything
/// else, at the most verbose level any logger has, so that records no logger would write cost
/// what they cost without a logger.
pub(crate) fn levels_changed(most_verbose: Severity) {
    if std::ptr::addr_eq(log::logger(), &BRIDGE) {
        log::set_max_level(max_level(most_verbose));
    }
}

fn max_level(most_verbose: Severity) -> log::LevelFilter {
    match most_verbose {
        // `Trace` is written as `Debug`, rcutils' least severe level.
        Severity::Unset | Severity::Debug => log::LevelFilter::Trace,
        Severity::Info => log::LevelFilter::Info,
        Severity::Warn => log::LevelFilter::Warn,
        Severity::Error => log::LevelFilter::Error,
        // `log` has no fatal: nothing of it is written.
        Severity::Fatal => log::LevelFilter::Off,
    }
}

/// The severity of a `log` level: rcutils has no trace, so trace is debug.
fn severity(level: log::Level) -> Severity {
    match level {
        log::Level::Trace | log::Level::Debug => Severity::Debug,
        log::Level::Info => Severity::Info,
        log::Level::Warn => Severity::Warn,
        log::Level::Error => Severity::Error,
    }
}

/// The most targets whose loggers the bridge keeps: a target's records then find their logger
/// with one read lock, instead of making it again each time. Targets are mostly module paths,
/// but a library may make them from anything; past this many, loggers are made per record.
const KEPT_TARGETS: usize = 1024;

static TARGETS: LazyLock<RwLock<HashMap<Box<str>, Logger>>> = LazyLock::new(RwLock::default);

/// The logger of a `log` target: its module path with `.` for `::`, so that
/// `my_driver::usb` is below `my_driver` in rcutils' hierarchy.
fn logger(target: &str) -> Logger {
    if let Some(logger) = (TARGETS.read().unwrap_or_else(|e| e.into_inner())).get(target) {
        return logger.clone();
    }
    let logger = match target.contains("::") {
        true => Logger::get(&target.replace("::", ".")),
        false => Logger::get(target),
    };
    let mut targets = TARGETS.write().unwrap_or_else(|e| e.into_inner());
    if targets.len() < KEPT_TARGETS {
        targets.insert(target.into(), logger.clone());
    }
    logger
}

impl log::Log for Bridge {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        logger(metadata.target()).is_enabled_for(severity(metadata.level()))
    }

    fn log(&self, record: &log::Record<'_>) {
        let logger = logger(record.target());
        let severity = severity(record.level());
        if !logger.is_enabled_for(severity) {
            return;
        }
        let message = match record.args().as_str() {
            Some(text) => text.to_owned(),
            None => record.args().to_string(),
        };
        let mut out = Record::new(severity, logger.shared_name(), message);
        let function: Cow<'static, str> = match record.module_path_static() {
            Some(path) => path.into(),
            None => record.module_path().unwrap_or_default().to_owned().into(),
        };
        let file: Cow<'static, str> = match record.file_static() {
            Some(file) => file.into(),
            None => record.file().unwrap_or_default().to_owned().into(),
        };
        out.location = Some(Location::new(function, file, record.line().unwrap_or(0)));
        output::submit(out);
    }

    fn flush(&self) {
        output::flush();
    }
}
