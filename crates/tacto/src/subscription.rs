//! Polling subscriptions: a bounded history that the node takes from when it runs.
//!
//! A subscription never calls anything by itself. Samples wait in its history (see
//! [`History`]) until the node's code asks for them; only a subscription named in a node's
//! [`Trigger`](crate::Trigger) wakes an executor when a sample arrives.

use std::fmt;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crate::condition::{ArrivalHook, HookError, HookShared};
use crate::context::TopicError;
use crate::flat::FlatLayout;
use crate::history::{History, HistoryCache, Offer, Payload, Stored};
use crate::message::Message;
use crate::pi_mutex::{PiGuard, PiMutex};
use crate::qos::{Durability, Qos};
use crate::sample::{Body, Sample, SampleInfo};
use crate::transport::intra::Topic;
use crate::transport::{
    LinkError, LinkReader, ReadOp, RemoteBytes, RemotePublishers, RemoteSample,
};

/// Told by an inbox that a sample arrived; implemented by each executor's wake-up path.
///
/// Called on the publisher's thread (or a transport's receive thread), outside any lock of the
/// subscription, so it must be quick: set a flag, push an event, write an eventfd.
pub(crate) trait Listener: Send + Sync + fmt::Debug {
    fn on_sample(&self);
}

/// The receiving end of one subscription, shared with the transports that fill it.
pub(crate) struct Inbox<T> {
    /// Priority-inheriting: a real-time publisher may wait here for a reader of normal priority.
    cache: PiMutex<HistoryCache<T>>,
    /// Set once, by the executor that runs the node this subscription triggers.
    listener: OnceLock<Arc<dyn Listener>>,
    /// Set once, for a subscription no trigger names: called on arrivals while armed.
    hook: OnceLock<Arc<HookShared>>,
    /// The transport's cache of samples from other processes, if the context has a transport:
    /// the history of remote samples, each operation looking at both it and `cache`.
    remote: Option<Box<dyn LinkReader>>,
    /// How often the transport said samples arrived; counted once a listener is attached.
    remote_arrivals: Arc<AtomicU64>,
    /// The topic's name, for the one line logged at the first malformed sample.
    topic: String,
    /// The topic's flag of that line logged, shared by its subscriptions.
    malformed_logged: Arc<AtomicBool>,
    /// The last sample decoded from the transport by a read that left it there (`latest`
    /// on a node's timer, `read`), with its bytes: read again, it shares this value instead
    /// of being decoded again. One sample at most; holding its bytes keeps their address
    /// from naming another sample.
    decoded: PiMutex<Option<(RemoteBytes, Arc<T>)>>,
}

impl<T> fmt::Debug for Inbox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("listener", &self.listener.get())
            .finish_non_exhaustive()
    }
}

impl<T: Message> Inbox<T> {
    fn new(
        history: History,
        remote: Option<Box<dyn LinkReader>>,
        topic: &str,
        malformed_logged: Arc<AtomicBool>,
    ) -> Self {
        Inbox {
            cache: PiMutex::new(HistoryCache::new(history)),
            listener: OnceLock::new(),
            hook: OnceLock::new(),
            remote,
            remote_arrivals: Arc::default(),
            topic: topic.to_owned(),
            malformed_logged,
            decoded: PiMutex::new(None),
        }
    }

