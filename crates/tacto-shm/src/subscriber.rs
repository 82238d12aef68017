//! The subscribing side of a topic in shared memory: samples read and decoded in place,
//! sequence gaps counted, own samples dropped, and an optional wake-up fd.

use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use iceoryx2::identifiers::UniquePublisherId;
use iceoryx2::node::NodeListFailure;
use iceoryx2::port::ReceiveError;
use iceoryx2::port::listener::ListenerCreateError;
use iceoryx2::port::subscriber::{Subscriber, SubscriberCreateError};
use iceoryx2::prelude::{CallbackProgression, PortFactory as _};
use iceoryx2::sample::Sample;
use tacto::{History, Message, SampleInfo, Time};

use crate::header::SampleHeader;
use crate::node::{Ipc, ShmNode, liveliness};
use crate::publisher::transient_local_depth;
use crate::topic::{Topic, TopicError};
use crate::wake_up::WakeUp;

/// Why a subscriber could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubscriberError {
    /// The topic's services could not be opened.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// The history does not fit a shared-memory subscriber buffer.
    #[error(
        "history {history:?} cannot be served from shared memory: KeepLast(1..={depth}) can \
         (max_depth = {depth}; KeepAll would need a blocking publisher, not supported yet)"
    )]
    History {
        /// The history asked for.
        history: History,
        /// The node's [`ShmLimits::depth`](crate::ShmLimits::depth).
        depth: usize,
    },
    /// The topic has as many subscribers on this host as it was created for.
    #[error(
        "topic {topic:?} already has its {limit} subscribers on this host; raise \
         max_subscribers in every process (ShmLimits::subscribers; a launch file's [shm] table)"
    )]
    Full {
        /// The iceoryx2 service.
        topic: String,
        /// The topic's limit, set by the process that created it.
        limit: usize,
    },
    /// iceoryx2 refused the subscriber port.
    #[error("cannot create a shared-memory subscriber on {topic:?}: {source}")]
    Port {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: SubscriberCreateError,
    },
    /// iceoryx2 refused the listener port of the wake-ups.
    #[error("cannot create a shared-memory listener on {topic:?}: {source}")]
    Listener {
        /// The iceoryx2 service.
        topic: String,
        /// iceoryx2's reason.
        source: ListenerCreateError,
    },
}

/// Why taking failed (the port itself, never the data: bad data is counted, see
/// [`ShmStats::malformed`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TakeError {
    /// iceoryx2 could not receive from its connections.
    #[error("cannot receive from shared memory: {0}")]
    Receive(ReceiveError),
}

/// Why the publishers' liveliness could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LivelinessError {
    /// iceoryx2 could not list the nodes of this host.
    #[error("cannot list the iceoryx2 nodes: {0:?}")]
    List(NodeListFailure),
}

/// Configures a [`ShmSubscriber`]; from [`ShmNode::subscriber`].
#[derive(Debug)]
#[must_use]
pub struct SubscriberBuilder<'a, T> {
    node: &'a ShmNode,
    topic: String,
    history: History,
    wake_ups: bool,
    _message: PhantomData<fn() -> T>,
}

impl<'a, T: Message> SubscriberBuilder<'a, T> {
    pub(crate) fn new(node: &'a ShmNode, topic: &str) -> Self {
        SubscriberBuilder {
            node,
            topic: topic.to_owned(),
            history: History::default(),
            wake_ups: false,
            _message: PhantomData,
        }
    }

    /// The history: `KeepLast(n)` is the port's buffer of `n` samples (1 to the node's
    /// [`ShmLimits::depth`](crate::ShmLimits::depth)),
    /// the oldest overwritten when full. Default `KeepLast(10)`.
    pub fn history(mut self, history: History) -> Self {
        self.history = history;
        self
    }

    /// Asks for wake-ups: the subscriber gets a [`WakeUp`] whose fd is readable after a
    /// publish. Without it nothing ever wakes this subscriber; it is polled.
    pub fn wake_ups(mut self) -> Self {
        self.wake_ups = true;
        self
    }

