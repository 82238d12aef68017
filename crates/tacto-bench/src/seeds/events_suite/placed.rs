//! One case of the suite as a launch file of its [components](super::components), in one process
//! or two, on one executor and transport, measured as `tacto bench FILE.toml` measures a file
//! of components: every process at once for a warm-up and a window, each reporting its CPU and
//! its resident set once a second, the measuring node its figures.
//!
//! Over DDS the bench runs in a network namespace of its own ([`isolation`](crate::seeds::isolation),
//! as the zero-copy section's DDS path does): its discovery reaches no other ROS 2 node,
//! whatever domain they use, and nothing outside hears it. Shared memory is the host's.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;
use tacto_launch::supervise::child_command;

use super::child::{self, ChildError};
use super::components::{self, Tally};
use crate::deadline;
use crate::result::{ProcessResult, Report};
use crate::seeds::isolation::Network;

/// The publisher's period, ros2-performance's usual 100 Hz (as the one-process part).
pub(super) const PUBLISH_PERIOD_MS: u64 = 10;
/// A service call every 10 ms.
pub(super) const CALL_PERIOD_MS: u64 = 10;
/// A goal every 100 ms...
pub(super) const GOAL_PERIOD_MS: u64 = 100;
/// ... of this order, one step (a number and a feedback message) every [`STEP_MS`]: about one
/// goal in flight.
pub(super) const GOAL_ORDER: u64 = 10;
/// The action server's step.
pub(super) const STEP_MS: u64 = 8;

/// The transport between the processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transport {
    /// tacto's shared memory (iceoryx2), this host.
    Shm,
    /// DDS (Cyclone), in a network namespace of its own.
    Dds,
}

impl Transport {
    /// Its name in launch files, keys and tables.
    pub(super) fn name(self) -> &'static str {
        match self {
            Transport::Shm => "shm",
            Transport::Dds => "dds",
        }
    }
}

/// What the nodes exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Load {
    /// A ros2-performance message type every [`PUBLISH_PERIOD_MS`].
    PubSub(&'static str),
    /// An AddTwoInts call every [`CALL_PERIOD_MS`].
    Service,
    /// A Fibonacci goal every [`GOAL_PERIOD_MS`].
    Action,
}

impl Load {
    /// Its name in keys and tables.
    pub(super) fn name(self) -> &'static str {
        match self {
            Load::PubSub(_) => "pubsub",
            Load::Service => "service",
            Load::Action => "action",
        }
    }

    /// The serving node's component and parameters, then the measuring node's.
    fn nodes(self) -> [(&'static str, Vec<(&'static str, String)>); 2] {
        match self {
            Load::PubSub(msg_type) => [
                (
                    components::PUBLISHER,
                    vec![
                        ("msg_type", format!("{msg_type:?}")),
                        ("period_ms", PUBLISH_PERIOD_MS.to_string()),
                    ],
                ),
                (
                    components::SUBSCRIBER,
                    vec![("msg_type", format!("{msg_type:?}"))],
                ),
            ],
            Load::Service => [
                (components::SERVICE_SERVER, Vec::new()),
                (
                    components::SERVICE_CLIENT,
                    vec![("period_ms", CALL_PERIOD_MS.to_string())],
                ),
            ],
            Load::Action => [
                (
                    components::ACTION_SERVER,
                    vec![("step_ms", STEP_MS.to_string())],
                ),
                (
                    components::ACTION_CLIENT,
                    vec![
                        ("period_ms", GOAL_PERIOD_MS.to_string()),
                        ("order", GOAL_ORDER.to_string()),
                    ],
                ),
            ],
        }
    }
}

/// One case: a load on one executor, in one process or two, over one transport.
#[derive(Debug, Clone, Copy)]
pub(super) struct Case {
    /// What is exchanged.
    pub load: Load,
    /// Every process's executor.
    pub executor: ExecutorKind,
    /// Between the processes (a single process's context has it too).
    pub transport: Transport,
    /// 1: both nodes in one process; 2: one each.
    pub processes: usize,
    /// Not measured.
    pub warmup: Duration,
    /// Measured.
    pub duration: Duration,
}

