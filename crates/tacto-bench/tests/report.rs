//! The report's three forms: the table, the JSON (stable keys), the Markdown with plots.

use tacto_bench::report;
use tacto_bench::result::{Distribution, ProcessResult, Report, RunResult, Spread};

fn sample() -> Report {
    let run = |executor: &str, cpu_s: f64| RunResult {
        executor: executor.into(),
        cpu_s,
        cpu_pct_core: cpu_s * 10.0,
        rss_peak_kb: 5000,
        rss_start_kb: 4000,
        rss_end_kb: 4000,
        wakeups_per_s: 250.0,
        hot_path_latency_ms: Some(Distribution {
            mean: 3.0,
            p50: 2.5,
            p99: 9.0,
            max: 12.0,
            n: 90,
        }),
        hot_path_drops: Some(0),
        bp_period_ms: Some(Spread {
            mean: 100.0,
            sd: 0.5,
            min: 99.0,
            max: 101.0,
            n: 9,
        }),
        ..Default::default()
    };
    Report {
        topology: "reference-system".into(),
        duration_s: 10.0,
        crunch: 0,
        crunch_ms: Some(0.0),
        crunch_ms_target: None,
        runs: vec![run("callback", 2.0), run("wait-set", 1.0)],
        interrupted: false,
    }
}

#[test]
fn the_table_has_a_row_per_executor_and_a_ratio_against_callback() {
    let table = report::table(&sample());
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .to_owned()
    };
    assert!(row("callback").contains("1.00x"));
    assert!(row("wait-set").contains("0.50x"));
    assert!(table.contains("hp p99") && table.contains("bp sd"));
    assert!(table.contains("legend:") && table.contains("ms"));
}

#[test]
fn latency_columns_stay_when_no_sample_reached_the_sinks() {
    let mut report = sample();
    for run in &mut report.runs {
        run.hot_path_latency_ms = None;
        run.bp_period_ms = None;
    }
    let table = report::table(&report);
    assert!(
        table.contains("hp p99") && table.contains("bp mean"),
        "{table}"
    );
    let row = table.lines().find(|l| l.starts_with("wait-set")).unwrap();
    assert!(row.contains(" - "), "{row}");
}

#[test]
fn an_overloaded_run_is_flagged_with_its_reasons_in_a_sentence() {
    let mut report = sample();
    report.runs[1].overloaded = true;
    report.runs[1].overload = vec!["the behaviour planner's period was 130.0 ms".into()];
    let table = report::table(&report);
    let row = table.lines().find(|l| l.starts_with("wait-set")).unwrap();
    assert!(row.contains("BEHIND"), "{row}");
    let sentence = table
        .lines()
        .find(|l| l.starts_with("BEHIND (wait-set)"))
        .unwrap();
    assert!(sentence.contains("130.0 ms") && sentence.contains("not comparable"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["runs"][1]["overloaded"], true);
    assert_eq!(json["runs"][0]["overloaded"], false);
}

#[test]
fn the_json_keeps_the_documented_keys() {
    let dir = std::env::temp_dir().join(format!("tacto-report-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.json");
    report::write_json(&sample(), &path).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for key in ["topology", "duration_s", "crunch", "crunch_ms", "runs"] {
        assert!(json.get(key).is_some(), "{key}");
    }
    let run = &json["runs"][1];
    for key in [
        "executor",
        "overloaded",
        "cpu_s",
        "cpu_pct_core",
        "rss_peak_kb",
        "rss_start_kb",
        "rss_end_kb",
        "wakeups_per_s",
        "drops_total",
        "hot_path_latency_ms",
        "hot_path_drops",
        "bp_period_ms",
    ] {
        assert!(run.get(key).is_some(), "{key}");
    }
    for key in ["mean", "p50", "p99", "max", "n"] {
        assert!(run["hot_path_latency_ms"].get(key).is_some(), "{key}");
    }
    for key in ["mean", "sd", "min", "max", "n"] {
        assert!(run["bp_period_ms"].get(key).is_some(), "{key}");
    }
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back, sample());
}

#[test]
fn the_markdown_report_comes_with_its_plots() {
    let dir = std::env::temp_dir().join(format!("tacto-report-md-{}", std::process::id()));
    report::write_markdown(&sample(), &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("![CPU per executor](cpu.svg)") && md.contains("latency.svg"));
    for svg in ["cpu.svg", "latency.svg"] {
        let text = std::fs::read_to_string(dir.join(svg)).unwrap();
        assert!(
            text.starts_with("<svg") && text.contains("wait-set"),
            "{svg}"
        );
    }
}

#[test]
fn a_run_over_a_launch_file_gets_a_table_and_a_memory_plot_per_process() {
    let mut report = sample();
    let process = |name: &str, rss: Vec<u64>| ProcessResult {
        name: name.into(),
        cpu_pct_core: 0.5,
        wakeups_per_s: 60.0,
        rss_kb_per_s: rss,
        ..Default::default()
    };
    report.runs[1].processes = vec![
        process("lidars", vec![8000, 8000, 8080]),
        process("planner", vec![10_000, 10_000, 10_000]),
    ];
    let dir = std::env::temp_dir().join(format!("tacto-report-rss-{}", std::process::id()));
    report::write_markdown(&report, &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("## wait-set: per process"), "{md}");
    assert!(
        md.contains("| lidars | 0.500 | 60.0 | 0 | 8000 | 8080 | +1.00 % |"),
        "{md}"
    );
    assert!(
        md.contains("| planner | 0.500 | 60.0 | 0 | 10000 | 10000 | +0.00 % |"),
        "{md}"
    );
    assert!(
        md.contains("![Resident memory per process](rss-wait-set.svg)"),
        "{md}"
    );
    let svg = std::fs::read_to_string(dir.join("rss-wait-set.svg")).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
    assert!(
        svg.contains(">lidars<") && svg.contains(">planner<"),
        "{svg}"
    );
    // The callback run has no processes: no plot for it.
    assert!(!dir.join("rss-callback.svg").exists());
}
