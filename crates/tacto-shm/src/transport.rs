//! The shared-memory transport of a tacto [`Context`](tacto::Context): a topic with a
//! subscriber in another process of this host is served through iceoryx2, encoded once,
//! straight into the loaned slot; each subscription gets a subscriber port whose samples join
//! its history, and, if a trigger names it, a listener whose fd is in the executor's epoll set.

use std::collections::VecDeque;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use tacto::cdr::Encodable;
use tacto::transport::{
    ClientLink, LinkError, LinkReader, LinkWriter, LoanedSlot, ReadOp, RemoteBytes,
    RemotePublishers, RemoteSample, RosType, ServiceLink, Transport,
};
use tacto::{Durability, FlatLayout, History, PublisherId, Qos, SampleInfo};

use crate::client::ShmClientLink;
use crate::late_joiners::LateJoiners;
use crate::limits::ShmLimits;
use crate::node::{NodeError, ShmNode, ShmNodeBuilder};
use crate::publisher::{Filled, Port, PublishError, copy_into};
use crate::service::ShmServiceLink;
use crate::subscriber::{Inlet, Slot};
use crate::wake_up::WakeUp;

/// Carries a tacto context's topics between the processes of one host through iceoryx2
/// shared memory (docs/shm.md).
///
/// - A publication is written to shared memory only while a subscriber of another process
///   exists on the topic ([`LinkWriter::has_remote_readers`]); it is then encoded once, into
///   the slot it is sent in. Subscriptions of the same process keep the `Arc` path and never
///   see their own process's samples twice.
/// - Each subscription has a subscriber port of its own, buffering up to its
///   `KeepLast(n)` (at most [`ShmLimits::depth`]); its samples wait there until the node reads, in a
///   cache with DDS sample states bounded by the subscription's history. Samples lost to
///   either bound count in [`Subscription::dropped`](tacto::Subscription::dropped).
/// - A received sample stays in its shared-memory slot, which the subscription decodes in
///   place, once, when it reads it; the slot goes back to its publisher when the sample leaves
///   the cache (taken, or evicted by the history). A subscription holds at most [`ShmLimits::held`]
///   slots at once (its cache's samples, and those a LET freeze or `window` moved into its
///   history): beyond, an arriving sample is copied out of its slot instead, so that a deep
///   or slowly read history never stalls the port. The publisher never waits on either.
/// - Only a subscription named in a trigger has a listener, whose fd the executor watches:
///   a polling-only subscription wakes nothing.
/// - `SampleInfo` comes from the sample's header: publish time, the tacto publisher's id and
///   its sequence number, as in the publishing process.
/// - A [`Flat`](tacto::Flat) message travels as its own bytes, not CDR: copied once into the
///   slot, or written there by the publisher through
///   [`Publisher::loan_flat`](tacto::Publisher::loan_flat); a subscription of the same layout
///   reads it in the slot, without decoding.
///
/// # Examples
/// ```
/// use tacto::Context;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto_shm::ShmTransport;
///
/// let ctx = Context::builder().transport(ShmTransport::new("doc_transport")?).create();
/// let mut node = ctx.node("talker")?;
/// // Unique per process, so that parallel runs never share it.
/// let topic = format!("/doc_transport_{}", std::process::id());
/// let chatter = node.publisher::<Text>(&topic).create()?;
/// let local = node.subscription::<Text>(&topic).create()?;
/// chatter.publish(Text { data: "hello".into() });
/// assert_eq!(local.take().unwrap().data, "hello"); // the Arc path
/// assert_eq!(chatter.remote_writes(), 0); // no other process listens: nothing encoded
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ShmTransport {
    node: ShmNode,
    /// Serves subscribers that join its idle transient-local publishers.
    late_joiners: Arc<LateJoiners>,
}

impl ShmTransport {
    /// A transport on this process's iceoryx2 node named `name` (see [`ShmNode::create`]),
    /// with the default [`ShmLimits`].
    pub fn new(name: &str) -> Result<Arc<ShmTransport>, NodeError> {
        ShmTransport::builder(name).create()
    }

