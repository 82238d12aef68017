//! *reference-system*: Apex's figures on the Autoware reference system (their wait-set
//! executor with polling subscriptions), against `tacto bench reference-system` on every
//! tacto executor, in the layout of Apex's table: hot-path latency, hot-path drops, the
//! behaviour planner's jitter, CPU. With `--rclcpp DIR`, rclcpp's own executables of the
//! reference system (single-threaded, prioritized, events) run between tacto's executors, each
//! right after the tacto executor it compares with, measured the same way (see `rclcpp.rs`),
//! and the report gives every tacto executor's figures as ratios to each of theirs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::rclcpp::{Beside, Executable, Measured, Peer, REFERENCE_SYSTEM, RclcppError};
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
/// The threads `autoware_default_prioritized` asks `SCHED_RR` for: the front, rear, fusion
/// and planner executors' (upstream's `set_rt_properties`).
const RCLCPP_REALTIME_THREADS: usize = 4;

const SEED: &str = "Apex's wait-set executor with polling subscriptions on the Autoware \
                    reference system: 0.0028 ms of behaviour-planner jitter (measured on \
                    Apex's hardware, not this machine).";

/// One of rclcpp's executables, measured.
#[derive(Debug, Clone)]
struct Theirs {
    executable: Executable,
    measured: Measured,
}

