//! A tacto managed node on the ROS 2 graph, against the ground truth: the same rclpy client of
//! the lifecycle services (`tests/rclpy/lifecycle.py client`, calling them as `ros2 lifecycle`
//! does) walks an rclpy `LifecycleNode` and a tacto managed node through the same changes, and
//! every answer, field by field, and every `transition_event` it hears must be the same. On
//! rclpy on rmw_cyclonedds (`python-cyclone`): services do not cross Fast DDS and Cyclone.
//! The same for callbacks that fail, answer an error or panic (`moody`). Without `../shared`
//! beside the project, each test says it is skipped and why. DDS domains 110, 111, 115, 116.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use support::{PATIENCE, RclpyNode, loopback_participant, rclpy_on_cyclone};
use tacto::lifecycle::{CallbackReturn, Callbacks, State};
use tacto::{Context, Executor, ExecutorThread, WaitSetExecutor};
use tacto_dds::DdsTransport;

/// Callbacks that say what ran, in the rclpy script's words, and answer as its node does:
/// success, or, when `moody`, configure's failure then error, activate's panic, and
/// on_error's success then failure.
struct Said {
    said: Arc<Mutex<Vec<String>>>,
    moody: bool,
    configures: Vec<CallbackReturn>,
    errors: Vec<CallbackReturn>,
}

impl Said {
    fn new(said: Arc<Mutex<Vec<String>>>, moody: bool) -> Self {
        Said {
            said,
            moody,
            configures: vec![CallbackReturn::Failure, CallbackReturn::Error],
            errors: vec![CallbackReturn::Success],
        }
    }

    fn say(&self, name: &str, previous: State) -> CallbackReturn {
        let line = format!("callback {name} {}", previous.label());
        self.said.lock().unwrap().push(line);
        CallbackReturn::Success
    }
}

impl Callbacks for Said {
    fn on_configure(&mut self, previous: State) -> CallbackReturn {
        let answer = self.say("configure", previous);
        match self.moody && !self.configures.is_empty() {
            true => self.configures.remove(0),
            false => answer,
        }
    }
    fn on_activate(&mut self, previous: State) -> CallbackReturn {
        self.say("activate", previous);
        if self.moody {
            panic!("custom exception raised in activate callback");
        }
        CallbackReturn::Success
    }
    fn on_error(&mut self, previous: State) -> CallbackReturn {
        self.say("error", previous);
        match self.errors.is_empty() {
            true => CallbackReturn::Failure,
            false => self.errors.remove(0),
        }
    }
    fn on_deactivate(&mut self, previous: State) -> CallbackReturn {
        self.say("deactivate", previous)
    }
    fn on_cleanup(&mut self, previous: State) -> CallbackReturn {
        self.say("cleanup", previous)
    }
    fn on_shutdown(&mut self, previous: State) -> CallbackReturn {
        self.say("shutdown", previous)
    }
}

/// The lines a peer prints until `done` (which is left out); fails the test if it stops first.
fn lines_until_done(peer: &mut RclpyNode, what: &str) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    let mut lines = Vec::new();
    loop {
        match peer.next_line(deadline) {
            Some(line) if line == "done" => return lines,
            Some(line) => lines.push(line),
            None => panic!(
                "{what} did not finish; it printed {lines:#?}\nand on stderr:\n{}",
                peer.stderr_to_end()
            ),
        }
    }
}

