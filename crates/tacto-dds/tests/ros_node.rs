//! A tacto node as a ROS 2 node, seen by rclpy: named, moved and remapped by `--ros-args`,
//! publishing at the period its parameter gives; its parameters read, set (and refused with
//! rclcpp's reason), described and loaded by rclpy's own `AsyncParameterClient` on
//! rmw_cyclonedds; its parameter changes on `/parameter_events` and its log lines on
//! `/rosout`; and its logger-level services. The tacto side is the `talker` example, run as a
//! user runs it. DDS domains 41 to 45.

mod support;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use support::{PATIENCE, RclpyNode, rclpy_on_cyclone};
use tacto::msg::rcl_interfaces::msg;
use tacto::msg::rcl_interfaces::srv::{
    GetLoggerLevels, GetLoggerLevels_Request, SetLoggerLevels, SetLoggerLevels_Request,
};
use tacto::params::Parameter;

/// The `talker` example with `args`, in `domain`, on loopback; killed on drop.
struct Talker(Child);

impl Talker {
    fn start(domain: u32, args: &[&str]) -> Talker {
        let child = Command::new(example("talker"))
            .args(args)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env(
                "CYCLONEDDS_URI",
                "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/>\
                 </Interfaces></General></Domain></CycloneDDS>",
            )
            .env_remove("ROS_STATIC_PEERS")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the talker example runs");
        Talker(child)
    }
}

impl Drop for Talker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn example(name: &str) -> PathBuf {
    let path = (std::env::current_exe().expect("test binary").parent())
        .and_then(|deps| deps.parent())
        .expect("target dir")
        .join("examples")
        .join(name);
    assert!(
        path.exists(),
        "{} is not built: `cargo test -p tacto-dds` builds it",
        path.display()
    );
    path
}

/// The peer's next line that starts with `prefix`, within the patience.
fn line(peer: &RclpyNode, prefix: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    while let Some(line) = peer.next_line(deadline) {
        if line.starts_with(prefix) {
            return line;
        }
    }
    panic!("no line starting {prefix:?}; rclpy: {}", peer.stderr());
}

#[test]
fn rclpy_sees_a_tacto_talker_renamed_moved_and_remapped_at_the_period_its_parameter_gives() {
    const DOMAIN: u32 = 41;
    let args = [
        "--ros-args",
        "-r",
        "__node:=x",
        "-r",
        "__ns:=/y",
        "-r",
        "chatter:=z",
        "-p",
        "period:=0.2",
    ];
    let _talker = Talker::start(DOMAIN, &args);
    let rclpy = RclpyNode::spawn("ros_node.py", DOMAIN, &["graph", "/y/x", "/y/z", "11"]);
    assert_eq!(line(&rclpy, "node "), "node /y/x");
    let rate: f64 = line(&rclpy, "rate ")["rate ".len()..].parse().unwrap();
    // Ten periods of 0.2 s: 5 Hz. A loaded machine delays some arrivals, never all of them.
    assert!((3.0..=7.0).contains(&rate), "{rate} Hz");
}

#[test]
fn rclpy_hears_a_tacto_nodes_parameter_events_and_its_log_lines() {
    const DOMAIN: u32 = 42;
    let watch = RclpyNode::spawn("ros_node.py", DOMAIN, &["watch"]);
    line(&watch, "ready");
    let args = ["--ros-args", "-r", "__node:=watched", "-p", "period:=0.1"];
    let _talker = Talker::start(DOMAIN, &args);
    // The talker logs each message at INFO (20) under its node's logger, as demo_nodes_cpp's.
    let logged = line(&watch, "rosout watched 20 Publishing: 'Hello World: ");
    assert!(logged.ends_with('\''), "{logged}");

    // A node of its own, whose parameter changes rclpy watches on /parameter_events.
    let ctx = tacto::Context::builder()
        .transport(tacto_dds::DdsTransport::new(support::loopback_participant(
            DOMAIN,
        )))
        .create();
    let node = ctx.node("configured").unwrap();
    node.parameters().declare("gain", 0.5).unwrap();
    // Until rclpy has matched the writer, a set is retried: the events are volatile.
    let deadline = Instant::now() + PATIENCE;
    let mut gain = 0.5;
    loop {
        gain += 0.1;
        let set = node
            .parameters()
            .set_parameter(Parameter::new("gain", gain));
        assert!(set.successful, "{set:?}");
        match watch.next_line(Instant::now() + std::time::Duration::from_millis(500)) {
            Some(line) if line == "event /configured gain" => break,
            _ => assert!(
                Instant::now() < deadline,
                "no event; rclpy: {}",
                watch.stderr()
            ),
        }
    }
}

