//! The limits of a topic in shared memory: how many publishers and subscribers it serves on
//! this host, and how many samples each subscriber buffers and holds. They size every
//! publisher's slots, so they are fixed when the topic's iceoryx2 service is created.

use std::fmt;

/// What a topic created by this process serves, and what this process asks of a topic it
/// opens (docs/shm.md, "Limits per topic").
///
/// The process that **creates** a topic's iceoryx2 service sets its limits; every other
/// process that opens it asks for its own, and gets [`TopicError::Limits`] if the topic was
/// created with less of any (a process asking for less just works). Give every process of a
/// host the same limits: `tacto launch` passes its `[shm]` table to all of them.
///
/// **Cost**: every publisher preallocates [`slots_per_publisher`](Self::slots_per_publisher)
/// slots of its current slot size (4 KiB at first): `subscribers × (depth + held + 1) + history
/// + 2`, 267 with the defaults (tmpfs backs only the pages written), and keeps its last
/// `history` sent samples' slots for late joiners, volatile or not.
///
/// # Examples
/// ```
/// use tacto_shm::{Limit, LimitsError, ShmLimits};
///
/// let limits = ShmLimits {
///     subscribers: 16,
///     ..ShmLimits::default()
/// };
/// assert_eq!(limits.check(), Ok(()));
/// assert_eq!(limits.slots_per_publisher(), 16 * (16 + 16 + 1) + 1 + 2);
/// let zero = ShmLimits {
///     depth: 0,
///     ..ShmLimits::default()
/// };
/// assert_eq!(zero.check(), Err(LimitsError::Zero { limit: Limit::Depth }));
/// ```
///
/// [`TopicError::Limits`]: crate::TopicError::Limits
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShmLimits {
    /// Publisher ports per topic on this host, all processes together (default 8).
    pub publishers: usize,
    /// Subscriber ports per topic on this host, all processes together (default 8); a
    /// tacto subscription on [`ShmTransport`](crate::ShmTransport) has one of its own.
    pub subscribers: usize,
    /// The deepest `KeepLast` a subscriber port buffers (default 16); a deeper history
    /// is kept in the subscription's cache.
    pub depth: usize,
    /// The most received samples a subscription on [`ShmTransport`](crate::ShmTransport)
    /// keeps in their slots, read in place (default 16); past it, an arriving sample is
    /// copied out of its slot. The service lets a subscriber borrow one more, the sample
    /// being received.
    pub held: usize,
    /// The samples every publisher port keeps for late-joining transient-local subscribers
    /// (default 1, as ROS 2's latched topics keep: `/tf_static`, `/map`,
    /// `/robot_description`). iceoryx2 keeps them in every port, volatile ones too, so each
    /// port holds `history` slots it has sent: for an 8 MiB topic, 8 MiB each.
    pub history: usize,
}

impl Default for ShmLimits {
    fn default() -> Self {
        ShmLimits::DEFAULT
    }
}

impl ShmLimits {
    /// The default: 8 publishers, 8 subscribers, 16 samples buffered and held, 1 kept.
    pub const DEFAULT: ShmLimits = ShmLimits {
        publishers: 8,
        subscribers: 8,
        depth: 16,
        held: 16,
        history: 1,
    };

    /// The largest limits [`check`](Self::check) accepts: 64 publishers, 256 subscribers,
    /// 256 samples buffered, held and kept.
    pub const UPPER: ShmLimits = ShmLimits {
        publishers: 64,
        subscribers: 256,
        depth: 256,
        held: 256,
        history: 256,
    };

    /// The most slots per publisher [`check`](Self::check) accepts: 64 MiB of 4 KiB slots,
    /// a publisher's share of shared memory before its messages grow the slots.
    pub const MAX_SLOTS: usize = 16_384;

    /// The slots every publisher preallocates: per subscriber its buffer of `depth` and the
    /// `held + 1` samples it may borrow, its `history` for late joiners (the service's,
    /// kept by every publisher; docs/shm.md, "Transient local"), and two for the publisher
    /// itself.
    pub fn slots_per_publisher(&self) -> usize {
        self.subscribers
            .saturating_mul(self.depth.saturating_add(self.held).saturating_add(1))
            .saturating_add(self.history)
            .saturating_add(2)
    }

    /// Whether the limits can be used: each at least 1 and at most [`UPPER`](Self::UPPER)'s,
    /// and at most [`MAX_SLOTS`](Self::MAX_SLOTS) slots per publisher.
    pub fn check(&self) -> Result<(), LimitsError> {
        for limit in Limit::ALL {
            let (value, max) = (self.get(limit), Self::UPPER.get(limit));
            if value == 0 {
                return Err(LimitsError::Zero { limit });
            }
            if value > max {
                return Err(LimitsError::TooLarge { limit, value, max });
            }
        }
        let slots = self.slots_per_publisher();
        if slots > Self::MAX_SLOTS {
            return Err(LimitsError::TooManySlots {
                limits: *self,
                slots,
            });
        }
        Ok(())
    }

    /// The value of one limit.
    pub fn get(&self, limit: Limit) -> usize {
        match limit {
            Limit::Publishers => self.publishers,
            Limit::Subscribers => self.subscribers,
            Limit::Depth => self.depth,
            Limit::Held => self.held,
            Limit::History => self.history,
        }
    }
}

/// One of the [`ShmLimits`], shown by its name in a launch file's `[shm]` table
/// (`max_subscribers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`ShmLimits::publishers`]: `max_publishers`.
    Publishers,
    /// [`ShmLimits::subscribers`]: `max_subscribers`.
    Subscribers,
    /// [`ShmLimits::depth`]: `max_depth`.
    Depth,
    /// [`ShmLimits::held`]: `max_held`.
    Held,
    /// [`ShmLimits::history`]: `max_history`.
    History,
}

impl Limit {
    /// Every limit, in the order of [`ShmLimits`]' fields.
    pub const ALL: [Limit; 5] = [
        Limit::Publishers,
        Limit::Subscribers,
        Limit::Depth,
        Limit::Held,
        Limit::History,
    ];

    /// Its name in a launch file: `max_publishers`, `max_subscribers`, `max_depth`,
    /// `max_held`, `max_history`.
    pub fn key(self) -> &'static str {
        match self {
            Limit::Publishers => "max_publishers",
            Limit::Subscribers => "max_subscribers",
            Limit::Depth => "max_depth",
            Limit::Held => "max_held",
            Limit::History => "max_history",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// Why [`ShmLimits`] were refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitsError {
    /// A limit is 0: nothing could be published or received.
    #[error("{limit} = 0: give at least 1")]
    Zero {
        /// Which.
        limit: Limit,
    },
    /// A limit is above its bound.
    #[error("{limit} = {value}: give at most {max}")]
    TooLarge {
        /// Which.
        limit: Limit,
        /// The value given.
        value: usize,
        /// Its bound.
        max: usize,
    },
    /// Together, the limits ask every publisher for more than [`ShmLimits::MAX_SLOTS`] slots.
    #[error(
        "max_subscribers × (max_depth + max_held + 1) + max_history + 2 = {} × ({} + {} + 1) + \
         {} + 2 = {slots} slots per publisher: give at most {}",
        limits.subscribers, limits.depth, limits.held, limits.history, ShmLimits::MAX_SLOTS
    )]
    TooManySlots {
        /// The limits given.
        limits: ShmLimits,
        /// The slots they ask of every publisher.
        slots: usize,
    },
}
