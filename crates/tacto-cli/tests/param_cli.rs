//! `tacto param` against the parameter services of rclcpp and rclpy: the `talker` of the
//! rclcpp Jazzy peer (`../shared/peers/install-rclcpp.sh`: rclcpp on rmw_cyclonedds, built
//! from source), whose node serves the six parameter services as every rclcpp node does, and an
//! rclpy node with parameters of every kind of descriptor (`tests/rclpy/param_node.py`, on
//! rmw_cyclonedds: `python-cyclone`). Expected outputs are `ros2 param`'s (ros2cli Jazzy,
//! `ros2param/verb/*.py` and `ros2param/api/__init__.py`) and rclcpp's and rclpy's reason
//! texts. Without `../shared` beside the project (a plain clone), each test says it is skipped
//! and why. DDS domains 55, 56 and 61 to 63.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::dds::{PATIENCE, RclpyNode, rclpy_on_cyclone};
use support::{dds_env, text};

/// The `tacto` binary with `args` in `domain`, run to its end.
fn tacto(domain: u32, args: &[&str]) -> Output {
    support::tacto(domain, args)
        .output()
        .expect("the tacto binary runs")
}

/// rclcpp's peer unpacked under `target/` (a no-op once done); `None` without `../shared`,
/// which a plain clone does not have. With `../shared`, a failed install fails the test.
fn rclcpp_peer() -> Option<PathBuf> {
    let root = support::repo_root();
    let script = root.join("../shared/peers/install-rclcpp.sh");
    if !script.exists() {
        eprintln!(
            "skipped: no {}: the rclcpp peer comes with ../shared (CI has it)",
            script.display()
        );
        return None;
    }
    let dir = root.join("target/rclcpp-peer");
    std::fs::create_dir_all(&dir).expect("target/ is writable");
    // One install at a time, across tests and test binaries: it unpacks into one folder.
    let status = Command::new("flock")
        .arg(dir.join(".lock"))
        .arg("bash")
        .arg(&script)
        .arg(&dir)
        .stdout(Stdio::null())
        .status()
        .expect("flock and bash run");
    assert!(
        status.success(),
        "{} {}: {status}",
        script.display(),
        dir.display()
    );
    Some(dir.join("rclcpp-jazzy"))
}

/// rclcpp's `talker` (node `/talker`, `std_msgs/String` on `chatter`), killed on drop.
struct Talker(Child);

impl Talker {
    fn start(peer: &Path, domain: u32) -> Talker {
        let child = Command::new("bash")
            .arg("-c")
            .arg("source \"$1/env.sh\" none && exec \"$RCLCPP_PEER/chatter/lib/peer_chatter/talker\"")
            .arg("talker")
            .arg(peer)
            .envs(dds_env(domain))
            .env_remove("ROS_STATIC_PEERS")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("bash runs");
        Talker(child)
    }
}

