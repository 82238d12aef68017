//! The events executor: one FIFO of sample and timer events, bounded, one run per event.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use tacto::executor::EventsExecutorCreateError;
use tacto::msg::std_msgs::String as Text;
use tacto::msg::{builtin_interfaces, rosgraph_msgs};
use tacto::{
    ClockKind, Context, EventsExecutor, Executor, History, Publisher, SpinOutcome, StopHandle,
    Time, Trigger,
};

mod util;
use util::{PATIENCE, spin_until_stopped};

/// What node code reports, in order; stops the executor once `expected` reports arrived, so a
/// test spins exactly as long as the work takes.
#[derive(Clone)]
struct Log {
    entries: Arc<Mutex<Vec<String>>>,
    stop: StopHandle,
    expected: usize,
}

impl Log {
    fn new(executor: &EventsExecutor, expected: usize) -> Self {
        Log {
            entries: Arc::default(),
            stop: executor.stop_handle(),
            expected,
        }
    }

    fn push(&self, entry: &str) {
        let mut entries = self.entries.lock().unwrap();
        entries.push(entry.to_owned());
        if entries.len() == self.expected {
            self.stop.stop();
        }
    }

    fn entries(&self) -> Vec<String> {
        self.entries.lock().unwrap().clone()
    }
}

fn say(publisher: &Publisher<Text>, data: &str) {
    publisher.publish(Text { data: data.into() });
}

/// A node with a callback subscription to each of `topics` that logs what it receives.
fn listener(ctx: &Context, topics: &[&str], log: &Log) -> tacto::Node {
    let mut node = ctx.node("listener").unwrap();
    for topic in topics {
        let log = log.clone();
        node.subscription::<Text>(topic)
            .history(History::KeepAll { max: 64 })
            .callback(move |msg| log.push(&msg.data))
            .unwrap();
    }
    node
}

#[test]
fn events_run_in_the_order_their_samples_arrived_across_subscriptions() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::new().unwrap();
    let order = ["a1", "b1", "b2", "b3", "a2", "b4", "a3"];
    let log = Log::new(&executor, order.len());
    executor.add(listener(&ctx, &["a", "b"], &log)).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let a = talker.publisher::<Text>("a").create().unwrap();
    let b = talker.publisher::<Text>("b").create().unwrap();

    for data in order {
        say(if data.starts_with('a') { &a } else { &b }, data);
    }
    spin_until_stopped(&mut executor);

    assert_eq!(log.entries(), order);
}

#[test]
fn a_callback_subscription_runs_once_per_message() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::new().unwrap();
    let log = Log::new(&executor, 5);
    executor.add(listener(&ctx, &["chat"], &log)).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let chat = talker.publisher::<Text>("chat").create().unwrap();

    for data in ["1", "2", "3", "4", "5"] {
        say(&chat, data);
    }
    spin_until_stopped(&mut executor);
    // A window: watches for a sixth run, which nothing could signal.
    executor.spin_for(Duration::from_millis(20)).unwrap();

    assert_eq!(log.entries(), ["1", "2", "3", "4", "5"]);
    assert_eq!(executor.stats().executions, 5);
}

#[test]
fn a_polling_node_that_takes_a_burst_at_once_runs_once_for_it() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::new().unwrap();
    let log = Log::new(&executor, 1);
    let mut node = ctx.node("batcher").unwrap();
    let input = node.subscription::<Text>("in").create().unwrap();
    let trigger = Trigger::on(&input);
    let reporter = log.clone();
    node.execute(trigger, move |_| {
        reporter.push(&input.take_all().count().to_string());
    })
    .unwrap();
    executor.add(node).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("in").create().unwrap();

    for data in ["1", "2", "3", "4"] {
        say(&publisher, data);
    }
    spin_until_stopped(&mut executor);
    // A window: watches for runs of the three other events, which nothing could signal.
    executor.spin_for(Duration::from_millis(20)).unwrap();

    // The first event took all four; the other three found nothing unread and were skipped.
    assert_eq!(log.entries(), ["4"]);
    assert_eq!(executor.stats().executions, 1);
}

