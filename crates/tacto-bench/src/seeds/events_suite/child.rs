//! A measured child process: run to its end (or killed on a signal), its error output collected,
//! and,
//! when asked, its CPU time and resident set read from `/proc` once a second as it runs: the
//! figures of a program that does not report its own (rclcpp's benchmark), or the memory of a
//! long run second by second.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::deadline;
use tacto_launch::interrupt::Interrupt;

/// How often a sampled child's CPU and memory are read.
pub(crate) const EVERY: Duration = Duration::from_secs(1);

/// One reading of a child.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reading {
    /// Since the child started, s.
    pub at_s: f64,
    /// Its user + system CPU time so far, s.
    pub cpu_s: f64,
    /// Its resident set, kB.
    pub rss_kb: u64,
}

/// A child that ended.
#[derive(Debug)]
pub(crate) struct Ended {
    /// How.
    pub status: ExitStatus,
    /// Its error output.
    pub stderr: String,
    /// Its readings, once a second (none unless asked for).
    pub readings: Vec<Reading>,
}

impl Ended {
    /// The CPU it used from `from_s` after its start to its last reading, as % of one core;
    /// `None` without two readings in that span.
    pub(crate) fn cpu_pct_core(&self, from_s: f64) -> Option<f64> {
        let first = self.readings.iter().find(|r| r.at_s >= from_s)?;
        let last = self.readings.last()?;
        (last.at_s > first.at_s)
            .then(|| ((last.cpu_s - first.cpu_s) / (last.at_s - first.at_s) * 100.0).max(0.0))
    }

    /// Its stderr's last line: what a failing program says last is its error.
    pub(crate) fn last_words(&self) -> &str {
        self.stderr.trim().lines().last().unwrap_or_default()
    }
}

/// Why a child did not end by itself.
#[derive(Debug)]
pub(crate) enum ChildError {
    /// A signal came: the child was killed.
    Interrupted,
    /// It could not be started or waited for.
    Failed(String),
}

/// Runs `command` (made with [`tacto_launch::supervise::child_command`], so that it dies with
/// this process) to its end, reading its CPU and memory every [`EVERY`] if `sample`; kills it
/// if it has not ended after `limit` (see [`deadline::limit`]).
pub(crate) fn run(
    mut command: Command,
    sample: bool,
    limit: Duration,
    interrupt: &Interrupt,
) -> Result<Ended, ChildError> {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::null())
        // What it prints is its progress: its figures are in files, or read here.
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ChildError::Failed(format!("cannot start {program}: {e}")))?;
    // Drained on a thread of its own, so that a full pipe never blocks the child.
    let stderr = child.stderr.take().map(|mut pipe| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            // What was read before an error is all there is.
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    });
    let started = Instant::now();
    let mut readings = Vec::new();
    let mut next = started;
    let status = loop {
        if interrupt.requested() {
            deadline::kill(&mut child);
            return Err(ChildError::Interrupted);
        }
        if started.elapsed() >= limit {
            let why = deadline::overran(&mut child, limit);
            return Err(ChildError::Failed(format!("{program} hung: {why}")));
        }
        if sample && Instant::now() >= next {
            next += EVERY;
            if let Some((cpu_s, rss_kb)) = read_proc(child.id()) {
                readings.push(Reading {
                    at_s: started.elapsed().as_secs_f64(),
                    cpu_s,
                    rss_kb,
                });
            }
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                let until_next = next.saturating_duration_since(Instant::now());
                interrupt.sleep(until_next.clamp(Duration::from_millis(10), crate::run::POLL));
            }
            Err(e) => return Err(ChildError::Failed(format!("waiting for {program}: {e}"))),
        }
    };
    Ok(Ended {
        status,
        stderr: stderr.and_then(|r| r.join().ok()).unwrap_or_default(),
        readings,
    })
}

/// Process `pid`'s CPU time (s) and resident set (kB), from `/proc`; `None` once it is gone.
/// The CPU time is the larger of two readings: `stat`'s user and system time, which counts
/// every thread the process ever had but in clock ticks (10 ms: coarse for a process that uses
/// 1% of a core over a few seconds), and the sum of its live threads' `schedstat`, in
/// nanoseconds but without the threads that have ended.
fn read_proc(pid: u32) -> Option<(f64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ticks = cpu_of_stat(&stat)?;
    let cpu = threads_cpu(pid).map_or(ticks, |threads| threads.max(ticks));
    Some((cpu, rss_of_status(&status)?))
}

/// The CPU time of `pid`'s threads alive now, s, from each one's `schedstat`.
fn threads_cpu(pid: u32) -> Option<f64> {
    let mut ns = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let schedstat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        ns += schedstat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 / 1e9)
}

/// User + system time, s, from a `/proc/PID/stat` line: fields 14 and 15, in clock ticks,
/// counted after the command's name (in parentheses, which may hold spaces).
fn cpu_of_stat(stat: &str) -> Option<f64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: `sysconf` reads a constant of the system; it has no memory effects.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks > 0).then(|| (utime + stime) as f64 / ticks as f64)
}

/// `VmRSS`, kB, from a `/proc/PID/status` text.
fn rss_of_status(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_is_read_after_a_command_name_with_spaces() {
        // SAFETY: as above.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        let stat = "42 (a b) c) S 1 42 42 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 3 0 5";
        assert_eq!(cpu_of_stat(stat), Some(300.0 / ticks));
        assert_eq!(cpu_of_stat("garbage"), None);
        assert_eq!(
            rss_of_status("Name:\tx\nVmRSS:\t   1234 kB\nThreads: 3\n"),
            Some(1234)
        );
    }

    #[test]
    fn a_process_cpu_is_the_sum_of_its_threads() {
        let thread_cpu = || {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `clock_gettime` writes the timespec it is given, which lives for the
            // call.
            unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
            ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
        };
        let before = threads_cpu(std::process::id()).unwrap();
        // 50 ms of this thread's CPU, however long the machine takes to give it.
        let start = thread_cpu();
        while thread_cpu() - start < 0.05 {}
        let after = threads_cpu(std::process::id()).unwrap();
        assert!(after - before >= 0.049, "{before} to {after}");
    }

    #[test]
    fn a_child_is_read_every_second_until_it_ends() {
        let mut command = tacto_launch::supervise::child_command(std::path::Path::new("sh"));
        command.args(["-c", "echo out; echo err >&2; sleep 2.2"]);
        let ended = run(
            command,
            true,
            Duration::from_secs(60),
            &Interrupt::install().unwrap(),
        )
        .unwrap();
        assert!(ended.status.success());
        assert_eq!(ended.last_words(), "err");
        assert!(
            (2..=4).contains(&ended.readings.len()),
            "{:?}",
            ended.readings
        );
        assert!(ended.readings.iter().all(|r| r.rss_kb > 0));
        let cpu = ended.cpu_pct_core(0.0).unwrap();
        assert!((0.0..50.0).contains(&cpu), "sleep uses no CPU: {cpu}");
    }
}
