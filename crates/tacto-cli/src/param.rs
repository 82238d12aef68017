//! `tacto param`'s verbs, with ros2param's arguments and flags.

use std::path::PathBuf;

use clap::Subcommand;

/// What every `tacto param` verb takes, as ros2param's verbs do.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct ParamArgs {
    /// Wait for N seconds until the node becomes available (at least --wait-s).
    #[arg(long, value_name = "N", default_value = "1")]
    pub(crate) timeout: u64,
    /// Consider hidden nodes as well.
    #[arg(long)]
    pub(crate) include_hidden_nodes: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ParamCommand {
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
    pub(crate) fn verb(self) -> (tacto_graph::param::ParamVerb, ParamArgs) {
        use tacto_graph::param::ParamVerb as V;
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
