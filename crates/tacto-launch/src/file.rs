//! The launch file (TOML): which processes host which components, run which nodes of a
//! built-in topology ([`topology`](mod@crate::topology)), on which executors and thread
//! settings, or which executables with which ROS arguments ([`exec`](mod@crate::exec)),
//! restarted how. docs/launch.md describes the format.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use tacto::Context;
use tacto_dds::DdsTransport;
use tacto_shm::{Limit, ShmLimits, ShmTransport};

use crate::args;
use crate::components::{self, ComponentsProcess, RawExecutor, RawPlacement, SingleExecutor};
use crate::exec::{self, ExecProcess, RawExec, RawRemap};
use crate::executors::ExecutorKind;
use crate::order::{self, RawWait, Wait};
use crate::process::ProcessError;
use crate::topology;

/// The longest process name: it names an iceoryx2 node and prefixes log lines.
const MAX_NAME: usize = 64;

/// How long stopped processes get between SIGTERM and SIGKILL, unless the file says.
const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// The longest grace period a file may ask for.
const MAX_GRACE_S: f64 = 600.0;

/// The most restarts `on-failure` may allow, so that a crash loop ends.
const MAX_RESTARTS: u32 = 1000;

/// Restarts under `on-failure` when the file gives no `max_restarts`.
const DEFAULT_RESTARTS: u32 = 3;

/// A launch file, read and checked.
///
/// # Examples
/// ```
/// use std::path::Path;
/// use tacto_launch::{LaunchFile, Restart};
///
/// let text = r#"
/// [[process]]
/// name = "talker"
/// restart = "on-failure"
/// [[process.node]]
/// component = "demo::Talker"
///
/// [[process]]
/// name = "listener"
/// [[process.node]]
/// component = "demo::Talker"
/// "#;
/// let error = LaunchFile::parse(text, Path::new("demo.toml")).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "demo.toml:9:8: process \"listener\": node: node /Talker is placed twice (also in \
///      process \"talker\")"
/// );
/// let listener = "name = \"listener\"\n[[process.node]]\ncomponent = \"demo::Listener\"";
/// let text = text.replace(&listener.replace("Listener", "Talker"), listener);
/// let file = LaunchFile::parse(&text, Path::new("demo.toml")).unwrap();
/// assert_eq!(file.processes[0].restart, Restart::OnFailure { max: 3 });
/// ```
#[derive(Debug, Clone)]
pub struct LaunchFile {
    /// The name of the built-in topology whose nodes the processes run
    /// ([`topology`](mod@crate::topology)), if the file names one.
    pub topology: Option<String>,
    /// Every topic of the topology under `/<namespace>/`, if given.
    pub namespace: Option<String>,
    /// Work per processing node run (the reference system's crunch limit).
    pub crunch: u64,
    /// Between SIGTERM and SIGKILL when the launch stops.
    pub grace: Duration,
    /// How the processes' topics reach each other.
    pub transport: LaunchTransport,
    /// The shared-memory limits of every process (the `[shm]` table), so that all processes
    /// agree on the topics' limits whichever creates a topic.
    pub shm: ShmLimits,
    /// The processes, in the file's order.
    pub processes: Vec<ProcessSpec>,
}

/// One process of a launch file.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessSpec {
    /// Its name: the log prefix `[name]`.
    pub name: String,
    /// What happens when it ends.
    pub restart: Restart,
    /// What it runs.
    pub kind: ProcessKind,
    /// What must be on the graph before it starts ([`order`](mod@super::order)).
    pub waits: Vec<Wait>,
    /// `file:line:column` of its name, for errors about it.
    pub origin: String,
}

impl ProcessSpec {
    /// Its executor, if it runs nodes of the topology.
    pub fn executor(&self) -> Option<ExecutorKind> {
        match &self.kind {
            ProcessKind::Nodes(nodes) => Some(nodes.executor),
            ProcessKind::Components(_) | ProcessKind::Exec(_) => None,
        }
    }
}

/// What a process runs.
#[derive(Debug, Clone, PartialEq)]
pub enum ProcessKind {
    /// Nodes of the file's built-in topology (`nodes`, `executor`), in a `tacto launch-process`
    /// child.
    Nodes(NodesProcess),
    /// Registered components (`[[process.node]]`), on executors of the process's own, in a
    /// `tacto launch-process` child.
    Components(ComponentsProcess),
    /// An executable (`exec`), with ROS 2's arguments if it is a node.
    Exec(ExecProcess),
}

/// A process that runs nodes of the file's built-in topology.
#[derive(Debug, Clone, PartialEq)]
pub struct NodesProcess {
    /// The topology's nodes it runs.
    pub nodes: Vec<String>,
    /// Its one executor.
    pub executor: ExecutorKind,
    /// The CPUs its executor thread may run on, if pinned.
    pub cpus: Option<Vec<usize>>,
    /// Its executor thread's `SCHED_FIFO` priority, if real-time.
    pub fifo_priority: Option<u8>,
}

/// How the processes of a launch reach each other (`transport = "shm"`, `"dds"` or
/// `"shm+dds"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchTransport {
    /// Shared memory (iceoryx2), the default: processes of this host only.
    SharedMemory,
    /// DDS (Cyclone), in the ROS 2 domain of the environment (`ROS_DOMAIN_ID` and the rest):
    /// across hosts, and visible to ROS 2's tools.
    Dds,
    /// Both: shared memory between the tacto processes of this host, DDS for everyone else
    /// (ROS 2 nodes, other hosts), each sample one way only.
    SharedMemoryAndDds,
}

