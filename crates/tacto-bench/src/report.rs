//! The report: a table on stdout, `--json`, and `--out DIR` (Markdown with SVG plots).

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;

use crate::result::{Distribution, Report, RunResult};

/// The table printed on stdout: one row per executor, every KPI the topology has, and the CPU
/// ratio against the `callback` executor; then the notes, a sentence per run that fell behind,
/// and the legend.
///
/// The columns depend on the topology alone, never on what a run measured: a statistic no
/// sample reached shows as `-`, and its column stays.
pub fn table(report: &Report) -> String {
    let baseline = report
        .runs
        .iter()
        .find(|r| r.executor == "callback")
        .map(|r| r.cpu_s);
    let ratio = |r: &RunResult| match baseline {
        Some(b) if b > 0.0 => format!("{:.2}x", r.cpu_s / b),
        _ => "-".into(),
    };
    let mut out = String::new();
    let reference = is_reference_system(report);
    let _ = write!(
        out,
        "{}: {} s measured per executor",
        report.topology, report.duration_s
    );
    // Crunch is the reference system's work per node; other topologies have none.
    if reference {
        let _ = write!(out, ", crunch {}", report.crunch);
        if let Some(ms) = report.crunch_ms {
            let _ = write!(out, " (one crunch: {ms:.2} ms here");
            if let Some(target) = report.crunch_ms_target {
                let _ = write!(out, ", picked for --crunch-ms {target}");
            }
            let _ = write!(out, ")");
        }
    }
    let _ = writeln!(out);
    let mut header = format!(
        "{:<12} {:>6} {:>8} {:>7} {:>7} {:>9} {:>9} {:>9} {:>8} {:>7}",
        "executor",
        "status",
        "cpu s",
        "% core",
        "cpu/cb",
        "rss peak",
        "rss start",
        "rss end",
        "wakeup/s",
        "drops"
    );
    if reference {
        header += &format!(
            " | {:>6} {:>8} {:>8} {:>8} {:>8} {:>6} | {:>5} {:>8} {:>6} {:>8} {:>8} | {:>6} {:>6} {:>6}",
            "hp n",
            "hp mean",
            "hp p50",
            "hp p99",
            "hp max",
            "hp drp",
            "bp n",
            "bp mean",
            "bp sd",
            "bp min",
            "bp max",
            "sd p50",
            "sd p99",
            "sd max"
        );
    } else {
        header += &format!(
            " | {:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>10}",
            "lat n", "lat mean", "lat max", "late", "2 late", "lost", "deliver/s"
        );
    }
    let _ = writeln!(out, "{header}");
    let _ = writeln!(
        out,
        "{:<12} {:>6} {:>8} {:>7} {:>7} {:>9} {:>9} {:>9} {:>8} {:>7}{}",
        "",
        "",
        "s",
        "%",
        "x",
        "kB",
        "kB",
        "kB",
        "1/s",
        "",
        match reference {
            true => format!(
                " | {:>6} {:>8} {:>8} {:>8} {:>8} {:>6} | {:>5} {:>8} {:>6} {:>8} {:>8} | {:>6} {:>6} {:>6}",
                "", "ms", "ms", "ms", "ms", "", "", "ms", "ms", "ms", "ms", "ms", "ms", "ms"
            ),
            false => format!(
                " | {:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>10}",
                "", "ms", "ms", "", "", "", "1/s"
            ),
        }
    );
    for r in &report.runs {
        let mut row = format!(
            "{:<12} {:>6} {:>8.2} {:>7.1} {:>7} {:>9} {:>9} {:>9} {:>8.0} {:>7}",
            r.executor,
            if r.overloaded { "BEHIND" } else { "ok" },
            r.cpu_s,
            r.cpu_pct_core,
            ratio(r),
            r.rss_peak_kb,
            r.rss_start_kb,
            r.rss_end_kb,
            r.wakeups_per_s,
            r.drops_total
        );
        if reference {
            let ms = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
            let hp = r.hot_path_latency_ms.as_ref();
            let bp = r.bp_period_ms.as_ref();
            let delay = r.periodic_start_delay_ms.as_ref();
            // Start delays are tens of microseconds when nothing waits: one more digit.
            let fine = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
            row += &format!(
                " | {:>6} {:>8} {:>8} {:>8} {:>8} {:>6} | {:>5} {:>8} {:>6} {:>8} {:>8} | {:>6} {:>6} {:>6}",
                hp.map_or(0, |d| d.n),
                ms(hp.map(|d| d.mean)),
                ms(hp.map(|d| d.p50)),
                ms(hp.map(|d| d.p99)),
                ms(hp.map(|d| d.max)),
                r.hot_path_drops.map_or("-".into(), |d| d.to_string()),
                bp.map_or(0, |s| s.n),
                ms(bp.map(|s| s.mean)),
                ms(bp.map(|s| s.sd)),
                ms(bp.map(|s| s.min)),
                ms(bp.map(|s| s.max)),
                fine(delay.map(|d| d.p50)),
                fine(delay.map(|d| d.p99)),
                fine(delay.map(|d| d.max)),
            );
        } else {
            let pooled = pooled(r);
            let ms = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
            let sum =
                |f: fn(&crate::result::TopicResult) -> u64| r.topics.iter().map(f).sum::<u64>();
            row += &format!(
                " | {:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>10}",
                pooled.as_ref().map_or(0, |d| d.n),
                ms(pooled.as_ref().map(|d| d.mean)),
                ms(pooled.as_ref().map(|d| d.max)),
                sum(|t| t.late),
                sum(|t| t.too_late),
                sum(|t| t.lost),
                r.deliveries_per_s.map_or("-".into(), |d| format!("{d:.0}"))
            );
        }
        let _ = writeln!(out, "{row}");
    }
    for r in &report.runs {
        for note in &r.notes {
            let _ = writeln!(out, "note ({}): {note}", r.executor);
        }
        if let (Some(run), Some(bench)) = (r.crunch_ms, report.crunch_ms)
            && bench > 0.0
            && run > 1.2 * bench
        {
            let _ = writeln!(
                out,
                "note ({}): one crunch took {run:.2} ms when this run started, against \
                 {bench:.2} ms when the bench started: the machine was busier",
                r.executor
            );
        }
    }
    for r in report.runs.iter().filter(|r| r.overloaded) {
        let _ = writeln!(
            out,
            "BEHIND ({}): {}; its figures are not comparable with those of a run that kept up.",
            r.executor,
            r.overload.join("; ")
        );
    }
    if report.interrupted {
        let _ = writeln!(out, "interrupted: only the runs above finished.");
    }
    out += "legend:\n";
    out += LEGEND_COMMON;
    out += match reference {
        true => LEGEND_REFERENCE_SYSTEM,
        false => LEGEND_TOPICS,
    };
    out
}

