//! The logging macros and their conditions, with the expectations of rcutils'
//! `test_logging_macros.cpp` and rclcpp's `test_logging.cpp` (Jazzy), and records of the `log`
//! facade. Each test logs under a logger of its own and reads what a sink got for it.

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tacto::logging::{self, Config, Logger, Record, Severity, Steady};
use tacto::msg::{builtin_interfaces, rosgraph_msgs};
use tacto::{Context, Time};

/// The records of logger `name` (and of its descendants), as a sink gets them.
struct Captured {
    records: Arc<Mutex<Vec<Record>>>,
    _sink: logging::SinkHandle,
}

impl Captured {
    fn new(name: &'static str) -> Captured {
        // The records are checked here, not on the console.
        drop(logging::init(Config {
            console: false,
            ..Config::default()
        }));
        let records = Arc::new(Mutex::new(Vec::new()));
        let keep = records.clone();
        let sink = logging::add_sink(move |record: &Record| {
            let below = record.name.strip_prefix(name);
            if below.is_some_and(|rest| rest.is_empty() || rest.starts_with('.')) {
                keep.lock().unwrap().push(record.clone());
            }
        });
        Captured {
            records,
            _sink: sink,
        }
    }

    /// Everything logged so far, once the logging thread has handed it over.
    fn records(&self) -> Vec<Record> {
        logging::flush();
        self.records.lock().unwrap().clone()
    }

    fn count(&self) -> usize {
        self.records().len()
    }

    fn last_message(&self) -> String {
        self.records()
            .last()
            .map(|r| r.message.clone())
            .unwrap_or_default()
    }
}

/// A logger of its own for one test, at DEBUG as rcutils' test fixture sets the default.
fn logger(name: &'static str) -> (Logger, Captured) {
    let captured = Captured::new(name);
    let logger = Logger::get(name);
    logger.set_level(Severity::Debug).unwrap();
    (logger, captured)
}

// rcutils test/test_logging_macros.cpp `test_logging_named`, rclcpp test_logging.cpp
// `test_logging_named`.
#[test]
fn a_record_carries_its_logger_severity_message_and_location() {
    let (logger, captured) = logger("macros_named");
    for i in [1, 2, 3] {
        tacto::debug!(logger, "message {i}");
    }
    let line = line!() - 2;
    let records = captured.records();
    assert_eq!(records.len(), 3);
    let last = records.last().unwrap();
    assert_eq!(last.severity, Severity::Debug);
    assert_eq!(&*last.name, "macros_named");
    assert_eq!(last.message, "message 3");
    let location = last.location.as_ref().unwrap();
    assert_eq!(
        location.function,
        "a_record_carries_its_logger_severity_message_and_location"
    );
    assert!(location.file.ends_with("logging_macros.rs"), "{location:?}");
    assert_eq!(location.line, line);
}

// rcutils test/test_logging_macros.cpp `test_logging_once`, rclcpp test_logging.cpp
// `test_logging_once`.
#[test]
fn once_logs_the_first_call_of_each_call_site() {
    let (logger, captured) = logger("macros_once");
    for i in [1, 2, 3] {
        tacto::info!(logger, once, "message {i}");
    }
    let records = captured.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].severity, Severity::Info);
    assert_eq!(records[0].message, "message 1");
    // Another call site has a state of its own.
    for i in [1, 2, 3] {
        tacto::info!(logger, once, "second message {i}");
    }
    assert_eq!(captured.count(), 2);
    assert_eq!(captured.last_message(), "second message 1");
}

// rcutils test/test_logging_macros.cpp `test_logging_expression`, rclcpp test_logging.cpp
// `test_logging_expression`.
#[test]
fn when_logs_the_calls_whose_condition_holds() {
    let (logger, captured) = logger("macros_expression");
    for i in [1, 2, 3, 4, 5, 6] {
        tacto::info!(logger, when(i % 3 != 0), "message {i}");
    }
    assert_eq!(captured.count(), 4);
    assert_eq!(captured.last_message(), "message 5");
}

