//! Nodes: named units that own publishers, subscriptions and the code an executor runs.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::args::{ArgsError, RosArgs};
use crate::callback_group::{CallbackGroup, CallbackGroupKind};
use crate::client::ClientBuilder;
use crate::clock::{ClockKind, NodeClock, Time};
use crate::condition::GuardCondition;
use crate::context::{Context, TopicError};
use crate::history::History;
use crate::lifecycle::{self, Callbacks, Gate, GateSlot, Lifecycle, ManageError};
use crate::logging::{self, Logger, ROSOUT_TOPIC, rosout_qos};
use crate::message::Message;
use crate::msg::rcl_interfaces::msg::{self, Log};
use crate::names::{NameError, NodeIdentity, RemapRule};
use crate::node_services::NodeServices;
use crate::params::{
    Parameter, ParameterError, ParameterOverrides, ParameterStore, ParameterWatch,
    SetParametersResult, YamlError, resolve_overrides,
};
use crate::publisher::{Output, Publisher};
use crate::qos::Qos;
use crate::sample::Sample;
use crate::service::{ServiceBuilder, ServiceCreateError, ServiceType};
use crate::subscription::{Input, Subscription};
use crate::trigger::{Activation, Trigger, TriggerError};

/// A named unit of a robot's software: it creates publishers and subscriptions, declares the
/// code to run and what triggers it, and is then handed to an executor.
///
/// Two styles mix freely, so a ROS 2 node can migrate piece by piece:
/// - **polling**: [`execute`](Self::execute) registers code with a [`Trigger`]; inside, the code
///   takes what it needs from its [`Subscription`]s;
/// - **classic**: [`SubscriptionBuilder::callback`] runs a callback per message, and
///   [`timer`](Self::timer) (ROS time) or [`wall_timer`](Self::wall_timer) (steady) one per
///   period.
///
/// On a [`ThreadPoolExecutor`](crate::ThreadPoolExecutor), a node's code runs one executable
/// at a time unless put into other [callback groups](crate::callback_group).
///
/// A node's name is its own in its context for as long as the node lives, in the program or
/// in the executor it was added to (see [`Context::node`]).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("shouter").unwrap();
/// let input = node.subscription::<Text>("in").history(History::KeepLast(10)).create().unwrap();
/// let output = node.publisher::<Text>("out").create().unwrap();
/// node.execute(Trigger::on(&input), move |_| {
///     for s in input.take_all() {
///         output.publish(Text { data: s.data.to_uppercase() });
///     }
/// })
/// .unwrap();
///
/// let mut probe = ctx.node("probe").unwrap();
/// let heard = probe.subscription::<Text>("out").create().unwrap();
/// let say = probe.publisher::<Text>("in").create().unwrap();
///
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(node).unwrap();
/// say.publish(Text { data: "hi".into() });
/// executor.spin_for(Duration::from_millis(50)).unwrap();
/// assert_eq!(heard.take().unwrap().data, "HI");
/// ```
pub struct Node {
    /// The fully qualified name, claimed in the context: it stays taken while this `Arc` or a
    /// clone lives, so an executor that takes the node keeps a clone (see [`Context::node`]).
    pub(crate) name: Arc<str>,
    identity: NodeIdentity,
    /// The node's own remapping rules (from its arguments), applied before the context's.
    rules: Vec<RemapRule>,
    /// Whether the context's arguments apply to this node.
    global_arguments: bool,
    parameters: Arc<ParameterStore>,
    logger: Logger,
    context: Context,
    /// Process-unique, so that a node can recognise its own callback groups.
    id: u64,
    /// Callback groups made so far, the default group included.
    groups: usize,
    pub(crate) executables: Vec<Executable>,
    /// The subscriptions and publishers the node created, for LET executors to freeze inputs
    /// and hold back outputs. Held weakly, so that dropping one frees it (and its history) at
    /// once; see [`remember`] for when the dead entries go.
    pub(crate) inputs: Vec<Weak<dyn Input>>,
    pub(crate) outputs: Vec<Weak<dyn Output>>,
    /// The request queues of the node's services and the response queues of its clients,
    /// which its triggers may name too. Apart from `inputs`: a LET executor cannot freeze them
    /// and refuses them.
    pub(crate) calls: Vec<Weak<dyn Input>>,
    /// Set once the node is managed ([`Node::manage`]): its executables and publishers, made
    /// before or after, hold this slot and obey the gate in it.
    lifecycle: GateSlot,
}

