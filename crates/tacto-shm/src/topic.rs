//! The iceoryx2 services of one ROS topic: a publish-subscribe service of CDR bytes and an
//! event service for wake-ups, both named `rt/<topic>`, the type in an attribute.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use iceoryx2::port::event_id::EventId;
use iceoryx2::prelude::{AttributeVerifier, MessagingPattern, ServiceName};
use iceoryx2::service::Service as _;
use iceoryx2::service::attribute::{AttributeKey, AttributeValue};
use iceoryx2::service::builder::event::{EventOpenError, EventOpenOrCreateError};
use iceoryx2::service::builder::publish_subscribe::{
    PublishSubscribeOpenError, PublishSubscribeOpenOrCreateError,
};
use iceoryx2::service::port_factory::{event, publish_subscribe};
use iceoryx2::service::service_hash::ServiceHash;
use iceoryx2_bb_elementary::package_version::PackageVersion;

use crate::header::SampleHeader;
use crate::limits::{Limit, ShmLimits};
use crate::node::{Ipc, ShmNode};

/// The attribute holding the ROS type name (`std_msgs/msg/String`).
const TYPE_KEY: &str = "ros_type";

/// How often opening is retried while another process removes the same service.
const OPEN_ATTEMPTS: u32 = 100;
const OPEN_RETRY_PAUSE: Duration = Duration::from_millis(10);

/// How often a half-created service's static config is looked at again while it is younger
/// than the creation timeout.
const HALF_CREATED_RECHECK: Duration = Duration::from_millis(10);

/// Why a topic's shared-memory services could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TopicError {
    /// The topic name breaks ROS 2's rules.
    #[error(transparent)]
    Name(#[from] tacto::TopicError),
    /// The name is too long or otherwise not an iceoryx2 service name, or the type name does
    /// not fit an iceoryx2 attribute.
    #[error("{name:?} cannot name an iceoryx2 service or attribute")]
    InvalidName {
        /// The service name or type name.
        name: String,
    },
    /// The topic exists in shared memory with another message type.
    #[error(
        "topic {topic:?} carries {existing:?} in shared memory; this endpoint wants {requested:?}"
    )]
    TypeMismatch {
        /// The iceoryx2 service (`rt/chatter`).
        topic: String,
        /// The type of the existing service.
        existing: String,
        /// The type asked for here.
        requested: String,
    },
    /// The topic's service was created by another iceoryx2 version: every process of a host
    /// must use the same one.
    #[error(
        "topic {topic:?} exists in shared memory, created by iceoryx2 {existing}; this process \
         has iceoryx2 {ours}: all processes of a host must use the same iceoryx2 version"
    )]
    Version {
        /// The iceoryx2 service.
        topic: String,
        /// The version its static config names (`another version` if it cannot be read).
        existing: String,
        /// This process's iceoryx2 version.
        ours: String,
    },
    /// The topic exists in shared memory with a smaller limit than this process asks for:
    /// the process that created it set its limits ([`ShmLimits`]).
    #[error(
        "topic {topic:?} was created with {limit} = {existing} on this host; this process asks \
         for {requested}: the process that creates a topic sets its limits, so give every \
         process the same (tacto launch: the [shm] table)"
    )]
    Limits {
        /// The iceoryx2 service.
        topic: String,
        /// Which limit.
        limit: Limit,
        /// The topic's.
        existing: usize,
        /// This process's.
        requested: usize,
    },
    /// The service exists with a different header or iceoryx2 layout (another tacto-shm or
    /// iceoryx2 version), or was left half-created by a process killed while creating it.
    #[error(
        "topic {topic:?} exists in shared memory with an incompatible layout (another tacto-shm \
         or iceoryx2 version, or left half-created by a killed process): {source}"
    )]
    Incompatible {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: PublishSubscribeOpenOrCreateError,
    },
    /// iceoryx2 could not open or create the publish-subscribe service.
    #[error("cannot open the shared-memory service {topic:?}: {source}")]
    Open {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: PublishSubscribeOpenOrCreateError,
    },
    /// iceoryx2 could not open or create the event service.
    #[error("cannot open the shared-memory event service {topic:?}: {source}")]
    Event {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: EventOpenOrCreateError,
    },
}