/// Runs the reference system on every executor, each in a child process, and rclcpp's
/// executables after their tacto counterparts when `peer` has them (otherwise `peer` says why
/// not).
pub(super) fn run(scale: Scale, peer: &Result<Peer, String>, interrupt: &Interrupt) -> Ran {
    let warmup = Duration::from_secs_f64(scale.pick(5.0, 1.0));
    let duration = Duration::from_secs_f64(scale.pick(30.0, 2.0));
    let beside = (peer.as_ref())
        .map_err(Clone::clone)
        .and_then(|peer| Beside::prepare(peer, CRUNCH));
    let mut runs = Vec::new();
    let mut theirs = Vec::new();
    let mut notes = Vec::new();
    let kinds = ExecutorKind::ALL;
    let total = kinds.len() + beside.as_ref().map_or(0, |_| REFERENCE_SYSTEM.len());
    let per_run = warmup + duration;
    let mut done = 0;
    for &executor in &kinds {
        done += 1;
        let config = RunConfig {
            executor,
            crunch: CRUNCH,
            warmup,
            duration,
            ros_graph: false,
            node_parameters: 0,
        };
        let label = format!("{done}/{total}");
        let after = per_run * (total - done) as u32;
        match run_in_child("reference-system", &config, &label, after, interrupt) {
            Ok(result) => runs.push(result),
            Err(RunError::Interrupted { .. }) => return Ran::Interrupted,
            Err(e) => notes.push(format!("{executor}: {e}")),
        }
        let Ok(beside) = &beside else { continue };
        for executable in REFERENCE_SYSTEM.iter().filter(|e| e.beside == executor) {
            done += 1;
            eprintln!(
                "[{done}/{total}] rclcpp {:<12} {} s, {} s in all",
                executable.name,
                per_run.as_secs(),
                (per_run * (total - done + 1) as u32).as_secs()
            );
            match beside.run(executable, warmup, duration, interrupt) {
                Ok(measured) => theirs.push(Theirs {
                    executable: *executable,
                    measured,
                }),
                Err(RclcppError::Interrupted) => return Ran::Interrupted,
                Err(RclcppError::Failed(why)) => {
                    notes.push(format!("rclcpp {}: {why}", executable.name));
                }
            }
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
    let rclcpp = match &beside {
        Ok(beside) => {
            notes.push(format!(
                "rclcpp: {}. Each ran right after the tacto executor it compares with \
                 (singlethreaded after callback, prioritized after prioritized, events after \
                 events), for the same warm-up and window; its hot-path latency and planner \
                 period are the figures it printed for the samples reaching VehicleDBWSystem \
                 in the window, its CPU that of its process (/proc/PID/stat).",
                beside.describe()
            ));
            Ok(theirs)
        }
        Err(reason) => {
            notes.push(format!("rclcpp not measured: {reason}"));
            Err(reason.clone())
        }
    };
    Ran::Report(report(&runs, &rclcpp, notes))
}

/// A row of the table: its label, the prefix of its numbers, its figures.
struct Row<'a> {
    label: String,
    key: String,
    run: &'a RunResult,
}

/// The section from the runs that finished: tacto's, and rclcpp's or why they did not run.
fn report(
    runs: &[RunResult],
    rclcpp: &Result<Vec<Theirs>, String>,
    mut notes: Vec<String>,
) -> SectionReport {
    let theirs: Vec<(&Theirs, RunResult)> = (rclcpp.as_ref().map_or(&[][..], |t| t))
        .iter()
        .map(|t| {
            (
                t,
                t.measured.result(format!("rclcpp {}", t.executable.name)),
            )
        })
        .collect();
    let rows: Vec<Row> = (runs.iter())
        .map(|run| Row {
            label: run.executor.clone(),
            key: run.executor.clone(),
            run,
        })
        .chain(theirs.iter().map(|(t, run)| Row {
            label: run.executor.clone(),
            key: format!("rclcpp.{}", t.executable.name),
            run,
        }))
        .collect();
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "| executor | hot-path latency mean, ms | p99 | max | hot-path drops | planner period \
         mean, ms | planner jitter, ms | jitter / seed's | CPU, % core |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let dash = || "-".to_owned();
    for Row { label, key: e, run } in &rows {
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
            "| {label}{} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
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
    for (t, _) in &theirs {
        let name = t.executable.name;
        numbers.insert(
            format!("rclcpp.{name}.realtime_threads"),
            t.measured.realtime_threads as f64,
        );
        if t.executable.beside == ExecutorKind::Prioritized {
            notes.push(format!(
                "rclcpp {name}: {} of its threads ran at a real-time policy (upstream asks \
                 SCHED_RR for {RCLCPP_REALTIME_THREADS} and goes on without it when refused{})",
                t.measured.realtime_threads,
                match t.measured.realtime_threads {
                    0 => ": here it was refused, and they ran at normal priority",
                    _ => "",
                }
            ));
        }
        if t.measured.statistics.not_kept > 0 {
            notes.push(format!(
                "rclcpp {name}: {} samples beyond the most kept were left out",
                t.measured.statistics.not_kept
            ));
        }
    }
    if !theirs.is_empty() {
        table += &ratios(runs, &theirs, &mut numbers);
    }
    let mut verdict = seed_verdict(runs);
    match rclcpp {
        Ok(_) if theirs.is_empty() => {
            verdict += "; rclcpp not measured: none of its executables ran (the notes say why)";
        }
        Ok(_) => verdict += &best_against_best(runs, &theirs, &mut numbers),
        Err(reason) => {
            let _ = write!(verdict, "; rclcpp not measured: {reason}");
        }
    }
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let jitter = plot::bars(
        "reference system: behaviour-planner jitter (ms)",
        "ms",
        &labels,
        &[(
            "planner jitter (sd of its period)",
            rows.iter()
                .map(|r| r.run.bp_period_ms.as_ref().map(|p| p.sd))
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
                rows.iter()
                    .map(|r| r.run.hot_path_latency_ms.as_ref().map(|l| l.mean))
                    .collect(),
            ),
            (
                "p99",
                rows.iter()
                    .map(|r| r.run.hot_path_latency_ms.as_ref().map(|l| l.p99))
                    .collect(),
            ),
        ],
        None,
    );
    let cpu = plot::bars(
        "reference system: CPU (% of one core)",
        "%",
        &labels,
        &[(
            "CPU",
            rows.iter().map(|r| Some(r.run.cpu_pct_core)).collect(),
        )],
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

/// The least planner jitter of tacto's executors against the seed's.
fn seed_verdict(runs: &[RunResult]) -> String {
    let closest = (runs.iter())
        .filter_map(|r| Some((r, r.bp_period_ms.as_ref()?.sd)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match closest {
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
    }
}

/// Reads one figure of a run: its CPU, or its hot path's mean latency.
type Read = fn(&RunResult) -> Option<f64>;

/// The two figures compared with rclcpp, by the name of their numbers.
const COMPARED: [(&str, Read); 2] = [
    ("cpu", |r| Some(r.cpu_pct_core)),
    ("hot_path_latency", |r| {
        r.hot_path_latency_ms.as_ref().map(|l| l.mean)
    }),
];

/// `a / b`, where `b` is above 0.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The table of every tacto executor's CPU and hot-path latency as ratios to each rclcpp
/// executable's (its counterpart's in bold), adding them to `numbers`.
fn ratios(
    runs: &[RunResult],
    theirs: &[(&Theirs, RunResult)],
    numbers: &mut BTreeMap<String, f64>,
) -> String {
    let mut table = String::from(
        "\ntacto / rclcpp, in the same run (below 1: tacto uses less; bold: the rclcpp \
         executable run right after that executor):\n\n| tacto executor |",
    );
    for (t, _) in theirs {
        let _ = write!(
            table,
            " CPU / rclcpp {0} | hot-path latency / rclcpp {0} |",
            t.executable.name
        );
    }
    let _ = writeln!(table, "\n|---|{}", "---|---|".repeat(theirs.len()));
    for run in runs {
        let _ = write!(table, "| {} |", run.executor);
        for (t, their) in theirs {
            let counterpart = t.executable.beside.name() == run.executor;
            for (what, figure) in COMPARED {
                let cell = match ratio(figure(run), figure(their)) {
                    Some(r) => {
                        numbers.insert(
                            format!("{}.{what}_over_rclcpp_{}", run.executor, t.executable.name),
                            r,
                        );
                        match counterpart {
                            true => format!("**{r:.2}×**"),
                            false => format!("{r:.2}×"),
                        }
                    }
                    None => "-".into(),
                };
                let _ = write!(table, " {cell} |");
            }
        }
        table.push('\n');
    }
    table
}

/// tacto's best executor against rclcpp's best, by CPU and by hot-path latency: the clause of
/// the verdict, the ratios added to `numbers`.
fn best_against_best(
    runs: &[RunResult],
    theirs: &[(&Theirs, RunResult)],
    numbers: &mut BTreeMap<String, f64>,
) -> String {
    let least = |rows: &mut dyn Iterator<Item = (String, Option<f64>)>| {
        rows.filter_map(|(name, v)| Some((name, v?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let mut clauses = Vec::new();
    for ((what, figure), (said, unit)) in COMPARED
        .into_iter()
        .zip([("CPU", "%"), ("hot-path latency", " ms")])
    {
        let ours = least(&mut runs.iter().map(|r| (r.executor.clone(), figure(r))));
        let best =
            least(&mut (theirs.iter()).map(|(t, r)| (t.executable.name.to_owned(), figure(r))));
        if let (Some((ours, a)), Some((best, b))) = (ours, best)
            && b > 0.0
        {
            numbers.insert(format!("best_{what}_over_rclcpp_best"), a / b);
            clauses.push(format!(
                "{said}: tacto's least ({ours}, {a:.2}{unit}) is {:.2}× rclcpp's least ({best}, \
                 {b:.2}{unit})",
                a / b
            ));
        }
    }
    match clauses.is_empty() {
        true => "; rclcpp measured, but no figure of it compares".into(),
        false => format!("; {}", clauses.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Distribution, Spread};
    use crate::seeds::rclcpp::Statistics;

    fn run(executor: &str, sd: f64) -> RunResult {
        RunResult {
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
        }
    }

    fn not_given() -> Result<Vec<Theirs>, String> {
        Err("no --rclcpp DIR given".into())
    }

    #[test]
    fn the_closest_executor_is_compared_with_the_seeds_jitter() {
        let section = report(
            &[run("callback", 0.1), run("wait-set", 0.028)],
            &not_given(),
            Vec::new(),
        );
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
        let reproduced = report(&[run("wait-set", 0.002)], &not_given(), Vec::new());
        assert!(reproduced.verdict.starts_with("reproduced"));
    }

    #[test]
    fn without_rclcpp_the_verdict_says_it_was_not_measured_and_why() {
        let section = report(&[run("callback", 0.1)], &not_given(), Vec::new());
        assert!(
            section
                .verdict
                .ends_with("; rclcpp not measured: no --rclcpp DIR given"),
            "{}",
            section.verdict
        );
        assert!(!section.numbers.keys().any(|k| k.contains("rclcpp")));
    }

    #[test]
    fn each_tacto_executor_is_given_as_ratios_to_each_rclcpp_executable() {
        let theirs = |executable: Executable, cpu: f64, latency: f64| Theirs {
            executable,
            measured: Measured {
                statistics: Statistics {
                    hot_path_ms: vec![latency, latency],
                    planner_period_ms: vec![99.0, 101.0],
                    hot_path_drops: 3,
                    not_kept: 0,
                },
                cpu_pct_core: cpu,
                realtime_threads: 0,
            },
        };
        let [single, prioritized, _] = REFERENCE_SYSTEM;
        let rclcpp = Ok(vec![
            theirs(single, 20.0, 4.0),
            theirs(prioritized, 40.0, 2.0),
        ]);
        let mut events = run("events", 0.1);
        events.cpu_pct_core = 5.0;
        let section = report(&[run("callback", 0.1), events], &rclcpp, Vec::new());
        let n = &section.numbers;
        assert_eq!(n["rclcpp.singlethreaded.cpu_pct_core"], 20.0);
        assert_eq!(n["rclcpp.singlethreaded.hot_path_drops"], 3.0);
        assert_eq!(n["rclcpp.prioritized.planner_jitter_ms"], 1.0);
        assert_eq!(n["callback.cpu_over_rclcpp_singlethreaded"], 0.5);
        assert_eq!(n["callback.hot_path_latency_over_rclcpp_prioritized"], 0.5);
        assert_eq!(n["events.cpu_over_rclcpp_prioritized"], 0.125);
        assert_eq!(n["best_cpu_over_rclcpp_best"], 0.25);
        assert_eq!(n["best_hot_path_latency_over_rclcpp_best"], 0.5);
        assert!(
            section
                .table
                .contains("| callback | **0.50×** | **0.25×** | 0.25× | 0.50× |"),
            "the counterpart's cells in bold: {}",
            section.table
        );
        assert!(
            section.verdict.contains(
                "CPU: tacto's least (events, 5.00%) is 0.25× rclcpp's least \
                 (singlethreaded, 20.00%)"
            ),
            "{}",
            section.verdict
        );
        assert!(
            (section.notes.iter())
                .any(|n| n.contains("prioritized: 0 of its threads") && n.contains("refused")),
            "{:?}",
            section.notes
        );
    }
}
