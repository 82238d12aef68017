//! Messages waiting for their transforms: tf2_ros's `MessageFilter` rules as an
//! executor-free queue.
//!
//! A message stamped `t` in frame `f` is ready when the buffer can transform `f` into each
//! target frame at `t` (and at `t + tolerance` if a tolerance is set). Until then it waits,
//! in a queue bounded by its size, and is dropped for the reasons tf2_ros drops it:

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;

use crate::buffer::Buffer;

/// Why a waiting message was dropped: tf2_ros's `FilterFailureReason`, in its order, with
/// [`Timeout`](Self::Timeout) apart (tf2_ros counts a timeout as `OutTheBack`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// tf2_ros's `Unknown`: no reason known. Never counted here; kept for its text.
    Unknown,
    /// The message's stamp fell more than the buffer's cache time behind the latest data of
    /// its frames (or the transform otherwise failed): it can never be transformed.
    OutTheBack,
    /// The message's frame id is empty.
    EmptyFrameId,
    /// tf2_ros's `NoTransformFound`, which tf2_ros declares but never counts; kept for its
    /// text.
    NoTransformFound,
    /// The queue was full when a newer message came: the oldest waiting one was dropped.
    QueueFull,
    /// The message waited longer than the timeout (tf2_ros's `TimeoutException`, which its
    /// message filter counts as `OutTheBack`).
    Timeout,
}

impl DropReason {
    /// Every reason, in the order of [`ReadyStats::dropped`].
    pub const ALL: [DropReason; 6] = [
        DropReason::Unknown,
        DropReason::OutTheBack,
        DropReason::EmptyFrameId,
        DropReason::NoTransformFound,
        DropReason::QueueFull,
        DropReason::Timeout,
    ];

    /// tf2_ros's text of the reason (`get_filter_failure_reason_string`), and for a timeout
    /// tf2_ros's `TimeoutException` wording.
    pub fn text(self) -> &'static str {
        match self {
            DropReason::OutTheBack => {
                "the timestamp on the message is earlier than all the data in the transform cache"
            }
            DropReason::EmptyFrameId => "the frame id of the message is empty",
            DropReason::NoTransformFound => {
                "did not find a valid transform, this usually happens at startup ..."
            }
            DropReason::QueueFull => "discarding message because the queue is full",
            DropReason::Timeout => "timed out waiting for the transform",
            DropReason::Unknown => "unknown",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// What a queue did since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadyStats {
    /// Messages added (tf2_ros's `incoming_message_count_`).
    pub incoming: u64,
    /// Messages handed over ready (tf2_ros's `successful_transform_count_`).
    pub ready: u64,
    /// Messages dropped, by [`DropReason`] in the order of [`DropReason::ALL`].
    pub dropped: [u64; 6],
}

impl ReadyStats {
    /// The messages dropped for `reason`.
    pub fn dropped_for(&self, reason: DropReason) -> u64 {
        self.dropped[reason.index()]
    }

