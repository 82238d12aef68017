//! Publishers, message loans, and the deferred output of LET executors.

use std::any::Any;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::cdr::EncodeError;
use crate::clock::system_now;
use crate::flat::Flat;
use crate::lifecycle::GateSlot;
use crate::logging::Logger;
use crate::message::Message;
use crate::pi_mutex::PiMutex;
use crate::qos::{Durability, Qos};
use crate::sample::{PublisherId, SampleInfo};
use crate::transport::intra::Topic;
use crate::transport::kept::Kept;
use crate::transport::{LinkWriter, LoanedSlot};

/// How many published loans a publisher keeps for reuse: a message comes back to the pool
/// once every subscriber has released it.
const LOAN_POOL: usize = 4;

/// Publishes messages of type `T` on one topic.
///
/// Create one with [`Node::publisher`](crate::Node::publisher). Publishing is thread-safe and
/// never blocks on a subscriber: each subscription's history applies its own overflow policy.
///
/// # Examples
/// ```
/// use tacto::Context;
/// use tacto::msg::std_msgs::String as Text;
///
/// let ctx = Context::new();
/// let mut node = ctx.node("talker").unwrap();
/// let publisher = node.publisher::<Text>("chat").create().unwrap();
/// let sub = node.subscription::<Text>("chat").create().unwrap();
///
/// publisher.publish(Text { data: "hello".into() });
/// assert_eq!(sub.take().unwrap().data, "hello");
/// ```
pub struct Publisher<T: Message> {
    shared: Arc<PublisherShared<T>>,
}

pub(crate) struct PublisherShared<T> {
    topic: Arc<Topic<T>>,
    id: PublisherId,
    /// The last sequence number sent. Changed only under the lock of the fan-out that
    /// delivers the sample (see `Topic::deliver`), so that threads sharing a publisher deliver
    /// in sequence order: a gap always means a loss.
    sequence: AtomicU64,
    /// Orders this publisher's deliveries when a sample goes to several fan-outs (other Rust
    /// types of the topic), each under its own lock.
    order: PiMutex<()>,
    /// Messages that a serialized path could not encode (see [`Publisher::encode_errors`]).
    encode_errors: AtomicU64,
    /// The topic's link out of the process, if the context has a transport.
    link: Option<Arc<dyn LinkWriter>>,
    /// What a transient-local publisher keeps for late-joining subscriptions of this process.
    kept: Option<Arc<Kept<T>>>,
    /// Neither `link` nor `kept`: the plain path, one test on publish (see `send`).
    plain: bool,
    /// Messages encoded for and written to `link` (see [`Publisher::remote_writes`]).
    remote_writes: AtomicU64,
    /// Set by a LET executor: publications wait there until the period ends.
    outbox: OnceLock<Arc<Outbox>>,
    loans: PiMutex<LoanPool<T>>,
    /// The node's lifecycle gate, for a publisher of a node that is or may become managed.
    lifecycle: Option<LifecycleGate>,
}

/// A managed node's publisher sends only while the node is activating or active; what it is
/// given otherwise is dropped, counted, and said once per spell, as rclcpp's lifecycle
/// publisher says it.
struct LifecycleGate {
    slot: GateSlot,
    logger: Logger,
    /// One more than the activation count when the warning was last logged (0: never).
    warned: AtomicU64,
    drops: AtomicU64,
}

struct LoanPool<T> {
    slots: Vec<Arc<T>>,
    next: usize,
}

impl<T: Message> fmt::Debug for Publisher<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Publisher")
            .field("topic", &self.shared.topic.name())
            .field("type", &T::TYPE_NAME)
            .field("id", &self.shared.id)
            .finish()
    }
}

fn next_publisher_id() -> PublisherId {
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    let mut id = [0u8; 16];
    id[..4].copy_from_slice(&std::process::id().to_le_bytes());
    id[8..].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    PublisherId(id)
}

