//! *zero-copy*: RTI's zero-copy latency against the default ROS 2 path, as `tacto bench
//! payload` measures it between two processes: DDS (the default path), shared memory with a
//! serialized type (`shm`), and a flat type read in place (`flat`), each as a ratio to DDS at
//! the seed's small and large payloads.
//!
//! The three paths run in one child (`tacto bench payload --path dds,shm,flat`) inside a
//! network namespace of its own ([`isolation`](super::isolation)): DDS discovery there reaches
//! no one else, and nothing outside hears the bench. Shared memory is the host's, as the flat
//! path needs. Where no namespace can be made (no `unshare`, user namespaces disabled), `shm`
//! and `flat` run in this process and the ratios to DDS are reported as not measured, with
//! the reason.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path as FilePath;
use std::process::Stdio;

use super::isolation::Network;
use super::{Figure, Outcome, Ran, Scale, Section, SectionReport};
use crate::payload::{self, Path, PayloadError, PayloadReport, bytes};
use crate::run::POLL;
use tacto_launch::interrupt::Interrupt;

/// The seed's small and large payloads: 64 B and 4 MiB.
pub const SIZES: [usize; 2] = [64, 4 << 20];
/// The reductions the seed reports at [`SIZES`], %.
const SEED_REDUCTION_PCT: [f64; 2] = [90.0, 98.0];
/// The paths, DDS first: the others are compared with it. `raw-loan` (raw iceoryx2, the
/// message built in its loaned slot) is the floor of `flat` on this machine: where the seed's
/// reduction is out of reach of raw iceoryx2 itself, the verdict says so.
const PATHS: [Path; 4] = [Path::Dds, Path::Shm, Path::RawLoan, Path::Flat];

const SEED: &str = "RTI's zero-copy results: latency down 90% for small and 98% for large \
                    payloads against the default ROS 2 path (measured on RTI's hardware, \
                    not this machine).";

/// Runs the three paths at the two sizes: in a network namespace of their own, or, without
/// one, the shared-memory paths alone.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> Ran {
    if let Some(reason) = no_shared_memory() {
        return Ran::Report(SectionReport::without_figures(
            Section::ZeroCopy,
            SEED,
            Outcome::Skipped { reason },
        ));
    }
    let count = scale.pick(1000, 50);
    let failed = |reason: String| {
        Ran::Report(SectionReport::without_figures(
            Section::ZeroCopy,
            SEED,
            Outcome::Failed { reason },
        ))
    };
    let (report, dds_missing) = match Network::here().refused() {
        None => match in_namespace(count, interrupt) {
            Ok(Some(report)) => (report, None),
            Ok(None) => return Ran::Interrupted,
            Err(reason) => return failed(reason),
        },
        Some(reason) => match payload::run(&PATHS[1..], &SIZES, count, interrupt) {
            Ok(report) => (report, Some(reason.to_owned())),
            Err(PayloadError::Interrupted) => return Ran::Interrupted,
            Err(e) => return failed(e.to_string()),
        },
    };
    if report.interrupted {
        return Ran::Interrupted;
    }
    let mut section = section(&report);
    if let Some(reason) = dds_missing {
        section.verdict = format!("not measured against DDS: {reason}");
        section.notes.push(format!(
            "The dds path did not run: {reason}. It runs in a network namespace of its own, so \
             that its discovery reaches no other ROS 2 node."
        ));
    }
    Ran::Report(section)
}

/// Why this machine has no shared memory for the bench, if it has none.
fn no_shared_memory() -> Option<String> {
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
    None
}

