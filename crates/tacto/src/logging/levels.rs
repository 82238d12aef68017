//! Levels by logger name in rcutils' dotted hierarchy, the default level, and the effective
//! level every live [`Logger`](super::Logger) caches.
//!
//! rcutils looks the hierarchy up on every log call (`rcutils_logging_get_logger_effective_level`:
//! a hash of the name, then of each ancestor's). Here each logger keeps its effective level in
//! an atomic, and a level change recomputes the cached level of every live logger under the
//! registry's lock, so a log call reads one atomic and compares: the lookup moves from every
//! call to the rare level change, with the same result.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, LazyLock, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

use super::Severity;

/// The most logger names that can have a level of their own. The names come from outside too
/// (the `set_logger_levels` service, `--log-level name:=level`), so they are bounded.
pub const MAX_LOGGER_LEVELS: usize = 4096;

/// rcutils' `RCUTILS_DEFAULT_LOGGER_DEFAULT_LEVEL`.
const DEFAULT_LEVEL: Severity = Severity::Info;

/// A logger's name and its cached effective level, shared by its clones and interned by name.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) name: Arc<str>,
    pub(crate) level: AtomicU8,
}

struct Registry {
    /// Levels set by name, `Unset` excluded (rcutils keeps an `UNSET` entry, which reads and
    /// resolves exactly as no entry).
    levels: HashMap<Box<str>, Severity>,
    /// The level of loggers whose ancestors have none; `Unset` only if set so through the
    /// empty name, as rcutils allows (then every record passes).
    default: Severity,
    /// Every logger made, by name, while one of its clones lives.
    loggers: HashMap<Arc<str>, Weak<Shared>>,
    /// Dead entries of `loggers` are dropped when it reaches this length.
    prune_at: usize,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| {
    RwLock::new(Registry {
        levels: HashMap::new(),
        default: DEFAULT_LEVEL,
        loggers: HashMap::new(),
        prune_at: 64,
    })
});

// The registry's invariants hold between statements (no user code runs under the lock), so a
// panic elsewhere while it was held leaves it usable.
fn read() -> RwLockReadGuard<'static, Registry> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner())
}

fn write() -> RwLockWriteGuard<'static, Registry> {
    REGISTRY.write().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    /// `rcutils_logging_get_logger_effective_level`: the logger's own level, else its nearest
    /// ancestor's (`a.b.c`, `a.b`, `a`), else the default.
    fn effective(&self, name: &str) -> Severity {
        if self.levels.is_empty() {
            return self.default;
        }
        let mut name = name;
        loop {
            if let Some(&level) = self.levels.get(name) {
                return level;
            }
            match name.rfind('.') {
                Some(dot) => name = &name[..dot],
                None => return self.default,
            }
        }
    }

    /// Recomputes the cached level of every live logger named `name` or below it.
    fn refresh(&self, name: &str) {
        for shared in self.loggers.values().filter_map(Weak::upgrade) {
            if name.is_empty() || is_same_or_below(&shared.name, name) {
                let level = self.effective(&shared.name);
                shared.level.store(level as u8, Ordering::Relaxed);
            }
        }
        super::bridge::levels_changed(self.most_verbose());
    }

    /// The least severe level any logger can have now: the default, or a level set by name.
    fn most_verbose(&self) -> Severity {
        (self.levels.values().copied()).fold(self.default, Severity::min)
    }
}

/// The least severe level any logger can have now.
pub(crate) fn most_verbose() -> Severity {
    read().most_verbose()
}

