//! Pub/sub by payload in one process: one publisher node and one subscriber node,
//! ros2-performance's `stampedNNN` message types from 10 B to 4 MiB, CPU and latency (mean,
//! p99, max) per executor and payload, and the resident set's growth over each run.
//!
//! Each case is a ros2-performance topology file written for the run (the format `tacto bench`
//! reads) and run as `tacto bench FILE.json` runs it: each executor in a process of its own.
//! With `--rclcpp DIR`, rclcpp's own benchmark program runs the same file after tacto's
//! executors at each payload, on its single-threaded and events executors (see
//! [`irobot`](crate::seeds::irobot)): extra rows, alternating with tacto's payload by payload.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use super::{Part, PartRan, insert_distribution, ms};
use crate::result::RunResult;
use crate::run::{RunError, run_in_child};
use crate::seeds::irobot::{Irobot, IrobotRun, RclcppExecutor};
use crate::seeds::{Figure, Scale, plot};
use crate::system::RunConfig;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// ros2-performance's message types of the suite's sizes: its name and payload bytes.
pub(super) const PAYLOADS: [(&str, u64); 7] = [
    ("stamped10b", 10),
    ("stamped100b", 100),
    ("stamped1kb", 1024),
    ("stamped10kb", 10240),
    ("stamped100kb", 102_400),
    ("stamped1mb", 1_048_576),
    ("stamped4mb", 4_194_304),
];
/// The quick run's: the smallest, a middle one, the largest.
const QUICK_PAYLOADS: [usize; 3] = [0, 3, 6];
/// The publisher's period.
const PERIOD_MS: u64 = 10;

/// The topology file of one pub/sub case: a publisher of `msg_type` every [`PERIOD_MS`], one
/// subscriber.
pub(super) fn topology(msg_type: &str) -> String {
    format!(
        r#"{{"nodes": [
  {{"node_name": "publisher",
   "publishers": [{{"topic_name": "payload", "msg_type": "{msg_type}", "period_ms": {PERIOD_MS}}}]}},
  {{"node_name": "subscriber",
   "subscribers": [{{"topic_name": "payload", "msg_type": "{msg_type}"}}]}}
]}}
"#
    )
}

/// One executor at one payload.
struct Case {
    executor: ExecutorKind,
    bytes: u64,
    result: RunResult,
}

/// One rclcpp executor at one payload.
struct RclcppCase {
    executor: RclcppExecutor,
    bytes: u64,
    run: IrobotRun,
}