/// What the launch does when a process ends on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Never restarted.
    Never,
    /// Restarted when it fails (a non-zero exit or a signal), at most `max` times.
    OnFailure {
        /// How many restarts in all.
        max: u32,
    },
}

/// Why a launch file was refused.
#[derive(Debug, thiserror::Error)]
pub enum LaunchFileError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// Not TOML of the launch file's shape (toml's message names the line and field).
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// What is wrong, where.
        message: String,
    },
    /// Well-formed, but a value is wrong.
    #[error("{}:{line}:{column}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Where the value is, from 1.
        line: usize,
        /// Its column, from 1.
        column: usize,
        /// What is wrong, naming the process and field.
        reason: String,
    },
    /// A launch argument given on the command line that the file does not declare.
    #[error("{}: {reason}", path.display())]
    Argument {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Waits that can never end (a cycle, or a node the launch cannot see).
    #[error("{origin}: {reason}")]
    Order {
        /// `file:line:column` of the wait.
        origin: String,
        /// What is wrong, naming the processes.
        reason: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    topology: Option<Spanned<String>>,
    namespace: Option<Spanned<String>>,
    crunch: Option<Spanned<i64>>,
    grace_s: Option<Spanned<f64>>,
    transport: Option<Spanned<String>>,
    shm: Option<Spanned<RawShm>>,
    /// Read before the rest, by [`args::substitute`]: here only allowed.
    #[serde(rename = "arg")]
    _arg: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    include: Vec<Spanned<RawInclude>>,
    #[serde(default)]
    group: Vec<Spanned<RawGroup>>,
    #[serde(default)]
    process: Vec<Spanned<RawProcess>>,
}

/// An `[[include]]`: another launch file's processes, with its arguments, under a namespace.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInclude {
    file: Spanned<String>,
    namespace: Option<Spanned<String>>,
    args: Option<BTreeMap<String, Spanned<toml::Value>>>,
}

/// A `[[group]]`: processes whose nodes go under a namespace.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGroup {
    namespace: Spanned<String>,
    #[serde(default)]
    process: Vec<Spanned<RawProcess>>,
}

/// The `[shm]` table: `tacto_shm::ShmLimits` by their `Limit::key` names.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShm {
    max_publishers: Option<Spanned<i64>>,
    max_subscribers: Option<Spanned<i64>>,
    max_depth: Option<Spanned<i64>>,
    max_held: Option<Spanned<i64>>,
    max_history: Option<Spanned<i64>>,
}

impl RawShm {
    fn get(&self, limit: Limit) -> Option<&Spanned<i64>> {
        match limit {
            Limit::Publishers => self.max_publishers.as_ref(),
            Limit::Subscribers => self.max_subscribers.as_ref(),
            Limit::Depth => self.max_depth.as_ref(),
            Limit::Held => self.max_held.as_ref(),
            Limit::History => self.max_history.as_ref(),
        }
    }
}

/// A `[[process]]` table: its name and restart policy, then either a built-in one's fields
/// (`nodes`, `executor`, `cpus`, `fifo_priority`) or an executable's (`exec` and the rest).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProcess {
    name: Spanned<String>,
    restart: Option<Spanned<String>>,
    max_restarts: Option<Spanned<i64>>,
    nodes: Option<Spanned<Vec<Spanned<String>>>>,
    executor: Option<Spanned<String>>,
    cpus: Option<Spanned<Vec<usize>>>,
    fifo_priority: Option<Spanned<i64>>,
    exec: Option<Spanned<String>>,
    args: Option<Spanned<Vec<String>>>,
    env: Option<Spanned<BTreeMap<String, String>>>,
    node_name: Option<Spanned<String>>,
    namespace: Option<Spanned<String>>,
    params_files: Option<Spanned<Vec<Spanned<String>>>>,
    parameters: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    remaps: Option<Spanned<Vec<Spanned<RawRemap>>>>,
    log_level: Option<Spanned<String>>,
    node: Option<Spanned<Vec<Spanned<RawPlacement>>>>,
    executors: Option<Spanned<Vec<Spanned<RawExecutor>>>>,
    wait_for: Option<Spanned<Vec<Spanned<RawWait>>>>,
}

impl RawProcess {
    /// The first field given that only an `exec` process has, by name and place.
    fn exec_field(&self) -> Option<(&'static str, Range<usize>)> {
        [
            ("args", self.args.as_ref().map(Spanned::span)),
            ("env", self.env.as_ref().map(Spanned::span)),
            ("node_name", self.node_name.as_ref().map(Spanned::span)),
            ("namespace", self.namespace.as_ref().map(Spanned::span)),
            (
                "params_files",
                self.params_files.as_ref().map(Spanned::span),
            ),
            ("parameters", self.parameters.as_ref().map(Spanned::span)),
            ("remaps", self.remaps.as_ref().map(Spanned::span)),
            ("log_level", self.log_level.as_ref().map(Spanned::span)),
        ]
        .into_iter()
        .find_map(|(field, span)| Some((field, span?)))
    }

