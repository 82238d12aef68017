//! What a whole process writes on its console: rcutils' environment variables, call order,
//! counted drops, and the lines still queued when the program ends. Each check runs this
//! binary again as a child (`TACTO_LOGGING_CHILD=<scenario>`) and reads its output, so it runs
//! without libtest's harness (see Cargo.toml).

use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tacto::logging::{self, Config, Logger, Record, Severity};

const CHILD: &str = "TACTO_LOGGING_CHILD";
const RCUTILS_VARIABLES: [&str; 4] = [
    "RCUTILS_CONSOLE_OUTPUT_FORMAT",
    "RCUTILS_COLORIZED_OUTPUT",
    "RCUTILS_LOGGING_USE_STDOUT",
    "RCUTILS_LOGGING_BUFFERED_STREAM",
];
const SHORT_FORMAT: &str = "[{severity}] [{name}]: {message}";
const FLOOD: usize = 10_000;

fn main() {
    match std::env::var(CHILD) {
        Ok(scenario) => child(&scenario),
        Err(_) => parent(),
    }
}

/// The child's part: log, then end as the scenario says, without flushing unless it says so.
fn child(scenario: &str) {
    let logger = Logger::get("child");
    match scenario {
        "return" => {
            for i in 0..3 {
                tacto::info!(logger, "line {i}");
            }
        }
        "exit" => {
            tacto::info!(logger, "before exit");
            std::process::exit(3);
        }
        "guard" => {
            let guard = logging::init(Config::from_env().unwrap());
            tacto::info!(logger, "guarded");
            drop(guard);
            // No exit handlers: only the guard wrote the line.
            std::process::abort();
        }
        "severities" => {
            logger.set_level(Severity::Debug).unwrap();
            tacto::debug!(logger, "d");
            tacto::info!(logger, "i");
            tacto::warn!(logger, "w");
            tacto::error!(logger, "e");
            tacto::fatal!(logger, "f");
        }
        "config" => match Config::from_env() {
            Ok(_) => println!("accepted"),
            Err(error) => println!("{error}"),
        },
        "order" => {
            for i in 0..2000 {
                tacto::info!(logger, "{i}");
            }
        }
        "flood" => {
            // The logging thread stops in this sink at its first record, until every record is
            // queued: all but its first batch and a queue's worth are dropped.
            static QUEUED: AtomicBool = AtomicBool::new(false);
            let _sink = logging::add_sink(|_: &Record| {
                while !QUEUED.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
            for i in 0..FLOOD {
                tacto::info!(logger, "{i}");
            }
            QUEUED.store(true, Ordering::Release);
            logging::flush();
            println!("dropped {}", logging::dropped());
        }
        other => panic!("no scenario {other:?}"),
    }
}

fn run(scenario: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    for variable in RCUTILS_VARIABLES {
        command.env_remove(variable);
    }
    command.env(CHILD, scenario).envs(env.iter().copied());
    command.output().expect("run the child")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn parent() {
    let checks: [(&str, fn()); 10] = [
        (
            "the_last_lines_of_a_program_that_returns_from_main_are_written",
            the_last_lines_of_a_program_that_returns_from_main_are_written,
        ),
        (
            "process_exit_writes_the_queued_lines_too",
            process_exit_writes_the_queued_lines_too,
        ),
        (
            "dropping_the_init_guard_writes_the_queued_lines",
            dropping_the_init_guard_writes_the_queued_lines,
        ),
        (
            "the_default_format_stamps_severity_time_and_name",
            the_default_format_stamps_severity_time_and_name,
        ),
        (
            "use_stdout_moves_the_lines_to_stdout",
            use_stdout_moves_the_lines_to_stdout,
        ),
        (
            "forced_colours_wrap_each_line_in_its_severity_colour",
            forced_colours_wrap_each_line_in_its_severity_colour,
        ),
        (
            "a_switch_with_a_value_other_than_0_or_1_is_refused_by_name",
            a_switch_with_a_value_other_than_0_or_1_is_refused_by_name,
        ),
        (
            "an_invalid_environment_falls_back_to_the_defaults_and_says_so",
            an_invalid_environment_falls_back_to_the_defaults_and_says_so,
        ),
        (
            "lines_of_one_thread_are_written_in_call_order",
            lines_of_one_thread_are_written_in_call_order,
        ),
        (
            "a_full_queue_drops_the_newest_records_and_says_how_many",
            a_full_queue_drops_the_newest_records_and_says_how_many,
        ),
    ];
    println!("\nrunning {} tests", checks.len());
    for (name, check) in checks {
        check();
        println!("test {name} ... ok");
    }
    println!("\ntest result: ok. {} passed\n", checks.len());
}

fn the_last_lines_of_a_program_that_returns_from_main_are_written() {
    let out = run("return", &[("RCUTILS_CONSOLE_OUTPUT_FORMAT", SHORT_FORMAT)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        "[INFO] [child]: line 0\n[INFO] [child]: line 1\n[INFO] [child]: line 2\n"
    );
}

fn process_exit_writes_the_queued_lines_too() {
    let out = run("exit", &[("RCUTILS_CONSOLE_OUTPUT_FORMAT", SHORT_FORMAT)]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(text(&out.stderr), "[INFO] [child]: before exit\n");
}

fn dropping_the_init_guard_writes_the_queued_lines() {
    let out = run("guard", &[("RCUTILS_CONSOLE_OUTPUT_FORMAT", SHORT_FORMAT)]);
    assert!(!out.status.success(), "the child aborts: {out:?}");
    assert!(
        text(&out.stderr).starts_with("[INFO] [child]: guarded\n"),
        "{out:?}"
    );
}

// rcutils test/test_logging_output_format.py's timestamps, in the default format.
fn the_default_format_stamps_severity_time_and_name() {
    let out = run("return", &[]);
    let stderr = text(&out.stderr);
    for (i, line) in stderr.lines().enumerate() {
        let rest = line.strip_prefix("[INFO] [").expect(line);
        let (time, rest) = rest.split_once("] ").expect(line);
        assert_eq!(rest, format!("[child]: line {i}"));
        let (seconds, nanos) = time.split_once('.').expect(line);
        assert!(seconds.len() == 10 && nanos.len() == 9, "{line}");
        assert!(
            (seconds.chars().chain(nanos.chars())).all(|c| c.is_ascii_digit()),
            "{line}"
        );
    }
    assert_eq!(stderr.lines().count(), 3);
}

fn use_stdout_moves_the_lines_to_stdout() {
    for buffered in ["", "0", "1"] {
        let out = run(
            "return",
            &[
                ("RCUTILS_CONSOLE_OUTPUT_FORMAT", "{message}"),
                ("RCUTILS_LOGGING_USE_STDOUT", "1"),
                ("RCUTILS_LOGGING_BUFFERED_STREAM", buffered),
            ],
        );
        assert_eq!(
            text(&out.stdout),
            "line 0\nline 1\nline 2\n",
            "{buffered:?}"
        );
        assert_eq!(text(&out.stderr), "", "{buffered:?}");
    }
}

// rcutils src/logging.c: SET_COLOR_WITH_SEVERITY, and COLOR_NORMAL after each line.
fn forced_colours_wrap_each_line_in_its_severity_colour() {
    let env = |colours| {
        [
            ("RCUTILS_CONSOLE_OUTPUT_FORMAT", "{severity} {message}"),
            ("RCUTILS_COLORIZED_OUTPUT", colours),
        ]
    };
    let out = run("severities", &env("1"));
    assert_eq!(
        text(&out.stderr),
        "\x1b[32mDEBUG d\x1b[0m\n\x1b[0mINFO i\x1b[0m\n\x1b[33mWARN w\x1b[0m\n\
         \x1b[31mERROR e\x1b[0m\n\x1b[31mFATAL f\x1b[0m\n"
    );
    // Not a terminal: no colours unless forced.
    for colours in ["0", ""] {
        let out = run("severities", &env(colours));
        assert_eq!(
            text(&out.stderr),
            "DEBUG d\nINFO i\nWARN w\nERROR e\nFATAL f\n"
        );
    }
}

// rcutils src/logging.c `rcutils_get_env_var_zero_or_one`: initialization fails on another
// value.
fn a_switch_with_a_value_other_than_0_or_1_is_refused_by_name() {
    for variable in &RCUTILS_VARIABLES[1..] {
        let out = run("config", &[(variable, "2")]);
        let said = text(&out.stdout);
        assert!(
            said.starts_with(&format!(
                "{variable}=\"2\" is not a valid value: expected 0"
            )),
            "{said}"
        );
    }
    let out = run("config", &[("RCUTILS_COLORIZED_OUTPUT", "1")]);
    assert_eq!(text(&out.stdout), "accepted\n");
}

fn an_invalid_environment_falls_back_to_the_defaults_and_says_so() {
    let out = run("return", &[("RCUTILS_LOGGING_USE_STDOUT", "yes")]);
    let stderr = text(&out.stderr);
    assert!(
        stderr
            .starts_with("tacto logging: RCUTILS_LOGGING_USE_STDOUT=\"yes\" is not a valid value"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("[INFO]")).count(),
        3
    );
    assert_eq!(text(&out.stdout), "");
}

fn lines_of_one_thread_are_written_in_call_order() {
    let out = run("order", &[("RCUTILS_CONSOLE_OUTPUT_FORMAT", "{message}")]);
    let lines: Vec<usize> = (text(&out.stderr).lines())
        .map(|l| l.parse().expect(l))
        .collect();
    assert_eq!(lines, (0..2000).collect::<Vec<_>>());
}

fn a_full_queue_drops_the_newest_records_and_says_how_many() {
    let out = run(
        "flood",
        &[("RCUTILS_CONSOLE_OUTPUT_FORMAT", "[{name}] {message}")],
    );
    assert!(out.status.success(), "{out:?}");
    let dropped: usize = (text(&out.stdout).trim())
        .strip_prefix("dropped ")
        .and_then(|n| n.parse().ok())
        .expect("the child's count");
    let stderr = text(&out.stderr);
    let written: Vec<usize> = (stderr.lines())
        .filter_map(|l| l.strip_prefix("[child] "))
        .map(|n| n.parse().expect(n))
        .collect();
    // What was queued is written, in call order; what found the queue full is lost, counted.
    assert!(dropped >= FLOOD - 2 * logging::QUEUE_CAPACITY, "{dropped}");
    assert_eq!(written.len() + dropped, FLOOD);
    assert!(written.windows(2).all(|w| w[0] < w[1]), "out of order");
    let report: Vec<&str> = (stderr.lines())
        .filter(|l| l.starts_with("[tacto.logging] "))
        .collect();
    assert_eq!(
        report,
        [format!(
            "[tacto.logging] {dropped} log records dropped: the queue to the logging thread \
             was full ({} records); {dropped} dropped since the process started",
            logging::QUEUE_CAPACITY
        )]
    );
}
