//! tacto on Eclipse Cyclone DDS (through `cyclors`, Cyclone 11), wire-compatible with ROS 2.
//!
//! The main type is [`DdsTransport`]: given to
//! `tacto::Context::builder().transport(..)`, it carries the context's topics to ROS 2 nodes
//! in other processes (see its docs and docs/architecture.md, "DDS, Cyclone").
//!
//! Below it: a [`Participant`] in domain `ROS_DOMAIN_ID` configured as rmw_cyclonedds
//! configures it ([`DomainConfig`]), and a typed [`Writer`] / [`Reader`] per ROS topic on a
//! keyless topic whose samples Cyclone carries as opaque CDR bytes: `tacto::cdr` encodes and
//! decodes them, with ROS 2 naming (`rt/<name>`, `pkg::msg::dds_::Type_`, see [`naming`]).
//! The tests exchange `std_msgs/msg/String` with a real rclpy node (Fast DDS from the PyPI
//! wheels).
//!
//! ```no_run
//! use tacto::msg::std_msgs::String as Text;
//! use tacto_dds::{Participant, Qos, Reader, Writer};
//!
//! let participant = Participant::from_env()?; // ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE...
//! let writer = Writer::<Text>::new(&participant, "/chatter", Qos::default())?;
//! writer.write(&Text { data: "hello".into() })?;
//! let reader = Reader::<Text>::new(&participant, "/chatter", Qos::default())?;
//! while let Some(text) = reader.take()? {
//!     println!("{}", text.data);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The transport's links ([`transport`]) are built on the same blob topics, with the QoS of
//! each endpoint, a data-available listener for triggering readers only, `ignorelocal` per
//! process, and the node graph on `ros_discovery_info`.
//!
//! Services ([`service`]) follow rmw_cyclonedds' mapping: `rq/<name>Request` and
//! `rr/<name>Reply` with the 16-byte request header, tested against the PyPI `cyclonedds`
//! package. A context with a [`DdsTransport`] puts its `Service`s and `Client`s on them.
//!
//! Every Cyclone failure is a typed error carrying Cyclone's message ([`DdsStatus`]); nothing
//! here panics on what Cyclone returns.

pub mod discovery;
pub mod domain;
mod graph;
mod log;
pub mod naming;
pub mod participant;
pub mod qos;
pub mod reader;
pub mod retcode;
mod send_buffer;
pub mod service;
mod service_link;
mod shm_peers;
mod topic;
pub mod transport;
mod untyped;
mod user_data;
pub mod writer;

pub use discovery::{Discovery, DiscoveryError, EndpointInfo, ServiceInfo, TopicInfo};
pub use domain::{ConfigError, DiscoveryRange, DomainConfig};
pub use participant::{Participant, ParticipantError};
pub use qos::{Durability, History, Qos, Reliability};
pub use reader::{RawSample, Reader, ReaderError, TakeError};
pub use retcode::DdsStatus;
pub use topic::TopicError;
pub use transport::DdsTransport;
pub use untyped::{UntypedReader, UntypedWriter};
pub use writer::{WriteError, Writer, WriterError};

// docs/getting-started.md's first node is compiled as a doc test, so the manual's first
// program cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/getting-started.md")]
struct GettingStartedManual;

// docs/transports.md's ways of building a context are compiled as doc tests too.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/transports.md")]
struct TransportsManual;
