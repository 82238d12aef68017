//! The DDS transport of a tacto [`Context`](tacto::Context): each topic's publishers share a
//! Cyclone writer, each subscription gets a Cyclone reader whose cache is its history of
//! samples from other processes.
//!
//! Readers and writers ignore every endpoint of this process (Cyclone's `ignorelocal` at the
//! process level): the intra-process path delivered those samples already, so a sample never
//! arrives twice, and a writer's match count is the number of remote readers, which is what
//! decides whether a publication is encoded at all.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use cyclors::dds_entity_t;
use tacto::cdr::Encodable;
use tacto::transport::{
    ClientLink, LinkError, LinkReader, LinkWriter, ReadOp, RemoteBytes, RemotePublishers,
    RemoteSample, RosType, ServiceLink, Transport,
};
use tacto::{Durability, History, Liveliness, PublisherId, Qos, Reliability, SampleInfo, Time};

use crate::graph::{Endpoint, Gid, Graph, gid_of};
use crate::participant::{Participant, ParticipantError, ParticipantInner};
use crate::qos::QosHandle;
use crate::reader::{Access, HeldSample, PinnedCdr, next_sample};
use crate::retcode::DdsStatus;
use crate::send_buffer::SendBuffer;
use crate::service_link::{DdsClientLink, DdsServiceLink};
use crate::shm_peers::{self, ShmWriters};
use crate::topic::Topic;
use crate::user_data;
use crate::writer::{write_cdr, write_in_place};

/// Carries a tacto context's topics over DDS, as ROS 2 nodes on rmw_cyclonedds do: topics
/// `rt/<name>`, types `pkg::msg::dds_::Type_`, CDR little-endian, each endpoint with its
/// publisher's or subscription's [`Qos`] (rclcpp's default unless set).
///
/// # Examples
/// ```no_run
/// use tacto::Context;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto_dds::DdsTransport;
///
/// // ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE, CYCLONEDDS_URI, as rclcpp reads them.
/// let ctx = Context::builder().transport(DdsTransport::from_env()?).create();
/// let mut node = ctx.node("talker")?;
/// let chatter = node.publisher::<Text>("chatter").create()?;
/// chatter.publish(Text { data: "hello, ROS 2".into() }); // encoded only if someone listens
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DdsTransport {
    participant: Participant,
    /// The nodes and their endpoints, announced on `ros_discovery_info`: the participant's
    /// graph, made (and announced with no nodes) with the transport, so that graph tools see
    /// a tacto process with no node yet as one; made again with the first endpoint of a node
    /// if that failed.
    graph: Mutex<Option<Arc<Graph>>>,
    /// The shared-memory key this process announces, if it has shared memory beside DDS.
    shm_key: Option<String>,
}

impl DdsTransport {
    /// A transport whose endpoints belong to `participant`.
    pub fn new(participant: Participant) -> Arc<DdsTransport> {
        Arc::new(DdsTransport {
            graph: Mutex::new(participant.graph().ok()),
            participant,
            shm_key: None,
        })
    }