// rclcpp_lifecycle test/test_lifecycle_service_client.cpp's walk (configure, activate,
// deactivate, cleanup, shutdown through change_state, and the four query services on the
// way) with the refusals of test_state_machine_info.cpp, by label and by id; the expected
// answers are what rclpy's LifecycleNode (rcl_lifecycle's state machine) gives.
#[test]
fn an_rclpy_client_gets_the_same_answers_and_events_from_tacto_as_from_an_rclpy_lifecycle_node() {
    let test = "an_rclpy_client_gets_the_same_answers_and_events_from_tacto_as_from_an_rclpy_lifecycle_node";
    let Some(rclpy) = rclpy_on_cyclone(test) else {
        return;
    };
    const PEER_DOMAIN: u32 = 110;
    const TACTO_DOMAIN: u32 = 111;

    // The ground truth, in its own domain, at the same time as tacto's run.
    let peer = rclpy.spawn("lifecycle.py", PEER_DOMAIN, &["node", "lc_node"]);
    let mut peers_client = rclpy.spawn("lifecycle.py", PEER_DOMAIN, &["client", "/lc_node"]);

    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(TACTO_DOMAIN)))
        .create();
    let mut node = ctx.node("lc_node").unwrap();
    let said = Arc::new(Mutex::new(Vec::new()));
    let lifecycle = node.manage(Said::new(said.clone(), false)).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let mut tactos_client = rclpy.spawn(
        "lifecycle.py",
        TACTO_DOMAIN,
        &["client", "/lc_node", "invalid-id"],
    );

    let expected = lines_until_done(&mut peers_client, "the client of the rclpy node");
    let mut answered = lines_until_done(&mut tactos_client, "the client of the tacto node");
    // Asked of tacto only: rclpy's LifecycleNode ends its process on an unknown id, where
    // rclcpp's answers false.
    let by_id = r#"answer change_state {"id": 3, "label": ""} {"success": false}"#;
    let refused = answered.iter().position(|line| line == by_id);
    let refused = refused.unwrap_or_else(|| panic!("no {by_id:?} in {answered:#?}"));
    answered.remove(refused);
    assert_eq!(answered, expected);
    assert_eq!(
        expected.iter().filter(|l| l.starts_with("event ")).count(),
        12
    );
    assert_eq!(lifecycle.state(), State::FINALIZED);

    // The same callbacks ran, given the same previous states.
    assert_eq!(*said.lock().unwrap(), callbacks(&peer, 6));
    running.stop();
    running.join().unwrap().1.unwrap();
}

/// The first `count` callbacks `peer` says it ran.
fn callbacks(peer: &RclpyNode, count: usize) -> Vec<String> {
    let mut said = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    while said.len() < count {
        match peer.next_line(deadline) {
            Some(line) if line.starts_with("callback ") => said.push(line),
            Some(_) => {}
            None => panic!("the rclpy node said {said:?}:\n{}", peer.stderr()),
        }
    }
    said
}

// rclcpp_lifecycle test/test_lifecycle_node.cpp's bad moods and test_callback_exceptions.cpp's
// throwing callback: a failure goes back, an error or an exception goes through
// errorprocessing, where on_error's answer decides; `change_state` answers success only for a
// callback's success. Expected: what rclpy's LifecycleNode answers and publishes.
#[test]
fn failing_and_panicking_callbacks_answer_and_publish_as_in_an_rclpy_lifecycle_node() {
    let test = "failing_and_panicking_callbacks_answer_and_publish_as_in_an_rclpy_lifecycle_node";
    let Some(rclpy) = rclpy_on_cyclone(test) else {
        return;
    };
    const PEER_DOMAIN: u32 = 115;
    const TACTO_DOMAIN: u32 = 116;
    let peer = rclpy.spawn("lifecycle.py", PEER_DOMAIN, &["node", "moody", "moody"]);
    let mut peers_client = rclpy.spawn("lifecycle.py", PEER_DOMAIN, &["moody-client", "/moody"]);

    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(TACTO_DOMAIN)))
        .create();
    let mut node = ctx.node("moody").unwrap();
    let said = Arc::new(Mutex::new(Vec::new()));
    let lifecycle = node.manage(Said::new(said.clone(), true)).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    let mut tactos_client = rclpy.spawn("lifecycle.py", TACTO_DOMAIN, &["moody-client", "/moody"]);

    let expected = lines_until_done(&mut peers_client, "the client of the rclpy node");
    let answered = lines_until_done(&mut tactos_client, "the client of the tacto node");
    assert_eq!(answered, expected);
    assert_eq!(
        expected.iter().filter(|l| l.starts_with("event ")).count(),
        10
    );
    assert_eq!(lifecycle.state(), State::FINALIZED);
    // configure twice (error processing after the second), configure, activate, error
    // processing.
    assert_eq!(*said.lock().unwrap(), callbacks(&peer, 6));
    running.stop();
    running.join().unwrap().1.unwrap();
}