    fn cache(&self) -> PiGuard<'_, HistoryCache<T>> {
        self.cache.lock()
    }

    /// Sets the listener, and has the transport's reader call it too; `Ok(false)` if one is
    /// set already (a subscription wakes one executor).
    pub(crate) fn attach_listener(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        // The transport calls one party back: the hook has it.
        if self.hook.get().is_some() || self.listener.set(listener.clone()).is_err() {
            return Ok(false);
        }
        // A link that wakes through an fd is watched by the executor's poller instead.
        if let Some(remote) = self
            .remote
            .as_ref()
            .filter(|r| matches!(r.wake_fd(), Ok(None)))
        {
            let arrivals = self.remote_arrivals.clone();
            remote.on_data(Arc::new(move || {
                // Counted before the wake-up, which the executor follows by reading it.
                arrivals.fetch_add(1, Ordering::SeqCst);
                listener.on_sample();
            }))?;
        }
        Ok(true)
    }

    /// The transport's cache, unless a LET freeze holds the history still: then its samples
    /// wait there for the next freeze.
    #[inline]
    fn remote(&self) -> Option<&dyn LinkReader> {
        let remote = self.remote.as_deref()?;
        (!self.cache().is_frozen()).then_some(remote)
    }

    /// The newest sample of both sources; every sample of both is READ afterwards.
    pub(crate) fn latest(&self) -> Option<Sample<T>> {
        let Some(remote) = self.remote() else {
            return self.get(true, HistoryCache::latest);
        };
        let local = self.get(true, HistoryCache::latest);
        self.newer(local, remote.next(ReadOp::Latest))
    }

    /// The newest sample of both sources, changing no state.
    fn peek_latest(&self) -> Option<Sample<T>> {
        let Some(remote) = self.remote() else {
            return self.get(true, |cache| cache.peek_latest());
        };
        let local = self.get(true, |cache| cache.peek_latest());
        self.newer(local, remote.next(ReadOp::PeekNewest))
    }

    /// The later published of a local sample and a remote one.
    fn newer(&self, local: Option<Sample<T>>, remote: Option<RemoteSample>) -> Option<Sample<T>> {
        match (local, remote) {
            (Some(local), Some(remote)) if remote.info.publish_time < local.info.publish_time => {
                Some(local)
            }
            (local, Some(remote)) => self.decode_remote(remote, true).or(local),
            (local, None) => local,
        }
    }

    /// The oldest sample of both sources (oldest published first) that `local` or `remote`
    /// would return: `new_only` says whether they look at NOT_READ samples only, `keeps`
    /// whether the sample stays in the history (see [`get`](Self::get)).
    #[inline]
    fn oldest(
        &self,
        new_only: bool,
        keeps: bool,
        local: impl FnMut(&mut HistoryCache<T>) -> Option<Stored<T>> + Copy,
        remote: ReadOp,
    ) -> Option<Sample<T>> {
        match self.remote() {
            None => self.get(keeps, local),
            Some(link) => self.oldest_of_both(link, new_only, keeps, local, remote),
        }
    }

    /// [`oldest`](Self::oldest) with a transport. Out of line: the intra path never comes here.
    #[inline(never)]
    fn oldest_of_both(
        &self,
        link: &dyn LinkReader,
        new_only: bool,
        keeps: bool,
        local: impl FnMut(&mut HistoryCache<T>) -> Option<Stored<T>> + Copy,
        remote: ReadOp,
    ) -> Option<Sample<T>> {
        loop {
            let from_remote = match self.cache().oldest_info(new_only) {
                None => true,
                Some(info) => link
                    .oldest_info(new_only)
                    .is_some_and(|remote| remote.publish_time < info.publish_time),
            };
            if !from_remote {
                return self.get(keeps, local);
            }
            let Some(sample) = link.next(remote) else {
                return self.get(keeps, local);
            };
            // A malformed one was taken or marked read: the next call moves on.
            if let Some(sample) = self.decode_remote(sample, keeps) {
                return Some(sample);
            }
        }
    }

    /// Decodes a sample from the transport; `None` if it is malformed, which is counted.
    /// `kept`: the transport still holds it, so it may be read again (see `decoded`).
    #[cold]
    fn decode_remote(&self, sample: RemoteSample, kept: bool) -> Option<Sample<T>> {
        let info = sample.info;
        let bytes = sample.cdr;
        // A flat sample is viewed in place, never decoded: nothing to share.
        if bytes.flat_layout().is_none() {
            let mut decoded = self.decoded.lock();
            let same = |(seen, _): &(RemoteBytes, Arc<T>)| {
                (seen.as_ptr(), seen.len()) == (bytes.as_ptr(), bytes.len())
            };
            if decoded.as_ref().is_some_and(same) {
                let msg = match kept {
                    true => decoded.as_ref().map(|(_, msg)| msg.clone()),
                    // Taken: the transport lets go of it, and so does the memo.
                    false => decoded.take().map(|(_, msg)| msg),
                };
                if let Some(msg) = msg {
                    return Some(Sample {
                        msg: Body::Shared(msg),
                        info,
                    });
                }
            }
        }
        match body::<T>(bytes.clone()) {
            Ok(msg) => {
                // A flat sample read in place stays as it is: viewing it again costs nothing.
                if let (true, Body::Shared(msg)) = (kept, &msg) {
                    let old = self.decoded.lock().replace((bytes, msg.clone()));
                    // Freed after the lock: it may be a large message.
                    drop(old);
                }
                Some(Sample { msg, info })
            }
            Err(error) => {
                self.cache().count_malformed();
                self.log_malformed(&error);
                None
            }
        }
    }

    /// Logs the first malformed sample of the topic, from whichever subscription and path
    /// decoded it: a peer sending garbage must not flood the log; the counts say how many
    /// followed.
    #[cold]
    fn log_malformed(&self, error: &dyn fmt::Display) {
        if !self.malformed_logged.swap(true, Ordering::Relaxed) {
            eprintln!(
                "tacto: a malformed sample on topic {:?} was dropped ({error}); \
                 further ones are only counted (Subscription::malformed)",
                self.topic
            );
        }
    }

    /// Moves the transport's samples into the local history, oldest first, waking nobody:
    /// at a LET freeze, and before operations that work on the local history alone.
    #[cold]
    fn absorb(&self) {
        let Some(remote) = &self.remote else { return };
        // Bounded by what is there now: arrivals during the loop wait for the next call.
        for _ in 0..remote.len() {
            let Some(sample) = remote.next(ReadOp::Take) else {
                break;
            };
            self.store(Payload::Serialized(sample.cdr), sample.info);
        }
    }

    fn unread(&self) -> usize {
        let local = self.cache().unread();
        local + self.remote().map_or(0, |remote| remote.unread())
    }

    fn len(&self) -> usize {
        let local = self.cache().len();
        local + self.remote().map_or(0, |remote| remote.len())
    }

    /// Stores a shared message; called by the transports, on their threads.
    pub(crate) fn deliver(&self, msg: Arc<T>, info: SampleInfo) {
        self.offer(Payload::Value(msg), info);
    }

    /// Stores a CDR-serialized message, decoded only when a reader asks for it.
    pub(crate) fn deliver_serialized(&self, bytes: RemoteBytes, info: SampleInfo) {
        self.offer(Payload::Serialized(bytes), info);
    }

    #[inline(always)]
    fn offer(&self, payload: Payload<T>, info: SampleInfo) {
        self.store(payload, info);
        if let Some(listener) = self.listener.get() {
            listener.on_sample();
        } else if let Some(hook) = self.hook.get() {
            hook.arrived();
        }
    }

    /// Installs `hook`, and has the transport's reader call it too, or announce arrivals
    /// through its wake-up fd, which the hook hands on; `me` is this inbox.
    fn install_hook(&self, hook: &ArrivalHook, me: Weak<dyn Input>) -> Result<(), HookError> {
        if self.listener.get().is_some() || self.hook.get().is_some() {
            return Err(HookError::AlreadyAnnounced);
        }
        // The transport first: a transport that refuses leaves the subscription as it was,
        // free to be named by a trigger.
        if let Some(remote) = &self.remote {
            let refused = |error: &dyn fmt::Display| HookError::Transport(error.to_string());
            match remote.wake_fd().map_err(|e| refused(&e))? {
                Some(fd) => hook.watch(fd.try_clone_to_owned().map_err(|e| refused(&e))?, me),
                None => {
                    let shared = hook.shared().clone();
                    (remote.on_data(Arc::new(move || shared.arrived())))
                        .map_err(|e| refused(&e))?;
                }
            }
        }
        self.hook
            .set(hook.shared().clone())
            .map_err(|_| HookError::AlreadyAnnounced)
    }

    #[inline(always)]
    fn store(&self, payload: Payload<T>, info: SampleInfo) {
        let offer = self.cache().offer(payload, info);
        // Freed here, after the lock: a large message must not be freed under it.
        if let Offer::StoredEvicting(evicted) = offer {
            drop(evicted);
        }
    }

    /// Runs `op` on the cache and turns what it returns into a sample, decoding a serialized
    /// one outside the lock. A sample `op` removed (`keeps` false) is decoded and forgotten;
    /// one it left (`keeps` true) keeps its decoded value. A sample that fails to decode is
    /// discarded and counted (see [`Subscription::malformed`]), and `op` runs again.
    fn get(
        &self,
        keeps: bool,
        mut op: impl FnMut(&mut HistoryCache<T>) -> Option<Stored<T>>,
    ) -> Option<Sample<T>> {
        loop {
            let Stored {
                payload,
                info,
                ordinal,
            } = op(&mut self.cache())?;
            let bytes = match payload {
                Payload::Value(msg) => {
                    return Some(Sample {
                        msg: Body::Shared(msg),
                        info,
                    });
                }
                Payload::Serialized(bytes) => bytes,
            };
            if let Some(sample) = self.decode(bytes, info, ordinal, keeps) {
                return Some(sample);
            }
        }
    }

    /// Decodes a serialized sample for [`get`](Self::get); `None` if it is malformed, which
    /// is then counted and discarded. Out of line: the shared path never comes here.
    #[cold]
    fn decode(
        &self,
        bytes: RemoteBytes,
        info: SampleInfo,
        ordinal: u64,
        keeps: bool,
    ) -> Option<Sample<T>> {
        match body::<T>(bytes) {
            Ok(msg) => {
                // A flat sample read in place stays as it is: viewing it again costs nothing.
                if let (true, Body::Shared(msg)) = (keeps, &msg) {
                    self.cache().memo(ordinal, msg.clone());
                }
                Some(Sample { msg, info })
            }
            Err(error) => {
                // A taken sample is gone already; a kept one is removed now, and freed after
                // the lock.
                let discarded = self.cache().discard(ordinal);
                drop(discarded);
                self.log_malformed(&error);
                None
            }
        }
    }
}

