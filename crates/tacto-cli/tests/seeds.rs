//! `tacto bench seeds --quick`, as CI runs it: every section runs and produces its numbers (not
//! their values: a quick run is too short to measure), the report has a verdict and the plots
//! of each; bad options are refused before anything runs.
//!
//! DDS runs only inside the zero-copy section's own network namespace: no DDS domain of the
//! host is joined.

use std::path::PathBuf;
use std::process::Command;

use tacto_bench::seeds::{Outcome, Section, SeedsReport};
use tacto_launch::executors::ExecutorKind;

fn tacto(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tacto"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tacto-seeds-{name}-{}", std::process::id()))
}

#[test]
fn a_quick_run_gives_every_section_its_numbers_verdict_and_plots() {
    let dir = scratch("quick");
    let json = scratch("quick.json");
    let out = tacto(&[
        "bench",
        "seeds",
        "--quick",
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: SeedsReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap())
        .expect("the JSON is a seeds report");
    let _ = std::fs::remove_file(&json);
    assert!(report.quick && !report.interrupted);
    assert!(
        report.rclcpp.starts_with("not measured"),
        "{}",
        report.rclcpp
    );
    let ran: Vec<Section> = report.sections.iter().map(|s| s.section).collect();
    assert_eq!(ran, Section::ALL);
    for section in &report.sections {
        let name = section.section.name();
        assert_eq!(section.outcome, Outcome::Ran, "{name}");
        assert!(!section.verdict.is_empty(), "{name} has a verdict");
        assert!(!section.seed.is_empty(), "{name} quotes its seed");
        assert!(!section.figures.is_empty(), "{name} has a plot");
        for figure in &section.figures {
            let svg = std::fs::read_to_string(dir.join(&figure.file)).unwrap();
            assert!(svg.starts_with("<svg"), "{}", figure.file);
        }
        let has = |key: &str| {
            assert!(
                section.numbers.get(key).is_some_and(|v| v.is_finite()),
                "{name} measured {key}: {:?}",
                section.numbers
            );
        };
        match section.section {
            Section::TakeFromTimer => {
                for variant in [
                    "callbacks.callback",
                    "callbacks.events",
                    "polling.callback",
                    "polling.wait-set",
                ] {
                    has(&format!("{variant}.nodes_cpu_pct"));
                    has(&format!("{variant}.nodes_wakeups_per_s"));
                    has(&format!("{variant}.outputs_per_s"));
                }
                has("saving_same_executor_pct");
            }
            Section::ReferenceSystem => {
                for executor in ExecutorKind::ALL {
                    has(&format!("{executor}.cpu_pct_core"));
                    has(&format!("{executor}.hot_path_latency_mean_ms"));
                    has(&format!("{executor}.planner_jitter_ms"));
                }
            }
            Section::LetNobleo => {
                for executor in ExecutorKind::ALL {
                    has(&format!("{executor}.nobleo.cpu_pct_core"));
                    has(&format!("{executor}.nobleo-1.cpu_pct_core"));
                    has(&format!("{executor}.ten_over_one"));
                }
            }
            Section::EventsExecutor => {
                for executor in ExecutorKind::ALL {
                    for bytes in [10, 10240, 4194304] {
                        has(&format!("{executor}.{bytes}.cpu_pct_core"));
                        has(&format!("{executor}.{bytes}.latency_mean_ms"));
                        has(&format!("{executor}.{bytes}.latency_p99_ms"));
                        has(&format!("{executor}.{bytes}.rss_growth_pct"));
                    }
                }
            }
            Section::ZeroCopy => {
                for size in [64, 4 << 20] {
                    has(&format!("shm.{size}.p50_us"));
                    has(&format!("flat.{size}.p50_us"));
                    // Without a network namespace (user namespaces disabled) the DDS path
                    // cannot run, and the verdict says so.
                    if !section.verdict.starts_with("not measured against DDS") {
                        has(&format!("dds.{size}.p50_us"));
                        has(&format!("flat.{size}.reduction_pct"));
                    }
                }
            }
        }
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for section in Section::ALL {
        assert!(md.contains(&format!("\n## {}\n", section.name())), "{md}");
    }
    assert!(
        md.contains("**Verdict:**") && md.contains("not this machine"),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_section_is_refused_with_the_valid_names_before_anything_runs() {
    let out = tacto(&["bench", "seeds", "--quick", "--only", "zero-copy,jitter"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("unknown section \"jitter\"")
            && err.contains(
                "take-from-timer, reference-system, let-nobleo, zero-copy, events-executor"
            ),
        "{err}"
    );
    assert!(!err.contains("[seeds"), "nothing may run: {err}");
}

#[test]
fn an_out_that_cannot_be_written_is_refused_before_anything_runs() {
    let file = scratch("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let out = tacto(&["bench", "seeds", "--quick", "--out", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::remove_file(&file);
    assert!(!out.status.success());
    assert!(
        err.contains("--out") && err.contains("is a file, not a folder"),
        "{err}"
    );
    assert!(!err.contains("[seeds"), "nothing may run: {err}");

    let out = tacto(&["bench", "seeds", "--quick", "--rclcpp", "/no/such/rclcpp"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--rclcpp /no/such/rclcpp: not a folder"),
        "{err}"
    );
}
