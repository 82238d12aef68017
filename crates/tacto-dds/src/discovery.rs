//! The ROS graph as seen from outside: every topic on the domain with its types, publishers
//! and subscribers, and every node, for tools such as `tacto topic list` and `tacto node list`.
//!
//! Cyclone's built-in topics (`DCPSParticipant`, `DCPSPublication`, `DCPSSubscription`) give
//! the endpoints with their topic, type and QoS; `ros_discovery_info` (see `graph.rs`) says
//! which node owns which endpoint. The observer has no node: its participant announces itself
//! with none.
//!
//! # Settling
//!
//! A new participant sees the graph build up over a few hundred milliseconds, and a tool must
//! not print it half-built. [`Discovery::is_settled`] says when it is complete: every ROS 2
//! participant (USER_DATA `enclave=...;`) has announced its nodes, and every endpoint those
//! announcements name has been discovered.
//!
//! Fast DDS peers (rclpy's default) are slow to get there, measured with Cyclone's traces
//! against an rclpy talker on loopback. Fast DDS answers a new participant at once (2 to 9
//! ms), sending its own announcement (SPDP), then its endpoints (SEDP) and, once it has our
//! reader, its `ros_discovery_info` sample, in one burst. Cyclone handles the announcement on
//! its discovery thread and the rest of the burst on its receive thread, so the rest often
//! names a writer Cyclone does not know yet, and is dropped. Fast DDS sends again only at its
//! next heartbeat, 1 s later for endpoints and 3 s for data (its defaults; Cyclone's first
//! acknowledgement, which asks for nothing, restarts that period rather than asking for
//! data). Endpoints came after 1.1 s in 6 runs of 8, node names after 3.0 s in 8 of 8 (the
//! `ros_discovery_info` heartbeat always came before we knew its writer); Cyclone peers take
//! a few milliseconds.
//!
//! - The 3 s wait is avoided: the `ros_discovery_info` reader is made only once a remote
//!   writer of it is known, and made again when a writer known only since then has not
//!   delivered. A new reader is a new late joiner, to which every writer sends its sample at
//!   once, now to a reader that knows it: names come a few milliseconds after the endpoints.
//! - The 1 s wait is not: a second participant does not help (Cyclone keeps what it knows of
//!   a remote writer per domain, and a second local reader of discovery data starts where
//!   the first stands), and no acknowledgement Cyclone can send makes Fast DDS repeat sooner.
//!   So the graph settles 0.3 s after the start when the race is won, 1.1 to 1.2 s when not.

use std::collections::{BTreeMap, HashMap};
use std::ffi::CStr;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cyclors::dds_entity_t;
use tacto::{Liveliness, Message};

use crate::graph::{Graph, ParticipantEntitiesInfo};
use crate::naming;
use crate::participant::{Participant, ParticipantInner};
use crate::qos::{Durability, History, Qos, Reliability};
use crate::reader::{Reader, ReaderError, TakeError};
use crate::retcode::DdsStatus;
use crate::topic::{Topic, TopicError};
use crate::user_data;

/// At most this many endpoints (and as many participants) are tracked; beyond it, new ones
/// are ignored until others leave. A graph that size is far past any robot's.
pub const MAX_ENDPOINTS: usize = 100_000;

/// The graph is never settled sooner than this after the observer started: the time the
/// domain's participants have to answer its announcement (they answer at once: 2 to 9 ms on
/// loopback, against Fast DDS and Cyclone peers alike).
pub const SETTLE_FLOOR: Duration = Duration::from_millis(300);

/// Nor sooner than this after the last change seen (a participant, an endpoint or a node
/// announcement, new or gone): discovery data comes in bursts.
pub const SETTLE_QUIET: Duration = Duration::from_millis(100);

/// A ROS 2 participant whose publications have not appeared this long after it did is taken
/// to have none (a tool's participant that only reads, say): longer than Fast DDS takes to
/// send its endpoints again (1.1 s, see the module's docs).
pub const SILENT_PATIENCE: Duration = Duration::from_millis(1500);

