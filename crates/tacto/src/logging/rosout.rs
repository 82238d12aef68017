//! `/rosout`: each node's publisher of `rcl_interfaces/msg/Log`, fed by the logging thread
//! (rcl's `logging_rosout.c`).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use super::Record;
use crate::history::History;
use crate::msg::rcl_interfaces::msg::Log;
use crate::publisher::Publisher;
use crate::qos::{Durability, Qos, Reliability};

/// The topic records are published on (rcl's `ROSOUT_TOPIC_NAME`).
pub const ROSOUT_TOPIC: &str = "/rosout";

/// rcl's `rcl_qos_profile_rosout_default`, the QoS of every node's `/rosout` publisher:
/// reliable, transient local, keep last 1000, lifespan 10 s, so that a late `ros2 topic echo
/// /rosout` still gets the last records of the last 10 seconds.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{Durability, History};
///
/// let qos = tacto::logging::rosout_qos();
/// assert_eq!(qos.history, History::KeepLast(1000));
/// assert_eq!(qos.durability, Durability::TransientLocal);
/// assert_eq!(qos.lifespan, Some(Duration::from_secs(10)));
/// ```
pub fn rosout_qos() -> Qos {
    Qos {
        reliability: Reliability::Reliable,
        durability: Durability::TransientLocal,
        history: History::KeepLast(1000),
        lifespan: Some(Duration::from_secs(10)),
        ..Qos::default()
    }
}

/// Each node's `/rosout` publisher, by its logger's name, with the number of its attachment.
type Publishers = HashMap<Arc<str>, (u64, Publisher<Log>)>;

static PUBLISHERS: LazyLock<Mutex<Publishers>> = LazyLock::new(Mutex::default);

fn publishers() -> MutexGuard<'static, Publishers> {
    PUBLISHERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes `publisher` (a node's, on [`ROSOUT_TOPIC`] with [`rosout_qos`]) carry the records of
/// the logger `logger_name` (the node's, [`Logger::for_node`](super::Logger::for_node)) and of
/// its descendants, until the returned link is dropped, as rcl's
/// `rcl_logging_rosout_init_publisher_for_node` does. The logging thread publishes them, each
/// stamped with its time, logger name, message, file, function, line and level.
///
/// A record goes to the publisher of the nearest logger, itself or an ancestor, that has one:
/// rcl too sends a child's records (rclcpp's `get_child`) through its node's publisher. If a
/// publisher already carries `logger_name` (a node of the same name in another context), it
/// stays, as in rcl, and this one is dropped; the returned link then detaches nothing.
///
/// # Examples
/// ```
/// use tacto::logging::{self, Logger, ROSOUT_TOPIC};
/// use tacto::msg::rcl_interfaces::msg::Log;
/// use tacto::{Context, Time};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("talker").unwrap();
/// let logger = Logger::for_node("/", node.name());
/// let publisher = node.publisher::<Log>(ROSOUT_TOPIC).qos(logging::rosout_qos()).create().unwrap();
/// let _link = logging::attach_rosout(logger.name(), publisher);
///
/// let mut echo = ctx.node("echo").unwrap();
/// let rosout = echo.subscription::<Log>(ROSOUT_TOPIC).create().unwrap();
/// tacto::info!(logger, "x = {}", 42);
/// logging::flush();
/// let log = rosout.take().unwrap();
/// assert_eq!((log.name.as_str(), log.msg.as_str(), log.level), ("talker", "x = 42", Log::INFO));
/// assert!(Time::from(log.stamp) <= ctx.clock().now(tacto::ClockKind::System));
/// ```
pub fn attach_rosout(logger_name: &str, publisher: Publisher<Log>) -> RosoutLink {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let name: Arc<str> = logger_name.into();
    let mut publishers = publishers();
    if publishers.contains_key(&name) {
        drop(publishers);
        crate::warn!(
            super::Logger::get("tacto.logging_rosout"),
            "a /rosout publisher is already attached for the logger {logger_name:?}: its \
             records keep going out through that one"
        );
        return RosoutLink { name, id: None };
    }
    publishers.insert(name.clone(), (id, publisher));
    RosoutLink { name, id: Some(id) }
}

/// Keeps a node's `/rosout` publisher attached (see [`attach_rosout`]); dropping it detaches
/// and drops the publisher, as rcl's `rcl_logging_rosout_fini_publisher_for_node` does when
/// the node goes.
#[must_use = "dropping the link detaches the publisher at once"]
pub struct RosoutLink {
    name: Arc<str>,
    /// `None` if another publisher carried the name already.
    id: Option<u64>,
}

impl Drop for RosoutLink {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let removed = {
            let mut publishers = publishers();
            match publishers.get(&self.name) {
                Some((attached, _)) if *attached == id => publishers.remove(&self.name),
                _ => None,
            }
        };
        // The publisher is dropped outside the lock.
        drop(removed);
    }
}

impl fmt::Debug for RosoutLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RosoutLink")
            .field("logger", &self.name)
            .field("attached", &self.id.is_some())
            .finish()
    }
}

/// Publishes `record` on the publisher of its logger or nearest ancestor, if one is attached.
pub(crate) fn publish(record: &Record) {
    let publishers = publishers();
    if publishers.is_empty() {
        return;
    }
    let mut name: &str = &record.name;
    let publisher = loop {
        if let Some((_, publisher)) = publishers.get(name) {
            break publisher;
        }
        match name.rfind('.') {
            Some(dot) => name = &name[..dot],
            None => return,
        }
    };
    let (function, file, line) = match &record.location {
        Some(l) => (l.function.to_string(), l.file.to_string(), l.line),
        None => Default::default(),
    };
    publisher.publish(Log {
        stamp: record.time.into(),
        level: record.severity as u8,
        name: record.name.to_string(),
        msg: record.message.clone(),
        file,
        function,
        line,
    });
}
