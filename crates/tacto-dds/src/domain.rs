//! Which DDS domain to join and how far discovery reaches, read from the environment as rclcpp
//! reads it (`ROS_DOMAIN_ID`, `ROS_AUTOMATIC_DISCOVERY_RANGE`, `ROS_STATIC_PEERS`,
//! `CYCLONEDDS_URI`), and turned into the Cyclone configuration rmw_cyclonedds would build,
//! with one addition: a larger socket receive buffer asked for (`RECEIVE_BUFFER` says why).

use std::env;

/// How far automatic discovery reaches (`ROS_AUTOMATIC_DISCOVERY_RANGE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryRange {
    /// No automatic discovery: multicast off, no peers, a domain tag unique to this process.
    Off,
    /// This host only: multicast off, `localhost` as a unicast peer.
    Localhost,
    /// The reachable network: multicast discovery (rcl's default when the variable is unset).
    Subnet,
    /// Whatever the Cyclone configuration says, untouched.
    SystemDefault,
}

/// Why the environment does not describe a domain to join.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// `ROS_DOMAIN_ID` is not a number Cyclone accepts (0 to 232: higher ids overflow the
    /// UDP port numbers DDS derives from them).
    #[error("ROS_DOMAIN_ID={value:?} is not a domain id (0 to 232)")]
    DomainId {
        /// The variable's value.
        value: String,
    },
    /// `ROS_AUTOMATIC_DISCOVERY_RANGE` is none of `OFF`, `LOCALHOST`, `SUBNET`,
    /// `SYSTEM_DEFAULT`. rcl warns and falls back to LOCALHOST; we refuse, because a typo that
    /// silently changes who can see this process is worth stopping for.
    #[error(
        "ROS_AUTOMATIC_DISCOVERY_RANGE={value:?} is not OFF, LOCALHOST, SUBNET or SYSTEM_DEFAULT"
    )]
    DiscoveryRange {
        /// The variable's value.
        value: String,
    },
    /// An environment variable is not valid Unicode.
    #[error("{name} is not valid UTF-8")]
    NotUnicode {
        /// The variable's name.
        name: &'static str,
    },
}

/// Where and how a [`Participant`](crate::Participant) joins DDS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainConfig {
    /// The DDS domain (`ROS_DOMAIN_ID`, default 0).
    pub domain_id: u32,
    /// How far discovery reaches (`ROS_AUTOMATIC_DISCOVERY_RANGE`, default SUBNET).
    pub discovery_range: DiscoveryRange,
    /// Hosts to discover by unicast whatever the range (`ROS_STATIC_PEERS`, `;`-separated);
    /// used with LOCALHOST and SUBNET, as rmw_cyclonedds does.
    pub static_peers: Vec<String>,
    /// Cyclone configuration (file URIs and/or XML fragments, `CYCLONEDDS_URI`), applied
    /// after the fragment the discovery range produces, so that it can override it.
    pub cyclonedds_uri: Option<String>,
}

/// The highest domain id whose DDS port numbers (7400 + 250 × id + offsets) stay below 65536.
const MAX_DOMAIN_ID: u32 = 232;

/// The socket receive buffer asked of the kernel for each of Cyclone's sockets, where
/// rmw_cyclonedds leaves Cyclone's default (1 MiB asked, which Linux doubles to 2 MiB).
///
/// Why: a sample is sent as a burst of UDP datagrams (4 MiB is about 290 of Cyclone's 14720 B
/// messages), and every datagram that finds the buffer full is dropped by the kernel; a
/// reliable reader then waits for the writer's next heartbeat to ask for it again, and a
/// KEEP_LAST writer that has meanwhile written its depth of newer samples no longer has it,
/// so the sample is lost. A 2 MiB buffer holds half a 4 MiB sample: the receive thread must
/// drain it within a few milliseconds of every burst, which a busy machine does not give it.
/// 10 MiB is the minimum the ROS 2 documentation recommends for Cyclone with large messages.
///
/// It is asked as Cyclone's `max`, not its `min`: the kernel caps it at `net.core.rmem_max`
/// silently and Cyclone goes on with what it got, where a `min` the kernel refuses would make
/// every participant fail on a machine whose `rmem_max` is lower. The kernel takes the memory
/// only for datagrams waiting in the buffer. `CYCLONEDDS_URI` comes after it and overrides it.
const RECEIVE_BUFFER: &str = "10MiB";

