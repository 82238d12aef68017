//! The `tacto` command.
//!
//! ```sh
//! cargo run --release -- bench reference-system --duration 30
//! cargo run --release -- topic echo /chatter --once
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tacto_bench::executors::ExecutorKind;
use tacto_bench::health::{Expectations, Statistics};
use tacto_bench::interrupt::{self, Interrupt};
use tacto_bench::launch::args::from_command_line;
use tacto_bench::launch::host;
use tacto_bench::launch::process::{Measured, ProcessError, measure_process, run_process};
use tacto_bench::launch::supervise::{LaunchError, launch as supervise};
use tacto_bench::launch::{BenchTarget, LaunchFile, LaunchTopology, ProcessKind};
use tacto_bench::payload;
use tacto_bench::report;
use tacto_bench::result::Report;
use tacto_bench::run::{RunError, run_here, run_in_child, run_launched};
use tacto_bench::system::{MAX_NODE_PARAMETERS, RunConfig};
use tacto_bench::topology::Topology;
use tacto_bench::topology::reference_system::{MAX_CRUNCH_MS, crunch_time, limit_for};

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

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// One-way latency by payload size through each path, one message in flight: in one
    /// process, and between two through raw iceoryx2 and through tacto on shared memory.
    Payload {
        /// Paths, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',', default_values_t = payload::Path::ALL)]
        path: Vec<payload::Path>,
        /// Payload sizes, comma-separated: 64, 4K, 1M, ... (binary units).
        #[arg(long, value_delimiter = ',', default_values = ["64", "4K", "64K", "1M", "4M", "8M"], value_parser = payload::parse_size)]
        sizes: Vec<usize>,
        /// Measured messages per path and size (after 20 of warm-up).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        count: u32,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a Markdown report with a plot of latency against payload into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// The published experiments behind tacto's execution models in one run, each beside
    /// tacto's baselines: take-from-timer, reference-system, let-nobleo, zero-copy,
    /// events-executor.
    Seeds {
        /// Short runs that check every section works (CI), not measurements.
        #[arg(long)]
        quick: bool,
        /// Sections, comma-separated (default: every one).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a Markdown report with plots into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// rclcpp Jazzy's install folder (../shared/peers/install-rclcpp.sh DIR).
        #[arg(long, value_name = "DIR")]
        rclcpp: Option<PathBuf>,
    },
}

/// What every graph command takes.
#[derive(Debug, Args)]
struct GraphArgs {
    /// The most seconds to wait for discovery to settle (a graph command returns as soon as it
    /// has; `echo`, `hz`, `bw`: for a publisher to appear).
    #[arg(long, global = true, value_name = "S", default_value = "5", value_parser = warmup)]
    wait_s: Duration,
    /// A folder of .msg packages (a package folder or a folder of packages); may be repeated.
    #[arg(long, global = true, value_name = "DIR")]
    msg_path: Vec<PathBuf>,
    /// JSON output, for scripts.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum TopicCommand {
    /// Lists the topics.
    List {
        /// Shows each topic's type.
        #[arg(short = 't', long = "show-types")]
        show_types: bool,
        /// Lists hidden topics too (a name part starting with `_`, as tacto's stats topic).
        #[arg(long)]
        include_hidden_topics: bool,
    },
    /// Prints the messages of a topic as YAML (ros2cli's format), `---` after each.
    Echo {
        /// The topic, e.g. /chatter.
        name: String,
        /// Its type, e.g. std_msgs/msg/String; by default the type its publishers have.
        #[arg(value_name = "TYPE")]
        type_name: Option<String>,
        /// Prints one message and exits.
        #[arg(long)]
        once: bool,
        /// Prints arrays and strings whole (else cut after 128 elements).
        #[arg(long, short = 'f')]
        full_length: bool,
        #[command(flatten)]
        qos: QosArgs,
    },
    /// Prints the rate at which a topic's messages arrive, every second.
    Hz {
        /// The topic.
        name: String,
        /// How many of the last messages the statistics cover.
        #[arg(long, short = 'w', default_value_t = tacto_cli::hz::DEFAULT_WINDOW)]
        window: usize,
        #[command(flatten)]
        qos: QosArgs,
    },
    /// Prints the bandwidth a topic's messages take, every second.
    Bw {
        /// The topic.
        name: String,
        /// How many of the last messages the statistics cover.
        #[arg(long, short = 'w', default_value_t = tacto_cli::bw::DEFAULT_WINDOW)]
        window: usize,
        #[command(flatten)]
        qos: QosArgs,
    },
    /// Prints a topic's type and publisher and subscription counts.
    Info {
        /// The topic.
        name: String,
        /// Also each endpoint: its node, GID and QoS.
        #[arg(long, short = 'v')]
        verbose: bool,
    },
    /// Publishes a message given as YAML, every 1/rate s (until Ctrl-C, or --times).
    Pub {
        /// The topic.
        name: String,
        /// Its type, e.g. geometry_msgs/msg/Point.
        #[arg(value_name = "TYPE")]
        type_name: String,
        /// The message, e.g. '{x: 1.0, y: 2.0}'; fields left out take their defaults.
        #[arg(default_value = "{}")]
        values: String,
        /// Messages per second.
        #[arg(long, short = 'r', default_value = "1", value_parser = rate)]
        rate: f64,
        /// Publishes this many and exits (after waiting up to --wait-s for a subscriber).
        #[arg(long, short = 't', conflicts_with = "once")]
        times: Option<u64>,
        /// Publishes one message and exits (--times 1).
        #[arg(long, short = '1')]
        once: bool,
        #[command(flatten)]
        qos: QosArgs,
    },
}

