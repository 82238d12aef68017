//! Synchronized inputs through real subscriptions: a node triggered by a synchronizer runs
//! when, and only when, its subscriptions hold samples whose stamps match, and its code
//! takes exactly the matched sets.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tacto::msg::rosgraph_msgs::Clock;
use tacto::msg::std_msgs::Header;
use tacto::sync::{ApproximateTime, ExactTime, Policy, Set, Slot, StampedBy, Stats, Synchronizer};
use tacto::{Context, Executor, History, Node, Publisher, Subscription, Time};

mod util;
use util::{SETTLE, spin_until_stopped};

/// A module named after a behaviour, with one test per executor running it, each given the
/// synchronizer's trigger that it runs.
macro_rules! each_executor {
    ($behaviour:ident) => {
        mod $behaviour {
            use super::Fire;

            #[test]
            fn wait_set() {
                let executor = tacto::WaitSetExecutor::new().unwrap();
                super::$behaviour(Box::new(executor), Fire::OnMatch);
            }
            #[test]
            fn events() {
                let executor = tacto::EventsExecutor::new().unwrap();
                super::$behaviour(Box::new(executor), Fire::OnMatch);
            }
            #[test]
            fn logical_execution_time() {
                let period = std::time::Duration::from_millis(2);
                let executor = tacto::LetExecutor::new(period).unwrap();
                super::$behaviour(Box::new(executor), Fire::OnMatch);
            }
            #[test]
            fn callback() {
                let executor = tacto::CallbackExecutor::new().unwrap();
                super::$behaviour(Box::new(executor), Fire::OnArrival);
            }
            #[test]
            fn thread_pool() {
                let executor = tacto::ThreadPoolExecutor::builder().threads(2).create();
                super::$behaviour(Box::new(executor.unwrap()), Fire::OnArrival);
            }
        }
    };
}

/// A header stamped `sec` seconds.
fn header(sec: i64) -> Header {
    Header {
        stamp: Time::from_nanos(sec * 1_000_000_000).into(),
        frame_id: String::new(),
    }
}

fn seconds(header: &Header) -> i64 {
    Time::from(header.stamp).as_nanos() / 1_000_000_000
}

/// A node with `n` subscriptions `in0`, `in1`, .. and publishers to them on another node.
fn inputs(ctx: &Context, n: usize) -> (Node, Vec<Subscription<Header>>, Vec<Publisher<Header>>) {
    let mut node = ctx.node("fusion").unwrap();
    let mut drivers = ctx.node("drivers").unwrap();
    let mut subs = Vec::new();
    let mut pubs = Vec::new();
    for i in 0..n {
        let topic = format!("in{i}");
        subs.push(
            node.subscription::<Header>(&topic)
                .history(History::KeepLast(20))
                .create()
                .unwrap(),
        );
        pubs.push(drivers.publisher::<Header>(&topic).create().unwrap());
    }
    (node, subs, pubs)
}

fn pair<T>(mut v: Vec<T>) -> (T, T) {
    let b = v.pop().unwrap();
    (v.pop().unwrap(), b)
}

/// What the node's code took: the stamps of each set, in seconds.
type Taken = Arc<Mutex<Vec<(i64, i64)>>>;

/// Which of a synchronizer's triggers a test gives the node.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fire {
    /// `trigger()`: only when a set matched.
    OnMatch,
    /// `arrival_trigger()`: on every arrival, for the callback-only executors.
    OnArrival,
}

/// Runs `sync`'s sets into `taken`, stopping the executor once `expected` sets were taken.
fn execute<P>(
    node: &mut Node,
    sync: Synchronizer<P, (Subscription<Header>, Subscription<Header>)>,
    executor: &dyn Executor,
    fire: Fire,
    expected: usize,
) -> Taken
where
    P: Policy<Set = (tacto::Sample<Header>, tacto::Sample<Header>)> + Send + 'static,
{
    let taken = Taken::default();
    let (out, stop) = (taken.clone(), executor.stop_handle());
    let trigger = match fire {
        Fire::OnMatch => sync.trigger(),
        Fire::OnArrival => sync.arrival_trigger(),
    };
    node.execute(trigger, move |_| {
        let mut out = out.lock().unwrap();
        while let Some((a, b)) = sync.take() {
            out.push((seconds(&a), seconds(&b)));
        }
        if out.len() >= expected {
            stop.stop();
        }
    })
    .unwrap();
    taken
}

