//! Remap rules (`-r from:=to`) and how rcl applies them: `rcl_remap_topic_name`,
//! `rcl_remap_service_name`, `rcl_remap_node_name` and `rcl_remap_node_namespace`.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use super::error::NameError;
use super::expand::expand;
use super::lexer::{Lexeme, Lookahead, WrongLexeme};

/// What a remap rule renames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RemapKind {
    /// Topics and services of that name (`from:=to`).
    TopicOrService,
    /// Only topics (`rostopic://from:=to`).
    Topic,
    /// Only services (`rosservice://from:=to`).
    Service,
    /// The node's name (`__node:=name`, or `__name:=name`).
    NodeName,
    /// The node's namespace (`__ns:=/namespace`).
    Namespace,
}

impl RemapKind {
    fn applies_to_topics(self) -> bool {
        matches!(self, RemapKind::TopicOrService | RemapKind::Topic)
    }

    fn applies_to_services(self) -> bool {
        matches!(self, RemapKind::TopicOrService | RemapKind::Service)
    }
}

/// One remap rule, as rcl parses it from `-r`/`--remap`:
///
/// - `from:=to` renames a topic or service; both sides are names as a node is given them
///   (relative, absolute, `~/private`), expanded against each node before they are compared;
///   `rostopic://` or `rosservice://` in front of `from` limits it to topics or services;
/// - `__node:=name` (or `__name:=name`) renames the node;
/// - `__ns:=/namespace` moves the node to another namespace;
/// - `node:` in front of any of them limits the rule to the node of that name.
///
/// Wildcards (`*`, `**`) and backreferences (`\1`) are refused, as in rcl, which does not
/// implement them.
///
/// # Examples
/// ```
/// use tacto::names::{RemapKind, RemapRule};
///
/// let rule: RemapRule = "talker:chatter:=/out".parse().unwrap();
/// assert_eq!(rule.node_name(), Some("talker"));
/// assert_eq!(rule.kind(), RemapKind::TopicOrService);
/// assert_eq!(rule.pattern(), Some("chatter"));
/// assert_eq!(rule.replacement(), "/out");
///
/// let rule: RemapRule = "__ns:=/robot1".parse().unwrap();
/// assert_eq!((rule.kind(), rule.replacement()), (RemapKind::Namespace, "/robot1"));
///
/// assert!("chatter".parse::<RemapRule>().is_err()); // no ':='
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RemapRule {
    text: String,
    node_name: Option<String>,
    kind: RemapKind,
    pattern: Option<String>,
    replacement: String,
}

impl RemapRule {
    /// The node the rule is limited to, if it has a `node:` prefix.
    pub fn node_name(&self) -> Option<&str> {
        self.node_name.as_deref()
    }

    /// What the rule renames.
    pub fn kind(&self) -> RemapKind {
        self.kind
    }

    /// The name the rule matches, as written (without `rostopic://` or `rosservice://`); `None`
    /// for a node name or namespace rule, which matches any node (its prefix aside).
    pub fn pattern(&self) -> Option<&str> {
        self.pattern.as_deref()
    }

    /// The new name, as written.
    pub fn replacement(&self) -> &str {
        &self.replacement
    }

    /// Whether the rule may apply to the node called `node_name`.
    fn is_for(&self, node_name: &str) -> bool {
        self.node_name.as_deref().is_none_or(|n| n == node_name)
    }
}

impl fmt::Display for RemapRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A remap rule that does not parse: why, and at which byte of the rule.
///
/// # Examples
/// ```
/// use tacto::names::RemapRule;
///
/// let err = "foo:=".parse::<RemapRule>().unwrap_err();
/// assert_eq!(err.position(), 5);
/// assert_eq!(err.to_string(), "expected a name, found the end (at index 5)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    position: usize,
    reason: String,
}

impl RuleError {
    pub(crate) fn new(position: usize, reason: impl Into<String>) -> Self {
        RuleError {
            position,
            reason: reason.into(),
        }
    }

    /// The byte index in the rule where parsing stopped.
    pub fn position(&self) -> usize {
        self.position
    }

    /// What was wrong there.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl From<WrongLexeme> for RuleError {
    fn from(wrong: WrongLexeme) -> Self {
        RuleError::new(
            wrong.at,
            format!(
                "expected {}, found {}",
                wrong.expected.describe(),
                wrong.found
            ),
        )
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at index {})", self.reason, self.position)
    }
}

impl std::error::Error for RuleError {}

impl FromStr for RemapRule {
    type Err = RuleError;

