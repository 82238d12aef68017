//! `tacto lifecycle nodes|list|get|set`: `ros2 lifecycle`'s verbs, with its output, flags and
//! error texts (ros2cli Jazzy, `ros2lifecycle/verb/*.py` and `ros2lifecycle/api`), on any
//! managed node of the graph (rclcpp_lifecycle, rclpy, tacto), through the node's lifecycle
//! services (`<node>/get_state`, `get_available_transitions`, `get_transition_graph`,
//! `change_state`).
//!
//! A managed node is, as for ros2lifecycle, a node with a service `<node>/get_state` of type
//! `lifecycle_msgs/srv/GetState`.

use std::collections::BTreeSet;
use std::io::Write;
use std::time::{Duration, Instant};

use tacto::Message;
use tacto::msg::lifecycle_msgs::msg::{State, Transition, TransitionDescription};
use tacto::msg::lifecycle_msgs::srv::{
    ChangeState, ChangeState_Request, GetAvailableTransitions, GetState,
};
use tacto_dds::service::UntypedClient;
use tacto_dds::{Discovery, Participant};
use tacto_msgs::ServiceType;

use crate::commands::{CommandError, Options, watch};

/// How long a verb waits for a node's lifecycle service to be ready. ros2lifecycle waits
/// forever; the node was on the graph a moment ago, so this is long enough for its service to
/// match and short enough that a node gone meanwhile is reported.
const SERVICE_WAIT: Duration = Duration::from_secs(5);

/// How long a verb waits for an answer once the service is ready (ros2lifecycle waits
/// forever). A transition runs the node's callback, which may take a while: generous.
const REPLY_WAIT: Duration = Duration::from_secs(30);

/// One `tacto lifecycle` verb.
#[derive(Debug, Clone)]
pub enum LifecycleVerb {
    /// `nodes [-a] [-c]`: the managed nodes, one a line, sorted.
    Nodes {
        /// `--all`: hidden nodes too.
        all: bool,
        /// `--count-nodes`: only their number.
        count: bool,
    },
    /// `list NODE [-a] [--include-hidden-nodes]`: the transitions out of the node's state
    /// (its whole transition graph with `--all`).
    List {
        /// The node.
        node: String,
        /// `--all`: every transition of the state machine.
        all: bool,
        /// `--include-hidden-nodes`.
        include_hidden_nodes: bool,
    },
    /// `get [NODE] [--include-hidden-nodes]`: the node's state, or every managed node's.
    Get {
        /// The node, or every managed node.
        node: Option<String>,
        /// `--include-hidden-nodes`.
        include_hidden_nodes: bool,
    },
    /// `set NODE TRANSITION [--include-hidden-nodes]`: takes a transition, named by its
    /// label or its id, out of the node's state.
    Set {
        /// The node.
        node: String,
        /// The transition's label (`configure`) or id (`1`).
        transition: String,
        /// `--include-hidden-nodes`.
        include_hidden_nodes: bool,
    },
}

