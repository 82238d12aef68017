//! The public seam between a context and a transport out of the process (see the parent
//! module for the rules every transport keeps).

use std::fmt;
use std::os::fd::BorrowedFd;
use std::sync::Arc;

use crate::cdr::Encodable;
use crate::flat::FlatLayout;
use crate::qos::Qos;
use crate::sample::SampleInfo;
use crate::service::RequestId;

/// A transport that carries topics between processes: a factory of links.
///
/// Given to [`ContextBuilder::transport`](crate::ContextBuilder::transport).
///
/// # Examples
/// A transport that links nothing, as a skeleton of a real one:
/// ```
/// use std::sync::Arc;
/// use tacto::transport::{LinkError, LinkReader, LinkWriter, RosType, Transport};
/// use tacto::{Context, Qos};
///
/// #[derive(Debug)]
/// struct Nowhere;
///
/// impl Transport for Nowhere {
///     fn writer(
///         &self,
///         _: Option<&str>,
///         topic: &str,
///         _: RosType,
///         _: &Qos,
///     ) -> Result<Arc<dyn LinkWriter>, LinkError> {
///         Err(LinkError(format!("{topic} goes nowhere")))
///     }
///     fn reader(
///         &self,
///         _: Option<&str>,
///         topic: &str,
///         _: RosType,
///         _: &Qos,
///     ) -> Result<Box<dyn LinkReader>, LinkError> {
///         Err(LinkError(format!("{topic} comes from nowhere")))
///     }
///     // No ROS 2 tool reaches it: its nodes need no parameter services or /rosout there.
///     fn carries_graph_topics(&self) -> bool {
///         false
///     }
/// }
///
/// let ctx = Context::builder().transport(Arc::new(Nowhere)).create();
/// let mut node = ctx.node("n").unwrap();
/// assert!(node.subscription::<tacto::msg::std_msgs::Empty>("t").create().is_err());
/// ```
pub trait Transport: Send + Sync + fmt::Debug {
    /// The writer of topic `topic` (resolved, `/chatter`) of ROS type `ros_type`
    /// (`std_msgs/msg/String`) with `qos`, shared by the publishers of `node` on the topic with
    /// that QoS. `node` is the fully qualified name (`/robot1/talker`) of the node that owns
    /// it, for the ROS graph; `None` for the context's own endpoints (the `/clock`
    /// subscription of sim time).
    fn writer(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Arc<dyn LinkWriter>, LinkError>;

    /// A reader of `topic` for one subscription of `node`, whose cache keeps `qos.history`.
    fn reader(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Box<dyn LinkReader>, LinkError>;

    /// The link of a service `service` (resolved, `/add_two_ints`) of `node` whose request and
    /// response types are `request_type` and `response_type` (`pkg/srv/Type_Request`,
    /// `..._Response`): it receives requests from clients in other processes and answers them.
    /// `Ok(None)` (the default) for a transport that carries no services.
    fn service(
        &self,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
    ) -> Result<Option<Box<dyn ServiceLink>>, LinkError> {
        let _ = (node, service, request_type, response_type);
        Ok(None)
    }

    /// The link of a client of `service` (as for [`service`](Self::service)) that sends its
    /// requests to a service in another process. Every response to this client is handed to
    /// `deliver` with the sequence number of the request it answers, on the transport's
    /// thread. `Ok(None)` (the default) for a transport that carries no services.
    fn client(
        &self,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
        deliver: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
    ) -> Result<Option<Box<dyn ClientLink>>, LinkError> {
        let _ = (node, service, request_type, response_type, deliver);
        Ok(None)
    }

    /// True (the default) if ROS 2's graph tools reach this transport, so that the context
    /// writes the graph's own topics over it, which every process writes: its executors' stats
    /// (see [`tacto_msgs::ExecutorStats`](crate::msg::tacto_msgs::ExecutorStats)),
    /// `/parameter_events` and `/rosout`; and serves its nodes' parameter services there.
    fn carries_graph_topics(&self) -> bool {
        true
    }
}

/// A ROS 2 message type as a transport names it on the wire: its type name, and its type
/// hash if known (DDS endpoints send it in their USER_DATA, as ROS 2 Jazzy does).
///
/// # Examples
/// ```
/// use tacto::transport::RosType;
///
/// let ros_type = RosType::of::<tacto::msg::std_msgs::String>();
/// assert_eq!(ros_type.name, "std_msgs/msg/String");
/// assert!(ros_type.hash.unwrap().starts_with("RIHS01_"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RosType {
    /// `package/msg/Type` (or a service's `package/srv/Type_Request`, `..._Response`).
    pub name: &'static str,
    /// `RIHS01_<64 hex>`, if known: see [`Message::TYPE_HASH`](crate::Message::TYPE_HASH).
    pub hash: Option<&'static str>,
}

impl RosType {
    /// The name and hash of `T`.
    pub fn of<T: crate::Message>() -> RosType {
        RosType {
            name: T::TYPE_NAME,
            hash: T::TYPE_HASH,
        }
    }
}

/// The link of one service: a cache of requests from other processes, and the way back to
/// their clients. A request taken is answered under the [`RequestId`] it came with.
pub trait ServiceLink: Send + Sync + fmt::Debug {
    /// Takes the oldest request waiting: its id and its CDR bytes, encapsulation header
    /// included (the transport's own request header removed). A request that the transport
    /// cannot split is dropped and the next one returned.
    fn take_request(&self) -> Option<(RequestId, Vec<u8>)>;