/// The DDS topic of the node announcements.
const NODE_INFO_TOPIC: &str = "ros_discovery_info";

/// Why the graph could not be observed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// A built-in topic reader could not be created.
    #[error("cannot read Cyclone's built-in topic {topic}: {status}")]
    BuiltinReader {
        /// `DCPSPublication`, `DCPSSubscription` or `DCPSParticipant`.
        topic: &'static str,
        /// Cyclone's status.
        status: DdsStatus,
    },
    /// The `ros_discovery_info` topic could not be created.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// The `ros_discovery_info` reader could not be created.
    #[error(transparent)]
    Reader(#[from] ReaderError),
    /// Taking discovery data failed.
    #[error("cannot take discovery data: {0}")]
    Take(DdsStatus),
    /// The participant has no GUID.
    #[error("cannot get the participant's GUID: {0}")]
    Guid(DdsStatus),
    /// The observer's participant could not announce itself on `ros_discovery_info`.
    #[error("cannot announce the observer's participant on ros_discovery_info: {0}")]
    Announce(String),
}

/// A reader or writer on the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointInfo {
    /// Its GUID (ROS 2's GID).
    pub gid: [u8; 16],
    /// Its node, `/namespace/name` (`/talker`), once `ros_discovery_info` has named it.
    pub node: Option<String>,
    /// Its ROS type (`std_msgs/msg/String`), or the DDS type name if it has no ROS form.
    pub ros_type: String,
    /// Its reliability.
    pub reliability: Reliability,
    /// Its durability.
    pub durability: Durability,
    /// Its deadline; `None`: infinite (none).
    pub deadline: Option<Duration>,
    /// Its lifespan; `None`: infinite.
    pub lifespan: Option<Duration>,
    /// Its liveliness kind.
    pub liveliness: Liveliness,
    /// Its liveliness lease; `None`: infinite.
    pub liveliness_lease: Option<Duration>,
    /// The type hash it sent (`RIHS01_<64 hex>`, USER_DATA `typehash=...;`, ROS 2 Jazzy and
    /// later); `None` if it sent none or a malformed one.
    pub type_hash: Option<String>,
}

/// A ROS topic (DDS topic `rt/...`) and its endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicInfo {
    /// The ROS name, `/chatter`.
    pub name: String,
    /// Every type its endpoints use (more than one is a misconfigured graph), sorted.
    pub types: Vec<String>,
    /// Its writers.
    pub publishers: Vec<EndpointInfo>,
    /// Its readers.
    pub subscribers: Vec<EndpointInfo>,
}

/// A ROS service (DDS topics `rq/<name>Request` and `rr/<name>Reply`) and its endpoints, as
/// seen on the request topic.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServiceInfo {
    /// The ROS name, `/add_two_ints`.
    pub name: String,
    /// Every service type its endpoints use (`example_interfaces/srv/AddTwoInts`), sorted.
    pub types: Vec<String>,
    /// Its servers (request readers), each with the service type as `ros_type`.
    pub servers: Vec<EndpointInfo>,
    /// Its clients (request writers).
    pub clients: Vec<EndpointInfo>,
}

#[derive(Debug, Clone)]
struct Endpoint {
    /// When this observer first saw it.
    seen: Instant,
    participant: [u8; 16],
    is_writer: bool,
    dds_topic: String,
    dds_type: String,
    reliability: Reliability,
    durability: Durability,
    deadline: Option<Duration>,
    lifespan: Option<Duration>,
    liveliness: Liveliness,
    liveliness_lease: Option<Duration>,
    type_hash: Option<String>,
}

/// A participant of the domain, as discovery last described it.
#[derive(Debug, Clone, Copy)]
struct Peer {
    /// When this observer first saw it.
    seen: Instant,
    /// Its USER_DATA names a security enclave (`enclave=/;`), as rmw and tacto participants'
    /// do: a ROS 2 participant, which announces its nodes.
    ros: bool,
}

