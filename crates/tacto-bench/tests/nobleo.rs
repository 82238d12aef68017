//! nobleo's LET comparison: its two variants' graphs, and what they deliver.

use std::collections::HashMap;
use std::time::Duration;

use tacto_bench::executors::ExecutorKind;
use tacto_bench::result::RunResult;
use tacto_bench::system::RunConfig;
use tacto_bench::topology::nobleo::{self, Reading, Spec};

/// 50 Hz on 200 subscriptions.
const EXPECTED_PER_S: f64 = 10_000.0;

fn run(spec: &Spec, executor: ExecutorKind) -> RunResult {
    let config = RunConfig {
        executor,
        crunch: 0,
        warmup: Duration::from_millis(200),
        duration: Duration::from_secs(1),
    };
    let mut system = nobleo::start(spec, &config).unwrap();
    std::thread::sleep(config.warmup);
    system.reset();
    std::thread::sleep(config.duration);
    let mut result = RunResult::default();
    system.finish(&mut result).unwrap();
    result
}

/// About 10 000 deliveries per second on 20 topics, none lost.
fn assert_delivers_everything(spec: &Spec, executor: ExecutorKind) {
    let result = run(spec, executor);
    let label = format!("{} on {executor}", spec.name());
    let rate = result.deliveries_per_s.unwrap();
    assert!(
        (0.6 * EXPECTED_PER_S..=1.2 * EXPECTED_PER_S).contains(&rate),
        "{label}: {rate} deliveries/s"
    );
    assert_eq!(result.topics.len(), 20, "{label}");
    assert_eq!(result.drops_total, 0, "{label}: {:?}", result.topics);
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
