//! Logger levels: rcutils' hierarchy, default level and severity names, and rclcpp's `Logger`,
//! with the expectations of their own tests (Jazzy). Levels are process-wide: each test uses
//! loggers of its own, and those that change the default level hold `DEFAULT`.

use std::sync::{Mutex, MutexGuard};

use tacto::logging::{
    self, Logger, MAX_LOGGER_LEVELS, Severity, default_level, effective_level, logger_level,
    set_default_level, set_logger_level,
};

static DEFAULT: Mutex<()> = Mutex::new(());

/// Holds the default level for one test, and puts rcutils' default back when dropped.
fn default_lock() -> impl Drop {
    struct Restore(#[allow(dead_code)] MutexGuard<'static, ()>);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_logger_level("", Severity::Unset).unwrap();
            set_default_level(Severity::Unset);
        }
    }
    let guard = DEFAULT.lock().unwrap_or_else(|e| e.into_inner());
    Restore(guard)
}

// rcutils test/test_logging.cpp `test_log_severity`.
#[test]
fn severity_names_parse_in_any_case_and_nothing_else_does() {
    let _default = default_lock();
    for (name, severity) in [
        ("UNSET", Severity::Unset),
        ("DEBUG", Severity::Debug),
        ("INFO", Severity::Info),
        ("WARN", Severity::Warn),
        ("ERROR", Severity::Error),
        ("FATAL", Severity::Fatal),
        ("info", Severity::Info),
        ("Info", Severity::Info),
    ] {
        assert_eq!(name.parse::<Severity>(), Ok(severity), "{name}");
    }
    assert!("unknown".parse::<Severity>().is_err());
    // Not in rcutils' name table (`g_rcutils_log_severity_names`) either.
    assert!("warning".parse::<Severity>().is_err());
}

// rcutils test/test_logging.cpp `test_logger_severities`, the part on named loggers.
#[test]
fn a_logger_level_set_reads_back_and_unset_falls_back_to_the_default() {
    let _default = default_lock();
    set_default_level(Severity::Info);
    set_logger_level("rcutils_test_loggers", Severity::Warn).unwrap();
    assert_eq!(logger_level("rcutils_test_loggers"), Severity::Warn);
    assert_eq!(effective_level("rcutils_test_loggers"), Severity::Warn);
    set_logger_level("rcutils_test_loggers", Severity::Unset).unwrap();
    assert_eq!(effective_level("rcutils_test_loggers"), default_level());
    assert_eq!(logger_level("rcutils_test_loggers"), Severity::Unset);
}

// rcutils test/test_logging.cpp `test_logger_severities`: the default set through the empty
// name.
#[test]
fn the_empty_name_sets_and_reads_the_default_level() {
    let _default = default_lock();
    set_logger_level("", Severity::Fatal).unwrap();
    assert_eq!(default_level(), Severity::Fatal);
    assert_eq!(logger_level(""), Severity::Fatal);
    assert_eq!(effective_level(""), Severity::Fatal);
}

// rcutils test/test_logging.cpp `test_logging`: the default cannot be made UNSET that way.
#[test]
fn setting_the_default_level_to_unset_restores_info() {
    let _default = default_lock();
    set_default_level(Severity::Error);
    assert_eq!(default_level(), Severity::Error);
    set_default_level(Severity::Unset);
    assert_eq!(default_level(), Severity::Info);
}

// rcutils test/test_logging.cpp `test_root_logger_after_nonexistent`.
#[test]
fn the_root_logger_set_to_unset_lets_everything_through() {
    let _default = default_lock();
    let original = effective_level("my_internal_logger_name");
    set_logger_level("my_internal_logger_name", Severity::Debug).unwrap();
    assert_eq!(effective_level("my_internal_logger_name"), Severity::Debug);
    set_logger_level("my_internal_logger_name", original).unwrap();

    let logger = Logger::get("root_after_nonexistent");
    set_logger_level("", Severity::Unset).unwrap();
    assert_eq!(effective_level(""), Severity::Unset);
    assert!(logger.is_enabled_for(Severity::Debug));
}

