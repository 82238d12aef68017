//! Process-wide shutdown reaching executors on several threads.
//!
//! Shutdown is for good and for the whole process, so these tests live in a binary of their
//! own, and the SIGTERM test runs in a child process of it.

use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::String as Text;
use tacto::{
    CallbackExecutor, Context, EventsExecutor, Executor, ExecutorThread, SpinOutcome,
    ThreadPoolExecutor, Trigger, WaitSetExecutor, shutdown,
};

/// Long enough never to fire on a slow, loaded machine; reaching it means the test failed.
const PATIENCE: Duration = Duration::from_secs(30);

/// Starts two executors of different kinds on two threads and returns once both are spinning.
fn two_spinning_executors() -> (
    ExecutorThread<WaitSetExecutor>,
    ExecutorThread<CallbackExecutor>,
) {
    let ctx = Context::new();
    let (tx, rx) = mpsc::channel();
    let ticking = |name: &'static str| {
        let mut node = ctx.node(name).unwrap();
        let tx = tx.clone();
        node.timer(Duration::from_millis(1), move |_| {
            let _ = tx.send(name);
        })
        .unwrap();
        node
    };
    let mut a = WaitSetExecutor::new().unwrap();
    a.add(ticking("first")).unwrap();
    let mut b = CallbackExecutor::new().unwrap();
    b.add(ticking("second")).unwrap();
    let a = ExecutorThread::builder().spawn(a).unwrap();
    let b = ExecutorThread::builder().spawn(b).unwrap();
    let mut running = Vec::new();
    while running.len() < 2 {
        let name = rx.recv_timeout(PATIENCE).expect("an executor never ran");
        if !running.contains(&name) {
            running.push(name);
        }
    }
    (a, b)
}

fn assert_both_interrupted(
    (a, b): (
        ExecutorThread<WaitSetExecutor>,
        ExecutorThread<CallbackExecutor>,
    ),
) {
    assert_eq!(a.join().unwrap().1.unwrap(), SpinOutcome::Interrupted);
    assert_eq!(b.join().unwrap().1.unwrap(), SpinOutcome::Interrupted);
}

#[test]
fn a_shutdown_request_interrupts_executors_on_two_threads() {
    let executors = two_spinning_executors();
    assert!(!shutdown::requested());

    shutdown::request();
    assert_both_interrupted(executors);
}

/// Set in the child process that the SIGTERM test runs itself in.
const SIGTERM_CHILD: &str = "TACTO_TEST_SIGTERM_CHILD";

#[test]
fn sigterm_interrupts_executors_on_two_threads() {
    if std::env::var_os(SIGTERM_CHILD).is_some() {
        let executors = two_spinning_executors();
        assert!(!shutdown::requested());
        // SAFETY: `kill` takes no pointers; the handlers the executors installed turn SIGTERM
        // into a shutdown request instead of ending the process.
        let sent = unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
        assert_eq!(sent, 0);
        assert_both_interrupted(executors);
        assert!(shutdown::requested());
        return;
    }
    run_in_child("sigterm_interrupts_executors_on_two_threads", SIGTERM_CHILD);
}

/// Set in the child process of the busy-executor test.
const BUSY_CHILD: &str = "TACTO_TEST_BUSY_CHILD";

#[test]
fn executors_that_never_run_out_of_work_still_stop_on_shutdown() {
    if std::env::var_os(BUSY_CHILD).is_none() {
        run_in_child(
            "executors_that_never_run_out_of_work_still_stop_on_shutdown",
            BUSY_CHILD,
        );
        return;
    }
    let ctx = Context::new();
    let (tx, rx) = mpsc::sync_channel(1);
    // The node feeds itself: each run publishes the sample that triggers the next, so its
    // executor never blocks in the OS, where the shutdown line is watched.
    let busy = |name: &'static str| {
        let mut node = ctx.node(name).unwrap();
        let sub = node.subscription::<Text>(name).create().unwrap();
        let feed = node.publisher::<Text>(name).create().unwrap();
        feed.publish(Text::default());
        let tx = tx.clone();
        node.execute(Trigger::on(&sub), move |_| {
            sub.take_all().for_each(drop);
            feed.publish(Text::default());
            let _ = tx.try_send(name);
        })
        .unwrap();
        node
    };
    let mut a = WaitSetExecutor::new().unwrap();
    a.add(busy("wait_set")).unwrap();
    let mut b = EventsExecutor::new().unwrap();
    b.add(busy("events")).unwrap();
    // One worker, which therefore never waits in the OS either.
    let mut c = ThreadPoolExecutor::builder().threads(1).build().unwrap();
    c.add(busy("pool")).unwrap();
    let a = ExecutorThread::builder().spawn(a).unwrap();
    let b = ExecutorThread::builder().spawn(b).unwrap();
    let c = ExecutorThread::builder().spawn(c).unwrap();
    let mut running = Vec::new();
    while running.len() < 3 {
        let name = rx.recv_timeout(PATIENCE).expect("an executor never ran");
        if !running.contains(&name) {
            running.push(name);
        }
    }

    shutdown::request();
    drop(rx);
    assert_eq!(a.join().unwrap().1.unwrap(), SpinOutcome::Interrupted);
    assert_eq!(b.join().unwrap().1.unwrap(), SpinOutcome::Interrupted);
    assert_eq!(c.join().unwrap().1.unwrap(), SpinOutcome::Interrupted);
}

/// Runs one test of this binary in a child process (with `marker` set), so that what it does
/// to the process's shutdown state stays there, and checks that it passed. A child that hangs
/// (an executor that never stops) is killed after [`PATIENCE`] and fails the test.
fn run_in_child(test: &str, marker: &str) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test])
        .env(marker, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > PATIENCE {
            child.kill().unwrap();
            panic!("{test} hung in its child process");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr),
    );
}
