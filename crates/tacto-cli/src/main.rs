//! The `tacto` command.
//!
//! ```sh
//! cargo run --release -- bench reference-system --duration 30
//! cargo run --release -- topic echo /chatter --once
//! ```

mod action;
mod bench;
mod graph;
mod launch;
mod lifecycle;
mod param;
mod tf;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tacto_launch::ExecutorKind;
use tacto_launch::interrupt::{self, Interrupt};

use crate::action::ActionCommand;
use crate::bench::{BenchCommand, RunArgs, crunch_ms, warmup, window};
use crate::graph::{Graph, GraphArgs, NodeCommand, ServiceCommand, TopicCommand};
use crate::lifecycle::LifecycleCommand;
use crate::param::ParamCommand;
use crate::tf::TfCommand;

// The built-in topologies' nodes and components, and the demo components, are registered by
// the crates that ship them: referring to them links them, so `tacto launch` hosts them.
use tacto_bench as _;

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
    /// latency, jitter, drops and memory. Ctrl-C stops the run under way and prints the rows
    /// finished so far. `tacto bench payload`: one-way latency by payload size instead.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Bench {
        #[command(subcommand)]
        payload: Option<BenchCommand>,
        #[command(flatten)]
        run: RunArgs,
        /// Reference system: the crunch time per node run, in ms on this machine; picks the
        /// limit whose crunch takes that long here (instead of --crunch).
        #[arg(long, value_name = "MS", value_parser = crunch_ms, allow_negative_numbers = true, conflicts_with = "crunch")]
        crunch_ms: Option<f64>,
        /// Executors, comma-separated: callback, callback-mt, prioritized, events, wait-set, let.
        #[arg(long, value_delimiter = ',', default_values_t = ExecutorKind::ALL)]
        executor: Vec<ExecutorKind>,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a Markdown report with plots into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// ROS 2 topics on the graph (rclcpp, rclpy and tacto nodes alike), no ROS install needed.
    Topic {
        #[command(subcommand)]
        command: TopicCommand,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// Live figures of every tacto executor on the graph: runs, CPU, run times and start
    /// delays per node's executable, from the stats each tacto process publishes once a second
    /// while someone listens.
    Top {
        /// Print one table, with rates, then exit.
        #[arg(long)]
        once: bool,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// tf on the graph: `echo` a transform as tf2_echo prints it, draw the `frames` tree as
    /// view_frames does.
    Tf {
        #[command(subcommand)]
        command: TfCommand,
    },
    /// ROS 2 nodes on the graph.
    Node {
        #[command(subcommand)]
        command: NodeCommand,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// ROS 2 actions on the graph (as `ros2 action`).
    Action {
        #[command(subcommand)]
        command: ActionCommand,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// ROS 2 services on the graph.
    Service {
        #[command(subcommand)]
        command: ServiceCommand,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// ROS 2 parameters of any node on the graph (as `ros2 param`).
    Param {
        #[command(subcommand)]
        command: ParamCommand,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// Managed (lifecycle) nodes on the graph: their states and transitions (as `ros2
    /// lifecycle`).
    Lifecycle {
        #[command(subcommand)]
        command: LifecycleCommand,
        #[command(flatten)]
        graph: GraphArgs,
    },
    /// Starts the processes of a launch file (docs/launch.md): components, nodes of a
    /// topology, or executables; restarts them by their policy; Ctrl-C stops them all.
    Launch {
        /// The launch file (TOML).
        file: PathBuf,
        /// Launch arguments, NAME:=VALUE, over the defaults of the file's `[arg]` table.
        args: Vec<String>,
    },
    /// Runs one process of a launch file (used by `launch`; with `--duration`, by `bench` over
    /// a launch file: a measured run that prints its result as JSON).
    #[command(hide = true)]
    LaunchProcess {
        file: PathBuf,
        name: String,
        /// The launch arguments the launch was given.
        args: Vec<String>,
        /// The executor instead of the file's (with --duration).
        #[arg(long, requires = "duration")]
        executor: Option<ExecutorKind>,
        /// The crunch limit instead of the file's (with --duration).
        #[arg(long, requires = "duration")]
        crunch: Option<u64>,
        /// Seconds of warm-up (with --duration).
        #[arg(long, value_parser = warmup, requires = "duration")]
        warmup: Option<Duration>,
        /// Seconds measured: run that long, print the result as JSON and leave.
        #[arg(long, value_parser = window)]
        duration: Option<Duration>,
    },
    /// Receives one path's messages of `bench payload` and prints its figures as JSON.
    #[command(hide = true)]
    PayloadReceiver {
        path: tacto_bench::payload::Path,
        service: String,
        size: usize,
        count: usize,
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

fn main() -> ExitCode {
    let interrupt = match Interrupt::install() {
        Ok(interrupt) => interrupt,
        Err(e) => {
            eprintln!("tacto: cannot install the Ctrl-C handler: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run(Cli::parse(), &interrupt) {
        Ok(()) => ExitCode::SUCCESS,
        // 130 fits a u8; the fallback is never taken.
        Err(Failure::Interrupted) => {
            ExitCode::from(u8::try_from(interrupt::EXIT_CODE).unwrap_or(1))
        }
        Err(Failure::Error(message)) => {
            eprintln!("tacto: {message}");
            ExitCode::FAILURE
        }
    }
}

/// How a command failed.
pub(crate) enum Failure {
    /// Ctrl-C: what was finished has been printed.
    Interrupted,
    /// Anything else, said in a sentence.
    Error(String),
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Error(e.to_string())
    }
}

fn run(cli: Cli, interrupt: &Interrupt) -> Result<(), Failure> {
    match cli.command {
        Command::Topic { command, graph } => {
            graph::graph_command(Graph::Topic(command), &graph, interrupt)
        }
        Command::Node { command, graph } => {
            graph::graph_command(Graph::Node(command), &graph, interrupt)
        }
        Command::Top { once, graph } => {
            graph::graph_command(Graph::Top { once }, &graph, interrupt)
        }
        Command::Param { command, graph } => {
            graph::graph_command(Graph::Param(command), &graph, interrupt)
        }
        Command::Lifecycle { command, graph } => {
            graph::graph_command(Graph::Lifecycle(command.verb()), &graph, interrupt)
        }
        Command::Service { command, graph } => {
            graph::graph_command(Graph::Service(command), &graph, interrupt)
        }
        Command::Tf { command } => tf::tf_command(command, interrupt),
        Command::Action { command, graph } => action::action_command(command, &graph, interrupt),
        Command::Launch { file, args } => launch::launch(&file, &args, interrupt),
        Command::LaunchProcess {
            file,
            name,
            args,
            executor,
            crunch,
            warmup,
            duration,
        } => launch::launch_process(
            &file,
            &name,
            &args,
            launch::Measure {
                executor,
                crunch,
                warmup,
                duration,
            },
            interrupt,
        ),
        Command::RunOne { run, executor } => bench::run_one(&run, executor, interrupt),
        Command::PayloadReceiver {
            path,
            service,
            size,
            count,
        } => bench::payload_receiver(path, &service, size, count),
        Command::Bench {
            payload:
                Some(BenchCommand::Payload {
                    path,
                    sizes,
                    count,
                    json,
                    out,
                }),
            ..
        } => bench::bench_payload(&path, &sizes, count as usize, json, out, interrupt),
        Command::Bench {
            payload:
                Some(BenchCommand::Seeds {
                    quick,
                    only,
                    json,
                    out,
                    rclcpp,
                }),
            ..
        } => {
            let options = tacto_bench::seeds::Options::new(quick, &only, json, out, rclcpp)?;
            match tacto_bench::seeds::command(&options, interrupt) {
                Ok(_) => Ok(()),
                Err(tacto_bench::seeds::SeedsError::Interrupted) => Err(Failure::Interrupted),
                Err(e) => Err(e.into()),
            }
        }
        Command::Bench {
            payload: None,
            run,
            crunch_ms,
            executor,
            json,
            out,
        } => bench::bench(&run, crunch_ms, &executor, json, out, interrupt),
    }
}
