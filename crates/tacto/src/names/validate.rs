//! The four validations of a ROS name, as rmw and rcl do them: a node name
//! (`rmw_validate_node_name`), a namespace (`rmw_validate_namespace`), a fully-qualified topic or
//! service name (`rmw_validate_full_topic_name`) and a name as a node is given it, before
//! expansion (`rcl_validate_topic_name`).
//!
//! Each check runs in rmw's order and reports the first problem it finds, with the byte index rmw
//! reports and rmw's (or rcl's) own text, so an error reads the same as in an rclcpp node. A
//! length that is too long is checked last, as rmw does, since rmw calls it a soft limit.

use std::fmt;

/// The longest node name rmw accepts (`RMW_NODE_NAME_MAX_NAME_LENGTH`).
pub const NODE_NAME_MAX_LENGTH: usize = 255;
/// The longest fully-qualified topic or service name rmw accepts (`RMW_TOPIC_MAX_NAME_LENGTH`:
/// 255 minus 8 bytes kept for the DDS prefixes `rt/`, `rq/`, `rr/` and their suffixes).
pub const TOPIC_NAME_MAX_LENGTH: usize = 255 - 8;
/// The longest namespace rmw accepts (`RMW_NAMESPACE_MAX_LENGTH`: a topic's limit less 2, so a
/// one-character name still fits under it).
pub const NAMESPACE_MAX_LENGTH: usize = TOPIC_NAME_MAX_LENGTH - 2;

/// A name that failed a validation: why, and the byte index rmw points at.
///
/// # Examples
/// ```
/// use tacto::names::{NodeNameInvalid, validate_node_name};
///
/// let invalid = validate_node_name("my node").unwrap_err();
/// assert_eq!(invalid.reason, NodeNameInvalid::ContainsUnallowedCharacters);
/// assert_eq!(invalid.index, 2);
/// assert_eq!(
///     invalid.to_string(),
///     "node name must not contain characters other than alphanumerics or '_' (at index 2)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Invalid<R> {
    /// What is wrong: one of rmw's (or rcl's) validation results.
    pub reason: R,
    /// The byte index of the first invalid character, as rmw reports it (for a name that is too
    /// long, the index of the last byte within the limit).
    pub index: usize,
}

impl<R: fmt::Display> fmt::Display for Invalid<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at index {})", self.reason, self.index)
    }
}

impl<R: fmt::Display + fmt::Debug> std::error::Error for Invalid<R> {}

/// Why a node name is invalid (`RMW_NODE_NAME_INVALID_*`; the value is rmw's code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeNameInvalid {
    /// The name is empty.
    IsEmptyString = 1,
    /// A character is none of `A-Z a-z 0-9 _`.
    ContainsUnallowedCharacters = 2,
    /// The name starts with a digit.
    StartsWithNumber = 3,
    /// The name is longer than [`NODE_NAME_MAX_LENGTH`].
    TooLong = 4,
}

impl NodeNameInvalid {
    /// rmw's text for it (`rmw_node_name_validation_result_string`).
    pub const fn message(self) -> &'static str {
        match self {
            NodeNameInvalid::IsEmptyString => "node name must not be empty",
            NodeNameInvalid::ContainsUnallowedCharacters => {
                "node name must not contain characters other than alphanumerics or '_'"
            }
            NodeNameInvalid::StartsWithNumber => "node name must not start with a number",
            NodeNameInvalid::TooLong => "node name length should not exceed '255'",
        }
    }
}

/// Why a namespace is invalid (`RMW_NAMESPACE_INVALID_*`; the value is rmw's code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NamespaceInvalid {
    /// The namespace is empty.
    IsEmptyString = 1,
    /// It does not start with `/`.
    NotAbsolute = 2,
    /// It ends with `/` (only the root namespace `/` may).
    EndsWithForwardSlash = 3,
    /// A character is none of `A-Z a-z 0-9 _ /`.
    ContainsUnallowedCharacters = 4,
    /// It has `//`.
    ContainsRepeatedForwardSlash = 5,
    /// A token (between slashes) starts with a digit.
    NameTokenStartsWithNumber = 6,
    /// It is longer than [`NAMESPACE_MAX_LENGTH`].
    TooLong = 7,
}

