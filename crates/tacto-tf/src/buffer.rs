//! The frame tree and its lookups: tf2's `BufferCore` (`tf2/src/buffer_core.cpp`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use nalgebra::{Quaternion, Vector3};
use tacto::Time;
use tacto_msgs::geometry_msgs::msg::{self as geometry, TransformStamped};
use tacto_msgs::std_msgs::msg::Header;

use crate::cache::{FrameCache, FrameId, Inserted, Miss, Sample, TimeCache};
use crate::error::{ErrorKind, RejectReason, RejectedTransform, TfError};
use crate::math::{self, Rigid};
use crate::time_text::{c_float, display, seconds};
use crate::wire::{LinkRef, TfWire};

/// tf2's default cache time (`BUFFER_CORE_DEFAULT_CACHE_TIME`): ten seconds.
pub const DEFAULT_CACHE_TIME: Duration = Duration::from_secs(10);

/// tf2's `MAX_GRAPH_DEPTH`: a walk longer than this is taken for a loop in the tree.
const MAX_GRAPH_DEPTH: u32 = 1000;

/// tf2's tolerance on a quaternion's squared length (`QUATERNION_NORMALIZATION_TOLERANCE`).
const QUATERNION_TOLERANCE: f64 = 10e-3;

/// The bounds of a [`Buffer`].
///
/// tf2 bounds each frame's history by time only and the number of frames not at all; a
/// buffer fed from the network here is bounded in both. At the defaults, with samples of 72
/// bytes, the worst case is 10 000 frames of 10 000 samples (7.2 GB): a flood of distinct
/// frames or of samples faster than 1 kHz, which the counters of [`BufferStats`] show.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto_tf::{Buffer, BufferLimits};
///
/// let limits = BufferLimits { cache_time: Duration::from_secs(30), ..BufferLimits::default() };
/// let buffer = Buffer::with_limits(limits);
/// assert_eq!(buffer.limits().max_frames, 10_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferLimits {
    /// How long a frame's history reaches back from its latest sample (tf2's `cache_time`):
    /// older samples are pruned and older arrivals refused. Static transforms never expire.
    pub cache_time: Duration,
    /// The most frames the buffer knows, parents included. A transform that would add a frame
    /// past it is refused ([`RejectReason::FrameLimit`]) and counted; frames are never
    /// forgotten (as in tf2), so the bound holds for the buffer's life.
    pub max_frames: usize,
    /// The most samples one frame keeps (at least 1), a second guard beside the cache time: past
    /// it the oldest sample is dropped, and counted.
    pub max_samples_per_frame: usize,
}

impl Default for BufferLimits {
    fn default() -> BufferLimits {
        BufferLimits {
            cache_time: DEFAULT_CACHE_TIME,
            max_frames: 10_000,
            // 1 kHz over the default ten seconds.
            max_samples_per_frame: 10_000,
        }
    }
}

/// What a [`Buffer`] holds and what its bounds have cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BufferStats {
    /// Frames known, parents included.
    pub frames: usize,
    /// Transforms refused because they named a frame past [`BufferLimits::max_frames`].
    pub refused_transforms: u64,
    /// Samples dropped to keep a frame within [`BufferLimits::max_samples_per_frame`].
    pub evicted_samples: u64,
}

/// A tf2 buffer: the tree of coordinate frames over time, with tf2's `BufferCore` semantics.
///
/// Transforms go in with [`set_transform`](Self::set_transform) (from `/tf`, or `/tf_static`
/// with `is_static`); [`lookup_transform`](Self::lookup_transform) gives the transform from a
/// source frame to a target frame at a time, interpolated between each link's two nearest
/// samples, or the error tf2 would throw, with tf2's text. Time zero means "the latest time
/// at which every link of the chain has data".
///
/// One buffer serves every node of a process: share it in an `Arc`; every method takes
/// `&self`. Lookups share a read lock, held for the walk up the tree only (the answer's
/// strings, and the frame listings, are made after it is released); an insertion takes the
/// write lock for one cache insertion, so a lookup never waits behind long work.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_tf::Buffer;
///
/// let buffer = Buffer::new();
/// let mut t = TransformStamped::default();
/// t.header.frame_id = "map".into();
/// t.child_frame_id = "base_link".into();
/// for (sec, x) in [(1, 0.0), (2, 2.0)] {
///     t.header.stamp.sec = sec;
///     t.transform.translation.x = x;
///     buffer.set_transform(&t, "example", false).unwrap();
/// }
/// // Halfway between the samples: halfway between the positions.
/// let out = buffer.lookup_transform("map", "base_link", Time::from_nanos(1_500_000_000)).unwrap();
/// assert_eq!(out.transform.translation.x, 1.0);
/// assert_eq!((out.header.frame_id.as_str(), out.child_frame_id.as_str()), ("map", "base_link"));
///
/// let err = buffer.lookup_transform("map", "base_link", Time::from_nanos(3_000_000_000)).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "Lookup would require extrapolation into the future.  Requested time 3.000000 but the \
///      latest data is at time 2.000000, when looking up transform from frame [base_link] to \
///      frame [map]"
/// );
/// ```
#[derive(Debug)]
pub struct Buffer {
    limits: BufferLimits,
    tree: RwLock<Tree>,
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::new()
    }
}

