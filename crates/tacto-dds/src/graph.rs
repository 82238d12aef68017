//! This process's part of the ROS graph, published on `ros_discovery_info` as rmw_cyclonedds
//! does, so that ROS 2 tools (and rclpy's `get_node_names_and_namespaces()`) see tacto's nodes
//! and which readers and writers belong to each.
//!
//! DDS discovery alone tells a peer that endpoints exist, not which node owns them: ROS 2 adds
//! one message per participant, `rmw_dds_common/msg/ParticipantEntitiesInfo`, on a reliable,
//! transient-local, keep-last-1 topic, republished whole whenever a node's endpoints change.
//! A node is listed while it has at least one DDS endpoint.
//!
//! A participant has one graph (see `Participant::graph`), announced as soon as it is made,
//! with no nodes at first: rmw announces a participant with its first node only, but a graph
//! tool that sees a ROS 2 participant waits for its announcement (see `discovery.rs`), so
//! tacto's participants announce themselves from the start (a transport's, an observer's).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use cyclors::dds_entity_t;

use crate::naming;
use crate::participant::{Participant, ParticipantInner};
use crate::qos::{Durability, History, Qos, Reliability};
use crate::retcode::DdsStatus;
use crate::topic::Topic;
use crate::user_data;
use crate::writer::write_cdr;
use tacto::Message;

/// `rmw_dds_common/msg/Gid`: a DDS GUID (16 bytes since Iron; Humble used 24).
#[tacto::message("rmw_dds_common/msg/Gid")]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Gid {
    pub(crate) data: [u8; 16],
}

/// `rmw_dds_common/msg/NodeEntitiesInfo`: one node and the GIDs of its readers and writers.
#[tacto::message("rmw_dds_common/msg/NodeEntitiesInfo")]
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct NodeEntitiesInfo {
    pub(crate) node_namespace: String,
    pub(crate) node_name: String,
    pub(crate) reader_gid_seq: Vec<Gid>,
    pub(crate) writer_gid_seq: Vec<Gid>,
}

/// `rmw_dds_common/msg/ParticipantEntitiesInfo`: a participant's nodes. Its hash is Jazzy's
/// (`share/rmw_dds_common/msg/ParticipantEntitiesInfo.json`), which the endpoints of
/// `ros_discovery_info` carry in USER_DATA as rmw_cyclonedds' do: rmw_cyclonedds warns of an
/// endpoint whose USER_DATA holds no pairs.
#[tacto::message(
    "rmw_dds_common/msg/ParticipantEntitiesInfo",
    hash = "RIHS01_91a0593bacdcc50ea9bdcf849a938b128412cc1ea821245c663bcd26f83c295e"
)]
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct ParticipantEntitiesInfo {
    pub(crate) gid: Gid,
    pub(crate) node_entities_info_seq: Vec<NodeEntitiesInfo>,
}

/// Which of a node's endpoints an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Reader,
    Writer,
}

/// A node's fully qualified name → the GIDs of its readers and of its writers.
type Nodes = BTreeMap<String, (Vec<Gid>, Vec<Gid>)>;

/// The nodes of one participant and their endpoints, with the writer that announces them.
#[derive(Debug)]
pub(crate) struct Graph {
    writer: dds_entity_t,
    _topic: Topic,
    _participant: Arc<ParticipantInner>,
    participant_gid: Gid,
    /// A node's fully qualified name (`/ns/name`) → its readers' and writers' GIDs.
    nodes: Mutex<Nodes>,
}