impl NamespaceInvalid {
    /// rmw's text for it (`rmw_namespace_validation_result_string`).
    ///
    /// rmw stringifies a macro name that does not exist for the length limit, so its text for
    /// [`TooLong`](Self::TooLong) names `RMW_NAMESPACE_MAX_NAME_LENGTH` rather than a number;
    /// it is kept as rmw prints it.
    pub const fn message(self) -> &'static str {
        match self {
            NamespaceInvalid::IsEmptyString => "namespace must not be empty",
            NamespaceInvalid::NotAbsolute => "namespace must be absolute, it must lead with a '/'",
            NamespaceInvalid::EndsWithForwardSlash => {
                "namespace must not end with a '/', unless only a '/'"
            }
            NamespaceInvalid::ContainsUnallowedCharacters => {
                "namespace must not contain characters other than alphanumerics, '_', or '/'"
            }
            NamespaceInvalid::ContainsRepeatedForwardSlash => {
                "namespace must not contain repeated '/'"
            }
            NamespaceInvalid::NameTokenStartsWithNumber => {
                "namespace must not have a token that starts with a number"
            }
            NamespaceInvalid::TooLong => {
                "namespace should not exceed 'RMW_NAMESPACE_MAX_NAME_LENGTH'"
            }
        }
    }
}

/// Why a fully-qualified topic or service name is invalid (`RMW_TOPIC_INVALID_*`; the value is
/// rmw's code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FullTopicNameInvalid {
    /// The name is empty.
    IsEmptyString = 1,
    /// It does not start with `/`.
    NotAbsolute = 2,
    /// It ends with `/` (so does `/` alone).
    EndsWithForwardSlash = 3,
    /// A character is none of `A-Z a-z 0-9 _ /`.
    ContainsUnallowedCharacters = 4,
    /// It has `//`.
    ContainsRepeatedForwardSlash = 5,
    /// A token (between slashes) starts with a digit.
    NameTokenStartsWithNumber = 6,
    /// It is longer than [`TOPIC_NAME_MAX_LENGTH`].
    TooLong = 7,
}

impl FullTopicNameInvalid {
    /// rmw's text for it (`rmw_full_topic_name_validation_result_string`).
    ///
    /// rmw prints its length limit as the macro's expansion, `255U - 8U`, and so does this.
    pub const fn message(self) -> &'static str {
        match self {
            FullTopicNameInvalid::IsEmptyString => "topic name must not be empty",
            FullTopicNameInvalid::NotAbsolute => {
                "topic name must be absolute, it must lead with a '/'"
            }
            FullTopicNameInvalid::EndsWithForwardSlash => "topic name must not end with a '/'",
            FullTopicNameInvalid::ContainsUnallowedCharacters => {
                "topic name must not contain characters other than alphanumerics, '_', or '/'"
            }
            FullTopicNameInvalid::ContainsRepeatedForwardSlash => {
                "topic name must not contain repeated '/'"
            }
            FullTopicNameInvalid::NameTokenStartsWithNumber => {
                "topic name must not have a token that starts with a number"
            }
            FullTopicNameInvalid::TooLong => "topic length should not exceed '255U - 8U'",
        }
    }
}

/// Why a topic or service name, as given to a node, is invalid (`RCL_TOPIC_NAME_INVALID_*`; the
/// value is rcl's code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopicNameInvalid {
    /// The name is empty.
    IsEmptyString = 1,
    /// It ends with `/`.
    EndsWithForwardSlash = 2,
    /// A character is none of `A-Z a-z 0-9 _ / ~ { }`.
    ContainsUnallowedCharacters = 3,
    /// A token starts with a digit.
    NameTokenStartsWithNumber = 4,
    /// A `{` is not closed, or a `}` was not opened.
    UnmatchedCurlyBrace = 5,
    /// A `~` is not the first character.
    MisplacedTilde = 6,
    /// The name starts with `~` and the next character is not `/`.
    TildeNotFollowedByForwardSlash = 7,
    /// A `{substitution}` has a character other than `A-Z a-z 0-9 _`, or a nested `{`.
    SubstitutionContainsUnallowedCharacters = 8,
    /// A `{substitution}` starts with a digit.
    SubstitutionStartsWithNumber = 9,
}

impl TopicNameInvalid {
    /// rcl's text for it (`rcl_topic_name_validation_result_string`).
    pub const fn message(self) -> &'static str {
        match self {
            TopicNameInvalid::IsEmptyString => "topic name must not be empty string",
            TopicNameInvalid::EndsWithForwardSlash => {
                "topic name must not end with a forward slash"
            }
            TopicNameInvalid::ContainsUnallowedCharacters => {
                "topic name must not contain characters other than alphanumerics, '_', '~', '{', or '}'"
            }
            TopicNameInvalid::NameTokenStartsWithNumber => {
                "topic name token must not start with a number"
            }
            TopicNameInvalid::UnmatchedCurlyBrace => {
                "topic name must not have unmatched (unbalanced) curly braces '{}'"
            }
            TopicNameInvalid::MisplacedTilde => {
                "topic name must not have tilde '~' unless it is the first character"
            }
            TopicNameInvalid::TildeNotFollowedByForwardSlash => {
                "topic name must not have a tilde '~' that is not followed by a forward slash '/'"
            }
            TopicNameInvalid::SubstitutionContainsUnallowedCharacters => {
                "substitution name must not contain characters other than alphanumerics or '_'"
            }
            TopicNameInvalid::SubstitutionStartsWithNumber => {
                "substitution name must not start with a number"
            }
        }
    }
}