/// Code registered with a trigger.
pub(crate) struct Executable {
    pub(crate) trigger: Trigger,
    pub(crate) group: CallbackGroup,
    pub(crate) run: Box<dyn FnMut(&Activation) + Send>,
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.name)
            .field("namespace", &self.identity.namespace())
            .field("executables", &self.executables.len())
            .field("inputs", &live(&self.inputs))
            .field("outputs", &live(&self.outputs))
            .finish()
    }
}

/// Why a node could not be created.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NodeCreateError {
    /// The name or namespace breaks ROS 2's rules (rmw's text), given or after remapping.
    #[error(transparent)]
    Name(#[from] NameError),
    /// A node of this name and namespace already exists in the context: in the program, or in
    /// an executor it was added to (see [`Context::node`]).
    #[error("a node named {0:?} already exists in this context")]
    NameTaken(String),
    /// The node's own arguments are malformed or unknown.
    #[error(transparent)]
    Arguments(#[from] ArgsError),
    /// A parameter file or `-p` value of the node's own arguments does not read.
    #[error(transparent)]
    ParameterFile(#[from] YamlError),
    /// An override has no value, or one the parameters refuse (rclcpp's text).
    #[error(transparent)]
    Parameters(#[from] ParameterError),
    /// The node's `/parameter_events` or `/rosout` publisher could not be made.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// The node's parameter services could not be made.
    #[error(transparent)]
    Services(#[from] ServiceCreateError),
}

/// Why a subscription could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubscriptionCreateError {
    /// The topic's name or type was refused.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// A history that holds nothing could never deliver a sample.
    #[error("history capacity must be at least 1")]
    ZeroCapacity,
    /// The callback group was made by another node; a group belongs to one node, as in ROS 2.
    #[error("the callback group belongs to another node")]
    ForeignCallbackGroup,
}

/// Why code could not be registered in a callback group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ExecuteInError {
    /// The trigger was refused.
    #[error(transparent)]
    Trigger(#[from] TriggerError),
    /// The callback group was made by another node; a group belongs to one node, as in ROS 2.
    #[error("the callback group belongs to another node")]
    ForeignCallbackGroup,
}

/// Builds a [`Node`] with options, as rclcpp's `NodeOptions`; from [`Context::node_builder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct NodeBuilder {
    context: Context,
    name: String,
    namespace: String,
    arguments: Option<Vec<String>>,
    global_arguments: bool,
    overrides: Vec<Parameter>,
    allow_undeclared: bool,
    declare_from_overrides: bool,
    parameter_services: bool,
    parameter_events: bool,
    logger_service: bool,
    rosout: bool,
}

impl NodeBuilder {
    pub(crate) fn new(context: Context, name: &str) -> Self {
        NodeBuilder {
            context,
            name: name.to_owned(),
            namespace: "/".to_owned(),
            arguments: None,
            global_arguments: true,
            overrides: Vec::new(),
            allow_undeclared: false,
            declare_from_overrides: false,
            parameter_services: true,
            parameter_events: true,
            logger_service: false,
            rosout: true,
        }
    }

    /// Whether the node serves its parameter services on the graph (default true), as
    /// `NodeOptions::start_parameter_services`. They are served only with a transport, and
    /// on the context's service thread, never in an executor.
    pub fn start_parameter_services(mut self, yes: bool) -> Self {
        self.parameter_services = yes;
        self
    }

    /// Whether parameter changes are published on `/parameter_events`, as
    /// `NodeOptions::start_parameter_event_publisher` (default true, as rclcpp's). Published
    /// only with a transport that carries graph topics (DDS).
    pub fn start_parameter_event_publisher(mut self, yes: bool) -> Self {
        self.parameter_events = yes;
        self
    }

    /// Whether the node serves `get_logger_levels` and `set_logger_levels` (default false),
    /// as `NodeOptions::enable_logger_service` in Jazzy.
    pub fn enable_logger_service(mut self, yes: bool) -> Self {
        self.logger_service = yes;
        self
    }

    /// Whether the node's log records are published on `/rosout` (default true, unless the
    /// process's `--disable-rosout-logs`), as `NodeOptions::enable_rosout`; only with a
    /// transport, where ROS 2's tools can read them.
    pub fn enable_rosout(mut self, yes: bool) -> Self {
        self.rosout = yes;
        self
    }

    /// The node's namespace (`/robot1`; relative ones are made absolute); default `/`.
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = namespace.to_owned();
        self
    }

    /// The node's own ROS arguments (`["--ros-args", "-r", "image:=raw"]`), as
    /// `NodeOptions::arguments`: its rules and parameters come before the context's.
    pub fn arguments<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.arguments = Some(args.into_iter().map(Into::into).collect());
        self
    }

    /// Whether the context's arguments apply to this node (default true), as
    /// `NodeOptions::use_global_arguments`.
    pub fn use_global_arguments(mut self, yes: bool) -> Self {
        self.global_arguments = yes;
        self
    }

    /// Sets a parameter's initial value, over any from arguments, as
    /// `NodeOptions::parameter_overrides`.
    pub fn parameter_override(mut self, parameter: Parameter) -> Self {
        self.overrides.push(parameter);
        self
    }

    /// Allows setting parameters that were never declared (default false), as
    /// `NodeOptions::allow_undeclared_parameters`.
    pub fn allow_undeclared_parameters(mut self, yes: bool) -> Self {
        self.allow_undeclared = yes;
        self
    }

    /// Declares every parameter that has an override when the node is created (default
    /// false), as `NodeOptions::automatically_declare_parameters_from_overrides`.
    pub fn automatically_declare_parameters_from_overrides(mut self, yes: bool) -> Self {
        self.declare_from_overrides = yes;
        self
    }

    /// Creates the node: named and placed as rcl does (its own `__node`/`__ns` rules before
    /// the context's), its parameters given their overrides (the context's, then its own,
    /// then [`parameter_override`](Self::parameter_override)s), `use_sim_time` declared as
    /// rclcpp declares it on every node.
    pub fn create(self) -> Result<Node, NodeCreateError> {
        let local = match &self.arguments {
            Some(args) => {
                let args = RosArgs::parse(args)?;
                args.reject_unknown()?;
                Some(args)
            }
            None => None,
        };
        let rules = local
            .as_ref()
            .map_or(Vec::new(), |a| a.remap_rules().to_vec());
        let context_args = self.context.arguments();
        let global: &[RemapRule] = match self.global_arguments {
            true => context_args.remap_rules(),
            false => &[],
        };
        let identity = NodeIdentity::with_remapping(&self.name, &self.namespace, &rules, global)?;
        let fqn = identity.fully_qualified_name();
        let local_overrides = match &local {
            Some(args) => ParameterOverrides::from_args(args)?,
            None => ParameterOverrides::default(),
        };
        let mut sources = Vec::new();
        if self.global_arguments {
            sources.push(self.context.parameter_overrides());
        }
        sources.push(&local_overrides);
        let overrides = resolve_overrides(&fqn, &sources, &self.overrides)?;
        let name = self.context.claim_node_name(&fqn)?;
        let mut parameters = ParameterStore::builder(fqn.clone())
            .overrides(overrides)
            .allow_undeclared_parameters(self.allow_undeclared)
            .automatically_declare_parameters_from_overrides(self.declare_from_overrides);
        let on_graph = self.context.carries_graph_topics();
        if self.parameter_events && on_graph {
            let events = self.context.graph_publisher::<msg::ParameterEvent>(
                Some(&fqn),
                PARAMETER_EVENTS_TOPIC,
                &Qos::parameters(),
            )?;
            let clock = self.context.clock().clone();
            parameters = parameters
                .on_event(move |event| events.publish(event.to_message(clock.now(ClockKind::Ros))));
        }
        let parameters = parameters.build()?;
        follow_use_sim_time(&parameters, &self.context)?;
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let node = Node {
            name,
            logger: Logger::for_node(identity.namespace(), identity.name()),
            identity,
            rules,
            global_arguments: self.global_arguments,
            parameters: Arc::new(parameters),
            context: self.context,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            groups: 1,
            executables: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            calls: Vec::new(),
            lifecycle: GateSlot::default(),
        };
        if let Some(desk) = on_graph.then(|| node.context.desk()).flatten() {
            let services = match self.parameter_services {
                true => Some(NodeServices::create(&node, self.logger_service)?),
                false => None,
            };
            let rosout = match self.rosout && logging::rosout_enabled() {
                true => {
                    let fqn = Some(node.fully_qualified_name());
                    let publisher =
                        (node.context).graph_publisher::<Log>(fqn, ROSOUT_TOPIC, &rosout_qos())?;
                    Some(logging::attach_rosout(node.logger.name(), publisher))
                }
                false => None,
            };
            desk.add(&node.name, services, rosout)?;
        }
        Ok(node)
    }
}