impl<T: Message> Publisher<T> {
    /// A publisher on `topic` with `qos`: transient local, it keeps its last
    /// `qos.history.capacity()` samples for subscriptions created later.
    pub(crate) fn new(
        topic: Arc<Topic<T>>,
        link: Option<Arc<dyn LinkWriter>>,
        qos: &Qos,
        lifecycle: Option<(GateSlot, Logger)>,
    ) -> Self {
        let capacity = qos.history.capacity();
        let kept = (qos.durability == Durability::TransientLocal && capacity > 0)
            .then(|| topic.keep_for_late_joiners(capacity));
        Publisher {
            shared: Arc::new(PublisherShared {
                topic,
                id: next_publisher_id(),
                sequence: AtomicU64::new(0),
                order: PiMutex::new(()),
                encode_errors: AtomicU64::new(0),
                plain: link.is_none() && kept.is_none(),
                link,
                kept,
                remote_writes: AtomicU64::new(0),
                outbox: OnceLock::new(),
                loans: PiMutex::new(LoanPool {
                    slots: Vec::new(),
                    next: 0,
                }),
                lifecycle: lifecycle.map(|(slot, logger)| LifecycleGate {
                    slot,
                    logger,
                    warned: AtomicU64::new(0),
                    drops: AtomicU64::new(0),
                }),
            }),
        }
    }

    /// Publishes `msg` to every subscription of the topic.
    #[inline]
    pub fn publish(&self, msg: T) {
        self.publish_shared(Arc::new(msg));
    }

    /// Publishes a message that is already shared, without copying it.
    #[inline]
    pub fn publish_shared(&self, msg: Arc<T>) {
        if !self.shared.may_send() {
            return;
        }
        match self.shared.outbox.get() {
            Some(outbox) => outbox.defer(self.shared.clone(), msg),
            None => self.shared.send(msg),
        }
    }

    /// Lends a message to fill in place, for messages too big to build twice.
    ///
    /// The loan holds either `T::default()` or a message this publisher published before and
    /// every subscriber has since released, reused as it is: write every field you publish.
    /// In steady state a publisher that publishes loans allocates nothing.
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    /// use tacto::msg::std_msgs::String as Text;
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("camera").unwrap();
    /// let publisher = node.publisher::<Text>("image").create().unwrap();
    /// let sub = node.subscription::<Text>("image").create().unwrap();
    ///
    /// let mut msg = publisher.loan();
    /// msg.data.clear();
    /// msg.data.push_str("frame 1");
    /// msg.publish();
    /// assert_eq!(sub.take().unwrap().data, "frame 1");
    /// ```
    pub fn loan(&self) -> Loan<'_, T>
    where
        T: Default,
    {
        let msg = self
            .reusable_loan()
            .unwrap_or_else(|| Arc::new(T::default()));
        Loan {
            publisher: self,
            msg,
        }
    }

    /// Lends a zeroed [`Flat`] message to fill in place: while a subscription of another
    /// process listens on a transport with slots of its own (shared memory), the transport's
    /// slot itself, which [`FlatLoan::publish`] sends as it is, with no copy and no encoding;
    /// subscriptions of this process then get one copy of it. Otherwise a message on the heap
    /// (never on the stack, however large), published as [`publish_shared`](Self::publish_shared)
    /// would.
    ///
    /// A loan not published returns its slot when dropped. A publisher that writes every
    /// byte it sends can skip the zeroing with [`loan_flat_reused`](Self::loan_flat_reused).
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    ///
    /// #[tacto::message("my_msgs/msg/Image", flat)]
    /// #[derive(Clone, Copy)]
    /// struct Image {
    ///     stamp_ns: i64,
    ///     #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    ///     pixels: [u8; 1 << 20],
    /// }
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("camera").unwrap();
    /// let publisher = node.publisher::<Image>("image").create().unwrap();
    /// let sub = node.subscription::<Image>("image").create().unwrap();
    ///
    /// let mut image = publisher.loan_flat();
    /// image.stamp_ns = 7;
    /// image.pixels[..3].copy_from_slice(b"rgb");
    /// image.publish();
    /// let sample = sub.take().unwrap();
    /// assert_eq!((sample.stamp_ns, &sample.pixels[..4]), (7, &b"rgb\0"[..]));
    /// ```
    pub fn loan_flat(&self) -> FlatLoan<'_, T>
    where
        T: Flat,
    {
        let mut loan = self.loan_flat_reused();
        bytemuck::bytes_of_mut(&mut *loan).fill(0);
        loan
    }