impl Buffer {
    /// An empty buffer with the default bounds (a ten-second cache, as tf2's).
    pub fn new() -> Buffer {
        Buffer::with_limits(BufferLimits::default())
    }

    /// An empty buffer with these bounds.
    pub fn with_limits(limits: BufferLimits) -> Buffer {
        Buffer {
            limits,
            tree: RwLock::new(Tree::new()),
        }
    }

    /// The buffer's bounds.
    pub fn limits(&self) -> BufferLimits {
        self.limits
    }

    // A panic while a lock is held could only come from a bug in this crate, and every
    // update leaves the tree consistent at each step: carry on rather than spread the panic.
    fn read(&self) -> RwLockReadGuard<'_, Tree> {
        self.tree.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Tree> {
        self.tree.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a transform, as tf2's `setTransform`: `authority` names who sent it (shown by
    /// [`all_frames_as_yaml`](Self::all_frames_as_yaml)); a static transform replaces the
    /// frame's history and holds at every time.
    ///
    /// A leading `/` of either frame id is dropped, as tf2 drops it. Refused, with tf2's log
    /// text: a frame that is its own parent, an empty frame id, a NaN, a quaternion whose
    /// squared length is 0.01 or more from 1 (one within that is kept as it came, as tf2
    /// keeps it), data older than the cache time behind the frame's latest, and (tacto's
    /// bound) a new frame past [`BufferLimits::max_frames`]. An exact duplicate is accepted
    /// and stored once.
    pub fn set_transform(
        &self,
        transform: &TransformStamped,
        authority: &str,
        is_static: bool,
    ) -> Result<(), RejectedTransform> {
        let frame = strip_slash(&transform.header.frame_id);
        let child = strip_slash(&transform.child_frame_id);
        let v = &transform.transform.translation;
        let q = &transform.transform.rotation;
        check_transform(frame, child, v, q, authority)?;
        let sample = Sample {
            stamp: Time::from(transform.header.stamp),
            rotation: Quaternion::new(q.w, q.x, q.y, q.z),
            translation: Vector3::new(v.x, v.y, v.z),
            // Set once the parent's id is known.
            parent: 0,
        };
        let mut tree = self.write();
        let authority = tree.authority(authority);
        tree.insert(frame, child, sample, &authority, is_static, &self.limits)
    }

    /// [`set_transform`](Self::set_transform) of each transform of a message, under one
    /// taking of the write lock: the listener's path. Returns how many were accepted, and
    /// the refused ones' count and the last of them.
    ///
    /// `ids[i]`, if there is one, holds the (child, parent) ids of link `i`: used if known,
    /// else filled in once found (see [`KnownFrames`]).
    pub(crate) fn set_links<'a>(
        &self,
        links: impl Iterator<Item = LinkRef<'a>>,
        authority: &str,
        is_static: bool,
        ids: &mut [Option<(FrameId, FrameId)>],
    ) -> Taken {
        let mut taken = Taken::default();
        let mut tree = self.write();
        let authority = tree.authority(authority);
        for (i, link) in links.enumerate() {
            let (frame, child) = (strip_slash(link.frame), strip_slash(link.child));
            let (v, q) = (&link.transform.translation, &link.transform.rotation);
            let known = ids.get_mut(i);
            let result = check_transform(frame, child, v, q, &authority).and_then(|()| {
                let sample = Sample {
                    stamp: link.stamp,
                    rotation: Quaternion::new(q.w, q.x, q.y, q.z),
                    translation: Vector3::new(v.x, v.y, v.z),
                    parent: 0,
                };
                let found = match known {
                    Some(Some(found)) => *found,
                    Some(slot) => {
                        *slot.insert(tree.resolve(frame, child, &authority, &self.limits)?)
                    }
                    None => tree.resolve(frame, child, &authority, &self.limits)?,
                };
                tree.store(found, child, sample, &authority, is_static, &self.limits)
            });
            match result {
                Ok(()) => taken.accepted += 1,
                Err(refusal) => {
                    taken.refused += 1;
                    taken.last_refusal = Some(refusal);
                }
            }
        }
        taken
    }

    /// The transform that takes data in `source` to `target`, at `time` (zero: the latest
    /// common time of the chain), as tf2's `lookupTransform`: stamped with the time used,
    /// `header.frame_id` the target, `child_frame_id` the source.
    ///
    /// A frame to itself is the identity at any time, even for a frame the buffer has never
    /// seen. Errors: [`ErrorKind::InvalidArgument`] for an empty id or one starting with `/`,
    /// [`ErrorKind::Lookup`] for an unknown frame or a loop, [`ErrorKind::Connectivity`] for
    /// frames in separate trees, and the extrapolation kinds for a time outside a link's data.
    pub fn lookup_transform(
        &self,
        target: &str,
        source: &str,
        time: Time,
    ) -> Result<TransformStamped, TfError> {
        let (transform, stamp) = self.read().lookup(target, source, time)?;
        Ok(stamped(target, source, stamp, &transform))
    }