    /// `cpus` or `fifo_priority` without `executor`, where given.
    fn cpus_without_executor(&self) -> Option<Range<usize>> {
        if self.executor.is_some() {
            return None;
        }
        (self.cpus.as_ref().map(Spanned::span)).or(self.fifo_priority.as_ref().map(Spanned::span))
    }

    /// The first field given that only a built-in process has, by name and place.
    fn nodes_field(&self) -> Option<(&'static str, Range<usize>)> {
        [
            ("nodes", self.nodes.as_ref().map(Spanned::span)),
            ("executor", self.executor.as_ref().map(Spanned::span)),
            ("cpus", self.cpus.as_ref().map(Spanned::span)),
            (
                "fifo_priority",
                self.fifo_priority.as_ref().map(Spanned::span),
            ),
        ]
        .into_iter()
        .find_map(|(field, span)| Some((field, span?)))
    }
}

/// Where a launch file's text came from, to name places in it in errors.
#[derive(Debug, Clone, Copy)]
pub(super) struct SourceFile<'a> {
    /// The file, as given.
    pub path: &'a Path,
    /// Its text (after substitution: lines stay where they were).
    pub text: &'a str,
    /// Where strings that were one substitution whole start ([`args::Substituted`]).
    pub whole: &'a [usize],
}

impl SourceFile<'_> {
    /// The error for the value at `span`: the file, line, column and `reason`.
    pub(super) fn invalid(&self, span: Range<usize>, reason: String) -> LaunchFileError {
        let (line, column) = self.line_column(span.start);
        LaunchFileError::Invalid {
            path: self.path.to_owned(),
            line,
            column,
            reason,
        }
    }

    /// toml's own error (its message names the line and field).
    pub(super) fn syntax(&self, error: &toml::de::Error) -> LaunchFileError {
        LaunchFileError::Syntax {
            path: self.path.to_owned(),
            message: error.to_string().trim_end().to_owned(),
        }
    }

    /// The line of `span`, from 1.
    pub(super) fn line_of(&self, span: Range<usize>) -> usize {
        self.line_column(span.start).0
    }

    /// `file:line:column` of the byte at `offset`.
    pub(super) fn location(&self, offset: usize) -> String {
        let (line, column) = self.line_column(offset);
        format!("{}:{line}:{column}", self.path.display())
    }

    fn line_column(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, column)
    }
}

/// The most levels of `[[include]]` within includes.
const MAX_INCLUDE_DEPTH: usize = 8;

impl LaunchFile {
    /// Reads and checks the launch file at `path`, its arguments at their defaults.
    pub fn load(path: &Path) -> Result<LaunchFile, LaunchFileError> {
        LaunchFile::load_with(path, &BTreeMap::new())
    }

    /// Reads and checks the launch file at `path` with launch arguments `args` (`name` →
    /// value, as `tacto launch FILE name:=value` gives them).
    pub fn load_with(
        path: &Path,
        args: &BTreeMap<String, String>,
    ) -> Result<LaunchFile, LaunchFileError> {
        let text = read(path)?;
        LaunchFile::parse_with(&text, path, args)
    }

    /// Parses and checks the text of a launch file; `path` names it in errors, and relative
    /// paths in it (executables, parameter files, included files) are relative to its folder.
    pub fn parse(text: &str, path: &Path) -> Result<LaunchFile, LaunchFileError> {
        LaunchFile::parse_with(text, path, &BTreeMap::new())
    }

