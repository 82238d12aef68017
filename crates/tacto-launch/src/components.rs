//! A launch file's process that hosts components (`[[process.node]]`): which registered node
//! kinds, named and namespaced how, with which parameters and remaps, on which of the process's
//! executors (`[[process.executors]]`: kind, thread name, CPUs, `SCHED_FIFO` priority).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::exec::{self, RawRemap};
use crate::executors::ExecutorKind;
use crate::file::{LaunchFileError, SourceFile};

/// The most executors (each a thread of its own) one process may have.
const MAX_EXECUTORS: usize = 64;

/// The most nodes one process may host.
const MAX_NODES: usize = 1024;

/// A process that hosts components.
///
/// # Examples
/// ```
/// use std::path::Path;
/// use tacto_launch::{LaunchFile, ProcessKind};
///
/// let text = r#"
/// [[process]]
/// name = "front"
///
/// [[process.executors]]
/// name = "hot"
/// kind = "wait-set"
///
/// [[process.node]]
/// component = "demo::Talker"
/// namespace = "robot1"
/// parameters = { period_ms = 50 }
/// remaps = [{ from = "chatter", to = "/talk" }]
/// "#;
/// let file = LaunchFile::parse(text, Path::new("demo.toml")).unwrap();
/// let ProcessKind::Components(process) = &file.processes[0].kind else { unreachable!() };
/// let talker = &process.nodes[0];
/// assert_eq!(talker.fully_qualified_name(), "/robot1/Talker");
/// assert_eq!(
///     talker.arguments(),
///     ["--ros-args", "-p", "period_ms:=50", "-r", "chatter:=/talk"]
/// );
/// assert_eq!(process.executors[talker.executor].thread, "hot");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentsProcess {
    /// Its executors, each on a thread of its own, in the file's order.
    pub executors: Vec<ExecutorSpec>,
    /// The nodes it hosts, in the file's order.
    pub nodes: Vec<NodePlacement>,
}

/// One executor of a process, on a thread of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutorSpec {
    /// Its thread's name (what `top -H` shows), unique in the process.
    pub thread: String,
    /// The executor.
    pub kind: ExecutorKind,
    /// The CPUs its thread may run on, if pinned.
    pub cpus: Option<Vec<usize>>,
    /// Its thread's `SCHED_FIFO` priority, if real-time.
    pub fifo_priority: Option<u8>,
    /// A LET executor's period.
    pub let_period: Option<Duration>,
}

/// One node placed in a process: a registered component, its name, namespace and ROS
/// arguments, and which of the process's executors runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodePlacement {
    /// The registered component (`package::Kind`).
    pub component: String,
    /// The node's name.
    pub name: String,
    /// The node's namespace, absolute.
    pub namespace: String,
    /// `--params-file`s, absolute, in the file's order.
    pub params_files: Vec<PathBuf>,
    /// `-p name:=value`s, each value as rcl reads it (YAML), by name.
    pub parameters: Vec<(String, String)>,
    /// `-r from:=to`s, in the file's order.
    pub remaps: Vec<(String, String)>,
    /// The index of its executor in the process's.
    pub executor: usize,
}

impl NodePlacement {
    /// `/namespace/name`.
    pub fn fully_qualified_name(&self) -> String {
        match self.namespace.as_str() {
            "/" => format!("/{}", self.name),
            namespace => format!("{namespace}/{}", self.name),
        }
    }

    /// The node's own ROS arguments, as a component container gets them from a launch file's
    /// `ComposableNode` (`NodeOptions::arguments`): the parameter files, the values, the
    /// remaps; the name and namespace are the node's own, not rules.
    pub fn arguments(&self) -> Vec<String> {
        let mut line = Vec::new();
        for file in &self.params_files {
            line.extend(["--params-file".into(), file.display().to_string()]);
        }
        for (name, value) in &self.parameters {
            line.extend(["-p".into(), format!("{name}:={value}")]);
        }
        for (from, to) in &self.remaps {
            line.extend(["-r".into(), format!("{from}:={to}")]);
        }
        if !line.is_empty() {
            line.insert(0, "--ros-args".into());
        }
        line
    }
}

