//! `Node::timer` runs on the node's ROS time, as rclcpp's `create_timer` (system time, or
//! `/clock` under `use_sim_time`), and `Node::wall_timer` on the steady clock, as
//! `create_wall_timer`. The `/clock` samples come from a publisher of the test's own process:
//! no DDS.
//!
//! Each behaviour is a function taking an executor; [`each_executor!`] turns it into one test
//! per executor. Each run of a timer stops the spin, so a test spins exactly until the run it
//! waits for; a fixed window ([`SETTLE`]) only watches for runs that must not happen.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tacto::msg::rosgraph_msgs;
use tacto::params::Parameter;
use tacto::{Activation, ClockKind, Context, Executor, Node, Publisher, Time};

#[macro_use]
mod util;
use util::{SETTLE, spin_until_stopped};

#[derive(Debug, Clone, Default)]
struct Activations(Arc<Mutex<Vec<Activation>>>);

impl Activations {
    fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }
    fn last(&self) -> Activation {
        *self.0.lock().unwrap().last().expect("ran")
    }
}

/// Gives `node` a timer of `period` made with `Node::timer`, each run noted and stopping the
/// spin.
fn add_timer(node: &mut Node, executor: &impl Executor, period: Duration) -> Activations {
    let activations = Activations::default();
    let log = activations.clone();
    let stop = executor.stop_handle();
    node.timer(period, move |a| {
        log.0.lock().unwrap().push(*a);
        stop.stop();
    })
    .unwrap();
    activations
}

/// A node of `ctx` with `use_sim_time` set true, as a launch file sets it.
fn sim_node(ctx: &Context, name: &str) -> Node {
    ctx.node_builder(name)
        .parameter_override(Parameter::new("use_sim_time", true))
        .create()
        .unwrap()
}

fn clock_publisher(ctx: &Context) -> Publisher<rosgraph_msgs::Clock> {
    let mut simulator = ctx.node("simulator").unwrap();
    simulator.publisher("/clock").create().unwrap()
}

fn publish_time(clock: &Publisher<rosgraph_msgs::Clock>, time: Time) {
    clock.publish(rosgraph_msgs::Clock { clock: time.into() });
}

fn secs(s: f64) -> Time {
    Time::from_nanos((s * 1e9) as i64)
}

each_executor!(a_node_timer_runs_on_system_time_without_sim_time);
fn a_node_timer_runs_on_system_time_without_sim_time(mut executor: impl Executor) {
    let ctx = Context::new();
    let mut node = ctx.node("wall_clock_free").unwrap();
    let activations = add_timer(&mut node, &executor, Duration::from_millis(1));
    executor.add(node).unwrap();
    let before = ctx.clock().now(ClockKind::System);
    spin_until_stopped(&mut executor);
    let after = ctx.clock().now(ClockKind::System);
    let time = activations.last().time();
    assert!(
        before <= time && time <= after,
        "{before} <= {time} <= {after}"
    );
}

each_executor!(a_node_timer_with_use_sim_time_runs_as_clock_advances_and_not_while_it_stops);
fn a_node_timer_with_use_sim_time_runs_as_clock_advances_and_not_while_it_stops(
    mut executor: impl Executor,
) {
    const PERIOD: Duration = Duration::from_millis(100);
    let ctx = Context::new();
    let mut node = sim_node(&ctx, "stepped");
    let activations = add_timer(&mut node, &executor, PERIOD);
    executor.add(node).unwrap();
    let clock = clock_publisher(&ctx);
    for step in 1..=3 {
        publish_time(&clock, Time::ZERO + PERIOD * step);
        spin_until_stopped(&mut executor);
        assert_eq!(activations.count(), step as usize);
        assert_eq!(activations.last().time(), Time::ZERO + PERIOD * step);
    }
    // `/clock` stops: many wall-clock periods pass, no ROS time.
    executor.spin_for(SETTLE.max(PERIOD * 3)).unwrap();
    assert_eq!(activations.count(), 3, "/clock stood still");
}

each_executor!(a_node_timer_follows_use_sim_time_set_after_its_executor_took_it);
/// As rcl's timer after `RCL_ROS_TIME_ACTIVATED` with the ROS time still zero: it waits for
/// `/clock`, and its period starts at the first `/clock` message (`rcl/src/rcl/timer.c`,
/// `_rcl_timer_time_jump`: no time credit while the clock is uninitialized, then a jump back
/// past the last call).
fn a_node_timer_follows_use_sim_time_set_after_its_executor_took_it(mut executor: impl Executor) {
    const PERIOD: Duration = Duration::from_millis(10);
    let ctx = Context::new();
    let mut node = ctx.node("switched").unwrap();
    let parameters = node.parameters().clone();
    let activations = add_timer(&mut node, &executor, PERIOD);
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);
    let ran = activations.count();
    assert!(
        activations.last().time() > secs(1e9),
        "on system time first"
    );

    let set = parameters.set_parameter(Parameter::new("use_sim_time", true));
    assert!(set.successful, "{set:?}");
    // The executor wakes for the deadline it had on system time, and finds ROS time zero.
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), ran, "no /clock yet: no run");

    let clock = clock_publisher(&ctx);
    let start = secs(100.0);
    publish_time(&clock, start);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(
        activations.count(),
        ran,
        "the period starts at the first /clock"
    );
    publish_time(&clock, start + PERIOD);
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), ran + 1);
    assert_eq!(activations.last().time(), start + PERIOD);
    assert_eq!(activations.last().missed_periods(), 0);
}