// rcutils test/test_logging_macros.cpp `test_logging_function`, rclcpp test_logging.cpp
// `test_logging_function`.
#[test]
fn a_condition_is_not_evaluated_when_the_severity_is_disabled() {
    let (logger, captured) = logger("macros_function");
    let calls = AtomicUsize::new(0);
    let not_divisible_by_three = |i: i32| {
        calls.fetch_add(1, Ordering::Relaxed);
        i % 3 != 0
    };
    logger.set_level(Severity::Info).unwrap();
    for i in [0, 1] {
        tacto::debug!(logger, when(not_divisible_by_three(i)), "message {i}");
    }
    assert_eq!(captured.count(), 0);
    assert_eq!(calls.load(Ordering::Relaxed), 0);

    logger.set_level(Severity::Debug).unwrap();
    for i in [1, 2, 3, 4, 5, 6] {
        tacto::info!(logger, when(not_divisible_by_three(i)), "message {i}");
    }
    assert_eq!(captured.count(), 4);
    assert_eq!(calls.load(Ordering::Relaxed), 6);
    assert_eq!(captured.last_message(), "message 5");
}

#[test]
fn the_arguments_of_a_disabled_record_are_not_evaluated() {
    let (logger, captured) = logger("macros_lazy_arguments");
    logger.set_level(Severity::Warn).unwrap();
    let evaluated = AtomicUsize::new(0);
    let costly = || evaluated.fetch_add(1, Ordering::Relaxed);
    tacto::info!(logger, "{}", costly());
    assert_eq!(evaluated.load(Ordering::Relaxed), 0);
    tacto::warn!(logger, "{}", costly());
    assert_eq!(evaluated.load(Ordering::Relaxed), 1);
    assert_eq!(captured.count(), 1);
}

// rcutils test/test_logging_macros.cpp `test_logging_skipfirst`, rclcpp test_logging.cpp
// `test_logging_skipfirst`.
#[test]
fn skip_first_logs_every_call_but_the_first() {
    let (logger, captured) = logger("macros_skipfirst");
    for i in 1..=5 {
        tacto::warn!(logger, skip_first, "message {i}");
        assert_eq!(captured.count(), i - 1);
    }
}

/// A clock the test moves, as rcl's ROS time override does.
fn manual_clock(start: Duration) -> (Arc<AtomicI64>, impl Fn() -> Time + Clone) {
    let now = Arc::new(AtomicI64::new(start.as_nanos() as i64));
    let read = now.clone();
    (now, move || Time::from_nanos(read.load(Ordering::Relaxed)))
}

// rcutils test/test_logging_macros.cpp `test_logging_throttle`, on a clock moved 5 ms per call
// instead of sleeping: "first" logs, calls within 200 ms are throttled, the first call at or
// after 200 ms logs.
#[test]
fn throttle_logs_again_once_the_period_has_passed() {
    let (logger, captured) = logger("macros_throttle");
    let (now, clock) = manual_clock(Duration::from_secs(1000));
    let start = now.load(Ordering::Relaxed);
    let mut first = true;
    while now.load(Ordering::Relaxed) - start <= 200_000_000 {
        let message = if first { "first" } else { "other" };
        tacto::error!(
            logger,
            throttle(clock, Duration::from_millis(200)),
            "{message}"
        );
        first = false;
        if now.load(Ordering::Relaxed) - start < 200_000_000 {
            assert_eq!(captured.count(), 1);
            assert_eq!(captured.last_message(), "first");
        }
        now.fetch_add(5_000_000, Ordering::Relaxed);
    }
    let records = captured.records();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].message, "other");
    assert_eq!(records[1].severity, Severity::Error);
}

// rcutils test/test_logging_macros.cpp `test_logging_skipfirst_throttle`, on a moved clock: the
// first call passes the throttle and is skipped; the next to pass, 200 ms on, logs.
#[test]
fn skip_first_with_throttle_skips_the_first_call_that_passes_the_throttle() {
    let (logger, captured) = logger("macros_skipfirst_throttle");
    let (now, clock) = manual_clock(Duration::from_secs(1000));
    let start = now.load(Ordering::Relaxed);
    let mut first = true;
    while now.load(Ordering::Relaxed) - start <= 200_000_000 {
        let message = if first { "first" } else { "other" };
        tacto::fatal!(
            logger,
            skip_first,
            throttle(clock, Duration::from_millis(200)),
            "{message}"
        );
        first = false;
        if now.load(Ordering::Relaxed) - start < 200_000_000 {
            assert_eq!(captured.count(), 0);
        }
        now.fetch_add(5_000_000, Ordering::Relaxed);
    }
    let records = captured.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].message, "other");
    assert_eq!(records[0].severity, Severity::Fatal);
}