/// A `[[process.executors]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExecutor {
    name: Spanned<String>,
    kind: Spanned<String>,
    cpus: Option<Spanned<Vec<usize>>>,
    fifo_priority: Option<Spanned<i64>>,
    let_period_ms: Option<Spanned<f64>>,
}

/// A `[[process.node]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlacement {
    component: Spanned<String>,
    name: Option<Spanned<String>>,
    namespace: Option<Spanned<String>>,
    params_files: Option<Spanned<Vec<Spanned<String>>>>,
    parameters: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    remaps: Option<Spanned<Vec<Spanned<RawRemap>>>>,
    executor: Option<Spanned<String>>,
}

/// A process's executor given by the process's own fields (`executor`, `cpus`,
/// `fifo_priority`), the shorthand for one.
pub(super) struct SingleExecutor {
    pub kind: Spanned<String>,
    pub cpus: Option<Spanned<Vec<usize>>>,
    pub fifo_priority: Option<Spanned<i64>>,
}

/// Checks a process's executors and nodes; `pushed` is the namespace of the group or include
/// it is in, put before relative namespaces as launch_ros's `PushRosNamespace` does.
pub(super) fn parse(
    source: &SourceFile<'_>,
    process: &str,
    single: Option<SingleExecutor>,
    raw_executors: Option<Spanned<Vec<Spanned<RawExecutor>>>>,
    raw_nodes: Spanned<Vec<Spanned<RawPlacement>>>,
    pushed: Option<&str>,
) -> Result<ComponentsProcess, LaunchFileError> {
    let here = |field: &str, reason: String| format!("process {process:?}: {field}: {reason}");
    let mut executors = Vec::new();
    match (single, raw_executors) {
        (Some(single), Some(list)) => {
            return Err(source.invalid(
                single.kind.span(),
                here(
                    "executor",
                    format!(
                        "give one executor with executor = \"...\", or several as \
                         [[process.executors]] (line {}), not both",
                        source.line_of(list.span())
                    ),
                ),
            ));
        }
        (Some(single), None) => executors.push(executor(
            source,
            &here,
            "tacto-executor".into(),
            &single.kind,
            single.cpus,
            single.fifo_priority,
            None,
        )?),
        (None, Some(list)) => {
            let span = list.span();
            if list.get_ref().is_empty() || list.get_ref().len() > MAX_EXECUTORS {
                return Err(source.invalid(
                    span,
                    here("executors", format!("give 1 to {MAX_EXECUTORS}")),
                ));
            }
            for raw in list.into_inner() {
                let raw = raw.into_inner();
                let thread = raw.name.get_ref().clone();
                // Linux keeps 15 bytes of a thread's name.
                if thread.is_empty() || thread.len() > 15 || thread.chars().any(char::is_control) {
                    return Err(source.invalid(
                        raw.name.span(),
                        here(
                            "executors: name",
                            format!("{thread:?}: give 1 to 15 printable bytes (a thread's name)"),
                        ),
                    ));
                }
                if executors.iter().any(|e: &ExecutorSpec| e.thread == thread) {
                    return Err(source.invalid(
                        raw.name.span(),
                        here("executors: name", format!("{thread:?} is used twice")),
                    ));
                }
                executors.push(executor(
                    source,
                    &here,
                    thread,
                    &raw.kind,
                    raw.cpus,
                    raw.fifo_priority,
                    raw.let_period_ms,
                )?);
            }
        }
        (None, None) => executors.push(ExecutorSpec {
            thread: "tacto-executor".into(),
            kind: ExecutorKind::WaitSet,
            cpus: None,
            fifo_priority: None,
            let_period: None,
        }),
    }
    let span = raw_nodes.span();
    let raw_nodes = raw_nodes.into_inner();
    if raw_nodes.is_empty() || raw_nodes.len() > MAX_NODES {
        return Err(source.invalid(span, here("node", format!("give 1 to {MAX_NODES}"))));
    }
    let mut nodes: Vec<NodePlacement> = Vec::new();
    for raw in raw_nodes {
        let raw = raw.into_inner();
        let component = raw.component.get_ref().clone();
        let registered = tacto_component::find(&component).map_err(|e| {
            source.invalid(raw.component.span(), here("node: component", e.to_string()))
        })?;
        let name = match raw.name {
            Some(name) if !exec::is_token(name.get_ref()) => {
                return Err(source.invalid(
                    name.span(),
                    here(
                        "node: name",
                        format!(
                            "{:?} is not a node name: use letters, digits and '_', not \
                             starting with a digit",
                            name.get_ref()
                        ),
                    ),
                ));
            }
            Some(name) => name.into_inner(),
            None => registered.default_node_name().to_owned(),
        };
        let namespace = match raw.namespace {
            Some(ns) => {
                let pushed_ns = exec::pushed_namespace(pushed, Some(ns.get_ref()));
                exec::absolute_namespace(&pushed_ns).ok_or_else(|| {
                    source.invalid(
                        ns.span(),
                        here(
                            "node: namespace",
                            format!("{:?} is not a namespace", ns.get_ref()),
                        ),
                    )
                })?
            }
            None => exec::absolute_namespace(&exec::pushed_namespace(pushed, None))
                .unwrap_or_else(|| "/".into()),
        };
        let folder = source.path.parent().unwrap_or(Path::new(""));
        let params_files =
            exec::params_files(raw.params_files, folder, source, &|field, reason| {
                here(&format!("node: {field}"), reason)
            })?;
        let parameters = exec::parameters(raw.parameters, source, &|field, reason| {
            here(&format!("node: {field}"), reason)
        })?;
        let remaps = exec::remaps(raw.remaps, source, &|field, reason| {
            here(&format!("node: {field}"), reason)
        })?;
        let executor = match raw.executor {
            None => 0,
            Some(name) => {
                (executors.iter().position(|e| &e.thread == name.get_ref())).ok_or_else(|| {
                    let known: Vec<&str> = executors.iter().map(|e| e.thread.as_str()).collect();
                    source.invalid(
                        name.span(),
                        here(
                            "node: executor",
                            format!(
                                "the process has no executor {:?} (it has: {})",
                                name.get_ref(),
                                known.join(", ")
                            ),
                        ),
                    )
                })?
            }
        };
        let placement = NodePlacement {
            component,
            name,
            namespace,
            params_files,
            parameters,
            remaps,
            executor,
        };
        if let Some(other) = nodes
            .iter()
            .find(|n| n.fully_qualified_name() == placement.fully_qualified_name())
        {
            return Err(source.invalid(
                raw.component.span(),
                here(
                    "node",
                    format!(
                        "node {} is placed twice in this process (also as {})",
                        placement.fully_qualified_name(),
                        other.component
                    ),
                ),
            ));
        }
        nodes.push(placement);
    }
    Ok(ComponentsProcess { executors, nodes })
}

