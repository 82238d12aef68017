//! Start order: a process may wait (`wait_for`) for a node, topic or service to appear on the
//! ROS 2 graph, or for a managed node to be active, before it starts. The launch watches the
//! graph over DDS (the domain of `ROS_DOMAIN_ID`, as ROS 2's tools), so what is waited for must
//! be on DDS: a ROS 2 node, or a tacto process with `transport = "dds"` or `"shm+dds"`.
//!
//! A managed node is brought up as Nav2's lifecycle manager does: through its
//! `change_state` service, `configure` then `activate`, each call waited for; a transition
//! that fails ends the launch naming the node and the transition.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tacto::msg::lifecycle_msgs::{msg as lifecycle, srv};
use tacto::{Client, Context, Node};
use tacto_dds::{DdsTransport, Discovery, Participant};
use toml::Spanned;

use crate::file::{LaunchFileError, ProcessKind, ProcessSpec, SourceFile};

/// How long a process waits when its `wait_for` gives no `timeout_s`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest wait a file may ask for.
const MAX_TIMEOUT_S: f64 = 3600.0;

/// How long one lifecycle service call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What a process waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitFor {
    /// A node of this fully qualified name on the graph.
    Node(String),
    /// A topic of this name with a publisher.
    Topic(String),
    /// A service of this name with a server.
    Service(String),
    /// A managed node, brought to active through its lifecycle services.
    Active(String),
}

impl std::fmt::Display for WaitFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WaitFor::Node(name) => write!(f, "node {name}"),
            WaitFor::Topic(name) => write!(f, "topic {name}"),
            WaitFor::Service(name) => write!(f, "service {name}"),
            WaitFor::Active(name) => write!(f, "managed node {name} to be active"),
        }
    }
}

/// One wait of a process: what, for how long, and where the file says so.
#[derive(Debug, Clone, PartialEq)]
pub struct Wait {
    /// What is waited for.
    pub what: WaitFor,
    /// How long, from the launch's start, before the launch fails.
    pub timeout: Duration,
    /// `file:line:column` of the wait in its launch file.
    pub origin: String,
}

/// One `wait_for` entry: exactly one of `node`, `topic`, `service`, `active`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWait {
    node: Option<String>,
    topic: Option<String>,
    service: Option<String>,
    active: Option<String>,
    timeout_s: Option<f64>,
}

/// Checks a process's `wait_for` list.
pub(super) fn parse(
    raw: Option<Spanned<Vec<Spanned<RawWait>>>>,
    source: &SourceFile<'_>,
    process: &str,
) -> Result<Vec<Wait>, LaunchFileError> {
    let here = |reason: String| format!("process {process:?}: wait_for: {reason}");
    let mut waits = Vec::new();
    for entry in raw.map(Spanned::into_inner).unwrap_or_default() {
        let span = entry.span();
        let raw = entry.into_inner();
        let given = [
            raw.node.map(WaitFor::Node),
            raw.topic.map(WaitFor::Topic),
            raw.service.map(WaitFor::Service),
            raw.active.map(WaitFor::Active),
        ];
        let mut given = given.into_iter().flatten();
        let (Some(what), None) = (given.next(), given.next()) else {
            return Err(source.invalid(
                span,
                here("give exactly one of node, topic, service or active".into()),
            ));
        };
        let name = match &what {
            WaitFor::Node(n) | WaitFor::Topic(n) | WaitFor::Service(n) | WaitFor::Active(n) => n,
        };
        if !name.starts_with('/') || name.len() < 2 || name.contains(char::is_whitespace) {
            return Err(source.invalid(
                span,
                here(format!("{name:?} is not an absolute name (\"/ns/name\")")),
            ));
        }
        let timeout = match raw.timeout_s {
            None => DEFAULT_TIMEOUT,
            Some(t) if t > 0.0 && t <= MAX_TIMEOUT_S => Duration::from_secs_f64(t),
            Some(_) => {
                return Err(source.invalid(
                    span,
                    here(format!(
                        "timeout_s: give more than 0 and at most {MAX_TIMEOUT_S}"
                    )),
                ));
            }
        };
        waits.push(Wait {
            what,
            timeout,
            origin: source.location(span.start),
        });
    }
    Ok(waits)
}

