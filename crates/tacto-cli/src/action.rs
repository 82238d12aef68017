//! `tacto action`: ROS 2 actions on the graph.

use clap::Subcommand;
use tacto_launch::interrupt::Interrupt;

use crate::Failure;
use crate::graph::GraphArgs;

/// `tacto action`'s verbs, with `ros2 action`'s arguments and flags.
#[derive(Debug, Subcommand)]
pub(crate) enum ActionCommand {
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

pub(crate) fn action_command(
    command: ActionCommand,
    args: &GraphArgs,
    interrupt: &Interrupt,
) -> Result<(), Failure> {
    use tacto_graph::action;
    let participant = tacto_dds::Participant::from_env()?;
    let options = tacto_graph::Options {
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
        Err(action::ActionError::Command(tacto_graph::CommandError::Interrupted)) => {
            Err(Failure::Interrupted)
        }
        other => Ok(other?),
    }
}
