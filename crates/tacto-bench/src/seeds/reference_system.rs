//! *reference-system*: Apex's figures on the Autoware reference system (their wait-set
//! executor with polling subscriptions), against `tacto bench reference-system` on every
//! tacto executor, in the layout of Apex's table: hot-path latency, hot-path drops, the
//! behaviour planner's jitter, CPU.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::{Figure, Outcome, Ran, Scale, Section, SectionReport, plot};
use crate::result::RunResult;
use crate::run::{RunError, run_in_child};
use crate::system::RunConfig;
use crate::topology::reference_system::crunch_time;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// The seed's behaviour-planner jitter, ms.
pub const SEED_JITTER_MS: f64 = 0.0028;
/// The crunch limit of `tacto bench`'s default run.
const CRUNCH: u64 = 4096;

const SEED: &str = "Apex's wait-set executor with polling subscriptions on the Autoware \
                    reference system: 0.0028 ms of behaviour-planner jitter (measured on \
                    Apex's hardware, not this machine).";

/// Runs the reference system on every executor, each in a child process.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> Ran {
    let warmup = Duration::from_secs_f64(scale.pick(5.0, 1.0));
    let duration = Duration::from_secs_f64(scale.pick(30.0, 2.0));
    let mut runs = Vec::new();
    let mut notes = Vec::new();
    let kinds = ExecutorKind::ALL;
    for (i, &executor) in kinds.iter().enumerate() {
        let config = RunConfig {
            executor,
            crunch: CRUNCH,
            warmup,
            duration,
            ros_graph: false,
            node_parameters: 0,
        };
        let label = format!("{}/{}", i + 1, kinds.len());
        let after = (warmup + duration) * (kinds.len() - i - 1) as u32;
        match run_in_child("reference-system", &config, &label, after, interrupt) {
            Ok(result) => runs.push(result),
            Err(RunError::Interrupted { .. }) => return Ran::Interrupted,
            Err(e) => notes.push(format!("{executor}: {e}")),
        }
    }
    if runs.is_empty() {
        return Ran::Report(SectionReport::without_figures(
            Section::ReferenceSystem,
            SEED,
            Outcome::Failed {
                reason: notes.join("; "),
            },
        ));
    }
    notes.insert(
        0,
        format!(
            "{} s measured per executor after {} s of warm-up, each executor in a process of \
             its own, crunch {CRUNCH} (one crunch: {:.2} ms here). Jitter is the standard \
             deviation of the behaviour planner's period as seen downstream.",
            duration.as_secs_f64(),
            warmup.as_secs_f64(),
            crunch_time(CRUNCH).as_secs_f64() * 1e3
        ),
    );
    for run in runs.iter().filter(|r| r.overloaded) {
        notes.push(format!(
            "{} fell behind its schedule ({}): its figures are not comparable",
            run.executor,
            run.overload.join("; ")
        ));
    }
    Ran::Report(report(&runs, notes))
}