    /// A transport on this process's iceoryx2 node named `name`, to configure.
    pub fn builder(name: &str) -> ShmTransportBuilder {
        ShmTransportBuilder {
            node: ShmNode::builder(name),
        }
    }

    /// The process's iceoryx2 node.
    pub fn node(&self) -> &ShmNode {
        &self.node
    }
}

/// Configures a [`ShmTransport`]; from [`ShmTransport::builder`].
///
/// # Examples
/// A topic with 16 subscriptions on this host, all processes together:
/// ```
/// use tacto::Context;
/// use tacto_shm::{ShmLimits, ShmTransport};
///
/// let limits = ShmLimits {
///     subscribers: 16,
///     ..ShmLimits::default()
/// };
/// let transport = ShmTransport::builder("doc_transport_builder").limits(limits).create()?;
/// assert_eq!(transport.node().limits(), limits);
/// let ctx = Context::builder().transport(transport).create();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ShmTransportBuilder {
    node: ShmNodeBuilder,
}

impl ShmTransportBuilder {
    /// The limits of the topics this process creates in shared memory, and what it asks of
    /// those it opens (see [`ShmLimits`]: the creator's win, so give every process the same).
    pub fn limits(mut self, limits: ShmLimits) -> Self {
        self.node = self.node.limits(limits);
        self
    }

    /// Creates the process's iceoryx2 node and the transport on it.
    pub fn create(self) -> Result<Arc<ShmTransport>, NodeError> {
        Ok(Arc::new(ShmTransport {
            node: self.node.create()?,
            late_joiners: Arc::default(),
        }))
    }
}

fn link_error(error: impl std::fmt::Display) -> LinkError {
    LinkError(error.to_string())
}

