//! Intra-process transport: zero-copy delivery of `Arc`ed messages.
//!
//! Publishing pushes one `Arc` clone into each subscriber's history: O(subscribers) pointer
//! pushes, no serialization, no allocation beyond the message itself. Under
//! [`LocalDelivery::Serialized`] the message is encoded to CDR once instead, and each
//! subscription decodes it when its node reads it: the path of a sample from another process.

use std::sync::Arc;

use crate::cdr::EncodeError;
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

/// One topic's subscribers inside this process.
#[derive(Debug)]
pub(crate) struct Topic<T> {
    name: String,
    delivery: LocalDelivery,
    /// Copied on write: a publisher takes the list under the lock for as long as one
    /// reference count takes, then delivers outside it, so subscribing never waits for a
    /// delivery and a delivery never waits for more than that. Priority-inheriting, as
    /// publishers of any priority take it.
    subscribers: PiMutex<Arc<[Arc<Inbox<T>>]>>,
}

impl<T: Message> Topic<T> {
    pub(crate) fn new(name: &str, delivery: LocalDelivery) -> Self {
        Topic {
            name: name.to_owned(),
            delivery,
            subscribers: PiMutex::new(Arc::new([])),
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Hands `msg` to every subscriber: the last one gets the publisher's reference itself,
    /// the others a clone (one atomic increment each). Under serialized delivery, fails if
    /// `msg` has no CDR form; nobody receives it then.
    pub(crate) fn deliver(&self, msg: Arc<T>, info: SampleInfo) -> Result<(), EncodeError> {
        let subscribers = self.subscribers.lock().clone();
        if self.delivery == LocalDelivery::Serialized && !subscribers.is_empty() {
            let bytes: Arc<[u8]> = crate::cdr::to_vec(&*msg)?.into();
            for inbox in subscribers.iter() {
                inbox.deliver_serialized(bytes.clone(), info);
            }
        } else if let Some((last, others)) = subscribers.split_last() {
            for inbox in others {
                inbox.deliver(msg.clone(), info);
            }
            last.deliver(msg, info);
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

    pub(crate) fn subscriber_count(&self) -> usize {
        self.subscribers.lock().len()
    }
}