    /// Requests waiting.
    fn pending(&self) -> usize;

    /// Sends the response `cdr` (encapsulation header included) to the client of request `id`.
    fn respond(&self, id: RequestId, cdr: &[u8]) -> Result<(), LinkError>;

    /// Calls `wake` on the transport's thread whenever requests arrive from now on: once per
    /// link, and only for a service named in a trigger, as [`LinkReader::on_data`]. Not called
    /// for a link that gives a [`wake_fd`](Self::wake_fd).
    fn on_data(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError>;

    /// A file descriptor that is readable while requests may have arrived, for the executor's
    /// epoll set, as [`LinkReader::wake_fd`]: asked only for a service named in a trigger,
    /// preferred to [`on_data`](Self::on_data). The default, `None`, has the executor call
    /// `on_data`.
    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        Ok(None)
    }

    /// Consumes the readiness of [`wake_fd`](Self::wake_fd), on the executor's thread, and
    /// returns how many requests arrived since the last call, as [`LinkReader::drain_wake`].
    fn drain_wake(&self) -> usize {
        0
    }
}

/// The link of one client to a service in another process.
pub trait ClientLink: Send + Sync + fmt::Debug {
    /// True while a service in another process is matched, ready for requests.
    fn is_ready(&self) -> bool;

    /// Sends request number `sequence` of the client, `cdr` with its encapsulation header.
    fn send(&self, sequence: i64, cdr: &[u8]) -> Result<(), LinkError>;

    /// The most requests the link keeps awaiting their responses, if it has a bound: one more
    /// makes it forget its oldest (that call then times out). `None`, the default: no bound
    /// of the link's own.
    fn in_flight_limit(&self) -> Option<usize> {
        None
    }
}

/// Why a link could not be made or used: the transport's own message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LinkError(pub String);

/// The sending end of a topic's link, shared by the topic's publishers in this process.
pub trait LinkWriter: Send + Sync + fmt::Debug {
    /// True while a sample written now goes somewhere: a reader outside this process is
    /// matched, or the writer keeps samples for late joiners. Only then is a sample encoded.
    fn has_remote_readers(&self) -> bool;

    /// The subscriptions outside this process that a sample written now would reach: DDS's
    /// matched readers (this process's own are never matched: no echo), shared memory's
    /// subscriber ports of other processes. Added to the context's own subscriptions in
    /// [`Publisher::subscription_count`](crate::Publisher::subscription_count). Unlike
    /// [`has_remote_readers`](Self::has_remote_readers), it counts no store for late joiners.
    /// The default, 0, is for a transport that cannot tell.
    fn subscription_count(&self) -> usize {
        0
    }

    /// Sends one sample's CDR bytes, encapsulation header included.
    fn write(&self, cdr: &[u8]) -> Result<(), LinkError>;

    /// Sends one message with its delivery facts (`info`: publish time, publisher, sequence),
    /// encoding it in whatever form the link needs: a shared-memory link encodes it once,
    /// straight into the slot it loans ([`Encodable::encode_to_slice`]). The default encodes
    /// it into a new buffer and calls [`write`](Self::write).
    ///
    /// A publisher calls it under the lock that orders its deliveries, after
    /// [`has_remote_readers`](Self::has_remote_readers) said yes, so samples reach the link in
    /// sequence order.
    fn write_message(&self, message: &dyn Encodable, info: &SampleInfo) -> Result<(), LinkError> {
        let _ = info;
        let cdr = message.to_vec().map_err(|e| LinkError(e.to_string()))?;
        self.write(&cdr)
    }

