//! nobleo's LET comparison: its two variants' graphs, and what they deliver.
//!
//! Delivery is checked by what load cannot change: every sample published is either taken by
//! each of its topic's 10 subscriptions or counted lost by them (a gap in its tracking
//! numbers), against the count of an independent `KeepAll` subscription of the same topic.
//! How many are lost depends on how busy the machine is (`KeepLast(1)` replaces a sample its
//! reader has not taken yet), so that is not asserted.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tacto::{Context, ExecutorThread, History, Subscription};
use tacto_bench::result::{RunResult, TopicResult};
use tacto_bench::system::RunConfig;
use tacto_bench::topology::nobleo::{self, Reading, Spec};
use tacto_bench::topology::ros2_performance::messages::Stamped4Int32;
use tacto_launch::ExecutorKind;

/// Samples each topic publishes before a run stops: a second at 50 Hz.
const PUBLISHED_PER_TOPIC: u64 = 50;
/// Subscriptions of each topic in the topology.
const SUBSCRIPTIONS_PER_TOPIC: u64 = 10;
/// A subscription's samples that are neither taken nor counted lost: published before its
/// first take and replaced (a gap before the first sample is no gap), or after its last take.
/// Publishing and reading run on one executor, so however late it runs, a reader is at most a
/// tick behind its publisher at either end: one sample, plus one more for its `KeepLast(1)`
/// queue.
const UNCOUNTED_PER_SUBSCRIPTION: u64 = 3;
/// How long a run may take to publish its samples on a loaded machine. Nothing is timed.
const PATIENCE: Duration = Duration::from_secs(120);

fn run(spec: &Spec, executor: ExecutorKind) -> RunResult {
    let config = RunConfig {
        executor,
        crunch: 0,
        warmup: Duration::from_millis(200),
        duration: Duration::from_secs(1),
        ros_graph: false,
        node_parameters: 0,
    };
    let mut system = nobleo::start(spec, &config).unwrap();
    std::thread::sleep(config.warmup);
    system.reset();
    std::thread::sleep(config.duration);
    let mut result = RunResult::default();
    system.finish(&mut result).unwrap();
    result
}

/// Runs the variant on `executor` until every topic published [`PUBLISHED_PER_TOPIC`], with a
/// `KeepAll` subscription of each topic beside the topology's; returns what the topology's
/// subscriptions recorded and what each topic published, by topic.
fn run_counting(spec: &Spec, executor: ExecutorKind) -> Vec<(TopicResult, u64)> {
    let ctx = Context::new();
    let mut observer = ctx.node("observer").unwrap();
    let topics: Vec<String> = (0..20).map(|t| format!("t{t:02}")).collect();
    let observed: Vec<Subscription<Stamped4Int32>> = (topics.iter())
        .map(|topic| {
            (observer.subscription::<Stamped4Int32>(topic))
                .history(History::KeepAll { max: 100_000 })
                .create()
                .unwrap()
        })
        .collect();
    let names: Vec<String> = spec.layout().into_iter().map(|l| l.name).collect();
    let part = nobleo::start_part(
        spec,
        &ctx,
        &names,
        executor,
        None,
        ExecutorThread::builder(),
    )
    .unwrap();
    let mut published = vec![0u64; topics.len()];
    let count = |published: &mut Vec<u64>| {
        for (n, sub) in published.iter_mut().zip(&observed) {
            *n += sub.take_all().count() as u64;
        }
    };
    let deadline = Instant::now() + PATIENCE;
    while published.iter().any(|&n| n < PUBLISHED_PER_TOPIC) {
        assert!(Instant::now() < deadline, "published {published:?}");
        std::thread::sleep(Duration::from_millis(20));
        count(&mut published);
    }
    let recorded = part.stop().unwrap();
    // What was published while the executor stopped.
    count(&mut published);
    for (sub, topic) in observed.iter().zip(&topics) {
        assert_eq!(sub.dropped(), 0, "the observer of {topic} kept everything");
    }
    (topics.iter().zip(published))
        .map(|(topic, published)| {
            let result = (recorded.iter().find(|r| &r.topic == topic))
                .unwrap_or_else(|| panic!("no subscription of {topic} recorded anything"));
            (result.clone(), published)
        })
        .collect()
}

