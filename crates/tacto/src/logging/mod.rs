//! Logging with ROS 2's severities and logger names.

mod severity;

pub use severity::{ParseSeverityError, Severity};
