//! The publishing side of a topic in shared memory: CDR bytes into a loaned slot, then a
//! wake-up for the subscribers that asked for one.

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::Mutex;

use iceoryx2::identifiers::{UniqueNodeId, UniqueSubscriberId};
use iceoryx2::prelude::CallbackProgression;

use iceoryx2::port::notifier::{Notifier, NotifierCreateError, NotifierNotifyError};
use iceoryx2::port::publisher::{Publisher, PublisherCreateError};
use iceoryx2::port::update_connections::{ConnectionFailure, UpdateConnections as _};
use iceoryx2::port::{LoanError, SendError};
use iceoryx2::prelude::{AllocationStrategy, PortFactory as _, PortName};
use iceoryx2::sample_mut::SampleMut;
use tacto::cdr::EncodeError;
use tacto::{FlatLayout, Message, PublisherId};

use crate::header::{CDR, FLAT, SampleHeader};
use crate::node::{Ipc, ShmNode};
use crate::topic::{DATA_EVENT, Topic, TopicError};

/// The slot size a publisher starts with; larger messages grow it (see [`ShmPublisher`]).
const INITIAL_SLOT: usize = 4096;

/// What starts the iceoryx2 port name of a transient-local publisher.
const TRANSIENT_LOCAL_PORT: &str = "transient_local_";

/// The iceoryx2 port name of a transient-local publisher of `depth`
/// (`transient_local_<depth>`): a transient-local subscriber keeps the history (samples
/// published before it joined) of these ports only, as DDS matches a transient-local reader
/// with transient-local writers only, and of each of their publishers the last `depth`.
/// iceoryx2 keeps every port's history (the service's `history_size`), volatile ones' too.
pub(crate) fn transient_local_port(depth: usize) -> String {
    format!("{TRANSIENT_LOCAL_PORT}{depth}")
}

/// The depth a port name made by [`transient_local_port`] holds; `None` for another name.
pub(crate) fn transient_local_depth(port: &str) -> Option<usize> {
    port.strip_prefix(TRANSIENT_LOCAL_PORT)?.parse().ok()
}

/// Why a publisher could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublisherError {
    /// The topic's services could not be opened.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// The topic has as many publishers on this host as it was created for.
    #[error(
        "topic {topic:?} already has its {limit} publishers on this host; raise \
         max_publishers in every process (ShmLimits::publishers; a launch file's [shm] table)"
    )]
    Full {
        /// The iceoryx2 service.
        topic: String,
        /// The topic's limit, set by the process that created it.
        limit: usize,
    },
    /// iceoryx2 refused the publisher port.
    #[error("cannot create a shared-memory publisher on {topic:?}: {source}")]
    Port {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: PublisherCreateError,
    },
    /// iceoryx2 refused the notifier port.
    #[error("cannot create a shared-memory notifier on {topic:?}: {source}")]
    Notifier {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: NotifierCreateError,
    },
}

/// Why a sample was not published.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The message could not be encoded as CDR.
    #[error("cannot encode the message as CDR: {0}")]
    Encode(#[from] EncodeError),
    /// The payload lacks the 4-byte CDR encapsulation header.
    #[error("a CDR payload starts with a 4-byte encapsulation header; got {len} bytes")]
    MissingHeader {
        /// The payload's length.
        len: usize,
    },
    /// No slot of that size could be loaned: shared memory is exhausted (`OutOfMemory`) or
    /// every slot is held by slow readers (`ExceedsMaxLoans`).
    #[error("cannot loan a {len}-byte shared-memory slot: {source}")]
    Loan {
        /// The payload's length.
        len: usize,
        /// iceoryx2's reason.
        source: LoanError,
    },
    /// The sample could not be handed to the subscribers.
    #[error("cannot deliver the sample: {0}")]
    Send(SendError),
    /// The encoder wrote another length than it announced (a `Serialize` implementation that
    /// encodes differently each time); nothing was sent.
    #[error("the encoding took {written} bytes of the {len} announced")]
    Length {
        /// The length announced.
        len: usize,
        /// The length written.
        written: usize,
    },
    /// The sample was delivered, but waking the listeners failed.
    #[error("sample delivered, but the wake-up failed: {0}")]
    Notify(NotifierNotifyError),
}

/// What one publish reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// Subscriber ports (in any process, this one included) the sample was queued for.
    pub subscribers: usize,
    /// Listeners woken: subscribers that asked for wake-ups. Zero when none did, in which case
    /// no notification was sent at all.
    pub woken: usize,
}