/// A serialized sample as `T`: read in place if it is a flat sample of `T`'s layout, decoded
/// from CDR otherwise.
fn body<T: Message>(bytes: RemoteBytes) -> Result<Body<T>, Malformed> {
    match bytes.flat_layout() {
        None => decode_cdr(&bytes).map(Body::Shared),
        Some(layout) if T::FLAT_LAYOUT == Some(layout) => {
            Body::in_place(bytes).ok_or(Malformed::Misaligned)
        }
        Some(layout) => Err(Malformed::Layout {
            sent: layout,
            ours: T::FLAT_LAYOUT,
        }),
    }
}

/// CDR decoded into a new `Arc`: by the type's own decoder if it has one (a flat type's, in
/// place at any size: see [`flat::from_cdr`](crate::flat::from_cdr)), others by serde.
fn decode_cdr<T: Message>(bytes: &[u8]) -> Result<Arc<T>, Malformed> {
    T::custom_decode_cdr(bytes)
        .unwrap_or_else(|| decode_serde(bytes))
        .map_err(Malformed::Cdr)
}

/// Out of line, so that only this frame holds the value serde builds on the stack, not
/// every caller's (nor, unoptimized, [`decode_cdr`]'s for a flat type, which never comes
/// here).
#[inline(never)]
fn decode_serde<T: Message>(bytes: &[u8]) -> Result<Arc<T>, crate::cdr::DecodeError> {
    crate::cdr::from_bytes::<T>(bytes).map(Arc::new)
}

