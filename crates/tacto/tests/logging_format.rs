//! The console line: rcutils' output format, its tokens, escapes, time formats and edge cases,
//! with the expectations of rcutils' own tests (Jazzy).

use tacto::Time;
use tacto::logging::{Location, OutputFormat, Record, Severity};

/// The two records of rcutils' `test/test_logging_long_messages.cpp`: location
/// `{"func", "file", 42}`, INFO, `name1` with `X`, 2045 `x`, `X`, and `name2` with the same
/// message whose `%d` (in place of its first two `x`) printf replaced by 42.
fn long_messages() -> [Record; 2] {
    let mut message = format!("X{}X", "x".repeat(2045));
    let first = record("name1", &message);
    message.replace_range(1..3, "42");
    // printf consumed "%d" (2 characters) and wrote "42" (2): the length is unchanged.
    [first, record("name2", &message)]
}

fn record(name: &str, message: &str) -> Record {
    let mut record = Record::new(Severity::Info, name.into(), message.into());
    record.location = Some(Location::new("func", "file", 42));
    record
}

fn long(x: usize) -> String {
    "x".repeat(x)
}

// rcutils test/test_logging_long_messages.py with test_logging_long_messages.txt.
#[test]
fn long_messages_are_written_whole_in_the_verbose_format() {
    let format = OutputFormat::new(
        "[{severity}] [{name}]: {message} ({function_name}() at {file_name}:{line_number})",
    );
    let [one, two] = long_messages();
    assert_eq!(
        format.render(&one),
        format!("[INFO] [name1]: X{}X (func() at file:42)", long(2045))
    );
    assert_eq!(
        format.render(&two),
        format!("[INFO] [name2]: X42{}X (func() at file:42)", long(2043))
    );
}

// rcutils test/test_logging_output_format.py, test_logging_output_format_long.txt: the message
// twice, doubled braces, a trailing `{`.
#[test]
fn a_format_with_every_location_token_and_stray_braces_expands_as_rcutils_does() {
    let format = OutputFormat::new(
        "[{{name}}].({severity}) output: {file_name}:{line_number} {message}, again: {message} ({function_name}()){",
    );
    let [one, two] = long_messages();
    let m1 = format!("X{}X", long(2045));
    let m2 = format!("X42{}X", long(2043));
    assert_eq!(
        format.render(&one),
        format!("[{{name1}}].(INFO) output: file:42 {m1}, again: {m1} (func()){{")
    );
    assert_eq!(
        format.render(&two),
        format!("[{{name2}}].(INFO) output: file:42 {m2}, again: {m2} (func()){{")
    );
}

// rcutils test/test_logging_output_format.py, test_logging_output_format_edge_cases.txt.
#[test]
fn unknown_tokens_and_unmatched_braces_are_written_as_they_are() {
    let format = OutputFormat::new("{}}].({unknown_token}) {{{{");
    for record in long_messages() {
        assert_eq!(format.render(&record), "{}}].({unknown_token}) {{{{");
    }
}

// rcutils test/test_logging_output_format.py, test_logging_output_format_no_tokens.txt.
#[test]
fn a_format_without_tokens_is_written_for_every_record() {
    let format = OutputFormat::new("no_tokens");
    for record in long_messages() {
        assert_eq!(format.render(&record), "no_tokens");
    }
}

// rcutils test/test_logging_output_format.py, test_logging_output_timestamps.regex:
// `'[-]?[0-9]{10}[.][0-9]{9}' '[-]?[0-9]{19}'`.
#[test]
fn time_tokens_have_at_least_ten_and_nineteen_digits() {
    let format = OutputFormat::new("'{time}' '{time_as_nanoseconds}'");
    for record in long_messages() {
        let line = format.render(&record);
        let fields: Vec<&str> = line.split(' ').collect();
        let [seconds, nanos] = fields[..] else {
            panic!("{line:?}")
        };
        let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        let seconds = seconds.trim_matches('\'');
        let (whole, fraction) = seconds.split_once('.').unwrap();
        assert!(digits(whole) && whole.len() == 10, "{line:?}");
        assert!(digits(fraction) && fraction.len() == 9, "{line:?}");
        let nanos = nanos.trim_matches('\'');
        assert!(digits(nanos) && nanos.len() == 19, "{line:?}");
    }
}

// rcutils src/time.c: `%s%.10" PRId64 ".%.9" PRId64` and `%.19" PRId64`, for a time set here
// (rcutils' tests read the clock, and check the shape only).
#[test]
fn time_tokens_pad_and_sign_as_printf_does() {
    let format = OutputFormat::new("{time} {time_as_nanoseconds}");
    let mut record = record("t", "m");
    record.time = Time::from_nanos(1_764_000_000_000_000_005);
    assert_eq!(
        format.render(&record),
        "1764000000.000000005 1764000000000000005"
    );
    record.time = Time::from_nanos(1_500_000_000);
    assert_eq!(
        format.render(&record),
        "0000000001.500000000 0000000001500000000"
    );
    record.time = Time::from_nanos(-1_500_000_000);
    assert_eq!(
        format.render(&record),
        "-0000000001.500000000 -0000000001500000000"
    );
}