    /// The transform that takes data in `source` at `source_time` to `target` at
    /// `target_time`, through `fixed`, a frame that does not move between the two times (the
    /// world, the map): tf2's advanced `lookupTransform`. Stamped with the time used for the
    /// target.
    pub fn lookup_transform_full(
        &self,
        target: &str,
        target_time: Time,
        source: &str,
        source_time: Time,
        fixed: &str,
    ) -> Result<TransformStamped, TfError> {
        let tree = self.read();
        tree.validate("lookupTransform argument target_frame", target)?;
        tree.validate("lookupTransform argument source_frame", source)?;
        tree.validate("lookupTransform argument fixed_frame", fixed)?;
        let (source_to_fixed, _) = tree.lookup(fixed, source, source_time)?;
        let (fixed_to_target, stamp) = tree.lookup(target, fixed, target_time)?;
        drop(tree);
        let transform = fixed_to_target.then_after(&source_to_fixed);
        Ok(stamped(target, source, stamp, &transform))
    }

    /// Whether [`lookup_transform`](Self::lookup_transform) would succeed, as tf2's
    /// `canTransform`; the error carries tf2's text for why not.
    ///
    /// The texts for bad frame ids are `canTransform`'s own (`Invalid frame ID "x" passed to
    /// canTransform argument target_frame - frame does not exist`), as in tf2.
    pub fn can_transform(&self, target: &str, source: &str, time: Time) -> Result<(), TfError> {
        if target == source {
            return Ok(());
        }
        let tree = self.read();
        let target = tree.validate_quietly("canTransform argument target_frame", target)?;
        let source = tree.validate_quietly("canTransform argument source_frame", source)?;
        tree.can_transform(target, source, time)
    }

    /// Whether [`lookup_transform_full`](Self::lookup_transform_full) would succeed, as tf2's
    /// advanced `canTransform`.
    pub fn can_transform_full(
        &self,
        target: &str,
        target_time: Time,
        source: &str,
        source_time: Time,
        fixed: &str,
    ) -> Result<(), TfError> {
        let tree = self.read();
        let target = tree.validate_quietly("canTransform argument target_frame", target)?;
        let source = tree.validate_quietly("canTransform argument source_frame", source)?;
        let fixed = tree.validate_quietly("canTransform argument fixed_frame", fixed)?;
        tree.can_transform(target, fixed, target_time)?;
        tree.can_transform(fixed, source, source_time)
    }

    /// The latest time at which every link between the two frames has data (static links
    /// count as always): what time zero means to a lookup (tf2's `getLatestCommonTime`).
    /// Zero when no link has a time (all static). A frame to itself: its latest sample's time.
    pub fn latest_common_time(&self, target: &str, source: &str) -> Result<Time, TfError> {
        let tree = self.read();
        let target = tree.validate("getLatestCommonTime argument target_frame", target)?;
        let source = tree.validate("getLatestCommonTime argument source_frame", source)?;
        tree.latest_common_time(target, source)
    }

    /// Forgets every frame's timed history, as tf2's `clear`; static transforms and the frames
    /// themselves stay.
    pub fn clear(&self) {
        for cache in self.write().caches.iter_mut().flatten() {
            cache.clear();
        }
    }

    /// Whether the buffer knows the frame (as a child or as a parent): tf2's `_frameExists`.
    pub fn frame_exists(&self, frame: &str) -> bool {
        self.read().ids.contains_key(frame)
    }

    /// The frame's parent at `time` (without interpolation), if it has one then: tf2's
    /// `_getParent`.
    pub fn parent(&self, frame: &str, time: Time) -> Option<String> {
        let tree = self.read();
        let cache = tree.cache(tree.id(frame))?;
        match cache.parent(time) {
            Ok(0) | Err(_) => None,
            Ok(parent) => Some(tree.name(parent).to_owned()),
        }
    }

    /// Every frame's name, in the order the buffer learnt them: tf2's `getAllFrameNames`.
    pub fn frame_names(&self) -> Vec<String> {
        self.read().names[1..].to_vec()
    }

    /// One line per frame with a history, `Frame child exists with parent parent.`, as
    /// tf2's `allFramesAsString`.
    pub fn all_frames_as_string(&self) -> String {
        let lines = self.read().frame_parents();
        format_frame_parents(&lines)
    }

    /// Each frame with data, its parent, broadcaster, rate and history, in tf2's
    /// `allFramesAsYAML` format (`[]` for an empty buffer); with a `current_time` other than
    /// zero, also how far each frame's latest sample is behind it.
    pub fn all_frames_as_yaml(&self, current_time: Time) -> String {
        let (summaries, empty) = {
            let tree = self.read();
            (tree.summaries(), tree.names.len() == 1)
        };
        let mut out = String::new();
        if empty {
            out.push_str("[]");
        }
        for s in summaries {
            let span = s.most_recent.as_nanos() - s.oldest.as_nanos();
            let rate = s.rate();
            let _ = write!(
                out,
                "{}: \n  parent: '{}'\n  broadcaster: '{}'\n  rate: {rate:.3}\n  \
                 most_recent_transform: {}\n  oldest_transform: {}\n",
                s.name,
                s.parent,
                s.authority,
                display(s.most_recent),
                display(s.oldest)
            );
            if current_time != Time::ZERO {
                let delay = seconds(
                    current_time
                        .as_nanos()
                        .saturating_sub(s.most_recent.as_nanos()),
                );
                let _ = writeln!(out, "  transform_delay: {delay:.3}");
            }
            let _ = writeln!(out, "  buffer_length: {:.3}", seconds(span));
        }
        out
    }

