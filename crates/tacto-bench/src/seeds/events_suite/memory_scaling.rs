//! Memory scaling: the resident set of one process against the number of nodes and topics, 1
//! to 100: N nodes in a ring, node i publishing `t{i}` every 100 ms and subscribing to the
//! topic of the node before it, so N nodes have N topics, N publishers and N subscriptions. Each
//! count on each executor is `tacto bench` of a topology file written for it, in a process of
//! its own; its resident set at the end of the window is the figure.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use super::{Part, PartRan};
use crate::result::RunResult;
use crate::run::{RunError, run_in_child};
use crate::seeds::{Figure, Scale, plot};
use crate::system::RunConfig;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// The node counts.
const NODES: [usize; 4] = [1, 10, 50, 100];
/// The quick run's.
const QUICK_NODES: [usize; 2] = [1, 10];
/// Each publisher's period.
const PERIOD_MS: u64 = 100;
/// Each topic's message.
const MSG_TYPE: &str = "stamped100b";

/// The topology of `nodes` nodes in a ring.
fn topology(nodes: usize) -> String {
    let node = |i: usize| {
        format!(
            r#"  {{"node_name": "node_{i}",
   "publishers": [{{"topic_name": "t{i}", "msg_type": "{MSG_TYPE}", "period_ms": {PERIOD_MS}}}],
   "subscribers": [{{"topic_name": "t{}", "msg_type": "{MSG_TYPE}"}}]}}"#,
            (i + nodes - 1) % nodes
        )
    };
    let nodes: Vec<String> = (0..nodes).map(node).collect();
    format!("{{\"nodes\": [\n{}\n]}}\n", nodes.join(",\n"))
}

/// One count on one executor.
struct Ran {
    executor: ExecutorKind,
    nodes: usize,
    result: RunResult,
}

/// Runs every count on every executor.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> PartRan {
    let warmup = Duration::from_secs_f64(scale.pick(1.0, 0.3));
    let duration = Duration::from_secs_f64(scale.pick(3.0, 0.5));
    let counts: &[usize] = scale.pick(&NODES, &QUICK_NODES);
    let executors: Vec<ExecutorKind> = match scale.quick {
        true => vec![ExecutorKind::WaitSet, ExecutorKind::Events],
        false => ExecutorKind::ALL.to_vec(),
    };
    let mut notes = vec![format!(
        "Memory scaling: N nodes in a ring in one process (node i publishes {MSG_TYPE} on t{{i}} \
         every {PERIOD_MS} ms and subscribes to the topic of the node before it: N topics), \
         on each executor in a process of its own; the resident set (VmRSS) at the end of a \
         {} s window after {} s of warm-up. No transport: the nodes reach each other through \
         the process, as rclcpp's do with intra-process communication.",
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    let total = counts.len() * executors.len();
    let mut ran = Vec::new();
    for &nodes in counts {
        let file = topology_file(nodes);
        if let Err(e) = std::fs::write(&file, topology(nodes)) {
            notes.push(format!(
                "memory scaling: failed: cannot write {}: {e}",
                file.display()
            ));
            continue;
        }
        let path = file.to_string_lossy().into_owned();
        for &executor in &executors {
            let config = RunConfig {
                executor,
                crunch: 0,
                warmup,
                duration,
                ros_graph: false,
                node_parameters: 0,
            };
            let label = format!("{nodes} nodes {}/{total}", ran.len() + 1);
            match run_in_child(&path, &config, &label, Duration::ZERO, interrupt) {
                Ok(result) => ran.push(Ran {
                    executor,
                    nodes,
                    result,
                }),
                Err(RunError::Interrupted { .. }) => {
                    let _ = std::fs::remove_file(&file);
                    return PartRan::Interrupted;
                }
                Err(e) => notes.push(format!(
                    "memory scaling: failed: {nodes} nodes on {executor}: {e}"
                )),
            }
        }
        // Written above for these runs only.
        let _ = std::fs::remove_file(&file);
    }
    PartRan::Part(report(&ran, notes))
}

/// Where a count's topology file is written.
fn topology_file(nodes: usize) -> PathBuf {
    std::env::temp_dir().join(format!(
        "tacto-seeds-scaling-{}-{nodes}.json",
        std::process::id()
    ))
}

fn report(ran: &[Ran], notes: Vec<String>) -> Part {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "**Memory scaling**\n\n| nodes and topics | executor | RSS at the end, kB | CPU, % core \
         |\n|---|---|---|---|\n",
    );
    for r in ran {
        numbers.insert(
            format!("scaling.{}.{}.rss_kb", r.executor, r.nodes),
            r.result.rss_end_kb as f64,
        );
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2} |",
            r.nodes, r.executor, r.result.rss_end_kb, r.result.cpu_pct_core
        );
    }
    table.push('\n');
    let mut series = Vec::new();
    let mut verdict = Vec::new();
    let mut per_node = Vec::new();
    for executor in ExecutorKind::ALL {
        let points: Vec<(usize, u64)> = (ran.iter())
            .filter(|r| r.executor == executor)
            .map(|r| (r.nodes, r.result.rss_end_kb))
            .collect();
        if let (Some(&(n0, kb0)), Some(&(n1, kb1))) = (points.first(), points.last())
            && n1 > n0
        {
            let slope = (kb1 as f64 - kb0 as f64) / (n1 - n0) as f64;
            numbers.insert(format!("scaling.{executor}.kb_per_node"), slope);
            per_node.push(format!("{executor} {slope:.0}"));
        }
        if !points.is_empty() {
            series.push((
                executor.name().to_owned(),
                (points.iter())
                    .map(|&(n, kb)| (n as f64, kb as f64 / 1024.0))
                    .collect(),
            ));
        }
    }
    if !per_node.is_empty() {
        verdict.push(format!(
            "memory scaling: kB per node and topic: {}",
            per_node.join(", ")
        ));
    }
    Part {
        numbers,
        table,
        notes,
        verdict,
        figures: vec![Figure {
            file: "events-memory-scaling.svg".into(),
            title: "memory scaling: resident set against nodes and topics".into(),
            svg: plot::xy(
                "memory scaling: resident set (MB) against nodes and topics",
                "nodes (and topics) in the process",
                "MB",
                &series,
            ),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn every_count_is_a_ring_that_bench_reads() {
        for nodes in NODES {
            let file = topology_file(nodes);
            std::fs::write(&file, topology(nodes)).unwrap();
            let loaded = Topology::load(file.to_str().unwrap());
            std::fs::remove_file(&file).unwrap();
            match loaded {
                Ok(Topology::Ros2Performance(spec)) => {
                    assert_eq!(spec.nodes.len(), nodes);
                    let last = &spec.nodes[nodes - 1];
                    let before = (2 * nodes - 2) % nodes;
                    let topic = &last.subscribers[0].topic;
                    assert!(topic.ends_with(&format!("t{before}")), "{nodes}: {topic}");
                }
                other => panic!("{nodes}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_cost_per_node_is_the_slope_from_the_fewest_to_the_most() {
        let ran = |nodes, rss_end_kb| Ran {
            executor: ExecutorKind::WaitSet,
            nodes,
            result: RunResult {
                rss_end_kb,
                ..Default::default()
            },
        };
        let part = report(&[ran(1, 5000), ran(10, 5900), ran(100, 14900)], Vec::new());
        assert_eq!(part.numbers["scaling.wait-set.kb_per_node"], 100.0);
        assert_eq!(part.numbers["scaling.wait-set.10.rss_kb"], 5900.0);
        assert_eq!(
            part.verdict,
            ["memory scaling: kB per node and topic: wait-set 100"]
        );
    }
}
