//! The user header every tacto sample carries in shared memory, beside iceoryx2's own header.

use iceoryx2::prelude::ZeroCopySend;
use tacto::{FlatLayout, PublisherId, SampleInfo, Time};

/// Delivery facts of one sample, written by the publisher into the loaned slot, and the form
/// of its payload: CDR, or a flat message's own bytes.
///
/// Its type name is part of the service's type check, so it is pinned: a build of another
/// compiler or crate path opens the same services, and a layout change must change the name
/// (the `/2` suffix), which makes old and new processes refuse each other instead of
/// misreading the bytes.
///
/// Aligned to [`tacto::flat::MAX_ALIGN`] and a multiple of it in size: iceoryx2 places the
/// payload right after it in a chunk aligned to the strictest of its parts, so every
/// payload starts aligned for any flat message. (The service's own `payload_alignment`
/// cannot do it for a `[u8]` payload: iceoryx2 0.10 pads every element to that alignment.)
#[derive(Debug, Default, Clone, Copy, ZeroCopySend)]
#[repr(C)]
#[repr(align(16))]
#[type_name("tacto_shm::SampleHeader/2")]
pub(crate) struct SampleHeader {
    /// Publish time, nanoseconds since the Unix epoch (system clock).
    pub(crate) publish_time_ns: i64,
    /// When the publisher's port was created, same clock: a subscriber older than that got
    /// every one of its samples offered, so it counts a first sample above 1 as a gap.
    pub(crate) publisher_created_ns: i64,
    /// The publisher's sequence number, from 1.
    pub(crate) sequence: u64,
    /// The tacto publisher id.
    pub(crate) publisher: [u8; 16],
    /// The publishing process, so that its own subscribers drop the sample (the intra-process
    /// path delivered it already).
    pub(crate) process_id: u32,
    /// [`CDR`] or [`FLAT`]. (With the fields below, the layout has no implicit holes, so no
    /// byte of the slot is left uninitialized.)
    pub(crate) format: u32,
    /// A flat payload's [`FlatLayout::size`]; 0 for CDR.
    pub(crate) flat_size: u64,
    /// A flat payload's [`FlatLayout::hash`]; 0 for CDR.
    pub(crate) flat_hash: u64,
}

/// The payload is CDR, encapsulation header included.
pub(crate) const CDR: u32 = 0;
/// The payload is a flat message's bytes, of the layout in the header.
pub(crate) const FLAT: u32 = 1;

const _: () = assert!(std::mem::align_of::<SampleHeader>() >= tacto::flat::MAX_ALIGN);
const _: () = assert!(std::mem::size_of::<SampleHeader>().is_multiple_of(tacto::flat::MAX_ALIGN));

impl SampleHeader {
    /// The layout of a flat payload; `None` for CDR.
    pub(crate) fn flat_layout(&self) -> Option<FlatLayout> {
        (self.format == FLAT).then_some(FlatLayout {
            size: self.flat_size,
            hash: self.flat_hash,
        })
    }

    /// The `SampleInfo` of a sample received now with this header.
    pub(crate) fn info(&self, receive_time: Time) -> SampleInfo {
        SampleInfo {
            publish_time: Time::from_nanos(self.publish_time_ns),
            receive_time,
            publisher: PublisherId(self.publisher),
            sequence: self.sequence,
        }
    }
}