/// ros2cli's `--qos-*` options; a reader's defaults follow the topic's publishers, `pub`'s are
/// rclcpp's (reliable, volatile, keep last 10).
#[derive(Debug, Args)]
struct QosArgs {
    /// A named profile, the base for the options below.
    #[arg(long, value_name = "PROFILE")]
    qos_profile: Option<tacto_cli::qos::Profile>,
    /// reliable or best_effort.
    #[arg(long, value_name = "POLICY", value_parser = reliability)]
    qos_reliability: Option<tacto_dds::Reliability>,
    /// volatile or transient_local.
    #[arg(long, value_name = "POLICY", value_parser = durability)]
    qos_durability: Option<tacto_dds::Durability>,
    /// keep_last or keep_all.
    #[arg(long, value_name = "POLICY", value_parser = ["keep_last", "keep_all"])]
    qos_history: Option<String>,
    /// The depth of a keep_last history.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    qos_depth: Option<u32>,
}

impl QosArgs {
    fn choice(&self) -> tacto_cli::qos::QosChoice {
        tacto_cli::qos::QosChoice {
            profile: self.qos_profile,
            reliability: self.qos_reliability,
            durability: self.qos_durability,
            keep_all: self.qos_history.as_deref().map(|h| h == "keep_all"),
            depth: self.qos_depth,
        }
    }
}

fn reliability(s: &str) -> Result<tacto_dds::Reliability, String> {
    match s {
        "reliable" => Ok(tacto_dds::Reliability::Reliable),
        "best_effort" => Ok(tacto_dds::Reliability::BestEffort),
        _ => Err(format!("{s:?}: reliable or best_effort")),
    }
}

fn durability(s: &str) -> Result<tacto_dds::Durability, String> {
    match s {
        "volatile" => Ok(tacto_dds::Durability::Volatile),
        "transient_local" => Ok(tacto_dds::Durability::TransientLocal),
        _ => Err(format!("{s:?}: volatile or transient_local")),
    }
}

#[derive(Debug, Subcommand)]
enum NodeCommand {
    /// Lists the nodes.
    List,
    /// Prints a node's subscribers, publishers, service servers and clients.
    Info {
        /// The node, /namespace/name.
        name: String,
        /// Also its hidden topics and services (a name part starting with `_`, such as an
        /// action's `/_action/` endpoints).
        #[arg(long)]
        include_hidden: bool,
    },
}

/// What every `tacto param` verb takes, as ros2param's verbs do.
#[derive(Debug, Clone, Copy, clap::Args)]
struct ParamArgs {
    /// Wait for N seconds until the node becomes available (at least --wait-s).
    #[arg(long, value_name = "N", default_value = "1")]
    timeout: u64,
    /// Consider hidden nodes as well.
    #[arg(long)]
    include_hidden_nodes: bool,
}

#[derive(Debug, Subcommand)]
enum ParamCommand {
    /// Lists the parameters of a node, or of every node.
    List {
        /// The node, /namespace/name.
        node_name: Option<String>,
        /// Only the parameters this regular expression matches (at their start).
        #[arg(long)]
        filter: Option<String>,
        /// Only parameters with these prefixes.
        #[arg(long, num_args = 1..)]
        param_prefixes: Vec<String>,
        /// Print each parameter's type.
        #[arg(long)]
        param_type: bool,
        #[command(flatten)]
        param: ParamArgs,
    },
    /// Prints a parameter's value.
    Get {
        /// The node.
        node_name: String,
        /// The parameter.
        parameter_name: String,
        /// Print only the value.
        #[arg(long)]
        hide_type: bool,
        #[command(flatten)]
        param: ParamArgs,
    },
    /// Sets a parameter; the value is read as YAML (true, 2, 0.5, [1, 2], text).
    Set {
        /// The node.
        node_name: String,
        /// The parameter.
        parameter_name: String,
        /// The value.
        #[arg(allow_hyphen_values = true)]
        value: String,
        #[command(flatten)]
        param: ParamArgs,
    },
    /// Describes parameters: type, description, constraints.
    Describe {
        /// The node.
        node_name: String,
        /// The parameters.
        #[arg(required = true)]
        parameter_names: Vec<String>,
        #[command(flatten)]
        param: ParamArgs,
    },
    /// Prints every parameter of a node as a parameter file.
    Dump {
        /// The node.
        node_name: String,
        #[command(flatten)]
        param: ParamArgs,
    },
    /// Sets the parameters of a parameter file on a node.
    Load {
        /// The node.
        node_name: String,
        /// The parameter file.
        parameter_file: PathBuf,
        /// Do not load the parameters of the '/**' section.
        #[arg(long)]
        no_use_wildcard: bool,
        #[command(flatten)]
        param: ParamArgs,
    },
    /// Deletes (undeclares) a parameter.
    Delete {
        /// The node.
        node_name: String,
        /// The parameter.
        parameter_name: String,
        #[command(flatten)]
        param: ParamArgs,
    },
}

