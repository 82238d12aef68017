//! The ROS 2 command line: `--ros-args` blocks, read as `rcl_parse_arguments` reads them (ROS 2
//! Jazzy).
//!
//! A ROS program's arguments mix its own with ROS's. ROS's are in blocks that start with
//! `--ros-args` and end with `--` or the end of the list (a second `--ros-args` inside a block
//! changes nothing); everything outside the blocks, the program's name included, is the
//! program's, in order ([`RosArgs::program_args`]).
//!
//! ```text
//! my_node --verbose --ros-args -r __ns:=/robot1 -p rate:=10.0 --log-level debug -- input.bag
//! ```
//!
//! | Flag | Value | What it does |
//! |---|---|---|
//! | `-r`, `--remap` | `[node:]from:=to`, `[node:]__node:=name`, `[node:]__ns:=/ns` | a [`RemapRule`] |
//! | `-p`, `--param` | `[node:]name:=value` | a parameter override, the value in YAML |
//! | `--params-file` | a path | a YAML parameters file |
//! | `--log-level` | `level` or `logger:=level` | the default level, or one logger's |
//! | `--log-config-file` | a path | the logging backend's configuration |
//! | `--log-file-name` | a name | the log file's name prefix |
//! | `--enable-rosout-logs`, `--disable-rosout-logs` | | logging to `/rosout` |
//! | `--enable-stdout-logs`, `--disable-stdout-logs` | | logging to the console |
//! | `--enable-external-lib-logs`, `--disable-external-lib-logs` | | the logging backend's file |
//! | `-e`, `--enclave` | a path | the security enclave |
//!
//! A flag whose value is missing or does not parse is an error ([`ArgsError`]); an argument in a
//! block that is no ROS flag is kept aside as an unknown ROS argument, which
//! [`RosArgs::reject_unknown`] refuses, as rclcpp does. As in rcl, a remap rule outside any
//! block (`my_node chatter:=out`) is still taken as one, with a deprecation warning
//! ([`RosArgs::warnings`]).
//!
//! Parameter values stay the YAML text given here, and parameters files stay paths: reading
//! them is the parameters' business. rcl reads both while it parses the arguments, so a value
//! that is not YAML, or a file that cannot be read, is only found out when they are read.

use std::fmt;

use crate::logging::Severity;
use crate::names::lexer::{Lexeme, Lookahead};
use crate::names::{RemapRule, RuleError};

const ROS_ARGS: &str = "--ros-args";
const END_OF_ROS_ARGS: &str = "--";

const EXPECTED_REMAP: &str = "a remap rule (`from:=to`, `__node:=name` or `__ns:=/namespace`, \
                              each optionally prefixed by `node:`)";
const EXPECTED_PARAM: &str =
    "a parameter override (`name:=value` or `node:name:=value`, the value in YAML)";
const EXPECTED_PARAMS_FILE: &str = "a parameters file path";
const EXPECTED_LOG_LEVEL: &str = "a log level (`level` or `logger:=level`, the level one of \
                                  debug, info, warn, error, fatal, unset)";
const EXPECTED_LOG_FILE_NAME: &str = "a log file name prefix";
const EXPECTED_LOG_CONFIG_FILE: &str = "a logging configuration file path";
const EXPECTED_ENCLAVE: &str = "a security enclave path";

/// A parameter's value given with `-p`/`--param`.
///
/// # Examples
/// ```
/// use tacto::args::RosArgs;
///
/// let args = RosArgs::parse(["prog", "--ros-args", "-p", "camera:fps:=30"]).unwrap();
/// let set = &args.param_overrides()[0];
/// assert_eq!((set.node.as_deref(), set.name.as_str(), set.value.as_str()), (Some("camera"), "fps", "30"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ParamOverride {
    /// The node it is for (`node:` in front of the name); `None` for every node (rcl's `/**`).
    pub node: Option<String>,
    /// The parameter's name: tokens separated by `.` or `/` (`qos_overrides./chatter.depth`).
    pub name: String,
    /// The value as given, YAML text (`10`, `true`, `[1, 2]`, `hello`), never empty.
    pub value: String,
}

/// Where parameter values come from, in command-line order (see
/// [`RosArgs::parameter_sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterSource<'a> {
    /// A `--params-file` path.
    File(&'a str),
    /// A `-p` value.
    Value(&'a ParamOverride),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParameterSourceIndex {
    File(usize),
    Value(usize),
}

/// One logger's level, given with `--log-level logger:=level`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LoggerLevel {
    /// The logger's name as given (`rcl`, `robot1.camera`).
    pub name: String,
    /// Its level.
    pub level: Severity,
}

