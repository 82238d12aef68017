//! Synchronized inputs: samples of several subscriptions matched by the stamps in their
//! headers, as ROS 2's `message_filters::Synchronizer` matches them, handed to a node's
//! code as one set.
//!
//! A node fusing a lidar and a camera wants the scan and the image taken at the same time,
//! not the latest of each. message_filters does that with a chain of callbacks: subscribers
//! feed a synchronizer whose policy calls the user's callback with each matched set. In
//! tacto the same policies are a [`Trigger`](crate::Trigger): a [`Synchronizer`] owns the
//! subscriptions, its trigger fires when the policy holds a matched set, and the code takes
//! the sets, `(Sample<A>, Sample<B>)`, when it runs. The executor knows nothing of this: the
//! trigger is an ordinary [`Trigger::when`](crate::Trigger::when) rule over the
//! subscriptions, which moves their samples into the policy when it is evaluated.
//!
//! ```
//! use std::time::Duration;
//! use tacto::msg::std_msgs::Header;
//! use tacto::sync::{ExactTime, Synchronizer};
//! use tacto::{Context, Executor, Time, WaitSetExecutor};
//!
//! let ctx = Context::new();
//! let mut fusion = ctx.node("fusion").unwrap();
//! let lidar = fusion.subscription::<Header>("lidar").create().unwrap();
//! let camera = fusion.subscription::<Header>("camera").create().unwrap();
//! let sync = Synchronizer::new(ExactTime::new(10).unwrap(), (lidar, camera));
//! let (matched, sets) = std::sync::mpsc::channel();
//! fusion.execute(sync.trigger(), move |_| {
//!     while let Some((lidar, camera)) = sync.take() {
//!         matched.send(Time::from(lidar.stamp) == Time::from(camera.stamp)).unwrap();
//!     }
//! }).unwrap();
//!
//! let mut drivers = ctx.node("drivers").unwrap();
//! let lidar_out = drivers.publisher::<Header>("lidar").create().unwrap();
//! let camera_out = drivers.publisher::<Header>("camera").create().unwrap();
//! let stamped = |ns| Header { stamp: Time::from_nanos(ns).into(), ..Default::default() };
//! lidar_out.publish(stamped(1));
//! camera_out.publish(stamped(2)); // no lidar sample stamped 2: not matched
//! lidar_out.publish(stamped(3));
//! camera_out.publish(stamped(3));
//!
//! let mut executor = WaitSetExecutor::new().unwrap();
//! executor.add(fusion).unwrap();
//! executor.spin_for(Duration::from_millis(20)).unwrap();
//! assert_eq!(sets.try_iter().collect::<Vec<_>>(), [true]); // only the set stamped 3
//! ```
//!
//! # The parts
//! - [`Stamped`]: a message's stamp. Generated messages with a `std_msgs/Header header`
//!   field have it; [`StampedBy`] gives a subscription's stamps by a function instead.
//! - The policies, message_filters' own algorithms ported step for step (their test
//!   sequences give the same sets here): [`ExactTime`] (equal stamps),
//!   [`ApproximateTime`] (the closest stamps, the usual choice) and
//!   [`ApproximateEpsilonTime`] (stamps within a fixed epsilon). A policy is an
//!   executor-free value: [`Policy::add`] items with their stamps, [`Policy::take`] the
//!   matched sets. That is the whole of the matching; it can be driven by hand, e.g. from a
//!   recording.
//! - [`Synchronizer`]: a policy fed by 2 to 9 subscriptions, with its trigger.
//!
//! # Bounds
//! A policy holds at most its queue size of items per input (for [`ExactTime`]: of sets
//! being filled) and at most its queue size of matched sets; beyond that it drops its
//! oldest, as message_filters does, and counts each item dropped unmatched, per input
//! ([`Stats::dropped`]). Nothing grows with the input, and no input, stamps going
//! backwards included, makes it panic. See `docs/sync.md` for porting from message_filters.

mod approximate;
mod epsilon;
mod exact;
mod output;
mod set;
mod stamp;
mod synchronizer;

pub use approximate::ApproximateTime;
pub use epsilon::ApproximateEpsilonTime;
pub use exact::ExactTime;
pub use output::Stats;
pub use set::{Set, Slot};
pub use stamp::{Stamped, StampedBy};
pub use synchronizer::{Inputs, SyncInput, Synchronizer};

use crate::clock::Time;

/// The most inputs a set has: 9, as in message_filters.
pub const MAX_INPUTS: usize = 9;

/// A synchronization policy: items of each input go in with their stamps, matched sets come
/// out.
///
/// Implemented by [`ExactTime`], [`ApproximateTime`] and [`ApproximateEpsilonTime`], for a
/// [`Set`] type that says the inputs' item types: `ExactTime<(Sample<A>, Sample<B>)>` in a
/// [`Synchronizer`], any types when driven by hand.
///
/// Matched sets wait for [`take`](Self::take), at most the policy's queue size of them: when
/// one more is matched, the oldest is dropped and its items counted in [`Stats::dropped`]. A
/// [`Synchronizer`] never lets it come to that (it feeds the policy only while no set
/// waits); by hand, take after each add.
///
/// A policy of one's own (message_filters' `LatestTime`, say) implements it to be fed by a
/// [`Synchronizer`]; it should keep to these bounds.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto::sync::{ApproximateTime, Policy};
///
/// // Items of any type, here the stamps in milliseconds.
/// let mut policy = ApproximateTime::<(i64, i64, i64)>::new(5).unwrap();
/// let inputs = [(0, 0), (1, 1), (2, 2), (0, 10), (1, 11), (2, 12)];
/// for (input, ms) in inputs {
///     let stamp = Time::from_nanos(ms * 1_000_000);
///     match input {
///         0 => policy.add::<0>(stamp, ms),
///         1 => policy.add::<1>(stamp, ms),
///         _ => policy.add::<2>(stamp, ms),
///     }
/// }
/// assert_eq!(policy.take(), Some((0, 1, 2)));
/// assert_eq!(policy.take(), None);
/// assert_eq!(policy.stats().matched(), 1);
/// ```
pub trait Policy {
    /// The matched sets: a tuple of one item per input.
    type Set: Set;

    /// Adds `item` to input `K`, stamped `stamp`, and matches what can be matched.
    fn add<const K: usize>(&mut self, stamp: Time, item: <Self::Set as Slot<K>>::Item)
    where
        Self::Set: Slot<K>;

    /// Removes and returns the oldest matched set.
    fn take(&mut self) -> Option<Self::Set>;

    /// How many matched sets wait for [`take`](Self::take).
    fn ready(&self) -> usize;

    /// The sets matched and the items dropped unmatched since the policy was made.
    fn stats(&self) -> Stats;
}

/// Why a policy was refused.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum SyncError {
    /// A queue size of 0: the policy could hold nothing (message_filters' `ExactTime` reads
    /// it as "unbounded", which tacto does not have).
    #[error("a synchronization policy's queue size must be at least 1")]
    ZeroQueueSize,
    /// An age penalty that is negative, infinite or not a number.
    #[error("the age penalty must be a finite number of at least 0, not {0}")]
    AgePenalty(f64),
    /// An input the policy's sets do not have.
    #[error("input {input} does not exist: the policy's sets have inputs 0 to {}", inputs - 1)]
    NoSuchInput {
        /// The input asked for.
        input: usize,
        /// How many inputs the sets have.
        inputs: usize,
    },
}
