//! The LET executor: inputs frozen at each period start, nodes run in the order they were
//! added, outputs published at the period end, bounded outbox, refused configurations, stop,
//! and periods on simulated ROS time.
//!
//! Timing is never asserted tightly: runs are counted, periods identified by their logical
//! start (`Activation::time`), and each spin stops itself from inside a node. Where a noisy
//! machine could skip a period (an overrun), the exact assertion is made only when
//! `missed_periods` says no period was skipped.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use tacto::executor::LetCreateError;
use tacto::msg::builtin_interfaces;
use tacto::msg::rosgraph_msgs;
use tacto::msg::std_msgs::{Empty, String as Text};
use tacto::{
    AddError, ClockKind, Context, Executor, History, LetExecutor, SpinOutcome, Time, Trigger,
};

const PERIOD: Duration = Duration::from_millis(40);
/// How long a spin may take before a test gives up; far above any expected run.
const PATIENCE: Duration = Duration::from_secs(20);

fn stamp(t: Time) -> builtin_interfaces::Time {
    t.into()
}

fn time(stamp: &builtin_interfaces::Time) -> Time {
    (*stamp).into()
}

/// The review's reproduction: with `KeepLast(1)`, an arrival hidden until the next period
/// evicted the frozen sample, and a reader saw `None` in every period.
#[test]
fn a_frozen_input_stays_visible_for_the_whole_period_whatever_arrives() {
    let ctx = Context::new();
    let mut node = ctx.node("reader").unwrap();
    let input = node
        .subscription::<Text>("input")
        .history(History::KeepLast(1))
        .create()
        .unwrap();
    let mut feeder = ctx.node("feeder").unwrap();
    let feed = feeder.publisher::<Text>("input").create().unwrap();
    let say = move |data: &str| feed.publish(Text { data: data.into() });
    say("frozen");

    let mut executor = LetExecutor::new(PERIOD).unwrap();
    let stop = executor.stop_handle();
    let (tx, seen) = mpsc::channel();
    let mut runs = 0;
    node.execute(Trigger::every(PERIOD), move |_| {
        runs += 1;
        if runs == 1 {
            // Arrivals during the period, more than the history holds.
            say("late 1");
            say("late 2");
        }
        tx.send(input.latest().map(|s| s.data.clone())).unwrap();
        if runs == 2 {
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);

    let seen: Vec<_> = seen.try_iter().collect();
    assert_eq!(seen[0].as_deref(), Some("frozen"));
    assert_eq!(
        seen[1].as_deref(),
        Some("late 2"),
        "KeepLast(1) keeps the newest arrival"
    );
}

#[test]
fn a_sample_published_while_the_node_runs_is_seen_only_in_the_next_period() {
    let ctx = Context::new();
    let mut node = ctx.node("reader").unwrap();
    let input = node.subscription::<Text>("input").create().unwrap();
    let mut feeder = ctx.node("feeder").unwrap();
    let late = feeder.publisher::<Text>("input").create().unwrap();

    let mut executor = LetExecutor::new(PERIOD).unwrap();
    let stop = executor.stop_handle();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let mut runs = 0;
    node.execute(Trigger::every(PERIOD), move |_| {
        runs += 1;
        if runs == 1 {
            // Another thread publishes while this period's run is under way.
            thread::scope(|s| {
                s.spawn(|| {
                    late.publish(Text {
                        data: "late".into(),
                    })
                });
            });
        }
        let visible = input.len();
        let taken = input.take().map(|s| s.data.clone());
        log.lock().unwrap().push((visible, taken));
        if runs == 2 {
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(
        *seen.lock().unwrap(),
        [(0, None), (1, Some("late".to_owned()))]
    );
}

#[test]
fn nodes_run_in_the_order_they_were_added_and_input_triggers_see_the_previous_period() {
    let ctx = Context::new();
    let log = Arc::new(Mutex::new(Vec::<(&str, Time)>::new()));
    let mut executor = LetExecutor::new(PERIOD).unwrap();
    let stop = executor.stop_handle();

    // Added in the order c, a, b: not the alphabetical one.
    let mut c = ctx.node("c").unwrap();
    let tick = c.publisher::<Empty>("tick").create().unwrap();
    let c_log = log.clone();
    c.execute(Trigger::every(PERIOD), move |run| {
        c_log.lock().unwrap().push(("c", run.time()));
        tick.publish(Empty::default());
    })
    .unwrap();
    let mut a = ctx.node("a").unwrap();
    let ticks = a.subscription::<Empty>("tick").create().unwrap();
    let a_log = log.clone();
    a.execute(Trigger::on(&ticks), move |run| {
        a_log.lock().unwrap().push(("a", run.time()));
        ticks.take_all().for_each(drop);
    })
    .unwrap();
    let mut b = ctx.node("b").unwrap();
    let b_log = log.clone();
    let mut runs = 0;
    b.execute(Trigger::every(PERIOD), move |run| {
        b_log.lock().unwrap().push(("b", run.time()));
        runs += 1;
        if runs == 4 {
            stop.stop();
        }
    })
    .unwrap();
    for node in [c, a, b] {
        executor.add(node).unwrap();
    }

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    let log = log.lock().unwrap();
    let periods: Vec<Vec<&str>> = log
        .chunk_by(|x, y| x.1 == y.1)
        .map(|period| period.iter().map(|(name, _)| *name).collect())
        .collect();
    // In the first period a's input is empty: c's tick is still held back.
    assert_eq!(
        periods,
        [
            vec!["c", "b"],
            vec!["c", "a", "b"],
            vec!["c", "a", "b"],
            vec!["c", "a", "b"]
        ]
    );
}

#[test]
fn outputs_are_published_at_the_period_end_not_when_the_node_publishes() {
    let ctx = Context::new();
    // On the system clock, period starts compare with the samples' receive times.
    let mut executor = LetExecutor::builder(PERIOD)
        .clock(ctx.clock(), ClockKind::System)
        .create()
        .unwrap();
    let stop = executor.stop_handle();
    let mut outside = ctx.node("outside").unwrap();
    let heard = outside
        .subscription::<Text>("out")
        .history(History::KeepAll { max: 10 })
        .create()
        .unwrap();
    let heard_so_far = heard.probe();

    let mut writer = ctx.node("writer").unwrap();
    let out = writer.publisher::<Text>("out").create().unwrap();
    let runs = Arc::new(Mutex::new(Vec::new()));
    let log = runs.clone();
    writer
        .execute(
            Trigger::every(PERIOD).clock(ClockKind::System),
            move |run| {
                out.publish(Text { data: "x".into() });
                let mut log = log.lock().unwrap();
                // Right after publishing, the outside world has only earlier periods' outputs.
                log.push((run.time(), heard_so_far.unread()));
                if log.len() == 3 {
                    stop.stop();
                }
            },
        )
        .unwrap();
    executor.add(writer).unwrap();

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    let runs = runs.lock().unwrap();
    let seen_right_after: Vec<usize> = runs.iter().map(|r| r.1).collect();
    assert_eq!(seen_right_after, [0, 1, 2]);
    // The spin stopped during the third period, whose output still waits for its end.
    let samples: Vec<_> = heard.take_all().collect();
    assert_eq!(samples.len(), 2);
    for (sample, (start, _)) in samples.iter().zip(runs.iter()) {
        let period_end = *start + PERIOD;
        assert!(
            sample.info().receive_time >= period_end,
            "received at {}, before its period's end {period_end}",
            sample.info().receive_time
        );
    }
}

#[test]
fn a_chain_on_one_executor_takes_one_period_per_hop() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(PERIOD).unwrap();
    let stop = executor.stop_handle();

    let mut source = ctx.node("source").unwrap();
    let a = source
        .publisher::<builtin_interfaces::Time>("a")
        .create()
        .unwrap();
    source
        .execute(Trigger::every(PERIOD), move |run| {
            a.publish(stamp(run.time()))
        })
        .unwrap();

    let hops = Arc::new(Mutex::new((Vec::new(), Vec::new())));
    let mut relay = ctx.node("relay").unwrap();
    let from_a = relay
        .subscription::<builtin_interfaces::Time>("a")
        .create()
        .unwrap();
    let b = relay
        .publisher::<builtin_interfaces::Time>("b")
        .create()
        .unwrap();
    let relay_log = hops.clone();
    relay
        .execute(Trigger::on(&from_a), move |run| {
            for produced in from_a.take_all() {
                relay_log
                    .lock()
                    .unwrap()
                    .0
                    .push(run.time() - time(&produced));
                b.publish(*produced);
            }
        })
        .unwrap();

    let mut sink = ctx.node("sink").unwrap();
    let from_b = sink
        .subscription::<builtin_interfaces::Time>("b")
        .create()
        .unwrap();
    let sink_log = hops.clone();
    sink.execute(Trigger::on(&from_b), move |run| {
        let mut log = sink_log.lock().unwrap();
        for produced in from_b.take_all() {
            log.1.push(run.time() - time(&produced));
        }
        if log.1.len() >= 5 {
            stop.stop();
        }
    })
    .unwrap();
    for node in [source, relay, sink] {
        executor.add(node).unwrap();
    }

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    let (relay_delays, sink_delays) = &*hops.lock().unwrap();
    let whole_periods = |d: &Duration| d.as_nanos() % PERIOD.as_nanos() == 0;
    // A skipped period can only lengthen a hop, by whole periods.
    assert!(
        relay_delays
            .iter()
            .all(|d| *d >= PERIOD && whole_periods(d))
    );
    assert!(
        sink_delays
            .iter()
            .all(|d| *d >= 2 * PERIOD && whole_periods(d))
    );
    if executor.stats().missed_periods == 0 {
        assert!(
            relay_delays.iter().all(|d| *d == PERIOD),
            "{relay_delays:?}"
        );
        assert!(
            sink_delays.iter().all(|d| *d == 2 * PERIOD),
            "{sink_delays:?}"
        );
    }
}

#[test]
fn a_full_outbox_drops_later_publications_and_counts_them() {
    let ctx = Context::new();
    let mut executor = LetExecutor::builder(PERIOD)
        .outbox_capacity(2)
        .create()
        .unwrap();
    let stop = executor.stop_handle();
    let mut node = ctx.node("chatty").unwrap();
    let out = node.publisher::<Text>("out").create().unwrap();
    let echo = node
        .subscription::<Text>("out")
        .history(History::KeepAll { max: 10 })
        .create()
        .unwrap();
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = received.clone();
    let mut runs = 0;
    node.execute(Trigger::every(PERIOD), move |_| {
        runs += 1;
        if runs == 1 {
            for i in 0..5 {
                out.publish(Text {
                    data: i.to_string(),
                });
            }
        } else {
            log.lock()
                .unwrap()
                .extend(echo.take_all().map(|s| s.data.clone()));
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(*received.lock().unwrap(), ["0", "1"]);
    assert_eq!(executor.dropped_outputs(), 3);
}

#[test]
fn a_zero_period_or_an_empty_outbox_is_refused() {
    assert!(matches!(
        LetExecutor::new(Duration::ZERO),
        Err(LetCreateError::PeriodTooShort)
    ));
    assert!(matches!(
        LetExecutor::builder(PERIOD).outbox_capacity(0).create(),
        Err(LetCreateError::ZeroOutboxCapacity)
    ));
}

#[test]
fn periods_shorter_than_the_minimum_or_longer_than_time_can_count_are_refused() {
    let below = Trigger::MIN_PERIOD - Duration::from_nanos(1);
    for too_short in [Duration::from_nanos(1), below] {
        assert!(
            matches!(
                LetExecutor::new(too_short),
                Err(LetCreateError::PeriodTooShort)
            ),
            "{too_short:?}"
        );
    }
    let centuries = Duration::from_secs(300 * 365 * 24 * 3600);
    for too_long in [
        centuries,
        Trigger::MAX_PERIOD + Duration::from_nanos(1),
        Duration::MAX,
    ] {
        assert!(
            matches!(
                LetExecutor::new(too_long),
                Err(LetCreateError::PeriodTooLong)
            ),
            "{too_long:?}"
        );
    }
    assert!(LetExecutor::new(Trigger::MIN_PERIOD).is_ok());
}

#[test]
fn a_let_executor_of_the_longest_period_runs_its_first_period_without_overflow() {
    let ctx = Context::new();
    for kind in [ClockKind::Steady, ClockKind::System, ClockKind::Ros] {
        let mut node = ctx.node(&format!("patient_{kind:?}")).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut executor = LetExecutor::builder(Trigger::MAX_PERIOD)
            .clock(ctx.clock(), kind)
            .create()
            .unwrap();
        let stop = executor.stop_handle();
        let trigger = Trigger::every(Trigger::MAX_PERIOD).clock(kind);
        node.execute(trigger, move |a| {
            tx.send(a.time()).unwrap();
            stop.stop();
        })
        .unwrap();
        executor.add(node).unwrap();
        let before = ctx.clock().now(kind);
        assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
        let after = ctx.clock().now(kind);
        // A window: watches for a second period, which must not start.
        let outcome = executor.spin_for(Duration::from_millis(10)).unwrap();
        assert_eq!(outcome, SpinOutcome::Elapsed);
        // The first period starts with the first spin; the next is centuries away.
        let starts: Vec<Time> = rx.try_iter().collect();
        assert_eq!(starts.len(), 1, "{kind:?}");
        assert!(
            before <= starts[0] && starts[0] <= after,
            "{kind:?}: {}",
            starts[0]
        );
    }
}

#[test]
fn a_periodic_trigger_that_is_not_a_multiple_of_the_period_is_refused() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(Duration::from_millis(20)).unwrap();
    let mut node = ctx.node("odd").unwrap();
    node.execute(Trigger::every(Duration::from_millis(30)), |_| {})
        .unwrap();

    let refused = executor.add(node);
    assert!(
        matches!(refused, Err(AddError::UnsupportedTrigger { ref node, .. }) if node == "/odd"),
        "{refused:?}"
    );
    // A refused node leaves no trace: a node of the same name is welcome.
    let mut again = ctx.node("odd").unwrap();
    again
        .execute(Trigger::every(Duration::from_millis(60)), |_| {})
        .unwrap();
    executor.add(again).unwrap();
}

#[test]
fn a_periodic_trigger_on_another_clock_than_the_executors_is_refused() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(PERIOD).unwrap();
    let mut node = ctx.node("ros_timed").unwrap();
    node.execute(Trigger::every(PERIOD).clock(ClockKind::Ros), |_| {})
        .unwrap();

    assert!(matches!(
        executor.add(node),
        Err(AddError::UnsupportedTrigger { .. })
    ));
}

#[test]
fn a_stop_handle_ends_the_spin_without_waiting_for_the_period_end() {
    let ctx = Context::new();
    // A period far longer than the test: only a stop can end the spin early.
    let long = Duration::from_secs(3600);
    let mut executor = LetExecutor::new(long).unwrap();
    let mut node = ctx.node("slow").unwrap();
    let (ran, first_run) = mpsc::channel();
    node.execute(Trigger::every(long), move |_| {
        let _ = ran.send(());
    })
    .unwrap();
    executor.add(node).unwrap();
    let stop = executor.stop_handle();
    let stopper = thread::spawn(move || {
        first_run.recv_timeout(PATIENCE).unwrap();
        stop.stop();
    });

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    stopper.join().unwrap();
    assert_eq!(executor.stats().executions, 1);
    // The request was consumed: the executor spins again afterwards. A window: nothing could
    // signal that the old request was not taken again.
    assert_eq!(
        executor.spin_for(Duration::from_millis(20)).unwrap(),
        SpinOutcome::Elapsed
    );
}

#[test]
fn periods_on_ros_time_follow_the_clock_topic_and_skip_what_it_jumps_over() {
    let ctx = Context::new();
    ctx.use_sim_time().unwrap();
    let mut sim = ctx.node("sim").unwrap();
    let clock = sim
        .publisher::<rosgraph_msgs::Clock>("/clock")
        .create()
        .unwrap();
    let set_time = |periods: f64| {
        let t = Time::from_nanos((periods * PERIOD.as_nanos() as f64) as i64);
        clock.publish(rosgraph_msgs::Clock { clock: stamp(t) });
    };
    let at = |periods: i64| Time::from_nanos(periods * PERIOD.as_nanos() as i64);

    let mut executor = LetExecutor::builder(PERIOD)
        .clock(ctx.clock(), ClockKind::Ros)
        .create()
        .unwrap();
    let (runs, ran) = mpsc::channel();
    let mut node = ctx.node("controller").unwrap();
    for (name, every) in [("fast", 1), ("slow", 3)] {
        let runs = runs.clone();
        node.execute(
            Trigger::every(every * PERIOD).clock(ClockKind::Ros),
            move |run| {
                let _ = runs.send((name, run.time(), run.missed_periods()));
            },
        )
        .unwrap();
    }
    executor.add(node).unwrap();
    let stop = executor.stop_handle();
    let spinner = thread::spawn(move || {
        let outcome = executor.spin_for(PATIENCE).unwrap();
        (executor, outcome)
    });

    let mut log = Vec::new();
    let mut until_fast_at = |t: Time| loop {
        let run = ran.recv_timeout(PATIENCE).expect("a period on /clock");
        log.push(run);
        if run.0 == "fast" && run.1 == t {
            break;
        }
    };
    // ROS time reads zero until the first /clock: the first period starts there.
    until_fast_at(at(0));
    for period in 1..=6 {
        // Half a period first: not a deadline, so nothing runs.
        set_time(period as f64 - 0.5);
        set_time(period as f64);
        until_fast_at(at(period));
    }
    // A jump over the deadlines 7 and 8: one run at 9, the skipped periods counted.
    set_time(9.5);
    until_fast_at(at(9));
    stop.stop();
    let (executor, outcome) = spinner.join().unwrap();
    assert_eq!(outcome, SpinOutcome::Stopped);
    log.extend(ran.try_iter());

    let of = |who: &str| -> Vec<(Time, u64)> {
        log.iter()
            .filter(|run| run.0 == who)
            .map(|run| (run.1, run.2))
            .collect()
    };
    let fast: Vec<_> = (0..=6).map(|p| (at(p), 0)).chain([(at(9), 2)]).collect();
    assert_eq!(of("fast"), fast);
    assert_eq!(of("slow"), [(at(0), 0), (at(3), 0), (at(6), 0), (at(9), 0)]);
    assert_eq!(executor.stats().missed_periods, 2);
}

#[test]
fn executable_stats_count_a_let_nodes_runs() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(Duration::from_millis(5)).unwrap();
    let mut node = ctx.node("let_counted").unwrap();
    let stop = executor.stop_handle();
    let mut runs = 0;
    node.execute(Trigger::every(Duration::from_millis(5)), move |_| {
        runs += 1;
        if runs == 3 {
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    let stats = executor.executable_stats();
    assert_eq!(stats.len(), 1);
    assert_eq!(
        (&*stats[0].node, stats[0].index, stats[0].runs),
        ("/let_counted", 0, 3)
    );
    assert!(stats[0].run_time_mean() <= stats[0].run_time_max);
}

/// Every LET run serves its period's start: an input-triggered node that runs after a node
/// busy for 20 ms in the same period starts at least 20 ms late.
#[test]
fn a_let_input_triggers_start_delay_counts_from_its_periods_start() {
    let ctx = Context::new();
    let mut executor = LetExecutor::new(PERIOD).unwrap();
    let mut busy = ctx.node("busy").unwrap();
    let poke = busy.subscription::<Empty>("poke").create().unwrap();
    busy.execute(Trigger::on(&poke), move |_| {
        poke.take_all().for_each(drop);
        thread::sleep(Duration::from_millis(20));
    })
    .unwrap();
    let mut after = ctx.node("after").unwrap();
    let input = after.subscription::<Empty>("poke").create().unwrap();
    let stop = executor.stop_handle();
    after
        .execute(Trigger::on(&input), move |_| {
            input.take_all().for_each(drop);
            stop.stop();
        })
        .unwrap();
    let mut feeder = ctx.node("feeder").unwrap();
    feeder
        .publisher::<Empty>("poke")
        .create()
        .unwrap()
        .publish(Empty::default());
    executor.add(busy).unwrap();
    executor.add(after).unwrap();
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);

    let stats = executor.executable_stats();
    let (busy, after) = (&stats[0], &stats[1]);
    assert_eq!((busy.runs, after.runs), (1, 1), "{stats:?}");
    assert!(
        after.start_delay_max >= busy.run_time_max
            && busy.run_time_max >= Duration::from_millis(20),
        "{stats:?}"
    );
}