/// Runs one verb, printing as `ros2 lifecycle` does: results to `out`; a failed transition
/// (`Transitioning failed`) and a node that did not answer `get` to stderr. A node that is not
/// a managed node on the graph is [`CommandError::NodeNotFound`] (`Node not found`), an
/// unknown transition a [`CommandError::Usage`] listing the available ones, as
/// ros2lifecycle's texts.
///
/// With [`Options::json`], one JSON value instead: `nodes` a list of names (a number with
/// `count`), `list` the transitions (`transition`, `start_state`, `goal_state`, each with
/// `id` and `label`), `get` the state (`id`, `label`; by node name without a node), `set`
/// `{"success": ...}`.
pub fn lifecycle(
    participant: &Participant,
    options: &Options,
    verb: &LifecycleVerb,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let session = Session { participant, stop };
    match verb {
        LifecycleVerb::Nodes { all, count } => {
            let nodes = session.managed_nodes(None, options.wait, *all)?;
            let names: BTreeSet<&String> = nodes.iter().collect();
            match (*count, options.json) {
                // ros2lifecycle counts the graph's entries, a name seen twice twice.
                (true, _) => writeln!(out, "{}", nodes.len())?,
                (false, true) => writeln!(out, "{}", serde_json::json!(names))?,
                (false, false) => {
                    for node in names {
                        writeln!(out, "{node}")?;
                    }
                }
            }
            Ok(())
        }
        LifecycleVerb::List {
            node,
            all,
            include_hidden_nodes,
        } => {
            let node = session.find(node, options.wait, *include_hidden_nodes)?;
            let service = match all {
                true => "get_transition_graph",
                false => "get_available_transitions",
            };
            let transitions = session.transitions(&node, service)?;
            if options.json {
                let listed: Vec<_> = transitions.iter().map(description_json).collect();
                writeln!(out, "{}", serde_json::Value::from(listed))?;
                return Ok(());
            }
            for t in &transitions {
                writeln!(
                    out,
                    "- {} [{}]\n\tStart: {}\n\tGoal: {}",
                    t.transition.label, t.transition.id, t.start_state.label, t.goal_state.label
                )?;
            }
            Ok(())
        }
        LifecycleVerb::Get {
            node,
            include_hidden_nodes,
        } => match node {
            Some(node) => {
                let node = session.find(node, options.wait, *include_hidden_nodes)?;
                let state = session.state(&node)?;
                match options.json {
                    true => writeln!(out, "{}", state_json(&state))?,
                    false => writeln!(out, "{} [{}]", state.label, state.id)?,
                }
                Ok(())
            }
            None => {
                let nodes = session.managed_nodes(None, options.wait, *include_hidden_nodes)?;
                let mut states = serde_json::Map::new();
                for node in nodes.iter().collect::<BTreeSet<_>>() {
                    // As ros2lifecycle: a node that does not answer is reported on stderr, the
                    // others are printed.
                    match session.state(node) {
                        Ok(state) if options.json => {
                            states.insert(node.clone(), state_json(&state));
                        }
                        Ok(state) => writeln!(out, "{node}: {} [{}]", state.label, state.id)?,
                        Err(CommandError::Interrupted) => return Err(CommandError::Interrupted),
                        Err(error) => eprintln!("{error}"),
                    }
                }
                if options.json {
                    writeln!(out, "{}", serde_json::Value::from(states))?;
                }
                Ok(())
            }
        },
        LifecycleVerb::Set {
            node,
            transition,
            include_hidden_nodes,
        } => {
            let node = session.find(node, options.wait, *include_hidden_nodes)?;
            let available = session.transitions(&node, "get_available_transitions")?;
            let chosen = pick(&available, transition)?;
            let request = ChangeState_Request { transition: chosen };
            let response = session.call::<ChangeState>(&node, "change_state", &request)?;
            match (options.json, response.success) {
                (true, success) => writeln!(out, "{}", serde_json::json!({ "success": success }))?,
                (false, true) => writeln!(out, "Transitioning successful")?,
                (false, false) => eprintln!("Transitioning failed"),
            }
            Ok(())
        }
    }
}

fn state_json(state: &State) -> serde_json::Value {
    serde_json::json!({ "id": state.id, "label": state.label })
}

fn description_json(d: &TransitionDescription) -> serde_json::Value {
    serde_json::json!({
        "transition": { "id": d.transition.id, "label": d.transition.label },
        "start_state": state_json(&d.start_state),
        "goal_state": state_json(&d.goal_state),
    })
}

/// The transition `asked` names among `available`: by label first, then by id, as
/// ros2lifecycle's `set` looks it up.
fn pick(available: &[TransitionDescription], asked: &str) -> Result<Transition, CommandError> {
    let transitions = || available.iter().map(|d| &d.transition);
    let found = (transitions().find(|t| t.label == asked))
        .or_else(|| transitions().find(|t| t.id.to_string() == asked));
    match found {
        Some(transition) => Ok(transition.clone()),
        None => {
            let mut text = String::from("Unknown transition requested, available ones are:");
            for t in transitions() {
                text += &format!("\n- {} [{}]", t.label, t.id);
            }
            Err(CommandError::Usage(text))
        }
    }
}

/// `/name` for `name`, as ros2node's `get_absolute_node_name`.
fn absolute(node: &str) -> String {
    match node.starts_with('/') {
        true => node.to_owned(),
        false => format!("/{node}"),
    }
}

/// ros2node's hidden node: its name (not its namespace) starts with `_`.
fn is_hidden_node(full: &str) -> bool {
    full.rsplit('/')
        .next()
        .is_some_and(|name| name.starts_with('_'))
}

/// ros2service's hidden service: a part of its name starts with `_`.
fn is_hidden_service(name: &str) -> bool {
    name.split('/').any(|part| part.starts_with('_'))
}

struct Session<'a> {
    participant: &'a Participant,
    stop: &'a dyn Fn() -> bool,
}