    /// A transport whose endpoints belong to `participant`, in a process that also reaches
    /// the tacto processes of its host through shared memory, whose `host_key` is
    /// `tacto_shm::ShmNode::host_key`: for a context with both transports.
    ///
    /// Its endpoints announce the key in their USER_DATA and leave to shared memory the
    /// endpoints that announce the same: its writers do not send to them (a topic read only
    /// by such processes is not written to DDS at all) and its readers drop their samples,
    /// which come through shared memory. Everyone else (rclpy and other ROS 2 nodes, on this
    /// host too; tacto processes without shared memory) is served over DDS.
    ///
    /// # Examples
    /// ```no_run
    /// use tacto::Context;
    /// use tacto_dds::{DdsTransport, Participant};
    /// use tacto_shm::ShmTransport;
    ///
    /// let shm = ShmTransport::new("robot")?;
    /// let dds = DdsTransport::beside_shm(Participant::from_env()?, &shm.node().host_key()?);
    /// let ctx = Context::builder().transport(shm).transport(dds).create();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn beside_shm(participant: Participant, host_key: &str) -> Arc<DdsTransport> {
        Arc::new(DdsTransport {
            graph: Mutex::new(participant.graph().ok()),
            participant,
            shm_key: Some(shm_peers::announced(host_key)),
        })
    }

    /// A transport on a participant of the domain the ROS 2 environment variables describe
    /// (see [`Participant::from_env`]).
    pub fn from_env() -> Result<Arc<DdsTransport>, ParticipantError> {
        Ok(Self::new(Participant::from_env()?))
    }

    pub(crate) fn participant(&self) -> &Participant {
        &self.participant
    }

    /// The graph entry of a new endpoint of `node`, if it belongs to one.
    pub(crate) fn join(
        &self,
        node: Option<&str>,
        kind: Endpoint,
        entity: dds_entity_t,
    ) -> Result<Option<GraphEntry>, LinkError> {
        let Some(node) = node else {
            return Ok(None);
        };
        let graph = {
            let mut graph = self.graph.lock().unwrap_or_else(PoisonError::into_inner);
            match &*graph {
                Some(made) => made.clone(),
                None => graph
                    .insert(self.participant.graph().map_err(LinkError)?)
                    .clone(),
            }
        };
        let gid = gid_of(entity).map_err(link_error)?;
        graph.add(node, kind, gid);
        Ok(Some(GraphEntry {
            graph,
            node: node.to_owned(),
            gid,
        }))
    }
}

/// An endpoint's place in the ROS graph, left when the endpoint goes.
#[derive(Debug)]
pub(crate) struct GraphEntry {
    graph: Arc<Graph>,
    node: String,
    gid: Gid,
}

impl Drop for GraphEntry {
    fn drop(&mut self) {
        self.graph.remove(&self.node, self.gid);
    }
}

