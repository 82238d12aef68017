//! ros2-performance's own topologies (`mont_blanc`, `sierra_nevada`), the graphs iRobot's
//! benchmark ships, on tacto's executors and, with `--rclcpp DIR`, on rclcpp's through
//! `irobot_benchmark` in the same run, alternating topology by topology: CPU, and latency over
//! every subscription. The part runs only beside rclcpp: tacto's figures alone are `tacto bench
//! mont-blanc`'s.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::{Part, PartRan, ms};
use crate::result::RunResult;
use crate::run::{RunError, run_in_child};
use crate::seeds::irobot::{Irobot, IrobotRun, RclcppExecutor};
use crate::seeds::{Figure, Scale, plot};
use crate::system::RunConfig;
use crate::topology::embedded;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// The topologies: `tacto bench`'s name, the name in keys, the file.
const TOPOLOGIES: [(&str, &str, &str); 2] = [
    ("mont-blanc", "mont_blanc", embedded::MONT_BLANC),
    ("sierra-nevada", "sierra_nevada", embedded::SIERRA_NEVADA),
];

/// One run: tacto's or rclcpp's.
enum Row {
    /// Boxed: a run's result is large beside rclcpp's figures.
    Tacto(ExecutorKind, Box<RunResult>),
    Rclcpp(RclcppExecutor, IrobotRun),
}

impl Row {
    fn executor(&self) -> &'static str {
        match self {
            Row::Tacto(e, _) => e.name(),
            Row::Rclcpp(e, _) => e.name(),
        }
    }

    fn cpu(&self) -> f64 {
        match self {
            Row::Tacto(_, r) => r.cpu_pct_core,
            Row::Rclcpp(_, r) => r.cpu_pct_core,
        }
    }

    /// Mean latency over every message of every subscription, and the largest, ms.
    fn latency(&self) -> Option<(f64, f64)> {
        match self {
            Row::Tacto(_, r) => {
                let n: u64 = r.topics.iter().map(|t| t.latency_ms.n).sum();
                let sum: f64 = (r.topics.iter())
                    .map(|t| t.latency_ms.mean * t.latency_ms.n as f64)
                    .sum();
                let max = r
                    .topics
                    .iter()
                    .map(|t| t.latency_ms.max)
                    .fold(0.0, f64::max);
                (n > 0).then(|| (sum / n as f64, max))
            }
            Row::Rclcpp(_, r) => Some((r.mean_ms, r.max_ms)),
        }
    }

    fn lost(&self) -> u64 {
        match self {
            Row::Tacto(_, r) => r.drops_total,
            Row::Rclcpp(_, r) => r.lost,
        }
    }
}

/// Runs each topology on tacto's executors, then on rclcpp's; skipped without rclcpp.
pub(super) fn run(
    scale: Scale,
    irobot: Result<&Irobot, &String>,
    interrupt: &Interrupt,
) -> PartRan {
    let irobot = match irobot {
        Ok(irobot) => irobot,
        Err(reason) => {
            return PartRan::Part(Part {
                notes: vec![format!(
                    "ros2-performance topologies beside rclcpp: skipped: {reason}"
                )],
                ..Part::default()
            });
        }
    };
    let warmup = Duration::from_secs_f64(scale.pick(2.0, 0.5));
    let duration = Duration::from_secs_f64(scale.pick(10.0, 1.0));
    let (topologies, executors): (&[_], Vec<ExecutorKind>) = match scale.quick {
        true => (
            &TOPOLOGIES[..1],
            vec![ExecutorKind::WaitSet, ExecutorKind::Events],
        ),
        false => (&TOPOLOGIES[..], ExecutorKind::ALL.to_vec()),
    };
    let mut notes = vec![format!(
        "ros2-performance topologies: each on tacto's executors (`tacto bench`, a process per \
         executor, {} s after {} s of warm-up), then on rclcpp's through irobot_benchmark \
         (`-x 1`, `-x 3`, `--ipc on`, {} s, CPU from /proc over the same window; its latency \
         is over its whole run). Latency is over every subscription; lost counts the messages \
         never received.",
        duration.as_secs_f64(),
        warmup.as_secs_f64(),
        (warmup + duration).as_secs_f64().ceil()
    )];
    let mut rows = Vec::new();
    for &(name, key, file) in topologies {
        for &executor in &executors {
            let config = RunConfig {
                executor,
                crunch: 0,
                warmup,
                duration,
                ros_graph: false,
                node_parameters: 0,
            };
            match run_in_child(name, &config, key, Duration::ZERO, interrupt) {
                Ok(result) => rows.push((key, Row::Tacto(executor, Box::new(result)))),
                Err(RunError::Interrupted { .. }) => return PartRan::Interrupted,
                Err(e) => notes.push(format!("{key} on {executor}: failed: {e}")),
            }
        }
        let seconds = (warmup + duration).as_secs_f64().ceil() as u64;
        for executor in RclcppExecutor::ALL {
            eprintln!("[{key}] {}", executor.name());
            match irobot.run(key, file, executor, seconds, warmup, interrupt) {
                Ok(Some(run)) => rows.push((key, Row::Rclcpp(executor, run))),
                Ok(None) => return PartRan::Interrupted,
                Err(e) => notes.push(format!("{key} on {}: failed: {e}", executor.name())),
            }
        }
    }
    PartRan::Part(report(&rows, notes))
}

