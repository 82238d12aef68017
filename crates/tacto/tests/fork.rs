//! Fork: a signal in a forked child stops the child's executors, never its parent's, and an
//! executor created before the fork refuses to spin in the child.
//!
//! Without libtest (`harness = false`): `main` is the only thread when it forks, so the child
//! may do more than async-signal-safe calls (libtest's threads would forbid that), such as
//! creating an executor.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tacto::executor::SpinError;
use tacto::{Context, Executor, SpinOutcome, WaitSetExecutor, shutdown};

/// Long enough never to run out on a slow, loaded machine; reaching it means the test failed.
const PATIENCE: Duration = Duration::from_secs(30);

const TEST: &str = "a_signal_in_a_forked_child_stops_the_child_and_not_the_parent";

fn main() {
    // Test runners list tests before they run them.
    if std::env::args().any(|a| a == "--list") {
        println!("{TEST}: test");
        return;
    }
    a_signal_in_a_forked_child_stops_the_child_and_not_the_parent();
    println!("test {TEST} ... ok");
}

/// What the child found wrong, one bit each: its exit code.
const INHERITED_A_STOP: i32 = 1;
const SIGINT_DID_NOT_REQUEST_A_STOP: i32 = 2;
const PARENTS_EXECUTOR_SPUN: i32 = 4;
const OWN_EXECUTOR_NOT_INTERRUPTED: i32 = 8;

fn a_signal_in_a_forked_child_stops_the_child_and_not_the_parent() {
    let ctx = Context::new();
    let mut node = ctx.node("ticking").unwrap();
    let (tx, ticks) = mpsc::channel();
    node.wall_timer(Duration::from_millis(1), move |_| {
        let _ = tx.send(());
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();

    // SAFETY: FFI; this process has one thread, so the child is a whole copy of it.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
    if pid == 0 {
        let code = child(&mut executor);
        // SAFETY: FFI; ends the child at once, without running the parent's exit handlers.
        unsafe { libc::_exit(code) };
    }

    let code = wait_for(pid);
    // The child's SIGINT wrote into the child's shutdown line only: the parent's executor runs
    // on (wakes for its timer) until its stop handle stops it.
    assert!(!shutdown::requested());
    let stop = executor.stop_handle();
    let stopper = thread::spawn(move || {
        for _ in 0..3 {
            ticks
                .recv_timeout(PATIENCE)
                .expect("the executor stopped ticking");
        }
        stop.stop();
    });
    let outcome = executor.spin_for(PATIENCE).unwrap();
    assert_eq!(outcome, SpinOutcome::Stopped);
    stopper.join().unwrap();
    assert_eq!(code, 0, "the child found (bits): {code:#b}");
}

/// In the child: a SIGINT, then both executors; returns what went wrong, as bits.
fn child(parents: &mut WaitSetExecutor) -> i32 {
    let mut wrong = 0;
    if shutdown::requested() {
        wrong |= INHERITED_A_STOP;
    }
    // SAFETY: FFI; tacto's handler turns SIGINT into a shutdown request.
    unsafe { libc::raise(libc::SIGINT) };
    if !shutdown::requested() {
        wrong |= SIGINT_DID_NOT_REQUEST_A_STOP;
    }
    if !matches!(
        parents.spin_for(PATIENCE),
        Err(SpinError::CreatedBeforeFork)
    ) {
        wrong |= PARENTS_EXECUTOR_SPUN;
    }
    let mut own = WaitSetExecutor::new().unwrap();
    if !matches!(own.spin_for(PATIENCE), Ok(SpinOutcome::Interrupted)) {
        wrong |= OWN_EXECUTOR_NOT_INTERRUPTED;
    }
    wrong
}

/// The child's exit code; fails if it is killed, or still running after [`PATIENCE`].
fn wait_for(pid: libc::pid_t) -> i32 {
    let start = Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: FFI; `status` is a valid int for the kernel to fill.
        let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(reaped >= 0, "waitpid: {}", std::io::Error::last_os_error());
        if reaped == pid {
            break;
        }
        if start.elapsed() > PATIENCE {
            // SAFETY: FFI; `pid` is our child, not yet reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("the forked child hung");
        }
        thread::sleep(Duration::from_millis(10));
    }
    assert!(
        libc::WIFEXITED(status),
        "the child died: status {status:#x}"
    );
    libc::WEXITSTATUS(status)
}
