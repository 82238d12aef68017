//! The buffer a DDS link writer encodes a message into when counting its length first would
//! cost more than copying it (see `writer::write_in_place` for the others), kept from one
//! message to the next so that sending a large message neither allocates nor frees one (nor
//! faults fresh pages in).
//!
//! Bounded: a buffer over [`MAX_KEPT`] is released right after its message; one that grew
//! for a burst of large messages is released once [`SHRINK_AFTER`] messages in a row used
//! less than a quarter of it (the next one allocates at its own size).

use tacto::cdr::{Encodable, EncodeError};

/// The largest buffer kept between messages.
pub(crate) const MAX_KEPT: usize = 64 << 20;
/// Messages in a row that use under a quarter of the buffer before it is released.
pub(crate) const SHRINK_AFTER: u32 = 100;

#[derive(Debug, Default)]
pub(crate) struct SendBuffer {
    bytes: Vec<u8>,
    /// Messages in a row that used under a quarter of `bytes`' capacity.
    small_in_a_row: u32,
}

impl SendBuffer {
    /// Encodes `message` and hands its bytes to `send`; then applies the bound.
    pub(crate) fn send<R>(
        &mut self,
        message: &dyn Encodable,
        send: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, EncodeError> {
        let encoded = message.encode_into(&mut self.bytes);
        let sent = encoded.map(|()| send(&self.bytes));
        self.settle();
        sent
    }

    fn settle(&mut self) {
        let capacity = self.bytes.capacity();
        if self.bytes.len() < capacity / 4 {
            self.small_in_a_row += 1;
        } else {
            self.small_in_a_row = 0;
        }
        if capacity > MAX_KEPT || self.small_in_a_row >= SHRINK_AFTER {
            self.bytes = Vec::new();
            self.small_in_a_row = 0;
        }
    }

    #[cfg(test)]
    fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto::msg::std_msgs::String as Text;

    fn text(len: usize) -> Text {
        Text {
            data: "x".repeat(len),
        }
    }

    #[test]
    fn a_buffer_is_reused_for_messages_of_its_size() {
        let mut buffer = SendBuffer::default();
        let sent = buffer.send(&text(1 << 20), |bytes| bytes.to_vec()).unwrap();
        assert_eq!(sent, tacto::cdr::to_vec(&text(1 << 20)).unwrap());
        let kept = buffer.capacity();
        assert!(kept >= 1 << 20);
        for _ in 0..2 * SHRINK_AFTER {
            buffer.send(&text(1 << 20), |_| ()).unwrap();
        }
        assert_eq!(buffer.capacity(), kept);
    }

    #[test]
    fn a_buffer_grown_for_a_large_message_is_released_after_small_ones() {
        let mut buffer = SendBuffer::default();
        buffer.send(&text(1 << 20), |_| ()).unwrap();
        for _ in 0..SHRINK_AFTER - 1 {
            buffer.send(&text(10), |_| ()).unwrap();
        }
        assert!(buffer.capacity() >= 1 << 20);
        buffer.send(&text(10), |_| ()).unwrap();
        assert_eq!(buffer.capacity(), 0);
        let sent = buffer.send(&text(10), |bytes| bytes.to_vec()).unwrap();
        assert_eq!(sent, tacto::cdr::to_vec(&text(10)).unwrap());
    }

    #[test]
    fn a_buffer_over_the_bound_is_never_kept() {
        let mut buffer = SendBuffer::default();
        buffer.send(&text(MAX_KEPT + 1), |_| ()).unwrap();
        assert_eq!(buffer.capacity(), 0);
    }
}
