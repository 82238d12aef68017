//! Broadcasters: transforms sent on `/tf` and `/tf_static`, as tf2_ros's
//! `TransformBroadcaster` and `StaticTransformBroadcaster` send them.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use tacto::{History, Node, Publisher, Qos, TopicError};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_msgs::tf2_msgs::msg::TFMessage;

use crate::buffer::BufferLimits;

/// Sends transforms on `/tf`: tf2_ros's `TransformBroadcaster`, with its QoS
/// (`DynamicBroadcasterQoS`: reliable, volatile, keep last 100).
///
/// # Examples
/// ```
/// use tacto::{Context, History};
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_msgs::tf2_msgs::msg::TFMessage;
/// use tacto_tf::TransformBroadcaster;
///
/// let ctx = Context::new();
/// let mut node = ctx.node("odometry").unwrap();
/// let tf = TransformBroadcaster::new(&mut node).unwrap();
/// let mut reader = ctx.node("reader").unwrap();
/// let heard = reader.subscription::<TFMessage>("/tf").create().unwrap();
///
/// let mut t = TransformStamped::default();
/// t.header.frame_id = "odom".into();
/// t.child_frame_id = "base_link".into();
/// tf.send_all(vec![t.clone(), t]); // one message
/// assert_eq!(heard.take().unwrap().transforms.len(), 2);
/// ```
pub struct TransformBroadcaster {
    publisher: Publisher<TFMessage>,
}

impl fmt::Debug for TransformBroadcaster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransformBroadcaster")
            .field("topic", &self.publisher.topic())
            .finish()
    }
}

impl TransformBroadcaster {
    /// A broadcaster of `node` on `/tf` (remapped as the node remaps it).
    pub fn new(node: &mut Node) -> Result<TransformBroadcaster, TopicError> {
        let qos = Qos::default().history(History::KeepLast(100));
        let publisher = node.publisher::<TFMessage>("/tf").qos(qos).create()?;
        Ok(TransformBroadcaster { publisher })
    }

    /// Sends one transform, in a message of its own.
    pub fn send(&self, transform: TransformStamped) {
        self.send_all(vec![transform]);
    }

    /// Sends transforms in one message, as tf2_ros's `sendTransform` of a vector.
    pub fn send_all(&self, transforms: Vec<TransformStamped>) {
        self.publisher.publish(TFMessage { transforms });
    }
}

/// Sends transforms that do not change on `/tf_static`: tf2_ros's
/// `StaticTransformBroadcaster`, with its QoS (`StaticBroadcasterQoS`: reliable, transient
/// local, keep last 1), so that a listener that starts later still gets them.
///
/// As tf2_ros's, it keeps every static transform sent and republishes them all in one
/// `TFMessage` at each send, a transform replacing the kept one of the same child frame;
/// and here the static broadcasters of a process share that set and one publisher (made on
/// the node of the first broadcaster, shared while any lives): the process's static frames
/// go out as one message of one writer, which is all a late listener receives and all it
/// needs. (tf2_ros keeps a set and a writer per broadcaster, so a late listener receives one
/// message from each.)
///
/// At most [`BufferLimits::default`]'s `max_frames` child frames are kept (10 000, what a
/// listener's buffer takes by default); a transform of a new child frame past them is
/// refused ([`StaticFramesFull`]).
///
/// # Examples
/// ```
/// use tacto::{Context, Time};
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_tf::{Listener, StaticTransformBroadcaster};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("robot_state_publisher").unwrap();
/// let statics = StaticTransformBroadcaster::new(&mut node).unwrap();
/// let link = |child: &str, z: f64| {
///     let mut t = TransformStamped::default();
///     t.header.frame_id = "base_link".into();
///     t.child_frame_id = child.into();
///     t.transform.translation.z = z;
///     t
/// };
/// statics.send(link("laser", 0.2)).unwrap();
/// statics.send(link("camera", 0.5)).unwrap();
/// statics.send(link("laser", 0.3)).unwrap(); // replaces the laser's
/// assert_eq!(statics.frames(), 2);
///
/// // A listener made afterwards gets them all.
/// let listener = Listener::of(&ctx).unwrap();
/// let laser = listener.lookup_transform("base_link", "laser", Time::ZERO).unwrap();
/// assert_eq!(laser.transform.translation.z, 0.3);
/// ```
pub struct StaticTransformBroadcaster {
    shared: Arc<StaticFrames>,
}

impl fmt::Debug for StaticTransformBroadcaster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticTransformBroadcaster")
            .field("frames", &self.frames())
            .finish()
    }
}

/// The static transforms of a process and the one publisher that sends them.
struct StaticFrames {
    publisher: Publisher<TFMessage>,
    /// Held while publishing, so that the messages go out in the order of the sets.
    sent: Mutex<Vec<TransformStamped>>,
}

/// A static transform of a new child frame, refused: the broadcasters of the process keep
/// as many child frames as they may (see [`StaticTransformBroadcaster`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "static transform to {child:?} refused: the process's static broadcasters keep {max} child frames already"
)]
pub struct StaticFramesFull {
    /// The refused transform's child frame.
    pub child: String,
    /// The bound.
    pub max: usize,
}

impl StaticTransformBroadcaster {
    /// A broadcaster of `node` on `/tf_static` (remapped as the node remaps it), sharing the
    /// process's static transforms (see the type's docs).
    pub fn new(node: &mut Node) -> Result<StaticTransformBroadcaster, TopicError> {
        let ctx = node.context().clone();
        let shared = ctx.shared(|| {
            let qos = Qos::default()
                .transient_local()
                .history(History::KeepLast(1));
            let publisher = node
                .publisher::<TFMessage>("/tf_static")
                .qos(qos)
                .create()?;
            Ok::<_, TopicError>(Arc::new(StaticFrames {
                publisher,
                sent: Mutex::default(),
            }))
        })?;
        Ok(StaticTransformBroadcaster { shared })
    }

    /// Keeps `transform` (in place of the one of its child frame, if kept) and sends every
    /// transform kept, in one message.
    pub fn send(&self, transform: TransformStamped) -> Result<(), StaticFramesFull> {
        self.send_all(vec![transform])
    }

    /// Keeps `transforms` (each in place of the one of its child frame, if kept) and sends
    /// every transform kept, in one message. Refused whole if they would take the kept child
    /// frames past the bound.
    pub fn send_all(&self, transforms: Vec<TransformStamped>) -> Result<(), StaticFramesFull> {
        let max = BufferLimits::default().max_frames;
        let mut sent = (self.shared.sent.lock()).unwrap_or_else(PoisonError::into_inner);
        let new = transforms
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                // New to the kept set, and the first of its child frame in this call.
                !sent.iter().any(|s| s.child_frame_id == t.child_frame_id)
                    && !transforms[..*i]
                        .iter()
                        .any(|earlier| earlier.child_frame_id == t.child_frame_id)
            })
            .map(|(_, t)| &t.child_frame_id)
            .collect::<Vec<_>>();
        if let Some(child) = new.get(max.saturating_sub(sent.len())) {
            return Err(StaticFramesFull {
                child: (*child).clone(),
                max,
            });
        }
        for transform in transforms {
            match sent
                .iter_mut()
                .find(|s| s.child_frame_id == transform.child_frame_id)
            {
                Some(kept) => *kept = transform,
                None => sent.push(transform),
            }
        }
        self.shared.publisher.publish(TFMessage {
            transforms: sent.clone(),
        });
        Ok(())
    }

    /// The child frames kept, the process's static broadcasters' together.
    pub fn frames(&self) -> usize {
        (self.shared.sent.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