/// True if `name` is `ancestor` or a descendant of it, in rcutils' dotted hierarchy.
fn is_same_or_below(name: &str, ancestor: &str) -> bool {
    name.strip_prefix(ancestor)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The logger named `name`: the live one if there is one, so that its clones and this share
/// one cached level, else a new one.
pub(crate) fn intern(name: &str) -> Arc<Shared> {
    if let Some(shared) = read().loggers.get(name).and_then(Weak::upgrade) {
        return shared;
    }
    let mut registry = write();
    if let Some(shared) = registry.loggers.get(name).and_then(Weak::upgrade) {
        return shared;
    }
    if registry.loggers.len() >= registry.prune_at {
        registry
            .loggers
            .retain(|_, logger| logger.strong_count() > 0);
        // Pruning costs O(1) per logger made, amortized; the map stays at most twice as long
        // as the most loggers ever alive at once.
        registry.prune_at = (registry.loggers.len() * 2).max(64);
    }
    let name: Arc<str> = name.into();
    let shared = Arc::new(Shared {
        level: AtomicU8::new(registry.effective(&name) as u8),
        name: name.clone(),
    });
    registry.loggers.insert(name, Arc::downgrade(&shared));
    shared
}

/// Too many logger names have a level of their own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot set the level of logger {name:?}: {max} loggers have a level of their own already, \
     the most there can be (set one of them to unset first)"
)]
pub struct TooManyLevels {
    /// The logger whose level was not set.
    pub name: String,
    /// The most loggers that can have a level ([`MAX_LOGGER_LEVELS`]).
    pub max: usize,
}

/// Sets the level of the logger `name` and so of its descendants that have none of their own,
/// as `rcutils_logging_set_logger_level` does (what rclcpp's `Logger::set_level` and the
/// `set_logger_levels` service call): [`Severity::Unset`] removes it, so the logger inherits
/// again. The empty name sets the [default level](set_default_level) too, `Unset` included,
/// which lets every record through, as in rcutils.
///
/// Errors only when `name` would be the [`MAX_LOGGER_LEVELS`]+1-th name with a level.
///
/// # Examples
/// ```
/// use tacto::logging::{self, Severity};
///
/// logging::set_logger_level("planner", Severity::Debug).unwrap();
/// assert_eq!(logging::effective_level("planner.costmap"), Severity::Debug);
/// logging::set_logger_level("planner", Severity::Unset).unwrap();
/// assert_eq!(logging::effective_level("planner.costmap"), logging::default_level());
/// ```
pub fn set_logger_level(name: &str, level: Severity) -> Result<(), TooManyLevels> {
    let mut registry = write();
    if level == Severity::Unset {
        registry.levels.remove(name);
    } else if let Some(own) = registry.levels.get_mut(name) {
        *own = level;
    } else if registry.levels.len() >= MAX_LOGGER_LEVELS {
        return Err(TooManyLevels {
            name: name.to_owned(),
            max: MAX_LOGGER_LEVELS,
        });
    } else {
        registry.levels.insert(name.into(), level);
    }
    if name.is_empty() {
        registry.default = level;
    }
    registry.refresh(name);
    Ok(())
}

/// The level the logger `name` has of its own (`Unset` if none), as
/// `rcutils_logging_get_logger_level`, which the `get_logger_levels` service answers with; for
/// the empty name, the default level.
pub fn logger_level(name: &str) -> Severity {
    let registry = read();
    match name {
        "" => registry.default,
        _ => registry.levels.get(name).copied().unwrap_or_default(),
    }
}

/// The level the logger `name` logs at: its own, else its nearest ancestor's, else the default
/// (`rcutils_logging_get_logger_effective_level`).
pub fn effective_level(name: &str) -> Severity {
    read().effective(name)
}

/// Sets the level of every logger that has none, itself or above (`rcutils_logging_set_default_logger_level`,
/// what `--log-level LEVEL` sets); [`Severity::Unset`] restores rcutils' default, `Info`.
pub fn set_default_level(level: Severity) {
    let mut registry = write();
    registry.default = match level {
        Severity::Unset => DEFAULT_LEVEL,
        level => level,
    };
    registry.refresh("");
}

/// The level of loggers that have none, themselves or above; `Info` unless set.
pub fn default_level() -> Severity {
    read().default
}
