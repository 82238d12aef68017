//! *let-nobleo*: the rclc LET executor on nobleo's setup, 10 nodes against the same traffic
//! from 1 node, CPU by executor: `tacto bench nobleo` and `nobleo-1` on every tacto executor,
//! each run in a process of its own, in one process per topology (the one-process-per-node
//! layout is `tacto bench crates/tacto-bench/launch/nobleo_per_node_*.toml`, not run here).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::{Figure, Outcome, Ran, Scale, Section, SectionReport, plot};
use crate::result::RunResult;
use crate::run::{RunError, run_in_child};
use crate::system::RunConfig;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

const SEED: &str = "nobleo's comparison of ROS 2 executors, the rclc LET executor among \
                    them: 10 nodes (20 topics × 10 subscriptions at 50 Hz) against the same \
                    traffic from 1 node, CPU by executor. Its figures come from its authors' \
                    hardware and are not quoted here: the comparison that carries over is the \
                    ratio of 10 nodes to 1 on each executor.";

/// The two topologies, 10 nodes first.
const TOPOLOGIES: [&str; 2] = ["nobleo", "nobleo-1"];

/// Runs both topologies on every executor.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> Ran {
    let warmup = Duration::from_secs_f64(scale.pick(5.0, 0.5));
    let duration = Duration::from_secs_f64(scale.pick(20.0, 2.0));
    let total = ExecutorKind::ALL.len() * TOPOLOGIES.len();
    let mut runs: Vec<(ExecutorKind, [Option<RunResult>; 2])> = Vec::new();
    let mut errors = Vec::new();
    let mut done = 0;
    for executor in ExecutorKind::ALL {
        let mut pair = [None, None];
        for (slot, topology) in pair.iter_mut().zip(TOPOLOGIES) {
            done += 1;
            let config = RunConfig {
                executor,
                crunch: 0,
                warmup,
                duration,
                ros_graph: false,
                node_parameters: 0,
            };
            let label = format!("{topology} {done}/{total}");
            let after = (warmup + duration) * (total - done) as u32;
            match run_in_child(topology, &config, &label, after, interrupt) {
                Ok(result) => *slot = Some(result),
                Err(RunError::Interrupted { .. }) => return Ran::Interrupted,
                Err(e) => errors.push(format!("{topology} on {executor}: {e}")),
            }
        }
        runs.push((executor, pair));
    }
    if runs
        .iter()
        .all(|(_, pair)| pair.iter().all(Option::is_none))
    {
        return Ran::Report(SectionReport::without_figures(
            Section::LetNobleo,
            SEED,
            Outcome::Failed {
                reason: errors.join("; "),
            },
        ));
    }
    let mut notes = vec![format!(
        "{} s measured per run after {} s of warm-up, each run in a process of its own. \
         Polling executors (wait-set, let) read on each node's 50 Hz timer; let publishes at \
         the end of each 20 ms period.",
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    notes.extend(errors);
    Ran::Report(report(&runs, notes))
}

/// The section from the runs that finished.
fn report(
    runs: &[(ExecutorKind, [Option<RunResult>; 2])],
    mut notes: Vec<String>,
) -> SectionReport {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "| executor | nobleo (10 nodes) CPU, % core | nobleo-1 (1 node) CPU, % core | 10 nodes / \
         1 | wake-ups/s, 10 nodes | wake-ups/s, 1 node | deliveries/s, 10 nodes | lost, 10 \
         nodes |\n|---|---|---|---|---|---|---|---|\n",
    );
    let dash = || "-".to_owned();
    for (executor, [ten, one]) in runs {
        for (topology, run) in TOPOLOGIES.iter().zip([ten, one]) {
            if let Some(r) = run {
                numbers.insert(
                    format!("{executor}.{topology}.cpu_pct_core"),
                    r.cpu_pct_core,
                );
                numbers.insert(
                    format!("{executor}.{topology}.wakeups_per_s"),
                    r.wakeups_per_s,
                );
                numbers.insert(
                    format!("{executor}.{topology}.deliveries_per_s"),
                    r.deliveries_per_s.unwrap_or(0.0),
                );
                if r.overloaded {
                    notes.push(format!(
                        "{topology} on {executor} fell behind ({}): not comparable",
                        r.overload.join("; ")
                    ));
                }
            }
        }
        let ratio = match (ten, one) {
            (Some(t), Some(o)) if o.cpu_pct_core > 0.0 => {
                let ratio = t.cpu_pct_core / o.cpu_pct_core;
                numbers.insert(format!("{executor}.ten_over_one"), ratio);
                Some(ratio)
            }
            _ => None,
        };
        let _ = writeln!(
            table,
            "| {executor} | {} | {} | {} | {} | {} | {} | {} |",
            ten.as_ref()
                .map_or_else(dash, |r| format!("{:.2}", r.cpu_pct_core)),
            one.as_ref()
                .map_or_else(dash, |r| format!("{:.2}", r.cpu_pct_core)),
            ratio.map_or_else(dash, |r| format!("{r:.2}×")),
            ten.as_ref()
                .map_or_else(dash, |r| format!("{:.0}", r.wakeups_per_s)),
            one.as_ref()
                .map_or_else(dash, |r| format!("{:.0}", r.wakeups_per_s)),
            ten.as_ref().map_or_else(dash, |r| format!(
                "{:.0}",
                r.deliveries_per_s.unwrap_or(0.0)
            )),
            ten.as_ref()
                .map_or_else(dash, |r| r.drops_total.to_string()),
        );
    }
    let cpu = |i: usize| -> Vec<Option<f64>> {
        (runs.iter())
            .map(|(_, pair)| pair[i].as_ref().map(|r| r.cpu_pct_core))
            .collect()
    };
    let cheapest = (runs.iter())
        .filter_map(|(e, [ten, _])| Some((e, ten.as_ref()?.cpu_pct_core)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let let_ratio = numbers.get("let.ten_over_one").copied();
    let callback_ratio = numbers.get("callback.ten_over_one").copied();
    let mut verdict = match cheapest {
        Some((executor, cpu)) => format!("cheapest on 10 nodes: {executor}, {cpu:.2}% of a core"),
        None => "no run of 10 nodes finished".into(),
    };
    if let (Some(l), Some(c)) = (let_ratio, callback_ratio) {
        let _ = write!(
            verdict,
            "; 10 nodes cost {l:.2}× one node on let, {c:.2}× on callback"
        );
    }
    let labels: Vec<String> = runs.iter().map(|(e, _)| e.name().to_owned()).collect();
    let figure = Figure {
        file: "let-nobleo-cpu.svg".into(),
        title: "nobleo: CPU by executor, 10 nodes against 1".into(),
        svg: plot::bars(
            "nobleo: CPU by executor (% of one core)",
            "%",
            &labels,
            &[("10 nodes (nobleo)", cpu(0)), ("1 node (nobleo-1)", cpu(1))],
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

    #[test]
    fn each_executor_gets_the_ratio_of_ten_nodes_to_one() {
        let run = |cpu| RunResult {
            cpu_pct_core: cpu,
            deliveries_per_s: Some(10_000.0),
            ..Default::default()
        };
        let runs = [
            (ExecutorKind::Callback, [Some(run(4.0)), Some(run(2.0))]),
            (ExecutorKind::Let, [Some(run(1.0)), Some(run(1.0))]),
            (ExecutorKind::Events, [None, Some(run(1.0))]),
        ];
        let section = report(&runs, Vec::new());
        assert_eq!(section.numbers["callback.ten_over_one"], 2.0);
        assert_eq!(section.numbers["let.ten_over_one"], 1.0);
        assert!(!section.numbers.contains_key("events.ten_over_one"));
        assert!(
            section.table.contains("| events | - | 1.00 | - |"),
            "{}",
            section.table
        );
        assert!(
            section.verdict.contains("cheapest on 10 nodes: let")
                && section
                    .verdict
                    .contains("1.00× one node on let, 2.00× on callback"),
            "{}",
            section.verdict
        );
    }
}
