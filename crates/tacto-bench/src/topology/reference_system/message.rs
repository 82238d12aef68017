//! `Message4kb`, the reference system's one message type, and the history it carries.
//!
//! Every message carries one [`TransmissionStats`] entry per node it passed through: who, when
//! (the node's start, wall clock), its own sequence number, and how many input samples it
//! missed. The KPIs are computed from these entries alone, at the sinks.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many history entries a message holds; later entries are left out.
pub const STATS_CAPACITY: usize = 63;

/// Bytes of a node name in an entry, the terminating NUL included.
pub const NODE_NAME_BYTES: usize = 48;

/// One node's entry in a message's history: 64 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C)]
pub struct TransmissionStats {
    /// When the node started the run that produced the message: ns since the Unix epoch.
    pub timestamp: u64,
    /// The node's own count of its runs (per output), from 0.
    pub sequence_number: u32,
    /// Input samples the node missed since its previous run: gaps in its inputs' sequence
    /// numbers.
    pub dropped_samples: u32,
    /// The node's name, NUL-terminated.
    #[serde(with = "fixed_array")]
    pub node_name: [u8; NODE_NAME_BYTES],
}

impl TransmissionStats {
    /// An entry for `name`, cut at a character boundary to the 47 bytes that fit before the NUL.
    pub fn new(name: &str, sequence_number: u32, dropped_samples: u32, timestamp: u64) -> Self {
        let mut len = name.len().min(NODE_NAME_BYTES - 1);
        while !name.is_char_boundary(len) {
            len -= 1;
        }
        let mut node_name = [0; NODE_NAME_BYTES];
        node_name[..len].copy_from_slice(&name.as_bytes()[..len]);
        TransmissionStats {
            timestamp,
            sequence_number,
            dropped_samples,
            node_name,
        }
    }

    /// The node's name: the bytes before the first NUL, or `""` if they are not UTF-8 (this
    /// port never writes such a name).
    pub fn name(&self) -> &str {
        std::str::from_utf8(self.name_bytes()).unwrap_or_default()
    }

    /// The node's name as bytes: those before the first NUL, as upstream's C-string compares
    /// see it. Comparing these costs no UTF-8 check, which the nodes' history merges and the
    /// KPIs do for every entry of every message (at crunch 0, checking UTF-8 in `name` was
    /// three quarters of the instructions the whole system executed).
    pub fn name_bytes(&self) -> &[u8] {
        let len = self
            .node_name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(NODE_NAME_BYTES);
        &self.node_name[..len]
    }
}

impl Default for TransmissionStats {
    fn default() -> Self {
        TransmissionStats::new("", 0, 0, 0)
    }
}

impl fmt::Debug for TransmissionStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransmissionStats")
            .field("node", &self.name())
            .field("timestamp", &self.timestamp)
            .field("sequence_number", &self.sequence_number)
            .field("dropped_samples", &self.dropped_samples)
            .finish()
    }
}

/// The reference system's message: exactly 4096 bytes, laid out as upstream's IDL.
///
/// Only the first `size` entries of `stats` are the history; the rest is left over from a
/// reused loan and means nothing.
///
/// # Examples
/// ```
/// use tacto_bench::topology::reference_system::{Message4kb, TransmissionStats};
///
/// let mut lidar = Message4kb::default();
/// lidar.push(TransmissionStats::new("FrontLidarDriver", 7, 0, 1_000));
///
/// let mut filtered = Message4kb::default();
/// filtered.merge_history(&lidar);
/// filtered.merge_history(&lidar); // a name already in the history is not added again
/// filtered.push(TransmissionStats::new("PointsTransformerFront", 3, 0, 2_000));
///
/// let names: Vec<&str> = filtered.history().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["FrontLidarDriver", "PointsTransformerFront"]);
/// assert_eq!(filtered.sequence_number(), Some(3)); // the publisher's entry is the last
/// assert_eq!(std::mem::size_of::<Message4kb>(), 4096);
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C)]
pub struct Message4kb {
    /// How many entries of `stats` are in use.
    pub size: u64,
    /// The history, oldest first; the publisher's own entry is the last one in use.
    #[serde(with = "fixed_array")]
    pub stats: [TransmissionStats; STATS_CAPACITY],
    /// Payload; `data[0]` holds the publisher's crunch result.
    pub data: [i64; 7],
}

impl Message4kb {
    /// The entries in use.
    pub fn history(&self) -> &[TransmissionStats] {
        let len = usize::try_from(self.size).map_or(STATS_CAPACITY, |n| n.min(STATS_CAPACITY));
        &self.stats[..len]
    }

