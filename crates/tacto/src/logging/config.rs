//! Where records go and how the console writes them: rcutils' environment variables, and the
//! `--disable-stdout-logs` / `--disable-rosout-logs` switches.

use super::OutputFormat;

/// How records reach the console and `/rosout`.
///
/// [`Config::from_env`] reads rcutils' variables; `Config::default()` is what rcutils does when
/// none is set. Give it to [`init`](super::init).
///
/// # Examples
/// ```
/// use tacto::logging::{Colors, Config, OutputFormat, Stream};
///
/// let config = Config {
///     format: OutputFormat::new("[{severity}] [{name}]: {message}"),
///     colors: Colors::Never,
///     stream: Stream::Stdout,
///     rosout: false, // --disable-rosout-logs
///     ..Config::default()
/// };
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The console line (`RCUTILS_CONSOLE_OUTPUT_FORMAT`; rcutils' default when unset or empty).
    pub format: OutputFormat,
    /// Colours on the console (`RCUTILS_COLORIZED_OUTPUT`).
    pub colors: Colors,
    /// The console's stream (`RCUTILS_LOGGING_USE_STDOUT`).
    pub stream: Stream,
    /// How lines are written (`RCUTILS_LOGGING_BUFFERED_STREAM`): `None`, the stream's own way;
    /// `Some(false)` unbuffered, `Some(true)` line-buffered. Here both `Some`s write and flush
    /// each line by itself, and `None` writes all the lines the logging thread found waiting
    /// at once; every line is written before the thread sleeps again.
    pub buffered: Option<bool>,
    /// Whether records are written on the console (`--disable-stdout-logs` clears it).
    pub console: bool,
    /// Whether records are published on `/rosout` (`--disable-rosout-logs` clears it).
    pub rosout: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            format: OutputFormat::default(),
            colors: Colors::Auto,
            stream: Stream::Stderr,
            buffered: None,
            console: true,
            rosout: true,
        }
    }
}

/// Whether console lines are coloured by severity, in rcutils' colours (debug green, warn
/// yellow, error and fatal red).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Colors {
    /// If the stream is a terminal (`RCUTILS_COLORIZED_OUTPUT` unset or empty).
    #[default]
    Auto,
    /// Always (`RCUTILS_COLORIZED_OUTPUT=1`).
    Always,
    /// Never (`RCUTILS_COLORIZED_OUTPUT=0`).
    Never,
}

/// The console's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stream {
    /// Standard error, rcutils' default: errors show at once.
    #[default]
    Stderr,
    /// Standard output (`RCUTILS_LOGGING_USE_STDOUT=1`).
    Stdout,
}

/// An environment variable of rcutils' has a value rcutils refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}={value:?} is not a valid value: expected 0 ({zero}) or 1 ({one}), or unset")]
pub struct ConfigError {
    /// The variable.
    pub variable: &'static str,
    /// Its value.
    pub value: String,
    /// What 0 means.
    pub zero: &'static str,
    /// What 1 means.
    pub one: &'static str,
}

impl Config {
    /// The configuration rcutils' environment variables ask for, as `rcutils_logging_initialize`
    /// reads them: `RCUTILS_CONSOLE_OUTPUT_FORMAT`, `RCUTILS_COLORIZED_OUTPUT`,
    /// `RCUTILS_LOGGING_USE_STDOUT`, `RCUTILS_LOGGING_BUFFERED_STREAM`. The three switches take
    /// `0`, `1` or nothing; anything else is an error naming the variable, as rcutils refuses
    /// to initialize then.
    pub fn from_env() -> Result<Config, ConfigError> {
        let format = match std::env::var("RCUTILS_CONSOLE_OUTPUT_FORMAT") {
            Ok(format) if !format.is_empty() => OutputFormat::new(&format),
            _ => OutputFormat::default(),
        };
        let colors = match switch("RCUTILS_COLORIZED_OUTPUT", "no colours", "colours")? {
            None => Colors::Auto,
            Some(false) => Colors::Never,
            Some(true) => Colors::Always,
        };
        let stream = match switch("RCUTILS_LOGGING_USE_STDOUT", "stderr", "stdout")? {
            Some(true) => Stream::Stdout,
            None | Some(false) => Stream::Stderr,
        };
        let buffered = switch(
            "RCUTILS_LOGGING_BUFFERED_STREAM",
            "unbuffered",
            "line-buffered",
        )?;
        Ok(Config {
            format,
            colors,
            stream,
            buffered,
            ..Config::default()
        })
    }
}

/// rcutils' `rcutils_get_env_var_zero_or_one`: unset or empty is `None`.
fn switch(
    variable: &'static str,
    zero: &'static str,
    one: &'static str,
) -> Result<Option<bool>, ConfigError> {
    let value = std::env::var_os(variable).unwrap_or_default();
    match value.to_str() {
        Some("") => Ok(None),
        Some("0") => Ok(Some(false)),
        Some("1") => Ok(Some(true)),
        _ => Err(ConfigError {
            variable,
            value: value.to_string_lossy().into_owned(),
            zero,
            one,
        }),
    }
}
