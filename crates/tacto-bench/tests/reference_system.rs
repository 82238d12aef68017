//! The Autoware reference system: its message, its work, its file's checks, and whole runs.

use std::path::Path;
use std::thread;
use std::time::Duration;

use tacto_bench::result::RunResult;
use tacto_bench::system::RunConfig;
use tacto_bench::topology::reference_system::{
    Message4kb, STATS_CAPACITY, SequenceGap, Spec, TransmissionStats, crunch,
};
use tacto_bench::topology::{Topology, TopologyError};
use tacto_launch::ExecutorKind;

/// Runs the shipped reference system on `executor` at crunch 0: warm-up, reset, measure.
fn run(executor: ExecutorKind, warmup: Duration, duration: Duration) -> RunResult {
    let topology = Topology::load("reference-system").unwrap();
    let config = RunConfig {
        executor,
        crunch: 0,
        warmup,
        duration,
        ros_graph: false,
        node_parameters: 0,
    };
    let mut system = topology.start(&config).unwrap();
    thread::sleep(warmup);
    system.reset();
    thread::sleep(duration);
    let mut result = RunResult::default();
    system.finish(&mut result).unwrap();
    result
}

/// Checks what every run at crunch 0 must show: samples for every KPI, no hot-path drop, the
/// planner on its 100 ms; says what is wrong otherwise.
fn check_sane(executor: ExecutorKind, result: &RunResult, min_samples: u64) -> Result<(), String> {
    let (Some(latency), Some(period)) = (&result.hot_path_latency_ms, &result.bp_period_ms) else {
        return Err(format!(
            "{executor}: no hot-path samples or no planner periods: {result:?}"
        ));
    };
    let sane = latency.n >= min_samples
        && period.n >= min_samples
        && result.hot_path_drops == Some(0)
        && (95.0..=105.0).contains(&period.mean);
    // Upstream's fusion nodes join inputs of different rates and drop by design (e.g.
    // NDTLocalizer's 100 ms against 120 ms), so the total is a figure, not a failure.
    let summary = format!(
        "{executor}: hot path {:.3} ms mean ({} samples), {:?} hot-path drops, planner {:.2} ms \
         ({} periods), {} drops in all{}",
        latency.mean,
        latency.n,
        result.hot_path_drops,
        period.mean,
        period.n,
        result.drops_total,
        if result.notes.is_empty() {
            String::new()
        } else {
            format!(", notes: {:?}", result.notes)
        }
    );
    println!("{summary}");
    match sane {
        true => Ok(()),
        false => Err(summary),
    }
}