impl Session<'_> {
    /// The managed nodes on the graph, sorted, once discovery has settled (at most `wait`) or,
    /// when `wanted` is given, as soon as that node is one of them. As ros2lifecycle's
    /// `get_node_names`: hidden nodes and hidden services only with `include_hidden`.
    fn managed_nodes(
        &self,
        wanted: Option<&str>,
        wait: Duration,
        include_hidden: bool,
    ) -> Result<Vec<String>, CommandError> {
        let managed = |discovery: &Discovery| -> Vec<String> {
            let services = discovery.services();
            let mut nodes = discovery.nodes();
            nodes.retain(|node| {
                (include_hidden || !is_hidden_node(node))
                    && services.iter().any(|s| {
                        s.name == format!("{node}/get_state")
                            && (include_hidden || !is_hidden_service(&s.name))
                            && s.types.iter().any(|t| t == GetState::TYPE_NAME)
                    })
            });
            nodes
        };
        let mut discovery = Discovery::new(self.participant)?;
        watch(&mut discovery, wait, self.stop, |d| {
            d.is_settled() || wanted.is_some_and(|w| managed(d).iter().any(|n| n == w))
        })?;
        Ok(managed(&discovery))
    }

    /// `node` as an absolute name, if it is a managed node on the graph; `Node not found`
    /// otherwise.
    fn find(
        &self,
        node: &str,
        wait: Duration,
        include_hidden: bool,
    ) -> Result<String, CommandError> {
        let node = absolute(node);
        let nodes = self.managed_nodes(Some(&node), wait, include_hidden)?;
        match nodes.contains(&node) {
            true => Ok(node),
            false => Err(CommandError::NodeNotFound),
        }
    }

    fn state(&self, node: &str) -> Result<State, CommandError> {
        let response = self.call::<GetState>(node, "get_state", &Default::default())?;
        Ok(response.current_state)
    }

    fn transitions(
        &self,
        node: &str,
        service: &str,
    ) -> Result<Vec<TransitionDescription>, CommandError> {
        let response = self.call::<GetAvailableTransitions>(node, service, &Default::default())?;
        Ok(response.available_transitions)
    }

    /// Calls `node`'s service `service` and waits for its answer. What goes wrong is said
    /// as ros2lifecycle says an exception of the call.
    fn call<S: ServiceType>(
        &self,
        node: &str,
        service: &str,
        request: &S::Request,
    ) -> Result<S::Response, CommandError> {
        self.exchange::<S>(node, service, request)
            .map_err(|error| match error {
                CommandError::Interrupted => CommandError::Interrupted,
                error => CommandError::Usage(format!(
                    "Exception while calling service of node '{node}': {error}"
                )),
            })
    }

    fn exchange<S: ServiceType>(
        &self,
        node: &str,
        service: &str,
        request: &S::Request,
    ) -> Result<S::Response, CommandError> {
        let name = format!("{node}/{service}");
        let hashes = [S::Request::TYPE_HASH, S::Response::TYPE_HASH];
        let client = UntypedClient::new(self.participant, &name, S::TYPE_NAME, hashes)?;
        let deadline = Instant::now() + SERVICE_WAIT;
        while !client
            .service_is_ready()
            .map_err(CommandError::WriterStatus)?
        {
            if Instant::now() >= deadline {
                return Err(CommandError::NoService {
                    service: name,
                    wait: SERVICE_WAIT,
                });
            }
            self.pause()?;
        }
        let payload = tacto::cdr::to_vec(request).map_err(|e| {
            CommandError::Usage(format!("the request to {name} cannot be encoded: {e}"))
        })?;
        let id = client.send_request_cdr(&payload)?;
        let deadline = Instant::now() + REPLY_WAIT;
        while Instant::now() < deadline {
            if (self.stop)() {
                return Err(CommandError::Interrupted);
            }
            if !(client.wait(Duration::from_millis(100))).map_err(CommandError::Wait)? {
                continue;
            }
            while let Some((reply_id, body)) = client.take_response_cdr()? {
                if reply_id == id {
                    return tacto::cdr::from_bytes(&body).map_err(|error| {
                        CommandError::ParamReply {
                            type_name: <S::Response as Message>::TYPE_NAME,
                            error,
                        }
                    });
                }
            }
        }
        Err(CommandError::Usage(format!(
            "no answer from {name} within {} s",
            REPLY_WAIT.as_secs()
        )))
    }

    fn pause(&self) -> Result<(), CommandError> {
        if (self.stop)() {
            return Err(CommandError::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(20));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description(id: u8, label: &str) -> TransitionDescription {
        TransitionDescription {
            transition: Transition {
                id,
                label: label.into(),
            },
            ..Default::default()
        }
    }

    // ros2lifecycle verb/set.py: a label first, then an id, among the available transitions;
    // test_cli.py's test_set_lifecycle_node_invalid_transition for the refusal's text.
    #[test]
    fn a_transition_is_picked_by_label_then_by_id_and_an_unknown_one_lists_the_available() {
        let available = [description(1, "configure"), description(5, "shutdown")];
        assert_eq!(pick(&available, "configure").unwrap().id, 1);
        assert_eq!(pick(&available, "5").unwrap().label, "shutdown");
        let refused = pick(&available, "noop").unwrap_err().to_string();
        assert_eq!(
            refused,
            "Unknown transition requested, available ones are:\n- configure [1]\n- shutdown [5]"
        );
    }

    #[test]
    fn a_node_is_hidden_by_its_name_and_a_service_by_any_part_of_its_name() {
        assert!(is_hidden_node("/_hidden_test_lifecycle_node"));
        assert!(!is_hidden_node("/_ns/test_lifecycle_node"));
        assert!(is_hidden_service("/_ns/node/get_state"));
        assert!(!is_hidden_service("/ns/node/get_state"));
        assert_eq!(absolute("talker"), "/talker");
    }
}
