//! `tacto bench seeds`: the published experiments behind tacto's execution models, reproduced
//! on tacto's executors and transports in one command, each beside tacto's own baselines
//! measured in the same run.
//!
//! | section | the seed | what runs here |
//! |---|---|---|
//! | `take-from-timer` | Autoware's proposal to `take()` inputs on a timer instead of caching them in callbacks | [`take_from_timer`]: the proposal's node both ways, N copies in one process |
//! | `reference-system` | Apex's wait-set executor with polling subscriptions on the Autoware reference system | `tacto bench reference-system` on every executor, in Apex's table layout; with `--rclcpp DIR`, rclcpp's own executables of it run between them, measured the same way |
//! | `let-nobleo` | the rclc LET executor on nobleo's setup | `tacto bench nobleo` and `nobleo-1` on every executor, and `nobleo` with a process per node over shared memory |
//! | `zero-copy` | RTI's zero-copy latency against the default ROS 2 path | `tacto bench payload` over DDS, shared memory and a flat type read in place, as ratios to DDS |
//! | `events-executor` | the ROS 2 events-executor benchmark suite on ros2-performance | its pub/sub case by payload (10 B to 4 MiB) in one process, every executor |
//!
//! Each section is run, or reported skipped with the reason it cannot run on this machine, or
//! failed with the error; one section's failure does not stop the others. `--quick` shortens
//! every section (fewer copies, shorter windows, fewer messages) so that the whole command
//! runs in CI; its figures show that each section works, not what it measures.
//!
//! # Examples
//! ```
//! use tacto_bench::seeds::{Options, Section, SeedsError};
//!
//! let options = Options::new(true, &["zero-copy".into()], None, None, None).unwrap();
//! assert_eq!(options.sections, [Section::ZeroCopy]);
//! let unknown = Options::new(true, &["jitter".into()], None, None, None).unwrap_err();
//! assert!(matches!(unknown, SeedsError::UnknownSection { .. }));
//! assert!(unknown.to_string().contains("take-from-timer"), "the valid names are listed");
//! ```

mod events_suite;
mod irobot;
mod isolation;
mod let_nobleo;
mod namespaced_bench;
pub mod plot;
mod rclcpp;
mod reference_system;
pub mod take_from_timer;
mod zero_copy;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use tacto_launch::interrupt::Interrupt;

use crate::output::{check_output_dir, check_output_file};

/// One experiment of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// Autoware's take-from-timer proposal.
    TakeFromTimer,
    /// Apex's reference-system figures.
    ReferenceSystem,
    /// The rclc LET executor on nobleo's setup.
    LetNobleo,
    /// RTI's zero-copy latency.
    ZeroCopy,
    /// The events-executor benchmark suite.
    EventsExecutor,
}

impl Section {
    /// Every section, in the order they run and the report lists them.
    pub const ALL: [Section; 5] = [
        Section::TakeFromTimer,
        Section::ReferenceSystem,
        Section::LetNobleo,
        Section::ZeroCopy,
        Section::EventsExecutor,
    ];

    /// The name `--only` takes and the report uses.
    pub fn name(self) -> &'static str {
        match self {
            Section::TakeFromTimer => "take-from-timer",
            Section::ReferenceSystem => "reference-system",
            Section::LetNobleo => "let-nobleo",
            Section::ZeroCopy => "zero-copy",
            Section::EventsExecutor => "events-executor",
        }
    }

    fn names() -> String {
        let names: Vec<&str> = Section::ALL.iter().map(|s| s.name()).collect();
        names.join(", ")
    }
}