/// `tacto bench payload` over the three paths in a network namespace; `None` if a signal
/// stopped it.
fn in_namespace(count: usize, interrupt: &Interrupt) -> Result<Option<PayloadReport>, String> {
    let program = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let json =
        std::env::temp_dir().join(format!("tacto-seeds-payload-{}.json", std::process::id()));
    let paths: Vec<&str> = PATHS.iter().map(|p| p.name()).collect();
    let sizes: Vec<String> = SIZES.iter().map(usize::to_string).collect();
    let mut child = (Network::here().command(&program, ["bench", "payload"]))
        .ok_or("no network namespace")?
        .args(["--path", &paths.join(",")])
        .args(["--sizes", &sizes.join(",")])
        .args(["--count", &count.to_string()])
        .arg("--json")
        .arg(&json)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the payload bench in a namespace: {e}"))?;
    // Its stderr is its progress, a line per path and size, and its error if it fails.
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut pipe, &mut text);
            text
        })
    });
    let status = loop {
        if interrupt.requested() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&json);
            return Ok(None);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                interrupt.sleep(POLL);
            }
            Err(e) => return Err(format!("waiting for the payload bench: {e}")),
        }
    };
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    let read = std::fs::read_to_string(&json);
    let _ = std::fs::remove_file(&json);
    if !status.success() {
        return Err(format!(
            "the payload bench failed ({status}): {}",
            stderr.trim().lines().last().unwrap_or_default()
        ));
    }
    let text = read.map_err(|e| format!("the payload bench wrote no results: {e}"))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("the payload bench's results do not read: {e}"))
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
        let reduction_of = |cell: &payload::Cell| match dds {
            Some(d) if d.p50_us > 0.0 => Some((1.0 - cell.p50_us / d.p50_us) * 100.0),
            _ => None,
        };
        let floor = (report.cell(Path::RawLoan, size)).and_then(reduction_of);
        for path in PATHS {
            let Some(cell) = report.cell(path, size) else {
                continue;
            };
            let key = format!("{}.{size}", path.name());
            numbers.insert(format!("{key}.p50_us"), cell.p50_us);
            numbers.insert(format!("{key}.p99_us"), cell.p99_us);
            numbers.insert(format!("{key}.max_us"), cell.max_us);
            numbers.insert(format!("{key}.cpu_us"), cell.cpu_us);
            let reduction = match path {
                Path::Dds => None,
                _ => reduction_of(cell),
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
                reduction.map_or_else(|| "-".into(), change),
                match path {
                    Path::Flat => format!("−{seed_pct}%"),
                    _ => "-".into(),
                }
            );
            if path == Path::Flat
                && let Some(r) = reduction
            {
                let mut said = format!(
                    "{} at {}: {} (seed −{seed_pct}%)",
                    match r >= seed_pct {
                        true => "reproduced",
                        false => "not reproduced",
                    },
                    bytes(size),
                    change(r)
                );
                if let Some(f) = floor.filter(|&f| r < seed_pct && f < seed_pct) {
                    let _ = write!(
                        said,
                        ", out of reach here: raw iceoryx2's own loan (raw-loan) is {}",
                        change(f)
                    );
                }
                verdict.push(said);
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
             (`tacto bench payload --path dds,shm,raw-loan,flat --sizes 64,4M`, in a network \
             namespace of its own); the reduction is of the median one-way latency, wake-up \
             included. raw-loan is raw iceoryx2 with the message built in its loaned slot, no \
             tacto: the floor of the flat path on this machine.",
            report.count
        )],
        figures: vec![Figure {
            file: "zero-copy-latency.svg".into(),
            title: "one-way latency by payload and path, log axes".into(),
            svg: payload::svg(report),
        }],
    }
}

/// A reduction in %, as a signed change: −95.0% (lower), +21.6% (higher than DDS).
fn change(reduction: f64) -> String {
    match reduction >= 0.0 {
        true => format!("−{reduction:.1}%"),
        false => format!("+{:.1}%", -reduction),
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
                cell(Path::RawLoan, 4 << 20, 600.0),
                cell(Path::Shm, 64, 120.0),
                cell(Path::Dds, 4 << 20, 10_000.0),
                cell(Path::Flat, 4 << 20, 500.0),
            ],
            interrupted: false,
        };
        let section = section(&report);
        assert_eq!(section.numbers["flat.64.reduction_pct"], 95.0);
        assert_eq!(section.numbers["flat.4194304.reduction_pct"], 95.0);
        assert!(
            section.table.contains("| 64 B | shm | 120.0 |") && section.table.contains("+20.0%"),
            "a path slower than DDS reads as an increase: {}",
            section.table
        );
        assert!(
            section.verdict.contains("reproduced at 64 B: −95.0%")
                && section.verdict.contains(
                    "not reproduced at 4 MiB: −95.0% (seed −98%), out of reach here: raw \
                         iceoryx2's own loan (raw-loan) is −94.0%"
                ),
            "{}",
            section.verdict
        );
    }
}