    /// Each frame with data, in the order the buffer learnt them: what
    /// [`all_frames_as_yaml`](Self::all_frames_as_yaml) prints, as values.
    pub fn frames(&self) -> Vec<FrameInfo> {
        self.read().summaries()
    }

    /// What the buffer holds and what its bounds have refused or dropped.
    pub fn stats(&self) -> BufferStats {
        let tree = self.read();
        BufferStats {
            frames: tree.names.len() - 1,
            refused_transforms: tree.refused,
            evicted_samples: tree.evicted,
        }
    }
}

/// The frame ids of the links of the last `/tf` message a listener took in: the next message
/// of a broadcaster names the same frames in the same order, so it compares its names with
/// these once, and [`Buffer::set_links`] then finds each link's frames without hashing their
/// names. Frames are never forgotten, so ids stay valid.
#[derive(Debug, Default)]
pub(crate) struct KnownFrames {
    /// The message's frame names, as [`TfWire`] has them.
    names: String,
    layout: Vec<(Range<usize>, Range<usize>)>,
    /// Link `i`'s (child, parent) ids, once found.
    ids: Vec<Option<(FrameId, FrameId)>>,
}

impl KnownFrames {
    /// The ids of `message`'s links, known if the last message named the same frames,
    /// unknown (to be found) if not.
    pub(crate) fn ids_for(&mut self, message: &TfWire) -> &mut [Option<(FrameId, FrameId)>] {
        if !message.frames_are(&self.names, &self.layout) {
            message.copy_frames(&mut self.names, &mut self.layout);
            self.ids.clear();
            self.ids.resize(self.layout.len(), None);
        }
        &mut self.ids
    }
}

/// What [`Buffer::set_links`] did with a message's transforms.
#[derive(Debug, Default)]
pub(crate) struct Taken {
    pub(crate) accepted: u64,
    pub(crate) refused: u64,
    pub(crate) last_refusal: Option<RejectedTransform>,
}

fn strip_slash(frame: &str) -> &str {
    frame.strip_prefix('/').unwrap_or(frame)
}

/// tf2's checks in `setTransformImpl`, in its order, with its log texts.
#[inline]
fn check_transform(
    frame: &str,
    child: &str,
    v: &geometry::Vector3,
    q: &geometry::Quaternion,
    authority: &str,
) -> Result<(), RejectedTransform> {
    let reason = if child == frame {
        RejectReason::SelfTransform
    } else if child.is_empty() {
        RejectReason::NoChildFrameId
    } else if frame.is_empty() {
        RejectReason::NoFrameId
    } else if [v.x, v.y, v.z, q.x, q.y, q.z, q.w]
        .iter()
        .any(|x| x.is_nan())
    {
        RejectReason::NanInput
    } else if (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0).abs() < QUATERNION_TOLERANCE {
        return Ok(());
    } else {
        // False for a NaN too, as tf2's `valid`.
        RejectReason::DenormalizedQuaternion
    };
    Err(refusal(reason, child, v, q, authority))
}

/// tf2's log text of a refusal by [`check_transform`]. Out of line: the texts' formatting
/// would otherwise make the check's frame large, on the path of every transform.
#[cold]
#[inline(never)]
fn refusal(
    reason: RejectReason,
    child: &str,
    v: &geometry::Vector3,
    q: &geometry::Quaternion,
    authority: &str,
) -> RejectedTransform {
    let text = match reason {
        RejectReason::SelfTransform => format!(
            "TF_SELF_TRANSFORM: Ignoring transform from authority \"{authority}\" with \
             frame_id and  child_frame_id \"{child}\" because they are the same"
        ),
        RejectReason::NoChildFrameId => format!(
            "TF_NO_CHILD_FRAME_ID: Ignoring transform from authority \"{authority}\" \
             because child_frame_id not set "
        ),
        RejectReason::NoFrameId => format!(
            "TF_NO_FRAME_ID: Ignoring transform with child_frame_id \"{child}\"  from \
             authority \"{authority}\" because frame_id not set"
        ),
        RejectReason::NanInput => format!(
            "TF_NAN_INPUT: Ignoring transform for child_frame_id \"{child}\" from authority \
             \"{authority}\" because of a nan value in the transform ({} {} {}) ({} {} {} {})",
            c_float(v.x),
            c_float(v.y),
            c_float(v.z),
            c_float(q.x),
            c_float(q.y),
            c_float(q.z),
            c_float(q.w)
        ),
        // The quaternion: the last check.
        _ => format!(
            "TF_DENORMALIZED_QUATERNION: Ignoring transform for child_frame_id \"{child}\" \
             from authority \"{authority}\" because of an invalid quaternion in the \
             transform ({} {} {} {})",
            c_float(q.x),
            c_float(q.y),
            c_float(q.z),
            c_float(q.w)
        ),
    };
    RejectedTransform::new(reason, text)
}

