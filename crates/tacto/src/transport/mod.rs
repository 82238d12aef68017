//! How samples travel from publishers to subscriptions.
//!
//! Every transport ends in the same place: [`Inbox::deliver`](crate::subscription::Inbox), the
//! subscription's bounded history plus the listener its executor attached. A transport may
//! deliver from any thread (a DDS receive thread, an iceoryx2 listener), so nothing in nodes or
//! executors depends on which transport a topic uses.

pub(crate) mod intra;
