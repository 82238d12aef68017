//! The console's line format: rcutils' `RCUTILS_CONSOLE_OUTPUT_FORMAT`, its tokens, escapes and
//! time formats, and its colours.

use std::fmt::Write;

use super::{Record, Severity};

/// rcutils' default format.
const DEFAULT_FORMAT: &str = "[{severity}] [{time}] [{name}]: {message}";

/// rcutils reads at most this many bytes of a format (`RCUTILS_LOGGING_MAX_OUTPUT_FORMAT_LEN`
/// less its NUL).
const MAX_FORMAT_LEN: usize = 2047;

/// A console line format, as `RCUTILS_CONSOLE_OUTPUT_FORMAT` sets it.
///
/// The tokens are rcutils' (Jazzy): `{severity}`, `{name}`, `{message}`, `{function_name}`,
/// `{file_name}`, `{line_number}` (the last three empty for a record with no location),
/// `{time}` (seconds, at least 10 digits, `.`, 9 digits), `{time_as_nanoseconds}` (at least 19
/// digits) and `{date_time_with_ms}` (local time, `2025-11-24 16:00:00.123`). Anything else
/// between braces is written as it is, and so are braces that enclose no token. The escapes
/// `\a`, `\b`, `\n`, `\r`, `\t` and `\x1b` become their characters; other backslashes stay.
/// Only the first 2047 bytes of a format count, as in rcutils.
///
/// # Examples
/// ```
/// use tacto::logging::{Location, OutputFormat, Record, Severity};
///
/// let format = OutputFormat::new("{severity} {name} {file_name}:{line_number} {message}\\t{x}");
/// let mut record = Record::new(Severity::Error, "arm".into(), "stalled".into());
/// record.location = Some(Location::new("move_to", "arm.rs", 7));
/// assert_eq!(format.render(&record), "ERROR arm arm.rs:7 stalled\t{x}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFormat {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Severity,
    Name,
    Message,
    FunctionName,
    FileName,
    Time,
    DateTimeWithMs,
    TimeAsNanoseconds,
    LineNumber,
}

impl Default for OutputFormat {
    /// rcutils' default, `[{severity}] [{time}] [{name}]: {message}`.
    fn default() -> Self {
        OutputFormat::new(DEFAULT_FORMAT)
    }
}

impl OutputFormat {
    /// The format `format`, read as rcutils reads it: every string is a format.
    pub fn new(format: &str) -> OutputFormat {
        let mut end = format.len().min(MAX_FORMAT_LEN);
        while !format.is_char_boundary(end) {
            end -= 1;
        }
        OutputFormat {
            parts: parse_tokens(&unescape(&format[..end])),
        }
    }

    /// The record's line, without colour or newline.
    pub fn render(&self, record: &Record) -> String {
        let mut line = String::new();
        self.write(record, &mut line);
        line
    }

    /// Appends the record's line to `out`.
    pub(crate) fn write(&self, record: &Record, out: &mut String) {
        let location = record.location.as_ref();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Severity => out.push_str(record.severity.name()),
                Part::Name => out.push_str(&record.name),
                Part::Message => out.push_str(&record.message),
                Part::FunctionName => out.push_str(location.map_or("", |l| &l.function)),
                Part::FileName => out.push_str(location.map_or("", |l| &l.file)),
                Part::LineNumber => {
                    if let Some(location) = location {
                        let _ = write!(out, "{}", location.line);
                    }
                }
                Part::Time => seconds(record.time.as_nanos(), out),
                Part::TimeAsNanoseconds => nanoseconds(record.time.as_nanos(), out),
                Part::DateTimeWithMs => date_time_with_ms(record.time.as_nanos(), out),
            }
        }
    }
}

