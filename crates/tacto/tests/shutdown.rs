//! Process-wide shutdown reaching executors on several threads.
//!
//! Shutdown is for good and for the whole process, so these tests live in a binary of their
//! own, and those that signal run in child processes of it.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
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
        node.wall_timer(Duration::from_millis(1), move |_| {
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
    let mut c = ThreadPoolExecutor::builder().threads(1).create().unwrap();
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

/// One test of this binary, run in a child process (with `marker` set to `value`), whose
/// lines on stdout the parent reads as they come.
struct ChildTest {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl ChildTest {
    fn start(test: &str, marker: &str, value: &str) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture"])
            .env(marker, value)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        ChildTest { child, lines }
    }

    /// Waits until the child prints a line that ends with `line`.
    fn expect(&self, line: &str) {
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(got) if got.ends_with(line) => return,
                Ok(_) => {}
                Err(e) => panic!("the child never printed {line:?} ({e})"),
            }
        }
    }

    fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: FFI; `kill` takes no pointers, and `pid` is our child, not yet reaped.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }

    /// Waits for the child to end; kills it and fails if it is still running after
    /// [`PATIENCE`].
    fn wait(mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if start.elapsed() > PATIENCE {
                self.child.kill().unwrap();
                panic!("the child is still running");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Set, to the signal's number, in the child process that a signal finds stuck in a callback.
const STUCK_CHILD: &str = "TACTO_TEST_STUCK_CHILD";

#[test]
fn a_second_signal_while_a_stop_is_pending_ends_a_process_stuck_in_a_callback() {
    const TEST: &str = "a_second_signal_while_a_stop_is_pending_ends_a_process_stuck_in_a_callback";
    if std::env::var_os(STUCK_CHILD).is_some() {
        stuck_in_a_callback();
    }
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let child = ChildTest::start(TEST, STUCK_CHILD, &signal.to_string());
        child.expect("tacto-child: stuck");
        child.signal(signal);
        // Signals of one kind do not queue: the second is sent once the first was handled.
        child.expect("tacto-child: stop requested");
        child.signal(signal);
        let status = child.wait();
        assert_eq!(status.signal(), Some(signal), "{status}");
    }
}

/// The child of the test above: spins a node whose callback never returns.
fn stuck_in_a_callback() -> ! {
    let ctx = Context::new();
    let mut node = ctx.node("stuck").unwrap();
    node.wall_timer(Duration::from_millis(1), |_| {
        println!("tacto-child: stuck");
        while !shutdown::requested() {
            thread::sleep(Duration::from_millis(1));
        }
        println!("tacto-child: stop requested");
        loop {
            thread::park();
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let outcome = executor.spin();
    unreachable!("the callback returned: {outcome:?}");
}

/// Set in the child process that handles SIGINT itself.
const OWN_HANDLER_CHILD: &str = "TACTO_TEST_OWN_HANDLER_CHILD";

#[test]
fn a_program_that_leaves_signals_alone_handles_them_itself() {
    const TEST: &str = "a_program_that_leaves_signals_alone_handles_them_itself";
    if std::env::var_os(OWN_HANDLER_CHILD).is_some() {
        handling_sigint_itself();
        return;
    }
    let child = ChildTest::start(TEST, OWN_HANDLER_CHILD, "1");
    child.expect("tacto-child: spinning");
    child.signal(libc::SIGINT);
    child.expect("tacto-child: interrupted");
    // tacto's handlers would end the process on this one.
    child.signal(libc::SIGINT);
    child.expect("tacto-child: handled 2");
    let status = child.wait();
    assert!(status.success(), "{status}");
}

/// SIGINTs the child's own handler saw.
static HANDLED: AtomicUsize = AtomicUsize::new(0);

/// The child's own SIGINT handler: stops the executors on the first signal.
extern "C" fn own_handler(_: libc::c_int) {
    if HANDLED.fetch_add(1, Ordering::SeqCst) == 0 {
        shutdown::request();
    }
}

/// The child of the test above.
fn handling_sigint_itself() {
    shutdown::leave_signals_alone().unwrap();
    let handler = own_handler as extern "C" fn(libc::c_int);
    // SAFETY: FFI; the handler only touches an atomic and calls `shutdown::request`, both
    // async-signal-safe.
    let previous = unsafe { libc::signal(libc::SIGINT, handler as libc::sighandler_t) };
    assert_ne!(previous, libc::SIG_ERR);
    let ctx = Context::new();
    let mut node = ctx.node("ticking").unwrap();
    let mut first = true;
    node.wall_timer(Duration::from_millis(1), move |_| {
        if std::mem::take(&mut first) {
            println!("tacto-child: spinning");
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    assert_eq!(executor.spin().unwrap(), SpinOutcome::Interrupted);
    println!("tacto-child: interrupted");
    let start = Instant::now();
    while HANDLED.load(Ordering::SeqCst) < 2 {
        assert!(start.elapsed() < PATIENCE, "the second SIGINT never came");
        thread::sleep(Duration::from_millis(1));
    }
    println!("tacto-child: handled 2");
}

/// Set in the child process that leaves signals alone too late.
const TOO_LATE_CHILD: &str = "TACTO_TEST_TOO_LATE_CHILD";

#[test]
fn signals_cannot_be_left_alone_once_an_executor_installed_the_handlers() {
    if std::env::var_os(TOO_LATE_CHILD).is_none() {
        run_in_child(
            "signals_cannot_be_left_alone_once_an_executor_installed_the_handlers",
            TOO_LATE_CHILD,
        );
        return;
    }
    let _executor = WaitSetExecutor::new().unwrap();
    assert_eq!(
        shutdown::leave_signals_alone(),
        Err(shutdown::LeaveSignalsError::AlreadyInstalled)
    );
}