/// A lookup's answer as the message tf2 builds, its rotation through tf2's matrix.
fn stamped(target: &str, source: &str, stamp: Time, transform: &Rigid) -> TransformStamped {
    let (q, v) = (transform.rotation(), transform.origin());
    TransformStamped {
        header: Header {
            stamp: stamp.into(),
            frame_id: target.to_owned(),
        },
        child_frame_id: source.to_owned(),
        transform: geometry::Transform {
            translation: geometry::Vector3 {
                x: v.x,
                y: v.y,
                z: v.z,
            },
            rotation: geometry::Quaternion {
                x: q.i,
                y: q.j,
                z: q.k,
                w: q.w,
            },
        },
    }
}

fn format_frame_parents(lines: &[(String, String)]) -> String {
    let mut out = String::new();
    for (frame, parent) in lines {
        let _ = writeln!(out, "Frame {frame} exists with parent {parent}.");
    }
    out
}

/// A frame with data, as `all_frames_as_yaml` describes it (and `view_frames` draws it):
/// see [`Buffer::frames`].
#[derive(Debug, Clone, PartialEq)]
pub struct FrameInfo {
    /// The frame.
    pub name: String,
    /// Its parent, in its latest sample.
    pub parent: String,
    /// Who sent its latest sample (`no recorded authority` if unknown).
    pub authority: String,
    /// The samples its history holds.
    pub samples: usize,
    /// The stamp of its latest sample.
    pub most_recent: Time,
    /// The stamp of its oldest sample.
    pub oldest: Time,
}

impl FrameInfo {
    /// The seconds between its oldest and latest samples (`buffer_length`).
    pub fn buffer_length(&self) -> f64 {
        seconds(self.most_recent.as_nanos() - self.oldest.as_nanos())
    }

    /// Samples per second over its history, as tf2 reckons it: the count over the span, the
    /// span taken as at least 100 µs.
    pub fn rate(&self) -> f64 {
        let span = self.most_recent.as_nanos() - self.oldest.as_nanos();
        (self.samples as f64 * 1e9) / span.max(100_000) as f64
    }
}

/// How a walk up the tree ended (tf2's `WalkEnding`).
#[derive(Clone, Copy)]
enum WalkEnding {
    Identity,
    TargetParentOfSource,
    SourceParentOfTarget,
    FullPath,
}

/// What a walk does at each link: tf2's `TransformAccum` and `CanTransformAccum`.
trait Accum {
    /// The link's parent at `time`, keeping what the accumulator needs of the link.
    fn gather(&mut self, cache: &FrameCache, time: Time) -> Result<FrameId, Miss>;
    /// Composes the last gathered link onto the source's or the target's side.
    fn accum(&mut self, source: bool);
    /// The walk is over.
    fn finalize(&mut self, end: WalkEnding, time: Time);
}

/// Composes the links into the transform, as tf2's `TransformAccum`.
struct TransformAccum {
    link: Sample,
    time: Time,
    source_to_top: (Quaternion<f64>, Vector3<f64>),
    target_to_top: (Quaternion<f64>, Vector3<f64>),
    result: (Quaternion<f64>, Vector3<f64>),
}

impl TransformAccum {
    fn new() -> TransformAccum {
        let identity = (math::identity(), Vector3::zeros());
        TransformAccum {
            link: Sample {
                stamp: Time::ZERO,
                rotation: identity.0,
                translation: identity.1,
                parent: 0,
            },
            time: Time::ZERO,
            source_to_top: identity,
            target_to_top: identity,
            result: identity,
        }
    }
}

impl Accum for TransformAccum {
    fn gather(&mut self, cache: &FrameCache, time: Time) -> Result<FrameId, Miss> {
        self.link = cache.get(time)?;
        Ok(self.link.parent)
    }

    fn accum(&mut self, source: bool) {
        let side = if source {
            &mut self.source_to_top
        } else {
            &mut self.target_to_top
        };
        let (q, v) = (self.link.rotation, self.link.translation);
        side.1 = math::quat_rotate(&q, &side.1) + v;
        side.0 = math::mul(&q, &side.0);
    }

    fn finalize(&mut self, end: WalkEnding, time: Time) {
        let inverse = |(q, v): (Quaternion<f64>, Vector3<f64>)| {
            let q = q.conjugate();
            (q, math::quat_rotate(&q, &-v))
        };
        match end {
            WalkEnding::Identity => {}
            WalkEnding::TargetParentOfSource => self.result = self.source_to_top,
            WalkEnding::SourceParentOfTarget => self.result = inverse(self.target_to_top),
            WalkEnding::FullPath => {
                let (q, v) = inverse(self.target_to_top);
                self.result = (
                    math::mul(&q, &self.source_to_top.0),
                    math::quat_rotate(&q, &self.source_to_top.1) + v,
                );
            }
        }
        self.time = time;
    }
}

