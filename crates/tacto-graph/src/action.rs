//! `tacto action list|info|send_goal`: ros2cli's `ros2 action`, on any ROS 2 graph, with the
//! action's types read from its `.action` file at run time.
//!
//! An action is seen as rcl_action sees it: by its feedback topic, `<action>/_action/feedback`
//! of type `<pkg>/action/<Type>_FeedbackMessage`. Its servers are the nodes that publish the
//! topic, its clients those that subscribe to it (`rcl_action_get_*_names_and_types_by_node`).

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use tacto::action::{GoalId, GoalStatus};
use tacto_dds::service::UntypedClient;
use tacto_dds::{Discovery, Participant, Qos, UntypedReader};

use crate::commands::{CommandError, Options, watch};
use crate::registry::{MessageType, TypeRegistry};
use crate::value::Value;
use crate::yaml;

/// How often a waiting command looks at replies and at `stop`.
const TICK: Duration = Duration::from_millis(100);

const FEEDBACK: &str = "/_action/feedback";
const FEEDBACK_TYPE: &str = "_FeedbackMessage";

/// Why an action command failed.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// What every command can fail with: discovery, types, DDS, Ctrl-C.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// The type is not an action type name.
    #[error("the passed action type is invalid: {0:?} (expected pkg/action/Type or pkg/Type)")]
    InvalidType(String),
    /// No server of the action appeared in time.
    #[error("no action server for {action} after {} s", wait.as_secs_f64())]
    NoServer {
        /// The action.
        action: String,
        /// How long it waited.
        wait: Duration,
    },
    /// No random goal id could be had.
    #[error("no random goal id: {0}")]
    Random(#[from] std::io::Error),
    /// A reply did not have the fields of its type.
    #[error("the reply of {service} lacks its field {field:?}")]
    Reply {
        /// The service.
        service: String,
        /// The field missing.
        field: &'static str,
    },
}

/// The actions on the graph, by name, with their types and the nodes of their servers
/// (publishers of the feedback topic) and clients (its subscribers).
#[derive(Debug, Default)]
struct Action {
    types: Vec<String>,
    servers: BTreeMap<String, Vec<String>>,
    clients: BTreeMap<String, Vec<String>>,
}

fn actions(discovery: &Discovery) -> BTreeMap<String, Action> {
    let mut actions = BTreeMap::<String, Action>::new();
    for topic in discovery.topics() {
        let Some(name) = topic.name.strip_suffix(FEEDBACK) else {
            continue;
        };
        let types: Vec<String> = (topic.types.iter())
            .filter_map(|t| t.strip_suffix(FEEDBACK_TYPE).map(str::to_owned))
            .collect();
        if types.is_empty() {
            continue;
        }
        let action = actions.entry(name.to_owned()).or_default();
        let by_node = |list: &[tacto_dds::EndpointInfo],
                       into: &mut BTreeMap<String, Vec<String>>| {
            for endpoint in list {
                let node = endpoint.node.clone().unwrap_or_default();
                let ty = endpoint.ros_type.strip_suffix(FEEDBACK_TYPE);
                let types = into.entry(node).or_default();
                if let Some(ty) = ty.filter(|ty| !types.iter().any(|t| t == ty)) {
                    types.push(ty.to_owned());
                }
            }
        };
        by_node(&topic.publishers, &mut action.servers);
        by_node(&topic.subscribers, &mut action.clients);
        action.types.extend(types);
        action.types.sort();
        action.types.dedup();
    }
    actions
}

fn settled(
    participant: &Participant,
    options: &Options,
    stop: &dyn Fn() -> bool,
) -> Result<Discovery, CommandError> {
    let mut discovery = Discovery::new(participant)?;
    watch(&mut discovery, options.wait, stop, Discovery::is_settled)?;
    Ok(discovery)
}

/// `tacto action list [-t] [-c]`: the actions on the graph once discovery has settled
/// (`-t`: with types; `-c`: only how many), as `ros2 action list`.
pub fn action_list(
    participant: &Participant,
    options: &Options,
    show_types: bool,
    count: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), ActionError> {
    let actions = actions(&settled(participant, options, stop)?);
    if count {
        writeln!(out, "{}", actions.len()).map_err(CommandError::from)?;
        return Ok(());
    }
    for (name, action) in &actions {
        match show_types {
            true => writeln!(out, "{name} [{}]", action.types.join(", ")),
            false => writeln!(out, "{name}"),
        }
        .map_err(CommandError::from)?;
    }
    Ok(())
}

