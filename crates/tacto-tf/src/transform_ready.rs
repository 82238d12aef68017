//! A node's code triggered when a message it subscribes to can be transformed: tf2_ros's
//! `MessageFilter`, as a trigger.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tacto::{GuardCondition, Message, Node, Sample, Subscription, Time, Trigger};
use tacto_msgs::std_msgs::msg::Header;

use crate::listener::{Listener, TfWaker};
use crate::ready::{Ready, ReadyError, ReadyStats, TransformQueue};

/// Runs a node's code when a message of its subscription can be transformed into the target
/// frames at its stamp, and hands it the message with the transforms: tf2_ros's
/// `MessageFilter` (and `waitForTransform`), as a [`Trigger`].
///
/// The messages wait in the subscription's history until the code runs, then in a
/// [`TransformQueue`] (bounded by its size, with tf2_ros's rules and drop reasons, counted in
/// [`stats`](Self::stats)). The trigger fires when a message arrives, and, while messages
/// wait, when `/tf` or `/tf_static` brings data: the listener's [`TfWaker`] raises a guard
/// condition of the node, armed only while something waits. So with nothing waiting `/tf`
/// wakes nothing, as with the listener alone; while a message waits, each `/tf` message
/// wakes the node's executor once to look again.
///
/// The code should [`take`](Self::take) until `None`. A [timeout](TransformQueue::timeout)
/// is checked when the code runs, that is on an arrival of the subscription or, while
/// messages wait, of `/tf`: a message may outlive its timeout by the time to the next one.
///
/// The trigger is an `any` rule over the subscription and a guard condition, which every
/// executor runs (a LET executor looks at both at its periods' starts).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::{Context, Executor, Time, WaitSetExecutor};
/// use tacto_msgs::geometry_msgs::msg::{PointStamped, TransformStamped};
/// use tacto_tf::{Listener, TransformBroadcaster, TransformQueue, TransformReady};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("tracker").unwrap();
/// let points = node.subscription::<PointStamped>("points").create().unwrap();
/// let queue = TransformQueue::new(&["map"], 10).unwrap();
/// let listener = Listener::of(&ctx).unwrap();
/// let ready = TransformReady::new(&mut node, points, &listener, queue, |p| &p.header).unwrap();
/// let (out, results) = std::sync::mpsc::channel();
/// let code = ready.clone();
/// node.execute(ready.trigger(), move |_| {
///     while let Some(r) = code.take() {
///         let x = r.message.point.x + r.transforms[0].transform.translation.x;
///         out.send(x).unwrap();
///     }
/// })
/// .unwrap();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(node).unwrap();
///
/// let mut driver = ctx.node("driver").unwrap();
/// let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
/// let stamp = Time::from_nanos(1_000_000_000);
/// let mut point = PointStamped::default();
/// (point.header.frame_id, point.header.stamp, point.point.x) = ("laser".into(), stamp.into(), 1.0);
/// publisher.publish(point);
/// executor.spin_for(Duration::from_millis(20)).unwrap();
/// assert!(results.try_recv().is_err()); // waits for map -> laser at its stamp
///
/// let tf = TransformBroadcaster::new(&mut driver).unwrap();
/// let mut t = TransformStamped::default();
/// (t.header.frame_id, t.child_frame_id, t.header.stamp) = ("map".into(), "laser".into(), stamp.into());
/// t.transform.translation.x = 10.0;
/// tf.send(t);
/// executor.spin_for(Duration::from_millis(20)).unwrap();
/// assert_eq!(results.try_recv(), Ok(11.0));
/// ```
pub struct TransformReady<T: Message> {
    shared: Arc<Shared<T>>,
}

impl<T: Message> Clone for TransformReady<T> {
    fn clone(&self) -> Self {
        TransformReady {
            shared: self.shared.clone(),
        }
    }
}

impl<T: Message> fmt::Debug for TransformReady<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransformReady")
            .field("topic", &self.shared.subscription.topic())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

struct Shared<T: Message> {
    subscription: Subscription<T>,
    header: fn(&T) -> &Header,
    listener: Listener,
    condition: GuardCondition,
    waker: TfWaker,
    queue: Mutex<TransformQueue<Sample<T>>>,
    /// The origin of the queue's clock, for timeouts.
    start: Instant,
}

impl<T: Message> TransformReady<T> {
    /// Waits with `queue`'s rules for the samples of `subscription` (of `node`), whose frame
    /// and stamp `header` gives, to be transformable in `listener`'s buffer.
    ///
    /// Refused if the listener's transport refuses to announce arrivals
    /// ([`ReadyError::Hook`]). Over shared memory, the listener's thread watches the
    /// transport's wake-up fd while messages wait, and raises the condition from there (see
    /// [`Listener::waker`]).
    pub fn new(
        node: &mut Node,
        subscription: Subscription<T>,
        listener: &Listener,
        queue: TransformQueue<Sample<T>>,
        header: fn(&T) -> &Header,
    ) -> Result<Self, ReadyError> {
        let condition = node.guard_condition();
        let waker = listener.waker(condition.clone())?;
        Ok(TransformReady {
            shared: Arc::new(Shared {
                subscription,
                header,
                listener: listener.clone(),
                condition,
                waker,
                queue: Mutex::new(queue),
                start: Instant::now(),
            }),
        })
    }

    /// The trigger: fires when a sample arrives, or while samples wait, when `/tf` or
    /// `/tf_static` brings data. Give it to [`Node::execute`] of the node given to
    /// [`new`](Self::new).
    pub fn trigger(&self) -> Trigger {
        Trigger::any()
            .with(&self.shared.subscription)
            .with_condition(&self.shared.condition)
    }

    /// The oldest waiting message that can be transformed now, with its transforms. Moves
    /// what arrived on the subscription into the queue first, and takes what arrived on `/tf`
    /// into the buffer.
    pub fn take(&self) -> Option<Ready<Sample<T>>> {
        let shared = &*self.shared;
        let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
        shared.condition.take();
        let now =
            Time::from_nanos(i64::try_from(shared.start.elapsed().as_nanos()).unwrap_or(i64::MAX));
        for sample in shared.subscription.take_all() {
            let header = (shared.header)(&sample);
            let (frame, stamp) = (header.frame_id.clone(), Time::from(header.stamp));
            queue.add(sample, &frame, stamp, now);
        }
        if queue.is_empty() {
            return None;
        }
        // Armed before the look: what arrives after it raises the condition again.
        shared.waker.arm();
        // Not just a try: a drain of another thread under way may hold what woke us.
        while !shared.listener.drain() {
            std::thread::yield_now();
        }
        let ready = queue.poll(shared.listener.buffer(), now);
        if queue.is_empty() {
            shared.waker.disarm();
        }
        ready
    }

    /// The messages waiting for their transforms (not counting those still in the
    /// subscription).
    pub fn waiting(&self) -> usize {
        self.lock().len()
    }

    /// The queue's counts: messages added, handed over ready, and dropped by reason.
    pub fn stats(&self) -> ReadyStats {
        self.lock().stats()
    }

    /// The subscription, e.g. for its own counts.
    pub fn subscription(&self) -> &Subscription<T> {
        &self.shared.subscription
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TransformQueue<Sample<T>>> {
        (self.shared.queue.lock()).unwrap_or_else(PoisonError::into_inner)
    }
}
