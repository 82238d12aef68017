//! The `--qos-*` options of `topic echo|hz|bw|pub`, as ros2cli has them: a named profile, then
//! single policies over it.

use std::fmt;
use std::str::FromStr;

use tacto_dds::{Durability, History, Qos, Reliability};

/// The QoS a command was asked for; everything left out keeps what the command would choose
/// (for a reader, what the topic's publishers offer; for `topic pub`, rclcpp's default).
///
/// # Examples
/// ```
/// use tacto_graph::qos::{Profile, QosChoice};
/// use tacto_dds::{Durability, History, Qos, Reliability};
///
/// let choice = QosChoice {
///     profile: Some(Profile::SensorData),
///     durability: Some(Durability::TransientLocal),
///     ..QosChoice::default()
/// };
/// let qos = choice.over(Qos::default());
/// assert_eq!(qos.reliability, Reliability::BestEffort); // from the profile
/// assert_eq!(qos.durability, Durability::TransientLocal); // the single policy wins
/// assert_eq!(qos.history, History::KeepLast(5));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QosChoice {
    /// `--qos-profile`: replaces the command's own choice.
    pub profile: Option<Profile>,
    /// `--qos-reliability reliable|best_effort`.
    pub reliability: Option<Reliability>,
    /// `--qos-durability volatile|transient_local`.
    pub durability: Option<Durability>,
    /// `--qos-history keep_last|keep_all`; `keep_last` alone keeps the depth chosen so far.
    pub keep_all: Option<bool>,
    /// `--qos-depth N` (at least 1): the depth of a `keep_last` history.
    pub depth: Option<u32>,
}

impl QosChoice {
    /// `base`, then the profile, then each single policy given.
    pub fn over(&self, base: Qos) -> Qos {
        let mut qos = self.profile.map_or(base, Profile::qos);
        if let Some(reliability) = self.reliability {
            qos.reliability = reliability;
        }
        if let Some(durability) = self.durability {
            qos.durability = durability;
        }
        qos.history = match (self.keep_all, self.depth, qos.history) {
            (Some(true), _, _) => History::KeepAll,
            (_, Some(depth), _) => History::KeepLast(depth.max(1)),
            // keep_last asked without a depth: rclcpp's depth unless one was chosen already.
            (Some(false), None, History::KeepAll) => History::KeepLast(10),
            (_, None, history) => history,
        };
        qos
    }
}

/// rmw's named QoS profiles (`rmw/qos_profiles.h`), as ros2cli's `--qos-profile` offers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `default`: reliable, volatile, keep last 10.
    Default,
    /// `sensor_data`: best effort, volatile, keep last 5.
    SensorData,
    /// `services_default`: reliable, volatile, keep last 10.
    ServicesDefault,
    /// `parameters`: reliable, volatile, keep last 1000.
    Parameters,
    /// `parameter_events`: reliable, volatile, keep last 1000.
    ParameterEvents,
    /// `action_status_default`: reliable, transient local, keep last 1.
    ActionStatusDefault,
}

impl Profile {
    /// Every profile, in ros2cli's order.
    pub const ALL: [Profile; 6] = [
        Profile::Default,
        Profile::SensorData,
        Profile::ServicesDefault,
        Profile::Parameters,
        Profile::ParameterEvents,
        Profile::ActionStatusDefault,
    ];

    /// The profile's policies.
    pub fn qos(self) -> Qos {
        let (reliability, durability, depth) = match self {
            Profile::Default | Profile::ServicesDefault => {
                (Reliability::Reliable, Durability::Volatile, 10)
            }
            Profile::SensorData => (Reliability::BestEffort, Durability::Volatile, 5),
            Profile::Parameters | Profile::ParameterEvents => {
                (Reliability::Reliable, Durability::Volatile, 1000)
            }
            Profile::ActionStatusDefault => (Reliability::Reliable, Durability::TransientLocal, 1),
        };
        Qos {
            reliability,
            durability,
            history: History::KeepLast(depth),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::SensorData => "sensor_data",
            Profile::ServicesDefault => "services_default",
            Profile::Parameters => "parameters",
            Profile::ParameterEvents => "parameter_events",
            Profile::ActionStatusDefault => "action_status_default",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Profile, String> {
        (Profile::ALL.into_iter())
            .find(|profile| profile.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
                format!("unknown QoS profile {s:?}; one of {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_reads_back_from_its_name() {
        for profile in Profile::ALL {
            assert_eq!(profile.to_string().parse::<Profile>(), Ok(profile));
        }
        let error = "sensor".parse::<Profile>().unwrap_err();
        assert!(error.contains("sensor_data"), "{error}");
    }

    #[test]
    fn a_depth_makes_a_keep_last_history_and_keep_all_wins_over_it() {
        let base = Qos::default();
        let depth = QosChoice {
            depth: Some(3),
            ..QosChoice::default()
        };
        assert_eq!(depth.over(base).history, History::KeepLast(3));
        let all = QosChoice {
            keep_all: Some(true),
            ..depth
        };
        assert_eq!(all.over(base).history, History::KeepAll);
        let last = QosChoice {
            keep_all: Some(false),
            ..QosChoice::default()
        };
        let kept_all = Qos {
            history: History::KeepAll,
            ..base
        };
        assert_eq!(last.over(kept_all).history, History::KeepLast(10));
        assert_eq!(
            QosChoice::default().over(kept_all),
            kept_all,
            "nothing asked"
        );
    }
}
