//! Memory scaling: the resident set of one process against the number of nodes and topics, 1
//! to 100: N nodes in a ring, node i publishing `t{i}` every 100 ms and subscribing to the
//! topic of the node before it, so N nodes have N topics, N publishers and N subscriptions. Each
//! count on each executor is `tacto bench` of a topology file written for it, in a process of
//! its own; its resident set at the end of the window is the figure.
//!
//! The same counts run again on the wait-set executor with every node on DDS as well
//! (`--ros-graph`: each node's parameter services, `/rosout` and `/parameter_events`, and a DDS
//! writer or reader beside each publisher and subscription, as rclcpp's nodes have), in a network
//! namespace of its own ([`namespaced_bench`](crate::seeds::namespaced_bench)).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use super::{Part, PartRan};
use crate::result::RunResult;
use crate::run::{RunError, run_in_child};
use crate::seeds::isolation::Network;
use crate::seeds::namespaced_bench::{self, DdsRun};
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
/// The executor of the runs over DDS.
const DDS_EXECUTOR: ExecutorKind = ExecutorKind::WaitSet;

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
    /// Every node on DDS too.
    dds: bool,
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
         {} s window after {} s of warm-up. Without a transport the nodes reach each other \
         through the process, as rclcpp's do with intra-process communication; \"on DDS too\" \
         (on {DDS_EXECUTOR}, in a network namespace of its own) gives every node what a ROS 2 \
         node has on DDS as well: its parameter services, /rosout, /parameter_events, and a \
         DDS writer or reader beside each publisher and subscription, while messages still go \
         through the process.",
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    let dds = match Network::here().refused() {
        None => true,
        Some(reason) => {
            notes.push(format!("memory scaling over DDS: skipped: {reason}"));
            false
        }
    };
    let total = counts.len() * (executors.len() + usize::from(dds));
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
                    dds: false,
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
        if dds {
            eprintln!(
                "  {nodes} nodes {}/{total}: {DDS_EXECUTOR} over DDS, in a network namespace",
                ran.len() + 1
            );
            let run = DdsRun {
                target: &file,
                executor: DDS_EXECUTOR,
                warmup,
                duration,
                ros_graph: true,
            };
            match namespaced_bench::bench(&run, interrupt) {
                Ok(Some(result)) => ran.push(Ran {
                    executor: DDS_EXECUTOR,
                    dds: true,
                    nodes,
                    result,
                }),
                Ok(None) => {
                    let _ = std::fs::remove_file(&file);
                    return PartRan::Interrupted;
                }
                Err(e) => notes.push(format!(
                    "memory scaling: failed: {nodes} nodes over DDS on {DDS_EXECUTOR}: {e}"
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
        "**Memory scaling**\n\n| nodes and topics | executor | on DDS too | RSS at the end, kB | \
         CPU, % core |\n|---|---|---|---|---|\n",
    );
    for r in ran {
        numbers.insert(
            format!("{}.{}.rss_kb", key(r.dds, r.executor), r.nodes),
            r.result.rss_end_kb as f64,
        );
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {:.2} |",
            r.nodes,
            r.executor,
            if r.dds { "yes" } else { "no" },
            r.result.rss_end_kb,
            r.result.cpu_pct_core
        );
    }
    table.push('\n');
    let mut series = Vec::new();
    let mut verdict = Vec::new();
    let mut per_node = Vec::new();
    let lines = (ExecutorKind::ALL.into_iter().map(|e| (e, false))).chain([(DDS_EXECUTOR, true)]);
    for (executor, dds) in lines {
        let points: Vec<(usize, u64)> = (ran.iter())
            .filter(|r| r.executor == executor && r.dds == dds)
            .map(|r| (r.nodes, r.result.rss_end_kb))
            .collect();
        let name = match dds {
            true => format!("{executor} on DDS"),
            false => executor.name().to_owned(),
        };
        if let (Some(&(n0, kb0)), Some(&(n1, kb1))) = (points.first(), points.last())
            && n1 > n0
        {
            let slope = (kb1 as f64 - kb0 as f64) / (n1 - n0) as f64;
            numbers.insert(format!("{}.kb_per_node", key(dds, executor)), slope);
            per_node.push(format!("{name} {slope:.0}"));
        }
        if !points.is_empty() {
            series.push((
                name,
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

/// The start of a run's keys: `scaling.EXECUTOR`, or `scaling.dds.EXECUTOR` on DDS.
fn key(dds: bool, executor: ExecutorKind) -> String {
    match dds {
        true => format!("scaling.dds.{executor}"),
        false => format!("scaling.{executor}"),
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
            dds: false,
            nodes,
            result: RunResult {
                rss_end_kb,
                ..Default::default()
            },
        };
        let on_dds = |nodes, rss_end_kb| Ran {
            dds: true,
            ..ran(nodes, rss_end_kb)
        };
        let part = report(
            &[
                ran(1, 5000),
                on_dds(1, 9000),
                ran(10, 5900),
                on_dds(10, 11_700),
                ran(100, 14900),
                on_dds(100, 38_700),
            ],
            Vec::new(),
        );
        assert_eq!(part.numbers["scaling.wait-set.kb_per_node"], 100.0);
        assert_eq!(part.numbers["scaling.wait-set.10.rss_kb"], 5900.0);
        assert_eq!(part.numbers["scaling.dds.wait-set.kb_per_node"], 300.0);
        assert_eq!(part.numbers["scaling.dds.wait-set.10.rss_kb"], 11_700.0);
        assert_eq!(
            part.verdict,
            ["memory scaling: kB per node and topic: wait-set 100, wait-set on DDS 300"]
        );
    }
}