    /// Sends a [`Flat`](crate::Flat) message: `bytes` are its own bytes, of `layout`. A link
    /// that carries flat samples (shared memory) copies them into its slot as they are, the
    /// layout with them; the default sends `message`'s CDR through
    /// [`write_message`](Self::write_message), as every non-flat transport must (DDS). Called
    /// as `write_message` is.
    fn write_flat(
        &self,
        message: &dyn Encodable,
        bytes: &[u8],
        layout: FlatLayout,
        info: &SampleInfo,
    ) -> Result<(), LinkError> {
        let _ = (bytes, layout);
        self.write_message(message, info)
    }

    /// Lends a slot of `layout.size` bytes, aligned to
    /// [`flat::MAX_ALIGN`](crate::flat::MAX_ALIGN), for a flat message written in place (see
    /// [`Publisher::loan_flat`](crate::Publisher::loan_flat)); `None` (the default) for a link
    /// that has no such slots, or none now. Its bytes are whatever an earlier sample left
    /// there, or zeros: the publisher zeroes it if its user asked for that.
    fn loan_flat(&self, layout: FlatLayout) -> Option<Box<dyn LoanedSlot>> {
        let _ = layout;
        None
    }

    /// Remote readers found on the topic whose QoS cannot match this writer's, since creation.
    fn incompatible_qos(&self) -> u64;
}

/// A transport's slot lent by [`LinkWriter::loan_flat`]: filled in place, then sent (or
/// returned unsent when dropped).
pub trait LoanedSlot: Send {
    /// The slot's bytes.
    fn bytes(&self) -> &[u8];

    /// The slot's bytes, to write.
    fn bytes_mut(&mut self) -> &mut [u8];

    /// Sends the slot with the sample's facts; called as
    /// [`LinkWriter::write_message`] is, under the publisher's ordering lock.
    fn send(self: Box<Self>, info: &SampleInfo) -> Result<(), LinkError>;
}

/// What a [`LinkReader::next`] does with the sample it returns, in DDS's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOp {
    /// Look at the newest sample, any state, changing nothing.
    PeekNewest,
    /// Remove the oldest sample, any state.
    Take,
    /// Remove the oldest NOT_READ sample.
    TakeNew,
    /// Return the oldest NOT_READ sample and mark it READ.
    ReadNew,
    /// Return the newest sample and mark every sample READ.
    Latest,
}

/// A sample as a link gives it: still serialized, its bytes where the transport holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSample {
    /// CDR bytes, encapsulation header included.
    pub cdr: RemoteBytes,
    /// Its delivery facts: source timestamp as `publish_time`, the writer's GID as
    /// `publisher`.
    pub info: SampleInfo,
}

/// The CDR bytes of a remote sample, left where the transport has them (a Cyclone sample, an
/// iceoryx2 slot, a buffer of the link's own) until the subscription decodes them, once,
/// straight from there: no copy out of the transport. Shared: a sample read but kept clones
/// the handle, not the bytes; the transport's hold on them is released when the last clone is
/// dropped.
///
/// # Examples
/// ```
/// use tacto::transport::RemoteBytes;
///
/// let bytes = RemoteBytes::new([0u8, 1, 0, 0]); // any `AsRef<[u8]>` owner
/// let kept = bytes.clone(); // the same bytes, not a copy
/// assert_eq!(&*kept, &[0, 1, 0, 0]);
/// assert_eq!(kept, RemoteBytes::from(vec![0, 1, 0, 0]));
/// ```
#[derive(Clone)]
pub struct RemoteBytes(Arc<Owner>);

/// Who holds the bytes. Behind a thin `Arc`: a history slot stays as small as with a plain
/// `Arc<Vec<u8>>`, which the intra-process data path's instruction count notices.
enum Owner {
    /// Bytes of their own (an encoding made in this process, a link's copy).
    Vec(Vec<u8>),
    /// Bytes the transport keeps, released when this is dropped.
    Transport(Box<dyn AsRef<[u8]> + Send + Sync>),
    /// A flat message's own bytes (not CDR), of that layout, wherever they are.
    Flat(FlatLayout, RemoteBytes),
}

impl RemoteBytes {
    /// The bytes `owner` holds, for as long as any clone lives.
    pub fn new(owner: impl AsRef<[u8]> + Send + Sync + 'static) -> Self {
        RemoteBytes(Arc::new(Owner::Transport(Box::new(owner))))
    }