macro_rules! display_message {
    ($($kind:ty),*) => {$(
        impl fmt::Display for $kind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.message())
            }
        }
    )*};
}
display_message!(
    NodeNameInvalid,
    NamespaceInvalid,
    FullTopicNameInvalid,
    TopicNameInvalid
);

/// Whether `name` is a valid node name, as `rmw_validate_node_name`: one token of `A-Z a-z 0-9
/// _`, not starting with a digit, at most [`NODE_NAME_MAX_LENGTH`] bytes.
///
/// # Examples
/// ```
/// use tacto::names::{NodeNameInvalid, validate_node_name};
///
/// assert!(validate_node_name("talker").is_ok());
/// assert_eq!(validate_node_name("42node").unwrap_err().reason, NodeNameInvalid::StartsWithNumber);
/// ```
pub fn validate_node_name(name: &str) -> Result<(), Invalid<NodeNameInvalid>> {
    let invalid = |reason, index| Err(Invalid { reason, index });
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return invalid(NodeNameInvalid::IsEmptyString, 0);
    }
    if let Some(index) = bytes.iter().position(|&b| !is_name_char(b)) {
        return invalid(NodeNameInvalid::ContainsUnallowedCharacters, index);
    }
    if bytes[0].is_ascii_digit() {
        return invalid(NodeNameInvalid::StartsWithNumber, 0);
    }
    if bytes.len() > NODE_NAME_MAX_LENGTH {
        return invalid(NodeNameInvalid::TooLong, NODE_NAME_MAX_LENGTH - 1);
    }
    Ok(())
}

/// Whether `name` is a valid fully-qualified topic or service name, as
/// `rmw_validate_full_topic_name`: absolute, tokens of `A-Z a-z 0-9 _` separated by single
/// slashes, none starting with a digit, no trailing slash, at most [`TOPIC_NAME_MAX_LENGTH`]
/// bytes.
///
/// # Examples
/// ```
/// use tacto::names::{FullTopicNameInvalid, validate_full_topic_name};
///
/// assert!(validate_full_topic_name("/robot/cmd_vel").is_ok());
/// let invalid = validate_full_topic_name("/repeated//slashes").unwrap_err();
/// assert_eq!(invalid.reason, FullTopicNameInvalid::ContainsRepeatedForwardSlash);
/// assert_eq!(invalid.index, 10);
/// ```
pub fn validate_full_topic_name(name: &str) -> Result<(), Invalid<FullTopicNameInvalid>> {
    let invalid = |reason, index| Err(Invalid { reason, index });
    let bytes = name.as_bytes();
    let Some((&first, _)) = bytes.split_first() else {
        return invalid(FullTopicNameInvalid::IsEmptyString, 0);
    };
    if first != b'/' {
        return invalid(FullTopicNameInvalid::NotAbsolute, 0);
    }
    let last = bytes.len() - 1;
    if bytes[last] == b'/' {
        return invalid(FullTopicNameInvalid::EndsWithForwardSlash, last);
    }
    if let Some(index) = bytes.iter().position(|&b| !is_name_char(b) && b != b'/') {
        return invalid(FullTopicNameInvalid::ContainsUnallowedCharacters, index);
    }
    for (i, pair) in bytes.windows(2).enumerate() {
        if pair[0] == b'/' {
            if pair[1] == b'/' {
                return invalid(FullTopicNameInvalid::ContainsRepeatedForwardSlash, i + 1);
            }
            if pair[1].is_ascii_digit() {
                return invalid(FullTopicNameInvalid::NameTokenStartsWithNumber, i + 1);
            }
        }
    }
    if bytes.len() > TOPIC_NAME_MAX_LENGTH {
        return invalid(FullTopicNameInvalid::TooLong, TOPIC_NAME_MAX_LENGTH - 1);
    }
    Ok(())
}