/// An observer of the ROS graph on one domain.
///
/// Call [`Discovery::refresh`] to take what discovery learned since the last call; the views
/// ([`Discovery::topics`], [`Discovery::nodes`]) are of the last refresh, and
/// [`Discovery::is_settled`] says whether it was complete. Endpoints of the observer's own
/// participants are left out. Its participant announces itself on `ros_discovery_info`,
/// with no nodes (or with the nodes a transport on the same participant has).
///
/// # Examples
/// ```no_run
/// use std::time::{Duration, Instant};
///
/// let participant = tacto_dds::Participant::from_env()?;
/// let mut graph = tacto_dds::Discovery::new(&participant)?;
/// let deadline = Instant::now() + Duration::from_secs(5);
/// graph.refresh()?;
/// while !graph.is_settled() && Instant::now() < deadline {
///     std::thread::sleep(Duration::from_millis(10));
///     graph.refresh()?;
/// }
/// assert!(graph.is_settled(), "discovery did not settle in 5 s");
/// for topic in graph.topics() {
///     println!("{} [{}]", topic.name, topic.types.join(", "));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Discovery {
    participant: Participant,
    participants: BuiltinReader,
    publications: BuiltinReader,
    subscriptions: BuiltinReader,
    /// The `ros_discovery_info` reader, made once a remote writer of it is known, and when
    /// it was made (see the module's docs).
    node_info: Option<(Reader<ParticipantEntitiesInfo>, Instant)>,
    /// The observer's participant's own announcement.
    _announced: Arc<Graph>,
    /// The observer's participant.
    own: [u8; 16],
    /// The other participants.
    peers: HashMap<[u8; 16], Peer>,
    endpoints: HashMap<[u8; 16], Endpoint>,
    /// The last `ros_discovery_info` of each participant (until it leaves).
    nodes: HashMap<[u8; 16], ParticipantEntitiesInfo>,
    started: Instant,
    /// When the last change was seen.
    changed: Instant,
}

impl Discovery {
    /// Starts observing the domain of `participant`, and announces it on `ros_discovery_info`
    /// (with no nodes, unless a transport on it has some).
    pub fn new(participant: &Participant) -> Result<Discovery, DiscoveryError> {
        let now = Instant::now();
        let own = participant.guid().map_err(DiscoveryError::Guid)?;
        Ok(Discovery {
            participants: BuiltinReader::new(
                participant,
                cyclors::DDS_BUILTIN_TOPIC_DCPSPARTICIPANT,
                "DCPSParticipant",
            )?,
            publications: BuiltinReader::new(
                participant,
                cyclors::DDS_BUILTIN_TOPIC_DCPSPUBLICATION,
                "DCPSPublication",
            )?,
            subscriptions: BuiltinReader::new(
                participant,
                cyclors::DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION,
                "DCPSSubscription",
            )?,
            node_info: None,
            _announced: participant.graph().map_err(DiscoveryError::Announce)?,
            participant: participant.clone(),
            own,
            peers: HashMap::new(),
            endpoints: HashMap::new(),
            nodes: HashMap::new(),
            started: now,
            changed: now,
        })
    }

