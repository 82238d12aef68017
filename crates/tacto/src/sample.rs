//! A received message and what is known about its delivery.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::clock::Time;
use crate::message::Message;
use crate::transport::RemoteBytes;

/// Identifies one publisher across the whole graph, like ROS 2's `rmw_gid_t`.
///
/// Intra-process publishers carry the process id and a counter; other transports carry their
/// own globally unique id (a DDS writer GUID).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PublisherId(pub [u8; 16]);

impl fmt::Display for PublisherId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// Delivery facts that come with every [`Sample`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleInfo {
    /// When the publisher published it (system clock).
    pub publish_time: Time,
    /// When it reached this subscription's history (system clock).
    pub receive_time: Time,
    /// Who published it.
    pub publisher: PublisherId,
    /// The publisher's sequence number, counting from 1 without gaps: a gap between two samples
    /// of one publisher means samples were lost on the way or overwritten in the history.
    pub sequence: u64,
}

/// A message taken or read from a subscription: shared, never copied.
///
/// Dereferences to the message. Cloning a sample is cheap (a reference count), so keep the
/// sample itself to hold on to a message beyond the code that took it. A [`Flat`](crate::Flat)
/// message from another process is read where the transport keeps it (a shared-memory
/// slot, held until the last clone is dropped): no copy, no decoding.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, History};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("listener").unwrap();
/// let sub = node.subscription::<Text>("chat").history(History::KeepLast(5)).create().unwrap();
/// let publisher = node.publisher::<Text>("chat").create().unwrap();
/// publisher.publish(Text { data: "hi".into() });
///
/// let sample = sub.take().unwrap();
/// assert_eq!(sample.data, "hi");
/// assert_eq!(sample.info().sequence, 1);
/// ```
pub struct Sample<T> {
    pub(crate) msg: Body<T>,
    pub(crate) info: SampleInfo,
}

/// Where a sample's message is.
pub(crate) enum Body<T> {
    /// A value of this process (shared with the publisher, or decoded here).
    Shared(Arc<T>),
    /// A flat message's bytes where the transport holds them, checked to view as `T` when the
    /// sample was made ([`Body::in_place`]).
    InPlace(RemoteBytes),
}

impl<T: Message> Body<T> {
    /// `bytes` read in place, if `T` is flat and they have its size and alignment.
    pub(crate) fn in_place(bytes: RemoteBytes) -> Option<Body<T>> {
        T::flat_view(&bytes)?;
        Some(Body::InPlace(bytes))
    }
}

impl<T> Sample<T> {
    /// The delivery facts.
    pub fn info(&self) -> &SampleInfo {
        &self.info
    }
}

impl<T> Clone for Sample<T> {
    fn clone(&self) -> Self {
        let msg = match &self.msg {
            Body::Shared(msg) => Body::Shared(msg.clone()),
            Body::InPlace(bytes) => Body::InPlace(bytes.clone()),
        };
        Sample {
            msg,
            info: self.info,
        }
    }
}

impl<T: Message> Deref for Sample<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        match &self.msg {
            Body::Shared(msg) => msg,
            // Checked by `Body::in_place`, and the bytes never change: this cannot fail.
            Body::InPlace(bytes) => T::flat_view(bytes).expect("a flat sample viewed when made"),
        }
    }
}

impl<T: Message + fmt::Debug> fmt::Debug for Sample<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sample")
            .field("msg", &**self)
            .field("info", &self.info)
            .finish()
    }
}