/// Why a serialized sample could not be read.
#[derive(Debug, thiserror::Error)]
enum Malformed {
    #[error(transparent)]
    Cdr(crate::cdr::DecodeError),
    #[error(
        "a flat sample of layout {sent:?} (size, hash), but this subscription's type is {}",
        match ours { Some(ours) => format!("flat with layout {ours:?}"), None => "not flat".to_owned() }
    )]
    Layout {
        sent: FlatLayout,
        ours: Option<FlatLayout>,
    },
    #[error("a flat sample whose bytes are not aligned for its type")]
    Misaligned,
}

/// What triggers and executors need of a subscription, whatever its message type.
pub(crate) trait Input: Send + Sync + fmt::Debug {
    fn unread(&self) -> usize;
    /// Samples that became visible since creation: a change means new arrivals.
    fn arrivals(&self) -> u64;
    /// Samples lost unread (see [`Subscription::dropped`]).
    fn dropped(&self) -> u64;
    fn is_attached(&self) -> bool;
    /// Attaches the listener; `Ok(false)` if one is attached already.
    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError>;
    fn freeze(&self);
    /// The fd of the transport's reader for the executor's poller, if it wakes through one
    /// (see [`LinkReader::wake_fd`]); asked before [`attach`](Self::attach).
    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        Ok(None)
    }
    /// The poller reported [`wake_fd`](Self::wake_fd) readable: drains it, counts the
    /// samples that arrived as arrivals, and returns how many.
    fn on_wake_fd(&self) -> usize {
        0
    }
}

