//! *let-nobleo*: the rclc LET executor on nobleo's setup, 10 nodes against the same traffic
//! from 1 node, CPU by executor, in one process and in one process per node: on every tacto
//! executor, `tacto bench nobleo` and `nobleo-1` (each run in a process of its own), and
//! between them `tacto bench crates/tacto-bench/launch/nobleo_per_node_shm.toml` and
//! `nobleo_per_node_dds.toml` (nobleo's ten nodes, a process each, over shared memory and over
//! DDS), the processes' figures added up. Over DDS the whole bench runs in a network namespace
//! of its own ([`namespaced_bench`](super::namespaced_bench)); where none can be made, that
//! placement is skipped, with the reason.
//!
//! The launch files are this crate's, written for the run with a namespace of the run's own
//! (`/seeds_PID/...`), so that their shared-memory topics meet no other run's on the host.
//! `prioritized` has no per-node placement: a launch file gives each process one executor, and
//! prioritized is a layout of several threads.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use super::isolation::Network;
use super::namespaced_bench::{self, DdsRun};
use super::{Figure, Outcome, Ran, Scale, Section, SectionReport, plot};
use crate::health::Expectations;
use crate::result::RunResult;
use crate::run::{RunError, run_in_child, run_launched};
use crate::system::RunConfig;
use crate::topology::Topology;
use tacto_launch::LaunchFile;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

const SEED: &str = "nobleo's comparison of ROS 2 executors, the rclc LET executor among \
                    them: 10 nodes (20 topics × 10 subscriptions at 50 Hz) against the same \
                    traffic from 1 node, CPU by executor, in one process and in a process per \
                    node. Its figures come from its authors' hardware and are not quoted here: \
                    the comparisons that carry over are the ratios of 10 nodes to 1, and of a \
                    process per node to one process, on each executor.";

/// nobleo's ten nodes, a process each, over shared memory.
const PER_NODE_FILE: &str = include_str!("../../launch/nobleo_per_node_shm.toml");
/// The same over DDS.
const PER_NODE_DDS_FILE: &str = include_str!("../../launch/nobleo_per_node_dds.toml");

/// How the traffic is placed: the three runs of each executor, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// `nobleo`: 10 nodes in one process.
    OneProcess,
    /// `nobleo` with a process per node, over shared memory.
    PerNode,
    /// `nobleo` with a process per node, over DDS.
    PerNodeDds,
    /// `nobleo-1`: the same traffic from 1 node.
    OneNode,
}

impl Placement {
    const ALL: [Placement; 4] = [
        Placement::OneProcess,
        Placement::PerNode,
        Placement::PerNodeDds,
        Placement::OneNode,
    ];

    /// The name of its numbers (`<executor>.<name>.cpu_pct_core`).
    fn name(self) -> &'static str {
        match self {
            Placement::OneProcess => "nobleo",
            Placement::PerNode => "nobleo-per-node",
            Placement::PerNodeDds => "nobleo-per-node-dds",
            Placement::OneNode => "nobleo-1",
        }
    }

    /// Its column in the table and series in the plot.
    fn caption(self) -> &'static str {
        match self {
            Placement::OneProcess => "10 nodes, one process",
            Placement::PerNode => "10 nodes, a process each (shm)",
            Placement::PerNodeDds => "10 nodes, a process each (DDS)",
            Placement::OneNode => "1 node (nobleo-1)",
        }
    }
}

/// An executor's runs, in [`Placement::ALL`]'s order.
type Runs = [Option<RunResult>; 4];

/// The per-node launch file written for this run, removed when dropped.
struct PerNodeFile {
    path: PathBuf,
    file: LaunchFile,
    /// nobleo, for what a healthy run of it looks like.
    topology: Topology,
}

impl PerNodeFile {
    /// Writes `launch` (a launch file's text) into the temporary folder as `stem`, its topics
    /// under `/seeds_PID`.
    fn write(launch: &str, stem: &str) -> Result<PerNodeFile, String> {
        let topology = Topology::load("nobleo").map_err(|e| e.to_string())?;
        let pid = std::process::id();
        let path = std::env::temp_dir().join(format!("tacto-seeds-{stem}-{pid}.toml"));
        // A top-level key, so before the file's first table.
        let text = format!("namespace = \"seeds_{pid}\"\n{launch}");
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        match LaunchFile::load(&path) {
            Ok(file) => Ok(PerNodeFile {
                path,
                file,
                topology,
            }),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                Err(e.to_string())
            }
        }
    }

    /// Its processes on `config`'s executor at once, their figures added up.
    fn run(
        &self,
        config: &RunConfig,
        label: &str,
        after: Duration,
        interrupt: &Interrupt,
    ) -> Result<RunResult, RunError> {
        // Its processes spread over the CPUs: each executor thread may have one.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let expected = Expectations {
            cores: self.file.processes.len().min(cpus) as f64,
            ..self.topology.expectations(config.executor)
        };
        run_launched(
            &self.path, &self.file, config, &expected, label, after, interrupt,
        )
    }
}