/// Declares `use_sim_time` as rclcpp's `TimeSource` does on every node, and makes the
/// context's ROS clock follow `/clock` when it is true (from an override, or set later).
///
/// The ROS clock is the context's, shared by its nodes (rclcpp has one per node): it follows
/// `/clock` from the first node that sets `use_sim_time`, and a set back to false is refused
/// with the reason, since the other nodes' time would jump back to the system's.
fn follow_use_sim_time(
    parameters: &ParameterStore,
    context: &Context,
) -> Result<(), NodeCreateError> {
    if parameters.declare("use_sim_time", false)? {
        context.use_sim_time()?;
    }
    let clock = context.clock().clone();
    let refuse_going_back = parameters.add_on_set_parameters_callback(move |set| {
        let back = set
            .iter()
            .any(|p| p.name == "use_sim_time" && p.value == false.into());
        match back && clock.is_sim_time() {
            true => SetParametersResult::refused(
                "use_sim_time cannot go back to false: this process's ROS clock follows /clock \
                 for all its nodes once one of them uses sim time",
            ),
            false => SetParametersResult::ok(),
        }
    })?;
    parameters.keep(refuse_going_back);
    // Held weakly: the context's service thread holds the parameters.
    let weak = context.downgrade();
    let follow = parameters.add_post_set_parameters_callback(move |set| {
        let on = set
            .iter()
            .any(|p| p.name == "use_sim_time" && p.value == true.into());
        if let (true, Some(context)) = (on, Context::upgrade(&weak))
            && let Err(error) = context.use_sim_time()
        {
            crate::error!(logging::Logger::get("rcl"), "cannot follow /clock: {error}");
        }
    })?;
    parameters.keep(follow);
    Ok(())
}