impl ParamCommand {
    fn verb(self) -> (tacto_cli::param::ParamVerb, ParamArgs) {
        use tacto_cli::param::ParamVerb as V;
        match self {
            ParamCommand::List {
                node_name,
                filter,
                param_prefixes,
                param_type,
                param,
            } => {
                let verb = V::List {
                    node: node_name,
                    filter,
                    prefixes: param_prefixes,
                    param_type,
                };
                (verb, param)
            }
            ParamCommand::Get {
                node_name,
                parameter_name,
                hide_type,
                param,
            } => {
                let verb = V::Get {
                    node: node_name,
                    name: parameter_name,
                    hide_type,
                };
                (verb, param)
            }
            ParamCommand::Set {
                node_name,
                parameter_name,
                value,
                param,
            } => {
                let verb = V::Set {
                    node: node_name,
                    name: parameter_name,
                    value,
                };
                (verb, param)
            }
            ParamCommand::Describe {
                node_name,
                parameter_names,
                param,
            } => {
                let verb = V::Describe {
                    node: node_name,
                    names: parameter_names,
                };
                (verb, param)
            }
            ParamCommand::Dump { node_name, param } => (V::Dump { node: node_name }, param),
            ParamCommand::Load {
                node_name,
                parameter_file,
                no_use_wildcard,
                param,
            } => {
                let verb = V::Load {
                    node: node_name,
                    file: parameter_file,
                    no_use_wildcard,
                };
                (verb, param)
            }
            ParamCommand::Delete {
                node_name,
                parameter_name,
                param,
            } => {
                let verb = V::Delete {
                    node: node_name,
                    name: parameter_name,
                };
                (verb, param)
            }
        }
    }
}

/// `tacto lifecycle`'s verbs, with ros2lifecycle's arguments and flags.
#[derive(Debug, Subcommand)]
enum LifecycleCommand {
    /// Output a list of nodes with lifecycle.
    Nodes {
        /// Display all nodes even hidden ones.
        #[arg(short = 'a', long)]
        all: bool,
        /// Only display the number of nodes discovered.
        #[arg(short = 'c', long)]
        count_nodes: bool,
    },
    /// Output a list of available transitions.
    List {
        /// Name of the ROS node.
        node_name: String,
        /// Consider hidden nodes as well.
        #[arg(long)]
        include_hidden_nodes: bool,
        /// Display all existing transitions.
        #[arg(short = 'a', long)]
        all: bool,
    },
    /// Get lifecycle state for one or more nodes.
    Get {
        /// Name of the ROS node. If no name is provided, then get the state for all nodes.
        node_name: Option<String>,
        /// Consider hidden nodes as well.
        #[arg(long)]
        include_hidden_nodes: bool,
    },
    /// Trigger lifecycle state transition.
    Set {
        /// Name of the ROS node.
        node_name: String,
        /// The lifecycle transition: its label (configure) or its id (1).
        transition: String,
        /// Consider hidden nodes as well.
        #[arg(long)]
        include_hidden_nodes: bool,
    },
}

impl LifecycleCommand {
    fn verb(self) -> tacto_cli::lifecycle::LifecycleVerb {
        use tacto_cli::lifecycle::LifecycleVerb as V;
        match self {
            LifecycleCommand::Nodes { all, count_nodes } => V::Nodes {
                all,
                count: count_nodes,
            },
            LifecycleCommand::List {
                node_name,
                include_hidden_nodes,
                all,
            } => V::List {
                node: node_name,
                all,
                include_hidden_nodes,
            },
            LifecycleCommand::Get {
                node_name,
                include_hidden_nodes,
            } => V::Get {
                node: node_name,
                include_hidden_nodes,
            },
            LifecycleCommand::Set {
                node_name,
                transition,
                include_hidden_nodes,
            } => V::Set {
                node: node_name,
                transition,
                include_hidden_nodes,
            },
        }
    }
}

#[derive(Debug, Subcommand)]
enum ServiceCommand {
    /// Lists the services.
    List {
        /// Shows each service's type.
        #[arg(short = 't', long = "show-types")]
        show_types: bool,
        /// Lists hidden services too (a name part starting with `_`, such as an action's).
        #[arg(long)]
        include_hidden_services: bool,
    },
    /// Calls a service with a request given as YAML and prints the response.
    Call {
        /// The service, e.g. /add_two_ints.
        name: String,
        /// Its type, e.g. example_interfaces/srv/AddTwoInts.
        #[arg(value_name = "TYPE")]
        type_name: String,
        /// The request, e.g. '{a: 1, b: 2}'; fields left out take their defaults.
        #[arg(default_value = "{}")]
        values: String,
    },
}

/// The longest warm-up or measured window: a week. Longer is surely a typo, and would overflow
/// the arithmetic of the progress display.
const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// The largest crunch limit: one crunch then takes seconds, far beyond any period of the
/// reference system (use --crunch-ms to pick a limit by time).
const MAX_CRUNCH: u64 = 65_536;

/// The default crunch limit, upstream's.
const DEFAULT_CRUNCH: u64 = 4096;