    /// [`parse`](Self::parse) with launch arguments.
    pub fn parse_with(
        text: &str,
        path: &Path,
        args: &BTreeMap<String, String>,
    ) -> Result<LaunchFile, LaunchFileError> {
        let unsubstituted = SourceFile {
            path,
            text,
            whole: &[],
        };
        let substituted = args::substitute(&unsubstituted, args)?;
        let source = SourceFile {
            path,
            text: &substituted.text,
            whole: &substituted.whole,
        };
        let raw: RawFile = toml::from_str(source.text).map_err(|e| source.syntax(&e))?;
        let invalid = |span: Range<usize>, reason: String| source.invalid(span, reason);
        let known = match &raw.topology {
            None => Vec::new(),
            Some(name) => {
                let Some(topology) = topology::find(name.get_ref()) else {
                    let can = match topology::names() {
                        names if names.is_empty() => {
                            "this program has no built-in topology".to_owned()
                        }
                        names => format!("{} can", names.join(", ")),
                    };
                    return Err(invalid(
                        name.span(),
                        format!("topology: {:?} cannot be launched; {can}", name.get_ref()),
                    ));
                };
                (topology.nodes)()
                    .map_err(|reason| invalid(name.span(), format!("topology: {reason}")))?
            }
        };
        let namespace = match raw.namespace {
            Some(ns) if !is_identifier(ns.get_ref()) => {
                return Err(invalid(
                    ns.span(),
                    format!(
                        "namespace: {:?} is not a name: use letters, digits and '_', not \
                         starting with a digit",
                        ns.get_ref()
                    ),
                ));
            }
            other => other.map(Spanned::into_inner),
        };
        let crunch = match raw.crunch {
            None => 4096,
            Some(c) => u64::try_from(*c.get_ref())
                .ok()
                .filter(|&c| c <= 65_536)
                .ok_or_else(|| invalid(c.span(), "crunch: give 0 to 65536".into()))?,
        };
        let grace = match raw.grace_s {
            None => DEFAULT_GRACE,
            Some(g) if (0.0..=MAX_GRACE_S).contains(g.get_ref()) => {
                Duration::from_secs_f64(*g.get_ref())
            }
            Some(g) => {
                return Err(invalid(
                    g.span(),
                    format!("grace_s: give 0 to {MAX_GRACE_S} seconds"),
                ));
            }
        };
        let transport = match raw.transport.as_ref().map(|t| (t.get_ref().as_str(), t)) {
            None | Some(("shm", _)) => LaunchTransport::SharedMemory,
            Some(("dds", _)) => LaunchTransport::Dds,
            Some(("shm+dds", _)) => LaunchTransport::SharedMemoryAndDds,
            Some((other, t)) => {
                return Err(invalid(
                    t.span(),
                    format!(
                        "transport: {other:?} is not one: give \"shm\", \"dds\" or \"shm+dds\""
                    ),
                ));
            }
        };
        let shm = match &raw.shm {
            None => ShmLimits::default(),
            Some(table) if transport == LaunchTransport::Dds => {
                return Err(invalid(
                    table.span(),
                    "shm: applies to transport = \"shm\" or \"shm+dds\" only".into(),
                ));
            }
            Some(table) => {
                // Each given value within its bound, at the value's place; then all together.
                let value_of = |limit: Limit| match table.get_ref().get(limit) {
                    None => Ok(ShmLimits::DEFAULT.get(limit)),
                    Some(value) => {
                        let max = ShmLimits::UPPER.get(limit);
                        (usize::try_from(*value.get_ref()).ok())
                            .filter(|v| (1..=max).contains(v))
                            .ok_or_else(|| {
                                invalid(value.span(), format!("shm: {limit}: give 1 to {max}"))
                            })
                    }
                };
                let shm = ShmLimits {
                    publishers: value_of(Limit::Publishers)?,
                    subscribers: value_of(Limit::Subscribers)?,
                    depth: value_of(Limit::Depth)?,
                    held: value_of(Limit::Held)?,
                    history: value_of(Limit::History)?,
                };
                shm.check()
                    .map_err(|error| invalid(table.span(), format!("shm: {error}")))?;
                shm
            }
        };
        let mut collector = Collector {
            topology_name: raw.topology.as_ref().map(|t| t.get_ref().clone()),
            known,
            placed: HashMap::new(),
            processes: Vec::new(),
            files: vec![absolute_path(path)],
        };
        collector.file(&source, raw.include, raw.group, raw.process, None)?;
        let processes = collector.processes;
        if processes.is_empty() {
            return Err(invalid(
                0..0,
                "no process: add a [[process]] table with name and nodes and executor, name \
                 and [[process.node]], or name and exec"
                    .into(),
            ));
        }
        order::check(
            &processes,
            namespace.as_deref(),
            transport != LaunchTransport::SharedMemory,
        )?;
        Ok(LaunchFile {
            topology: raw.topology.map(Spanned::into_inner),
            namespace,
            crunch,
            grace,
            transport,
            shm,
            processes,
        })
    }

    /// The process named `name`.
    pub fn process(&self, name: &str) -> Option<&ProcessSpec> {
        self.processes.iter().find(|p| p.name == name)
    }

    /// The nodes process `name` runs of the file's topology, if it is a process of nodes.
    pub fn nodes_of(&self, name: &str) -> Option<&NodesProcess> {
        match &self.process(name)?.kind {
            ProcessKind::Nodes(nodes) => Some(nodes),
            ProcessKind::Components(_) | ProcessKind::Exec(_) => None,
        }
    }

    /// A context for process `name` of the file, on the file's transport.
    pub fn context(&self, name: &str) -> Result<Context, ProcessError> {
        // Every process of the file has the file's limits, so whichever creates a topic, the
        // others can open it.
        let shm = || ShmTransport::builder(name).limits(self.shm).create();
        Ok(match self.transport {
            LaunchTransport::SharedMemory => Context::builder().transport(shm()?),
            LaunchTransport::Dds => Context::builder().transport(DdsTransport::from_env()?),
            LaunchTransport::SharedMemoryAndDds => {
                let shm = shm()?;
                let participant = tacto_dds::Participant::from_env()?;
                let dds = DdsTransport::beside_shm(participant, &shm.node().host_key()?);
                Context::builder().transport(shm).transport(dds)
            }
        }
        .create())
    }
}

/// Gathers the processes of a launch file and of the files it includes, checking what must
/// hold across all of them (names used once, nodes placed once).
struct Collector {
    topology_name: Option<String>,
    known: Vec<String>,
    /// Who places each node: a topology node by its name, a component by its full name.
    placed: HashMap<String, String>,
    processes: Vec<ProcessSpec>,
    /// The files being read, outermost first: an include of one of them is a cycle.
    files: Vec<PathBuf>,
}