// rcutils src/time.c `rcutils_time_point_value_as_date_string`: local time, then `.%.3s` of the
// unpadded nanoseconds. TZ is not set here, so only the shape and the milliseconds are checked.
#[test]
fn date_time_with_ms_is_the_local_date_and_the_first_three_digits_of_the_nanoseconds() {
    let format = OutputFormat::new("{date_time_with_ms}");
    let mut record = record("t", "m");
    record.time = Time::from_nanos(1_764_000_000_123_456_789);
    let line = format.render(&record);
    let (date_time, millis) = line.rsplit_once('.').unwrap();
    assert_eq!(millis, "123");
    assert_eq!(date_time.len(), "2025-11-24 16:00:00".len(), "{line:?}");
    assert_eq!(&date_time[..2], "20", "{line:?}");
    // 5 ms is "5000000": rcutils prints its first three characters.
    record.time = Time::from_nanos(1_764_000_000_005_000_000);
    assert!(format.render(&record).ends_with(".500"));
}

// rcutils test/test_logging_output_format.py, test_logging_output_format_simple_escape.regex.
#[test]
fn tab_and_newline_escapes_become_their_characters() {
    let format = OutputFormat::new("\\t{name}\\n\\t{message}\\n");
    let [one, two] = long_messages();
    assert_eq!(
        format.render(&one),
        format!("\tname1\n\tX{}X\n", long(2045))
    );
    assert_eq!(
        format.render(&two),
        format!("\tname2\n\tX42{}X\n", long(2043))
    );
}

// rcutils test/test_logging_output_format.py,
// test_logging_output_format_complicated_escape.regex.
#[test]
fn every_escape_rcutils_knows_becomes_its_character() {
    let format = OutputFormat::new("{name} 0\\a1\\b23\\n44\\r5\\t67 {message}");
    let [one, two] = long_messages();
    assert_eq!(
        format.render(&one),
        format!("name1 0\x071\x0823\n44\r5\t67 X{}X", long(2045))
    );
    assert_eq!(
        format.render(&two),
        format!("name2 0\x071\x0823\n44\r5\t67 X42{}X", long(2043))
    );
}

// rcutils test/test_logging_output_format.py, test_logging_output_format_escape_sequence.regex:
// an escape character in the variable itself, and rcutils' `\x1b` spelled out.
#[test]
fn terminal_escape_sequences_pass_through_and_backslash_x1b_is_one() {
    let [one, _] = long_messages();
    let expected = format!("name1 \x1b[0m X{}X", long(2045));
    assert_eq!(
        OutputFormat::new("{name} \x1b[0m {message}").render(&one),
        expected
    );
    assert_eq!(
        OutputFormat::new("{name} \\x1b[0m {message}").render(&one),
        expected
    );
}

// rcutils src/logging.c `create_format_string`: an escape it does not know is copied.
#[test]
fn unknown_escapes_and_a_trailing_backslash_stay_as_they_are() {
    let record = record("n", "m");
    assert_eq!(
        OutputFormat::new("\\q{name}\\\\n\\").render(&record),
        "\\qn\\\\n\\"
    );
}

// rcutils src/logging.c: `RCUTILS_LOGGING_MAX_OUTPUT_FORMAT_LEN` (2048, with the NUL).
#[test]
fn only_the_first_2047_bytes_of_a_format_count() {
    let format = format!("{}{{name}}", "a".repeat(2044));
    assert_eq!(
        OutputFormat::new(&format).render(&record("n", "m")),
        format!("{}{{na", "a".repeat(2044))
    );
}

// rcutils test/test_logging_console_output_handler.cpp `bad_inputs`: a record with no location
// (rcutils' NULL location) expands the location tokens to nothing.
#[test]
fn location_tokens_of_a_record_without_location_are_empty() {
    let record = Record::new(Severity::Info, "n".into(), "m".into());
    assert_eq!(
        OutputFormat::new("[{function_name}|{file_name}|{line_number}] {message}").render(&record),
        "[||] m"
    );
}

#[test]
fn the_default_format_is_severity_time_name_and_message() {
    let mut record = record("talker", "hello");
    record.time = Time::from_nanos(1_764_000_000_123_456_789);
    assert_eq!(
        OutputFormat::default().render(&record),
        "[INFO] [1764000000.123456789] [talker]: hello"
    );
}