/// The ROS arguments of a command line (or of one node's arguments), as `rcl_parse_arguments`
/// reads them. See the [module](self) for the flags.
///
/// # Examples
/// ```
/// use tacto::args::RosArgs;
/// use tacto::logging::Severity;
///
/// let args = RosArgs::parse([
///     "my_node", "--verbose",
///     "--ros-args", "-r", "__ns:=/robot1", "-p", "rate:=10.0", "--log-level", "debug", "--",
///     "input.bag",
/// ])
/// .unwrap();
/// assert_eq!(args.program_args(), ["my_node", "--verbose", "input.bag"]);
/// assert_eq!(args.remap_rules()[0].replacement(), "/robot1");
/// assert_eq!(args.param_overrides()[0].value, "10.0");
/// assert_eq!(args.log_level(), Severity::Debug);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosArgs {
    args: Vec<String>,
    program: Vec<usize>,
    unknown_ros: Vec<usize>,
    remap_rules: Vec<RemapRule>,
    param_overrides: Vec<ParamOverride>,
    params_files: Vec<String>,
    /// Both of the above in command-line order, as rcl reads them into one structure: a
    /// later file or value overrides an earlier one of the same node key.
    parameter_order: Vec<ParameterSourceIndex>,
    log_level: Severity,
    logger_levels: Vec<LoggerLevel>,
    log_config_file: Option<String>,
    log_file_name: Option<String>,
    enclave: Option<String>,
    stdout_logs: bool,
    rosout_logs: bool,
    external_lib_logs: bool,
    warnings: Vec<String>,
}

impl Default for RosArgs {
    /// No arguments: no rules, no overrides, every log output on.
    fn default() -> Self {
        RosArgs {
            args: Vec::new(),
            program: Vec::new(),
            unknown_ros: Vec::new(),
            remap_rules: Vec::new(),
            param_overrides: Vec::new(),
            params_files: Vec::new(),
            parameter_order: Vec::new(),
            log_level: Severity::Unset,
            logger_levels: Vec::new(),
            log_config_file: None,
            log_file_name: None,
            enclave: None,
            stdout_logs: true,
            rosout_logs: true,
            external_lib_logs: true,
            warnings: Vec::new(),
        }
    }
}