/// Where parameter changes are published, as rclcpp's `ParameterEventHandler` reads them.
pub(crate) const PARAMETER_EVENTS_TOPIC: &str = "/parameter_events";

impl Node {
    /// The node's logger, named after it (`robot1.camera` for `/robot1/camera`), as
    /// `rclcpp::Node::get_logger`; clone it into code that runs in an executor.
    ///
    /// # Examples
    /// ```
    /// let ctx = tacto::Context::new();
    /// let node = ctx.node_builder("camera").namespace("/robot1").create().unwrap();
    /// assert_eq!(node.logger().name(), "robot1.camera");
    /// tacto::info!(node.logger(), "ready at {} fps", 30);
    /// ```
    pub fn logger(&self) -> &Logger {
        &self.logger
    }

    /// The node's name, after remapping (`rclcpp::Node::get_name`).
    pub fn name(&self) -> &str {
        self.identity.name()
    }

    /// The node's namespace, absolute (`rclcpp::Node::get_namespace`).
    pub fn namespace(&self) -> &str {
        self.identity.namespace()
    }

    /// The namespace and the name, `/robot1/camera` (`get_fully_qualified_name`): the node's
    /// name on the ROS graph.
    pub fn fully_qualified_name(&self) -> &str {
        &self.name
    }

    /// The node's parameters (see [`crate::params`]): declare, get, set, and take typed
    /// [handles](ParameterStore::handle) for code that runs in an executor. Shared: code
    /// that runs in an executor keeps a clone.
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    ///
    /// let ctx = Context::new();
    /// let node = ctx.node("controller").unwrap();
    /// node.parameters().declare("gain", 0.5).unwrap();
    /// let mut gain = node.parameters().handle::<f64>("gain").unwrap();
    /// assert_eq!(*gain.get(), 0.5);
    /// node.parameters().set_parameter(tacto::params::Parameter::new("gain", 0.7));
    /// assert_eq!(*gain.get(), 0.7); // seen at the next read, at the cost of an atomic load
    /// ```
    pub fn parameters(&self) -> &Arc<ParameterStore> {
        &self.parameters
    }

    /// A watch of changes to the parameters `names` (all of them if empty) that this node's
    /// triggers may name ([`Trigger::on_parameters`]): code that must react to a new value
    /// runs in its own executor when one is set, not in a callback of the setter's thread.
    pub fn watch_parameters(&mut self, names: &[&str]) -> ParameterWatch {
        let watch = match names.is_empty() {
            true => self.parameters.watch(),
            false => self.parameters.watch_names(names),
        };
        remember(&mut self.inputs, Arc::downgrade(&watch.input()));
        watch
    }

    /// A [`GuardCondition`] for this node's triggers to name: code on any thread raises it
    /// to run the executable whose trigger names it, as rclcpp's guard conditions.
    pub fn guard_condition(&mut self) -> GuardCondition {
        let condition = GuardCondition::new();
        remember(&mut self.inputs, Arc::downgrade(&condition.input()));
        condition
    }