    /// Appends `entry`; false, and nothing changes, if the history is full (upstream drops it
    /// the same way).
    pub fn push(&mut self, entry: TransmissionStats) -> bool {
        let len = self.history().len();
        if len == STATS_CAPACITY {
            return false;
        }
        self.stats[len] = entry;
        self.size = len as u64 + 1;
        true
    }

    /// Appends the entries of `input`'s history whose node has no entry here yet, in order,
    /// while there is room. So the first input merged wins for a node seen on two paths.
    pub fn merge_history(&mut self, input: &Message4kb) {
        // The length of each name here, found once: the merge compares every input entry with
        // every entry here, and finding a name's end is most of a comparison's cost.
        let mut lengths = [0; STATS_CAPACITY];
        for (length, entry) in lengths.iter_mut().zip(self.history()) {
            *length = entry.name_bytes().len();
        }
        for entry in input.history() {
            let name = entry.name_bytes();
            let len = self.history().len();
            let known = (0..len).any(|k| self.stats[k].node_name[..lengths[k]] == *name);
            if known {
                continue;
            }
            if !self.push(*entry) {
                return;
            }
            lengths[len] = name.len();
        }
    }

    /// The publisher's sequence number: that of the last entry.
    pub fn sequence_number(&self) -> Option<u32> {
        self.history().last().map(|e| e.sequence_number)
    }
}

impl Default for Message4kb {
    fn default() -> Self {
        Message4kb {
            size: 0,
            stats: [TransmissionStats::default(); STATS_CAPACITY],
            data: [0; 7],
        }
    }
}

impl fmt::Debug for Message4kb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Message4kb")
            .field("history", &self.history())
            .field("data", &self.data)
            .finish()
    }
}

impl tacto::Message for Message4kb {
    const TYPE_NAME: &'static str = "reference_interfaces/msg/Message4kb";
}

/// Counts the samples a node missed on one input: the gap between the sequence numbers of the
/// samples it consumed, exactly as upstream's `get_missed_samples_and_update_seq_nr` counts it.
///
/// Upstream starts from "sequence number 0 seen": a first sample numbered `s > 0` counts
/// `s - 1` missed, and a first sample numbered 0 or 1 counts none. A sample numbered at or
/// below the last one counts none and becomes the last one.
///
/// # Examples
/// ```
/// use tacto_bench::topology::reference_system::{Message4kb, SequenceGap, TransmissionStats};
///
/// let sample = |seq| {
///     let mut msg = Message4kb::default();
///     msg.push(TransmissionStats::new("Lanelet2Map", seq, 0, 0));
///     msg
/// };
/// let mut gap = SequenceGap::default();
/// assert_eq!(gap.missed(&sample(0)), 0);
/// assert_eq!(gap.missed(&sample(1)), 0);
/// assert_eq!(gap.missed(&sample(4)), 2); // 2 and 3 never arrived
/// assert_eq!(gap.missed(&sample(4)), 0); // the same sample again
///
/// let mut late = SequenceGap::default();
/// assert_eq!(late.missed(&sample(5)), 4); // upstream's count for a first sample numbered 5
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SequenceGap {
    /// The sequence number of the last sample consumed (0 before any, as upstream).
    last: u32,
}

impl SequenceGap {
    /// The samples skipped since the last one consumed, `msg` being consumed now. A message
    /// without entries counts as sequence number 0, as upstream's `get_sample_sequence_number`
    /// has it.
    pub fn missed(&mut self, msg: &Message4kb) -> u32 {
        let sequence = msg.sequence_number().unwrap_or(0);
        let missed = match sequence > self.last {
            true => sequence - self.last - 1,
            false => 0,
        };
        self.last = sequence;
        missed
    }
}

/// Serde for arrays longer than the 32 elements serde covers: a tuple, which is what CDR and
/// serde's own arrays use.
mod fixed_array {
    use super::*;

    pub(super) fn serialize<S, T, const N: usize>(
        array: &[T; N],
        serializer: S,
    ) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        T: Serialize,
    {
        let mut tuple = serializer.serialize_tuple(N)?;
        for element in array {
            tuple.serialize_element(element)?;
        }
        tuple.end()
    }

    pub(super) fn deserialize<'de, D, T, const N: usize>(
        deserializer: D,
    ) -> Result<[T; N], D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de> + Copy + Default,
    {
        struct ArrayVisitor<T, const N: usize>(PhantomData<T>);

        impl<'de, T, const N: usize> Visitor<'de> for ArrayVisitor<T, N>
        where
            T: Deserialize<'de> + Copy + Default,
        {
            type Value = [T; N];

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an array of {N} elements")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
                let mut array = [T::default(); N];
                for (i, slot) in array.iter_mut().enumerate() {
                    *slot = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))?;
                }
                Ok(array)
            }
        }

        deserializer.deserialize_tuple(N, ArrayVisitor(PhantomData))
    }
}