    /// Parses a rule as rcl's `_rcl_parse_remap_rule`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut lexemes = Lookahead::new(text);
        let node_name = match lexemes.peek2() {
            (Lexeme::Token, Lexeme::Colon) => {
                let node = lexemes.expect(Lexeme::Token)?;
                lexemes.expect(Lexeme::Colon)?;
                Some(node.to_owned())
            }
            _ => None,
        };
        let (kind, pattern, replacement) = match lexemes.peek() {
            Lexeme::Node => {
                lexemes.accept();
                lexemes.expect(Lexeme::Separator)?;
                let name = lexemes.expect(Lexeme::Token).map_err(|wrong| {
                    RuleError::new(
                        wrong.at,
                        format!(
                            "a node name must be one name token, found '{}'",
                            tail(text, wrong.at)
                        ),
                    )
                })?;
                (RemapKind::NodeName, None, name.to_owned())
            }
            Lexeme::Ns => {
                lexemes.accept();
                lexemes.expect(Lexeme::Separator)?;
                (RemapKind::Namespace, None, namespace(&mut lexemes, text)?)
            }
            _ => {
                let kind = match lexemes.peek() {
                    Lexeme::UrlTopic => {
                        lexemes.accept();
                        RemapKind::Topic
                    }
                    Lexeme::UrlService => {
                        lexemes.accept();
                        RemapKind::Service
                    }
                    _ => RemapKind::TopicOrService,
                };
                let pattern = name(&mut lexemes, Lexeme::Separator)?;
                lexemes.expect(Lexeme::Separator)?;
                let replacement = name(&mut lexemes, Lexeme::Eof)?;
                (kind, Some(pattern), replacement)
            }
        };
        lexemes.expect(Lexeme::Eof)?;
        Ok(RemapRule {
            text: text.to_owned(),
            node_name,
            kind,
            pattern,
            replacement,
        })
    }
}

/// A name on either side of a rule: an optional `~/` or `/`, then tokens separated by `/`, up to
/// `end` (`:=` after the match, the end of the rule after the replacement).
fn name(lexemes: &mut Lookahead<'_>, end: Lexeme) -> Result<String, RuleError> {
    let start = lexemes.position();
    if matches!(lexemes.peek(), Lexeme::TildeSlash | Lexeme::ForwardSlash) {
        lexemes.accept();
    }
    name_token(lexemes)?;
    loop {
        match lexemes.peek() {
            found if found == end => return Ok(lexemes.text_from(start)),
            Lexeme::ForwardSlash => {
                lexemes.accept();
                name_token(lexemes)?;
            }
            _ => {
                return Err(RuleError::new(
                    lexemes.position(),
                    format!(
                        "expected '/' or {}, found {}",
                        end.describe(),
                        lexemes.describe_next()
                    ),
                ));
            }
        }
    }
}

/// `text` from byte `at`, or nothing if `at` is not on a character boundary.
fn tail(text: &str, at: usize) -> &str {
    text.get(at..).unwrap_or_default()
}

fn name_token(lexemes: &mut Lookahead<'_>) -> Result<(), RuleError> {
    let at = lexemes.position();
    match lexemes.peek() {
        Lexeme::Token => {
            lexemes.accept();
            Ok(())
        }
        Lexeme::WildOne => Err(RuleError::new(at, "wildcard '*' is not implemented")),
        Lexeme::WildMulti => Err(RuleError::new(at, "wildcard '**' is not implemented")),
        Lexeme::Backreference(_) => Err(RuleError::new(at, "backreferences are not implemented")),
        _ => Err(RuleError::new(
            at,
            format!("expected a name, found {}", lexemes.describe_next()),
        )),
    }
}

/// The replacement of a `__ns` rule: `/`, then tokens each followed by an optional `/` (rcl
/// allows a trailing slash here; the namespace is validated when a node takes it).
fn namespace(lexemes: &mut Lookahead<'_>, text: &str) -> Result<String, RuleError> {
    let start = lexemes.position();
    let not_fully_qualified = |at: usize| {
        RuleError::new(
            at,
            format!(
                "a namespace must be remapped to a fully qualified name, found '{}'",
                tail(text, start)
            ),
        )
    };
    lexemes
        .expect(Lexeme::ForwardSlash)
        .map_err(|wrong| not_fully_qualified(wrong.at))?;
    while lexemes.expect(Lexeme::Token).is_ok() && lexemes.expect(Lexeme::ForwardSlash).is_ok() {}
    if lexemes.peek() != Lexeme::Eof {
        return Err(not_fully_qualified(lexemes.position()));
    }
    Ok(lexemes.text_from(start))
}

/// The first topic or service rule of `local`, then of `global`, that applies: of a kind
/// `applies` accepts, for this node, and whose match expands to `name`.
///
/// A match that cannot be expanded for this node is skipped, unless the node's own name or
/// namespace is what is invalid, which every rule would meet: that is an error, as in rcl.
fn first_match<'a>(
    local: &'a [RemapRule],
    global: &'a [RemapRule],
    applies: impl Fn(RemapKind) -> bool,
    name: &str,
    node_name: &str,
    node_namespace: &str,
) -> Result<Option<&'a RemapRule>, NameError> {
    let no_substitutions = HashMap::new();
    for rule in local.iter().chain(global) {
        let Some(pattern) = rule.pattern.as_deref() else {
            continue;
        };
        if !applies(rule.kind) || !rule.is_for(node_name) {
            continue;
        }
        match expand(pattern, node_name, node_namespace, &no_substitutions, false) {
            Ok(expanded) if expanded == name => return Ok(Some(rule)),
            Ok(_) => {}
            Err(err @ (NameError::NodeName { .. } | NameError::Namespace { .. })) => {
                return Err(err);
            }
            Err(_) => {}
        }
    }
    Ok(None)
}