/// The two services of one topic, opened (or created) by this process.
#[derive(Debug)]
pub(crate) struct Topic {
    pub(crate) name: String,
    pub(crate) data: publish_subscribe::PortFactory<Ipc, [u8], SampleHeader>,
    pub(crate) events: event::PortFactory<Ipc>,
}

/// The one event every notification carries: "data arrived".
pub(crate) const DATA_EVENT: EventId = EventId::new(0);

/// The greatest event id of tacto's event services: they notify only [`DATA_EVENT`].
/// iceoryx2 keeps a counter per id, and every listener's drain swaps each one to zero: with
/// its default of 256 ids that was the largest single cost of a wake-up's receive path
/// (docs/benchmarks.md, "One event id").
pub(crate) const EVENT_ID_MAX: usize = 0;

impl Topic {
    /// Opens topic `ros_name` of type `type_name`, creating its services if no process has.
    pub(crate) fn open(
        node: &ShmNode,
        ros_name: &str,
        type_name: &str,
    ) -> Result<Topic, TopicError> {
        let name = format!("rt{}", tacto::resolve_topic_name(ros_name)?);
        let service_name =
            ServiceName::new(&name).map_err(|_| TopicError::InvalidName { name: name.clone() })?;
        let key = AttributeKey::try_from(TYPE_KEY).map_err(|_| TopicError::InvalidName {
            name: TYPE_KEY.to_owned(),
        })?;
        let value = AttributeValue::try_from(type_name).map_err(|_| TopicError::InvalidName {
            name: type_name.to_owned(),
        })?;
        let verifier = AttributeVerifier::new()
            .require(&key, &value)
            .map_err(|_| TopicError::InvalidName {
                name: type_name.to_owned(),
            })?;

        // A segment left unsized by a killed creator would hang the open.
        crate::leftovers::remove_unsized_segments(node.config());
        let limits = node.limits();
        let open_data = || {
            retry(
                || {
                    node.inner()
                        .service_builder(&service_name)
                        .publish_subscribe::<[u8]>()
                        .user_header::<SampleHeader>()
                        .max_publishers(limits.publishers)
                        .max_subscribers(limits.subscribers)
                        // Each port may be in a process of its own.
                        .max_nodes(limits.publishers + limits.subscribers)
                        .subscriber_max_buffer_size(limits.depth)
                        .subscriber_max_borrowed_samples(limits.held + 1)
                        // Every process asks for its history limit, whatever its
                        // endpoints' durability: the service's history cannot grow later.
                        .history_size(limits.history)
                        .enable_safe_overflow(true)
                        .open_or_create_with_attributes(&verifier)
                },
                |e| {
                    matches!(
                        e,
                        PublishSubscribeOpenOrCreateError::SystemInFlux
                            | PublishSubscribeOpenOrCreateError::PublishSubscribeOpenError(
                                PublishSubscribeOpenError::IsMarkedForDestruction,
                            )
                    )
                },
            )
        };
        let data = match open_data() {
            Err(PublishSubscribeOpenOrCreateError::PublishSubscribeOpenError(
                PublishSubscribeOpenError::HangsInCreation,
            )) if remove_half_created(node, &service_name, MessagingPattern::PublishSubscribe) => {
                open_data()
            }
            opened => opened,
        }
        .map_err(|source| classify(node, &name, &service_name, type_name, source))?;

        let open_events = || {
            node.inner()
                .service_builder(&service_name)
                .event()
                .event_id_max_value(EVENT_ID_MAX)
                .max_notifiers(limits.publishers)
                .max_listeners(limits.subscribers)
                .max_nodes(limits.publishers + limits.subscribers)
                .open_or_create()
        };
        let events = match open_events() {
            Err(EventOpenOrCreateError::EventOpenError(EventOpenError::HangsInCreation))
                if remove_half_created(node, &service_name, MessagingPattern::Event) =>
            {
                open_events()
            }
            opened => opened,
        }
        .map_err(|source| TopicError::Event {
            topic: name.clone(),
            source,
        })?;
        Ok(Topic { name, data, events })
    }
}