    /// Takes what discovery learned since the last call (and remakes the `ros_discovery_info`
    /// reader if a writer of it has not delivered, see the module's docs).
    pub fn refresh(&mut self) -> Result<(), DiscoveryError> {
        let now = Instant::now();
        let (alive, departed) = self.participants.take_participants()?;
        for key in departed {
            self.changed = now;
            self.peers.remove(&key);
            self.nodes.remove(&key);
            self.endpoints.retain(|_, e| e.participant != key);
        }
        for (key, ros) in alive {
            if key == self.own
                || (self.peers.len() >= MAX_ENDPOINTS && !self.peers.contains_key(&key))
            {
                continue;
            }
            // Only news is a change: a participant's announcement may come again unchanged.
            match self.peers.get_mut(&key) {
                Some(peer) if peer.ros == ros => {}
                Some(peer) => {
                    peer.ros = ros;
                    self.changed = now;
                }
                None => {
                    self.peers.insert(key, Peer { seen: now, ros });
                    self.changed = now;
                }
            }
        }
        for (reader, is_writer) in [(&self.publications, true), (&self.subscriptions, false)] {
            let (alive, gone) = reader.take_endpoints(is_writer, now)?;
            for key in gone {
                self.changed = now;
                self.endpoints.remove(&key);
            }
            for (key, mut endpoint) in alive {
                if endpoint.participant == self.own
                    || (self.endpoints.len() >= MAX_ENDPOINTS && !self.endpoints.contains_key(&key))
                {
                    continue;
                }
                match self.endpoints.get(&key) {
                    Some(known) => endpoint.seen = known.seen,
                    None => self.changed = now,
                }
                self.endpoints.insert(key, endpoint);
            }
        }
        self.take_node_info(now)?;
        self.renew_node_info(now)
    }

    fn take_node_info(&mut self, now: Instant) -> Result<(), DiscoveryError> {
        let Some((reader, _)) = &self.node_info else {
            return Ok(());
        };
        loop {
            match reader.take() {
                // Kept even if its participant is not known yet (its announcement may come
                // first); a participant that leaves takes its entry along.
                Ok(Some(info)) => {
                    if self.nodes.len() < MAX_ENDPOINTS || self.nodes.contains_key(&info.gid.data) {
                        if self.nodes.get(&info.gid.data) != Some(&info) {
                            self.changed = now;
                        }
                        self.nodes.insert(info.gid.data, info);
                    }
                }
                Ok(None) => return Ok(()),
                // A malformed announcement is gone from the cache: go on with the next.
                Err(TakeError::Decode { .. }) => continue,
                Err(TakeError::Take(status)) => return Err(DiscoveryError::Take(status)),
                Err(_) => continue,
            }
        }
    }

    /// Makes the `ros_discovery_info` reader anew if a remote writer of it that has not
    /// delivered was discovered after the reader was made (or there is no reader yet).
    fn renew_node_info(&mut self, now: Instant) -> Result<(), DiscoveryError> {
        let made = self.node_info.as_ref().map(|(_, made)| *made);
        let waiting = (self.endpoints.values()).any(|e| {
            e.is_writer
                && e.dds_topic == NODE_INFO_TOPIC
                && !self.nodes.contains_key(&e.participant)
                && made.is_none_or(|made| e.seen > made)
        });
        if !waiting {
            return Ok(());
        }
        // The old reader goes first: the writers see one late joiner after the other.
        self.node_info = None;
        let dds_type =
            naming::dds_type_name(ParticipantEntitiesInfo::TYPE_NAME).map_err(TopicError::from)?;
        let topic = Topic::with_dds_names(&self.participant, NODE_INFO_TOPIC.into(), dds_type)?;
        // As rmw's readers of it: every participant's latest announcement, late joiners too.
        let qos = Qos {
            reliability: Reliability::Reliable,
            durability: Durability::TransientLocal,
            history: History::KeepAll,
        };
        let user_data = user_data::with_type_hash("", ParticipantEntitiesInfo::TYPE_HASH);
        let reader = Reader::on_topic(&self.participant, topic, qos, user_data.as_deref())?;
        self.node_info = Some((reader, now));
        self.take_node_info(now)
    }