impl Transport for DdsTransport {
    fn writer(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Arc<dyn LinkWriter>, LinkError> {
        let shm_key = self.shm_key.as_deref();
        let mut writer = DdsLinkWriter::new(&self.participant, topic, ros_type, qos, shm_key)?;
        writer.entry = self.join(node, Endpoint::Writer, writer.handle)?;
        Ok(Arc::new(writer))
    }

    fn reader(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Box<dyn LinkReader>, LinkError> {
        let shm_key = self.shm_key.as_deref();
        let mut reader = DdsLinkReader::new(&self.participant, topic, ros_type, qos, shm_key)?;
        reader.entry = self.join(node, Endpoint::Reader, reader.handle)?;
        Ok(Box::new(reader))
    }

    fn service(
        &self,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
    ) -> Result<Option<Box<dyn ServiceLink>>, LinkError> {
        let link = DdsServiceLink::new(self, node, service, request_type, response_type)?;
        Ok(Some(Box::new(link)))
    }

    fn client(
        &self,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
        deliver: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
    ) -> Result<Option<Box<dyn ClientLink>>, LinkError> {
        let link = DdsClientLink::new(self, node, service, request_type, response_type, deliver)?;
        Ok(Some(Box::new(link)))
    }
}

pub(crate) fn link_error(error: impl std::fmt::Display) -> LinkError {
    LinkError(error.to_string())
}

/// How long a reliable writer may block when a KEEP_ALL history is full: the DDS default,
/// 100 ms (KEEP_LAST writers never block).
const MAX_BLOCKING_NS: i64 = 100_000_000;

/// A duration in Cyclone's nanoseconds; `None` is infinite.
fn nanos(duration: Option<std::time::Duration>) -> i64 {
    duration.map_or(i64::MAX, |d| {
        i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
    })
}

/// The Cyclone QoS of an endpoint with `qos`, ignoring this process's endpoints. Returns the
/// cache's bound as well: a history's capacity in Cyclone's 32 bits.
pub(crate) fn native_qos(qos: &Qos) -> Result<(QosHandle, i32), LinkError> {
    let native =
        QosHandle::new().ok_or_else(|| link_error("Cyclone could not allocate a QoS object"))?;
    let reliability = match qos.reliability {
        Reliability::Reliable => cyclors::dds_reliability_kind_DDS_RELIABILITY_RELIABLE,
        Reliability::BestEffort => cyclors::dds_reliability_kind_DDS_RELIABILITY_BEST_EFFORT,
    };
    let durability = match qos.durability {
        Durability::Volatile => cyclors::dds_durability_kind_DDS_DURABILITY_VOLATILE,
        Durability::TransientLocal => cyclors::dds_durability_kind_DDS_DURABILITY_TRANSIENT_LOCAL,
    };
    let liveliness = match qos.liveliness {
        Liveliness::Automatic => cyclors::dds_liveliness_kind_DDS_LIVELINESS_AUTOMATIC,
        Liveliness::ManualByTopic => cyclors::dds_liveliness_kind_DDS_LIVELINESS_MANUAL_BY_TOPIC,
    };
    // No memory holds more samples than 32 bits count; a capacity of 0 is refused earlier.
    let capacity = i32::try_from(qos.history.capacity()).unwrap_or(i32::MAX);
    let p = native.as_ptr();
    // SAFETY: a live QoS object owned by `native`; the setters store plain values.
    unsafe {
        cyclors::dds_qset_reliability(p, reliability, MAX_BLOCKING_NS);
        cyclors::dds_qset_durability(p, durability);
        match qos.history {
            History::KeepLast(_) => cyclors::dds_qset_history(
                p,
                cyclors::dds_history_kind_DDS_HISTORY_KEEP_LAST,
                capacity,
            ),
            History::KeepAll { .. } => {
                cyclors::dds_qset_history(p, cyclors::dds_history_kind_DDS_HISTORY_KEEP_ALL, -1);
                // The bound: one instance (keyless), its samples limited by max_samples.
                cyclors::dds_qset_resource_limits(p, capacity, -1, -1);
            }
        }
        cyclors::dds_qset_deadline(p, nanos(qos.deadline));
        cyclors::dds_qset_lifespan(p, nanos(qos.lifespan));
        cyclors::dds_qset_liveliness(p, liveliness, nanos(qos.liveliness_lease));
        cyclors::dds_qset_ignorelocal(p, cyclors::dds_ignorelocal_kind_DDS_IGNORELOCAL_PROCESS);
    }
    Ok((native, capacity))
}

/// A topic's writer; its publication-matched listener keeps the count of remote readers.
#[derive(Debug)]
struct DdsLinkWriter {
    handle: dds_entity_t,
    // Dropped after `handle` is deleted (see Drop), the participant last.
    _topic: Topic,
    _participant: Arc<ParticipantInner>,
    /// Remote readers matched now; written by Cyclone's listener thread. Boxed: the listener
    /// holds its address.
    matched: Box<Matched>,
    /// The process's shared-memory key, if it has shared memory beside DDS: readers that
    /// announce it are left to shared memory.
    shm_key: Option<String>,
    /// Beside shared memory: the matched readers that do not announce the key, counted again
    /// when `matched` changed.
    elsewhere: AtomicU32,
    /// Transient local: the writer keeps samples for late joiners, so it writes even with no
    /// reader matched.
    keeps_for_late_joiners: bool,
    /// Its node's entry in the ROS graph.
    entry: Option<GraphEntry>,
    /// What messages too costly to count first are encoded into, kept between them; taken
    /// under the publisher's fan-out lock (see [`LinkWriter::write_message`]), so never
    /// contended. The others are encoded straight into Cyclone's sample.
    buffer: Mutex<SendBuffer>,
}

/// A writer's matched readers, as its listener last saw them.
#[derive(Debug)]
struct Matched {
    count: AtomicU32,
    /// Set at each change, cleared by whoever counts the readers elsewhere again.
    changed: AtomicBool,
}

/// Cyclone's publication-matched callback: stores the current count.
unsafe extern "C" fn on_publication_matched(
    _writer: dds_entity_t,
    status: cyclors::dds_publication_matched_status_t,
    arg: *mut c_void,
) {
    // SAFETY: `arg` is the address of the writer's boxed counter, which outlives the writer
    // entity (deleted in Drop before the box is freed; Cyclone waits for running listeners).
    let matched = unsafe { &*arg.cast::<Matched>() };
    matched.count.store(status.current_count, Ordering::Release);
    matched.changed.store(true, Ordering::Release);
}

impl DdsLinkWriter {
    fn new(
        participant: &Participant,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
        shm_key: Option<&str>,
    ) -> Result<Self, LinkError> {
        let dds_topic = Topic::new(participant, topic, ros_type.name).map_err(link_error)?;
        let (native, _) = native_qos(qos)?;
        let pairs = shm_key.map(shm_peers::pair).unwrap_or_default();
        if let Some(data) = user_data::with_type_hash(&pairs, ros_type.hash) {
            native.set_user_data(&data);
        }
        let matched = Box::new(Matched {
            count: AtomicU32::new(0),
            // Readers may match while the writer is made: counted at the first publication.
            changed: AtomicBool::new(true),
        });
        let arg: *const Matched = &*matched;
        // SAFETY: creates a listener object owned here and deleted below (Cyclone copies it
        // into the writer); `arg` stays valid as long as the writer (see the callback).
        let listener = unsafe { cyclors::dds_create_listener(arg.cast_mut().cast()) };
        if listener.is_null() {
            return Err(link_error("Cyclone could not allocate a listener"));
        }
        // SAFETY: a live listener; the callback has the signature Cyclone expects.
        unsafe { cyclors::dds_lset_publication_matched(listener, Some(on_publication_matched)) };
        // SAFETY: live participant and topic handles; QoS and listener valid for the call,
        // both copied by Cyclone.
        let handle = unsafe {
            cyclors::dds_create_writer(
                participant.handle(),
                dds_topic.handle(),
                native.as_ptr(),
                listener,
            )
        };
        // SAFETY: our listener object, no longer needed once the writer copied it.
        unsafe { cyclors::dds_delete_listener(listener) };
        let handle = DdsStatus::check(handle).map_err(|status| {
            link_error(format!(
                "cannot create a DDS writer on {:?}: {status}",
                dds_topic.dds_name()
            ))
        })?;
        Ok(DdsLinkWriter {
            handle,
            _topic: dds_topic,
            _participant: participant.keep_alive(),
            matched,
            shm_key: shm_key.map(str::to_owned),
            elsewhere: AtomicU32::new(0),
            keeps_for_late_joiners: qos.durability == Durability::TransientLocal,
            entry: None,
            buffer: Mutex::default(),
        })
    }
}

impl DdsLinkWriter {
    /// The matched readers this writer serves: all of them, or beside shared memory those of
    /// processes that shared memory does not reach.
    fn readers_served(&self) -> u32 {
        let Some(key) = &self.shm_key else {
            return self.matched.count.load(Ordering::Acquire);
        };
        // Asked at each publication: Cyclone is asked only after a match or unmatch.
        let changed = &self.matched.changed;
        if changed.load(Ordering::Acquire) && changed.swap(false, Ordering::AcqRel) {
            let elsewhere = shm_peers::readers_elsewhere(self.handle, key);
            self.elsewhere.store(elsewhere, Ordering::Release);
        }
        self.elsewhere.load(Ordering::Acquire)
    }
}

impl LinkWriter for DdsLinkWriter {
    fn has_remote_readers(&self) -> bool {
        self.keeps_for_late_joiners || self.readers_served() > 0
    }

    /// The matched readers (Cyclone's publication-matched count: never this process's, see
    /// the module's docs), less those of processes reached through shared memory.
    fn subscription_count(&self) -> usize {
        usize::try_from(self.readers_served()).unwrap_or(usize::MAX)
    }

    fn write(&self, cdr: &[u8]) -> Result<(), LinkError> {
        write_cdr(self.handle, cdr).map_err(link_error)
    }

    fn write_message(&self, message: &dyn Encodable, _: &SampleInfo) -> Result<(), LinkError> {
        if let Some(len) = message.cheap_encoded_len() {
            return write_in_place(self.handle, message, len).map_err(link_error);
        }
        let mut buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        buffer
            .send(message, |cdr| write_cdr(self.handle, cdr))
            .map_err(link_error)?
            .map_err(link_error)
    }

    fn incompatible_qos(&self) -> u64 {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_offered_incompatible_qos_status_t =
            unsafe { std::mem::zeroed() };
        // SAFETY: our live writer and a valid, writable status struct.
        let ret =
            unsafe { cyclors::dds_get_offered_incompatible_qos_status(self.handle, &mut status) };
        DdsStatus::check(ret).map_or(0, |_| status.total_count.into())
    }
}

impl Drop for DdsLinkWriter {
    fn drop(&mut self) {
        // SAFETY: our own writer, deleted once; Cyclone returns only after its listener
        // callbacks finished, so `matched` is freed (after this) unobserved.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}

/// A subscription's reader: its cache is the subscription's history of remote samples.
struct DdsLinkReader {
    handle: dds_entity_t,
    // Dropped after `handle` is deleted (see Drop), the participant last.
    _topic: Topic,
    _participant: Arc<ParticipantInner>,
    /// The most samples the cache holds: the bound of every walk over it.
    capacity: u32,
    /// The data-available callback, once a trigger asked for one. Boxed twice: Cyclone's
    /// listener holds the address of the inner box.
    wake: OnceLock<Box<Wake>>,
    /// Writer GUIDs by Cyclone's local publication handle, looked up once per writer.
    writers: Mutex<HashMap<u64, PublisherId>>,
    /// Beside shared memory: the writers whose samples come that way, which the reader's
    /// topic filter drops. Boxed: the filter and listener hold its address; dropped after
    /// the reader and its topic.
    shm_writers: Option<Box<ShmWriters>>,
    /// Its node's entry in the ROS graph.
    entry: Option<GraphEntry>,
}

pub(crate) type Wake = Arc<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for DdsLinkReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DdsLinkReader")
            .field("topic", &self._topic.dds_name())
            .field("capacity", &self.capacity)
            .field("wakes", &self.wake.get().is_some())
            .finish_non_exhaustive()
    }
}

/// More writers than a topic ever has at once: past this many, the GUID table starts over
/// (writers come and go).
const MAX_KNOWN_WRITERS: usize = 256;

/// Cyclone's data-available callback.
pub(crate) unsafe extern "C" fn on_data_available(_reader: dds_entity_t, arg: *mut c_void) {
    // SAFETY: `arg` is the address of the reader's boxed callback, which outlives the reader
    // entity (deleted in Drop first; Cyclone waits for running listeners).
    let wake = unsafe { &*arg.cast::<Wake>() };
    wake();
}

impl DdsLinkReader {
    fn new(
        participant: &Participant,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
        shm_key: Option<&str>,
    ) -> Result<Self, LinkError> {
        let dds_topic = Topic::new(participant, topic, ros_type.name).map_err(link_error)?;
        let (native, capacity) = native_qos(qos)?;
        let pairs = shm_key.map(shm_peers::pair).unwrap_or_default();
        if let Some(data) = user_data::with_type_hash(&pairs, ros_type.hash) {
            native.set_user_data(&data);
        }
        let shm_writers = shm_key.map(|key| Box::new(ShmWriters::new(key)));
        let listener = match &shm_writers {
            Some(writers) => {
                writers.filter(dds_topic.handle()).map_err(link_error)?;
                Some(ReaderListener::new(writers, None)?)
            }
            None => None,
        };
        // SAFETY: live participant and topic handles; the QoS and listener (if any) are
        // valid for the call and copied; no data listener until a trigger asks (`on_data`).
        let handle = unsafe {
            cyclors::dds_create_reader(
                participant.handle(),
                dds_topic.handle(),
                native.as_ptr(),
                listener
                    .as_ref()
                    .map_or(ptr::null(), ReaderListener::as_ptr),
            )
        };
        drop(listener);
        let handle = DdsStatus::check(handle).map_err(|status| {
            link_error(format!(
                "cannot create a DDS reader on {:?}: {status}",
                dds_topic.dds_name()
            ))
        })?;
        // Writers matched while the reader was made, when Cyclone could not be asked.
        if let Some(writers) = &shm_writers {
            writers.refresh(handle);
        }
        Ok(DdsLinkReader {
            handle,
            _topic: dds_topic,
            _participant: participant.keep_alive(),
            capacity: capacity as u32,
            wake: OnceLock::new(),
            writers: Mutex::default(),
            shm_writers,
            entry: None,
        })
    }

    /// A raw sample as tacto sees it: the writer's GUID as publisher, its source timestamp as
    /// publish time, now as receive time (Cyclone does not keep the reception time). DDS
    /// carries no sequence number to the reader: 0.
    fn sample(&self, raw: HeldSample) -> RemoteSample {
        RemoteSample {
            cdr: RemoteBytes::new(raw.cdr),
            info: self.info(raw.source_timestamp_ns, raw.publication_handle),
        }
    }

    /// [`sample`](Self::sample)'s facts alone.
    fn info(&self, source_timestamp_ns: i64, publication_handle: u64) -> SampleInfo {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        SampleInfo {
            publish_time: Time::from_nanos(source_timestamp_ns),
            receive_time: Time::from_nanos(now),
            publisher: self.writer_guid(publication_handle),
            sequence: 0,
        }
    }

    /// The GUID of the writer Cyclone knows as `handle`, or the handle itself if the writer
    /// is gone already.
    fn writer_guid(&self, handle: u64) -> PublisherId {
        let mut writers = self.writers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(guid) = writers.get(&handle) {
            return *guid;
        }
        // SAFETY: our live reader; Cyclone returns a new endpoint description or null.
        let endpoint = unsafe { cyclors::dds_get_matched_publication_data(self.handle, handle) };
        let guid = match endpoint.is_null() {
            true => {
                let mut id = [0; 16];
                id[8..].copy_from_slice(&handle.to_be_bytes());
                return PublisherId(id);
            }
            false => {
                // SAFETY: non-null, so a valid description owned by us until freed here.
                let guid = PublisherId(unsafe { (*endpoint).key.v });
                // SAFETY: frees the description Cyclone allocated for us, once.
                unsafe { cyclors::dds_builtintopic_free_endpoint(endpoint) };
                guid
            }
        };
        if writers.len() >= MAX_KNOWN_WRITERS {
            writers.clear();
        }
        writers.insert(handle, guid);
        guid
    }

    /// Walks the valid samples `mask` selects, oldest first, without copying any; `keep`
    /// says which (by index among the valid ones) to keep, its bytes pinned in Cyclone's
    /// sample. `read` marks the walked samples READ, otherwise nothing changes. Returns the
    /// count and the last sample kept.
    fn walk(&self, mask: u32, read: bool, keep: &dyn Fn(u32) -> bool) -> (u32, Option<HeldSample>) {
        let (count, kept) = self.walk_pinning(mask, read, keep, true);
        (
            count,
            kept.and_then(|(cdr, t, h)| {
                Some(HeldSample {
                    cdr: cdr?,
                    source_timestamp_ns: t,
                    publication_handle: h,
                })
            }),
        )
    }

    /// [`walk`](Self::walk); `bytes` false pins nothing: the sample kept is its source
    /// timestamp and publication handle alone.
    fn walk_pinning(
        &self,
        mask: u32,
        read: bool,
        keep: &dyn Fn(u32) -> bool,
        bytes: bool,
    ) -> (u32, Option<(Option<PinnedCdr>, i64, u64)>) {
        struct Walk<'a> {
            keep: &'a dyn Fn(u32) -> bool,
            bytes: bool,
            count: u32,
            kept: Option<(Option<PinnedCdr>, i64, u64)>,
        }
        unsafe extern "C" fn collect(
            arg: *mut c_void,
            info: *const cyclors::dds_sample_info_t,
            _sertype: *const cyclors::ddsi_sertype,
            serdata: *mut cyclors::ddsi_serdata,
        ) -> cyclors::dds_return_t {
            // SAFETY: `arg` is the `Walk` on the stack of `walk`, alive during the call that
            // runs this callback; Cyclone passes a valid info and a sample it holds.
            let (walk, info) = unsafe { (&mut *arg.cast::<Walk<'_>>(), &*info) };
            if info.valid_data {
                if (walk.keep)(walk.count) {
                    let cdr = match walk.bytes {
                        // SAFETY: Cyclone holds the sample during the callback; the pin
                        // takes a reference of its own, kept past it.
                        true => unsafe { PinnedCdr::pin(serdata) },
                        false => None,
                    };
                    if cdr.is_some() || !walk.bytes {
                        walk.kept = Some((cdr, info.source_timestamp, info.publication_handle));
                    }
                }
                walk.count += 1;
            }
            0
        }
        let mut walk = Walk {
            keep,
            bytes,
            count: 0,
            kept: None,
        };
        let arg: *mut Walk<'_> = &mut walk;
        let function = match read {
            true => cyclors::dds_read_with_collector,
            false => cyclors::dds_peek_with_collector,
        };
        // SAFETY: our live reader; the collector only touches `walk`, alive for the call.
        // A failure leaves `walk` as far as it got: nothing seen is nothing to report.
        unsafe {
            function(
                self.handle,
                self.capacity,
                cyclors::DDS_HANDLE_NIL.into(),
                mask,
                Some(collect),
                arg.cast(),
            )
        };
        (walk.count, walk.kept)
    }

    /// The newest valid sample; `read` marks every sample READ.
    fn newest(&self, read: bool) -> Option<HeldSample> {
        // Counted first, so that one sample is pinned, not all of them (arrivals between the
        // two walks are pinned too: the last one wins).
        let (count, _) = self.walk(cyclors::DDS_ANY_STATE, false, &|_| false);
        let last = count.checked_sub(1)?;
        self.walk(cyclors::DDS_ANY_STATE, read, &|i| i >= last).1
    }
}

impl LinkReader for DdsLinkReader {
    fn next(&self, op: ReadOp) -> Option<RemoteSample> {
        let raw = match op {
            ReadOp::PeekNewest => self.newest(false),
            ReadOp::Latest => self.newest(true),
            // A failed take or read reads as "nothing there": the cache is a history, and
            // Cyclone fails here only for a reader being deleted.
            ReadOp::Take => next_sample(self.handle, Access::Take).ok().flatten(),
            ReadOp::TakeNew => next_sample(self.handle, Access::TakeNew).ok().flatten(),
            ReadOp::ReadNew => next_sample(self.handle, Access::ReadNew).ok().flatten(),
        };
        raw.map(|raw| self.sample(raw))
    }

    fn oldest_info(&self, new_only: bool) -> Option<SampleInfo> {
        let mask = match new_only {
            true => cyclors::DDS_NOT_READ_SAMPLE_STATE,
            false => cyclors::DDS_ANY_STATE,
        };
        let (_, oldest) = self.walk_pinning(mask, false, &|i| i == 0, false);
        oldest.map(|(_, source_timestamp_ns, handle)| self.info(source_timestamp_ns, handle))
    }

    fn unread(&self) -> usize {
        let (count, _) = self.walk(cyclors::DDS_NOT_READ_SAMPLE_STATE, false, &|_| false);
        count as usize
    }

    fn len(&self) -> usize {
        let (count, _) = self.walk(cyclors::DDS_ANY_STATE, false, &|_| false);
        count as usize
    }

    fn incompatible_qos(&self) -> u64 {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_requested_incompatible_qos_status_t =
            unsafe { std::mem::zeroed() };
        // SAFETY: our live reader and a valid, writable status struct.
        let ret =
            unsafe { cyclors::dds_get_requested_incompatible_qos_status(self.handle, &mut status) };
        DdsStatus::check(ret).map_or(0, |_| status.total_count.into())
    }

    fn publishers(&self) -> Option<RemotePublishers> {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_liveliness_changed_status_t = unsafe { std::mem::zeroed() };
        // SAFETY: our live reader and a valid, writable status struct.
        let ret = unsafe { cyclors::dds_get_liveliness_changed_status(self.handle, &mut status) };
        DdsStatus::check(ret).ok()?;
        Some(RemotePublishers {
            alive: usize::try_from(status.alive_count).unwrap_or(0),
            gone: usize::try_from(status.not_alive_count).unwrap_or(0),
        })
    }

    fn on_data(&self, wake: Wake) -> Result<(), LinkError> {
        if self.wake.set(Box::new(wake)).is_err() {
            return Err(link_error("the reader already wakes someone"));
        }
        let Some(wake) = self.wake.get() else {
            return Err(link_error("the reader lost its callback"));
        };
        let wake: &Wake = wake;
        // The whole listener is replaced: a filtering reader's matched callback stays in it.
        let listener = match &self.shm_writers {
            Some(writers) => ReaderListener::new(writers, Some(wake))?,
            None => ReaderListener::data_only(wake)?,
        };
        // SAFETY: our live reader and a valid listener, which Cyclone copies.
        let ret = unsafe { cyclors::dds_set_listener(self.handle, listener.as_ptr()) };
        DdsStatus::check(ret).map(drop).map_err(link_error)
    }
}

/// A reader's Cyclone listener object, deleted on drop (Cyclone copies it into the reader).
struct ReaderListener(*mut cyclors::dds_listener_t);

impl ReaderListener {
    /// Calls `writers` back at each match and unmatch, and `wake` (if any) when data arrives.
    fn new(writers: &ShmWriters, wake: Option<&Wake>) -> Result<Self, LinkError> {
        let listener = match wake {
            Some(wake) => Self::data_only(wake)?,
            None => Self::empty(std::ptr::null())?,
        };
        let arg: *const ShmWriters = writers;
        // SAFETY: a live listener; the callback has the signature Cyclone expects, and
        // `arg` outlives the reader (see the callback).
        unsafe {
            cyclors::dds_lset_subscription_matched_arg(
                listener.0,
                Some(shm_peers::on_subscription_matched),
                arg.cast_mut().cast(),
                true,
            )
        };
        Ok(listener)
    }

    /// Calls `wake` when data arrives.
    fn data_only(wake: &Wake) -> Result<Self, LinkError> {
        let listener = Self::empty(wake)?;
        // SAFETY: a live listener; the callback has the signature Cyclone expects.
        unsafe { cyclors::dds_lset_data_available(listener.0, Some(on_data_available)) };
        Ok(listener)
    }

    /// A listener of nothing yet, with `arg` (the address of a reader's boxed callback) as
    /// its argument.
    fn empty(arg: *const Wake) -> Result<Self, LinkError> {
        // SAFETY: a new listener object, deleted on drop; `arg` stays valid as long as the
        // reader (see the callbacks).
        let listener = unsafe { cyclors::dds_create_listener(arg.cast_mut().cast()) };
        if listener.is_null() {
            return Err(link_error("Cyclone could not allocate a listener"));
        }
        Ok(ReaderListener(listener))
    }

    fn as_ptr(&self) -> *const cyclors::dds_listener_t {
        self.0
    }
}

impl Drop for ReaderListener {
    fn drop(&mut self) {
        // SAFETY: our listener object, deleted once.
        unsafe { cyclors::dds_delete_listener(self.0) };
    }
}

impl Drop for DdsLinkReader {
    fn drop(&mut self) {
        // SAFETY: our own reader, deleted once, before the callback it may call is freed;
        // Cyclone returns only after running listener callbacks finished.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}
