//! rcl_yaml_param_parser (Jazzy), rule for rule: its state machine over YAML events
//! (`parse_file_events`, `parse_key`, `parse_value`, `parse_value_events`), its namespace
//! tracking and its typing of scalars (`get_value`), on yaml-rust2's events.

use std::fmt;
use std::path::{Path, PathBuf};

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::names::validate_name;
use super::overrides::{ParameterOverrides, Variant};
use super::value::ParameterType;

const PARAMS_KEY: &str = "ros__parameters";
const NODE_SEPARATOR: &str = "/";
const PARAMETER_SEPARATOR: &str = ".";
const STR_TAG: &str = "tag:yaml.org,2002:str";

/// What is wrong in a parameter file or value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum YamlErrorKind {
    /// The file could not be read.
    Io(String),
    /// The text is not YAML.
    Syntax(String),
    /// A key with no value (`id:`).
    NoValue,
    /// An empty key (`"": 1`).
    EmptyKey,
    /// A value, or a sequence, above `ros__parameters:`, where node names belong.
    ValueBeforeParameters,
    /// `ros__parameters:` with no node name above it.
    NoNodeName,
    /// A sequence where a key belongs.
    SequenceAsKey,
    /// An array whose elements are not all of one type.
    MixedArray {
        /// The type of its first element.
        first: ParameterType,
        /// The type of the element that differs.
        found: ParameterType,
    },
    /// An alias (`*name`): rcl does not support them.
    Alias,
    /// A mapping where rcl expects a scalar (in a sequence, or in a `-p` value).
    UnexpectedMapping,
    /// A node key that is not a valid node name, namespace or wildcard.
    InvalidNodeName {
        /// The key, with the namespaces above it.
        name: String,
        /// rmw's or rcl's reason.
        reason: String,
    },
    /// A `-p` value with an empty node, name or value.
    Empty(&'static str),
}

impl fmt::Display for YamlErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlErrorKind::Io(e) => write!(f, "cannot read the file: {e}"),
            YamlErrorKind::Syntax(e) => write!(f, "not valid YAML: {e}"),
            YamlErrorKind::NoValue => f.write_str(
                "a key with no value: expected a value after it (\"\" for an empty string)",
            ),
            YamlErrorKind::EmptyKey => {
                f.write_str("an empty key: expected a node or parameter name")
            }
            YamlErrorKind::ValueBeforeParameters => write!(
                f,
                "a value before {PARAMS_KEY}: expected node names as keys, then \
                 `{PARAMS_KEY}:` and the node's parameters under it"
            ),
            YamlErrorKind::NoNodeName => write!(
                f,
                "{PARAMS_KEY} with no node name above it: expected `node_name:` (or \
                 `/namespace/node_name:`, `/**:`) above `{PARAMS_KEY}:`"
            ),
            YamlErrorKind::SequenceAsKey => {
                f.write_str("a sequence where a key belongs: expected a parameter name")
            }
            YamlErrorKind::MixedArray { first, found } => write!(
                f,
                "an array mixing types: a {found} after {first}s; expected elements of one \
                 type (bool, integer, double or string)"
            ),
            YamlErrorKind::Alias => {
                f.write_str("an alias: aliases are not supported, write the value out")
            }
            YamlErrorKind::UnexpectedMapping => f.write_str(
                "a mapping where a value belongs: expected a scalar or a sequence of scalars",
            ),
            YamlErrorKind::InvalidNodeName { name, reason } => write!(
                f,
                "invalid node name {name:?}: {reason}; expected a node name, a namespace and \
                 a node name, or the wildcards `*` and `**` as whole tokens"
            ),
            YamlErrorKind::Empty(what) => write!(f, "the {what} is empty"),
        }
    }
}

/// A parameter file or value that rcl would refuse: where (file, line and column, both from
/// 1; 0 when not about a place) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The file, if the text came from one.
    pub file: Option<PathBuf>,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// What was wrong.
    pub kind: YamlErrorKind,
}

impl YamlError {
    fn at(marker: Marker, kind: YamlErrorKind) -> Self {
        YamlError {
            file: None,
            line: marker.line(),
            // yaml-rust2 counts columns from 0.
            column: marker.col() + 1,
            kind,
        }
    }

    fn nowhere(kind: YamlErrorKind) -> Self {
        YamlError {
            file: None,
            line: 0,
            column: 0,
            kind,
        }
    }

    pub(super) fn io(path: &Path, error: &std::io::Error) -> Self {
        YamlError {
            file: Some(path.to_owned()),
            ..YamlError::nowhere(YamlErrorKind::Io(error.to_string()))
        }
    }

