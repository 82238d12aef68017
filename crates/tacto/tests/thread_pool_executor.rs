//! The thread-pool executor: callback groups, parallelism, timers, stopping.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::String as Text;
use tacto::{
    AddError, CallbackGroupKind, Context, Executor, History, SpinOutcome, StopHandle,
    ThreadPoolCreateError, ThreadPoolExecutor, Trigger,
};

/// How long a test waits for something that should happen in milliseconds: only a broken
/// executor ever reaches it, and then the test fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(20);

fn pool(threads: usize) -> ThreadPoolExecutor {
    ThreadPoolExecutor::builder()
        .threads(threads)
        .create()
        .unwrap()
}

/// Remembers the most callbacks ever inside a section at once.
#[derive(Debug, Default)]
struct Occupancy {
    inside: AtomicUsize,
    most: AtomicUsize,
}

impl Occupancy {
    fn visit(&self, stay: Duration) {
        let now = self.inside.fetch_add(1, SeqCst) + 1;
        self.most.fetch_max(now, SeqCst);
        thread::sleep(stay);
        self.inside.fetch_sub(1, SeqCst);
    }

    fn most(&self) -> usize {
        self.most.load(SeqCst)
    }
}

/// A counter that threads can wait on, with patience.
#[derive(Debug, Default)]
struct Counter {
    value: Mutex<usize>,
    changed: Condvar,
}

impl Counter {
    fn add_one(&self) {
        *self.value.lock().unwrap() += 1;
        self.changed.notify_all();
    }

    /// True if the counter reached `n` in time.
    fn wait_for(&self, n: usize) -> bool {
        let value = self.value.lock().unwrap();
        let (value, _) = self
            .changed
            .wait_timeout_while(value, PATIENCE, |v| *v < n)
            .unwrap();
        *value >= n
    }

    /// Arrives, then waits until `n` parties have arrived: true if they all met.
    fn meet(&self, n: usize) -> bool {
        self.add_one();
        self.wait_for(n)
    }
}

/// Stops the executor when the last of `n` expected events happened.
#[derive(Debug)]
struct Countdown {
    left: AtomicUsize,
    stop: StopHandle,
}

impl Countdown {
    fn new(n: usize, executor: &ThreadPoolExecutor) -> Arc<Self> {
        Arc::new(Countdown {
            left: AtomicUsize::new(n),
            stop: executor.stop_handle(),
        })
    }

    fn tick(&self) {
        if self.left.fetch_sub(1, SeqCst) == 1 {
            self.stop.stop();
        }
    }
}

fn text(data: impl Into<String>) -> Text {
    Text { data: data.into() }
}

#[test]
fn callbacks_of_one_mutually_exclusive_group_never_overlap() {
    let ctx = Context::new();
    let mut executor = pool(4);
    let mut node = ctx.node("slow").unwrap();
    let occupancy = Arc::new(Occupancy::default());
    let done = Countdown::new(2 * 10, &executor);
    for topic in ["a", "b"] {
        let (occupancy, done) = (occupancy.clone(), done.clone());
        node.subscription::<Text>(topic)
            .history(History::KeepAll { max: 10 })
            .callback(move |_| {
                occupancy.visit(Duration::from_millis(2));
                done.tick();
            })
            .unwrap();
    }
    let ticking = occupancy.clone();
    node.wall_timer(Duration::from_millis(1), move |_| {
        ticking.visit(Duration::from_millis(2))
    })
    .unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let a = talker.publisher::<Text>("a").create().unwrap();
    let b = talker.publisher::<Text>("b").create().unwrap();
    executor.add(node).unwrap();

    for i in 0..10 {
        a.publish(text(format!("a{i}")));
        b.publish(text(format!("b{i}")));
    }
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(occupancy.most(), 1);
}

