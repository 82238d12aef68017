//! Long runs: pub/sub, services and actions for 10 minutes each, in two processes over shared
//! memory on the wait-set executor, each process's resident set read once a second: the
//! seed's question (it found memory growing in every rclcpp executor) asked of tacto. Growth is
//! from the window's first second to its last, after the warm-up; the target is under 1%.
//! With `--rclcpp`, the seed's own subject beside it: `irobot_benchmark` with the same
//! pub/sub and services loads (it has no actions) in one process on each of rclcpp's
//! executors, for as long, its resident set read the same way.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::placed::{self, Case, CaseError, Load, Transport};
use super::{Part, PartRan, growth_pct, one_process, round_trips};
use crate::seeds::irobot::{Irobot, IrobotRun, RclcppExecutor};
use crate::seeds::{Figure, Scale, plot};
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// The target the issue sets: less than this growth over a long run, %.
const TARGET_PCT: f64 = 1.0;
/// The pub/sub load's message: 10 KiB every 10 ms.
const MSG_TYPE: &str = "stamped10kb";
/// The executor of every long run: tacto's polling executor, the one its users are pointed to.
const EXECUTOR: ExecutorKind = ExecutorKind::WaitSet;

/// One load's run.
struct Ran {
    load: Load,
    measured: placed::Measured,
}

/// One load's run on rclcpp.
struct RclcppRan {
    load: Load,
    executor: RclcppExecutor,
    run: IrobotRun,
}