/// Why `tacto bench seeds` did not run or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum SeedsError {
    /// `--only` named a section that does not exist.
    #[error("--only: unknown section {name:?} (the sections: {valid})")]
    UnknownSection {
        /// The name given.
        name: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// `--only` was given an empty list.
    #[error("--only: no section named (the sections: {0})")]
    NoSection(String),
    /// An output (`--json`, `--out`) cannot be written, found before anything ran.
    #[error("{option} {}: {reason}", path.display())]
    Output {
        /// The option.
        option: &'static str,
        /// Its path.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `--rclcpp` names no folder.
    #[error("--rclcpp {}: not a folder (it is the install folder of rclcpp Jazzy that ../shared/peers/install-rclcpp.sh makes)", .0.display())]
    Rclcpp(PathBuf),
    /// Writing the results failed after the runs.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS's reason.
        source: io::Error,
    },
    /// Ctrl-C or SIGTERM stopped the command: the sections finished before were printed.
    #[error("interrupted")]
    Interrupted,
    /// Every section ran, but some failed: their errors are in the report.
    #[error("{failed} of {ran} sections failed: {names}")]
    Failed {
        /// How many failed.
        failed: usize,
        /// How many were asked for.
        ran: usize,
        /// Their names.
        names: String,
    },
}

/// What `tacto bench seeds` was asked to do, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Short runs, for CI.
    pub quick: bool,
    /// The sections to run, in [`Section::ALL`]'s order.
    pub sections: Vec<Section>,
    /// Where to write the report as JSON.
    pub json: Option<PathBuf>,
    /// The folder to write the Markdown report and its plots into.
    pub out: Option<PathBuf>,
    /// rclcpp's install folder, for the side-by-side columns.
    pub rclcpp: Option<PathBuf>,
}

impl Options {
    /// Checks the command line: `only` names sections (all when empty), `json` and `out` can be
    /// written (`out` is created), `rclcpp` is a folder. Nothing runs before this succeeds.
    pub fn new(
        quick: bool,
        only: &[String],
        json: Option<PathBuf>,
        out: Option<PathBuf>,
        rclcpp: Option<PathBuf>,
    ) -> Result<Options, SeedsError> {
        let mut sections = Vec::new();
        for name in only {
            let section = (Section::ALL.into_iter())
                .find(|s| s.name() == name.trim())
                .ok_or_else(|| SeedsError::UnknownSection {
                    name: name.clone(),
                    valid: Section::names(),
                })?;
            sections.push(section);
        }
        if !only.is_empty() && sections.is_empty() {
            return Err(SeedsError::NoSection(Section::names()));
        }
        let sections = match sections.is_empty() {
            true => Section::ALL.to_vec(),
            false => (Section::ALL.into_iter())
                .filter(|s| sections.contains(s))
                .collect(),
        };
        if let Some(path) = &json {
            check_output_file(path).map_err(|reason| SeedsError::Output {
                option: "--json",
                path: path.clone(),
                reason,
            })?;
        }
        if let Some(dir) = &out {
            check_output_dir(dir).map_err(|reason| SeedsError::Output {
                option: "--out",
                path: dir.clone(),
                reason,
            })?;
        }
        if let Some(dir) = &rclcpp
            && !dir.is_dir()
        {
            return Err(SeedsError::Rclcpp(dir.clone()));
        }
        Ok(Options {
            quick,
            sections,
            json,
            out,
            rclcpp,
        })
    }
}

/// How a section ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Outcome {
    /// It ran: its figures are in the section.
    Ran,
    /// It cannot run on this machine.
    Skipped {
        /// Why, in a sentence.
        reason: String,
    },
    /// It failed.
    Failed {
        /// The error.
        reason: String,
    },
}

/// A plot of a section, written as its own SVG file beside the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The file's name.
    pub file: String,
    /// What it shows.
    pub title: String,
    /// The SVG text (not in the JSON).
    #[serde(skip)]
    pub svg: String,
}

/// One section's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionReport {
    /// The section.
    pub section: Section,
    /// How it ended.
    pub outcome: Outcome,
    /// The seed's published claim and figures, quoted (measured on its authors' hardware).
    pub seed: String,
    /// One line: reproduced or not, by how much.
    pub verdict: String,
    /// Every figure the section measured, by a stable name (`<row>.<what>`): what `--json`
    /// readers and the CI check read.
    pub numbers: BTreeMap<String, f64>,
    /// The section's table, Markdown.
    pub table: String,
    /// What the reader should know about these figures.
    pub notes: Vec<String>,
    /// Its plots.
    pub figures: Vec<Figure>,
}