// rcutils test/test_logging.cpp `test_logger_severity_hierarchy`.
#[test]
fn the_nearest_dotted_ancestor_with_a_level_gives_it() {
    let _default = default_lock();
    set_default_level(Severity::Info);
    set_logger_level("rcutils_test_logging_cpp", Severity::Warn).unwrap();
    set_logger_level("rcutils_test_logging_cpp.testing", Severity::Debug).unwrap();
    set_logger_level("rcutils_test_logging_cpp.testing.x", Severity::Error).unwrap();

    let cases = [
        ("rcutils_test_logging_cpp.testing.x", Severity::Error),
        ("rcutils_test_logging_cpp.testing.x.y.x", Severity::Error),
        ("rcutils_test_logging_cpp.testing", Severity::Debug),
        ("rcutils_test_logging_cpp", Severity::Warn),
        ("rcutils_test_logging_cpp.testing2", Severity::Warn),
        (".name", default_level()),
        ("rcutils_test_logging_cpp_testing", default_level()),
    ];
    for (name, level) in cases {
        assert_eq!(effective_level(name), level, "{name}");
        // A logger caches the same level.
        assert_eq!(Logger::get(name).effective_level(), level, "{name}");
    }
    for name in [
        "rcutils_test_logging_cpp",
        "rcutils_test_logging_cpp.testing",
        "rcutils_test_logging_cpp.testing.x",
    ] {
        set_logger_level(name, Severity::Unset).unwrap();
    }
    // Trailing dots: an empty child name.
    set_logger_level("rcutils_test_logging_cpp.", Severity::Fatal).unwrap();
    assert_eq!(
        effective_level("rcutils_test_logging_cpp.."),
        Severity::Fatal
    );
    set_logger_level("rcutils_test_logging_cpp.", Severity::Unset).unwrap();
}

// rcutils test/test_logging.cpp `test_logger_unset_change_ancestor`.
#[test]
fn an_unset_descendant_follows_its_ancestor_when_the_ancestor_changes() {
    let _default = default_lock();
    let child = Logger::get("unset_change_ancestor.x");
    set_logger_level("unset_change_ancestor", Severity::Warn).unwrap();
    set_logger_level("unset_change_ancestor.x", Severity::Unset).unwrap();
    assert_eq!(effective_level("unset_change_ancestor"), Severity::Warn);
    assert_eq!(child.effective_level(), Severity::Warn);

    set_logger_level("unset_change_ancestor", Severity::Debug).unwrap();
    assert_eq!(effective_level("unset_change_ancestor"), Severity::Debug);
    assert_eq!(child.effective_level(), Severity::Debug);
}

// rcutils test/test_logging.cpp `test_logger_set_change_ancestor`.
#[test]
fn a_descendant_with_its_own_level_keeps_it_when_the_ancestor_changes() {
    let _default = default_lock();
    let child = Logger::get("set_change_ancestor.x");
    set_logger_level("set_change_ancestor", Severity::Warn).unwrap();
    set_logger_level("set_change_ancestor.x", Severity::Fatal).unwrap();
    assert_eq!(effective_level("set_change_ancestor"), Severity::Warn);
    assert_eq!(child.effective_level(), Severity::Fatal);

    set_logger_level("set_change_ancestor", Severity::Debug).unwrap();
    assert_eq!(effective_level("set_change_ancestor"), Severity::Debug);
    assert_eq!(child.effective_level(), Severity::Fatal);
}

// rcutils test/test_logging_enable_for.cpp `test_logging_logger_is_enabled_for`.
#[test]
fn a_logger_is_enabled_for_its_own_level() {
    let _default = default_lock();
    let logger = Logger::get("rmw_fastrtps_cpp_enable_for");
    assert!(!logger.is_enabled_for(Severity::Debug));
    for level in [
        Severity::Debug,
        Severity::Info,
        Severity::Warn,
        Severity::Error,
        Severity::Fatal,
    ] {
        logger.set_level(level).unwrap();
        assert!(logger.is_enabled_for(level), "{level}");
    }
}

