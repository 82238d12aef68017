//! `tacto param list|get|set|describe|dump|load|delete`: `ros2 param`'s verbs, with its output
//! and flags, on any node of the graph (rclcpp, rclpy, tacto), through the node's parameter
//! services (`<node>/list_parameters`, `get_parameters`, `set_parameters`,
//! `describe_parameters`).
//!
//! Values typed on the command line and in parameter files are read as rclpy reads them for
//! `ros2 param` (YAML 1.1, see [`crate::pyyaml`]), and printed as it prints them (Python's
//! `repr`, PyYAML's block style).

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use regex::Regex;
use tacto::Message;
use tacto_dds::service::UntypedClient;
use tacto_dds::{Discovery, Participant};
use tacto_msgs::ServiceType;
use tacto_msgs::rcl_interfaces::msg::{
    Parameter, ParameterDescriptor, ParameterType, ParameterValue, SetParametersResult,
};
use tacto_msgs::rcl_interfaces::srv::{
    DescribeParameters, DescribeParameters_Request, GetParameters, GetParameters_Request,
    ListParameters, ListParameters_Request, SetParameters, SetParameters_Request,
};

use crate::commands::{CommandError, Options, watch};
use crate::pyyaml::{self, PyValue};
use crate::value::Value;

/// How long a verb waits for a node's parameter services, as rclpy's
/// `AsyncParameterClient.wait_for_services(timeout_sec=5.0)` in ros2param.
const SERVICE_WAIT: Duration = Duration::from_secs(5);

/// How long a verb waits for a reply once the services are there. ros2param waits forever;
/// a command that hangs on a node that died between discovery and the call helps nobody.
const REPLY_WAIT: Duration = Duration::from_secs(10);

/// One `tacto param` verb.
#[derive(Debug, Clone)]
pub enum ParamVerb {
    /// `list [NODE] [--filter RE] [--param-prefixes P...] [--param-type]`.
    List {
        /// The node, or every node.
        node: Option<String>,
        /// Only names that this regular expression matches at their start (Python's
        /// `re.match`).
        filter: Option<String>,
        /// Only parameters with these prefixes.
        prefixes: Vec<String>,
        /// Print each parameter's type.
        param_type: bool,
    },
    /// `get NODE NAME [--hide-type]`.
    Get {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
        /// Print only the value.
        hide_type: bool,
    },
    /// `set NODE NAME VALUE`: the value is typed as YAML (`true`, `2`, `[1.0, 2.0]`, `text`).
    Set {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
        /// The value, as typed.
        value: String,
    },
    /// `describe NODE NAME...`.
    Describe {
        /// The node.
        node: String,
        /// The parameters.
        names: Vec<String>,
    },
    /// `dump NODE`: every parameter as a parameter file.
    Dump {
        /// The node.
        node: String,
    },
    /// `load NODE FILE [--no-use-wildcard]`.
    Load {
        /// The node.
        node: String,
        /// The parameter file.
        file: std::path::PathBuf,
        /// Leave out the `/**` section.
        no_use_wildcard: bool,
    },
    /// `delete NODE NAME`.
    Delete {
        /// The node.
        node: String,
        /// The parameter.
        name: String,
    },
}

/// What every verb takes besides its own arguments.
#[derive(Debug, Clone, Copy)]
pub struct ParamOptions {
    /// `--timeout N`: how long to wait for the node to appear (ros2param's default: 1 s;
    /// discovery gets at least `--wait-s`).
    pub timeout: Duration,
    /// `--include-hidden-nodes`.
    pub include_hidden_nodes: bool,
}