impl DomainConfig {
    /// Domain 0, SUBNET discovery, no peers, no Cyclone configuration: what a ROS 2 node gets
    /// with none of the variables set.
    pub fn new(domain_id: u32) -> DomainConfig {
        DomainConfig {
            domain_id,
            discovery_range: DiscoveryRange::Subnet,
            static_peers: Vec::new(),
            cyclonedds_uri: None,
        }
    }

    /// Reads `ROS_DOMAIN_ID`, `ROS_AUTOMATIC_DISCOVERY_RANGE`, `ROS_STATIC_PEERS` and
    /// `CYCLONEDDS_URI`; an unset or empty variable takes its default.
    pub fn from_env() -> Result<DomainConfig, ConfigError> {
        let mut config = DomainConfig::new(0);
        if let Some(value) = var("ROS_DOMAIN_ID")? {
            config.domain_id = value
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|id| *id <= MAX_DOMAIN_ID)
                .ok_or(ConfigError::DomainId { value })?;
        }
        if let Some(value) = var("ROS_AUTOMATIC_DISCOVERY_RANGE")? {
            config.discovery_range = match value.as_str() {
                "OFF" => DiscoveryRange::Off,
                "LOCALHOST" => DiscoveryRange::Localhost,
                "SUBNET" => DiscoveryRange::Subnet,
                "SYSTEM_DEFAULT" => DiscoveryRange::SystemDefault,
                _ => return Err(ConfigError::DiscoveryRange { value }),
            };
        }
        if let Some(value) = var("ROS_STATIC_PEERS")? {
            config.static_peers = value
                .split(';')
                .map(str::trim)
                .filter(|peer| !peer.is_empty())
                .map(String::from)
                .collect();
        }
        config.cyclonedds_uri = var("CYCLONEDDS_URI")?;
        Ok(config)
    }

    /// The configuration string for `dds_create_domain`: a socket receive buffer of 10 MiB
    /// asked for (the kernel caps it at `net.core.rmem_max`), the discovery fragment
    /// rmw_cyclonedds builds for the range (`check_create_domain` in rmw_node.cpp), then
    /// `CYCLONEDDS_URI`, comma-separated (Cyclone applies them in order, a later one
    /// overriding an earlier, and skips empty ones). With
    /// SYSTEM_DEFAULT only `CYCLONEDDS_URI` is given: Cyclone's configuration, untouched.
    ///
    /// # Examples
    ///
    /// ```
    /// use tacto_dds::{DiscoveryRange, DomainConfig};
    ///
    /// let mut config = DomainConfig::new(0);
    /// assert!(config.cyclone_config().contains(r#"<SocketReceiveBufferSize max="10MiB"/>"#));
    /// config.discovery_range = DiscoveryRange::SystemDefault;
    /// assert_eq!(config.cyclone_config(), "");
    /// ```
    pub fn cyclone_config(&self) -> String {
        let mut xml = String::new();
        if self.discovery_range != DiscoveryRange::SystemDefault {
            xml.push_str(&format!(
                "<CycloneDDS><Domain><Internal><SocketReceiveBufferSize max=\"{RECEIVE_BUFFER}\"/>\
                 </Internal></Domain></CycloneDDS>,"
            ));
        }
        xml.push_str(&self.discovery_fragment());
        if let Some(uri) = &self.cyclonedds_uri {
            xml.push_str(uri);
        }
        xml
    }

    /// The fragment rmw_cyclonedds builds for the discovery range and static peers, as it
    /// builds it, with its trailing comma; empty where it builds none.
    fn discovery_fragment(&self) -> String {
        let (localhost_peer, static_peers, no_multicast) = match self.discovery_range {
            DiscoveryRange::Off => (false, false, true),
            DiscoveryRange::Localhost => (true, true, true),
            DiscoveryRange::Subnet => (false, true, false),
            DiscoveryRange::SystemDefault => (false, false, false),
        };
        let mut xml = String::new();
        if localhost_peer || (static_peers && !self.static_peers.is_empty()) || no_multicast {
            xml.push_str("<CycloneDDS><Domain>");
            if no_multicast {
                xml.push_str("<General><AllowMulticast>false</AllowMulticast></General>");
            }
            if no_multicast && !localhost_peer {
                // OFF: a domain tag no other process has, so nothing is discovered; no
                // participant index, so no limit on participants per host.
                xml.push_str("<Discovery><ParticipantIndex>none</ParticipantIndex>");
                xml.push_str(&format!(
                    "<Tag>ros_discovery_off_{}</Tag>",
                    std::process::id()
                ));
            } else {
                // Unicast discovery to peers needs fixed ports: one per participant on a host,
                // 32 of them, as rmw_cyclonedds.
                xml.push_str("<Discovery><ParticipantIndex>auto</ParticipantIndex>");
                xml.push_str("<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>");
            }
            let peers: Vec<&str> = localhost_peer
                .then_some("localhost")
                .into_iter()
                .chain(
                    self.static_peers
                        .iter()
                        .map(String::as_str)
                        .filter(|_| static_peers),
                )
                .collect();
            if !peers.is_empty() {
                xml.push_str("<Peers>");
                for peer in peers {
                    xml.push_str(&format!("<Peer address=\"{}\"/>", xml_escape(peer)));
                }
                xml.push_str("</Peers>");
            }
            xml.push_str("</Discovery></Domain></CycloneDDS>,");
        }
        xml
    }
}