    /// True if the last refresh saw the whole graph: at least [`SETTLE_FLOOR`] after the start
    /// and [`SETTLE_QUIET`] after the last change, every ROS 2 participant has announced its
    /// nodes and every endpoint it names is known. A ROS 2 participant whose
    /// `ros_discovery_info` writer is not known for [`SILENT_PATIENCE`] (none of its
    /// publications, or not that one) is taken to announce nothing. Other participants
    /// (plain DDS) are not waited for.
    pub fn is_settled(&self) -> bool {
        let now = Instant::now();
        if now < self.started + SETTLE_FLOOR || now < self.changed + SETTLE_QUIET {
            return false;
        }
        // Participant → whether it has a `ros_discovery_info` writer, for those that publish.
        let mut publishers: HashMap<[u8; 16], bool> = HashMap::new();
        for endpoint in self.endpoints.values().filter(|e| e.is_writer) {
            *publishers.entry(endpoint.participant).or_default() |=
                endpoint.dds_topic == NODE_INFO_TOPIC;
        }
        (self.peers.iter()).all(|(key, peer)| {
            if !peer.ros {
                return true;
            }
            if let Some(info) = self.nodes.get(key) {
                return (info.node_entities_info_seq.iter())
                    .flat_map(|node| node.reader_gid_seq.iter().chain(&node.writer_gid_seq))
                    .all(|gid| self.endpoints.contains_key(&gid.data));
            }
            // Its ros_discovery_info writer may be among the endpoints not known yet (Fast DDS
            // sends them in bursts that Cyclone may take in part): waited for as long as a
            // silent participant is.
            match publishers.get(key) {
                Some(true) => false,
                None | Some(false) => now >= peer.seen + SILENT_PATIENCE,
            }
        })
    }

    /// Endpoint GID → its node's full name.
    fn node_of(&self) -> HashMap<[u8; 16], String> {
        let mut map = HashMap::new();
        for info in self.nodes.values() {
            for node in &info.node_entities_info_seq {
                let name = full_name(&node.node_namespace, &node.node_name);
                for gid in node.reader_gid_seq.iter().chain(&node.writer_gid_seq) {
                    map.insert(gid.data, name.clone());
                }
            }
        }
        map
    }

    /// The ROS topics (DDS topics `rt/...`), sorted by name.
    pub fn topics(&self) -> Vec<TopicInfo> {
        let node_of = self.node_of();
        let mut topics: BTreeMap<String, TopicInfo> = BTreeMap::new();
        for (gid, endpoint) in &self.endpoints {
            let Some(name) = endpoint.dds_topic.strip_prefix("rt") else {
                continue;
            };
            if !name.starts_with('/') {
                continue;
            }
            let topic = topics.entry(name.to_owned()).or_insert_with(|| TopicInfo {
                name: name.to_owned(),
                ..TopicInfo::default()
            });
            let info = EndpointInfo {
                gid: *gid,
                node: node_of.get(gid).cloned(),
                ros_type: ros_type_name(&endpoint.dds_type),
                reliability: endpoint.reliability,
                durability: endpoint.durability,
                deadline: endpoint.deadline,
                lifespan: endpoint.lifespan,
                liveliness: endpoint.liveliness,
                liveliness_lease: endpoint.liveliness_lease,
                type_hash: endpoint.type_hash.clone(),
            };
            if !topic.types.contains(&info.ros_type) {
                topic.types.push(info.ros_type.clone());
                topic.types.sort();
            }
            match endpoint.is_writer {
                true => topic.publishers.push(info),
                false => topic.subscribers.push(info),
            }
        }
        topics.into_values().collect()
    }