/// `tacto action info NAME [-t] [-c]`: the action's clients and servers, by node, as
/// `ros2 action info` prints them.
pub fn action_info(
    participant: &Participant,
    options: &Options,
    action: &str,
    show_types: bool,
    count: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), ActionError> {
    let name = absolute(action);
    let mut actions = actions(&settled(participant, options, stop)?);
    let found = actions.remove(&name).unwrap_or_default();
    let mut text = format!("Action: {action}\n");
    for (what, nodes) in [
        ("Action clients", &found.clients),
        ("Action servers", &found.servers),
    ] {
        text.push_str(&format!("{what}: {}\n", nodes.len()));
        if count {
            continue;
        }
        for (node, types) in nodes {
            match show_types {
                true => text.push_str(&format!("    {node} [{}]\n", types.join(", "))),
                false => text.push_str(&format!("    {node}\n")),
            }
        }
    }
    out.write_all(text.as_bytes()).map_err(CommandError::from)?;
    Ok(())
}

/// `pkg/Type` → `pkg/action/Type`; a full name stays as it is; anything else is refused.
fn action_type_name(name: &str) -> Result<String, ActionError> {
    match name.split('/').collect::<Vec<_>>()[..] {
        [package, ty] if !package.is_empty() && !ty.is_empty() => {
            Ok(format!("{package}/action/{ty}"))
        }
        [package, "action", ty] if !package.is_empty() && !ty.is_empty() => Ok(name.to_owned()),
        _ => Err(ActionError::InvalidType(name.to_owned())),
    }
}

fn absolute(name: &str) -> String {
    match name.starts_with('/') {
        true => name.to_owned(),
        false => format!("/{name}"),
    }
}

