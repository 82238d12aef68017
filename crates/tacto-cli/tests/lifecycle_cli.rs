//! `tacto lifecycle` against managed nodes of rclpy and of tacto, with `ros2 lifecycle`'s
//! expected outputs (ros2cli Jazzy, `ros2lifecycle/test/test_cli.py`), and driving the
//! `lifecycle_talker` example, whose messages must follow its state. The rclpy nodes are
//! `LifecycleNode`s on rmw_cyclonedds (`python-cyclone`, tacto-dds'
//! `tests/rclpy/lifecycle.py`): services do not cross Fast DDS and Cyclone. Without `../shared`
//! beside the project, the rclpy test says it is skipped and why. DDS domains 112 to 114.
//!
//! Where `ros2 lifecycle` ends with a message (`return 'Node not found'`), Python prints it
//! alone on stderr; `tacto` prints it after `tacto: `, as for its other commands.

mod support;

use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use support::dds::{PATIENCE, RclpyNode, loopback_participant, rclpy_on_cyclone};
use support::{built_example, dds_env, text};
use tacto::lifecycle::Callbacks;
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, ExecutorThread, WaitSetExecutor};
use tacto_dds::{DdsTransport, Qos, Reader};

/// `tacto lifecycle ARGS` in `domain`, run to its end.
fn lifecycle(domain: u32, args: &[&str]) -> Output {
    let mut all = vec!["lifecycle"];
    all.extend_from_slice(args);
    support::tacto(domain, &all)
        .output()
        .expect("the tacto binary runs")
}

/// test_cli.py's `ALL_LIFECYCLE_NODE_TRANSITIONS`: `list -a`'s lines.
const ALL_LIFECYCLE_NODE_TRANSITIONS: &str = "\
- configure [1]\n\tStart: unconfigured\n\tGoal: configuring
- transition_success [10]\n\tStart: configuring\n\tGoal: inactive
- transition_failure [11]\n\tStart: configuring\n\tGoal: unconfigured
- transition_error [12]\n\tStart: configuring\n\tGoal: errorprocessing
- cleanup [2]\n\tStart: inactive\n\tGoal: cleaningup
- transition_success [20]\n\tStart: cleaningup\n\tGoal: unconfigured
- transition_failure [21]\n\tStart: cleaningup\n\tGoal: inactive
- transition_error [22]\n\tStart: cleaningup\n\tGoal: errorprocessing
- activate [3]\n\tStart: inactive\n\tGoal: activating
- transition_success [30]\n\tStart: activating\n\tGoal: active
- transition_failure [31]\n\tStart: activating\n\tGoal: inactive
- transition_error [32]\n\tStart: activating\n\tGoal: errorprocessing
- deactivate [4]\n\tStart: active\n\tGoal: deactivating
- transition_success [40]\n\tStart: deactivating\n\tGoal: inactive
- transition_failure [41]\n\tStart: deactivating\n\tGoal: active
- transition_error [42]\n\tStart: deactivating\n\tGoal: errorprocessing
- shutdown [5]\n\tStart: unconfigured\n\tGoal: shuttingdown
- shutdown [6]\n\tStart: inactive\n\tGoal: shuttingdown
- shutdown [7]\n\tStart: active\n\tGoal: shuttingdown
- transition_success [50]\n\tStart: shuttingdown\n\tGoal: finalized
- transition_failure [51]\n\tStart: shuttingdown\n\tGoal: finalized
- transition_error [52]\n\tStart: shuttingdown\n\tGoal: errorprocessing
- transition_success [60]\n\tStart: errorprocessing\n\tGoal: unconfigured
- transition_failure [61]\n\tStart: errorprocessing\n\tGoal: finalized
- transition_error [62]\n\tStart: errorprocessing\n\tGoal: finalized
";

