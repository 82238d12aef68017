//! A managed node inside one process: its lifecycle services answer as rclcpp_lifecycle's do,
//! its transitions are published, and its executables and publishers wait for `active`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tacto::lifecycle::{CallbackReturn, Callbacks, Lifecycle, RequestError, State, Transition};
use tacto::msg::lifecycle_msgs::{msg, srv};
use tacto::msg::std_msgs::String as Text;
use tacto::{Client, Context, Executor, ExecutorThread, History, Node, Trigger, WaitSetExecutor};

const PATIENCE: Duration = Duration::from_secs(10);

/// Callbacks that answer `configure` as told and record what ran.
struct Recorder {
    configure: CallbackReturn,
    ran: Arc<Mutex<Vec<&'static str>>>,
}

impl Callbacks for Recorder {
    fn on_configure(&mut self, _previous: State) -> CallbackReturn {
        self.ran.lock().unwrap().push("configure");
        self.configure
    }
    fn on_activate(&mut self, _previous: State) -> CallbackReturn {
        self.ran.lock().unwrap().push("activate");
        CallbackReturn::Success
    }
    fn on_deactivate(&mut self, _previous: State) -> CallbackReturn {
        self.ran.lock().unwrap().push("deactivate");
        CallbackReturn::Success
    }
}

struct Calls {
    change: Client<srv::ChangeState>,
    get: Client<srv::GetState>,
    states: Client<srv::GetAvailableStates>,
    transitions: Client<srv::GetAvailableTransitions>,
    graph: Client<srv::GetAvailableTransitions>,
}

impl Calls {
    fn new(caller: &mut Node, of: &str) -> Self {
        Calls {
            change: caller
                .client(&format!("{of}/change_state"))
                .create()
                .unwrap(),
            get: caller.client(&format!("{of}/get_state")).create().unwrap(),
            states: caller
                .client(&format!("{of}/get_available_states"))
                .create()
                .unwrap(),
            transitions: (caller.client(&format!("{of}/get_available_transitions")))
                .create()
                .unwrap(),
            graph: (caller.client(&format!("{of}/get_transition_graph")))
                .create()
                .unwrap(),
        }
    }

    fn set(&self, id: u8, label: &str) -> bool {
        let transition = msg::Transition {
            id,
            label: label.into(),
        };
        (self.change)
            .call(srv::ChangeState_Request { transition }, PATIENCE)
            .unwrap()
            .success
    }

    fn state(&self) -> (u8, String) {
        let state = self
            .get
            .call(Default::default(), PATIENCE)
            .unwrap()
            .current_state;
        (state.id, state.label)
    }
}

fn labels(descriptions: &[msg::TransitionDescription]) -> Vec<(u8, &str, &str, &str)> {
    descriptions
        .iter()
        .map(|d| {
            (
                d.transition.id,
                d.transition.label.as_str(),
                d.start_state.label.as_str(),
                d.goal_state.label.as_str(),
            )
        })
        .collect()
}

// rclcpp_lifecycle test/test_lifecycle_service_client.cpp's sequence: get_state, then
// configure, activate, deactivate, cleanup, shutdown through change_state, and what
// get_available_states, get_available_transitions and get_transition_graph answer.
#[test]
fn the_lifecycle_services_answer_and_move_the_node_as_rclcpps_do() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_talker").unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let lifecycle = node
        .manage(Recorder {
            configure: CallbackReturn::Success,
            ran: ran.clone(),
        })
        .unwrap();
    let mut watcher = ctx.node("watcher").unwrap();
    let events = watcher
        .subscription::<msg::TransitionEvent>("/lc_talker/transition_event")
        .history(History::KeepLast(100))
        .create()
        .unwrap();
    let calls = Calls::new(&mut watcher, "/lc_talker");
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    assert_eq!(calls.state(), (1, "unconfigured".into()));
    let states = calls.states.call(Default::default(), PATIENCE).unwrap();
    assert_eq!(states.available_states.len(), 11);
    assert_eq!(
        (
            states.available_states[5].id,
            states.available_states[5].label.as_str()
        ),
        (10, "configuring")
    );
    let available = calls
        .transitions
        .call(Default::default(), PATIENCE)
        .unwrap();
    assert_eq!(
        labels(&available.available_transitions),
        [
            (1, "configure", "unconfigured", "configuring"),
            (5, "shutdown", "unconfigured", "shuttingdown"),
        ]
    );
    let graph = calls.graph.call(Default::default(), PATIENCE).unwrap();
    assert_eq!(graph.available_transitions.len(), 25);

    assert!(calls.set(1, ""));
    assert_eq!(calls.state(), (2, "inactive".into()));
    assert_eq!(lifecycle.state(), State::INACTIVE);
    let available = calls
        .transitions
        .call(Default::default(), PATIENCE)
        .unwrap();
    assert_eq!(
        labels(&available.available_transitions),
        [
            (2, "cleanup", "inactive", "cleaningup"),
            (3, "activate", "inactive", "activating"),
            (6, "shutdown", "inactive", "shuttingdown"),
        ]
    );
    // A label takes precedence over the id, as `ros2 lifecycle set` sends it.
    assert!(calls.set(0, "activate"));
    assert_eq!(calls.state(), (3, "active".into()));
    // Not a transition out of active: refused, nothing runs.
    assert!(!calls.set(1, ""));
    assert!(!calls.set(0, "configure"));
    assert!(calls.set(4, ""));
    assert!(calls.set(2, ""));
    assert!(calls.set(0, "shutdown"));
    assert_eq!(calls.state(), (4, "finalized".into()));
    assert_eq!(
        *ran.lock().unwrap(),
        ["configure", "activate", "deactivate"]
    );

    running.stop();
    running.join().unwrap().1.unwrap();
    // Each transition taken is one event, start and goal states filled as rcl fills them.
    let seen: Vec<_> = events
        .take_all()
        .map(|e| (e.start_state.id, e.goal_state.id))
        .collect();
    assert_eq!(
        seen,
        [
            (1, 10),
            (10, 2),
            (2, 13),
            (13, 3),
            (3, 14),
            (14, 2),
            (2, 11),
            (11, 1),
            (1, 12),
            (12, 4)
        ]
    );
}

