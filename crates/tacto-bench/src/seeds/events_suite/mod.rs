//! *events-executor*: the ROS 2 events-executor benchmark suite (rclcpp's EventsExecutor against
//! the other executors, on iRobot's ros2-performance), whole, on tacto's executors and
//! transports, each part comparing within one run:
//!
//! | part | what runs | file |
//! |---|---|---|
//! | pub/sub in one process | a publisher every 10 ms and a subscriber of ros2-performance's `stamped10b` … `stamped4mb`, every executor; with `--rclcpp`, `irobot_benchmark` on the same topology file beside it, alternating | [`one_process`] |
//! | ros2-performance topologies | `mont_blanc` and `sierra_nevada` on tacto's executors and, through `irobot_benchmark`, rclcpp's (only with `--rclcpp`) | [`topologies`] |
//! | pub/sub in two processes | the same, publisher and subscriber in a process each, over shared memory and over DDS | [`two_processes`] |
//! | services and actions | an AddTwoInts call every 10 ms, a Fibonacci goal every 100 ms: round trips, in one process and in two (shared memory, DDS); with `--rclcpp`, rclcpp's services in one process through `irobot_benchmark` | [`round_trips`] |
//! | long runs | pub/sub, services and actions in two processes for 10 minutes each, resident set once a second; with `--rclcpp`, rclcpp's pub/sub and services as long | [`long_runs`] |
//! | memory scaling | RSS against 1 to 100 nodes (and as many topics) in one process | [`memory_scaling`] |
//!
//! The one-process pub/sub, the topologies and memory scaling are topology files that `tacto
//! bench` runs on each executor; every other case is a launch file of the suite's
//! [components]: the nodes are placed in one process or two, on one executor and transport, as
//! a user's nodes are ([`placed`]). A part that cannot run here (DDS without a
//! network namespace, rclcpp without `--rclcpp`) is reported skipped with the reason in the
//! section's notes (`<part>: skipped: <reason>`); one that fails, with its error
//! (`<part>: failed: <reason>`); the others still run.

pub(super) mod child;
mod components;
mod long_runs;
mod memory_scaling;
mod one_process;
pub(super) mod placed;
mod round_trips;
mod topologies;
mod two_processes;

use std::collections::BTreeMap;
use std::path::Path;

use super::irobot::Irobot;
use super::{Figure, Outcome, Ran, Scale, Section, SectionReport};
use crate::result::Distribution;
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

const SEED: &str = "The ROS 2 events-executor benchmark suite (rclcpp's EventsExecutor \
                    against its other executors, on iRobot's ros2-performance): CPU and \
                    latency by payload for pub/sub in one and several processes, services, \
                    actions, 10-minute runs with memory (it found memory growing in every \
                    rclcpp executor), and memory scaling, measured on an x86 developer laptop, \
                    not this machine; its suite is not public and its figures are read from \
                    plots, so none are quoted as numbers here.";

/// What one part of the suite adds to the section.
#[derive(Debug, Default)]
struct Part {
    /// Its figures by stable name.
    numbers: BTreeMap<String, f64>,
    /// Its table, Markdown, under a bold title.
    table: String,
    /// What the reader should know, its skips and failures among them.
    notes: Vec<String>,
    /// Its plots.
    figures: Vec<Figure>,
    /// Its findings, for the section's verdict.
    verdict: Vec<String>,
}

/// A part's end: its figures, or a stop.
enum PartRan {
    Part(Part),
    Interrupted,
}

/// Runs every part of the suite; `rclcpp` is `--rclcpp DIR`.
pub(super) fn run(scale: Scale, rclcpp: Option<&Path>, interrupt: &Interrupt) -> Ran {
    let irobot = match rclcpp.map(Irobot::find) {
        None => Err("no --rclcpp DIR given".to_owned()),
        Some(found) => found,
    };
    let parts: [(&str, &dyn Fn() -> PartRan); 6] = [
        ("pub/sub in one process", &|| {
            one_process::run(scale, irobot.as_ref(), interrupt)
        }),
        ("ros2-performance topologies beside rclcpp", &|| {
            topologies::run(scale, irobot.as_ref(), interrupt)
        }),
        ("pub/sub in two processes", &|| {
            two_processes::run(scale, interrupt)
        }),
        ("services and actions", &|| {
            round_trips::run(scale, irobot.as_ref(), interrupt)
        }),
        ("long runs", &|| {
            long_runs::run(scale, irobot.as_ref(), interrupt)
        }),
        ("memory scaling", &|| memory_scaling::run(scale, interrupt)),
    ];
    let mut section = SectionReport {
        section: Section::EventsExecutor,
        outcome: Outcome::Ran,
        seed: SEED.into(),
        verdict: String::new(),
        numbers: BTreeMap::new(),
        table: String::new(),
        notes: Vec::new(),
        figures: Vec::new(),
    };
    let mut verdict =
        vec!["not comparable with the seed's figures (not published as numbers)".to_owned()];
    for (i, (name, part)) in parts.iter().enumerate() {
        eprintln!("  part {}/{}: {name}", i + 1, parts.len());
        let part = match part() {
            PartRan::Part(part) => part,
            PartRan::Interrupted => return Ran::Interrupted,
        };
        section.numbers.extend(part.numbers);
        section.table += &part.table;
        section.notes.extend(part.notes);
        section.figures.extend(part.figures);
        verdict.extend(part.verdict);
    }
    if section.numbers.is_empty() {
        section.outcome = Outcome::Failed {
            reason: section.notes.join("; "),
        };
    }
    section.verdict = verdict.join("; ");
    Ran::Report(section)
}

/// The executors a launch file can place the suite's nodes on: every one but `prioritized`
/// (a layout of several threads); with `--quick`, wait-set and events.
fn placed_executors(scale: Scale) -> Vec<ExecutorKind> {
    match scale.quick {
        true => vec![ExecutorKind::WaitSet, ExecutorKind::Events],
        false => (ExecutorKind::ALL.into_iter())
            .filter(|&e| placed::placeable(e))
            .collect(),
    }
}

/// Adds `d`'s mean, p99 and max as `{key}.{what}_mean_ms` and so on.
fn insert_distribution(
    numbers: &mut BTreeMap<String, f64>,
    key: &str,
    what: &str,
    d: &Distribution,
) {
    numbers.insert(format!("{key}.{what}_mean_ms"), d.mean);
    numbers.insert(format!("{key}.{what}_p99_ms"), d.p99);
    numbers.insert(format!("{key}.{what}_max_ms"), d.max);
}

/// A figure in ms for a table, `-` if none.
fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"))
}

/// Growth from the first to the last of `values`, %; `None` without two values.
fn growth_pct(values: &[u64]) -> Option<f64> {
    match (values.first(), values.last()) {
        (Some(&first), Some(&last)) if values.len() >= 2 && first > 0 => {
            Some((last as f64 - first as f64) / first as f64 * 100.0)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_is_from_the_first_reading_to_the_last() {
        assert_eq!(growth_pct(&[1000, 1500, 1010]), Some(1.0));
        assert_eq!(growth_pct(&[1000]), None);
        assert_eq!(growth_pct(&[]), None);
    }
}