    /// Opens the topic (creating it if needed) and the ports.
    pub fn create(self) -> Result<ShmSubscriber<T>, SubscriberError> {
        let max = self.node.limits().depth;
        let depth = match self.history {
            History::KeepLast(n) if (1..=max).contains(&n) => n,
            history => {
                return Err(SubscriberError::History {
                    history,
                    depth: max,
                });
            }
        };
        let inlet = Inlet::open(self.node, &self.topic, T::TYPE_NAME, depth, false)?;
        let wake_up = match self.wake_ups {
            true => Some(inlet.wake_up()?),
            false => None,
        };
        Ok(ShmSubscriber {
            inlet,
            wake_up,
            _message: PhantomData,
        })
    }
}

/// A message received from another process, decoded, with its delivery facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Received<T> {
    /// The message.
    pub message: T,
    /// Publish and receive time, publisher id and sequence number, as on every transport.
    pub info: SampleInfo,
}

/// What a subscriber has counted since it was created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShmStats {
    /// Samples lost: the gaps in each publisher's sequence numbers, i.e. samples overwritten
    /// in this subscriber's buffer because it read too slowly. Of a publisher that existed
    /// before this subscriber, the samples before the first one seen are not counted (they
    /// may have been sent before the two were connected).
    pub lost: u64,
    /// Samples whose payload did not decode as the topic's type (truncated or corrupt CDR);
    /// skipped.
    pub malformed: u64,
    /// Samples published by this very process, dropped: its own subscriptions got them
    /// through the intra-process path already.
    pub own_dropped: u64,
}

/// The publishers of a topic as this subscriber's host sees them (or a service's servers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liveliness {
    /// Ports whose process is alive.
    pub alive: usize,
    /// Ports whose process died without cleaning up (e.g. `kill -9`); they disappear
    /// once a node cleans up dead nodes ([`ShmNode::cleanup_dead_nodes`], or iceoryx2 itself
    /// when a node or service is created).
    pub dead: usize,
}

/// Receives messages of type `T` on one topic from other processes through shared memory.
///
/// Polled with [`take`](Self::take); a subscriber created with
/// [`wake_ups`](SubscriberBuilder::wake_ups) also has a [`WakeUp`] to put in an epoll set.
/// Samples are decoded straight from the shared-memory slot. The buffer keeps the newest
/// `KeepLast(n)` samples; a publisher never waits for a slow subscriber, it overwrites the
/// subscriber's oldest sample, which the subscriber counts as [lost](ShmStats::lost).
///
/// # Examples
/// ```
/// use tacto::History;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto_shm::ShmNode;
///
/// let node = ShmNode::create("doc_subscriber")?;
/// // Unique per process, so that parallel runs never share it.
/// let topic = format!("/doc_subscriber_{}", std::process::id());
/// let sub = node
///     .subscriber::<Text>(&topic)
///     .history(History::KeepLast(4))
///     .wake_ups()
///     .create()?;
/// assert!(sub.wake_up().is_some());
/// assert!(sub.take()?.is_none());
/// assert_eq!(sub.publishers()?.alive, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ShmSubscriber<T> {
    inlet: Inlet,
    wake_up: Option<WakeUp>,
    _message: PhantomData<fn() -> T>,
}

impl<T: Message> ShmSubscriber<T> {
    /// The oldest sample not yet taken that another process published and that decodes, or
    /// `None` when there is none. Own samples and malformed ones are skipped and counted.
    pub fn take(&self) -> Result<Option<Received<T>>, TakeError> {
        loop {
            let Some((slot, info, _)) = self.inlet.receive()? else {
                return Ok(None);
            };
            // A flat message's bytes are not CDR: a Context's subscription reads those.
            if slot.user_header().flat_layout().is_some() {
                self.inlet.count_malformed();
                continue;
            }
            match tacto::cdr::from_bytes::<T>(slot.payload()) {
                Ok(message) => return Ok(Some(Received { message, info })),
                Err(_) => self.inlet.count_malformed(),
            }
        }
    }

    /// The wake-up of a subscriber created with
    /// [`wake_ups`](SubscriberBuilder::wake_ups); `None` for a polling-only one.
    pub fn wake_up(&self) -> Option<&WakeUp> {
        self.wake_up.as_ref()
    }

    /// The counts so far.
    pub fn stats(&self) -> ShmStats {
        self.inlet.stats()
    }

    /// Which of the topic's publishers are alive: polled, e.g. to notice a publisher process
    /// killed with SIGKILL (its port stays registered until a dead-node cleanup).
    pub fn publishers(&self) -> Result<Liveliness, LivelinessError> {
        self.inlet.publishers()
    }