    /// [`loan_flat`](Self::loan_flat) without the zeroing, as [`loan`](Self::loan) reuses a
    /// message: the loan holds the bytes of a message this publisher sent before (in a
    /// shared-memory slot, or a heap message every subscriber has released), or zeros. Write
    /// every field you publish. For a camera driver that fills whole frames this saves
    /// writing each frame's memory twice (`tacto bench payload`'s `flat` path uses it).
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    ///
    /// #[tacto::message("my_msgs/msg/Frame", flat)]
    /// #[derive(Clone, Copy)]
    /// struct Frame {
    ///     #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    ///     pixels: [u8; 1 << 16],
    /// }
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("camera").unwrap();
    /// let publisher = node.publisher::<Frame>("frame").create().unwrap();
    /// let sub = node.subscription::<Frame>("frame").create().unwrap();
    ///
    /// for shade in [1, 2] {
    ///     let mut frame = publisher.loan_flat_reused();
    ///     frame.pixels.fill(shade); // every byte written
    ///     frame.publish();
    ///     assert!(sub.take().unwrap().pixels.iter().all(|&p| p == shade));
    /// }
    /// ```
    pub fn loan_flat_reused(&self) -> FlatLoan<'_, T>
    where
        T: Flat,
    {
        let slot = (self.shared.link.as_ref())
            .filter(|link| link.has_remote_readers())
            .and_then(|link| link.loan_flat(T::LAYOUT))
            // A slot that does not view as `T` (a transport breaking its promise of size and
            // alignment) is returned, and the heap used.
            .filter(|slot| bytemuck::try_from_bytes::<T>(slot.bytes()).is_ok());
        let place = match slot {
            Some(slot) => Place::Slot(slot),
            None => Place::Heap(
                self.reusable_loan()
                    .unwrap_or_else(|| bytemuck::zeroed_arc()),
            ),
        };
        FlatLoan {
            publisher: self,
            place,
        }
    }

    /// The topic's name.
    pub fn topic(&self) -> &str {
        self.shared.topic.name()
    }

    /// This publisher's id, as subscribers see it in [`SampleInfo::publisher`].
    pub fn id(&self) -> PublisherId {
        self.shared.id
    }

    /// Messages that had to be serialized and could not be, since creation: their type uses a
    /// serde construct without a CDR form (a map, an `Option`, ...), or the context's transport
    /// refused the bytes. Such a message reaches no subscription that needs it serialized.
    /// Always 0 for message types that come from `.msg` definitions on a healthy transport.
    pub fn encode_errors(&self) -> u64 {
        self.shared.encode_errors.load(Ordering::Relaxed)
    }

    /// Messages encoded and written to the context's transport since creation: only those
    /// published while a reader outside the process was matched. Always 0 without a
    /// transport.
    pub fn remote_writes(&self) -> u64 {
        self.shared.remote_writes.load(Ordering::Relaxed)
    }

    /// Messages not sent because this publisher's node is managed and was neither activating
    /// nor active (see [`Node::manage`](crate::Node::manage)). Always 0 for other nodes.
    pub fn inactive_drops(&self) -> u64 {
        (self.shared.lifecycle.as_ref()).map_or(0, |l| l.drops.load(Ordering::Relaxed))
    }

    /// Subscriptions found outside the process whose QoS cannot match this publisher's (e.g. a
    /// reliable one for a best-effort publisher), since creation: they receive nothing from
    /// it. Always 0 without a transport.
    pub fn incompatible_qos(&self) -> u64 {
        (self.shared.link.as_ref()).map_or(0, |link| link.incompatible_qos())
    }

    /// True if a subscription, in the process or out of it, would receive a sample now.
    pub(crate) fn is_heard(&self) -> bool {
        self.shared.topic.subscriber_count() > 0
            || (self.shared.link.as_ref()).is_some_and(|link| link.has_remote_readers())
    }

