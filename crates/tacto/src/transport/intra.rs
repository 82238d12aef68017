//! Intra-process transport: zero-copy delivery of `Arc`ed messages.
//!
//! Publishing pushes one `Arc` clone into each subscriber's history: O(subscribers) pointer
//! pushes, no serialization, no allocation beyond the message itself. Under
//! [`LocalDelivery::Serialized`] the message is encoded to CDR once instead, and each
//! subscription decodes it when its node reads it: the path of a sample from another process.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use crate::cdr::EncodeError;
use crate::context::TopicLease;
use crate::message::Message;
use crate::pi_mutex::PiMutex;
use crate::sample::SampleInfo;
use crate::subscription::Inbox;

/// How a context delivers samples between its own publishers and subscriptions.
///
/// The default is [`Shared`](Self::Shared), unless the environment variable
/// `TACTO_LOCAL_DELIVERY` says `serialized` (as `RMW_IMPLEMENTATION` picks a middleware, it
/// lets a whole test suite or program run on the serialized path unchanged).
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, LocalDelivery};
///
/// let ctx = Context::builder().local_delivery(LocalDelivery::Serialized).create();
/// let mut node = ctx.node("roundtrip").unwrap();
/// let publisher = node.publisher::<Text>("chat").create().unwrap();
/// let sub = node.subscription::<Text>("chat").create().unwrap();
/// publisher.publish(Text { data: "through CDR".into() });
/// assert_eq!(sub.take().unwrap().data, "through CDR");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LocalDelivery {
    /// Subscriptions share the publisher's message behind an `Arc`: no copy, no serialization.
    #[default]
    Shared,
    /// Every message is encoded to CDR once per publication and decoded by each subscription
    /// when read, as if it came from another process: for testing that message types
    /// round-trip, like rclcpp with intra-process communication off.
    Serialized,
}

impl LocalDelivery {
    /// The default: `TACTO_LOCAL_DELIVERY=serialized` in the environment, or `Shared`.
    pub(crate) fn from_env() -> Self {
        match std::env::var("TACTO_LOCAL_DELIVERY").as_deref() {
            Ok("serialized") => LocalDelivery::Serialized,
            _ => LocalDelivery::Shared,
        }
    }
}

/// A topic of this process: a name, the one ROS type it carries, and a fan-out per Rust type
/// that publishes or subscribes to it.
///
/// Two Rust types for one ROS type (generated in two crates, or a dynamic type) are the same
/// topic: a publisher's own type gets its message shared, the others get it as CDR, encoded
/// once per publication and decoded by each subscription when read.
pub(crate) struct TopicCore {
    name: String,
    ros_type: &'static str,
    delivery: LocalDelivery,
    /// Each Rust type's fan-out, held weakly (its publishers and subscriptions own it); copied
    /// on write, as a fan-out's subscribers are.
    typed: PiMutex<Arc<[Typed]>>,
    /// Set while more than one Rust type has a fan-out: only then does a publication look
    /// beyond its own type's subscriptions.
    several_types: AtomicBool,
    /// Removes the topic from its context when the last fan-out goes.
    _lease: TopicLease,
}

impl fmt::Debug for TopicCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TopicCore")
            .field("name", &self.name)
            .field("ros_type", &self.ros_type)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct Typed {
    type_id: TypeId,
    fanout: Weak<dyn Fanout>,
    any: Weak<dyn Any + Send + Sync>,
}

/// What the fan-out of one Rust type offers publishers of the others.
trait Fanout: Send + Sync {
    fn deliver_serialized(&self, bytes: &Arc<[u8]>, info: SampleInfo);
    fn subscriber_count(&self) -> usize;
}

impl TopicCore {
    pub(crate) fn new(
        name: &str,
        ros_type: &'static str,
        delivery: LocalDelivery,
        lease: TopicLease,
    ) -> Self {
        TopicCore {
            name: name.to_owned(),
            ros_type,
            delivery,
            typed: PiMutex::new(Arc::new([])),
            several_types: AtomicBool::new(false),
            _lease: lease,
        }
    }

    pub(crate) fn ros_type(&self) -> &'static str {
        self.ros_type
    }

    /// The fan-out of `T`: the one in use, or a new one.
    pub(crate) fn typed<T: Message>(self: &Arc<Self>) -> Arc<Topic<T>> {
        let mut typed = self.typed.lock();
        let existing = (typed.iter())
            .filter(|t| t.type_id == TypeId::of::<T>())
            .find_map(|t| t.any.upgrade()?.downcast::<Topic<T>>().ok());
        if let Some(topic) = existing {
            return topic;
        }
        let topic = Arc::new(Topic {
            core: self.clone(),
            subscribers: PiMutex::new(Arc::new([])),
        });
        let fanout: Arc<dyn Fanout> = topic.clone();
        let any: Arc<dyn Any + Send + Sync> = topic.clone();
        let entry = Typed {
            type_id: TypeId::of::<T>(),
            fanout: Arc::downgrade(&fanout),
            any: Arc::downgrade(&any),
        };
        // A dead fan-out of `T` (its last endpoint going right now) is replaced.
        let with: Arc<[Typed]> = (typed.iter())
            .filter(|t| t.type_id != TypeId::of::<T>())
            .cloned()
            .chain([entry])
            .collect();
        self.several_types.store(with.len() > 1, Ordering::Relaxed);
        *typed = with;
        topic
    }
}

