//! The topology file, `autoware_reference_system.json`: its format and its checks.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::message::{NODE_NAME_BYTES, STATS_CAPACITY};
use crate::topology::TopologyError;

/// The reference system as its topology file describes it, read and checked.
///
/// # Examples
/// ```
/// use std::path::Path;
/// use tacto_bench::topology::TopologyError;
/// use tacto_bench::topology::reference_system::Spec;
///
/// let json = r#"{
///   "message": { "type": "Message4kb", "bytes": 4096, "stats_capacity": 63 },
///   "qos": { "history": "keep_last", "depth": 1 },
///   "nodes": [
///     { "name": "Lidar", "kind": "sensor", "period_ms": 100, "output": "Lidar" },
///     { "name": "Filter", "kind": "transform", "input": "Lidr", "output": "Filter" },
///     { "name": "Sink", "kind": "command", "input": "Filter", "depth": 10 }
///   ],
///   "hot_path": { "roots": ["Lidar"], "nodes": ["Lidar", "Filter"], "sink": "Filter" },
///   "behavior_planner": "Filter"
/// }"#;
/// let error = Spec::from_json(json, Path::new("small.json")).unwrap_err();
/// assert!(matches!(error, TopologyError::Inconsistent { .. }));
/// assert!(error.to_string().contains("Lidr"));
/// assert!(Spec::from_json(&json.replace("Lidr", "Lidar"), Path::new("small.json")).is_ok());
/// ```
#[derive(Debug, Clone, Deserialize)]
pub struct Spec {
    message: MessageSpec,
    qos: Qos,
    pub(crate) nodes: Vec<NodeSpec>,
    pub(crate) hot_path: HotPath,
    pub(crate) behavior_planner: String,
}

/// The message the file asks for; only `Message4kb` exists.
#[derive(Debug, Clone, Deserialize)]
struct MessageSpec {
    #[serde(rename = "type")]
    type_name: String,
    bytes: u64,
    stats_capacity: u64,
}

/// The QoS of every processing node's publishers and subscriptions. Intra-process delivery is
/// reliable and volatile, whatever the file says about those two.
#[derive(Debug, Clone, Deserialize)]
struct Qos {
    history: String,
    depth: usize,
}

/// One node of the file.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct NodeSpec {
    pub(crate) name: String,
    #[serde(flatten)]
    pub(crate) kind: Kind,
}

/// A node's kind and what it needs. Topics are named by their publishing node's output.
///
/// A processing node's `crunch` in the file is upstream's default; each run takes its limit
/// from [`RunConfig::crunch`](crate::system::RunConfig::crunch) instead, so the file's value is
/// not read.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Kind {
    /// Publishes on a timer.
    Sensor { period_ms: i64, output: String },
    /// Runs on every input sample.
    Transform { input: String, output: String },
    /// Runs when both inputs are present.
    Fusion { inputs: [String; 2], output: String },
    /// Runs on a timer with whatever inputs arrived.
    Cyclic {
        period_ms: i64,
        inputs: Vec<String>,
        output: String,
    },
    /// Independent transforms in one node.
    Intersection { connections: Vec<Connection> },
    /// A sink: computes the KPIs.
    Command { input: String, depth: usize },
}

/// One transform of an intersection node.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Connection {
    pub(crate) input: String,
    pub(crate) output: String,
}

/// The path whose latency is the main KPI.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct HotPath {
    pub(crate) roots: Vec<String>,
    pub(crate) nodes: Vec<String>,
    pub(crate) sink: String,
}

impl Spec {
    /// Reads and checks a topology file (`autoware_reference_system.json`).
    pub fn from_file(path: &Path) -> Result<Spec, TopologyError> {
        let json = std::fs::read_to_string(path).map_err(|source| TopologyError::Read {
            path: path.to_owned(),
            source,
        })?;
        Spec::from_json(&json, path)
    }

    /// Parses and checks the text of a topology file; `path` only names it in errors.
    pub fn from_json(json: &str, path: &Path) -> Result<Spec, TopologyError> {
        let spec: Spec = serde_json::from_str(json).map_err(|e| TopologyError::Malformed {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        spec.check().map_err(|reason| TopologyError::Inconsistent {
            path: PathBuf::from(path),
            reason,
        })?;
        Ok(spec)
    }

    /// The history depth of every processing node's subscriptions.
    pub(crate) fn depth(&self) -> usize {
        self.qos.depth
    }

    /// Every period in the file: the sensors' and the cyclic nodes' timers.
    pub(crate) fn periods(&self) -> impl Iterator<Item = Duration> + '_ {
        self.nodes.iter().filter_map(|node| match node.kind {
            Kind::Sensor { period_ms, .. } | Kind::Cyclic { period_ms, .. } => {
                Some(Duration::from_millis(period_ms.unsigned_abs()))
            }
            _ => None,
        })
    }

    /// The behaviour planner's period, if it runs on a timer of its own (as in upstream's
    /// file, where it is a cyclic node of 100 ms).
    pub fn planner_period(&self) -> Option<Duration> {
        let planner = self
            .nodes
            .iter()
            .find(|n| n.name == self.behavior_planner)?;
        match planner.kind {
            Kind::Sensor { period_ms, .. } | Kind::Cyclic { period_ms, .. } => {
                Some(Duration::from_millis(period_ms.unsigned_abs()))
            }
            _ => None,
        }
    }

    /// The names of the nodes, in the file's order.
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.nodes.iter().map(|n| n.name.as_str())
    }

