//! Polling subscriptions: a bounded history that the node takes from when it runs.
//!
//! A subscription never calls anything by itself. Samples wait in its history (see
//! [`History`]) until the node's code asks for them; only a subscription named in a node's
//! [`Trigger`](crate::Trigger) wakes an executor when a sample arrives.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use crate::history::{History, HistoryCache};
use crate::message::Message;
use crate::sample::Sample;
use crate::transport::intra::Topic;

/// Told by an inbox that a sample arrived; implemented by each executor's wake-up path.
///
/// Called on the publisher's thread (or a transport's receive thread), outside any lock of the
/// subscription, so it must be quick: set a flag, push an event, write an eventfd.
pub(crate) trait Listener: Send + Sync + fmt::Debug {
    fn on_sample(&self);
}

/// The receiving end of one subscription, shared with the transports that fill it.
pub(crate) struct Inbox<T> {
    cache: Mutex<HistoryCache<T>>,
    /// Set once, by the executor that runs the node this subscription triggers.
    listener: OnceLock<Arc<dyn Listener>>,
}

impl<T> fmt::Debug for Inbox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("listener", &self.listener.get())
            .finish_non_exhaustive()
    }
}

impl<T> Inbox<T> {
    fn new(history: History) -> Self {
        Inbox {
            cache: Mutex::new(HistoryCache::new(history)),
            listener: OnceLock::new(),
        }
    }

    /// Our code never panics while holding the lock, so a poisoned lock still holds a valid cache.
    fn cache(&self) -> MutexGuard<'_, HistoryCache<T>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sets the listener; false if one is set already (a subscription wakes one executor).
    pub(crate) fn attach_listener(&self, listener: Arc<dyn Listener>) -> bool {
        self.listener.set(listener).is_ok()
    }

    pub(crate) fn latest(&self) -> Option<Sample<T>> {
        self.cache().latest()
    }

    pub(crate) fn deliver(&self, sample: Sample<T>) {
        self.cache().offer(sample);
        if let Some(listener) = self.listener.get() {
            listener.on_sample();
        }
    }
}

/// What triggers and executors need of a subscription, whatever its message type.
pub(crate) trait Input: Send + Sync + fmt::Debug {
    fn unread(&self) -> usize;
    fn is_attached(&self) -> bool;
    /// Attaches the listener; false if one is attached already.
    fn attach(&self, listener: Arc<dyn Listener>) -> bool;
    fn freeze(&self);
}

impl<T: Send + Sync> Input for Inbox<T> {
    fn unread(&self) -> usize {
        self.cache().unread()
    }

    fn is_attached(&self) -> bool {
        self.listener.get().is_some()
    }

    fn attach(&self, listener: Arc<dyn Listener>) -> bool {
        self.attach_listener(listener)
    }

    fn freeze(&self) {
        self.cache().freeze();
    }
}

/// A polling subscription: the node takes or reads samples from its history when it runs.
///
/// Create one with [`Node::subscription`](crate::Node::subscription). All methods are
/// non-blocking and allocation-free; each takes the history's lock once.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, History};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("reader").unwrap();
/// let sub = node.subscription::<Text>("chat").history(History::KeepLast(2)).create().unwrap();
/// let publisher = node.publisher::<Text>("chat").create().unwrap();
/// for word in ["a", "b", "c"] {
///     publisher.publish(Text { data: word.into() });
/// }
///
/// assert_eq!(sub.len(), 2); // KeepLast(2): "a" was overwritten unread
/// assert_eq!(sub.dropped(), 1);
/// assert_eq!(sub.read().unwrap().data, "b"); // peeks, marks read, keeps it
/// assert_eq!(sub.take().unwrap().data, "c"); // oldest unread, removed
/// assert!(!sub.has_new());
/// assert_eq!(sub.latest().unwrap().data, "b"); // still cached
/// ```
pub struct Subscription<T: Message> {
    inbox: Arc<Inbox<T>>,
    topic: Arc<Topic<T>>,
}

