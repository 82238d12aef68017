//! The public seam between a context and a transport out of the process (see the parent
//! module for the rules every transport keeps).

use std::fmt;
use std::os::fd::BorrowedFd;
use std::sync::Arc;

use crate::cdr::Encodable;
use crate::qos::Qos;
use crate::sample::SampleInfo;

/// A transport that carries topics between processes: a factory of links.
///
/// Given to [`ContextBuilder::transport`](crate::ContextBuilder::transport).
///
/// # Examples
/// A transport that links nothing, as a skeleton of a real one:
/// ```
/// use std::sync::Arc;
/// use tacto::transport::{LinkError, LinkReader, LinkWriter, Transport};
/// use tacto::{Context, Qos};
///
/// #[derive(Debug)]
/// struct Nowhere;
///
/// impl Transport for Nowhere {
///     fn writer(
///         &self,
///         _: Option<&str>,
///         topic: &str,
///         _: &'static str,
///         _: &Qos,
///     ) -> Result<Arc<dyn LinkWriter>, LinkError> {
///         Err(LinkError(format!("{topic} goes nowhere")))
///     }
///     fn reader(
///         &self,
///         _: Option<&str>,
///         topic: &str,
///         _: &'static str,
///         _: &Qos,
///     ) -> Result<Box<dyn LinkReader>, LinkError> {
///         Err(LinkError(format!("{topic} comes from nowhere")))
///     }
/// }
///
/// let ctx = Context::builder().transport(Arc::new(Nowhere)).create();
/// let mut node = ctx.node("n").unwrap();
/// assert!(node.subscription::<tacto::msg::std_msgs::Empty>("t").create().is_err());
/// ```
pub trait Transport: Send + Sync + fmt::Debug {
    /// The writer of topic `topic` (resolved, `/chatter`) of ROS type `ros_type`
    /// (`std_msgs/msg/String`) with `qos`, shared by the publishers of `node` on the topic with
    /// that QoS. `node` names the node that owns it, for the ROS graph; `None` for the
    /// context's own endpoints (the `/clock` subscription of sim time).
    fn writer(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: &'static str,
        qos: &Qos,
    ) -> Result<Arc<dyn LinkWriter>, LinkError>;

    /// A reader of `topic` for one subscription of `node`, whose cache keeps `qos.history`.
    fn reader(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: &'static str,
        qos: &Qos,
    ) -> Result<Box<dyn LinkReader>, LinkError>;
}

/// Why a link could not be made or used: the transport's own message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LinkError(pub String);

/// The sending end of a topic's link, shared by the topic's publishers in this process.
pub trait LinkWriter: Send + Sync + fmt::Debug {
    /// True while a sample written now goes somewhere: a reader outside this process is
    /// matched, or the writer keeps samples for late joiners. Only then is a sample encoded.
    fn has_remote_readers(&self) -> bool;

    /// Sends one sample's CDR bytes, encapsulation header included.
    fn write(&self, cdr: &[u8]) -> Result<(), LinkError>;

    /// Sends one message with its delivery facts (`info`: publish time, publisher, sequence),
    /// encoding it in whatever form the link needs: a shared-memory link encodes it once,
    /// straight into the slot it loans ([`Encodable::encode_to_slice`]). The default encodes
    /// it into a new buffer and calls [`write`](Self::write).
    ///
    /// A publisher calls it under the lock that orders its deliveries, after
    /// [`has_remote_readers`](Self::has_remote_readers) said yes, so samples reach the link in
    /// sequence order.
    fn write_message(&self, message: &dyn Encodable, info: &SampleInfo) -> Result<(), LinkError> {
        let _ = info;
        let cdr = message.to_vec().map_err(|e| LinkError(e.to_string()))?;
        self.write(&cdr)
    }

    /// Remote readers found on the topic whose QoS cannot match this writer's, since creation.
    fn incompatible_qos(&self) -> u64;
}

/// What a [`LinkReader::next`] does with the sample it returns, in DDS's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOp {
    /// Look at the newest sample, any state, changing nothing.
    PeekNewest,
    /// Remove the oldest sample, any state.
    Take,
    /// Remove the oldest NOT_READ sample.
    TakeNew,
    /// Return the oldest NOT_READ sample and mark it READ.
    ReadNew,
    /// Return the newest sample and mark every sample READ.
    Latest,
}

/// A sample as a link gives it: still serialized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSample {
    /// CDR bytes, encapsulation header included.
    pub cdr: Vec<u8>,
    /// Its delivery facts: source timestamp as `publish_time`, the writer's GID as
    /// `publisher`.
    pub info: SampleInfo,
}

/// The receiving end of one subscription's link: a cache of remote samples with DDS sample
/// states, bounded by the subscription's [`History`](crate::History).
pub trait LinkReader: Send + Sync + fmt::Debug {
    /// The sample `op` names, if any.
    fn next(&self, op: ReadOp) -> Option<RemoteSample>;

    /// The facts of the oldest sample (of the oldest NOT_READ one if `new_only`), changing
    /// nothing and copying no bytes: to order it against a sample of the local history.
    fn oldest_info(&self, new_only: bool) -> Option<SampleInfo>;

    /// NOT_READ samples in the cache.
    fn unread(&self) -> usize;

    /// Samples in the cache, read or not.
    fn len(&self) -> usize;

    /// Remote writers found on the topic whose QoS cannot match this reader's, since creation.
    fn incompatible_qos(&self) -> u64;

    /// True if the cache holds no sample.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `wake` on the transport's thread whenever samples arrive from now on. Called
    /// once per reader, and only for a reader named in a trigger: a reader without it wakes
    /// nothing. Not called for a reader that gives a [`wake_fd`](Self::wake_fd).
    fn on_data(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError>;

    /// A file descriptor that is readable while samples may have arrived, for the executor's
    /// epoll set: executors prefer it to [`on_data`](Self::on_data), as it needs no thread.
    /// Asked only for a reader named in a trigger (the reader may create its wake-up source
    /// then), every time returning the same fd. The executor watches it level-triggered and
    /// calls [`drain_wake`](Self::drain_wake) on every report. The default, `None`, has the
    /// executor call `on_data`.
    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        Ok(None)
    }

    /// Consumes the readiness of [`wake_fd`](Self::wake_fd), on the executor's thread, and
    /// returns how many samples arrived since the last call (0 for a spurious wake, which
    /// then runs nothing). The fd must not be readable afterwards unless samples arrived
    /// meanwhile.
    fn drain_wake(&self) -> usize {
        0
    }

    /// Samples the link lost for this subscription since creation (overwritten in its buffer
    /// before they were read), counted in [`Subscription::dropped`](crate::Subscription::dropped).
    /// The default, 0, is for links that do not count them.
    fn dropped(&self) -> u64 {
        0
    }
}
