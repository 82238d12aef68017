//! How samples travel from publishers to subscriptions, in the process and out of it.
//!
//! Inside a [`Context`](crate::Context), publishers hand samples to the subscriptions of the
//! same topic directly (zero-copy `Arc`s, see [`LocalDelivery`](crate::LocalDelivery)). A
//! context built with a [`Transport`] also links each topic out of the process:
//!
//! ```text
//! publish(msg) ──► subscriptions of this context   Arc (or CDR once, for other types)
//!              └─► LinkWriter, only while a remote reader is matched: CDR once
//! remote sample ─► the subscription's LinkReader: a cache with DDS sample states, kept by
//!                  the transport, read by the subscription beside its local history
//! ```
//!
//! A transport keeps three rules:
//! - **No echo**: a link never delivers a sample written by its own process; the intra path
//!   did already.
//! - **Encode only for someone**: a publisher asks [`LinkWriter::has_remote_readers`] before it
//!   encodes anything, so a topic nobody outside reads costs what it costs without a transport.
//! - **Wake only those who asked**: a [`LinkReader`] wakes nothing until an executor running
//!   a trigger that names the subscription asks: for its [`LinkReader::wake_fd`], which the
//!   executor's poller then watches (no thread; iceoryx2 listeners), or, if it has none, by
//!   giving [`LinkReader::on_data`] a callback (Cyclone's listener thread).
//!
//! A subscription's operations are DDS's sample states, so they map one to one onto a
//! transport's cache ([`ReadOp`]); each looks at both sources, the older (or, for `latest`,
//! the newer) by publish time first. A LET executor's freeze moves the transport's samples
//! into the local history at each period start. `tacto_dds::DdsTransport` is the Cyclone DDS
//! transport, `tacto_shm::ShmTransport` the shared-memory (iceoryx2) one.
//!
//! A publisher writes to its link under the lock that orders its deliveries, with the
//! sample's facts ([`LinkWriter::write_message`]), so a link sees its samples in sequence
//! order and can encode them where it likes (a shared-memory slot: one pass).
//!
//! Services go through the same seam: a transport that carries them makes a [`ServiceLink`]
//! per service (a second source of requests, waking an executor only once a trigger names the
//! service) and a [`ClientLink`] per client (used only while no service of this context has
//! the name); the defaults of [`Transport::service`] and [`Transport::client`] carry none.

mod combined;
pub(crate) mod intra;
pub(crate) mod kept;
mod link;

pub(crate) use combined::Combined;

pub use link::{
    ClientLink, LinkError, LinkReader, LinkWriter, LoanedSlot, ReadOp, RemoteBytes,
    RemotePublishers, RemoteSample, RosType, ServiceLink, Transport,
};