    /// The fully qualified name of topic `name` for this node: expanded (`~`, `{node}`,
    /// relative names under the namespace) and remapped, as `rcl_node_resolve_name`.
    pub fn resolve_topic_name(&self, name: &str) -> Result<String, TopicError> {
        (self
            .identity
            .resolve_topic_name(name, &self.rules, self.global_rules()))
        .map_err(TopicError::Name)
    }

    /// The fully qualified name of service `name` for this node, as
    /// [`resolve_topic_name`](Self::resolve_topic_name) with the rules for services.
    pub fn resolve_service_name(&self, name: &str) -> Result<String, TopicError> {
        (self
            .identity
            .resolve_service_name(name, &self.rules, self.global_rules()))
        .map_err(TopicError::Name)
    }

    fn global_rules(&self) -> &[RemapRule] {
        match self.global_arguments {
            true => self.context.arguments().remap_rules(),
            false => &[],
        }
    }

    /// The context the node belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The ROS time now on the node's context clock, as rclcpp's `node->now()`: system time,
    /// or the simulated time of `/clock` once the context [uses sim
    /// time](Context::use_sim_time).
    ///
    /// A node is moved into its executor, so code that runs there reads the same time through
    /// the node's [`clock`](Self::clock), moved into it.
    ///
    /// # Examples
    /// ```
    /// use tacto::msg::{builtin_interfaces, rosgraph_msgs, std_msgs};
    /// use tacto::{Context, Time};
    ///
    /// let ctx = Context::new();
    /// ctx.use_sim_time().unwrap();
    /// let mut node = ctx.node("stamper").unwrap();
    /// let clock = node.publisher::<rosgraph_msgs::Clock>("/clock").create().unwrap();
    /// clock.publish(rosgraph_msgs::Clock { clock: builtin_interfaces::Time { sec: 42, nanosec: 0 } });
    ///
    /// let header = std_msgs::Header { stamp: node.now().into(), frame_id: "map".into() };
    /// assert_eq!(Time::from(header.stamp), Time::from_nanos(42_000_000_000));
    /// ```
    pub fn now(&self) -> Time {
        self.context.clock().now(ClockKind::Ros)
    }

    /// The node's ROS clock, as rclcpp's `node->get_clock()`: a handle that code moved into an
    /// executor reads the node's ROS time with ([`NodeClock::now`]).
    pub fn clock(&self) -> NodeClock {
        NodeClock::new(self.context.clock().clone())
    }