/// True when the report's table has the reference system's columns.
fn is_reference_system(report: &Report) -> bool {
    // A report read back from JSON may come from an older version without the name; its runs
    // then say it.
    report.topology == "reference-system" || report.runs.iter().any(|r| r.hot_path_drops.is_some())
}

/// What the columns mean, under every table (the README has the same legend).
const LEGEND_COMMON: &str = "\
status   ok, or BEHIND: the run fell behind (see its line above)
cpu s    user + system CPU of the run's process over the measured window; % core: of one core
cpu/cb   CPU against the callback executor's run
rss      resident memory: peak, at the window's start and at its end
wakeup/s voluntary context switches of all the process's threads per second (a thread woken)
";

const LEGEND_REFERENCE_SYSTEM: &str = "\
drops    input samples missed anywhere, as upstream counts them (sequence gaps at each node)
hp       hot-path latency, newest lidar driver run to ObjectCollisionEstimator's: n samples,
         mean, p50, p99, max; hp drp: samples the hot-path nodes missed on the hot path
bp       behaviour planner's period (set to 100 ms): n periods, mean, standard deviation,
         min, max
sd       start delay of the periodic nodes' runs (sensors, cyclic nodes, planner): from the
         deadline a run serves to the executor's start of it, p50, p99, max
";

const LEGEND_TOPICS: &str = "\
drops    samples never received
lat      publish-to-take latency over every subscription: n samples, mean, max
late     samples later than min(20% of the period, 5 ms); 2 late: later than min(period, 50 ms)
lost     samples never received; deliver/s: samples delivered per second (nobleo)
";

/// Writes `report` as JSON.
pub fn write_json(report: &Report, path: &Path) -> io::Result<()> {
    let text = serde_json::to_string_pretty(report).map_err(io::Error::other)?;
    fs::write(path, text + "\n")
}