/// The section from the runs that finished.
fn report(runs: &[RunResult], notes: Vec<String>) -> SectionReport {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "| executor | hot-path latency mean, ms | p99 | max | hot-path drops | planner period \
         mean, ms | planner jitter, ms | jitter / seed's | CPU, % core |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let dash = || "-".to_owned();
    for run in runs {
        let e = &run.executor;
        numbers.insert(format!("{e}.cpu_pct_core"), run.cpu_pct_core);
        let latency = run.hot_path_latency_ms.as_ref();
        if let Some(l) = latency {
            numbers.insert(format!("{e}.hot_path_latency_mean_ms"), l.mean);
            numbers.insert(format!("{e}.hot_path_latency_p99_ms"), l.p99);
            numbers.insert(format!("{e}.hot_path_latency_max_ms"), l.max);
        }
        if let Some(drops) = run.hot_path_drops {
            numbers.insert(format!("{e}.hot_path_drops"), drops as f64);
        }
        let period = run.bp_period_ms.as_ref();
        if let Some(p) = period {
            numbers.insert(format!("{e}.planner_period_mean_ms"), p.mean);
            numbers.insert(format!("{e}.planner_jitter_ms"), p.sd);
        }
        let _ = writeln!(
            table,
            "| {e}{} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
            if run.overloaded { " (fell behind)" } else { "" },
            latency.map_or_else(dash, |l| format!("{:.3}", l.mean)),
            latency.map_or_else(dash, |l| format!("{:.3}", l.p99)),
            latency.map_or_else(dash, |l| format!("{:.3}", l.max)),
            run.hot_path_drops.map_or_else(dash, |d| d.to_string()),
            period.map_or_else(dash, |p| format!("{:.3}", p.mean)),
            period.map_or_else(dash, |p| format!("{:.4}", p.sd)),
            period.map_or_else(dash, |p| format!("{:.0}×", p.sd / SEED_JITTER_MS)),
            run.cpu_pct_core,
        );
    }
    let closest = (runs.iter())
        .filter_map(|r| Some((r, r.bp_period_ms.as_ref()?.sd)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let verdict = match closest {
        Some((run, jitter)) if jitter <= SEED_JITTER_MS => format!(
            "reproduced: {} has {jitter:.4} ms of planner jitter, at or under the seed's \
             {SEED_JITTER_MS} ms",
            run.executor
        ),
        Some((run, jitter)) => format!(
            "not reproduced: the least planner jitter is {}'s, {jitter:.4} ms, {:.0}× the \
             seed's {SEED_JITTER_MS} ms (this machine is shared and loaded; the seed's was not)",
            run.executor,
            jitter / SEED_JITTER_MS
        ),
        None => "not measured: no run measured the planner's period".into(),
    };
    let labels: Vec<String> = runs.iter().map(|r| r.executor.clone()).collect();
    let jitter = plot::bars(
        "reference system: behaviour-planner jitter (ms)",
        "ms",
        &labels,
        &[(
            "planner jitter (sd of its period)",
            runs.iter()
                .map(|r| r.bp_period_ms.as_ref().map(|p| p.sd))
                .collect(),
        )],
        Some(("seed: 0.0028 ms", SEED_JITTER_MS)),
    );
    let latency = plot::bars(
        "reference system: hot-path latency (ms)",
        "ms",
        &labels,
        &[
            (
                "mean",
                runs.iter()
                    .map(|r| r.hot_path_latency_ms.as_ref().map(|l| l.mean))
                    .collect(),
            ),
            (
                "p99",
                runs.iter()
                    .map(|r| r.hot_path_latency_ms.as_ref().map(|l| l.p99))
                    .collect(),
            ),
        ],
        None,
    );
    let cpu = plot::bars(
        "reference system: CPU (% of one core)",
        "%",
        &labels,
        &[("CPU", runs.iter().map(|r| Some(r.cpu_pct_core)).collect())],
        None,
    );
    SectionReport {
        section: Section::ReferenceSystem,
        outcome: Outcome::Ran,
        seed: SEED.into(),
        verdict,
        numbers,
        table,
        notes,
        figures: vec![
            Figure {
                file: "reference-system-jitter.svg".into(),
                title: "behaviour-planner jitter by executor, the seed's as a line".into(),
                svg: jitter,
            },
            Figure {
                file: "reference-system-latency.svg".into(),
                title: "hot-path latency by executor".into(),
                svg: latency,
            },
            Figure {
                file: "reference-system-cpu.svg".into(),
                title: "CPU by executor".into(),
                svg: cpu,
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Distribution, Spread};

    #[test]
    fn the_closest_executor_is_compared_with_the_seeds_jitter() {
        let run = |executor: &str, sd: f64| RunResult {
            executor: executor.into(),
            cpu_pct_core: 10.0,
            hot_path_latency_ms: Some(Distribution {
                mean: 1.0,
                p50: 1.0,
                p99: 2.0,
                max: 3.0,
                n: 10,
            }),
            bp_period_ms: Some(Spread {
                mean: 100.0,
                sd,
                min: 99.0,
                max: 101.0,
                n: 10,
            }),
            ..Default::default()
        };
        let section = report(&[run("callback", 0.1), run("wait-set", 0.028)], Vec::new());
        assert!(
            section.verdict.starts_with("not reproduced") && section.verdict.contains("wait-set"),
            "{}",
            section.verdict
        );
        assert!(section.verdict.contains("10×"), "{}", section.verdict);
        assert_eq!(section.numbers["wait-set.planner_jitter_ms"], 0.028);
        assert!(
            section
                .table
                .contains("| wait-set | 1.000 | 2.000 | 3.000 |")
        );
        let reproduced = report(&[run("wait-set", 0.002)], Vec::new());
        assert!(reproduced.verdict.starts_with("reproduced"));
    }
}