/// What a case measured.
#[derive(Debug, Clone)]
pub(super) struct Measured {
    /// CPU of all its processes, % of one core.
    pub cpu_pct_core: f64,
    /// Each process: CPU, and its resident set once a second.
    pub processes: Vec<ProcessResult>,
    /// The measuring node's figures.
    pub tally: Tally,
    /// Why the run counts as overloaded, if it does.
    pub overload: Vec<String>,
}

/// Why a case has no figures.
#[derive(Debug)]
pub(super) enum CaseError {
    /// A signal stopped it.
    Interrupted,
    /// It failed, for this reason.
    Failed(String),
}

/// The executors a launch file can give a process: one executor each, so not `prioritized`,
/// a layout of several threads.
pub(super) fn placeable(executor: ExecutorKind) -> bool {
    executor != ExecutorKind::Prioritized
}

/// The launch file of `case`, its measuring node writing to `figures`, every node in
/// `namespace`: shared memory is the host's, so two runs at once (or a run beside anything else
/// on the host) must not meet on one topic or service.
pub(super) fn launch_file(case: &Case, figures: &Path, namespace: &str) -> String {
    let mut toml = format!("transport = \"{}\"\n", case.transport.name());
    if case.transport == Transport::Shm {
        // Two ports per topic at most, shallow histories: slots for a 4 MiB topic stay about
        // 100 MiB of /dev/shm instead of the defaults' 1 GiB.
        toml += "\n[shm]\nmax_publishers = 2\nmax_subscribers = 2\nmax_depth = 10\nmax_held = 2\n";
    }
    let [serving, measuring] = case.load.nodes();
    let mut measuring = measuring;
    if case.transport == Transport::Dds && matches!(case.load, Load::PubSub(_)) {
        // In the run's own network namespace, the kernel's drops are the run's: what the
        // losses of large messages come from.
        measuring.1.push(("count_udp_drops", "true".into()));
    }
    measuring
        .1
        .push(("warmup_s", format!("{:?}", case.warmup.as_secs_f64())));
    measuring
        .1
        .push(("figures", format!("{:?}", figures.display().to_string())));
    let groups: Vec<(&str, Vec<_>)> = match case.processes {
        1 => vec![("suite", vec![serving, measuring])],
        _ => vec![("serving", vec![serving]), ("measuring", vec![measuring])],
    };
    for (name, nodes) in groups {
        toml += &format!(
            "\n[[process]]\nname = \"{name}\"\n\n[[process.executors]]\nname = \"suite\"\nkind = \"{}\"\n",
            case.executor.name()
        );
        if case.executor == ExecutorKind::Let {
            toml += &format!("let_period_ms = {PUBLISH_PERIOD_MS}\n");
        }
        for (component, parameters) in nodes {
            let parameters: Vec<String> = (parameters.iter())
                .map(|(name, value)| format!("{name} = {value}"))
                .collect();
            toml += &format!(
                "\n[[process.node]]\ncomponent = \"{component}\"\nnamespace = \"{namespace}\"\nparameters = {{ {} }}\n",
                parameters.join(", ")
            );
        }
    }
    toml
}

/// Runs `case` as `tacto bench FILE.toml` in a child of this program (in a network namespace
/// for DDS).
pub(super) fn run(case: &Case, interrupt: &Interrupt) -> Result<Measured, CaseError> {
    static CASES: AtomicUsize = AtomicUsize::new(0);
    let (pid, n) = (std::process::id(), CASES.fetch_add(1, Ordering::Relaxed));
    let stem = std::env::temp_dir().join(format!("tacto-seeds-case-{pid}-{n}"));
    let with = |end: &str| PathBuf::from(format!("{}{end}", stem.display()));
    let (file, figures, json) = (with(".toml"), with("-figures.json"), with("-bench.json"));
    let failed = |reason: String| CaseError::Failed(reason);
    std::fs::write(
        &file,
        launch_file(case, &figures, &format!("seeds_{pid}_{n}")),
    )
    .map_err(|e| failed(format!("cannot write {}: {e}", file.display())))?;
    let ran = bench(case, &file, &json, interrupt);
    let read = ran.and_then(|()| {
        let text = std::fs::read_to_string(&json)
            .map_err(|e| failed(format!("the bench wrote no results: {e}")))?;
        let report: Report = serde_json::from_str(&text)
            .map_err(|e| failed(format!("the bench's results do not read: {e}")))?;
        let tally = components::read_tally(&figures).map_err(failed)?;
        Ok((report, tally))
    });
    // Written above for this case only.
    for path in [&file, &figures, &json] {
        let _ = std::fs::remove_file(path);
    }
    let (report, tally) = read?;
    let run = (report.runs.into_iter().next())
        .ok_or_else(|| failed("the bench measured no run".into()))?;
    Ok(Measured {
        cpu_pct_core: run.cpu_pct_core,
        processes: run.processes,
        tally,
        overload: run.overload,
    })
}

