//! The iceoryx2 services of one ROS service: a request-response service of CDR bytes named
//! `rq/<service>`, the request and response type names in attributes, and two event services
//! for wake-ups, `rq/<service>` (a client wakes the servers) and `rr/<service>` (a server
//! wakes the clients).

use iceoryx2::config::Config;
use iceoryx2::port::client::Client;
use iceoryx2::port::listener::ListenerCreateError;
use iceoryx2::port::notifier::{Notifier, NotifierCreateError};
use iceoryx2::prelude::{
    AllocationStrategy, AttributeVerifier, CallbackProgression, MessagingPattern, PortFactory as _,
    ServiceName, ZeroCopySend,
};
use iceoryx2::service::Service as _;
use iceoryx2::service::attribute::{AttributeKey, AttributeValue};
use iceoryx2::service::builder::event::{EventOpenError, EventOpenOrCreateError};
use iceoryx2::service::builder::request_response::{
    RequestResponseOpenError, RequestResponseOpenOrCreateError,
};
use iceoryx2::service::port_factory::client::ClientCreateError;
use iceoryx2::service::port_factory::server::ServerCreateError;
use iceoryx2::service::port_factory::{event, request_response};
use iceoryx2_bb_elementary::package_version::PackageVersion;
use tacto::RequestId;

use crate::node::{Ipc, ShmNode, liveliness};
use crate::topic::{EVENT_ID_MAX, remove_half_created, retry, static_config_path, version_in};
use crate::wake_up::WakeUp;

/// Servers of one service name on this host, all processes together. A request goes to every
/// server; the first answer wins. Two, so that a restarted server finds a place while a killed
/// one is still listed (until a dead-node cleanup removes it).
pub const MAX_SERVERS: usize = 2;
/// Clients of one service name on this host (ports of [`ShmTransport`](crate::ShmTransport)
/// clients, all processes together).
pub const MAX_CLIENTS: usize = 16;
/// Requests of one client in flight at once (sent, not yet answered): a 17th makes the client
/// forget its oldest (see `ShmClientLink`). Also each server's request buffer per client.
pub const MAX_IN_FLIGHT: usize = 16;

/// The slot size a port starts with; a larger message maps a segment of larger slots.
const INITIAL_SLOT: usize = 4096;

/// The attributes holding the ROS type names (`pkg/srv/T_Request`, `pkg/srv/T_Response`).
const REQUEST_TYPE_KEY: &str = "ros_request_type";
const RESPONSE_TYPE_KEY: &str = "ros_response_type";

/// Who sent a request: the client port's id and the tacto client's sequence number, so that
/// the server names it with a [`RequestId`] (iceoryx2 routes the response to the client's
/// pending request by itself).
///
/// Its type name is part of the service's type check, so it is pinned (see `SampleHeader`):
/// a layout change must change the `/1` suffix.
#[derive(Debug, Default, Clone, Copy, ZeroCopySend)]
#[repr(C)]
#[type_name("tacto_shm::RequestHeader/1")]
pub(crate) struct RequestHeader {
    /// The client port's id, from iceoryx2's unique client id (the top bit set, so it never
    /// equals the small ids of the serving process's own clients).
    pub(crate) client: u64,
    /// The tacto client's sequence number of the request.
    pub(crate) sequence: i64,
}

impl RequestHeader {
    pub(crate) fn id(&self) -> RequestId {
        RequestId {
            client: self.client,
            sequence: self.sequence,
        }
    }
}

/// A client port of a service.
pub(crate) type ClientPort = Client<Ipc, [u8], RequestHeader, [u8], ()>;
/// A server port of a service.
pub(crate) type ServerPort = iceoryx2::port::server::Server<Ipc, [u8], RequestHeader, [u8], ()>;

