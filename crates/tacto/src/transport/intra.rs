//! Intra-process transport: zero-copy delivery of `Arc`ed messages.
//!
//! Publishing pushes one `Arc` clone into each subscriber's history: O(subscribers) pointer
//! pushes, no serialization, no allocation beyond the message itself. Under
//! [`LocalDelivery::Serialized`] the message is encoded to CDR once instead, and each
//! subscription decodes it when its node reads it: the path of a sample from another process.

use std::any::{Any, TypeId};

use arc_swap::ArcSwap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use crate::cdr::EncodeError;
use crate::context::{TopicError, TopicLease};
use crate::message::Message;
use crate::pi_mutex::PiMutex;
use crate::qos::Qos;
use crate::sample::SampleInfo;
use crate::subscription::Inbox;
use crate::transport::kept::Kept;
use crate::transport::{LinkReader, LinkWriter, RemoteBytes, RosType, Transport};

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
    typed: ArcSwap<Vec<Typed>>,
    /// Set while more than one Rust type has a fan-out: only then does a publication look
    /// beyond its own type's subscriptions.
    several_types: AtomicBool,
    /// Held while the list of fan-outs is edited (never on the path of a sample), so that
    /// `several_types` always describes the list.
    editing: Mutex<()>,
    /// The context's transport out of the process, if any.
    transport: Option<Arc<dyn Transport>>,
    /// The links its publishers share, one per QoS, made by the first publisher of each; held
    /// weakly (they own them), so that the topic stops being offered outside with its last
    /// publisher.
    writers: Mutex<Vec<SharedWriter>>,
    /// Set once a subscription logged a malformed sample: a peer sending garbage gets one
    /// line per topic, whatever the number of subscriptions; their counts tell the rest.
    malformed_logged: Arc<AtomicBool>,
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
    fn deliver_serialized(&self, bytes: &RemoteBytes, info: SampleInfo);
    fn subscriber_count(&self) -> usize;
}

impl TopicCore {
    pub(crate) fn new(
        name: &str,
        ros_type: &'static str,
        delivery: LocalDelivery,
        transport: Option<Arc<dyn Transport>>,
        lease: TopicLease,
    ) -> Self {
        TopicCore {
            name: name.to_owned(),
            ros_type,
            delivery,
            typed: ArcSwap::default(),
            several_types: AtomicBool::new(false),
            editing: Mutex::new(()),
            transport,
            writers: Mutex::default(),
            malformed_logged: Arc::default(),
            _lease: lease,
        }
    }

    pub(crate) fn ros_type(&self) -> &'static str {
        self.ros_type
    }

    /// The fan-out of `T`: the one in use, or a new one.
    pub(crate) fn typed<T: Message>(self: &Arc<Self>) -> Arc<Topic<T>> {
        // One edit at a time, or two threads could each make a fan-out of `T`.
        let editing = self.editing.lock().unwrap_or_else(PoisonError::into_inner);
        let existing = (self.typed.load().iter())
            .filter(|t| t.type_id == TypeId::of::<T>())
            .find_map(|t| t.any.upgrade()?.downcast::<Topic<T>>().ok());
        if let Some(topic) = existing {
            return topic;
        }
        let topic = Arc::new(Topic {
            core: self.clone(),
            subscribers: PiMutex::new(Vec::new()),
            kept: Mutex::default(),
        });
        let fanout: Arc<dyn Fanout> = topic.clone();
        let any: Arc<dyn Any + Send + Sync> = topic.clone();
        let entry = Typed {
            type_id: TypeId::of::<T>(),
            fanout: Arc::downgrade(&fanout),
            any: Arc::downgrade(&any),
        };
        // A dead fan-out of `T` (its last endpoint going right now) is replaced.
        self.edit_typed(&editing, |typed| {
            typed.retain(|t| t.type_id != TypeId::of::<T>());
            typed.push(entry);
        });
        topic
    }

    /// Replaces the list of fan-outs with an edited copy, and `several_types` with what it
    /// says of the copy; the caller holds `editing`.
    fn edit_typed(&self, _editing: &MutexGuard<'_, ()>, edit: impl FnOnce(&mut Vec<Typed>)) {
        let mut typed = Vec::clone(&self.typed.load());
        edit(&mut typed);
        self.several_types.store(typed.len() > 1, Ordering::Relaxed);
        self.typed.store(Arc::new(typed));
    }
}