/// Only follows the parents, as tf2's `CanTransformAccum`.
struct CanTransformAccum;

impl Accum for CanTransformAccum {
    fn gather(&mut self, cache: &FrameCache, time: Time) -> Result<FrameId, Miss> {
        cache.parent(time)
    }

    fn accum(&mut self, _source: bool) {}

    fn finalize(&mut self, _end: WalkEnding, _time: Time) {}
}

/// The frames and their caches, behind the buffer's lock.
#[derive(Debug)]
struct Tree {
    /// A frame's id by name. std's hasher: the names come from the network, and SipHash keeps
    /// a flood of chosen names from degrading the map.
    ids: HashMap<String, FrameId>,
    /// Names by id; id 0 is tf2's `NO_PARENT`.
    names: Vec<String>,
    /// Caches by id: `None` for id 0 and for frames that are only parents.
    caches: Vec<Option<FrameCache>>,
    /// Who last set each frame's transform. Shared: a frame set again by the same sender
    /// checks it with a comparison of pointers.
    authorities: Vec<Option<Arc<str>>>,
    /// The last sender named, whose copy the next transform of the same sender shares.
    last_authority: Option<Arc<str>>,
    refused: u64,
    evicted: u64,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            ids: HashMap::new(),
            names: vec!["NO_PARENT".to_owned()],
            caches: vec![None],
            authorities: vec![None],
            last_authority: None,
            refused: 0,
            evicted: 0,
        }
    }

    /// The frame's id, 0 if unknown (tf2's `lookupFrameNumber`).
    fn id(&self, frame: &str) -> FrameId {
        self.ids.get(frame).copied().unwrap_or(0)
    }

    fn name(&self, id: FrameId) -> &str {
        &self.names[id as usize]
    }

    fn cache(&self, id: FrameId) -> Option<&FrameCache> {
        self.caches.get(id as usize).and_then(Option::as_ref)
    }

    /// Adds a frame the tree does not know yet.
    fn add_frame(&mut self, frame: &str) -> FrameId {
        // The caller has checked the frame bound, far below u32::MAX.
        let id = self.names.len() as FrameId;
        self.ids.insert(frame.to_owned(), id);
        self.names.push(frame.to_owned());
        self.caches.push(None);
        self.authorities.push(None);
        id
    }

    /// `authority` as the tree keeps it: the copy it has if it is the last sender named.
    fn authority(&mut self, authority: &str) -> Arc<str> {
        match &self.last_authority {
            Some(last) if **last == *authority => last.clone(),
            _ => self.last_authority.insert(Arc::from(authority)).clone(),
        }
    }

    /// tf2's `insertData` after its checks: the frames' ids, then the sample.
    fn insert(
        &mut self,
        frame: &str,
        child: &str,
        sample: Sample,
        authority: &Arc<str>,
        is_static: bool,
        limits: &BufferLimits,
    ) -> Result<(), RejectedTransform> {
        let ids = self.resolve(frame, child, authority, limits)?;
        self.store(ids, child, sample, authority, is_static, limits)
    }

    /// The (child, parent) ids of a transform's frames, new ones added: refused past the
    /// frame bound.
    fn resolve(
        &mut self,
        frame: &str,
        child: &str,
        authority: &str,
        limits: &BufferLimits,
    ) -> Result<(FrameId, FrameId), RejectedTransform> {
        let (child_id, frame_id) = (self.ids.get(child).copied(), self.ids.get(frame).copied());
        // `check_transform` has made them different, so each new one is one more frame.
        let new_frames = usize::from(child_id.is_none()) + usize::from(frame_id.is_none());
        if self.names.len() - 1 + new_frames > limits.max_frames {
            self.refused += 1;
            return Err(RejectedTransform::new(
                RejectReason::FrameLimit,
                format!(
                    "TF_FRAME_LIMIT: Ignoring transform for child_frame_id \"{child}\" from \
                     authority \"{authority}\" because the buffer already holds its limit of \
                     {} frames",
                    limits.max_frames
                ),
            ));
        }
        // Child first, then parent: the order tf2 numbers them in.
        let child_id = child_id.unwrap_or_else(|| self.add_frame(child));
        let frame_id = frame_id.unwrap_or_else(|| self.add_frame(frame));
        Ok((child_id, frame_id))
    }

    /// Stores `sample` of the frame `child` (its id and its parent's in `ids`).
    fn store(
        &mut self,
        (child_id, parent): (FrameId, FrameId),
        child: &str,
        mut sample: Sample,
        authority: &Arc<str>,
        is_static: bool,
        limits: &BufferLimits,
    ) -> Result<(), RejectedTransform> {
        sample.parent = parent;
        let max_age = i64::try_from(limits.cache_time.as_nanos()).unwrap_or(i64::MAX);
        let slot = &mut self.caches[child_id as usize];
        let cache = match slot {
            Some(cache) if cache.is_static() == is_static => cache,
            // A new frame, or one that turns static (or back): a new cache of that kind, as
            // in tf2.
            _ => slot.insert(if is_static {
                FrameCache::Static(sample)
            } else {
                FrameCache::Timed(TimeCache::new(max_age, limits.max_samples_per_frame))
            }),
        };
        match cache.insert(sample) {
            Inserted::Kept => {}
            Inserted::KeptEvictingOldest => self.evicted += 1,
            Inserted::TooOld => {
                return Err(RejectedTransform::new(
                    RejectReason::OldData,
                    format!(
                        "TF_OLD_DATA ignoring data from the past for frame {child} at time {} \
                         according to authority {authority}\nPossible reasons are listed at \
                         http://wiki.ros.org/tf/Errors%20explained",
                        display(sample.stamp)
                    ),
                ));
            }
        }
        let recorded = &mut self.authorities[child_id as usize];
        if !recorded.as_ref().is_some_and(|r| Arc::ptr_eq(r, authority)) {
            *recorded = Some(authority.clone());
        }
        Ok(())
    }

    /// tf2's `validateFrameId` that throws: `InvalidArgumentException`, `LookupException`.
    fn validate(&self, function: &str, frame: &str) -> Result<FrameId, TfError> {
        if frame.is_empty() {
            return Err(TfError::new(
                ErrorKind::InvalidArgument,
                format!(
                    "Invalid argument \"{frame}\" passed to {function} - in tf2 frame_ids \
                     cannot be empty"
                ),
            ));
        }
        if frame.starts_with('/') {
            return Err(TfError::new(
                ErrorKind::InvalidArgument,
                format!(
                    "Invalid argument \"{frame}\" passed to {function} - in tf2 frame_ids \
                     cannot start with a '/'"
                ),
            ));
        }
        match self.id(frame) {
            0 => Err(TfError::new(
                ErrorKind::Lookup,
                format!("\"{frame}\" passed to {function} does not exist. "),
            )),
            id => Ok(id),
        }
    }

    /// tf2's `validateFrameId` that fills an error string (`canTransform`'s).
    fn validate_quietly(&self, function: &str, frame: &str) -> Result<FrameId, TfError> {
        let invalid = |kind, rationale: &str| {
            TfError::new(
                kind,
                format!("Invalid frame ID \"{frame}\" passed to {function} - {rationale}"),
            )
        };
        if frame.is_empty() {
            return Err(invalid(
                ErrorKind::InvalidArgument,
                "in tf2 frame_ids cannot be empty",
            ));
        }
        if frame.starts_with('/') {
            return Err(invalid(
                ErrorKind::InvalidArgument,
                "in tf2 frame_ids cannot start with a '/'",
            ));
        }
        match self.id(frame) {
            0 => Err(invalid(ErrorKind::Lookup, "frame does not exist")),
            id => Ok(id),
        }
    }

    /// tf2's `lookupTransformImpl`: the transform and the time it was taken at.
    fn lookup(&self, target: &str, source: &str, time: Time) -> Result<(Rigid, Time), TfError> {
        if target == source {
            let stamp = if time == Time::ZERO {
                self.cache(self.id(target)).map_or(time, FrameCache::latest)
            } else {
                time
            };
            return Ok((Rigid::new(&math::identity(), Vector3::zeros()), stamp));
        }
        let target = self.validate("lookupTransform argument target_frame", target)?;
        let source = self.validate("lookupTransform argument source_frame", source)?;
        let mut accum = TransformAccum::new();
        self.walk(&mut accum, time, target, source)?;
        let (q, v) = accum.result;
        Ok((Rigid::new(&q, v), accum.time))
    }

    /// tf2's `canTransformInternal`.
    fn can_transform(&self, target: FrameId, source: FrameId, time: Time) -> Result<(), TfError> {
        if target == source {
            return Ok(());
        }
        self.walk(&mut CanTransformAccum, time, target, source)
    }

    fn loop_error(&self) -> TfError {
        TfError::new(
            ErrorKind::Lookup,
            format!(
                "The tf tree is invalid because it contains a loop.\n{}\n",
                format_frame_parents(&self.frame_parents())
            ),
        )
    }

    fn connectivity_error(&self, source: FrameId, target: FrameId) -> TfError {
        TfError::new(
            ErrorKind::Connectivity,
            format!(
                "Could not find a connection between '{}' and '{}' because they are not part \
                 of the same tree.Tf has two or more unconnected trees.",
                self.name(target),
                self.name(source)
            ),
        )
    }

    /// tf2's `walkToTopParent`: up from the source to its root, then up from the target until
    /// it meets the source's path; the accumulator composes the links on the way.
    fn walk<A: Accum>(
        &self,
        accum: &mut A,
        mut time: Time,
        target: FrameId,
        source: FrameId,
    ) -> Result<(), TfError> {
        // A frame to itself needs no link, even one that does not exist.
        if source == target {
            accum.finalize(WalkEnding::Identity, time);
            return Ok(());
        }
        if time == Time::ZERO {
            time = self.latest_common_time(target, source)?;
        }
        let context = || {
            format!(
                ", when looking up transform from frame [{}] to frame [{}]",
                self.name(source),
                self.name(target)
            )
        };

        // Up from the source to its root.
        let mut frame = source;
        let mut top_parent = frame;
        let mut depth = 0;
        // Where the source's path ran out of data: there may still be a path to the target.
        let mut source_miss = None;
        while frame != 0 {
            // The root of the tree has no cache.
            let Some(cache) = self.cache(frame) else {
                top_parent = frame;
                break;
            };
            let parent = match accum.gather(cache, time) {
                Ok(parent) => parent,
                Err(miss) => {
                    top_parent = frame;
                    source_miss = Some(miss);
                    break;
                }
            };
            // The target is on the source's path: done.
            if frame == target {
                accum.finalize(WalkEnding::TargetParentOfSource, time);
                return Ok(());
            }
            accum.accum(true);
            top_parent = frame;
            frame = parent;
            depth += 1;
            if depth > MAX_GRAPH_DEPTH {
                return Err(self.loop_error());
            }
        }

        // Up from the target until the source's top.
        frame = target;
        depth = 0;
        while frame != top_parent {
            let Some(cache) = self.cache(frame) else {
                break;
            };
            let parent = accum
                .gather(cache, time)
                .map_err(|miss| miss.into_error(&context()))?;
            // The source is on the target's path: done.
            if frame == source {
                accum.finalize(WalkEnding::SourceParentOfTarget, time);
                return Ok(());
            }
            accum.accum(false);
            frame = parent;
            depth += 1;
            if depth > MAX_GRAPH_DEPTH {
                return Err(self.loop_error());
            }
        }
        if frame != top_parent {
            return Err(match source_miss {
                Some(miss) => miss.into_error(&context()),
                None => self.connectivity_error(source, target),
            });
        }
        accum.finalize(WalkEnding::FullPath, time);
        Ok(())
    }

    /// tf2's `getLatestCommonTime`: the earliest of the latest stamps of the links between
    /// the frames, static links (stamp zero) not counting; zero if none counts.
    fn latest_common_time(&self, target: FrameId, source: FrameId) -> Result<Time, TfError> {
        if source == 0 || target == 0 {
            return Err(TfError::new(ErrorKind::Lookup, String::new()));
        }
        if source == target {
            return Ok(self.cache(source).map_or(Time::ZERO, FrameCache::latest));
        }
        let none = Time::from_nanos(i64::MAX);
        let or_zero = |t: Time| if t == none { Time::ZERO } else { t };

        // Up from the source, keeping each link's latest time and parent.
        let mut source_path: Vec<(Time, FrameId)> = Vec::new();
        let mut frame = source;
        let mut depth = 0;
        let mut common = none;
        while frame != 0 {
            let Some(cache) = self.cache(frame) else {
                break;
            };
            let (latest, parent) = cache.latest_time_and_parent();
            if parent == 0 {
                break;
            }
            if latest != Time::ZERO {
                common = common.min(latest);
            }
            source_path.push((latest, parent));
            frame = parent;
            if frame == target {
                return Ok(or_zero(common));
            }
            depth += 1;
            if depth > MAX_GRAPH_DEPTH {
                return Err(self.loop_error());
            }
        }

        // Up from the target until a parent on the source's path.
        frame = target;
        depth = 0;
        common = none;
        let mut common_parent = 0;
        while let Some(cache) = self.cache(frame) {
            let (latest, parent) = cache.latest_time_and_parent();
            if parent == 0 {
                break;
            }
            if latest != Time::ZERO {
                common = common.min(latest);
            }
            if source_path.iter().any(|&(_, p)| p == parent) {
                common_parent = parent;
                break;
            }
            frame = parent;
            if frame == source {
                return Ok(or_zero(common));
            }
            depth += 1;
            if depth > MAX_GRAPH_DEPTH {
                return Err(self.loop_error());
            }
        }
        if common_parent == 0 {
            return Err(self.connectivity_error(source, target));
        }
        // The source's links up to the common parent count too.
        for &(latest, parent) in &source_path {
            if latest != Time::ZERO {
                common = common.min(latest);
            }
            if parent == common_parent {
                break;
            }
        }
        Ok(or_zero(common))
    }

    /// Each frame with a cache and its parent now (`NO_PARENT` when its cache is empty).
    fn frame_parents(&self) -> Vec<(String, String)> {
        (1..self.names.len() as FrameId)
            .filter_map(|id| {
                let cache = self.cache(id)?;
                let parent = cache.get(Time::ZERO).map_or(0, |s| s.parent);
                Some((self.name(id).to_owned(), self.name(parent).to_owned()))
            })
            .collect()
    }

    /// Each frame with data, for `all_frames_as_yaml`.
    fn summaries(&self) -> Vec<FrameInfo> {
        (1..self.names.len() as FrameId)
            .filter_map(|id| {
                let cache = self.cache(id)?;
                let sample = cache.get(Time::ZERO).ok()?;
                Some(FrameInfo {
                    name: self.name(id).to_owned(),
                    parent: self.name(sample.parent).to_owned(),
                    authority: (self.authorities[id as usize].as_deref())
                        .unwrap_or("no recorded authority")
                        .to_owned(),
                    samples: cache.len(),
                    most_recent: cache.latest(),
                    oldest: cache.oldest(),
                })
            })
            .collect()
    }
}
