//! The transport seam, proven with a transport written against `tacto::transport` alone
//! (`loopback/`): two contexts stand for two processes, samples cross between them as CDR and
//! wait in the receiving reader's own cache. Subscriptions and executors must behave through
//! it as they do in one process.

#[macro_use]
mod util;
mod loopback;

use std::sync::mpsc;
use std::time::Duration;

use tacto::msg::std_msgs::String as Text;
use tacto::msg::tacto_msgs::{EXECUTOR_STATS_TOPIC, ExecutorStats};
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, History, LetExecutor, Qos, Trigger,
};
use util::{PATIENCE, SETTLE, spin_until_stopped};

fn text(s: &str) -> Text {
    Text { data: s.into() }
}

#[test]
fn a_remote_samples_bytes_stay_with_the_transport_until_taken_then_are_released() {
    let hub = loopback::Hub::new();
    let (talker, ctx) = (hub.context(), hub.context());
    let publisher = (talker.node("talker").unwrap())
        .publisher::<Text>("held")
        .create()
        .unwrap();
    let sub = (ctx.node("listener").unwrap())
        .subscription::<Text>("held")
        .create()
        .unwrap();
    publisher.publish(text("a"));
    publisher.publish(text("b"));
    assert_eq!(hub.samples_held(), 2);
    assert_eq!(
        sub.read_new().unwrap().data,
        "a",
        "decoded from the held bytes"
    );
    assert_eq!(hub.samples_held(), 2, "a read sample stays in the cache");
    assert_eq!(sub.take().unwrap().data, "a");
    assert_eq!(hub.samples_held(), 1, "a taken sample's bytes are released");
    drop(sub);
    assert_eq!(hub.samples_held(), 0, "a reader gone releases what it held");
}

/// A node reading the latest value on its own timer reads the same remote sample many times:
/// it is decoded once, and later reads share that value, until another sample is newest. A
/// taken sample lets go of its bytes.
#[test]
fn a_sample_left_in_the_transports_cache_is_decoded_once_however_often_it_is_read() {
    let hub = loopback::Hub::new();
    let (talker, ctx) = (hub.context(), hub.context());
    let publisher = (talker.node("talker").unwrap())
        .publisher::<Text>("map")
        .create()
        .unwrap();
    let sub = (ctx.node("planner").unwrap())
        .subscription::<Text>("map")
        .create()
        .unwrap();
    publisher.publish(text("a"));
    let (first, again) = (sub.latest().unwrap(), sub.latest().unwrap());
    assert!(std::ptr::eq(&*first, &*again), "one decode, shared");
    assert_eq!(hub.samples_held(), 1);
    publisher.publish(text("b"));
    let newer = sub.latest().unwrap();
    assert_eq!(newer.data, "b");
    assert!(!std::ptr::eq(&*first, &*newer));
    assert!(std::ptr::eq(&*newer, &*sub.latest().unwrap()));
    assert_eq!(sub.take().unwrap().data, "a");
    let taken = sub.take().unwrap();
    assert!(std::ptr::eq(&*newer, &*taken), "a take shares it too");
    assert_eq!(
        hub.samples_held(),
        0,
        "taken: no bytes held for it any more"
    );
}

/// A talker in one "process" and a context for the listener in another, on one hub.
fn two_processes() -> (Context, tacto::Publisher<Text>, Context) {
    let hub = loopback::Hub::new();
    let talker_ctx = hub.context();
    let listener_ctx = hub.context();
    let publisher = (talker_ctx.node("talker").unwrap())
        .publisher::<Text>("chat")
        .create()
        .unwrap();
    (talker_ctx, publisher, listener_ctx)
}

#[test]
fn a_remote_subscription_reads_the_transports_cache_with_sample_states() {
    let (_talker, publisher, ctx) = two_processes();
    let sub = (ctx.node("listener").unwrap())
        .subscription::<Text>("chat")
        .create()
        .unwrap();
    for word in ["a", "b", "c"] {
        publisher.publish(text(word));
    }
    assert_eq!((sub.len(), sub.unread()), (3, 3));
    assert_eq!(
        sub.read_new().unwrap().data,
        "a",
        "read marks READ, keeps it"
    );
    assert_eq!((sub.len(), sub.unread()), (3, 2));
    assert_eq!(
        sub.take_new().unwrap().data,
        "b",
        "take_new skips READ samples"
    );
    assert_eq!(sub.latest().unwrap().data, "c");
    assert!(!sub.has_new(), "latest marks every sample READ");
    let rest: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(rest, ["a", "c"], "take takes whatever the state");
    assert!(sub.is_empty());
}