/// A flat message's own bytes, viewed where the `Arc` keeps them (aligned for `T`); `None`
/// for other types.
fn flat_payload<T: Message>(msg: &Arc<T>) -> Option<RemoteBytes> {
    let layout = T::FLAT_LAYOUT?;
    msg.flat_bytes()?;
    Some(RemoteBytes::flat(
        layout,
        RemoteBytes::new(FlatValue(msg.clone())),
    ))
}

/// Holds a flat message for [`flat_payload`].
struct FlatValue<T>(Arc<T>);

impl<T: Message> AsRef<[u8]> for FlatValue<T> {
    fn as_ref(&self) -> &[u8] {
        // Made only for a message that has flat bytes.
        self.0.flat_bytes().unwrap_or_default()
    }
}

/// A link writer shared by the publishers of one node with one QoS: (node, QoS, writer).
type SharedWriter = (Option<String>, Qos, Weak<dyn LinkWriter>);

/// One Rust type's publishers and subscriptions of a topic.
pub(crate) struct Topic<T> {
    core: Arc<TopicCore>,
    /// Held by a publisher for the whole of one delivery to these subscriptions, so that its
    /// sequence number is taken under it too: samples reach every subscription in sequence
    /// order, whichever threads share the publisher. One priority-inheriting lock per sample
    /// (not a sequence lock plus a lock-free list) keeps the data path short; subscribing
    /// waits for at most one delivery.
    subscribers: PiMutex<Vec<Arc<Inbox<T>>>>,
    /// The samples its transient-local publishers keep for late-joining subscriptions, held
    /// weakly (each publisher owns its store); read only when a transient-local subscription
    /// is created, under `subscribers`.
    kept: Mutex<Vec<Weak<Kept<T>>>>,
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

    /// The topic's flag of a malformed sample logged (see `TopicCore`).
    pub(crate) fn malformed_logged(&self) -> Arc<AtomicBool> {
        self.core.malformed_logged.clone()
    }

    /// Hands `msg` to every subscription of the topic, stamped by `stamp`, which runs under
    /// the lock that orders deliveries (it takes the publisher's sequence number); `order` is
    /// the publisher's lock for the rare path that serves several fan-outs. Those of
    /// `T` share the message (the last gets the publisher's reference itself, the others a
    /// clone), those of other Rust types get it encoded, once. Under serialized delivery every
    /// subscription gets it encoded. Fails if it had to be encoded and has no CDR form; those
    /// subscriptions miss it then.
    pub(crate) fn deliver(
        &self,
        msg: Arc<T>,
        stamp: impl FnOnce() -> SampleInfo,
        order: &PiMutex<()>,
    ) -> Result<(), EncodeError> {
        let encoding = self.core.delivery == LocalDelivery::Serialized
            || self.core.several_types.load(Ordering::Relaxed);
        if encoding {
            return self.deliver_encoding(msg, stamp, order);
        }
        // The common case, kept short: one Rust type, shared delivery.
        let subscribers = self.subscribers.lock();
        let info = stamp();
        if let Some((last, others)) = subscribers.split_last() {
            for inbox in others {
                inbox.deliver(msg.clone(), info);
            }
            last.deliver(msg, info);
        }
        Ok(())
    }

