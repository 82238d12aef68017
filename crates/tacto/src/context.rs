//! The context: one process's graph of topics, and its clocks.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::clock::Clock;
use crate::history::History;
use crate::message::Message;
use crate::msg::rosgraph_msgs;
use crate::node::{Node, NodeCreateError};
use crate::subscription::Subscription;
use crate::transport::intra::{LocalDelivery, Topic};

/// A graph of nodes that can talk to each other, with its clocks.
///
/// Cheap to clone; clones share the graph. Most programs make one.
///
/// # Examples
/// ```
/// use tacto::Context;
///
/// let ctx = Context::new();
/// let node = ctx.node("driver").unwrap();
/// assert_eq!(node.name(), "driver");
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    topics: Mutex<HashMap<String, TopicEntry>>,
    clock: Clock,
    delivery: LocalDelivery,
}

/// Configures a [`Context`]; from [`Context::builder`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct ContextBuilder {
    delivery: LocalDelivery,
}

impl ContextBuilder {
    /// How samples travel between this context's own nodes (see [`LocalDelivery`]).
    pub fn local_delivery(mut self, delivery: LocalDelivery) -> Self {
        self.delivery = delivery;
        self
    }

    /// Creates the context.
    pub fn create(self) -> Context {
        Context {
            inner: Arc::new(ContextInner {
                topics: Mutex::default(),
                clock: Clock::default(),
                delivery: self.delivery,
            }),
        }
    }
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

struct TopicEntry {
    type_name: &'static str,
    type_id: TypeId,
    topic: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let topics = self
            .inner
            .topics
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Context")
            .field("topics", &topics.keys().collect::<Vec<_>>())
            .field("sim_time", &self.inner.clock.is_sim_time())
            .finish()
    }
}

/// Why a topic could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopicError {
    /// The name breaks the ROS 2 naming rules.
    #[error("invalid topic name {name:?}: {reason}")]
    InvalidName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// The topic already carries another message type.
    #[error("topic {topic} carries {existing}, not {requested}")]
    TypeMismatch {
        /// The resolved topic name.
        topic: String,
        /// The type already on the topic.
        existing: &'static str,
        /// The type asked for.
        requested: &'static str,
    },
}

impl Context {
    /// A new, empty graph whose ROS time follows the system clock, with the default
    /// [`LocalDelivery`].
    pub fn new() -> Self {
        Self::builder().create()
    }

    /// Starts configuring a context.
    pub fn builder() -> ContextBuilder {
        ContextBuilder {
            delivery: LocalDelivery::from_env(),
        }
    }

    /// Creates a node named `name` (letters, digits and underscores, not starting with a digit).
    pub fn node(&self, name: &str) -> Result<Node, NodeCreateError> {
        Node::new(self.clone(), name)
    }

    /// The context's clocks.
    pub fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// Makes ROS time follow the `rosgraph_msgs/msg/Clock` messages published on `/clock`, as
    /// ROS 2's `use_sim_time` does. ROS time reads zero until the first message.
    ///
    /// # Examples
    /// ```
    /// use tacto::msg::{builtin_interfaces, rosgraph_msgs};
    /// use tacto::{ClockKind, Context, Time};
    ///
    /// let ctx = Context::new();
    /// ctx.use_sim_time().unwrap();
    /// let mut sim = ctx.node("simulator").unwrap();
    /// let clock = sim.publisher::<rosgraph_msgs::Clock>("/clock").create().unwrap();
    /// clock.publish(rosgraph_msgs::Clock { clock: builtin_interfaces::Time { sec: 42, nanosec: 0 } });
    /// assert_eq!(ctx.clock().now(ClockKind::Ros), Time::from_nanos(42_000_000_000));
    /// ```
    pub fn use_sim_time(&self) -> Result<(), TopicError> {
        if self.inner.clock.is_sim_time() {
            return Ok(());
        }
        let topic = self.topic::<rosgraph_msgs::Clock>("/clock")?;
        self.inner
            .clock
            .follow(Subscription::new(topic, History::KeepLast(1)));
        Ok(())
    }

    /// Opens the intra-process topic `name` for messages of type `T`.
    pub(crate) fn topic<T: Message>(&self, name: &str) -> Result<Arc<Topic<T>>, TopicError> {
        let name = resolve_topic_name(name)?;
        let mut topics = self
            .inner
            .topics
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let entry = topics.entry(name.clone()).or_insert_with(|| TopicEntry {
            type_name: T::TYPE_NAME,
            type_id: TypeId::of::<T>(),
            topic: Arc::new(Topic::<T>::new(&name, self.inner.delivery)),
        });
        let mismatch = || TopicError::TypeMismatch {
            topic: name.clone(),
            existing: entry.type_name,
            requested: T::TYPE_NAME,
        };
        if entry.type_id != TypeId::of::<T>() {
            return Err(mismatch());
        }
        entry
            .topic
            .clone()
            .downcast::<Topic<T>>()
            .map_err(|_| mismatch())
    }
}

/// Checks a topic name against the ROS 2 rules and makes it absolute (`chat` → `/chat`).
///
/// Private names (`~`) and substitutions (`{node}`) are not supported yet and are refused.
pub(crate) fn resolve_topic_name(name: &str) -> Result<String, TopicError> {
    let invalid = |reason| TopicError::InvalidName {
        name: name.to_owned(),
        reason,
    };
    let relative = name.strip_prefix('/').unwrap_or(name);
    if relative.is_empty() {
        return Err(invalid("it is empty"));
    }
    for token in relative.split('/') {
        if token.is_empty() {
            return Err(invalid("it has an empty token ('//' or a trailing '/')"));
        }
        if token.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(invalid("a token starts with a digit"));
        }
        if !token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(invalid("only letters, digits, '_' and '/' are allowed"));
        }
    }
    Ok(format!("/{relative}"))
}