/// Whether `namespace` is a valid node namespace, as `rmw_validate_namespace`: `/`, or a valid
/// fully-qualified name of at most [`NAMESPACE_MAX_LENGTH`] bytes.
///
/// # Examples
/// ```
/// use tacto::names::{NamespaceInvalid, validate_namespace};
///
/// assert!(validate_namespace("/").is_ok());
/// assert!(validate_namespace("/robot1/arm").is_ok());
/// assert_eq!(validate_namespace("robot1").unwrap_err().reason, NamespaceInvalid::NotAbsolute);
/// ```
pub fn validate_namespace(namespace: &str) -> Result<(), Invalid<NamespaceInvalid>> {
    if namespace == "/" {
        return Ok(());
    }
    // A topic name that is only too long is not yet a verdict: a namespace has its own limit.
    if let Err(topic) = validate_full_topic_name(namespace) {
        let reason = match topic.reason {
            FullTopicNameInvalid::IsEmptyString => Some(NamespaceInvalid::IsEmptyString),
            FullTopicNameInvalid::NotAbsolute => Some(NamespaceInvalid::NotAbsolute),
            FullTopicNameInvalid::EndsWithForwardSlash => {
                Some(NamespaceInvalid::EndsWithForwardSlash)
            }
            FullTopicNameInvalid::ContainsUnallowedCharacters => {
                Some(NamespaceInvalid::ContainsUnallowedCharacters)
            }
            FullTopicNameInvalid::ContainsRepeatedForwardSlash => {
                Some(NamespaceInvalid::ContainsRepeatedForwardSlash)
            }
            FullTopicNameInvalid::NameTokenStartsWithNumber => {
                Some(NamespaceInvalid::NameTokenStartsWithNumber)
            }
            FullTopicNameInvalid::TooLong => None,
        };
        if let Some(reason) = reason {
            return Err(Invalid {
                reason,
                index: topic.index,
            });
        }
    }
    if namespace.len() > NAMESPACE_MAX_LENGTH {
        return Err(Invalid {
            reason: NamespaceInvalid::TooLong,
            index: NAMESPACE_MAX_LENGTH - 1,
        });
    }
    Ok(())
}

/// Whether `name` is a valid topic or service name as a node is given it, before expansion, as
/// `rcl_validate_topic_name`: relative (`chatter`), absolute (`/chatter`), private (`~`,
/// `~/chatter`), with `{substitutions}`; the expanded name is checked again with
/// [`validate_full_topic_name`] (a `//` is only caught there).
///
/// # Examples
/// ```
/// use tacto::names::{TopicNameInvalid, validate_topic_name};
///
/// assert!(validate_topic_name("~/status").is_ok());
/// assert!(validate_topic_name("{node}/chatter").is_ok());
/// let invalid = validate_topic_name("foo/~bar").unwrap_err();
/// assert_eq!(invalid.reason, TopicNameInvalid::MisplacedTilde);
/// assert_eq!(invalid.index, 4);
/// ```
pub fn validate_topic_name(name: &str) -> Result<(), Invalid<TopicNameInvalid>> {
    let invalid = |reason, index| Err(Invalid { reason, index });
    let bytes = name.as_bytes();
    let Some((&first, _)) = bytes.split_first() else {
        return invalid(TopicNameInvalid::IsEmptyString, 0);
    };
    if first.is_ascii_digit() {
        return invalid(TopicNameInvalid::NameTokenStartsWithNumber, 0);
    }
    let last = bytes.len() - 1;
    if bytes[last] == b'/' {
        return invalid(TopicNameInvalid::EndsWithForwardSlash, last);
    }
    let mut in_substitution = false;
    let mut opening_brace = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if b.is_ascii_alphanumeric() => {
                if b.is_ascii_digit() && in_substitution && i > 0 && i - 1 == opening_brace {
                    return invalid(TopicNameInvalid::SubstitutionStartsWithNumber, i);
                }
            }
            b'_' => {}
            b'/' => {
                if in_substitution {
                    return invalid(TopicNameInvalid::SubstitutionContainsUnallowedCharacters, i);
                }
            }
            b'~' => {
                if i != 0 {
                    return invalid(TopicNameInvalid::MisplacedTilde, i);
                }
            }
            b'{' => {
                opening_brace = i;
                if in_substitution {
                    return invalid(TopicNameInvalid::SubstitutionContainsUnallowedCharacters, i);
                }
                in_substitution = true;
            }
            b'}' => {
                if !in_substitution {
                    return invalid(TopicNameInvalid::UnmatchedCurlyBrace, i);
                }
                in_substitution = false;
            }
            _ if in_substitution => {
                return invalid(TopicNameInvalid::SubstitutionContainsUnallowedCharacters, i);
            }
            _ => return invalid(TopicNameInvalid::ContainsUnallowedCharacters, i),
        }
    }
    if in_substitution {
        return invalid(TopicNameInvalid::UnmatchedCurlyBrace, opening_brace);
    }
    for (i, pair) in bytes.windows(2).enumerate() {
        if pair[0] == b'/' {
            if pair[1].is_ascii_digit() {
                return invalid(TopicNameInvalid::NameTokenStartsWithNumber, i + 1);
            }
        } else if i == 1 && first == b'~' {
            // As rcl: the second character is only looked at when a third follows, so `~a`
            // passes (and expands to `<namespace>/<node>a`).
            return invalid(TopicNameInvalid::TildeNotFollowedByForwardSlash, 1);
        }
    }
    Ok(())
}

/// `A-Z a-z 0-9 _`, as `rcutils_isalnum_no_locale` plus the underscore.
fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