    /// The ROS services (DDS request topics `rq/<name>Request`), sorted by name.
    pub fn services(&self) -> Vec<ServiceInfo> {
        let node_of = self.node_of();
        let mut services: BTreeMap<String, ServiceInfo> = BTreeMap::new();
        for (gid, endpoint) in &self.endpoints {
            let name = (endpoint.dds_topic.strip_prefix("rq"))
                .and_then(|n| n.strip_suffix("Request"))
                .filter(|n| n.starts_with('/'));
            let Some(name) = name else {
                continue;
            };
            let ros_type = ros_type_name(&endpoint.dds_type);
            let info = EndpointInfo {
                gid: *gid,
                node: node_of.get(gid).cloned(),
                ros_type: (ros_type.strip_suffix("_Request").map(str::to_owned))
                    .unwrap_or(ros_type),
                reliability: endpoint.reliability,
                durability: endpoint.durability,
                deadline: endpoint.deadline,
                lifespan: endpoint.lifespan,
                liveliness: endpoint.liveliness,
                liveliness_lease: endpoint.liveliness_lease,
                type_hash: endpoint.type_hash.clone(),
            };
            let service = services
                .entry(name.to_owned())
                .or_insert_with(|| ServiceInfo {
                    name: name.to_owned(),
                    ..ServiceInfo::default()
                });
            if !service.types.contains(&info.ros_type) {
                service.types.push(info.ros_type.clone());
                service.types.sort();
            }
            match endpoint.is_writer {
                true => service.clients.push(info),
                false => service.servers.push(info),
            }
        }
        services.into_values().collect()
    }

    /// The nodes of every participant alive, `/namespace/name`, sorted (a name two nodes
    /// share is listed twice, as ros2cli does).
    pub fn nodes(&self) -> Vec<String> {
        let mut names: Vec<String> = (self.nodes.values())
            .flat_map(|info| &info.node_entities_info_seq)
            .map(|node| full_name(&node.node_namespace, &node.node_name))
            .collect();
        names.sort();
        names
    }
}

fn full_name(namespace: &str, name: &str) -> String {
    if namespace.ends_with('/') {
        format!("{namespace}{name}")
    } else {
        format!("{namespace}/{name}")
    }
}

/// `pkg::msg::dds_::Type_` → `pkg/msg/Type`; another name stays as it is.
pub fn ros_type_name(dds_type: &str) -> String {
    let parts: Vec<&str> = dds_type.split("::").collect();
    match parts[..] {
        [package, kind, "dds_", name] if name.ends_with('_') && name.len() > 1 => {
            format!("{package}/{kind}/{}", &name[..name.len() - 1])
        }
        _ => dds_type.to_owned(),
    }
}

/// A reader of one of Cyclone's built-in topics, whose samples are C structs on loan.
#[derive(Debug)]
struct BuiltinReader {
    handle: dds_entity_t,
    _participant: Arc<ParticipantInner>,
}

/// Samples taken per call.
const BATCH: usize = 64;

impl BuiltinReader {
    fn new(
        participant: &Participant,
        builtin: dds_entity_t,
        topic: &'static str,
    ) -> Result<BuiltinReader, DiscoveryError> {
        // SAFETY: a live participant and one of Cyclone's built-in topic pseudo-handles; null
        // QoS and listener take the built-in topic's defaults.
        let handle = unsafe {
            cyclors::dds_create_reader(participant.handle(), builtin, ptr::null(), ptr::null())
        };
        let handle = DdsStatus::check(handle)
            .map_err(|status| DiscoveryError::BuiltinReader { topic, status })?;
        Ok(BuiltinReader {
            handle,
            _participant: participant.keep_alive(),
        })
    }

