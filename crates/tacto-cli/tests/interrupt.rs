//! Ctrl-C during `tacto bench`: the run under way stops, its process with it, and the rows
//! finished so far are printed.
//!
//! The test waits for the second run to start, then sends SIGINT to the `tacto` process alone
//! (as a terminal's Ctrl-C reaches it: its runs have process groups of their own). No timing
//! is asserted; every wait is generous.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// What the interrupted bench printed, and how it ended.
struct Outcome {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    /// The process of the run under way when the signal was sent.
    run_process: Option<u32>,
}

/// Runs the bench with runs of `seconds`, and sends SIGINT once the second run has started.
fn interrupt_second_run(seconds: u32) -> Outcome {
    // Run from a folder outside the repository: the reference system is built in.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .current_dir(std::env::temp_dir())
        .args([
            "bench",
            "reference-system",
            "--crunch",
            "0",
            "--warmup",
            "0",
        ])
        .args(["--duration", &seconds.to_string()])
        .args(["--executor", "callback,wait-set"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let watchdog = watchdog(pid, Duration::from_secs(300));
    let mut stdout = child.stdout.take().unwrap();
    let stdout = thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let mut run_process = None;
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        seen += &line;
        // Stderr is not a terminal: one line as each run starts.
        if line.starts_with("[2/2]") {
            run_process = child_of(pid);
            // SAFETY: `kill` sends a signal to the process this test started and has not yet
            // waited for, so `pid` still names it.
            assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGINT) }, 0);
        }
        line.clear();
    }
    let status = wait(&mut child);
    drop(watchdog);
    Outcome {
        status,
        stdout: stdout.join().unwrap(),
        stderr: seen,
        run_process,
    }
}

#[test]
fn ctrl_c_stops_the_run_under_way_and_prints_the_rows_finished() {
    // If the second run ended before the signal came (a very slow machine), try again with
    // runs ten times longer.
    for seconds in [4, 40] {
        let outcome = interrupt_second_run(seconds);
        if outcome.status.success() {
            continue;
        }
        assert_eq!(outcome.status.code(), Some(130), "{}", outcome.stderr);
        let rows: Vec<&str> = outcome
            .stdout
            .lines()
            .filter(|l| l.starts_with("callback ") || l.starts_with("wait-set "))
            .collect();
        assert_eq!(rows.len(), 1, "{}", outcome.stdout);
        assert!(rows[0].starts_with("callback "), "{}", outcome.stdout);
        assert!(outcome.stdout.contains("interrupted"), "{}", outcome.stdout);
        assert!(
            outcome.stderr.contains("interrupted: 1 of 2 runs finished"),
            "{}",
            outcome.stderr
        );
        let run = outcome.run_process.expect("the second run had a process");
        assert!(!alive(run), "the run's process {run} is still there");
        return;
    }
    panic!("the second run always finished before the signal reached the bench");
}

/// Kills `pid` if the test is still waiting for it after `patience`; dropping the result
/// disarms it.
fn watchdog(pid: u32, patience: Duration) -> mpsc::Sender<()> {
    let (disarm, disarmed) = mpsc::channel::<()>();
    thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = disarmed.recv_timeout(patience) {
            // SAFETY: sends SIGKILL to the process the test started; it has not been waited
            // for, since the test is stuck waiting for it.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    });
    disarm
}

fn wait(child: &mut Child) -> ExitStatus {
    child.wait().unwrap()
}

/// A child process of `pid` (the run under way), from the parent ids in `/proc/*/stat`.
fn child_of(pid: u32) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let candidate: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // The command name, in parentheses, may hold spaces: the fields follow its last ')'.
            let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
            (fields.get(1)?.parse::<u32>().ok()? == pid).then_some(candidate)
        })
}

/// True if `pid` is a process that has not been reaped, other than a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}
