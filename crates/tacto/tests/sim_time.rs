//! Simulated time: with `use_sim_time`, timers on the ROS clock follow `/clock`, on every
//! executor, and ignore the wall clock.
//!
//! Each behaviour is a function taking an executor; [`each_executor!`] turns it into one test
//! per executor. Each run of the timer stops the spin, so a test spins exactly until the run
//! it waits for; a fixed window ([`SETTLE`]) only watches for runs that must not happen.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tacto::msg::rosgraph_msgs;
use tacto::{Activation, ClockKind, Context, Executor, Publisher, Time, Trigger};

#[macro_use]
mod util;
use util::{SETTLE, spin_until_stopped};

const PERIOD: Duration = Duration::from_millis(10);

/// Turns on sim time in `ctx`, and adds to `executor` a node whose timer runs every [`PERIOD`]
/// of ROS time, each run stopping the spin; returns the `/clock` publisher and the timer's
/// activations.
fn sim_timer(
    ctx: &Context,
    executor: &mut impl Executor,
) -> (Publisher<rosgraph_msgs::Clock>, Activations) {
    ctx.use_sim_time().unwrap();
    let mut node = ctx.node("sim_timer").unwrap();
    let activations = Activations::default();
    let log = activations.clone();
    let trigger = Trigger::every(PERIOD).clock(ClockKind::Ros);
    let stop = executor.stop_handle();
    node.execute(trigger, move |a| {
        log.0.lock().unwrap().push(*a);
        stop.stop();
    })
    .unwrap();
    executor.add(node).unwrap();
    let mut simulator = ctx.node("simulator").unwrap();
    let clock = simulator.publisher("/clock").create().unwrap();
    (clock, activations)
}

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

fn publish_time(clock: &Publisher<rosgraph_msgs::Clock>, time: Time) {
    clock.publish(rosgraph_msgs::Clock { clock: time.into() });
}

fn periods(n: u32) -> Time {
    Time::ZERO + PERIOD * n
}

each_executor!(a_ros_timer_never_runs_without_clock_messages);
fn a_ros_timer_never_runs_without_clock_messages(mut executor: impl Executor) {
    let ctx = Context::new();
    let (_clock, activations) = sim_timer(&ctx, &mut executor);
    // A window: watches for a run that must not happen.
    executor.spin_for(PERIOD * 10).unwrap();
    assert_eq!(
        activations.count(),
        0,
        "ten wall-clock periods passed, no ROS time"
    );
}

each_executor!(each_clock_step_of_one_period_runs_a_ros_timer_once);
fn each_clock_step_of_one_period_runs_a_ros_timer_once(mut executor: impl Executor) {
    let ctx = Context::new();
    let (clock, activations) = sim_timer(&ctx, &mut executor);
    for step in 1..=5 {
        publish_time(&clock, periods(step));
        spin_until_stopped(&mut executor);
        // A window: a second run for the step would follow at once.
        executor.spin_for(SETTLE).unwrap();
        assert_eq!(activations.count(), step as usize);
        let last = activations.last();
        assert_eq!(last.time(), periods(step), "it runs at the simulated time");
        assert_eq!(last.missed_periods(), 0);
    }
}

each_executor!(clock_messages_between_deadlines_do_not_run_a_ros_timer);
fn clock_messages_between_deadlines_do_not_run_a_ros_timer(mut executor: impl Executor) {
    let ctx = Context::new();
    let (clock, activations) = sim_timer(&ctx, &mut executor);
    publish_time(&clock, periods(1) - PERIOD / 2);
    executor.spin_for(SETTLE).unwrap(); // a window: watches for a run that must not happen
    assert_eq!(activations.count(), 0);
    publish_time(&clock, periods(1));
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), 1);
}

each_executor!(a_clock_jump_of_several_periods_runs_a_ros_timer_once_reporting_the_missed_ones);
fn a_clock_jump_of_several_periods_runs_a_ros_timer_once_reporting_the_missed_ones(
    mut executor: impl Executor,
) {
    let ctx = Context::new();
    let (clock, activations) = sim_timer(&ctx, &mut executor);
    publish_time(&clock, periods(3) + PERIOD / 2);
    spin_until_stopped(&mut executor);
    // A window: replayed periods would follow at once.
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(activations.count(), 1);
    assert_eq!(activations.last().missed_periods(), 2);

    publish_time(&clock, periods(4));
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), 2, "the next period runs as usual");
    assert_eq!(activations.last().missed_periods(), 0);
}

each_executor!(a_ros_timer_follows_clock_after_the_program_dropped_its_context);
fn a_ros_timer_follows_clock_after_the_program_dropped_its_context(mut executor: impl Executor) {
    // As when nodes are built in a function that returns only what the program keeps.
    let (clock, activations) = sim_timer(&Context::new(), &mut executor);
    publish_time(&clock, periods(1));
    spin_until_stopped(&mut executor);
    assert_eq!(activations.count(), 1);
}

/// `use_sim_time` is a parameter of every node, as in rclcpp: an override or a set turns its
/// context's ROS clock to `/clock`; going back, which would move every node's time, is refused
/// with the reason.
#[test]
fn the_use_sim_time_parameter_turns_the_ros_clock_to_clock() {
    use tacto::params::{Parameter, ParameterValue};

    let ctx = Context::new();
    let node = ctx.node("plain").unwrap();
    assert_eq!(
        node.parameters()
            .get_parameter("use_sim_time")
            .unwrap()
            .value,
        ParameterValue::Bool(false)
    );
    assert!(!ctx.clock().is_sim_time());
    let set = node
        .parameters()
        .set_parameter(Parameter::new("use_sim_time", true));
    assert!(set.successful, "{set:?}");
    assert!(ctx.clock().is_sim_time());
    let back = node
        .parameters()
        .set_parameter(Parameter::new("use_sim_time", false));
    assert!(!back.successful);
    assert!(
        back.reason.contains("cannot go back to false"),
        "{}",
        back.reason
    );

    let from_args = Context::from_args(["prog", "--ros-args", "-p", "use_sim_time:=true"]).unwrap();
    assert!(!from_args.clock().is_sim_time());
    let _sim = from_args.node("sim").unwrap();
    assert!(from_args.clock().is_sim_time());
    assert_eq!(from_args.clock().now(ClockKind::Ros), Time::from_nanos(0));
}