#[test]
fn a_full_queue_drops_events_but_every_sample_is_still_served() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::builder().capacity(4).create().unwrap();
    let log = Log::new(&executor, 10);
    let mut node = ctx.node("reader").unwrap();
    let reporter = log.clone();
    node.subscription::<Text>("in")
        .history(History::KeepAll { max: 16 })
        .callback(move |sample| reporter.push(&sample.data))
        .unwrap();
    executor.add(node).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("in").create().unwrap();

    let sent: Vec<String> = (0..10).map(|i| i.to_string()).collect();
    for data in &sent {
        say(&publisher, data);
    }
    assert_eq!(
        executor.dropped_events(),
        6,
        "4 sample events fit, 6 did not"
    );
    spin_until_stopped(&mut executor);

    assert_eq!(
        log.entries(),
        sent,
        "the history kept them, due events served them"
    );
    assert_eq!(executor.stats().executions, 10, "one callback per message");
}

#[test]
fn after_an_overflow_a_due_event_takes_the_refused_samples_place_in_line() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::builder().capacity(2).create().unwrap();
    let order = ["a1", "a2", "a3", "b1", "a4"];
    let log = Log::new(&executor, order.len());
    executor.add(listener(&ctx, &["a", "b"], &log)).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let a = talker.publisher::<Text>("a").create().unwrap();
    let b = talker.publisher::<Text>("b").create().unwrap();

    // a1, a2 queue sample events; a3 and b1 are refused and queue a due event each; a4 is
    // refused and its executable already has a due event. Queue: a, a, due a, due b.
    for data in order {
        say(if data.starts_with('a') { &a } else { &b }, data);
    }
    assert_eq!(executor.dropped_events(), 3);
    spin_until_stopped(&mut executor);

    // a's due event ran a3 and, a4 still unread, queued another due event behind b's.
    assert_eq!(log.entries(), order);
}

#[test]
fn a_node_added_after_its_samples_arrived_runs_once_for_each() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::new().unwrap();
    let log = Log::new(&executor, 3);
    let node = listener(&ctx, &["chat"], &log);
    let mut talker = ctx.node("talker").unwrap();
    let chat = talker.publisher::<Text>("chat").create().unwrap();

    for data in ["1", "2", "3"] {
        say(&chat, data);
    }
    executor.add(node).unwrap();
    spin_until_stopped(&mut executor);

    assert_eq!(log.entries(), ["1", "2", "3"]);
    assert_eq!(executor.dropped_events(), 0);
}

