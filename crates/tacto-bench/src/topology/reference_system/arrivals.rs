//! What reached a command node, sample by sample: how many, which of its publisher's sequence
//! numbers, how often one came twice or through DDS, and what the messages carried. A launch
//! prints it when a process stops, so that a test of two processes can check the delivery
//! between them from the outside.

use std::fmt;

use tacto::{SampleInfo, Time};

use super::message::Message4kb;

/// The samples one command node took since its start (a reset keeps them).
///
/// # Examples
/// ```
/// use tacto_bench::topology::reference_system::Arrivals;
///
/// let arrivals = Arrivals::default();
/// assert_eq!(arrivals.samples, 0);
/// assert_eq!(
///     arrivals.to_string(),
///     "samples 0, numbers 0..=0, missed 0, again 0, over_dds 0, entries 0..=0, per_s 0.0"
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arrivals {
    /// Samples taken.
    pub samples: u64,
    /// The publisher's sequence numbers skipped between two samples taken (see
    /// [`SequenceGap`](super::SequenceGap)), not counting any before the first one taken.
    pub missed: u64,
    /// Samples whose sequence number was not above the one before: one that came again.
    pub again: u64,
    /// Samples without a transport sequence number in their [`SampleInfo`]: DDS gives none,
    /// intra-process delivery and shared memory number every sample from 1.
    pub over_dds: u64,
    /// The first and the last sequence number taken.
    pub numbers: Option<(u32, u32)>,
    /// The fewest and the most history entries a message carried.
    pub entries: Option<(usize, usize)>,
    /// When the first and the last sample reached the node's history.
    pub received: Option<(Time, Time)>,
}

impl Arrivals {
    /// Records one sample taken: `msg`, delivered as `info` says, after `missed` others.
    pub(crate) fn add(&mut self, info: &SampleInfo, msg: &Message4kb, missed: u32) {
        let sequence = msg.sequence_number().unwrap_or(0);
        if let Some((_, last)) = self.numbers {
            self.again += u64::from(sequence <= last);
        }
        self.samples += 1;
        self.missed += u64::from(missed);
        self.over_dds += u64::from(info.sequence == 0);
        let entries = msg.history().len();
        self.numbers = Some(self.numbers.map_or((sequence, sequence), |(first, last)| {
            (first, last.max(sequence))
        }));
        self.entries = Some(self.entries.map_or((entries, entries), |(least, most)| {
            (least.min(entries), most.max(entries))
        }));
        let at = info.receive_time;
        self.received = Some(self.received.map_or((at, at), |(first, _)| (first, at)));
    }

    /// Samples per second from the first to the last one received (0 for fewer than two).
    pub fn per_s(&self) -> f64 {
        let Some((first, last)) = self.received else {
            return 0.0;
        };
        let seconds = (last - first).as_secs_f64();
        match seconds > 0.0 {
            true => (self.samples - 1) as f64 / seconds,
            false => 0.0,
        }
    }
}

/// One line of `key value` pairs, for people and for tests to read.
impl fmt::Display for Arrivals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (first, last) = self.numbers.unwrap_or_default();
        let (least, most) = self.entries.unwrap_or_default();
        write!(
            f,
            "samples {}, numbers {first}..={last}, missed {}, again {}, over_dds {}, \
             entries {least}..={most}, per_s {:.1}",
            self.samples,
            self.missed,
            self.again,
            self.over_dds,
            self.per_s()
        )
    }
}