/// Runs every payload on every executor, and on rclcpp's if `irobot` is found.
pub(super) fn run(
    scale: Scale,
    irobot: Result<&Irobot, &String>,
    interrupt: &Interrupt,
) -> PartRan {
    let warmup = Duration::from_secs_f64(scale.pick(2.0, 0.5));
    let duration = Duration::from_secs_f64(scale.pick(10.0, 1.0));
    let payloads: Vec<(&str, u64)> = match scale.quick {
        true => QUICK_PAYLOADS.iter().map(|&i| PAYLOADS[i]).collect(),
        false => PAYLOADS.to_vec(),
    };
    let total = payloads.len() * ExecutorKind::ALL.len();
    let mut cases = Vec::new();
    let mut rclcpp = Vec::new();
    let mut errors = Vec::new();
    let mut done = 0;
    for (msg_type, bytes) in &payloads {
        let file = topology_file(msg_type);
        if let Err(e) = std::fs::write(&file, topology(msg_type)) {
            errors.push(format!("cannot write {}: {e}", file.display()));
            continue;
        }
        let path = file.to_string_lossy().into_owned();
        for executor in ExecutorKind::ALL {
            done += 1;
            let config = RunConfig {
                executor,
                crunch: 0,
                warmup,
                duration,
                ros_graph: false,
                node_parameters: 0,
            };
            let label = format!("{msg_type} {done}/{total}");
            let after = (warmup + duration) * (total - done) as u32;
            match run_in_child(&path, &config, &label, after, interrupt) {
                Ok(result) => cases.push(Case {
                    executor,
                    bytes: *bytes,
                    result,
                }),
                Err(RunError::Interrupted { .. }) => {
                    let _ = std::fs::remove_file(&file);
                    return PartRan::Interrupted;
                }
                Err(e) => errors.push(format!("{msg_type} on {executor}: {e}")),
            }
        }
        // Written above for these runs only.
        let _ = std::fs::remove_file(&file);
        let Ok(irobot) = irobot else { continue };
        // Whole seconds: the benchmark's -t.
        let seconds = (warmup + duration).as_secs_f64().ceil() as u64;
        for executor in RclcppExecutor::ALL {
            eprintln!("[{msg_type}] {}", executor.name());
            let name = format!("pubsub_{msg_type}");
            match irobot.run(
                &name,
                &topology(msg_type),
                executor,
                seconds,
                warmup,
                interrupt,
            ) {
                Ok(Some(run)) => rclcpp.push(RclcppCase {
                    executor,
                    bytes: *bytes,
                    run,
                }),
                Ok(None) => return PartRan::Interrupted,
                Err(e) => errors.push(format!("{msg_type} on {}: {e}", executor.name())),
            }
        }
    }
    let mut notes = vec![format!(
        "Pub/sub in one process: one publisher every {PERIOD_MS} ms and one subscriber, on \
         each executor in a process of its own: {} s measured after {} s of warm-up per run. \
         The seed's rates are not given with its plots: {PERIOD_MS} ms is ros2-performance's \
         usual period. Latency is publish to take, from the stamp the message carries.",
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    match irobot {
        Ok(_) => notes.push(format!(
            "rclcpp rows: irobot_benchmark (ros2-performance) on the same topology file, \
             `-x 1` (SingleThreadedExecutor) and `-x 3` (EventsExecutor), `--ipc on`, run \
             right after tacto's executors at each payload, in a network namespace of its \
             own; CPU read from /proc over the same window after the same warm-up; its mean \
             and max latency are over its whole run ({} s, warm-up included), it has no p99.",
            (warmup + duration).as_secs_f64().ceil()
        )),
        Err(reason) => notes.push(format!("rclcpp beside tacto: skipped: {reason}")),
    }
    notes.extend(
        errors
            .iter()
            .map(|e| format!("pub/sub in one process: failed: {e}")),
    );
    if cases.is_empty() {
        return PartRan::Part(Part {
            notes,
            ..Part::default()
        });
    }
    PartRan::Part(report(&cases, &rclcpp, notes))
}

/// Where a case's topology file is written.
fn topology_file(msg_type: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "tacto-seeds-pubsub-{}-{msg_type}.json",
        std::process::id()
    ))
}

