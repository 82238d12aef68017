//! Topology files of ros2-performance: reading them, and refusing impossible ones.
//!
//! # The format
//! ```json
//! {"nodes": [
//!   {"node_name": "lyon",
//!    "subscribers": [{"topic_name": "amazon", "msg_type": "stamped9_float32"}],
//!    "publishers": [{"topic_name": "tigris", "msg_type": "stamped4_float32",
//!                    "period_ms": 10, "msg_pass_by": "shared_ptr"}]}
//! ]}
//! ```
//!
//! | field | of | here |
//! |---|---|---|
//! | `node_name` | node | required; a ROS 2 node name |
//! | `publishers`, `subscribers` | node | optional lists |
//! | `number` | node | that many copies, named `<node_name>_1` … `_N`, as upstream does |
//! | `clients`, `servers` | node | accepted and skipped: tacto has no services yet ([`Spec::ignored_services`] counts them) |
//! | `executor_id` | node | accepted and ignored: the executor kind decides the threads |
//! | `topic_name`, `msg_type` | both | required; `msg_type` as in [`MsgType`] |
//! | `period_ms` or `freq_hz` | publisher | exactly one, above zero |
//! | `msg_size` | publisher | the payload bytes of a `stamped_vector` (default 0, at most 64 MiB); refused for fixed-size types |
//! | `qos_depth`, `qos_history` | subscriber | the subscription's [`History`]: `keep_last` (default) keeps `qos_depth` (default 10), `keep_all` keeps up to 1000 |
//! | `msg_pass_by` | both | `unique_ptr` or `shared_ptr`; ignored, as intra-process delivery shares one message either way |
//! | other `qos_*` (reliability, durability, liveliness, deadline, lifespan, lease duration, namespace conventions), and `qos_depth`/`qos_history` of publishers | both | accepted and ignored: intra-process delivery goes straight into the subscriber's history, which is the only queue |
//!
//! Any other field is refused, so that a misspelt one cannot silently change the graph.
//!
//! # What is refused
//! Not JSON, or not this shape: [`TopologyError::Malformed`] with serde's line and column (an
//! unknown `msg_type` is one). A graph that cannot run as written:
//! [`TopologyError::Inconsistent`] naming the node and topic: an invalid node or topic name,
//! two nodes of one name, a period that is not above zero, a topic used with two message
//! types, a subscriber to a topic nobody publishes, no publisher at all.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;
use tacto::{Context, History};

use super::messages::{MsgType, Stamped10b};
use crate::topology::TopologyError;

/// The largest `stamped_vector` payload accepted.
const MAX_MSG_SIZE: u64 = 64 << 20;
/// The most nodes a file may describe, copies included.
const MAX_NODES: u64 = 4096;
/// ROS 2's default history depth.
const DEFAULT_DEPTH: usize = 10;
/// The bound of a `keep_all` history, which ROS 2 leaves to the middleware's resource limits.
const KEEP_ALL_MAX: usize = 1000;

/// A checked topology: every subscriber's topic has a publisher of the same type.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The file's name without extension, e.g. `mont_blanc`.
    pub name: String,
    /// The nodes, copies included, in file order.
    pub nodes: Vec<NodeSpec>,
    /// Clients and servers in the file, which are not run.
    pub ignored_services: usize,
}

/// One node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    /// Its name.
    pub name: String,
    /// What it publishes.
    pub publishers: Vec<PublisherSpec>,
    /// What it subscribes to.
    pub subscribers: Vec<SubscriberSpec>,
}

/// A periodic publisher.
#[derive(Debug, Clone, PartialEq)]
pub struct PublisherSpec {
    /// The topic.
    pub topic: String,
    /// The message type.
    pub msg_type: MsgType,
    /// Time between two messages.
    pub period: Duration,
    /// The payload's size in bytes: `msg_size` for `stamped_vector`, the type's own otherwise.
    pub msg_size: usize,
}