impl SectionReport {
    /// A section that did not produce figures: `outcome` says why.
    fn without_figures(section: Section, seed: &str, outcome: Outcome) -> SectionReport {
        let verdict = match &outcome {
            Outcome::Ran => String::new(),
            Outcome::Skipped { reason } => format!("not measured: skipped ({reason})"),
            Outcome::Failed { reason } => format!("not measured: failed ({reason})"),
        };
        SectionReport {
            section,
            outcome,
            seed: seed.to_owned(),
            verdict,
            numbers: BTreeMap::new(),
            table: String::new(),
            notes: Vec::new(),
            figures: Vec::new(),
        }
    }
}

/// A whole `tacto bench seeds` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedsReport {
    /// True if run with `--quick`.
    pub quick: bool,
    /// The machine: CPUs and load averages when the run started and ended.
    pub machine: String,
    /// Whether rclcpp ran beside tacto, and if not, why.
    pub rclcpp: String,
    /// The sections, in the order they ran.
    pub sections: Vec<SectionReport>,
    /// True if Ctrl-C stopped the run: `sections` holds those finished before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// The durations and sizes of one run, full or quick.
#[derive(Debug, Clone, Copy)]
struct Scale {
    quick: bool,
}

impl Scale {
    /// Of `full` and `quick`, the one this run uses.
    fn pick<T>(self, full: T, quick: T) -> T {
        match self.quick {
            true => quick,
            false => full,
        }
    }
}

/// What running a section gives: its report, or a stop.
enum Ran {
    Report(SectionReport),
    Interrupted,
}

/// Runs `options`' sections one after another, printing each section's table on stdout as it
/// finishes, then writes `--json` and `--out`. The error says which sections failed, if any
/// did; the report is written first either way.
pub fn command(options: &Options, interrupt: &Interrupt) -> Result<SeedsReport, SeedsError> {
    let scale = Scale {
        quick: options.quick,
    };
    let started = load_average();
    // Only where --rclcpp says: the peer is never looked for elsewhere.
    let peer = match &options.rclcpp {
        None => Err(rclcpp::NOT_GIVEN.to_owned()),
        Some(dir) => rclcpp::Peer::find(dir),
    };
    let mut report = SeedsReport {
        quick: options.quick,
        machine: String::new(),
        rclcpp: match &peer {
            Err(reason) => format!("not measured: {reason}"),
            Ok(peer) if !options.sections.contains(&Section::ReferenceSystem) => format!(
                "not measured: rclcpp Jazzy is in {}, but only the reference-system section \
                 runs it, and it was not asked for",
                peer.root().display()
            ),
            Ok(peer) => format!(
                "rclcpp Jazzy from {}, in the reference-system section (its notes say what \
                 ran)",
                peer.root().display()
            ),
        },
        sections: Vec::new(),
        interrupted: false,
    };
    for (i, &section) in options.sections.iter().enumerate() {
        eprintln!(
            "[seeds {}/{}] {}",
            i + 1,
            options.sections.len(),
            section.name()
        );
        let ran = match section {
            Section::TakeFromTimer => take_from_timer_section(scale, interrupt),
            Section::ReferenceSystem => reference_system::run(scale, &peer, interrupt),
            Section::LetNobleo => let_nobleo::run(scale, interrupt),
            Section::ZeroCopy => zero_copy::run(scale, interrupt),
            Section::EventsExecutor => {
                events_suite::run(scale, options.rclcpp.as_deref(), interrupt)
            }
        };
        match ran {
            Ran::Report(section) => {
                print!("{}", text(&section));
                report.sections.push(section);
            }
            Ran::Interrupted => {
                report.interrupted = true;
                break;
            }
        }
    }
    report.machine = format!(
        "{} CPUs; load average {started} when the run started, {} when it ended",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_average()
    );
    if let Some(path) = &options.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| SeedsError::Write {
            path: path.clone(),
            source: io::Error::other(e),
        })?;
        fs::write(path, json + "\n").map_err(|source| SeedsError::Write {
            path: path.clone(),
            source,
        })?;
    }
    if let Some(dir) = &options.out {
        let path = write_markdown(&report, dir)?;
        println!("report: {}", path.display());
    }
    if report.interrupted {
        return Err(SeedsError::Interrupted);
    }
    let failed: Vec<&str> = (report.sections.iter())
        .filter(|s| matches!(s.outcome, Outcome::Failed { .. }))
        .map(|s| s.section.name())
        .collect();
    match failed.is_empty() {
        true => Ok(report),
        false => Err(SeedsError::Failed {
            failed: failed.len(),
            ran: report.sections.len(),
            names: failed.join(", "),
        }),
    }
}