/// One executor's fields, checked.
fn executor(
    source: &SourceFile<'_>,
    here: &dyn Fn(&str, String) -> String,
    thread: String,
    kind: &Spanned<String>,
    cpus: Option<Spanned<Vec<usize>>>,
    fifo_priority: Option<Spanned<i64>>,
    let_period_ms: Option<Spanned<f64>>,
) -> Result<ExecutorSpec, LaunchFileError> {
    let parsed = match kind.get_ref().parse::<ExecutorKind>() {
        Ok(ExecutorKind::Prioritized) | Err(_) => {
            return Err(source.invalid(
                kind.span(),
                here(
                    "executor",
                    format!(
                        "unknown executor {:?} (known: callback, callback-mt, events, wait-set, \
                         let)",
                        kind.get_ref()
                    ),
                ),
            ));
        }
        Ok(parsed) => parsed,
    };
    let cpus = cpus_of(source, here, cpus)?;
    let fifo_priority = fifo(source, here, fifo_priority)?;
    let let_period = match (parsed, let_period_ms) {
        (ExecutorKind::Let, None) => {
            return Err(source.invalid(
                kind.span(),
                here(
                    "let_period_ms",
                    "a let executor needs its period: give let_period_ms".into(),
                ),
            ));
        }
        (ExecutorKind::Let, Some(p)) if (0.1..=60_000.0).contains(p.get_ref()) => {
            Some(Duration::from_secs_f64(p.get_ref() / 1e3))
        }
        (ExecutorKind::Let, Some(p)) => {
            return Err(source.invalid(p.span(), here("let_period_ms", "give 0.1 to 60000".into())));
        }
        (_, Some(p)) => {
            return Err(source.invalid(
                p.span(),
                here("let_period_ms", "applies to a let executor only".into()),
            ));
        }
        (_, None) => None,
    };
    Ok(ExecutorSpec {
        thread,
        kind: parsed,
        cpus,
        fifo_priority,
        let_period,
    })
}