/// `tacto bench FILE --duration --warmup --json JSON`, to its end.
fn bench(case: &Case, file: &Path, json: &Path, interrupt: &Interrupt) -> Result<(), CaseError> {
    let program = std::env::current_exe()
        .map_err(|e| CaseError::Failed(format!("cannot find this program: {e}")))?;
    let args: Vec<std::ffi::OsString> = vec![
        "bench".into(),
        file.into(),
        "--duration".into(),
        case.duration.as_secs_f64().to_string().into(),
        "--warmup".into(),
        case.warmup.as_secs_f64().to_string().into(),
        "--json".into(),
        json.into(),
    ];
    let command = match case.transport {
        Transport::Shm => {
            let mut command = child_command(&program);
            command.args(&args);
            command
        }
        Transport::Dds => (Network::here().command(&program, &args))
            .ok_or_else(|| CaseError::Failed("no network namespace for DDS".into()))?,
    };
    match child::run(
        command,
        false,
        deadline::limit(case.warmup + case.duration),
        interrupt,
    ) {
        Err(ChildError::Interrupted) => Err(CaseError::Interrupted),
        Err(ChildError::Failed(reason)) => Err(CaseError::Failed(reason)),
        Ok(ended) if ended.status.success() => Ok(()),
        Ok(ended) => Err(CaseError::Failed(format!(
            "tacto bench of the case failed ({}): {}",
            ended.status,
            ended.last_words()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto_launch::LaunchFile;

    #[test]
    fn every_case_is_a_launch_file_the_launch_reads() {
        let figures = Path::new("/tmp/figures.json");
        for load in [Load::PubSub("stamped4mb"), Load::Service, Load::Action] {
            for executor in ExecutorKind::ALL.into_iter().filter(|&e| placeable(e)) {
                for (transport, processes) in [
                    (Transport::Shm, 1),
                    (Transport::Shm, 2),
                    (Transport::Dds, 2),
                ] {
                    let case = Case {
                        load,
                        executor,
                        transport,
                        processes,
                        warmup: Duration::from_secs(2),
                        duration: Duration::from_secs(10),
                    };
                    let text = launch_file(&case, figures, "seeds_1_2");
                    let path = std::env::temp_dir()
                        .join(format!("tacto-seeds-case-test-{}.toml", std::process::id()));
                    std::fs::write(&path, &text).unwrap();
                    let loaded = LaunchFile::load(&path);
                    std::fs::remove_file(&path).unwrap();
                    let loaded = loaded.unwrap_or_else(|e| panic!("{e}\n{text}"));
                    assert_eq!(loaded.processes.len(), processes, "{text}");
                    assert!(text.contains("figures = \"/tmp/figures.json\""), "{text}");
                    assert!(text.contains("warmup_s = 2.0"), "{text}");
                    assert_eq!(
                        text.contains("count_udp_drops = true"),
                        transport == Transport::Dds && load == Load::PubSub("stamped4mb"),
                        "{text}"
                    );
                    for process in &loaded.processes {
                        let tacto_launch::ProcessKind::Components(components) = &process.kind
                        else {
                            panic!("{text}")
                        };
                        assert!(
                            (components.nodes.iter()).all(|n| n.namespace == "/seeds_1_2"),
                            "{text}"
                        );
                    }
                }
            }
        }
    }
}