#[derive(Debug, Args)]
struct RunArgs {
    /// reference-system, nobleo, nobleo-1, mont-blanc, sierra-nevada, the path of a topology
    /// JSON file, or (bench only) a launch file (.toml): its processes run together, each on
    /// the run's executor, and their figures are added up.
    // Optional to clap only so that `bench payload` may leave it out; required otherwise.
    #[arg(required = true)]
    topology: Option<String>,
    /// Seconds measured per executor (above 0).
    #[arg(long, value_name = "S", default_value = "30", value_parser = window, allow_negative_numbers = true)]
    duration: Duration,
    /// Seconds of warm-up per executor, not measured (0 or more).
    #[arg(long, value_name = "S", default_value = "3", value_parser = warmup, allow_negative_numbers = true)]
    warmup: Duration,
    /// Reference system: work per node run (count the primes up to N); 0 leaves only the
    /// runtime's cost. Default 4096, upstream's.
    #[arg(long, value_name = "N", value_parser = crunch, allow_negative_numbers = true)]
    crunch: Option<u64>,
    /// Every node also on the ROS 2 graph over DDS (the domain of ROS_DOMAIN_ID): it serves
    /// its parameter services and publishes /rosout and /parameter_events, as a node of a real
    /// system; topics go over DDS only to readers in other processes.
    #[arg(long)]
    ros_graph: bool,
    /// Parameters each node declares (0 to 1000), as a configured node has.
    #[arg(long, value_name = "N", default_value = "0", value_parser = node_parameters)]
    node_parameters: usize,
}

/// A number of seconds from 0 to a week.
fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_nan() => Err(format!("{s:?} is not a number of seconds")),
        Ok(v) if v < 0.0 => Err(format!("{s} s is negative")),
        Ok(v) if v > MAX_SECONDS => Err(format!(
            "{s} s is more than a week ({MAX_SECONDS} s), the longest allowed"
        )),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("{s:?} is not a number of seconds")),
    }
}

fn node_parameters(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n <= MAX_NODE_PARAMETERS => Ok(n),
        Ok(n) => Err(format!(
            "{n} parameters per node: give at most {MAX_NODE_PARAMETERS}"
        )),
        Err(_) => Err(format!(
            "{s:?} is not a number of parameters (0 to {MAX_NODE_PARAMETERS})"
        )),
    }
}

fn window(s: &str) -> Result<Duration, String> {
    match seconds(s)? {
        0.0 => Err("a measured window of 0 s measures nothing: give more than 0 s".into()),
        v => Ok(Duration::from_secs_f64(v)),
    }
}

fn warmup(s: &str) -> Result<Duration, String> {
    seconds(s).map(Duration::from_secs_f64)
}

fn crunch(s: &str) -> Result<u64, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "{s} is negative: give a limit from 0 to {MAX_CRUNCH}"
        ));
    }
    match s.trim().parse::<u64>() {
        Ok(v) if v <= MAX_CRUNCH => Ok(v),
        Ok(_) => Err(format!(
            "{s} is above {MAX_CRUNCH}, where one crunch takes seconds; use --crunch-ms for a \
             time per run"
        )),
        Err(_) => Err(format!(
            "{s:?} is not a whole number from 0 to {MAX_CRUNCH}"
        )),
    }
}

/// A publishing rate: above 0, at most a MHz.
fn rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1e6 => Ok(v),
        _ => Err(format!("{s:?} is not a rate in Hz above 0 and up to 1e6")),
    }
}

fn crunch_ms(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=MAX_CRUNCH_MS).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a time in ms from 0 to {MAX_CRUNCH_MS}"
        )),
    }
}

impl RunArgs {
    fn topology(&self) -> Result<&str, String> {
        self.topology
            .as_deref()
            .ok_or_else(|| "no topology given".into())
    }