impl Drop for PerNodeFile {
    fn drop(&mut self) {
        // A file in the temporary folder: nothing to report if it is gone already.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Runs the three placements on every executor (the per-node one on those a launch file can
/// give its processes).
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> Ran {
    let warmup = Duration::from_secs_f64(scale.pick(5.0, 0.5));
    // Ten processes start, and open their topics in shared memory, before the window.
    let per_node_warmup = Duration::from_secs_f64(scale.pick(5.0, 1.5));
    let duration = Duration::from_secs_f64(scale.pick(20.0, 2.0));
    let mut errors = Vec::new();
    let per_node = match PerNodeFile::write(PER_NODE_FILE, "nobleo-per-node") {
        Ok(file) => Some(file),
        Err(e) => {
            errors.push(format!("a process per node: {e}"));
            None
        }
    };
    let per_node_dds = match Network::here().refused() {
        Some(reason) => {
            errors.push(format!("a process per node over DDS: skipped: {reason}"));
            None
        }
        None => match PerNodeFile::write(PER_NODE_DDS_FILE, "nobleo-per-node-dds") {
            Ok(file) => Some(file),
            Err(e) => {
                errors.push(format!("a process per node over DDS: {e}"));
                None
            }
        },
    };
    let placed = |executor: ExecutorKind, placement: Placement| match placement {
        Placement::PerNode => per_node.is_some() && executor != ExecutorKind::Prioritized,
        Placement::PerNodeDds => per_node_dds.is_some() && executor != ExecutorKind::Prioritized,
        _ => true,
    };
    let total = (ExecutorKind::ALL.iter())
        .flat_map(|&e| Placement::ALL.map(|p| placed(e, p)))
        .filter(|&p| p)
        .count();
    let mut runs: Vec<(ExecutorKind, Runs)> = Vec::new();
    let mut done = 0;
    for executor in ExecutorKind::ALL {
        let mut slots: Runs = [None, None, None, None];
        for (slot, placement) in slots.iter_mut().zip(Placement::ALL) {
            if !placed(executor, placement) {
                continue;
            }
            done += 1;
            let config = RunConfig {
                executor,
                crunch: 0,
                warmup: match placement {
                    Placement::PerNode | Placement::PerNodeDds => per_node_warmup,
                    _ => warmup,
                },
                duration,
                ros_graph: false,
                node_parameters: 0,
            };
            let name = placement.name();
            let label = format!("{name} {done}/{total}");
            let after = (warmup + duration) * (total - done) as u32;
            let result = match (placement, &per_node, &per_node_dds) {
                (Placement::PerNode, Some(file), _) => file.run(&config, &label, after, interrupt),
                (Placement::PerNodeDds, _, Some(file)) => {
                    eprintln!("  {label}: {executor}, in a network namespace");
                    let run = DdsRun {
                        target: &file.path,
                        executor,
                        warmup: config.warmup,
                        duration,
                        ros_graph: false,
                    };
                    match namespaced_bench::bench(&run, interrupt) {
                        Ok(Some(result)) => Ok(result),
                        Ok(None) => return Ran::Interrupted,
                        Err(e) => {
                            errors.push(format!("{name} on {executor}: {e}"));
                            continue;
                        }
                    }
                }
                _ => run_in_child(name, &config, &label, after, interrupt),
            };
            match result {
                Ok(result) => *slot = Some(result),
                Err(RunError::Interrupted { .. }) => return Ran::Interrupted,
                Err(e) => errors.push(format!("{name} on {executor}: {e}")),
            }
        }
        runs.push((executor, slots));
    }
    if (runs.iter()).all(|(_, slots)| slots.iter().all(Option::is_none)) {
        return Ran::Report(SectionReport::without_figures(
            Section::LetNobleo,
            SEED,
            Outcome::Failed {
                reason: errors.join("; "),
            },
        ));
    }
    let mut notes = vec![
        format!(
            "{} s measured per run after {} s of warm-up ({} s for a process per node: ten \
             processes start and open their topics), each run in processes of its own. \
             Polling executors (wait-set, let) read on each node's 50 Hz timer; let publishes \
             at the end of each 20 ms period.",
            duration.as_secs_f64(),
            warmup.as_secs_f64(),
            per_node_warmup.as_secs_f64()
        ),
        "A process per node: crates/tacto-bench/launch/nobleo_per_node_shm.toml, the ten \
         processes over shared memory ([shm] max_subscribers = 16), and \
         nobleo_per_node_dds.toml, the same over DDS in a network namespace of its own, each \
         process on the run's executor; CPU, wake-ups, deliveries and losses are the ten \
         processes' added up. prioritized is not run so: a launch file gives each process one \
         executor."
            .to_owned(),
    ];
    notes.extend(errors);
    Ran::Report(report(&runs, notes))
}

/// The section from the runs that finished.
fn report(runs: &[(ExecutorKind, Runs)], mut notes: Vec<String>) -> SectionReport {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "| executor | 10 nodes, one process: CPU, % core | 10 nodes, a process each (shm): \
         CPU, % core | 10 nodes, a process each (DDS): CPU, % core | 1 node: CPU, % core | 10 \
         nodes / 1 | a process each / one: shm, DDS | wake-ups/s: one process, a process each \
         (shm, DDS), 1 node | deliveries/s: one process, a process each (shm, DDS) | lost: one \
         process, a process each (shm, DDS) |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let dash = || "-".to_owned();
    for (executor, slots) in runs {
        for (placement, run) in Placement::ALL.iter().zip(slots) {
            let Some(r) = run else { continue };
            let name = placement.name();
            numbers.insert(format!("{executor}.{name}.cpu_pct_core"), r.cpu_pct_core);
            numbers.insert(format!("{executor}.{name}.wakeups_per_s"), r.wakeups_per_s);
            numbers.insert(
                format!("{executor}.{name}.deliveries_per_s"),
                r.deliveries_per_s.unwrap_or(0.0),
            );
            if r.overloaded {
                notes.push(format!(
                    "{name} on {executor} fell behind ({}): not comparable",
                    r.overload.join("; ")
                ));
            }
        }
        let [one_process, per_node, per_node_dds, one_node] = slots;
        let mut ratio = |key: &str, a: &Option<RunResult>, b: &Option<RunResult>| match (a, b) {
            (Some(a), Some(b)) if b.cpu_pct_core > 0.0 => {
                let ratio = a.cpu_pct_core / b.cpu_pct_core;
                numbers.insert(format!("{executor}.{key}"), ratio);
                Some(ratio)
            }
            _ => None,
        };
        let ten_over_one = ratio("ten_over_one", one_process, one_node);
        let per_node_over_one = ratio("per_node_over_one_process", per_node, one_process);
        let per_node_dds_over_one =
            ratio("per_node_dds_over_one_process", per_node_dds, one_process);
        let times = |r: Option<f64>| r.map_or_else(dash, |r| format!("{r:.2}×"));
        let cpu = |r: &Option<RunResult>| {
            r.as_ref()
                .map_or_else(dash, |r| format!("{:.2}", r.cpu_pct_core))
        };
        let each = |f: &dyn Fn(&RunResult) -> String, which: &[&Option<RunResult>]| {
            (which.iter())
                .map(|r| r.as_ref().map_or_else(dash, f))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let _ = writeln!(
            table,
            "| {executor} | {} | {} | {} | {} | {} | {} / {} | {} | {} | {} |",
            cpu(one_process),
            cpu(per_node),
            cpu(per_node_dds),
            cpu(one_node),
            times(ten_over_one),
            times(per_node_over_one),
            times(per_node_dds_over_one),
            each(
                &|r| format!("{:.0}", r.wakeups_per_s),
                &[one_process, per_node, per_node_dds, one_node]
            ),
            each(
                &|r| format!("{:.0}", r.deliveries_per_s.unwrap_or(0.0)),
                &[one_process, per_node, per_node_dds]
            ),
            each(
                &|r| r.drops_total.to_string(),
                &[one_process, per_node, per_node_dds]
            ),
        );
    }
    let cpu = |placement: Placement| -> Vec<Option<f64>> {
        let i = Placement::ALL
            .iter()
            .position(|&p| p == placement)
            .unwrap_or(0);
        (runs.iter())
            .map(|(_, slots)| slots[i].as_ref().map(|r| r.cpu_pct_core))
            .collect()
    };
    let cheapest = |placement: Placement| {
        (runs.iter())
            .zip(cpu(placement))
            .filter_map(|((e, _), cpu)| Some((e, cpu?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let mut verdict = match cheapest(Placement::OneProcess) {
        Some((executor, cpu)) => {
            format!("cheapest on 10 nodes in one process: {executor}, {cpu:.2}% of a core")
        }
        None => "no run of 10 nodes in one process finished".into(),
    };
    if let (Some(l), Some(c)) = (
        numbers.get("let.ten_over_one"),
        numbers.get("callback.ten_over_one"),
    ) {
        let _ = write!(
            verdict,
            "; 10 nodes cost {l:.2}× one node on let, {c:.2}× on callback"
        );
    }
    for (placement, what, key) in [
        (
            Placement::PerNode,
            "a process per node",
            ".per_node_over_one_process",
        ),
        (
            Placement::PerNodeDds,
            "a process per node over DDS",
            ".per_node_dds_over_one_process",
        ),
    ] {
        let Some((executor, cpu)) = cheapest(placement) else {
            let _ = write!(verdict, "; {what}: no run finished (the notes say why)");
            continue;
        };
        let ratios: Vec<f64> = (numbers.iter())
            .filter(|(k, _)| k.ends_with(key))
            .map(|(_, &v)| v)
            .collect();
        let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let _ = write!(
            verdict,
            "; {what}: cheapest {executor}, {cpu:.2}% of a core"
        );
        if !ratios.is_empty() {
            let _ = write!(verdict, ", {low:.1}–{high:.1}× one process");
        }
    }
    let labels: Vec<String> = runs.iter().map(|(e, _)| e.name().to_owned()).collect();
    let series: Vec<(&str, Vec<Option<f64>>)> = (Placement::ALL.iter())
        .map(|&p| (p.caption(), cpu(p)))
        .collect();
    let figure = Figure {
        file: "let-nobleo-cpu.svg".into(),
        title: "nobleo: CPU by executor, 10 nodes in one process and a process each (shared \
                memory, DDS), against 1 node"
            .into(),
        svg: plot::bars(
            "nobleo: CPU by executor (% of one core)",
            "%",
            &labels,
            &series,
            None,
        ),
    };
    SectionReport {
        section: Section::LetNobleo,
        outcome: Outcome::Ran,
        seed: SEED.into(),
        verdict,
        numbers,
        table,
        notes,
        figures: vec![figure],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cpu: f64) -> Option<RunResult> {
        Some(RunResult {
            cpu_pct_core: cpu,
            deliveries_per_s: Some(10_000.0),
            ..Default::default()
        })
    }

    #[test]
    fn each_executor_gets_the_ratio_of_ten_nodes_to_one() {
        let runs = [
            (ExecutorKind::Callback, [run(4.0), None, None, run(2.0)]),
            (ExecutorKind::Let, [run(1.0), None, None, run(1.0)]),
            (ExecutorKind::Events, [None, None, None, run(1.0)]),
        ];
        let section = report(&runs, Vec::new());
        assert_eq!(section.numbers["callback.ten_over_one"], 2.0);
        assert_eq!(section.numbers["let.ten_over_one"], 1.0);
        assert!(!section.numbers.contains_key("events.ten_over_one"));
        assert!(
            section.table.contains("| events | - | - | - | 1.00 | - |"),
            "{}",
            section.table
        );
        assert!(
            section
                .verdict
                .contains("cheapest on 10 nodes in one process: let")
                && section
                    .verdict
                    .contains("1.00× one node on let, 2.00× on callback"),
            "{}",
            section.verdict
        );
        assert!(
            section.verdict.ends_with(
                "a process per node: no run finished (the notes say why); a process per \
                     node over DDS: no run finished (the notes say why)"
            ),
            "{}",
            section.verdict
        );
    }

    #[test]
    fn a_process_per_node_is_compared_with_one_process_on_each_executor() {
        let runs = [
            (
                ExecutorKind::Callback,
                [run(1.0), run(9.0), run(12.0), run(1.0)],
            ),
            (
                ExecutorKind::WaitSet,
                [run(0.5), run(2.0), run(3.0), run(0.5)],
            ),
            (ExecutorKind::Prioritized, [run(6.0), None, None, run(1.0)]),
        ];
        let section = report(&runs, Vec::new());
        assert_eq!(
            section.numbers["callback.nobleo-per-node.cpu_pct_core"],
            9.0
        );
        assert_eq!(section.numbers["callback.per_node_over_one_process"], 9.0);
        assert_eq!(section.numbers["wait-set.per_node_over_one_process"], 4.0);
        assert_eq!(
            section.numbers["wait-set.per_node_dds_over_one_process"],
            6.0
        );
        assert!(
            !section
                .numbers
                .contains_key("prioritized.per_node_over_one_process")
        );
        assert!(
            section
                .table
                .contains("| wait-set | 0.50 | 2.00 | 3.00 | 0.50 | 1.00× | 4.00× / 6.00× |"),
            "{}",
            section.table
        );
        assert!(
            section.verdict.ends_with(
                "a process per node: cheapest wait-set, 2.00% of a core, 4.0–9.0× one process; \
                 a process per node over DDS: cheapest wait-set, 3.00% of a core, 6.0–12.0× \
                 one process"
            ),
            "{}",
            section.verdict
        );
    }
}