// rcutils test/test_logging_enable_for.cpp `test_logger_is_enabled_for`.
#[test]
fn loggers_without_a_level_are_enabled_from_the_default_level() {
    let _default = default_lock();
    let logger = Logger::get("rcutils_test_loggers_enable_for");
    assert!(!logger.is_enabled_for(Severity::Debug));
    assert!(logger.is_enabled_for(Severity::Fatal));
    assert!(logger.is_enabled_for(Severity::Info));
    logger.set_level(Severity::Warn).unwrap();
    assert!(!logger.is_enabled_for(Severity::Info));
    for name in ["", "name_that_doesn't_exist", "name.that.doesn't.exist"] {
        let logger = Logger::get(name);
        assert!(logger.is_enabled_for(Severity::Fatal), "{name:?}");
        assert!(!logger.is_enabled_for(Severity::Debug), "{name:?}");
    }
}

// rclcpp test/rclcpp/test_logger.cpp `factory_functions` and `hierarchy`.
#[test]
fn children_are_named_parent_dot_suffix() {
    let _default = default_lock();
    let logger = Logger::get("test_logger");
    assert_eq!(logger.name(), "test_logger");
    assert_eq!(logger.clone().name(), "test_logger");
    let child = logger.child("child");
    assert_eq!(child.name(), "test_logger.child");
    assert_eq!(
        child.child("grandchild").name(),
        "test_logger.child.grandchild"
    );
}

// rclcpp test/rclcpp/test_logger.cpp `get_node_logger`, and rcl's
// `rcl_create_node_logger_name`.
#[test]
fn a_node_logger_is_its_namespace_with_dots_then_its_name() {
    let _default = default_lock();
    assert_eq!(Logger::for_node("/ns", "my_node").name(), "ns.my_node");
    assert_eq!(Logger::for_node("/", "my_node").name(), "my_node");
    assert_eq!(Logger::for_node("/a/b", "n").name(), "a.b.n");
}

// rclcpp test/rclcpp/test_logger.cpp `get_effective_level`.
#[test]
fn a_child_without_a_level_follows_every_level_of_its_parent() {
    let _default = default_lock();
    let logger = Logger::get("rclcpp_effective_level");
    let child = Logger::get("rclcpp_effective_level.child");
    child.set_level(Severity::Unset).unwrap();
    assert_eq!(logger.effective_level(), Severity::Info);
    assert_eq!(child.effective_level(), Severity::Info);
    for level in [
        Severity::Unset,
        Severity::Debug,
        Severity::Info,
        Severity::Warn,
        Severity::Error,
        Severity::Fatal,
    ] {
        logger.set_level(level).unwrap();
        let expected = match level {
            Severity::Unset => Severity::Info,
            level => level,
        };
        assert_eq!(logger.effective_level(), expected, "{level}");
        assert_eq!(child.effective_level(), expected, "{level}");
    }
}

#[test]
fn loggers_of_one_name_share_their_level() {
    let _default = default_lock();
    let a = Logger::get("shared_level");
    let b = Logger::get("shared_level");
    a.set_level(Severity::Error).unwrap();
    assert_eq!(b.effective_level(), Severity::Error);
    assert_eq!(b.level(), Severity::Error);
}

#[test]
fn a_logger_made_after_its_ancestor_has_a_level_starts_with_it() {
    let _default = default_lock();
    set_logger_level("late_made", Severity::Debug).unwrap();
    assert!(Logger::get("late_made.child.grandchild").is_enabled_for(Severity::Debug));
}

#[test]
fn levels_by_name_are_bounded_and_unsetting_one_makes_room() {
    let _default = default_lock();
    for i in 0..MAX_LOGGER_LEVELS {
        // Some may exist already (other tests'): filling up to the bound is what matters.
        if set_logger_level(&format!("bounded.{i}"), Severity::Warn).is_err() {
            break;
        }
    }
    let error = set_logger_level("bounded.one_too_many", Severity::Warn).unwrap_err();
    assert!(error.to_string().contains("4096"), "{error}");
    set_logger_level("bounded.0", Severity::Unset).unwrap();
    set_logger_level("bounded.one_too_many", Severity::Warn).unwrap();
    // Back as before, for the other tests.
    set_logger_level("bounded.one_too_many", Severity::Unset).unwrap();
    for i in 0..MAX_LOGGER_LEVELS {
        set_logger_level(&format!("bounded.{i}"), Severity::Unset).unwrap();
    }
    assert!(logging::set_logger_level("bounded.again", Severity::Warn).is_ok());
    set_logger_level("bounded.again", Severity::Unset).unwrap();
}
