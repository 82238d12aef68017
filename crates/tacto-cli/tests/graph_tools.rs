//! `tacto topic|node` against real rclpy nodes (the PyPI wheels, Fast DDS) and a tacto node,
//! running the built `tacto` binary. DDS domains 180 to 189 and 216 to 232.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use support::dds::{PATIENCE, RclpyNode, loopback_participant};
use support::{tacto, text};
use tacto::msg::std_msgs::{Header, String as Text};
use tacto::{Context, Executor, Message, Trigger, WaitSetExecutor};
use tacto_dds::DdsTransport;

/// The rclpy scripts of tacto-dds' tests, relative to this crate's tests/ folder.
const RCLPY: &str = "../../tacto-dds/tests/rclpy";
/// The type hash of `std_msgs/msg/String`, rosidl's (`share/std_msgs/msg/String.json`).
const STRING_HASH: &str = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";

fn run(domain: u32, args: &[&str]) -> Output {
    tacto(domain, args).output().expect("the tacto binary runs")
}

/// Runs `args` again until it succeeds with a stdout that satisfies `ok`; the last stdout.
/// Each run is a new DDS participant that discovers the graph afresh, so on a loaded machine
/// any run may miss a node or topic that the previous one saw: a failure before the deadline
/// is run again too.
fn run_until(
    domain: u32,
    args: &[&str],
    peer: Option<&RclpyNode>,
    ok: impl Fn(&str) -> bool,
) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let output = run(domain, args);
        let stdout = text(&output.stdout);
        assert!(
            output.status.success() || Instant::now() < deadline,
            "{args:?}: {}",
            text(&output.stderr)
        );
        if output.status.success() && ok(&stdout) {
            return stdout;
        }
        assert!(
            Instant::now() < deadline,
            "{args:?} never gave what was expected; last output:\n{stdout}\nrclpy: {}",
            peer.map(RclpyNode::stderr).unwrap_or_default()
        );
    }
}

#[test]
fn topic_list_shows_the_rclpy_talkers_topic_with_its_type() {
    const DOMAIN: u32 = 180;
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_list", "hi"]);
    // A run may see one of the node's writers before the other: it waits for both.
    run_until(DOMAIN, &["topic", "list", "-t"], Some(&talker), |out| {
        out.lines().any(|l| l == "/cli_list [std_msgs/msg/String]")
            && out.lines().any(|l| l.starts_with("/rosout ["))
    });
    run_until(DOMAIN, &["topic", "list"], Some(&talker), |out| {
        out.lines().any(|l| l == "/cli_list")
    });
    // Node names come from ros_discovery_info, which may take longer than the endpoints.
    let entry = r#"{"name":"/cli_list","publishers":["/rclpy_talker"],"subscribers":[],"types":["std_msgs/msg/String"]}"#;
    run_until(DOMAIN, &["topic", "list", "--json"], Some(&talker), |out| {
        out.contains(entry)
    });
}