/// Runs `tacto lifecycle args` in `domain`; checks it printed `stdout` and exited 0.
fn succeeds(domain: u32, args: &[&str], stdout: &str) {
    let output = lifecycle(domain, args);
    assert_eq!(
        (text(&output.stdout).as_str(), output.status.code()),
        (stdout, Some(0)),
        "tacto lifecycle {args:?}; stderr: {}",
        text(&output.stderr)
    );
}

/// Runs `tacto lifecycle args` in `domain`; checks it said `message` on stderr, printed
/// nothing, and exited 1.
fn fails(domain: u32, args: &[&str], message: &str) {
    let output = lifecycle(domain, args);
    assert_eq!(
        (
            text(&output.stdout).as_str(),
            text(&output.stderr).as_str(),
            output.status.code()
        ),
        ("", format!("tacto: {message}\n").as_str(), Some(1)),
        "tacto lifecycle {args:?}"
    );
}

/// test_cli.py's cases, in its order, on a graph with the managed nodes
/// `/test_lifecycle_node` and `/_hidden_test_lifecycle_node`, both unconfigured.
fn ros2lifecycle_test_cli(domain: u32) {
    // test_list_lifecycle_node_transitions
    succeeds(
        domain,
        &["list", "test_lifecycle_node"],
        "- configure [1]\n\tStart: unconfigured\n\tGoal: configuring\n\
         - shutdown [5]\n\tStart: unconfigured\n\tGoal: shuttingdown\n",
    );
    // test_list_all_lifecycle_node_transitions
    succeeds(
        domain,
        &["list", "test_lifecycle_node", "-a"],
        ALL_LIFECYCLE_NODE_TRANSITIONS,
    );
    // test_list_all_lifecycle_hidden_node_transitions_without_hidden_flag
    fails(
        domain,
        &["list", "_hidden_test_lifecycle_node", "-a"],
        "Node not found",
    );
    // test_list_all_lifecycle_hidden_node_transitions_with_hidden_flag
    let hidden_all = [
        "list",
        "--include-hidden-nodes",
        "_hidden_test_lifecycle_node",
        "-a",
    ];
    succeeds(domain, &hidden_all, ALL_LIFECYCLE_NODE_TRANSITIONS);
    // test_list_lifecycle_nodes, test_list_all_lifecycle_nodes
    succeeds(domain, &["nodes"], "/test_lifecycle_node\n");
    succeeds(
        domain,
        &["nodes", "-a"],
        "/_hidden_test_lifecycle_node\n/test_lifecycle_node\n",
    );
    // test_count_lifecycle_nodes, test_count_all_lifecycle_nodes
    succeeds(domain, &["nodes", "-c"], "1\n");
    succeeds(domain, &["nodes", "-a", "-c"], "2\n");
    // test_set_lifecycle_node_invalid_transition
    fails(
        domain,
        &["set", "/test_lifecycle_node", "noop"],
        "Unknown transition requested, available ones are:\n- configure [1]\n- shutdown [5]",
    );
    // test_set_nonexistent_lifecycle_node_state, test_set_hidden_lifecycle_node_transition
    let configure_nonexistent = ["set", "/nonexistent_test_lifecycle_node", "configure"];
    fails(domain, &configure_nonexistent, "Node not found");
    let configure_hidden = ["set", "/_hidden_test_lifecycle_node", "configure"];
    fails(domain, &configure_hidden, "Node not found");
    // test_get_nonexistent_lifecycle_node_state
    let get_nonexistent = ["get", "/nonexistent_test_lifecycle_node"];
    fails(domain, &get_nonexistent, "Node not found");
    // test_get_hidden_lifecycle_node_state
    fails(
        domain,
        &["get", "/_hidden_test_lifecycle_node"],
        "Node not found",
    );
    let get_hidden = [
        "get",
        "--include-hidden-nodes",
        "/_hidden_test_lifecycle_node",
    ];
    succeeds(domain, &get_hidden, "unconfigured [1]\n");
    // test_get_lifecycle_node_state
    succeeds(
        domain,
        &["get", "/test_lifecycle_node"],
        "unconfigured [1]\n",
    );
    // test_node_lifecycle
    let round = [
        ("unconfigured [1]", "configure"),
        ("inactive [2]", "activate"),
        ("active [3]", "deactivate"),
        ("inactive [2]", "cleanup"),
    ];
    for (state, next) in round {
        succeeds(domain, &get_hidden, &format!("{state}\n"));
        let set = [
            "set",
            "--include-hidden-nodes",
            "/_hidden_test_lifecycle_node",
            next,
        ];
        succeeds(domain, &set, "Transitioning successful\n");
    }
    succeeds(domain, &get_hidden, "unconfigured [1]\n");

    // Beyond test_cli.py: every node's state, and a transition named by its id.
    succeeds(domain, &["get"], "/test_lifecycle_node: unconfigured [1]\n");
    let by_id = ["set", "/test_lifecycle_node", "1"];
    succeeds(domain, &by_id, "Transitioning successful\n");
    succeeds(
        domain,
        &["get", "--include-hidden-nodes"],
        "/_hidden_test_lifecycle_node: unconfigured [1]\n/test_lifecycle_node: inactive [2]\n",
    );
    // --json, for scripts.
    let get = ["get", "--json", "/test_lifecycle_node"];
    succeeds(domain, &get, "{\"id\":2,\"label\":\"inactive\"}\n");
    let activate = ["set", "--json", "/test_lifecycle_node", "activate"];
    succeeds(domain, &activate, "{\"success\":true}\n");
    succeeds(domain, &["nodes", "--json"], "[\"/test_lifecycle_node\"]\n");
    let list = ["list", "--json", "/test_lifecycle_node"];
    let output = lifecycle(domain, &list);
    let listed: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(
        listed[0],
        serde_json::json!({
            "transition": { "id": 4, "label": "deactivate" },
            "start_state": { "id": 3, "label": "active" },
            "goal_state": { "id": 14, "label": "deactivating" },
        })
    );
}