fn var(name: &'static str) -> Result<Option<String>, ConfigError> {
    match env::var(name) {
        Ok(value) if value.is_empty() => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(env::VarError::NotPresent) => Ok(None),
        Err(env::VarError::NotUnicode(_)) => Err(ConfigError::NotUnicode { name }),
    }
}

/// Escapes what would end an XML attribute value early.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What every range but SYSTEM_DEFAULT starts with.
    const BUFFER: &str = "<CycloneDDS><Domain><Internal>\
                          <SocketReceiveBufferSize max=\"10MiB\"/>\
                          </Internal></Domain></CycloneDDS>,";

    // The discovery fragments below are rmw_cyclonedds's (jazzy), as `check_create_domain` in
    // rmw_cyclonedds_cpp/src/rmw_node.cpp builds them for each range.

    #[test]
    fn localhost_disables_multicast_and_peers_with_localhost() {
        let mut config = DomainConfig::new(7);
        config.discovery_range = DiscoveryRange::Localhost;
        config.cyclonedds_uri = Some("file:///tmp/extra.xml".into());
        let discovery = "<CycloneDDS><Domain><General><AllowMulticast>false</AllowMulticast>\
                         </General><Discovery><ParticipantIndex>auto</ParticipantIndex>\
                         <MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>\
                         <Peers><Peer address=\"localhost\"/></Peers>\
                         </Discovery></Domain></CycloneDDS>,";
        assert_eq!(config.discovery_fragment(), discovery);
        assert_eq!(
            config.cyclone_config(),
            format!("{BUFFER}{discovery}file:///tmp/extra.xml")
        );
    }

    #[test]
    fn subnet_without_peers_asks_only_for_the_receive_buffer() {
        assert_eq!(DomainConfig::new(0).discovery_fragment(), "");
        assert_eq!(DomainConfig::new(0).cyclone_config(), BUFFER);
        let mut config = DomainConfig::new(0);
        config.static_peers = vec!["10.0.0.2".into()];
        assert!(
            config
                .cyclone_config()
                .contains("<Peer address=\"10.0.0.2\"/>")
        );
        assert!(!config.cyclone_config().contains("AllowMulticast"));
    }

    #[test]
    fn off_tags_the_domain_with_this_process() {
        let mut config = DomainConfig::new(0);
        config.discovery_range = DiscoveryRange::Off;
        config.static_peers = vec!["ignored".into()];
        let xml = config.cyclone_config();
        assert!(xml.starts_with(BUFFER), "{xml}");
        assert!(xml.contains(&format!("ros_discovery_off_{}", std::process::id())));
        assert!(!xml.contains("Peer"));
    }

    #[test]
    fn system_default_leaves_cyclone_to_its_own_configuration() {
        let mut config = DomainConfig::new(0);
        config.discovery_range = DiscoveryRange::SystemDefault;
        config.static_peers = vec!["10.0.0.2".into()];
        assert_eq!(config.cyclone_config(), "");
        config.cyclonedds_uri = Some("file:///tmp/mine.xml".into());
        assert_eq!(config.cyclone_config(), "file:///tmp/mine.xml");
    }

    #[test]
    fn a_cyclonedds_uri_comes_after_the_receive_buffer_to_override_it() {
        let mut config = DomainConfig::new(0);
        let mine = "<CycloneDDS><Domain><Internal><SocketReceiveBufferSize min=\"64MB\"/>\
                    </Internal></Domain></CycloneDDS>";
        config.cyclonedds_uri = Some(mine.into());
        assert_eq!(config.cyclone_config(), format!("{BUFFER}{mine}"));
    }
}
