//! tf2 for tacto: a transform buffer with the semantics of tf2's `BufferCore` (ROS 2 Jazzy).
//!
//! A [`Buffer`] holds the tree of coordinate frames over time, as `/tf` and `/tf_static`
//! describe it, and answers "where is frame A in frame B at time t" as tf2 answers it: the
//! same interpolation (linear in translation, slerp in rotation, between each link's two
//! nearest samples), the same ten-second cache and pruning, static transforms that never
//! expire, time zero as the latest common time, the advanced lookup through a fixed frame,
//! and tf2's errors ([`ErrorKind`]) with tf2's texts, word for word, so that a node ported
//! from rclcpp logs and matches what it did before.
//!
//! ```
//! use std::sync::Arc;
//! use tacto::Time;
//! use tacto_msgs::geometry_msgs::msg::TransformStamped;
//! use tacto_tf::Buffer;
//!
//! let buffer = Arc::new(Buffer::new()); // one per process, shared by its nodes
//! let mut t = TransformStamped::default();
//! t.header.frame_id = "base_link".into();
//! t.child_frame_id = "laser".into();
//! t.transform.translation.z = 0.3;
//! buffer.set_transform(&t, "robot_state_publisher", true).unwrap(); // static
//!
//! let out = buffer.lookup_transform("base_link", "laser", Time::ZERO).unwrap();
//! assert_eq!(out.transform.translation.z, 0.3);
//! assert!(buffer.can_transform("laser", "camera", Time::ZERO).is_err());
//! ```
//!
//! The math is on nalgebra's types: nalgebra is the Rust robotics norm (`f64` throughout,
//! `Isometry3` for rigid transforms, used by the kinematics and physics crates a node would
//! hand a transform to), so [`convert`] gives callers an `Isometry3<f64>` to compute with and
//! no second linear-algebra crate comes in. The buffer's own arithmetic on its quaternions,
//! vectors and matrices follows tf2's formulas, written out where they decide the numbers a
//! lookup returns (see `src/math.rs`).
//!
//! On the wire: a [`Listener`] reads `/tf` and `/tf_static` into a buffer that every node of
//! the process shares, on polling subscriptions that wake no executor (tf2_ros's listener
//! runs a callback for each `/tf` message in each node that has one);
//! [`TransformBroadcaster`] and [`StaticTransformBroadcaster`] send transforms;
//! [`TransformReady`] runs a node's code when a message it holds can be transformed (tf2_ros's
//! `MessageFilter`, as a trigger), on the rules of [`TransformQueue`]. See `docs/tf.md`.

mod broadcaster;
mod buffer;
mod cache;
pub mod convert;
mod error;
mod listener;
mod math;
mod ready;
mod sleeper;
mod time_text;
mod transform_ready;
mod wire;

pub use broadcaster::{StaticFramesFull, StaticTransformBroadcaster, TransformBroadcaster};
pub use buffer::{Buffer, BufferLimits, BufferStats, DEFAULT_CACHE_TIME, FrameInfo};
pub use error::{ErrorKind, RejectReason, RejectedTransform, TfError};
pub use listener::{
    LISTENER_AUTHORITY, Listener, ListenerError, ListenerOptions, ListenerStats, MAX_TF_HISTORY,
    TfWaker,
};
/// The nalgebra this crate's conversions use, so that callers name the same version.
pub use nalgebra;
pub use ready::{DropReason, Ready, ReadyError, ReadyStats, TransformQueue};
pub use transform_ready::TransformReady;