impl RosArgs {
    /// Reads a command line (the program's name first, as `std::env::args` gives it) or a node's
    /// own arguments (which have no program name), as `rcl_parse_arguments`.
    ///
    /// Fails at the first ROS flag whose value is missing or does not parse; an unknown argument
    /// inside a `--ros-args` block is not an error here (see [`reject_unknown`](Self::reject_unknown)).
    pub fn parse<I, S>(args: I) -> Result<RosArgs, ArgsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut parsed = RosArgs {
            args: args.into_iter().map(Into::into).collect(),
            ..RosArgs::default()
        };
        parsed.read()?;
        Ok(parsed)
    }

    /// Reads this process's command line ([`std::env::args_os`]), as [`parse`](Self::parse);
    /// an argument that is not valid UTF-8 is an error.
    pub fn from_env() -> Result<RosArgs, ArgsError> {
        let args = std::env::args_os()
            .enumerate()
            .map(|(index, arg)| {
                arg.into_string().map_err(|arg| ArgsError::NotUnicode {
                    index,
                    arg: arg.to_string_lossy().into_owned(),
                })
            })
            .collect::<Result<Vec<String>, ArgsError>>()?;
        RosArgs::parse(args)
    }

    fn read(&mut self) -> Result<(), ArgsError> {
        let mut in_ros_args = false;
        let mut i = 0;
        while i < self.args.len() {
            let arg = self.args[i].as_str();
            if !in_ros_args {
                if arg == ROS_ARGS {
                    in_ros_args = true;
                } else if let Ok(rule) = arg.parse::<RemapRule>() {
                    self.warnings.push(format!(
                        "Found remap rule '{arg}'. This syntax is deprecated. \
                         Use '{ROS_ARGS} --remap {arg}' instead."
                    ));
                    self.remap_rules.push(rule);
                } else {
                    self.program.push(i);
                }
                i += 1;
                continue;
            }
            match arg {
                ROS_ARGS => {}
                END_OF_ROS_ARGS => in_ros_args = false,
                "-p" | "--param" => {
                    let value = self.value(i, EXPECTED_PARAM)?;
                    let set =
                        parse_param(value).map_err(|err| self.invalid(i, EXPECTED_PARAM, err))?;
                    (self.parameter_order)
                        .push(ParameterSourceIndex::Value(self.param_overrides.len()));
                    self.param_overrides.push(set);
                    i += 1;
                }
                "-r" | "--remap" => {
                    let value = self.value(i, EXPECTED_REMAP)?;
                    let rule = value
                        .parse::<RemapRule>()
                        .map_err(|err| self.invalid(i, EXPECTED_REMAP, err))?;
                    self.remap_rules.push(rule);
                    i += 1;
                }
                "--params-file" => {
                    let path = self.value(i, EXPECTED_PARAMS_FILE)?.to_owned();
                    (self.parameter_order)
                        .push(ParameterSourceIndex::File(self.params_files.len()));
                    self.params_files.push(path);
                    i += 1;
                }
                "--log-level" => {
                    let value = self.value(i, EXPECTED_LOG_LEVEL)?;
                    let (logger, level) = parse_log_level(value)
                        .map_err(|err| self.invalid(i, EXPECTED_LOG_LEVEL, err))?;
                    self.set_log_level(logger, level);
                    i += 1;
                }
                "--log-file-name" => {
                    self.log_file_name = Some(self.value(i, EXPECTED_LOG_FILE_NAME)?.to_owned());
                    i += 1;
                }
                "--log-config-file" => {
                    self.log_config_file =
                        Some(self.value(i, EXPECTED_LOG_CONFIG_FILE)?.to_owned());
                    i += 1;
                }
                "-e" | "--enclave" => {
                    self.enclave = Some(self.value(i, EXPECTED_ENCLAVE)?.to_owned());
                    i += 1;
                }
                "--enable-stdout-logs" => self.stdout_logs = true,
                "--disable-stdout-logs" => self.stdout_logs = false,
                "--enable-rosout-logs" => self.rosout_logs = true,
                "--disable-rosout-logs" => self.rosout_logs = false,
                "--enable-external-lib-logs" => self.external_lib_logs = true,
                "--disable-external-lib-logs" => self.external_lib_logs = false,
                _ => self.unknown_ros.push(i),
            }
            i += 1;
        }
        Ok(())
    }

    /// The value after the flag at `index`.
    fn value(&self, index: usize, expected: &'static str) -> Result<&str, ArgsError> {
        self.args
            .get(index + 1)
            .map(String::as_str)
            .ok_or_else(|| ArgsError::MissingValue {
                index,
                flag: self.args[index].clone(),
                expected,
            })
    }

    fn invalid(&self, flag_index: usize, expected: &'static str, err: RuleError) -> ArgsError {
        ArgsError::InvalidValue {
            index: flag_index + 1,
            flag: self.args[flag_index].clone(),
            value: self.args[flag_index + 1].clone(),
            expected,
            reason: err,
        }
    }

    /// A later level for the same logger replaces the earlier one in its place, as
    /// `rcl_log_levels_add_logger_setting`.
    fn set_log_level(&mut self, logger: Option<String>, level: Severity) {
        let Some(name) = logger else {
            self.log_level = level;
            return;
        };
        match self.logger_levels.iter_mut().find(|l| l.name == name) {
            Some(existing) => existing.level = level,
            None => self.logger_levels.push(LoggerLevel { name, level }),
        }
    }

    /// The program's own arguments: every argument outside the `--ros-args` blocks, the
    /// program's name included, in order (`rcl_remove_ros_arguments`). The `--` that ends a
    /// block is not one of them; a second `--` is.
    pub fn program_args(&self) -> Vec<&str> {
        self.program
            .iter()
            .map(|&i| self.args[i].as_str())
            .collect()
    }

    /// Where the program's arguments are in the list parsed (`rcl_arguments_get_unparsed`).
    pub fn program_arg_indices(&self) -> &[usize] {
        &self.program
    }

    /// The arguments inside `--ros-args` blocks that are no ROS flag, in order
    /// (`rcl_arguments_get_unparsed_ros`).
    pub fn unknown_ros_args(&self) -> Vec<&str> {
        self.unknown_ros
            .iter()
            .map(|&i| self.args[i].as_str())
            .collect()
    }

    /// Where the unknown ROS arguments are in the list parsed.
    pub fn unknown_ros_arg_indices(&self) -> &[usize] {
        &self.unknown_ros
    }

    /// An error if there are unknown ROS arguments, as rclcpp raises when it initializes a
    /// context or a node's options (`UnknownROSArgsError`).
    ///
    /// # Examples
    /// ```
    /// use tacto::args::RosArgs;
    ///
    /// let args = RosArgs::parse(["prog", "--ros-args", "--custom-ros-arg"]).unwrap();
    /// assert_eq!(
    ///     args.reject_unknown().unwrap_err().to_string(),
    ///     "found unknown ROS arguments: '--custom-ros-arg'"
    /// );
    /// ```
    pub fn reject_unknown(&self) -> Result<(), ArgsError> {
        if self.unknown_ros.is_empty() {
            return Ok(());
        }
        Err(ArgsError::UnknownRosArgs {
            args: self
                .unknown_ros_args()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        })
    }

    /// The remap rules, in the order given; the first that applies wins.
    pub fn remap_rules(&self) -> &[RemapRule] {
        &self.remap_rules
    }

    /// The parameter overrides, in the order given (a later one for the same node and name
    /// replaces an earlier one).
    pub fn param_overrides(&self) -> &[ParamOverride] {
        &self.param_overrides
    }

    /// The parameters files, in the order given (`rcl_arguments_get_param_files`).
    pub fn params_files(&self) -> &[String] {
        &self.params_files
    }

    /// The `--params-file` files and `-p` values together, in command-line order: the order
    /// rcl reads them in, a later one overriding an earlier one.
    pub fn parameter_sources(&self) -> impl Iterator<Item = ParameterSource<'_>> {
        self.parameter_order.iter().map(|source| match *source {
            ParameterSourceIndex::File(i) => ParameterSource::File(&self.params_files[i]),
            ParameterSourceIndex::Value(i) => ParameterSource::Value(&self.param_overrides[i]),
        })
    }

    /// The default log level; [`Severity::Unset`] if none was given. The last one given wins.
    pub fn log_level(&self) -> Severity {
        self.log_level
    }

    /// The loggers' own levels, each logger once, in the order first given, with the level
    /// given last.
    pub fn logger_levels(&self) -> &[LoggerLevel] {
        &self.logger_levels
    }

    /// The logging configuration file, if given (the last one).
    pub fn log_config_file(&self) -> Option<&str> {
        self.log_config_file.as_deref()
    }

    /// The log file name prefix, if given (the last one).
    pub fn log_file_name(&self) -> Option<&str> {
        self.log_file_name.as_deref()
    }

    /// The security enclave, if given (the last one), not yet validated.
    pub fn enclave(&self) -> Option<&str> {
        self.enclave.as_deref()
    }

    /// Whether logs go to the console (on unless the last flag said `--disable-stdout-logs`).
    pub fn stdout_logs(&self) -> bool {
        self.stdout_logs
    }

    /// Whether logs go to `/rosout` (on unless the last flag said `--disable-rosout-logs`).
    pub fn rosout_logs(&self) -> bool {
        self.rosout_logs
    }

    /// Whether logs go to the logging backend's file (on unless the last flag said
    /// `--disable-external-lib-logs`).
    pub fn external_lib_logs(&self) -> bool {
        self.external_lib_logs
    }

    /// What rcl would have logged as warnings while parsing: remap rules given outside a
    /// `--ros-args` block, a deprecated syntax.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// An argument list that cannot be used.