    /// Takes every sample, calling `each(sample, alive)` with a pointer to the loaned sample;
    /// for a sample without data (an instance disposed), only its key fields are valid.
    fn take_all(
        &self,
        mut each: impl FnMut(*const std::ffi::c_void, bool),
    ) -> Result<(), DiscoveryError> {
        loop {
            let mut buf: [*mut std::ffi::c_void; BATCH] = [ptr::null_mut(); BATCH];
            // SAFETY: an all-zero sample info is a valid value of this plain C struct.
            let mut infos: [cyclors::dds_sample_info_t; BATCH] = unsafe { std::mem::zeroed() };
            // SAFETY: our live reader; `buf` and `infos` hold BATCH entries as `bufsz` and
            // `maxs` say; buf[0] null asks Cyclone to loan the samples.
            let n = unsafe {
                cyclors::dds_take(
                    self.handle,
                    buf.as_mut_ptr(),
                    infos.as_mut_ptr(),
                    BATCH,
                    BATCH as u32,
                )
            };
            let n = DdsStatus::check(n).map_err(DiscoveryError::Take)? as usize;
            for (sample, info) in buf.iter().zip(&infos).take(n) {
                let alive = info.instance_state == cyclors::dds_instance_state_DDS_IST_ALIVE;
                if !alive {
                    each(sample.cast_const(), false);
                } else if info.valid_data {
                    each(sample.cast_const(), true);
                }
            }
            if n > 0 {
                // SAFETY: returns the loan `dds_take` made into `buf`, `n` samples.
                unsafe { cyclors::dds_return_loan(self.handle, buf.as_mut_ptr(), n as i32) };
            }
            if n < BATCH {
                return Ok(());
            }
        }
    }

    /// The participants that appeared (or changed), each with whether its USER_DATA names an
    /// enclave, and the keys of those that left.
    #[allow(clippy::type_complexity)]
    fn take_participants(&self) -> Result<(Vec<([u8; 16], bool)>, Vec<[u8; 16]>), DiscoveryError> {
        let (mut alive, mut gone) = (Vec::new(), Vec::new());
        self.take_all(|sample, is_alive| {
            // SAFETY: a DCPSParticipant sample on loan is a dds_builtintopic_participant_t;
            // its key is valid even without data, its QoS (null or owned by the sample) with.
            let participant = unsafe { &*sample.cast::<cyclors::dds_builtintopic_participant_t>() };
            if !is_alive {
                gone.push(participant.key.v);
                return;
            }
            // SAFETY: as above: with data, the QoS is null or valid.
            let user_data = unsafe { user_data::read(participant.qos) };
            let ros = user_data.is_some_and(|text| user_data::value(&text, "enclave").is_some());
            alive.push((participant.key.v, ros));
        })?;
        Ok((alive, gone))
    }

    /// The endpoints that appeared and the keys of those that left.
    #[allow(clippy::type_complexity)]
    fn take_endpoints(
        &self,
        is_writer: bool,
        now: Instant,
    ) -> Result<(Vec<([u8; 16], Endpoint)>, Vec<[u8; 16]>), DiscoveryError> {
        let (mut alive, mut gone) = (Vec::new(), Vec::new());
        self.take_all(|sample, is_alive| {
            // SAFETY: a DCPSPublication/DCPSSubscription sample on loan is a
            // dds_builtintopic_endpoint_t, valid until the loan is returned after this call.
            let ep = unsafe { &*sample.cast::<cyclors::dds_builtintopic_endpoint_t>() };
            if !is_alive {
                gone.push(ep.key.v);
                return;
            }
            // SAFETY: with data, the names are NUL-terminated strings owned by the sample
            // (checked for null), and the QoS pointer is null or a QoS owned by it.
            let endpoint = unsafe {
                Endpoint {
                    seen: now,
                    participant: ep.participant_key.v,
                    is_writer,
                    dds_topic: c_string(ep.topic_name),
                    dds_type: c_string(ep.type_name),
                    reliability: reliability(ep.qos),
                    durability: durability(ep.qos),
                    deadline: deadline(ep.qos),
                    lifespan: lifespan(ep.qos),
                    liveliness: liveliness(ep.qos).0,
                    liveliness_lease: liveliness(ep.qos).1,
                    type_hash: user_data::read(ep.qos).and_then(|text| user_data::type_hash(&text)),
                }
            };
            alive.push((ep.key.v, endpoint));
        })?;
        Ok((alive, gone))
    }
}