#[test]
fn trigger_all_runs_on_the_event_that_finds_every_input_ready() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::new().unwrap();
    let log = Log::new(&executor, 2);
    let mut node = ctx.node("fusion").unwrap();
    let radar = node.subscription::<Text>("radar").create().unwrap();
    let camera = node.subscription::<Text>("camera").create().unwrap();
    let trigger = Trigger::all().with(&radar).with(&camera);
    let reporter = log.clone();
    node.execute(trigger, move |_| {
        while radar.has_new() && camera.has_new() {
            let (r, c) = (radar.take().unwrap(), camera.take().unwrap());
            reporter.push(&format!("{}+{}", r.data, c.data));
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    let mut sensors = ctx.node("sensors").unwrap();
    let radar_out = sensors.publisher::<Text>("radar").create().unwrap();
    let camera_out = sensors.publisher::<Text>("camera").create().unwrap();

    say(&radar_out, "r1");
    say(&radar_out, "r2");
    // A window: watches for a run that must not happen.
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert_eq!(executor.stats().executions, 0, "no camera sample yet");
    say(&camera_out, "c1");
    say(&camera_out, "c2");
    spin_until_stopped(&mut executor);

    // c1's event found both inputs ready, and the run took both pairs: c2's event found no
    // new arrival since, and was skipped.
    assert_eq!(log.entries(), ["r1+c1", "r2+c2"]);
    assert_eq!(executor.stats().executions, 1);
}

#[test]
fn an_overrunning_timer_runs_once_for_its_missed_periods_instead_of_bursting() {
    let ctx = Context::new();
    let mut executor = EventsExecutor::new().unwrap();
    let stop = executor.stop_handle();
    let missed = Arc::new(Mutex::new(Vec::new()));
    let record = missed.clone();
    let mut node = ctx.node("slow").unwrap();
    node.wall_timer(Duration::from_millis(5), move |activation| {
        let mut missed = record.lock().unwrap();
        missed.push(activation.missed_periods());
        if missed.len() == 1 {
            // Overruns by at least 11 deadlines.
            thread::sleep(Duration::from_millis(60));
        }
        if missed.len() == 3 {
            stop.stop();
        }
    })
    .unwrap();
    executor.add(node).unwrap();

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);

    // A bursting queue would replay the missed deadlines: second and third run, none missed.
    let missed = missed.lock().unwrap();
    assert!(missed[1] >= 10, "missed periods per run: {missed:?}");
    assert!(executor.stats().missed_periods >= 10);
}

#[test]
fn a_sim_time_timer_fires_when_clock_advances() {
    let ctx = Context::new();
    ctx.use_sim_time().unwrap();
    let mut executor = EventsExecutor::new().unwrap();
    let stop = executor.stop_handle();
    let (fired, fires) = mpsc::channel();
    let mut node = ctx.node("controller").unwrap();
    let every_second = Trigger::every(Duration::from_secs(1)).clock(ClockKind::Ros);
    node.execute(every_second, move |activation| {
        fired
            .send((activation.time(), activation.missed_periods()))
            .unwrap();
        stop.stop();
    })
    .unwrap();
    executor.add(node).unwrap(); // at sim time 0: first deadline at 1 s
    let mut simulator = ctx.node("simulator").unwrap();
    let clock = simulator
        .publisher::<rosgraph_msgs::Clock>("/clock")
        .create()
        .unwrap();
    let set_sim_time = |sec, nanosec| {
        let clock_msg = rosgraph_msgs::Clock {
            clock: builtin_interfaces::Time { sec, nanosec },
        };
        clock.publish(clock_msg);
    };

    set_sim_time(0, 500_000_000);
    // A window: watches for a run that must not happen.
    let outcome = executor.spin_for(Duration::from_millis(50)).unwrap();
    assert_eq!(outcome, SpinOutcome::Elapsed);
    assert!(fires.try_recv().is_err(), "fired before its deadline");

    set_sim_time(1, 0);
    spin_until_stopped(&mut executor);
    assert_eq!(fires.try_recv().unwrap(), (Time::from_sec_nanosec(1, 0), 0));

    // Deadlines 2 s and 3 s passed in one jump: one run, one deadline missed.
    set_sim_time(3, 500_000_000);
    spin_until_stopped(&mut executor);
    let late = fires.try_recv().unwrap();
    assert_eq!(late, (Time::from_sec_nanosec(3, 500_000_000), 1));
}

#[test]
fn a_stop_handle_stops_a_spinning_executor_from_another_thread() {
    let ctx = Context::new();
    let mut node = ctx.node("ticker").unwrap();
    let (ticked, ticks) = mpsc::channel();
    node.wall_timer(Duration::from_millis(5), move |_| {
        let _ = ticked.send(());
    })
    .unwrap();
    let mut executor = EventsExecutor::new().unwrap();
    executor.add(node).unwrap();
    let stop = executor.stop_handle();
    let stopper = thread::spawn(move || {
        ticks.recv().unwrap();
        stop.stop();
    });

    let outcome = executor.spin_for(PATIENCE).unwrap();

    assert_eq!(outcome, SpinOutcome::Stopped);
    stopper.join().unwrap();
}

#[test]
fn a_queue_of_capacity_zero_is_refused() {
    let result = EventsExecutor::builder().capacity(0).create();

    assert!(matches!(
        result,
        Err(EventsExecutorCreateError::ZeroCapacity)
    ));
}
