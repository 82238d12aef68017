//! Parameter overrides from files and `-p` arguments: rcl's `rcl_params_t`, and the rule by
//! which rclcpp collects a node's initial values from them.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::ParameterError;
use super::names::node_key_matches;
use super::value::{Parameter, ParameterValue};
use super::yaml::{self, YamlError};

/// One parameter's value as rcl stores it (`rcl_variant_t`): one slot per type, and a later
/// value of another type fills its own slot without emptying the others. rclcpp reads the
/// first filled slot in the order below, so a parameter given as an integer in one file and a
/// string in a later one stays an integer, as in ROS 2.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Variant {
    pub(super) bool_value: Option<bool>,
    pub(super) integer_value: Option<i64>,
    pub(super) double_value: Option<f64>,
    pub(super) string_value: Option<String>,
    pub(super) bool_array: Option<Vec<bool>>,
    pub(super) integer_array: Option<Vec<i64>>,
    pub(super) double_array: Option<Vec<f64>>,
    pub(super) string_array: Option<Vec<String>>,
}

impl Variant {
    /// rclcpp's `parameter_value_from`: the first filled slot, or none (an empty array, or a
    /// key whose nested mapping was empty).
    pub(super) fn value(&self) -> Option<ParameterValue> {
        if let Some(v) = self.bool_value {
            return Some(ParameterValue::Bool(v));
        }
        if let Some(v) = self.integer_value {
            return Some(ParameterValue::Integer(v));
        }
        if let Some(v) = self.double_value {
            return Some(ParameterValue::Double(v));
        }
        if let Some(v) = &self.string_value {
            return Some(ParameterValue::String(v.clone()));
        }
        // Byte arrays come from no file.
        if let Some(v) = &self.bool_array {
            return Some(ParameterValue::BoolArray(v.clone()));
        }
        if let Some(v) = &self.integer_array {
            return Some(ParameterValue::IntegerArray(v.clone()));
        }
        if let Some(v) = &self.double_array {
            return Some(ParameterValue::DoubleArray(v.clone()));
        }
        self.string_array
            .as_ref()
            .map(|v| ParameterValue::StringArray(v.clone()))
    }
}

/// The parameters given to one node key of the overrides (`rcl_node_params_t`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeOverrides {
    pub(super) name: String,
    pub(super) names: Vec<String>,
    pub(super) values: Vec<Variant>,
}

impl NodeOverrides {
    /// The node key as rcl stores it: the file's keys joined by `/` (`"lidar_ns/lidar_1"`,
    /// `"/**"`), a leading `/` only if the file has one.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its parameters in the order first given, with the value rclcpp would read (none for
    /// an empty array). A name given again by a nested mapping of a later file may be listed
    /// twice; the later one wins.
    pub fn parameters(&self) -> impl Iterator<Item = (&str, Option<ParameterValue>)> {
        (self.names.iter())
            .zip(&self.values)
            .map(|(name, value)| (name.as_str(), value.value()))
    }

    /// rcl's `find_parameter`: the index of `name`, added (with no value) if missing.
    pub(super) fn find_parameter(&mut self, name: &str) -> usize {
        match self.names.iter().position(|n| n == name) {
            Some(index) => index,
            None => {
                self.names.push(name.to_owned());
                self.values.push(Variant::default());
                self.names.len() - 1
            }
        }
    }
}

/// Parameter overrides as rcl holds them (`rcl_params_t`): what `--params-file` files and
/// `-p` arguments give, for node keys that may hold wildcards, in the order given.
///
/// Files are read as `rcl_yaml_param_parser` reads them, rule for rule (see
/// [`add_yaml`](Self::add_yaml)); [`resolve_overrides`] picks a node's values.
///
/// # Examples
/// ```
/// use tacto::params::{ParameterOverrides, ParameterValue, resolve_overrides};
///
/// let mut overrides = ParameterOverrides::new();
/// overrides
///     .add_yaml(
///         "/**:\n  ros__parameters:\n    rate: 10\n\
///          camera:\n  ros__parameters:\n    rate: 30\n    name: front\n",
///     )
///     .unwrap();
/// overrides.add_value("/**", "name", "'042'").unwrap(); // `-p name:='042'`: quoted, a string
///
/// let camera = resolve_overrides("/camera", &[&overrides], &[]).unwrap();
/// assert_eq!(camera["rate"], ParameterValue::Integer(30));
/// // The `camera` key comes after the `/**` key that `-p` added to: it wins.
/// assert_eq!(camera["name"], ParameterValue::String("front".into()));
/// let other = resolve_overrides("/lidar", &[&overrides], &[]).unwrap();
/// assert_eq!(other["rate"], ParameterValue::Integer(10));
/// assert_eq!(other["name"], ParameterValue::String("042".into()));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParameterOverrides {
    pub(super) nodes: Vec<NodeOverrides>,
}

impl ParameterOverrides {
    /// No overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// The node keys in the order first given, with their parameters.
    pub fn nodes(&self) -> &[NodeOverrides] {
        &self.nodes
    }

    /// rcl's `find_node`: the index of `name`, added (with no parameters) if missing.
    pub(super) fn find_node(&mut self, name: &str) -> usize {
        match self.nodes.iter().position(|n| n.name == name) {
            Some(index) => index,
            None => {
                self.nodes.push(NodeOverrides {
                    name: name.to_owned(),
                    ..NodeOverrides::default()
                });
                self.nodes.len() - 1
            }
        }
    }