/// Runs the system on `executor` until a run is sane, at most three times. The checks hold on
/// any machine that gives the run its CPU; on a 2-core machine loaded by other builds, a
/// debug-build run can be starved for a moment and drop a sample, so one bad run is a busy
/// machine and three in a row are a bug.
fn assert_sane_within_three_runs(executor: ExecutorKind, first: RunResult, min_samples: u64) {
    let mut failures = Vec::new();
    let mut result = first;
    for attempt in 1..=3 {
        match check_sane(executor, &result, min_samples) {
            Ok(()) => return,
            Err(e) => failures.push(e),
        }
        if attempt < 3 {
            result = run(executor, Duration::from_secs(1), Duration::from_secs(3));
        }
    }
    panic!(
        "three runs in a row were not sane:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_crunch_free_run_on_the_wait_set_executor_measures_every_kpi_without_hot_path_drops() {
    let result = run(
        ExecutorKind::WaitSet,
        Duration::from_secs(1),
        Duration::from_secs(3),
    );
    assert_sane_within_three_runs(ExecutorKind::WaitSet, result, 10);
}

#[test]
fn a_crunch_free_run_on_the_callback_executor_measures_every_kpi_without_hot_path_drops() {
    let result = run(
        ExecutorKind::Callback,
        Duration::from_secs(1),
        Duration::from_secs(3),
    );
    assert_sane_within_three_runs(ExecutorKind::Callback, result, 10);
}

#[test]
fn every_other_executor_kind_runs_the_system_too() {
    let others = [
        ExecutorKind::CallbackMt,
        ExecutorKind::Prioritized,
        ExecutorKind::Events,
        ExecutorKind::Let,
    ];
    let runs: Vec<_> = others
        .map(|kind| {
            thread::spawn(move || run(kind, Duration::from_millis(500), Duration::from_secs(2)))
        })
        .into_iter()
        .map(|run| run.join().unwrap())
        .collect();
    for (kind, result) in others.into_iter().zip(runs) {
        assert_sane_within_three_runs(kind, result, 5);
    }
}

#[test]
fn the_hot_path_takes_a_logical_period_per_hop_under_let() {
    // Driver → 2 transformers → fusion → filter → detector → estimator: five hops of 5 ms
    // between the roots' start and the estimator's start. Each hop waits for the next period
    // boundary, and a late executor skips periods rather than running them back to back, so at
    // least four whole periods pass between the root's stamp and the estimator's however loaded
    // the machine is: a hop within its own period would show less. Load only adds time, so the
    // upper bound is checked as `assert_sane_within_three_runs` checks sanity: one run of three
    // within it shows a period per hop, three above it in a row are a bug.
    let mut medians = Vec::new();
    for _ in 0..3 {
        let result = run(
            ExecutorKind::Let,
            Duration::from_millis(500),
            Duration::from_secs(1),
        );
        let latency = result.hot_path_latency_ms.unwrap();
        assert!(latency.p50 >= 20.0, "a hop within its period: {latency:?}");
        if latency.p50 < 35.0 {
            return;
        }
        medians.push(latency);
    }
    panic!("three runs in a row above 7 periods: {medians:?}");
}

#[test]
fn crunch_counts_the_primes_up_to_its_limit_as_upstream() {
    assert_eq!(crunch(4096), 564);
    assert_eq!(crunch(3), 2);
    // Upstream's edge case: a limit of 2 or less does no work and answers 2.
    assert_eq!([2, 1, 0].map(crunch), [2, 2, 2]);
}

#[test]
fn the_message_is_4096_bytes_in_memory_and_4096_on_the_wire() {
    assert_eq!(size_of::<TransmissionStats>(), 64);
    assert_eq!(size_of::<Message4kb>(), 4096);

    let mut msg = Message4kb::default();
    msg.push(TransmissionStats::new("FrontLidarDriver", 3, 1, 42));
    msg.data[0] = 564;
    let bytes = tacto::cdr::to_vec(&msg).unwrap();
    assert_eq!(bytes.len(), 4 + 4096); // the encapsulation header, then the fields unpadded
    assert_eq!(tacto::cdr::from_bytes::<Message4kb>(&bytes).unwrap(), msg);
}

#[test]
fn merging_histories_keeps_one_entry_per_node_and_at_most_63() {
    let mut a = Message4kb::default();
    let mut b = Message4kb::default();
    for i in 0..40 {
        a.push(TransmissionStats::new(&format!("A{i}"), i, 0, 0));
        b.push(TransmissionStats::new(&format!("B{i}"), i, 0, 0));
    }
    b.stats[0] = TransmissionStats::new("A0", 99, 0, 0); // A0 reached b on another path

    let mut merged = Message4kb::default();
    merged.merge_history(&a);
    merged.merge_history(&b);

    let history = merged.history();
    assert_eq!(history.len(), STATS_CAPACITY);
    let a0: Vec<_> = history.iter().filter(|e| e.name() == "A0").collect();
    assert_eq!(a0.len(), 1);
    assert_eq!(a0[0].sequence_number, 0, "the first input merged wins");
    assert_eq!(history[40].name(), "B1");
    assert!(!merged.push(TransmissionStats::new("Own", 0, 0, 0)));
}

#[test]
fn a_node_name_is_cut_to_fit_its_entry() {
    let long = "N".repeat(60);
    assert_eq!(TransmissionStats::new(&long, 0, 0, 0).name(), &long[..47]);
}

#[test]
fn dropped_samples_count_the_gap_in_the_input_sequence() {
    let sample = |seq| {
        let mut msg = Message4kb::default();
        msg.push(TransmissionStats::new("Visualizer", seq, 0, 0));
        msg
    };
    let mut gap = SequenceGap::default();
    let missed: Vec<u32> = [0, 1, 2, 5, 6, 10].map(|s| gap.missed(&sample(s))).into();
    assert_eq!(missed, [0, 0, 0, 2, 0, 3]);
    assert_eq!(
        SequenceGap::default().missed(&sample(3)),
        2,
        "upstream starts as if sample 0 had been seen: 1 and 2 were missed"
    );
}

/// A valid small system, with `NODES` standing for the node list.
const SMALL: &str = r#"{
  "message": { "type": "Message4kb", "bytes": 4096, "stats_capacity": 63 },
  "qos": { "history": "keep_last", "depth": 1 },
  "nodes": [ NODES ],
  "hot_path": { "roots": ["Lidar"], "nodes": ["Lidar", "Filter"], "sink": "Filter" },
  "behavior_planner": "Filter"
}"#;