#[test]
fn samples_carry_the_transports_facts_and_the_cache_keeps_its_bound() {
    let (_talker, publisher, ctx) = two_processes();
    let sub = (ctx.node("listener").unwrap())
        .subscription::<Text>("chat")
        .qos(Qos::default().history(History::KeepLast(2)))
        .create()
        .unwrap();
    for word in ["a", "b", "c"] {
        publisher.publish(text(word));
    }
    let samples: Vec<_> = sub.take_all().collect();
    let words: Vec<_> = samples.iter().map(|s| s.data.as_str()).collect();
    assert_eq!(words, ["b", "c"], "KeepLast(2): the oldest was overwritten");
    let sequences: Vec<_> = samples.iter().map(|s| s.info().sequence).collect();
    assert_eq!(sequences, [2, 3], "the transport's sequence numbers");
    assert_ne!(
        samples[0].info().publisher,
        publisher.id(),
        "the link's own writer id"
    );
}

#[test]
fn a_publisher_encodes_only_while_a_remote_reader_exists_and_never_echoes() {
    let (talker_ctx, publisher, ctx) = two_processes();
    let local = (talker_ctx.node("local").unwrap())
        .subscription::<Text>("chat")
        .create()
        .unwrap();
    publisher.publish(text("nobody outside"));
    assert_eq!(publisher.remote_writes(), 0);

    let remote = (ctx.node("listener").unwrap())
        .subscription::<Text>("chat")
        .create()
        .unwrap();
    publisher.publish(text("both"));
    assert_eq!(publisher.remote_writes(), 1);
    let heard: Vec<_> = local.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(
        heard,
        ["nobody outside", "both"],
        "each sample once, no echo"
    );
    assert_eq!(remote.take().unwrap().data, "both");
    assert!(remote.take().is_none());

    drop(remote);
    publisher.publish(text("nobody again"));
    assert_eq!(publisher.remote_writes(), 1);
}

/// Claims `std_msgs/msg/String` but wants 8 bytes more than a String has.
#[derive(Debug, Clone, Default, tacto::serde::Serialize, tacto::serde::Deserialize)]
#[serde(crate = "tacto::serde")]
struct Longer {
    data: String,
    extra: u64,
}

impl tacto::Message for Longer {
    const TYPE_NAME: &'static str = "std_msgs/msg/String";
}

#[test]
fn bytes_that_do_not_decode_are_counted_and_the_next_sample_still_reads() {
    let (talker_ctx, publisher, ctx) = two_processes();
    let sub = (ctx.node("listener").unwrap())
        .subscription::<Longer>("chat")
        .create()
        .unwrap();
    let longer = (talker_ctx.node("other").unwrap())
        .publisher::<Longer>("chat")
        .create()
        .unwrap();
    publisher.publish(text("too short for Longer"));
    longer.publish(Longer {
        data: "fits".into(),
        extra: 7,
    });
    assert_eq!(
        sub.take().unwrap().extra,
        7,
        "the malformed sample was skipped"
    );
    assert_eq!(sub.malformed(), 1);
}