// rclcpp_lifecycle: a configure whose callback fails leaves the node unconfigured, and the
// service answers `success: false`.
#[test]
fn a_failed_configure_answers_false_and_leaves_the_node_unconfigured() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_failing").unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    node.manage(Recorder {
        configure: CallbackReturn::Failure,
        ran: ran.clone(),
    })
    .unwrap();
    let mut caller = ctx.node("caller").unwrap();
    let calls = Calls::new(&mut caller, "/lc_failing");
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    assert!(!calls.set(1, ""));
    assert_eq!(calls.state(), (1, "unconfigured".into()));
    // An unknown label is refused before anything runs.
    assert!(!calls.set(0, "fly"));
    running.stop();
    running.join().unwrap().1.unwrap();
    assert_eq!(*ran.lock().unwrap(), ["configure"]);
}

struct Plain;
impl Callbacks for Plain {}

/// Spins `node`'s executor on a thread while `then` runs with the node's service clients.
fn with_running(ctx: &Context, node: Node, then: impl FnOnce(&Calls)) {
    let mut caller = ctx.node("caller").unwrap();
    let calls = Calls::new(&mut caller, &format!("/{}", node.name()));
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    then(&calls);
    running.stop();
    running.join().unwrap().1.unwrap();
}

fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let give_up = Instant::now() + PATIENCE;
    while !condition() {
        assert!(Instant::now() < give_up, "{what} within {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_periodic_executable_runs_only_while_the_node_is_active() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_timer").unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    node.execute(Trigger::every(Duration::from_millis(2)), move |_| {
        counted.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    node.manage(Plain).unwrap();
    with_running(&ctx, node, |calls| {
        // Configured and inactive: periods pass, the code does not run.
        assert!(calls.set(1, ""));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(runs.load(Ordering::Relaxed), 0);
        assert!(calls.set(3, ""));
        wait_until("a run once active", || runs.load(Ordering::Relaxed) > 0);
        assert!(calls.set(4, ""));
        // The state answer comes after the executor ran the deactivation: no run after it.
        assert_eq!(calls.state().0, 2);
        let after = runs.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(runs.load(Ordering::Relaxed), after);
    });
}

#[test]
fn a_publisher_of_an_inactive_node_drops_and_counts_and_sends_once_active() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_pub").unwrap();
    let chatter = node.publisher::<Text>("chatter").create().unwrap();
    node.manage(Plain).unwrap();
    let mut listener = ctx.node("listener").unwrap();
    let heard = listener.subscription::<Text>("chatter").create().unwrap();
    let say = |word: &str| chatter.publish(Text { data: word.into() });
    with_running(&ctx, node, |calls| {
        say("unconfigured");
        assert!(calls.set(1, ""));
        say("inactive");
        assert_eq!(heard.len(), 0);
        assert_eq!(chatter.inactive_drops(), 2);
        assert!(calls.set(3, ""));
        say("active");
        assert!(calls.set(4, ""));
        say("inactive again");
    });
    let got: Vec<_> = heard.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(got, ["active"]);
    assert_eq!(chatter.inactive_drops(), 3);
}

#[test]
fn a_per_message_callback_of_an_inactive_node_drops_its_samples_counted() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_sub").unwrap();
    let got = Arc::new(Mutex::new(Vec::new()));
    let into = got.clone();
    node.subscription::<Text>("chatter")
        .history(History::KeepLast(10))
        .callback(move |sample| into.lock().unwrap().push(sample.data.clone()))
        .unwrap();
    let lifecycle = node.manage(Plain).unwrap();
    let mut talker = ctx.node("talker").unwrap();
    let chatter = talker.publisher::<Text>("chatter").create().unwrap();
    with_running(&ctx, node, |calls| {
        chatter.publish(Text {
            data: "early".into(),
        });
        wait_until("the early sample dropped", || {
            lifecycle.dropped_samples() == 1
        });
        assert!(calls.set(1, ""));
        assert!(calls.set(3, ""));
        chatter.publish(Text { data: "on".into() });
        wait_until("the sample heard", || got.lock().unwrap().len() == 1);
    });
    assert_eq!(*got.lock().unwrap(), ["on"]);
    assert_eq!(lifecycle.dropped_samples(), 1);
}