/// The 16 bytes of a `unique_identifier_msgs/UUID` value, however the decoder laid them.
fn uuid_bytes(value: Option<&Value>) -> Option<[u8; 16]> {
    let bytes: Vec<u8> = match value?.field("uuid")? {
        Value::Bytes(bytes) => bytes.clone(),
        Value::List(items) => (items.iter())
            .map(|item| match item {
                Value::UInt(n) => u8::try_from(*n).ok(),
                Value::Int(n) => u8::try_from(*n).ok(),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    };
    bytes.try_into().ok()
}

/// The action's types, resolved from their `.action` file.
struct Types {
    send_goal_request: std::sync::Arc<MessageType>,
    send_goal_response: std::sync::Arc<MessageType>,
    get_result_request: std::sync::Arc<MessageType>,
    get_result_response: std::sync::Arc<MessageType>,
    feedback_message: std::sync::Arc<MessageType>,
    goal: std::sync::Arc<MessageType>,
    uuid: std::sync::Arc<MessageType>,
}

impl Types {
    fn resolve(registry: &TypeRegistry, action: &str) -> Result<Types, CommandError> {
        let part = |suffix: &str| registry.resolve(&format!("{action}_{suffix}"));
        Ok(Types {
            send_goal_request: part("SendGoal_Request")?,
            send_goal_response: part("SendGoal_Response")?,
            get_result_request: part("GetResult_Request")?,
            get_result_response: part("GetResult_Response")?,
            feedback_message: part("FeedbackMessage")?,
            goal: part("Goal")?,
            uuid: registry.resolve("unique_identifier_msgs/msg/UUID")?,
        })
    }
}

/// `tacto action send_goal NAME TYPE GOAL [--feedback]`: waits up to `--wait-s` for the
/// server, sends the goal read from `goal_yaml` under a new random id, prints its feedback if
/// asked and its result, as `ros2 action send_goal` does; on Ctrl-C while the goal runs, asks
/// the server to cancel it, as `ros2 action send_goal` does on its way out.
#[allow(clippy::too_many_arguments)] // the command's arguments, as the other commands take them
pub fn send_goal(
    participant: &Participant,
    options: &Options,
    action: &str,
    type_name: &str,
    goal_yaml: &str,
    feedback: bool,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), ActionError> {
    let action = absolute(action);
    let type_name = action_type_name(type_name)?;
    let registry = TypeRegistry::new(&options.msg_paths);
    let types = Types::resolve(&registry, &type_name).map_err(ActionError::Command)?;
    let yaml_error = |ty: &MessageType| {
        let type_name = ty.name.clone();
        move |error| ActionError::Command(CommandError::Yaml { type_name, error })
    };
    let goal = yaml::from_yaml(&types.goal, goal_yaml).map_err(yaml_error(&types.goal))?;
    let id = GoalId::random()?;
    let bytes: Vec<String> = id.as_bytes().iter().map(u8::to_string).collect();
    let uuid_text = format!("{{uuid: [{}]}}", bytes.join(", "));
    let uuid = yaml::from_yaml(&types.uuid, &uuid_text).map_err(yaml_error(&types.uuid))?;

    let client = |service: &str, ty: &str| {
        let hashes = [
            registry.type_hash(&format!("{ty}_Request")).ok(),
            registry.type_hash(&format!("{ty}_Response")).ok(),
        ];
        UntypedClient::new(
            participant,
            &format!("{action}/_action/{service}"),
            ty,
            [hashes[0].as_deref(), hashes[1].as_deref()],
        )
        .map_err(CommandError::from)
    };
    let send = client("send_goal", &format!("{type_name}_SendGoal"))?;
    let results = client("get_result", &format!("{type_name}_GetResult"))?;
    let feedback_reader = match feedback {
        true => Some(
            UntypedReader::new(
                participant,
                &format!("{action}{FEEDBACK}"),
                &types.feedback_message.name,
                registry
                    .type_hash(&types.feedback_message.name)
                    .ok()
                    .as_deref(),
                Qos::default(),
            )
            .map_err(CommandError::from)?,
        ),
        false => None,
    };

    let print = |out: &mut dyn Write, text: String| -> Result<(), ActionError> {
        out.write_all(text.as_bytes()).map_err(CommandError::from)?;
        out.flush().map_err(CommandError::from)?;
        Ok(())
    };
    print(
        out,
        "Waiting for an action server to become available...\n".into(),
    )?;
    let deadline = Instant::now() + options.wait;
    let ready = |c: &UntypedClient| c.service_is_ready().map_err(CommandError::WriterStatus);
    while !(ready(&send)? && ready(&results)?) {
        if Instant::now() >= deadline {
            return Err(ActionError::NoServer {
                action,
                wait: options.wait,
            });
        }
        if stop() {
            return Err(CommandError::Interrupted.into());
        }
        std::thread::sleep(TICK.min(deadline.saturating_duration_since(Instant::now())));
    }
    print(
        out,
        format!(
            "Sending goal:\n     {}\n",
            indent(&yaml::to_yaml(&goal, None))
        ),
    )?;

    let request = Value::Message(vec![
        ("goal_id".into(), uuid.clone()),
        ("goal".into(), goal),
    ]);
    let payload = crate::encode(&types.send_goal_request, &request).map_err(CommandError::from)?;
    let sent = send
        .send_request_cdr(&payload)
        .map_err(CommandError::from)?;
    let response = reply(&send, sent, &types.send_goal_response, stop)?;
    if response.field("accepted") != Some(&Value::Bool(true)) {
        print(out, "Goal was rejected.\n".into())?;
        return Ok(());
    }
    print(out, format!("Goal accepted with ID: {id}\n\n"))?;

    let request = Value::Message(vec![("goal_id".into(), uuid)]);
    let payload = crate::encode(&types.get_result_request, &request).map_err(CommandError::from)?;
    let asked = results
        .send_request_cdr(&payload)
        .map_err(CommandError::from)?;
    let response = loop {
        if stop() {
            cancel(participant, &action, &registry, id, out)?;
            return Err(CommandError::Interrupted.into());
        }
        if let Some(reader) = &feedback_reader {
            while let Some(sample) = reader.take_cdr().map_err(CommandError::from)? {
                let Ok(message) = crate::decode(&types.feedback_message, &sample.payload) else {
                    continue;
                };
                if uuid_bytes(message.field("goal_id")) != Some(*id.as_bytes()) {
                    continue;
                }
                if let Some(feedback) = message.field("feedback") {
                    print(
                        out,
                        format!(
                            "Feedback:\n    {}\n",
                            indent(&yaml::to_yaml(feedback, None))
                        ),
                    )?;
                }
            }
        }
        if let Some(response) = take_reply(&results, asked, &types.get_result_response)? {
            break response;
        }
        let _ = results.wait(Duration::from_millis(10));
    };
    let missing = |field| ActionError::Reply {
        service: format!("{action}/_action/get_result"),
        field,
    };
    let result = response.field("result").ok_or_else(|| missing("result"))?;
    let status = match response.field("status") {
        Some(Value::Int(n)) => i8::try_from(*n).ok().and_then(GoalStatus::from_id),
        Some(Value::UInt(n)) => i8::try_from(*n).ok().and_then(GoalStatus::from_id),
        _ => return Err(missing("status")),
    }
    .unwrap_or(GoalStatus::Unknown);
    print(
        out,
        format!("Result:\n    {}\n", indent(&yaml::to_yaml(result, None))),
    )?;
    print(out, format!("Goal finished with status: {status}\n"))?;
    Ok(())
}

/// YAML as rclpy's `message_to_yaml` output sits after `"...:\n    "`: its first line after
/// the indent, the others as they are (ros2cli prints them so, unindented).
fn indent(yaml: &str) -> &str {
    yaml.strip_suffix('\n').unwrap_or(yaml)
}

/// Waits for the reply to request `id` of `client` and decodes it.
fn reply(
    client: &UntypedClient,
    id: tacto::RequestId,
    ty: &MessageType,
    stop: &dyn Fn() -> bool,
) -> Result<Value, ActionError> {
    loop {
        if stop() {
            return Err(CommandError::Interrupted.into());
        }
        if let Some(value) = take_reply(client, id, ty)? {
            return Ok(value);
        }
        client.wait(TICK).map_err(CommandError::Wait)?;
    }
}

fn take_reply(
    client: &UntypedClient,
    id: tacto::RequestId,
    ty: &MessageType,
) -> Result<Option<Value>, ActionError> {
    while let Some((reply_id, body)) = client.take_response_cdr().map_err(CommandError::from)? {
        if reply_id != id {
            continue;
        }
        return crate::decode(ty, &body).map(Some).map_err(|error| {
            CommandError::Reply {
                type_name: ty.name.clone(),
                error,
            }
            .into()
        });
    }
    Ok(None)
}

/// Asks the server to cancel goal `id` and prints what `ros2 action send_goal` prints then.
fn cancel(
    participant: &Participant,
    action: &str,
    registry: &TypeRegistry,
    id: GoalId,
    out: &mut dyn Write,
) -> Result<(), ActionError> {
    let service = "action_msgs/srv/CancelGoal";
    let request_type = registry
        .resolve(&format!("{service}_Request"))
        .map_err(CommandError::from)?;
    let response_type =
        (registry.resolve(&format!("{service}_Response"))).map_err(CommandError::from)?;
    let bytes: Vec<String> = id.as_bytes().iter().map(u8::to_string).collect();
    let text = format!(
        "{{goal_info: {{goal_id: {{uuid: [{}]}}, stamp: {{sec: 0, nanosec: 0}}}}}}",
        bytes.join(", ")
    );
    let request = yaml::from_yaml(&request_type, &text).map_err(|error| CommandError::Yaml {
        type_name: request_type.name.clone(),
        error,
    })?;
    let client = UntypedClient::new(
        participant,
        &format!("{action}/_action/cancel_goal"),
        service,
        [None, None],
    )
    .map_err(CommandError::from)?;
    writeln!(out, "Canceling goal...").map_err(CommandError::from)?;
    let payload = crate::encode(&request_type, &request).map_err(CommandError::from)?;
    let sent = client
        .send_request_cdr(&payload)
        .map_err(CommandError::from)?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Some(response) = take_reply(&client, sent, &response_type)? {
            let canceling = match response.field("goals_canceling") {
                Some(Value::List(goals)) => goals.len(),
                _ => 0,
            };
            match canceling {
                1 => writeln!(out, "Goal canceled."),
                _ => writeln!(out, "Failed to cancel goal"),
            }
            .map_err(CommandError::from)?;
            return Ok(());
        }
        client.wait(TICK).map_err(CommandError::Wait)?;
    }
    writeln!(out, "Failed to cancel goal").map_err(CommandError::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_type_may_omit_action_but_nothing_else() {
        assert_eq!(
            action_type_name("example_interfaces/Fibonacci").unwrap(),
            "example_interfaces/action/Fibonacci"
        );
        assert_eq!(
            action_type_name("example_interfaces/action/Fibonacci").unwrap(),
            "example_interfaces/action/Fibonacci"
        );
        for bad in ["Fibonacci", "a/srv/B", "/Fibonacci", "a/action/"] {
            let error = action_type_name(bad).unwrap_err().to_string();
            assert!(error.contains("expected pkg/action/Type"), "{bad}: {error}");
        }
    }

    #[test]
    fn the_shipped_fibonacci_resolves_with_every_derived_type() {
        let registry = TypeRegistry::shipped();
        let types = Types::resolve(&registry, "example_interfaces/action/Fibonacci").unwrap();
        assert_eq!(types.goal.name, "example_interfaces/action/Fibonacci_Goal");
        assert_eq!(
            types.feedback_message.name,
            "example_interfaces/action/Fibonacci_FeedbackMessage"
        );
    }

    #[test]
    fn a_uuid_reads_back_from_the_value_the_yaml_made() {
        let registry = TypeRegistry::shipped();
        let uuid_type = registry.resolve("unique_identifier_msgs/msg/UUID").unwrap();
        let text = format!(
            "{{uuid: [{}]}}",
            (1..=16)
                .map(|b: u8| b.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let value = yaml::from_yaml(&uuid_type, &text).unwrap();
        let bytes: [u8; 16] = std::array::from_fn(|i| i as u8 + 1);
        assert_eq!(uuid_bytes(Some(&value)), Some(bytes));
    }
}
