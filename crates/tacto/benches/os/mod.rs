//! The OS calls the benchmarks share: settings from the environment, CPU pinning, clocks and
//! absolute sleeps.

use std::time::Duration;

/// A setting from the environment, or `default` if it is not set.
pub fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a valid number")),
        Err(_) => default,
    }
}

/// Pins the calling thread to `cpu`; false if the OS refused.
pub fn pin_to(cpu: usize) -> bool {
    // SAFETY: a zeroed cpu_set_t is a valid empty set, CPU_SET writes inside it, and
    // sched_setaffinity only reads it; pid 0 is the calling thread.
    let result = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set)
    };
    result == 0
}

pub fn cpu_time(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec, and every clock passed here exists on Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

pub fn monotonic() -> Duration {
    cpu_time(libc::CLOCK_MONOTONIC)
}

pub fn sleep_until(deadline: Duration) {
    let ts = libc::timespec {
        tv_sec: deadline.as_secs() as libc::time_t,
        tv_nsec: deadline.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `ts` is a valid timespec; with TIMER_ABSTIME no remainder is written, so null is fine.
    while unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    } == libc::EINTR
    {}
}