/// Runs one verb, printing as `ros2 param` does: results to `out`, a failed set or delete to
/// stderr.
pub fn param(
    participant: &Participant,
    options: &Options,
    param: &ParamOptions,
    verb: &ParamVerb,
    out: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), CommandError> {
    let session = Session { participant, stop };
    let wait = options.wait.max(param.timeout);
    // Every verb but `list` names one node, which must be on the graph.
    let find = |node: &str| session.find_node(&absolute(node), wait, param);
    match verb {
        ParamVerb::List {
            node,
            filter,
            prefixes,
            param_type,
        } => {
            let filter = (filter.as_deref())
                .map(|f| Regex::new(&format!("^(?:{f})")))
                .transpose()
                .map_err(|e| CommandError::Usage(format!("--filter: {e}")))?;
            let nodes = match node {
                Some(node) => vec![find(node)?],
                None => session.nodes(wait, param)?,
            };
            let every_node = node.is_none();
            list(
                &session,
                &nodes,
                every_node,
                filter,
                prefixes,
                *param_type,
                out,
            )
        }
        ParamVerb::Get {
            node,
            name,
            hide_type,
        } => get(&session, &find(node)?, name, *hide_type, out),
        ParamVerb::Set { node, name, value } => {
            let parameter = Parameter {
                name: name.clone(),
                value: value_from_text(value),
            };
            let result = session.set(&find(node)?, vec![parameter])?;
            let (ok, failed) = ("Set parameter successful", "Setting parameter failed");
            report_set(&result, ok, failed, out)
        }
        ParamVerb::Delete { node, name } => {
            let parameter = Parameter {
                name: name.clone(),
                value: ParameterValue::default(),
            };
            let result = session.set(&find(node)?, vec![parameter])?;
            let (ok, failed) = (
                "Deleted parameter successfully",
                "Deleting parameter failed",
            );
            report_set(&result, ok, failed, out)
        }
        ParamVerb::Describe { node, names } => {
            let node = find(node)?;
            let request = DescribeParameters_Request {
                names: names.clone(),
            };
            let response =
                session.call::<DescribeParameters>(&node, "describe_parameters", &request)?;
            for descriptor in &response.descriptors {
                write!(out, "{}", describe(descriptor))?;
            }
            Ok(())
        }
        ParamVerb::Dump { node } => dump(&session, &find(node)?, out),
        ParamVerb::Load {
            node,
            file,
            no_use_wildcard,
        } => load(&session, &find(node)?, file, !no_use_wildcard, out),
    }
}

/// `/name` for `name`, as ros2node's `get_absolute_node_name`.
fn absolute(node: &str) -> String {
    match node.starts_with('/') {
        true => node.to_owned(),
        false => format!("/{node}"),
    }
}

/// A node's full name split as ros2node's `NodeName`: (name, namespace).
fn split_full_name(full: &str) -> (&str, &str) {
    match full.rsplit_once('/') {
        Some(("", name)) => (name, "/"),
        Some((namespace, name)) => (name, namespace),
        None => (full, "/"),
    }
}

fn is_hidden(full: &str) -> bool {
    split_full_name(full).0.starts_with('_')
}

struct Session<'a> {
    participant: &'a Participant,
    stop: &'a dyn Fn() -> bool,
}