/// The take-from-timer section: every variant, then the ratios.
fn take_from_timer_section(scale: Scale, interrupt: &Interrupt) -> Ran {
    use take_from_timer::{On, Style, VARIANTS, VariantError};
    const SEED: &str = "Autoware's proposal to take() inputs from a timer instead of caching \
                        them in subscription callbacks: about 20% less CPU in the nodes \
                        changed (measured on the authors' hardware, not this machine).";
    let copies = scale.pick(50, 10);
    let warmup = scale.pick(2.0, 0.5);
    let window = scale.pick(20.0, 2.0);
    let mut rows = Vec::new();
    for (style, on) in VARIANTS {
        eprintln!("  {} on {}", style.name(), on.name());
        match take_from_timer::run(
            style,
            on,
            copies,
            std::time::Duration::from_secs_f64(warmup),
            std::time::Duration::from_secs_f64(window),
            interrupt,
        ) {
            Ok(measured) => rows.push(measured),
            Err(VariantError::Interrupted) => return Ran::Interrupted,
            Err(VariantError::Failed(reason)) => {
                return Ran::Report(SectionReport::without_figures(
                    Section::TakeFromTimer,
                    SEED,
                    Outcome::Failed { reason },
                ));
            }
        }
    }
    let find = |style: Style, on: On| rows.iter().find(|m| m.style == style && m.on == on);
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "| node style | executor | nodes' thread CPU, % core | nodes' thread wake-ups/s | \
         process CPU, % core | process wake-ups/s | outputs/s |\n|---|---|---|---|---|---|---|\n",
    );
    for m in &rows {
        let key = format!(
            "{}.{}",
            match m.style {
                Style::Callbacks => "callbacks",
                Style::Polling => "polling",
            },
            m.on.name()
        );
        numbers.insert(format!("{key}.nodes_cpu_pct"), m.nodes_cpu_pct);
        numbers.insert(format!("{key}.nodes_wakeups_per_s"), m.nodes_wakeups_per_s);
        numbers.insert(format!("{key}.process_cpu_pct"), m.process_cpu_pct);
        numbers.insert(
            format!("{key}.process_wakeups_per_s"),
            m.process_wakeups_per_s,
        );
        numbers.insert(format!("{key}.outputs_per_s"), m.outputs_per_s);
        let _ = writeln!(
            table,
            "| {} | {} | {:.2} | {:.0} | {:.2} | {:.0} | {:.0} |",
            m.style.name(),
            m.on.name(),
            m.nodes_cpu_pct,
            m.nodes_wakeups_per_s,
            m.process_cpu_pct,
            m.process_wakeups_per_s,
            m.outputs_per_s
        );
    }
    let saving = |b: f64, a: f64| match b > 0.0 {
        true => (1.0 - a / b) * 100.0,
        false => 0.0,
    };
    let best = |style: Style| {
        (rows.iter())
            .filter(|m| m.style == style)
            .min_by(|a, b| a.nodes_cpu_pct.total_cmp(&b.nodes_cpu_pct))
    };
    let mut verdict = Vec::new();
    // The proposal's comparison: the same executor, only the node's style changed.
    if let (Some(before), Some(after)) = (
        find(Style::Callbacks, On::Callback),
        find(Style::Polling, On::Callback),
    ) {
        let same = saving(before.nodes_cpu_pct, after.nodes_cpu_pct);
        numbers.insert("saving_same_executor_pct".into(), same);
        verdict.push(format!(
            "{}: polling used {same:.0}% less CPU than callback caching on the callback \
             executor (target ≥ 20%)",
            match same >= 20.0 {
                true => "reproduced",
                false => "not reproduced",
            }
        ));
    }
    if let (Some(c), Some(p)) = (best(Style::Callbacks), best(Style::Polling)) {
        let less = saving(c.nodes_cpu_pct, p.nodes_cpu_pct);
        numbers.insert("saving_best_pct".into(), less);
        verdict.push(format!(
            "best polling ({}) against best callbacks ({}): {less:.0}% less",
            p.on.name(),
            c.on.name()
        ));
    }
    let verdict = verdict.join("; ");
    let labels: Vec<String> = (rows.iter())
        .map(|m| format!("{} / {}", m.style.name(), m.on.name()))
        .collect();
    let figure = Figure {
        file: "take-from-timer-cpu.svg".into(),
        title: "take-from-timer: CPU of the nodes' thread and of the process".into(),
        svg: plot::bars(
            &format!("take-from-timer: {copies} nodes, CPU (% of one core)"),
            "%",
            &labels,
            &[
                (
                    "nodes' thread",
                    rows.iter().map(|m| Some(m.nodes_cpu_pct)).collect(),
                ),
                (
                    "process (inputs' publisher too)",
                    rows.iter().map(|m| Some(m.process_cpu_pct)).collect(),
                ),
            ],
            None,
        ),
    };
    Ran::Report(SectionReport {
        section: Section::TakeFromTimer,
        outcome: Outcome::Ran,
        seed: SEED.into(),
        verdict,
        numbers,
        table,
        notes: vec![format!(
            "{copies} copies of the node (inputs at 10, 30 and 50 Hz, a 10 Hz timer, one \
             output) on one executor thread, the inputs published by one node on a thread of \
             its own; {window} s measured after {warmup} s of warm-up per variant, one \
             variant after another in this process. The nodes' thread's CPU is the \
             comparison; the process's includes the publisher of the inputs, the same in \
             every variant."
        )],
        figures: vec![figure],
    })
}

