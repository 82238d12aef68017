//! The DDS participant: this process's membership of one DDS domain.
//!
//! Cyclone keeps one domain object per domain id and process, configured when it is created.
//! We create it explicitly (`dds_create_domain`) with the configuration rmw_cyclonedds would
//! build, count the participants using it, and delete it with the last one, as
//! rmw_cyclonedds does; a second configuration for a domain already in use is an error
//! rather than silently ignored.

use std::collections::HashMap;
use std::ffi::CString;
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use cyclors::dds_entity_t;

use crate::domain::{ConfigError, DomainConfig};
use crate::graph::Graph;
use crate::qos::QosHandle;
use crate::retcode::DdsStatus;

/// USER_DATA of every participant: rmw_cyclonedds and rmw_fastrtps register a participant
/// in the ROS graph under its security enclave, `/` when security is off.
const ENCLAVE_USER_DATA: &[u8] = b"enclave=/;";

/// Why a participant could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParticipantError {
    /// The environment does not describe a domain (see [`DomainConfig::from_env`]).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The configuration contains a NUL byte, which cannot cross into C.
    #[error("the Cyclone configuration contains a NUL byte")]
    ConfigNul,
    /// Cyclone refused the domain configuration (bad XML, an unknown interface...).
    #[error(
        "cannot create DDS domain {domain_id} with configuration {config:?}: {status}: {}",
        cyclone_log.join("; ")
    )]
    CreateDomain {
        /// The domain id.
        domain_id: u32,
        /// The configuration string given to Cyclone.
        config: String,
        /// Cyclone's status (for configuration errors, just "Error").
        status: DdsStatus,
        /// What Cyclone logged while failing: the reason, e.g.
        /// `"lo0: does not match an available interface."`.
        cyclone_log: Vec<String>,
    },
    /// This process already uses the domain with another configuration; Cyclone has one
    /// configuration per domain and process.
    #[error("DDS domain {domain_id} is already in use in this process with another configuration")]
    ConfigConflict {
        /// The domain id.
        domain_id: u32,
    },
    /// Cyclone could not allocate a QoS object.
    #[error("Cyclone could not allocate a QoS object")]
    QosAlloc,
    /// `dds_create_participant` failed.
    #[error("cannot create a DDS participant in domain {domain_id}: {status}")]
    CreateParticipant {
        /// The domain id.
        domain_id: u32,
        /// Cyclone's status.
        status: DdsStatus,
    },
}

/// A member of one DDS domain, the parent of every reader and writer of a tacto context.
///
/// Cheap to clone (a reference count); readers and writers keep it alive, so the DDS
/// participant is deleted only after the last of them.
#[derive(Debug, Clone)]
pub struct Participant {
    inner: Arc<ParticipantInner>,
}

#[derive(Debug)]
pub(crate) struct ParticipantInner {
    handle: dds_entity_t,
    domain_id: u32,
    /// Its entry on `ros_discovery_info`, while someone holds it (a transport, its endpoints,
    /// an observer): one writer per participant, as rmw has one per context, so that two
    /// users of the participant never announce two versions of it. Weak: the graph keeps
    /// the participant alive, not the other way round.
    graph: Mutex<Weak<Graph>>,
}

impl Participant {
    /// Joins the domain described by the ROS 2 environment variables (see
    /// [`DomainConfig::from_env`]).
    pub fn from_env() -> Result<Participant, ParticipantError> {
        Participant::new(&DomainConfig::from_env()?)
    }

    /// Joins `config.domain_id` with USER_DATA `enclave=/;`.
    pub fn new(config: &DomainConfig) -> Result<Participant, ParticipantError> {
        acquire_domain(config)?;
        match create_participant(config.domain_id) {
            Ok(handle) => Ok(Participant {
                inner: Arc::new(ParticipantInner {
                    handle,
                    domain_id: config.domain_id,
                    graph: Mutex::default(),
                }),
            }),
            Err(error) => {
                release_domain(config.domain_id);
                Err(error)
            }
        }
    }

    /// The participant's entry on `ros_discovery_info`: the one held already, or a new one,
    /// announced at once with the nodes it has (none).
    pub(crate) fn graph(&self) -> Result<Arc<Graph>, String> {
        let mut held = (self.inner.graph.lock()).unwrap_or_else(PoisonError::into_inner);
        if let Some(graph) = held.upgrade() {
            return Ok(graph);
        }
        let graph = Arc::new(Graph::new(self)?);
        *held = Arc::downgrade(&graph);
        Ok(graph)
    }

    /// The DDS domain id.
    pub fn domain_id(&self) -> u32 {
        self.inner.domain_id
    }