/// Configures a [`ShmPublisher`]; from [`ShmNode::publisher`].
#[derive(Debug)]
#[must_use]
pub struct PublisherBuilder<'a, T> {
    node: &'a ShmNode,
    topic: String,
    id: Option<PublisherId>,
    _message: PhantomData<fn(&T)>,
}

impl<'a, T: Message> PublisherBuilder<'a, T> {
    pub(crate) fn new(node: &'a ShmNode, topic: &str) -> Self {
        PublisherBuilder {
            node,
            topic: topic.to_owned(),
            id: None,
            _message: PhantomData,
        }
    }

    /// The id subscribers see in `SampleInfo::publisher`: the tacto publisher's own, so that
    /// a sample has one publisher id on every transport. Without it, the iceoryx2 port's
    /// unique id is used.
    pub fn id(mut self, id: PublisherId) -> Self {
        self.id = Some(id);
        self
    }

    /// Opens the topic (creating it if needed) and the publisher and notifier ports.
    pub fn create(self) -> Result<ShmPublisher<T>, PublisherError> {
        let port = Port::open(self.node, &self.topic, T::TYPE_NAME, self.id, None)?;
        Ok(ShmPublisher {
            sequence: Mutex::new(0),
            port,
            _message: PhantomData,
        })
    }
}

/// Publishes messages of type `T` on one topic through shared memory.
///
/// Each sample is CDR (as on the DDS wire) in a slot loaned from the publisher's
/// shared-memory segment, with a [user header](crate) carrying publish time, publisher id,
/// sequence number and process id. Subscribers read it in place.
///
/// **Slot size.** The publisher starts with 4 KiB slots and grows: a larger message makes
/// iceoryx2 allocate a new segment whose slots are the next power of two at least as large
/// (`AllocationStrategy::PowerOfTwo`); the old segment is released once its samples are
/// returned. There is no configured maximum: a message larger than shared memory can hold
/// fails with [`PublishError::Loan`].
///
/// **Copies.** [`publish`](Self::publish) measures the encoding
/// ([`tacto::cdr::encoded_len`]), loans a slot of exactly that size and encodes into it: one
/// pass over the payload. [`publish_cdr`](Self::publish_cdr) copies given bytes once.
///
/// Thread-safe: publishes are serialized, so sequence numbers follow the order of sending.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
/// use tacto_shm::ShmNode;
///
/// let node = ShmNode::create("doc_publisher")?;
/// // Unique per process, so that parallel runs never share it.
/// let topic = format!("/doc_publisher_{}", std::process::id());
/// let publisher = node.publisher::<Text>(&topic).create()?;
/// // Nobody listens yet: the sample goes nowhere, nobody is woken.
/// let delivery = publisher.publish(&Text { data: "hello".into() })?;
/// assert_eq!((delivery.subscribers, delivery.woken), (0, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ShmPublisher<T> {
    /// The last sequence number sent; held for a whole publish, so sequence numbers follow
    /// the order of sending.
    sequence: Mutex<u64>,
    port: Port,
    _message: PhantomData<fn(&T)>,
}

impl<T: Message> ShmPublisher<T> {
    /// Encodes `message` as CDR straight into a loaned slot of its exact size and publishes
    /// it: one pass over the payload.
    pub fn publish(&self, message: &T) -> Result<Delivery, PublishError> {
        let len = tacto::cdr::encoded_len(message)?;
        let mut sequence = self.lock();
        let delivery =
            self.port
                .send(now_ns(), *sequence + 1, self.port.id, len, None, |slot| {
                    tacto::cdr::encode_to_slice(message, slot).map_err(PublishError::Encode)
                })?;
        *sequence += 1;
        Ok(delivery)
    }

    /// Publishes a CDR payload as it goes on the wire: encapsulation header, then the body.
    /// Subscribers decode it as `T`; bytes that do not decode are counted there as malformed.
    pub fn publish_cdr(&self, payload: &[u8]) -> Result<Delivery, PublishError> {
        if payload.len() < 4 {
            return Err(PublishError::MissingHeader { len: payload.len() });
        }
        let mut sequence = self.lock();
        let delivery = self.port.send(
            now_ns(),
            *sequence + 1,
            self.port.id,
            payload.len(),
            None,
            |slot| Ok(copy_into(slot, payload)),
        )?;
        *sequence += 1;
        Ok(delivery)
    }

    /// The id subscribers see for this publisher.
    pub fn id(&self) -> PublisherId {
        self.port.id
    }