    /// Starts building a publisher on `topic`.
    pub fn publisher<T: Message>(&mut self, topic: &str) -> PublisherBuilder<'_, T> {
        PublisherBuilder {
            node: self,
            topic: topic.to_owned(),
            qos: Qos::default(),
            _type: PhantomData,
        }
    }

    /// Starts building a subscription to `topic` (default QoS: rclcpp's, history
    /// `KeepLast(10)`).
    pub fn subscription<T: Message>(&mut self, topic: &str) -> SubscriptionBuilder<'_, T> {
        SubscriptionBuilder {
            node: self,
            topic: topic.to_owned(),
            qos: Qos::default(),
            _type: PhantomData,
        }
    }

    /// Starts building the service `name` of type `S` (default queue: `KeepLast(10)`); see
    /// [`Service`](crate::Service).
    pub fn service<S: ServiceType>(&mut self, name: &str) -> ServiceBuilder<'_, S> {
        ServiceBuilder::new(self, name)
    }

    /// Starts building a client of the service `name` of type `S` (default queue:
    /// `KeepLast(10)`); see [`Client`](crate::Client).
    pub fn client<S: ServiceType>(&mut self, name: &str) -> ClientBuilder<'_, S> {
        ClientBuilder::new(self, name)
    }

    /// Registers `run` to be called whenever `trigger` fires, in the node's default callback
    /// group (mutually exclusive).
    ///
    /// The subscriptions a trigger names must be this node's own
    /// ([`TriggerError::ForeignSubscription`] otherwise): the executor that takes the node
    /// attaches them, a LET executor freezes them with the node's other inputs, and in ROS 2
    /// too a subscription's callback belongs to its node. Its code may still read any
    /// subscription it holds.
    pub fn execute(
        &mut self,
        trigger: Trigger,
        run: impl FnMut(&Activation) + Send + 'static,
    ) -> Result<(), TriggerError> {
        let group = self.default_group();
        self.push_executable(trigger, group, Box::new(run))
    }

    /// Makes a new callback group of this node (see [`crate::callback_group`]).
    pub fn callback_group(&mut self, kind: CallbackGroupKind) -> CallbackGroup {
        self.groups += 1;
        CallbackGroup::new(self.id, self.groups - 1, kind)
    }

    /// Registers `run` to be called whenever `trigger` fires, in `group`.
    pub fn execute_in(
        &mut self,
        group: &CallbackGroup,
        trigger: Trigger,
        run: impl FnMut(&Activation) + Send + 'static,
    ) -> Result<(), ExecuteInError> {
        if group.node != self.id {
            return Err(ExecuteInError::ForeignCallbackGroup);
        }
        Ok(self.push_executable(trigger, *group, Box::new(run))?)
    }

    /// Registers code, gated by the node's lifecycle if it is or becomes managed: it runs only
    /// while the node is active. A [readable](Trigger::readable) trigger is not gated: its fd
    /// must be drained in every state, or the executor would be woken without pause.
    fn push_executable(
        &mut self,
        trigger: Trigger,
        group: CallbackGroup,
        mut run: Box<dyn FnMut(&Activation) + Send>,
    ) -> Result<(), TriggerError> {
        trigger.validate()?;
        self.check_own(&trigger)?;
        if trigger.fd().is_none() {
            let gate = self.lifecycle.clone();
            run = Box::new(move |activation| {
                if Gate::runs(&gate) {
                    run(activation)
                }
            });
        }
        self.executables.push(Executable {
            trigger,
            group,
            run,
        });
        Ok(())
    }

    /// Registers code that runs in every lifecycle state: a managed node's own services.
    pub(crate) fn execute_ungated(
        &mut self,
        trigger: Trigger,
        run: impl FnMut(&Activation) + Send + 'static,
    ) -> Result<(), TriggerError> {
        trigger.validate()?;
        self.check_own(&trigger)?;
        self.executables.push(Executable {
            trigger,
            group: self.default_group(),
            run: Box::new(run),
        });
        Ok(())
    }

    /// Makes this node a managed (lifecycle) node, run by `callbacks`, as an rclcpp
    /// `LifecycleNode`: it starts unconfigured, and serves `~/change_state`, `~/get_state`,
    /// `~/get_available_states`, `~/get_available_transitions` and `~/get_transition_graph`
    /// and publishes `~/transition_event` as rclcpp_lifecycle does. A change of state runs
    /// the transition's callback on the executor that runs this node, between its other
    /// executables.
    ///
    /// From then on, whether made before or after this call:
    /// - its executables run only while the node is **active**; a per-message callback's
    ///   samples that arrive meanwhile are taken and dropped, counted in
    ///   [`Lifecycle::dropped_samples`] (a [readable](Trigger::readable) trigger and a
    ///   classic service's callback run in every state: an fd must be drained, and a client
    ///   waits for its answer);
    /// - its publishers send only while it is activating or active; a message published
    ///   otherwise is dropped, counted ([`Publisher::inactive_drops`]), with rclcpp's warning
    ///   logged once per spell.
    ///
    /// # Examples
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use tacto::Context;
    /// use tacto::lifecycle::{CallbackReturn, Callbacks, State};
    ///
    /// /// Opens its device on configure, closes it on cleanup.
    /// struct Lidar {
    ///     device: Arc<Mutex<Option<String>>>,
    /// }
    /// impl Callbacks for Lidar {
    ///     fn on_configure(&mut self, _previous: State) -> CallbackReturn {
    ///         *self.device.lock().unwrap() = Some("/dev/ttyUSB0".into());
    ///         CallbackReturn::Success
    ///     }
    ///     fn on_cleanup(&mut self, _previous: State) -> CallbackReturn {
    ///         *self.device.lock().unwrap() = None;
    ///         CallbackReturn::Success
    ///     }
    /// }
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("lidar").unwrap();
    /// let device = Arc::new(Mutex::new(None));
    /// let lifecycle = node.manage(Lidar { device: device.clone() }).unwrap();
    /// assert!(node.manage(Lidar { device }).is_err(), "managed once");
    /// assert_eq!(lifecycle.state(), State::UNCONFIGURED);
    /// ```
    pub fn manage(
        &mut self,
        callbacks: impl Callbacks + Send + 'static,
    ) -> Result<Lifecycle, ManageError> {
        let slot = self.lifecycle.clone();
        lifecycle::manage(self, &slot, Box::new(callbacks))
    }

    /// A publisher outside the lifecycle gate: a managed node's `transition_event`.
    pub(crate) fn ungated_publisher<T: Message>(
        &mut self,
        topic: &str,
    ) -> Result<Publisher<T>, TopicError> {
        let name = self.resolve_topic_name(topic)?;
        let topic = self.context.topic::<T>(&name)?;
        let qos = Qos::default();
        let link = topic.link_writer(Some(self.fully_qualified_name()), &qos)?;
        Ok(Publisher::new(topic, link, &qos, None))
    }

    /// Refuses a trigger that names a subscription this node did not create.
    fn check_own(&self, trigger: &Trigger) -> Result<(), TriggerError> {
        let own = |input: &Arc<dyn Input>| {
            // Newest first: code is usually registered right after its subscription.
            (self.inputs.iter().rev().chain(&self.calls))
                .any(|mine| std::ptr::addr_eq(mine.as_ptr(), Arc::as_ptr(input)))
        };
        match trigger.inputs.iter().all(own) {
            true => Ok(()),
            false => Err(TriggerError::ForeignSubscription),
        }
    }

    pub(crate) fn owns_group(&self, group: &CallbackGroup) -> bool {
        group.node == self.id
    }

    pub(crate) fn default_group(&self) -> CallbackGroup {
        CallbackGroup::new(self.id, 0, CallbackGroupKind::MutuallyExclusive)
    }

    /// Registers `run` to be called once per `period` of the node's ROS time, as rclcpp's
    /// `create_timer`: system time, or under `use_sim_time` the time of `/clock`, which it
    /// follows also when `use_sim_time` is set after the timer was made. Under sim time it
    /// runs only as `/clock` moves: never while `/clock` stands still, once for a jump of
    /// several periods ([`Activation::missed_periods`] counts them), and from one period after
    /// the new time when `/clock` jumps back (see [`crate::timer`]). [`Activation::time`] is the
    /// ROS time of the run.
    ///
    /// For a period of the control loop, which must not stop with `/clock` nor jump with the
    /// system clock, use [`wall_timer`](Self::wall_timer). A [`LetExecutor`](crate::LetExecutor)
    /// runs a timer only on its own clock: give it the ROS clock
    /// ([`LetBuilder::clock`](crate::executor::LetBuilder::clock)) to run this one.
    ///
    /// # Examples
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    /// use tacto::msg::{builtin_interfaces, rosgraph_msgs};
    /// use tacto::params::Parameter;
    /// use tacto::{Context, Executor, Time, WaitSetExecutor};
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx
    ///     .node_builder("stepper")
    ///     .parameter_override(Parameter::new("use_sim_time", true))
    ///     .create()
    ///     .unwrap();
    /// let (ran, runs) = mpsc::channel();
    /// node.timer(Duration::from_secs(1), move |activation| ran.send(activation.time()).unwrap())
    ///     .unwrap();
    /// let mut simulator = ctx.node("simulator").unwrap();
    /// let clock = simulator.publisher::<rosgraph_msgs::Clock>("/clock").create().unwrap();
    ///
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(node).unwrap();
    /// let at = |sec| rosgraph_msgs::Clock { clock: builtin_interfaces::Time { sec, nanosec: 0 } };
    /// clock.publish(at(1)); // one simulated second passed: one period
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert_eq!(runs.try_recv(), Ok(Time::from_nanos(1_000_000_000)));
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert!(runs.try_recv().is_err(), "/clock stands still: so does the timer");
    /// ```
    pub fn timer(
        &mut self,
        period: Duration,
        run: impl FnMut(&Activation) + Send + 'static,
    ) -> Result<(), TriggerError> {
        self.execute(Trigger::every(period).clock(ClockKind::Ros), run)
    }

    /// Registers `run` to be called once per `period` on the steady clock, as rclcpp's
    /// `create_wall_timer`: monotonic, deaf to `/clock` and to changes of the system clock.
    /// The timer of a control loop, a driver's poll or a benchmark. For another clock use
    /// [`execute`](Self::execute) with `Trigger::every(period).clock(...)`.
    pub fn wall_timer(
        &mut self,
        period: Duration,
        run: impl FnMut(&Activation) + Send + 'static,
    ) -> Result<(), TriggerError> {
        self.execute(Trigger::every(period), run)
    }
}

