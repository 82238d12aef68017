//! Quality of service of a publisher or subscription, with rclcpp's profiles.
//!
//! The history bounds a subscription in every context, and durability applies in every
//! context too: a transient-local publisher keeps its last `history.capacity()` samples for
//! transient-local subscriptions created later (in the process, a transient-local
//! subscription gets nothing old from a volatile publisher, which DDS would not match at
//! all). The other policies are the transport's (DDS): they decide which remote endpoints
//! match and how samples travel between processes; the intra-process path is always reliable.

use std::time::Duration;

use crate::history::History;

/// Whether lost samples are repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reliability {
    /// Lost samples are resent (rclcpp's default).
    Reliable,
    /// Lost samples stay lost (`SensorDataQoS`).
    BestEffort,
}

/// Whether a late-joining subscription gets samples published before it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Durability {
    /// Only samples published after matching (rclcpp's default).
    Volatile,
    /// The publisher keeps its last `depth` samples for late joiners (rclcpp's
    /// `transient_local()`, as for `/tf_static` or a map): a transient-local subscription
    /// created later gets them, oldest first, before anything newer.
    TransientLocal,
}

/// How a publisher shows it is alive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Liveliness {
    /// The transport asserts it (rclcpp's default).
    Automatic,
    /// Each publication asserts it.
    ManualByTopic,
}

/// The QoS profile of a publisher or subscription; see rclcpp's `QoS` for each policy.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{Context, History, Qos};
/// use tacto::msg::std_msgs::String as Text;
///
/// let ctx = Context::new();
/// let mut node = ctx.node("mapper").unwrap();
/// let latched = Qos::default().transient_local().history(History::KeepLast(1));
/// let map = node.publisher::<Text>("map").qos(latched).create().unwrap();
/// map.publish(Text { data: "occupancy".into() });
/// // Created after the publication: a transient-local subscription still gets it.
/// let late = node.subscription::<Text>("map").qos(latched).create().unwrap();
/// assert_eq!(late.take().unwrap().data, "occupancy");
/// let scans = node.subscription::<Text>("scan").qos(Qos::sensor_data()).create().unwrap();
/// assert_eq!(Qos::sensor_data().history, History::KeepLast(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    /// Reliability.
    pub reliability: Reliability,
    /// Durability.
    pub durability: Durability,
    /// How many samples a subscription keeps (and a transient-local publisher keeps for late
    /// joiners).
    pub history: History,
    /// The longest expected gap between two samples; `None`: no deadline.
    pub deadline: Option<Duration>,
    /// How long a sample stays valid after publication; `None`: for ever.
    pub lifespan: Option<Duration>,
    /// Liveliness kind.
    pub liveliness: Liveliness,
    /// How long a publisher may stay silent before it counts as gone; `None`: for ever.
    pub liveliness_lease: Option<Duration>,
}

impl Default for Qos {
    /// rclcpp's default profile: reliable, volatile, keep last 10.
    fn default() -> Self {
        Qos {
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            history: History::KeepLast(10),
            deadline: None,
            lifespan: None,
            liveliness: Liveliness::Automatic,
            liveliness_lease: None,
        }
    }
}

impl Qos {
    /// rclcpp's `SensorDataQoS`: best effort, volatile, keep last 5.
    pub fn sensor_data() -> Self {
        Qos {
            reliability: Reliability::BestEffort,
            history: History::KeepLast(5),
            ..Qos::default()
        }
    }

    /// rclcpp's `ServicesQoS`: reliable, volatile, keep last 10.
    pub fn services_default() -> Self {
        Qos::default()
    }

    /// rclcpp's `ParametersQoS`: reliable, volatile, keep last 1000.
    pub fn parameters() -> Self {
        Qos {
            history: History::KeepLast(1000),
            ..Qos::default()
        }
    }

    /// rclcpp's `SystemDefaultsQoS`, as rmw_cyclonedds resolves "system default" with
    /// Cyclone's defaults: keep last 1, volatile, reliable (Cyclone's default for writers).
    pub fn system_defaults() -> Self {
        Qos {
            history: History::KeepLast(1),
            ..Qos::default()
        }
    }

    /// The same profile, reliable.
    pub fn reliable(self) -> Self {
        Qos {
            reliability: Reliability::Reliable,
            ..self
        }
    }

    /// The same profile, best effort.
    pub fn best_effort(self) -> Self {
        Qos {
            reliability: Reliability::BestEffort,
            ..self
        }
    }

    /// The same profile, transient local.
    pub fn transient_local(self) -> Self {
        Qos {
            durability: Durability::TransientLocal,
            ..self
        }
    }

    /// The same profile with `history`.
    pub fn history(self, history: History) -> Self {
        Qos { history, ..self }
    }
}
