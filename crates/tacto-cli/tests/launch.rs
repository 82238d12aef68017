//! `tacto launch`, run as a user runs it: the built binary on launch files written here, each
//! test's topics under a namespace of its own so that parallel tests never share one. Lines of
//! two processes may come in either order: every check waits for the line it needs, whatever
//! comes between (with a generous timeout, for a loaded machine).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use support::dds::{PATIENCE, RclpyNode};
use support::launch::{Launch, is_launched_process};
use support::{dds_env, text};

/// Longer than any wait of a working launch, even on a loaded 2-core machine.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Writes `processes` (TOML `[[process]]` tables) into a launch file named for `test`, with
/// its own namespace and no crunch, and starts `tacto launch` on it.
fn launch(test: &str, processes: &str) -> Launch {
    launch_with(test, processes, &[])
}

/// As [`launch`], with `env` set for the launch and its processes.
fn launch_with(test: &str, processes: &str, env: &[(&str, String)]) -> Launch {
    launch_with_topology(test, "reference-system", processes, env)
}

/// As [`launch_with`], of `topology`.
fn launch_with_topology(
    test: &str,
    topology: &str,
    processes: &str,
    env: &[(&str, String)],
) -> Launch {
    start(&launch_file(test, topology, processes), env)
}

/// `tacto launch` on the file at `path`, with `env` set for it and its processes.
fn start(path: &Path, env: &[(&str, String)]) -> Launch {
    Launch::spawn(support::launch::command(path, &[], env), TIMEOUT)
}

/// A launch file named for `test` of `topology`, with the test's own namespace, no crunch and
/// `processes`.
fn launch_file(test: &str, topology: &str, processes: &str) -> PathBuf {
    let namespace = support::launch::namespace(test);
    support::launch::write_file(
        test,
        &format!(
            "topology = \"{topology}\"\nnamespace = \"{namespace}\"\ncrunch = 0\ngrace_s = 10\n{processes}"
        ),
    )
}

/// A sensor in one process, the command node it feeds in the other.
const TWO: &str = r#"
[[process]]
name = "source"
nodes = ["EuclideanClusterSettings", "EuclideanClusterDetector"]
executor = "wait-set"

[[process]]
name = "sink"
nodes = ["IntersectionOutput"]
executor = "events"
"#;

#[test]
fn samples_flow_from_one_process_to_the_other_and_ctrl_c_stops_both() {
    let mut launch = launch("flow", TWO);
    let source = launch.next_started("source");
    let sink = launch.next_started("sink");
    // The sink's command node runs only on samples from the other process.
    launch.take("of the sink receiving", |l| {
        l.starts_with("[sink] receiving: ")
    });
    launch.signal(libc::SIGINT);
    let status = launch.wait();
    assert_eq!(status.code(), Some(130), "{}", launch.seen.join("\n"));
    let stopped = |name: &str| format!("tacto: [{name}] stopped (exit status: 0)");
    for name in ["source", "sink"] {
        assert!(
            launch.seen.contains(&stopped(name)),
            "{}",
            launch.seen.join("\n")
        );
    }
    assert!(
        launch
            .seen
            .iter()
            .any(|l| l.starts_with("[sink] stopped: ")),
        "the sink says what it received: {}",
        launch.seen.join("\n")
    );
    for pid in [source, sink] {
        assert!(
            !is_launched_process(pid),
            "process {pid} outlived the launch"
        );
    }
}

#[test]
fn over_dds_samples_flow_between_the_processes_and_each_reports_its_cpu() {
    let env = dds_env(120);
    let mut launch = launch_with("dds", &format!("transport = \"dds\"\n{TWO}"), &env);
    launch.next_started("source");
    launch.next_started("sink");
    launch.take("of the sink receiving", |l| {
        l.starts_with("[sink] receiving: ")
    });
    launch.signal(libc::SIGINT);
    assert_eq!(
        launch.wait().code(),
        Some(130),
        "{}",
        launch.seen.join("\n")
    );
    for name in ["source", "sink"] {
        let cpu = format!("[{name}] cpu: ");
        assert!(
            launch
                .seen
                .iter()
                .any(|l| l.starts_with(&cpu) && l.contains("% of a core")),
            "{}",
            launch.seen.join("\n")
        );
    }
}

