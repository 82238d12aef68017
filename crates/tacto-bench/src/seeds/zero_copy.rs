//! *zero-copy*: RTI's zero-copy latency against the default ROS 2 path, as `tacto bench
//! payload` measures it between two processes: DDS (the default path), shared memory with a
//! serialized type (`shm`), and a flat type read in place (`flat`), each as a ratio to DDS at
//! the seed's small and large payloads.
//!
//! The DDS path joins the domain of `ROS_DOMAIN_ID` (0 if unset), found by discovery as any ROS
//! 2 node; run it on a domain no one else uses.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path as FilePath;

use super::{Figure, Outcome, Ran, Scale, Section, SectionReport};
use crate::interrupt::Interrupt;
use crate::payload::{self, Path, PayloadError, PayloadReport, bytes};

/// The seed's small and large payloads: 64 B and 4 MiB.
pub const SIZES: [usize; 2] = [64, 4 << 20];
/// The reductions the seed reports at [`SIZES`], %.
const SEED_REDUCTION_PCT: [f64; 2] = [90.0, 98.0];
/// The paths, DDS first: the others are compared with it.
const PATHS: [Path; 3] = [Path::Dds, Path::Shm, Path::Flat];

const SEED: &str = "RTI's zero-copy results: latency down 90% for small and 98% for large \
                    payloads against the default ROS 2 path (measured on RTI's hardware, \
                    not this machine).";

/// Runs the three paths at the two sizes, after checking this machine has shared memory and
/// can join a DDS domain.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> Ran {
    if let Some(reason) = cannot_run() {
        return Ran::Report(SectionReport::without_figures(
            Section::ZeroCopy,
            SEED,
            Outcome::Skipped { reason },
        ));
    }
    let count = scale.pick(1000, 50);
    match payload::run(&PATHS, &SIZES, count, interrupt) {
        Ok(report) if report.interrupted => Ran::Interrupted,
        Ok(report) => Ran::Report(section(&report)),
        Err(PayloadError::Interrupted) => Ran::Interrupted,
        Err(e) => Ran::Report(SectionReport::without_figures(
            Section::ZeroCopy,
            SEED,
            Outcome::Failed {
                reason: e.to_string(),
            },
        )),
    }
}

/// Why the paths cannot run here, if they cannot: no shared memory, or no DDS.
fn cannot_run() -> Option<String> {
    let shm = FilePath::new("/dev/shm");
    let probe = shm.join(format!(".tacto-seeds-{}", std::process::id()));
    if let Err(e) = std::fs::write(&probe, b"") {
        return Some(format!(
            "no shared memory: {} cannot be written ({e})",
            shm.display()
        ));
    }
    // Written just above: nothing to report if it is gone already.
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = tacto_dds::Participant::from_env() {
        return Some(format!("DDS cannot start here: {e}"));
    }
    None
}

/// The section from the payload bench's cells.
fn section(report: &PayloadReport) -> SectionReport {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "| payload | path | p50, µs | p99, µs | max, µs | CPU per message, µs | p50 against dds | \
         seed's |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut verdict = Vec::new();
    for (size, seed_pct) in SIZES.into_iter().zip(SEED_REDUCTION_PCT) {
        let dds = report.cell(Path::Dds, size);
        for path in PATHS {
            let Some(cell) = report.cell(path, size) else {
                continue;
            };
            let key = format!("{}.{size}", path.name());
            numbers.insert(format!("{key}.p50_us"), cell.p50_us);
            numbers.insert(format!("{key}.p99_us"), cell.p99_us);
            numbers.insert(format!("{key}.max_us"), cell.max_us);
            numbers.insert(format!("{key}.cpu_us"), cell.cpu_us);
            let reduction = match (path, dds) {
                (Path::Dds, _) | (_, None) => None,
                (_, Some(d)) if d.p50_us > 0.0 => Some((1.0 - cell.p50_us / d.p50_us) * 100.0),
                _ => None,
            };
            if let Some(r) = reduction {
                numbers.insert(format!("{key}.reduction_pct"), r);
            }
            let _ = writeln!(
                table,
                "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} |",
                bytes(size),
                path.name(),
                cell.p50_us,
                cell.p99_us,
                cell.max_us,
                cell.cpu_us,
                reduction.map_or_else(|| "-".into(), |r| format!("−{r:.1}%")),
                match path {
                    Path::Flat => format!("−{seed_pct}%"),
                    _ => "-".into(),
                }
            );
            if path == Path::Flat
                && let Some(r) = reduction
            {
                verdict.push(format!(
                    "{} at {}: −{r:.1}% (seed −{seed_pct}%)",
                    match r >= seed_pct {
                        true => "reproduced",
                        false => "not reproduced",
                    },
                    bytes(size)
                ));
            }
        }
    }
    let verdict = match verdict.is_empty() {
        true => "not measured: the flat or the DDS path did not run".into(),
        false => format!("flat read in place against DDS: {}", verdict.join("; ")),
    };
    SectionReport {
        section: Section::ZeroCopy,
        outcome: Outcome::Ran,
        seed: SEED.into(),
        verdict,
        numbers,
        table,
        notes: vec![format!(
            "{} messages per path and size, one in flight, each acknowledged before the next \
             (`tacto bench payload --path dds,shm,flat --sizes 64,4M`); the reduction is of \
             the median one-way latency, wake-up included.",
            report.count
        )],
        figures: vec![Figure {
            file: "zero-copy-latency.svg".into(),
            title: "one-way latency by payload and path, log axes".into(),
            svg: payload::svg(report),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Cell;

    #[test]
    fn the_flat_path_is_judged_against_the_seeds_reduction_at_each_size() {
        let cell = |path, size, p50_us| Cell {
            path,
            size,
            n: 10,
            p50_us,
            p99_us: p50_us,
            max_us: p50_us,
            cpu_us: 1.0,
        };
        let report = PayloadReport {
            count: 10,
            cells: vec![
                cell(Path::Dds, 64, 100.0),
                cell(Path::Flat, 64, 5.0),
                cell(Path::Dds, 4 << 20, 10_000.0),
                cell(Path::Flat, 4 << 20, 500.0),
            ],
            interrupted: false,
        };
        let section = section(&report);
        assert_eq!(section.numbers["flat.64.reduction_pct"], 95.0);
        assert_eq!(section.numbers["flat.4194304.reduction_pct"], 95.0);
        assert!(
            section.verdict.contains("reproduced at 64 B: −95.0%")
                && section
                    .verdict
                    .contains("not reproduced at 4 MiB: −95.0% (seed −98%)"),
            "{}",
            section.verdict
        );
    }
}