/// A subscriber.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberSpec {
    /// The topic.
    pub topic: String,
    /// The message type.
    pub msg_type: MsgType,
    /// How many samples it keeps.
    pub history: History,
}

impl Spec {
    /// Reads and checks a topology file.
    pub fn from_file(path: &Path) -> Result<Spec, TopologyError> {
        let json = std::fs::read_to_string(path).map_err(|source| TopologyError::Read {
            path: path.to_owned(),
            source,
        })?;
        Spec::parse(path, &json)
    }

    /// Checks the topology in `json`; `path` names it (and in errors).
    ///
    /// # Examples
    /// ```
    /// use std::path::Path;
    /// use tacto_bench::topology::ros2_performance::Spec;
    /// use tacto_bench::topology::TopologyError;
    ///
    /// let json = r#"{"nodes": [
    ///     {"node_name": "talker", "publishers": [
    ///         {"topic_name": "chat", "msg_type": "stamped10b", "period_ms": 10}]},
    ///     {"node_name": "listener", "subscribers": [
    ///         {"topic_name": "chat", "msg_type": "stamped10b"}]}]}"#;
    /// let spec = Spec::parse(Path::new("chat.json"), json).unwrap();
    /// assert_eq!((spec.name.as_str(), spec.nodes.len(), spec.topics()), ("chat", 2, vec!["chat"]));
    ///
    /// let orphan = json.replace(r#""topic_name": "chat", "msg_type": "stamped10b"}]}]"#,
    ///                           r#""topic_name": "news", "msg_type": "stamped10b"}]}]"#);
    /// let err = Spec::parse(Path::new("chat.json"), &orphan).unwrap_err();
    /// assert!(matches!(err, TopologyError::Inconsistent { .. }));
    /// assert!(err.to_string().contains("news"));
    /// ```
    pub fn parse(path: &Path, json: &str) -> Result<Spec, TopologyError> {
        let file: File = serde_json::from_str(json).map_err(|e| TopologyError::Malformed {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        check(name.unwrap_or_default(), file).map_err(|reason| TopologyError::Inconsistent {
            path: path.to_owned(),
            reason,
        })
    }

    /// Every topic, once, in the order publishers appear.
    pub fn topics(&self) -> Vec<&str> {
        let mut topics: Vec<&str> = Vec::new();
        for p in self.nodes.iter().flat_map(|n| &n.publishers) {
            if !topics.contains(&p.topic.as_str()) {
                topics.push(&p.topic);
            }
        }
        topics
    }

    /// The longest period that divides every publisher's period: the LET executor's period.
    pub fn common_period(&self) -> Duration {
        let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let gcd = self
            .nodes
            .iter()
            .flat_map(|n| &n.publishers)
            .map(|p| nanos(p.period))
            .fold(0, gcd);
        Duration::from_nanos(gcd)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    nodes: Vec<NodeEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeEntry {
    node_name: String,
    number: Option<u64>,
    #[serde(default)]
    publishers: Vec<PublisherEntry>,
    #[serde(default)]
    subscribers: Vec<SubscriberEntry>,
    #[serde(default)]
    clients: Vec<IgnoredAny>,
    #[serde(default)]
    servers: Vec<IgnoredAny>,
    #[serde(default, rename = "executor_id")]
    _executor_id: IgnoredAny,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublisherEntry {
    topic_name: String,
    msg_type: MsgType,
    period_ms: Option<f64>,
    freq_hz: Option<f64>,
    msg_size: Option<u64>,
    #[serde(default, rename = "msg_pass_by")]
    _msg_pass_by: Option<PassBy>,
    #[serde(default, rename = "qos_history")]
    _qos_history: IgnoredAny,
    #[serde(default, rename = "qos_depth")]
    _qos_depth: IgnoredAny,
    #[serde(default, rename = "qos_reliability")]
    _qos_reliability: IgnoredAny,
    #[serde(default, rename = "qos_durability")]
    _qos_durability: IgnoredAny,
    #[serde(default, rename = "qos_liveliness")]
    _qos_liveliness: IgnoredAny,
    #[serde(default, rename = "qos_deadline")]
    _qos_deadline: IgnoredAny,
    #[serde(default, rename = "qos_lifespan")]
    _qos_lifespan: IgnoredAny,
    #[serde(default, rename = "qos_liveliness_lease_duration")]
    _qos_liveliness_lease_duration: IgnoredAny,
    #[serde(default, rename = "qos_avoid_ros_namespace_conventions")]
    _qos_avoid_ros_namespace_conventions: IgnoredAny,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubscriberEntry {
    topic_name: String,
    msg_type: MsgType,
    qos_history: Option<HistoryKind>,
    qos_depth: Option<usize>,
    #[serde(default, rename = "msg_pass_by")]
    _msg_pass_by: Option<PassBy>,
    #[serde(default, rename = "qos_reliability")]
    _qos_reliability: IgnoredAny,
    #[serde(default, rename = "qos_durability")]
    _qos_durability: IgnoredAny,
    #[serde(default, rename = "qos_liveliness")]
    _qos_liveliness: IgnoredAny,
    #[serde(default, rename = "qos_deadline")]
    _qos_deadline: IgnoredAny,
    #[serde(default, rename = "qos_lifespan")]
    _qos_lifespan: IgnoredAny,
    #[serde(default, rename = "qos_liveliness_lease_duration")]
    _qos_liveliness_lease_duration: IgnoredAny,
    #[serde(default, rename = "qos_avoid_ros_namespace_conventions")]
    _qos_avoid_ros_namespace_conventions: IgnoredAny,
}

/// Checked, so that a value upstream would not know is refused; otherwise unused.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PassBy {
    UniquePtr,
    SharedPtr,
}

/// `system_default` and `keep_last` both keep the last `qos_depth` samples.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum HistoryKind {
    SystemDefault,
    KeepLast,
    KeepAll,
}

/// Builds the spec from the parsed file, or says what makes the graph impossible.
fn check(name: String, file: File) -> Result<Spec, String> {
    let copies = file
        .nodes
        .iter()
        .fold(0u64, |sum, n| sum.saturating_add(n.number.unwrap_or(1)));
    if copies > MAX_NODES {
        return Err(format!(
            "{copies} nodes, copies included: at most {MAX_NODES}"
        ));
    }
    // The runtime's own naming rules, rather than a copy of them: a scratch graph is asked.
    let scratch = Context::new();
    let mut names = HashSet::new();
    let mut types: HashMap<String, (MsgType, String)> = HashMap::new();
    let mut nodes = Vec::new();
    let mut ignored_services = 0;
    for entry in &file.nodes {
        let node_names: Vec<String> = match entry.number {
            None => vec![entry.node_name.clone()],
            Some(0) => {
                return Err(format!(
                    "node {:?}: number must be at least 1",
                    entry.node_name
                ));
            }
            Some(n) => (1..=n)
                .map(|i| format!("{}_{i}", entry.node_name))
                .collect(),
        };
        for name in node_names {
            let mut probe = scratch.node(&name).map_err(|e| e.to_string())?;
            if !names.insert(name.clone()) {
                return Err(format!("two nodes are named {name:?}"));
            }
            let mut node = NodeSpec {
                name,
                publishers: Vec::new(),
                subscribers: Vec::new(),
            };
            for p in &entry.publishers {
                let context = || format!("node {}, publisher of {:?}", node.name, p.topic_name);
                let publisher = publisher(p).map_err(|e| format!("{}: {e}", context()))?;
                probe
                    .publisher::<Stamped10b>(&p.topic_name)
                    .create()
                    .map_err(|e| format!("{}: {e}", context()))?;
                same_type(&mut types, &p.topic_name, p.msg_type, context)?;
                node.publishers.push(publisher);
            }
            for s in &entry.subscribers {
                let context = || format!("node {}, subscriber of {:?}", node.name, s.topic_name);
                let history = history(s).map_err(|e| format!("{}: {e}", context()))?;
                same_type(&mut types, &s.topic_name, s.msg_type, context)?;
                node.subscribers.push(SubscriberSpec {
                    topic: s.topic_name.clone(),
                    msg_type: s.msg_type,
                    history,
                });
            }
            ignored_services += entry.clients.len() + entry.servers.len();
            nodes.push(node);
        }
    }
    let published: HashSet<&str> = nodes
        .iter()
        .flat_map(|n| &n.publishers)
        .map(|p| p.topic.as_str())
        .collect();
    if published.is_empty() {
        return Err("no node publishes anything: there is nothing to measure".into());
    }
    for node in &nodes {
        if let Some(s) = node
            .subscribers
            .iter()
            .find(|s| !published.contains(s.topic.as_str()))
        {
            return Err(format!(
                "node {}, subscriber of {:?}: no node publishes this topic",
                node.name, s.topic
            ));
        }
    }
    Ok(Spec {
        name,
        nodes,
        ignored_services,
    })
}

fn publisher(p: &PublisherEntry) -> Result<PublisherSpec, String> {
    let period_ms = match (p.period_ms, p.freq_hz) {
        (Some(ms), None) => ms,
        (None, Some(hz)) if hz > 0.0 => 1000.0 / hz,
        (None, Some(hz)) => return Err(format!("freq_hz must be above zero, not {hz}")),
        (Some(_), Some(_)) => return Err("give period_ms or freq_hz, not both".into()),
        (None, None) => return Err("a publisher needs period_ms (or freq_hz)".into()),
    };
    let period = Duration::try_from_secs_f64(period_ms / 1000.0)
        .ok()
        .filter(|p| !p.is_zero())
        .ok_or_else(|| format!("period_ms must be above zero, not {period_ms}"))?;
    let msg_size = match (p.msg_type.fixed_size(), p.msg_size) {
        (Some(fixed), None) => fixed,
        (Some(fixed), Some(_)) => {
            return Err(format!(
                "msg_size applies to stamped_vector only; {} has a fixed {fixed}-byte payload",
                p.msg_type.name()
            ));
        }
        (None, size) if size.unwrap_or(0) > MAX_MSG_SIZE => {
            return Err(format!(
                "msg_size {} is above the limit of {MAX_MSG_SIZE} bytes",
                size.unwrap_or(0)
            ));
        }
        // Below the limit, so it fits.
        (None, size) => size.unwrap_or(0) as usize,
    };
    Ok(PublisherSpec {
        topic: p.topic_name.clone(),
        msg_type: p.msg_type,
        period,
        msg_size,
    })
}

fn history(s: &SubscriberEntry) -> Result<History, String> {
    match s.qos_history {
        Some(HistoryKind::KeepAll) => Ok(History::KeepAll { max: KEEP_ALL_MAX }),
        _ => match s.qos_depth.unwrap_or(DEFAULT_DEPTH) {
            0 => Err("qos_depth must be at least 1".into()),
            depth => Ok(History::KeepLast(depth)),
        },
    }
}

/// Records the type `topic` carries, or says that it already carries another.
fn same_type(
    types: &mut HashMap<String, (MsgType, String)>,
    topic: &str,
    msg_type: MsgType,
    context: impl Fn() -> String,
) -> Result<(), String> {
    match types.get(topic) {
        Some((existing, first)) if *existing != msg_type => Err(format!(
            "{}: topic {topic:?} is used with two message types, {} here and {} by {first}",
            context(),
            msg_type.name(),
            existing.name(),
        )),
        Some(_) => Ok(()),
        None => {
            types.insert(topic.to_owned(), (msg_type, context()));
            Ok(())
        }
    }
}