/// The period of the reference system's node `name`, as its topology file declares it.
fn declared_period(name: &str) -> Duration {
    let path =
        support::repo_root().join("crates/tacto-bench/topologies/autoware_reference_system.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let nodes = file["nodes"].as_array().unwrap();
    let node = nodes.iter().find(|n| n["name"] == name).unwrap();
    Duration::from_millis(node["period_ms"].as_u64().unwrap())
}

/// The `key value` pairs of a command node's `command NAME: ` line, e.g. `samples 80`.
fn arrivals(line: &str) -> Vec<(String, String)> {
    let (_, pairs) = line.split_once(": ").unwrap();
    (pairs.split(", "))
        .map(|pair| {
            let (key, value) = pair.split_once(' ').unwrap();
            (key.to_owned(), value.to_owned())
        })
        .collect()
}

#[test]
fn over_shm_and_dds_samples_flow_between_the_processes() {
    let env = dds_env(153);
    let file = format!("transport = \"shm+dds\"\n{TWO}");
    let mut launch = launch_with("shm_dds", &file, &env);
    launch.next_started("source");
    launch.next_started("sink");
    launch.take("of the sink receiving", |l| {
        l.starts_with("[sink] receiving: ")
    });
    // Two seconds of samples: 80 at the sensor's 25 ms.
    thread::sleep(Duration::from_secs(2));
    launch.signal(libc::SIGINT);
    assert_eq!(
        launch.wait().code(),
        Some(130),
        "{}",
        launch.seen.join("\n")
    );
    let prefix = "[sink] command IntersectionOutput: ";
    let line = (launch.seen.iter())
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{}", launch.seen.join("\n")));
    let facts = arrivals(line);
    let fact = |key: &str| -> &str {
        let (_, value) =
            (facts.iter().find(|(k, _)| k == key)).unwrap_or_else(|| panic!("no {key} in {line}"));
        value
    };
    let count = |key: &str| -> u64 { fact(key).parse().unwrap() };
    let (first, last) = fact("numbers").split_once("..=").unwrap();
    let (first, last): (u64, u64) = (first.parse().unwrap(), last.parse().unwrap());

    // Once, through shared memory: between two tacto processes of one host, DDS leaves the
    // samples to shared memory, so none comes without the shared-memory sequence number and
    // none comes twice.
    assert_eq!((count("over_dds"), count("again")), (0, 0), "{line}");
    // Every sequence number from the first taken to the last is taken or counted missed.
    assert_eq!(
        count("samples") + count("missed"),
        last - first + 1,
        "{line}"
    );
    // Each message carries what its path adds, and nothing else: the sensor's entry and the
    // intersection node's, the only nodes between the two processes' ends.
    assert_eq!(fact("entries"), "2..=2", "{line}");
    // The rate: the sensor's period gives 40 per second, which the sink receives. Half of it
    // is a bound a loaded machine does not break over two seconds, while a sink that hears
    // every other sample, or a transport that loses half, does.
    let per_s: f64 = fact("per_s").parse().unwrap();
    let declared = 1.0 / declared_period("EuclideanClusterSettings").as_secs_f64();
    assert!(2.0 * per_s >= declared, "{line}: {declared}/s declared");
    assert!(2 * count("samples") >= 40, "{line}");
}

#[test]
fn nobleo_over_dds_each_process_hears_every_topic_of_the_other() {
    let env = dds_env(121);
    let file = r#"
[[process]]
name = "one"
nodes = ["node_0"]
executor = "wait-set"

[[process]]
name = "rest"
nodes = ["node_1", "node_2", "node_3", "node_4", "node_5", "node_6", "node_7", "node_8", "node_9"]
executor = "events"
"#;
    let mut launch = launch_with_topology(
        "nobleo_dds",
        "nobleo",
        &format!("transport = \"dds\"\n{file}"),
        &env,
    );
    launch.next_started("one");
    launch.next_started("rest");
    for name in ["one", "rest"] {
        let all = format!("[{name}] hearing all 20 topics");
        launch.take(&all, |l| l == all);
    }
    launch.signal(libc::SIGINT);
    assert_eq!(
        launch.wait().code(),
        Some(130),
        "{}",
        launch.seen.join("\n")
    );
    for name in ["one", "rest"] {
        let heard = format!("[{name}] stopped: ");
        assert!(
            (launch.seen.iter())
                .any(|l| l.starts_with(&heard) && l.contains("; 20 of its 20 topics heard")),
            "{}",
            launch.seen.join("\n")
        );
    }
}

/// nobleo's ten nodes, one process each: every topic has ten subscriptions on the host, more
/// than a shared-memory topic serves by default (8); the `[shm]` table raises it for all.
#[test]
fn nobleo_one_process_per_node_over_shm_hears_every_topic_with_the_limit_raised() {
    let processes: String = (0..10)
        .map(|i| {
            format!(
                "[[process]]\nname = \"p{i}\"\nnodes = [\"node_{i}\"]\nexecutor = \"wait-set\"\n"
            )
        })
        .collect();
    let mut launch = launch_with_topology(
        "nobleo_shm",
        "nobleo",
        &format!("[shm]\nmax_subscribers = 16\n{processes}"),
        &[],
    );
    for i in 0..10 {
        let all = format!("[p{i}] hearing all 20 topics");
        launch.take(&all, |l| l == all);
    }
    launch.signal(libc::SIGINT);
    assert_eq!(
        launch.wait().code(),
        Some(130),
        "{}",
        launch.seen.join("\n")
    );
    assert!(
        !launch.seen.iter().any(|l| l.contains("failed")),
        "{}",
        launch.seen.join("\n")
    );
}

#[test]
fn a_killed_process_is_restarted_under_on_failure_and_not_under_never() {
    let mut launch = launch(
        "restart",
        r#"
[[process]]
name = "kept"
nodes = ["Visualizer"]
executor = "callback"
restart = "on-failure"
max_restarts = 1

[[process]]
name = "dropped"
nodes = ["Lanelet2Map"]
executor = "callback"
restart = "never"
"#,
    );
    let kept = launch.next_started("kept");
    let dropped = launch.next_started("dropped");
    launch.take("of kept running", |l| l.starts_with("[kept] running "));
    launch.take("of dropped running", |l| {
        l.starts_with("[dropped] running ")
    });
    for pid in [kept, dropped] {
        // SAFETY: a plain system call; `pid` is a child of the launch, which has not waited
        // for it (it has not ended), so the id is still its own.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    }
    launch.take("of kept restarting", |l| {
        l == "tacto: [kept] failed (signal: 9 (SIGKILL)); restarting (1 of 1)"
    });
    launch.take("of dropped not restarted", |l| {
        l == "tacto: [dropped] failed (signal: 9 (SIGKILL)); not restarted (restart = never)"
    });
    let again = launch.next_started("kept");
    assert_ne!(again, kept);
    launch.take("of kept running again", |l| {
        l.starts_with("[kept] running ")
    });
    launch.signal(libc::SIGTERM);
    let status = launch.wait();
    assert_eq!(status.code(), Some(130), "{}", launch.seen.join("\n"));
    let starts = |name: &str| {
        let prefix = format!("tacto: [{name}] started");
        launch
            .seen
            .iter()
            .filter(|l| l.starts_with(&prefix))
            .count()
    };
    assert_eq!((starts("kept"), starts("dropped")), (2, 1));
    assert!(!is_launched_process(again));
}

#[test]
fn a_bad_file_is_refused_with_the_line_and_field() {
    let path = launch_file(
        "bad",
        "reference-system",
        "[[process]]\nname = \"a\"\nnodes = [\"Lidar\"]\nexecutor = \"wait-set\"\n",
    );
    let output = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("launch")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let expected = format!(
        "tacto: {}:7:10: process \"a\": nodes: topology \"reference-system\" has no node \"Lidar\"\n",
        path.display()
    );
    assert_eq!(stderr, expected);
}

#[test]
fn bench_over_a_launch_file_runs_its_processes_on_each_executor_and_adds_them_up() {
    // The shipped file, its topics under the test's namespace.
    let shipped = include_str!("../../tacto-bench/launch/reference_system_by_chain.toml");
    let processes: String = (shipped.lines())
        .filter(|line| !line.starts_with("topology"))
        .map(|line| format!("{line}\n"))
        .collect();
    let path = launch_file("bench", "reference-system", &processes);
    let json = std::env::temp_dir().join(format!("tacto-bench-launch-{}.json", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("bench")
        .arg(&path)
        .args([
            "--executor",
            "wait-set",
            "--warmup",
            "3",
            "--duration",
            "4",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let run = &report["runs"][0];
    // The bench's executor, not the file's.
    assert_eq!(run["executor"], "wait-set", "{report}");
    assert_eq!(
        run["notes"][0],
        "8 processes over shared memory: CPU, memory, wake-ups and drops are their sums"
    );
    // Measured end to end across processes: the lidars' chains to the command nodes.
    let hot_path = run["hot_path_latency_ms"]["n"].as_u64().unwrap_or(0);
    assert!(hot_path > 0, "{report}");
    assert!(run["cpu_s"].as_f64().unwrap_or(0.0) > 0.0, "{report}");
    // Each process's own figures; the run's memory is theirs added up.
    let processes = run["processes"].as_array().expect("processes");
    assert_eq!(processes.len(), 8, "{report}");
    assert_eq!(processes[0]["name"], "front_lidar");
    let rss: u64 = (processes.iter())
        .map(|p| p["rss_end_kb"].as_u64().unwrap_or(0))
        .sum();
    assert!(
        rss > 0 && run["rss_end_kb"].as_u64() == Some(rss),
        "{report}"
    );
    // Each process's memory once a second over the 4 s window.
    for process in processes {
        let samples = process["rss_kb_per_s"].as_array().map_or(0, Vec::len);
        assert_eq!(samples, 4, "{process}");
    }

    let refused = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("bench")
        .arg(&path)
        .args(["--executor", "prioritized", "--duration", "1"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("prioritized is a layout"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[test]
fn an_exec_process_gets_its_ros_arguments_and_its_lines_are_passed_on() {
    // sh prints the arguments it was given after its script: what a node would get.
    let path = support::launch::write_file(
        "exec",
        r#"
[[process]]
name = "shell"
exec = "sh"
args = ["-c", "echo \"$*\"; echo \"$ROBOT\"", "sh"]
env = { ROBOT = "r2" }
node_name = "talker"
namespace = "robot1"
parameters = { rate = 10.0 }
remaps = [{ from = "chatter", to = "out" }]
"#,
    );
    let mut launch = start(&path, &[]);
    launch.next_started("shell");
    let status = launch.wait();
    assert!(status.success(), "{}", launch.seen.join("\n"));
    for line in [
        "[shell] --ros-args -r __node:=talker -r __ns:=/robot1 -p rate:=10.0 -r chatter:=out",
        "[shell] r2",
        "tacto: [shell] ended (exit status: 0)",
    ] {
        assert!(
            launch.seen.iter().any(|l| l == line),
            "no {line:?} in:\n{}",
            launch.seen.join("\n")
        );
    }
    // tacto bench measures built-in nodes only.
    let refused = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("bench")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("process \"shell\" runs an executable"),
        "{}",
        text(&refused.stderr)
    );
    std::fs::remove_file(&path).unwrap();
}

/// What `gyro_peer.py` sent in cycle k: the stamps of its IMU sample and its vehicle twist (a
/// fusion carries the later of its last two).
struct Sent {
    imu_stamp: (i32, u32),
    twist_stamp: (i32, u32),
}

/// The original's fusion of cycles `first..=last` of one side, as `gyro_peer.py` sends them
/// (`value · k` and `variance · k`): the mean value and the mean variance divided by the number
/// of samples, summed in arrival order as the node sums them, so equal to the last bit.
fn fused_side(first: usize, last: usize, value: f64, variance: f64) -> (f64, f64) {
    let n = (last - first + 1) as f64;
    let (mut sum, mut variances) = (0.0, 0.0);
    for k in first..=last {
        sum += value * k as f64;
        variances += variance * k as f64;
    }
    (sum / n, variances / n / n)
}

/// The cycles `(first, last)` whose samples of one side, fused, give `got` (mean, variance).
fn fused_cycles(
    got: (f64, f64),
    cycles: usize,
    value: f64,
    variance: f64,
) -> Option<(usize, usize)> {
    (1..=cycles)
        .flat_map(|first| (first..=cycles).map(move |last| (first, last)))
        .find(|&(first, last)| fused_side(first, last, value, variance) == got)
}

/// The gyro_odometer example, started by its shipped launch file (its params file, its
/// remaps, its namespace) in DDS domain 50, fed by an rclpy node on Fast DDS: every fused
/// twist it publishes on the remapped output under the namespace is the one the original's
/// computation gives for the samples it fused, and the params file's values are the node's.
#[test]
fn the_gyro_odometer_example_launched_with_its_params_and_remaps_fuses_what_rclpy_sends() {
    const DOMAIN: u32 = 50;
    const CYCLES: usize = 30;
    support::built_example("gyro_odometer");
    let file = support::repo_root().join("crates/tacto-dds/examples/gyro_odometer.launch.toml");
    let mut launch = start(&file, &dds_env(DOMAIN));
    launch.next_started("gyro_odometer");

    // The params file's values, as ros2 param reads them.
    let node = "/localization/twist_estimator/gyro_odometer";
    for (name, expected) in [
        ("message_timeout_sec", "Double value is: 0.2\n"),
        ("output_frame", "String value is: base_link\n"),
    ] {
        let deadline = Instant::now() + PATIENCE;
        let got = loop {
            let output = support::tacto(DOMAIN, &["param", "get", node, name])
                .output()
                .expect("the tacto binary runs");
            let got = text(&output.stdout);
            if got == expected || Instant::now() > deadline {
                break got;
            }
        };
        assert_eq!(got, expected, "{}", launch.seen.join("\n"));
    }

    let peer = RclpyNode::spawn(
        "gyro_peer.py",
        DOMAIN,
        &[
            "/sensing/imu/imu_data",
            "/sensing/vehicle_velocity_converter/twist_with_covariance",
            "/localization/twist_estimator/gyro_twist_with_covariance",
            &CYCLES.to_string(),
            "0.08",
        ],
    );
    let deadline = Instant::now() + PATIENCE;
    let mut sent: Vec<Sent> = Vec::new();
    let mut outputs: Vec<Vec<String>> = Vec::new();
    // Until the last cycle's fusion, or 2 s after the last cycle for one that did not come.
    // The last fusion may even come before the peer says it sent the last cycle: the node
    // fuses IMU sample k at its next run, which a late run on twist k - 1 can be.
    let mut after_last: Option<Instant> = None;
    let is_last = |out: &[String], sent: &[Sent]| {
        sent.get(CYCLES - 1)
            .is_some_and(|s| out[10..12] == [s.imu_stamp.0.to_string(), s.imu_stamp.1.to_string()])
    };
    loop {
        let until = after_last.map_or(deadline, |t| deadline.min(t + Duration::from_secs(2)));
        let Some(line) = peer.next_line(until) else {
            if after_last.is_some() && Instant::now() < deadline {
                break;
            }
            launch.drain();
            panic!(
                "the peer stopped or timed out after {} cycles and {} outputs: {}\nlaunch:\n{}",
                sent.len(),
                outputs.len(),
                peer.stderr(),
                launch.seen.join("\n")
            );
        };
        let fields: Vec<String> = line.split(' ').map(str::to_owned).collect();
        match fields[0].as_str() {
            "sent" => {
                let number = |i: usize| fields[i].parse::<u32>().expect("a stamp");
                sent.push(Sent {
                    imu_stamp: (number(2) as i32, number(3)),
                    twist_stamp: (number(4) as i32, number(5)),
                });
                if sent.len() == CYCLES {
                    after_last = Some(Instant::now());
                    if outputs.iter().any(|out| is_last(out, &sent)) {
                        break;
                    }
                }
            }
            "out" => {
                let last = is_last(&fields, &sent);
                outputs.push(fields);
                if last {
                    break;
                }
            }
            _ => {}
        }
    }

    // The original fuses on each input: IMU sample k (cycle k's first) completes the pair
    // with vehicle twist k - 1 (cycle 1's twist waits, as cycle 1's IMU sample came before any
    // twist). One sample each side: the means are the samples, the variances divided by 1; the
    // IMU's variances made isotropic (their largest, 0.003k); the later stamp, the IMU's.
    // A loaded machine may hold a sample back (a lost packet that Cyclone or Fast DDS resends,
    // a late run), and then the original queues the other side's samples and fuses several at
    // once; or it finds the latest sample older than message_timeout_sec (0.2 s) and drops
    // the queues. So each output must be the fusion of a run of consecutive cycles on each
    // side, exactly as the original computes it, carrying the later of the two runs' last
    // stamps; runs follow each other on each side; and such stalls, counted as the cycles
    // fused beyond one per output plus those lost, are at most 2.
    let mut imu_runs = Vec::new();
    let mut twist_runs = Vec::new();
    for out in &outputs {
        let value = |i: usize| out[i].parse::<f64>().expect("a float");
        let stamp = (
            out[10].parse::<i32>().unwrap(),
            out[11].parse::<u32>().unwrap(),
        );
        let (imu_variance, isotropic) = (value(7), [value(8), value(9)]);
        assert_eq!(
            isotropic, [imu_variance; 2],
            "isotropic IMU variances: {out:?}"
        );
        let imu = [(1, 0.01), (2, 0.02), (3, 0.03)]
            .map(|(i, value_k)| fused_cycles((value(i), imu_variance), CYCLES, value_k, 0.003));
        let (Some(imu), true) = (imu[0], imu[0] == imu[1] && imu[1] == imu[2]) else {
            panic!("no run of IMU samples fuses to {out:?}: {imu:?}");
        };
        let twist = fused_cycles((value(4), value(5)), CYCLES, 0.5, 0.01)
            .unwrap_or_else(|| panic!("no run of vehicle twists fuses to {out:?}"));
        assert_eq!(value(6), 100_000.0, "{out:?}");
        assert_eq!(out[12], "base_link");
        assert!(
            imu.0 >= 2,
            "cycle 1 has no twist before its IMU sample: {out:?}"
        );
        // An output may come before the peer prints its cycle's line (see above).
        if let (Some(last_imu), Some(last_twist)) = (sent.get(imu.1 - 1), sent.get(twist.1 - 1)) {
            let later = last_imu.imu_stamp.max(last_twist.twist_stamp);
            assert_eq!(
                stamp, later,
                "IMU cycles {imu:?}, twist cycles {twist:?}: {out:?}"
            );
        }
        imu_runs.push(imu);
        twist_runs.push(twist);
    }
    for runs in [&imu_runs, &twist_runs] {
        assert!(
            runs.windows(2).all(|w| w[0].1 < w[1].0),
            "runs of cycles fused out of order or twice: IMU {imu_runs:?}, twist {twist_runs:?}"
        );
    }
    let fused: Vec<usize> = imu_runs.iter().flat_map(|&(a, b)| a..=b).collect();
    // The first fusions may be lost: the peer starts once it sees the node's output writer,
    // but the writer may match the peer's reader a little later (discovery is not symmetric),
    // and the output is volatile. A lost fusion, or a stall the node logs, shows in the
    // launch's lines, which the message carries.
    let first = fused.first().copied().unwrap_or(CYCLES + 1);
    let lost = (first..=CYCLES).filter(|k| !fused.contains(k)).count();
    let merged = fused.len() - imu_runs.len();
    if lost + merged > 0 {
        launch.drain();
    }
    assert!(
        first <= CYCLES / 2 && lost + merged <= 2,
        "IMU cycles fused {imu_runs:?}, twist cycles {twist_runs:?} of 2..={CYCLES}\nlaunch:\n{}",
        launch.seen.join("\n")
    );
    println!("IMU cycles fused {imu_runs:?}, twist cycles {twist_runs:?} of 2..={CYCLES}");
    launch.signal(libc::SIGINT);
    assert_eq!(
        launch.wait().code(),
        Some(130),
        "{}",
        launch.seen.join("\n")
    );
}