    fn config(&self, executor: ExecutorKind, crunch: u64) -> RunConfig {
        RunConfig {
            executor,
            crunch,
            warmup: self.warmup,
            duration: self.duration,
            ros_graph: self.ros_graph,
            node_parameters: self.node_parameters,
        }
    }
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
enum Failure {
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
            graph_command(Graph::Topic(command), &graph, interrupt)
        }
        Command::Node { command, graph } => graph_command(Graph::Node(command), &graph, interrupt),
        Command::Top { once, graph } => graph_command(Graph::Top { once }, &graph, interrupt),
        Command::Param { command, graph } => {
            graph_command(Graph::Param(command), &graph, interrupt)
        }
        Command::Lifecycle { command, graph } => {
            graph_command(Graph::Lifecycle(command.verb()), &graph, interrupt)
        }
        Command::Service { command, graph } => {
            graph_command(Graph::Service(command), &graph, interrupt)
        }
        Command::Tf { command } => tf_command(command, interrupt),
        Command::Action { command, graph } => action_command(command, &graph, interrupt),
        Command::Launch { file, args } => launch(&file, &args, interrupt),
        Command::LaunchProcess {
            file,
            name,
            args,
            executor,
            crunch,
            warmup,
            duration,
        } => {
            let launch_file = LaunchFile::load_with(&file, &from_command_line(&args)?)?;
            let Some(duration) = duration else {
                return Ok(run_process(&launch_file, &name, interrupt)?);
            };
            // Components run on the executors the file places them on.
            if let Some(ProcessKind::Components(process)) =
                launch_file.process(&name).map(|p| &p.kind)
            {
                let warmup = warmup.unwrap_or_default();
                let measured =
                    host::measure(&launch_file, &name, process, warmup, duration, interrupt);
                let result = match measured {
                    Err(ProcessError::Interrupted) => return Err(Failure::Interrupted),
                    other => other?,
                };
                println!("{}", serde_json::to_string(&result)?);
                return Ok(());
            }
            let (_, spec) = (launch_file.nodes_of(&name)).ok_or_else(|| {
                format!("the launch file has no process {name:?} that runs nodes of its topology")
            })?;
            let measured = Measured {
                executor: executor.unwrap_or(spec.executor),
                crunch: crunch.unwrap_or(launch_file.crunch),
                warmup: warmup.unwrap_or_default(),
                duration,
            };
            let result = match measure_process(&launch_file, &name, &measured, interrupt) {
                Err(ProcessError::Interrupted) => return Err(Failure::Interrupted),
                other => other?,
            };
            println!("{}", serde_json::to_string(&result)?);
            Ok(())
        }
        Command::RunOne { run, executor } => {
            let topology = Topology::load(run.topology()?)?;
            let config = run.config(executor, run.crunch.unwrap_or(DEFAULT_CRUNCH));
            let result = match run_here(&topology, &config, interrupt) {
                Err(RunError::Interrupted { .. }) => return Err(Failure::Interrupted),
                other => other?,
            };
            println!("{}", serde_json::to_string(&result)?);
            Ok(())
        }
        Command::PayloadReceiver {
            path,
            service,
            size,
            count,
        } => {
            let received = payload::receive(path, &service, size, count)?;
            println!("{}", serde_json::to_string(&received)?);
            Ok(())
        }
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
        } => bench_payload(&path, &sizes, count as usize, json, out, interrupt),
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
        } => bench(&run, crunch_ms, &executor, json, out, interrupt),
    }
}

fn launch(file: &Path, args: &[String], interrupt: &Interrupt) -> Result<(), Failure> {
    let launch_file = LaunchFile::load_with(file, &from_command_line(args)?)?;
    match supervise(file, &launch_file, args, interrupt) {
        Err(LaunchError::Interrupted) => Err(Failure::Interrupted),
        other => Ok(other?),
    }
}

enum Graph {
    Top { once: bool },
    Topic(TopicCommand),
    Node(NodeCommand),
    Service(ServiceCommand),
    Param(ParamCommand),
    Lifecycle(tacto_cli::lifecycle::LifecycleVerb),
}

fn graph_command(command: Graph, args: &GraphArgs, interrupt: &Interrupt) -> Result<(), Failure> {
    use tacto_cli::commands;
    let participant = tacto_dds::Participant::from_env()?;
    let qos = match &command {
        Graph::Topic(
            TopicCommand::Echo { qos, .. }
            | TopicCommand::Hz { qos, .. }
            | TopicCommand::Bw { qos, .. }
            | TopicCommand::Pub { qos, .. },
        ) => qos.choice(),
        _ => tacto_cli::qos::QosChoice::default(),
    };
    let options = tacto_cli::Options {
        qos,
        wait: args.wait_s,
        msg_paths: args.msg_path.clone(),
        json: args.json,
    };
    let stop = || interrupt.requested();
    let mut out = std::io::stdout().lock();
    let result = match command {
        Graph::Top { once } => {
            use std::io::IsTerminal;
            let clear = !once && std::io::stdout().is_terminal();
            let top = tacto_cli::TopOptions { once, clear };
            commands::top(&participant, &options, top, &mut out, &stop)
        }
        Graph::Topic(TopicCommand::List {
            show_types,
            include_hidden_topics,
        }) => commands::topic_list(
            &participant,
            &options,
            show_types,
            include_hidden_topics,
            &mut out,
            &stop,
        ),
        Graph::Topic(TopicCommand::Echo {
            name,
            type_name,
            once,
            full_length,
            ..
        }) => {
            let echo = tacto_cli::EchoOptions { once, full_length };
            let type_name = type_name.as_deref();
            commands::topic_echo(
                &participant,
                &options,
                &name,
                type_name,
                echo,
                &mut out,
                &stop,
            )
        }
        Graph::Topic(TopicCommand::Hz { name, window, .. }) => {
            commands::topic_hz(&participant, &options, &name, window, &mut out, &stop)
        }
        Graph::Topic(TopicCommand::Pub {
            name,
            type_name,
            values,
            rate,
            times,
            once,
            ..
        }) => {
            let publish = tacto_cli::PubOptions {
                rate,
                times: if once { Some(1) } else { times },
            };
            commands::topic_pub(
                &participant,
                &options,
                &name,
                &type_name,
                &values,
                publish,
                &mut out,
                &stop,
            )
        }
        Graph::Node(NodeCommand::List) => {
            commands::node_list(&participant, &options, &mut out, &stop)
        }
        Graph::Topic(TopicCommand::Bw { name, window, .. }) => {
            commands::topic_bw(&participant, &options, &name, window, &mut out, &stop)
        }
        Graph::Topic(TopicCommand::Info { name, verbose }) => {
            commands::topic_info(&participant, &options, &name, verbose, &mut out, &stop)
        }
        Graph::Node(NodeCommand::Info {
            name,
            include_hidden,
        }) => commands::node_info(
            &participant,
            &options,
            &name,
            include_hidden,
            &mut out,
            &stop,
        ),
        Graph::Service(ServiceCommand::List {
            show_types,
            include_hidden_services,
        }) => commands::service_list(
            &participant,
            &options,
            show_types,
            include_hidden_services,
            &mut out,
            &stop,
        ),
        Graph::Param(command) => {
            let (verb, param) = command.verb();
            let param = tacto_cli::param::ParamOptions {
                timeout: Duration::from_secs(param.timeout),
                include_hidden_nodes: param.include_hidden_nodes,
            };
            tacto_cli::param::param(&participant, &options, &param, &verb, &mut out, &stop)
        }
        Graph::Lifecycle(verb) => {
            tacto_cli::lifecycle::lifecycle(&participant, &options, &verb, &mut out, &stop)
        }
        Graph::Service(ServiceCommand::Call {
            name,
            type_name,
            values,
        }) => commands::service_call(
            &participant,
            &options,
            &name,
            &type_name,
            &values,
            &mut out,
            &stop,
        ),
    };
    match result {
        Err(tacto_cli::CommandError::Interrupted) => Err(Failure::Interrupted),
        // The reader of the output went away (`tacto topic echo /x | head -3`): done.
        Err(tacto_cli::CommandError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(())
        }
        other => Ok(other?),
    }
}