    /// Reads a parameter file (`--params-file`), as `rcl_parse_yaml_file`: its nodes and
    /// values join these, a value of the same node key and parameter replacing the one of the
    /// same type. A file with an error adds nothing; the error names the file, line and
    /// column.
    pub fn add_file(&mut self, path: impl AsRef<Path>) -> Result<(), YamlError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| YamlError::io(path, &error))?;
        self.add_yaml(&text).map_err(|error| error.in_file(path))
    }

    /// Reads parameters from YAML text, as [`add_file`](Self::add_file) reads a file.
    ///
    /// As rcl: node keys nest (`ns:` then `node:` is `ns/node`) or hold slashes
    /// (`/ns/node:`), `*` and `**` are wildcards of one and of any namespace tokens, and
    /// `ros__parameters:` starts the node's parameters, whose nested mappings make dotted
    /// names (`driver: {dx: 1}` is `driver.dx`). A plain scalar is a bool (`true`, `yes`,
    /// `on`, `Y`... and their negatives), an integer (C's `strtoll` of base 0: `42`, `0x2A`,
    /// `052`), a double (C's `strtod`, and `.inf`, `-.inf`, `.nan`), else a string; a quoted
    /// one or one tagged `!!str` is a string. A sequence of scalars of one type is an array.
    /// Refused: a value or sequence above `ros__parameters`, aliases, mixed arrays, empty
    /// values, invalid node names.
    pub fn add_yaml(&mut self, text: &str) -> Result<(), YamlError> {
        // rcl leaves a failed file half read; a failed file changes nothing here.
        let mut updated = self.clone();
        yaml::parse_file(text, &mut updated)?;
        *self = updated;
        Ok(())
    }

    /// Sets one value from its YAML text, as `rcl_parse_yaml_value` does for a `-p` argument
    /// (`node` is `"/**"` when the argument names no node): a scalar or a flow sequence of
    /// scalars, typed as in a file. On error nothing changes.
    pub fn add_value(&mut self, node: &str, name: &str, yaml_value: &str) -> Result<(), YamlError> {
        let mut updated = self.clone();
        yaml::parse_value(node, name, yaml_value, &mut updated)?;
        *self = updated;
        Ok(())
    }

    /// The overrides a command line gives (`--params-file` files and `-p` values), read in
    /// its order as rcl reads them: a later one overrides an earlier one.
    ///
    /// # Examples
    /// ```
    /// use tacto::args::RosArgs;
    /// use tacto::params::{ParameterOverrides, ParameterValue, resolve_overrides};
    ///
    /// let args = RosArgs::parse(["prog", "--ros-args", "-p", "rate:=10", "-p", "lidar:rate:=20"]).unwrap();
    /// let overrides = ParameterOverrides::from_args(&args).unwrap();
    /// let lidar = resolve_overrides("/lidar", &[&overrides], &[]).unwrap();
    /// assert_eq!(lidar["rate"], ParameterValue::Integer(20));
    /// ```
    pub fn from_args(args: &crate::args::RosArgs) -> Result<Self, YamlError> {
        use crate::args::ParameterSource;
        let mut overrides = ParameterOverrides::new();
        for source in args.parameter_sources() {
            match source {
                ParameterSource::File(path) => overrides.add_file(path)?,
                ParameterSource::Value(set) => {
                    let node = set.node.as_deref().unwrap_or("/**");
                    overrides.add_value(node, &set.name, &set.value)?;
                }
            }
        }
        Ok(overrides)
    }

    /// The value rclcpp would read for the node key `node` (exactly as stored, wildcards not
    /// expanded) and parameter `name`, as `rcl_yaml_node_struct_get`: `None` if either is
    /// missing, `Some(None)` if the parameter has no value.
    pub fn get(&self, node: &str, name: &str) -> Option<Option<ParameterValue>> {
        let node = self.nodes.iter().find(|n| n.name == node)?;
        let index = node.names.iter().position(|n| n == name)?;
        Some(node.values[index].value())
    }
}

/// A node's initial parameter values, as rclcpp's `resolve_parameter_overrides`: for each of
/// `sources` in turn (the context's arguments, then the node's own), every node key that
/// matches `node_fqn` gives its parameters, keys in the order first given, a later value
/// replacing an earlier one; then `explicit` values (`NodeOptions::parameter_overrides`)
/// replace those.
///
/// So precedence follows the order of node keys, not how specific they are: a `/**:`
/// section after a `node:` section overrides it, and a `-p` argument (node key `/**`) given
/// before a file that names `/**` is overridden by that file. A key matches if it is the
/// node's fully qualified name, a leading `/` added if missing, with `/*` standing for one
/// namespace token or the node name and `/**` for any number of tokens.
///
/// Fails if a matching parameter has no value (an empty array, or an empty nested mapping):
/// rcl cannot type it, and rclcpp refuses to create the node.
pub fn resolve_overrides(
    node_fqn: &str,
    sources: &[&ParameterOverrides],
    explicit: &[Parameter],
) -> Result<BTreeMap<String, ParameterValue>, ParameterError> {
    let mut result = BTreeMap::new();
    for source in sources {
        for node in &source.nodes {
            let key = match node.name.starts_with('/') {
                true => node.name.clone(),
                false => format!("/{}", node.name),
            };
            if !node_key_matches(&key, node_fqn) {
                continue;
            }
            for (name, value) in node.parameters() {
                let value = value.ok_or_else(|| {
                    ParameterError::InvalidValue(format!(
                        "No parameter value set: parameter '{name}' of node key '{}' has no \
                         value (an empty array or an empty mapping); give it a value or remove it",
                        node.name
                    ))
                })?;
                result.insert(name.to_owned(), value);
            }
        }
    }
    for parameter in explicit {
        result.insert(parameter.name.clone(), parameter.value.clone());
    }
    Ok(result)
}