#[test]
fn callbacks_of_a_reentrant_group_run_in_parallel() {
    let ctx = Context::new();
    let mut executor = pool(2);
    let mut node = ctx.node("parallel").unwrap();
    let group = node.callback_group(CallbackGroupKind::Reentrant);
    let meeting = Arc::new(Counter::default());
    let met = Arc::new(Mutex::new(Vec::new()));
    let done = Countdown::new(2, &executor);
    for topic in ["a", "b"] {
        let (meeting, met, done) = (meeting.clone(), met.clone(), done.clone());
        node.subscription::<Text>(topic)
            .callback_in(&group, move |_| {
                let all_met = meeting.meet(2);
                met.lock().unwrap().push(all_met);
                done.tick();
            })
            .unwrap();
    }
    let mut talker = ctx.node("talker").unwrap();
    let a = talker.publisher::<Text>("a").create().unwrap();
    let b = talker.publisher::<Text>("b").create().unwrap();
    executor.add(node).unwrap();

    a.publish(text("a"));
    b.publish(text("b"));
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(*met.lock().unwrap(), [true, true]);
}

#[test]
fn a_callback_never_overlaps_itself_even_in_a_reentrant_group() {
    let ctx = Context::new();
    let mut executor = pool(4);
    let mut node = ctx.node("single").unwrap();
    let group = node.callback_group(CallbackGroupKind::Reentrant);
    let occupancy = Arc::new(Occupancy::default());
    let heard = Arc::new(Mutex::new(Vec::new()));
    let done = Countdown::new(20, &executor);
    let (inside, log, finished) = (occupancy.clone(), heard.clone(), done.clone());
    node.subscription::<Text>("in")
        .history(History::KeepAll { max: 20 })
        .callback_in(&group, move |msg| {
            inside.visit(Duration::from_millis(1));
            log.lock().unwrap().push(msg.data.clone());
            finished.tick();
        })
        .unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("in").create().unwrap();
    executor.add(node).unwrap();

    let sent: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    for data in &sent {
        publisher.publish(text(data.clone()));
    }
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(occupancy.most(), 1);
    assert_eq!(*heard.lock().unwrap(), sent);
}

#[test]
fn the_default_groups_of_three_nodes_run_in_parallel() {
    let ctx = Context::new();
    let mut executor = pool(3);
    let meeting = Arc::new(Counter::default());
    let met = Arc::new(Mutex::new(Vec::new()));
    let done = Countdown::new(3, &executor);
    for name in ["left", "middle", "right"] {
        let mut node = ctx.node(name).unwrap();
        let (meeting, met, done) = (meeting.clone(), met.clone(), done.clone());
        node.subscription::<Text>("news")
            .callback(move |_| {
                let all_met = meeting.meet(3);
                met.lock().unwrap().push(all_met);
                done.tick();
            })
            .unwrap();
        executor.add(node).unwrap();
    }
    // The news comes from a timer, so it arrives while the other workers wait.
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("news").create().unwrap();
    let mut sent = false;
    talker
        .wall_timer(Duration::from_millis(5), move |_| {
            if !std::mem::replace(&mut sent, true) {
                publisher.publish(text("hello"));
            }
        })
        .unwrap();
    executor.add(talker).unwrap();

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(*met.lock().unwrap(), [true, true, true]);
}

#[test]
fn a_timer_in_its_own_group_keeps_ticking_while_the_default_group_is_busy() {
    let ctx = Context::new();
    let mut executor = pool(2);
    let mut node = ctx.node("controller").unwrap();
    let ticks = Arc::new(Counter::default());
    let clock = node.callback_group(CallbackGroupKind::MutuallyExclusive);
    let ticking = ticks.clone();
    node.execute_in(
        &clock,
        Trigger::every(Duration::from_millis(2)),
        move |_| ticking.add_one(),
    )
    .unwrap();
    let saw_ticks = Arc::new(Mutex::new(None));
    let (seen, done) = (saw_ticks.clone(), Countdown::new(1, &executor));
    node.subscription::<Text>("work")
        .callback(move |_| {
            // Blocks the default group until the timer has ticked five more times.
            let start = *ticks.value.lock().unwrap();
            *seen.lock().unwrap() = Some(ticks.wait_for(start + 5));
            done.tick();
        })
        .unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("work").create().unwrap();
    executor.add(node).unwrap();

    publisher.publish(text("long job"));
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(*saw_ticks.lock().unwrap(), Some(true));
}