/// A section as text, for stdout.
fn text(section: &SectionReport) -> String {
    let mut out = format!("\n## {}\n", section.section.name());
    match &section.outcome {
        Outcome::Ran => {}
        Outcome::Skipped { reason } => {
            let _ = writeln!(out, "skipped: {reason}");
        }
        Outcome::Failed { reason } => {
            let _ = writeln!(out, "failed: {reason}");
        }
    }
    out += &section.table;
    if !section.verdict.is_empty() {
        let _ = writeln!(out, "verdict: {}", section.verdict);
    }
    out
}

/// Writes `report.md` and the figures into `dir`; returns the report's path.
pub fn write_markdown(report: &SeedsReport, dir: &Path) -> Result<PathBuf, SeedsError> {
    let write = |path: PathBuf, text: &str| {
        fs::write(&path, text).map_err(|source| SeedsError::Write { path, source })
    };
    fs::create_dir_all(dir).map_err(|source| SeedsError::Write {
        path: dir.to_owned(),
        source,
    })?;
    let mut md = String::from("# tacto bench seeds\n\n");
    let _ = writeln!(
        md,
        "The published experiments behind tacto's execution models, run here{}. Machine: {}. \
         The seeds' figures are quoted as published, from their authors' hardware, not this \
         machine: compare the ratios within one run, not the absolute figures. rclcpp beside \
         tacto: {}.\n",
        match report.quick {
            true =>
                " with `--quick` (short runs that check each section works; their figures \
                      are not measurements)",
            false => "",
        },
        report.machine,
        report.rclcpp
    );
    md += "| section | verdict |\n|---|---|\n";
    for section in &report.sections {
        let _ = writeln!(md, "| {} | {} |", section.section.name(), section.verdict);
    }
    if report.interrupted {
        md += "\nInterrupted: the sections after the last one above did not run.\n";
    }
    for section in &report.sections {
        let _ = writeln!(md, "\n## {}\n", section.section.name());
        let _ = writeln!(md, "**The seed:** {}\n", section.seed);
        match &section.outcome {
            Outcome::Ran => {}
            Outcome::Skipped { reason } => {
                let _ = writeln!(md, "**Skipped:** {reason}\n");
            }
            Outcome::Failed { reason } => {
                let _ = writeln!(md, "**Failed:** {reason}\n");
            }
        }
        for figure in &section.figures {
            write(dir.join(&figure.file), &figure.svg)?;
            let _ = writeln!(md, "![{}]({})\n", figure.title, figure.file);
        }
        if !section.table.is_empty() {
            let _ = writeln!(md, "{}", section.table);
        }
        for note in &section.notes {
            let _ = writeln!(md, "- {note}");
        }
        if !section.notes.is_empty() {
            md.push('\n');
        }
        let _ = writeln!(md, "**Verdict:** {}", section.verdict);
    }
    let path = dir.join("report.md");
    write(path.clone(), &md)?;
    Ok(path)
}