impl<T: Message> Input for Inbox<T> {
    fn unread(&self) -> usize {
        Inbox::unread(self)
    }

    fn arrivals(&self) -> u64 {
        self.cache().arrivals() + self.remote_arrivals.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> u64 {
        let remote = self.remote().map_or(0, |remote| remote.dropped());
        self.cache().dropped() + remote
    }

    fn is_attached(&self) -> bool {
        self.listener.get().is_some()
    }

    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        self.attach_listener(listener)
    }

    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        self.remote
            .as_ref()
            .map_or(Ok(None), |remote| remote.wake_fd())
    }

    fn on_wake_fd(&self) -> usize {
        let arrived = self.remote.as_ref().map_or(0, |remote| remote.drain_wake());
        // Counted before the executor looks at the trigger, which reads it.
        self.remote_arrivals
            .fetch_add(arrived as u64, Ordering::SeqCst);
        arrived
    }

    fn freeze(&self) {
        // The period sees what arrived before its start, from both sources.
        self.absorb();
        self.cache().freeze();
        loop {
            // One at a time, each freed after the lock (see `deliver`).
            let evicted = self.cache().evict_excess();
            if evicted.is_none() {
                break;
            }
        }
    }
}

/// A polling subscription: the node takes or reads samples from its history when it runs.
///
/// Create one with [`Node::subscription`](crate::Node::subscription). All methods are
/// non-blocking and allocation-free; each takes the history's lock once (an iterator, once per
/// sample).
///
/// # Sample states
/// As in DDS, every sample in the history is READ or NOT_READ ("new"):
///
/// | method | returns | removes it | marks READ |
/// |---|---|---|---|
/// | [`take`](Self::take) / [`take_all`](Self::take_all) | the oldest sample / every sample, whatever its state | yes | - |
/// | [`take_new`](Self::take_new) | the oldest NOT_READ sample | yes | - |
/// | [`read_new`](Self::read_new) | the oldest NOT_READ sample | no | it |
/// | [`latest`](Self::latest) | the newest sample | no | every sample (older ones are superseded) |
/// | [`window(n)`](Self::window) | the newest `n` samples, oldest first | no | those `n` |
///
/// [`has_new`](Self::has_new) and [`unread`](Self::unread) count NOT_READ samples,
/// [`len`](Self::len) all of them. A [`Probe`] looks without changing any state.
///
/// # Examples
/// ```
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, History};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("reader").unwrap();
/// let sub = node.subscription::<Text>("chat").history(History::KeepLast(3)).create().unwrap();
/// let publisher = node.publisher::<Text>("chat").create().unwrap();
/// for word in ["a", "b", "c", "d"] {
///     publisher.publish(Text { data: word.into() });
/// }
///
/// assert_eq!(sub.len(), 3); // KeepLast(3): "a" was overwritten unread
/// assert_eq!(sub.dropped(), 1);
/// assert_eq!(sub.read_new().unwrap().data, "b"); // marks "b" read, keeps it
/// assert_eq!(sub.take_new().unwrap().data, "c"); // the oldest new one, removed
/// assert_eq!(sub.latest().unwrap().data, "d"); // marks everything read
/// assert!(!sub.has_new());
/// let all: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
/// assert_eq!(all, ["b", "d"]); // read or not, take_all empties the history
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
    /// A subscription of `node` to `topic`, with a reader of the context's transport if it has
    /// one.
    pub(crate) fn new(
        node: Option<&str>,
        topic: Arc<Topic<T>>,
        qos: &Qos,
    ) -> Result<Self, TopicError> {
        let inbox = Arc::new(Inbox::new(
            qos.history,
            topic.link_reader(node, qos)?,
            topic.name(),
            topic.malformed_logged(),
        ));
        topic.subscribe(inbox.clone(), qos.durability == Durability::TransientLocal);
        Ok(Subscription { inbox, topic })
    }

    /// Removes and returns the oldest sample, read or not.
    pub fn take(&self) -> Option<Sample<T>> {
        (self.inbox).oldest(false, false, HistoryCache::take, ReadOp::Take)
    }

    /// Removes and returns the oldest sample not read yet.
    pub fn take_new(&self) -> Option<Sample<T>> {
        (self.inbox).oldest(true, false, HistoryCache::take_new, ReadOp::TakeNew)
    }

    /// Takes every sample in the history now, read or not, oldest first.
    ///
    /// Samples that arrive while the iterator runs are left for the next call, so a fast
    /// publisher cannot keep a node in this loop forever.
    pub fn take_all(&self) -> TakeAll<'_, T> {
        TakeAll {
            sub: self,
            left: None,
        }
    }

    /// Returns the oldest sample not read yet, without removing it, and marks it read.
    pub fn read_new(&self) -> Option<Sample<T>> {
        (self.inbox).oldest(true, true, HistoryCache::read_new, ReadOp::ReadNew)
    }

    /// Returns the newest sample, read or not, and marks every sample read.
    ///
    /// This is "the latest value" of a topic: after it, [`has_new`](Self::has_new) is false
    /// until something new arrives. The samples stay in the history for
    /// [`take`](Self::take), [`take_all`](Self::take_all) and [`window`](Self::window).
    pub fn latest(&self) -> Option<Sample<T>> {
        self.inbox.latest()
    }

    /// The newest `n` samples (fewer if the history holds fewer), oldest first, left in the
    /// history and marked read: a sliding window over the topic, e.g. for a filter.
    ///
    /// The window is fixed when `window` is called: a sample taken or overwritten before the
    /// iterator reaches it is skipped, and later arrivals are not part of it.
    ///
    /// # Examples
    /// ```
    /// use tacto::msg::std_msgs::String as Text;
    /// use tacto::{Context, History};
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("filter").unwrap();
    /// let words = node.subscription::<Text>("words").history(History::KeepLast(8)).create().unwrap();
    /// let publisher = node.publisher::<Text>("words").create().unwrap();
    /// for word in ["a", "b", "c", "d"] {
    ///     publisher.publish(Text { data: word.into() });
    /// }
    /// let last: Vec<_> = words.window(3).map(|s| s.data.clone()).collect();
    /// assert_eq!(last, ["b", "c", "d"]);
    /// assert_eq!(words.unread(), 1); // "a" was outside the window
    /// assert_eq!(words.len(), 4); // nothing was removed
    /// ```
    pub fn window(&self, n: usize) -> Window<'_, T> {
        if self.inbox.remote().is_some() {
            // A window spans both sources: the transport's samples join the local history.
            self.inbox.absorb();
        }
        let bounds = self.inbox.cache().read_window(n);
        Window { sub: self, bounds }
    }

    /// True if a sample arrived that was neither read nor taken.
    pub fn has_new(&self) -> bool {
        self.unread() > 0
    }

    /// The number of samples not read yet.
    pub fn unread(&self) -> usize {
        self.inbox.unread()
    }

    /// The number of samples in the history, read or not.
    pub fn len(&self) -> usize {
        self.inbox.len()
    }

    /// True if the history holds no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Samples lost to the history policy since creation: unread samples overwritten by
    /// `KeepLast`, or arrivals refused by a full `KeepAll`; with a transport, also those its
    /// link lost before they were read (see [`LinkReader::dropped`]).
    pub fn dropped(&self) -> u64 {
        Input::dropped(&*self.inbox)
    }

    /// The topic's publishers that the context's transport sees, polled: their count falls
    /// when a publisher process ends or dies. `None` without a transport, or if it cannot
    /// tell. DDS counts the writers of other processes whose liveliness holds (a killed
    /// process's writers stay alive until its participant's lease runs out); shared memory
    /// counts every publisher port on this host, this process's included, and a killed
    /// process's as `gone` until a dead-node cleanup removes them.
    pub fn remote_publishers(&self) -> Option<RemotePublishers> {
        self.inbox.remote.as_ref()?.publishers()
    }

    /// Samples from another transport or message type that failed to decode as `T`, since
    /// creation: each was discarded when a read or take reached it, and the read or take went
    /// on to the next sample. Never from this process's own publishers of `T`. The topic's
    /// first one, in any of its subscriptions, is logged on stderr (topic and decoding
    /// error), the rest only counted.
    pub fn malformed(&self) -> u64 {
        self.inbox.cache().malformed()
    }

    /// The topic's name.
    pub fn topic(&self) -> &str {
        self.topic.name()
    }

    /// Publishers found outside the process whose QoS cannot match this subscription's (e.g.
    /// best effort for a reliable subscription), since creation: they reach it never. Always
    /// 0 without a transport.
    pub fn incompatible_qos(&self) -> u64 {
        (self.inbox.remote.as_ref()).map_or(0, |remote| remote.incompatible_qos())
    }

    /// A read-only handle for trigger conditions: it sees the same history without changing it.
    pub fn probe(&self) -> Probe<T> {
        Probe {
            inbox: self.inbox.clone(),
        }
    }

    /// Has this subscription call `call` on each arrival while the returned hook is
    /// [armed](ArrivalHook::arm) (it starts disarmed): for code that waits for this topic
    /// only at times, e.g. for a transform, to be told without a trigger naming the topic.
    ///
    /// The call runs on the delivering thread (the publisher's, or the transport's receive
    /// thread), after the sample is stored: it must be quick and must not block, typically a
    /// [`GuardCondition::trigger`](crate::GuardCondition::trigger). Disarmed, the hook costs
    /// an arrival one atomic load.
    ///
    /// A transport that wakes through an fd (shared memory) calls nothing on arrival: it
    /// announces arrivals through the hook's [`wake_fd`](ArrivalHook::wake_fd), which the
    /// caller watches while the hook is armed, calling
    /// [`on_readable`](ArrivalHook::on_readable) when it is readable.
    ///
    /// Refused for a subscription that a trigger names, or that has a hook already
    /// ([`HookError::AlreadyAnnounced`]), and if the transport refuses
    /// ([`HookError::Transport`]); a subscription with a hook cannot be named by a trigger
    /// afterwards ([`AddError::InputAlreadyTriggering`](crate::AddError::InputAlreadyTriggering)).
    ///
    /// # Examples
    /// ```
    /// use tacto::Context;
    /// use tacto::msg::std_msgs::String as Text;
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("watcher").unwrap();
    /// let news = node.subscription::<Text>("news").create().unwrap();
    /// let wanted = node.guard_condition();
    /// let raise = wanted.clone();
    /// let hook = news.on_arrival(move || raise.trigger()).unwrap();
    /// let publisher = node.publisher::<Text>("news").create().unwrap();
    ///
    /// publisher.publish(Text { data: "ignored".into() });
    /// assert!(!wanted.take()); // disarmed: nothing called
    /// hook.arm();
    /// publisher.publish(Text { data: "wanted".into() });
    /// assert!(wanted.take());
    /// ```
    pub fn on_arrival(
        &self,
        call: impl Fn() + Send + Sync + 'static,
    ) -> Result<ArrivalHook, HookError> {
        let hook = ArrivalHook::new(Box::new(call));
        let input: Arc<dyn Input> = self.inbox.clone();
        self.inbox.install_hook(&hook, Arc::downgrade(&input))?;
        Ok(hook)
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
    /// Samples still to take; counted under the lock of the first take, which saves a lock.
    left: Option<usize>,
}