const LIDAR: &str = r#"{ "name": "Lidar", "kind": "sensor", "period_ms": 100, "output": "Lidar" }"#;
const FILTER: &str =
    r#"{ "name": "Filter", "kind": "transform", "input": "Lidar", "output": "Filter" }"#;

fn parse(nodes: &[&str]) -> Result<Spec, TopologyError> {
    let json = SMALL.replace("NODES", &nodes.join(","));
    Spec::from_json(&json, Path::new("small.json"))
}

/// The error's message, checking its variant.
fn inconsistent(nodes: &[&str]) -> String {
    match parse(nodes) {
        Err(e @ TopologyError::Inconsistent { .. }) => e.to_string(),
        other => panic!("expected an inconsistency, got {other:?}"),
    }
}

#[test]
fn the_shipped_file_and_a_small_valid_one_load() {
    assert!(matches!(
        Topology::load("reference-system"),
        Ok(Topology::ReferenceSystem(_))
    ));
    assert!(parse(&[LIDAR, FILTER]).is_ok());
}

#[test]
fn an_unknown_node_kind_is_malformed_and_named() {
    let filter = FILTER.replace("transform", "filter");
    match parse(&[LIDAR, &filter]) {
        Err(e @ TopologyError::Malformed { .. }) => assert!(e.to_string().contains("filter")),
        other => panic!("expected a malformed file, got {other:?}"),
    }
}

#[test]
fn an_input_that_no_node_publishes_is_named() {
    let filter = FILTER.replace(r#""input": "Lidar""#, r#""input": "Radar""#);
    let error = inconsistent(&[LIDAR, &filter]);
    assert!(
        error.contains("\"Filter\"") && error.contains("\"Radar\""),
        "{error}"
    );
}

#[test]
fn a_period_that_is_not_above_zero_is_named() {
    for period in ["0", "-5"] {
        let lidar = LIDAR.replace("100", period);
        let error = inconsistent(&[&lidar, FILTER]);
        assert!(
            error.contains("\"Lidar\"") && error.contains(period),
            "{error}"
        );
    }
}

#[test]
fn a_duplicate_node_name_is_named() {
    let second = FILTER.replace(r#""output": "Filter""#, r#""output": "Filter2""#);
    let error = inconsistent(&[LIDAR, FILTER, &second]);
    assert!(error.contains("\"Filter\" appears twice"), "{error}");
}

#[test]
fn a_hot_path_node_that_does_not_exist_is_named() {
    let error = inconsistent(&[LIDAR]);
    assert!(
        error.contains("hot_path") && error.contains("\"Filter\""),
        "{error}"
    );
}

#[test]
fn an_unknown_message_type_is_refused() {
    let json = SMALL
        .replace("NODES", &[LIDAR, FILTER].join(","))
        .replace("Message4kb", "Message1kb");
    let error = Spec::from_json(&json, Path::new("small.json")).unwrap_err();
    assert!(error.to_string().contains("Message1kb"), "{error}");
}