/// A thread's `cpus`, checked: not empty, and each one this launch may run on (a CPU outside
/// its affinity mask is one the OS would refuse to pin a thread to).
pub(super) fn cpus_of(
    source: &SourceFile<'_>,
    here: &dyn Fn(&str, String) -> String,
    cpus: Option<Spanned<Vec<usize>>>,
) -> Result<Option<Vec<usize>>, LaunchFileError> {
    let Some(cpus) = cpus else {
        return Ok(None);
    };
    if cpus.get_ref().is_empty() {
        return Err(source.invalid(
            cpus.span(),
            here("cpus", "is empty: the thread could run nowhere".into()),
        ));
    }
    let usable = usable_cpus();
    if let Some(cpu) = cpus.get_ref().iter().find(|cpu| !usable.contains(cpu)) {
        return Err(source.invalid(
            cpus.span(),
            here(
                "cpus",
                format!("CPU {cpu} is not one this launch may run on (it may: {usable:?})"),
            ),
        ));
    }
    Ok(Some(cpus.into_inner()))
}

/// A thread's `fifo_priority`, checked: 1 to 99, and one the OS grants (tried on a thread of
/// its own that ends at once), so that a launch without `CAP_SYS_NICE` or an `RLIMIT_RTPRIO`
/// high enough is refused before anything starts.
pub(super) fn fifo(
    source: &SourceFile<'_>,
    here: &dyn Fn(&str, String) -> String,
    priority: Option<Spanned<i64>>,
) -> Result<Option<u8>, LaunchFileError> {
    let Some(priority) = priority else {
        return Ok(None);
    };
    let value = u8::try_from(*priority.get_ref())
        .ok()
        .filter(|p| (1..=99).contains(p))
        .ok_or_else(|| {
            source.invalid(
                priority.span(),
                here("fifo_priority", "give 1 to 99".into()),
            )
        })?;
    fifo_permitted(value).map_err(|reason| {
        source.invalid(
            priority.span(),
            here(
                "fifo_priority",
                format!(
                    "the OS refuses SCHED_FIFO priority {value} to this launch: {reason} (it \
                     needs CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least {value})"
                ),
            ),
        )
    })?;
    Ok(Some(value))
}

/// Whether a thread of this process may take `SCHED_FIFO` at `priority`: asked of the OS on a
/// thread made for the question, which ends at once.
fn fifo_permitted(priority: u8) -> Result<(), String> {
    let asked = std::thread::spawn(move || {
        let param = libc::sched_param {
            sched_priority: i32::from(priority),
        };
        // SAFETY: a plain system call on this thread itself, with a valid `sched_param`.
        let refused =
            unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
        match refused {
            0 => Ok(()),
            code => Err(std::io::Error::from_raw_os_error(code).to_string()),
        }
    });
    asked
        .join()
        .unwrap_or_else(|_| Err("the thread that asked ended abnormally".into()))
}

/// The CPUs this process may run on (its affinity mask): a CPU outside it is one the OS would
/// refuse to pin a thread to, so the file is refused before anything starts.
fn usable_cpus() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is plain data for which all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: a plain system call writing at most `size_of::<cpu_set_t>()` bytes into `set`.
    let got =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if got != 0 {
        return (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE, the set's size.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}
