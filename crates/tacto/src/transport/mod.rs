//! How samples travel from publishers to subscriptions.
//!
//! Every transport ends in the same place: [`Inbox::deliver`](crate::subscription::Inbox), the
//! subscription's bounded history plus the listener its executor attached. A transport may
//! deliver from any thread (a DDS receive thread, an iceoryx2 listener), so nothing in nodes or
//! executors depends on which transport a topic uses.
//!
//! # Where the next transports plug in
//! - **Readiness through a file descriptor** (iceoryx2 listeners): an executor's poller watches
//!   any fd and turns its readiness into the same pending flag or event a sample raises
//!   (`Poller::watch_all`, the mechanism behind [`Trigger::readable`](crate::Trigger::readable)).
//! - **A history the transport keeps itself** (a Cyclone DDS reader cache with KeepLast N):
//!   a subscription's operations are DDS's sample states, so they map one to one onto a
//!   reader: `read_new` reads a NOT_READ sample and marks it READ, `take` removes a sample of
//!   any state, `take_new` a NOT_READ one, `has_new` asks for NOT_READ samples, `latest`
//!   reads the newest. Such a history is a [`LinkReader`], the second source of a
//!   subscription's inbox beside its `HistoryCache` (see [`link`]); no other public type
//!   changes.

pub(crate) mod intra;
mod link;

pub use link::{LinkError, LinkReader, LinkWriter, ReadOp, RemoteSample, Transport};
