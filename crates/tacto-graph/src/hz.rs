//! The statistics of `topic hz`: the intervals between arrivals over a sliding window, printed
//! with ros2cli's headings.

use std::collections::VecDeque;
use std::time::Instant;

/// `ros2 topic hz`'s default window: the last 10 000 arrivals.
pub const DEFAULT_WINDOW: usize = 10_000;

/// Arrival times of the last `window` messages (older ones are dropped first).
///
/// ```
/// use std::time::{Duration, Instant};
/// let mut rate = tacto_graph::hz::Rate::new(100);
/// let start = Instant::now();
/// for i in 0..11 {
///     rate.arrived(start + Duration::from_millis(100 * i));
/// }
/// let text = rate.report().unwrap();
/// assert!(text.starts_with("average rate: 10.000\n\tmin: 0.100s max: 0.100s"), "{text}");
/// assert!(text.ends_with("window: 11"));
/// ```
#[derive(Debug)]
pub struct Rate {
    window: usize,
    arrivals: VecDeque<Instant>,
}

impl Rate {
    /// A window of the last `window` arrivals (at least 2).
    pub fn new(window: usize) -> Rate {
        let window = window.max(2);
        Rate {
            window,
            arrivals: VecDeque::with_capacity(window.min(DEFAULT_WINDOW)),
        }
    }

    /// Records an arrival.
    pub fn arrived(&mut self, at: Instant) {
        if self.arrivals.len() == self.window {
            self.arrivals.pop_front();
        }
        self.arrivals.push_back(at);
    }

    /// How many arrivals the window holds.
    pub fn count(&self) -> usize {
        self.arrivals.len()
    }

    /// ros2cli's report, `average rate: ...\n\tmin: ...s max: ...s std dev: ...s window: N`;
    /// `None` before two arrivals.
    pub fn report(&self) -> Option<String> {
        let deltas: Vec<f64> = (self.arrivals.iter())
            .zip(self.arrivals.iter().skip(1))
            .map(|(a, b)| b.duration_since(*a).as_secs_f64())
            .collect();
        if deltas.is_empty() {
            return None;
        }
        let n = deltas.len() as f64;
        let mean = deltas.iter().sum::<f64>() / n;
        let rate = if mean > 0.0 { 1.0 / mean } else { 0.0 };
        let min = deltas.iter().copied().fold(f64::INFINITY, f64::min);
        let max = deltas.iter().copied().fold(0.0, f64::max);
        let std_dev = (deltas.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n).sqrt();
        Some(format!(
            "average rate: {rate:.3}\n\tmin: {min:.3}s max: {max:.3}s std dev: {std_dev:.5}s window: {}",
            self.arrivals.len()
        ))
    }
}
