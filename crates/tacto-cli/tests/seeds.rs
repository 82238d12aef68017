//! `tacto bench seeds --quick`, as CI runs it: every section runs and produces its numbers (not
//! their values: a quick run is too short to measure), the report has a verdict and the plots
//! of each; bad options are refused before anything runs.
//!
//! DDS runs only inside network namespaces of the command's own (the zero-copy section's, and
//! each of rclcpp's runs when `--rclcpp` is given): no DDS domain of the host is joined. The
//! rclcpp peer comes with `../shared` (`install-rclcpp.sh`, unpacked into `target/rclcpp-peer`);
//! without it the test that needs it says it is skipped.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tacto_bench::seeds::{Outcome, Section, SectionReport, SeedsReport};
use tacto_launch::executors::ExecutorKind;

/// The longest a quick run may take here: the longest takes about four minutes on a loaded
/// 2-core machine. A run past it fails the test with what it printed, rather than hanging CI.
const LIMIT: Duration = Duration::from_secs(15 * 60);

fn tacto(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            // Its children die with it (PR_SET_PDEATHSIG), which closes the pipe.
            std::thread::sleep(Duration::from_secs(5));
            let printed = if stderr.is_finished() {
                String::from_utf8_lossy(&stderr.join().unwrap()).into_owned()
            } else {
                "(nothing: its error output is still held open by a child of its)".into()
            };
            panic!(
                "tacto {} had not ended after {} s: killed; it printed:\n{printed}",
                args.join(" "),
                LIMIT.as_secs(),
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
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
        report
            .rclcpp
            .starts_with("not measured: no --rclcpp DIR given"),
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
                rclcpp_not_measured(section, "no --rclcpp DIR given");
            }
            Section::LetNobleo => {
                for executor in ExecutorKind::ALL {
                    has(&format!("{executor}.nobleo.cpu_pct_core"));
                    has(&format!("{executor}.nobleo-1.cpu_pct_core"));
                    has(&format!("{executor}.ten_over_one"));
                    // A launch file gives each process one executor: prioritized is several.
                    if executor != ExecutorKind::Prioritized {
                        has(&format!("{executor}.nobleo-per-node.cpu_pct_core"));
                        has(&format!("{executor}.nobleo-per-node.deliveries_per_s"));
                        has(&format!("{executor}.per_node_over_one_process"));
                        // Over DDS where a network namespace can be made.
                        if skipped(&section.notes, "a process per node over DDS").is_none() {
                            has(&format!("{executor}.nobleo-per-node-dds.cpu_pct_core"));
                            has(&format!("{executor}.per_node_dds_over_one_process"));
                        }
                    }
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

/// The reference-system section says rclcpp was not measured, and `why`, and has none of its
/// numbers.
fn rclcpp_not_measured(section: &SectionReport, why: &str) {
    assert!(
        section
            .verdict
            .contains(&format!("rclcpp not measured: {why}")),
        "{}",
        section.verdict
    );
    assert!(
        (section.notes.iter()).any(|n| n.starts_with("rclcpp not measured:") && n.contains(why)),
        "{:?}",
        section.notes
    );
    assert!(
        !section.numbers.keys().any(|k| k.contains("rclcpp")),
        "{:?}",
        section.numbers
    );
}

/// The rclcpp Jazzy install to give `--rclcpp`: unpacked from `../shared` into `target/` (a
/// no-op once done), or one already there; `None` (the test says it is skipped) without
/// either, as in a plain clone.
fn rclcpp_install() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("target/rclcpp-peer");
    let script = root.join("../shared/peers/install-rclcpp.sh");
    if script.exists() {
        std::fs::create_dir_all(&dir).expect("target/ is writable");
        // One install at a time, across tests and test binaries: it unpacks into one folder.
        let status = Command::new("flock")
            .arg(dir.join(".lock"))
            .arg("bash")
            .arg(&script)
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("flock and bash run");
        assert!(
            status.success(),
            "{} {}: {status}",
            script.display(),
            dir.display()
        );
    }
    if dir.join("rclcpp-jazzy/env.sh").is_file() {
        return Some(dir);
    }
    eprintln!(
        "skipped: no rclcpp peer: neither {} nor an install in {} (CI has ../shared)",
        script.display(),
        dir.display()
    );
    None
}

#[test]
fn with_rclcpp_its_reference_system_executables_run_beside_every_executor() {
    let Some(peer) = rclcpp_install() else { return };
    let json = scratch("rclcpp.json");
    let out = tacto(&[
        "bench",
        "seeds",
        "--quick",
        "--only",
        "reference-system",
        "--rclcpp",
        peer.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
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
    assert!(
        report.rclcpp.starts_with("rclcpp Jazzy from"),
        "{}",
        report.rclcpp
    );
    let [section] = &report.sections[..] else {
        panic!("one section: {:?}", report.sections)
    };
    assert_eq!(section.outcome, Outcome::Ran);
    let has = |key: &str| {
        assert!(
            section.numbers.get(key).is_some_and(|v| v.is_finite()),
            "measured {key}: {:?} {:?}",
            section.numbers,
            section.notes
        );
    };
    for rclcpp in ["singlethreaded", "prioritized", "events"] {
        for figure in [
            "cpu_pct_core",
            "hot_path_latency_mean_ms",
            "hot_path_latency_p99_ms",
            "planner_period_mean_ms",
            "planner_jitter_ms",
            "realtime_threads",
        ] {
            has(&format!("rclcpp.{rclcpp}.{figure}"));
        }
        for executor in ExecutorKind::ALL {
            has(&format!("{executor}.cpu_over_rclcpp_{rclcpp}"));
            has(&format!("{executor}.hot_path_latency_over_rclcpp_{rclcpp}"));
        }
        assert!(stdout.contains(&format!("| rclcpp {rclcpp} |")), "{stdout}");
    }
    has("best_cpu_over_rclcpp_best");
    has("best_hot_path_latency_over_rclcpp_best");
    assert!(
        section.verdict.contains("rclcpp's least"),
        "{}",
        section.verdict
    );
}

#[test]
fn a_folder_without_rclcpp_leaves_its_columns_not_measured_with_the_reason() {
    let empty = scratch("no-rclcpp");
    std::fs::create_dir_all(&empty).unwrap();
    let json = scratch("no-rclcpp.json");
    // The shortest section: the report's line on rclcpp is what this checks.
    let out = tacto(&[
        "bench",
        "seeds",
        "--quick",
        "--only",
        "zero-copy",
        "--rclcpp",
        empty.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let report = std::fs::read_to_string(&json);
    let _ = std::fs::remove_file(&json);
    let _ = std::fs::remove_dir_all(&empty);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: SeedsReport = serde_json::from_str(&report.unwrap()).unwrap();
    assert!(
        report.rclcpp.starts_with(&format!(
            "not measured: {} has no rclcpp Jazzy install (no {}",
            empty.display(),
            empty.join("rclcpp-jazzy/env.sh").display()
        )),
        "{}",
        report.rclcpp
    );
}

/// The note a part left when it could not run `what`, if it left one: `<what>: skipped:
/// <reason>`, the reason said.
fn skipped<'a>(notes: &'a [String], what: &str) -> Option<&'a str> {
    let prefix = format!("{what}: skipped: ");
    let reason = notes.iter().find_map(|n| n.strip_prefix(&prefix))?;
    assert!(!reason.trim().is_empty(), "{what} skipped without a reason");
    Some(reason)
}

#[test]
fn the_events_executor_suite_gives_every_parts_numbers_and_plots_or_says_why_not() {
    let dir = scratch("events");
    let json = scratch("events.json");
    let rclcpp = rclcpp_install();
    let mut args = vec![
        "bench".to_owned(),
        "seeds".into(),
        "--quick".into(),
        "--only".into(),
        "events-executor".into(),
        "--json".into(),
        json.display().to_string(),
        "--out".into(),
        dir.display().to_string(),
    ];
    if let Some(rclcpp) = &rclcpp {
        args.extend(["--rclcpp".into(), rclcpp.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = tacto(&args);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: SeedsReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap())
        .expect("the JSON is a seeds report");
    let _ = std::fs::remove_file(&json);
    let [section] = &report.sections[..] else {
        panic!("one section: {:?}", report.sections)
    };
    assert_eq!(section.outcome, Outcome::Ran);
    let notes = &section.notes;
    assert!(
        !notes.iter().any(|n| n.contains(": failed: ")),
        "no part failed: {notes:#?}"
    );
    let has = |key: String| {
        assert!(
            section.numbers.get(&key).is_some_and(|v| v.is_finite()),
            "measured {key}: {:?}",
            section.numbers.keys().collect::<Vec<_>>()
        );
    };
    let mut plots = vec![
        "events-pubsub-cpu.svg",
        "events-pubsub-latency.svg",
        "events-pubsub-shm-cpu.svg",
        "events-pubsub-shm-latency.svg",
        "events-round-trips-latency.svg",
        "events-round-trips-cpu.svg",
        "events-long-rss.svg",
        "events-memory-scaling.svg",
    ];

    // Pub/sub in one process, and rclcpp's rows beside it.
    for bytes in [10, 10240, 4194304] {
        for executor in ExecutorKind::ALL {
            for what in [
                "cpu_pct_core",
                "latency_mean_ms",
                "latency_p99_ms",
                "latency_max_ms",
            ] {
                has(format!("{executor}.{bytes}.{what}"));
            }
            has(format!("{executor}.{bytes}.rss_growth_pct"));
        }
        match &rclcpp {
            Some(_) => {
                for executor in ["rclcpp-single", "rclcpp-events"] {
                    for what in ["cpu_pct_core", "latency_mean_ms", "latency_max_ms"] {
                        has(format!("{executor}.{bytes}.{what}"));
                    }
                }
            }
            None => assert_eq!(
                skipped(notes, "rclcpp beside tacto"),
                Some("no --rclcpp DIR given")
            ),
        }
    }

    // ros2-performance's own topologies, beside rclcpp only.
    match &rclcpp {
        Some(_) => {
            plots.push("events-topologies-cpu.svg");
            for executor in ["wait-set", "events", "rclcpp-single", "rclcpp-events"] {
                for what in ["cpu_pct_core", "latency_mean_ms", "latency_max_ms"] {
                    has(format!("topology.mont_blanc.{executor}.{what}"));
                }
            }
            has("topology.mont_blanc.best_over_rclcpp_best".into());
        }
        None => assert_eq!(
            skipped(notes, "ros2-performance topologies beside rclcpp"),
            Some("no --rclcpp DIR given")
        ),
    }

    // Pub/sub in two processes: shared memory, and DDS where a network namespace can be made.
    let dds = skipped(notes, "pub/sub over DDS").is_none();
    if dds {
        plots.extend(["events-pubsub-dds-cpu.svg", "events-pubsub-dds-latency.svg"]);
    }
    let transports: &[&str] = if dds { &["shm", "dds"] } else { &["shm"] };
    for transport in transports {
        for executor in ["wait-set", "events"] {
            for bytes in [10, 102400] {
                let key = format!("{transport}.{executor}.{bytes}");
                for what in [
                    "cpu_pct_core",
                    "lost",
                    "latency_mean_ms",
                    "latency_p99_ms",
                    "latency_max_ms",
                ] {
                    has(format!("{key}.{what}"));
                }
                if *transport == "dds" {
                    has(format!("{key}.udp_drops"));
                }
            }
        }
    }

    // Services and actions, in one process and in two.
    let dds = skipped(notes, "services and actions over DDS").is_none();
    let placements: &[&str] = if dds {
        &["one-process", "shm", "dds"]
    } else {
        &["one-process", "shm"]
    };
    for load in ["service", "action"] {
        for placement in placements {
            let key = format!("{load}.{placement}.wait-set");
            for what in [
                "cpu_pct_core",
                "answered",
                "lost",
                "latency_mean_ms",
                "latency_p99_ms",
                "latency_max_ms",
            ] {
                has(format!("{key}.{what}"));
            }
            if load == "action" {
                has(format!("{key}.result_mean_ms"));
            }
        }
    }
    match &rclcpp {
        Some(_) => {
            for executor in ["rclcpp-single", "rclcpp-events"] {
                let key = format!("service.one-process.{executor}");
                for what in [
                    "cpu_pct_core",
                    "answered",
                    "latency_mean_ms",
                    "latency_max_ms",
                ] {
                    has(format!("{key}.{what}"));
                }
            }
            has("service.one-process.best_over_rclcpp_best.latency".into());
            has("service.one-process.best_over_rclcpp_best.cpu".into());
        }
        None => assert_eq!(
            skipped(notes, "rclcpp's services beside tacto"),
            Some("no --rclcpp DIR given")
        ),
    }

    // Long runs, each process's memory once a second.
    for load in ["pubsub", "service", "action"] {
        has(format!("long.{load}.cpu_pct_core"));
        has(format!("long.{load}.rss_growth_pct"));
        for process in ["serving", "measuring"] {
            has(format!("long.{load}.{process}.rss_growth_pct"));
        }
    }
    match &rclcpp {
        Some(_) => {
            for load in ["pubsub", "service"] {
                for executor in ["rclcpp-single", "rclcpp-events"] {
                    has(format!("long.{load}.{executor}.cpu_pct_core"));
                    has(format!("long.{load}.{executor}.rss_growth_pct"));
                }
            }
        }
        None => assert_eq!(
            skipped(notes, "rclcpp's long runs"),
            Some("no --rclcpp DIR given")
        ),
    }

    // Memory scaling, and on DDS too where a network namespace can be made.
    let mut scaled = vec!["scaling.wait-set", "scaling.events"];
    if skipped(notes, "memory scaling over DDS").is_none() {
        scaled.push("scaling.dds.wait-set");
    }
    for key in scaled {
        for nodes in [1, 10] {
            has(format!("{key}.{nodes}.rss_kb"));
        }
        has(format!("{key}.kb_per_node"));
    }

    let files: Vec<&str> = section.figures.iter().map(|f| f.file.as_str()).collect();
    for plot in &plots {
        assert!(files.contains(plot), "{plot} in {files:?}");
        let svg = std::fs::read_to_string(dir.join(plot)).unwrap();
        assert!(svg.starts_with("<svg"), "{plot}: {svg}");
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for part in [
        "**Pub/sub in one process**",
        "**Pub/sub in two processes**",
        "**Services and actions**",
        "**Long runs**",
        "**Memory scaling**",
    ] {
        assert!(md.contains(part), "{part}: {md}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