/// Every sample of the 20 topics reaches each of its 10 subscriptions or is counted lost by
/// it; none comes twice.
fn assert_delivers_everything(spec: &Spec, executor: ExecutorKind) {
    let label = format!("{} on {executor}", spec.name());
    let topics = run_counting(spec, executor);
    assert_eq!(topics.len(), 20, "{label}");
    for (topic, published) in topics {
        let owed = SUBSCRIPTIONS_PER_TOPIC * published;
        let accounted = topic.latency_ms.n + topic.lost;
        assert!(
            accounted <= owed,
            "{label}: {}: {} taken + {} lost of {published} published to 10",
            topic.topic,
            topic.latency_ms.n,
            topic.lost
        );
        assert!(
            owed - accounted <= SUBSCRIPTIONS_PER_TOPIC * UNCOUNTED_PER_SUBSCRIPTION,
            "{label}: {}: {} taken + {} lost of {published} published to 10",
            topic.topic,
            topic.latency_ms.n,
            topic.lost
        );
    }
}

#[test]
fn each_variant_has_20_topics_with_one_publisher_and_10_subscriptions_each() {
    for (spec, nodes) in [(Spec::ten_nodes(), 10), (Spec::one_node(), 1)] {
        let layout = spec.layout();
        assert_eq!(layout.len(), nodes, "{}", spec.name());
        let mut publishers: HashMap<&str, usize> = HashMap::new();
        let mut subscriptions: HashMap<&str, usize> = HashMap::new();
        for node in &layout {
            assert_eq!(node.publishes.len(), 20 / nodes);
            assert_eq!(node.subscribes.len(), 200 / nodes);
            for topic in &node.publishes {
                *publishers.entry(topic).or_default() += 1;
            }
            for topic in &node.subscribes {
                *subscriptions.entry(topic).or_default() += 1;
            }
        }
        assert_eq!(publishers.len(), 20);
        assert!(publishers.values().all(|&n| n == 1));
        assert_eq!(subscriptions.len(), 20);
        assert!(subscriptions.values().all(|&n| n == 10));
    }
}

#[test]
fn ten_nodes_deliver_everything_on_the_wait_set_executor() {
    assert_delivers_everything(&Spec::ten_nodes(), ExecutorKind::WaitSet);
}

#[test]
fn ten_nodes_deliver_everything_on_the_callback_executor() {
    assert_delivers_everything(&Spec::ten_nodes(), ExecutorKind::Callback);
}

#[test]
fn one_node_delivers_everything_on_the_wait_set_executor() {
    assert_delivers_everything(&Spec::one_node(), ExecutorKind::WaitSet);
}

#[test]
fn one_node_delivers_everything_on_the_callback_executor() {
    assert_delivers_everything(&Spec::one_node(), ExecutorKind::Callback);
}

#[test]
fn ten_nodes_deliver_everything_on_the_let_executor() {
    assert_delivers_everything(&Spec::ten_nodes(), ExecutorKind::Let);
}

#[test]
fn ten_nodes_reading_on_arrival_deliver_everything_on_the_wait_set_executor() {
    let spec = Spec::ten_nodes().reading(Reading::OnArrival);
    assert_delivers_everything(&spec, ExecutorKind::WaitSet);
}

#[test]
fn reading_on_the_timer_waits_for_the_readers_tick_and_reading_on_arrival_does_not() {
    let on_timer = run(&Spec::ten_nodes(), ExecutorKind::WaitSet);
    let on_arrival = run(
        &Spec::ten_nodes().reading(Reading::OnArrival),
        ExecutorKind::WaitSet,
    );
    let mean = |r: &RunResult| r.topics.iter().map(|t| t.latency_ms.mean).sum::<f64>() / 20.0;
    // A node's own topics wait a whole period for its next tick.
    assert!(mean(&on_timer) > 5.0, "{}", mean(&on_timer));
    assert!(mean(&on_arrival) < mean(&on_timer));
}