/// Why a service's shared-memory ports could not be opened: the text of a
/// [`LinkError`](tacto::transport::LinkError) when a tacto `Service` or `Client` is created
/// on [`ShmTransport`](crate::ShmTransport).
///
/// # Examples
/// A service name carries one pair of types on the host, whichever process opened it first:
/// ```
/// use tacto::client::ClientCreateError;
/// use tacto::msg::std_msgs::{Empty, String as Text};
/// use tacto::{Context, ServiceType};
/// use tacto_shm::ShmTransport;
///
/// struct Talk;
/// impl ServiceType for Talk {
///     const TYPE_NAME: &'static str = "doc/srv/Talk";
///     type Request = Text;
///     type Response = Text;
/// }
/// struct Ping;
/// impl ServiceType for Ping {
///     const TYPE_NAME: &'static str = "doc/srv/Ping";
///     type Request = Empty;
///     type Response = Empty;
/// }
///
/// // Two contexts, as two processes would have: each its own iceoryx2 node.
/// let a = Context::builder().transport(ShmTransport::new("doc_service_a")?).create();
/// let b = Context::builder().transport(ShmTransport::new("doc_service_b")?).create();
/// // Unique per process, so that parallel runs never share it.
/// let name = format!("/doc_service_{}", std::process::id());
/// let _talk = a.node("server")?.service::<Talk>(&name).create()?;
/// let refused = b.node("client")?.client::<Ping>(&name).create();
/// let Err(ClientCreateError::Link { error, .. }) = refused else {
///     panic!("the types differ");
/// };
/// assert!(error.0.contains("std_msgs/msg/String") && error.0.contains("std_msgs/msg/Empty"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The service name breaks ROS 2's rules.
    #[error(transparent)]
    Name(#[from] tacto::TopicError),
    /// The name is too long or otherwise not an iceoryx2 service name, or a type name does
    /// not fit an iceoryx2 attribute.
    #[error("{name:?} cannot name an iceoryx2 service or attribute")]
    InvalidName {
        /// The service name or type name.
        name: String,
    },
    /// The service exists in shared memory with other request or response types.
    #[error(
        "service {service:?} carries {existing_request:?} / {existing_response:?} in shared \
         memory; this endpoint wants {requested_request:?} / {requested_response:?}"
    )]
    TypeMismatch {
        /// The iceoryx2 service (`rq/add_two_ints`).
        service: String,
        /// The request type of the existing service.
        existing_request: String,
        /// The response type of the existing service.
        existing_response: String,
        /// The request type asked for here.
        requested_request: String,
        /// The response type asked for here.
        requested_response: String,
    },
    /// The service was created by another iceoryx2 version: every process of a host must use
    /// the same one.
    #[error(
        "service {service:?} exists in shared memory, created by iceoryx2 {existing}; this \
         process has iceoryx2 {ours}: all processes of a host must use the same iceoryx2 version"
    )]
    Version {
        /// The iceoryx2 service.
        service: String,
        /// The version its static config names (`another version` if it cannot be read).
        existing: String,
        /// This process's iceoryx2 version.
        ours: String,
    },
    /// iceoryx2 could not open or create the request-response service (another tacto-shm
    /// layout, its limits reached, left half-created by a killed process, ...).
    #[error("cannot open the shared-memory service {service:?}: {source}")]
    Open {
        /// The iceoryx2 service.
        service: String,
        /// iceoryx2's reason.
        source: RequestResponseOpenOrCreateError,
    },
    /// iceoryx2 could not open or create one of the event services.
    #[error("cannot open the shared-memory event service {service:?}: {source}")]
    Event {
        /// The iceoryx2 service (`rq/...` or `rr/...`).
        service: String,
        /// iceoryx2's reason.
        source: EventOpenOrCreateError,
    },
    /// iceoryx2 refused the server port (more than [`MAX_SERVERS`]).
    #[error("cannot create a shared-memory server on {service:?}: {source}")]
    Server {
        /// The iceoryx2 service.
        service: String,
        /// iceoryx2's reason.
        source: ServerCreateError,
    },
    /// iceoryx2 refused the client port (more than [`MAX_CLIENTS`]).
    #[error("cannot create a shared-memory client on {service:?}: {source}")]
    Client {
        /// The iceoryx2 service.
        service: String,
        /// iceoryx2's reason.
        source: ClientCreateError,
    },
    /// iceoryx2 refused a notifier port.
    #[error("cannot create a shared-memory notifier on {service:?}: {source}")]
    Notifier {
        /// The iceoryx2 service.
        service: String,
        /// iceoryx2's reason.
        source: NotifierCreateError,
    },
    /// iceoryx2 refused a listener port.
    #[error("cannot create a shared-memory listener on {service:?}: {source}")]
    Listener {
        /// The iceoryx2 service.
        service: String,
        /// iceoryx2's reason.
        source: ListenerCreateError,
    },
}

/// The three services of one ROS service, opened (or created) by this process.
#[derive(Debug)]
pub(crate) struct RequestResponse {
    /// `rq/<service>`.
    pub(crate) name: String,
    data: request_response::PortFactory<Ipc, [u8], RequestHeader, [u8], ()>,
    /// Clients notify, servers listen.
    requests: event::PortFactory<Ipc>,
    /// Servers notify, clients listen.
    responses: event::PortFactory<Ipc>,
}

