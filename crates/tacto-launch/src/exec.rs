//! A launch file's process that runs an executable (`exec = "..."`): any program, a ROS 2 node
//! given its name, namespace, parameters, remaps and log level on the command line as
//! launch_ros's `Node` action gives them.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use tacto::logging::Severity;
use toml::Spanned;

use tacto::params::ParameterOverrides;

use crate::file::{LaunchFileError, SourceFile};

/// A process that runs an executable.
///
/// # Examples
/// ```
/// use std::path::Path;
/// use tacto_launch::{LaunchFile, ProcessKind};
///
/// let text = r#"
/// [[process]]
/// name = "listener"
/// exec = "sh"
/// args = ["-c", "echo $0"]
/// node_name = "listener"
/// namespace = "robot1"
/// parameters = { period = 0.5, frame = "base_link" }
/// remaps = [{ from = "chatter", to = "/robot1/out" }]
/// log_level = "debug"
/// "#;
/// let file = LaunchFile::parse(text, Path::new("demo.toml")).unwrap();
/// let ProcessKind::Exec(exec) = &file.processes[0].kind else { unreachable!() };
/// // As launch_ros's Node: the program's own arguments, its ROS arguments, then its node's.
/// assert_eq!(
///     exec.arguments(),
///     [
///         "-c", "echo $0",
///         "--ros-args", "--log-level", "debug",
///         "--ros-args", "-r", "__node:=listener", "-r", "__ns:=/robot1",
///         "-p", "frame:=\"base_link\"", "-p", "period:=0.5",
///         "-r", "chatter:=/robot1/out",
///     ]
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ExecProcess {
    /// The executable: a path, made absolute (a relative one is relative to the launch file's
    /// folder), or found on `PATH` for a bare name.
    pub program: PathBuf,
    /// Its own arguments, first.
    pub args: Vec<String>,
    /// Environment variables set for it, beside those of the launch.
    pub env: Vec<(String, String)>,
    /// `__node:=`: the node's name, if renamed.
    pub node_name: Option<String>,
    /// `__ns:=`: the node's namespace, absolute.
    pub namespace: Option<String>,
    /// `--params-file`s, absolute, in the file's order.
    pub params_files: Vec<PathBuf>,
    /// `-p name:=value`s, each value as rcl reads it (YAML), by name.
    pub parameters: Vec<(String, String)>,
    /// `-r from:=to`s, in the file's order (the first that applies wins).
    pub remaps: Vec<(String, String)>,
    /// `--log-level`: a level, or `logger:=level`.
    pub log_level: Option<String>,
}

impl ExecProcess {
    /// Whether it is started as a ROS node: it has a node name, namespace, parameters, remaps
    /// or a log level. Without, it gets its `args` alone (launch's `ExecuteProcess`).
    pub fn is_ros_node(&self) -> bool {
        self.node_name.is_some()
            || self.namespace.is_some()
            || !self.params_files.is_empty()
            || !self.parameters.is_empty()
            || !self.remaps.is_empty()
            || self.log_level.is_some()
    }

    /// Its command line after the program, in launch_ros's order (`Node.__init__` and
    /// `_perform_substitutions`, Jazzy): `args`; the ROS arguments (`--ros-args --log-level
    /// L`, as launch's `ros_args` gives them); then always `--ros-args` and the node's own: `-r
    /// __node:=NAME`, `-r __ns:=NS`, the parameters (files, then values), the remaps.
    pub fn arguments(&self) -> Vec<OsString> {
        let mut line: Vec<OsString> = self.args.iter().map(OsString::from).collect();
        if !self.is_ros_node() {
            return line;
        }
        if let Some(level) = &self.log_level {
            line.extend(["--ros-args", "--log-level", level].map(OsString::from));
        }
        line.push("--ros-args".into());
        let mut rule = |flag: &str, value: OsString| line.extend([flag.into(), value]);
        if let Some(name) = &self.node_name {
            rule("-r", format!("__node:={name}").into());
        }
        if let Some(namespace) = &self.namespace {
            rule("-r", format!("__ns:={namespace}").into());
        }
        for file in &self.params_files {
            rule("--params-file", file.into());
        }
        for (name, value) in &self.parameters {
            rule("-p", format!("{name}:={value}").into());
        }
        for (from, to) in &self.remaps {
            rule("-r", format!("{from}:={to}").into());
        }
        line
    }
}

