//! `tacto launch` of components, run as a user runs it: the built binary on launch files
//! written here, placing the `demo::Talker` and `demo::Listener` components it ships, each
//! test's topics under a namespace of its own and, where the launch watches the graph, in a DDS
//! domain of its own (122 to 126) on loopback.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::dds_env;
use support::launch::{Launch, is_launched_process, namespace};

/// Longer than any wait of a working launch, even on a loaded 2-core machine (rclpy included).
const TIMEOUT: Duration = Duration::from_secs(90);

/// Writes `text` into a launch file named for `test` and starts `tacto launch` on it with
/// `args` (NAME:=VALUE) and `env`.
fn launch(test: &str, text: &str, args: &[&str], env: &[(&str, String)]) -> (Launch, PathBuf) {
    let path = file(test, text);
    let launch = Launch::spawn(support::launch::command(&path, args, env), TIMEOUT);
    (launch, path)
}

/// A launch file of `text`, named for `test`.
fn file(test: &str, text: &str) -> PathBuf {
    support::launch::write_file(&format!("components-{test}"), text)
}

/// What the listener `node` heard in `seen`, by the talker's count, in the order heard.
fn heard(seen: &[String], node: &str) -> Vec<u64> {
    let prefix = format!("{node} heard: hello ");
    (seen.iter())
        .filter_map(|l| l.split_once("] ").map(|(_, rest)| rest))
        .filter_map(|l| l.strip_prefix(&prefix)?.parse().ok())
        .collect()
}

/// The talker's messages the listener heard in one run: every count from the first heard to
/// `last`, in order, once each.
fn contiguous_to(heard: &[u64], last: u64) -> bool {
    let Some(&first) = heard.first() else {
        return false;
    };
    heard.iter().copied().eq(first..=last)
}

#[test]
fn the_same_components_in_one_process_and_in_two_give_the_same_traffic() {
    const LAST: u64 = 39;
    let ns = namespace("placement");
    let talker = format!(
        "[[process.node]]\ncomponent = \"demo::Talker\"\nname = \"talker\"\nnamespace = \"{ns}\"\n\
         parameters = {{ period_ms = 50, count = {} }}\n",
        LAST + 1
    );
    let listener = format!(
        "[[process.node]]\ncomponent = \"demo::Listener\"\nname = \"listener\"\nnamespace = \"{ns}\"\n"
    );
    let one = format!("[[process]]\nname = \"both\"\nexecutor = \"events\"\n{listener}{talker}");
    let two = format!(
        "[[process]]\nname = \"listener\"\nexecutor = \"wait-set\"\n{listener}\
         [[process]]\nname = \"talker\"\nexecutor = \"callback\"\n{talker}"
    );
    let node = format!("/{ns}/listener");
    let mut runs = BTreeMap::new();
    for (placement, text) in [("one", one), ("two", two)] {
        let (mut launch, _) = launch(&format!("placement_{placement}"), &text, &[], &[]);
        let last = format!("{node} heard: hello {LAST}");
        launch.wait_for(&last, |l| l.ends_with(&last));
        assert_eq!(launch.interrupt(), Some(130), "{}", launch.seen.join("\n"));
        let heard = heard(&launch.seen, &node);
        assert!(
            contiguous_to(&heard, LAST),
            "{placement}: {heard:?}\n{}",
            launch.seen.join("\n")
        );
        runs.insert(placement, heard);
    }
    // In one process the listener hears from the first message; across processes, from the
    // first after shared memory connected the two: the same messages from there on.
    assert_eq!(runs["one"].first(), Some(&0), "{runs:?}");
    assert!(runs["one"].ends_with(&runs["two"]), "{runs:?}");
    assert!(runs["two"].len() as u64 > LAST / 2, "{runs:?}");
}

#[test]
fn a_killed_component_process_is_restarted_under_on_failure_and_the_rest_keep_running() {
    let ns = namespace("restart");
    let text = format!(
        "[[process]]\nname = \"talker\"\nrestart = \"on-failure\"\n\
         [[process.node]]\ncomponent = \"demo::Talker\"\nnamespace = \"{ns}\"\n\
         parameters = {{ period_ms = 50 }}\n\
         [[process]]\nname = \"listener\"\n\
         [[process.node]]\ncomponent = \"demo::Listener\"\nnamespace = \"{ns}\"\n"
    );
    let (mut launch, _) = launch("restart", &text, &[], &[]);
    let talker = launch.started("talker", 0);
    let listener = launch.started("listener", 0);
    let heard = format!("[listener] /{ns}/Listener heard: hello ");
    let count = |line: &str| line[heard.len()..].parse::<u64>().unwrap();
    launch.wait_for("of the listener hearing 20 messages", |l| {
        l.starts_with(&heard) && count(l) >= 20
    });
    // SAFETY: the talker's pid, a running child of the launch (it printed its start).
    unsafe { libc::kill(talker as libc::pid_t, libc::SIGKILL) };
    launch.wait_new("of the restart", |l| {
        l == "tacto: [talker] failed (signal: 9 (SIGKILL)); restarting (1 of 3)"
    });
    let again = launch.started("talker", 1);
    assert_ne!(again, talker);
    // The restarted talker counts from 0 again, and the listener, never restarted, hears it:
    // the old one had sent every count below 20 before it was killed.
    launch.wait_new("of the listener hearing the new talker", |l| {
        l.starts_with(&heard) && count(l) < 20
    });
    assert!(is_launched_process(listener), "the listener still runs");
    assert!(
        !launch
            .seen
            .iter()
            .any(|l| l.starts_with("tacto: [listener]") && !l.contains("started")),
        "{}",
        launch.seen.join("\n")
    );
    assert_eq!(launch.interrupt(), Some(130), "{}", launch.seen.join("\n"));
}

