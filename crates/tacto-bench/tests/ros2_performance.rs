//! ros2-performance topologies: loading files, refusing bad ones, and measuring runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tacto::{Context, History};
use tacto_bench::result::RunResult;
use tacto_bench::system::RunConfig;
use tacto_bench::topology::ros2_performance::messages::{MsgType, StampedVector};
use tacto_bench::topology::ros2_performance::{self, Spec};
use tacto_bench::topology::{Topology, TopologyError};
use tacto_launch::ExecutorKind;

/// A file of the ros2-performance topologies this crate carries.
fn shared(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("topologies/ros2-performance")
        .join(file)
}

fn parse(json: &str) -> Result<Spec, TopologyError> {
    Spec::parse(Path::new("test.json"), json)
}

fn config(executor: ExecutorKind) -> RunConfig {
    RunConfig {
        executor,
        crunch: 0,
        warmup: Duration::from_millis(200),
        duration: Duration::from_secs(1),
        ros_graph: false,
        node_parameters: 0,
    }
}

/// Runs `spec` as the harness does: warm-up, reset, measured window, finish.
fn run(spec: &Spec, executor: ExecutorKind) -> RunResult {
    let config = config(executor);
    let mut system = ros2_performance::start(spec, &config).unwrap();
    std::thread::sleep(config.warmup);
    system.reset();
    std::thread::sleep(config.duration);
    let mut result = RunResult::default();
    system.finish(&mut result).unwrap();
    result
}

const TALKER_LISTENER: &str = r#"{"nodes": [
    {"node_name": "talker", "publishers": [
        {"topic_name": "chat", "msg_type": "stamped4_int32", "period_ms": 10, "msg_pass_by": "shared_ptr"}]},
    {"node_name": "listener", "subscribers": [
        {"topic_name": "chat", "msg_type": "stamped4_int32"}]}
]}"#;

#[test]
fn both_shared_topologies_load_with_their_nodes_and_topics() {
    for (file, nodes, topics, subscriptions) in [
        ("mont_blanc.json", 20, 23, 35),
        ("sierra_nevada.json", 10, 13, 17),
    ] {
        let path = shared(file);
        let Topology::Ros2Performance(spec) = Topology::load(path.to_str().unwrap()).unwrap()
        else {
            panic!("{file} did not load as a ros2-performance topology");
        };
        let subs: usize = spec.nodes.iter().map(|n| n.subscribers.len()).sum();
        assert_eq!(
            (spec.nodes.len(), spec.topics().len(), subs),
            (nodes, topics, subscriptions),
            "{file}"
        );
    }
}

#[test]
fn the_built_in_names_load_the_same_topologies_as_their_files() {
    for (name, file) in [
        ("mont-blanc", "mont_blanc.json"),
        ("sierra-nevada", "sierra_nevada.json"),
    ] {
        let (Topology::Ros2Performance(by_name), Topology::Ros2Performance(by_path)) = (
            Topology::load(name).unwrap(),
            Topology::load(shared(file).to_str().unwrap()).unwrap(),
        ) else {
            panic!("{name} is a ros2-performance topology");
        };
        assert_eq!(by_name, by_path, "{name}");
    }
}

#[test]
fn mont_blanc_sizes_its_messages_as_declared() {
    let spec = Spec::from_file(&shared("mont_blanc.json")).unwrap();
    let publisher = |topic: &str| {
        let all = spec.nodes.iter().flat_map(|n| &n.publishers);
        all.clone().find(|p| p.topic == topic).unwrap().clone()
    };
    assert_eq!(publisher("columbia").msg_type, MsgType::Stamped250kb);
    assert_eq!(publisher("columbia").msg_size, 256_000);
    assert_eq!(publisher("tagus").msg_type, MsgType::StampedVector);
    assert_eq!(publisher("tagus").msg_size, 250_000);
    assert_eq!(publisher("tagus").period, Duration::from_millis(25));
    assert_eq!(spec.common_period(), Duration::from_millis(5));
}

#[test]
fn every_message_type_matches_its_msg_file() {
    let dir = shared("msg");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if stem == "PerformanceHeader" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let data = text.lines().find(|l| l.ends_with(" data")).unwrap();
        let (element, count) = data.trim_end_matches(" data").split_once('[').unwrap();
        let count = count.trim_end_matches(']');
        let expected = match count {
            "" => None,
            n => {
                let width = match element {
                    "byte" => 1,
                    "float32" | "int32" => 4,
                    "int64" => 8,
                    other => panic!("{stem}: unexpected element type {other}"),
                };
                Some(width * n.parse::<usize>().unwrap())
            }
        };
        let msg_type = MsgType::ALL
            .iter()
            .find(|t| t.type_name() == format!("performance_test_msgs/msg/{stem}"))
            .unwrap_or_else(|| panic!("no message type for {stem}"));
        assert_eq!(msg_type.fixed_size(), expected, "{stem}");
        files += 1;
    }
    assert_eq!(files, MsgType::ALL.len());
}