impl Drop for Talker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `args` until its stdout holds `expected` (a loaded machine may need more than the
/// first discovery), for at most a minute; the last output.
fn until(domain: u32, args: &[&str], expected: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let output = tacto(domain, args);
        if text(&output.stdout).contains(expected) || Instant::now() > deadline {
            return output;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

macro_rules! peer_or_skip {
    () => {
        match rclcpp_peer() {
            Some(peer) => peer,
            None => return,
        }
    };
}

#[test]
fn list_get_and_describe_read_an_rclcpp_nodes_parameters() {
    let peer = peer_or_skip!();
    const DOMAIN: u32 = 61;
    let _talker = Talker::start(&peer, DOMAIN);
    let listed = until(DOMAIN, &["param", "list", "/talker"], "use_sim_time");
    assert_eq!(
        text(&listed.stdout),
        "  qos_overrides./parameter_events.publisher.depth\n  \
         qos_overrides./parameter_events.publisher.durability\n  \
         qos_overrides./parameter_events.publisher.history\n  \
         qos_overrides./parameter_events.publisher.reliability\n  \
         start_type_description_service\n  use_sim_time\n",
        "{}",
        text(&listed.stderr)
    );
    // Every node, each under its name: the talker's list is the same, indented under it.
    let every = until(DOMAIN, &["param", "list"], "/talker:");
    assert!(
        text(&every.stdout).starts_with("/talker:\n  qos_overrides./parameter_events"),
        "{}",
        text(&every.stdout)
    );
    let typed = tacto(
        DOMAIN,
        &[
            "param",
            "list",
            "/talker",
            "--param-type",
            "--filter",
            "use",
        ],
    );
    assert_eq!(text(&typed.stdout), "  use_sim_time (type: boolean)\n");

    let got = tacto(DOMAIN, &["param", "get", "/talker", "use_sim_time"]);
    assert_eq!(text(&got.stdout), "Boolean value is: False\n");
    let hidden = tacto(
        DOMAIN,
        &["param", "get", "talker", "use_sim_time", "--hide-type"],
    );
    assert_eq!(text(&hidden.stdout), "False\n");
    let depth = tacto(
        DOMAIN,
        &[
            "param",
            "get",
            "/talker",
            "qos_overrides./parameter_events.publisher.depth",
        ],
    );
    assert_eq!(text(&depth.stdout), "Integer value is: 1000\n");

    let described = tacto(DOMAIN, &["param", "describe", "/talker", "use_sim_time"]);
    assert_eq!(
        text(&described.stdout),
        "Parameter name: use_sim_time\n  Type: boolean\n  Constraints:\n"
    );
}

#[test]
fn set_load_dump_and_delete_change_an_rclcpp_nodes_parameters_or_say_why_not() {
    let peer = peer_or_skip!();
    const DOMAIN: u32 = 62;
    let _talker = Talker::start(&peer, DOMAIN);
    until(DOMAIN, &["param", "list", "/talker"], "use_sim_time");

    let set = tacto(DOMAIN, &["param", "set", "/talker", "use_sim_time", "true"]);
    assert_eq!(text(&set.stdout), "Set parameter successful\n");
    let got = tacto(DOMAIN, &["param", "get", "/talker", "use_sim_time"]);
    assert_eq!(text(&got.stdout), "Boolean value is: True\n");

    // Refused by rclcpp, with its reason; ros2param prints it on stderr and exits 0.
    let wrong = tacto(DOMAIN, &["param", "set", "/talker", "use_sim_time", "5"]);
    assert!(wrong.status.success());
    assert_eq!(text(&wrong.stdout), "");
    assert!(
        text(&wrong.stderr).contains(
            "Setting parameter failed: Wrong parameter type, parameter {use_sim_time} is of \
             type {bool}, setting it to {integer} is not allowed."
        ),
        "{}",
        text(&wrong.stderr)
    );

    let dumped = tacto(DOMAIN, &["param", "dump", "/talker"]);
    let dumped = text(&dumped.stdout);
    assert!(
        dumped.starts_with("/talker:\n  ros__parameters:\n    qos_overrides:\n"),
        "{dumped}"
    );
    assert!(
        dumped.contains(
            "        publisher:\n          depth: 1000\n          durability: volatile\n"
        ),
        "{dumped}"
    );
    assert!(
        dumped.ends_with("    start_type_description_service: true\n    use_sim_time: true\n\n"),
        "{dumped}"
    );

    // What dump printed loads back: here with use_sim_time turned off again.
    let dir = std::env::temp_dir().join(format!("tacto-param-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("talker.yaml");
    std::fs::write(
        &file,
        dumped.replace("use_sim_time: true", "use_sim_time: false"),
    )
    .unwrap();
    let loaded = tacto(
        DOMAIN,
        &["param", "load", "/talker", file.to_str().unwrap()],
    );
    let loaded_out = text(&loaded.stdout);
    assert!(
        loaded_out.contains("Set parameter use_sim_time successful\n"),
        "{loaded_out}"
    );
    // rclcpp refuses a read-only QoS override after the node started.
    assert!(
        text(&loaded.stderr).contains(
            "Set parameter qos_overrides./parameter_events.publisher.depth failed: \
             parameter 'qos_overrides./parameter_events.publisher.depth' cannot be set \
             because it is read-only"
        ),
        "{}",
        text(&loaded.stderr)
    );
    let got = tacto(DOMAIN, &["param", "get", "/talker", "use_sim_time"]);
    assert_eq!(text(&got.stdout), "Boolean value is: False\n");
    std::fs::remove_dir_all(&dir).unwrap();

    // A declared parameter of a node that does not allow undeclared ones stays.
    let deleted = tacto(DOMAIN, &["param", "delete", "/talker", "use_sim_time"]);
    assert!(
        text(&deleted.stderr).starts_with("Deleting parameter failed"),
        "{}",
        text(&deleted.stderr)
    );
}

#[test]
fn a_node_that_is_not_there_is_reported_with_ros2params_text() {
    // Needs no peer: nothing runs in this domain.
    const DOMAIN: u32 = 63;
    let output = tacto(DOMAIN, &["param", "get", "/nobody", "x", "--wait-s", "1"]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("Node not found"),
        "{}",
        text(&output.stderr)
    );
    let bad = tacto(DOMAIN, &["param", "list", "--filter", "(", "--wait-s", "0"]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("--filter"),
        "{}",
        text(&bad.stderr)
    );
}

/// `tests/rclpy/param_node.py` on rmw_cyclonedds in `domain`, once its parameter services
/// answer `tacto param list`; `None` (the test skipped, saying why) without the peer.
fn rclpy_params(test: &str, domain: u32) -> Option<RclpyNode> {
    let node = rclpy_on_cyclone(test)?.spawn("param_node.py", domain, &[]);
    let ready = node.next_line(Instant::now() + PATIENCE);
    assert_eq!(ready.as_deref(), Some("ready"), "{}", node.stderr());
    let listed = until(domain, &["param", "list", "/rclpy_params"], "use_sim_time");
    assert!(
        text(&listed.stdout).contains("use_sim_time"),
        "{}\nrclpy: {}",
        text(&listed.stderr),
        node.stderr()
    );
    Some(node)
}

// Expected outputs from ros2cli's ros2param/verb/list.py (sorted, indented; `--param-type`
// adds get_parameter_type_string's name), get.py (a label per type, Python's str of the
// value) and describe.py (name, type, description if any, constraints: read-only, the range's
// min, max and step if not 0, additional constraints).
#[test]
fn list_get_and_describe_read_an_rclpy_nodes_declared_parameters() {
    const DOMAIN: u32 = 55;
    let Some(_node) = rclpy_params(
        "list_get_and_describe_read_an_rclpy_nodes_declared_parameters",
        DOMAIN,
    ) else {
        return;
    };
    let typed = tacto(DOMAIN, &["param", "list", "/rclpy_params", "--param-type"]);
    assert_eq!(
        text(&typed.stdout),
        "  count (type: integer)\n  enabled (type: boolean)\n  extra (type: integer)\n  \
         gain (type: double)\n  mode (type: string)\n  names (type: string array)\n  \
         start_type_description_service (type: boolean)\n  use_sim_time (type: boolean)\n",
        "{}",
        text(&typed.stderr)
    );
    for (name, expected) in [
        ("gain", "Double value is: 0.5\n"),
        ("count", "Integer value is: 3\n"),
        ("mode", "String value is: fast\n"),
        ("names", "String values are: ['a', 'b']\n"),
        ("enabled", "Boolean value is: True\n"),
        ("use_sim_time", "Boolean value is: False\n"),
    ] {
        let got = tacto(DOMAIN, &["param", "get", "/rclpy_params", name]);
        assert_eq!(text(&got.stdout), expected, "{name}: {}", text(&got.stderr));
    }
    let described = tacto(
        DOMAIN,
        &[
            "param",
            "describe",
            "/rclpy_params",
            "gain",
            "count",
            "mode",
            "names",
        ],
    );
    assert_eq!(
        text(&described.stdout),
        "Parameter name: gain\n  Type: double\n  Description: how much to amplify\n  \
         Constraints:\n    Min value: 0.0\n    Max value: 10.0\n    Step: 0.5\n\
         Parameter name: count\n  Type: integer\n  Constraints:\n    Min value: 0\n    \
         Max value: 100\n    Step: 1\n    Additional constraints: at most 50\n\
         Parameter name: mode\n  Type: string\n  Constraints:\n    Read only: true\n\
         Parameter name: names\n  Type: string array\n  Constraints:\n",
        "{}",
        text(&described.stderr)
    );
}

// Expected outputs from ros2cli's set.py and delete.py ("Set parameter successful", or
// "Setting parameter failed: REASON" on stderr, exit 0), dump.py (yaml.dump of the node's
// parameters under ros__parameters, keys sorted, block style, and print's newline) and
// api/__init__.py's load_parameter_file ("Set parameter NAME successful", or "Set parameter
// NAME failed: REASON" on stderr); the reasons are rclpy's (node.py, _apply_descriptor and
// _set_parameters_atomically_common) and the node's own on-set callback's.
#[test]
fn set_dump_load_and_delete_change_an_rclpy_nodes_parameters_or_say_why_not() {
    const DOMAIN: u32 = 56;
    let Some(_node) = rclpy_params(
        "set_dump_load_and_delete_change_an_rclpy_nodes_parameters_or_say_why_not",
        DOMAIN,
    ) else {
        return;
    };
    let set =
        |name: &str, value: &str| tacto(DOMAIN, &["param", "set", "/rclpy_params", name, value]);
    for (name, value) in [("gain", "2.5"), ("count", "42")] {
        let accepted = set(name, value);
        assert_eq!(
            text(&accepted.stdout),
            "Set parameter successful\n",
            "{}",
            text(&accepted.stderr)
        );
    }
    for (name, value, reason) in [
        ("count", "60", "count must be at most 50"),
        ("mode", "slow", "Trying to set a read-only parameter: mode."),
        (
            "gain",
            "fast",
            "Wrong parameter type, expected 'Type.DOUBLE' got 'Type.STRING'",
        ),
        (
            "gain",
            "11.0",
            "Parameter gain out of range Min: 0.0, Max: 10.0, value: 11.0",
        ),
    ] {
        let refused = set(name, value);
        assert!(refused.status.success(), "{name} {value}");
        assert_eq!(text(&refused.stdout), "", "{name} {value}");
        assert_eq!(
            text(&refused.stderr),
            format!("Setting parameter failed: {reason}\n"),
            "{name} {value}"
        );
    }
    let got = tacto(DOMAIN, &["param", "get", "/rclpy_params", "count"]);
    assert_eq!(text(&got.stdout), "Integer value is: 42\n");

    let dumped = text(&tacto(DOMAIN, &["param", "dump", "/rclpy_params"]).stdout);
    assert_eq!(
        dumped,
        "/rclpy_params:\n  ros__parameters:\n    count: 42\n    enabled: true\n    extra: 1\n    \
         gain: 2.5\n    mode: fast\n    names:\n    - a\n    - b\n    \
         start_type_description_service: true\n    use_sim_time: false\n\n"
    );

    // What dump printed loads back, with two values changed: one accepted, one refused by the
    // callback; the read-only ones are refused as a set of them is.
    let dir = std::env::temp_dir().join(format!("tacto-param-rclpy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rclpy_params.yaml");
    std::fs::write(
        &file,
        dumped
            .replace("gain: 2.5", "gain: 1.5")
            .replace("count: 42", "count: 70"),
    )
    .unwrap();
    let loaded = tacto(
        DOMAIN,
        &["param", "load", "/rclpy_params", file.to_str().unwrap()],
    );
    assert_eq!(
        text(&loaded.stdout),
        "Set parameter enabled successful\nSet parameter extra successful\n\
         Set parameter gain successful\nSet parameter names successful\n\
         Set parameter use_sim_time successful\n",
        "{}",
        text(&loaded.stderr)
    );
    assert_eq!(
        text(&loaded.stderr),
        "Set parameter count failed: count must be at most 50\n\
         Set parameter mode failed: Trying to set a read-only parameter: mode.\n\
         Set parameter start_type_description_service failed: Trying to set a read-only \
         parameter: start_type_description_service.\n"
    );
    let got = tacto(DOMAIN, &["param", "get", "/rclpy_params", "gain"]);
    assert_eq!(text(&got.stdout), "Double value is: 1.5\n");
    std::fs::remove_dir_all(&dir).unwrap();

    // A dynamically typed parameter can be deleted; a statically typed one cannot.
    let deleted = tacto(DOMAIN, &["param", "delete", "/rclpy_params", "extra"]);
    assert_eq!(
        text(&deleted.stdout),
        "Deleted parameter successfully\n",
        "{}",
        text(&deleted.stderr)
    );
    let listed = tacto(DOMAIN, &["param", "list", "/rclpy_params"]);
    assert!(
        !text(&listed.stdout).contains("extra"),
        "{}",
        text(&listed.stdout)
    );
    let kept = tacto(DOMAIN, &["param", "delete", "/rclpy_params", "gain"]);
    assert_eq!(
        text(&kept.stderr),
        "Deleting parameter failed: Static parameter cannot be undeclared\n"
    );
}
