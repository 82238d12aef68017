//! A message's stamp: when its data was taken, which synchronization matches on.

use std::fmt;

use crate::clock::Time;
use crate::message::Message;
use crate::msg::std_msgs;
use crate::subscription::Subscription;

/// A message that carries the time its data was taken: message_filters' `TimeStamp` trait.
///
/// Messages with a `std_msgs/Header header` field have it, their header's stamp:
/// `tacto-msggen` implements it for every such generated type (a `sensor_msgs` image or
/// point cloud, a `geometry_msgs` stamped pose). Implement it by hand for a type of one's
/// own, or give a [`Synchronizer`](super::Synchronizer) input its stamp by a function with
/// [`StampedBy`], as message_filters' `TimeStamp` specializations do.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::Header;
/// use tacto::{Stamped, Time};
///
/// #[tacto::message("my_msgs/msg/Range")]
/// #[derive(Debug, Clone, Default, PartialEq)]
/// struct Range {
///     header: Header,
///     meters: f32,
/// }
///
/// impl Stamped for Range {
///     fn stamp(&self) -> Time {
///         self.header.stamp.into()
///     }
/// }
///
/// let mut range = Range::default();
/// range.header.stamp = Time::from_nanos(1_500_000_000).into();
/// assert_eq!(range.stamp(), Time::from_nanos(1_500_000_000));
/// ```
pub trait Stamped {
    /// When the message's data was taken.
    fn stamp(&self) -> Time;
}

/// A header is stamped with its own stamp: it stands for "a message with a header" where
/// no other type is at hand, and synchronizes headers published on their own.
impl Stamped for std_msgs::Header {
    fn stamp(&self) -> Time {
        self.stamp.into()
    }
}

/// A subscription whose samples' stamps a function reads: a
/// [`Synchronizer`](super::Synchronizer) input of a type that is not [`Stamped`], or one
/// to match on another time than its header's.
///
/// # Examples
/// ```
/// use tacto::Context;
/// use tacto::msg::rosgraph_msgs::Clock;
/// use tacto::sync::{ExactTime, StampedBy, Synchronizer};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("fusion").unwrap();
/// let a = node.subscription::<Clock>("a").create().unwrap();
/// let b = node.subscription::<Clock>("b").create().unwrap();
/// let sync = Synchronizer::new(
///     ExactTime::new(10).unwrap(),
///     (StampedBy::new(a, |m| m.clock.into()), StampedBy::new(b, |m| m.clock.into())),
/// );
/// assert_eq!(sync.inputs().0.subscription().topic(), "/a");
/// ```
pub struct StampedBy<T: Message> {
    subscription: Subscription<T>,
    stamp: fn(&T) -> Time,
}

impl<T: Message> StampedBy<T> {
    /// `subscription`, whose samples are stamped `stamp(&message)`.
    pub fn new(subscription: Subscription<T>, stamp: fn(&T) -> Time) -> Self {
        StampedBy {
            subscription,
            stamp,
        }
    }

    /// The subscription.
    pub fn subscription(&self) -> &Subscription<T> {
        &self.subscription
    }

    /// The stamp of `message`.
    pub fn stamp(&self, message: &T) -> Time {
        (self.stamp)(message)
    }
}

impl<T: Message> fmt::Debug for StampedBy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StampedBy")
            .field("subscription", &self.subscription)
            .finish_non_exhaustive()
    }
}