#[test]
fn a_two_node_topology_delivers_everything_on_the_wait_set_executor() {
    let result = run(&parse(TALKER_LISTENER).unwrap(), ExecutorKind::WaitSet);
    let chat = &result.topics[0];
    assert_eq!(chat.topic, "chat");
    assert!(chat.latency_ms.n >= 20, "{chat:?}");
    assert_eq!((chat.lost, result.drops_total), (0, 0));
}

#[test]
fn a_two_node_topology_delivers_everything_on_the_callback_executor() {
    let result = run(&parse(TALKER_LISTENER).unwrap(), ExecutorKind::Callback);
    let chat = &result.topics[0];
    assert!(chat.latency_ms.n >= 20, "{chat:?}");
    assert_eq!((chat.lost, result.drops_total), (0, 0));
}

#[test]
fn under_let_latency_includes_one_let_period() {
    let result = run(&parse(TALKER_LISTENER).unwrap(), ExecutorKind::Let);
    let chat = &result.topics[0];
    assert!(chat.latency_ms.n >= 20, "{chat:?}");
    assert_eq!(chat.lost, 0);
    // Published in one 10 ms period, sent at its end. A loaded machine starts a run late in
    // its period (shortening that sample's wait), so only the typical sample is held to it,
    // by half a period: without LET the latency is well under a millisecond.
    assert!(chat.latency_ms.p50 >= 5.0, "{chat:?}");
    assert!(2 * chat.late >= chat.latency_ms.n, "{chat:?}");
}

/// What each run of mont_blanc owes on each topic, from the file: its publisher's period and
/// payload size, and how many subscriptions it has.
struct Owed {
    period: Duration,
    size: u64,
    subscriptions: u64,
}

fn owed(spec: &Spec, topic: &str) -> Owed {
    let publisher = (spec.nodes.iter().flat_map(|n| &n.publishers))
        .find(|p| p.topic == topic)
        .unwrap_or_else(|| panic!("{topic} has no publisher in the file"));
    let subscriptions = (spec.nodes.iter().flat_map(|n| &n.subscribers))
        .filter(|s| s.topic == topic)
        .count();
    Owed {
        period: publisher.period,
        size: publisher.msg_size as u64,
        subscriptions: subscriptions as u64,
    }
}

#[test]
fn mont_blanc_delivers_on_every_topic_on_every_executor_kind() {
    let spec = Spec::from_file(&shared("mont_blanc.json")).unwrap();
    for kind in ExecutorKind::ALL {
        let config = config(kind);
        let mut system = ros2_performance::start(&spec, &config).unwrap();
        std::thread::sleep(config.warmup);
        system.reset();
        // The window as this test sees it lies inside the run's: it starts after the reset
        // and ends before the run is stopped.
        let since = Instant::now();
        std::thread::sleep(config.duration);
        let window = since.elapsed();
        let mut result = RunResult::default();
        system.finish(&mut result).unwrap();

        assert_eq!(result.topics.len(), 23, "{kind}");
        for topic in &result.topics {
            let label = format!("{kind}: {topic:?}");
            let owed = owed(&spec, &topic.topic);
            let published = topic.published.expect(&label);
            // Load decides how many are lost or still unread when the run stops, never the
            // sum: each sample published is, for each subscription, taken, lost or unread,
            // and none is taken twice.
            let accounted = topic.latency_ms.n + topic.lost + topic.unread.expect(&label);
            assert_eq!(accounted, published * owed.subscriptions, "{label}");
            // Every payload taken has the size the file declares.
            assert_eq!(topic.payload_bytes, Some((owed.size, owed.size)), "{label}");
            // The rate: a timer that keeps its period publishes window / period samples, and
            // every subscription takes them. Half of that is a bound a loaded machine does
            // not break (it would have to stall the run for half a second of the one
            // measured), while a publisher at half its rate or a subscription hearing every
            // other sample does.
            let due = (window.as_secs_f64() / owed.period.as_secs_f64()).floor() as u64;
            assert!(
                2 * published >= due,
                "{label}: published {published} of {due}"
            );
            let taken = topic.latency_ms.n;
            assert!(
                2 * taken >= due * owed.subscriptions,
                "{label}: {taken} taken of {due} due to {}",
                owed.subscriptions
            );
        }
    }
}

