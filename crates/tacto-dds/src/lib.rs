//! tacto on Eclipse Cyclone DDS (through `cyclors`, Cyclone 11): the groundwork of the DDS
//! transport, wire-compatible with ROS 2.
//!
//! What is here: a [`Participant`] in domain `ROS_DOMAIN_ID` configured as rmw_cyclonedds
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
//! Where this goes next (docs/architecture.md, "DDS, Cyclone"): a tacto `Context` owns the
//! participant, a topic with remote readers gets a [`Writer`] as its DDS link (written only
//! when [`Writer::matched_readers`] is non-zero), a subscription's history becomes the
//! [`Reader`]'s cache, and a triggering subscription's reader gets a `data_available`
//! listener that writes the executor's eventfd (see [`reader`]). Participants will ignore
//! their own process's samples (Cyclone's `ignorelocal`), since the intra-process path
//! already delivered them.
//!
//! Services ([`service`]) are the raw layer of rmw_cyclonedds' mapping: `rq/<name>Request` and
//! `rr/<name>Reply` with the 16-byte request header, tested against the PyPI `cyclonedds`
//! package; tacto's intra-process `Service` and `Client` do not use them yet.
//!
//! Every Cyclone failure is a typed error carrying Cyclone's message ([`DdsStatus`]); nothing
//! here panics on what Cyclone returns.

pub mod domain;
mod log;
pub mod naming;
pub mod participant;
pub mod qos;
pub mod reader;
pub mod retcode;
pub mod service;
mod topic;
pub mod writer;

pub use domain::{ConfigError, DiscoveryRange, DomainConfig};
pub use participant::{Participant, ParticipantError};
pub use qos::{Durability, History, Qos, Reliability};
pub use reader::{RawSample, Reader, ReaderError, TakeError};
pub use retcode::DdsStatus;
pub use topic::TopicError;
pub use writer::{WriteError, Writer, WriterError};