// rclcpp test/rclcpp/test_logging.cpp `test_throttle`, first part, with the steady clock for
// the long period and a moved clock for the 50 ms sleeps: one site logs once in 10 s, a
// skip-first one never logs in its first period, and over 300 ms a 100 ms throttle logs 3
// times while a 400 ms skip-first throttle logs none: 4 in all.
#[test]
fn throttled_sites_keep_their_own_periods() {
    let (logger, captured) = logger("macros_throttle_sites");
    for _ in 0..3 {
        tacto::debug!(
            logger,
            throttle(Steady, Duration::from_secs(10)),
            "Throttling"
        );
    }
    assert_eq!(captured.count(), 1);
    tacto::debug!(
        logger,
        skip_first,
        throttle(Steady, Duration::from_millis(1)),
        "Skip first throttling"
    );
    assert_eq!(captured.count(), 1);
    let (now, clock) = manual_clock(Duration::from_secs(1000));
    for _ in 0..6 {
        tacto::debug!(
            logger,
            throttle(clock, Duration::from_millis(100)),
            "Throttling"
        );
        tacto::debug!(
            logger,
            skip_first,
            throttle(clock, Duration::from_millis(400)),
            "Throttling"
        );
        now.fetch_add(50_000_000, Ordering::Relaxed);
    }
    assert_eq!(captured.count(), 4);
}

// rclcpp test/rclcpp/test_logging.cpp `test_throttle`, the ROS clock parts: a node's clock
// under simulated time, moved by `/clock` as rcl's ROS time override moves it. At time 0 a
// 10 s throttle does not log (rcutils counts from 0); at 10 ms a 10 ms one does, and again at
// 20 ms; a fresh site at 10 ms logs, not at 15 ms, and again at 20 ms.
#[test]
fn throttle_follows_a_node_clock_under_simulated_time() {
    let (logger, captured) = logger("macros_throttle_ros");
    let ctx = Context::new();
    ctx.use_sim_time().unwrap();
    let mut node = ctx.node("sim_clock").unwrap();
    let clock_out = node
        .publisher::<rosgraph_msgs::Clock>("/clock")
        .create()
        .unwrap();
    let set_time = |millis: i64| {
        let stamp: builtin_interfaces::Time = Time::from_nanos(millis * 1_000_000).into();
        clock_out.publish(rosgraph_msgs::Clock { clock: stamp });
    };
    let clock = ctx.clock().clone();

    tacto::debug!(
        logger,
        throttle(clock, Duration::from_secs(10)),
        "Throttling"
    );
    assert_eq!(captured.count(), 0);
    set_time(10);
    for i in 0..2 {
        tacto::debug!(
            logger,
            throttle(clock, Duration::from_millis(10)),
            "Throttling"
        );
        if i == 0 {
            assert_eq!(captured.count(), 1);
            set_time(20);
        } else {
            assert_eq!(captured.count(), 2);
        }
    }
    set_time(10);
    for (i, next) in [(0, 15), (1, 20), (2, 0)] {
        tacto::debug!(
            logger,
            throttle(&clock, Duration::from_millis(10)),
            "Throttling"
        );
        match i {
            0 => assert_eq!(captured.count(), 3),
            1 => assert_eq!(captured.count(), 3),
            _ => assert_eq!(captured.count(), 4),
        }
        set_time(next);
    }
}

// rcutils test/test_logging_macros.cpp `test_logger_hierarchy`.
#[test]
fn a_descendant_of_a_warn_logger_writes_no_info() {
    let captured = Captured::new("rcutils_test_logging_macros_cpp");
    Logger::get("rcutils_test_logging_macros_cpp")
        .set_level(Severity::Warn)
        .unwrap();
    let deep = Logger::get("rcutils_test_logging_macros_cpp.testing.x.y.x");
    tacto::info!(deep, "message");
    assert_eq!(captured.count(), 0);
    tacto::warn!(deep, "message");
    assert_eq!(captured.count(), 1);
}