impl RequestResponse {
    /// Opens ROS service `ros_name` with these request and response types, creating its
    /// iceoryx2 services if no process has.
    pub(crate) fn open(
        node: &ShmNode,
        ros_name: &str,
        request_type: &str,
        response_type: &str,
    ) -> Result<RequestResponse, ServiceError> {
        let resolved = tacto::resolve_topic_name(ros_name)?;
        let name = format!("rq{resolved}");
        let service_name = service_name(&name)?;
        let invalid = |name: &str| ServiceError::InvalidName {
            name: name.to_owned(),
        };
        let mut verifier = AttributeVerifier::new();
        for (key, text) in [
            (REQUEST_TYPE_KEY, request_type),
            (RESPONSE_TYPE_KEY, response_type),
        ] {
            let key = AttributeKey::try_from(key).map_err(|_| invalid(key))?;
            let value = AttributeValue::try_from(text).map_err(|_| invalid(text))?;
            verifier = verifier.require(&key, &value).map_err(|_| invalid(text))?;
        }

        // A segment left unsized by a killed creator would hang the open (its event services
        // are opened right after this one, so this covers them too).
        crate::leftovers::remove_unsized_segments(node.config());
        let open_data = || {
            retry(
                || {
                    node.inner()
                        .service_builder(&service_name)
                        .request_response::<[u8], [u8]>()
                        .request_user_header::<RequestHeader>()
                        .max_servers(MAX_SERVERS)
                        .max_clients(MAX_CLIENTS)
                        .max_active_requests_per_client(MAX_IN_FLIGHT)
                        // A full server buffer refuses (the client's send reports it), a full
                        // response buffer drops: nobody ever waits on the other side.
                        .enable_safe_overflow_for_requests(false)
                        .enable_safe_overflow_for_responses(false)
                        // A request whose client gave up is not served.
                        .enable_fire_and_forget_requests(false)
                        .open_or_create_with_attributes(&verifier)
                },
                |e| {
                    matches!(
                        e,
                        RequestResponseOpenOrCreateError::SystemInFlux
                            | RequestResponseOpenOrCreateError::RequestResponseOpenError(
                                RequestResponseOpenError::IsMarkedForDestruction,
                            )
                    )
                },
            )
        };
        let data = match open_data() {
            Err(RequestResponseOpenOrCreateError::RequestResponseOpenError(
                RequestResponseOpenError::HangsInCreation,
            )) if remove_half_created(node, &service_name, MessagingPattern::RequestResponse) => {
                open_data()
            }
            opened => opened,
        }
        .map_err(|source| {
            classify(
                node,
                &name,
                &service_name,
                [request_type, response_type],
                source,
            )
        })?;

        let requests = open_events(node, &name, MAX_CLIENTS, MAX_SERVERS)?;
        let responses = open_events(node, &format!("rr{resolved}"), MAX_SERVERS, MAX_CLIENTS)?;
        Ok(RequestResponse {
            name,
            data,
            requests,
            responses,
        })
    }

    /// A server port, and a notifier that wakes the clients after a response.
    pub(crate) fn server(&self) -> Result<(ServerPort, Notifier<Ipc>), ServiceError> {
        let server = (self.data.server_builder())
            .initial_max_slice_len(INITIAL_SLOT)
            .allocation_strategy(AllocationStrategy::PowerOfTwo)
            .backpressure_strategy(iceoryx2::prelude::BackpressureStrategy::DiscardData)
            .create()
            .map_err(|source| ServiceError::Server {
                service: self.name.clone(),
                source,
            })?;
        let notifier = self.notifier(&self.responses)?;
        Ok((server, notifier))
    }

    /// A client port, and a notifier that wakes the servers after a request.
    pub(crate) fn client(&self) -> Result<(ClientPort, Notifier<Ipc>), ServiceError> {
        let client = (self.data.client_builder())
            .initial_max_slice_len(INITIAL_SLOT)
            .allocation_strategy(AllocationStrategy::PowerOfTwo)
            .backpressure_strategy(iceoryx2::prelude::BackpressureStrategy::DiscardData)
            .create()
            .map_err(|source| ServiceError::Client {
                service: self.name.clone(),
                source,
            })?;
        let notifier = self.notifier(&self.requests)?;
        Ok((client, notifier))
    }

    fn notifier(&self, events: &event::PortFactory<Ipc>) -> Result<Notifier<Ipc>, ServiceError> {
        events
            .notifier_builder()
            .create()
            .map_err(|source| ServiceError::Notifier {
                service: self.name.clone(),
                source,
            })
    }

    /// The wake-up of a server: readable once a client sent a request.
    pub(crate) fn request_wake_up(&self) -> Result<WakeUp, ServiceError> {
        listener(&self.name, &self.requests)
    }