#[test]
fn a_timer_delayed_by_its_busy_group_keeps_ticking_afterwards() {
    let ctx = Context::new();
    let mut executor = pool(2);
    let mut node = ctx.node("busy").unwrap();
    let done = Countdown::new(5, &executor);
    let ticking = done.clone();
    node.wall_timer(Duration::from_millis(2), move |_| ticking.tick())
        .unwrap();
    // Holds the group past the timer's deadline, on a worker that is not waiting in the OS.
    node.subscription::<Text>("hold")
        .callback(|_| thread::sleep(Duration::from_millis(10)))
        .unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("hold").create().unwrap();
    executor.add(node).unwrap();

    publisher.publish(text("hold"));
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
}

#[test]
fn every_message_gets_its_callback_exactly_once_under_load() {
    const PER_PUBLISHER: usize = 2000;
    const SENT: usize = 2 * PER_PUBLISHER;
    let ctx = Context::new();
    let mut executor = pool(4);
    // Three subscriptions to one topic: one in a node's default group, two in another node's
    // reentrant group.
    let counts: Vec<Arc<Mutex<Vec<u32>>>> = (0..3)
        .map(|_| Arc::new(Mutex::new(vec![0; SENT])))
        .collect();
    let done = Countdown::new(3 * SENT, &executor);
    let mut single = ctx.node("single").unwrap();
    let mut shared = ctx.node("shared").unwrap();
    let group = shared.callback_group(CallbackGroupKind::Reentrant);
    for (i, count) in counts.iter().enumerate() {
        let (count, done) = (count.clone(), done.clone());
        let builder = match i {
            0 => single.subscription::<Text>("load"),
            _ => shared.subscription::<Text>("load"),
        }
        .history(History::KeepAll { max: SENT });
        let callback = move |msg: tacto::Sample<Text>| {
            count.lock().unwrap()[msg.data.parse::<usize>().unwrap()] += 1;
            done.tick();
        };
        match i {
            0 => builder.callback(callback),
            _ => builder.callback_in(&group, callback),
        }
        .unwrap();
    }
    executor.add(single).unwrap();
    executor.add(shared).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publishers: Vec<_> = (0..2)
        .map(|_| talker.publisher::<Text>("load").create().unwrap())
        .collect();

    let outcome = thread::scope(|scope| {
        for (p, publisher) in publishers.iter().enumerate() {
            scope.spawn(move || {
                for i in 0..PER_PUBLISHER {
                    publisher.publish(text((p * PER_PUBLISHER + i).to_string()));
                }
            });
        }
        executor.spin_for(PATIENCE).unwrap()
    });
    assert_eq!(outcome, SpinOutcome::Stopped);
    for count in &counts {
        assert!(count.lock().unwrap().iter().all(|&n| n == 1));
    }
    assert_eq!(executor.stats().executions, 3 * SENT as u64);
}

#[test]
fn a_timer_runs_once_per_period_and_never_early() {
    let ctx = Context::new();
    let mut executor = pool(2);
    let mut node = ctx.node("ticker").unwrap();
    let period = Duration::from_millis(5);
    let done = Countdown::new(5, &executor);
    let finished_at = Arc::new(Mutex::new(None));
    let last = finished_at.clone();
    node.wall_timer(period, move |_| {
        *last.lock().unwrap() = Some(Instant::now());
        done.tick();
    })
    .unwrap();
    let added_at = Instant::now();
    executor.add(node).unwrap();

    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    let fifth = finished_at.lock().unwrap().unwrap();
    assert!(fifth - added_at >= 5 * period);
    assert_eq!(executor.stats().executions, 5);
}