#[test]
fn a_process_waiting_for_a_service_that_never_comes_fails_naming_it() {
    let ns = namespace("never");
    let text = format!(
        "transport = \"shm+dds\"\n\
         [[process]]\nname = \"early\"\n\
         [[process.node]]\ncomponent = \"demo::Talker\"\nnamespace = \"{ns}\"\n\
         [[process]]\nname = \"late\"\nwait_for = [{{ service = \"/{ns}/never_there\", timeout_s = 1 }}]\n\
         [[process.node]]\ncomponent = \"demo::Listener\"\nnamespace = \"{ns}\"\n"
    );
    let (mut launch, path) = launch("never", &text, &[], &dds_env(122));
    let status = launch.wait();
    assert_eq!(status.code(), Some(1), "{}", launch.seen.join("\n"));
    // Said once, by the launch as it ends.
    let expected = format!(
        "tacto: process \"late\" waited 1 s for service /{ns}/never_there ({}:9:13): it did \
         not appear",
        path.display()
    );
    let said = launch.seen.iter().filter(|l| **l == expected).count();
    assert_eq!(said, 1, "{expected}\n{}", launch.seen.join("\n"));
    assert!(
        !launch
            .seen
            .iter()
            .any(|l| l.starts_with("tacto: [late] started")),
        "{}",
        launch.seen.join("\n")
    );
    assert!(
        launch
            .seen
            .iter()
            .any(|l| l.starts_with("tacto: [early] stopped")),
        "{}",
        launch.seen.join("\n")
    );
}

#[test]
fn a_managed_node_is_brought_up_before_the_process_that_waits_for_it_starts() {
    let ns = namespace("managed");
    let text = format!(
        "transport = \"shm+dds\"\n\
         [[process]]\nname = \"listener\"\nwait_for = [{{ active = \"/{ns}/talker\", timeout_s = 60 }}]\n\
         [[process.node]]\ncomponent = \"demo::Listener\"\nnamespace = \"{ns}\"\n\
         [[process]]\nname = \"talker\"\n\
         [[process.node]]\ncomponent = \"demo::Talker\"\nname = \"talker\"\nnamespace = \"{ns}\"\n\
         parameters = {{ managed = true, period_ms = 50 }}\n"
    );
    let (mut launch, _) = launch("managed", &text, &[], &dds_env(123));
    launch.started("talker", 0);
    launch.wait_for("of the listener's wait ending", |l| {
        l == "tacto: [listener] what it waits for is there"
    });
    launch.started("listener", 0);
    // The talker publishes only while active: the launch activated it.
    let heard = format!("[listener] /{ns}/Listener heard: hello ");
    launch.wait_for("of the listener hearing", |l| l.starts_with(&heard));
    assert_eq!(launch.interrupt(), Some(130), "{}", launch.seen.join("\n"));
}

#[test]
fn an_rclpy_process_in_a_group_gets_its_ros_arguments_and_hears_a_component() {
    let python = support::dds::python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rclpy/launched_node.py");
    let text = format!(
        r#"transport = "shm+dds"

[arg]
robot = {{ description = "the robot's namespace" }}

[[group]]
namespace = "$(var robot)"

[[group.process]]
name = "talker"
[[group.process.node]]
component = "demo::Talker"
parameters = {{ greeting = "from $(var robot)", period_ms = 100 }}

[[group.process]]
name = "rclpy"
exec = "{python}"
args = ["-u", "{script}"]
env = {{ RMW_IMPLEMENTATION = "rmw_fastrtps_cpp" }}
node_name = "watcher"
namespace = "eyes"
parameters = {{ gain = 2.5, label = "$(var robot)", ids = [1, 2] }}
remaps = [{{ from = "chatter", to = "/$(var robot)/chatter" }}]
"#,
        python = python.display(),
        script = script.display()
    );
    let robot = namespace("rclpy");
    let (mut launch, _) = launch("rclpy", &text, &[&format!("robot:={robot}")], &dds_env(124));
    // From inside rclpy: what launch_ros would have given it.
    for expected in [
        "[rclpy] name=watcher".to_string(),
        format!("[rclpy] namespace=/{robot}/eyes"),
        "[rclpy] param gain=2.5 float".into(),
        "[rclpy] param ids=[1, 2] list".into(),
        format!("[rclpy] param label='{robot}' str"),
        format!("[rclpy] resolved chatter=/{robot}/chatter"),
    ] {
        launch.wait_for(&expected, |l| l == expected);
    }
    // The component's traffic, over DDS, to the rclpy node.
    let heard = format!("[rclpy] heard from {robot} ");
    launch.wait_for("of rclpy hearing the talker", |l| l.starts_with(&heard));
    assert_eq!(launch.interrupt(), Some(130), "{}", launch.seen.join("\n"));
}