impl Session<'_> {
    /// Waits for `node` to appear on the graph, until discovery has settled without it (at
    /// most `wait`).
    fn find_node(
        &self,
        node: &str,
        wait: Duration,
        param: &ParamOptions,
    ) -> Result<String, CommandError> {
        let mut discovery = Discovery::new(self.participant)?;
        let visible = |name: &String| param.include_hidden_nodes || !is_hidden(name);
        let found = |d: &Discovery| d.nodes().iter().any(|n| n == node && visible(n));
        watch(&mut discovery, wait, self.stop, |d| {
            found(d) || d.is_settled()
        })?;
        match found(&discovery) {
            true => Ok(node.to_owned()),
            false => Err(CommandError::NodeNotFound),
        }
    }

    /// The nodes on the graph once discovery has settled (at most `wait`), in ros2param's
    /// order: by name, then namespace.
    fn nodes(&self, wait: Duration, param: &ParamOptions) -> Result<Vec<String>, CommandError> {
        let mut discovery = Discovery::new(self.participant)?;
        watch(&mut discovery, wait, self.stop, Discovery::is_settled)?;
        let mut nodes = discovery.nodes();
        nodes.retain(|n| param.include_hidden_nodes || !is_hidden(n));
        nodes.sort_by(|a, b| split_full_name(a).cmp(&split_full_name(b)));
        nodes.dedup();
        Ok(nodes)
    }

    /// A client of `node`'s parameter service `service` that a server answers, or `None`
    /// after [`SERVICE_WAIT`].
    fn client<S: ServiceType>(
        &self,
        node: &str,
        service: &str,
    ) -> Result<UntypedClient, CommandError> {
        let hashes = [S::Request::TYPE_HASH, S::Response::TYPE_HASH];
        Ok(UntypedClient::new(
            self.participant,
            &format!("{node}/{service}"),
            S::TYPE_NAME,
            hashes,
        )?)
    }

    /// Waits for `clients` to see their servers; false for those that did not within
    /// [`SERVICE_WAIT`].
    fn wait_ready(&self, clients: &[UntypedClient]) -> Result<Vec<bool>, CommandError> {
        let deadline = Instant::now() + SERVICE_WAIT;
        loop {
            let ready = (clients.iter())
                .map(|c| c.service_is_ready().map_err(CommandError::WriterStatus))
                .collect::<Result<Vec<bool>, _>>()?;
            if ready.iter().all(|&r| r) || Instant::now() >= deadline {
                return Ok(ready);
            }
            if (self.stop)() {
                return Err(CommandError::Interrupted);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `request` on a ready `client` and waits for its reply.
    fn exchange<S: ServiceType>(
        &self,
        client: &UntypedClient,
        node: &str,
        request: &S::Request,
    ) -> Result<S::Response, CommandError> {
        let payload = tacto::cdr::to_vec(request).map_err(CommandError::ParamEncode)?;
        let id = client.send_request_cdr(&payload)?;
        let deadline = Instant::now() + REPLY_WAIT;
        while Instant::now() < deadline {
            if (self.stop)() {
                return Err(CommandError::Interrupted);
            }
            if !client
                .wait(Duration::from_millis(100))
                .map_err(CommandError::Wait)?
            {
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
        Err(CommandError::NoReply {
            node: node.to_owned(),
            wait: REPLY_WAIT,
        })
    }

    /// Calls `node`'s parameter service `service`.
    fn call<S: ServiceType>(
        &self,
        node: &str,
        service: &str,
        request: &S::Request,
    ) -> Result<S::Response, CommandError> {
        let client = self.client::<S>(node, service)?;
        if !self.wait_ready(std::slice::from_ref(&client))?[0] {
            return Err(CommandError::NoParameterServices(node.to_owned()));
        }
        self.exchange::<S>(&client, node, request)
    }

    fn set(
        &self,
        node: &str,
        parameters: Vec<Parameter>,
    ) -> Result<Vec<SetParametersResult>, CommandError> {
        let request = SetParameters_Request { parameters };
        Ok(self
            .call::<SetParameters>(node, "set_parameters", &request)?
            .results)
    }
}

fn list(
    session: &Session<'_>,
    nodes: &[String],
    every_node: bool,
    filter: Option<Regex>,
    prefixes: &[String],
    param_type: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    // All clients first, then one wait: a graph of many nodes costs one discovery, not one
    // per node.
    let clients = (nodes.iter())
        .map(|node| session.client::<ListParameters>(node, "list_parameters"))
        .collect::<Result<Vec<_>, _>>()?;
    let ready = session.wait_ready(&clients)?;
    let request = ListParameters_Request {
        prefixes: prefixes.to_vec(),
        depth: ListParameters_Request::DEPTH_RECURSIVE,
    };
    for ((node, client), ready) in nodes.iter().zip(&clients).zip(ready) {
        if !ready {
            writeln!(
                out,
                "Wait for service timed out waiting for parameter services for node {node}"
            )?;
            continue;
        }
        let response = session.exchange::<ListParameters>(client, node, &request)?;
        let mut names = response.result.names;
        names.sort();
        if let Some(filter) = &filter {
            names.retain(|name| filter.is_match(name));
        }
        if every_node && !names.is_empty() {
            writeln!(out, "{node}:")?;
        }
        let types = match param_type {
            true => {
                let request = DescribeParameters_Request {
                    names: names.clone(),
                };
                let described =
                    session.call::<DescribeParameters>(node, "describe_parameters", &request)?;
                (described.descriptors.into_iter())
                    .map(|d| (d.name, type_name(d.r#type)))
                    .collect()
            }
            false => Vec::new(),
        };
        for name in &names {
            match types.iter().find(|(n, _)| n == name) {
                Some((_, ty)) => writeln!(out, "  {name} (type: {ty})")?,
                None => writeln!(out, "  {name}")?,
            }
        }
    }
    Ok(())
}

fn get(
    session: &Session<'_>,
    node: &str,
    name: &str,
    hide_type: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let request = GetParameters_Request {
        names: vec![name.to_owned()],
    };
    let response = session.call::<GetParameters>(node, "get_parameters", &request)?;
    let Some(value) = response.values.first() else {
        return Err(CommandError::ParameterNotSet);
    };
    let label = match value.r#type {
        ParameterType::PARAMETER_BOOL => "Boolean value is:",
        ParameterType::PARAMETER_INTEGER => "Integer value is:",
        ParameterType::PARAMETER_DOUBLE => "Double value is:",
        ParameterType::PARAMETER_STRING => "String value is:",
        ParameterType::PARAMETER_BYTE_ARRAY => "Byte values are:",
        ParameterType::PARAMETER_BOOL_ARRAY => "Boolean values are:",
        ParameterType::PARAMETER_INTEGER_ARRAY => "Integer values are:",
        ParameterType::PARAMETER_DOUBLE_ARRAY => "Double values are:",
        ParameterType::PARAMETER_STRING_ARRAY => "String values are:",
        ParameterType::PARAMETER_NOT_SET => "Parameter not set.",
        other => return Err(CommandError::UnknownParameterType(other)),
    };
    let text = match value.r#type {
        ParameterType::PARAMETER_BYTE_ARRAY => Some(bytes_repr(&value.byte_array_value)),
        _ => to_python(value).map(|v| pyyaml::python_str(&v)),
    };
    match (hide_type, text) {
        (false, Some(text)) => writeln!(out, "{label} {text}")?,
        (false, None) => writeln!(out, "{label}")?,
        (true, text) => writeln!(out, "{}", text.as_deref().unwrap_or("None"))?,
    }
    Ok(())
}

/// A list of Python `bytes` of one byte each, as rclpy gives a byte array: `[b'\x01', b'A']`.
fn bytes_repr(bytes: &[u8]) -> String {
    let items: Vec<String> = (bytes.iter())
        .map(|&b| match b {
            b'\\' => "b'\\\\'".to_owned(),
            b'\'' => "b\"'\"".to_owned(),
            b'\t' => "b'\\t'".to_owned(),
            b'\n' => "b'\\n'".to_owned(),
            b'\r' => "b'\\r'".to_owned(),
            0x20..=0x7e => format!("b'{}'", b as char),
            _ => format!("b'\\x{b:02x}'"),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn report_set(
    results: &[SetParametersResult],
    ok: &str,
    failed: &str,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let Some(result) = results.first() else {
        return Err(CommandError::Usage(
            "the node answered the set with no result".into(),
        ));
    };
    let reason = match result.reason.is_empty() {
        true => String::new(),
        false => format!(": {}", result.reason),
    };
    match result.successful {
        true => writeln!(out, "{ok}{reason}")?,
        false => eprintln!("{failed}{reason}"),
    }
    Ok(())
}

/// ros2param's `describe` text for one parameter.
fn describe(d: &ParameterDescriptor) -> String {
    let mut text = format!("Parameter name: {}\n", d.name);
    text += &format!("  Type: {}\n", type_name(d.r#type));
    if !d.description.is_empty() {
        text += &format!("  Description: {}\n", d.description);
    }
    text += "  Constraints:\n";
    if d.read_only {
        text += "    Read only: true\n";
    }
    // The floating-point range first, as ros2param concatenates them.
    let range = (d.floating_point_range.first())
        .map(|r| {
            let step = (r.step != 0.0).then(|| pyyaml::float_repr(r.step));
            (
                pyyaml::float_repr(r.from_value),
                pyyaml::float_repr(r.to_value),
                step,
            )
        })
        .or_else(|| {
            (d.integer_range.first()).map(|r| {
                let step = (r.step != 0).then(|| r.step.to_string());
                (r.from_value.to_string(), r.to_value.to_string(), step)
            })
        });
    if let Some((from, to, step)) = range {
        text += &format!("    Min value: {from}\n    Max value: {to}\n");
        if let Some(step) = step {
            text += &format!("    Step: {step}\n");
        }
    }
    if !d.additional_constraints.is_empty() {
        text += &format!("    Additional constraints: {}\n", d.additional_constraints);
    }
    text
}

/// ros2param's names of the parameter types.
fn type_name(ty: u8) -> &'static str {
    match ty {
        ParameterType::PARAMETER_BOOL => "boolean",
        ParameterType::PARAMETER_INTEGER => "integer",
        ParameterType::PARAMETER_DOUBLE => "double",
        ParameterType::PARAMETER_STRING => "string",
        ParameterType::PARAMETER_BYTE_ARRAY => "byte array",
        ParameterType::PARAMETER_BOOL_ARRAY => "boolean array",
        ParameterType::PARAMETER_INTEGER_ARRAY => "integer array",
        ParameterType::PARAMETER_DOUBLE_ARRAY => "double array",
        ParameterType::PARAMETER_STRING_ARRAY => "string array",
        _ => "not set",
    }
}

/// rclpy's `parameter_value_to_python`, for the types PyYAML can print (a byte array becomes
/// its numbers); `None` for not set.
fn to_python(value: &ParameterValue) -> Option<PyValue> {
    let list = |items: Vec<PyValue>| Some(PyValue::List(items));
    match value.r#type {
        ParameterType::PARAMETER_BOOL => Some(PyValue::Bool(value.bool_value)),
        ParameterType::PARAMETER_INTEGER => Some(PyValue::Int(value.integer_value)),
        ParameterType::PARAMETER_DOUBLE => Some(PyValue::Float(value.double_value)),
        ParameterType::PARAMETER_STRING => Some(PyValue::Str(value.string_value.clone())),
        ParameterType::PARAMETER_BYTE_ARRAY => list(
            value
                .byte_array_value
                .iter()
                .map(|&b| PyValue::Int(b.into()))
                .collect(),
        ),
        ParameterType::PARAMETER_BOOL_ARRAY => list(
            value
                .bool_array_value
                .iter()
                .map(|&b| PyValue::Bool(b))
                .collect(),
        ),
        ParameterType::PARAMETER_INTEGER_ARRAY => list(
            value
                .integer_array_value
                .iter()
                .map(|&i| PyValue::Int(i))
                .collect(),
        ),
        ParameterType::PARAMETER_DOUBLE_ARRAY => list(
            value
                .double_array_value
                .iter()
                .map(|&f| PyValue::Float(f))
                .collect(),
        ),
        ParameterType::PARAMETER_STRING_ARRAY => list(
            value
                .string_array_value
                .iter()
                .map(|s| PyValue::Str(s.clone()))
                .collect(),
        ),
        _ => None,
    }
}

/// rclpy's `get_parameter_value`: the value a user typed, typed as YAML. A list must be of one
/// type (integers may hold booleans, as Python's `bool` is an `int`); anything else is the
/// text itself as a string.
///
/// ```
/// use tacto_graph::param::value_from_text;
/// use tacto_msgs::rcl_interfaces::msg::ParameterType;
/// assert_eq!(value_from_text("on").r#type, ParameterType::PARAMETER_BOOL);
/// assert_eq!(value_from_text("[1, 2]").integer_array_value, vec![1, 2]);
/// assert_eq!(value_from_text("[1, 2.5]").string_value, "[1, 2.5]");
/// ```
pub fn value_from_text(text: &str) -> ParameterValue {
    let yaml = pyyaml::load(text).unwrap_or_else(|_| PyValue::Str(text.to_owned()));
    let mut value = ParameterValue::default();
    let as_string = |mut value: ParameterValue, s: &str| {
        value.r#type = ParameterType::PARAMETER_STRING;
        value.string_value = s.to_owned();
        value
    };
    match yaml {
        PyValue::Bool(b) => {
            value.r#type = ParameterType::PARAMETER_BOOL;
            value.bool_value = b;
        }
        PyValue::Int(i) => {
            value.r#type = ParameterType::PARAMETER_INTEGER;
            value.integer_value = i;
        }
        PyValue::Float(f) => {
            value.r#type = ParameterType::PARAMETER_DOUBLE;
            value.double_value = f;
        }
        PyValue::List(items) => {
            let bools: Option<Vec<bool>> = (items.iter())
                .map(|v| match v {
                    PyValue::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect();
            let ints: Option<Vec<i64>> = (items.iter())
                .map(|v| match v {
                    PyValue::Int(i) => Some(*i),
                    PyValue::Bool(b) => Some(i64::from(*b)),
                    _ => None,
                })
                .collect();
            let floats: Option<Vec<f64>> = (items.iter())
                .map(|v| match v {
                    PyValue::Float(f) => Some(*f),
                    _ => None,
                })
                .collect();
            let strings: Option<Vec<String>> = (items.iter())
                .map(|v| match v {
                    PyValue::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            if let Some(bools) = bools {
                value.r#type = ParameterType::PARAMETER_BOOL_ARRAY;
                value.bool_array_value = bools;
            } else if let Some(ints) = ints {
                value.r#type = ParameterType::PARAMETER_INTEGER_ARRAY;
                value.integer_array_value = ints;
            } else if let Some(floats) = floats {
                value.r#type = ParameterType::PARAMETER_DOUBLE_ARRAY;
                value.double_array_value = floats;
            } else if let Some(strings) = strings {
                value.r#type = ParameterType::PARAMETER_STRING_ARRAY;
                value.string_array_value = strings;
            } else {
                return as_string(value, text);
            }
        }
        PyValue::Str(s) => return as_string(value, &s),
        PyValue::None | PyValue::Dict(_) => return as_string(value, text),
    }
    value
}

fn dump(session: &Session<'_>, node: &str, out: &mut dyn Write) -> Result<(), CommandError> {
    let request = ListParameters_Request {
        prefixes: Vec::new(),
        depth: ListParameters_Request::DEPTH_RECURSIVE,
    };
    let listed = session.call::<ListParameters>(node, "list_parameters", &request)?;
    let mut names = listed.result.names;
    names.sort();
    let request = GetParameters_Request {
        names: names.clone(),
    };
    let values = session
        .call::<GetParameters>(node, "get_parameters", &request)?
        .values;
    let mut tree = Vec::new();
    for (name, value) in names.iter().zip(&values) {
        // A parameter that is not set would print as `null`, which a message tree cannot
        // hold; it carries nothing to load back anyway.
        if let Some(value) = to_python(value) {
            insert(&mut tree, name, yaml_value(value));
        }
    }
    sort(&mut tree);
    let file = Value::Message(vec![(
        node.to_owned(),
        Value::Message(vec![("ros__parameters".to_owned(), Value::Message(tree))]),
    )]);
    // ros2param prints PyYAML's text, then print()'s own newline.
    writeln!(out, "{}", crate::yaml::to_yaml(&file, None))?;
    Ok(())
}

fn yaml_value(value: PyValue) -> Value {
    match value {
        PyValue::Bool(b) => Value::Bool(b),
        PyValue::Int(i) => Value::Int(i),
        PyValue::Float(f) => Value::Float(f),
        PyValue::Str(s) => Value::String(s),
        PyValue::List(items) => Value::List(items.into_iter().map(yaml_value).collect()),
        PyValue::None | PyValue::Dict(_) => Value::Message(Vec::new()),
    }
}

/// ros2param's `insert_dict`: `a.b.c` under `a`, then `b`.
fn insert(tree: &mut Vec<(String, Value)>, name: &str, value: Value) {
    match name.split_once('.') {
        None => tree.push((name.to_owned(), value)),
        Some((head, rest)) => {
            let index = match tree.iter().position(|(k, _)| k == head) {
                Some(index) => index,
                None => {
                    tree.push((head.to_owned(), Value::Message(Vec::new())));
                    tree.len() - 1
                }
            };
            if !matches!(tree[index].1, Value::Message(_)) {
                tree[index].1 = Value::Message(Vec::new());
            }
            if let Value::Message(inner) = &mut tree[index].1 {
                insert(inner, rest, value);
            }
        }
    }
}

/// PyYAML sorts a mapping's keys.
fn sort(tree: &mut [(String, Value)]) {
    tree.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, value) in tree.iter_mut() {
        if let Value::Message(inner) = value {
            sort(inner);
        }
    }
}

/// rclpy's `parameter_dict_from_yaml_file(file, use_wildcard)` without target nodes: the
/// parameters of every node section of the file (`/**` first, if used), later sections
/// overriding earlier ones, nested names joined by `.`, each value typed again from its
/// Python text (so a quoted `'true'` becomes a boolean, as with `ros2 param load`).
pub fn parameters_from_file(
    file: &Path,
    use_wildcard: bool,
) -> Result<Vec<Parameter>, CommandError> {
    let text = std::fs::read_to_string(file).map_err(|error| CommandError::ParamFile {
        file: file.to_owned(),
        problem: error.to_string(),
    })?;
    let invalid = |problem: String| CommandError::ParamFile {
        file: file.to_owned(),
        problem,
    };
    let PyValue::Dict(sections) = pyyaml::load(&text).map_err(|e| invalid(e.to_string()))? else {
        return Err(invalid(
            "Param file does not contain selected parameters".into(),
        ));
    };
    let wildcard = (sections.iter()).filter(|(key, _)| use_wildcard && key == "/**");
    let others = sections.iter().filter(|(key, _)| key != "/**");
    let selected: Vec<_> = wildcard.chain(others).collect();
    if selected.is_empty() {
        return Err(invalid(
            "Param file does not contain selected parameters".into(),
        ));
    }
    let mut parameters: Vec<(String, PyValue)> = Vec::new();
    for (node, section) in selected {
        let parameters_of = match section {
            PyValue::Dict(entries) => entries.iter().find(|(k, _)| k == "ros__parameters"),
            _ => None,
        };
        let Some((_, PyValue::Dict(values))) = parameters_of else {
            return Err(invalid(format!(
                "YAML file is not a valid ROS parameter file for node {node}"
            )));
        };
        flatten("", values, &mut parameters);
    }
    Ok(parameters
        .into_iter()
        .map(|(name, value)| Parameter {
            name,
            value: value_from_text(&pyyaml::python_str(&value)),
        })
        .collect())
}

/// rclpy's `_unpack_parameter_dict`; a name set twice keeps its first place, with the last
/// value (a Python dict's `update`).
fn flatten(prefix: &str, values: &[(String, PyValue)], into: &mut Vec<(String, PyValue)>) {
    for (key, value) in values {
        let name = format!("{prefix}{key}");
        match value {
            PyValue::Dict(inner) => flatten(&format!("{name}."), inner, into),
            value => match into.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = value.clone(),
                None => into.push((name, value.clone())),
            },
        }
    }
}

fn load(
    session: &Session<'_>,
    node: &str,
    file: &Path,
    use_wildcard: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let parameters = parameters_from_file(file, use_wildcard)?;
    let names: Vec<String> = parameters.iter().map(|p| p.name.clone()).collect();
    let results = session.set(node, parameters)?;
    if results.len() != names.len() {
        return Err(CommandError::Usage(format!(
            "the node answered {} results for {} parameters",
            results.len(),
            names.len()
        )));
    }
    for (name, result) in names.iter().zip(&results) {
        let reason = match result.reason.is_empty() {
            true => String::new(),
            false => format!(": {}", result.reason),
        };
        match result.successful {
            true => writeln!(out, "Set parameter {name} successful{reason}")?,
            false => eprintln!("Set parameter {name} failed{reason}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> (u8, ParameterValue) {
        let value = value_from_text(text);
        (value.r#type, value)
    }

    // Expectations from rclpy's get_parameter_value (Jazzy), run on these texts.
    #[test]
    fn typed_values_follow_rclpy() {
        use ParameterType as T;
        assert_eq!(typed("true").0, T::PARAMETER_BOOL);
        assert_eq!(typed("1").1.integer_value, 1);
        assert_eq!(typed("1.5").1.double_value, 1.5);
        assert_eq!(typed("1e3").1.string_value, "1e3");
        assert_eq!(typed("'5'").1.string_value, "5");
        assert_eq!(typed("").1.string_value, "");
        assert_eq!(typed("~").1.string_value, "~");
        assert_eq!(typed("[true, false]").1.bool_array_value, [true, false]);
        assert_eq!(typed("[true, 2]").1.integer_array_value, [1, 2]);
        assert_eq!(typed("[1.0, 2.5]").1.double_array_value, [1.0, 2.5]);
        assert_eq!(typed("[a, 'b']").1.string_array_value, ["a", "b"]);
        assert_eq!(typed("[]").0, T::PARAMETER_BOOL_ARRAY);
        assert_eq!(typed("[1, a]").1.string_value, "[1, a]");
        assert_eq!(typed("{a: 1}").1.string_value, "{a: 1}");
        assert_eq!(typed("[1, 2").1.string_value, "[1, 2");
    }

    #[test]
    fn a_parameter_file_loads_as_rclpy_loads_it() {
        let dir = std::env::temp_dir().join(format!("tacto-param-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.yaml");
        std::fs::write(
            &file,
            "/**:\n  ros__parameters:\n    a: 1\n    b: x\n\
             /talker:\n  ros__parameters:\n    a: 2\n    nested:\n      gain: 0.5\n      flag: 'true'\n",
        )
        .unwrap();
        let with = parameters_from_file(&file, true).unwrap();
        let names: Vec<_> = with.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "nested.gain", "nested.flag"]);
        assert_eq!(with[0].value.integer_value, 2);
        assert_eq!(with[2].value.double_value, 0.5);
        // rclpy types the Python text of each value again: the quoted 'true' is a boolean.
        assert_eq!(with[3].value.r#type, ParameterType::PARAMETER_BOOL);
        let without = parameters_from_file(&file, false).unwrap();
        assert_eq!(without.len(), 3);
        std::fs::write(&file, "/talker:\n  params:\n    a: 1\n").unwrap();
        let error = parameters_from_file(&file, true).unwrap_err().to_string();
        assert!(
            error.contains("not a valid ROS parameter file for node /talker"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn descriptors_print_as_ros2param_prints_them() {
        use tacto_msgs::rcl_interfaces::msg::FloatingPointRange;
        let descriptor = ParameterDescriptor {
            name: "gain".into(),
            r#type: ParameterType::PARAMETER_DOUBLE,
            description: "how much".into(),
            read_only: true,
            floating_point_range: vec![FloatingPointRange {
                from_value: 0.0,
                to_value: 1.0,
                step: 0.0,
            }],
            ..Default::default()
        };
        assert_eq!(
            describe(&descriptor),
            "Parameter name: gain\n  Type: double\n  Description: how much\n  Constraints:\n    \
             Read only: true\n    Min value: 0.0\n    Max value: 1.0\n"
        );
    }

    #[test]
    fn dumped_names_nest_and_sort_as_pyyaml_prints_them() {
        let mut tree = Vec::new();
        insert(&mut tree, "use_sim_time", Value::Bool(false));
        insert(&mut tree, "qos.depth", Value::Int(10));
        insert(&mut tree, "a", Value::List(vec![Value::Float(1e-5)]));
        sort(&mut tree);
        let file = Value::Message(vec![(
            "/talker".into(),
            Value::Message(vec![("ros__parameters".into(), Value::Message(tree))]),
        )]);
        assert_eq!(
            crate::yaml::to_yaml(&file, None),
            "/talker:\n  ros__parameters:\n    a:\n    - 1.0e-05\n    qos:\n      depth: 10\n    use_sim_time: false\n"
        );
    }

    #[test]
    fn byte_arrays_print_as_python_bytes() {
        assert_eq!(bytes_repr(&[1, b'A', b'\'']), "[b'\\x01', b'A', b\"'\"]");
    }
}