impl Collector {
    /// The processes of one file: its includes, its groups, its own; `pushed` is the namespace
    /// that the including file or group puts them under.
    fn file(
        &mut self,
        source: &SourceFile<'_>,
        includes: Vec<Spanned<RawInclude>>,
        groups: Vec<Spanned<RawGroup>>,
        processes: Vec<Spanned<RawProcess>>,
        pushed: Option<&str>,
    ) -> Result<(), LaunchFileError> {
        for include in includes {
            let span = include.span();
            let include = include.into_inner();
            let namespace = self.namespace(source, include.namespace.as_ref(), pushed)?;
            let folder = source.path.parent().unwrap_or(Path::new(""));
            let path = absolute_path(&folder.join(include.file.get_ref()));
            if self.files.contains(&path) {
                return Err(source.invalid(
                    include.file.span(),
                    format!("include: {} includes itself", path.display()),
                ));
            }
            if self.files.len() > MAX_INCLUDE_DEPTH {
                return Err(source.invalid(
                    span,
                    format!("include: more than {MAX_INCLUDE_DEPTH} levels of includes"),
                ));
            }
            let text = read(&path)
                .map_err(|e| source.invalid(include.file.span(), format!("include: {e}")))?;
            let mut args = BTreeMap::new();
            for (name, value) in include.args.unwrap_or_default() {
                let text = match value.get_ref() {
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
                        value.get_ref().to_string()
                    }
                    other => {
                        return Err(source.invalid(
                            value.span(),
                            format!(
                                "include: args: {name}: a {} is not a value",
                                other.type_str()
                            ),
                        ));
                    }
                };
                args.insert(name, text);
            }
            let included = SourceFile {
                path: &path,
                text: &text,
                whole: &[],
            };
            let substituted = args::substitute(&included, &args)?;
            let included = SourceFile {
                path: &path,
                text: &substituted.text,
                whole: &substituted.whole,
            };
            let raw: RawIncluded =
                toml::from_str(included.text).map_err(|e| included.syntax(&e))?;
            self.files.push(path.clone());
            self.file(
                &included,
                raw.include,
                raw.group,
                raw.process,
                namespace.as_deref(),
            )?;
            self.files.pop();
        }
        for group in groups {
            let group = group.into_inner();
            let namespace = self.namespace(source, Some(&group.namespace), pushed)?;
            for process in group.process {
                self.process(source, process.into_inner(), namespace.as_deref())?;
            }
        }
        for process in processes {
            self.process(source, process.into_inner(), pushed)?;
        }
        Ok(())
    }

    /// A group's or include's namespace, under the one pushed already.
    fn namespace(
        &self,
        source: &SourceFile<'_>,
        namespace: Option<&Spanned<String>>,
        pushed: Option<&str>,
    ) -> Result<Option<String>, LaunchFileError> {
        let Some(namespace) = namespace else {
            return Ok(pushed.map(str::to_owned));
        };
        let joined = exec::pushed_namespace(pushed, Some(namespace.get_ref()));
        exec::absolute_namespace(&joined).map(Some).ok_or_else(|| {
            source.invalid(
                namespace.span(),
                format!(
                    "namespace: {:?} is not a namespace: names of letters, digits and '_' \
                     separated by '/'",
                    namespace.get_ref()
                ),
            )
        })
    }

    /// One `[[process]]`.
    fn process(
        &mut self,
        source: &SourceFile<'_>,
        p: RawProcess,
        pushed: Option<&str>,
    ) -> Result<(), LaunchFileError> {
        let invalid = |span: Range<usize>, reason: String| source.invalid(span, reason);
        let name = p.name.get_ref().clone();
        let here = |field: &str, reason: String| format!("process {name:?}: {field}: {reason}");
        if !is_identifier(&name) || name.len() > MAX_NAME {
            return Err(invalid(
                p.name.span(),
                format!(
                    "process name {name:?} is not valid: use up to {MAX_NAME} letters, \
                     digits and '_', not starting with a digit"
                ),
            ));
        }
        if let Some(other) = self.processes.iter().find(|q| q.name == name) {
            return Err(invalid(
                p.name.span(),
                format!(
                    "process name {name:?} is used twice (also at {})",
                    other.origin
                ),
            ));
        }
        let (nodes_field, exec_field) = (p.nodes_field(), p.exec_field());
        if let (None, Some(executors)) = (&p.node, &p.executors) {
            return Err(invalid(
                executors.span(),
                here(
                    "executors",
                    "applies to a process of components ([[process.node]]) only".into(),
                ),
            ));
        }
        if pushed.is_some()
            && let Some(nodes) = &p.nodes
        {
            return Err(invalid(
                nodes.span(),
                here(
                    "nodes",
                    "a group's or include's namespace applies to components and exec \
                     processes; the topology's nodes take the file's namespace"
                        .into(),
                ),
            ));
        }
        let origin = source.location(p.name.span().start);
        let cpus_without_executor = p.cpus_without_executor();
        let kind = match (p.exec, p.node) {
            (Some(_), Some(node)) => {
                return Err(invalid(
                    node.span(),
                    here(
                        "node",
                        "applies to a process of components, not to exec".into(),
                    ),
                ));
            }
            (Some(exec), None) => {
                if let Some((field, span)) = nodes_field {
                    return Err(invalid(
                        span,
                        here(field, "applies to a process of nodes, not to exec".into()),
                    ));
                }
                let raw_exec = RawExec {
                    exec,
                    args: p.args,
                    env: p.env,
                    node_name: p.node_name,
                    namespace: p.namespace,
                    params_files: p.params_files,
                    parameters: p.parameters,
                    remaps: p.remaps,
                    log_level: p.log_level,
                };
                ProcessKind::Exec(exec::parse(raw_exec, &name, source, pushed)?)
            }
            (None, Some(raw_nodes)) => {
                if let Some((field, span)) = exec_field {
                    return Err(invalid(
                        span,
                        here(
                            field,
                            "applies to an exec process only (a component's go in its \
                             [[process.node]])"
                                .into(),
                        ),
                    ));
                }
                if let Some(nodes) = &p.nodes {
                    return Err(invalid(
                        nodes.span(),
                        here(
                            "nodes",
                            "a process hosts nodes of the topology or components \
                             ([[process.node]]), not both"
                                .into(),
                        ),
                    ));
                }
                if let Some(span) = cpus_without_executor {
                    return Err(invalid(
                        span,
                        here(
                            "cpus",
                            "give executor = \"...\" with cpus and fifo_priority".into(),
                        ),
                    ));
                }
                let single = p.executor.map(|kind| SingleExecutor {
                    kind,
                    cpus: p.cpus,
                    fifo_priority: p.fifo_priority,
                });
                let process =
                    components::parse(source, &name, single, p.executors, raw_nodes, pushed)?;
                for node in &process.nodes {
                    let fqn = node.fully_qualified_name();
                    if let Some(other) = self.placed.insert(fqn.clone(), name.clone()) {
                        return Err(invalid(
                            p.name.span(),
                            here(
                                "node",
                                format!("node {fqn} is placed twice (also in process {other:?})"),
                            ),
                        ));
                    }
                }
                ProcessKind::Components(process)
            }
            (None, None) => {
                if let Some((field, span)) = exec_field {
                    return Err(invalid(
                        span,
                        here(field, "applies to an exec process only".into()),
                    ));
                }
                if let (None, Some(node_list)) = (&self.topology_name, &p.nodes) {
                    return Err(invalid(
                        node_list.span(),
                        here(
                            "nodes",
                            "the file has no topology = \"...\" whose nodes to run".into(),
                        ),
                    ));
                }
                let (Some(topology_name), Some(node_list), Some(executor)) =
                    (&self.topology_name, p.nodes, p.executor)
                else {
                    return Err(invalid(
                        p.name.span(),
                        format!(
                            "process {name:?}: give nodes and executor (nodes of the file's \
                         topology = \"...\"), or exec (an executable)"
                        ),
                    ));
                };
                if node_list.get_ref().is_empty() {
                    return Err(invalid(node_list.span(), here("nodes", "is empty".into())));
                }
                let mut nodes = Vec::new();
                for node in node_list.into_inner() {
                    let node_name = node.get_ref().clone();
                    if !self.known.contains(&node_name) {
                        return Err(invalid(
                            node.span(),
                            here(
                                "nodes",
                                format!("topology {topology_name:?} has no node {node_name:?}"),
                            ),
                        ));
                    }
                    if let Some(other) = self.placed.insert(node_name.clone(), name.clone()) {
                        return Err(invalid(
                            node.span(),
                            here(
                                "nodes",
                                format!(
                                    "node {node_name:?} is placed twice (also in process {other:?})"
                                ),
                            ),
                        ));
                    }
                    nodes.push(node_name);
                }
                let executor = match executor.get_ref().parse::<ExecutorKind>() {
                    Ok(ExecutorKind::Prioritized) => {
                        return Err(invalid(
                            executor.span(),
                            here(
                                "executor",
                                "prioritized is a layout of several threads, not one executor; \
                             split the nodes into processes with cpus and fifo_priority"
                                    .into(),
                            ),
                        ));
                    }
                    Ok(kind) => kind,
                    Err(_) => {
                        return Err(invalid(
                            executor.span(),
                            here(
                                "executor",
                                format!(
                                    "unknown executor {:?} (known: callback, callback-mt, events, \
                                 wait-set, let)",
                                    executor.get_ref()
                                ),
                            ),
                        ));
                    }
                };
                let cpus = components::cpus_of(source, &here, p.cpus)?;
                let fifo_priority = components::fifo(source, &here, p.fifo_priority)?;
                ProcessKind::Nodes(NodesProcess {
                    nodes,
                    executor,
                    cpus,
                    fifo_priority,
                })
            }
        };
        let restart = match (p.restart, p.max_restarts) {
            (None, None) => Restart::Never,
            (Some(r), max) if r.get_ref() == "on-failure" => Restart::OnFailure {
                max: match max {
                    None => DEFAULT_RESTARTS,
                    Some(m) => u32::try_from(*m.get_ref())
                        .ok()
                        .filter(|&m| m <= MAX_RESTARTS)
                        .ok_or_else(|| {
                            invalid(
                                m.span(),
                                here("max_restarts", format!("give 0 to {MAX_RESTARTS}")),
                            )
                        })?,
                },
            },
            (Some(r), None) if r.get_ref() == "never" => Restart::Never,
            (Some(r), Some(_)) if r.get_ref() == "never" => {
                return Err(invalid(
                    r.span(),
                    here(
                        "max_restarts",
                        "applies to restart = \"on-failure\" only".into(),
                    ),
                ));
            }
            (Some(r), _) => {
                return Err(invalid(
                    r.span(),
                    here(
                        "restart",
                        format!(
                            "unknown policy {:?} (known: never, on-failure)",
                            r.get_ref()
                        ),
                    ),
                ));
            }
            (None, Some(m)) => {
                return Err(invalid(
                    m.span(),
                    here(
                        "max_restarts",
                        "applies to restart = \"on-failure\" only".into(),
                    ),
                ));
            }
        };
        let waits = order::parse(p.wait_for, source, &name)?;
        self.processes.push(ProcessSpec {
            name,
            restart,
            kind,
            waits,
            origin,
        });
        Ok(())
    }
}

