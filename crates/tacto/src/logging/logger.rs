//! Named loggers, as rclcpp's `rclcpp::Logger`.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::levels::{self, Shared, TooManyLevels};
use super::{Location, Record, Severity, output};

/// A named logger: where records come from, and the level they must reach to be written.
///
/// Names form rcutils' hierarchy by dots: `planner.costmap` is a child of `planner`, and takes
/// its level unless it has one of its own (see [`set_logger_level`](super::set_logger_level)).
/// A node's logger is named after the node ([`for_node`](Self::for_node)); library crates that
/// log through the `log` facade log as their target, `::` read as `.` (see
/// [the module](super)).
///
/// Log with the macros: [`debug!`](crate::debug), [`info!`](crate::info),
/// [`warn!`](crate::warn), [`error!`](crate::error), [`fatal!`](crate::fatal). A logger is
/// cheap to clone (a reference count), and all loggers of one name share one cached level, so
/// a record below it costs one atomic load and a compare.
///
/// # Examples
/// ```
/// use tacto::logging::{Logger, Severity};
///
/// let node = Logger::for_node("/robot", "planner");
/// assert_eq!(node.name(), "robot.planner");
/// let costmap = node.child("costmap");
/// assert_eq!(costmap.name(), "robot.planner.costmap");
///
/// assert!(!costmap.is_enabled_for(Severity::Debug)); // the default level is INFO
/// node.set_level(Severity::Debug).unwrap();
/// assert!(costmap.is_enabled_for(Severity::Debug)); // inherited from its parent
/// tacto::debug!(costmap, "{} cells inflated", 42);
/// ```
#[derive(Clone)]
pub struct Logger {
    shared: Arc<Shared>,
}

impl Logger {
    /// The logger named `name` (rclcpp's `rclcpp::get_logger`).
    pub fn get(name: &str) -> Logger {
        Logger {
            shared: levels::intern(name),
        }
    }

    /// The logger of the node `name` in `namespace`, named as `rcl_node_get_logger_name` names
    /// it: the node's name in the root namespace (`/` or empty), else the namespace without its
    /// leading `/` and with `.` for `/`, then `.` and the name (`/robot/arm`, `driver` →
    /// `robot.arm.driver`).
    pub fn for_node(namespace: &str, name: &str) -> Logger {
        let namespace = namespace.strip_prefix('/').unwrap_or(namespace);
        if namespace.is_empty() {
            return Logger::get(name);
        }
        Logger::get(&format!("{}.{name}", namespace.replace('/', ".")))
    }

    /// The logger's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The name, shared with the records it makes.
    pub(crate) fn shared_name(&self) -> Arc<str> {
        self.shared.name.clone()
    }

    /// The child logger `suffix` of this one, `<name>.<suffix>` (rclcpp's `get_child`). Its
    /// records go to `/rosout` through this logger's node, as rclcpp's children do.
    pub fn child(&self, suffix: &str) -> Logger {
        Logger::get(&format!("{}.{suffix}", self.shared.name))
    }

    /// Sets this logger's own level (rclcpp's `set_level`): see
    /// [`set_logger_level`](super::set_logger_level).
    pub fn set_level(&self, level: Severity) -> Result<(), TooManyLevels> {
        levels::set_logger_level(&self.shared.name, level)
    }

    /// This logger's own level, `Unset` if it has none.
    pub fn level(&self) -> Severity {
        levels::logger_level(&self.shared.name)
    }

    /// The level this logger logs at: its own, its nearest ancestor's, or the default (rclcpp's
    /// `get_effective_level`).
    pub fn effective_level(&self) -> Severity {
        Severity::from_u8(self.shared.level.load(Ordering::Relaxed)).unwrap_or_default()
    }

    /// True if a record of `severity` would be written (`rcutils_logging_logger_is_enabled_for`).
    #[inline]
    pub fn is_enabled_for(&self, severity: Severity) -> bool {
        severity as u8 >= self.shared.level.load(Ordering::Relaxed)
    }

    /// Queues a record of `severity` for the logging thread: the macros call this once
    /// [`is_enabled_for`](Self::is_enabled_for) said yes and their conditions hold.
    #[doc(hidden)]
    #[inline(never)]
    pub fn __write(&self, severity: Severity, location: Location, message: fmt::Arguments<'_>) {
        let message = match message.as_str() {
            Some(text) => text.to_owned(),
            None => fmt::format(message),
        };
        let mut record = Record::new(severity, self.shared_name(), message);
        record.location = Some(location);
        output::submit(record);
    }
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Logger")
            .field("name", &self.shared.name)
            .field("effective_level", &self.effective_level())
            .finish()
    }
}