each_executor!(a_remote_sample_triggers_a_node_through_the_transport);
fn a_remote_sample_triggers_a_node_through_the_transport(mut executor: impl Executor) {
    let (_talker, publisher, ctx) = two_processes();
    let mut node = ctx.node("listener").unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    let stop = executor.stop_handle();
    let (heard, words) = mpsc::channel();
    node.execute(Trigger::on(&sub), move |_| {
        for sample in sub.take_all() {
            heard.send(sample.data.clone()).unwrap();
            if sample.data == "c" {
                stop.stop();
            }
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    for word in ["a", "b", "c"] {
        publisher.publish(text(word));
    }
    spin_until_stopped(&mut executor);
    assert_eq!(words.try_iter().collect::<Vec<_>>(), ["a", "b", "c"]);
}

#[test]
fn a_per_message_callback_runs_once_per_remote_sample() {
    let (_talker, publisher, ctx) = two_processes();
    let mut executor = CallbackExecutor::new().unwrap();
    let mut node = ctx.node("listener").unwrap();
    let stop = executor.stop_handle();
    let (heard, words) = mpsc::channel();
    node.subscription::<Text>("chat")
        .callback(move |msg| {
            heard.send(msg.data.clone()).unwrap();
            if msg.data == "c" {
                stop.stop();
            }
        })
        .unwrap();
    executor.add(node).unwrap();
    for word in ["a", "b", "c"] {
        publisher.publish(text(word));
    }
    spin_until_stopped(&mut executor);
    assert_eq!(words.try_iter().collect::<Vec<_>>(), ["a", "b", "c"]);
}

#[test]
fn a_polling_only_remote_subscription_wakes_nothing() {
    let (_talker, publisher, ctx) = two_processes();
    let mut executor = EventsExecutor::new().unwrap();
    let mut node = ctx.node("listener").unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    // A node with no trigger on `sub`: it only polls, here from the test itself.
    node.execute(Trigger::every(Duration::from_secs(3600)), |_| {})
        .unwrap();
    executor.add(node).unwrap();
    executor.spin_for(SETTLE).unwrap();
    let idle = executor.stats().wakeups;
    for i in 0..100 {
        publisher.publish(text(&i.to_string()));
    }
    executor.spin_for(SETTLE).unwrap();
    let with_samples = executor.stats().wakeups - idle;
    assert_eq!(
        with_samples, idle,
        "100 samples woke it no more than an idle window"
    );
    assert_eq!(
        sub.unread(),
        10,
        "yet every sample is there to read (KeepLast 10)"
    );
}

#[test]
fn a_let_period_sees_the_remote_samples_of_its_start_only() {
    let (_talker, publisher, ctx) = two_processes();
    let mut executor = LetExecutor::new(Duration::from_millis(20)).unwrap();
    let mut node = ctx.node("listener").unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    let stop = executor.stop_handle();
    let (seen, periods) = mpsc::channel();
    let mut publishing = Some(publisher);
    node.execute(Trigger::every(Duration::from_millis(20)), move |_| {
        let frozen: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
        match publishing.take() {
            // First period: publish during the run; the samples belong to the next period.
            Some(publisher) => {
                publisher.publish(text("during"));
                seen.send((frozen, sub.unread())).unwrap();
            }
            None if frozen.is_empty() => {}
            None => {
                seen.send((frozen, 0)).unwrap();
                stop.stop();
            }
        }
    })
    .unwrap();
    executor.add(node).unwrap();
    let outcome = executor.spin_for(PATIENCE).unwrap();
    assert_eq!(outcome, tacto::SpinOutcome::Stopped);
    let periods: Vec<_> = periods.try_iter().collect();
    assert_eq!(
        periods[0],
        (vec![], 0),
        "an arrival during a period stays hidden in it"
    );
    assert_eq!(
        periods[1].0,
        ["during"],
        "and is seen at the next period's start"
    );
}

/// Spins `executor` with a node `name` that runs every millisecond, on a thread of its own
/// until the returned handle stops it.
fn spin_ticker(
    ctx: &Context,
    name: &str,
    mut executor: impl Executor + 'static,
) -> (tacto::StopHandle, std::thread::JoinHandle<()>) {
    let mut node = ctx.node(name).unwrap();
    node.execute(Trigger::every(Duration::from_millis(1)), |_| {})
        .unwrap();
    executor.add(node).unwrap();
    let stop = executor.stop_handle();
    let thread = std::thread::spawn(move || {
        executor.spin_for(PATIENCE).unwrap();
    });
    (stop, thread)
}

#[test]
fn every_executor_of_a_process_is_reported_on_the_stats_topic_while_someone_subscribes() {
    let hub = loopback::Hub::new();
    let (process, top) = (hub.context(), hub.context());
    let ticking = [
        spin_ticker(&process, "ticker", tacto::WaitSetExecutor::new().unwrap()),
        spin_ticker(&process, "relay", EventsExecutor::new().unwrap()),
    ];
    // Two report periods with nobody listening: nothing goes out.
    std::thread::sleep(Duration::from_millis(2200));
    assert_eq!(hub.writes(EXECUTOR_STATS_TOPIC), 0);

    let reports = (top.node("top").unwrap())
        .subscription::<ExecutorStats>(EXECUTOR_STATS_TOPIC)
        .create()
        .unwrap();
    let mut seen: Vec<ExecutorStats> = Vec::new();
    let deadline = std::time::Instant::now() + PATIENCE;
    while !(seen.iter().any(|r| r.kind == "wait-set") && seen.iter().any(|r| r.kind == "events")) {
        assert!(
            std::time::Instant::now() < deadline,
            "reports seen: {seen:?}"
        );
        match reports.take() {
            Some(report) => seen.push(ExecutorStats::clone(&report)),
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    for report in &seen {
        assert_eq!(report.pid, std::process::id());
        let expected = if report.kind == "wait-set" {
            "/ticker"
        } else {
            "/relay"
        };
        let [executable] = &report.executables[..] else {
            panic!("{report:?}");
        };
        assert_eq!((&*executable.node, executable.index), (expected, 0));
        assert!(executable.runs > 0, "{report:?}");
        assert!(
            executable.run_ns_total >= executable.run_ns_max,
            "{report:?}"
        );
        assert!(report.wakeups > 0, "{report:?}");
    }
    let number = |kind: &str| seen.iter().find(|r| r.kind == kind).unwrap().executor;
    assert_ne!(number("wait-set"), number("events"), "numbered apart");
    for (stop, thread) in ticking {
        stop.stop();
        thread.join().unwrap();
    }
}