    /// The subscriptions a message published now would reach, as rclcpp's
    /// `Publisher::get_subscription_count()`: those of this context on the topic (every Rust
    /// type of its ROS type), and those of other processes its transport reaches (over DDS,
    /// the readers matched with this publisher's writer, rclpy's and other ROS 2 nodes'
    /// among them; over shared memory, the subscribers of other processes). A subscription of
    /// this process is counted once, here, never again by the transport. A remote one whose
    /// QoS cannot match this publisher's is not counted (see
    /// [`incompatible_qos`](Self::incompatible_qos)); one being discovered is counted once
    /// matched, a few milliseconds after it appears.
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    /// use tacto::msg::std_msgs::String as Text;
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("talker")?;
    /// let chatter = node.publisher::<Text>("chatter").create()?;
    /// assert_eq!(chatter.subscription_count(), 0);
    /// let listener = node.subscription::<Text>("chatter").create()?;
    /// assert_eq!(chatter.subscription_count(), 1);
    /// drop(listener);
    /// assert_eq!(chatter.subscription_count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subscription_count(&self) -> usize {
        let remote = (self.shared.link.as_ref()).map_or(0, |link| link.subscription_count());
        self.shared.topic.subscriber_count() + remote
    }

    pub(crate) fn output(&self) -> Arc<dyn Output> {
        self.shared.clone()
    }

    /// A published loan that every subscriber has released, taken out of the pool.
    fn reusable_loan(&self) -> Option<Arc<T>> {
        let mut pool = self.shared.loans.lock();
        let found = pool.slots.iter().position(|m| Arc::strong_count(m) == 1);
        found.map(|i| pool.slots.swap_remove(i))
    }

    fn publish_loan(&self, msg: Arc<T>) {
        {
            let mut pool = self.shared.loans.lock();
            if pool.slots.len() < LOAN_POOL {
                pool.slots.push(msg.clone());
            } else {
                let slot = pool.next % LOAN_POOL;
                pool.slots[slot] = msg.clone();
                pool.next = slot + 1;
            }
        }
        self.publish_shared(msg);
    }
}

impl<T: Message> PublisherShared<T> {
    /// Whether a message may go out now: always, but from a managed node that is not active
    /// (then it is counted and, once per spell, logged with rclcpp's text).
    #[inline]
    fn may_send(&self) -> bool {
        let Some(lifecycle) = &self.lifecycle else {
            return true;
        };
        let Some(gate) = lifecycle.slot.get() else {
            return true;
        };
        if gate.publishes() {
            return true;
        }
        lifecycle.drops.fetch_add(1, Ordering::Relaxed);
        let spell = gate.activations() + 1;
        if lifecycle.warned.swap(spell, Ordering::Relaxed) != spell {
            crate::warn!(
                lifecycle.logger,
                "Trying to publish message on the topic '{}', but the publisher is not activated",
                self.topic.name()
            );
        }
        false
    }

    /// The next sample's facts; called under the lock of the fan-out that delivers it.
    #[inline(always)]
    fn stamp(&self) -> SampleInfo {
        // Under the fan-out's lock: a plain load and store is enough.
        let sequence = self.sequence.load(Ordering::Relaxed) + 1;
        self.sequence.store(sequence, Ordering::Relaxed);
        // Intra-process delivery is immediate: one clock read stamps both ends.
        let now = system_now();
        SampleInfo {
            publish_time: now,
            receive_time: now,
            publisher: self.id,
            sequence,
        }
    }