#[test]
fn an_undefined_argument_is_refused_before_anything_starts() {
    let (mut launch, path) = launch(
        "undefined",
        "[[process]]\nname = \"$(var who)\"\n[[process.node]]\ncomponent = \"demo::Talker\"\n",
        &[],
        &[],
    );
    assert_eq!(launch.wait().code(), Some(1), "{}", launch.seen.join("\n"));
    let expected = format!(
        "tacto: {}:2:9: $(var who): no argument \"who\" is declared (the file's [arg] table \
         has: none)",
        path.display()
    );
    assert!(
        launch.seen.contains(&expected),
        "{expected}\n{}",
        launch.seen.join("\n")
    );
    assert!(
        !launch.seen.iter().any(|l| l.contains("started")),
        "{}",
        launch.seen.join("\n")
    );
}

/// tacto-launch's `component_system` example: a launcher binary of one's own, with a
/// component of its own, built if it is not up to date.
fn component_system() -> PathBuf {
    support::built_example_of("tacto-launch", "component_system")
}

#[test]
fn a_binary_of_ones_own_hosts_its_components_beside_the_shipped_ones() {
    let example = support::repo_root().join("crates/tacto-launch/examples/shouting.toml");
    let ns = namespace("shouting");
    let text = std::fs::read_to_string(&example)
        .unwrap()
        .replace("\"shouting\"", &format!("\"{ns}\""));
    let path = file("shouting", &text);
    // `tacto` does not link the example's component: refused before anything starts, naming
    // the components it has.
    let refused = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("launch")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            ": process \"shouter\": node: component: no component \"example::Shouter\" in this \
             binary (it has: demo::Listener, demo::Talker, nobleo::node, "
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("started"), "{stderr}");
    // The example's binary has it, and tacto's too.
    let mut command = Command::new(component_system());
    command.arg(&path);
    let mut launch = Launch::spawn(command, TIMEOUT);
    let loud = format!("[shouter] /{ns}/Listener heard: HELLO ");
    launch.wait_for("of the listener hearing the shouter", |l| {
        l.starts_with(&loud)
    });
    assert_eq!(launch.interrupt(), Some(130), "{}", launch.seen.join("\n"));
}

/// Without CAP_SYS_NICE (dropped by `setpriv`, util-linux's), and with root's RLIMIT_RTPRIO of
/// 0, the OS refuses SCHED_FIFO: the launch says so with the line, before anything starts.
#[test]
fn a_priority_the_os_refuses_is_refused_before_anything_starts() {
    let path = file(
        "fifo",
        "[[process]]\nname = \"rt\"\nexecutor = \"wait-set\"\nfifo_priority = 10\n\
         [[process.node]]\ncomponent = \"demo::Talker\"\n",
    );
    let output = Command::new("setpriv")
        .args(["--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice"])
        .arg("prlimit")
        .arg("--rtprio=0")
        .arg(env!("CARGO_BIN_EXE_tacto"))
        .arg("launch")
        .arg(&path)
        .output()
        .expect("setpriv and prlimit (util-linux) run");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let expected = format!(
        "tacto: {}:4:17: process \"rt\": fifo_priority: the OS refuses SCHED_FIFO priority 10 \
         to this launch: ",
        path.display()
    );
    assert!(stderr.starts_with(&expected), "{expected}\n{stderr}");
    assert!(!stderr.contains("started"), "{stderr}");
}

#[test]
fn bench_over_a_file_of_components_measures_its_processes_as_placed() {
    let ns = namespace("bench");
    let path = file(
        "bench",
        &format!(
            "[[process]]\nname = \"talker\"\n[[process.node]]\ncomponent = \"demo::Talker\"\n\
             namespace = \"{ns}\"\nparameters = {{ period_ms = 20 }}\n\
             [[process]]\nname = \"listener\"\nexecutor = \"events\"\n\
             [[process.node]]\ncomponent = \"demo::Listener\"\nnamespace = \"{ns}\"\n"
        ),
    );
    let json = std::env::temp_dir().join(format!(
        "tacto-bench-components-{}.json",
        std::process::id()
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("bench")
        .arg(&path)
        .args(["--warmup", "0.5", "--duration", "2", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("2 processes of components"), "{stdout}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let run = &report["runs"][0];
    assert_eq!(run["executor"], "as placed", "{run}");
    let names: Vec<&str> = (run["processes"].as_array().unwrap().iter())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["talker", "listener"], "{run}");
    // The listener's process woke for the talker's messages, 50 a second.
    let listener = &run["processes"][1];
    assert!(listener["wakeups_per_s"].as_f64().unwrap() > 10.0, "{run}");
    // An option of the built-in topologies is refused.
    let refused = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .arg("bench")
        .arg(&path)
        .args(["--executor", "callback"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(
            "--executor applies to a built-in topology: a file of components runs as it places them"
        ),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