/// rcutils' `create_format_string`: the escapes it knows become their characters.
///
/// rcutils means to copy an unknown escape as it is, and does when a known one follows; when
/// none does, it reads outside its buffer. Here it is always copied as it is.
fn unescape(format: &str) -> String {
    let mut out = String::with_capacity(format.len());
    let mut rest = format;
    while let Some(backslash) = rest.find('\\') {
        out.push_str(&rest[..backslash]);
        let after = &rest[backslash + 1..];
        let mut chars = after.chars();
        let (decoded, consumed) = match chars.next() {
            _ if after.starts_with("x1b") => ('\x1b', 3),
            Some('a') => ('\x07', 1),
            Some('b') => ('\x08', 1),
            Some('n') => ('\n', 1),
            Some('r') => ('\r', 1),
            Some('t') => ('\t', 1),
            // Unknown: the backslash and the character after it, as they are (so `\\n` stays).
            Some(other) => {
                out.push('\\');
                (other, other.len_utf8())
            }
            None => ('\\', 0),
        };
        out.push(decoded);
        rest = &after[consumed..];
    }
    out.push_str(rest);
    out
}

/// rcutils' `parse_and_create_handlers_list`: from each `{`, the text up to the next `}` is a
/// token if rcutils knows it; if not, the `{` is text and the search goes on after it.
fn parse_tokens(format: &str) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let mut text = String::new();
    let mut rest = format;
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            text.push_str(rest);
            break;
        };
        text.push_str(&rest[..open]);
        rest = &rest[open..];
        let Some(close) = rest.find('}') else {
            text.push_str(rest);
            break;
        };
        match token(&rest[1..close]) {
            Some(part) => {
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(part);
                rest = &rest[close + 1..];
            }
            None => {
                text.push('{');
                rest = &rest[1..];
            }
        }
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    parts
}

fn token(name: &str) -> Option<Part> {
    Some(match name {
        "severity" => Part::Severity,
        "name" => Part::Name,
        "message" => Part::Message,
        "function_name" => Part::FunctionName,
        "file_name" => Part::FileName,
        "time" => Part::Time,
        "date_time_with_ms" => Part::DateTimeWithMs,
        "time_as_nanoseconds" => Part::TimeAsNanoseconds,
        "line_number" => Part::LineNumber,
        _ => return None,
    })
}

/// `rcutils_time_point_value_as_seconds_string`: `%s%.10" PRId64 ".%.9" PRId64`, the sign,
/// then the magnitude's seconds (at least 10 digits) and nanoseconds.
fn seconds(nanos: i64, out: &mut String) {
    let magnitude = nanos.unsigned_abs();
    let sign = if nanos < 0 { "-" } else { "" };
    let _ = write!(
        out,
        "{sign}{:010}.{:09}",
        magnitude / 1_000_000_000,
        magnitude % 1_000_000_000
    );
}

/// `rcutils_time_point_value_as_nanoseconds_string`: `%.19" PRId64`, at least 19 digits after
/// the sign.
fn nanoseconds(nanos: i64, out: &mut String) {
    let sign = if nanos < 0 { "-" } else { "" };
    let _ = write!(out, "{sign}{:019}", nanos.unsigned_abs());
}

/// `rcutils_time_point_value_as_date_string`: the magnitude's seconds as local time,
/// `%Y-%m-%d %H:%M:%S`, then `.` and the first three digits of the nanoseconds *unpadded*:
/// rcutils prints 5 ms past the second as `.500` (from `5000000`), and so does this.
fn date_time_with_ms(nanos: i64, out: &mut String) {
    let magnitude = nanos.unsigned_abs();
    let seconds = (magnitude / 1_000_000_000) as libc::time_t;
    let sub = (magnitude % 1_000_000_000).to_string();
    // SAFETY: an all-zero `tm` is a valid value (integers, and a null zone name pointer).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: FFI; both pointers are valid for the call, and localtime_r is the thread-safe
    // form that writes only `tm`.
    if unsafe { libc::localtime_r(&seconds, &mut tm) }.is_null() {
        return;
    }
    let _ = write!(
        out,
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{}",
        i64::from(tm.tm_year) + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        &sub[..sub.len().min(3)]
    );
}

/// rcutils' colour of a severity on a terminal (`SET_COLOR_WITH_SEVERITY`).
pub(crate) fn colour(severity: Severity) -> &'static str {
    match severity {
        Severity::Debug => "\x1b[32m",
        Severity::Warn => "\x1b[33m",
        Severity::Error | Severity::Fatal => "\x1b[31m",
        Severity::Info | Severity::Unset => COLOUR_RESET,
    }
}

/// rcutils' `COLOR_NORMAL`, written after each coloured line.
pub(crate) const COLOUR_RESET: &str = "\x1b[0m";
