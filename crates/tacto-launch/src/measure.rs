//! Process-wide measurements from the OS: CPU time, resident memory, thread wake-ups.
//!
//! Wake-ups are the voluntary context switches of the process (`getrusage`'s `ru_nvcsw`): each
//! one is a thread that blocked (in `epoll_wait`, a condvar, a sleep) and was woken again, which
//! is what costs a runtime most of its CPU. The kernel keeps the count of threads that have
//! exited, so the counter only grows however threads come and go during a window.

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
            wakeups: rusage().map_or(0, |u| u.ru_nvcsw as u64),
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
    let Some(usage) = rusage() else {
        return Duration::ZERO;
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The whole process's resource usage, threads that have exited included.
fn rusage() -> Option<libc::rusage> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: `getrusage` fills the struct it is given, which lives for the call; on success
    // every field is written.
    unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return None;
        }
        Some(usage.assume_init())
    }
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

    #[test]
    fn a_thread_that_exits_during_the_window_keeps_its_wake_ups() {
        let start = Snapshot::now();
        std::thread::spawn(|| {
            for _ in 0..10 {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .join()
        .unwrap();
        let end = Snapshot::now();
        assert!(end.wakeups >= start.wakeups + 10);
    }
}