#[test]
fn a_stop_from_another_thread_ends_the_spin_of_every_worker() {
    let ctx = Context::new();
    let mut executor = pool(3);
    let mut node = ctx.node("quiet").unwrap();
    node.subscription::<Text>("nothing")
        .callback(|_| {})
        .unwrap();
    executor.add(node).unwrap();

    let stop = executor.stop_handle();
    thread::spawn(move || stop.stop());
    assert_eq!(executor.spin().unwrap(), SpinOutcome::Stopped);
    // The request was consumed: the next spin runs until its deadline. A window: nothing could
    // signal that the old request was not taken again.
    assert_eq!(
        executor.spin_for(Duration::from_millis(10)).unwrap(),
        SpinOutcome::Elapsed
    );
}

#[test]
fn an_idle_pool_blocks_instead_of_spinning() {
    let ctx = Context::new();
    let mut executor = pool(4);
    let mut node = ctx.node("quiet").unwrap();
    node.subscription::<Text>("nothing")
        .callback(|_| {})
        .unwrap();
    executor.add(node).unwrap();

    // A window: nothing can signal a wake-up that does not happen.
    assert_eq!(
        executor.spin_for(Duration::from_millis(100)).unwrap(),
        SpinOutcome::Elapsed
    );
    // Nothing happens but the deadline: the leader wakes for it and each follower at most once,
    // to return, however loaded the machine. A busy-waiting pool would count thousands.
    assert!(
        executor.stats().wakeups <= executor.threads() as u64,
        "{:?}",
        executor.stats()
    );
}

#[test]
fn a_pool_without_threads_is_refused() {
    assert!(matches!(
        ThreadPoolExecutor::builder().threads(0).create(),
        Err(ThreadPoolCreateError::ZeroThreads)
    ));
}

#[test]
fn a_pool_of_more_threads_than_the_maximum_is_refused() {
    let max = ThreadPoolExecutor::MAX_THREADS;
    for threads in [max + 1, 1_000_000, usize::MAX] {
        assert!(
            matches!(
                ThreadPoolExecutor::builder().threads(threads).create(),
                Err(ThreadPoolCreateError::TooManyThreads { requested, max: m })
                    if requested == threads && m == max
            ),
            "{threads}"
        );
    }
    assert_eq!(pool(max).threads(), max);
}

#[test]
fn a_pool_of_the_most_threads_stopped_before_it_spins_returns_stopped() {
    let mut executor = pool(ThreadPoolExecutor::MAX_THREADS);
    executor.stop_handle().stop();
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
}

#[test]
fn an_all_trigger_is_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let a = node.subscription::<Text>("a").create().unwrap();
    let b = node.subscription::<Text>("b").create().unwrap();
    node.execute(Trigger::all().with(&a).with(&b), |_| {})
        .unwrap();

    let result = pool(2).add(node);
    assert!(matches!(
        result,
        Err(AddError::UnsupportedTrigger {
            executor: "thread-pool",
            ..
        })
    ));
}

#[test]
fn a_panicking_callback_ends_the_spin_and_the_pool_keeps_working() {
    let ctx = Context::new();
    let mut executor = pool(2);
    let mut node = ctx.node("fragile").unwrap();
    let (tx, rx) = mpsc::channel();
    let stop = executor.stop_handle();
    node.subscription::<Text>("in")
        .callback(move |msg| {
            assert_ne!(msg.data, "boom", "the callback refuses this message");
            tx.send(msg.data.clone()).unwrap();
            stop.stop();
        })
        .unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let publisher = talker.publisher::<Text>("in").create().unwrap();
    executor.add(node).unwrap();

    publisher.publish(text("boom"));
    let spun = panic::catch_unwind(AssertUnwindSafe(|| executor.spin_for(PATIENCE)));
    assert!(spun.is_err());

    publisher.publish(text("fine"));
    assert_eq!(executor.spin_for(PATIENCE).unwrap(), SpinOutcome::Stopped);
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), ["fine"]);
}