impl Graph {
    /// The graph of `participant`, with its `ros_discovery_info` writer, announced with no
    /// nodes.
    pub(crate) fn new(participant: &Participant) -> Result<Graph, String> {
        let dds_type =
            naming::dds_type_name(ParticipantEntitiesInfo::TYPE_NAME).map_err(|e| e.to_string())?;
        let topic = Topic::with_dds_names(participant, "ros_discovery_info".into(), dds_type)
            .map_err(|e| e.to_string())?;
        let qos = Qos {
            reliability: Reliability::Reliable,
            durability: Durability::TransientLocal,
            history: History::KeepLast(1),
        };
        let native = qos
            .to_native()
            .ok_or("Cyclone could not allocate a QoS object")?;
        if let Some(data) = user_data::with_type_hash("", ParticipantEntitiesInfo::TYPE_HASH) {
            native.set_user_data(&data);
        }
        // SAFETY: live participant and topic handles; the QoS is valid for the call and
        // copied; no listener.
        let writer = unsafe {
            cyclors::dds_create_writer(
                participant.handle(),
                topic.handle(),
                native.as_ptr(),
                std::ptr::null(),
            )
        };
        let writer = DdsStatus::check(writer)
            .map_err(|status| format!("cannot create the ros_discovery_info writer: {status}"))?;
        let participant_gid = Gid {
            data: participant.guid().map_err(|e| e.to_string())?,
        };
        let graph = Graph {
            writer,
            _topic: topic,
            _participant: participant.keep_alive(),
            participant_gid,
            nodes: Mutex::default(),
        };
        graph.announce(&Nodes::new());
        Ok(graph)
    }

    /// Adds endpoint `gid` of `node` and announces the new graph.
    pub(crate) fn add(&self, node: &str, kind: Endpoint, gid: Gid) {
        let mut nodes = self.nodes.lock().unwrap_or_else(PoisonError::into_inner);
        let (readers, writers) = nodes.entry(node.to_owned()).or_default();
        match kind {
            Endpoint::Reader => readers.push(gid),
            Endpoint::Writer => writers.push(gid),
        }
        self.announce(&nodes);
    }

    /// Removes endpoint `gid` of `node` (and the node with its last endpoint), and announces
    /// the new graph.
    pub(crate) fn remove(&self, node: &str, gid: Gid) {
        let mut nodes = self.nodes.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((readers, writers)) = nodes.get_mut(node) else {
            return;
        };
        readers.retain(|g| *g != gid);
        writers.retain(|g| *g != gid);
        if readers.is_empty() && writers.is_empty() {
            nodes.remove(node);
        }
        self.announce(&nodes);
    }

    /// Writes the whole graph; under the lock, so that announcements go out in order. A failed
    /// write leaves the previous announcement standing until the next change: the graph is
    /// for tools, and no data depends on it.
    fn announce(&self, nodes: &Nodes) {
        let info = ParticipantEntitiesInfo {
            gid: self.participant_gid,
            node_entities_info_seq: (nodes.iter())
                .map(|(full_name, (readers, writers))| {
                    let (namespace, name) = split_full_name(full_name);
                    NodeEntitiesInfo {
                        node_namespace: namespace.into(),
                        node_name: name.into(),
                        reader_gid_seq: readers.clone(),
                        writer_gid_seq: writers.clone(),
                    }
                })
                .collect(),
        };
        if let Ok(bytes) = tacto::cdr::to_vec(&info) {
            let _ = write_cdr(self.writer, &bytes);
        }
    }
}

/// `/ns/name` → (`/ns`, `name`); `/name` → (`/`, `name`), as rcl announces them.
fn split_full_name(full_name: &str) -> (&str, &str) {
    match full_name.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((namespace, name)) => (namespace, name),
        None => ("/", full_name),
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: our own writer, deleted once, before its topic (field order).
        unsafe { cyclors::dds_delete(self.writer) };
    }
}

/// The DDS GUID of a reader or writer, as ROS 2's GID.
pub(crate) fn gid_of(entity: dds_entity_t) -> Result<Gid, DdsStatus> {
    let mut guid = cyclors::dds_guid_t { v: [0; 16] };
    // SAFETY: a live entity of ours and a valid, writable GUID.
    DdsStatus::check(unsafe { cyclors::dds_get_guid(entity, &mut guid) })?;
    Ok(Gid { data: guid.v })
}
