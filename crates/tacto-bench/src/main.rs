//! The `tacto` command.
//!
//! ```sh
//! cargo run --release -- bench reference-system --duration 30
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tacto_bench::executors::ExecutorKind;
use tacto_bench::report;
use tacto_bench::result::Report;
use tacto_bench::run::{run_here, run_in_child};
use tacto_bench::system::RunConfig;
use tacto_bench::topology::Topology;

#[derive(Debug, Parser)]
#[command(
    name = "tacto",
    version,
    about = "tacto: an execution runtime for robotics"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs a topology on each executor, each in a process of its own, and reports CPU,
    /// latency, jitter, drops and memory.
    Bench {
        #[command(flatten)]
        run: RunArgs,
        /// Executors, comma-separated: callback, callback-mt, prioritized, events, wait-set, let.
        #[arg(long, value_delimiter = ',', default_values_t = ExecutorKind::ALL)]
        executor: Vec<ExecutorKind>,
        /// Also write the results as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also write a Markdown report with plots into this folder.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Runs one executor in this process and prints its result as JSON (used by `bench`).
    #[command(hide = true)]
    RunOne {
        #[command(flatten)]
        run: RunArgs,
        #[arg(long)]
        executor: ExecutorKind,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// reference-system, nobleo, nobleo-1, or a path to a ros2-performance topology JSON.
    topology: String,
    /// Seconds measured per executor.
    #[arg(long, default_value_t = 30.0, value_parser = seconds)]
    duration: f64,
    /// Seconds of warm-up per executor, not measured.
    #[arg(long, default_value_t = 3.0, value_parser = seconds)]
    warmup: f64,
    /// Reference-system work per node (primes up to N); 0 leaves only the runtime's cost.
    #[arg(long, default_value_t = 4096)]
    crunch: u64,
}

fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds (0 or more)")),
    }
}

impl RunArgs {
    fn config(&self, executor: ExecutorKind) -> RunConfig {
        RunConfig {
            executor,
            crunch: self.crunch,
            warmup: Duration::from_secs_f64(self.warmup),
            duration: Duration::from_secs_f64(self.duration),
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tacto: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::RunOne { run, executor } => {
            let topology = Topology::load(&run.topology).map_err(|e| e.to_string())?;
            let result = run_here(&topology, &run.config(executor)).map_err(|e| e.to_string())?;
            println!(
                "{}",
                serde_json::to_string(&result).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Command::Bench {
            run,
            executor,
            json,
            out,
        } => {
            // Load once here, so a bad topology fails before any process starts.
            let topology = Topology::load(&run.topology).map_err(|e| e.to_string())?;
            let mut report = Report {
                topology: topology.name(),
                duration_s: run.duration,
                crunch: run.crunch,
                runs: Vec::new(),
            };
            let per_run = Duration::from_secs_f64(run.warmup + run.duration);
            let mut failures = Vec::new();
            for (i, &kind) in executor.iter().enumerate() {
                let label = format!("{}/{}", i + 1, executor.len());
                let after = per_run * (executor.len() - i - 1) as u32;
                match run_in_child(&run.topology, &run.config(kind), &label, after) {
                    Ok(result) => report.runs.push(result),
                    Err(e) => {
                        eprintln!("tacto: {e}");
                        failures.push(kind);
                    }
                }
            }
            print!("{}", report::table(&report));
            if let Some(path) = json {
                report::write_json(&report, &path)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            if let Some(dir) = out {
                report::write_markdown(&report, &dir)
                    .map_err(|e| format!("cannot write the report into {}: {e}", dir.display()))?;
                println!("report: {}", dir.join("report.md").display());
            }
            match failures.is_empty() {
                true => Ok(()),
                false => Err(format!(
                    "{} of {} runs failed",
                    failures.len(),
                    executor.len()
                )),
            }
        }
    }
}