#[test]
fn a_stamped_vector_carries_its_msg_size() {
    let json = r#"{"nodes": [
        {"node_name": "camera", "publishers": [
            {"topic_name": "image", "msg_type": "stamped_vector", "msg_size": 5000, "period_ms": 10}]},
        {"node_name": "viewer", "subscribers": [
            {"topic_name": "image", "msg_type": "stamped_vector"}]}]}"#;
    let spec = parse(json).unwrap();
    assert_eq!(spec.nodes[0].publishers[0].msg_size, 5000);

    let ctx = Context::new();
    let mut probe = ctx.node("probe").unwrap();
    let image = probe
        .subscription::<StampedVector>("image")
        .history(History::KeepLast(1))
        .create()
        .unwrap();
    let system = ros2_performance::start_in(&spec, &config(ExecutorKind::WaitSet), &ctx).unwrap();
    let give_up = Instant::now() + Duration::from_secs(10);
    let sample = loop {
        if let Some(sample) = image.take() {
            break sample;
        }
        assert!(Instant::now() < give_up, "no image arrived");
        std::thread::sleep(Duration::from_millis(5));
    };
    system.finish(&mut RunResult::default()).unwrap();
    assert_eq!((sample.data.len(), sample.header.size), (5000, 5000));
}

fn inconsistent(json: &str) -> String {
    match parse(json) {
        Err(TopologyError::Inconsistent { reason, .. }) => reason,
        other => panic!("expected an inconsistent topology, got {other:?}"),
    }
}

fn malformed(json: &str) -> String {
    match parse(json) {
        Err(TopologyError::Malformed { reason, .. }) => reason,
        other => panic!("expected a malformed topology, got {other:?}"),
    }
}

#[test]
fn an_unknown_message_type_is_refused_where_it_is_written() {
    let reason = malformed(&TALKER_LISTENER.replace(
        r#""msg_type": "stamped4_int32", "period_ms""#,
        r#""msg_type": "stamped4_int64", "period_ms""#,
    ));
    assert!(reason.contains("stamped4_int64"), "{reason}");
    assert!(reason.contains("line 3"), "{reason}");
}

#[test]
fn a_subscriber_without_a_publisher_is_refused() {
    let reason = inconsistent(&TALKER_LISTENER.replace(
        r#"{"topic_name": "chat", "msg_type": "stamped4_int32"}"#,
        r#"{"topic_name": "news", "msg_type": "stamped4_int32"}"#,
    ));
    assert!(
        reason.contains("listener") && reason.contains("news"),
        "{reason}"
    );
}

#[test]
fn a_period_that_is_not_above_zero_is_refused() {
    for period in ["-10", "0"] {
        let reason = inconsistent(
            &TALKER_LISTENER.replace(r#""period_ms": 10"#, &format!(r#""period_ms": {period}"#)),
        );
        assert!(
            reason.contains("talker") && reason.contains("period_ms"),
            "{reason}"
        );
    }
    let reason = inconsistent(&TALKER_LISTENER.replace(r#", "period_ms": 10"#, ""));
    assert!(reason.contains("period_ms"), "{reason}");
}

#[test]
fn a_topic_used_with_two_types_is_refused() {
    let reason = inconsistent(&TALKER_LISTENER.replace(
        r#"{"topic_name": "chat", "msg_type": "stamped4_int32"}"#,
        r#"{"topic_name": "chat", "msg_type": "stamped_int64"}"#,
    ));
    assert!(reason.contains("chat"), "{reason}");
    assert!(
        reason.contains("stamped4_int32") && reason.contains("stamped_int64"),
        "{reason}"
    );
}

#[test]
fn invalid_json_is_refused_with_its_line_and_column() {
    let reason = malformed(&TALKER_LISTENER.replace(r#""talker","#, r#""talker""#));
    assert!(reason.contains("line 2 column"), "{reason}");
}

#[test]
fn a_misspelt_field_is_refused_rather_than_ignored() {
    let reason = malformed(&TALKER_LISTENER.replace("period_ms", "perod_ms"));
    assert!(reason.contains("perod_ms"), "{reason}");
}

#[test]
fn a_msg_size_for_a_fixed_size_type_is_refused() {
    let reason = inconsistent(
        &TALKER_LISTENER.replace(r#""period_ms": 10"#, r#""period_ms": 10, "msg_size": 64"#),
    );
    assert!(
        reason.contains("msg_size") && reason.contains("16-byte"),
        "{reason}"
    );
}

#[test]
fn services_and_executor_ids_are_accepted_and_skipped() {
    let json = TALKER_LISTENER.replace(
        r#"{"node_name": "listener","#,
        r#"{"node_name": "listener", "executor_id": 2,
            "clients": [{"service_name": "s", "srv_type": "stamped10b", "period_ms": 10}],"#,
    );
    let spec = parse(&json).unwrap();
    assert_eq!((spec.nodes.len(), spec.ignored_services), (2, 1));
}

#[test]
fn a_node_with_a_number_is_copied_under_numbered_names() {
    let json = TALKER_LISTENER.replace(
        r#"{"node_name": "listener","#,
        r#"{"node_name": "listener", "number": 3,"#,
    );
    let spec = parse(&json).unwrap();
    let names: Vec<&str> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["talker", "listener_1", "listener_2", "listener_3"]);
}

#[test]
fn two_nodes_of_one_name_are_refused() {
    let reason = inconsistent(&TALKER_LISTENER.replace(r#""listener""#, r#""talker""#));
    assert!(reason.contains("talker"), "{reason}");
}