impl Transport for ShmTransport {
    fn writer(
        &self,
        _node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Arc<dyn LinkWriter>, LinkError> {
        let transient_local = qos.durability == Durability::TransientLocal;
        let depth = transient_local.then(|| qos.history.capacity());
        let port = Port::open(&self.node, topic, ros_type.name, None, depth).map_err(link_error)?;
        let port = Arc::new(port);
        if transient_local {
            self.late_joiners.watch(&port).map_err(link_error)?;
        }
        Ok(Arc::new(ShmLinkWriter {
            port,
            transient_local,
        }))
    }

    fn reader(
        &self,
        _node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Box<dyn LinkReader>, LinkError> {
        let limits = self.node.limits();
        let depth = qos.history.capacity().clamp(1, limits.depth);
        let transient_local = qos.durability == Durability::TransientLocal;
        let inlet = Inlet::open(&self.node, topic, ros_type.name, depth, transient_local)
            .map_err(link_error)?;
        Ok(Box::new(ShmLinkReader {
            inlet,
            limits,
            history: qos.history,
            cache: Mutex::default(),
            held: Arc::default(),
            wake: OnceLock::new(),
        }))
    }

    /// A server port of the service's `rq/<service>` request-response service (see
    /// docs/services.md, "Over shared memory"), woken through its fd when a trigger names it.
    fn service(
        &self,
        _node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
    ) -> Result<Option<Box<dyn ServiceLink>>, LinkError> {
        let link = ShmServiceLink::new(&self.node, service, request_type.name, response_type.name)
            .map_err(link_error)?;
        Ok(Some(Box::new(link)))
    }

    /// A client port of the service; its responses reach `deliver` on the process's response
    /// thread.
    fn client(
        &self,
        _node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
        deliver: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
    ) -> Result<Option<Box<dyn ClientLink>>, LinkError> {
        let link = ShmClientLink::new(
            &self.node,
            service,
            request_type.name,
            response_type.name,
            deliver,
        )?;
        Ok(Some(Box::new(link)))
    }

    /// No: every process of a host would open a publisher of the same few topics (the stats,
    /// `/parameter_events`, `/rosout`), and a topic takes [`ShmLimits::publishers`] at most;
    /// ROS 2's tools and `tacto top` read them over DDS.
    fn carries_graph_topics(&self) -> bool {
        false
    }
}

/// A topic's publisher port, shared by the publishers of one node and QoS (and their loaned
/// slots); each sample carries its own tacto publisher's id and sequence number.
#[derive(Debug)]
struct ShmLinkWriter {
    port: Arc<Port>,
    /// Writes every sample, reader or not: the port's history keeps the last ones for
    /// subscribers that join later.
    transient_local: bool,
}

impl LinkWriter for ShmLinkWriter {
    fn has_remote_readers(&self) -> bool {
        self.transient_local || self.port.has_remote_subscribers()
    }

    /// The topic's subscriber ports in other processes, one per subscription.
    fn subscription_count(&self) -> usize {
        self.port.remote_subscribers()
    }

    fn write(&self, cdr: &[u8]) -> Result<(), LinkError> {
        // Raw bytes carry no facts of their own: stamped now, sequence 0 (no gap counting).
        let now = crate::publisher::now_ns();
        let id = self.port.id;
        self.port
            .send(now, 0, id, cdr.len(), None, |slot| Ok(copy_into(slot, cdr)))
            .map(drop)
            .map_err(link_error)
    }

    fn write_message(&self, message: &dyn Encodable, info: &SampleInfo) -> Result<(), LinkError> {
        let len = message.encoded_len().map_err(link_error)?;
        let publish_time = info.publish_time.as_nanos();
        self.port
            .send(
                publish_time,
                info.sequence,
                info.publisher,
                len,
                None,
                |slot| message.encode_to_slice(slot).map_err(PublishError::Encode),
            )
            .map(drop)
            .map_err(link_error)
    }

    /// The message's own bytes, copied once into the slot: no encoding.
    fn write_flat(
        &self,
        _message: &dyn Encodable,
        bytes: &[u8],
        layout: FlatLayout,
        info: &SampleInfo,
    ) -> Result<(), LinkError> {
        let publish_time = info.publish_time.as_nanos();
        self.port
            .send(
                publish_time,
                info.sequence,
                info.publisher,
                bytes.len(),
                Some(layout),
                |slot| Ok(copy_into(slot, bytes)),
            )
            .map(drop)
            .map_err(link_error)
    }

    /// A slot of the message's size, aligned for it (see `SampleHeader`), as its last sample
    /// left it; `None` if shared memory has none to lend now, and the publisher uses the heap.
    fn loan_flat(&self, layout: FlatLayout) -> Option<Box<dyn LoanedSlot>> {
        let len = usize::try_from(layout.size).ok()?;
        let sample = self.port.loan_as_left(len).ok()?;
        Some(Box::new(ShmSlot {
            sample,
            layout,
            port: self.port.clone(),
        }))
    }

    fn incompatible_qos(&self) -> u64 {
        0
    }
}

/// A slot lent for a flat message written in place.
struct ShmSlot {
    sample: Filled,
    layout: FlatLayout,
    port: Arc<Port>,
}

impl LoanedSlot for ShmSlot {
    fn bytes(&self) -> &[u8] {
        self.sample.payload()
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        self.sample.payload_mut()
    }

    fn send(self: Box<Self>, info: &SampleInfo) -> Result<(), LinkError> {
        let ShmSlot {
            sample,
            layout,
            port,
        } = *self;
        let publish_time = info.publish_time.as_nanos();
        port.send_filled(
            sample,
            publish_time,
            info.sequence,
            info.publisher,
            Some(layout),
        )
        .map(drop)
        .map_err(link_error)
    }
}

/// One subscription's port and the cache its samples wait in, with sample states.
#[derive(Debug)]
struct ShmLinkReader {
    inlet: Inlet,
    /// The node's: `depth` samples moved per call, `held` slots held at most.
    limits: ShmLimits,
    /// The subscription's history: the cache's bound and overflow policy.
    history: History,
    cache: Mutex<Cache>,
    /// Slots held in place now, by the cache or by samples taken from it and not yet dropped
    /// (at most [`ShmLimits::held`]).
    held: Arc<AtomicUsize>,
    /// The listener, made when a trigger names the subscription.
    wake: OnceLock<WakeUp>,
}

#[derive(Debug, Default)]
struct Cache {
    /// Oldest first.
    samples: VecDeque<Cached>,
    /// Samples the history policy evicted unread or refused.
    dropped: u64,
}

/// A sample in the cache, with its READ state, and whether a wake-up announced it.
///
/// Any operation moves what waits in the port into the cache (a trigger's check of its rule
/// too), so a sample may be moved before its notification is drained; the drain that follows
/// moves nothing then. It counts the samples no drain announced yet, still unread, instead:
/// else such a sample would sit unread with no run to take it.
#[derive(Debug)]
struct Cached {
    sample: RemoteSample,
    /// A transient-local publisher's kept sample, handed to this late joiner when it
    /// connected.
    kept: bool,
    read: bool,
    announced: bool,
}

impl Cache {
    /// Makes room for one more kept sample of `publisher`, a transient-local publisher of
    /// `depth`: its port hands a late joiner up to the service's history, this publisher kept
    /// only its last `depth` (DDS). Its kept samples arrive together, oldest first, so the
    /// oldest cached one goes; not a loss. One still being handed over while the
    /// subscription takes may be kept beyond `depth`.
    fn keep_last_kept(&mut self, publisher: PublisherId, depth: usize) {
        let mut kept = (self.samples.iter().enumerate())
            .filter(|(_, c)| c.kept && c.sample.info.publisher == publisher);
        let oldest = kept.next().map(|(at, _)| at);
        if let Some(at) = oldest.filter(|_| kept.count() + 1 >= depth) {
            self.samples.remove(at);
        }
    }
}

impl ShmLinkReader {
    /// The cache, with what waits in the port moved into it first (a bounded number: a
    /// publisher that keeps sending cannot keep a reader here).
    fn cache(&self) -> MutexGuard<'_, Cache> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        self.pull(&mut cache);
        cache
    }

    /// Moves the port's samples into the cache; returns how many it stored.
    ///
    /// The history's policy is applied before a sample is kept, so that the slot an eviction
    /// frees can hold the arrival: a `KeepLast(n)` cache (`n` up to [`ShmLimits::held`]) that is read
    /// without taking keeps all its samples in place.
    fn pull(&self, cache: &mut Cache) -> usize {
        let mut stored = 0;
        for _ in 0..self.limits.depth {
            // A failed receive reads as "nothing there", as for the DDS cache; the next
            // operation tries again.
            let Ok(Some((slot, info, kept_by))) = self.inlet.receive() else {
                break;
            };
            if let Some(depth) = kept_by {
                cache.keep_last_kept(info.publisher, depth);
            }
            match self.history {
                History::KeepAll { max } if cache.samples.len() >= max => {
                    // Refused: its slot goes back at once.
                    cache.dropped += 1;
                    continue;
                }
                History::KeepAll { .. } => {}
                History::KeepLast(n) => {
                    while cache.samples.len() >= n {
                        let Some(evicted) = cache.samples.pop_front() else {
                            break;
                        };
                        cache.dropped += u64::from(!evicted.read);
                    }
                }
            }
            let flat = slot.user_header().flat_layout();
            let bytes = match HeldSlot::hold(slot, &self.held, self.limits.held) {
                Ok(held) => RemoteBytes::new(held),
                // Every slot the link may hold is held (deep histories, samples a LET freeze
                // moved into the local history): a copy, and the slot back to its publisher.
                Err(slot) => slot.payload().to_vec().into(),
            };
            // A flat message's own bytes: read in place by a subscription of its layout.
            let cdr = match flat {
                Some(layout) => RemoteBytes::flat(layout, bytes),
                None => bytes,
            };
            cache.samples.push_back(Cached {
                sample: RemoteSample { cdr, info },
                kept: kept_by.is_some(),
                read: false,
                announced: false,
            });
            stored += 1;
        }
        stored
    }
}

/// A received sample kept in its slot: the bytes a [`RemoteBytes`] reads in place until its
/// last clone is dropped, which returns the slot to its publisher.
///
/// The slot stays readable if its publisher dies meanwhile: iceoryx2 keeps a connection with
/// borrowed samples (and so the publisher's segment mapped) until they are returned.
struct HeldSlot {
    // Before `_count`: the slot is returned before the count says so.
    slot: Slot,
    _count: HeldCount,
}

impl HeldSlot {
    /// `slot` held, counted in `held`; or `slot` back if the link holds `max` already.
    fn hold(slot: Slot, held: &Arc<AtomicUsize>, max: usize) -> Result<HeldSlot, Slot> {
        // Only `pull` adds, under the cache's lock; drops only subtract.
        if held.load(Ordering::Acquire) >= max {
            return Err(slot);
        }
        held.fetch_add(1, Ordering::AcqRel);
        Ok(HeldSlot {
            slot,
            _count: HeldCount(held.clone()),
        })
    }
}

// SAFETY: iceoryx2's `Sample` is `Send` on the thread-safe service kind (`Ipc`) but not
// `Sync`. A shared `&HeldSlot` only calls `Sample::payload`, which on that service kind locks
// the subscriber's state through a mutex and then reads the slot, which no one writes while it
// is borrowed (a publisher reuses a slot only once it was returned, when this is dropped).
unsafe impl Sync for HeldSlot {}

impl AsRef<[u8]> for HeldSlot {
    fn as_ref(&self) -> &[u8] {
        self.slot.payload()
    }
}

/// One slot a link holds, counted while it lives.
struct HeldCount(Arc<AtomicUsize>);

impl Drop for HeldCount {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl LinkReader for ShmLinkReader {
    fn next(&self, op: ReadOp) -> Option<RemoteSample> {
        let mut cache = self.cache();
        let samples = &mut cache.samples;
        match op {
            ReadOp::PeekNewest => samples.back().map(|c| c.sample.clone()),
            ReadOp::Latest => {
                samples.iter_mut().for_each(|c| c.read = true);
                samples.back().map(|c| c.sample.clone())
            }
            ReadOp::Take => samples.pop_front().map(|c| c.sample),
            ReadOp::TakeNew => {
                let at = samples.iter().position(|c| !c.read)?;
                samples.remove(at).map(|c| c.sample)
            }
            ReadOp::ReadNew => {
                let cached = samples.iter_mut().find(|c| !c.read)?;
                cached.read = true;
                Some(cached.sample.clone())
            }
        }
    }

