//! The context: one process's graph of topics, and its clocks.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use crate::args::{ArgsError, RosArgs};
use crate::clock::Clock;
use crate::exchange::Exchanges;
use crate::executor::report::Reporter;
use crate::executor::stats::Board;
use crate::history::History;
use crate::logging;
use crate::message::Message;
use crate::msg::rosgraph_msgs;
use crate::msg::tacto_msgs::{EXECUTOR_STATS_TOPIC, ExecutorStats};
use crate::node::{Node, NodeBuilder, NodeCreateError};
use crate::node_services::Desk;
use crate::params::{ParameterOverrides, YamlError};
use crate::publisher::Publisher;
use crate::qos::Qos;
use crate::subscription::Subscription;
use crate::transport::intra::{LocalDelivery, Topic, TopicCore};
use crate::transport::{Combined, Transport};

/// A graph of nodes that can talk to each other, with its clocks.
///
/// Cheap to clone; clones share the graph. Most programs make one.
///
/// A topic exists while a publisher or a subscription holds it: when the last of them is
/// dropped, the topic goes, and its name may later be opened again, with any message type.
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

pub(crate) struct ContextInner {
    topics: Arc<Topics>,
    /// The fully qualified names of the context's nodes, each held weakly: a node's name is
    /// taken while its `Arc<str>` lives, in the node or in the executor the node was added to.
    node_names: Mutex<HashMap<String, Weak<str>>>,
    /// The process's ROS arguments (rcl's global arguments): every node's remapping rules
    /// and parameter overrides, unless it ignores them.
    args: RosArgs,
    /// The parameter values `args` gives, files read once.
    parameter_overrides: ParameterOverrides,
    clock: Clock,
    delivery: LocalDelivery,
    transport: Option<Arc<dyn Transport>>,
    /// The services of the context, by name.
    exchanges: Exchanges,
    /// Publishes the stats of the executors that run the context's nodes; started by the
    /// first executor, and only with a transport (`None` inside: it could not start).
    reporter: OnceLock<Option<Reporter>>,
    /// Answers the nodes' parameter (and logger) services; started with the first node, and
    /// only with a transport (`None` inside: it could not start).
    desk: OnceLock<Option<Desk>>,
    /// The values shared by the context's users (see [`Context::shared`]), one per type,
    /// each held weakly: its users own it.
    shared: Mutex<HashMap<TypeId, Weak<dyn Any + Send + Sync>>>,
}

/// Configures a [`Context`]; from [`Context::builder`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct ContextBuilder {
    delivery: LocalDelivery,
    transport: Option<Arc<dyn Transport>>,
    args: RosArgs,
    parameter_overrides: ParameterOverrides,
}