    #[inline(always)]
    fn send(&self, msg: Arc<T>) {
        let delivered = match self.plain {
            true => self.topic.deliver(msg, || self.stamp(), &self.order),
            false => self.send_linked(msg),
        };
        if delivered.is_err() {
            self.encode_errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// [`send`](Self::send) for a publisher with a link out of the process or a store for
    /// late joiners: if a reader outside listens, the link gets the message too, and the
    /// store keeps it, both under the fan-out's lock with the sample's facts, so that they
    /// see this publisher's samples in sequence order. Out of line: a volatile publisher of a
    /// context without a transport never comes here.
    #[inline(never)]
    fn send_linked(&self, msg: Arc<T>) -> Result<(), EncodeError> {
        let link = (self.link.as_deref()).filter(|link| link.has_remote_readers());
        if link.is_none() && self.kept.is_none() {
            return self.topic.deliver(msg, || self.stamp(), &self.order);
        }
        let message = msg.clone();
        let mut evicted = None;
        let stamp = || {
            let info = self.stamp();
            if let Some(link) = link {
                let written = match (T::FLAT_LAYOUT, message.flat_bytes()) {
                    (Some(layout), Some(bytes)) => link.write_flat(&*message, bytes, layout, &info),
                    _ => link.write_message(&*message, &info),
                };
                let counter = match written {
                    Ok(()) => &self.remote_writes,
                    Err(_) => &self.encode_errors,
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            if let Some(kept) = &self.kept {
                evicted = kept.keep(message, info);
            }
            info
        };
        let delivered = self.topic.deliver(msg, stamp, &self.order);
        // Freed here, after the fan-out's lock.
        drop(evicted);
        delivered
    }
}

/// A message lent by [`Publisher::loan`]; dereferences to the message for filling it in.
#[must_use = "a loan publishes nothing until `publish` is called"]
pub struct Loan<'a, T: Message> {
    publisher: &'a Publisher<T>,
    msg: Arc<T>,
}

impl<T: Message> Loan<'_, T> {
    /// Publishes the filled-in message.
    pub fn publish(self) {
        self.publisher.publish_loan(self.msg);
    }
}

impl<T: Message> Deref for Loan<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.msg
    }
}

impl<T: Message> DerefMut for Loan<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // A loan is created with the only reference (fresh, or strong count 1 in the pool),
        // and the pool reference was removed when it was lent.
        Arc::get_mut(&mut self.msg).expect("a loaned message has no other owner")
    }
}

impl<T: Message + fmt::Debug> fmt::Debug for Loan<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loan").field("msg", &self.msg).finish()
    }
}

/// A [`Flat`] message lent by [`Publisher::loan_flat`] (zeroed) or
/// [`Publisher::loan_flat_reused`]: a transport's slot or a heap value; dereferences to the
/// message for filling it in.
#[must_use = "a loan publishes nothing until `publish` is called"]
pub struct FlatLoan<'a, T: Flat> {
    publisher: &'a Publisher<T>,
    place: Place<T>,
}

enum Place<T> {
    Slot(Box<dyn LoanedSlot>),
    Heap(Arc<T>),
}

impl<T: Flat> FlatLoan<'_, T> {
    /// True if the message is being written straight into a transport's slot.
    pub fn is_in_place(&self) -> bool {
        matches!(self.place, Place::Slot(_))
    }

    /// Publishes the filled-in message.
    ///
    /// A slot goes to the transport as it is; subscriptions of this process get a copy (on the
    /// heap), made only if there are any. A LET executor's deferral does not apply to a slot:
    /// it is sent now (it cannot wait in the outbox without holding shared memory).
    pub fn publish(self) {
        let publisher = self.publisher;
        match self.place {
            Place::Heap(msg) => publisher.publish_loan(msg),
            Place::Slot(slot) if publisher.shared.may_send() => publisher.shared.send_slot(slot),
            // Returned to the transport unsent.
            Place::Slot(_) => {}
        }
    }
}

impl<T: Flat> Deref for FlatLoan<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.place {
            // Checked to view as `T` when lent; its bytes keep their place and length.
            Place::Slot(slot) => bytemuck::from_bytes(slot.bytes()),
            Place::Heap(msg) => msg,
        }
    }
}

impl<T: Flat> DerefMut for FlatLoan<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.place {
            Place::Slot(slot) => bytemuck::from_bytes_mut(slot.bytes_mut()),
            // Made here with the only reference.
            Place::Heap(msg) => Arc::get_mut(msg).expect("a loaned message has no other owner"),
        }
    }
}