/// Waits for `peer` to print `ready`.
fn ready(peer: &RclpyNode) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match peer.next_line(deadline) {
            Some(line) if line == "ready" => return,
            Some(_) => {}
            None => panic!("the rclpy node did not start:\n{}", peer.stderr()),
        }
    }
}

#[test]
fn tacto_lifecycle_answers_as_ros2_lifecycles_own_tests_expect_for_rclpy_lifecycle_nodes() {
    let test =
        "tacto_lifecycle_answers_as_ros2_lifecycles_own_tests_expect_for_rclpy_lifecycle_nodes";
    let Some(rclpy) = rclpy_on_cyclone(test) else {
        return;
    };
    const DOMAIN: u32 = 113;
    // tacto-dds' script, from this crate's tests/rclpy folder.
    let script = "../../../tacto-dds/tests/rclpy/lifecycle.py";
    let shown = rclpy.spawn(script, DOMAIN, &["node", "test_lifecycle_node"]);
    let hidden = rclpy.spawn(script, DOMAIN, &["node", "_hidden_test_lifecycle_node"]);
    ready(&shown);
    ready(&hidden);
    ros2lifecycle_test_cli(DOMAIN);
}

struct Plain;
impl Callbacks for Plain {}

#[test]
fn tacto_lifecycle_answers_as_ros2_lifecycles_own_tests_expect_for_tacto_managed_nodes() {
    const DOMAIN: u32 = 114;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut executor = WaitSetExecutor::new().unwrap();
    for name in ["test_lifecycle_node", "_hidden_test_lifecycle_node"] {
        let mut node = ctx.node(name).unwrap();
        node.manage(Plain).unwrap();
        executor.add(node).unwrap();
    }
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    ros2lifecycle_test_cli(DOMAIN);
    running.stop();
    running.join().unwrap().1.unwrap();
}