/// A process's fields that only an `exec` process has, as read.
pub(super) struct RawExec {
    pub exec: Spanned<String>,
    pub args: Option<Spanned<Vec<String>>>,
    pub env: Option<Spanned<BTreeMap<String, String>>>,
    pub node_name: Option<Spanned<String>>,
    pub namespace: Option<Spanned<String>>,
    pub params_files: Option<Spanned<Vec<Spanned<String>>>>,
    pub parameters: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    pub remaps: Option<Spanned<Vec<Spanned<RawRemap>>>>,
    pub log_level: Option<Spanned<String>>,
}

/// One remap, as launch's `<remap from=".." to=".."/>`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRemap {
    from: String,
    to: String,
}

/// Names the process and field of an error: `(field, reason)` → the error's text.
pub(super) type Here<'a> = &'a dyn Fn(&str, String) -> String;

/// Checks `raw` (of the process `name` in `source`) and resolves its paths; `pushed` is the
/// namespace of the group or include it is in (launch_ros's `PushRosNamespace`).
pub(super) fn parse(
    raw: RawExec,
    name: &str,
    source: &SourceFile<'_>,
    pushed: Option<&str>,
) -> Result<ExecProcess, LaunchFileError> {
    let here = |field: &str, reason: String| format!("process {name:?}: {field}: {reason}");
    let folder = source.path.parent().unwrap_or(Path::new(""));
    let program = resolve_program(raw.exec.get_ref(), folder)
        .map_err(|reason| source.invalid(raw.exec.span(), here("exec", reason)))?;
    let node_name = match raw.node_name {
        Some(n) if !is_token(n.get_ref()) => {
            return Err(source.invalid(
                n.span(),
                here(
                    "node_name",
                    format!(
                        "{:?} is not a node name: use letters, digits and '_', not starting \
                         with a digit",
                        n.get_ref()
                    ),
                ),
            ));
        }
        other => other.map(Spanned::into_inner),
    };
    let namespace = match raw.namespace {
        Some(ns) => {
            let pushed_ns = pushed_namespace(pushed, Some(ns.get_ref()));
            Some(absolute_namespace(&pushed_ns).ok_or_else(|| {
                source.invalid(
                    ns.span(),
                    here(
                        "namespace",
                        format!(
                            "{:?} is not a namespace: names of letters, digits and '_' (not \
                             starting with a digit) separated by '/'",
                            ns.get_ref()
                        ),
                    ),
                )
            })?)
        }
        None => None,
    };
    let params_files = params_files(raw.params_files, folder, source, &here)?;
    let parameters = parameters(raw.parameters, source, &here)?;
    let remaps = remaps(raw.remaps, source, &here)?;
    let log_level = match raw.log_level {
        Some(level) => {
            let text = level.get_ref();
            let severity = text.rsplit_once(":=").map_or(text.as_str(), |(_, s)| s);
            if severity.parse::<Severity>().is_err() || text.starts_with(":=") {
                return Err(source.invalid(
                    level.span(),
                    here(
                        "log_level",
                        format!(
                            "{text:?}: give a level (debug, info, warn, error, fatal, unset) or \
                             logger:=level"
                        ),
                    ),
                ));
            }
            Some(text.clone())
        }
        None => None,
    };
    let mut exec = ExecProcess {
        program,
        args: raw.args.map(Spanned::into_inner).unwrap_or_default(),
        env: raw
            .env
            .map(Spanned::into_inner)
            .unwrap_or_default()
            .into_iter()
            .collect(),
        node_name,
        namespace,
        params_files,
        parameters,
        remaps,
        log_level,
    };
    // A pushed namespace reaches a node (launch_ros's `Node`), not a plain program
    // (`ExecuteProcess`), which has no namespace to be given.
    if exec.namespace.is_none() && exec.is_ros_node() {
        exec.namespace = pushed.and_then(absolute_namespace);
    }
    Ok(exec)
}

/// `params_files`, each made absolute (relative to the launch file's `folder`) and read as rcl
/// reads it, so that a file that is missing or does not parse is refused before anything
/// starts.
pub(super) fn params_files(
    raw: Option<Spanned<Vec<Spanned<String>>>>,
    folder: &Path,
    source: &SourceFile<'_>,
    here: Here<'_>,
) -> Result<Vec<PathBuf>, LaunchFileError> {
    let mut files = Vec::new();
    for entry in raw.map(Spanned::into_inner).unwrap_or_default() {
        let path = absolute(&folder.join(entry.get_ref()));
        if !path.is_file() {
            return Err(source.invalid(
                entry.span(),
                here("params_files", format!("{} is not a file", path.display())),
            ));
        }
        if let Err(e) = ParameterOverrides::new().add_file(&path) {
            return Err(source.invalid(
                entry.span(),
                here(
                    "params_files",
                    format!("{} does not parse: {e}", path.display()),
                ),
            ));
        }
        files.push(path);
    }
    Ok(files)
}