/// Callbacks that note the thread each runs on.
struct OnThread(Arc<Mutex<Vec<(&'static str, std::thread::ThreadId)>>>);

impl Callbacks for OnThread {
    fn on_configure(&mut self, _previous: State) -> CallbackReturn {
        let thread = std::thread::current().id();
        self.0.lock().unwrap().push(("configure", thread));
        CallbackReturn::Success
    }
    fn on_activate(&mut self, _previous: State) -> CallbackReturn {
        let thread = std::thread::current().id();
        self.0.lock().unwrap().push(("activate", thread));
        CallbackReturn::Success
    }
}

// rclcpp_lifecycle test/test_lifecycle_node.cpp's `trigger_transition` tests: `configure()`
// then `activate()` called from main take the node to active, each published as two events.
// Here they are requested from main and run on the node's executor.
#[test]
fn a_node_configured_and_activated_from_main_runs_both_on_its_executor_which_a_request_wakes() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_autostart").unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let lifecycle = node.manage(OnThread(ran.clone())).unwrap();
    let mut watcher = ctx.node("watcher").unwrap();
    let events = watcher
        .subscription::<msg::TransitionEvent>("/lc_autostart/transition_event")
        .history(History::KeepLast(10))
        .create()
        .unwrap();
    lifecycle.request(Transition::CONFIGURE).unwrap();
    lifecycle.request(Transition::ACTIVATE).unwrap();
    assert_eq!(
        lifecycle.state(),
        State::UNCONFIGURED,
        "nothing runs in main"
    );

    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();
    wait_until("active", || lifecycle.state() == State::ACTIVE);
    // Asked while the executor waits: the request wakes it.
    lifecycle.request(Transition::DEACTIVATE).unwrap();
    wait_until("inactive", || lifecycle.state() == State::INACTIVE);
    running.stop();
    running.join().unwrap().1.unwrap();

    let ran = ran.lock().unwrap();
    assert_eq!(
        ran.iter().map(|(what, _)| *what).collect::<Vec<_>>(),
        ["configure", "activate"]
    );
    assert!(
        ran.iter()
            .all(|(_, thread)| *thread != std::thread::current().id())
    );
    let seen: Vec<_> = events
        .take_all()
        .map(|e| (e.start_state.id, e.goal_state.id))
        .collect();
    assert_eq!(seen, [(1, 10), (10, 2), (2, 13), (13, 3), (3, 14), (14, 2)]);
}

// rclcpp_lifecycle test/test_lifecycle_node.cpp: a transition the state does not have leaves
// the node where it is; `shutdown()` shuts it down from whichever primary state it is in.
#[test]
fn a_request_the_state_does_not_have_is_refused_and_any_shutdown_ends_the_node() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_requests").unwrap();
    let lifecycle = node.manage(Plain).unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let spin = |executor: &mut WaitSetExecutor, lifecycle: &Lifecycle, transition| {
        lifecycle.request(transition).unwrap();
        executor.spin_for(Duration::from_millis(20)).unwrap();
        lifecycle.state()
    };
    assert_eq!(
        spin(&mut executor, &lifecycle, Transition::ACTIVATE),
        State::UNCONFIGURED
    );
    assert_eq!(
        spin(&mut executor, &lifecycle, Transition::CONFIGURE),
        State::INACTIVE
    );
    assert_eq!(
        spin(&mut executor, &lifecycle, Transition::ACTIVATE),
        State::ACTIVE
    );
    // The unconfigured state's shutdown, asked of an active node: shut down from active.
    let shutdown = Transition::UNCONFIGURED_SHUTDOWN;
    assert_eq!(spin(&mut executor, &lifecycle, shutdown), State::FINALIZED);
}

#[test]
fn requests_beyond_the_bound_are_refused_and_the_queued_ones_still_run() {
    let ctx = Context::new();
    let mut node = ctx.node("lc_bound").unwrap();
    let lifecycle = node.manage(Plain).unwrap();
    for _ in 0..Lifecycle::MAX_REQUESTS {
        lifecycle.request(Transition::CONFIGURE).unwrap();
    }
    assert_eq!(
        lifecycle.request(Transition::CONFIGURE),
        Err(RequestError::Full)
    );
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    executor.spin_for(Duration::from_millis(20)).unwrap();
    // The first configured the node; the others were refused from inactive.
    assert_eq!(lifecycle.state(), State::INACTIVE);
    lifecycle.request(Transition::CLEANUP).unwrap();
    executor.spin_for(Duration::from_millis(20)).unwrap();
    assert_eq!(lifecycle.state(), State::UNCONFIGURED);
}
