//! `builtin_interfaces`: the time types every other package builds on.

/// A point in time: `sec` seconds plus `nanosec` nanoseconds since the clock's epoch (the Unix
/// epoch for system time).
#[tacto::message(
    "builtin_interfaces/msg/Time",
    hash = "RIHS01_b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197"
)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Time {
    /// Whole seconds.
    pub sec: i32,
    /// Nanoseconds past `sec`, below 1 000 000 000.
    pub nanosec: u32,
}

/// A span of time: `sec` seconds plus `nanosec` nanoseconds; negative spans have a negative
/// `sec` and a non-negative `nanosec`.
#[tacto::message(
    "builtin_interfaces/msg/Duration",
    hash = "RIHS01_e8d009f659816f758b75334ee1a9ca5b5c0b859843261f14c7f937349599d93b"
)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Duration {
    /// Whole seconds.
    pub sec: i32,
    /// Nanoseconds added to `sec`, below 1 000 000 000.
    pub nanosec: u32,
}