    /// The iceoryx2 service name (`rt/chatter`).
    pub fn service_name(&self) -> &str {
        &self.inlet.topic.name
    }
}

/// A received sample in its shared-memory slot: CDR bytes, read in place.
pub(crate) type Slot = Sample<Ipc, [u8], SampleHeader>;

/// The subscriber port of one topic, whatever its message type: what [`ShmSubscriber`] and
/// the transport's link reader share. Drops its own process's samples and counts gaps.
#[derive(Debug)]
pub(crate) struct Inlet {
    port: Subscriber<Ipc, [u8], SampleHeader>,
    process_id: u32,
    /// When the port was created (Unix ns), taken just after.
    created_ns: i64,
    /// Keeps what transient-local publishers kept for it (their history); else it asked
    /// for none.
    transient_local: bool,
    config: iceoryx2::config::Config,
    sequences: Mutex<Sequences>,
    lost: AtomicU64,
    malformed: AtomicU64,
    own_dropped: AtomicU64,
    pub(crate) topic: Topic,
}

impl Inlet {
    /// Opens topic `topic` of ROS type `type_name` and a subscriber port buffering `depth`
    /// samples (1 to the node's [`ShmLimits::depth`](crate::ShmLimits::depth));
    /// `transient_local`: it asks the publishers for their last `depth` samples, and keeps
    /// those of transient-local publishers.
    pub(crate) fn open(
        node: &ShmNode,
        topic: &str,
        type_name: &str,
        depth: usize,
        transient_local: bool,
    ) -> Result<Inlet, SubscriberError> {
        let topic = Topic::open(node, topic, type_name)?;
        // At most what the service keeps (`ShmLimits::history` of its creator).
        let kept = depth.min(topic.data.static_config().history_size());
        let port = topic
            .data
            .subscriber_builder()
            .buffer_size(depth)
            .history_request(if transient_local { kept } else { 0 })
            .create()
            .map_err(|source| match source {
                SubscriberCreateError::ExceedsMaxSupportedSubscribers => SubscriberError::Full {
                    topic: topic.name.clone(),
                    limit: topic.data.static_config().max_subscribers(),
                },
                source => SubscriberError::Port {
                    topic: topic.name.clone(),
                    source,
                },
            })?;
        Ok(Inlet {
            // Taken once the port exists: see `SampleHeader::publisher_created_ns`.
            created_ns: crate::publisher::now_ns(),
            transient_local,
            port,
            process_id: std::process::id(),
            config: node.config().clone(),
            sequences: Mutex::new(Sequences::new(node.limits().publishers)),
            lost: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
            own_dropped: AtomicU64::new(0),
            topic,
        })
    }

    /// A new listener on the topic's wake-ups.
    pub(crate) fn wake_up(&self) -> Result<WakeUp, SubscriberError> {
        let listener = self
            .topic
            .events
            .listener_builder()
            .create()
            .map_err(|source| SubscriberError::Listener {
                topic: self.topic.name.clone(),
                source,
            })?;
        Ok(WakeUp::new(listener))
    }

