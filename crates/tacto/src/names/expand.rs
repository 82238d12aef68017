//! Expansion of a topic or service name against a node's name and namespace, as
//! `rcl_expand_topic_name`.

use std::collections::HashMap;

use super::error::NameError;
use super::validate::{validate_namespace, validate_node_name, validate_topic_name};

/// Expands a topic or service name against the node's name and namespace, as
/// `rcl_expand_topic_name` with rcl's default substitutions (there are none beyond the built-in
/// ones):
///
/// - an absolute name (`/chatter`) stays as it is;
/// - a relative name goes under the namespace: `chatter` in `/robot` is `/robot/chatter`;
/// - `~` is the node's fully-qualified name: `~/status` for node `arm` in `/robot` is
///   `/robot/arm/status`;
/// - `{node}` is the node's name, `{ns}` and `{namespace}` its namespace.
///
/// The name, the node's name and its namespace are validated first
/// ([`validate_topic_name`], [`validate_node_name`], [`validate_namespace`]); the result is
/// *not* checked as a fully-qualified name, as in rcl (`/foo/{ns}` in `/ns` gives `/foo//ns`):
/// [`NodeIdentity::resolve_topic_name`](super::NodeIdentity::resolve_topic_name) does that.
///
/// # Examples
/// ```
/// use tacto::names::expand_topic_name;
///
/// assert_eq!(expand_topic_name("chatter", "talker", "/demo").unwrap(), "/demo/chatter");
/// assert_eq!(expand_topic_name("~/status", "talker", "/demo").unwrap(), "/demo/talker/status");
/// assert_eq!(expand_topic_name("{node}/out", "talker", "/").unwrap(), "/talker/out");
/// assert!(expand_topic_name("white space", "talker", "/").is_err());
/// ```
pub fn expand_topic_name(
    name: &str,
    node_name: &str,
    node_namespace: &str,
) -> Result<String, NameError> {
    expand(name, node_name, node_namespace, &HashMap::new(), false)
}

/// [`expand_topic_name`] with substitutions of one's own: `{key}` becomes `substitutions[key]`
/// (the built-in `{node}`, `{ns}` and `{namespace}` take precedence), as rcl's string map.
///
/// A value is inserted as it is, not expanded again; the result is not validated (see
/// [`expand_topic_name`]).
///
/// # Examples
/// ```
/// use std::collections::HashMap;
/// use tacto::names::expand_topic_name_with;
///
/// let substitutions = HashMap::from([("ping".to_owned(), "pong".to_owned())]);
/// assert_eq!(
///     expand_topic_name_with("{ping}", "my_node", "/my_ns", &substitutions).unwrap(),
///     "/my_ns/pong"
/// );
/// ```
pub fn expand_topic_name_with(
    name: &str,
    node_name: &str,
    node_namespace: &str,
    substitutions: &HashMap<String, String>,
) -> Result<String, NameError> {
    expand(name, node_name, node_namespace, substitutions, false)
}

/// The expansion, with the error naming a service name when `service` is set.
pub(crate) fn expand(
    name: &str,
    node_name: &str,
    node_namespace: &str,
    substitutions: &HashMap<String, String>,
    service: bool,
) -> Result<String, NameError> {
    validate_topic_name(name).map_err(|invalid| NameError::TopicName {
        name: name.to_owned(),
        service,
        invalid,
    })?;
    validate_node_name(node_name).map_err(|invalid| NameError::NodeName {
        name: node_name.to_owned(),
        invalid,
    })?;
    validate_namespace(node_namespace).map_err(|invalid| NameError::Namespace {
        namespace: node_namespace.to_owned(),
        invalid,
    })?;
    let has_substitution = name.contains('{');
    if name.starts_with('/') && !has_substitution {
        return Ok(name.to_owned());
    }
    // The root namespace needs no separating '/'.
    let separator = if node_namespace.len() == 1 { "" } else { "/" };
    let mut expanded = match name.strip_prefix('~') {
        Some(rest) => format!("{node_namespace}{separator}{node_name}{rest}"),
        None => name.to_owned(),
    };
    if has_substitution {
        expanded = substitute(&expanded, name, node_name, node_namespace, substitutions)?;
    }
    if !expanded.starts_with('/') {
        expanded = format!("{node_namespace}{separator}{expanded}");
    }
    Ok(expanded)
}

/// Replaces each `{key}` of `text` in one pass. Validation has made the braces balanced and
/// unnested, so each `{` has its `}` after it.
fn substitute(
    text: &str,
    name: &str,
    node_name: &str,
    node_namespace: &str,
    substitutions: &HashMap<String, String>,
) -> Result<String, NameError> {
    let mut out = String::with_capacity(text.len() + node_namespace.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let Some(length) = rest[open..].find('}') else {
            break;
        };
        let key = &rest[open + 1..open + length];
        let replacement = match key {
            "node" => node_name,
            "ns" | "namespace" => node_namespace,
            _ => substitutions.get(key).map(String::as_str).ok_or_else(|| {
                NameError::UnknownSubstitution {
                    name: name.to_owned(),
                    substitution: format!("{{{key}}}"),
                }
            })?,
        };
        out.push_str(&rest[..open]);
        out.push_str(replacement);
        rest = &rest[open + length + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