    /// `bytes` marked as a [`Flat`](crate::Flat) message of `layout` rather than CDR: a
    /// subscription whose type has that layout reads them in place; any other counts the
    /// sample as malformed.
    ///
    /// # Examples
    /// ```
    /// use tacto::FlatLayout;
    /// use tacto::transport::RemoteBytes;
    ///
    /// let layout = FlatLayout { size: 8, hash: 42 };
    /// let bytes = RemoteBytes::flat(layout, RemoteBytes::from(vec![0; 8]));
    /// assert_eq!(bytes.flat_layout(), Some(layout));
    /// assert_eq!(bytes.len(), 8);
    /// ```
    pub fn flat(layout: FlatLayout, bytes: RemoteBytes) -> Self {
        RemoteBytes(Arc::new(Owner::Flat(layout, bytes)))
    }

    /// The layout of a flat message's bytes ([`flat`](Self::flat)); `None` for CDR.
    pub fn flat_layout(&self) -> Option<FlatLayout> {
        match &*self.0 {
            Owner::Flat(layout, _) => Some(*layout),
            _ => None,
        }
    }
}

impl From<Vec<u8>> for RemoteBytes {
    fn from(bytes: Vec<u8>) -> Self {
        RemoteBytes(Arc::new(Owner::Vec(bytes)))
    }
}

impl std::ops::Deref for RemoteBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &*self.0 {
            Owner::Vec(bytes) => bytes,
            Owner::Transport(owner) => (**owner).as_ref(),
            Owner::Flat(_, bytes) => bytes,
        }
    }
}

impl PartialEq for RemoteBytes {
    fn eq(&self, other: &Self) -> bool {
        self.flat_layout() == other.flat_layout() && **self == **other
    }
}

impl Eq for RemoteBytes {}

impl fmt::Debug for RemoteBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RemoteBytes({} bytes)", self.len())
    }
}

/// The receiving end of one subscription's link: a cache of remote samples with DDS sample
/// states, bounded by the subscription's [`History`](crate::History).
pub trait LinkReader: Send + Sync + fmt::Debug {
    /// The sample `op` names, if any.
    fn next(&self, op: ReadOp) -> Option<RemoteSample>;

    /// The facts of the oldest sample (of the oldest NOT_READ one if `new_only`), changing
    /// nothing and copying no bytes: to order it against a sample of the local history.
    fn oldest_info(&self, new_only: bool) -> Option<SampleInfo>;

    /// NOT_READ samples in the cache.
    fn unread(&self) -> usize;

    /// Samples in the cache, read or not.
    fn len(&self) -> usize;

    /// Remote writers found on the topic whose QoS cannot match this reader's, since creation.
    fn incompatible_qos(&self) -> u64;

    /// True if the cache holds no sample.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `wake` on the transport's thread whenever samples arrive from now on. Called
    /// once per reader, and only for a reader named in a trigger: a reader without it wakes
    /// nothing. Not called for a reader that gives a [`wake_fd`](Self::wake_fd).
    fn on_data(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError>;

    /// A file descriptor that is readable while samples may have arrived, for the executor's
    /// epoll set: executors prefer it to [`on_data`](Self::on_data), as it needs no thread.
    /// Asked only for a reader named in a trigger (the reader may create its wake-up source
    /// then), every time returning the same fd. The executor watches it level-triggered and
    /// calls [`drain_wake`](Self::drain_wake) on every report. The default, `None`, has the
    /// executor call `on_data`.
    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        Ok(None)
    }

    /// Consumes the readiness of [`wake_fd`](Self::wake_fd), on the executor's thread, and
    /// returns how many samples arrived since the last call (0 for a spurious wake, which
    /// then runs nothing). The fd must not be readable afterwards unless samples arrived
    /// meanwhile.
    fn drain_wake(&self) -> usize {
        0
    }

    /// Samples the link lost for this subscription since creation (overwritten in its buffer
    /// before they were read), counted in [`Subscription::dropped`](crate::Subscription::dropped).
    /// The default, 0, is for links that do not count them.
    fn dropped(&self) -> u64 {
        0
    }

    /// The topic's publishers as the transport sees them now, for
    /// [`Subscription::remote_publishers`](crate::Subscription::remote_publishers); `None` (the
    /// default) for a transport that cannot tell.
    fn publishers(&self) -> Option<RemotePublishers> {
        None
    }
}

/// The publishers of a subscription's topic that its transport sees, polled with
/// [`Subscription::remote_publishers`](crate::Subscription::remote_publishers): how a node
/// notices that the process feeding it died.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RemotePublishers {
    /// Publishers alive now.
    pub alive: usize,
    /// Publishers the transport knows to be dead but still lists (a process killed without
    /// cleaning up, until its transport forgets it).
    pub gone: usize,
}