/// `parameters`, each value as the YAML `-p name:=value` gives rcl: a TOML value as its type
/// says, a string that was one launch argument whole (`"$(var rate)"`) as the argument's text,
/// which rcl reads as YAML (an integer stays one), as launch_ros reads a substituted value.
pub(super) fn parameters(
    raw: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    source: &SourceFile<'_>,
    here: Here<'_>,
) -> Result<Vec<(String, String)>, LaunchFileError> {
    let mut parameters = Vec::new();
    if let Some(table) = raw {
        let span = table.span();
        for (key, value) in table.into_inner() {
            if !is_parameter_name(&key) {
                return Err(source.invalid(
                    span,
                    here(
                        "parameters",
                        format!("{key:?} is not a parameter name: letters, digits, '_' and '.'"),
                    ),
                ));
            }
            let yaml = match value.get_ref() {
                toml::Value::String(text) if source.whole.contains(&value.span().start) => {
                    Ok(yaml_text(text))
                }
                other => yaml_value(other),
            }
            .map_err(|reason| {
                source.invalid(value.span(), here("parameters", format!("{key}: {reason}")))
            })?;
            parameters.push((key, yaml));
        }
    }
    Ok(parameters)
}

/// A launch argument's text as a parameter value: YAML as it is, and the empty text the empty
/// string, as launch_ros's `evaluate_parameter_dict` makes it (`''`).
fn yaml_text(text: &str) -> String {
    match text.is_empty() {
        true => "''".into(),
        false => text.to_owned(),
    }
}

/// `remaps`, in the file's order.
pub(super) fn remaps(
    raw: Option<Spanned<Vec<Spanned<RawRemap>>>>,
    source: &SourceFile<'_>,
    here: Here<'_>,
) -> Result<Vec<(String, String)>, LaunchFileError> {
    let mut remaps = Vec::new();
    for remap in raw.map(Spanned::into_inner).unwrap_or_default() {
        let span = remap.span();
        let RawRemap { from, to } = remap.into_inner();
        for (end, value) in [("from", &from), ("to", &to)] {
            if value.is_empty() || value.contains(":=") || value.contains(char::is_whitespace) {
                return Err(source.invalid(
                    span,
                    here(
                        "remaps",
                        format!("{end} = {value:?} is not a name (empty, or with ':=' or a space)"),
                    ),
                ));
            }
        }
        remaps.push((from, to));
    }
    Ok(remaps)
}

/// A node's namespace under the namespace `pushed` onto it by a group or include, as
/// launch_ros's `Node` does: a relative (or no) namespace goes under the pushed one, an
/// absolute one stays.
pub(super) fn pushed_namespace(pushed: Option<&str>, namespace: Option<&str>) -> String {
    match (pushed, namespace) {
        (_, Some(ns)) if ns.starts_with('/') => ns.to_owned(),
        (Some(pushed), Some(ns)) => format!("{}/{ns}", pushed.trim_end_matches('/')),
        (Some(pushed), None) => pushed.to_owned(),
        (None, Some(ns)) => ns.to_owned(),
        (None, None) => "/".to_owned(),
    }
}