#[test]
fn topic_echo_once_prints_the_rclpy_talkers_string_as_yaml() {
    const DOMAIN: u32 = 181;
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_echo", "Hello World:"]);
    let output = run(
        DOMAIN,
        &["topic", "echo", "/cli_echo", "--once", "--wait-s", "90"],
    );
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{}",
        text(&output.stderr),
        talker.stderr()
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("data: 'Hello World: "), "{stdout}");
    assert_eq!(lines[1], "---");
    // The type given, and JSON.
    let output = run(
        DOMAIN,
        &[
            "topic",
            "echo",
            "cli_echo",
            "std_msgs/msg/String",
            "--once",
            "--json",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with(r#"{"data":"Hello World: "#), "{stdout}");
}

#[test]
fn node_list_shows_the_rclpy_node_and_a_tacto_node() {
    const DOMAIN: u32 = 182;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("tacto_cli_node").unwrap();
    let _publisher = node.publisher::<Text>("cli_nodes").create().unwrap();
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_nodes", "x"]);
    run_until(DOMAIN, &["node", "list"], Some(&talker), |out| {
        out.lines().any(|l| l == "/rclpy_talker") && out.lines().any(|l| l == "/tacto_cli_node")
    });
    run_until(DOMAIN, &["node", "list", "--json"], Some(&talker), |out| {
        out.contains(r#""/tacto_cli_node""#)
    });
}

#[test]
fn topic_hz_reports_a_rate_and_ctrl_c_ends_it() {
    const DOMAIN: u32 = 183;
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_hz", "x"]);
    let mut hz = tacto(DOMAIN, &["topic", "hz", "/cli_hz", "--wait-s", "90"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tacto binary starts");
    let mut lines = BufReader::new(hz.stdout.take().expect("piped")).lines();
    let rate = lines.next().and_then(Result::ok).unwrap_or_default();
    let stats = lines.next().and_then(Result::ok).unwrap_or_default();
    // SAFETY: SIGINT to our own child, by its pid, which has not been waited for yet.
    assert_eq!(unsafe { libc::kill(hz.id() as i32, libc::SIGINT) }, 0);
    let status = hz.wait().expect("tacto hz ends");
    let rate_value: f64 = rate
        .strip_prefix("average rate: ")
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("{rate:?}\n{stats:?}\nrclpy: {}", talker.stderr()));
    let window: usize = stats
        .rsplit_once("window: ")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or_else(|| panic!("{stats:?}"));
    assert!(window >= 2, "{stats}");
    assert!(
        stats.starts_with("\tmin: ") && stats.contains("s std dev: "),
        "{stats:?}"
    );
    // The rate is one over the mean interval, which lies between the shortest and the longest
    // (printed to the millisecond).
    let seconds = |key: &str| -> f64 {
        (stats.split_once(key))
            .and_then(|(_, rest)| rest.split_once('s'))
            .and_then(|(value, _)| value.parse().ok())
            .unwrap_or_else(|| panic!("no {key:?} in {stats:?}"))
    };
    let (min, max) = (seconds("min: "), seconds("max: "));
    assert!(
        1.0 / (max + 0.0005) <= rate_value && rate_value <= 1.0 / (min - 0.0005).max(1e-9),
        "{rate}\n{stats}"
    );
    // talker.py publishes on a 100 ms timer, which skips periods it missed and never bursts:
    // however late some messages arrive, the window's mean interval cannot shrink to half.
    assert!(rate_value > 0.0 && rate_value < 20.0, "{rate}\n{stats}");
    assert!(matches!(status.code(), Some(0 | 130)), "{status}");
}

#[test]
fn an_unknown_type_is_an_error_naming_it_and_where_it_looked() {
    const DOMAIN: u32 = 184;
    let output = run(
        DOMAIN,
        &[
            "topic",
            "echo",
            "/x",
            "no_msgs/msg/Nothing",
            "--msg-path",
            "/nonexistent/msgs",
        ],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unknown type \"no_msgs/msg/Nothing\""),
        "{stderr}"
    );
    assert!(stderr.contains("--msg-path /nonexistent/msgs"), "{stderr}");
    assert!(
        stderr.contains("shipped packages (action_msgs, builtin_interfaces"),
        "{stderr}"
    );
}

#[test]
fn a_topic_without_publishers_is_reported_after_the_wait() {
    const DOMAIN: u32 = 185;
    let output = run(DOMAIN, &["topic", "hz", "/nobody_here", "--wait-s", "0.5"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no publishers on /nobody_here after 0.5 s"),
        "{stderr}"
    );
}

#[test]
fn a_topic_with_two_types_is_listed_with_both_and_echo_asks_for_the_type() {
    const DOMAIN: u32 = 186;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("tacto_cli_headers").unwrap();
    let publisher = node.publisher::<Header>("cli_two").create().unwrap();
    // Publishing, so that an echo that picked this type ends too.
    let done = Arc::new(AtomicBool::new(false));
    let publishing = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                publisher.publish(Header::default());
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        })
    };
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_two", "x"]);
    run_until(DOMAIN, &["topic", "list", "-t"], Some(&talker), |out| {
        out.lines()
            .any(|l| l == "/cli_two [std_msgs/msg/Header, std_msgs/msg/String]")
    });
    // Echo stops at the first publisher it sees: until it sees both, it prints a message.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let output = run(DOMAIN, &["topic", "echo", "/cli_two", "--once"]);
        let stderr = text(&output.stderr);
        if !output.status.success() {
            assert!(
                stderr.contains(
                    "/cli_two has publishers of several types (std_msgs/msg/Header, \
                     std_msgs/msg/String): give the type"
                ),
                "{stderr}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "echo never saw both types");
    }
    done.store(true, Ordering::Relaxed);
    publishing.join().unwrap();
}

/// `tacto topic pub` running in the background until dropped.
struct Background(std::process::Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Publishes `values` on `topic` at 5 Hz into an rclpy subscriber; the subscriber's lines.
fn pub_into_rclpy(
    domain: u32,
    topic: &str,
    ty: &str,
    values: &str,
    fields: &[&str],
) -> Vec<String> {
    let mut args = vec![topic, ty];
    args.extend_from_slice(fields);
    let subscriber = RclpyNode::spawn_in("rclpy", "subscriber.py", domain, &args);
    let deadline = Instant::now() + PATIENCE;
    assert_eq!(
        subscriber.next_line(deadline).as_deref(),
        Some("ready"),
        "{}",
        subscriber.stderr()
    );
    let _publisher = Background(
        tacto(domain, &["topic", "pub", topic, ty, values, "--rate", "5"])
            .stdout(Stdio::null())
            .spawn()
            .expect("the tacto binary starts"),
    );
    (fields.iter())
        .map(|_| {
            (subscriber.next_line(deadline))
                .unwrap_or_else(|| panic!("no message; rclpy: {}", subscriber.stderr()))
        })
        .collect()
}

#[test]
fn topic_pub_sends_a_string_to_an_rclpy_subscriber() {
    const DOMAIN: u32 = 216;
    let lines = pub_into_rclpy(
        DOMAIN,
        "/cli_pub",
        "std_msgs/msg/String",
        "{data: 'hello: tacto'}",
        &["data"],
    );
    assert_eq!(lines, ["data='hello: tacto'"]);
}

#[test]
fn topic_pub_sends_a_nested_message_with_defaults_to_an_rclpy_subscriber() {
    const DOMAIN: u32 = 217;
    let lines = pub_into_rclpy(
        DOMAIN,
        "cli_pose",
        "geometry_msgs/msg/PoseStamped",
        "{header: {stamp: {sec: 7}, frame_id: map}, pose: {position: {x: 1.5, z: -2}}}",
        &[
            "header.stamp.sec",
            "header.frame_id",
            "pose.position.x",
            "pose.position.y",
            "pose.position.z",
            "pose.orientation.w",
        ],
    );
    // Quaternion.msg gives w the default 1.
    assert_eq!(
        lines,
        [
            "header.stamp.sec=7",
            "header.frame_id='map'",
            "pose.position.x=1.5",
            "pose.position.y=0.0",
            "pose.position.z=-2.0",
            "pose.orientation.w=1.0",
        ]
    );
}

#[test]
fn topic_pub_times_publishes_that_many_and_exits() {
    const DOMAIN: u32 = 218;
    let output = run(
        DOMAIN,
        &[
            "topic",
            "pub",
            "/cli_times",
            "std_msgs/msg/String",
            "{data: x}",
            "-r",
            "20",
            "--times",
            "3",
            "--wait-s",
            "0.2",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "publisher: beginning loop",
            r#"publishing #1: {"data":"x"}"#,
            r#"publishing #2: {"data":"x"}"#,
            r#"publishing #3: {"data":"x"}"#,
        ]
    );
}

#[test]
fn topic_pub_yaml_that_does_not_fit_names_the_field_and_type() {
    const DOMAIN: u32 = 219;
    let output = run(
        DOMAIN,
        &[
            "topic",
            "pub",
            "/x",
            "geometry_msgs/msg/PoseStamped",
            "{pose: {position: {x: fast}}}",
        ],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("pose.position.x: expected a number (f64), found the string \"fast\""),
        "{stderr}"
    );
    let output = run(
        DOMAIN,
        &["topic", "pub", "/x", "std_msgs/msg/String", "{text: hi}"],
    );
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("text") && stderr.contains("data"),
        "{stderr}"
    );
}

#[test]
fn topic_info_counts_the_rclpy_talker_and_listener_and_verbose_names_them() {
    const DOMAIN: u32 = 220;
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_info", "x"]);
    let _listener = RclpyNode::spawn_in(
        RCLPY,
        "listener.py",
        DOMAIN,
        &["/cli_info", "none", "1000000"],
    );
    run_until(
        DOMAIN,
        &["topic", "info", "/cli_info"],
        Some(&talker),
        |out| out == "Type: std_msgs/msg/String\nPublisher count: 1\nSubscription count: 1\n",
    );
    let verbose = run_until(
        DOMAIN,
        &["topic", "info", "-v", "cli_info"],
        Some(&talker),
        |out| {
            out.contains(&format!("Node name: rclpy_talker\nNode namespace: /\nTopic type: std_msgs/msg/String\nTopic type hash: {STRING_HASH}\nEndpoint type: PUBLISHER\n"))
            && out.contains("Node name: rclpy_listener\nNode namespace: /\n")
        },
    );
    assert!(
        verbose.starts_with("Type: std_msgs/msg/String\n\nPublisher count: 1\n\n"),
        "{verbose}"
    );
    assert!(
        verbose.contains("Endpoint type: SUBSCRIPTION\nGID: "),
        "{verbose}"
    );
    assert!(
        verbose.contains(
            "QoS profile:\n  Reliability: RELIABLE\n  History (Depth): UNKNOWN\n  Durability: \
             VOLATILE\n  Lifespan: Infinite\n  Deadline: Infinite\n  Liveliness: AUTOMATIC\n  \
             Liveliness lease duration: Infinite\n\n"
        ),
        "{verbose}"
    );
    let json = run_until(
        DOMAIN,
        &["topic", "info", "/cli_info", "--json"],
        Some(&talker),
        // A new run may see one endpoint before the other: it waits for both.
        |out| {
            out.contains(r#""node":"/rclpy_listener""#) && out.contains(r#""node":"/rclpy_talker""#)
        },
    );
    assert!(
        json.starts_with(r#"{"name":"/cli_info","publishers":[{"#),
        "{json}"
    );
    // The talker's and the listener's, from their USER_DATA.
    let hash = format!(r#""type_hash":"{STRING_HASH}""#);
    assert_eq!(json.matches(&hash).count(), 2, "{json}");
    let output = run(DOMAIN, &["topic", "info", "/nobody", "--wait-s", "0.5"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("unknown topic /nobody"), "{stderr}");
}

#[test]
fn node_info_lists_the_rclpy_talkers_publishers_and_services() {
    const DOMAIN: u32 = 221;
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_node_info", "x"]);
    // Until the node is seen (its announcement may come late), `node info` fails.
    let info = run_until(
        DOMAIN,
        &["node", "info", "/rclpy_talker"],
        Some(&talker),
        |out| {
            out.contains("  Publishers:\n")
                && out.contains("    /cli_node_info: std_msgs/msg/String\n")
                && out.contains("/rclpy_talker/get_parameters: rcl_interfaces/srv/GetParameters\n")
        },
    );
    let lines: Vec<&str> = info.lines().collect();
    assert_eq!(lines[0], "/rclpy_talker", "{info}");
    let at = |heading: &str| {
        lines
            .iter()
            .position(|l| *l == heading)
            .unwrap_or_else(|| panic!("{heading}\n{info}"))
    };
    // ros2cli's order of sections.
    assert!(at("  Subscribers:") < at("  Publishers:"), "{info}");
    assert!(at("  Publishers:") < at("  Service Servers:"), "{info}");
    assert!(
        at("  Service Servers:") < at("  Service Clients:"),
        "{info}"
    );
    assert!(
        at("  Publishers:")
            < lines
                .iter()
                .position(|l| l.starts_with("    /cli_node_info"))
                .unwrap()
    );
    let json = run_until(
        DOMAIN,
        &["node", "info", "rclpy_talker", "--json"],
        Some(&talker),
        |out| out.contains(r#"{"name":"/cli_node_info","types":["std_msgs/msg/String"]}"#),
    );
    assert!(json.contains(r#""name":"/rclpy_talker""#), "{json}");
    assert!(json.contains(r#""action_servers":[]"#), "{json}");
    let output = run(DOMAIN, &["node", "info", "/nobody", "--wait-s", "0.5"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("unable to find node /nobody"), "{stderr}");
}

#[derive(Debug, Default, Clone, PartialEq, tacto::serde::Serialize, tacto::serde::Deserialize)]
#[serde(crate = "tacto::serde")]
struct AddRequest {
    a: i64,
    b: i64,
}

impl tacto::Message for AddRequest {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request";
}

#[derive(Debug, Default, Clone, PartialEq, tacto::serde::Serialize, tacto::serde::Deserialize)]
#[serde(crate = "tacto::serde")]
struct AddResponse {
    sum: i64,
}

impl tacto::Message for AddResponse {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response";
}

struct AddTwoInts;

impl tacto::ServiceType for AddTwoInts {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
    type Request = AddRequest;
    type Response = AddResponse;
}

/// An AddTwoInts server on tacto's DDS service layer, in a thread, until dropped.
struct AddServer {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl AddServer {
    fn start(domain: u32, name: &str) -> AddServer {
        let participant = loopback_participant(domain);
        let server = tacto_dds::service::Server::<AddTwoInts>::new(&participant, name)
            .expect("the server starts");
        let done = Arc::new(AtomicBool::new(false));
        let thread = {
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let _participant = participant;
                while !done.load(Ordering::Relaxed) {
                    while let Some((id, request)) = server.take_request().expect("a request") {
                        let sum = request.a.wrapping_add(request.b);
                        server
                            .send_response(id, &AddResponse { sum })
                            .expect("the reply goes");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            })
        };
        AddServer {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for AddServer {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn service_call_gets_the_sum_from_a_tacto_add_two_ints_server() {
    const DOMAIN: u32 = 222;
    let _server = AddServer::start(DOMAIN, "cli_add");
    let output = run(
        DOMAIN,
        &[
            "service",
            "call",
            "/cli_add",
            "example_interfaces/srv/AddTwoInts",
            "{a: 40, b: 2}",
            "--wait-s",
            "90",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        stdout,
        "requester: making request: {\"a\":40,\"b\":2}\n\nresponse:\nsum: 42\n\n"
    );
    let output = run(
        DOMAIN,
        &[
            "service",
            "call",
            "cli_add",
            "example_interfaces/AddTwoInts",
            "{a: -5}",
            "--json",
            "--wait-s",
            "90",
        ],
    );
    assert_eq!(
        text(&output.stdout),
        "{\"sum\":-5}\n",
        "{}",
        text(&output.stderr)
    );
    run_until(DOMAIN, &["service", "list", "-t"], None, |out| {
        out.lines()
            .any(|l| l == "/cli_add [example_interfaces/srv/AddTwoInts]")
    });
    run_until(DOMAIN, &["service", "list", "--json"], None, |out| {
        // The clients of the calls above may linger in discovery for a while: not checked.
        out.contains(
            r#""name":"/cli_add","servers":[null],"types":["example_interfaces/srv/AddTwoInts"]}"#,
        )
    });
}

#[test]
fn service_call_of_a_missing_service_says_so_after_the_wait() {
    const DOMAIN: u32 = 223;
    let output = run(
        DOMAIN,
        &[
            "service",
            "call",
            "/nobody",
            "example_interfaces/srv/AddTwoInts",
            "{}",
            "--wait-s",
            "0.5",
        ],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no service /nobody after 0.5 s"),
        "{stderr}"
    );
}

#[test]
fn topic_bw_reports_the_rclpy_talkers_bandwidth_and_sizes() {
    const DOMAIN: u32 = 224;
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/cli_bw", "x"]);
    let mut bw = tacto(DOMAIN, &["topic", "bw", "/cli_bw", "--wait-s", "90"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tacto binary starts");
    let mut lines = BufReader::new(bw.stdout.take().expect("piped")).lines();
    let mut next = || lines.next().and_then(Result::ok).unwrap_or_default();
    let (subscribed, rate, sizes) = (next(), next(), next());
    // SAFETY: SIGINT to our own child, by its pid, which has not been waited for yet.
    assert_eq!(unsafe { libc::kill(bw.id() as i32, libc::SIGINT) }, 0);
    let status = bw.wait().expect("tacto bw ends");
    assert_eq!(
        subscribed,
        "Subscribed to [/cli_bw]",
        "rclpy: {}",
        talker.stderr()
    );
    let (value, rest) = rate.split_once(' ').unwrap_or_else(|| panic!("{rate:?}"));
    let bytes_per_s: f64 = value.parse().unwrap_or_else(|_| panic!("{rate:?}"));
    let messages: f64 = (rest.strip_prefix("B/s from "))
        .and_then(|r| r.strip_suffix(" messages"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{rate:?}"));
    // talker.py sends "x <count>": a std_msgs/String of 4 + 4 + 3 to 5 + 1 bytes, its
    // encapsulation header included, padded to a multiple of 4 (the count passes 999 after
    // 100 s, longer than this test runs).
    let size = |key: &str| -> f64 {
        (sizes.split_once(key))
            .and_then(|(_, rest)| rest.split_once(' '))
            .and_then(|(value, _)| value.parse().ok())
            .unwrap_or_else(|| panic!("no {key:?} in {sizes:?}"))
    };
    let (mean, min, max) = (size("mean: "), size("min: "), size("max: "));
    assert!(
        [min, max].iter().all(|b| [12.0, 16.0].contains(b)) && min <= mean && mean <= max,
        "{sizes}"
    );
    // Bytes over the window's span: as many messages as the talker's 10 a second (never a
    // burst) at their mean size, within half and twice whatever the load.
    assert!(messages >= 1.0, "{rate}");
    assert!(
        (5.0 * mean..=20.0 * mean).contains(&bytes_per_s),
        "{rate}\n{sizes}"
    );
    assert!(matches!(status.code(), Some(0 | 130)), "{status}");
}

#[test]
fn top_once_shows_each_executor_of_a_tacto_process_with_its_nodes_rates() {
    const DOMAIN: u32 = 187;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("top_ticker").unwrap();
    (node.execute(Trigger::every(Duration::from_millis(10)), |_| {})).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let stop = executor.stop_handle();
    let spinning = std::thread::spawn(move || {
        executor.spin_for(PATIENCE).unwrap();
    });

    let output = run(DOMAIN, &["top", "--once", "--wait-s", "90"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let pid = std::process::id().to_string();
    let row: Vec<&str> = (stdout.lines())
        .find(|l| l.contains(" /top_ticker "))
        .unwrap_or_else(|| panic!("{stdout}"))
        .split_whitespace()
        .collect();
    // HOST PID EXEC KIND WAKE/S NODE # RUNS RUNS/S CPU% MEAN MAX DELAY MISSED
    assert!(stdout.starts_with("HOST "), "{stdout}");
    assert_eq!(
        (row[1], row[3], row[5], row[6]),
        (&*pid, "wait-set", "/top_ticker", "0")
    );
    let runs_per_s: f64 = row[8].parse().unwrap_or_else(|_| panic!("{stdout}"));
    assert!(runs_per_s > 10.0 && runs_per_s < 150.0, "100 Hz: {stdout}");

    let json = run(DOMAIN, &["top", "--once", "--json", "--wait-s", "90"]);
    let json = text(&json.stdout);
    assert!(json.contains(r#""kind":"wait-set""#), "{json}");
    assert!(json.contains(r#""node":"/top_ticker""#), "{json}");
    // Its definition is shipped: echo decodes the stats topic like any other.
    let echo = ["topic", "echo", "/_tacto/executor_stats", "--once"];
    let echoed = run(DOMAIN, &[&echo[..], &["--wait-s", "90"]].concat());
    let echoed = text(&echoed.stdout);
    assert!(echoed.contains("kind: wait-set\n"), "{echoed}");
    assert!(echoed.contains("- node: /top_ticker\n"), "{echoed}");
    // The stats topic is hidden, as in ros2cli.
    let all = ["topic", "list", "--include-hidden-topics"];
    run_until(DOMAIN, &all, None, |out| {
        out.contains("/_tacto/executor_stats\n")
    });
    let listed = text(&run(DOMAIN, &["topic", "list"]).stdout);
    assert!(!listed.contains("/_tacto/"), "{listed}");
    stop.stop();
    spinning.join().unwrap();

    // No tacto process left publishing: `--once` says so after its wait.
    let output = run(DOMAIN + 1, &["top", "--once", "--wait-s", "0.5"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    assert!(
        text(&output.stderr).contains("no tacto executor publishes stats"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn qos_options_set_what_pub_offers_and_echo_asks() {
    const DOMAIN: u32 = 189;
    let _publisher = Background(
        tacto(
            DOMAIN,
            &[
                "topic",
                "pub",
                "/cli_qos",
                "std_msgs/msg/String",
                "{data: kept}",
                "--rate",
                "5",
                "--qos-durability",
                "transient_local",
                "--qos-depth",
                "3",
            ],
        )
        .stdout(Stdio::null())
        .spawn()
        .expect("the tacto binary starts"),
    );
    run_until(DOMAIN, &["topic", "info", "-v", "/cli_qos"], None, |out| {
        out.contains("Endpoint type: PUBLISHER\n")
            && out.contains("  Reliability: RELIABLE\n  History (Depth): UNKNOWN\n  Durability: TRANSIENT_LOCAL\n")
    });
    // A best-effort reader (the sensor_data profile) matches the reliable writer.
    let args = [
        "topic",
        "echo",
        "/cli_qos",
        "--once",
        "--qos-profile",
        "sensor_data",
        "--wait-s",
        "90",
    ];
    let output = run(DOMAIN, &args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "data: kept\n---\n");

    let output = run(DOMAIN, &["topic", "echo", "/x", "--qos-profile", "sensor"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("one of default, sensor_data"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn node_info_lists_an_rclpy_nodes_action_server_and_client_and_hides_their_endpoints() {
    const DOMAIN: u32 = 225;
    let node = RclpyNode::spawn_in("rclpy", "actions.py", DOMAIN, &["/cli_fib", "/cli_other"]);
    let info = run_until(
        DOMAIN,
        &["node", "info", "/rclpy_actions"],
        Some(&node),
        |out| {
            out.contains("  Action Servers:\n    /cli_fib: test_msgs/action/Fibonacci\n")
                && out.contains("  Action Clients:\n    /cli_other: test_msgs/action/Fibonacci\n")
        },
    );
    assert!(!info.contains("/_action/"), "hidden by default:\n{info}");
    run_until(
        DOMAIN,
        &["node", "info", "/rclpy_actions", "--include-hidden"],
        Some(&node),
        |out| {
            out.contains("    /cli_fib/_action/send_goal: test_msgs/action/Fibonacci_SendGoal\n")
                && out.contains("    /cli_fib/_action/status: action_msgs/msg/GoalStatusArray\n")
        },
    );
    // So does `service list`, as ros2cli's.
    let hidden = ["service", "list", "--include-hidden-services"];
    run_until(DOMAIN, &hidden, Some(&node), |out| {
        out.contains("/cli_fib/_action/send_goal\n")
    });
    let listed = text(&run(DOMAIN, &["service", "list"]).stdout);
    assert!(!listed.contains("/_action/"), "{listed}");
}

#[test]
fn topic_info_verbose_gives_a_publishers_deadline_lifespan_and_liveliness_as_rclpy_does() {
    const DOMAIN: u32 = 226;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("qos_talker").unwrap();
    let qos = tacto::Qos {
        deadline: Some(Duration::from_millis(100)),
        lifespan: Some(Duration::from_secs(2)),
        liveliness: tacto::Liveliness::ManualByTopic,
        liveliness_lease: Some(Duration::from_secs(1)),
        ..tacto::Qos::default()
    };
    let _publisher = (node.publisher::<Text>("cli_qos_info").qos(qos))
        .create()
        .unwrap();
    let rclpy = RclpyNode::spawn_in(
        "rclpy",
        "endpoint_qos.py",
        DOMAIN,
        &["/cli_qos_info", "qos_talker"],
    );
    let mut seen_by_rclpy = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    while let Some(line) = rclpy.next_line(deadline) {
        seen_by_rclpy.push(line);
    }
    let seen_by_rclpy = seen_by_rclpy.join("\n");
    let hash_line = format!("Topic type hash: {STRING_HASH}");
    let lines = [
        hash_line.as_str(),
        "  Lifespan: 2000000000 nanoseconds",
        "  Deadline: 100000000 nanoseconds",
        "  Liveliness: MANUAL_BY_TOPIC",
        "  Liveliness lease duration: 1000000000 nanoseconds",
    ];
    for line in lines {
        assert!(
            seen_by_rclpy.contains(line),
            "rclpy:\n{seen_by_rclpy}\n{}",
            rclpy.stderr()
        );
    }
    let ours = run_until(
        DOMAIN,
        &["topic", "info", "-v", "/cli_qos_info"],
        None,
        |out| out.contains("Node name: qos_talker\n"),
    );
    for line in lines {
        assert!(ours.contains(&format!("{line}\n")), "{ours}");
    }
    assert!(
        ours.contains(
            "  Reliability: RELIABLE\n  History (Depth): UNKNOWN\n  Durability: VOLATILE\n"
        ),
        "{ours}"
    );
}

/// `std_srvs/srv/SetBool` as a tacto node's service takes it, with rosidl's type hashes
/// (`share/std_srvs/srv/SetBool.json`).
#[derive(Debug, Default, Clone, PartialEq, tacto::serde::Serialize, tacto::serde::Deserialize)]
#[serde(crate = "tacto::serde")]
struct SetBoolRequest {
    data: bool,
}

impl tacto::Message for SetBoolRequest {
    const TYPE_NAME: &'static str = "std_srvs/srv/SetBool_Request";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_c62fbb99d94e1b25e8ef9e109f9581956bb1b3361a45a4e5810c36a90d29932e");
}

#[derive(Debug, Default, Clone, PartialEq, tacto::serde::Serialize, tacto::serde::Deserialize)]
#[serde(crate = "tacto::serde")]
struct SetBoolResponse {
    success: bool,
    message: String,
}

impl tacto::Message for SetBoolResponse {
    const TYPE_NAME: &'static str = "std_srvs/srv/SetBool_Response";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_d0814e7f7b4880ab77e9c57426c7aa1562ab69f11eef8e2e968812f9cbd0b059");
}

struct SetBool;

impl tacto::ServiceType for SetBool {
    const TYPE_NAME: &'static str = "std_srvs/srv/SetBool";
    type Request = SetBoolRequest;
    type Response = SetBoolResponse;
}

#[test]
fn rclpy_sees_the_type_hashes_of_tacto_s_topics_services_and_cli_endpoints() {
    const DOMAIN: u32 = 190;
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("hash_node").unwrap();
    let _service = node.service::<SetBool>("cli_hash_srv").create().unwrap();
    let _client = node.client::<SetBool>("cli_hash_srv").create().unwrap();
    let _publisher = node.publisher::<Text>("cli_hash_topic").create().unwrap();
    // A dynamic type's hash, from the definition `tacto topic pub` resolves.
    let _cli = Background(
        tacto(
            DOMAIN,
            &["topic", "pub", "/cli_hash_pub", "std_msgs/msg/Header", "{}"],
        )
        .stdout(Stdio::null())
        .spawn()
        .expect("the tacto binary starts"),
    );
    let topics = [
        "rq/cli_hash_srvRequest",
        "rr/cli_hash_srvReply",
        "rt/cli_hash_topic",
        "rt/cli_hash_pub",
    ];
    let mut args = vec!["6"];
    args.extend(topics);
    let rclpy = RclpyNode::spawn_in("rclpy", "endpoint_hashes.py", DOMAIN, &args);
    let mut seen = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    while let Some(line) = rclpy.next_line(deadline) {
        seen.push(line);
    }
    let request = SetBoolRequest::TYPE_HASH.unwrap();
    let response = SetBoolResponse::TYPE_HASH.unwrap();
    let header = "RIHS01_f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01";
    // As rmw: each endpoint of a service sends the hash of its own message type.
    let expected = [
        format!("rq/cli_hash_srvRequest PUBLISHER {request}"),
        format!("rq/cli_hash_srvRequest SUBSCRIPTION {request}"),
        format!("rr/cli_hash_srvReply PUBLISHER {response}"),
        format!("rr/cli_hash_srvReply SUBSCRIPTION {response}"),
        format!("rt/cli_hash_pub PUBLISHER {header}"),
        format!("rt/cli_hash_topic PUBLISHER {STRING_HASH}"),
    ];
    assert_eq!(seen, expected, "rclpy: {}", rclpy.stderr());
    // `tacto topic info -v` reads the same hash back from the CLI's own endpoint.
    let ours = run_until(
        DOMAIN,
        &["topic", "info", "-v", "/cli_hash_pub"],
        None,
        |out| out.contains("Endpoint type: PUBLISHER"),
    );
    assert!(
        ours.contains(&format!(
            "Topic type: std_msgs/msg/Header\nTopic type hash: {header}\n"
        )),
        "{ours}"
    );
}