/// Writes `report.md`, `cpu.svg` and (when there are latencies) `latency.svg` into `dir`.
pub fn write_markdown(report: &Report, dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    fs::write(dir.join("cpu.svg"), cpu_svg(report))?;
    let latency = latency_svg(report);
    if let Some(svg) = &latency {
        fs::write(dir.join("latency.svg"), svg)?;
    }
    let mut md = format!(
        "# tacto bench: {}\n\n{} s measured per executor after warm-up. Each executor ran in a \
         process of its own.\n\n![CPU per executor](cpu.svg)\n\n",
        report.topology, report.duration_s
    );
    if latency.is_some() {
        md += "![Latency per executor](latency.svg)\n\n";
    }
    md += "```\n";
    md += &table(report);
    md += "```\n";
    for r in report.runs.iter().filter(|r| !r.topics.is_empty()) {
        let _ = write!(
            md,
            "\n## {}: per topic\n\n| topic | n | mean ms | p50 | p99 | max | late | too late | lost |\n|---|---|---|---|---|---|---|---|---|\n",
            r.executor
        );
        for t in &r.topics {
            let l = &t.latency_ms;
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {} |",
                t.topic, l.n, l.mean, l.p50, l.p99, l.max, t.late, t.too_late, t.lost
            );
        }
    }
    for r in report.runs.iter().filter(|r| !r.processes.is_empty()) {
        let _ = write!(
            md,
            "\n## {}: per process\n\n| process | CPU % | wake-ups/s | drops | RSS first s, kB | RSS last s, kB | growth |\n|---|---|---|---|---|---|---|\n",
            r.executor
        );
        for p in &r.processes {
            let (first, last) = match (p.rss_kb_per_s.first(), p.rss_kb_per_s.last()) {
                (Some(&first), Some(&last)) => (first, last),
                _ => (0, 0),
            };
            let growth = match first {
                0 => "-".to_owned(),
                _ => format!(
                    "{:+.2} %",
                    100.0 * (last as f64 - first as f64) / first as f64
                ),
            };
            let _ = writeln!(
                md,
                "| {} | {:.3} | {:.1} | {} | {first} | {last} | {growth} |",
                p.name, p.cpu_pct_core, p.wakeups_per_s, p.drops_total
            );
        }
        if let Some(svg) = rss_svg(&report.topology, r) {
            let file = format!("rss-{}.svg", r.executor);
            fs::write(dir.join(&file), svg)?;
            let _ = writeln!(md, "\n![Resident memory per process]({file})");
        }
    }
    fs::write(dir.join("report.md"), md)
}

/// Resident memory of each process of `run` once a second, one line per process, MB from 0
/// (so that a flat line reads as flat); `None` without samples.
fn rss_svg(topology: &str, run: &RunResult) -> Option<String> {
    const COLORS: [&str; 8] = [
        "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d",
    ];
    const HEIGHT: f64 = 260.0;
    let seconds = run.processes.iter().map(|p| p.rss_kb_per_s.len()).max()?;
    if seconds == 0 {
        return None;
    }
    let max_mb = (run.processes.iter())
        .flat_map(|p| &p.rss_kb_per_s)
        .map(|&kb| kb as f64 / 1024.0)
        .fold(1e-9, f64::max);
    let x = |i: usize| LEFT + PLOT_W * i as f64 / (seconds.max(2) - 1) as f64;
    let y = |mb: f64| 40.0 + HEIGHT * (1.0 - mb / max_mb);
    let mut body = format!(
        r##"<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#999"/><text x="10" y="44">{max_mb:.1} MB</text><text x="10" y="{bottom}">0</text>
"##,
        bottom = y(0.0),
        right = LEFT + PLOT_W,
    );
    for (i, p) in run.processes.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let points: Vec<String> = (p.rss_kb_per_s.iter().enumerate())
            .map(|(s, &kb)| format!("{:.1},{:.1}", x(s), y(kb as f64 / 1024.0)))
            .collect();
        let _ = writeln!(
            body,
            r##"<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{}"/><text x="{lx}" y="{ly}" fill="{color}">{}</text>"##,
            points.join(" "),
            p.name,
            lx = LEFT + PLOT_W + 12.0,
            ly = 50.0 + 14.0 * i as f64,
        );
    }
    let rows = ((HEIGHT + 20.0) / BAR_H).ceil() as usize;
    Some(svg_frame(
        &format!("{topology}: resident memory per process, {}", run.executor),
        rows.max(run.processes.len() / 2),
        &body,
        &format!("seconds of the measured window (0 to {seconds}), once a second"),
    ))
}

const BAR_H: f64 = 28.0;
const LEFT: f64 = 110.0;
const PLOT_W: f64 = 420.0;

fn svg_frame(title: &str, rows: usize, body: &str, axis: &str) -> String {
    let height = 50.0 + rows as f64 * BAR_H + 30.0;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="22" font-size="15" font-weight="bold">{title}</text>
{body}<text x="{LEFT}" y="{axis_y}" fill="#555">{axis}</text>
</svg>
"##,
        w = LEFT + PLOT_W + 270.0,
        axis_y = height - 10.0,
    )
}