impl Drop for BuiltinReader {
    fn drop(&mut self) {
        // SAFETY: our own reader handle, deleted once.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}

/// # Safety
/// `text` is null or a NUL-terminated string alive for the call.
unsafe fn c_string(text: *const std::ffi::c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    // SAFETY: the caller's guarantee.
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// # Safety
/// `qos` is null or a live QoS object.
unsafe fn reliability(qos: *const cyclors::dds_qos_t) -> Reliability {
    let mut kind = cyclors::dds_reliability_kind_DDS_RELIABILITY_BEST_EFFORT;
    let mut blocking = 0;
    // SAFETY: the caller's guarantee; the out-parameters are valid.
    let set =
        !qos.is_null() && unsafe { cyclors::dds_qget_reliability(qos, &mut kind, &mut blocking) };
    match set && kind == cyclors::dds_reliability_kind_DDS_RELIABILITY_RELIABLE {
        true => Reliability::Reliable,
        false => Reliability::BestEffort,
    }
}

/// # Safety
/// `qos` is null or a live QoS object.
unsafe fn durability(qos: *const cyclors::dds_qos_t) -> Durability {
    let mut kind = cyclors::dds_durability_kind_DDS_DURABILITY_VOLATILE;
    // SAFETY: the caller's guarantee; the out-parameter is valid.
    let set = !qos.is_null() && unsafe { cyclors::dds_qget_durability(qos, &mut kind) };
    match set && kind == cyclors::dds_durability_kind_DDS_DURABILITY_TRANSIENT_LOCAL {
        true => Durability::TransientLocal,
        false => Durability::Volatile,
    }
}

/// Cyclone's `DDS_INFINITY` (a macro bindgen does not carry over).
const INFINITY: cyclors::dds_duration_t = i64::MAX;

/// A DDS duration as an optional `Duration`: `None` for infinity (and anything negative).
fn finite(duration: cyclors::dds_duration_t) -> Option<Duration> {
    match duration {
        INFINITY => None,
        nanos => u64::try_from(nanos).ok().map(Duration::from_nanos),
    }
}

/// # Safety
/// `qos` is null or a live QoS object.
unsafe fn deadline(qos: *const cyclors::dds_qos_t) -> Option<Duration> {
    let mut period = INFINITY;
    // SAFETY: the caller's guarantee; the out-parameter is valid.
    let set = !qos.is_null() && unsafe { cyclors::dds_qget_deadline(qos, &mut period) };
    set.then(|| finite(period)).flatten()
}

/// # Safety
/// `qos` is null or a live QoS object.
unsafe fn lifespan(qos: *const cyclors::dds_qos_t) -> Option<Duration> {
    let mut span = INFINITY;
    // SAFETY: the caller's guarantee; the out-parameter is valid.
    let set = !qos.is_null() && unsafe { cyclors::dds_qget_lifespan(qos, &mut span) };
    set.then(|| finite(span)).flatten()
}

/// # Safety
/// `qos` is null or a live QoS object.
unsafe fn liveliness(qos: *const cyclors::dds_qos_t) -> (Liveliness, Option<Duration>) {
    let mut kind = cyclors::dds_liveliness_kind_DDS_LIVELINESS_AUTOMATIC;
    let mut lease = INFINITY;
    // SAFETY: the caller's guarantee; the out-parameters are valid.
    let set = !qos.is_null() && unsafe { cyclors::dds_qget_liveliness(qos, &mut kind, &mut lease) };
    if !set {
        return (Liveliness::Automatic, None);
    }
    let kind = match kind {
        cyclors::dds_liveliness_kind_DDS_LIVELINESS_MANUAL_BY_TOPIC => Liveliness::ManualByTopic,
        _ => Liveliness::Automatic,
    };
    (kind, finite(lease))
}

#[cfg(test)]
mod tests {
    #[test]
    fn dds_type_names_become_ros_names() {
        assert_eq!(
            super::ros_type_name("std_msgs::msg::dds_::String_"),
            "std_msgs/msg/String"
        );
        assert_eq!(super::ros_type_name("DDS::Other"), "DDS::Other");
    }
}