// The tests below are rcl's `test/rcl/test_timer.cpp` (Jazzy), on a node's timer under
// `use_sim_time`, with `/clock` messages where rcl calls `rcl_set_ros_time_override`.

each_executor!(a_timer_made_at_time_zero_runs_when_clock_reaches_its_period);
/// `test_rostime_time_until_next_call`: a 5 s timer made at ROS time 0; at 1 ns it waits
/// (5 s - 1 ns to go), at 5 s it is due.
fn a_timer_made_at_time_zero_runs_when_clock_reaches_its_period(mut executor: impl Executor) {
    let ctx = Context::new();
    let mut node = sim_node(&ctx, "zero");
    let activations = add_timer(&mut node, &executor, Duration::from_secs(5));
    executor.add(node).unwrap();
    let clock = clock_publisher(&ctx);
    publish_time(&clock, Time::from_nanos(1));
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), 0, "5 s - 1 ns to go");
    publish_time(&clock, secs(5.0));
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), 1);
    assert_eq!(activations.last().time(), secs(5.0));
    assert_eq!(activations.last().missed_periods(), 0);
}

each_executor!(a_jump_back_before_the_timer_was_made_restarts_it_one_period_later);
/// `test_ros_time_backwards_jump`: a 5 s timer made at 2 s; at 3 s it has 4 s to go; after a
/// jump back to 1 s, before it was made, it has one whole period to go: due at 6 s.
fn a_jump_back_before_the_timer_was_made_restarts_it_one_period_later(mut executor: impl Executor) {
    let ctx = Context::new();
    let clock = clock_publisher(&ctx);
    let mut node = sim_node(&ctx, "jumping");
    publish_time(&clock, secs(2.0));
    let activations = add_timer(&mut node, &executor, Duration::from_secs(5));
    executor.add(node).unwrap();

    publish_time(&clock, secs(3.0));
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), 0, "4 s to go");
    publish_time(&clock, secs(1.0));
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), 0, "5 s to go");
    publish_time(&clock, secs(6.0) - Duration::from_nanos(1));
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(
        activations.count(),
        0,
        "not at 7 s - 1 ns from the old start: restarted"
    );
    publish_time(&clock, secs(6.0));
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), 1);
    assert_eq!(activations.last().time(), secs(6.0));
}

each_executor!(clock_short_of_the_deadline_does_not_wake_a_timer_and_past_it_does);
/// `test_ros_time_wakes_wait`: a 1 s timer made at 1 s; `/clock` at 1.5 s does not wake it,
/// `/clock` at 5 s does (once: the deadlines of 2, 3 and 4 s count as missed).
fn clock_short_of_the_deadline_does_not_wake_a_timer_and_past_it_does(mut executor: impl Executor) {
    let ctx = Context::new();
    let clock = clock_publisher(&ctx);
    let mut node = sim_node(&ctx, "woken");
    publish_time(&clock, secs(1.0));
    let activations = add_timer(&mut node, &executor, Duration::from_secs(1));
    executor.add(node).unwrap();

    publish_time(&clock, secs(1.5));
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), 0);
    publish_time(&clock, secs(5.0));
    spin_until_stopped(&mut executor);
    // A window: replayed periods would follow at once.
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), 1);
    assert_eq!(activations.last().time(), secs(5.0));
    assert_eq!(activations.last().missed_periods(), 3);
}

each_executor!(a_wall_timer_runs_on_the_steady_clock_whatever_clock_says);
fn a_wall_timer_runs_on_the_steady_clock_whatever_clock_says(mut executor: impl Executor) {
    let ctx = Context::new();
    let mut node = sim_node(&ctx, "steady");
    let activations = Activations::default();
    let log = activations.clone();
    let stop = executor.stop_handle();
    node.wall_timer(Duration::from_millis(1), move |a| {
        log.0.lock().unwrap().push(*a);
        stop.stop();
    })
    .unwrap();
    executor.add(node).unwrap();
    let before = ctx.clock().now(ClockKind::Steady);
    // No `/clock` message ever: ROS time stands at zero.
    spin_until_stopped(&mut executor);
    let after = ctx.clock().now(ClockKind::Steady);
    let time = activations.last().time();
    assert!(
        before <= time && time <= after,
        "{before} <= {time} <= {after}"
    );
}

/// The LET executor runs a periodic trigger only on its own clock: a node's ROS timer needs
/// a LET executor on the ROS clock, and then follows `/clock` as the others do.
#[test]
fn a_node_timer_runs_on_a_let_executor_on_the_ros_clock() {
    use tacto::{AddError, LetExecutor};

    let ctx = Context::new();
    let mut steady = LetExecutor::new(Duration::from_millis(10)).unwrap();
    let mut node = sim_node(&ctx, "let_timer_refused");
    add_timer(&mut node, &steady, Duration::from_millis(10));
    assert!(
        matches!(steady.add(node), Err(AddError::UnsupportedTrigger { .. })),
        "a ROS timer on a steady LET executor"
    );

    let mut executor = LetExecutor::builder(Duration::from_millis(10))
        .clock(ctx.clock(), ClockKind::Ros)
        .create()
        .unwrap();
    let mut node = sim_node(&ctx, "let_timer");
    let activations = add_timer(&mut node, &executor, Duration::from_millis(10));
    executor.add(node).unwrap();
    let clock = clock_publisher(&ctx);
    publish_time(&clock, secs(1.0));
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), 1);
    assert_eq!(activations.last().time(), secs(1.0));
}