    /// The wake-up of a client: readable once a server sent a response (to any client).
    pub(crate) fn response_wake_up(&self) -> Result<WakeUp, ServiceError> {
        listener(&self.name, &self.responses)
    }

    /// True if servers listen for wake-ups (a server named in a trigger).
    pub(crate) fn servers_listen(&self) -> bool {
        self.requests.dynamic_config().number_of_listeners() > 0
    }

    /// True if clients listen for wake-ups (every client does).
    pub(crate) fn clients_listen(&self) -> bool {
        self.responses.dynamic_config().number_of_listeners() > 0
    }

    /// Servers listed on the service, alive or not yet cleaned up after a crash.
    pub(crate) fn servers(&self) -> usize {
        self.data.dynamic_config().number_of_servers()
    }

    /// Servers listed on the service whose process is alive: a server killed with
    /// `kill -9` stays listed until a dead-node cleanup, and is not counted. If the host's
    /// nodes cannot be listed, every listed server counts.
    pub(crate) fn live_servers(&self, config: &Config) -> usize {
        let mut nodes = Vec::new();
        self.data.dynamic_config().list_servers(|server| {
            nodes.push(server.node_id);
            CallbackProgression::Continue
        });
        liveliness(config, &nodes).map_or(nodes.len(), |servers| servers.alive)
    }
}

fn service_name(name: &str) -> Result<ServiceName, ServiceError> {
    ServiceName::new(name).map_err(|_| ServiceError::InvalidName {
        name: name.to_owned(),
    })
}

fn listener(name: &str, events: &event::PortFactory<Ipc>) -> Result<WakeUp, ServiceError> {
    let listener = events
        .listener_builder()
        .create()
        .map_err(|source| ServiceError::Listener {
            service: name.to_owned(),
            source,
        })?;
    Ok(WakeUp::new(listener))
}

/// Opens (or creates) the event service `name`, recovering one left half-created.
fn open_events(
    node: &ShmNode,
    name: &str,
    notifiers: usize,
    listeners: usize,
) -> Result<event::PortFactory<Ipc>, ServiceError> {
    let service_name = service_name(name)?;
    let open = || {
        node.inner()
            .service_builder(&service_name)
            .event()
            .event_id_max_value(EVENT_ID_MAX)
            .max_notifiers(notifiers)
            .max_listeners(listeners)
            .open_or_create()
    };
    match open() {
        Err(EventOpenOrCreateError::EventOpenError(EventOpenError::HangsInCreation))
            if remove_half_created(node, &service_name, MessagingPattern::Event) =>
        {
            open()
        }
        opened => opened,
    }
    .map_err(|source| ServiceError::Event {
        service: name.to_owned(),
        source,
    })
}

/// Turns iceoryx2's open failure into the error that names what differs.
fn classify(
    node: &ShmNode,
    name: &str,
    service_name: &ServiceName,
    [requested_request, requested_response]: [&str; 2],
    source: RequestResponseOpenOrCreateError,
) -> ServiceError {
    use RequestResponseOpenError as E;
    if let RequestResponseOpenOrCreateError::RequestResponseOpenError(E::VersionMismatch) = source {
        let path = static_config_path(node, service_name, MessagingPattern::RequestResponse);
        return ServiceError::Version {
            service: name.to_owned(),
            existing: (std::fs::read_to_string(path).ok())
                .and_then(|config| version_in(&config))
                .unwrap_or_else(|| "another version".into()),
            ours: PackageVersion::get().to_string(),
        };
    }
    let mismatch = matches!(
        source,
        RequestResponseOpenOrCreateError::RequestResponseOpenError(E::IncompatibleAttributes)
    );
    match existing_types(node, service_name).filter(|_| mismatch) {
        Some([existing_request, existing_response]) => ServiceError::TypeMismatch {
            service: name.to_owned(),
            existing_request,
            existing_response,
            requested_request: requested_request.to_owned(),
            requested_response: requested_response.to_owned(),
        },
        None => ServiceError::Open {
            service: name.to_owned(),
            source,
        },
    }
}

/// The type names the existing service was created with, read from its static config.
fn existing_types(node: &ShmNode, service_name: &ServiceName) -> Option<[String; 2]> {
    let details = Ipc::details(
        service_name,
        node.config(),
        MessagingPattern::RequestResponse,
    )
    .ok()??;
    let attributes = details.static_details.attributes();
    let read = |key: &str| {
        let key = AttributeKey::try_from(key).ok()?;
        Some(attributes.key_value(&key, 0)?.to_string())
    };
    Some([read(REQUEST_TYPE_KEY)?, read(RESPONSE_TYPE_KEY)?])
}