/// Equal stamps on both inputs make sets, others none; the code gets exactly those.
fn exact_time_runs_the_code_with_the_sets_of_equal_stamps(
    mut executor: Box<dyn Executor>,
    fire: Fire,
) {
    let ctx = Context::new();
    let (mut node, subs, pubs) = inputs(&ctx, 2);
    let sync = Synchronizer::new(ExactTime::new(10).unwrap(), pair(subs));
    let taken = execute(&mut node, sync, &*executor, fire, 2);
    for sec in [1, 2, 3] {
        pubs[0].publish(header(sec));
        pubs[1].publish(header(sec + 1));
    }
    executor.add(node).unwrap();
    spin_until_stopped(&mut *executor);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(*taken.lock().unwrap(), [(2, 2), (3, 3)]);
}
each_executor!(exact_time_runs_the_code_with_the_sets_of_equal_stamps);

/// message_filters' ImperfectMatch sequence (test_approximate_time_policy.cpp), published:
/// the code takes the sets the peer's test expects.
fn approximate_time_through_topics_gives_the_peer_sets(
    mut executor: Box<dyn Executor>,
    fire: Fire,
) {
    let ctx = Context::new();
    let (mut node, subs, pubs) = inputs(&ctx, 2);
    let sync = Synchronizer::new(ApproximateTime::new(10).unwrap(), pair(subs));
    let taken = execute(&mut node, sync, &*executor, fire, 2);
    // Input A:  a.xb..c.
    // Input B:  .A...B.C
    // Output:   ..a...c.
    //           ..A...B.
    for (sec, input) in [(0, 0), (1, 1), (2, 0), (3, 0), (5, 1), (6, 0), (7, 1)] {
        pubs[input].publish(header(sec));
    }
    executor.add(node).unwrap();
    spin_until_stopped(&mut *executor);
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(*taken.lock().unwrap(), [(0, 1), (6, 5)]);
}
each_executor!(approximate_time_through_topics_gives_the_peer_sets);

#[test]
fn the_code_does_not_run_until_a_set_matches() {
    let ctx = Context::new();
    let (mut node, subs, pubs) = inputs(&ctx, 2);
    let mut executor = tacto::WaitSetExecutor::new().unwrap();
    let sync = Synchronizer::new(ExactTime::new(10).unwrap(), pair(subs));
    let monitor = sync.clone();
    let taken = execute(&mut node, sync, &executor, Fire::OnMatch, 1);
    executor.add(node).unwrap();
    for sec in 0..5 {
        pubs[0].publish(header(sec));
    }
    pubs[1].publish(header(10));
    executor.spin_for(SETTLE).unwrap();
    let runs = executor.executable_stats()[0].runs;
    assert_eq!(runs, 0, "no stamp on both inputs: the code never ran");
    // The rule moved the samples into the policy: six stamps being filled, nothing dropped.
    assert_eq!(monitor.inputs().0.len() + monitor.inputs().1.len(), 0);
    assert_eq!(monitor.stats().dropped(), [0, 0]);

    pubs[0].publish(header(10));
    spin_until_stopped(&mut executor);
    assert_eq!(*taken.lock().unwrap(), [(10, 10)]);
    assert_eq!(executor.executable_stats()[0].runs, 1);
    // Stamps 0 to 4, older than the set, can no longer be matched.
    assert_eq!(monitor.stats().dropped(), [5, 0]);
    assert_eq!(monitor.stats().matched(), 1);
}

#[test]
fn samples_dropped_unmatched_are_counted_by_the_policy_and_the_history() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let lidar = (node.subscription::<Header>("lidar"))
        .history(History::KeepLast(5))
        .create()
        .unwrap();
    let camera = node.subscription::<Header>("camera").create().unwrap();
    let sync = Synchronizer::new(ApproximateTime::new(2).unwrap(), (lidar, camera));
    let lidar_out = node.publisher::<Header>("lidar").create().unwrap();
    for sec in 0..12 {
        lidar_out.publish(header(sec));
    }
    // The history kept the newest 5; the policy keeps 2 of those.
    assert!(sync.take().is_none());
    assert_eq!(sync.inputs().0.dropped(), 7);
    assert_eq!(sync.stats().dropped(), [3, 0]);
    assert_eq!(sync.stats().matched(), 0);
}