#[test]
fn rclpys_parameter_client_on_cyclone_lists_gets_sets_describes_and_loads_a_tacto_nodes_parameters()
{
    let Some(cyclone) = rclpy_on_cyclone(
        "rclpys_parameter_client_on_cyclone_lists_gets_sets_describes_and_loads_a_tacto_nodes_parameters",
    ) else {
        return;
    };
    const DOMAIN: u32 = 43;
    let dir = std::env::temp_dir().join(format!("tacto-ros-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("talker.yaml");
    std::fs::write(&file, "/talker:\n  ros__parameters:\n    period: 0.25\n").unwrap();
    let _talker = Talker::start(DOMAIN, &[]);
    let client = cyclone.spawn(
        "ros_node.py",
        DOMAIN,
        &["params", "/talker", file.to_str().unwrap()],
    );
    assert_eq!(line(&client, "list "), "list period use_sim_time");
    assert_eq!(line(&client, "get "), "get period 1.0");
    assert_eq!(line(&client, "set "), "set True ");
    assert_eq!(
        line(&client, "set "),
        "set False Wrong parameter type, parameter {period} is of type {double}, setting it \
         to {string} is not allowed."
    );
    assert_eq!(
        line(&client, "describe "),
        "describe period 3 3600.0 seconds between two messages"
    );
    assert_eq!(line(&client, "load "), "load True");
    assert_eq!(line(&client, "get "), "get period 0.25");
    line(&client, "done");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_node_asked_to_serves_get_and_set_logger_levels_as_jazzy_does() {
    const DOMAIN: u32 = 44;
    // Answered by the context's service thread; the caller is in the same context, since a
    // transport does not carry a process's samples back to it.
    let ctx = tacto::Context::builder()
        .transport(tacto_dds::DdsTransport::new(support::loopback_participant(
            DOMAIN,
        )))
        .create();
    let _node = (ctx.node_builder("levelled").enable_logger_service(true))
        .create()
        .unwrap();
    let mut asking = ctx.node("asking").unwrap();
    let set = (asking.client::<SetLoggerLevels>("/levelled/set_logger_levels"))
        .create()
        .unwrap();
    let get = (asking.client::<GetLoggerLevels>("/levelled/get_logger_levels"))
        .create()
        .unwrap();
    let level = |name: &str, level: u32| msg::LoggerLevel {
        name: name.into(),
        level,
    };
    let request = SetLoggerLevels_Request {
        levels: vec![level("levelled.io", 10), level("levelled.io", 7)],
    };
    let results = set.call(request, PATIENCE).unwrap().results;
    assert!(results[0].successful, "{results:?}");
    // rcutils refuses a level that is no severity, with its reason.
    assert!(!results[1].successful);
    assert_eq!(
        results[1].reason,
        "Invalid severity level specified for logger named 'levelled.io'"
    );
    let request = GetLoggerLevels_Request {
        names: vec!["levelled.io".into(), "levelled.other".into()],
    };
    let levels = get.call(request, PATIENCE).unwrap().levels;
    assert_eq!(
        levels,
        [level("levelled.io", 10), level("levelled.other", 0)]
    );
    assert!(
        tacto::logging::Logger::get("levelled.io").is_enabled_for(tacto::logging::Severity::Debug)
    );
}

/// A flood of parameter requests is the context's service thread's work: the node's own
/// executor wakes for its period only, and the requests are answered meanwhile (each service
/// keeps at most 1000 waiting, rclcpp's depth; the oldest beyond are dropped).
#[test]
fn a_flood_of_parameter_requests_wakes_no_executor_and_is_answered() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;
    use tacto::msg::rcl_interfaces::srv::{GetParameters, GetParameters_Request};
    use tacto::{Executor, ExecutorThread, Trigger, WaitSetExecutor};

    const DOMAIN: u32 = 45;
    const FLOOD: usize = 5000;
    // A caller in the same context: a transport does not carry a process's samples back to it,
    // and the desk answers local callers as remote ones.
    let ctx = tacto::Context::builder()
        .transport(tacto_dds::DdsTransport::new(support::loopback_participant(
            DOMAIN,
        )))
        .create();
    let mut node = ctx.node("flooded").unwrap();
    node.parameters().declare("gain", 0.5).unwrap();
    let runs = Arc::new(AtomicU64::new(0));
    let counting = runs.clone();
    node.execute(Trigger::every(Duration::from_millis(100)), move |_| {
        counting.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    let mut flooder = ctx.node("flooder").unwrap();
    let get = (flooder.client::<GetParameters>("/flooded/get_parameters"))
        .history(tacto::History::KeepLast(FLOOD))
        .create()
        .unwrap();
    for _ in 0..FLOOD {
        let request = GetParameters_Request {
            names: vec!["gain".into()],
        };
        get.send_request(request).unwrap();
    }
    // Until every answer came, or none for a second once the queue's worth did (the rest
    // were dropped).
    let deadline = Instant::now() + PATIENCE;
    let (mut answered, mut last) = (0, Instant::now());
    while answered < FLOOD && Instant::now() < deadline {
        match get.take_response() {
            Some((_, response)) => {
                assert_eq!(response.values[0].double_value, 0.5);
                (answered, last) = (answered + 1, Instant::now());
            }
            None if answered >= 1000 && last.elapsed() > Duration::from_secs(1) => break,
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    println!("{answered} of {FLOOD} answered");
    running.stop();
    let (executor, spun) = running.join().unwrap();
    spun.unwrap();
    // At least the last 1000 sent wait in the service's queue until answered.
    assert!(answered >= 1000, "{answered} of {FLOOD} answered");
    // The executor woke for its period (and its start and stop), not for the requests.
    let stats = executor.stats();
    let periods = runs.load(Ordering::Relaxed);
    assert!(
        stats.wakeups <= periods + stats.missed_periods + 3,
        "{} wake-ups for {periods} periods while {FLOOD} requests came",
        stats.wakeups
    );
}
