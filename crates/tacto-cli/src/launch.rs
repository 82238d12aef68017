//! `tacto launch FILE.toml` and the hidden `launch-process` that the launch (and `tacto bench`
//! over a launch file) runs each process with.

use std::path::Path;
use std::time::Duration;

use tacto_bench::launched::{self, Measured};
use tacto_launch::args::from_command_line;
use tacto_launch::interrupt::Interrupt;
use tacto_launch::supervise::{LaunchError, launch as supervise};
use tacto_launch::{ExecutorKind, LaunchFile, ProcessError, ProcessKind, run_process};

use crate::Failure;

/// `tacto launch FILE [NAME:=VALUE ...]`: the file's processes, supervised until they end or
/// Ctrl-C.
pub(crate) fn launch(file: &Path, args: &[String], interrupt: &Interrupt) -> Result<(), Failure> {
    let launch_file = LaunchFile::load_with(file, &from_command_line(args)?)?;
    match supervise(file, &launch_file, args, interrupt) {
        Err(LaunchError::Interrupted) => Err(Failure::Interrupted),
        other => Ok(other?),
    }
}

/// What `launch-process` was given for a measured run: all `None` for a launched process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measure {
    /// The executor instead of the file's.
    pub(crate) executor: Option<ExecutorKind>,
    /// The crunch limit instead of the file's.
    pub(crate) crunch: Option<u64>,
    /// Not measured, from the start of the nodes.
    pub(crate) warmup: Option<Duration>,
    /// The measured window: without it, the process runs until a signal stops it.
    pub(crate) duration: Option<Duration>,
}

/// `tacto launch-process FILE NAME [NAME:=VALUE ...]`: process `name` of the file, until a
/// signal stops it; or, given a measured window, for a measured run whose result it prints
/// as JSON.
pub(crate) fn launch_process(
    file: &Path,
    name: &str,
    args: &[String],
    measure: Measure,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    let launch_file = LaunchFile::load_with(file, &from_command_line(args)?)?;
    let Some(duration) = measure.duration else {
        return Ok(run_process(&launch_file, name, interrupt)?);
    };
    let warmup = measure.warmup.unwrap_or_default();
    let measured = match launch_file.process(name).map(|p| &p.kind) {
        // Components run on the executors the file places them on.
        Some(ProcessKind::Components(process)) => {
            launched::measure_components(&launch_file, name, process, warmup, duration, interrupt)
        }
        Some(ProcessKind::Nodes(spec)) => {
            let measured = Measured {
                executor: measure.executor.unwrap_or(spec.executor),
                crunch: measure.crunch.unwrap_or(launch_file.crunch),
                warmup,
                duration,
            };
            launched::measure_process(&launch_file, name, &measured, interrupt)
        }
        Some(ProcessKind::Exec(_)) | None => {
            return Err(format!(
                "the launch file has no process {name:?} that runs nodes of its topology or \
                 components"
            )
            .into());
        }
    };
    let result = match measured {
        Err(ProcessError::Interrupted) => return Err(Failure::Interrupted),
        other => other?,
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}
