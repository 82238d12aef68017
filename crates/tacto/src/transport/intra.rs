//! Intra-process transport: zero-copy delivery of `Arc`ed messages.
//!
//! Publishing pushes one `Arc` clone into each subscriber's history: O(subscribers) pointer
//! pushes, no serialization, no allocation beyond the message itself.

use std::sync::{Arc, PoisonError, RwLock};

use crate::context::TopicLease;
use crate::sample::{Sample, SampleInfo};
use crate::subscription::Inbox;

/// One topic's subscribers inside this process.
#[derive(Debug)]
pub(crate) struct Topic<T> {
    name: String,
    subscribers: RwLock<Vec<Arc<Inbox<T>>>>,
    /// Removes the topic from its context when the last publisher or subscription drops it.
    _lease: TopicLease,
}

impl<T> Topic<T> {
    pub(crate) fn new(name: &str, lease: TopicLease) -> Self {
        Topic {
            name: name.to_owned(),
            subscribers: RwLock::new(Vec::new()),
            _lease: lease,
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Hands `msg` to every subscriber: the last one gets the publisher's reference itself,
    /// the others a clone (one atomic increment each).
    pub(crate) fn deliver(&self, msg: Arc<T>, info: SampleInfo) {
        let subscribers = self
            .subscribers
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((last, others)) = subscribers.split_last() {
            for inbox in others {
                inbox.deliver(Sample {
                    msg: msg.clone(),
                    info,
                });
            }
            last.deliver(Sample { msg, info });
        }
    }

    pub(crate) fn subscribe(&self, inbox: Arc<Inbox<T>>) {
        self.subscribers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(inbox);
    }

    pub(crate) fn unsubscribe(&self, inbox: &Arc<Inbox<T>>) {
        let mut subscribers = self
            .subscribers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        subscribers.retain(|s| !Arc::ptr_eq(s, inbox));
    }

    pub(crate) fn subscriber_count(&self) -> usize {
        self.subscribers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