/// The fully qualified names of the nodes a process starts, where the file says them.
fn nodes_of(process: &ProcessSpec, topology_namespace: Option<&str>) -> Vec<String> {
    match &process.kind {
        ProcessKind::Components(c) => c.nodes.iter().map(|n| n.fully_qualified_name()).collect(),
        ProcessKind::Exec(exec) => match &exec.node_name {
            Some(name) => vec![match exec.namespace.as_deref() {
                None | Some("/") => format!("/{name}"),
                Some(ns) => format!("{ns}/{name}"),
            }],
            None => Vec::new(),
        },
        ProcessKind::Nodes(nodes) => (nodes.nodes.iter())
            .map(|n| match topology_namespace {
                Some(ns) => format!("/{ns}/{n}"),
                None => format!("/{n}"),
            })
            .collect(),
    }
}

/// Refuses waits that can never end: a cycle of processes each waiting for a node of the next
/// (named with where the first wait of the cycle is), or a wait for a node of this file that
/// only shared memory carries, which the launch cannot see.
pub(super) fn check(
    processes: &[ProcessSpec],
    topology_namespace: Option<&str>,
    dds: bool,
) -> Result<(), LaunchFileError> {
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for (i, process) in processes.iter().enumerate() {
        for node in nodes_of(process, topology_namespace) {
            owner.insert(node, i);
        }
    }
    // Edges: a process waits for a node (or managed node) another process starts.
    let mut edges: Vec<Vec<(usize, &Wait)>> = vec![Vec::new(); processes.len()];
    for (i, process) in processes.iter().enumerate() {
        for wait in &process.waits {
            let (WaitFor::Node(node) | WaitFor::Active(node)) = &wait.what else {
                continue;
            };
            let Some(&j) = owner.get(node) else {
                continue;
            };
            if !dds && !matches!(processes[j].kind, ProcessKind::Exec(_)) {
                return Err(LaunchFileError::Order {
                    origin: wait.origin.clone(),
                    reason: format!(
                        "process {:?} waits for node {node} of process {:?}, which only shared \
                         memory carries: give transport = \"shm+dds\" so that the launch sees it",
                        process.name, processes[j].name
                    ),
                });
            }
            edges[i].push((j, wait));
        }
    }
    // Depth-first search for a cycle, from each process in the file's order.
    for start in 0..processes.len() {
        let mut path = vec![start];
        let mut seen = BTreeSet::new();
        if let Some(cycle) = find_cycle(&edges, &mut path, &mut seen) {
            let names: Vec<&str> = cycle.iter().map(|&i| processes[i].name.as_str()).collect();
            let (_, first) = edges[cycle[0]]
                .iter()
                .find(|(j, _)| *j == cycle[1 % cycle.len()])
                .copied()
                .unwrap_or((0, &processes[cycle[0]].waits[0]));
            return Err(LaunchFileError::Order {
                origin: first.origin.clone(),
                reason: format!(
                    "a cycle of waits: {} → {}: none of them would ever start",
                    names.join(" → "),
                    names[0]
                ),
            });
        }
    }
    Ok(())
}

fn find_cycle(
    edges: &[Vec<(usize, &Wait)>],
    path: &mut Vec<usize>,
    seen: &mut BTreeSet<usize>,
) -> Option<Vec<usize>> {
    let here = *path.last()?;
    for &(next, _) in &edges[here] {
        if let Some(at) = path.iter().position(|&p| p == next) {
            return Some(path[at..].to_vec());
        }
        if seen.insert(next) {
            path.push(next);
            if let Some(cycle) = find_cycle(edges, path, seen) {
                return Some(cycle);
            }
            path.pop();
        }
    }
    None
}

/// Why a wait failed.
#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    /// The launch could not join the DDS domain to watch the graph.
    #[error("watching the ROS 2 graph: {0}")]
    Join(String),
    /// What a process waited for did not come in time.
    #[error("process {process:?} waited {} s for {what} ({origin}): it did not appear", timeout.as_secs_f64())]
    Timeout {
        /// The process.
        process: String,
        /// What it waited for.
        what: WaitFor,
        /// Where the file says so.
        origin: String,
        /// How long it waited.
        timeout: Duration,
    },
    /// A managed node refused a transition.
    #[error("process {process:?}: managed node {node}: transition {transition} failed: {reason}")]
    Transition {
        /// The process that waited.
        process: String,
        /// The managed node.
        node: String,
        /// `configure` or `activate`.
        transition: &'static str,
        /// What went wrong.
        reason: String,
    },
}

