//! Process-wide measurements from the OS: CPU time, resident memory, thread wake-ups.
//!
//! Wake-ups are the voluntary context switches of every thread of the process, read from
//! `/proc/self/task/*/status`: each one is a thread that blocked (in `epoll_wait`, a condvar, a
//! sleep) and was woken again, which is what costs a runtime most of its CPU. Threads that
//! exit during the window take their count with them, so a run keeps its threads alive until
//! its window ends.

use std::fs;
use std::time::{Duration, Instant};

/// The process's counters at one instant.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    at: Instant,
    cpu: Duration,
    rss_kb: u64,
    wakeups: u64,
}

impl Snapshot {
    /// Reads the counters now.
    pub fn now() -> Snapshot {
        Snapshot {
            at: Instant::now(),
            cpu: process_cpu(),
            rss_kb: rss_kb(),
            wakeups: wakeups(),
        }
    }
}

/// The process's resident set now, kB (0 if `/proc` cannot tell).
pub fn rss_kb() -> u64 {
    status_kb("/proc/self/status", "VmRSS:").unwrap_or(0)
}

/// What the process used over a window: its CPU, memory and wake-ups.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// CPU time (user + system), seconds.
    pub cpu_s: f64,
    /// CPU time as a percentage of one core over the window.
    pub cpu_pct_core: f64,
    /// The resident set at the start, kB.
    pub rss_start_kb: u64,
    /// The resident set at the end, kB.
    pub rss_end_kb: u64,
    /// The largest resident set of the process's life so far, kB.
    pub rss_peak_kb: u64,
    /// Voluntary context switches of all threads per second.
    pub wakeups_per_s: f64,
}

impl Usage {
    /// What the process used from `start` to `end`.
    pub fn between(start: &Snapshot, end: &Snapshot) -> Usage {
        let window = end.at.duration_since(start.at).as_secs_f64();
        let cpu = end.cpu.saturating_sub(start.cpu).as_secs_f64();
        let per_s = |n: f64| if window > 0.0 { n / window } else { 0.0 };
        Usage {
            cpu_s: cpu,
            cpu_pct_core: per_s(100.0 * cpu),
            rss_start_kb: start.rss_kb,
            rss_end_kb: end.rss_kb,
            rss_peak_kb: status_kb("/proc/self/status", "VmHWM:").unwrap_or(0),
            wakeups_per_s: per_s(end.wakeups.saturating_sub(start.wakeups) as f64),
        }
    }
}

/// User + system CPU time of the whole process.
pub fn process_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: `getrusage` fills the struct it is given, which lives for the call; on success
    // every field is written.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return Duration::ZERO;
        }
        usage.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The voluntary context switches of all threads alive now.
fn wakeups() -> u64 {
    let Ok(tasks) = fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| status_kb(t.path().join("status"), "voluntary_ctxt_switches:"))
        .sum()
}

/// A numeric field of a `/proc` status file (`VmRSS:   1234 kB` → 1234).
fn status_kb(path: impl AsRef<std::path::Path>, field: &str) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_sleeps_counts_as_woken_each_time() {
        let start = Snapshot::now();
        for _ in 0..10 {
            std::thread::sleep(Duration::from_millis(1));
        }
        let end = Snapshot::now();
        let usage = Usage::between(&start, &end);
        assert!(end.wakeups >= start.wakeups + 10);
        assert!(usage.wakeups_per_s > 0.0);
        assert!(usage.rss_end_kb > 0 && usage.rss_peak_kb >= usage.rss_end_kb);
    }
}
