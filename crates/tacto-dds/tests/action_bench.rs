//! A short run of the action benchmark (`examples/fibonacci_action_bench.rs`), in one process
//! and in two over DDS: no goal lost, and memory flat after the warm-up. Domain 102.

use std::path::PathBuf;
use std::process::Command;

/// The built example, which `cargo test -p tacto-dds` builds before the tests.
fn example(name: &str) -> PathBuf {
    let path = std::env::current_exe()
        .expect("test binary")
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir")
        .join("examples")
        .join(name);
    assert!(
        path.exists(),
        "{} is not built: run `cargo test -p tacto-dds` (which builds the examples) or \
         `cargo build -p tacto-dds --examples` first",
        path.display()
    );
    path
}

/// The loopback interface only: the benchmark's processes talk to each other and nothing else.
const LOOPBACK_URI: &str = "<CycloneDDS><Domain><General><Interfaces>\
    <NetworkInterface name=\"lo\"/></Interfaces></General></Domain></CycloneDDS>";

/// A number of the benchmark's JSON line.
fn field(json: &str, name: &str) -> f64 {
    let start = json.find(&format!("\"{name}\":")).expect(name) + name.len() + 3;
    let end = json[start..].find([',', '}']).expect("end") + start;
    json[start..end]
        .parse()
        .unwrap_or_else(|_| panic!("{name} in {json}"))
}

fn run(processes: &str) {
    // 30 s measured after 10 s of warm-up: 300 goals, 3000 feedback messages, 30 RSS samples.
    let output = Command::new(example("fibonacci_action_bench"))
        .args([
            "--duration",
            "30",
            "--warmup",
            "10",
            "--processes",
            processes,
        ])
        .env("ROS_DOMAIN_ID", "102")
        .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        .env("CYCLONEDDS_URI", LOOPBACK_URI)
        .output()
        .expect("the benchmark runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the benchmark failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = stdout.lines().last().expect("a JSON line");
    assert_eq!(field(json, "lost"), 0.0, "{stdout}");
    assert_eq!(field(json, "rejected"), 0.0, "{stdout}");
    assert!(field(json, "measured_goals") >= 250.0, "{stdout}");
    assert!(field(json, "rss_growth_percent") < 1.0, "{stdout}");
    // The heap in use, which a leak moves and the first touch of Cyclone's receive buffer's
    // pages does not (see the benchmark's docs).
    assert!(field(json, "heap_growth_percent") < 1.0, "{stdout}");
    if processes == "2" {
        assert!(field(json, "server_rss_growth_percent") < 1.0, "{stdout}");
        assert!(field(json, "server_heap_growth_percent") < 1.0, "{stdout}");
    }
}

#[test]
fn the_action_benchmark_loses_no_goal_and_keeps_memory_flat_in_one_process() {
    run("1");
}

#[test]
fn the_action_benchmark_loses_no_goal_and_keeps_memory_flat_in_two_processes() {
    run("2");
}