/// `tacto action`'s verbs, with `ros2 action`'s arguments and flags.
#[derive(Debug, Subcommand)]
enum ActionCommand {
    /// Lists the actions on the graph.
    List {
        /// Also show each action's type.
        #[arg(short = 't', long)]
        show_types: bool,
        /// Only print how many actions there are.
        #[arg(short = 'c', long)]
        count_actions: bool,
    },
    /// Prints an action's clients and servers.
    Info {
        /// The action, e.g. /fibonacci.
        action_name: String,
        /// Also show the action's type.
        #[arg(short = 't', long)]
        show_types: bool,
        /// Only print how many clients and servers it has.
        #[arg(short = 'c', long)]
        count: bool,
    },
    /// Sends a goal and prints its result (Ctrl-C cancels it).
    SendGoal {
        /// The action, e.g. /fibonacci.
        action_name: String,
        /// Its type, e.g. example_interfaces/action/Fibonacci.
        action_type: String,
        /// The goal as YAML, e.g. '{order: 10}'; fields left out take their defaults.
        #[arg(default_value = "{}")]
        goal: String,
        /// Also print the goal's feedback.
        #[arg(short = 'f', long)]
        feedback: bool,
    },
}

fn action_command(
    command: ActionCommand,
    args: &GraphArgs,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    use tacto_cli::action;
    let participant = tacto_dds::Participant::from_env()?;
    let options = tacto_cli::Options {
        wait: args.wait_s,
        msg_paths: args.msg_path.clone(),
        json: args.json,
        ..Default::default()
    };
    let stop = || interrupt.requested();
    let mut out = std::io::stdout().lock();
    let result = match command {
        ActionCommand::List {
            show_types,
            count_actions,
        } => action::action_list(
            &participant,
            &options,
            show_types,
            count_actions,
            &mut out,
            &stop,
        ),
        ActionCommand::Info {
            action_name,
            show_types,
            count,
        } => action::action_info(
            &participant,
            &options,
            &action_name,
            show_types,
            count,
            &mut out,
            &stop,
        ),
        ActionCommand::SendGoal {
            action_name,
            action_type,
            goal,
            feedback,
        } => action::send_goal(
            &participant,
            &options,
            &action_name,
            &action_type,
            &goal,
            feedback,
            &mut out,
            &stop,
        ),
    };
    match result {
        Err(action::ActionError::Command(tacto_cli::CommandError::Interrupted)) => {
            Err(Failure::Interrupted)
        }
        other => Ok(other?),
    }
}

