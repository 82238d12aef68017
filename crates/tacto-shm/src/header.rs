//! The user header every tacto sample carries in shared memory, beside iceoryx2's own header.

use iceoryx2::prelude::ZeroCopySend;
use tacto::{PublisherId, SampleInfo, Time};

/// Delivery facts of one sample, written by the publisher into the loaned slot.
///
/// Its type name is part of the service's type check, so it is pinned: a build of another
/// compiler or crate path opens the same services, and a layout change must change the name
/// (the `/1` suffix), which makes old and new processes refuse each other instead of
/// misreading the bytes.
#[derive(Debug, Default, Clone, Copy, ZeroCopySend)]
#[repr(C)]
#[type_name("tacto_shm::SampleHeader/1")]
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
    /// Explicit padding: the layout has no implicit holes, so no byte of the slot is left
    /// uninitialized.
    pub(crate) reserved: u32,
}

impl SampleHeader {
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