/// Opens, retrying while the outcome says another process is removing or re-creating the
/// service (`transient`: iceoryx2 reports that as transient, repeat after a short pause).
pub(crate) fn retry<R, E>(
    mut open: impl FnMut() -> Result<R, E>,
    transient: impl Fn(&E) -> bool,
) -> Result<R, E> {
    let mut attempt = 1;
    loop {
        match open() {
            Err(e) if transient(&e) && attempt < OPEN_ATTEMPTS => {
                attempt += 1;
                std::thread::sleep(OPEN_RETRY_PAUSE);
            }
            outcome => return outcome,
        }
    }
}

/// Turns iceoryx2's open failure into the error that names what differs.
fn classify(
    node: &ShmNode,
    name: &str,
    service_name: &ServiceName,
    requested: &str,
    source: PublishSubscribeOpenOrCreateError,
) -> TopicError {
    use PublishSubscribeOpenError as E;
    match source {
        PublishSubscribeOpenOrCreateError::PublishSubscribeOpenError(E::IncompatibleAttributes) => {
            match existing_type(node, service_name) {
                Some(existing) => TopicError::TypeMismatch {
                    topic: name.to_owned(),
                    existing,
                    requested: requested.to_owned(),
                },
                None => TopicError::Open {
                    topic: name.to_owned(),
                    source,
                },
            }
        }
        PublishSubscribeOpenOrCreateError::PublishSubscribeOpenError(E::VersionMismatch) => {
            let path = static_config_path(node, service_name, MessagingPattern::PublishSubscribe);
            TopicError::Version {
                topic: name.to_owned(),
                existing: (std::fs::read_to_string(path).ok())
                    .and_then(|config| version_in(&config))
                    .unwrap_or_else(|| "another version".into()),
                ours: PackageVersion::get().to_string(),
            }
        }
        PublishSubscribeOpenOrCreateError::PublishSubscribeOpenError(
            E::DoesNotSupportRequestedAmountOfPublishers
            | E::DoesNotSupportRequestedAmountOfSubscribers
            | E::DoesNotSupportRequestedMinBufferSize
            | E::DoesNotSupportRequestedMinSubscriberBorrowedSamples
            | E::DoesNotSupportRequestedMinHistorySize,
        ) => {
            let ours = node.limits();
            let smaller = existing_limits(node, service_name).and_then(|existing| {
                (Limit::ALL.into_iter())
                    .find(|&limit| existing.get(limit) < ours.get(limit))
                    .map(|limit| (limit, existing.get(limit)))
            });
            match smaller {
                Some((limit, existing)) => TopicError::Limits {
                    topic: name.to_owned(),
                    limit,
                    existing,
                    requested: ours.get(limit),
                },
                None => TopicError::Open {
                    topic: name.to_owned(),
                    source,
                },
            }
        }
        PublishSubscribeOpenOrCreateError::PublishSubscribeOpenError(
            E::IncompatibleTypes | E::HangsInCreation | E::ServiceInCorruptedState,
        ) => TopicError::Incompatible {
            topic: name.to_owned(),
            source,
        },
        _ => TopicError::Open {
            topic: name.to_owned(),
            source,
        },
    }
}