    /// The node that publishes `topic`.
    pub(crate) fn publisher_of(&self, topic: &str) -> Option<&NodeSpec> {
        self.nodes
            .iter()
            .find(|n| n.kind.outputs().any(|o| o == topic))
    }

    /// Says what makes the graph impossible, naming the node, topic or field.
    fn check(&self) -> Result<(), String> {
        let MessageSpec {
            type_name,
            bytes,
            stats_capacity,
        } = &self.message;
        if (type_name.as_str(), *bytes, *stats_capacity) != ("Message4kb", 4096, 63) {
            return Err(format!(
                "message: only Message4kb of 4096 bytes with {STATS_CAPACITY} stats entries \
                 exists, not {type_name} of {bytes} bytes with {stats_capacity}"
            ));
        }
        if self.qos.history != "keep_last" || self.qos.depth == 0 {
            return Err(format!(
                "qos: only keep_last with a depth of at least 1 is supported, not {} with depth {}",
                self.qos.history, self.qos.depth
            ));
        }
        let mut names = HashSet::new();
        let mut publishers: HashMap<&str, &str> = HashMap::new();
        for node in &self.nodes {
            let name = node.name.as_str();
            check_name(name)?;
            if !names.insert(name) {
                return Err(format!("node {name:?} appears twice"));
            }
            node.kind
                .check()
                .map_err(|e| format!("node {name:?}: {e}"))?;
            for topic in node.kind.outputs() {
                if let Some(other) = publishers.insert(topic, name) {
                    return Err(format!(
                        "topic {topic:?} is published by both {other:?} and {name:?}"
                    ));
                }
            }
        }
        for node in &self.nodes {
            for topic in node.kind.inputs() {
                if !publishers.contains_key(topic) {
                    return Err(format!(
                        "node {:?} subscribes to {topic:?}, which no node publishes",
                        node.name
                    ));
                }
            }
        }
        let named = self
            .hot_path
            .roots
            .iter()
            .map(|n| ("hot_path.roots", n))
            .chain(self.hot_path.nodes.iter().map(|n| ("hot_path.nodes", n)))
            .chain([("hot_path.sink", &self.hot_path.sink)])
            .chain([("behavior_planner", &self.behavior_planner)]);
        for (field, name) in named {
            if !names.contains(name.as_str()) {
                return Err(format!("{field} names node {name:?}, which does not exist"));
            }
        }
        Ok(())
    }
}

/// A name that fits an entry and that tacto accepts for a node.
fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "node name {name:?} is not valid: use letters, digits and '_', not starting with a digit"
        ));
    }
    if name.len() >= NODE_NAME_BYTES {
        return Err(format!(
            "node name {name:?} is longer than the {} bytes a message entry holds",
            NODE_NAME_BYTES - 1
        ));
    }
    Ok(())
}

impl Kind {
    /// The topics the node subscribes to.
    pub(crate) fn inputs(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match self {
            Kind::Sensor { .. } => Box::new(std::iter::empty()),
            Kind::Transform { input, .. } | Kind::Command { input, .. } => {
                Box::new(std::iter::once(input.as_str()))
            }
            Kind::Fusion { inputs, .. } => Box::new(inputs.iter().map(String::as_str)),
            Kind::Cyclic { inputs, .. } => Box::new(inputs.iter().map(String::as_str)),
            Kind::Intersection { connections } => {
                Box::new(connections.iter().map(|c| c.input.as_str()))
            }
        }
    }

    /// The topics the node publishes.
    pub(crate) fn outputs(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match self {
            Kind::Sensor { output, .. }
            | Kind::Transform { output, .. }
            | Kind::Fusion { output, .. }
            | Kind::Cyclic { output, .. } => Box::new(std::iter::once(output.as_str())),
            Kind::Intersection { connections } => {
                Box::new(connections.iter().map(|c| c.output.as_str()))
            }
            Kind::Command { .. } => Box::new(std::iter::empty()),
        }
    }

    fn check(&self) -> Result<(), String> {
        match self {
            Kind::Sensor { period_ms, .. } | Kind::Cyclic { period_ms, .. } if *period_ms <= 0 => {
                Err(format!("period_ms must be above zero, not {period_ms}"))
            }
            Kind::Cyclic { inputs, .. } if inputs.is_empty() => {
                Err("a cyclic node needs at least one input".into())
            }
            Kind::Intersection { connections } if connections.is_empty() => {
                Err("an intersection needs at least one connection".into())
            }
            Kind::Command { depth: 0, .. } => Err("depth must be at least 1".into()),
            _ => Ok(()),
        }
    }
}