    /// [`deliver`](Self::deliver) when some subscription needs the message encoded.
    ///
    /// Other types' fan-outs are served after this one's lock is released, each under its
    /// own, so that no thread ever holds two fan-out locks; `order` (the publisher's lock)
    /// keeps its samples in sequence order there too.
    #[cold]
    fn deliver_encoding(
        &self,
        msg: Arc<T>,
        stamp: impl FnOnce() -> SampleInfo,
        order: &PiMutex<()>,
    ) -> Result<(), EncodeError> {
        let _order = order.lock();
        let typed = self.core.typed.load();
        let others = || {
            (typed.iter())
                .filter(|t| t.type_id != TypeId::of::<T>())
                .filter_map(|t| t.fanout.upgrade())
                .filter(|fanout| fanout.subscriber_count() > 0)
        };
        let shared = self.core.delivery == LocalDelivery::Shared;
        // Serialized, a flat message reaches its own type's subscriptions as its own bytes,
        // read in place, as shared memory delivers it; other types always get CDR.
        let flat = match shared {
            true => None,
            false => flat_payload(&msg),
        };
        let bytes = match others().next().is_some() || (!shared && flat.is_none()) {
            true => Some(RemoteBytes::from(crate::cdr::to_vec(&*msg)?)),
            // No other type subscribes, and this type's subscriptions need no CDR.
            false => None,
        };
        let info = {
            let subscribers = self.subscribers.lock();
            let info = stamp();
            for inbox in subscribers.iter() {
                match (&flat, &bytes) {
                    (Some(flat), _) => inbox.deliver_serialized(flat.clone(), info),
                    (None, Some(bytes)) if !shared => inbox.deliver_serialized(bytes.clone(), info),
                    _ => inbox.deliver(msg.clone(), info),
                }
            }
            info
        };
        if let Some(bytes) = bytes {
            others().for_each(|fanout| fanout.deliver_serialized(&bytes, info));
        }
        Ok(())
    }

    /// The topic's ROS type, with `T`'s hash: the links' endpoints send the hash of the Rust
    /// type that made them.
    fn ros_type(&self) -> RosType {
        RosType {
            name: self.core.ros_type,
            hash: T::TYPE_HASH,
        }
    }

    /// The topic's writer to the context's transport, for a new publisher of `node` with
    /// `qos`: the one its other publishers of that node and QoS share, or a new one. `None`
    /// without a transport.
    pub(crate) fn link_writer(
        &self,
        node: Option<&str>,
        qos: &Qos,
    ) -> Result<Option<Arc<dyn LinkWriter>>, TopicError> {
        let Some(transport) = &self.core.transport else {
            return Ok(None);
        };
        let mut writers = (self.core.writers.lock()).unwrap_or_else(PoisonError::into_inner);
        writers.retain(|(_, _, writer)| writer.strong_count() > 0);
        let live = (writers.iter())
            .filter(|(of, with, _)| of.as_deref() == node && with == qos)
            .find_map(|(_, _, writer)| writer.upgrade());
        if let Some(live) = live {
            return Ok(Some(live));
        }
        let made = (transport.writer(node, &self.core.name, self.ros_type(), qos))
            .map_err(|error| self.link_error(error))?;
        writers.push((node.map(str::to_owned), *qos, Arc::downgrade(&made)));
        Ok(Some(made))
    }

    /// A reader of the context's transport for a new subscription of `node` with `qos`; `None`
    /// without a transport.
    pub(crate) fn link_reader(
        &self,
        node: Option<&str>,
        qos: &Qos,
    ) -> Result<Option<Box<dyn LinkReader>>, TopicError> {
        let Some(transport) = &self.core.transport else {
            return Ok(None);
        };
        (transport.reader(node, &self.core.name, self.ros_type(), qos))
            .map(Some)
            .map_err(|error| self.link_error(error))
    }

    fn link_error(&self, error: crate::transport::LinkError) -> TopicError {
        TopicError::Link {
            topic: self.core.name.clone(),
            error,
        }
    }