fn report(rows: &[(&str, Row)], mut notes: Vec<String>) -> Part {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "**ros2-performance topologies, beside rclcpp**\n\n| topology | executor | CPU, % core | \
         latency mean, ms | max | lost |\n|---|---|---|---|---|---|\n",
    );
    for (topology, row) in rows {
        let key = format!("topology.{topology}.{}", row.executor());
        numbers.insert(format!("{key}.cpu_pct_core"), row.cpu());
        let latency = row.latency();
        if let Some((mean, max)) = latency {
            numbers.insert(format!("{key}.latency_mean_ms"), mean);
            numbers.insert(format!("{key}.latency_max_ms"), max);
        }
        let _ = writeln!(
            table,
            "| {topology} | {} | {:.2} | {} | {} | {} |",
            row.executor(),
            row.cpu(),
            ms(latency.map(|l| l.0)),
            ms(latency.map(|l| l.1)),
            row.lost()
        );
    }
    table.push('\n');
    let mut verdict = Vec::new();
    let mut labels = Vec::new();
    let mut cpus = Vec::new();
    let mut topologies: Vec<&str> = rows.iter().map(|(t, _)| *t).collect();
    topologies.dedup();
    for topology in topologies {
        let of = |tacto: bool| {
            (rows.iter())
                .filter(|(t, row)| *t == topology && matches!(row, Row::Tacto(..)) == tacto)
                .map(|(_, row)| row)
                .filter(|row| row.cpu() > 0.0)
                .min_by(|a, b| a.cpu().total_cmp(&b.cpu()))
        };
        let (ours, theirs) = (of(true), of(false));
        if ours.is_none() || theirs.is_none() {
            notes.push(format!(
                "{topology}: tacto against rclcpp not compared: no run of {} with its CPU read",
                match ours {
                    None => "tacto",
                    Some(_) => "rclcpp",
                }
            ));
        }
        if let (Some(ours), Some(theirs)) = (ours, theirs) {
            let ratio = ours.cpu() / theirs.cpu();
            numbers.insert(format!("topology.{topology}.best_over_rclcpp_best"), ratio);
            verdict.push(format!(
                "{topology}: tacto's cheapest ({}, {:.2}%) used 1/{:.1} of rclcpp's cheapest \
                 ({}, {:.2}%; the goal is 1/10)",
                ours.executor(),
                ours.cpu(),
                1.0 / ratio,
                theirs.executor(),
                theirs.cpu()
            ));
        }
        for (_, row) in rows.iter().filter(|(t, _)| *t == topology) {
            labels.push(format!("{topology} {}", row.executor()));
            cpus.push(Some(row.cpu()));
        }
    }
    Part {
        numbers,
        table,
        notes,
        verdict,
        figures: vec![Figure {
            file: "events-topologies-cpu.svg".into(),
            title: "ros2-performance topologies: CPU of tacto's executors and rclcpp's".into(),
            svg: plot::bars(
                "ros2-performance topologies: CPU (% of one core)",
                "%",
                &labels,
                &[("CPU", cpus)],
                None,
            ),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Distribution, TopicResult};

    #[test]
    fn tacto_is_judged_by_its_cheapest_executor_against_rclcpps_cheapest() {
        let topic = |mean, n| TopicResult {
            latency_ms: Distribution {
                mean,
                p50: mean,
                p99: mean,
                max: mean * 2.0,
                n,
            },
            ..Default::default()
        };
        let tacto = |executor, cpu_pct_core| {
            Row::Tacto(
                executor,
                Box::new(RunResult {
                    cpu_pct_core,
                    topics: vec![topic(1.0, 10), topic(4.0, 30)],
                    ..Default::default()
                }),
            )
        };
        let rclcpp = |executor, cpu_pct_core| {
            Row::Rclcpp(
                executor,
                IrobotRun {
                    cpu_pct_core,
                    rss_kb_per_s: Vec::new(),
                    received: 10,
                    lost: 0,
                    mean_ms: 0.1,
                    max_ms: 0.5,
                },
            )
        };
        let part = report(
            &[
                ("mont_blanc", tacto(ExecutorKind::WaitSet, 1.0)),
                ("mont_blanc", tacto(ExecutorKind::Callback, 2.0)),
                ("mont_blanc", rclcpp(RclcppExecutor::Single, 20.0)),
                ("mont_blanc", rclcpp(RclcppExecutor::Events, 8.0)),
            ],
            Vec::new(),
        );
        assert_eq!(
            part.numbers["topology.mont_blanc.best_over_rclcpp_best"],
            0.125
        );
        // (10 × 1 + 30 × 4) / 40.
        assert_eq!(
            part.numbers["topology.mont_blanc.wait-set.latency_mean_ms"],
            3.25
        );
        assert_eq!(
            part.numbers["topology.mont_blanc.rclcpp-events.cpu_pct_core"],
            8.0
        );
        assert!(
            part.verdict[0].contains("used 1/8.0 of rclcpp's cheapest (rclcpp-events, 8.00%"),
            "{:?}",
            part.verdict
        );
    }
}