///
/// # Examples
/// ```
/// use tacto::args::{ArgsError, RosArgs};
///
/// let err = RosArgs::parse(["prog", "--ros-args", "-r", "chatter"]).unwrap_err();
/// assert!(matches!(err, ArgsError::InvalidValue { index: 3, .. }));
/// assert!(err.to_string().starts_with("argument 3 'chatter' after '-r' is not a remap rule"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsError {
    /// A flag that takes a value is the last argument.
    MissingValue {
        /// Where the flag is.
        index: usize,
        /// The flag.
        flag: String,
        /// What should follow it.
        expected: &'static str,
    },
    /// A flag's value does not parse.
    InvalidValue {
        /// Where the value is.
        index: usize,
        /// The flag before it.
        flag: String,
        /// The value.
        value: String,
        /// What it should be.
        expected: &'static str,
        /// Why it is not.
        reason: RuleError,
    },
    /// Arguments inside `--ros-args` blocks that are no ROS flag (see
    /// [`RosArgs::reject_unknown`]).
    UnknownRosArgs {
        /// The arguments, in order.
        args: Vec<String>,
    },
    /// An argument of the process is not valid UTF-8 (see [`RosArgs::from_env`]).
    NotUnicode {
        /// Where it is.
        index: usize,
        /// The argument, its invalid bytes replaced.
        arg: String,
    },
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgsError::MissingValue {
                index,
                flag,
                expected,
            } => write!(
                f,
                "argument {index} '{flag}' is the last one: expected {expected} after it"
            ),
            ArgsError::InvalidValue {
                index,
                flag,
                value,
                expected,
                reason,
            } => write!(
                f,
                "argument {index} '{value}' after '{flag}' is not {expected}: {reason}"
            ),
            // rclcpp's text (`UnknownROSArgsError`).
            ArgsError::UnknownRosArgs { args } => {
                write!(f, "found unknown ROS arguments: '{}'", args.join("', '"))
            }
            ArgsError::NotUnicode { index, arg } => {
                write!(f, "argument {index} '{arg}' is not valid UTF-8")
            }
        }
    }
}