    /// A store of the last `capacity` samples of a new transient-local publisher, offered to
    /// the transient-local subscriptions created from now on.
    pub(crate) fn keep_for_late_joiners(&self, capacity: usize) -> Arc<Kept<T>> {
        let kept = Arc::new(Kept::new(capacity));
        let mut stores = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        // Bounded by the live publishers: a dead one's entry goes with the next one's.
        stores.retain(|store| store.strong_count() > 0);
        stores.push(Arc::downgrade(&kept));
        kept
    }

    /// Adds a subscription. A transient-local one first gets what the topic's transient-local
    /// publishers of `T` kept, oldest first by publish time, as if just published (their
    /// `SampleInfo` as sent; its own history bounds them). Done under the fan-out's lock, so
    /// that each sample comes once: kept before, or delivered after.
    pub(crate) fn subscribe(&self, inbox: Arc<Inbox<T>>, transient_local: bool) {
        let mut subscribers = self.subscribers.lock();
        if transient_local {
            self.replay_kept(&inbox);
        }
        subscribers.push(inbox);
    }

    /// Hands a new transient-local subscription the kept samples; the caller holds the
    /// fan-out's lock. Out of the data path: only subscription creation comes here.
    #[cold]
    fn replay_kept(&self, inbox: &Inbox<T>) {
        let mut samples = Vec::new();
        let stores = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        for store in stores.iter().filter_map(Weak::upgrade) {
            store.copy_into(&mut samples);
        }
        drop(stores);
        // Stable: one publisher's samples keep their sequence order on equal clock readings.
        samples.sort_by_key(|(_, info)| info.publish_time);
        for (msg, info) in samples {
            if self.core.delivery == LocalDelivery::Shared {
                inbox.deliver(msg, info);
                continue;
            }
            // Serialized delivery: the subscription gets the bytes it would have got then; a
            // message without a CDR form was counted by its publisher and reached no one.
            let bytes = match flat_payload(&msg) {
                Some(flat) => flat,
                None => match crate::cdr::to_vec(&*msg) {
                    Ok(bytes) => RemoteBytes::from(bytes),
                    Err(_) => continue,
                },
            };
            inbox.deliver_serialized(bytes, info);
        }
    }

    pub(crate) fn unsubscribe(&self, inbox: &Arc<Inbox<T>>) {
        let removed = {
            let mut subscribers = self.subscribers.lock();
            let at = subscribers.iter().position(|s| Arc::ptr_eq(s, inbox));
            at.map(|at| subscribers.remove(at))
        };
        // The inbox (and the samples it holds) is freed outside the lock.
        drop(removed);
    }

    /// Stamps a sample that goes to no subscription of this process (a flat message sent
    /// from its shared-memory slot), under the locks [`deliver`](Self::deliver) would take,
    /// so that the publisher's samples keep their sequence order.
    pub(crate) fn stamp_alone(&self, stamp: impl FnOnce() -> SampleInfo, order: &PiMutex<()>) {
        let _order = order.lock();
        let _subscribers = self.subscribers.lock();
        stamp();
    }

    /// Subscriptions of the topic in this process, of every Rust type.
    pub(crate) fn subscriber_count(&self) -> usize {
        (self.core.typed.load().iter())
            .filter_map(|t| t.fanout.upgrade())
            .map(|fanout| fanout.subscriber_count())
            .sum()
    }
}

impl<T: Message> Fanout for Topic<T> {
    fn deliver_serialized(&self, bytes: &RemoteBytes, info: SampleInfo) {
        for inbox in self.subscribers.lock().iter() {
            inbox.deliver_serialized(bytes.clone(), info);
        }
    }

    fn subscriber_count(&self) -> usize {
        self.subscribers.lock().len()
    }
}

impl<T> Drop for Topic<T> {
    fn drop(&mut self) {
        let core = &self.core;
        let editing = core.editing.lock().unwrap_or_else(PoisonError::into_inner);
        core.edit_typed(&editing, |typed| {
            typed.retain(|t| t.fanout.strong_count() > 0)
        });
    }
}