    /// The iceoryx2 service name (`rt/chatter`).
    pub fn service_name(&self) -> &str {
        &self.port.topic.name
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, u64> {
        // A panic while holding the lock (in a user's `Serialize`) leaves a consistent state:
        // the sequence only moves after a successful send.
        self.sequence.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The ports of one publisher, whatever its message type: what [`ShmPublisher`] and the
/// transport's link writer share.
#[derive(Debug)]
pub(crate) struct Port {
    pub(crate) id: PublisherId,
    /// When the port was created (Unix ns), taken just before.
    created_ns: i64,
    process_id: u32,
    /// This process's iceoryx2 node: its subscribers are not "remote".
    node_id: UniqueNodeId,
    // Ports before the topic: iceoryx2 ports hold their service alive themselves, but drop
    // order keeps the intent visible.
    port: Publisher<Ipc, [u8], SampleHeader>,
    notifier: Notifier<Ipc>,
    pub(crate) topic: Topic,
}

impl Port {
    /// Opens topic `topic` of ROS type `type_name` and the ports; `id` as in
    /// [`PublisherBuilder::id`]; `transient_local`: the depth of a transient-local
    /// publisher, whose port is named by [`transient_local_port`], so that transient-local
    /// subscribers keep its history.
    pub(crate) fn open(
        node: &ShmNode,
        topic: &str,
        type_name: &str,
        id: Option<PublisherId>,
        transient_local: Option<usize>,
    ) -> Result<Port, PublisherError> {
        let topic = Topic::open(node, topic, type_name)?;
        // Taken before the port exists: see `SampleHeader::publisher_created_ns`.
        let created_ns = now_ns();
        let builder = topic.data.publisher_builder();
        let builder = match transient_local {
            // At most 36 bytes, under iceoryx2's 64: always a valid name.
            Some(depth) => match PortName::new(&transient_local_port(depth)) {
                Ok(name) => builder.name(&name),
                Err(_) => builder,
            },
            None => builder,
        };
        let port = builder
            .initial_max_slice_len(INITIAL_SLOT)
            .allocation_strategy(AllocationStrategy::PowerOfTwo)
            .create()
            .map_err(|source| match source {
                PublisherCreateError::ExceedsMaxSupportedPublishers => PublisherError::Full {
                    topic: topic.name.clone(),
                    limit: topic.data.static_config().max_publishers(),
                },
                source => PublisherError::Port {
                    topic: topic.name.clone(),
                    source,
                },
            })?;
        let notifier = topic
            .events
            .notifier_builder()
            .default_event_id(DATA_EVENT)
            .create()
            .map_err(|source| PublisherError::Notifier {
                topic: topic.name.clone(),
                source,
            })?;
        let id = id.unwrap_or_else(|| PublisherId(port.id().value().to_le_bytes()));
        Ok(Port {
            id,
            created_ns,
            process_id: std::process::id(),
            node_id: *node.inner().id(),
            port,
            notifier,
            topic,
        })
    }

    /// The subscribers of other processes on the topic, each subscription of theirs a port of
    /// its own: those that keep what this port sends (a subscriber drops its own process's
    /// samples, another context's in this process too, which the intra path serves).
    pub(crate) fn remote_subscribers(&self) -> usize {
        let mut count = 0;
        (self.topic.data.dynamic_config()).list_subscribers(|subscriber| {
            // A node whose process cannot be told is counted: it is not this one's.
            let pid = (subscriber.node_id.pid::<Ipc>().ok())
                .and_then(|pid| u32::try_from(pid.value()).ok());
            let here = subscriber.node_id == self.node_id || pid == Some(self.process_id);
            count += usize::from(!here);
            CallbackProgression::Continue
        });
        count
    }

    /// True while a subscriber of another node (another process) is connected to the topic.
    pub(crate) fn has_remote_subscribers(&self) -> bool {
        let mut remote = false;
        self.topic
            .data
            .dynamic_config()
            .list_subscribers(|subscriber| {
                remote = subscriber.node_id != self.node_id;
                match remote {
                    true => CallbackProgression::Stop,
                    false => CallbackProgression::Continue,
                }
            });
        remote
    }

    /// Connects the subscribers that joined since the port last sent, handing each its
    /// requested history; wakes the topic's listeners if one joined, so that a triggered
    /// late joiner runs for what it got. `known`: the subscribers the last call saw,
    /// replaced by those there now.
    pub(crate) fn connect_late_joiners(
        &self,
        known: &mut Vec<UniqueSubscriberId>,
    ) -> Result<(), ConnectionFailure> {
        // Listed before connecting: a subscriber counted as joined is connected (and handed
        // its history) by the update that follows; one that appears in between is connected
        // now and counted at the next call, so its wake-up follows its history.
        let mut joined = false;
        let mut now = Vec::with_capacity(known.len());
        (self.topic.data.dynamic_config()).list_subscribers(|subscriber| {
            joined |= !known.contains(&subscriber.subscriber_id);
            now.push(subscriber.subscriber_id);
            CallbackProgression::Continue
        });
        self.port.update_connections()?;
        *known = now;
        if joined && self.topic.events.dynamic_config().number_of_listeners() > 0 {
            // A wake-up that moves nothing costs the other listeners one drain.
            let _ = self.notifier.notify();
        }
        Ok(())
    }

    /// Loans a slot of `len` bytes, has `fill` write all of them (it returns how many it
    /// wrote), stamps the header and sends; then wakes the listeners, if any. `flat` is the
    /// layout of a flat message's bytes, `None` for CDR.
    pub(crate) fn send(
        &self,
        publish_time_ns: i64,
        sequence: u64,
        publisher: PublisherId,
        len: usize,
        flat: Option<FlatLayout>,
        fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize, PublishError>,
    ) -> Result<Delivery, PublishError> {
        let mut sample = self
            .port
            .loan_slice_uninit(len)
            .map_err(|source| PublishError::Loan { len, source })?;
        let written = fill(sample.payload_mut())?;
        if written != len {
            return Err(PublishError::Length { len, written });
        }
        // SAFETY: `fill` wrote `written` bytes from the start of the `len`-byte slot
        // (`encode_to_slice` and `copy_into` initialize every byte they count),
        // and `written == len`: every byte of the payload is initialized.
        let sample = unsafe { sample.assume_init() };
        self.send_filled(sample, publish_time_ns, sequence, publisher, flat)
    }

    /// A slot of `len` bytes as its last use left it (an earlier sample's bytes, or zeros),
    /// for a flat message written in place and sent with [`send_filled`](Self::send_filled).
    pub(crate) fn loan_as_left(&self, len: usize) -> Result<Filled, PublishError> {
        let sample = self
            .port
            .loan_slice_uninit(len)
            .map_err(|source| PublishError::Loan { len, source })?;
        // SAFETY: the payload lies in this publisher's data segment, a shared-memory file
        // mapped with mmap: its bytes are defined, zero where the kernel backs a page afresh
        // and otherwise what an earlier sample wrote. No Rust allocation's uninitialized
        // bytes are here; `MaybeUninit` is iceoryx2's contract for payload types in general,
        // and every bit pattern is a valid `u8`.
        Ok(unsafe { sample.assume_init() })
    }

    /// Stamps the header of a filled slot and sends it; then wakes the listeners, if any.
    pub(crate) fn send_filled(
        &self,
        mut sample: Filled,
        publish_time_ns: i64,
        sequence: u64,
        publisher: PublisherId,
        flat: Option<FlatLayout>,
    ) -> Result<Delivery, PublishError> {
        *sample.user_header_mut() = SampleHeader {
            publish_time_ns,
            publisher_created_ns: self.created_ns,
            sequence,
            publisher: publisher.0,
            process_id: self.process_id,
            format: if flat.is_some() { FLAT } else { CDR },
            flat_size: flat.map_or(0, |layout| layout.size),
            flat_hash: flat.map_or(0, |layout| layout.hash),
        };
        let subscribers = sample.send().map_err(PublishError::Send)?;
        // Listeners exist only for subscribers that asked for wake-ups; with none, a
        // polling-only topic costs no system call here.
        let woken = if self.topic.events.dynamic_config().number_of_listeners() > 0 {
            self.notifier.notify().map_err(PublishError::Notify)?
        } else {
            0
        };
        Ok(Delivery { subscribers, woken })
    }
}

/// A loaned slot whose bytes are all written, not sent yet.
pub(crate) type Filled = SampleMut<Ipc, [u8], SampleHeader>;

/// Copies `bytes` to the start of `slot` (as long at least); returns how many it wrote.
pub(crate) fn copy_into(slot: &mut [MaybeUninit<u8>], bytes: &[u8]) -> usize {
    // `write_copy_of_slice` is newer than the crate's MSRV; this compiles to a memcpy.
    slot.iter_mut().zip(bytes).for_each(|(to, from)| {
        to.write(*from);
    });
    bytes.len().min(slot.len())
}

/// Now, in nanoseconds since the Unix epoch (the system clock, as tacto stamps samples).
pub(crate) fn now_ns() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
}
