//! `tacto action list|info|send_goal` against rclpy's `ActionServer` on the real
//! rmw_cyclonedds (`crates/tacto-dds/tests/rclpy/fibonacci_action.py`, test_msgs' Fibonacci,
//! whose `.action` comes from msggen's fixtures). Domain 101.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tacto_dds::{DiscoveryRange, DomainConfig, Participant};
use tacto_graph::Options;
use tacto_graph::action::{action_info, action_list, send_goal};

const DOMAIN: u32 = 101;

/// Cyclone's configuration for the tests: the loopback interface only.
const LOOPBACK_URI: &str = "<CycloneDDS><Domain><General><Interfaces>\
    <NetworkInterface name=\"lo\"/>\
    </Interfaces></General></Domain></CycloneDDS>";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// rclpy on rmw_cyclonedds, built by `scripts/setup.sh cyclone` from `../shared/peers`; `None`
/// (the test skipped, saying why) where the checkout has no `../shared`.
fn python_cyclone(test: &str) -> Option<PathBuf> {
    let root = repo_root();
    if !root
        .join("../shared/peers/build-rmw-cyclonedds.sh")
        .exists()
    {
        eprintln!(
            "test {test} ... skipped: no ../shared/peers beside the repository, so no rclpy \
             on rmw_cyclonedds to test against (see scripts/setup.sh)"
        );
        return None;
    }
    let status = Command::new("bash")
        .arg(root.join("scripts/setup.sh"))
        .arg("cyclone")
        .status()
        .expect("scripts/setup.sh runs");
    assert!(
        status.success(),
        "scripts/setup.sh cyclone failed ({status})"
    );
    let venv = std::env::var_os("TACTO_ROS2_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/ros2-venv"));
    Some(venv.join("bin/python-cyclone"))
}

/// The rclpy server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn rclpy_server(python: &Path) -> Server {
    let script = repo_root().join("crates/tacto-dds/tests/rclpy/fibonacci_action.py");
    let mut child = Command::new(python)
        .arg("-u")
        .arg(&script)
        .args(["server", "fibonacci"])
        .env("ROS_DOMAIN_ID", DOMAIN.to_string())
        .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        .env("CYCLONEDDS_URI", LOOPBACK_URI)
        .env_remove("ROS_LOCALHOST_ONLY")
        .env_remove("ROS_STATIC_PEERS")
        .env_remove("RMW_IMPLEMENTATION")
        .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the rclpy server starts");
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    assert_eq!(
        lines.next().and_then(Result::ok).as_deref(),
        Some("ready"),
        "the rclpy server did not start"
    );
    // Read on, so the server's prints never meet a closed pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Server(child)
}

fn participant() -> Participant {
    let mut config = DomainConfig::new(DOMAIN);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(LOOPBACK_URI.into());
    Participant::new(&config).expect("participant")
}

fn options() -> Options {
    Options {
        wait: Duration::from_secs(60),
        msg_paths: vec![repo_root().join("crates/tacto-msggen/tests/fixtures")],
        ..Options::default()
    }
}

fn never() -> bool {
    false
}

#[test]
fn list_info_and_send_goal_work_on_an_rclpy_action_server() {
    let Some(python) = python_cyclone("list_info_and_send_goal_work_on_an_rclpy_action_server")
    else {
        return;
    };
    let _server = rclpy_server(&python);
    let participant = participant();
    let options = options();

    // send_goal first: it waits for the server, so discovery has seen it for the others.
    let mut out = Vec::new();
    let goal = "{order: 5}";
    let ty = "test_msgs/action/Fibonacci";
    send_goal(
        &participant,
        &options,
        "/fibonacci",
        ty,
        goal,
        true,
        &mut out,
        &never,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "Waiting for an action server to become available..."
    );
    assert_eq!(&lines[1..3], ["Sending goal:", "     order: 5"]);
    assert!(lines[3].starts_with("Goal accepted with ID: "), "{text}");
    assert_eq!(
        lines[3].len(),
        "Goal accepted with ID: ".len() + 32,
        "{text}"
    );
    // As ros2cli prints a sequence after "    ": its first line indented, the rest not.
    assert!(
        text.contains("Feedback:\n    sequence:\n- 0\n- 1\n- 1\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "Result:\n    sequence:\n- 0\n- 1\n- 1\n- 2\n- 3\n- 5\nGoal finished with status: SUCCEEDED\n"
        ),
        "{text}"
    );

    let mut out = Vec::new();
    send_goal(
        &participant,
        &options,
        "fibonacci",
        "test_msgs/Fibonacci",
        "{order: 99}",
        false,
        &mut out,
        &never,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with("Goal was rejected.\n"), "{text}");

    let mut out = Vec::new();
    action_list(&participant, &options, true, false, &mut out, &never).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("/fibonacci [test_msgs/action/Fibonacci]\n"),
        "{text}"
    );

    let mut out = Vec::new();
    action_info(
        &participant,
        &options,
        "/fibonacci",
        false,
        false,
        &mut out,
        &never,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("Action: /fibonacci\nAction clients: "),
        "{text}"
    );
    assert!(
        text.ends_with("Action servers: 1\n    /fibonacci_server\n"),
        "{text}"
    );

    let mut out = Vec::new();
    action_info(
        &participant,
        &options,
        "/fibonacci",
        false,
        true,
        &mut out,
        &never,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with("Action servers: 1\n"), "{text}");
}

#[test]
fn send_goal_with_a_type_that_is_not_an_action_says_what_it_expected() {
    let participant = participant();
    let mut out = Vec::new();
    let error = send_goal(
        &participant,
        &options(),
        "/f",
        "Fibonacci",
        "{}",
        false,
        &mut out,
        &never,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("expected pkg/action/Type"), "{error}");
    let error = send_goal(
        &participant,
        &options(),
        "/f",
        "no_pkg/action/Nothing",
        "{}",
        false,
        &mut out,
        &never,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("no_pkg/action/Nothing_SendGoal_Request"),
        "{error}"
    );
}