impl<T: Message> fmt::Debug for Subscription<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("topic", &self.topic.name())
            .field("type", &T::TYPE_NAME)
            .finish()
    }
}

impl<T: Message> Subscription<T> {
    pub(crate) fn new(topic: Arc<Topic<T>>, history: History) -> Self {
        let inbox = Arc::new(Inbox::new(history));
        topic.subscribe(inbox.clone());
        Subscription { inbox, topic }
    }

    /// Removes and returns the oldest unread sample.
    pub fn take(&self) -> Option<Sample<T>> {
        self.inbox.cache().take()
    }

    /// Takes every sample that is unread now, oldest first.
    ///
    /// Samples that arrive while the iterator runs are left for the next call, so a fast
    /// publisher cannot keep a node in this loop forever.
    pub fn take_all(&self) -> TakeAll<'_, T> {
        TakeAll {
            sub: self,
            left: self.unread(),
        }
    }

    /// Returns the oldest unread sample without removing it, and marks it read.
    pub fn read(&self) -> Option<Sample<T>> {
        self.inbox.cache().read()
    }

    /// Returns the newest sample, read or not, and marks every sample read.
    ///
    /// This is "the latest value" of a topic: after it, [`has_new`](Self::has_new) is false
    /// until something new arrives.
    pub fn latest(&self) -> Option<Sample<T>> {
        self.inbox.cache().latest()
    }

    /// True if a sample arrived that was neither read nor taken.
    pub fn has_new(&self) -> bool {
        self.unread() > 0
    }

    /// The number of unread samples.
    pub fn unread(&self) -> usize {
        self.inbox.cache().unread()
    }

    /// The number of samples in the history, read or not.
    pub fn len(&self) -> usize {
        self.inbox.cache().len()
    }

    /// True if the history holds no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Samples lost to the history policy since creation: unread samples overwritten by
    /// `KeepLast`, or arrivals refused by a full `KeepAll`.
    pub fn dropped(&self) -> u64 {
        self.inbox.cache().dropped()
    }

    /// The topic's name.
    pub fn topic(&self) -> &str {
        self.topic.name()
    }

    /// A read-only handle for trigger conditions: it sees the same history without changing it.
    pub fn probe(&self) -> Probe<T> {
        Probe {
            inbox: self.inbox.clone(),
        }
    }

    pub(crate) fn input(&self) -> Arc<dyn Input> {
        self.inbox.clone()
    }

    pub(crate) fn inbox(&self) -> &Arc<Inbox<T>> {
        &self.inbox
    }
}

impl<T: Message> Drop for Subscription<T> {
    fn drop(&mut self) {
        self.topic.unsubscribe(&self.inbox);
    }
}

/// Iterator returned by [`Subscription::take_all`].
#[derive(Debug)]
pub struct TakeAll<'a, T: Message> {
    sub: &'a Subscription<T>,
    left: usize,
}

impl<T: Message> Iterator for TakeAll<'_, T> {
    type Item = Sample<T>;

    fn next(&mut self) -> Option<Sample<T>> {
        self.left = self.left.checked_sub(1)?;
        self.sub.take()
    }
}

/// A read-only view of a subscription's history, for [`Trigger::when`](crate::Trigger::when)
/// conditions. Nothing done through a probe marks a sample read or removes it.
pub struct Probe<T> {
    inbox: Arc<Inbox<T>>,
}

impl<T> fmt::Debug for Probe<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Probe").finish_non_exhaustive()
    }
}

impl<T> Clone for Probe<T> {
    fn clone(&self) -> Self {
        Probe {
            inbox: self.inbox.clone(),
        }
    }
}

impl<T> Probe<T> {
    /// True if the subscription has unread samples.
    pub fn has_new(&self) -> bool {
        self.unread() > 0
    }

    /// The number of unread samples.
    pub fn unread(&self) -> usize {
        self.inbox.cache().unread()
    }

    /// The newest sample, without marking anything read.
    pub fn peek_latest(&self) -> Option<Sample<T>> {
        self.inbox.cache().peek_latest()
    }
}
