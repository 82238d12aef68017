//! The publishing side of a topic in shared memory: CDR bytes into a loaned slot, then a
//! wake-up for the subscribers that asked for one.

use std::marker::PhantomData;
use std::sync::Mutex;

use iceoryx2::port::notifier::{Notifier, NotifierCreateError, NotifierNotifyError};
use iceoryx2::port::publisher::{Publisher, PublisherCreateError};
use iceoryx2::port::{LoanError, SendError};
use iceoryx2::prelude::{AllocationStrategy, PortFactory as _};
use tacto::cdr::EncodeError;
use tacto::{Message, PublisherId};

use crate::header::SampleHeader;
use crate::node::{Ipc, ShmNode};
use crate::topic::{DATA_EVENT, Topic, TopicError};

/// The slot size a publisher starts with; larger messages grow it (see [`ShmPublisher`]).
const INITIAL_SLOT: usize = 4096;

/// Why a publisher could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublisherError {
    /// The topic's services could not be opened.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// iceoryx2 refused the publisher port (e.g. the topic has `MAX_PUBLISHERS` already).
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
        let topic = Topic::open(self.node, &self.topic, T::TYPE_NAME)?;
        // Taken before the port exists: see `SampleHeader::publisher_created_ns`.
        let created_ns = now_ns();
        let port = topic
            .data
            .publisher_builder()
            .initial_max_slice_len(INITIAL_SLOT)
            .allocation_strategy(AllocationStrategy::PowerOfTwo)
            .create()
            .map_err(|source| PublisherError::Port {
                topic: topic.name.clone(),
                source,
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
        let id = self
            .id
            .unwrap_or_else(|| PublisherId(port.id().value().to_le_bytes()));
        Ok(ShmPublisher {
            state: Mutex::new(State {
                sequence: 0,
                scratch: Vec::new(),
            }),
            id,
            created_ns,
            process_id: std::process::id(),
            port,
            notifier,
            topic,
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
/// **Copies.** [`publish`](Self::publish) encodes into a buffer the publisher reuses, then
/// copies it into the slot with one `memcpy` ([`publish_cdr`](Self::publish_cdr) is that
/// second half alone). Encoding straight into the slot needs a CDR encoder that writes into
/// a slice of pre-computed size; `tacto::cdr` has none yet (see docs/shm.md).
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
    state: Mutex<State>,
    id: PublisherId,
    /// When the port was created (Unix ns), taken just before.
    created_ns: i64,
    process_id: u32,
    // Ports before the topic: iceoryx2 ports hold their service alive themselves, but drop
    // order keeps the intent visible.
    port: Publisher<Ipc, [u8], SampleHeader>,
    notifier: Notifier<Ipc>,
    topic: Topic,
    _message: PhantomData<fn(&T)>,
}

#[derive(Debug)]
struct State {
    /// The last sequence number sent.
    sequence: u64,
    /// The CDR encoding of the message being published; keeps its capacity.
    scratch: Vec<u8>,
}

impl<T: Message> ShmPublisher<T> {
    /// Encodes `message` as CDR and publishes it.
    pub fn publish(&self, message: &T) -> Result<Delivery, PublishError> {
        let mut state = self.lock();
        let State { sequence, scratch } = &mut *state;
        tacto::cdr::encode_into(message, scratch)?;
        self.send(sequence, scratch)
    }

    /// Publishes a CDR payload as it goes on the wire: encapsulation header, then the body.
    /// Subscribers decode it as `T`; bytes that do not decode are counted there as malformed.
    pub fn publish_cdr(&self, payload: &[u8]) -> Result<Delivery, PublishError> {
        if payload.len() < 4 {
            return Err(PublishError::MissingHeader { len: payload.len() });
        }
        let mut state = self.lock();
        self.send(&mut state.sequence, payload)
    }

    /// The id subscribers see for this publisher.
    pub fn id(&self) -> PublisherId {
        self.id
    }

    /// The iceoryx2 service name (`rt/chatter`).
    pub fn service_name(&self) -> &str {
        &self.topic.name
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock (in a user's `Serialize`) leaves a consistent state:
        // the sequence only moves after a successful send.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn send(&self, sequence: &mut u64, payload: &[u8]) -> Result<Delivery, PublishError> {
        let mut sample = self
            .port
            .loan_slice_uninit(payload.len())
            .map_err(|source| PublishError::Loan {
                len: payload.len(),
                source,
            })?;
        *sample.user_header_mut() = SampleHeader {
            publish_time_ns: now_ns(),
            publisher_created_ns: self.created_ns,
            sequence: *sequence + 1,
            publisher: self.id.0,
            process_id: self.process_id,
            reserved: 0,
        };
        let sample = sample.write_from_slice(payload);
        let subscribers = sample.send().map_err(PublishError::Send)?;
        *sequence += 1;
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

/// Now, in nanoseconds since the Unix epoch (the system clock, as tacto stamps samples).
pub(crate) fn now_ns() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
}