#[test]
fn an_input_stamped_by_a_function_is_matched_on_its_stamps() {
    let ctx = Context::new();
    let mut node = ctx.node("fusion").unwrap();
    let clock = |sec: i32| Clock {
        clock: tacto::msg::builtin_interfaces::Time { sec, nanosec: 0 },
    };
    let ticks = node.subscription::<Clock>("ticks").create().unwrap();
    let headers = node.subscription::<Header>("headers").create().unwrap();
    let sync = Synchronizer::new(
        ExactTime::new(4).unwrap(),
        (StampedBy::new(ticks, |m: &Clock| m.clock.into()), headers),
    );
    let ticks_out = node.publisher::<Clock>("ticks").create().unwrap();
    let headers_out = node.publisher::<Header>("headers").create().unwrap();
    ticks_out.publish(clock(7));
    headers_out.publish(header(6));
    headers_out.publish(header(7));
    let (tick, header) = sync.take().unwrap();
    assert_eq!((tick.clock.sec, seconds(&header)), (7, 7));
    assert!(sync.take().is_none());
}

#[test]
fn a_set_matches_when_its_last_input_arrives() {
    // From message_filters/test/time_synchronizer_unittest.cpp, connectConstructor: two
    // pass-through filters feed the synchronizer; here two subscriptions do.
    let ctx = Context::new();
    let (_node, subs, pubs) = inputs(&ctx, 2);
    let sync = Synchronizer::new(ExactTime::new(1).unwrap(), pair(subs));
    pubs[0].publish(header(1_700_000_000));
    assert!(sync.take().is_none());
    pubs[1].publish(header(1_700_000_000));
    assert!(sync.take().is_some());
}

/// From message_filters/test/test_synchronizer.cpp: its `NullPolicy` counts what the
/// synchronizer adds to each input; `add2` to `add9` add one message on each.
struct NullPolicy<S> {
    added: Arc<[AtomicU32; 9]>,
    set: PhantomData<fn() -> S>,
}

impl<S: Set> Policy for NullPolicy<S> {
    type Set = S;

    fn add<const K: usize>(&mut self, _: Time, _: <S as Slot<K>>::Item)
    where
        S: Slot<K>,
    {
        self.added[K].fetch_add(1, Ordering::SeqCst);
    }

    fn take(&mut self) -> Option<S> {
        None
    }

    fn ready(&self) -> usize {
        0
    }

    fn stats(&self) -> Stats {
        Stats::new(0, &[0; 9][..S::INPUTS])
    }
}

/// add2 .. add9: one sample on each of the `n` inputs reaches the policy as that input's.
macro_rules! add_n {
    ($name:ident, $n:literal: $($k:tt)+) => {
        #[test]
        fn $name() {
            let ctx = Context::new();
            let (_node, subs, pubs) = inputs(&ctx, $n);
            let mut subs = subs.into_iter();
            let tuple = ($(add_n!(@next subs $k),)+);
            let added = Arc::new([const { AtomicU32::new(0) }; 9]);
            let policy = NullPolicy { added: added.clone(), set: PhantomData };
            let sync = Synchronizer::new(policy, tuple);
            for publisher in &pubs {
                publisher.publish(header(1));
            }
            assert!(sync.take().is_none());
            let added: Vec<u32> = added.iter().map(|a| a.load(Ordering::SeqCst)).collect();
            let mut expected = vec![1; $n];
            expected.resize(9, 0);
            assert_eq!(added, expected);
            assert_eq!(sync.stats().dropped().len(), $n);
        }
    };
    (@next $subs:ident $k:tt) => { $subs.next().unwrap() };
}

add_n!(a_synchronizer_of_2_inputs_adds_each_to_its_place, 2: 0 1);
add_n!(a_synchronizer_of_3_inputs_adds_each_to_its_place, 3: 0 1 2);
add_n!(a_synchronizer_of_4_inputs_adds_each_to_its_place, 4: 0 1 2 3);
add_n!(a_synchronizer_of_5_inputs_adds_each_to_its_place, 5: 0 1 2 3 4);
add_n!(a_synchronizer_of_6_inputs_adds_each_to_its_place, 6: 0 1 2 3 4 5);
add_n!(a_synchronizer_of_7_inputs_adds_each_to_its_place, 7: 0 1 2 3 4 5 6);
add_n!(a_synchronizer_of_8_inputs_adds_each_to_its_place, 8: 0 1 2 3 4 5 6 7);
add_n!(a_synchronizer_of_9_inputs_adds_each_to_its_place, 9: 0 1 2 3 4 5 6 7 8);
