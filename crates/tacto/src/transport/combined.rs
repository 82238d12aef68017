//! Two transports as one: what a context gets when
//! [`ContextBuilder::transport`](crate::ContextBuilder::transport) is called twice (shared
//! memory for this host, DDS for the rest).
//!
//! Each topic gets a link of each: a publisher writes to each link that has remote readers,
//! and a subscription reads both caches, the older sample (by publish time) first, as it
//! already reads its local history beside one link. That no sample arrives twice, through
//! both, is the transports' business: they divide the peers between them (a network transport
//! told of the host transport ignores the peers the host transport reaches, see
//! `tacto_dds::DdsTransport::beside_shm`).

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, OnceLock};

use rustix::event::{EventfdFlags, epoll, eventfd};

use crate::cdr::Encodable;
use crate::logging::ROSOUT_TOPIC;
use crate::msg::tacto_msgs::EXECUTOR_STATS_TOPIC;
use crate::node::PARAMETER_EVENTS_TOPIC;
use crate::qos::Qos;
use crate::sample::SampleInfo;
use crate::transport::{
    ClientLink, LinkError, LinkReader, LinkWriter, ReadOp, RemotePublishers, RemoteSample, RosType,
    ServiceLink, Transport,
};

/// The topics every process writes, which go only through transports that
/// [carry them](Transport::carries_graph_topics).
const GRAPH_TOPICS: [&str; 3] = [EXECUTOR_STATS_TOPIC, PARAMETER_EVENTS_TOPIC, ROSOUT_TOPIC];

/// Two transports, each linking every topic: `first` is the one given first to the builder.
#[derive(Debug)]
pub(crate) struct Combined {
    first: Arc<dyn Transport>,
    second: Arc<dyn Transport>,
}

impl Combined {
    pub(crate) fn new(first: Arc<dyn Transport>, second: Arc<dyn Transport>) -> Self {
        Combined { first, second }
    }

    /// The one transport that links `topic`, if only one does: the graph's own topics go only
    /// through those that carry them (a shared-memory transport does not: every process of a
    /// host would open a port on each).
    fn alone(&self, topic: &str) -> Option<&Arc<dyn Transport>> {
        if !GRAPH_TOPICS.contains(&topic) {
            return None;
        }
        match (
            self.first.carries_graph_topics(),
            self.second.carries_graph_topics(),
        ) {
            (true, false) => Some(&self.first),
            (false, true) => Some(&self.second),
            // Neither: the context never opens it; both: like any topic.
            _ => None,
        }
    }
}

impl Transport for Combined {
    fn writer(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Arc<dyn LinkWriter>, LinkError> {
        if let Some(alone) = self.alone(topic) {
            return alone.writer(node, topic, ros_type, qos);
        }
        Ok(Arc::new(Writers([
            self.first.writer(node, topic, ros_type, qos)?,
            self.second.writer(node, topic, ros_type, qos)?,
        ])))
    }

    fn reader(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: RosType,
        qos: &Qos,
    ) -> Result<Box<dyn LinkReader>, LinkError> {
        if let Some(alone) = self.alone(topic) {
            return alone.reader(node, topic, ros_type, qos);
        }
        Ok(Box::new(Readers {
            links: [
                self.first.reader(node, topic, ros_type, qos)?,
                self.second.reader(node, topic, ros_type, qos)?,
            ],
            wake: OnceLock::new(),
        }))
    }

    /// Through one transport only, since a service is one endpoint, which cannot answer a
    /// request twice: the second given to the builder if it carries services, else the first.
    /// The second is the network transport (DDS beside shared memory), which reaches every
    /// peer, ROS 2 nodes and this host's tacto processes alike; the host transport alone
    /// would hide the service from the rest.
    fn service(
        &self,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
    ) -> Result<Option<Box<dyn ServiceLink>>, LinkError> {
        match (self.second).service(node, service, request_type, response_type)? {
            Some(link) => Ok(Some(link)),
            None => (self.first).service(node, service, request_type, response_type),
        }
    }

    /// As [`service`](Self::service): the second transport if it carries clients.
    fn client(
        &self,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
        deliver: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
    ) -> Result<Option<Box<dyn ClientLink>>, LinkError> {
        let second =
            (self.second).client(node, service, request_type, response_type, deliver.clone());
        match second? {
            Some(link) => Ok(Some(link)),
            None => (self.first).client(node, service, request_type, response_type, deliver),
        }
    }

    /// If either does: the graph's own topics then go through those that do.
    fn carries_graph_topics(&self) -> bool {
        self.first.carries_graph_topics() || self.second.carries_graph_topics()
    }
}

/// A topic's writers on both transports.
#[derive(Debug)]
struct Writers([Arc<dyn LinkWriter>; 2]);

impl Writers {
    /// Runs `write` on each link that has remote readers; the first error, after trying both.
    fn each(
        &self,
        write: impl Fn(&dyn LinkWriter) -> Result<(), LinkError>,
    ) -> Result<(), LinkError> {
        let mut result = Ok(());
        for link in self.0.iter().filter(|link| link.has_remote_readers()) {
            let written = write(&**link);
            result = result.and(written);
        }
        result
    }
}

impl LinkWriter for Writers {
    fn has_remote_readers(&self) -> bool {
        self.0.iter().any(|link| link.has_remote_readers())
    }

    /// Both links' counts: a process reached through both is counted by one (a DDS link beside
    /// shared memory leaves the processes it reaches that way to it).
    fn subscription_count(&self) -> usize {
        self.0.iter().map(|link| link.subscription_count()).sum()
    }

    fn write(&self, cdr: &[u8]) -> Result<(), LinkError> {
        self.each(|link| link.write(cdr))
    }