/// The part from the cases that ran.
fn report(cases: &[Case], rclcpp: &[RclcppCase], mut notes: Vec<String>) -> Part {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "**Pub/sub in one process**\n\n| payload | executor | CPU, % core | latency mean, ms | \
         p99 | max | lost | RSS growth over the run, % |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut payloads: Vec<u64> = cases.iter().map(|c| c.bytes).collect();
    payloads.dedup();
    for &bytes in &payloads {
        for case in cases.iter().filter(|c| c.bytes == bytes) {
            let r = &case.result;
            let key = format!("{}.{}", case.executor, case.bytes);
            let latency = r.topics.first().map(|t| &t.latency_ms).filter(|l| l.n > 0);
            let growth = match r.rss_start_kb {
                0 => 0.0,
                start => (r.rss_end_kb as f64 - start as f64) / start as f64 * 100.0,
            };
            numbers.insert(format!("{key}.cpu_pct_core"), r.cpu_pct_core);
            numbers.insert(format!("{key}.rss_growth_pct"), growth);
            if let Some(l) = latency {
                insert_distribution(&mut numbers, &key, "latency", l);
            }
            if r.overloaded {
                notes.push(format!(
                    "{} B on {} fell behind ({}): not comparable",
                    case.bytes,
                    case.executor,
                    r.overload.join("; ")
                ));
            }
            let _ = writeln!(
                table,
                "| {} | {} | {:.2} | {} | {} | {} | {} | {growth:+.2} |",
                crate::payload::bytes(case.bytes as usize),
                case.executor,
                r.cpu_pct_core,
                ms(latency.map(|l| l.mean)),
                ms(latency.map(|l| l.p99)),
                ms(latency.map(|l| l.max)),
                r.drops_total,
            );
        }
        for case in rclcpp.iter().filter(|c| c.bytes == bytes) {
            let key = format!("{}.{}", case.executor.name(), case.bytes);
            numbers.insert(format!("{key}.cpu_pct_core"), case.run.cpu_pct_core);
            numbers.insert(format!("{key}.latency_mean_ms"), case.run.mean_ms);
            numbers.insert(format!("{key}.latency_max_ms"), case.run.max_ms);
            let _ = writeln!(
                table,
                "| {} | {} | {:.2} | {:.3} | - | {:.3} | {} | - |",
                crate::payload::bytes(case.bytes as usize),
                case.executor.name(),
                case.run.cpu_pct_core,
                case.run.mean_ms,
                case.run.max_ms,
                case.run.lost,
            );
        }
    }
    table.push('\n');
    let by_executor = |pick: &dyn Fn(&Case) -> Option<f64>,
                       rclcpp_pick: &dyn Fn(&IrobotRun) -> f64|
     -> Vec<(String, Vec<(f64, f64)>)> {
        let tacto = (ExecutorKind::ALL.into_iter()).map(|executor| {
            let points = (cases.iter())
                .filter(|c| c.executor == executor)
                .filter_map(|c| Some((c.bytes as f64, pick(c)?)))
                .collect();
            (executor.name().to_owned(), points)
        });
        let theirs = RclcppExecutor::ALL.into_iter().map(|executor| {
            let points = (rclcpp.iter())
                .filter(|c| c.executor == executor)
                .map(|c| (c.bytes as f64, rclcpp_pick(&c.run)))
                .collect();
            (executor.name().to_owned(), points)
        });
        (tacto.chain(theirs))
            .filter(|(_, points): &(String, Vec<(f64, f64)>)| !points.is_empty())
            .collect()
    };
    let cpu = by_executor(&|c| Some(c.result.cpu_pct_core), &|r| r.cpu_pct_core);
    let latency = by_executor(
        &|c| {
            (c.result.topics.first())
                .filter(|t| t.latency_ms.n > 0)
                .map(|t| t.latency_ms.mean)
        },
        &|r| r.mean_ms,
    );
    // The suite's question: which executor is cheapest at each payload; and, with rclcpp,
    // tacto's cheapest against rclcpp's.
    let cheapest: Vec<String> = (payloads.iter())
        .filter_map(|&bytes| {
            let best = (cases.iter())
                .filter(|c| c.bytes == bytes)
                .min_by(|a, b| a.result.cpu_pct_core.total_cmp(&b.result.cpu_pct_core))?;
            // A CPU read as 0 (a run too short for the clock) is no ratio.
            let theirs = (rclcpp.iter())
                .filter(|c| c.bytes == bytes && c.run.cpu_pct_core > 0.0)
                .min_by(|a, b| a.run.cpu_pct_core.total_cmp(&b.run.cpu_pct_core));
            let against = theirs.map_or_else(String::new, |theirs| {
                format!(
                    " ({:.2}× the CPU of {})",
                    best.result.cpu_pct_core / theirs.run.cpu_pct_core,
                    theirs.executor.name()
                )
            });
            Some(format!(
                "{} at {}{against}",
                best.executor,
                crate::payload::bytes(bytes as usize)
            ))
        })
        .collect();
    let most_growth = (numbers.iter())
        .filter(|(k, _)| k.ends_with(".rss_growth_pct"))
        .map(|(_, &v)| v)
        .fold(f64::NEG_INFINITY, f64::max);
    let verdict = vec![format!(
        "pub/sub in one process, least CPU: {}; largest RSS growth over a run: \
         {most_growth:+.2}%",
        cheapest.join(", ")
    )];
    Part {
        numbers,
        table,
        notes,
        verdict,
        figures: vec![
            Figure {
                file: "events-pubsub-cpu.svg".into(),
                title: "pub/sub in one process: CPU by payload and executor".into(),
                svg: plot::lines(
                    "pub/sub, one process: CPU (% of one core) by payload",
                    "payload",
                    "%",
                    &cpu,
                ),
            },
            Figure {
                file: "events-pubsub-latency.svg".into(),
                title: "pub/sub in one process: mean latency by payload and executor".into(),
                svg: plot::lines(
                    "pub/sub, one process: mean latency (ms) by payload",
                    "payload",
                    "ms",
                    &latency,
                ),
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Distribution, TopicResult};
    use crate::topology::Topology;

    #[test]
    fn every_payloads_topology_file_is_one_that_bench_reads() {
        for (msg_type, _) in PAYLOADS {
            let file = topology_file(msg_type);
            std::fs::write(&file, topology(msg_type)).unwrap();
            let loaded = Topology::load(file.to_str().unwrap());
            std::fs::remove_file(&file).unwrap();
            assert!(
                matches!(loaded, Ok(Topology::Ros2Performance(_))),
                "{msg_type}: {loaded:?}"
            );
        }
    }

    #[test]
    fn each_case_gives_cpu_latency_and_rss_growth_and_the_cheapest_executor_is_named() {
        let case = |executor, bytes, cpu, rss_end_kb| Case {
            executor,
            bytes,
            result: RunResult {
                cpu_pct_core: cpu,
                rss_start_kb: 1000,
                rss_end_kb,
                topics: vec![TopicResult {
                    latency_ms: Distribution {
                        mean: 0.1,
                        p50: 0.1,
                        p99: 0.2,
                        max: 0.3,
                        n: 100,
                    },
                    ..Default::default()
                }],
                ..Default::default()
            },
        };
        let rclcpp = RclcppCase {
            executor: RclcppExecutor::Events,
            bytes: 10,
            run: IrobotRun {
                cpu_pct_core: 4.0,
                rss_kb_per_s: vec![20_000],
                received: 1000,
                lost: 0,
                mean_ms: 0.05,
                max_ms: 0.2,
            },
        };
        let part = report(
            &[
                case(ExecutorKind::Callback, 10, 2.0, 1000),
                case(ExecutorKind::WaitSet, 10, 1.0, 1020),
            ],
            &[rclcpp],
            Vec::new(),
        );
        assert_eq!(part.numbers["wait-set.10.rss_growth_pct"], 2.0);
        assert_eq!(part.numbers["callback.10.latency_p99_ms"], 0.2);
        assert_eq!(part.numbers["rclcpp-events.10.cpu_pct_core"], 4.0);
        let verdict = part.verdict.join("; ");
        assert!(
            verdict.contains("least CPU: wait-set at 10 B (0.25× the CPU of rclcpp-events)")
                && verdict.contains("+2.00%"),
            "{verdict}"
        );
        assert!(
            (part.table).contains("| 10 B | wait-set | 1.00 | 0.100 | 0.200 | 0.300 |"),
            "{}",
            part.table
        );
        assert!(
            (part.table).contains("| 10 B | rclcpp-events | 4.00 | 0.050 | - | 0.200 | 0 | - |"),
            "{}",
            part.table
        );
        // tacto's executors and rclcpp's, each a line.
        assert_eq!(part.figures[0].svg.matches("<polyline").count(), 3);
    }
}