/// Watches the graph for the launch's waits: DDS discovery, and a node of the launch's own
/// that calls managed nodes' lifecycle services.
pub struct Watcher {
    discovery: Discovery,
    lifecycle: Node,
    _ctx: Context,
    /// Managed nodes already brought to active.
    active: BTreeSet<String>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// Joins the domain of the environment (`ROS_DOMAIN_ID` and the rest).
    pub fn join() -> Result<Watcher, OrderError> {
        let join = |e: &dyn std::error::Error| OrderError::Join(e.to_string());
        let participant = Participant::from_env().map_err(|e| join(&e))?;
        let discovery = Discovery::new(&participant).map_err(|e| join(&e))?;
        let ctx = Context::builder()
            .transport(DdsTransport::new(participant))
            .create();
        let lifecycle = ctx
            .node_builder("tacto_launch_lifecycle_manager")
            .start_parameter_services(false)
            .create()
            .map_err(|e| join(&e))?;
        Ok(Watcher {
            discovery,
            lifecycle,
            _ctx: ctx,
            active: BTreeSet::new(),
        })
    }

    /// Whether every wait of `process` is met now; managed nodes it waits for are brought up
    /// (configure, activate) once they are on the graph.
    pub fn ready(&mut self, process: &ProcessSpec) -> Result<bool, OrderError> {
        // A refresh that fails leaves the last view, which only delays a start.
        let _ = self.discovery.refresh();
        for wait in &process.waits {
            let met = match &wait.what {
                WaitFor::Node(name) => self.discovery.nodes().iter().any(|n| n == name),
                WaitFor::Topic(name) => (self.discovery.topics().iter())
                    .any(|t| &t.name == name && !t.publishers.is_empty()),
                WaitFor::Service(name) => (self.discovery.services().iter())
                    .any(|s| &s.name == name && !s.servers.is_empty()),
                WaitFor::Active(name) => self.bring_up(&process.name, name)?,
            };
            if !met {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The first wait of `process` not met by `started + timeout`, as the error to end with.
    pub fn overdue(&self, process: &ProcessSpec, started: Instant) -> Option<OrderError> {
        let now = Instant::now();
        let wait = process.waits.iter().find(|w| now >= started + w.timeout)?;
        Some(OrderError::Timeout {
            process: process.name.clone(),
            what: wait.what.clone(),
            origin: wait.origin.clone(),
            timeout: wait.timeout,
        })
    }

    /// Brings managed node `node` to active if its services are up: `configure` from
    /// unconfigured, `activate` from inactive; true once it is active.
    fn bring_up(&mut self, process: &str, node: &str) -> Result<bool, OrderError> {
        if self.active.contains(node) {
            return Ok(true);
        }
        let get_state: Client<srv::GetState> = self
            .lifecycle
            .client(&format!("{node}/get_state"))
            .create()
            .map_err(|e| OrderError::Join(e.to_string()))?;
        if !get_state.service_is_ready() {
            return Ok(false);
        }
        let change: Client<srv::ChangeState> = self
            .lifecycle
            .client(&format!("{node}/change_state"))
            .create()
            .map_err(|e| OrderError::Join(e.to_string()))?;
        let fail = |transition: &'static str, reason: String| OrderError::Transition {
            process: process.to_owned(),
            node: node.to_owned(),
            transition,
            reason,
        };
        loop {
            let state = get_state
                .call(srv::GetState_Request::default(), CALL_TIMEOUT)
                .map_err(|e| fail("get_state", e.to_string()))?
                .current_state;
            let (transition, id) = match state.id {
                lifecycle::State::PRIMARY_STATE_ACTIVE => {
                    self.active.insert(node.to_owned());
                    return Ok(true);
                }
                lifecycle::State::PRIMARY_STATE_UNCONFIGURED => {
                    ("configure", lifecycle::Transition::TRANSITION_CONFIGURE)
                }
                lifecycle::State::PRIMARY_STATE_INACTIVE => {
                    ("activate", lifecycle::Transition::TRANSITION_ACTIVATE)
                }
                _ => {
                    return Err(fail(
                        "configure",
                        format!(
                            "the node is {} ({}), not unconfigured or inactive",
                            state.label, state.id
                        ),
                    ));
                }
            };
            let request = srv::ChangeState_Request {
                transition: lifecycle::Transition {
                    id,
                    label: String::new(),
                },
            };
            let done = change
                .call(request, CALL_TIMEOUT)
                .map_err(|e| fail(transition, e.to_string()))?;
            if !done.success {
                return Err(fail(
                    transition,
                    "the node's callback returned failure".into(),
                ));
            }
        }
    }
}