/// Builds a [`Publisher`]; from [`Node::publisher`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct PublisherBuilder<'a, T> {
    node: &'a mut Node,
    topic: String,
    qos: Qos,
    _type: PhantomData<fn() -> T>,
}

impl<T: Message> PublisherBuilder<'_, T> {
    /// Sets the QoS the publisher offers to subscriptions outside the process (default:
    /// rclcpp's, [`Qos::default`]).
    pub fn qos(mut self, qos: Qos) -> Self {
        self.qos = qos;
        self
    }

    /// Creates the publisher.
    pub fn create(self) -> Result<Publisher<T>, TopicError> {
        let name = self.node.resolve_topic_name(&self.topic)?;
        let topic = self.node.context.topic::<T>(&name)?;
        let link = topic.link_writer(Some(self.node.fully_qualified_name()), &self.qos)?;
        let lifecycle = Some((self.node.lifecycle.clone(), self.node.logger.clone()));
        let publisher = Publisher::new(topic, link, &self.qos, lifecycle);
        remember(&mut self.node.outputs, Arc::downgrade(&publisher.output()));
        Ok(publisher)
    }
}

/// Builds a [`Subscription`]; from [`Node::subscription`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` or `callback` is called"]
pub struct SubscriptionBuilder<'a, T> {
    node: &'a mut Node,
    topic: String,
    qos: Qos,
    _type: PhantomData<fn() -> T>,
}

