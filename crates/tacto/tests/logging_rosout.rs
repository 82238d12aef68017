//! `/rosout`: a node's publisher fed by the logging thread, as rcl's `logging_rosout.c` does it,
//! seen by a subscription in the same process. The configuration is process-wide: every test
//! holds `CONFIG`.

use std::sync::{Mutex, MutexGuard};

use tacto::logging::{self, Config, Logger, ROSOUT_TOPIC, RosoutLink, Severity};
use tacto::msg::rcl_interfaces::msg::Log;
use tacto::{ClockKind, Context, Node, Subscription, Time};

static CONFIG: Mutex<()> = Mutex::new(());

/// Holds the configuration: `/rosout` on, console off (the records are checked here).
fn config(rosout: bool) -> MutexGuard<'static, ()> {
    let guard = CONFIG.lock().unwrap_or_else(|e| e.into_inner());
    drop(logging::init(Config {
        console: false,
        rosout,
        ..Config::default()
    }));
    guard
}

/// What a node of `name` gets from the runtime: its logger and its attached `/rosout`
/// publisher.
fn node_with_rosout(ctx: &Context, name: &str) -> (Node, Logger, RosoutLink) {
    let mut node = ctx.node(name).unwrap();
    let logger = Logger::for_node("/", node.name());
    let publisher = node
        .publisher::<Log>(ROSOUT_TOPIC)
        .qos(logging::rosout_qos())
        .create()
        .unwrap();
    let link = logging::attach_rosout(logger.name(), publisher);
    (node, logger, link)
}

fn echo(ctx: &Context, name: &str) -> (Node, Subscription<Log>) {
    let mut node = ctx.node(name).unwrap();
    let rosout = node
        .subscription::<Log>(ROSOUT_TOPIC)
        .qos(logging::rosout_qos())
        .create()
        .unwrap();
    (node, rosout)
}

fn messages(rosout: &Subscription<Log>) -> Vec<(String, String)> {
    logging::flush();
    (rosout.take_all())
        .map(|log| (log.name.clone(), log.msg.clone()))
        .collect()
}

#[test]
fn a_subscription_on_rosout_receives_a_record_with_its_fields() {
    let _config = config(true);
    let ctx = Context::new();
    let (_talker, logger, _link) = node_with_rosout(&ctx, "rosout_talker");
    let (_echo, rosout) = echo(&ctx, "rosout_echo");

    let before = ctx.clock().now(ClockKind::System);
    tacto::warn!(logger, "x = {}", 42);
    let line = line!() - 1;
    logging::flush();
    let after = ctx.clock().now(ClockKind::System);

    let log = rosout.take().expect("a Log on /rosout");
    assert_eq!(log.name, "rosout_talker");
    assert_eq!(log.msg, "x = 42");
    assert_eq!(log.level, Log::WARN);
    assert_eq!(log.line, line);
    assert_eq!(
        log.function,
        "a_subscription_on_rosout_receives_a_record_with_its_fields"
    );
    assert!(log.file.ends_with("logging_rosout.rs"), "{}", log.file);
    let stamp = Time::from(log.stamp);
    assert!(
        before <= stamp && stamp <= after,
        "{stamp} not in {before}..{after}"
    );
    assert!(rosout.take().is_none());
}

// rcl's `rcl_logging_rosout_add_sublogger`: rclcpp's `get_child` loggers publish through their
// node's publisher; a logger of no node publishes nothing.
#[test]
fn a_child_logger_publishes_through_its_node_and_a_foreign_logger_not_at_all() {
    let _config = config(true);
    let ctx = Context::new();
    let (_talker, logger, _link) = node_with_rosout(&ctx, "rosout_parent");
    let (_echo, rosout) = echo(&ctx, "rosout_parent_echo");

    tacto::info!(logger.child("io").child("usb"), "plugged");
    tacto::info!(Logger::get("rosout_parent_not_a_child"), "elsewhere");
    tacto::debug!(logger, "below the level");
    assert_eq!(
        messages(&rosout),
        [("rosout_parent.io.usb".to_owned(), "plugged".to_owned())]
    );
}

#[test]
fn a_detached_publisher_publishes_no_more() {
    let _config = config(true);
    let ctx = Context::new();
    let (_talker, logger, link) = node_with_rosout(&ctx, "rosout_detached");
    let (_echo, rosout) = echo(&ctx, "rosout_detached_echo");
    tacto::info!(logger, "before");
    logging::flush();
    drop(link);
    tacto::info!(logger, "after");
    assert_eq!(
        messages(&rosout),
        [("rosout_detached".to_owned(), "before".to_owned())]
    );
}

// rcl_qos_profile_rosout_default: transient local, so a late subscriber gets what was logged.
#[test]
fn a_late_transient_local_subscription_gets_earlier_records() {
    let _config = config(true);
    let ctx = Context::new();
    let (_talker, logger, _link) = node_with_rosout(&ctx, "rosout_latched");
    for i in 0..3 {
        tacto::info!(logger, "{i}");
    }
    logging::flush();
    let (_echo, rosout) = echo(&ctx, "rosout_latched_echo");
    let got: Vec<String> = messages(&rosout).into_iter().map(|(_, m)| m).collect();
    assert_eq!(got, ["0", "1", "2"]);
}

// rcl_logging_rosout_init_publisher_for_node: a second publisher for a logger name that has
// one is not used; the first keeps publishing.
#[test]
fn a_second_publisher_for_the_same_logger_leaves_the_first_attached() {
    let _config = config(true);
    let first_ctx = Context::new();
    let second_ctx = Context::new();
    let (_first, logger, _first_link) = node_with_rosout(&first_ctx, "rosout_twice");
    let (_second, _, second_link) = node_with_rosout(&second_ctx, "rosout_twice");
    let (_echo, rosout) = echo(&first_ctx, "rosout_twice_echo");
    drop(second_link);
    tacto::info!(logger, "still here");
    assert_eq!(
        messages(&rosout),
        [("rosout_twice".to_owned(), "still here".to_owned())]
    );
}

// --disable-rosout-logs.
#[test]
fn with_rosout_disabled_nothing_is_published() {
    let _config = config(false);
    assert!(!logging::rosout_enabled());
    let ctx = Context::new();
    let (_talker, logger, _link) = node_with_rosout(&ctx, "rosout_disabled");
    let (_echo, rosout) = echo(&ctx, "rosout_disabled_echo");
    tacto::error!(logger, "unseen");
    assert!(messages(&rosout).is_empty());
    drop(logging::init(Config {
        console: false,
        ..Config::default()
    }));
    assert!(logging::rosout_enabled());
    tacto::error!(logger, "seen");
    assert_eq!(messages(&rosout).len(), 1);
    assert_eq!(logger.effective_level(), Severity::Info);
}