    pub(super) fn in_file(mut self, path: &Path) -> Self {
        self.file = Some(path.to_owned());
        self
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}:", file.display())?;
        }
        if self.line > 0 {
            write!(f, "{}:{}: ", self.line, self.column)?;
        } else if self.file.is_some() {
            f.write_str(" ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for YamlError {}

/// rcl's `namespace_tracker_t`.
#[derive(Debug, Default)]
struct Namespaces {
    node: Option<String>,
    num_node: u32,
    parameter: Option<String>,
    num_parameter: u32,
}

/// rcl's `add_name_to_ns`.
fn add_name(ns: &mut Option<String>, count: &mut u32, name: &str, separator: &str) {
    match ns {
        Some(current) if *count > 0 => {
            if !current.ends_with(separator) {
                current.push_str(separator);
            }
            current.push_str(name);
        }
        _ => *ns = Some(name.to_owned()),
    }
    *count += 1;
}

/// rcl's `rem_name_from_ns`: drops what follows the last separator (not necessarily the
/// whole name added last, as in rcl).
fn remove_name(ns: &mut Option<String>, count: &mut u32, separator: &str) {
    if *count == 0 {
        return;
    }
    if *count == 1 {
        *ns = None;
    } else if let Some(current) = ns {
        if let Some(last) = current.rfind(separator) {
            current.truncate(last);
        }
    }
    *count -= 1;
}

/// The kind of a scalar as rcl's `data_types_t`.
#[derive(Debug, Clone, PartialEq)]
enum Scalar {
    Bool(bool),
    Integer(i64),
    Double(f64),
    String(String),
}

impl Scalar {
    fn kind(&self) -> ParameterType {
        match self {
            Scalar::Bool(_) => ParameterType::Bool,
            Scalar::Integer(_) => ParameterType::Integer,
            Scalar::Double(_) => ParameterType::Double,
            Scalar::String(_) => ParameterType::String,
        }
    }
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtoll(value, &end, 0)` when it reads all of `value` without error: leading space,
/// a sign, then `0x` hexadecimal, `0` octal or decimal digits; `None` if anything is left or
/// the value overflows (`ERANGE`).
fn strtoll_whole(value: &str) -> Option<i64> {
    let s = value.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, hex)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    let value = if negative {
        -(i128::try_from(magnitude).ok()?)
    } else {
        i128::try_from(magnitude).ok()?
    };
    i64::try_from(value).ok()
}

/// C's `strtod(value, &end)` when it reads all of `value` and sets no `ERANGE`: leading
/// space, a sign, then a decimal or `0x` hexadecimal float, `inf`, `infinity` or `nan`
/// (any case, `nan(...)` too). Out of range (overflow to infinity, or underflow to zero or
/// a subnormal) is `None`, as glibc sets `ERANGE` then.
fn strtod_whole(value: &str) -> Option<f64> {
    let s = value.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let (sign, body) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(sign * f64::INFINITY);
    }
    if lower == "nan"
        || (lower.starts_with("nan(")
            && lower.ends_with(')')
            && lower[4..lower.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    {
        return Some(f64::NAN.copysign(sign));
    }
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        hex_float(hex)?
    } else {
        decimal_float(&lower)?
    };
    let nonzero_digits = body.bytes().any(|b| matches!(b, b'1'..=b'9'))
        || (lower.starts_with("0x")
            && lower[2..]
                .split('p')
                .next()
                .is_some_and(|m| m.bytes().any(|b| b.is_ascii_hexdigit() && b != b'0')));
    if magnitude.is_infinite() || (nonzero_digits && magnitude < f64::MIN_POSITIVE) {
        return None;
    }
    Some(sign * magnitude)
}

/// A decimal float as strtod reads it: digits with at most one point (at least one digit),
/// then an optional exponent.
fn decimal_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = match s.find('e') {
        Some(e) => (&s[..e], Some(&s[e + 1..])),
        None => (s, None),
    };
    let mut points = 0;
    let mut digits = 0;
    for b in mantissa.bytes() {
        match b {
            b'.' => points += 1,
            b'0'..=b'9' => digits += 1,
            _ => return None,
        }
    }
    if points > 1 || digits == 0 {
        return None;
    }
    if let Some(exponent) = exponent {
        let unsigned = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    // Rust reads every form left ("1.", ".5", "1e+5"), correctly rounded as glibc does.
    s.parse::<f64>().ok()
}

/// A hexadecimal float after its `0x`: hex digits with at most one point, then an optional
/// binary exponent `p`.
fn hex_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = match s.find('p') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, f),
        None => (mantissa, ""),
    };
    if whole.len() + fraction.len() == 0
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    let exponent: i32 = match exponent {
        None => 0,
        Some(e) => {
            let unsigned = e.strip_prefix(['+', '-']).unwrap_or(e);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            e.parse().unwrap_or(if e.starts_with('-') {
                i32::MIN
            } else {
                i32::MAX
            })
        }
    };
    let mut value = 0.0f64;
    for b in whole.bytes().chain(fraction.bytes()) {
        value = value * 16.0 + f64::from((b as char).to_digit(16)?);
    }
    let shift = i64::from(exponent) - 4 * fraction.len() as i64;
    Some(value * 2f64.powi(shift.clamp(-2000, 2000) as i32))
}

/// rcl's `get_value`: the type of a scalar, from its text, style and tag.
fn get_value(value: &str, style: TScalarStyle, tag: Option<&str>) -> Scalar {
    if tag == Some(STR_TAG) {
        return Scalar::String(value.to_owned());
    }
    let quoted = matches!(
        style,
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
    );
    if !quoted {
        match value {
            "Y" | "y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
                return Scalar::Bool(true);
            }
            "N" | "n" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off"
            | "OFF" => return Scalar::Bool(false),
            _ => {}
        }
        if let Some(i) = strtoll_whole(value) {
            return Scalar::Integer(i);
        }
        let special = matches!(
            value,
            ".nan"
                | ".NaN"
                | ".NAN"
                | ".inf"
                | ".Inf"
                | ".INF"
                | "+.inf"
                | "+.Inf"
                | "+.INF"
                | "-.inf"
                | "-.Inf"
                | "-.INF"
        );
        let double = if special {
            // rcl reads the letters after the punctuation, then applies the sign.
            let letters = value.trim_start_matches(|c: char| !c.is_ascii_alphabetic());
            strtod_whole(letters).map(|d| if value.starts_with('-') { -d } else { d })
        } else {
            strtod_whole(value)
        };
        if let Some(d) = double {
            return Scalar::Double(d);
        }
    }
    Scalar::String(value.to_owned())
}

/// rcl's `parse_value`: stores one scalar of a value (or of an array, `in_seq`), checking
/// an array's elements are of its first element's type.
fn store_scalar(
    value: &str,
    style: TScalarStyle,
    tag: Option<&str>,
    marker: Marker,
    in_seq: bool,
    seq_type: &mut Option<ParameterType>,
    variant: &mut Variant,
) -> Result<(), YamlError> {
    let quoted = matches!(
        style,
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
    );
    if !quoted && value.is_empty() {
        return Err(YamlError::at(marker, YamlErrorKind::NoValue));
    }
    let scalar = get_value(value, style, tag);
    if !in_seq {
        match scalar {
            Scalar::Bool(v) => variant.bool_value = Some(v),
            Scalar::Integer(v) => variant.integer_value = Some(v),
            Scalar::Double(v) => variant.double_value = Some(v),
            Scalar::String(v) => variant.string_value = Some(v),
        }
        return Ok(());
    }
    let kind = scalar.kind();
    match *seq_type {
        None => {
            // The first element: a new array of its type, replacing one of that type.
            *seq_type = Some(kind);
            match kind {
                ParameterType::Bool => variant.bool_array = Some(Vec::new()),
                ParameterType::Integer => variant.integer_array = Some(Vec::new()),
                ParameterType::Double => variant.double_array = Some(Vec::new()),
                _ => variant.string_array = Some(Vec::new()),
            }
        }
        Some(first) if first != kind => {
            return Err(YamlError::at(
                marker,
                YamlErrorKind::MixedArray { first, found: kind },
            ));
        }
        Some(_) => {}
    }
    match scalar {
        Scalar::Bool(v) => variant.bool_array.get_or_insert_default().push(v),
        Scalar::Integer(v) => variant.integer_array.get_or_insert_default().push(v),
        Scalar::Double(v) => variant.double_array.get_or_insert_default().push(v),
        Scalar::String(v) => variant.string_array.get_or_insert_default().push(v),
    }
    Ok(())
}

fn full_tag(tag: &Option<yaml_rust2::parser::Tag>) -> Option<String> {
    tag.as_ref().map(|t| format!("{}{}", t.handle, t.suffix))
}

fn next_event(parser: &mut Parser<std::str::Chars<'_>>) -> Result<(Event, Marker), YamlError> {
    parser
        .next_token()
        .map_err(|e| YamlError::at(*e.marker(), YamlErrorKind::Syntax(e.info().to_owned())))
}

const MAP_NODE_NAME_LEVEL: u32 = 1;
const MAP_PARAMS_LEVEL: u32 = 2;

/// rcl's `parse_file_events`, with `parse_key` inlined.
pub(super) fn parse_file(text: &str, params: &mut ParameterOverrides) -> Result<(), YamlError> {
    let mut parser = Parser::new_from_str(text);
    let mut is_key = true;
    let mut is_seq = false;
    let mut seq_type: Option<ParameterType> = None;
    let mut map_level = MAP_NODE_NAME_LEVEL;
    let mut map_depth: u32 = 0;
    let mut is_new_map = false;
    let mut node_idx = 0usize;
    let mut parameter_idx = 0usize;
    let mut ns = Namespaces::default();
    let mut last_key: Option<Marker> = None;
    loop {
        let (event, marker) = next_event(&mut parser)?;
        let at = |kind| YamlError::at(marker, kind);
        match event {
            Event::StreamEnd => return Ok(()),
            Event::Scalar(value, style, _anchor, tag) => {
                if is_key {
                    last_key = Some(marker);
                    if value.is_empty() {
                        return Err(at(YamlErrorKind::EmptyKey));
                    }
                    if map_level == MAP_NODE_NAME_LEVEL {
                        // rcl compares the key's first characters only.
                        if !value.starts_with(PARAMS_KEY) {
                            add_name(&mut ns.node, &mut ns.num_node, &value, NODE_SEPARATOR);
                        } else {
                            let Some(node_name) = ns.node.clone().filter(|_| ns.num_node > 0)
                            else {
                                return Err(at(YamlErrorKind::NoNodeName));
                            };
                            validate_name(&node_name).map_err(|reason| {
                                at(YamlErrorKind::InvalidNodeName {
                                    name: node_name.clone(),
                                    reason,
                                })
                            })?;
                            node_idx = params.find_node(&node_name);
                            // The last name was the node's: the rest is its namespace.
                            remove_name(&mut ns.node, &mut ns.num_node, NODE_SEPARATOR);
                            map_level = MAP_PARAMS_LEVEL;
                        }
                    } else {
                        let node = &mut params.nodes[node_idx];
                        if is_new_map {
                            // The previous key names the namespace of this new mapping.
                            let Some(parameter_ns) = node.names.get(parameter_idx).cloned() else {
                                return Err(at(YamlErrorKind::UnexpectedMapping));
                            };
                            ns.parameter = Some(parameter_ns);
                            ns.num_parameter += 1;
                            is_new_map = false;
                        }
                        match &ns.parameter {
                            None => parameter_idx = node.find_parameter(&value),
                            Some(parameter_ns) => {
                                parameter_idx = node.find_parameter(parameter_ns);
                                node.names[parameter_idx] =
                                    format!("{parameter_ns}{PARAMETER_SEPARATOR}{value}");
                            }
                        }
                    }
                    is_key = false;
                } else {
                    if map_level < MAP_PARAMS_LEVEL
                        || params.nodes.is_empty()
                        || params.nodes[node_idx].names.is_empty()
                    {
                        return Err(at(YamlErrorKind::ValueBeforeParameters));
                    }
                    let tag = full_tag(&tag);
                    // rcl indexes with the last parameter's index, which may be another
                    // node's when this value follows no key of its own.
                    let Some(variant) = (params.nodes.get_mut(node_idx))
                        .and_then(|node| node.values.get_mut(parameter_idx))
                    else {
                        return Err(at(YamlErrorKind::ValueBeforeParameters));
                    };
                    // An empty value has no place of its own (yaml-rust2 gives the next
                    // token's): its key's is where to look.
                    let place = match value.is_empty() {
                        true => last_key.unwrap_or(marker),
                        false => marker,
                    };
                    store_scalar(
                        &value,
                        style,
                        tag.as_deref(),
                        place,
                        is_seq,
                        &mut seq_type,
                        variant,
                    )?;
                    if !is_seq {
                        is_key = true;
                    }
                }
            }
            Event::SequenceStart(..) => {
                if is_key {
                    return Err(at(YamlErrorKind::SequenceAsKey));
                }
                if map_level < MAP_PARAMS_LEVEL {
                    return Err(at(YamlErrorKind::ValueBeforeParameters));
                }
                is_seq = true;
                seq_type = None;
            }
            Event::SequenceEnd => {
                is_seq = false;
                is_key = true;
            }
            Event::MappingStart(..) => {
                map_depth += 1;
                is_new_map = true;
                is_key = true;
                // The mapping under `ros__parameters:` starts no parameter namespace.
                if map_level == MAP_PARAMS_LEVEL && map_depth.wrapping_sub(ns.num_node + 1) == 2 {
                    is_new_map = false;
                }
            }
            Event::MappingEnd => {
                if map_level == MAP_PARAMS_LEVEL {
                    if ns.num_parameter > 0 {
                        remove_name(
                            &mut ns.parameter,
                            &mut ns.num_parameter,
                            PARAMETER_SEPARATOR,
                        );
                    } else {
                        map_level -= 1;
                    }
                } else if map_level == MAP_NODE_NAME_LEVEL && map_depth == ns.num_node + 1 {
                    remove_name(&mut ns.node, &mut ns.num_node, NODE_SEPARATOR);
                }
                map_depth = map_depth.wrapping_sub(1);
            }
            Event::Alias(_) => return Err(at(YamlErrorKind::Alias)),
            Event::StreamStart | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => {}
        }
    }
}

/// rcl's `rcl_parse_yaml_value` and `parse_value_events`.
pub(super) fn parse_value(
    node: &str,
    name: &str,
    yaml_value: &str,
    params: &mut ParameterOverrides,
) -> Result<(), YamlError> {
    for (what, text) in [
        ("node name", node),
        ("parameter name", name),
        ("value", yaml_value),
    ] {
        if text.is_empty() {
            return Err(YamlError::nowhere(YamlErrorKind::Empty(what)));
        }
    }
    let node_idx = params.find_node(node);
    let parameter_idx = params.nodes[node_idx].find_parameter(name);
    let variant = &mut params.nodes[node_idx].values[parameter_idx];
    let mut parser = Parser::new_from_str(yaml_value);
    let mut is_seq = false;
    let mut seq_type = None;
    loop {
        let (event, marker) = next_event(&mut parser)?;
        match event {
            Event::StreamEnd => return Ok(()),
            Event::Scalar(value, style, _anchor, tag) => {
                let tag = full_tag(&tag);
                store_scalar(
                    &value,
                    style,
                    tag.as_deref(),
                    marker,
                    is_seq,
                    &mut seq_type,
                    variant,
                )?;
            }
            Event::SequenceStart(..) => {
                is_seq = true;
                seq_type = None;
            }
            Event::SequenceEnd => is_seq = false,
            Event::StreamStart | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => {}
            Event::MappingStart(..) | Event::MappingEnd => {
                return Err(YamlError::at(marker, YamlErrorKind::UnexpectedMapping));
            }
            Event::Alias(_) => return Err(YamlError::at(marker, YamlErrorKind::Alias)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(value: &str) -> Scalar {
        get_value(value, TScalarStyle::Plain, None)
    }

    #[test]
    #[allow(clippy::approx_constant)] // the peer's test value, not π
    fn plain_scalars_are_typed_as_rcl_types_them() {
        assert_eq!(typed("yes"), Scalar::Bool(true));
        assert_eq!(typed("Off"), Scalar::Bool(false));
        assert_eq!(typed("tRue"), Scalar::String("tRue".into()));
        assert_eq!(typed("42"), Scalar::Integer(42));
        assert_eq!(typed("-0x10"), Scalar::Integer(-16));
        assert_eq!(typed("010"), Scalar::Integer(8), "strtoll's base 0: octal");
        assert_eq!(
            typed("08"),
            Scalar::Double(8.0),
            "not octal, but strtod reads it"
        );
        assert_eq!(typed("9223372036854775807"), Scalar::Integer(i64::MAX));
        assert_eq!(
            typed("9223372036854775808"),
            Scalar::Double(9223372036854775808.0),
            "ERANGE for strtoll, not for strtod"
        );
        assert_eq!(typed("3.14159"), Scalar::Double(3.14159));
        assert_eq!(typed("1e3"), Scalar::Double(1000.0));
        assert_eq!(typed("0x1p3"), Scalar::Double(8.0));
        assert_eq!(typed("inf"), Scalar::Double(f64::INFINITY));
        assert_eq!(typed("-.INF"), Scalar::Double(f64::NEG_INFINITY));
        assert!(matches!(typed(".NaN"), Scalar::Double(d) if d.is_nan()));
        assert_eq!(typed("1e400"), Scalar::String("1e400".into()), "ERANGE");
        assert_eq!(typed("1e-400"), Scalar::String("1e-400".into()), "ERANGE");
        assert_eq!(typed("0.0"), Scalar::Double(0.0));
        assert_eq!(typed("ratio 2:1"), Scalar::String("ratio 2:1".into()));
        assert_eq!(
            get_value("12", TScalarStyle::SingleQuoted, None),
            Scalar::String("12".into())
        );
        assert_eq!(
            get_value("yes", TScalarStyle::Plain, Some(STR_TAG)),
            Scalar::String("yes".into())
        );
    }
}