/// Runs each load for the long window, on tacto and, if `irobot` is found, on rclcpp.
pub(super) fn run(
    scale: Scale,
    irobot: Result<&Irobot, &String>,
    interrupt: &Interrupt,
) -> PartRan {
    let warmup = Duration::from_secs_f64(scale.pick(10.0, 1.0));
    let duration = Duration::from_secs_f64(scale.pick(600.0, 3.0));
    let mut notes = vec![format!(
        "Long runs: pub/sub ({MSG_TYPE} every 10 ms), services (a call every 10 ms) and \
         actions (a goal every 100 ms), each in two processes over shared memory on the \
         {EXECUTOR} executor, {} s measured after {} s of warm-up, each process's resident \
         set read once a second (VmRSS). Growth is from the window's first reading to its \
         last.",
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    let mut ran = Vec::new();
    for load in [Load::PubSub(MSG_TYPE), Load::Service, Load::Action] {
        eprintln!(
            "  {} for {} s on {EXECUTOR}",
            load.name(),
            duration.as_secs_f64()
        );
        let case = Case {
            load,
            executor: EXECUTOR,
            transport: Transport::Shm,
            processes: 2,
            warmup,
            duration,
        };
        match placed::run(&case, interrupt) {
            Ok(measured) => ran.push(Ran { load, measured }),
            Err(CaseError::Interrupted) => return PartRan::Interrupted,
            Err(CaseError::Failed(reason)) => {
                notes.push(format!("long run of {}: failed: {reason}", load.name()))
            }
        }
    }
    let mut rclcpp = Vec::new();
    match irobot {
        Ok(irobot) => {
            notes.push(
                "rclcpp rows: irobot_benchmark (ros2-performance), the same pub/sub and \
                 services loads in one process (`--ipc on`; its services go through DDS), \
                 `-x 1` (SingleThreadedExecutor) and `-x 3` (EventsExecutor), for as long, its \
                 resident set read once a second after the same warm-up. It has no actions."
                    .into(),
            );
            // Whole seconds: the benchmark's -t.
            let seconds = (warmup + duration).as_secs_f64().ceil() as u64;
            for load in [Load::PubSub(MSG_TYPE), Load::Service] {
                let topology = match load {
                    Load::PubSub(msg_type) => one_process::topology(msg_type),
                    _ => round_trips::rclcpp_services(),
                };
                for executor in RclcppExecutor::ALL {
                    eprintln!("  {} for {seconds} s on {}", load.name(), executor.name());
                    let name = format!("long_{}", load.name());
                    match irobot.run(&name, &topology, executor, seconds, warmup, interrupt) {
                        Ok(Some(run)) => rclcpp.push(RclcppRan {
                            load,
                            executor,
                            run,
                        }),
                        Ok(None) => return PartRan::Interrupted,
                        Err(e) => notes.push(format!(
                            "long run of {} on {}: failed: {e}",
                            load.name(),
                            executor.name()
                        )),
                    }
                }
            }
        }
        Err(reason) => notes.push(format!("rclcpp's long runs: skipped: {reason}")),
    }
    PartRan::Part(report(&ran, &rclcpp, notes))
}

/// The table, the RSS series and the largest growth seen, filled one process at a time.
#[derive(Default)]
struct Rows {
    table: String,
    series: Vec<(String, Vec<(f64, f64)>)>,
    worst: Option<(f64, String)>,
}

/// One process's figures, as a row gives them.
struct Process<'a> {
    load: &'static str,
    /// As the table names the process.
    name: String,
    /// As the plot's legend and the verdict name it.
    label: String,
    cpu_pct_core: f64,
    rss_kb_per_s: &'a [u64],
    received: u64,
    lost: u64,
}

impl Rows {
    /// Adds the process's row and RSS line; its growth, if its resident set was read twice.
    fn add(&mut self, p: Process) -> Option<f64> {
        let rss = p.rss_kb_per_s;
        let growth = growth_pct(rss)?;
        let _ = writeln!(
            self.table,
            "| {} | {} | {:.2} | {} | {} | {growth:+.2} | {} | {} |",
            p.load,
            p.name,
            p.cpu_pct_core,
            rss.first().copied().unwrap_or_default(),
            rss.last().copied().unwrap_or_default(),
            p.received,
            p.lost,
        );
        let points = (rss.iter().enumerate())
            .map(|(s, &kb)| ((s + 1) as f64, kb as f64 / 1024.0))
            .collect();
        self.series
            .push((format!("{} {}", p.load, p.label), points));
        if self.worst.as_ref().is_none_or(|(w, _)| growth > *w) {
            self.worst = Some((growth, format!("{}, {}", p.load, p.label)));
        }
        Some(growth)
    }
}

fn report(ran: &[Ran], rclcpp: &[RclcppRan], notes: Vec<String>) -> Part {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "**Long runs**\n\n| load | process | CPU, % core (both) | RSS at the start, kB | at the \
         end, kB | growth, % | received or answered | lost |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut ours = Rows::default();
    for r in ran {
        let load = r.load.name();
        numbers.insert(format!("long.{load}.cpu_pct_core"), r.measured.cpu_pct_core);
        numbers.insert(
            format!("long.{load}.answered"),
            r.measured.tally.measured as f64,
        );
        let mut most: Option<f64> = None;
        for process in &r.measured.processes {
            let Some(growth) = ours.add(Process {
                load,
                name: process.name.clone(),
                label: process.name.clone(),
                cpu_pct_core: r.measured.cpu_pct_core,
                rss_kb_per_s: &process.rss_kb_per_s,
                received: r.measured.tally.measured,
                lost: r.measured.tally.lost,
            }) else {
                continue;
            };
            numbers.insert(
                format!("long.{load}.{}.rss_growth_pct", process.name),
                growth,
            );
            most = Some(most.map_or(growth, |m: f64| m.max(growth)));
        }
        if let Some(most) = most {
            numbers.insert(format!("long.{load}.rss_growth_pct"), most);
        }
    }
    let mut theirs = Rows::default();
    for r in rclcpp {
        let (load, executor) = (r.load.name(), r.executor.name());
        numbers.insert(
            format!("long.{load}.{executor}.cpu_pct_core"),
            r.run.cpu_pct_core,
        );
        if let Some(growth) = theirs.add(Process {
            load,
            name: format!("{executor} (one process)"),
            label: executor.to_string(),
            cpu_pct_core: r.run.cpu_pct_core,
            rss_kb_per_s: &r.run.rss_kb_per_s,
            received: r.run.received,
            lost: r.run.lost,
        }) {
            numbers.insert(format!("long.{load}.{executor}.rss_growth_pct"), growth);
        }
    }
    table.push_str(&ours.table);
    table.push_str(&theirs.table);
    table.push('\n');
    let mut series = ours.series;
    series.extend(theirs.series);
    let mut verdict = Vec::new();
    if let Some((growth, which)) = ours.worst {
        verdict.push(format!(
            "long runs: {}: largest RSS growth {growth:+.2}% ({which}; target < {TARGET_PCT}%)",
            match growth < TARGET_PCT {
                true => "met",
                false => "not met",
            }
        ));
    }
    if let Some((growth, which)) = theirs.worst {
        verdict.push(format!(
            "long runs on rclcpp: largest RSS growth {growth:+.2}% ({which}); the seed found \
             growth in every rclcpp executor: {}",
            match growth < TARGET_PCT {
                true => "not reproduced here",
                false => "reproduced",
            }
        ));
    }
    Part {
        numbers,
        table,
        notes,
        verdict,
        figures: vec![Figure {
            file: "events-long-rss.svg".into(),
            title: "long runs: each process's resident set over time".into(),
            svg: plot::xy(
                "long runs: resident set (MB) over the window",
                "seconds into the window",
                "MB",
                &series,
            ),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::ProcessResult;
    use crate::seeds::events_suite::components::Tally;

    #[test]
    fn the_worst_growth_of_any_process_is_judged_against_one_percent() {
        let process = |name: &str, rss_kb_per_s: Vec<u64>| ProcessResult {
            name: name.into(),
            rss_kb_per_s,
            ..Default::default()
        };
        let run = |load, processes| Ran {
            load,
            measured: placed::Measured {
                cpu_pct_core: 1.0,
                processes,
                tally: Tally::default(),
                overload: Vec::new(),
            },
        };
        let part = report(
            &[
                run(
                    Load::Service,
                    vec![
                        process("serving", vec![1000, 1000, 1005]),
                        process("measuring", vec![2000, 2000, 2000]),
                    ],
                ),
                run(Load::Action, vec![process("serving", vec![1000, 1020])]),
            ],
            &[RclcppRan {
                load: Load::PubSub(MSG_TYPE),
                executor: RclcppExecutor::Events,
                run: IrobotRun {
                    cpu_pct_core: 2.0,
                    rss_kb_per_s: vec![20_000, 20_100, 20_400],
                    received: 100,
                    lost: 0,
                    mean_ms: 0.1,
                    max_ms: 0.5,
                },
            }],
            Vec::new(),
        );
        assert_eq!(part.numbers["long.service.serving.rss_growth_pct"], 0.5);
        assert_eq!(part.numbers["long.service.rss_growth_pct"], 0.5);
        assert_eq!(part.numbers["long.action.rss_growth_pct"], 2.0);
        assert_eq!(
            part.numbers["long.pubsub.rclcpp-events.rss_growth_pct"],
            2.0
        );
        assert_eq!(
            part.verdict,
            [
                "long runs: not met: largest RSS growth +2.00% (action, serving; target < 1%)",
                "long runs on rclcpp: largest RSS growth +2.00% (pubsub, rclcpp-events); the \
                 seed found growth in every rclcpp executor: reproduced"
            ]
        );
        assert!(
            part.table
                .contains("| action | serving | 1.00 | 1000 | 1020 | +2.00 | 0 | 0 |")
        );
        assert!(part.table.contains(
            "| pubsub | rclcpp-events (one process) | 2.00 | 20000 | 20400 | +2.00 | 100 | 0 |"
        ));
        assert_eq!(part.figures[0].svg.matches("<polyline").count(), 4);
    }
}