fn remap_name(
    local: &[RemapRule],
    global: &[RemapRule],
    service: bool,
    name: &str,
    node_name: &str,
    node_namespace: &str,
) -> Result<Option<String>, NameError> {
    let applies = |kind: RemapKind| {
        if service {
            kind.applies_to_services()
        } else {
            kind.applies_to_topics()
        }
    };
    let Some(rule) = first_match(local, global, applies, name, node_name, node_namespace)? else {
        return Ok(None);
    };
    expand(
        &rule.replacement,
        node_name,
        node_namespace,
        &HashMap::new(),
        service,
    )
    .map(Some)
}

/// The new name of a topic, if a rule renames it, as `rcl_remap_topic_name`.
///
/// `topic_name` is the fully-qualified name the node resolved (see
/// [`expand_topic_name`](super::expand_topic_name)); each topic rule's match is expanded
/// against the node and compared with it. The first rule that matches wins, the node's own
/// (`local`) rules before the process's (`global`); its replacement is expanded against the
/// node. Pass an empty `global` for a node that ignores the global arguments.
///
/// # Examples
/// ```
/// use tacto::names::{RemapRule, remap_topic_name};
///
/// let global: Vec<RemapRule> = vec!["foo:=bar".parse().unwrap()];
/// let renamed = remap_topic_name(&[], &global, "/ns/foo", "node", "/ns").unwrap();
/// assert_eq!(renamed.as_deref(), Some("/ns/bar"));
/// assert_eq!(remap_topic_name(&[], &global, "/ns/baz", "node", "/ns").unwrap(), None);
/// ```
pub fn remap_topic_name(
    local: &[RemapRule],
    global: &[RemapRule],
    topic_name: &str,
    node_name: &str,
    node_namespace: &str,
) -> Result<Option<String>, NameError> {
    remap_name(local, global, false, topic_name, node_name, node_namespace)
}

/// The new name of a service, if a rule renames it, as `rcl_remap_service_name`: as
/// [`remap_topic_name`], with the rules that apply to services.
///
/// # Examples
/// ```
/// use tacto::names::{RemapRule, remap_service_name};
///
/// let global: Vec<RemapRule> = vec!["rosservice://foo:=bar".parse().unwrap()];
/// let renamed = remap_service_name(&[], &global, "/ns/foo", "node", "/ns").unwrap();
/// assert_eq!(renamed.as_deref(), Some("/ns/bar"));
/// ```
pub fn remap_service_name(
    local: &[RemapRule],
    global: &[RemapRule],
    service_name: &str,
    node_name: &str,
    node_namespace: &str,
) -> Result<Option<String>, NameError> {
    remap_name(local, global, true, service_name, node_name, node_namespace)
}

/// The node's new name, if a `__node` rule for it applies, as `rcl_remap_node_name`: the first
/// such rule of `local`, then of `global`. The name is not validated here (a node does that when
/// it takes it).
///
/// # Examples
/// ```
/// use tacto::names::{RemapRule, remap_node_name};
///
/// let global: Vec<RemapRule> =
///     vec!["__node:=firstname".parse().unwrap(), "__node:=secondname".parse().unwrap()];
/// assert_eq!(remap_node_name(&[], &global, "NodeName"), Some("firstname"));
/// ```
pub fn remap_node_name<'a>(
    local: &'a [RemapRule],
    global: &'a [RemapRule],
    node_name: &str,
) -> Option<&'a str> {
    first_by_kind(local, global, RemapKind::NodeName, node_name)
}

/// The node's new namespace, if a `__ns` rule for it applies, as `rcl_remap_node_namespace`.
/// `node_name` is the node's name *after* its own remapping, as rcl passes it.
///
/// # Examples
/// ```
/// use tacto::names::{RemapRule, remap_node_namespace};
///
/// let global: Vec<RemapRule> =
///     vec!["Node1:__ns:=/foo/bar".parse().unwrap(), "Node2:__ns:=/this_one".parse().unwrap()];
/// assert_eq!(remap_node_namespace(&[], &global, "Node2"), Some("/this_one"));
/// assert_eq!(remap_node_namespace(&[], &global, "Node3"), None);
/// ```
pub fn remap_node_namespace<'a>(
    local: &'a [RemapRule],
    global: &'a [RemapRule],
    node_name: &str,
) -> Option<&'a str> {
    first_by_kind(local, global, RemapKind::Namespace, node_name)
}

fn first_by_kind<'a>(
    local: &'a [RemapRule],
    global: &'a [RemapRule],
    kind: RemapKind,
    node_name: &str,
) -> Option<&'a str> {
    local
        .iter()
        .chain(global)
        .find(|rule| rule.kind == kind && rule.is_for(node_name))
        .map(|rule| rule.replacement.as_str())
}