    /// The participant's DDS GUID, which ROS 2 uses as its GID.
    pub fn guid(&self) -> Result<[u8; 16], DdsStatus> {
        let mut guid = cyclors::dds_guid_t { v: [0; 16] };
        // SAFETY: the handle is a live participant (deleted only in Drop) and `guid` is a
        // valid, writable dds_guid_t.
        DdsStatus::check(unsafe { cyclors::dds_get_guid(self.inner.handle, &mut guid) })?;
        Ok(guid.v)
    }

    pub(crate) fn handle(&self) -> dds_entity_t {
        self.inner.handle
    }

    pub(crate) fn keep_alive(&self) -> Arc<ParticipantInner> {
        Arc::clone(&self.inner)
    }
}

fn create_participant(domain_id: u32) -> Result<dds_entity_t, ParticipantError> {
    let qos = QosHandle::new().ok_or(ParticipantError::QosAlloc)?;
    // SAFETY: `qos` is a live QoS object; Cyclone copies the `len` bytes it is given.
    unsafe {
        cyclors::dds_qset_userdata(
            qos.as_ptr(),
            ENCLAVE_USER_DATA.as_ptr().cast(),
            ENCLAVE_USER_DATA.len(),
        )
    };
    // SAFETY: the QoS pointer is valid for the call (Cyclone copies it); a null listener is
    // allowed. The domain exists: `acquire_domain` created or found it.
    let handle = unsafe { cyclors::dds_create_participant(domain_id, qos.as_ptr(), ptr::null()) };
    DdsStatus::check(handle)
        .map_err(|status| ParticipantError::CreateParticipant { domain_id, status })
}

impl Drop for ParticipantInner {
    fn drop(&mut self) {
        // SAFETY: we own the participant handle; deleting it deletes what is left of its
        // children. Nothing can report a failure from here, and Cyclone frees what it can.
        unsafe { cyclors::dds_delete(self.handle) };
        release_domain(self.domain_id);
    }
}

/// The domains this process created, with the participants using each.
struct DomainUse {
    /// Our domain entity, or `None` when someone else in the process created the domain
    /// (then it is not ours to delete).
    handle: Option<dds_entity_t>,
    config: DomainConfig,
    participants: usize,
}

static DOMAINS: Mutex<Option<HashMap<u32, DomainUse>>> = Mutex::new(None);

fn domains() -> MutexGuard<'static, Option<HashMap<u32, DomainUse>>> {
    // A panic elsewhere while holding the lock leaves the map consistent (every update is a
    // single insert, increment or remove), so a poisoned lock is still usable.
    DOMAINS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn acquire_domain(config: &DomainConfig) -> Result<(), ParticipantError> {
    let mut guard = domains();
    let map = guard.get_or_insert_with(HashMap::new);
    if let Some(domain) = map.get_mut(&config.domain_id) {
        if domain.config != *config {
            return Err(ParticipantError::ConfigConflict {
                domain_id: config.domain_id,
            });
        }
        domain.participants += 1;
        return Ok(());
    }
    let text = config.cyclone_config();
    let c_text = CString::new(text.as_str()).map_err(|_| ParticipantError::ConfigNul)?;
    // SAFETY: `c_text` is a valid C string for the duration of the call; Cyclone parses it
    // and keeps nothing of it.
    let (ret, cyclone_log) = crate::log::capture(|| unsafe {
        cyclors::dds_create_domain(config.domain_id, c_text.as_ptr())
    });
    let handle = match DdsStatus::check(ret) {
        Ok(handle) => Some(handle),
        // Another library in this process (or an implicit participant) created the domain
        // first: use it as it is, and leave its deletion to its owner.
        Err(status) if status.code == cyclors::DDS_RETCODE_PRECONDITION_NOT_MET => None,
        Err(status) => {
            return Err(ParticipantError::CreateDomain {
                domain_id: config.domain_id,
                config: text,
                status,
                cyclone_log,
            });
        }
    };
    map.insert(
        config.domain_id,
        DomainUse {
            handle,
            config: config.clone(),
            participants: 1,
        },
    );
    Ok(())
}

fn release_domain(domain_id: u32) {
    let mut guard = domains();
    let Some(map) = guard.as_mut() else { return };
    let Some(domain) = map.get_mut(&domain_id) else {
        return;
    };
    domain.participants -= 1;
    if domain.participants == 0 {
        if let Some(handle) = domain.handle {
            // SAFETY: our own domain entity, and its last participant is gone.
            unsafe { cyclors::dds_delete(handle) };
        }
        map.remove(&domain_id);
    }
}
