//! `builtin_interfaces`: the time types every other package builds on.

/// A point in time: `sec` seconds plus `nanosec` nanoseconds since the clock's epoch (the Unix
/// epoch for system time).
#[tacto::message("builtin_interfaces/msg/Time")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Time {
    /// Whole seconds.
    pub sec: i32,
    /// Nanoseconds past `sec`, below 1 000 000 000.
    pub nanosec: u32,
}

/// A span of time: `sec` seconds plus `nanosec` nanoseconds; negative spans have a negative
/// `sec` and a non-negative `nanosec`.
#[tacto::message("builtin_interfaces/msg/Duration")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Duration {
    /// Whole seconds.
    pub sec: i32,
    /// Nanoseconds added to `sec`, below 1 000 000 000.
    pub nanosec: u32,
}