impl std::error::Error for ArgsError {}

/// A parameter override, as rcl's `_rcl_parse_param_rule`: an optional `node:`, a name of
/// tokens and slashes joined by dots, `:=`, and a value that is not empty.
fn parse_param(text: &str) -> Result<ParamOverride, RuleError> {
    let mut lexemes = Lookahead::new(text);
    let node = match lexemes.peek2() {
        (Lexeme::Token, Lexeme::Colon) => {
            let node = lexemes.expect(Lexeme::Token)?;
            lexemes.expect(Lexeme::Colon)?;
            Some(node.to_owned())
        }
        _ => None,
    };
    let start = lexemes.position();
    param_name_part(&mut lexemes)?;
    loop {
        match lexemes.peek() {
            Lexeme::Separator => break,
            Lexeme::Dot => {
                lexemes.accept();
                param_name_part(&mut lexemes)?;
            }
            _ => {
                return Err(RuleError::new(
                    lexemes.position(),
                    format!("expected ':=' or '.', found {}", lexemes.describe_next()),
                ));
            }
        }
    }
    let name = lexemes.text_from(start);
    lexemes.expect(Lexeme::Separator)?;
    let value = lexemes.rest();
    if value.is_empty() {
        return Err(RuleError::new(
            lexemes.position(),
            "the value is empty: expected a YAML value after ':='",
        ));
    }
    Ok(ParamOverride {
        node,
        name: name.to_owned(),
        value,
    })
}

/// Tokens and slashes, at least one.
fn param_name_part(lexemes: &mut Lookahead<'_>) -> Result<(), RuleError> {
    let at = lexemes.position();
    match lexemes.peek() {
        Lexeme::Token | Lexeme::ForwardSlash => {}
        Lexeme::WildOne => return Err(RuleError::new(at, "wildcard '*' is not implemented")),
        Lexeme::WildMulti => return Err(RuleError::new(at, "wildcard '**' is not implemented")),
        _ => {
            return Err(RuleError::new(
                at,
                format!("expected a name or '/', found {}", lexemes.describe_next()),
            ));
        }
    }
    while matches!(lexemes.peek(), Lexeme::Token | Lexeme::ForwardSlash) {
        lexemes.accept();
    }
    Ok(())
}

/// A `--log-level` value, as rcl's `_rcl_parse_log_level`: `logger:=level` if the text has a
/// `:=` (the logger's name is everything before it, and must not be empty), else a default
/// level.
fn parse_log_level(text: &str) -> Result<(Option<String>, Severity), RuleError> {
    let mut lexemes = Lookahead::new(text);
    let named = loop {
        if lexemes.peek() == Lexeme::Separator {
            break true;
        }
        lexemes.accept();
        if lexemes.peek() == Lexeme::Eof {
            break false;
        }
    };
    if !named {
        return severity(text)
            .map(|level| (None, level))
            .ok_or_else(|| RuleError::new(0, format!("'{text}' is not a log severity")));
    }
    let name = lexemes.text_from(0);
    if name.is_empty() {
        return Err(RuleError::new(0, "the logger name is empty"));
    }
    lexemes.expect(Lexeme::Separator)?;
    let at = lexemes.position();
    let level = lexemes.expect(Lexeme::Token)?;
    lexemes.expect(Lexeme::Eof)?;
    let level = severity(level)
        .ok_or_else(|| RuleError::new(at, format!("'{level}' is not a log severity")))?;
    Ok((Some(name), level))
}

/// A severity by its name in any case, as `rcutils_logging_severity_level_from_string`: only
/// rcutils' six names (`WARNING` is not one).
fn severity(name: &str) -> Option<Severity> {
    let upper = name.to_ascii_uppercase();
    [
        Severity::Unset,
        Severity::Debug,
        Severity::Info,
        Severity::Warn,
        Severity::Error,
        Severity::Fatal,
    ]
    .into_iter()
    .find(|severity| severity.name() == upper)
}
