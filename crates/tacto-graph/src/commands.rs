//! `tacto topic list|echo|hz|pub` and `tacto node list`: each waits for discovery to settle
//! (see [`Discovery::is_settled`], at most `--wait-s`), prints to `out`, and returns when done
//! or when `stop()` says so (Ctrl-C).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tacto_dds::{
    Discovery, DiscoveryError, Durability, EndpointInfo, History, Participant, Qos, Reliability,
    ServiceInfo, TopicInfo, UntypedReader, UntypedWriter,
};

use crate::bw::Bandwidth;
use crate::hz::Rate;
use crate::qos::QosChoice;
use crate::registry::{MessageType, TypeError, TypeRegistry};
use crate::top::Executors;
use crate::{json, yaml};

/// How often a waiting command looks at data and at `stop`.
const TICK: Duration = Duration::from_millis(100);

/// How often a command waiting for discovery looks at it: the graph settles in a few hundred
/// milliseconds, and a refresh that finds nothing new costs microseconds.
const DISCOVERY_TICK: Duration = Duration::from_millis(10);

/// What every command takes.
#[derive(Debug, Clone)]
pub struct Options {
    /// The longest to wait for discovery to settle (`--wait-s`); a graph command returns as
    /// soon as it has.
    pub wait: Duration,
    /// Folders of `.msg` packages (`--msg-path`), searched before `AMENT_PREFIX_PATH` and the
    /// shipped packages.
    pub msg_paths: Vec<PathBuf>,
    /// JSON instead of text (`--json`).
    pub json: bool,
    /// The `--qos-*` options, for `topic echo`, `hz`, `bw` and `pub`.
    pub qos: QosChoice,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            wait: Duration::from_secs(5),
            msg_paths: Vec::new(),
            json: false,
            qos: QosChoice::default(),
        }
    }
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// Ctrl-C (or SIGTERM): what was done has been printed.
    #[error("interrupted")]
    Interrupted,
    /// The graph could not be observed.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// The topic's type is not known here.
    #[error(transparent)]
    Type(#[from] TypeError),
    /// No publisher of the topic appeared in time.
    #[error("no publishers on {topic} after {} s", wait.as_secs_f64())]
    NoPublishers {
        /// The topic.
        topic: String,
        /// How long it waited.
        wait: Duration,
    },
    /// The topic has no endpoint on the graph.
    #[error("unknown topic {topic} (none seen after {:.1} s)", wait.as_secs_f64())]
    UnknownTopic {
        /// The topic.
        topic: String,
        /// How long it waited for discovery to settle.
        wait: Duration,
    },
    /// No node of that name on the graph.
    #[error("unable to find node {node} (none seen after {:.1} s)", wait.as_secs_f64())]
    UnknownNode {
        /// The node, `/namespace/name`.
        node: String,
        /// How long it waited for discovery to settle.
        wait: Duration,
    },
    /// No server of the service appeared in time.
    #[error("no service {service} after {} s", wait.as_secs_f64())]
    NoService {
        /// The service.
        service: String,
        /// How long it waited.
        wait: Duration,
    },
    /// The service client could not be created.
    #[error(transparent)]
    Client(#[from] tacto_dds::service::EndpointError),
    /// The request could not be sent.
    #[error(transparent)]
    Send(#[from] tacto_dds::service::ServiceSendError),
    /// A reply could not be taken.
    #[error(transparent)]
    TakeReply(#[from] tacto_dds::service::ServiceTakeError),
    /// The reply does not decode as the response type.
    #[error("the reply does not decode as {type_name}: {error}")]
    Reply {
        /// The response type.
        type_name: String,
        /// What was wrong.
        error: crate::DecodeError,
    },
    /// `tacto top --once` heard no executor.
    #[error("no tacto executor publishes stats (none heard after {} s)", wait.as_secs_f64())]
    NoExecutors {
        /// How long it waited.
        wait: Duration,
    },
    /// The topic has publishers of more than one type.
    #[error("{topic} has publishers of several types ({}): give the type", types.join(", "))]
    SeveralTypes {
        /// The topic.
        topic: String,
        /// The types seen.
        types: Vec<String>,
    },
    /// The reader could not be created.
    #[error(transparent)]
    Reader(#[from] tacto_dds::ReaderError),
    /// Taking a sample failed.
    #[error(transparent)]
    Take(#[from] tacto_dds::TakeError),
    /// Waiting for data failed.
    #[error("waiting for data failed: {0}")]
    Wait(tacto_dds::DdsStatus),
    /// A writer's status could not be read.
    #[error("cannot read the writer's status: {0}")]
    WriterStatus(tacto_dds::DdsStatus),
    /// The YAML given does not fit the type.
    #[error("the message does not fit {type_name}: {error}")]
    Yaml {
        /// The type.
        type_name: String,
        /// What does not fit.
        error: yaml::YamlError,
    },
    /// The message could not be encoded (a bound exceeded).
    #[error(transparent)]
    Encode(#[from] crate::EncodeError),
    /// The writer could not be created.
    #[error(transparent)]
    Writer(#[from] tacto_dds::WriterError),
    /// Writing a sample failed.
    #[error(transparent)]
    Write(#[from] tacto_dds::WriteError),
    /// Output could not be written (a closed pipe, say).
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
    /// The node is not on the graph (ros2cli's text).
    #[error("Node not found")]
    NodeNotFound,
    /// The node has no such parameter (ros2cli's text).
    #[error("Parameter not set")]
    ParameterNotSet,
    /// The node serves no parameter services (ros2cli's text).
    #[error("Wait for service timed out waiting for parameter services for node {0}")]
    NoParameterServices(String),
    /// The node's parameter service did not answer.
    #[error("no reply from the parameter services of {node} after {} s", wait.as_secs_f64())]
    NoReply {
        /// The node.
        node: String,
        /// How long it waited.
        wait: Duration,
    },
    /// A parameter value of a type rcl_interfaces does not define (ros2cli's text).
    #[error("Unknown parameter type '{0}'")]
    UnknownParameterType(u8),
    /// A parameter request could not be encoded (a bound exceeded).
    #[error("the parameter request cannot be encoded: {0}")]
    ParamEncode(tacto::cdr::EncodeError),
    /// A parameter service's reply does not decode.
    #[error("the reply does not decode as {type_name}: {error}")]
    ParamReply {
        /// The response type.
        type_name: &'static str,
        /// What was wrong.
        error: tacto::cdr::DecodeError,
    },
    /// A parameter file could not be read or is not one.
    #[error("{}: {problem}", file.display())]
    ParamFile {
        /// The file.
        file: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// An argument or an answer that makes no sense.
    #[error("{0}")]
    Usage(String),
}

/// Refreshes `discovery` every tick until `done` says so or `wait` has passed.
pub(crate) fn watch(
    discovery: &mut Discovery,
    wait: Duration,
    stop: &dyn Fn() -> bool,
    mut done: impl FnMut(&Discovery) -> bool,
) -> Result<(), CommandError> {
    let deadline = Instant::now() + wait;
    loop {
        discovery.refresh()?;
        if done(discovery) || Instant::now() >= deadline {
            return Ok(());
        }
        if stop() {
            return Err(CommandError::Interrupted);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(DISCOVERY_TICK.min(left));
    }
}

/// How long a command waited for discovery, and whether it settled in that time.
#[derive(Debug, Clone, Copy)]
struct Waited {
    took: Duration,
    settled: bool,
}

impl std::fmt::Display for Waited {
    /// `after 0.3 s`, or `after 5.0 s (discovery had not settled)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "after {:.1} s", self.took.as_secs_f64())?;
        match self.settled {
            true => Ok(()),
            false => write!(f, " (discovery had not settled)"),
        }
    }
}

/// Watches `discovery` until it settles or `wait` has passed.
fn settle(
    discovery: &mut Discovery,
    wait: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<Waited, CommandError> {
    let start = Instant::now();
    watch(discovery, wait, stop, Discovery::is_settled)?;
    Ok(Waited {
        took: start.elapsed(),
        settled: discovery.is_settled(),
    })
}

/// `/name` for `name`.
fn absolute(topic: &str) -> String {
    match topic.starts_with('/') {
        true => topic.to_owned(),
        false => format!("/{topic}"),
    }
}

/// `tacto topic list [-t] [--include-hidden-topics]`: the topics on the graph once discovery
/// has settled, hidden ones only if asked (as ros2cli).
pub fn topic_list(
    participant: &Participant,
    options: &Options,
    show_types: bool,
    include_hidden: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let mut discovery = Discovery::new(participant)?;
    let waited = settle(&mut discovery, options.wait, stop)?;
    let mut topics = discovery.topics();
    topics.retain(|topic| include_hidden || !is_hidden(&topic.name));
    if options.json {
        let list: Vec<serde_json::Value> = topics.iter().map(topic_json).collect();
        writeln!(out, "{}", serde_json::Value::from(list))?;
    } else {
        for topic in &topics {
            match show_types {
                true => writeln!(out, "{} [{}]", topic.name, topic.types.join(", "))?,
                false => writeln!(out, "{}", topic.name)?,
            }
        }
    }
    if topics.is_empty() {
        eprintln!("no topics {waited}");
    }
    Ok(())
}

/// ROS 2's hidden names: a token starting with `_` (`/_tacto/executor_stats`), which its tools
/// leave out unless asked.
fn is_hidden(name: &str) -> bool {
    name.split('/').any(|token| token.starts_with('_'))
}

/// `tacto topic info [-v] NAME`: the topic's type(s) and endpoint counts, in ros2cli's
/// layout; `verbose` adds each endpoint's node, GID and QoS.
pub fn topic_info(
    participant: &Participant,
    options: &Options,
    topic: &str,
    verbose: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let topic = absolute(topic);
    let mut discovery = Discovery::new(participant)?;
    let waited = settle(&mut discovery, options.wait, stop)?;
    let Some(info) = discovery.topics().into_iter().find(|t| t.name == topic) else {
        return Err(CommandError::UnknownTopic {
            topic,
            wait: waited.took,
        });
    };
    if options.json {
        let endpoints = |list: &[EndpointInfo]| -> Vec<serde_json::Value> {
            list.iter().map(endpoint_json).collect()
        };
        let value = serde_json::json!({
            "name": info.name,
            "types": info.types,
            "publishers": endpoints(&info.publishers),
            "subscribers": endpoints(&info.subscribers),
        });
        writeln!(out, "{value}")?;
        return Ok(());
    }
    let types = info.types.join(", ");
    let counts = [
        ("Publisher", "PUBLISHER", &info.publishers),
        ("Subscription", "SUBSCRIPTION", &info.subscribers),
    ];
    match verbose {
        false => {
            writeln!(out, "Type: {types}")?;
            for (heading, _, list) in counts {
                writeln!(out, "{heading} count: {}", list.len())?;
            }
        }
        true => {
            writeln!(out, "Type: {types}\n")?;
            for (heading, kind, list) in counts {
                writeln!(out, "{heading} count: {}\n", list.len())?;
                for endpoint in list.iter() {
                    write_endpoint(endpoint, kind, out)?;
                }
            }
        }
    }
    Ok(())
}

/// `/ns/name` → (`name`, `/ns`); ros2cli's placeholders for a node not named yet.
fn split_node(node: Option<&str>) -> (&str, &str) {
    match node.and_then(|n| n.rsplit_once('/')) {
        Some(("", name)) => (name, "/"),
        Some((namespace, name)) => (name, namespace),
        None => ("_NODE_NAME_UNKNOWN_", "_NODE_NAMESPACE_UNKNOWN_"),
    }
}

/// A GID as ros2cli prints it: bytes in hex, separated by dots.
fn gid_text(gid: &[u8; 16]) -> String {
    let hex: Vec<String> = gid.iter().map(|b| format!("{b:02x}")).collect();
    hex.join(".")
}

fn reliability_text(reliability: Reliability) -> &'static str {
    match reliability {
        Reliability::Reliable => "RELIABLE",
        Reliability::BestEffort => "BEST_EFFORT",
    }
}

fn durability_text(durability: Durability) -> &'static str {
    match durability {
        Durability::TransientLocal => "TRANSIENT_LOCAL",
        Durability::Volatile => "VOLATILE",
    }
}

/// How ros2cli (rclpy's `Duration.__str__`) writes a QoS duration.
fn duration_text(duration: Option<Duration>) -> String {
    match duration {
        None => "Infinite".to_owned(),
        Some(d) => format!("{} nanoseconds", d.as_nanos()),
    }
}

fn liveliness_text(liveliness: tacto::Liveliness) -> &'static str {
    match liveliness {
        tacto::Liveliness::Automatic => "AUTOMATIC",
        tacto::Liveliness::ManualByTopic => "MANUAL_BY_TOPIC",
    }
}

/// One endpoint of `topic info -v`, in ros2cli's layout. DDS discovery does not carry an
/// endpoint's history, so it is `UNKNOWN`, as rmw reports it for remote endpoints. The type
/// hash is the one the endpoint sent in its USER_DATA; `INVALID` (as rclpy's `TypeHash`
/// prints a missing one) if it sent none.
fn write_endpoint(
    endpoint: &EndpointInfo,
    kind: &str,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let (name, namespace) = split_node(endpoint.node.as_deref());
    writeln!(out, "Node name: {name}")?;
    writeln!(out, "Node namespace: {namespace}")?;
    writeln!(out, "Topic type: {}", endpoint.ros_type)?;
    let hash = endpoint.type_hash.as_deref().unwrap_or("INVALID");
    writeln!(out, "Topic type hash: {hash}")?;
    writeln!(out, "Endpoint type: {kind}")?;
    writeln!(out, "GID: {}", gid_text(&endpoint.gid))?;
    writeln!(out, "QoS profile:")?;
    let reliability = reliability_text(endpoint.reliability);
    writeln!(out, "  Reliability: {reliability}")?;
    writeln!(out, "  History (Depth): UNKNOWN")?;
    writeln!(
        out,
        "  Durability: {}",
        durability_text(endpoint.durability)
    )?;
    writeln!(out, "  Lifespan: {}", duration_text(endpoint.lifespan))?;
    writeln!(out, "  Deadline: {}", duration_text(endpoint.deadline))?;
    writeln!(
        out,
        "  Liveliness: {}",
        liveliness_text(endpoint.liveliness)
    )?;
    let lease = duration_text(endpoint.liveliness_lease);
    writeln!(out, "  Liveliness lease duration: {lease}\n")?;
    Ok(())
}

fn endpoint_json(endpoint: &EndpointInfo) -> serde_json::Value {
    serde_json::json!({
        "node": endpoint.node,
        "type": endpoint.ros_type,
        "type_hash": endpoint.type_hash,
        "gid": gid_text(&endpoint.gid),
        "reliability": reliability_text(endpoint.reliability),
        "durability": durability_text(endpoint.durability),
        "lifespan_ns": endpoint.lifespan.map(|d| d.as_nanos() as u64),
        "deadline_ns": endpoint.deadline.map(|d| d.as_nanos() as u64),
        "liveliness": liveliness_text(endpoint.liveliness),
        "liveliness_lease_ns": endpoint.liveliness_lease.map(|d| d.as_nanos() as u64),
    })
}

/// `tacto node info NAME [--include-hidden]`: the node's subscribers, publishers, service
/// servers and clients, action servers and clients, `name: type` each, in ros2cli's layout;
/// hidden topics and services only if asked.
pub fn node_info(
    participant: &Participant,
    options: &Options,
    node: &str,
    include_hidden: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let node = absolute(node);
    let mut discovery = Discovery::new(participant)?;
    let waited = settle(&mut discovery, options.wait, stop)?;
    if !discovery.nodes().contains(&node) {
        return Err(CommandError::UnknownNode {
            node,
            wait: waited.took,
        });
    }
    let of_node = |list: &[EndpointInfo]| list.iter().any(|e| e.node.as_deref() == Some(&node));
    let topics = discovery.topics();
    let services = discovery.services();
    let shown = |name: &str| include_hidden || !is_hidden(name);
    let topic_entries = |side: fn(&TopicInfo) -> &[EndpointInfo]| -> Vec<(String, String)> {
        (topics.iter())
            .filter(|t| of_node(side(t)) && shown(&t.name))
            .map(|t| (t.name.clone(), t.types.join(", ")))
            .collect()
    };
    let service_entries = |side: fn(&ServiceInfo) -> &[EndpointInfo]| -> Vec<(String, String)> {
        (services.iter())
            .filter(|s| of_node(side(s)) && shown(&s.name))
            .map(|s| (s.name.clone(), s.types.join(", ")))
            .collect()
    };
    // An action is three services and two topics under `NAME/_action/`; as ros2cli, it is
    // known by its goal service, `NAME/_action/send_goal` of type `PKG/action/TYPE_SendGoal`.
    let action_entries = |side: fn(&ServiceInfo) -> &[EndpointInfo]| -> Vec<(String, String)> {
        (services.iter())
            .filter(|s| of_node(side(s)))
            .filter_map(|s| {
                let action = s.name.strip_suffix("/_action/send_goal")?;
                let types = (s.types.iter())
                    .filter_map(|t| t.strip_suffix("_SendGoal"))
                    .collect::<Vec<_>>();
                (!types.is_empty()).then(|| (action.to_owned(), types.join(", ")))
            })
            .collect()
    };
    let sections = [
        (
            "Subscribers",
            "subscribers",
            topic_entries(|t| &t.subscribers),
        ),
        ("Publishers", "publishers", topic_entries(|t| &t.publishers)),
        (
            "Service Servers",
            "service_servers",
            service_entries(|s| &s.servers),
        ),
        (
            "Service Clients",
            "service_clients",
            service_entries(|s| &s.clients),
        ),
        (
            "Action Servers",
            "action_servers",
            action_entries(|s| &s.servers),
        ),
        (
            "Action Clients",
            "action_clients",
            action_entries(|s| &s.clients),
        ),
    ];
    if options.json {
        let mut value = serde_json::Map::new();
        value.insert("name".into(), node.clone().into());
        for (_, key, entries) in &sections {
            let list: Vec<serde_json::Value> = (entries.iter())
                .map(|(name, ty)| serde_json::json!({"name": name, "types": ty.split(", ").collect::<Vec<_>>()}))
                .collect();
            value.insert((*key).into(), list.into());
        }
        writeln!(out, "{}", serde_json::Value::Object(value))?;
        return Ok(());
    }
    writeln!(out, "{node}")?;
    for (heading, _, entries) in &sections {
        writeln!(out, "  {heading}:")?;
        for (name, ty) in entries {
            writeln!(out, "    {name}: {ty}")?;
        }
        if entries.is_empty() {
            writeln!(out)?;
        }
    }
    Ok(())
}

fn topic_json(topic: &TopicInfo) -> serde_json::Value {
    let nodes = |endpoints: &[tacto_dds::EndpointInfo]| -> Vec<serde_json::Value> {
        endpoints
            .iter()
            .map(|e| serde_json::Value::from(e.node.clone()))
            .collect()
    };
    serde_json::json!({
        "name": topic.name,
        "types": topic.types,
        "publishers": nodes(&topic.publishers),
        "subscribers": nodes(&topic.subscribers),
    })
}

/// `tacto node list`: the nodes on the graph once discovery has settled.
pub fn node_list(
    participant: &Participant,
    options: &Options,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let mut discovery = Discovery::new(participant)?;
    let waited = settle(&mut discovery, options.wait, stop)?;
    let nodes = discovery.nodes();
    if options.json {
        writeln!(out, "{}", serde_json::Value::from(nodes.clone()))?;
    } else {
        for node in &nodes {
            writeln!(out, "{node}")?;
        }
    }
    if nodes.is_empty() {
        eprintln!("no nodes {waited}");
    }
    Ok(())
}

/// Waits for the publishers of `topic`; their types and the QoS that matches them all.
fn find_publishers(
    participant: &Participant,
    topic: &str,
    wait: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<(Vec<String>, Qos), CommandError> {
    let mut discovery = Discovery::new(participant)?;
    let has_publishers = |d: &Discovery| {
        d.topics()
            .iter()
            .any(|t| t.name == topic && !t.publishers.is_empty())
    };
    watch(&mut discovery, wait, stop, has_publishers)?;
    let info = (discovery.topics().into_iter())
        .find(|t| t.name == topic)
        .filter(|t| !t.publishers.is_empty());
    let Some(info) = info else {
        return Ok((Vec::new(), fallback_qos()));
    };
    let mut types: Vec<String> = info.publishers.iter().map(|p| p.ros_type.clone()).collect();
    types.sort();
    types.dedup();
    // As ros2cli: reliable only if every publisher is, transient local only if every one is.
    let all = |f: &dyn Fn(&tacto_dds::EndpointInfo) -> bool| info.publishers.iter().all(f);
    let qos = Qos {
        reliability: match all(&|p| p.reliability == Reliability::Reliable) {
            true => Reliability::Reliable,
            false => Reliability::BestEffort,
        },
        durability: match all(&|p| p.durability == Durability::TransientLocal) {
            true => Durability::TransientLocal,
            false => Durability::Volatile,
        },
        history: History::KeepLast(10),
    };
    Ok((types, qos))
}

/// With no publisher seen: best effort and volatile, which match any publisher that comes.
fn fallback_qos() -> Qos {
    Qos {
        reliability: Reliability::BestEffort,
        durability: Durability::Volatile,
        history: History::KeepLast(10),
    }
}

/// The topic's type: `given`, or the one its publishers have.
fn topic_type(
    participant: &Participant,
    topic: &str,
    given: Option<&str>,
    wait: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<(String, Qos), CommandError> {
    let (types, qos) = find_publishers(participant, topic, wait, stop)?;
    match (given, &types[..]) {
        (Some(given), _) => Ok((given.to_owned(), qos)),
        (None, [one]) => Ok((one.clone(), qos)),
        (None, []) => Err(CommandError::NoPublishers {
            topic: topic.to_owned(),
            wait,
        }),
        (None, _) => Err(CommandError::SeveralTypes {
            topic: topic.to_owned(),
            types,
        }),
    }
}

/// What `topic echo` prints.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoOptions {
    /// Stop after the first message (`--once`).
    pub once: bool,
    /// Print arrays and strings whole (`--full-length`); else cut at 128 as ros2cli does.
    pub full_length: bool,
}

/// `tacto topic echo NAME [TYPE]`: each message as YAML followed by `---` (or one line of
/// JSON), until `stop()` (or the first, with `once`).
pub fn topic_echo(
    participant: &Participant,
    options: &Options,
    topic: &str,
    type_name: Option<&str>,
    echo: EchoOptions,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let topic = absolute(topic);
    let registry = TypeRegistry::new(&options.msg_paths);
    // A type given is checked before any waiting.
    if let Some(name) = type_name {
        registry.resolve(name)?;
    }
    let (type_name, qos) = topic_type(participant, &topic, type_name, options.wait, stop)?;
    let ty = registry.resolve(&type_name)?;
    let hash = registry.type_hash(&ty.name).ok();
    let qos = options.qos.over(qos);
    let reader = UntypedReader::new(participant, &topic, &ty.name, hash.as_deref(), qos)?;
    let truncate = (!echo.full_length).then_some(yaml::TRUNCATE_LENGTH);
    loop {
        if stop() {
            return Err(CommandError::Interrupted);
        }
        if !reader.wait(TICK).map_err(CommandError::Wait)? {
            continue;
        }
        while let Some(sample) = reader.take_cdr()? {
            print_sample(&ty, &sample.payload, options.json, truncate, out)?;
            if echo.once {
                return Ok(());
            }
        }
    }
}

fn print_sample(
    ty: &Arc<MessageType>,
    payload: &[u8],
    as_json: bool,
    truncate: Option<usize>,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    match crate::decode(ty, payload) {
        Ok(value) if as_json => writeln!(out, "{}", json::to_json(&value))?,
        Ok(value) => writeln!(out, "{}---", yaml::to_yaml(&value, truncate))?,
        // One bad sample does not end the echo.
        Err(error) => eprintln!("a sample does not decode as {}: {error}", ty.name),
    }
    out.flush()?;
    Ok(())
}

/// `tacto topic hz NAME`: every second, the rate over the last `window` arrivals, with
/// ros2cli's headings (`no new messages` when none came).
pub fn topic_hz(
    participant: &Participant,
    options: &Options,
    topic: &str,
    window: usize,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let topic = absolute(topic);
    let (type_name, qos) = topic_type(participant, &topic, None, options.wait, stop)?;
    let reader = UntypedReader::new(participant, &topic, &type_name, None, options.qos.over(qos))?;
    let mut rate = Rate::new(window);
    let mut next_report = Instant::now() + Duration::from_secs(1);
    let mut new_since_report = false;
    loop {
        if stop() {
            return Err(CommandError::Interrupted);
        }
        let left = next_report.saturating_duration_since(Instant::now());
        if reader.wait(left.min(TICK)).map_err(CommandError::Wait)? {
            while reader.take_cdr()?.is_some() {
                rate.arrived(Instant::now());
                new_since_report = true;
            }
        }
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(1);
            match (new_since_report, rate.report()) {
                (true, Some(report)) => writeln!(out, "{report}")?,
                (false, _) if rate.count() > 0 => writeln!(out, "no new messages")?,
                _ => {}
            }
            out.flush()?;
            new_since_report = false;
        }
    }
}

/// How `topic pub` publishes.
#[derive(Debug, Clone, Copy)]
pub struct PubOptions {
    /// Messages per second (`--rate`, default 1).
    pub rate: f64,
    /// How many to publish (`--times`, `--once` is 1); `None` until Ctrl-C.
    pub times: Option<u64>,
}

impl Default for PubOptions {
    fn default() -> PubOptions {
        PubOptions {
            rate: 1.0,
            times: None,
        }
    }
}

/// `tacto topic pub NAME TYPE YAML`: the message read from `yaml` (fields left out take their
/// defaults; `auto` headers and `now` times take the time of each publication, see
/// [`yaml::template`]), published `times` times at `rate` Hz, each announced as
/// `publishing #N: {json}`.
/// With `times` given, waits up to `--wait-s` for a subscriber first (as ros2cli's `-w 1`),
/// and at the end up to as long for the reliable subscribers to acknowledge.
#[allow(clippy::too_many_arguments)] // one per part of the command line
pub fn topic_pub(
    participant: &Participant,
    options: &Options,
    topic: &str,
    type_name: &str,
    yaml_text: &str,
    publish: PubOptions,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let topic = absolute(topic);
    let registry = TypeRegistry::new(&options.msg_paths);
    let ty = registry.resolve(type_name)?;
    let template = yaml::template(&ty, yaml_text).map_err(|error| CommandError::Yaml {
        type_name: ty.name.clone(),
        error,
    })?;
    // Encoded once, unless it carries the time of publication (`auto`, `now`).
    let mut fixed = None;
    if !template.is_stamped() {
        let value = template.at(0, 0);
        fixed = Some((crate::encode(&ty, &value)?, json::to_json(&value)));
    }
    let hash = registry.type_hash(&ty.name).ok();
    let writer = UntypedWriter::new(
        participant,
        &topic,
        &ty.name,
        hash.as_deref(),
        options.qos.over(Qos::default()),
    )?;
    if publish.times.is_some() {
        let deadline = Instant::now() + options.wait;
        while writer
            .matched_readers()
            .map_err(CommandError::WriterStatus)?
            == 0
            && Instant::now() < deadline
        {
            if stop() {
                return Err(CommandError::Interrupted);
            }
            std::thread::sleep(TICK.min(deadline.saturating_duration_since(Instant::now())));
        }
    }
    writeln!(out, "publisher: beginning loop")?;
    let period = Duration::from_secs_f64(1.0 / publish.rate);
    let mut next = Instant::now();
    let mut count = 0u64;
    while publish.times.is_none_or(|times| count < times) {
        // Sleeps in ticks so that Ctrl-C is seen at a low rate too.
        loop {
            if stop() {
                return Err(CommandError::Interrupted);
            }
            let left = next.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(TICK));
        }
        let stamped;
        let (payload, line) = match &fixed {
            Some((payload, line)) => (payload, line),
            None => {
                let (sec, nanosec) = ros_time_now();
                let value = template.at(sec, nanosec);
                stamped = (crate::encode(&ty, &value)?, json::to_json(&value));
                (&stamped.0, &stamped.1)
            }
        };
        writer.write_cdr(payload)?;
        count += 1;
        writeln!(out, "publishing #{count}: {line}")?;
        out.flush()?;
        next += period;
    }
    writer
        .wait_for_acks(options.wait)
        .map_err(CommandError::WriterStatus)?;
    Ok(())
}

/// The time now as a `builtin_interfaces/msg/Time` holds it, as the clock of ros2cli's node
/// gives it (the system clock; tacto's command-line tools do not follow `/clock`). Out of its
/// range (before 1970, after 2038) it is the nearest end.
fn ros_time_now() -> (i32, u32) {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => match i32::try_from(since.as_secs()) {
            Ok(sec) => (sec, since.subsec_nanos()),
            Err(_) => (i32::MAX, 999_999_999),
        },
        Err(_) => (0, 0),
    }
}

/// `tacto service list [-t] [--include-hidden-services]`: the services on the graph once
/// discovery has settled (`-t`: with types), hidden ones (an action's) only if asked, as
/// ros2cli.
pub fn service_list(
    participant: &Participant,
    options: &Options,
    show_types: bool,
    include_hidden: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let mut discovery = Discovery::new(participant)?;
    let waited = settle(&mut discovery, options.wait, stop)?;
    let mut services = discovery.services();
    services.retain(|service| include_hidden || !is_hidden(&service.name));
    if options.json {
        let nodes = |list: &[EndpointInfo]| -> Vec<serde_json::Value> {
            list.iter().map(|e| e.node.clone().into()).collect()
        };
        let list: Vec<serde_json::Value> = (services.iter())
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "types": s.types,
                    "servers": nodes(&s.servers),
                    "clients": nodes(&s.clients),
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::Value::from(list))?;
    } else {
        for service in &services {
            match show_types {
                true => writeln!(out, "{} [{}]", service.name, service.types.join(", "))?,
                false => writeln!(out, "{}", service.name)?,
            }
        }
    }
    if services.is_empty() {
        eprintln!("no services {waited}");
    }
    Ok(())
}

/// `pkg/Type` → `pkg/srv/Type`; a full name stays as it is.
fn service_type_name(name: &str) -> String {
    match name.split('/').collect::<Vec<_>>()[..] {
        [package, ty] => format!("{package}/srv/{ty}"),
        _ => name.to_owned(),
    }
}

/// `tacto service call NAME TYPE YAML`: waits up to `--wait-s` for a server, sends the request
/// read from `yaml_text`, and prints the reply as YAML (or JSON) when it comes (until Ctrl-C).
pub fn service_call(
    participant: &Participant,
    options: &Options,
    service: &str,
    type_name: &str,
    yaml_text: &str,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let service = absolute(service);
    let type_name = service_type_name(type_name);
    let registry = TypeRegistry::new(&options.msg_paths);
    let request_type = registry.resolve(&format!("{type_name}_Request"))?;
    let response_type = registry.resolve(&format!("{type_name}_Response"))?;
    let request =
        yaml::from_yaml(&request_type, yaml_text).map_err(|error| CommandError::Yaml {
            type_name: request_type.name.clone(),
            error,
        })?;
    let payload = crate::encode(&request_type, &request)?;
    let hashes = [&request_type, &response_type].map(|ty| registry.type_hash(&ty.name).ok());
    let client = tacto_dds::service::UntypedClient::new(
        participant,
        &service,
        &type_name,
        [hashes[0].as_deref(), hashes[1].as_deref()],
    )?;
    let deadline = Instant::now() + options.wait;
    while !client
        .service_is_ready()
        .map_err(CommandError::WriterStatus)?
    {
        if Instant::now() >= deadline {
            return Err(CommandError::NoService {
                service,
                wait: options.wait,
            });
        }
        if stop() {
            return Err(CommandError::Interrupted);
        }
        std::thread::sleep(TICK.min(deadline.saturating_duration_since(Instant::now())));
    }
    if !options.json {
        writeln!(
            out,
            "requester: making request: {}\n",
            json::to_json(&request)
        )?;
        out.flush()?;
    }
    let id = client.send_request_cdr(&payload)?;
    loop {
        if stop() {
            return Err(CommandError::Interrupted);
        }
        if !client.wait(TICK).map_err(CommandError::Wait)? {
            continue;
        }
        while let Some((reply_id, body)) = client.take_response_cdr()? {
            if reply_id != id {
                continue;
            }
            let response =
                crate::decode(&response_type, &body).map_err(|error| CommandError::Reply {
                    type_name: response_type.name.clone(),
                    error,
                })?;
            match options.json {
                true => writeln!(out, "{}", json::to_json(&response))?,
                false => writeln!(out, "response:\n{}", yaml::to_yaml(&response, None))?,
            }
            return Ok(());
        }
    }
}

/// `tacto topic bw NAME`: every second, the bandwidth and message sizes over the last `window`
/// messages, with ros2cli's headings.
pub fn topic_bw(
    participant: &Participant,
    options: &Options,
    topic: &str,
    window: usize,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let topic = absolute(topic);
    let (type_name, qos) = topic_type(participant, &topic, None, options.wait, stop)?;
    let reader = UntypedReader::new(participant, &topic, &type_name, None, options.qos.over(qos))?;
    writeln!(out, "Subscribed to [{topic}]")?;
    out.flush()?;
    let mut bandwidth = Bandwidth::new(window);
    let mut next_report = Instant::now() + Duration::from_secs(1);
    loop {
        if stop() {
            return Err(CommandError::Interrupted);
        }
        let left = next_report.saturating_duration_since(Instant::now());
        if reader.wait(left.min(TICK)).map_err(CommandError::Wait)? {
            while let Some(sample) = reader.take_cdr()? {
                bandwidth.arrived(Instant::now(), sample.payload.len());
            }
        }
        let now = Instant::now();
        if now >= next_report {
            next_report += Duration::from_secs(1);
            if let Some(report) = bandwidth.report(now) {
                writeln!(out, "{report}")?;
                out.flush()?;
            }
        }
    }
}

/// What `tacto top` does besides listening.
#[derive(Debug, Clone, Copy, Default)]
pub struct TopOptions {
    /// Print one table, once every executor heard has reported twice (or after 3 s), then
    /// exit (`--once`).
    pub once: bool,
    /// Clear the screen before each table (output to a terminal).
    pub clear: bool,
}

/// `tacto top`: every second, a table (or with `--json` a JSON line) of the executors of the
/// tacto processes on the graph, from their reports on the stats topic; an executor not heard
/// of for [`GONE_AFTER`](crate::top::GONE_AFTER) leaves it. Reports that do not decode are
/// skipped and counted under the table.
pub fn top(
    participant: &Participant,
    options: &Options,
    top: TopOptions,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    use tacto::Message;
    use tacto::msg::tacto_msgs::{EXECUTOR_STATS_TOPIC, ExecutorStats};
    const PERIOD: Duration = Duration::from_secs(1);
    let reader = UntypedReader::new(
        participant,
        EXECUTOR_STATS_TOPIC,
        ExecutorStats::TYPE_NAME,
        ExecutorStats::TYPE_HASH,
        Qos {
            history: History::KeepLast(100),
            ..Qos::default()
        },
    )?;
    let mut executors = Executors::default();
    let start = Instant::now();
    // Reporters publish once a second after they see this reader: the first report may come
    // a discovery wait plus a period after the start.
    let quiet_until = start + options.wait + PERIOD;
    let (mut first, mut malformed, mut said_waiting) = (None, 0u64, false);
    let mut next_print = start + PERIOD;
    loop {
        if stop() {
            return Err(CommandError::Interrupted);
        }
        if reader.wait(TICK).map_err(CommandError::Wait)? {
            while let Some(sample) = reader.take_cdr()? {
                match tacto::cdr::from_bytes::<ExecutorStats>(&sample.payload) {
                    Ok(report) => executors.heard(report, Instant::now()),
                    Err(_) => malformed += 1,
                }
                first.get_or_insert_with(Instant::now);
            }
        }
        let now = Instant::now();
        if top.once {
            let ready = first.is_some_and(|first: Instant| {
                // After a period every reporting process has spoken once, so every executor
                // is known; a second period gives each its rates.
                let since = now.duration_since(first);
                since > PERIOD + TICK && (executors.all_have_rates() || since > 3 * PERIOD)
            });
            if ready {
                return print_top(&executors, malformed, options.json, false, out);
            }
            if first.is_none() && now > quiet_until {
                return Err(CommandError::NoExecutors {
                    wait: quiet_until - start,
                });
            }
            continue;
        }
        if now < next_print {
            continue;
        }
        next_print += PERIOD;
        executors.forget_gone(now);
        if !executors.is_empty() {
            print_top(&executors, malformed, options.json, top.clear, out)?;
        } else if now > quiet_until && !said_waiting && !options.json {
            writeln!(out, "waiting for tacto executors on {EXECUTOR_STATS_TOPIC}")?;
            out.flush()?;
            said_waiting = true;
        }
    }
}

fn print_top(
    executors: &Executors,
    malformed: u64,
    json: bool,
    clear: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    if json {
        writeln!(out, "{}", executors.json())?;
    } else {
        if clear {
            write!(out, "\x1b[H\x1b[2J")?;
        }
        write!(out, "{}", executors.table())?;
        if malformed > 0 {
            writeln!(out, "({malformed} reports did not decode and were skipped)")?;
        }
        if !clear {
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(())
}