// rclcpp test/rclcpp/test_logger.cpp `set_level`: at each level, the records below it are not
// written and those at it are.
#[test]
fn each_level_writes_what_is_at_least_as_severe() {
    let captured = Captured::new("rclcpp_set_level");
    let logger = Logger::get("rclcpp_set_level");
    let log_all = || {
        tacto::debug!(logger, "message {}", "debug");
        tacto::info!(logger, "message {}", "info");
        tacto::warn!(logger, "message {}", "warn");
        tacto::error!(logger, "message {}", "error");
        tacto::fatal!(logger, "message {}", "fatal");
    };
    let severities = [
        Severity::Debug,
        Severity::Info,
        Severity::Warn,
        Severity::Error,
        Severity::Fatal,
    ];
    let mut expected = 0;
    for level in [Severity::Unset].into_iter().chain(severities) {
        logger.set_level(level).unwrap();
        let before = captured.count();
        log_all();
        let records = captured.records();
        let written: Vec<&str> = records[before..]
            .iter()
            .map(|r| r.message.as_str())
            .collect();
        let floor = if level == Severity::Unset {
            Severity::Info
        } else {
            level
        };
        let wanted: Vec<String> = (severities.iter())
            .filter(|s| **s >= floor)
            .map(|s| format!("message {}", s.name().to_lowercase()))
            .collect();
        assert_eq!(written, wanted, "{level}");
        expected += wanted.len();
    }
    assert_eq!(captured.count(), expected);
}

// rclcpp test/rclcpp/test_logging.cpp `test_log_from_node` and `test_parameter_expression` (a
// logger as an expression: here a temporary, and an `Arc`).
#[test]
fn a_logger_is_taken_by_value_by_reference_or_as_an_expression() {
    let (logger, captured) = logger("macros_logger_forms");
    fn by_value(logger: Logger) -> bool {
        tacto::info!(logger, "successful log");
        true
    }
    fn by_reference(logger: &Logger) -> bool {
        tacto::info!(logger, "successful log");
        true
    }
    assert!(by_value(logger.clone()));
    assert!(by_reference(&logger));
    tacto::info!(Arc::new(logger.clone()), "message");
    tacto::info!(Logger::get("macros_logger_forms"), "message");
    assert_eq!(captured.count(), 4);
}

#[test]
fn a_child_logger_logs_under_its_dotted_name() {
    let (logger, captured) = logger("macros_child");
    tacto::info!(logger.child("io"), "read");
    assert_eq!(&*captured.records()[0].name, "macros_child.io");
}

#[test]
fn records_of_the_log_facade_are_named_after_their_target_and_follow_its_levels() {
    // Captured::new calls `init`, which installs the facade's logger.
    let captured = Captured::new("facade_test");
    Logger::get("facade_test")
        .set_level(Severity::Warn)
        .unwrap();
    log::info!(target: "facade_test::driver", "below the level");
    log::error!(target: "facade_test::driver", "broken {}", 7);
    log::trace!(target: "facade_test::driver", "also below");
    let records = captured.records();
    assert_eq!(records.len(), 1);
    assert_eq!(&*records[0].name, "facade_test.driver");
    assert_eq!(records[0].severity, Severity::Error);
    assert_eq!(records[0].message, "broken 7");
    assert!(
        records[0]
            .location
            .as_ref()
            .unwrap()
            .file
            .ends_with("logging_macros.rs")
    );

    // Trace is DEBUG: written once the logger is at DEBUG.
    Logger::get("facade_test")
        .set_level(Severity::Debug)
        .unwrap();
    log::trace!(target: "facade_test::driver", "traced");
    let records = captured.records();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].severity, Severity::Debug);
}

#[test]
fn records_reach_a_sink_in_call_order() {
    let (logger, captured) = logger("macros_order");
    for i in 0..1000 {
        tacto::info!(logger, "{i}");
    }
    let messages: Vec<String> = captured.records().into_iter().map(|r| r.message).collect();
    let expected: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    assert_eq!(messages, expected);
}