/// An included file: processes, groups and includes, and its own arguments; the launch-wide
/// settings belong to the file given to `tacto launch`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIncluded {
    /// Read before the rest, by [`args::substitute`]: here only allowed.
    #[serde(rename = "arg")]
    _arg: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    include: Vec<Spanned<RawInclude>>,
    #[serde(default)]
    group: Vec<Spanned<RawGroup>>,
    #[serde(default)]
    process: Vec<Spanned<RawProcess>>,
}

/// The text of the file at `path`.
fn read(path: &Path) -> Result<String, LaunchFileError> {
    std::fs::read_to_string(path).map_err(|source| LaunchFileError::Read {
        path: path.to_owned(),
        source,
    })
}

/// `path` made absolute and normalized, so that one file included twice is seen as one.
fn absolute_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// Letters, digits and '_', not starting with a digit: a ROS name token.
fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LaunchFile, LaunchFileError> {
        LaunchFile::parse(text, Path::new("t.toml"))
    }

    /// A folder of its own for `test`, with the files `files` (name, text) in it.
    fn folder(test: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tacto-file-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }

    fn components(file: &LaunchFile, process: usize) -> &ComponentsProcess {
        match &file.processes[process].kind {
            ProcessKind::Components(c) => c,
            other => panic!("not a process of components: {other:?}"),
        }
    }

    const TALKER: &str =
        "[[process]]\nname = \"a\"\n[[process.node]]\ncomponent = \"demo::Talker\"\n";

    #[test]
    fn a_process_of_components_places_each_node_on_its_executor() {
        let text = r#"
[[process]]
name = "both"

[[process.executors]]
name = "sensors"
kind = "wait-set"

[[process.executors]]
name = "slow"
kind = "let"
let_period_ms = 20

[[process.node]]
component = "demo::Talker"
name = "talker"
namespace = "robot"
parameters = { greeting = "hi", period_ms = 50 }

[[process.node]]
component = "demo::Listener"
namespace = "robot"
executor = "slow"
remaps = [{ from = "chatter", to = "/robot/chatter" }]
"#;
        let file = parse(text).unwrap();
        let process = components(&file, 0);
        assert_eq!(process.executors.len(), 2);
        assert_eq!(
            process.executors[1].let_period,
            Some(Duration::from_millis(20))
        );
        let [talker, listener] = &process.nodes[..] else {
            panic!("two nodes: {:?}", process.nodes)
        };
        assert_eq!(
            (talker.fully_qualified_name(), talker.executor),
            ("/robot/talker".to_string(), 0)
        );
        assert_eq!(
            talker.arguments(),
            [
                "--ros-args",
                "-p",
                "greeting:=\"hi\"",
                "-p",
                "period_ms:=50"
            ]
        );
        assert_eq!(
            (listener.fully_qualified_name(), listener.executor),
            ("/robot/Listener".to_string(), 1)
        );
    }

    #[test]
    fn arguments_groups_and_includes_place_nodes_under_their_namespaces() {
        let dir = folder(
            "include",
            &[(
                "robot.toml",
                "[arg]\nrate = \"100\"\n[[process]]\nname = \"$(var robot)_talker\"\n\
                 [[process.node]]\ncomponent = \"demo::Talker\"\nname = \"talker\"\n\
                 parameters = { period_ms = \"$(var rate)\" }\n\
                 [[process]]\nname = \"$(var robot)_echo\"\nexec = \"sh\"\nnode_name = \"echo\"\n\
                 [arg.robot]\ndescription = \"which robot\"\n",
            )],
        );
        let text = r#"
[arg]
robot = "r1"

[[include]]
file = "robot.toml"
namespace = "$(var robot)"
args = { robot = "$(var robot)", rate = 50 }

[[group]]
namespace = "base"

[[group.process]]
name = "listener"
[[group.process.node]]
component = "demo::Listener"
namespace = "sub"
remaps = [{ from = "chatter", to = "/$(var robot)/chatter" }]
"#;
        let path = dir.join("top.toml");
        let args = BTreeMap::from([("robot".to_string(), "r2".to_string())]);
        let file = LaunchFile::parse_with(text, &path, &args).unwrap();
        let names: Vec<&str> = file.processes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["r2_talker", "r2_echo", "listener"]);
        let talker = &components(&file, 0).nodes[0];
        assert_eq!(talker.fully_qualified_name(), "/r2/talker");
        // A parameter that is one argument whole is typed from its text, as launch_ros reads
        // a substituted value as YAML: the integer 50 (launch_ros's test_parameter_dict's
        // substitution of a value as text, then yaml).
        assert_eq!(talker.parameters, [("period_ms".into(), "50".into())]);
        let ProcessKind::Exec(echo) = &file.processes[1].kind else {
            panic!("an exec process")
        };
        assert_eq!(echo.namespace.as_deref(), Some("/r2"));
        let listener = &components(&file, 2).nodes[0];
        assert_eq!(listener.fully_qualified_name(), "/base/sub/Listener");
        assert_eq!(listener.remaps, [("chatter".into(), "/r2/chatter".into())]);
    }

    // The rules of launch_ros's launch_ros/utilities/evaluate_parameters.py
    // (`evaluate_parameter_dict`, Jazzy): a value made by substitution is read as YAML, the
    // empty text as the empty string; a value written as it is keeps its type.
    #[test]
    fn a_parameter_that_is_one_argument_whole_is_read_as_yaml() {
        let text = "[arg]\nn = \"10\"\nx = \"1.5\"\nlist = \"[1, 2]\"\nnone = \"\"\nword = \"r1\"\n\
                    [[process]]\nname = \"a\"\n[[process.node]]\ncomponent = \"demo::Talker\"\n\
                    parameters = { n = \"$(var n)\", x = \"$(var x)\", list = \"$(var list)\", \
                    none = \"$(var none)\", word = \"$(var word)\", text = \"n$(var n)\", \
                    written = \"10\" }\n";
        let file = parse(text).unwrap();
        let parameters: BTreeMap<&str, &str> = (components(&file, 0).nodes[0].parameters.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            parameters,
            BTreeMap::from([
                ("list", "[1, 2]"),
                ("n", "10"),
                ("none", "''"),
                ("text", "\"n10\""),
                ("word", "r1"),
                ("written", "\"10\""),
                ("x", "1.5"),
            ])
        );
    }

    #[test]
    fn each_component_mistake_is_named_with_its_line() {
        let dir = folder(
            "mistakes",
            &[("bad.yaml", "/**:\n  ros__parameters: [1, 2\n")],
        );
        let path = dir.join("t.toml");
        let parse_here = |text: &str| {
            LaunchFile::parse(text, &path)
                .unwrap_err()
                .to_string()
                .replace(&format!("{}/", dir.display()), "")
        };
        let cases = [
            (
                TALKER.replace("demo::Talker", "demo::Talkr"),
                "t.toml:4:13: process \"a\": node: component: no component \"demo::Talkr\" in \
                 this binary (it has: demo::Listener, demo::Talker",
            ),
            (
                format!("{TALKER}[[process]]\nname = \"b\"\n[[process.node]]\ncomponent = \"demo::Talker\"\n"),
                "t.toml:6:8: process \"b\": node: node /Talker is placed twice (also in process \"a\")",
            ),
            (
                format!("{TALKER}params_files = [\"bad.yaml\"]\n"),
                "t.toml:5:17: process \"a\": node: params_files: bad.yaml does not parse: ",
            ),
            (
                format!("{TALKER}executor = \"fast\"\n"),
                "t.toml:5:12: process \"a\": node: executor: the process has no executor \"fast\" \
                 (it has: tacto-executor)",
            ),
            (
                TALKER.replace("[[process.node]]", "executor = \"let\"\n[[process.node]]"),
                "t.toml:3:12: process \"a\": let_period_ms: a let executor needs its period",
            ),
            (
                TALKER.replace("[[process.node]]", "executor = \"wait-set\"\ncpus = [100000]\n[[process.node]]"),
                "t.toml:4:8: process \"a\": cpus: CPU 100000 is not one this launch may run on",
            ),
            (
                "[[process]]\nname = \"a\"\nexec = \"./missing\"\n".into(),
                "t.toml:3:8: process \"a\": exec: ",
            ),
            (
                format!("{TALKER}name = \"$(var who)\"\n"),
                "t.toml:5:9: $(var who): no argument \"who\" is declared (the file's [arg] table has: none)",
            ),
            (
                "transport = \"dds\"\n[[process]]\nname = \"a\"\nwait_for = [{ node = \"/l\" }]\n\
                 [[process.node]]\ncomponent = \"demo::Talker\"\nname = \"t\"\n\
                 [[process]]\nname = \"b\"\nwait_for = [{ node = \"/t\" }]\n\
                 [[process.node]]\ncomponent = \"demo::Listener\"\nname = \"l\"\n"
                    .into(),
                "t.toml:4:13: a cycle of waits: a → b → a: none of them would ever start",
            ),
            (
                "[[process]]\nname = \"a\"\n[[process.node]]\ncomponent = \"demo::Talker\"\n\
                 name = \"t\"\n[[process]]\nname = \"b\"\nexec = \"sh\"\nwait_for = [{ node = \"/t\" }]\n"
                    .into(),
                "t.toml:9:13: process \"b\" waits for node /t of process \"a\", which only shared \
                 memory carries",
            ),
            (
                format!("{TALKER}[[process]]\nname = \"b\"\nexec = \"sh\"\nwait_for = [{{ service = \"x\" }}]\n"),
                "t.toml:8:13: process \"b\": wait_for: \"x\" is not an absolute name",
            ),
            (
                "[[include]]\nfile = \"t.toml\"\n".into(),
                "t.toml:2:8: include: ",
            ),
        ];
        for (text, expected) in cases {
            let error = parse_here(&text);
            assert!(
                error.starts_with(expected),
                "{error:?} should start with {expected:?}"
            );
        }
    }

    #[test]
    fn every_shipped_launch_file_is_valid() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("launch");
        let mut read = 0;
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            LaunchFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
            read += 1;
        }
        assert!(read >= 3, "{read} files in {}", folder.display());
    }
}