impl<T: Message> SubscriptionBuilder<'_, T> {
    /// Sets how many samples the subscription keeps (see [`History`]).
    pub fn history(mut self, history: History) -> Self {
        self.qos.history = history;
        self
    }

    /// Sets the whole QoS profile, history included (default: rclcpp's, [`Qos::default`]).
    pub fn qos(mut self, qos: Qos) -> Self {
        self.qos = qos;
        self
    }

    /// Creates a polling subscription.
    pub fn create(self) -> Result<Subscription<T>, SubscriptionCreateError> {
        let SubscriptionBuilder {
            node, topic, qos, ..
        } = self;
        node.create_subscription(&topic, &qos)
    }

    /// Creates a classic subscription: `callback` runs once per message, in arrival order, in
    /// the node's default callback group (mutually exclusive).
    pub fn callback(
        self,
        callback: impl FnMut(Sample<T>) + Send + 'static,
    ) -> Result<(), SubscriptionCreateError> {
        let group = self.node.default_group();
        self.callback_in(&group, callback)
    }

    /// Creates a classic subscription whose `callback` runs in `group`; one message at a time,
    /// in arrival order, whatever the group's kind.
    pub fn callback_in(
        self,
        group: &CallbackGroup,
        mut callback: impl FnMut(Sample<T>) + Send + 'static,
    ) -> Result<(), SubscriptionCreateError> {
        let SubscriptionBuilder {
            node, topic, qos, ..
        } = self;
        if group.node != node.id {
            return Err(SubscriptionCreateError::ForeignCallbackGroup);
        }
        let sub = node.create_subscription::<T>(&topic, &qos)?;
        let mut trigger = Trigger::on(&sub);
        trigger.per_sample = true;
        // Taken in every lifecycle state: a per-sample trigger fires while samples wait.
        let gate = node.lifecycle.clone();
        node.executables.push(Executable {
            trigger,
            group: *group,
            run: Box::new(move |_| {
                if let Some(sample) = sub.take() {
                    match Gate::runs(&gate) {
                        true => callback(sample),
                        false => Gate::drop_sample(&gate),
                    }
                }
            }),
        });
        Ok(())
    }
}

impl Node {
    fn create_subscription<T: Message>(
        &mut self,
        topic: &str,
        qos: &Qos,
    ) -> Result<Subscription<T>, SubscriptionCreateError> {
        if qos.history.capacity() == 0 {
            return Err(SubscriptionCreateError::ZeroCapacity);
        }
        let name = self.resolve_topic_name(topic)?;
        let topic = self.context.topic::<T>(&name)?;
        let sub = Subscription::new(Some(self.fully_qualified_name()), topic, qos)?;
        remember(&mut self.inputs, Arc::downgrade(&sub.input()));
        Ok(sub)
    }
}

/// Adds `item` to `list`, first dropping the entries of what no longer exists if the list is
/// full: a node that keeps making and dropping subscriptions keeps a list at most twice as
/// long as the most it ever had alive, and pruning costs O(1) per push, amortized.
pub(crate) fn remember<T: ?Sized>(list: &mut Vec<Weak<T>>, item: Weak<T>) {
    if list.len() == list.capacity() {
        list.retain(|entry| entry.strong_count() > 0);
    }
    list.push(item);
}

fn live<T: ?Sized>(list: &[Weak<T>]) -> usize {
    list.iter().filter(|entry| entry.strong_count() > 0).count()
}