/// One Rust type's publishers and subscriptions of a topic.
pub(crate) struct Topic<T> {
    core: Arc<TopicCore>,
    /// Copied on write: a publisher takes the list under the lock for as long as one
    /// reference count takes, then delivers outside it, so subscribing never waits for a
    /// delivery and a delivery never waits for more than that. Priority-inheriting, as
    /// publishers of any priority take it.
    subscribers: PiMutex<Arc<[Arc<Inbox<T>>]>>,
}

impl<T> fmt::Debug for Topic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Topic")
            .field("core", &self.core)
            .finish_non_exhaustive()
    }
}

impl<T: Message> Topic<T> {
    pub(crate) fn name(&self) -> &str {
        &self.core.name
    }

    /// Hands `msg` to every subscription of the topic: those of `T` share it (the last one
    /// gets the publisher's reference itself, the others a clone), those of other Rust types
    /// get it encoded, once. Under serialized delivery every subscription gets it encoded.
    /// Fails if it had to be encoded and has no CDR form; those subscriptions miss it then.
    pub(crate) fn deliver(&self, msg: Arc<T>, info: SampleInfo) -> Result<(), EncodeError> {
        let subscribers = self.subscribers.lock().clone();
        let others = match self.core.several_types.load(Ordering::Relaxed) {
            true => Some(self.core.typed.lock().clone()),
            false => None,
        };
        let mut bytes: Option<Arc<[u8]>> = None;
        let mut encoded = || -> Result<Arc<[u8]>, EncodeError> {
            if bytes.is_none() {
                bytes = Some(crate::cdr::to_vec(&*msg)?.into());
            }
            Ok(bytes.clone().unwrap_or_else(|| Arc::new([])))
        };
        if self.core.delivery == LocalDelivery::Serialized && !subscribers.is_empty() {
            let bytes = encoded()?;
            for inbox in subscribers.iter() {
                inbox.deliver_serialized(bytes.clone(), info);
            }
        }
        let others = (others.iter().flat_map(|typed| typed.iter()))
            .filter(|t| t.type_id != TypeId::of::<T>())
            .filter_map(|t| t.fanout.upgrade())
            .filter(|fanout| fanout.subscriber_count() > 0);
        for fanout in others {
            fanout.deliver_serialized(&encoded()?, info);
        }
        if self.core.delivery == LocalDelivery::Shared {
            if let Some((last, others)) = subscribers.split_last() {
                for inbox in others {
                    inbox.deliver(msg.clone(), info);
                }
                last.deliver(msg, info);
            }
        }
        Ok(())
    }

    pub(crate) fn subscribe(&self, inbox: Arc<Inbox<T>>) {
        let mut subscribers = self.subscribers.lock();
        let with: Arc<[_]> = subscribers.iter().cloned().chain([inbox]).collect();
        *subscribers = with;
    }

    pub(crate) fn unsubscribe(&self, inbox: &Arc<Inbox<T>>) {
        let mut subscribers = self.subscribers.lock();
        let without: Arc<[_]> = (subscribers.iter())
            .filter(|s| !Arc::ptr_eq(s, inbox))
            .cloned()
            .collect();
        // The old list may be the last reference to inboxes; it goes after the lock.
        let old = std::mem::replace(&mut *subscribers, without);
        drop(subscribers);
        drop(old);
    }

    /// Subscriptions of the topic in this process, of every Rust type.
    pub(crate) fn subscriber_count(&self) -> usize {
        let typed = self.core.typed.lock().clone();
        (typed.iter())
            .filter_map(|t| t.fanout.upgrade())
            .map(|fanout| fanout.subscriber_count())
            .sum()
    }
}

impl<T: Message> Fanout for Topic<T> {
    fn deliver_serialized(&self, bytes: &Arc<[u8]>, info: SampleInfo) {
        let subscribers = self.subscribers.lock().clone();
        for inbox in subscribers.iter() {
            inbox.deliver_serialized(bytes.clone(), info);
        }
    }

    fn subscriber_count(&self) -> usize {
        self.subscribers.lock().len()
    }
}

impl<T> Drop for Topic<T> {
    fn drop(&mut self) {
        let mut typed = self.core.typed.lock();
        let without: Arc<[Typed]> = (typed.iter())
            .filter(|t| t.fanout.strong_count() > 0)
            .cloned()
            .collect();
        self.core
            .several_types
            .store(without.len() > 1, Ordering::Relaxed);
        let old = std::mem::replace(&mut *typed, without);
        drop(typed);
        drop(old);
    }
}
