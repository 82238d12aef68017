//! The reference system's work per node ("number crunching"), and what it costs on this
//! machine.
//!
//! The work is upstream's own function, in C (`csrc/number_cruncher.c`), compiled by the
//! system's C compiler (gcc) at `-O3` as upstream's rclcpp build compiles it: one 64-bit `div`
//! per trial. A Rust version compiled by rustc gets a 32-bit fast path and does about half the
//! work for the same limit, so a limit alone would not mean the same load as upstream's.
//!
//! A limit does not mean the same load on every machine either. Each run therefore measures
//! one crunch at its start ([`crunch_time`]), and [`limit_for`] finds the limit whose crunch
//! takes a given time here (`--crunch-ms`).

use std::time::Duration;

use thiserror::Error;

unsafe extern "C" {
    /// Upstream's `number_cruncher`: the number of primes in `2..=maximum_number` by naive
    /// trial division, or 2 for a limit of 2 or less.
    fn tacto_number_cruncher(maximum_number: u64) -> i64;
}

/// Counts the primes in `2..=limit` by naive trial division, stopping at the first divisor:
/// the reference system's stand-in for an algorithm. As upstream, a limit of 2 or less does no
/// work and returns 2.
///
/// # Examples
/// ```
/// use tacto_bench::topology::reference_system::crunch;
///
/// assert_eq!(crunch(10), 4); // 2, 3, 5, 7
/// assert_eq!(crunch(4096), 564);
/// assert_eq!(crunch(0), 2); // upstream's answer for "no work"
/// ```
pub fn crunch(limit: u64) -> i64 {
    // SAFETY: the C function takes an integer by value and returns one; it touches no memory
    // but its own stack frame and no global state, so any thread may call it at any time.
    unsafe { tacto_number_cruncher(limit) }
}

/// How many crunches [`crunch_time`] times; it keeps the fastest.
const TIMINGS: usize = 5;

/// The largest `--crunch-ms`: a node that takes longer than a second per run cannot keep up
/// with any period of the reference system (25 to 120 ms), and finding its limit would take
/// minutes.
pub const MAX_CRUNCH_MS: f64 = 1000.0;

/// How long one crunch at `limit` takes on this machine: the CPU time of the calling thread
/// for the fastest of five crunches (fewer once they took a quarter of a second). CPU time,
/// not wall-clock time, so that a moment when the thread waits for a CPU does not count; the
/// fastest, so that a busy moment on the other core (shared caches) counts least.
/// `crunch_time(0)` is zero.
pub fn crunch_time(limit: u64) -> Duration {
    crunch_time_of(limit, TIMINGS)
}

fn crunch_time_of(limit: u64, timings: usize) -> Duration {
    if limit <= 2 {
        return Duration::ZERO;
    }
    let mut fastest = Duration::MAX;
    let mut spent = Duration::ZERO;
    for _ in 0..timings {
        let start = thread_cpu_time();
        std::hint::black_box(crunch(std::hint::black_box(limit)));
        let took = thread_cpu_time().saturating_sub(start);
        fastest = fastest.min(took);
        spent += took;
        // A long crunch varies little from one timing to the next, and timing it five times
        // would hold up the bench for seconds at the largest limits.
        if spent >= TIMING_BUDGET {
            break;
        }
    }
    fastest
}

/// How much CPU time [`crunch_time`] spends at most before it keeps the fastest so far (it
/// always times one crunch).
const TIMING_BUDGET: Duration = Duration::from_millis(250);

/// Why no limit could be found for a crunch time.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum CrunchTimeError {
    /// The time asked for is negative, not a number, or above [`MAX_CRUNCH_MS`].
    #[error("--crunch-ms {0}: give a time in ms from 0 to {MAX_CRUNCH_MS}")]
    OutOfRange(f64),
}

/// The crunch limit whose crunch takes about `ms` milliseconds on this machine (within about
/// 1%, as [`crunch_time`] measures it); 0 for 0 ms.
///
/// Doubles the limit until a crunch takes at least `ms`, then bisects between the last two
/// limits. Crunch time grows with the limit, a little faster than its square, so each step
/// halves the range.
///
/// # Examples
/// ```
/// use tacto_bench::topology::reference_system::{crunch_time, limit_for};
///
/// assert_eq!(limit_for(0.0), Ok(0));
/// let limit = limit_for(1.0).unwrap();
/// assert!(limit > 2 && crunch_time(limit).as_secs_f64() > 0.0);
/// assert!(limit_for(-1.0).is_err() && limit_for(f64::NAN).is_err());
/// ```
pub fn limit_for(ms: f64) -> Result<u64, CrunchTimeError> {
    if !(0.0..=MAX_CRUNCH_MS).contains(&ms) {
        return Err(CrunchTimeError::OutOfRange(ms));
    }
    if ms == 0.0 {
        return Ok(0);
    }
    let target = Duration::from_secs_f64(ms / 1000.0);
    // Three timings per step rather than five: the bisection corrects a step that came out
    // slow, and it takes ten to twenty steps.
    let time = |limit| crunch_time_of(limit, 3);
    let (mut below, mut above) = (2, 64);
    while time(above) < target {
        below = above;
        above *= 2;
    }
    while above - below > (below / 256).max(1) {
        let middle = below + (above - below) / 2;
        match time(middle) < target {
            true => below = middle,
            false => above = middle,
        }
    }
    Ok(above)
}

/// CPU time of the calling thread.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec`, which lives for the call.
    // CLOCK_THREAD_CPUTIME_ID exists on every Linux, so the call cannot fail; if it did, `ts`
    // stays zero and a timing comes out as zero.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crunch_counts_the_primes_as_upstream() {
        // Upstream's edge case: 2 or less returns 2 without counting.
        assert_eq!([0, 1, 2].map(crunch), [2, 2, 2]);
        assert_eq!([3, 4, 5, 100, 1000].map(crunch), [2, 2, 3, 25, 168]);
    }

    #[test]
    fn a_larger_limit_is_found_for_a_longer_crunch() {
        // Behaviour, not timing: the limits are ordered, whatever the machine's speed.
        let short = limit_for(0.2).unwrap();
        let long = limit_for(2.0).unwrap();
        assert!(short > 2 && long > short, "{short} {long}");
    }
}