    fn oldest_info(&self, new_only: bool) -> Option<SampleInfo> {
        let cache = self.cache();
        let mut candidates = cache.samples.iter().filter(|c| !new_only || !c.read);
        candidates.next().map(|c| c.sample.info)
    }

    fn unread(&self) -> usize {
        self.cache().samples.iter().filter(|c| !c.read).count()
    }

    fn len(&self) -> usize {
        self.cache().samples.len()
    }

    fn publishers(&self) -> Option<RemotePublishers> {
        let liveliness = self.inlet.publishers().ok()?;
        Some(RemotePublishers {
            alive: liveliness.alive,
            gone: liveliness.dead,
        })
    }

    fn incompatible_qos(&self) -> u64 {
        0
    }

    fn on_data(&self, _wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError> {
        Err(link_error(
            "a shared-memory reader wakes through its fd (LinkReader::wake_fd)",
        ))
    }

    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        if self.wake.get().is_none() {
            let wake_up = self.inlet.wake_up().map_err(link_error)?;
            // Two threads asking at once: one listener is kept, the other dropped.
            let _ = self.wake.set(wake_up);
        }
        Ok(self.wake.get().map(|wake| wake.as_fd()))
    }

    fn drain_wake(&self) -> usize {
        // Drained first, then the port read: a sample whose notification was drained here
        // was sent before, so it is in the cache now; a later one notifies again.
        if let Some(wake) = self.wake.get() {
            let _ = wake.drain();
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        self.pull(&mut cache);
        // What arrived since the last drain, moved by it or by any other operation (see
        // `Cached`), and not read yet: a sample already taken needs no run.
        let mut arrived = 0;
        for cached in cache.samples.iter_mut().filter(|c| !c.announced) {
            cached.announced = true;
            arrived += usize::from(!cached.read);
        }
        arrived
    }

    fn dropped(&self) -> u64 {
        let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache.dropped + self.inlet.stats().lost
    }
}