impl<T: Flat> fmt::Debug for FlatLoan<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatLoan")
            .field("type", &T::TYPE_NAME)
            .field("in_place", &self.is_in_place())
            .finish()
    }
}

impl<T: Flat> PublisherShared<T> {
    /// Sends a loaned slot through the link under the fan-out's lock, as `send_linked` writes,
    /// and a copy to the subscriptions of this process, if any.
    fn send_slot(&self, slot: Box<dyn LoanedSlot>) {
        // A transient-local publisher keeps the copy for late joiners too.
        let local = (self.topic.subscriber_count() > 0 || self.kept.is_some()).then(|| {
            // Copied on the heap, not through the stack: the message may be megabytes.
            let mut msg = bytemuck::zeroed_arc::<T>();
            if let Some(copy) = Arc::get_mut(&mut msg) {
                bytemuck::bytes_of_mut(copy).copy_from_slice(slot.bytes());
            }
            msg
        });
        let mut slot = Some(slot);
        let kept = (self.kept.as_ref()).zip(local.clone());
        let mut evicted = None;
        let stamp = || {
            let info = self.stamp();
            let sent = slot.take().map(|slot| slot.send(&info));
            let counter = match sent {
                Some(Err(_)) => &self.encode_errors,
                _ => &self.remote_writes,
            };
            counter.fetch_add(1, Ordering::Relaxed);
            if let Some((kept, msg)) = kept {
                evicted = kept.keep(msg, info);
            }
            info
        };
        let delivered = match local {
            Some(msg) => self.topic.deliver(msg, stamp, &self.order),
            None => {
                self.topic.stamp_alone(stamp, &self.order);
                Ok(())
            }
        };
        // Freed here, after the fan-out's lock.
        drop(evicted);
        if delivered.is_err() {
            self.encode_errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// What executors need of a publisher, whatever its message type.
pub(crate) trait Output: Send + Sync {
    /// Routes later publications to `outbox`; false if another executor already does.
    fn defer_to(&self, outbox: Arc<Outbox>) -> bool;
    /// Sends a message that an outbox held back.
    fn send_any(&self, msg: Arc<dyn Any + Send + Sync>);
}

impl<T: Message> Output for PublisherShared<T> {
    fn defer_to(&self, outbox: Arc<Outbox>) -> bool {
        self.outbox.set(outbox).is_ok()
    }

    fn send_any(&self, msg: Arc<dyn Any + Send + Sync>) {
        // An outbox only ever holds what `publish_shared` put there for this publisher.
        if let Ok(msg) = msg.downcast::<T>() {
            self.send(msg);
        }
    }
}

pub(crate) type Deferred = (Arc<dyn Output>, Arc<dyn Any + Send + Sync>);

/// Publications held back until a LET period ends, in publication order.
///
/// Bounded: past `capacity` per period, further publications are dropped and counted
/// (an overrun node must not grow memory without limit).
pub(crate) struct Outbox {
    pending: PiMutex<Vec<Deferred>>,
    capacity: usize,
    dropped: AtomicU64,
}

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox")
            .field("capacity", &self.capacity)
            .field("dropped", &self.dropped)
            .finish_non_exhaustive()
    }
}

impl Outbox {
    pub(crate) fn new(capacity: usize) -> Self {
        Outbox {
            // Grows to the busiest period's size, then is reused: a capacity far above the
            // real load costs nothing.
            pending: PiMutex::new(Vec::new()),
            capacity,
            dropped: AtomicU64::new(0),
        }
    }

    fn defer<T: Message>(&self, publisher: Arc<PublisherShared<T>>, msg: Arc<T>) {
        let mut pending = self.pending.lock();
        if pending.len() < self.capacity {
            pending.push((publisher, msg));
        } else {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Sends everything held back, in publication order, into `scratch`'s reused buffer.
    pub(crate) fn flush(&self, scratch: &mut Vec<Deferred>) {
        std::mem::swap(&mut *self.pending.lock(), scratch);
        for (publisher, msg) in scratch.drain(..) {
            publisher.send_any(msg);
        }
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}
