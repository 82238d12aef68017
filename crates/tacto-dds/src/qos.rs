//! The QoS of a reader or writer: the subset this groundwork needs (reliability, durability,
//! history), with rclcpp's defaults.

use std::ptr::NonNull;

/// Whether lost samples are repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reliability {
    /// Lost samples are resent (rclcpp's default).
    Reliable,
    /// Lost samples stay lost (`SensorDataQoS`).
    BestEffort,
}

/// Whether a late-joining reader gets samples written before it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Only samples written after matching (rclcpp's default).
    Volatile,
    /// The writer keeps its history for late joiners.
    TransientLocal,
}

/// How many samples a reader or writer keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// The newest `n` samples (at least 1).
    KeepLast(u32),
    /// Every sample, bounded by the resource limits.
    KeepAll,
}

/// The QoS of a [`Writer`](crate::Writer) or [`Reader`](crate::Reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    /// Reliability.
    pub reliability: Reliability,
    /// Durability.
    pub durability: Durability,
    /// History.
    pub history: History,
}

impl Default for Qos {
    /// rclcpp's default profile: reliable, volatile, keep last 10.
    fn default() -> Qos {
        Qos {
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            history: History::KeepLast(10),
        }
    }
}

/// How long a reliable writer may block when a KEEP_ALL history is full: the DDS default,
/// 100 ms (KEEP_LAST writers never block).
const MAX_BLOCKING_NS: i64 = 100_000_000;

impl Qos {
    /// A Cyclone QoS object with these policies, or `None` if Cyclone cannot allocate one.
    pub(crate) fn to_native(self) -> Option<QosHandle> {
        let qos = QosHandle::new()?;
        let reliability = match self.reliability {
            Reliability::Reliable => cyclors::dds_reliability_kind_DDS_RELIABILITY_RELIABLE,
            Reliability::BestEffort => cyclors::dds_reliability_kind_DDS_RELIABILITY_BEST_EFFORT,
        };
        let durability = match self.durability {
            Durability::Volatile => cyclors::dds_durability_kind_DDS_DURABILITY_VOLATILE,
            Durability::TransientLocal => {
                cyclors::dds_durability_kind_DDS_DURABILITY_TRANSIENT_LOCAL
            }
        };
        let (history, depth) = match self.history {
            // Cyclone rejects a depth of 0 when the entity is created; 1 is the least that
            // means anything, and i32::MAX is more than any memory holds.
            History::KeepLast(n) => (
                cyclors::dds_history_kind_DDS_HISTORY_KEEP_LAST,
                i32::try_from(n.max(1)).unwrap_or(i32::MAX),
            ),
            History::KeepAll => (cyclors::dds_history_kind_DDS_HISTORY_KEEP_ALL, -1),
        };
        // SAFETY: `qos` is a live QoS object owned by `QosHandle`; the setters only store
        // plain values into it.
        unsafe {
            cyclors::dds_qset_reliability(qos.as_ptr(), reliability, MAX_BLOCKING_NS);
            cyclors::dds_qset_durability(qos.as_ptr(), durability);
            cyclors::dds_qset_history(qos.as_ptr(), history, depth);
        }
        Some(qos)
    }
}

/// An owned Cyclone `dds_qos_t`, freed on drop.
#[derive(Debug)]
pub(crate) struct QosHandle(NonNull<cyclors::dds_qos_t>);

impl QosHandle {
    /// An empty QoS object (every policy at its default), `None` if allocation failed.
    pub(crate) fn new() -> Option<QosHandle> {
        // SAFETY: no preconditions; returns a new object or null.
        NonNull::new(unsafe { cyclors::dds_create_qos() }).map(QosHandle)
    }

    pub(crate) fn as_ptr(&self) -> *mut cyclors::dds_qos_t {
        self.0.as_ptr()
    }

    /// Sets the USER_DATA policy (rmw_cyclonedds puts `clientid=...;` and `serviceid=...;`
    /// there).
    pub(crate) fn set_user_data(&self, data: &str) {
        // SAFETY: a live QoS object; Cyclone copies `data.len()` bytes from the pointer.
        unsafe { cyclors::dds_qset_userdata(self.as_ptr(), data.as_ptr().cast(), data.len()) };
    }
}

impl Drop for QosHandle {
    fn drop(&mut self) {
        // SAFETY: created by dds_create_qos, freed once, here. Cyclone copies a QoS into the
        // entities created with it, so nothing refers to it any more.
        unsafe { cyclors::dds_delete_qos(self.0.as_ptr()) };
    }
}