/// Why a context could not take its arguments.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContextError {
    /// A `--ros-args` argument is malformed or unknown.
    #[error(transparent)]
    Arguments(#[from] ArgsError),
    /// A `--params-file` file or a `-p` value does not read (file, line and column).
    #[error(transparent)]
    Parameters(#[from] YamlError),
    /// An `RCUTILS_*` logging variable has a value rcutils refuses, or a `--log-level` logger
    /// is one too many.
    #[error("{0}")]
    Logging(String),
}

impl ContextBuilder {
    /// How samples travel between this context's own nodes (see [`LocalDelivery`]).
    pub fn local_delivery(mut self, delivery: LocalDelivery) -> Self {
        self.delivery = delivery;
        self
    }

    /// Carries the context's topics out of the process too, e.g. over DDS with
    /// `tacto_dds::DdsTransport`. Without one, the context's nodes talk only to each other.
    ///
    /// With a transport, the context also publishes the figures of the executors that run its
    /// nodes on the [stats topic](crate::msg::tacto_msgs::ExecutorStats), once a second while
    /// someone subscribes (`tacto top` does), from a thread of its own.
    ///
    /// Called twice, the context links each topic through both (e.g. shared memory for the
    /// processes of this host, DDS for everyone else): a publisher writes to each transport
    /// that has a reader for it, a subscription reads from both in publication order. The
    /// transports must divide the peers between them so that no sample comes both ways
    /// (`tacto_dds::DdsTransport::beside_shm` does, beside `tacto_shm::ShmTransport`).
    /// Services go through one of them: the last given that carries services (give the
    /// network transport last: it reaches ROS 2 nodes and this host's processes alike). A
    /// third call adds a third.
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(match self.transport.take() {
            None => transport,
            Some(first) => Arc::new(Combined::new(first, transport)),
        });
        self
    }

    /// The process's ROS arguments (see [`Context::from_args`]): their remapping rules and
    /// parameter overrides apply to every node made in the context (unless a node ignores
    /// them, [`NodeBuilder::use_global_arguments`]). Unknown `--ros-args` flags are refused, as
    /// rclcpp refuses them, and parameter files are read here, once.
    ///
    /// The logging flags set the process's logging, as `rclcpp::init` does: `--log-level`
    /// levels, and `--disable-stdout-logs` / `--disable-rosout-logs` (see
    /// [`crate::logging`]).
    pub fn arguments(mut self, args: RosArgs) -> Result<Self, ContextError> {
        args.reject_unknown()?;
        self.parameter_overrides = ParameterOverrides::from_args(&args)?;
        configure_logging(&args)?;
        self.args = args;
        Ok(self)
    }

    /// Creates the context.
    pub fn create(self) -> Context {
        Context {
            inner: Arc::new(ContextInner {
                topics: Arc::default(),
                node_names: Mutex::default(),
                args: self.args,
                parameter_overrides: self.parameter_overrides,
                clock: Clock::default(),
                delivery: self.delivery,
                transport: self.transport,
                exchanges: Exchanges::default(),
                reporter: OnceLock::new(),
                desk: OnceLock::new(),
                shared: Mutex::default(),
            }),
        }
    }
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

/// Applies the logging flags of `args` to the process's logging.
fn configure_logging(args: &RosArgs) -> Result<(), ContextError> {
    let logging_error = |e: &dyn std::fmt::Display| ContextError::Logging(e.to_string());
    if !args.stdout_logs() || !args.rosout_logs() {
        let config = logging::Config::from_env().map_err(|e| logging_error(&e))?;
        let config = logging::Config {
            console: args.stdout_logs(),
            rosout: args.rosout_logs(),
            ..config
        };
        // The guard only flushes early; the process's exit flushes anyway.
        drop(logging::init(config));
    }
    if args.log_level() != logging::Severity::Unset {
        logging::set_default_level(args.log_level());
    }
    for logger in args.logger_levels() {
        logging::set_logger_level(&logger.name, logger.level).map_err(|e| logging_error(&e))?;
    }
    // The parser's warnings (a deprecated rule outside --ros-args), under rcl's logger.
    let rcl = logging::Logger::get("rcl");
    for warning in args.warnings() {
        crate::warn!(rcl, "{warning}");
    }
    Ok(())
}

/// The context's topics by resolved name.
///
/// Holds each topic weakly: its publishers and subscriptions own it, and the last of them to
/// go removes it from here (see [`TopicLease`]), so a program that keeps making and dropping
/// endpoints on new topics does not grow this table.
type Topics = Mutex<HashMap<String, TopicEntry>>;

struct TopicEntry {
    topic: Weak<TopicCore>,
}

/// A topic's place in its context's table, given back when the topic is dropped.
pub(crate) struct TopicLease {
    name: String,
    topics: Weak<Topics>,
}

impl fmt::Debug for TopicLease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TopicLease")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Drop for TopicLease {
    fn drop(&mut self) {
        let Some(topics) = self.topics.upgrade() else {
            return;
        };
        let mut topics = topics.lock().unwrap_or_else(PoisonError::into_inner);
        // The name may already belong to a new topic, opened after this one's last endpoint
        // went but before this drop took the lock: that one stays.
        if topics
            .get(&self.name)
            .is_some_and(|entry| entry.topic.strong_count() == 0)
        {
            topics.remove(&self.name);
        }
    }
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
    /// The name a node gave does not resolve to a valid topic or service name (rcl's rules
    /// and rmw's text; see [`Node::resolve_topic_name`]).
    #[error(transparent)]
    Name(#[from] crate::names::NameError),
    /// The name breaks the ROS 2 naming rules.
    #[error("invalid topic name {name:?}: {reason}")]
    InvalidName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// The resolved name is longer than ROS 2 allows (rmw's `RMW_TOPIC_MAX_NAME_LENGTH`: DDS
    /// limits names to 255 characters, 8 of which are kept for prefixes such as `rt/`).
    #[error("topic name {name:?} has {length} characters, more than ROS 2's {max}")]
    NameTooLong {
        /// The resolved name.
        name: String,
        /// Its length in characters.
        length: usize,
        /// The longest name allowed.
        max: usize,
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
    /// The context's transport could not link the topic out of the process.
    #[error("topic {topic}: the transport refused it: {error}")]
    Link {
        /// The resolved topic name.
        topic: String,
        /// What the transport said.
        error: crate::transport::LinkError,
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
            transport: None,
            args: RosArgs::default(),
            parameter_overrides: ParameterOverrides::default(),
        }
    }

    /// A context configured by the program's command line, as `rclcpp::init(argc, argv)`:
    /// the `--ros-args ... [--]` blocks (remapping, parameters, log levels; see
    /// `docs/names.md`) apply to every node made in it; the program's own arguments are
    /// [`arguments().program_args()`](crate::args::RosArgs::program_args).
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    ///
    /// // As `talker --ros-args -r __node:=speaker -r __ns:=/robot1 -r chatter:=out -p period:=0.2`.
    /// let argv = ["talker", "--ros-args", "-r", "__node:=speaker", "-r", "__ns:=/robot1",
    ///             "-r", "chatter:=out", "-p", "period:=0.2"];
    /// let ctx = Context::from_args(argv).unwrap();
    /// let mut node = ctx.node("talker").unwrap();
    /// assert_eq!(node.fully_qualified_name(), "/robot1/speaker");
    /// let chatter = node.publisher::<tacto::msg::std_msgs::String>("chatter").create().unwrap();
    /// assert_eq!(chatter.topic(), "/robot1/out");
    /// assert_eq!(node.parameters().declare("period", 1.0).unwrap(), 0.2);
    /// assert_eq!(ctx.arguments().program_args(), ["talker"]);
    /// ```
    pub fn from_args<I, S>(args: I) -> Result<Context, ContextError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(Self::builder().arguments(RosArgs::parse(args)?)?.create())
    }

    /// A handle that does not keep the context alive (see [`upgrade`](Self::upgrade)).
    pub(crate) fn downgrade(&self) -> Weak<ContextInner> {
        Arc::downgrade(&self.inner)
    }

    /// The context of a [`downgrade`](Self::downgrade)d handle, if it still exists.
    pub(crate) fn upgrade(weak: &Weak<ContextInner>) -> Option<Context> {
        weak.upgrade().map(|inner| Context { inner })
    }

    /// The context's ROS arguments (none unless given, see [`from_args`](Self::from_args)).
    pub fn arguments(&self) -> &RosArgs {
        &self.inner.args
    }

    /// The parameter values of the context's arguments.
    pub(crate) fn parameter_overrides(&self) -> &ParameterOverrides {
        &self.inner.parameter_overrides
    }

    /// Creates a node named `name` in the root namespace, renamed, moved, remapped and
    /// given parameter values by the context's [arguments](Self::from_args); see
    /// [`node_builder`](Self::node_builder) for a namespace and the other options. A name is
    /// letters, digits and underscores, not starting with a digit, at most 255 characters
    /// (rmw's rules, with its error texts).
    ///
    /// Node names (namespace and name) are unique in a context: ROS 2 only warns about a
    /// second node of the same name, and its tools then mix the two up. So while a node
    /// lives, in the program or in the executor it was added to, its name is refused
    /// ([`NodeCreateError::NameTaken`]); it is free again once the node is dropped, or once
    /// the executor that took it is.
    ///
    /// # Examples
    /// ```
    /// use tacto::{Context, NodeCreateError};
    ///
    /// let ctx = Context::new();
    /// let driver = ctx.node("driver").unwrap();
    /// assert!(matches!(ctx.node("driver"), Err(NodeCreateError::NameTaken(_))));
    /// drop(driver);
    /// assert!(ctx.node("driver").is_ok());
    /// ```
    pub fn node(&self, name: &str) -> Result<Node, NodeCreateError> {
        self.node_builder(name).create()
    }

    /// Starts building a node named `name` with options, as rclcpp's `NodeOptions`: a
    /// namespace, arguments of its own, parameter overrides.
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    ///
    /// let ctx = Context::new();
    /// let node = ctx
    ///     .node_builder("camera")
    ///     .namespace("/robot1")
    ///     .arguments(["--ros-args", "-r", "image:=raw", "-p", "fps:=30"])
    ///     .create()
    ///     .unwrap();
    /// assert_eq!(node.fully_qualified_name(), "/robot1/camera");
    /// assert_eq!(node.parameters().declare("fps", 10).unwrap(), 30);
    /// ```
    pub fn node_builder(&self, name: &str) -> NodeBuilder {
        NodeBuilder::new(self.clone(), name)
    }

    /// Reserves the node name `name` for as long as the returned `Arc` or a clone of it lives.
    pub(crate) fn claim_node_name(&self, name: &str) -> Result<Arc<str>, NodeCreateError> {
        let mut names = self
            .inner
            .node_names
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if names.get(name).is_some_and(|held| held.strong_count() > 0) {
            return Err(NodeCreateError::NameTaken(name.to_owned()));
        }
        // Names of nodes gone are dropped when the table would grow: it stays within twice
        // the most nodes alive at once, at O(1) per node, amortized.
        if names.len() == names.capacity() {
            names.retain(|_, held| held.strong_count() > 0);
        }
        let claimed: Arc<str> = Arc::from(name);
        names.insert(name.to_owned(), Arc::downgrade(&claimed));
        Ok(claimed)
    }

    /// Where the context's services and clients meet.
    pub(crate) fn exchanges(&self) -> &Exchanges {
        &self.inner.exchanges
    }

    pub(crate) fn delivery(&self) -> LocalDelivery {
        self.inner.delivery
    }

    /// Publishes `board`'s figures on the stats topic from now on, if the context has a
    /// transport (see [`crate::executor::report`]).
    pub(crate) fn report(&self, board: &Arc<Board>) {
        if !self.carries_graph_topics() {
            return;
        }
        let reporter = self.inner.reporter.get_or_init(|| {
            let started = self
                .graph_publisher::<ExecutorStats>(None, EXECUTOR_STATS_TOPIC, &Qos::default())
                .map_err(|e| e.to_string())
                .and_then(|publisher| Reporter::start(publisher).map_err(|e| e.to_string()));
            // Once per context: the program runs on, without its stats topic.
            started
                .inspect_err(|e| eprintln!("tacto: executor stats will not be published: {e}"))
                .ok()
        });
        if let Some(reporter) = reporter {
            reporter.add(board);
        }
    }

    /// Whether the context has a transport that ROS 2's tools reach (see
    /// [`Transport::carries_graph_topics`]): its nodes' parameter services, parameter events
    /// and log records go there.
    pub(crate) fn carries_graph_topics(&self) -> bool {
        (self.inner.transport.as_ref()).is_some_and(|transport| transport.carries_graph_topics())
    }

    /// A publisher of the context's own (not of a node's executables, so no executor
    /// redirects it): `node` names the node it is announced under on the graph.
    pub(crate) fn graph_publisher<T: Message>(
        &self,
        node: Option<&str>,
        topic: &str,
        qos: &Qos,
    ) -> Result<Publisher<T>, TopicError> {
        let topic = self.topic::<T>(topic)?;
        let link = topic.link_writer(node, qos)?;
        Ok(Publisher::new(topic, link, qos, None))
    }

    /// The desk that answers the nodes' services: started at the first call, if the context
    /// has a transport (none otherwise, or if its thread could not start, which is said once).
    pub(crate) fn desk(&self) -> Option<&Desk> {
        self.inner.transport.as_ref()?;
        let desk = self.inner.desk.get_or_init(|| {
            Desk::start()
                .inspect_err(|e| {
                    eprintln!("tacto: nodes' parameter services will not be served: {e}")
                })
                .ok()
        });
        desk.as_ref()
    }

    /// True if `other` is a handle of the same context.
    pub(crate) fn same(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The context's transport out of the process, if any.
    pub(crate) fn transport(&self) -> Option<&Arc<dyn Transport>> {
        self.inner.transport.as_ref()
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
        let qos = Qos::default().history(History::KeepLast(1));
        let source = Subscription::new(None, topic, &qos)?;
        (self.inner.clock.follow(source)).map_err(|error| TopicError::Link {
            topic: "/clock".to_owned(),
            error,
        })
    }

    /// The context's one value of type `T` while someone holds it, or, if none lives, the one
    /// `make` returns, which becomes it: for a facility that every node of a process shares,
    /// such as a library's cache of a topic (rclcpp keeps one `tf2_ros` listener per node;
    /// a context shares one). The context holds the value weakly, so that a value that
    /// holds a node of the context does not keep the context alive; it goes with the last
    /// `Arc` of its users. `make` runs under the table's lock: it must not call `shared`.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use tacto::Context;
    ///
    /// struct Cache(u32);
    /// let ctx = Context::new();
    /// let first = ctx.shared(|| Ok::<_, ()>(Arc::new(Cache(1)))).unwrap();
    /// let again = ctx.shared(|| Ok::<_, ()>(Arc::new(Cache(2)))).unwrap();
    /// assert!(Arc::ptr_eq(&first, &again) && again.0 == 1);
    /// drop((first, again));
    /// assert_eq!(ctx.shared(|| Ok::<_, ()>(Arc::new(Cache(3)))).unwrap().0, 3);
    /// ```
    pub fn shared<T: Any + Send + Sync, E>(
        &self,
        make: impl FnOnce() -> Result<Arc<T>, E>,
    ) -> Result<Arc<T>, E> {
        let mut table = (self.inner.shared)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let live = table.get(&TypeId::of::<T>()).and_then(Weak::upgrade);
        if let Some(value) = live.and_then(|value| value.downcast::<T>().ok()) {
            return Ok(value);
        }
        let value = make()?;
        let any: Arc<dyn Any + Send + Sync> = value.clone();
        table.insert(TypeId::of::<T>(), Arc::downgrade(&any));
        Ok(value)
    }

    /// Opens the intra-process topic `name` for messages of type `T`: the one in use, or a new
    /// one if no publisher or subscription holds that name now.
    pub(crate) fn topic<T: Message>(&self, name: &str) -> Result<Arc<Topic<T>>, TopicError> {
        let name = resolve_topic_name(name)?;
        let core = {
            let mut topics = self
                .inner
                .topics
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match topics.get(&name).and_then(|entry| entry.topic.upgrade()) {
                Some(core) => core,
                None => {
                    let lease = TopicLease {
                        name: name.clone(),
                        topics: Arc::downgrade(&self.inner.topics),
                    };
                    let transport = self.inner.transport.clone();
                    let core =
                        TopicCore::new(&name, T::TYPE_NAME, self.inner.delivery, transport, lease);
                    let core = Arc::new(core);
                    let topic = Arc::downgrade(&core);
                    topics.insert(name.clone(), TopicEntry { topic });
                    core
                }
            }
            // The lock goes before `core` may: the last reference to a topic takes it.
        };
        if core.ros_type() != T::TYPE_NAME {
            return Err(TopicError::TypeMismatch {
                topic: name,
                existing: core.ros_type(),
                requested: T::TYPE_NAME,
            });
        }
        Ok(core.typed::<T>())
    }
}

/// rmw's `RMW_TOPIC_MAX_NAME_LENGTH`, for a resolved name (leading `/` included).
const MAX_TOPIC_NAME_LENGTH: usize = 255 - 8;

/// Checks a topic name against the ROS 2 rules and makes it absolute (`chat` → `/chat`), as
/// every topic of a [`Context`] is named; transports derive their wire names from it.
///
/// Private names (`~`) and substitutions (`{node}`) are not supported yet and are refused.
///
/// # Examples
/// ```
/// use tacto::{TopicError, resolve_topic_name};
///
/// assert_eq!(resolve_topic_name("robot1/odom")?, "/robot1/odom");
/// assert!(matches!(resolve_topic_name("a//b"), Err(TopicError::InvalidName { .. })));
/// # Ok::<(), TopicError>(())
/// ```
pub fn resolve_topic_name(name: &str) -> Result<String, TopicError> {
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
    // Measured without building the string: the name may be anything a caller passed.
    let length = relative.len() + 1;
    if length > MAX_TOPIC_NAME_LENGTH {
        return Err(TopicError::NameTooLong {
            name: format!("/{relative}"),
            length,
            max: MAX_TOPIC_NAME_LENGTH,
        });
    }
    Ok(format!("/{relative}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::std_msgs::String as Text;

    fn topic_count(ctx: &Context) -> usize {
        ctx.inner.topics.lock().unwrap().len()
    }

    #[test]
    fn a_topic_leaves_the_table_with_its_last_endpoint() {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let sub = node.subscription::<Text>("a").create().unwrap();
        let publisher = node.publisher::<Text>("a").create().unwrap();
        let other = node.publisher::<Text>("b").create().unwrap();
        assert_eq!(topic_count(&ctx), 2);

        drop(sub);
        assert_eq!(topic_count(&ctx), 2, "a publisher still holds /a");
        drop(publisher);
        assert_eq!(topic_count(&ctx), 1);
        drop(other);
        assert_eq!(topic_count(&ctx), 0);
    }

    #[test]
    fn the_names_of_dropped_nodes_leave_the_table() {
        let ctx = Context::new();
        for i in 0..1000 {
            drop(ctx.node(&format!("node_{i}")).unwrap());
        }
        let names = ctx.inner.node_names.lock().unwrap().len();
        assert!(names < 100, "{names} names held for 1000 dropped nodes");
    }
}