    /// The messages dropped for any reason.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

/// Why a queue could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadyError {
    /// No target frame: nothing could ever be ready (tf2_ros's filter ignores every message
    /// then).
    #[error("a transform-ready queue needs at least one target frame")]
    NoTargetFrames,
    /// A target frame is empty (or only `/`).
    #[error("target frame {0} is empty")]
    EmptyTargetFrame(usize),
    /// A queue size of 0: tf2_ros takes it as unbounded, which a queue here may not be.
    #[error("the queue size must be at least 1 (0, tf2_ros's unbounded, is not allowed)")]
    ZeroQueueSize,
    /// The arrival hook on `/tf` could not be installed (see
    /// [`Listener::waker`](crate::Listener::waker)).
    #[error("waking on /tf: {0}")]
    Hook(#[from] tacto::condition::HookError),
}

/// A message ready: the message, and for each target frame (in the order given) the
/// transform from the message's frame into it at the message's stamp.
#[derive(Debug, Clone)]
pub struct Ready<M> {
    /// The message.
    pub message: M,
    /// `transforms[i]` takes data in the message's frame to target frame `i`, at its stamp.
    pub transforms: Vec<TransformStamped>,
}

struct Held<M> {
    message: M,
    frame: String,
    stamp: Time,
    added: Time,
}

/// Messages waiting until the buffer can transform them into the target frames: tf2_ros's
/// `MessageFilter`, without its callbacks and threads. Add messages as they come, and
/// [`poll`](Self::poll) for the ones that became ready whenever the buffer may have
/// changed; [`TransformReady`](crate::TransformReady) runs one from a trigger.
///
/// The rules are tf2_ros's (Jazzy):
/// - a message whose frame id is empty is dropped ([`DropReason::EmptyFrameId`]); a leading
///   `/` of a frame id is dropped, as tf2 drops it;
/// - a message added to a full queue pushes the oldest waiting one out
///   ([`DropReason::QueueFull`]);
/// - a message is ready when every target frame can be looked up from its frame at its stamp,
///   and, with a [tolerance](Self::tolerance), at its stamp plus the tolerance;
/// - a message that is not ready when added, and whose stamp (or stamp plus tolerance) is more
///   than the buffer's cache time behind the latest common time of its frame and a target,
///   is dropped ([`DropReason::OutTheBack`], tf2's `TransformFailure`); so is one with a
///   [timeout](Self::timeout) that waited longer ([`DropReason::Timeout`]; tf2_ros, by
///   default, waits for ever).
///
/// Messages become ready in the order they were added among those ready at one poll.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_tf::{Buffer, TransformQueue};
///
/// let buffer = Buffer::new();
/// let mut queue = TransformQueue::new(&["map"], 10).unwrap();
/// let stamp = Time::from_nanos(1_000_000_000);
/// queue.add("scan 1", "laser", stamp, Time::ZERO);
/// assert!(queue.poll(&buffer, Time::ZERO).is_none()); // no transform yet: it waits
///
/// let mut t = TransformStamped::default();
/// (t.header.frame_id, t.child_frame_id) = ("map".into(), "laser".into());
/// t.header.stamp = stamp.into();
/// t.transform.translation.x = 2.0;
/// buffer.set_transform(&t, "me", false).unwrap();
/// let ready = queue.poll(&buffer, Time::ZERO).unwrap();
/// assert_eq!(ready.message, "scan 1");
/// assert_eq!(ready.transforms[0].transform.translation.x, 2.0);
/// ```
pub struct TransformQueue<M> {
    targets: Vec<String>,
    queue_size: usize,
    tolerance: Duration,
    timeout: Option<Duration>,
    waiting: VecDeque<Held<M>>,
    stats: ReadyStats,
}

impl<M> fmt::Debug for TransformQueue<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransformQueue")
            .field("targets", &self.targets)
            .field("queue_size", &self.queue_size)
            .field("waiting", &self.waiting.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// tf2 drops one leading `/` of a frame id.
fn strip_slash(frame: &str) -> &str {
    frame.strip_prefix('/').unwrap_or(frame)
}

impl<M> TransformQueue<M> {
    /// A queue of at most `queue_size` waiting messages, ready when their frames can be
    /// transformed into each of `targets`.
    pub fn new(targets: &[&str], queue_size: usize) -> Result<Self, ReadyError> {
        if targets.is_empty() {
            return Err(ReadyError::NoTargetFrames);
        }
        if let Some(empty) = targets.iter().position(|t| strip_slash(t).is_empty()) {
            return Err(ReadyError::EmptyTargetFrame(empty));
        }
        if queue_size == 0 {
            return Err(ReadyError::ZeroQueueSize);
        }
        Ok(TransformQueue {
            targets: targets.iter().map(|t| strip_slash(t).to_owned()).collect(),
            queue_size,
            tolerance: Duration::ZERO,
            timeout: None,
            waiting: VecDeque::new(),
            stats: ReadyStats::default(),
        })
    }

    /// Also requires the transforms at the stamp plus `tolerance` (tf2_ros's `setTolerance`):
    /// the message waits until data newer than it by that much came.
    pub fn tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Drops a message that waited longer than `timeout` (tf2_ros's `buffer_timeout`); by
    /// default a message waits until it is ready, out the back, or pushed out.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The target frames, without a leading `/`.
    pub fn targets(&self) -> &[String] {
        &self.targets
    }

    /// Adds `message`, in `frame` at `stamp`; `now` is the time its [timeout](Self::timeout)
    /// counts from, on the clock later polls are given.
    pub fn add(&mut self, message: M, frame: &str, stamp: Time, now: Time) {
        let frame = strip_slash(frame);
        if frame.is_empty() {
            self.drop_for(DropReason::EmptyFrameId);
            return;
        }
        if self.waiting.len() >= self.queue_size {
            self.waiting.pop_front();
            self.drop_for(DropReason::QueueFull);
        }
        self.stats.incoming += 1;
        self.waiting.push_back(Held {
            message,
            frame: frame.to_owned(),
            stamp,
            added: now,
        });
    }

    /// The oldest waiting message the buffer can transform now, with its transforms; drops
    /// on the way those that never will be (out the back) or waited too long (`now` on the
    /// clock of [`add`](Self::add)). `None` if none is ready.
    pub fn poll(&mut self, buffer: &Buffer, now: Time) -> Option<Ready<M>> {
        let mut i = 0;
        while i < self.waiting.len() {
            let held = &self.waiting[i];
            if let Some(transforms) = self.transforms(buffer, held) {
                let held = self.waiting.remove(i)?;
                self.stats.ready += 1;
                return Some(Ready {
                    message: held.message,
                    transforms,
                });
            }
            let reason = if self.out_the_back(buffer, held) {
                Some(DropReason::OutTheBack)
            } else {
                let waited = now.as_nanos().saturating_sub(held.added.as_nanos());
                (self.timeout).and_then(|timeout| {
                    (waited >= 0 && waited as u128 >= timeout.as_nanos())
                        .then_some(DropReason::Timeout)
                })
            };
            match reason {
                Some(reason) => {
                    self.waiting.remove(i);
                    self.drop_for(reason);
                }
                None => i += 1,
            }
        }
        None
    }

    /// The messages waiting.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// True if no message waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Drops every waiting message, uncounted (tf2_ros's `clear`).
    pub fn clear(&mut self) {
        self.waiting.clear();
    }

    /// What the queue did since it was made.
    pub fn stats(&self) -> ReadyStats {
        self.stats
    }

    fn drop_for(&mut self, reason: DropReason) {
        self.stats.dropped[reason.index()] += 1;
    }

    /// The times a message must be transformable at: its stamp, and with a tolerance its
    /// stamp plus the tolerance.
    fn times(&self, held: &Held<M>) -> impl Iterator<Item = Time> {
        let later = (!self.tolerance.is_zero()).then(|| held.stamp + self.tolerance);
        std::iter::once(held.stamp).chain(later)
    }

    /// The transforms into each target at the stamp, if every one required can be made.
    fn transforms(&self, buffer: &Buffer, held: &Held<M>) -> Option<Vec<TransformStamped>> {
        for target in &self.targets {
            for time in self.times(held) {
                buffer.can_transform(target, &held.frame, time).ok()?;
            }
        }
        (self.targets.iter())
            .map(|target| {
                buffer
                    .lookup_transform(target, &held.frame, held.stamp)
                    .ok()
            })
            .collect()
    }

    /// tf2's `TransformFailure` of a waiting request: its time is more than the cache time
    /// behind the latest common time of the two frames.
    fn out_the_back(&self, buffer: &Buffer, held: &Held<M>) -> bool {
        let cache_time = buffer.limits().cache_time;
        self.targets.iter().any(|target| {
            let Ok(latest) = buffer.latest_common_time(target, &held.frame) else {
                return false;
            };
            latest != Time::ZERO && self.times(held).any(|time| time + cache_time < latest)
        })
    }
}