/// The iceoryx2 version a service's static config (TOML) names: its `[iceoryx2_version]`
/// table's `major`, `minor` and `patch`. Read by hand: iceoryx2 itself refuses to read a
/// config of another version.
pub(crate) fn version_in(config: &str) -> Option<String> {
    let table = config.split("[iceoryx2_version]").nth(1)?;
    let table = table.split("\n[").next()?;
    let field = |key: &str| {
        (table.lines())
            .filter_map(|line| line.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .and_then(|(_, v)| v.trim().parse::<u16>().ok())
    };
    Some(format!(
        "{}.{}.{}",
        field("major")?,
        field("minor")?,
        field("patch")?
    ))
}

/// The limits the existing service was created with, read from its static config.
fn existing_limits(node: &ShmNode, service_name: &ServiceName) -> Option<ShmLimits> {
    let details = Ipc::details(
        service_name,
        node.config(),
        MessagingPattern::PublishSubscribe,
    )
    .ok()??;
    let config = details.static_details.publish_subscribe();
    Some(ShmLimits {
        publishers: config.max_publishers(),
        subscribers: config.max_subscribers(),
        depth: config.subscriber_max_buffer_size(),
        held: config.subscriber_max_borrowed_samples().saturating_sub(1),
        history: config.history_size(),
    })
}

/// The type name the existing service was created with, read from its static config.
fn existing_type(node: &ShmNode, service_name: &ServiceName) -> Option<String> {
    let details = Ipc::details(
        service_name,
        node.config(),
        MessagingPattern::PublishSubscribe,
    )
    .ok()??;
    let key = AttributeKey::try_from(TYPE_KEY).ok()?;
    let value = details.static_details.attributes().key_value(&key, 0)?;
    Some(value.to_string())
}

/// Removes the static config of a service whose creator was killed while creating it, if
/// that is what blocks the service; returns whether it removed one. Waits for an unfinished
/// one that is younger than the creation timeout to reach it (or be finished).
///
/// iceoryx2 0.10 writes a service's static config file, then makes it read-only once the
/// service is complete; opening waits for that, for `creation_timeout` (1 s by default),
/// then fails with `HangsInCreation`. A process killed in between leaves a writable file
/// that nothing removes (not `cleanup_dead_nodes`, not `force_remove_service`, which
/// cannot read it), so the topic could never be opened again on this host (docs/shm.md).
/// Such a file is removed here once it is older than the creation timeout: no process can
/// have opened a service that was never completed, and its creator has been stuck for
/// longer than iceoryx2 itself allows.
pub(crate) fn remove_half_created(
    node: &ShmNode,
    service: &ServiceName,
    pattern: MessagingPattern,
) -> bool {
    let path = static_config_path(node, service, pattern);
    let timeout = node.config().global.creation_timeout;
    loop {
        let Ok(meta) = std::fs::metadata(&path) else {
            return false;
        };
        if meta.permissions().mode() & 0o222 == 0 {
            // Finished meanwhile: its creator was alive.
            return false;
        }
        let age = meta
            .modified()
            .ok()
            .and_then(|modified| SystemTime::now().duration_since(modified).ok());
        match age {
            Some(age) if age >= timeout => return std::fs::remove_file(&path).is_ok(),
            // iceoryx2's open-or-create may give up before its creation timeout has passed
            // since the file was written (a creator killed just now): it is waited for here,
            // at most that long.
            Some(age) => std::thread::sleep(HALF_CREATED_RECHECK.min(timeout - age)),
            None => return false,
        }
    }
}

/// Where iceoryx2 keeps the static config of `service` (`<root>/services/iox2_<hash>.service`).
pub(crate) fn static_config_path(
    node: &ShmNode,
    service: &ServiceName,
    pattern: MessagingPattern,
) -> PathBuf {
    let global = &node.config().global;
    let hash = ServiceHash::new::<<Ipc as iceoryx2::service::Service>::ServiceNameHasher>(
        service, pattern,
    );
    PathBuf::from(global.root_path().to_string())
        .join(global.service.directory.to_string())
        .join(format!(
            "{}{}{}",
            global.prefix,
            hash.as_str(),
            global.service.static_config_storage_suffix
        ))
}

#[cfg(test)]
mod tests {
    use super::version_in;

    #[test]
    fn the_version_is_read_from_its_table_only() {
        let config = "service_hash = \"ab\"\n\n[iceoryx2_version]\nmajor = 0\nminor = 9\npatch = 2\n\n\
                      [unique_service_id]\npayload_value = 1\n[x]\nmajor = 7\n";
        assert_eq!(version_in(config).as_deref(), Some("0.9.2"));
        assert_eq!(
            version_in("[iceoryx2_version]\nmajor = 1\n[y]\nminor = 2"),
            None
        );
        assert_eq!(version_in("nothing"), None);
    }
}
