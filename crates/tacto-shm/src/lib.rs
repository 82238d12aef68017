//! tacto on iceoryx2 shared memory: topics between processes of one host.
//!
//! [`ShmTransport`] plugs it into a tacto `Context`
//! (`Context::builder().transport(ShmTransport::new("name")?)`): a topic with a subscriber in
//! another process is served through shared memory, encoded once straight into the loaned
//! slot; a triggering subscription's listener fd is in its executor's epoll set.
//!
//! Under it, usable alone: the process's [`ShmNode`] (signal handlers off, dead nodes of
//! earlier runs cleaned at start), and per ROS topic a [`ShmPublisher`] / [`ShmSubscriber`]
//! pair over an iceoryx2 publish-subscribe service of CDR bytes named `rt/<topic>`, the ROS
//! type name in a service attribute (another type on the same topic is
//! [`TopicError::TypeMismatch`]). Each sample carries publish time, publisher id, sequence
//! number and the publishing process in a user header, so a [`Received`] sample has the same
//! `tacto::SampleInfo` as on other transports; a subscriber drops its own process's samples
//! (the intra-process path delivered them). A subscriber that asks for wake-ups gets a
//! [`WakeUp`] fd for an epoll set; the publisher notifies only when such listeners exist.
//!
//! A topic serves a bounded number of publishers and subscribers on the host, each subscriber
//! a bounded buffer: [`ShmLimits`], given to [`ShmNode::builder`] or
//! [`ShmTransport::builder`]. The process that creates a topic sets its limits; another that
//! asks for more is refused with [`TopicError::Limits`], naming both.
//!
//! ```
//! use tacto::msg::std_msgs::String as Text;
//! use tacto_shm::ShmNode;
//!
//! let node = ShmNode::create("doc_lib")?;
//! // Unique per process, so that parallel runs never share it.
//! let topic = format!("/doc_lib_{}", std::process::id());
//! let publisher = node.publisher::<Text>(&topic).create()?;
//! let sub = node.subscriber::<Text>(&topic).create()?;
//! publisher.publish(&Text { data: "hello".into() })?;
//! // In another process, `sub.take()` returns it; here it is this process's own sample.
//! assert!(sub.take()?.is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod client;
mod header;
mod late_joiners;
mod leftovers;
pub mod limits;
mod logging;
pub mod node;
pub mod publisher;
mod request_response;
mod response_thread;
mod service;
pub mod subscriber;
pub mod topic;
pub mod transport;
pub mod wake_up;

pub use limits::{Limit, LimitsError, ShmLimits};
pub use node::{Cleanup, NodeError, ShmNode, ShmNodeBuilder};
pub use publisher::{Delivery, PublishError, PublisherBuilder, PublisherError, ShmPublisher};
pub use request_response::{MAX_CLIENTS, MAX_IN_FLIGHT, MAX_SERVERS, ServiceError};
pub use subscriber::{
    Liveliness, LivelinessError, Received, ShmStats, ShmSubscriber, SubscriberBuilder,
    SubscriberError, TakeError,
};
pub use topic::TopicError;
pub use transport::{ShmTransport, ShmTransportBuilder};
pub use wake_up::{DrainError, WakeUp};