    /// The oldest sample another process published, still in its slot (borrowed from the
    /// publisher until dropped), with its facts, and, for a sample a transient-local
    /// publisher kept for this late joiner, that publisher's depth; `None` when there is
    /// none. Own samples are skipped and counted, gaps counted as lost.
    pub(crate) fn receive(&self) -> Result<Option<(Slot, SampleInfo, Option<usize>)>, TakeError> {
        loop {
            let Some(sample) = self.port.receive().map_err(TakeError::Receive)? else {
                return Ok(None);
            };
            let header = *sample.user_header();
            if header.process_id == self.process_id {
                self.own_dropped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            // Published before this port existed: the history a publisher handed it on
            // connecting, which DDS gives a transient-local reader from transient-local
            // writers only. Not a loss.
            let old = self.transient_local && header.publish_time_ns < self.created_ns;
            let kept_by = match old {
                true => match self.kept_for_late_joiners(sample.header().publisher_id()) {
                    Some(depth) => Some(depth),
                    None => continue,
                },
                false => None,
            };
            let lost = self
                .sequences
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .observe(
                    header.publisher,
                    header.sequence,
                    header.publisher_created_ns >= self.created_ns,
                );
            self.lost.fetch_add(lost, Ordering::Relaxed);
            return Ok(Some((sample, header.info(now()), kept_by)));
        }
    }

    /// The depth of `publisher` if it is a transient-local publisher's port (named by
    /// [`transient_local_port`](crate::publisher::transient_local_port)); `None` if it is
    /// volatile, or gone.
    fn kept_for_late_joiners(&self, publisher: UniquePublisherId) -> Option<usize> {
        let mut depth = None;
        (self.topic.data.dynamic_config()).list_publishers(|details| {
            if details.publisher_id != publisher {
                return CallbackProgression::Continue;
            }
            depth = transient_local_depth(details.publisher_name.as_str());
            CallbackProgression::Stop
        });
        depth
    }

    pub(crate) fn count_malformed(&self) {
        self.malformed.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> ShmStats {
        ShmStats {
            lost: self.lost.load(Ordering::Relaxed),
            malformed: self.malformed.load(Ordering::Relaxed),
            own_dropped: self.own_dropped.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn publishers(&self) -> Result<Liveliness, LivelinessError> {
        let mut nodes = Vec::new();
        self.topic
            .data
            .dynamic_config()
            .list_publishers(|publisher| {
                nodes.push(publisher.node_id);
                CallbackProgression::Continue
            });
        liveliness(&self.config, &nodes)
    }
}

/// The last sequence number seen of each recent publisher, to count gaps.
///
/// Bounded: it remembers twice the node's publishers per topic (the topic's at once, and as
/// many that left) and forgets the one heard from longest ago. A forgotten publisher that
/// speaks again starts a new baseline, so nothing is miscounted.
#[derive(Debug)]
struct Sequences {
    /// (publisher, last sequence, when last heard, in calls to `observe`).
    entries: Vec<([u8; 16], u64, u64)>,
    capacity: usize,
    tick: u64,
}

impl Sequences {
    fn new(publishers: usize) -> Sequences {
        Sequences {
            entries: Vec::new(),
            capacity: 2 * publishers,
            tick: 0,
        }
    }

    /// Records `sequence` from `publisher`; returns how many of its samples were skipped.
    /// `from_start`: the publisher was created after this subscriber, so its first sample is
    /// a gap unless it is number 1.
    fn observe(&mut self, publisher: [u8; 16], sequence: u64, from_start: bool) -> u64 {
        self.tick += 1;
        let tick = self.tick;
        if let Some(entry) = self.entries.iter_mut().find(|e| e.0 == publisher) {
            // Anything but a step forward (a restarted or misbehaving publisher) re-bases.
            let lost = sequence.saturating_sub(entry.1).saturating_sub(1);
            *entry = (publisher, sequence, tick);
            return lost;
        }
        if self.entries.len() >= self.capacity
            && let Some(oldest) = (0..self.entries.len()).min_by_key(|&i| self.entries[i].2)
        {
            self.entries.swap_remove(oldest);
        }
        self.entries.push((publisher, sequence, tick));
        if from_start {
            sequence.saturating_sub(1)
        } else {
            0
        }
    }
}

fn now() -> Time {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Time::from_nanos(i64::try_from(since.as_nanos()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::Sequences;

    #[test]
    fn gaps_are_counted_per_publisher() {
        let mut seq = Sequences::new(8);
        assert_eq!(
            seq.observe([1; 16], 5, false),
            0,
            "an older publisher: a baseline"
        );
        assert_eq!(
            seq.observe([2; 16], 3, true),
            2,
            "a younger one: counted from 1"
        );
        assert_eq!(seq.observe([1; 16], 6, false), 0);
        assert_eq!(seq.observe([1; 16], 10, false), 3);
        assert_eq!(seq.observe([2; 16], 4, true), 0);
        assert_eq!(seq.observe([1; 16], 1, false), 0, "a step back re-bases");
    }

    #[test]
    fn forgets_the_publisher_heard_from_longest_ago() {
        let mut seq = Sequences::new(8);
        for p in 0..=16 {
            seq.observe([p; 16], 1, true);
        }
        assert_eq!(seq.entries.len(), 16);
        assert!(seq.entries.iter().all(|e| e.0 != [0; 16]));
        assert_eq!(
            seq.observe([0; 16], 9, false),
            0,
            "forgotten: a new baseline"
        );
    }
}