fn bench(
    run: &RunArgs,
    crunch_ms_target: Option<f64>,
    executors: &[ExecutorKind],
    json: Option<PathBuf>,
    out: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    // Everything that can be refused is checked here, before any run starts.
    let topology_name = run.topology()?;
    let launch_path = Path::new(topology_name);
    let launch = match topology_name.ends_with(".toml") {
        true => Some(LaunchFile::load(launch_path)?),
        false => None,
    };
    let topology = match &launch {
        Some(file) => match file.bench_target(launch_path)? {
            BenchTarget::Topology(LaunchTopology::ReferenceSystem(spec)) => {
                Topology::ReferenceSystem(spec.clone())
            }
            BenchTarget::Topology(LaunchTopology::Nobleo(spec)) => Topology::Nobleo(spec.clone()),
            BenchTarget::Components => {
                let given = (executors != ExecutorKind::ALL).then_some("--executor");
                let given = given
                    .or(crunch_ms_target.is_some().then_some("--crunch-ms"))
                    .or(run.crunch.is_some().then_some("--crunch"))
                    .or((run.ros_graph || run.node_parameters > 0).then_some("--ros-graph"));
                if let Some(option) = given {
                    return Err(format!(
                        "{option} applies to a built-in topology: a file of components runs as \
                         it places them"
                    )
                    .into());
                }
                return bench_components(run, launch_path, file, json, out, interrupt);
            }
        },
        None => Topology::load(topology_name)?,
    };
    // A launch file gives each process one executor; `prioritized` is a layout of several.
    let executors: Vec<ExecutorKind> = match &launch {
        Some(_) if executors == ExecutorKind::ALL => (executors.iter().copied())
            .filter(|&kind| kind != ExecutorKind::Prioritized)
            .collect(),
        Some(_) if executors.contains(&ExecutorKind::Prioritized) => {
            return Err(
                "--executor prioritized: a launch file gives each process one \
                        executor, and prioritized is a layout of several threads"
                    .into(),
            );
        }
        _ => executors.to_vec(),
    };
    let executors = &executors[..];
    if launch.is_some() && (run.ros_graph || run.node_parameters > 0) {
        return Err(
            "--ros-graph and --node-parameters apply to a topology, not to a launch file: its \
             processes are on the transport the file gives"
                .into(),
        );
    }
    if let Some(path) = &json {
        check_output_file(path).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &out {
        check_output_dir(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    if crunch_ms_target.is_some() && !topology.crunches() {
        return Err(format!(
            "--crunch-ms applies to the reference system only, not to {}",
            topology.name()
        )
        .into());
    }
    let crunch = match (crunch_ms_target, &launch) {
        (Some(ms), _) => limit_for(ms)?,
        (None, Some(file)) => run.crunch.unwrap_or(file.crunch),
        (None, None) => run.crunch.unwrap_or(DEFAULT_CRUNCH),
    };
    let mut report = Report {
        topology: match &launch {
            Some(file) => format!(
                "{} in {} processes ({})",
                topology.name(),
                file.processes.len(),
                topology_name
            ),
            None => topology.name(),
        },
        duration_s: run.duration.as_secs_f64(),
        crunch,
        crunch_ms: topology
            .crunches()
            .then(|| crunch_time(crunch).as_secs_f64() * 1e3),
        crunch_ms_target,
        runs: Vec::new(),
        interrupted: false,
    };
    let per_run = run.warmup + run.duration;
    let mut failures = Vec::new();
    for (i, &kind) in executors.iter().enumerate() {
        let label = format!("{}/{}", i + 1, executors.len());
        let after = per_run * (executors.len() - i - 1) as u32;
        let config = run.config(kind, crunch);
        let result = match &launch {
            Some(file) => {
                // Its processes spread over the CPUs: each executor thread may have one.
                let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
                let expected = Expectations {
                    cores: file.processes.len().min(cpus) as f64,
                    ..topology.expectations(kind)
                };
                run_launched(
                    launch_path,
                    file,
                    &config,
                    &expected,
                    &label,
                    after,
                    interrupt,
                )
            }
            None => run_in_child(topology_name, &config, &label, after, interrupt),
        };
        match result {
            Ok(result) => report.runs.push(result),
            Err(RunError::Interrupted { .. }) => {
                report.interrupted = true;
                break;
            }
            Err(e) => {
                eprintln!("tacto: {e}");
                failures.push(kind);
            }
        }
        if interrupt.requested() {
            report.interrupted = true;
            break;
        }
    }
    print!("{}", report::table(&report));
    if report.interrupted {
        eprintln!(
            "tacto: interrupted: {} of {} runs finished, shown above",
            report.runs.len(),
            executors.len()
        );
    }
    if let Some(path) = json {
        report::write_json(&report, &path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = out {
        report::write_markdown(&report, &dir)
            .map_err(|e| format!("cannot write the report into {}: {e}", dir.display()))?;
        println!("report: {}", dir.join("report.md").display());
    }
    if report.interrupted {
        return Err(Failure::Interrupted);
    }
    match failures.is_empty() {
        true => Ok(()),
        false => Err(format!("{} of {} runs failed", failures.len(), executors.len()).into()),
    }
}

/// `tacto bench FILE.toml` of a file of components: one run of its processes as placed (their
/// own executors, threads, CPUs and priorities), what each process and all together use.
fn bench_components(
    run: &RunArgs,
    path: &Path,
    file: &LaunchFile,
    json: Option<PathBuf>,
    out: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    if let Some(path) = &json {
        check_output_file(path).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &out {
        check_output_dir(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    // The children run the file's executors; the one named here only labels the progress.
    let config = run.config(ExecutorKind::WaitSet, 0);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: usize = (file.processes.iter())
        .map(|p| match &p.kind {
            ProcessKind::Components(c) => c.executors.len(),
            _ => 1,
        })
        .sum();
    let expected = Expectations {
        cores: threads.min(cpus) as f64,
        statistics: Statistics::Usage,
    };
    let mut report = Report {
        topology: format!(
            "{} processes of components ({})",
            file.processes.len(),
            path.display()
        ),
        duration_s: run.duration.as_secs_f64(),
        crunch: 0,
        crunch_ms: None,
        crunch_ms_target: None,
        runs: Vec::new(),
        interrupted: false,
    };
    match run_launched(
        path,
        file,
        &config,
        &expected,
        "1/1",
        Duration::ZERO,
        interrupt,
    ) {
        Ok(mut result) => {
            result.executor = host::AS_PLACED.into();
            report.runs.push(result);
        }
        Err(RunError::Interrupted { .. }) => report.interrupted = true,
        Err(e) => return Err(e.into()),
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
    match report.interrupted {
        true => Err(Failure::Interrupted),
        false => Ok(()),
    }
}

fn bench_payload(
    paths: &[payload::Path],
    sizes: &[usize],
    count: usize,
    json: Option<PathBuf>,
    out: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    if let Some(path) = &json {
        check_output_file(path).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = &out {
        check_output_dir(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    let report = payload::run(paths, sizes, count, interrupt)?;
    print!("{}", payload::table(&report));
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report)?;
        fs::write(&path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = out {
        let written = payload::write_markdown(&report, &dir)
            .map_err(|e| format!("cannot write the report into {}: {e}", dir.display()))?;
        println!("report: {}", written.display());
    }
    match report.interrupted {
        true => {
            eprintln!("tacto: interrupted: the sizes finished are shown above");
            Err(Failure::Interrupted)
        }
        false => Ok(()),
    }
}

/// Checks that `path` can be written as a file, without changing what is there.
fn check_output_file(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err("is a folder, not a file".into());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!("the folder {} does not exist", parent.display()));
    }
    let existed = path.exists();
    // Opened without truncating: an existing file keeps its contents until the results come.
    fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot be written: {e}"))?;
    if !existed {
        fs::remove_file(path).map_err(|e| format!("cannot be written: {e}"))?;
    }
    Ok(())
}

/// Creates `dir` if needed and checks that files can be written into it.
fn check_output_dir(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err("is a file, not a folder".into());
    }
    fs::create_dir_all(dir).map_err(|e| format!("cannot be created: {e}"))?;
    let probe = dir.join(format!(".tacto-probe-{}", std::process::id()));
    fs::write(&probe, b"").map_err(|e| format!("cannot be written into: {e}"))?;
    fs::remove_file(&probe).map_err(|e| format!("cannot be written into: {e}"))
}

#[derive(Debug, Subcommand)]
enum TfCommand {
    /// Prints the transform that takes data from TARGET into SOURCE, at the latest time both
    /// have data, as tf2_echo does, until Ctrl-C.
    Echo {
        /// The frame the data is taken into.
        source: String,
        /// The frame the data is in.
        target: String,
        /// Prints per second.
        #[arg(long, value_name = "HZ", default_value = "1", value_parser = tf_rate)]
        rate: f64,
        /// Stop after this many prints.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
    },
    /// Listens to /tf and /tf_static, then prints the frames as tf2's allFramesAsYAML and
    /// writes the tree as view_frames does: NAME.gv (Graphviz text) and NAME.svg (a picture).
    Frames {
        /// Seconds to listen before describing the tree.
        #[arg(short = 't', long, value_name = "S", default_value = "5", value_parser = warmup)]
        wait_time: Duration,
        /// The output files' name, without extension (default: frames_DATE_TIME, as view_frames names them).
        #[arg(short = 'o', long, value_name = "NAME")]
        output: Option<PathBuf>,
    },
}

fn tf_rate(s: &str) -> Result<f64, String> {
    tacto_cli::tf::parse_rate(s).map_err(|e| e.to_string())
}

fn tf_command(command: TfCommand, interrupt: &Interrupt) -> Result<(), Failure> {
    use tacto_cli::tf;
    let (_context, listener) = tf::graph_listener(tacto_dds::Participant::from_env()?)?;
    let stop = || interrupt.requested();
    match command {
        TfCommand::Echo {
            source,
            target,
            rate,
            count,
        } => {
            let options = tf::EchoOptions { rate, count };
            // Unlocked: the listener's thread may print too (a malformed sample's line).
            let (mut out, mut log) = (std::io::stdout(), std::io::stderr());
            tf::echo(
                &listener, &source, &target, options, &mut out, &mut log, &stop,
            )?;
        }
        TfCommand::Frames { wait_time, output } => {
            eprintln!("[INFO] [view_frames]: Listening to tf data for {wait_time:?}...");
            let report = tf::frames(&listener, wait_time, &stop);
            let name = output.unwrap_or_else(|| {
                PathBuf::from(tf::default_output_name(std::time::SystemTime::now()))
            });
            // Appended, not set: the default name's time has dots.
            let with = |extension: &str| {
                let mut file = name.clone().into_os_string();
                file.push(extension);
                PathBuf::from(file)
            };
            let (gv, svg) = (with(".gv"), with(".svg"));
            fs::write(&gv, tf::frames_dot(&report.frames, report.recorded))
                .map_err(|e| format!("writing {}: {e}", gv.display()))?;
            fs::write(&svg, tf::frames_svg(&report.frames, report.recorded))
                .map_err(|e| format!("writing {}: {e}", svg.display()))?;
            println!("{}", report.yaml);
            eprintln!(
                "[INFO] [view_frames]: Exported the graph in {} and {}",
                gv.display(),
                svg.display()
            );
        }
    }
    if interrupt.requested() {
        return Err(Failure::Interrupted);
    }
    Ok(())
}
