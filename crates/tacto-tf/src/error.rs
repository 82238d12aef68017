//! Why a lookup or an insertion failed, with tf2's kinds and tf2's texts.

use std::fmt;

/// What kind of failure a [`TfError`] is: tf2's exception classes (`tf2/exceptions.h`).
///
/// tf2's `NoDataForExtrapolationException`, `BackwardExtrapolationException` and
/// `ForwardExtrapolationException` are all `ExtrapolationException`s there;
/// [`is_extrapolation`](Self::is_extrapolation) groups them the same way here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `LookupException`: a frame that the buffer does not know, or a tree with a loop.
    Lookup,
    /// `ConnectivityException`: both frames are known but in two unconnected trees.
    Connectivity,
    /// `NoDataForExtrapolationException`: a link has no data, or one sample at another time.
    NoDataForExtrapolation,
    /// `BackwardExtrapolationException`: the time is before a link's earliest sample.
    BackwardExtrapolation,
    /// `ForwardExtrapolationException`: the time is after a link's latest sample.
    ForwardExtrapolation,
    /// `InvalidArgumentException`: an empty frame id, or one that starts with `/`.
    InvalidArgument,
}

impl ErrorKind {
    /// Whether tf2 would throw it as an `ExtrapolationException`.
    pub fn is_extrapolation(self) -> bool {
        matches!(
            self,
            ErrorKind::NoDataForExtrapolation
                | ErrorKind::BackwardExtrapolation
                | ErrorKind::ForwardExtrapolation
        )
    }
}

/// A lookup that failed: tf2's kind of exception and its message, word for word.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto_tf::{Buffer, ErrorKind};
///
/// let buffer = Buffer::new();
/// let err = buffer.lookup_transform("", "map", Time::ZERO).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidArgument);
/// assert_eq!(
///     err.to_string(),
///     "Invalid argument \"\" passed to lookupTransform argument target_frame - in tf2 \
///      frame_ids cannot be empty"
/// );
/// let err = buffer.lookup_transform("map", "base_link", Time::ZERO).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Lookup);
/// assert_eq!(
///     err.to_string(),
///     "\"map\" passed to lookupTransform argument target_frame does not exist. "
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TfError {
    kind: ErrorKind,
    message: String,
}

impl TfError {
    pub(crate) fn new(kind: ErrorKind, message: String) -> TfError {
        TfError { kind, message }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, as tf2's exception's `what()` would say it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TfError {}

/// Why [`Buffer::set_transform`](crate::Buffer::set_transform) refused a transform.
///
/// tf2 logs these and returns `false`; here the caller gets them, to log (rate-limited) or to
/// count as it sees fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectReason {
    /// `TF_SELF_TRANSFORM`: the frame and the child frame are the same.
    SelfTransform,
    /// `TF_NO_CHILD_FRAME_ID`: the child frame is empty (or only `/`).
    NoChildFrameId,
    /// `TF_NO_FRAME_ID`: the parent frame is empty (or only `/`).
    NoFrameId,
    /// `TF_NAN_INPUT`: a NaN in the translation or the rotation.
    NanInput,
    /// `TF_DENORMALIZED_QUATERNION`: the rotation's squared length is 0.01 or more from 1.
    DenormalizedQuaternion,
    /// `TF_OLD_DATA`: older than the frame's cache time allows behind its latest sample.
    OldData,
    /// The buffer holds its maximum number of frames and the transform names a new one
    /// (tacto's bound; tf2 has none). See [`BufferLimits::max_frames`](crate::BufferLimits).
    FrameLimit,
}

/// A transform that [`Buffer::set_transform`](crate::Buffer::set_transform) refused, with the
/// text tf2 logs for it.
///
/// Where tf2 finds several problems in one transform it logs each; this holds the first, in
/// tf2's order of checks.
///
/// # Examples
/// ```
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_tf::{Buffer, RejectReason};
///
/// let mut t = TransformStamped::default();
/// t.header.frame_id = "base".into();
/// t.child_frame_id = "base".into();
/// let err = Buffer::new().set_transform(&t, "me", false).unwrap_err();
/// assert_eq!(err.reason(), RejectReason::SelfTransform);
/// assert!(err.to_string().starts_with("TF_SELF_TRANSFORM: Ignoring transform from authority \"me\""));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedTransform {
    reason: RejectReason,
    message: String,
}

impl RejectedTransform {
    pub(crate) fn new(reason: RejectReason, message: String) -> RejectedTransform {
        RejectedTransform { reason, message }
    }

    /// Why it was refused.
    pub fn reason(&self) -> RejectReason {
        self.reason
    }

    /// tf2's log text for it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RejectedTransform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RejectedTransform {}