/// `exec`'s program: a path with a '/' is relative to the launch file's folder, a bare name is
/// looked up on `PATH` as a shell does.
fn resolve_program(exec: &str, folder: &Path) -> Result<PathBuf, String> {
    if exec.is_empty() {
        return Err("is empty".into());
    }
    if exec.contains('/') {
        let path = absolute(&folder.join(exec));
        return match path.is_file() {
            true => Ok(path),
            false => Err(format!("{} is not a file", path.display())),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(exec))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| format!("{exec:?} is not on PATH; give a path with a '/'"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `path` made absolute against the working directory and normalized, as launch_ros's
/// `os.path.abspath`: lexically (`a/../b` is `b`), symbolic links not followed.
fn absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// Letters, digits and '_', not starting with a digit: a ROS name token.
pub(super) fn is_token(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `namespace` made absolute (launch_ros's `make_namespace_absolute`), if it is one: tokens
/// separated by single '/', or the root (`/` or empty).
pub(super) fn absolute_namespace(namespace: &str) -> Option<String> {
    // launch_ros strips trailing '/'s (`prefix_namespace`), then adds the leading one.
    let relative = namespace.trim_end_matches('/');
    let relative = relative.strip_prefix('/').unwrap_or(relative);
    if relative.is_empty() {
        return Some("/".into());
    }
    relative
        .split('/')
        .all(is_token)
        .then(|| format!("/{relative}"))
}

/// A parameter name as `-p` takes it: tokens separated by '.'.
fn is_parameter_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|token| {
            !token.is_empty() && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// `value` as the YAML text `-p name:=value` gives rcl: a string quoted (so that "42" or
/// "true" stay strings), a float with its point or exponent (so that 1.0 stays a double), an
/// array of one type in flow style.
fn yaml_value(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::Array(items) => {
            let Some(first) = items.first() else {
                return Err("an empty array has no type: give at least one item".into());
            };
            if items.iter().any(|item| item.type_str() != first.type_str()) {
                return Err("an array's items must be of one type".into());
            }
            let items = (items.iter())
                .map(|item| match item {
                    toml::Value::Array(_) => Err("an array of arrays is not a parameter".into()),
                    item => yaml_scalar(item),
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(format!("[{}]", items.join(", ")))
        }
        scalar => yaml_scalar(scalar),
    }
}

fn yaml_scalar(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::Boolean(b) => Ok(b.to_string()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) if f.is_finite() => Ok(format!("{f:?}")),
        toml::Value::Float(_) => Err("give a finite number".into()),
        toml::Value::String(s) if s.chars().any(char::is_control) => {
            Err("a string with a control character".into())
        }
        toml::Value::String(s) => Ok(format!(
            "\"{}\"",
            s.replace('\\', "\\\\").replace('"', "\\\"")
        )),
        other => Err(format!(
            "a {} is not a parameter value: give a bool, integer, float, string or array",
            other.type_str()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LaunchFile, ProcessKind};
    use tacto::args::RosArgs;
    use tacto::params::{ParameterOverrides, ParameterValue, resolve_overrides};

    /// A folder of its own for `test`, with `gyro.param.yaml` in it.
    fn folder(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tacto-exec-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("gyro.param.yaml"),
            "/**:\n  ros__parameters:\n    output_frame: \"base_link\"\n    \
             message_timeout_sec: 0.2\n",
        )
        .unwrap();
        dir
    }

    fn parse(dir: &Path, process: &str) -> Result<ExecProcess, String> {
        let text = format!("[[process]]\nname = \"p\"\n{process}");
        let folder = format!("{}/", dir.display());
        let file = LaunchFile::parse(&text, &dir.join("t.toml"))
            .map_err(|e| e.to_string().replace(&folder, ""))?;
        match file.processes.into_iter().next().map(|p| p.kind) {
            Some(ProcessKind::Exec(exec)) => Ok(exec),
            other => panic!("not an exec process: {other:?}"),
        }
    }

    fn strings(args: Vec<OsString>) -> Vec<String> {
        args.into_iter().map(|a| a.into_string().unwrap()).collect()
    }

    // From launch_ros's test_launch_ros/utilities/test_namespace_utils.py (test_make_absolute,
    // and test_prefix_namespace's trailing '/'s).
    #[test]
    fn a_namespace_is_made_absolute_as_launch_ros_makes_it() {
        for (given, absolute) in [
            ("/", "/"),
            ("/asd", "/asd"),
            ("/asd/bsd", "/asd/bsd"),
            ("", "/"),
            ("asd", "/asd"),
            ("asd/bsd", "/asd/bsd"),
            ("bsd/", "/bsd"),
            ("/bsd/", "/bsd"),
        ] {
            assert_eq!(
                absolute_namespace(given).as_deref(),
                Some(absolute),
                "{given:?}"
            );
        }
        for not_one in ["a//b", "1robot", "robot-1", "~/x"] {
            assert_eq!(absolute_namespace(not_one), None, "{not_one:?}");
        }
    }

    /// The namespace a node gets under `pushes` (outermost first), as groups and includes
    /// push them: `None` where launch_ros gives the node none (no `__ns` rule).
    fn under(pushes: &[&str], node: Option<&str>) -> Option<String> {
        let mut pushed: Option<String> = None;
        for push in pushes {
            let joined = pushed_namespace(pushed.as_deref(), Some(push));
            pushed = Some(absolute_namespace(&joined).unwrap());
        }
        match (pushed.as_deref(), node) {
            (None, None) => None,
            (pushed, node) => absolute_namespace(&pushed_namespace(pushed, node)),
        }
    }

    // From launch_ros's test_launch_ros/actions/test_push_ros_namespace.py (Jazzy),
    // `get_test_cases`: push_ns, second_push_ns, node_ns and expected_ns, as a group or
    // include pushes them (the node's name plays no part in its namespace).
    #[test]
    fn a_pushed_namespace_goes_before_a_relative_one_as_push_ros_namespace_does() {
        let cases: [(&[&str], Option<&str>, Option<&str>); 10] = [
            (
                &["relative_ns"],
                Some("node_ns"),
                Some("/relative_ns/node_ns"),
            ),
            (&["relative_ns"], Some("/node_ns"), Some("/node_ns")),
            (&["relative_ns"], Some("/"), Some("/")),
            (&["relative_ns"], Some(""), Some("/relative_ns")),
            (
                &["relative_ns", "another_relative_ns"],
                Some("node_ns"),
                Some("/relative_ns/another_relative_ns/node_ns"),
            ),
            (
                &["relative_ns", "/absolute_ns"],
                Some("node_ns"),
                Some("/absolute_ns/node_ns"),
            ),
            (
                &["relative_ns", "/absolute_ns"],
                Some("node_ns"),
                Some("/absolute_ns/node_ns"),
            ),
            (&[], Some("node_ns"), Some("/node_ns")),
            (&[], None, None),
            (&[""], None, Some("/")),
        ];
        for (pushes, node, expected) in cases {
            assert_eq!(
                under(pushes, node).as_deref(),
                expected,
                "{pushes:?} {node:?}"
            );
        }
    }

    // From launch_ros's test_launch_ros/actions/test_node.py: `_create_node` (name my_node,
    // namespace my_ns, arguments --number_of_cycles 1), test_launch_node_with_ros_arguments
    // ("--ros-args --log-level debug" in the command) and test_launch_node_with_remappings
    // (the remaps in their order); the order of the rest from node.py.
    #[test]
    fn a_node_gets_its_arguments_then_ros_arguments_then_its_own_in_launch_ros_order() {
        let dir = folder("order");
        let exec = parse(
            &dir,
            "exec = \"sh\"\nargs = [\"--number_of_cycles\", \"1\"]\nnode_name = \"my_node\"\n\
             namespace = \"my_ns\"\nlog_level = \"debug\"\nparams_files = [\"gyro.param.yaml\"]\n\
             parameters = { message_timeout_sec = 1.5 }\n\
             remaps = [{ from = \"chatter\", to = \"new_chatter\" }, { from = \"imu\", to = \"/sensing/imu\" }]\n",
        )
        .unwrap();
        let params = dir.join("gyro.param.yaml");
        assert_eq!(
            strings(exec.arguments()),
            [
                "--number_of_cycles",
                "1",
                "--ros-args",
                "--log-level",
                "debug",
                "--ros-args",
                "-r",
                "__node:=my_node",
                "-r",
                "__ns:=/my_ns",
                "--params-file",
                params.to_str().unwrap(),
                "-p",
                "message_timeout_sec:=1.5",
                "-r",
                "chatter:=new_chatter",
                "-r",
                "imu:=/sensing/imu",
            ]
        );
        assert!(exec.program.is_absolute(), "{}", exec.program.display());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_program_that_is_not_a_node_gets_its_args_alone_and_its_environment() {
        let dir = folder("plain");
        let exec = parse(
            &dir,
            "exec = \"sh\"\nargs = [\"-c\", \"exit 0\"]\nenv = { RMW_IMPLEMENTATION = \"rmw_cyclonedds_cpp\" }\n",
        )
        .unwrap();
        assert!(!exec.is_ros_node());
        assert_eq!(strings(exec.arguments()), ["-c", "exit 0"]);
        assert_eq!(
            exec.env,
            [(
                "RMW_IMPLEMENTATION".to_owned(),
                "rmw_cyclonedds_cpp".to_owned()
            )]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What the node reads from the command line the launch gives it: the file's values, then
    /// the table's, each with its type (a string that looks like a number stays a string).
    #[test]
    fn the_parameters_reach_the_node_with_their_types_the_tables_over_the_files() {
        let dir = folder("types");
        let exec = parse(
            &dir,
            "exec = \"sh\"\nnode_name = \"gyro_odometer\"\nparams_files = [\"gyro.param.yaml\"]\n\
             [process.parameters]\nmessage_timeout_sec = 1.0\ncount = 3\nenabled = true\n\
             frame = \"042\"\nquoted = 'say \"hi\"'\ngains = [0.5, 2.0]\nnames = [\"a\", \"b\"]\n",
        )
        .unwrap();
        let mut line = vec![OsString::from("gyro")];
        line.extend(exec.arguments());
        let args = RosArgs::parse(strings(line)).unwrap();
        let overrides = ParameterOverrides::from_args(&args).unwrap();
        let values = resolve_overrides("/gyro_odometer", &[&overrides], &[]).unwrap();
        let expected = [
            ("output_frame", ParameterValue::String("base_link".into())),
            ("message_timeout_sec", ParameterValue::Double(1.0)),
            ("count", ParameterValue::Integer(3)),
            ("enabled", ParameterValue::Bool(true)),
            ("frame", ParameterValue::String("042".into())),
            ("quoted", ParameterValue::String("say \"hi\"".into())),
            ("gains", ParameterValue::DoubleArray(vec![0.5, 2.0])),
            (
                "names",
                ParameterValue::StringArray(vec!["a".into(), "b".into()]),
            ),
        ];
        for (name, value) in expected {
            assert_eq!(values.get(name), Some(&value), "{name}: {values:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_mistake_of_an_exec_process_is_named_with_its_line() {
        let dir = folder("mistakes");
        let cases = [
            (
                "exec = \"no-such-program-here\"\n",
                "t.toml:3:8: process \"p\": exec: \"no-such-program-here\" is not on PATH",
            ),
            (
                "exec = \"./missing\"\n",
                "t.toml:3:8: process \"p\": exec: ",
            ),
            (
                "exec = \"sh\"\nnode_name = \"my-node\"\n",
                "t.toml:4:13: process \"p\": node_name: \"my-node\" is not a node name",
            ),
            (
                "exec = \"sh\"\nnamespace = \"a//b\"\n",
                "t.toml:4:13: process \"p\": namespace: \"a//b\" is not a namespace",
            ),
            (
                "exec = \"sh\"\nparams_files = [\"nope.yaml\"]\n",
                "t.toml:4:17: process \"p\": params_files: ",
            ),
            (
                "exec = \"sh\"\nparameters = { x = [] }\n",
                "t.toml:4:20: process \"p\": parameters: x: an empty array has no type",
            ),
            (
                "exec = \"sh\"\nparameters = { x = [1, 2.5] }\n",
                "t.toml:4:20: process \"p\": parameters: x: an array's items must be of one type",
            ),
            (
                "exec = \"sh\"\nparameters = { x = { y = 1 } }\n",
                "t.toml:4:20: process \"p\": parameters: x: a table is not a parameter value",
            ),
            (
                "exec = \"sh\"\nparameters = { x = nan }\n",
                "t.toml:4:20: process \"p\": parameters: x: give a finite number",
            ),
            (
                "exec = \"sh\"\nremaps = [{ from = \"a\", to = \"\" }]\n",
                "t.toml:4:11: process \"p\": remaps: to = \"\" is not a name",
            ),
            (
                "exec = \"sh\"\nlog_level = \"loud\"\n",
                "t.toml:4:13: process \"p\": log_level: \"loud\": give a level",
            ),
            (
                "exec = \"sh\"\nexecutor = \"wait-set\"\n",
                "t.toml:4:12: process \"p\": executor: applies to a process of nodes, not to exec",
            ),
            (
                "nodes = [\"x\"]\nexecutor = \"wait-set\"\n",
                "t.toml:3:9: process \"p\": nodes: the file has no topology",
            ),
            (
                "remaps = []\n",
                "t.toml:3:10: process \"p\": remaps: applies to an exec process only",
            ),
            (
                "restart = \"never\"\n",
                "t.toml:2:8: process \"p\": give nodes and executor",
            ),
        ];
        for (process, expected) in cases {
            let error = parse(&dir, process).unwrap_err();
            assert!(
                error.starts_with(expected),
                "{error:?} should start with {expected:?}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
