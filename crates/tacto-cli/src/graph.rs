//! The graph tools' command line: `tacto topic`, `node`, `service` and `top`, and the dispatch
//! of every graph command (`param` and `lifecycle` too) to tacto-graph.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use tacto_launch::interrupt::Interrupt;

use crate::Failure;
use crate::bench::warmup;
use crate::param::ParamCommand;

/// What every graph command takes.
#[derive(Debug, Args)]
pub(crate) struct GraphArgs {
    /// The most seconds to wait for discovery to settle (a graph command returns as soon as it
    /// has; `echo`, `hz`, `bw`: for a publisher to appear).
    #[arg(long, global = true, value_name = "S", default_value = "5", value_parser = warmup)]
    pub(crate) wait_s: Duration,
    /// A folder of .msg packages (a package folder or a folder of packages); may be repeated.
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) msg_path: Vec<PathBuf>,
    /// JSON output, for scripts.
    #[arg(long, global = true)]
    pub(crate) json: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TopicCommand {
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
        #[arg(long, short = 'w', default_value_t = tacto_graph::hz::DEFAULT_WINDOW)]
        window: usize,
        #[command(flatten)]
        qos: QosArgs,
    },
    /// Prints the bandwidth a topic's messages take, every second.
    Bw {
        /// The topic.
        name: String,
        /// How many of the last messages the statistics cover.
        #[arg(long, short = 'w', default_value_t = tacto_graph::bw::DEFAULT_WINDOW)]
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
pub(crate) struct QosArgs {
    /// A named profile, the base for the options below.
    #[arg(long, value_name = "PROFILE")]
    pub(crate) qos_profile: Option<tacto_graph::qos::Profile>,
    /// reliable or best_effort.
    #[arg(long, value_name = "POLICY", value_parser = reliability)]
    pub(crate) qos_reliability: Option<tacto_dds::Reliability>,
    /// volatile or transient_local.
    #[arg(long, value_name = "POLICY", value_parser = durability)]
    pub(crate) qos_durability: Option<tacto_dds::Durability>,
    /// keep_last or keep_all.
    #[arg(long, value_name = "POLICY", value_parser = ["keep_last", "keep_all"])]
    pub(crate) qos_history: Option<String>,
    /// The depth of a keep_last history.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) qos_depth: Option<u32>,
}

impl QosArgs {
    pub(crate) fn choice(&self) -> tacto_graph::qos::QosChoice {
        tacto_graph::qos::QosChoice {
            profile: self.qos_profile,
            reliability: self.qos_reliability,
            durability: self.qos_durability,
            keep_all: self.qos_history.as_deref().map(|h| h == "keep_all"),
            depth: self.qos_depth,
        }
    }
}

/// A publishing rate: above 0, at most a MHz.
fn rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1e6 => Ok(v),
        _ => Err(format!("{s:?} is not a rate in Hz above 0 and up to 1e6")),
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
pub(crate) enum NodeCommand {
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

#[derive(Debug, Subcommand)]
pub(crate) enum ServiceCommand {
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

pub(crate) enum Graph {
    Top { once: bool },
    Topic(TopicCommand),
    Node(NodeCommand),
    Service(ServiceCommand),
    Param(ParamCommand),
    Lifecycle(tacto_graph::lifecycle::LifecycleVerb),
}

pub(crate) fn graph_command(
    command: Graph,
    args: &GraphArgs,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    use tacto_graph::commands;
    let participant = tacto_dds::Participant::from_env()?;
    let qos = match &command {
        Graph::Topic(
            TopicCommand::Echo { qos, .. }
            | TopicCommand::Hz { qos, .. }
            | TopicCommand::Bw { qos, .. }
            | TopicCommand::Pub { qos, .. },
        ) => qos.choice(),
        _ => tacto_graph::qos::QosChoice::default(),
    };
    let options = tacto_graph::Options {
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
            let top = tacto_graph::TopOptions { once, clear };
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
            let echo = tacto_graph::EchoOptions { once, full_length };
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
            let publish = tacto_graph::PubOptions {
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
            let param = tacto_graph::param::ParamOptions {
                timeout: Duration::from_secs(param.timeout),
                include_hidden_nodes: param.include_hidden_nodes,
            };
            tacto_graph::param::param(&participant, &options, &param, &verb, &mut out, &stop)
        }
        Graph::Lifecycle(verb) => {
            tacto_graph::lifecycle::lifecycle(&participant, &options, &verb, &mut out, &stop)
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
        Err(tacto_graph::CommandError::Interrupted) => Err(Failure::Interrupted),
        // The reader of the output went away (`tacto topic echo /x | head -3`): done.
        Err(tacto_graph::CommandError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(())
        }
        other => Ok(other?),
    }
}