/// `/proc/loadavg`'s three averages, or `unknown`.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_runs_the_named_sections_in_the_suites_order() {
        let options = Options::new(
            false,
            &["zero-copy".into(), "take-from-timer".into()],
            None,
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            options.sections,
            [Section::TakeFromTimer, Section::ZeroCopy]
        );
        let all = Options::new(false, &[], None, None, None).unwrap();
        assert_eq!(all.sections, Section::ALL);
    }

    #[test]
    fn an_unknown_section_is_refused_with_the_valid_names() {
        let error = Options::new(false, &["jitter".into()], None, None, None).unwrap_err();
        let message = error.to_string();
        for section in Section::ALL {
            assert!(message.contains(section.name()), "{message}");
        }
        assert!(message.contains("\"jitter\""), "{message}");
    }

    #[test]
    fn an_out_folder_that_is_a_file_is_refused_before_anything_runs() {
        let file = std::env::temp_dir().join(format!("tacto-seeds-file-{}", std::process::id()));
        fs::write(&file, b"x").unwrap();
        let error = Options::new(false, &[], None, Some(file.clone()), None).unwrap_err();
        fs::remove_file(&file).unwrap();
        assert!(
            matches!(
                error,
                SeedsError::Output {
                    option: "--out",
                    ..
                }
            ),
            "{error}"
        );
        assert!(error.to_string().contains("is a file, not a folder"));
    }

    #[test]
    fn a_missing_rclcpp_folder_is_refused() {
        let error = Options::new(
            false,
            &[],
            None,
            None,
            Some("/no/such/rclcpp-install".into()),
        )
        .unwrap_err();
        assert!(matches!(error, SeedsError::Rclcpp(_)), "{error}");
    }

    #[test]
    fn the_report_lists_every_section_with_its_verdict_and_writes_its_figures() {
        let dir = std::env::temp_dir().join(format!("tacto-seeds-md-{}", std::process::id()));
        let mut ran = SectionReport::without_figures(Section::ZeroCopy, "RTI: −90%", Outcome::Ran);
        ran.verdict = "reproduced".into();
        ran.table = "| a |\n|---|\n| 1 |\n".into();
        ran.figures.push(Figure {
            file: "z.svg".into(),
            title: "z".into(),
            svg: "<svg/>".into(),
        });
        let skipped = SectionReport::without_figures(
            Section::LetNobleo,
            "nobleo",
            Outcome::Skipped {
                reason: "no shared memory".into(),
            },
        );
        let report = SeedsReport {
            quick: true,
            machine: "2 CPUs".into(),
            rclcpp: "not measured".into(),
            sections: vec![ran, skipped],
            interrupted: false,
        };
        let path = write_markdown(&report, &dir).unwrap();
        let md = fs::read_to_string(&path).unwrap();
        assert!(md.contains("| zero-copy | reproduced |"), "{md}");
        assert!(
            md.contains("| let-nobleo | not measured: skipped (no shared memory) |"),
            "{md}"
        );
        assert!(md.contains("![z](z.svg)"), "{md}");
        assert_eq!(fs::read_to_string(dir.join("z.svg")).unwrap(), "<svg/>");
        fs::remove_dir_all(&dir).unwrap();
    }
}
