//! Children that do not end: how long a bench child is given, and what it was doing when it
//! was killed for overrunning.
//!
//! Every child a benchmark waits for runs for a known time (its warm-up and window, or a peer's
//! `-t SECONDS`). A child that is still there long after that is hung, and waiting for it would
//! hang the whole benchmark (and a CI job with it): it is killed, and its run fails with the
//! state of each of its threads, so that the hang can be read from the report.

use std::process::{Child, ExitStatus};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::run::POLL;
use tacto_launch::interrupt::Interrupt;

/// How long past its own run a child may take (start-up, shut-down, writing its figures)
/// before it counts as hung: generous, since a loaded CI machine is slow.
const MARGIN: Duration = Duration::from_secs(60);

/// How long a child killed for overrunning has to be gone before it is left to the OS.
const REAP: Duration = Duration::from_secs(5);

/// The most a child that runs for `run` may take: twice that, plus a minute.
pub(crate) fn limit(run: Duration) -> Duration {
    run.saturating_mul(2).saturating_add(MARGIN)
}

/// How a waited-for child ended.
#[derive(Debug)]
pub(crate) enum Waited {
    /// By itself.
    Ended(ExitStatus),
    /// Killed because a signal came to this process.
    Interrupted,
    /// Killed after `limit`: what its threads were doing, in a sentence.
    Overran(String),
}

/// Waits for `child` to end, for at most `limit`; kills it when a signal comes or the limit
/// passes.
pub(crate) fn wait(
    child: &mut Child,
    limit: Duration,
    interrupt: &Interrupt,
) -> std::io::Result<Waited> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Waited::Ended(status));
        }
        if interrupt.requested() {
            kill(child);
            return Ok(Waited::Interrupted);
        }
        if Instant::now() >= deadline {
            return Ok(Waited::Overran(overran(child, limit)));
        }
        interrupt.sleep(POLL.min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// Kills `child` after `limit` and says what its threads were doing.
pub(crate) fn overran(child: &mut Child, limit: Duration) -> String {
    let threads = threads(child.id());
    kill(child);
    format!(
        "it had not ended {} s after it started, and was killed; its threads were {threads}",
        limit.as_secs()
    )
}

/// SIGKILL, then reaped if it goes within [`REAP`]: one stuck in the kernel is left to the OS
/// rather than waited for.
pub(crate) fn kill(child: &mut Child) {
    let _ = child.kill();
    let deadline = Instant::now() + REAP;
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The result of `reader`, a thread reading a pipe of a child that has ended, if it ends
/// within [`REAP`]: the pipe stays open while a process the child started holds it, and such a
/// reader is left to end with it.
pub(crate) fn join<T>(reader: JoinHandle<T>) -> Option<T> {
    let deadline = Instant::now() + REAP;
    while !reader.is_finished() {
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    reader.join().ok()
}

/// Each thread of process `pid` as `name (state, in wchan)`, from `/proc`.
fn threads(pid: u32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return format!("unreadable (no /proc/{pid}/task)");
    };
    let read = |path: std::path::PathBuf| {
        std::fs::read_to_string(path).map_or_else(|_| "?".to_owned(), |s| s.trim().to_owned())
    };
    let mut threads: Vec<String> = (tasks.flatten())
        .map(|task| {
            let stat = read(task.path().join("stat"));
            // The state follows the command's closing parenthesis.
            let state = (stat.rsplit_once(')'))
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .unwrap_or("?")
                .to_owned();
            let wchan = read(task.path().join("wchan"));
            let wchan = if wchan == "0" { "-".to_owned() } else { wchan };
            format!("{} ({state}, in {wchan})", read(task.path().join("comm")))
        })
        .collect();
    threads.sort();
    threads.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_child_that_ends_in_time_is_waited_for() {
        let interrupt = Interrupt::install().unwrap();
        let mut child = Command::new("true").spawn().unwrap();
        let waited = wait(&mut child, Duration::from_secs(30), &interrupt).unwrap();
        assert!(matches!(waited, Waited::Ended(status) if status.success()));
    }

    #[test]
    fn a_child_past_its_limit_is_killed_and_its_threads_are_named() {
        let interrupt = Interrupt::install().unwrap();
        let mut child = Command::new("sleep").arg("600").spawn().unwrap();
        let started = Instant::now();
        let waited = wait(&mut child, Duration::from_millis(300), &interrupt).unwrap();
        assert!(started.elapsed() < Duration::from_secs(60));
        let Waited::Overran(why) = waited else {
            panic!("{waited:?}")
        };
        assert!(
            why.contains("had not ended 0 s after") && why.contains("sleep (S, in "),
            "{why}"
        );
        // Killed and reaped.
        assert!(child.try_wait().unwrap().is_some());
    }

    #[test]
    fn a_reader_is_joined_when_it_ends_and_left_when_it_does_not() {
        assert_eq!(join(std::thread::spawn(|| 7)), Some(7));
        let (_keep, never) = std::sync::mpsc::channel::<()>();
        let started = Instant::now();
        assert_eq!(join(std::thread::spawn(move || never.recv().is_ok())), None);
        assert!(started.elapsed() >= REAP);
    }

    #[test]
    fn the_limit_is_twice_the_run_and_a_minute() {
        assert_eq!(limit(Duration::from_secs(3)), Duration::from_secs(66));
        assert_eq!(limit(Duration::MAX), Duration::MAX);
    }
}