impl<T: Message> Iterator for TakeAll<'_, T> {
    type Item = Sample<T>;

    fn next(&mut self) -> Option<Sample<T>> {
        match self.left {
            Some(left) => {
                self.left = Some(left.checked_sub(1)?);
                self.sub.take()
            }
            // Two sources: counted first, then taken one by one from whichever is older.
            None if self.sub.inbox.remote.is_some() => {
                self.left = Some(self.sub.len());
                self.next()
            }
            None => {
                let mut left = 0;
                let first = self.sub.inbox.get(false, |cache| {
                    let (taken, rest) = cache.take_counting();
                    left = rest;
                    taken
                });
                self.left = Some(left);
                first
            }
        }
    }
}

/// Iterator returned by [`Subscription::window`].
#[derive(Debug)]
pub struct Window<'a, T: Message> {
    sub: &'a Subscription<T>,
    /// The ordinals of the first sample left to return and of the window's newest.
    bounds: Option<(u64, u64)>,
}

impl<T: Message> Iterator for Window<'_, T> {
    type Item = Sample<T>;

    fn next(&mut self) -> Option<Sample<T>> {
        let (from, to) = self.bounds?;
        let mut next = None;
        let sample = self.sub.inbox.get(true, |cache| {
            let stored = cache.next_in(from, to)?;
            next = Some(stored.ordinal + 1);
            Some(stored)
        });
        self.bounds = next.filter(|_| sample.is_some()).map(|next| (next, to));
        sample
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

impl<T: Message> Probe<T> {
    /// True if the subscription has unread samples.
    pub fn has_new(&self) -> bool {
        self.unread() > 0
    }

    /// The number of unread samples.
    pub fn unread(&self) -> usize {
        self.inbox.unread()
    }

    /// The newest sample, without marking anything read.
    pub fn peek_latest(&self) -> Option<Sample<T>> {
        self.inbox.peek_latest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Time;
    use crate::msg::std_msgs::String as Text;
    use crate::sample::PublisherId;

    fn info(sequence: u64) -> SampleInfo {
        SampleInfo {
            publish_time: Time::ZERO,
            receive_time: Time::ZERO,
            publisher: PublisherId::default(),
            sequence,
        }
    }

    fn serialized(data: &str) -> RemoteBytes {
        crate::cdr::to_vec(&Text { data: data.into() })
            .unwrap()
            .into()
    }

    #[test]
    fn a_malformed_sample_is_discarded_and_counted_and_the_next_one_served() {
        let ctx = crate::Context::new();
        let mut node = ctx.node("reader").unwrap();
        let sub = node.subscription::<Text>("chat").create().unwrap();
        sub.inbox.deliver_serialized(serialized("first"), info(1));
        sub.inbox
            .deliver_serialized(vec![0u8, 1, 0, 0, 0xff].into(), info(2));
        sub.inbox.deliver_serialized(serialized("third"), info(3));

        assert_eq!(sub.take().unwrap().data, "first");
        assert_eq!(
            sub.read_new().unwrap().data,
            "third",
            "the malformed one was skipped"
        );
        assert_eq!((sub.malformed(), sub.len(), sub.unread()), (1, 1, 0));
        let window: Vec<_> = sub.window(5).map(|s| s.data.clone()).collect();
        assert_eq!(window, ["third"]);
    }

    #[test]
    fn a_serialized_sample_is_decoded_once_however_often_it_is_read() {
        let ctx = crate::Context::new();
        let mut node = ctx.node("reader").unwrap();
        let sub = node.subscription::<Text>("chat").create().unwrap();
        sub.inbox.deliver_serialized(serialized("once"), info(1));

        let first = sub.latest().unwrap();
        let again = sub.latest().unwrap();
        assert!(std::ptr::eq(&*first, &*again), "the decoded value was kept");
    }
}