/// The example, killed on drop.
struct Example(Option<Child>);

impl Example {
    /// Stops it, and returns what it logged.
    fn log(mut self) -> String {
        let mut child = self.0.take().expect("running");
        let _ = child.kill();
        let output = child.wait_with_output().expect("the example's output");
        text(&output.stderr)
    }
}

impl Drop for Example {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What `reader` hears within `window`.
fn heard_within(reader: &Reader<Text>, window: Duration) -> Vec<String> {
    let until = Instant::now() + window;
    let mut heard = Vec::new();
    while Instant::now() < until {
        while let Some(text) = reader.take().expect("take") {
            heard.push(text.data);
        }
        thread::sleep(Duration::from_millis(20));
    }
    heard
}

#[test]
fn the_lifecycle_talker_publishes_once_a_second_only_while_active() {
    const DOMAIN: u32 = 112;
    let talker = Command::new(built_example("lifecycle_talker"))
        .envs(dds_env(DOMAIN))
        .env_remove("ROS_STATIC_PEERS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let talker = Example(Some(talker));
    let participant = loopback_participant(DOMAIN);
    let reader =
        Reader::<Text>::new(&participant, "/lifecycle_chatter", Qos::default()).expect("reader");
    // Matched before anything is published: volatile, nothing is lost once it is.
    let deadline = Instant::now() + PATIENCE;
    while reader.matched_writers().expect("matched") == 0 {
        assert!(
            Instant::now() < deadline,
            "the talker's writer never matched"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // A second and a half is more than one period: a running timer would publish in it.
    let quiet = Duration::from_millis(1500);

    succeeds(DOMAIN, &["get", "lc_talker"], "unconfigured [1]\n");
    assert_eq!(heard_within(&reader, quiet), Vec::<String>::new());
    succeeds(
        DOMAIN,
        &["set", "lc_talker", "configure"],
        "Transitioning successful\n",
    );
    assert_eq!(heard_within(&reader, quiet), Vec::<String>::new());
    succeeds(
        DOMAIN,
        &["set", "lc_talker", "activate"],
        "Transitioning successful\n",
    );
    let active = heard_within(&reader, Duration::from_millis(2500));
    assert!(active.len() >= 2, "heard {active:?} in 2.5 s");
    let expected: Vec<String> = (1..=active.len())
        .map(|n| format!("Lifecycle HelloWorld #{n}"))
        .collect();
    assert_eq!(active, expected);
    succeeds(
        DOMAIN,
        &["set", "lc_talker", "deactivate"],
        "Transitioning successful\n",
    );
    // One may have been sent between the last take and the deactivation: not after it.
    let straggler = heard_within(&reader, Duration::from_millis(200));
    assert!(
        straggler.len() <= 1,
        "heard {straggler:?} after deactivating"
    );
    assert_eq!(heard_within(&reader, quiet), Vec::<String>::new());
    succeeds(
        DOMAIN,
        &["set", "lc_talker", "cleanup"],
        "Transitioning successful\n",
    );
    succeeds(
        DOMAIN,
        &["set", "lc_talker", "shutdown"],
        "Transitioning successful\n",
    );
    succeeds(DOMAIN, &["get", "lc_talker"], "finalized [4]\n");
    assert_eq!(heard_within(&reader, quiet), Vec::<String>::new());

    let log = talker.log();
    for line in [
        "[lc_talker]: on_configure() is called.",
        "[lc_talker]: on_activate() is called.",
        "[lc_talker]: Lifecycle publisher is active. Publishing: [Lifecycle HelloWorld #1]",
        "[lc_talker]: on_deactivate() is called.",
        "[lc_talker]: on cleanup is called.",
        "[lc_talker]: on shutdown is called from state unconfigured.",
    ] {
        assert!(log.contains(line), "no {line:?} in the log:\n{log}");
    }
}
