//! The statistics of `topic bw`: the bytes per second and the message sizes over the last
//! messages, printed with ros2cli's headings.

use std::collections::VecDeque;
use std::time::Instant;

/// `ros2 topic bw`'s default window: the last 100 messages.
pub const DEFAULT_WINDOW: usize = 100;

/// Arrival times and sizes (serialized, with the encapsulation header, as ros2cli counts
/// them) of the last `window` messages; older ones are dropped first.
///
/// ```
/// use std::time::{Duration, Instant};
/// let mut bw = tacto_graph::bw::Bandwidth::new(100);
/// let start = Instant::now();
/// bw.arrived(start, 1000);
/// bw.arrived(start + Duration::from_millis(500), 3000);
/// let text = bw.report(start + Duration::from_secs(1)).unwrap();
/// assert_eq!(text, "4.00 KB/s from 2 messages\n\tMessage size mean: 2.00 KB min: 1.00 KB max: 3.00 KB");
/// ```
#[derive(Debug)]
pub struct Bandwidth {
    window: usize,
    messages: VecDeque<(Instant, usize)>,
}

impl Bandwidth {
    /// A window of the last `window` messages (at least 1).
    pub fn new(window: usize) -> Bandwidth {
        let window = window.max(1);
        Bandwidth {
            window,
            messages: VecDeque::with_capacity(window.min(DEFAULT_WINDOW)),
        }
    }

    /// Records a message of `size` bytes.
    pub fn arrived(&mut self, at: Instant, size: usize) {
        if self.messages.len() == self.window {
            self.messages.pop_front();
        }
        self.messages.push_back((at, size));
    }

    /// ros2cli's two lines at time `now`: the bytes of the window over the time since its
    /// first message, and the sizes; `None` before any message.
    pub fn report(&self, now: Instant) -> Option<String> {
        let (first, _) = *self.messages.front()?;
        let sizes = self.messages.iter().map(|&(_, size)| size as f64);
        let total: f64 = sizes.clone().sum();
        let min = sizes.clone().fold(f64::INFINITY, f64::min);
        let max = sizes.fold(0.0, f64::max);
        let n = self.messages.len();
        let elapsed = now.saturating_duration_since(first).as_secs_f64();
        // A single instant has no rate: as ros2cli, the total then stands for one second.
        let rate = if elapsed > 0.0 {
            total / elapsed
        } else {
            total
        };
        Some(format!(
            "{}/s from {n} messages\n\tMessage size mean: {} min: {} max: {}",
            size_text(rate),
            size_text(total / n as f64),
            size_text(min),
            size_text(max)
        ))
    }
}

/// ros2cli's units: B below 1000, then KB, then MB (powers of 1000).
fn size_text(bytes: f64) -> String {
    match bytes {
        b if b < 1000.0 => format!("{b:.2} B"),
        b if b < 1_000_000.0 => format!("{:.2} KB", b / 1000.0),
        b => format!("{:.2} MB", b / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn the_window_keeps_the_last_messages_and_units_scale() {
        let mut bw = Bandwidth::new(2);
        let start = Instant::now();
        assert_eq!(bw.report(start), None);
        for (i, size) in [10, 2_000_000, 4_000_000].into_iter().enumerate() {
            bw.arrived(start + Duration::from_secs(i as u64), size);
        }
        let text = bw.report(start + Duration::from_secs(3)).unwrap();
        assert_eq!(
            text,
            "3.00 MB/s from 2 messages\n\tMessage size mean: 3.00 MB min: 2.00 MB max: 4.00 MB"
        );
        assert_eq!(size_text(999.0), "999.00 B");
    }
}