    fn write_message(&self, message: &dyn Encodable, info: &SampleInfo) -> Result<(), LinkError> {
        self.each(|link| link.write_message(message, info))
    }

    fn incompatible_qos(&self) -> u64 {
        self.0.iter().map(|link| link.incompatible_qos()).sum()
    }
}

/// A subscription's readers on both transports, read as one cache.
#[derive(Debug)]
struct Readers {
    links: [Box<dyn LinkReader>; 2],
    /// What the executor watches, made when a trigger names the subscription and either
    /// link wakes through an fd.
    wake: OnceLock<Wake>,
}

impl Readers {
    /// The link whose oldest sample (oldest NOT_READ if `new_only`) was published first.
    fn oldest(&self, new_only: bool) -> Option<(&dyn LinkReader, SampleInfo)> {
        (self.links.iter())
            .filter_map(|link| Some((&**link, link.oldest_info(new_only)?)))
            .min_by_key(|(_, info)| info.publish_time)
    }

    /// The later published of the samples `op` returns from each link (which both apply it).
    fn newer(&self, op: ReadOp) -> Option<RemoteSample> {
        let [first, second] = &self.links;
        match (first.next(op), second.next(op)) {
            (Some(a), Some(b)) if b.info.publish_time < a.info.publish_time => Some(a),
            (a, b) => b.or(a),
        }
    }
}

impl LinkReader for Readers {
    fn next(&self, op: ReadOp) -> Option<RemoteSample> {
        let new_only = match op {
            ReadOp::PeekNewest | ReadOp::Latest => return self.newer(op),
            ReadOp::Take => false,
            ReadOp::TakeNew | ReadOp::ReadNew => true,
        };
        let (link, _) = self.oldest(new_only)?;
        link.next(op)
    }

    fn oldest_info(&self, new_only: bool) -> Option<SampleInfo> {
        self.oldest(new_only).map(|(_, info)| info)
    }

    fn unread(&self) -> usize {
        self.links.iter().map(|link| link.unread()).sum()
    }

    fn len(&self) -> usize {
        self.links.iter().map(|link| link.len()).sum()
    }

    fn incompatible_qos(&self) -> u64 {
        self.links.iter().map(|link| link.incompatible_qos()).sum()
    }

    fn on_data(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError> {
        // Asked only when neither link has an fd (see `wake_fd`).
        self.links
            .iter()
            .try_for_each(|link| link.on_data(wake.clone()))
    }

    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        if let Some(wake) = self.wake.get() {
            return Ok(Some(wake.epoll.as_fd()));
        }
        let mut fds = Vec::with_capacity(2);
        for link in &self.links {
            fds.push(link.wake_fd()?);
        }
        if fds.iter().all(Option::is_none) {
            return Ok(None);
        }
        let wake =
            Wake::new(&fds).map_err(|e| LinkError(format!("cannot watch both links: {e}")))?;
        for (link, fd) in self.links.iter().zip(&fds) {
            if fd.is_none() {
                let calls = wake.calls.clone();
                link.on_data(Arc::new(move || calls.notify()))?;
            }
        }
        // Two threads asking at once: one is kept, the other dropped with its fds.
        let _ = self.wake.set(wake);
        Ok(self.wake.get().map(|wake| wake.epoll.as_fd()))
    }

    fn drain_wake(&self) -> usize {
        let Some(wake) = self.wake.get() else {
            return 0;
        };
        let called = wake.calls.drain();
        let drained: usize = self.links.iter().map(|link| link.drain_wake()).sum();
        called + drained
    }

    fn dropped(&self) -> u64 {
        self.links.iter().map(|link| link.dropped()).sum()
    }

    /// Those of each transport added up: a publisher reached both ways counts twice.
    fn publishers(&self) -> Option<RemotePublishers> {
        let [first, second] = [&self.links[0], &self.links[1]].map(|link| link.publishers());
        let (Some(a), Some(b)) = (first, second) else {
            return first.or(second);
        };
        Some(RemotePublishers {
            alive: a.alive + b.alive,
            gone: a.gone + b.gone,
        })
    }
}

/// One fd for the executor to watch for both links: an epoll set (readable while any fd in
/// it is) of the links' own fds, and of an eventfd that the callbacks of a link without one
/// write.
#[derive(Debug)]
struct Wake {
    epoll: OwnedFd,
    calls: Arc<Calls>,
}

impl Wake {
    fn new(fds: &[Option<BorrowedFd<'_>>]) -> rustix::io::Result<Wake> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let calls = Arc::new(Calls(eventfd(
            0,
            EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK,
        )?));
        let readable = epoll::EventFlags::IN;
        for fd in fds.iter().flatten() {
            epoll::add(&epoll, fd, epoll::EventData::new_u64(0), readable)?;
        }
        epoll::add(&epoll, &calls.0, epoll::EventData::new_u64(1), readable)?;
        Ok(Wake { epoll, calls })
    }
}

/// Counts a link's data callbacks in an eventfd, level-triggered readable until drained.
#[derive(Debug)]
struct Calls(OwnedFd);

impl Calls {
    fn notify(&self) {
        // EAGAIN: the counter is at its maximum, readable anyway: nothing is lost.
        let _ = rustix::io::write(&self.0, &1u64.to_ne_bytes());
    }

    /// The callbacks since the last drain (each means samples arrived).
    fn drain(&self) -> usize {
        let mut count = [0u8; 8];
        match rustix::io::read(&self.0, &mut count) {
            Ok(8) => usize::try_from(u64::from_ne_bytes(count)).unwrap_or(usize::MAX),
            _ => 0,
        }
    }
}