/// CPU per executor, % of one core, as horizontal bars.
fn cpu_svg(report: &Report) -> String {
    let max = report
        .runs
        .iter()
        .map(|r| r.cpu_pct_core)
        .fold(1e-9, f64::max);
    let mut body = String::new();
    for (i, r) in report.runs.iter().enumerate() {
        let y = 40.0 + i as f64 * BAR_H;
        let w = PLOT_W * r.cpu_pct_core / max;
        let _ = writeln!(
            body,
            r##"<text x="10" y="{ty}">{name}</text><rect x="{LEFT}" y="{y}" width="{w:.1}" height="{h}" fill="#4c78a8"/><text x="{tx:.1}" y="{ty}">{pct} %</text>"##,
            ty = y + 17.0,
            name = r.executor,
            h = BAR_H - 8.0,
            tx = LEFT + w + 6.0,
            pct = if r.cpu_pct_core < 10.0 {
                format!("{:.2}", r.cpu_pct_core)
            } else {
                format!("{:.1}", r.cpu_pct_core)
            },
        );
    }
    svg_frame(
        &format!("{}: CPU per executor", report.topology),
        report.runs.len(),
        &body,
        "% of one core (lower is better)",
    )
}

/// The latency distribution per executor: p50 (dot), p99 (bar end) and max (tick), ms.
fn latency_svg(report: &Report) -> Option<String> {
    let dists: Vec<(&str, Distribution)> = report
        .runs
        .iter()
        .filter_map(|r| {
            let d = r.hot_path_latency_ms.clone().or_else(|| pooled(r))?;
            Some((r.executor.as_str(), d))
        })
        .collect();
    if dists.is_empty() {
        return None;
    }
    let max = dists.iter().map(|(_, d)| d.max).fold(1e-9, f64::max);
    let x = |v: f64| LEFT + PLOT_W * v / max;
    let mut body = String::new();
    for (i, (name, d)) in dists.iter().enumerate() {
        let y = 40.0 + i as f64 * BAR_H;
        let mid = y + (BAR_H - 8.0) / 2.0;
        let _ = writeln!(
            body,
            r##"<text x="10" y="{ty}">{name}</text><rect x="{LEFT}" y="{y}" width="{w:.1}" height="{h}" fill="#9ecae9"/><circle cx="{p50:.1}" cy="{mid}" r="4" fill="#1f4e79"/><line x1="{mx:.1}" y1="{y}" x2="{mx:.1}" y2="{y2}" stroke="#d62728" stroke-width="2"/><text x="{tx:.1}" y="{ty}">p50 {a:.2} · p99 {b:.2} · max {c:.2} ms</text>"##,
            ty = y + 17.0,
            h = BAR_H - 8.0,
            w = x(d.p99) - LEFT,
            p50 = x(d.p50),
            mx = x(d.max),
            y2 = y + BAR_H - 8.0,
            tx = LEFT + PLOT_W + 12.0,
            a = d.p50,
            b = d.p99,
            c = d.max,
        );
    }
    Some(svg_frame(
        &format!("{}: latency per executor", report.topology),
        dists.len(),
        &body,
        "ms: dot p50, bar to p99, red tick max",
    ))
}

/// One distribution for all of a run's topics (weighted mean; p50/p99 of the worst topic).
fn pooled(r: &RunResult) -> Option<Distribution> {
    let n: u64 = r.topics.iter().map(|t| t.latency_ms.n).sum();
    if n == 0 {
        return None;
    }
    let worst = |f: fn(&Distribution) -> f64| {
        r.topics
            .iter()
            .map(|t| f(&t.latency_ms))
            .fold(0.0, f64::max)
    };
    Some(Distribution {
        mean: r
            .topics
            .iter()
            .map(|t| t.latency_ms.mean * t.latency_ms.n as f64)
            .sum::<f64>()
            / n as f64,
        p50: worst(|d| d.p50),
        p99: worst(|d| d.p99),
        max: worst(|d| d.max),
        n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_systems_table_shows_the_periodic_start_delay_beside_the_planners_period() {
        let run = RunResult {
            executor: "wait-set".into(),
            hot_path_drops: Some(0),
            periodic_start_delay_ms: Some(Distribution {
                mean: 0.05,
                p50: 0.012,
                p99: 2.345,
                max: 2.5,
                n: 530,
            }),
            ..Default::default()
        };
        let report = Report {
            topology: "reference-system".into(),
            duration_s: 30.0,
            crunch: 4096,
            crunch_ms: None,
            crunch_ms_target: None,
            runs: vec![run],
            interrupted: false,
        };
        let table = table(&report);
        let header = table.lines().nth(1).unwrap();
        assert!(header.ends_with("| sd p50 sd p99 sd max"), "{header}");
        let row = table.lines().nth(3).unwrap();
        assert!(row.ends_with("|  0.012  2.345  2.500"), "{row}");
        assert!(table.contains("sd       start delay of the periodic nodes' runs"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["runs"][0]["periodic_start_delay_ms"]["p99"], 2.345);
    }
}
