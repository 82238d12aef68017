//! `tacto bench TARGET` on one executor in a network namespace of its own
//! ([`isolation`](super::isolation)): how the seeds measure a topology or a launch file over
//! DDS. Every process the bench starts is in that one namespace, so they meet each other on
//! DDS and no one else; the bench's result comes back through a JSON file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::events_suite::child::{self, ChildError};
use super::isolation::Network;
use crate::deadline;
use crate::result::{Report, RunResult};
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// One run to make.
#[derive(Debug, Clone)]
pub(super) struct DdsRun<'a> {
    /// A topology (name or JSON file) or a launch file (`.toml`), as `tacto bench` takes it.
    pub target: &'a Path,
    /// The executor of every process.
    pub executor: ExecutorKind,
    /// Not measured.
    pub warmup: Duration,
    /// Measured.
    pub duration: Duration,
    /// `--ros-graph`: every node also on the ROS 2 graph over DDS, so that its topics have
    /// DDS endpoints even where all their nodes are in one process.
    pub ros_graph: bool,
}

/// Runs `run`; `Ok(None)` if a signal stopped it, `Err` with the reason if it failed or no
/// namespace can be made.
pub(super) fn bench(run: &DdsRun<'_>, interrupt: &Interrupt) -> Result<Option<RunResult>, String> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let program = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let json: PathBuf = std::env::temp_dir().join(format!(
        "tacto-seeds-dds-{}-{}.json",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let mut args: Vec<OsString> = vec![
        "bench".into(),
        run.target.into(),
        "--executor".into(),
        run.executor.name().into(),
        "--duration".into(),
        run.duration.as_secs_f64().to_string().into(),
        "--warmup".into(),
        run.warmup.as_secs_f64().to_string().into(),
        "--json".into(),
        json.clone().into(),
    ];
    if run.ros_graph {
        args.push("--ros-graph".into());
    }
    let network = Network::here();
    let command = (network.command(&program, &args)).ok_or_else(|| {
        network
            .refused()
            .unwrap_or("no network namespace")
            .to_owned()
    })?;
    let ended = child::run(
        command,
        false,
        deadline::limit(run.warmup + run.duration),
        interrupt,
    );
    let read = std::fs::read_to_string(&json);
    // Written by the bench for this run only.
    let _ = std::fs::remove_file(&json);
    let ended = match ended {
        Ok(ended) => ended,
        Err(ChildError::Interrupted) => return Ok(None),
        Err(ChildError::Failed(reason)) => return Err(reason),
    };
    if !ended.status.success() {
        return Err(format!(
            "tacto bench over DDS failed ({}): {}",
            ended.status,
            ended.last_words()
        ));
    }
    let text = read.map_err(|e| format!("the bench over DDS wrote no results: {e}"))?;
    let report: Report = serde_json::from_str(&text)
        .map_err(|e| format!("the bench over DDS's results do not read: {e}"))?;
    (report.runs.into_iter().next())
        .map(Some)
        .ok_or_else(|| "the bench over DDS measured no run".to_owned())
}
