//! The listener: `/tf` and `/tf_static` read into a [`Buffer`] on polling subscriptions that
//! wake no executor.
//!
//! tf2_ros's `TransformListener` spins a node of its own on a thread of its own and runs a
//! callback for every `/tf` message, in every node that holds one. Here the two topics are
//! subscriptions that no trigger names: their samples wait in bounded histories, and the
//! buffer takes them in when someone looks something up through the listener, and on the
//! listener's own thread when no lookup did for a while, so that unread samples are not
//! overwritten. One listener serves a whole process ([`Listener::of`]).

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, TryLockError, Weak};
use std::thread;
use std::time::Duration;

use tacto::condition::{ArrivalHook, HookError};
use tacto::{Context, GuardCondition, History, Node, Qos, Subscription, Time};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_msgs::tf2_msgs::msg::TFMessage;

use crate::buffer::{Buffer, BufferLimits, KnownFrames};
use crate::cache::FrameId;
use crate::error::{RejectedTransform, TfError};
use crate::sleeper::Sleeper;
use crate::wire::{LinkRef, TfWire};

/// The authority the buffer records for transforms heard on the wire: tf2_ros's listener
/// records this text, ROS 2 giving a subscriber no name of the node that published.
pub const LISTENER_AUTHORITY: &str = "Authority undetectable";

/// How a [`Listener`] is sized; [`Default`] gives the values written out on each field.
///
/// `/tf`'s history must hold what arrives between two drains, or unread messages are
/// overwritten (counted in [`ListenerStats::dropped`]):
/// `history = ceil(tf_rate × drain_period × headroom)`, by default
/// `1000 msg/s × 0.1 s × 2 = 200` messages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListenerOptions {
    /// The most `/tf` messages per second expected, all publishers together (default 1000:
    /// ten broadcasters at 100 Hz).
    pub tf_rate: f64,
    /// How long the listener's thread lets what arrived wait when no lookup takes it into
    /// the buffer (default 100 ms): it drains when no drain happened for one to five
    /// quarters of this, so lookups at least once a period keep it asleep.
    pub drain_period: Duration,
    /// The margin over the expected count between two drains (default 2: a burst of twice
    /// the rate, or the thread's drain, due up to a quarter period after a period, late by
    /// three quarters more).
    pub headroom: f64,
    /// `/tf_static`'s history (default 100, tf2_ros's `StaticListenerQoS`): one message per
    /// static broadcaster, kept by its writer for late joiners.
    pub static_history: usize,
    /// The buffer's bounds.
    pub limits: BufferLimits,
}

impl Default for ListenerOptions {
    fn default() -> Self {
        ListenerOptions {
            tf_rate: 1000.0,
            drain_period: Duration::from_millis(100),
            headroom: 2.0,
            static_history: 100,
            limits: BufferLimits::default(),
        }
    }
}

/// The longest `/tf` history a listener accepts: 100 000 messages, a second at 100 kHz.
pub const MAX_TF_HISTORY: usize = 100_000;

impl ListenerOptions {
    /// `/tf`'s history: `ceil(tf_rate × drain_period × headroom)`, at least 1 (see the
    /// type's docs); an error naming the option if they make no finite size up to
    /// [`MAX_TF_HISTORY`].
    ///
    /// # Examples
    /// ```
    /// use tacto_tf::ListenerOptions;
    ///
    /// assert_eq!(ListenerOptions::default().tf_history(), Ok(200));
    /// let fast = ListenerOptions { tf_rate: 5000.0, ..Default::default() };
    /// assert_eq!(fast.tf_history(), Ok(1000));
    /// ```
    pub fn tf_history(&self) -> Result<usize, ListenerError> {
        let bad = |what: &str, value: String| ListenerError::Options(format!("{what} {value}"));
        if !(self.tf_rate.is_finite() && self.tf_rate > 0.0) {
            return Err(bad(
                "tf_rate must be a positive number of messages per second, not",
                self.tf_rate.to_string(),
            ));
        }
        if !(self.headroom.is_finite() && self.headroom >= 1.0) {
            return Err(bad(
                "headroom must be a number of at least 1, not",
                self.headroom.to_string(),
            ));
        }
        if self.drain_period.is_zero() {
            return Err(bad("drain_period must be longer than", "zero".into()));
        }
        if self.static_history == 0 {
            return Err(bad("static_history must be at least", "1, not 0".into()));
        }
        let size = (self.tf_rate * self.drain_period.as_secs_f64() * self.headroom).ceil();
        if size > MAX_TF_HISTORY as f64 {
            return Err(bad(
                "tf_rate × drain_period × headroom must be at most",
                format!("{MAX_TF_HISTORY} messages, not {size}"),
            ));
        }
        Ok((size as usize).max(1))
    }
}

/// Why a listener could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListenerError {
    /// An option is out of its range (which, and what it must be).
    #[error("listener options: {0}")]
    Options(String),
    /// The listener's node could not be made.
    #[error("the listener's node: {0}")]
    Node(String),
    /// A subscription to `/tf` or `/tf_static` was refused.
    #[error("the listener's subscription: {0}")]
    Subscription(String),
    /// The listener's thread could not start.
    #[error("the listener's thread: {0}")]
    Thread(String),
}

/// What a listener took in and lost, since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListenerStats {
    /// `TFMessage`s taken into the buffer, from both topics.
    pub messages: u64,
    /// Transforms the buffer accepted.
    pub transforms: u64,
    /// Transforms the buffer refused (a NaN, a bad quaternion, an empty or self frame, old
    /// data, the frame bound): see [`Listener::last_refusal`].
    pub refused: u64,
    /// Messages lost before a drain took them: overwritten in a full history, or lost by the
    /// transport (the subscriptions' [`dropped`](Subscription::dropped)).
    pub dropped: u64,
    /// Messages that did not decode as a `TFMessage` (the subscriptions'
    /// [`malformed`](Subscription::malformed)).
    pub malformed: u64,
}

/// `/tf` and `/tf_static` read into a shared [`Buffer`], waking no executor: tf2_ros's
/// `TransformListener`, one per process.
///
/// The two topics are polling subscriptions of a node of the listener's own
/// (`transform_listener_impl_<id>`, as tf2_ros names its node), which no executor runs: an
/// arrival wakes nothing. What arrived is taken into the buffer
///
/// - first thing in each lookup through the listener ([`lookup_transform`](Self::lookup_transform),
///   [`can_transform`](Self::can_transform) and their `_full` forms, [`drain`](Self::drain)),
///   unless another thread is draining just then: that drain is not waited for, the lookup
///   answers from the buffer as it is;
/// - on the listener's thread when no drain took `/tf` in for a
///   [`drain_period`](ListenerOptions::drain_period) (to five quarters of one), so that
///   `/tf`'s bounded history does not overwrite unread messages (see [`ListenerOptions`]).
///   The thread sleeps on a timer that each drain pushes back (moving it by more than a
///   quarter period only), so while lookups drain at least once a period it never wakes.
///
/// A drain takes the buffer's write lock once per message, so a lookup on another thread
/// waits at most for one message's insertions. `/tf_static` is drained before `/tf`.
///
/// Transforms the buffer refuses (a NaN, a quaternion far from unit length, a frame that is
/// its own parent, ...) are counted ([`refused`](Self::refused)) and the last one kept
/// ([`last_refusal`](Self::last_refusal)); messages that do not decode are counted
/// ([`ListenerStats::malformed`]). Neither changes the tree.
///
/// Cheap to clone: clones share the buffer, the subscriptions and the thread, which stops
/// when the last clone is dropped.
///
/// # Examples
/// ```
/// use tacto::{Context, Time};
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_tf::{Listener, TransformBroadcaster};
///
/// let ctx = Context::new();
/// let listener = Listener::of(&ctx).unwrap();
/// assert!(std::ptr::eq(listener.buffer(), Listener::of(&ctx).unwrap().buffer())); // one per process
///
/// let mut driver = ctx.node("odometry").unwrap();
/// let tf = TransformBroadcaster::new(&mut driver).unwrap();
/// let mut t = TransformStamped::default();
/// t.header.frame_id = "odom".into();
/// t.header.stamp = Time::from_nanos(1_000_000_000).into();
/// t.child_frame_id = "base_link".into();
/// t.transform.translation.x = 2.5;
/// tf.send(t);
///
/// // The lookup takes in what arrived first.
/// let out = listener.lookup_transform("odom", "base_link", Time::ZERO).unwrap();
/// assert_eq!(out.transform.translation.x, 2.5);
/// assert_eq!(listener.stats().transforms, 1);
/// ```
#[derive(Clone)]
pub struct Listener {
    shared: Arc<Shared>,
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listener")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

struct Shared {
    buffer: Buffer,
    tf: Subscription<TfWire>,
    /// As `TFMessage`: transient local, it must get what publishers of this process of that
    /// type kept (they keep it for their own type only).
    tf_static: Subscription<TFMessage>,
    /// Held by the drain running now; a drain that finds it held leaves the work to it. It
    /// holds what the drains remember of `/tf`'s frames.
    draining: Mutex<KnownFrames>,
    messages: AtomicU64,
    transforms: AtomicU64,
    refused: AtomicU64,
    last_refusal: Mutex<Option<RejectedTransform>>,
    /// The conditions raised when `/tf` or `/tf_static` brings data.
    waiters: Arc<Waiters>,
    /// The thread's timer, which drains push back, and the thread's stop.
    sleeper: Arc<Sleeper>,
    /// The node the subscriptions are announced under; kept for its name on the graph.
    _node: Mutex<Node>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.sleeper.stop();
    }
}

/// Numbers the listeners of the process, for their nodes' names.
static LISTENERS: AtomicU64 = AtomicU64::new(0);

impl Listener {
    /// The context's listener, with the [default options](ListenerOptions): the one its
    /// nodes already share if one lives, else a new one. Every node of a process, on
    /// whatever executor thread, looks up in the same buffer, fed by one pair of
    /// subscriptions.
    pub fn of(ctx: &Context) -> Result<Listener, ListenerError> {
        let shared = ctx.shared(|| Self::start(ctx, ListenerOptions::default()))?;
        Ok(Listener { shared })
    }

    /// A listener of its own, not shared with the context's other users, sized by
    /// `options`.
    pub fn with_options(
        ctx: &Context,
        options: ListenerOptions,
    ) -> Result<Listener, ListenerError> {
        Ok(Listener {
            shared: Self::start(ctx, options)?,
        })
    }

    fn start(ctx: &Context, options: ListenerOptions) -> Result<Arc<Shared>, ListenerError> {
        let tf_history = options.tf_history()?;
        let name = format!(
            "transform_listener_impl_{:x}_{:x}",
            std::process::id(),
            LISTENERS.fetch_add(1, Ordering::Relaxed)
        );
        // As tf2_ros: the name given in the node's own arguments, so that a `__node:=` of
        // the process's arguments does not rename it onto the program's node; `/tf`
        // remappings of the process still apply.
        let mut node = (ctx.node_builder("transform_listener_impl"))
            .arguments(["--ros-args", "-r", &format!("__node:={name}")])
            .start_parameter_services(false)
            .start_parameter_event_publisher(false)
            .create()
            .map_err(|e| ListenerError::Node(e.to_string()))?;
        let subscription_error =
            |e: tacto::SubscriptionCreateError| ListenerError::Subscription(e.to_string());
        // tf2_ros's DynamicListenerQoS (reliable, volatile), its depth from the options.
        let tf = (node.subscription::<TfWire>("/tf"))
            .qos(Qos::default().history(History::KeepLast(tf_history)))
            .create()
            .map_err(subscription_error)?;
        // tf2_ros's StaticListenerQoS: reliable, transient local.
        let static_qos = Qos::default()
            .transient_local()
            .history(History::KeepLast(options.static_history));
        let tf_static = (node.subscription::<TFMessage>("/tf_static"))
            .qos(static_qos)
            .create()
            .map_err(subscription_error)?;
        let thread_error = |e: &dyn fmt::Display| ListenerError::Thread(e.to_string());
        let sleeper = Arc::new(Sleeper::new(options.drain_period).map_err(|e| thread_error(&e))?);
        let waiters = Arc::new(Waiters {
            list: Mutex::default(),
            armed: AtomicBool::new(false),
            hooks: OnceLock::new(),
            next: AtomicU64::new(0),
            sleeper: sleeper.clone(),
        });
        let shared = Arc::new(Shared {
            buffer: Buffer::with_limits(options.limits),
            tf,
            tf_static,
            draining: Mutex::default(),
            messages: AtomicU64::new(0),
            transforms: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            last_refusal: Mutex::new(None),
            waiters: waiters.clone(),
            sleeper: sleeper.clone(),
            _node: Mutex::new(node),
        });
        let weak = Arc::downgrade(&shared);
        thread::Builder::new()
            .name("tf_listener".into())
            .spawn(move || run(&weak, &sleeper, &waiters))
            .map_err(|e| thread_error(&e))?;
        Ok(shared)
    }

    /// The buffer the listener fills. Looking up in it directly answers from what was taken
    /// in so far; the listener's own lookups take in what arrived first.
    pub fn buffer(&self) -> &Buffer {
        &self.shared.buffer
    }

    /// Takes what arrived on `/tf_static` and `/tf` into the buffer now; false if another
    /// thread was draining (its drain is not waited for: it takes the same samples, but may
    /// not have finished). To be sure that what arrived before the call is in the buffer,
    /// loop: `while !listener.drain() {}` ends after a drain of this thread that started
    /// once the other one had finished.
    pub fn drain(&self) -> bool {
        self.shared.drain()
    }

    /// [`Buffer::lookup_transform`], after a [`drain`](Self::drain).
    pub fn lookup_transform(
        &self,
        target: &str,
        source: &str,
        time: Time,
    ) -> Result<TransformStamped, TfError> {
        self.drain();
        self.shared.buffer.lookup_transform(target, source, time)
    }

    /// [`Buffer::lookup_transform_full`], after a [`drain`](Self::drain).
    pub fn lookup_transform_full(
        &self,
        target: &str,
        target_time: Time,
        source: &str,
        source_time: Time,
        fixed: &str,
    ) -> Result<TransformStamped, TfError> {
        self.drain();
        (self.shared.buffer).lookup_transform_full(target, target_time, source, source_time, fixed)
    }

    /// [`Buffer::can_transform`], after a [`drain`](Self::drain).
    pub fn can_transform(&self, target: &str, source: &str, time: Time) -> Result<(), TfError> {
        self.drain();
        self.shared.buffer.can_transform(target, source, time)
    }

    /// [`Buffer::can_transform_full`], after a [`drain`](Self::drain).
    pub fn can_transform_full(
        &self,
        target: &str,
        target_time: Time,
        source: &str,
        source_time: Time,
        fixed: &str,
    ) -> Result<(), TfError> {
        self.drain();
        (self.shared.buffer).can_transform_full(target, target_time, source, source_time, fixed)
    }

    /// Transforms the buffer refused since the listener was made.
    pub fn refused(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// The last transform the buffer refused, with tf2's text of why (tf2_ros logs it).
    pub fn last_refusal(&self) -> Option<RejectedTransform> {
        (self.shared.last_refusal.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What the listener took in and lost.
    pub fn stats(&self) -> ListenerStats {
        let shared = &self.shared;
        ListenerStats {
            messages: shared.messages.load(Ordering::Relaxed),
            transforms: shared.transforms.load(Ordering::Relaxed),
            refused: shared.refused.load(Ordering::Relaxed),
            dropped: shared.tf.dropped() + shared.tf_static.dropped(),
            malformed: shared.tf.malformed() + shared.tf_static.malformed(),
        }
    }

    /// A waker that raises `condition` each time `/tf` or `/tf_static` brings data while it
    /// is [armed](TfWaker::arm): for code that holds something waiting for a transform, to
    /// be run by the condition's trigger when one may have come, and to look again.
    ///
    /// While no waker of the listener is armed, an arrival costs one atomic load more and
    /// wakes nothing. The first waker installs an [`ArrivalHook`] on both subscriptions
    /// (refused only if the transport refuses: [`HookError::Transport`]). A transport that
    /// calls it on arrival (DDS) raises the conditions on its receive thread; one that wakes
    /// through an fd (shared memory) has the listener's thread watch that fd while a waker is
    /// armed, and only then, and raise them there.
    ///
    /// # Examples
    /// ```
    /// use tacto::{Context, Time};
    /// use tacto_tf::{Listener, TransformBroadcaster};
    /// use tacto_msgs::geometry_msgs::msg::TransformStamped;
    ///
    /// let ctx = Context::new();
    /// let listener = Listener::of(&ctx).unwrap();
    /// let mut node = ctx.node("waiting").unwrap();
    /// let transform_came = node.guard_condition();
    /// let waker = listener.waker(transform_came.clone()).unwrap();
    /// let tf = TransformBroadcaster::new(&mut node).unwrap();
    /// let mut t = TransformStamped::default();
    /// (t.header.frame_id, t.child_frame_id) = ("odom".into(), "base".into());
    ///
    /// tf.send(t.clone());
    /// assert!(!transform_came.take()); // nothing waits: nothing raised
    /// waker.arm();
    /// tf.send(t);
    /// assert!(transform_came.take());
    /// ```
    pub fn waker(&self, condition: GuardCondition) -> Result<TfWaker, HookError> {
        let waiters = &self.shared.waiters;
        if waiters.hooks.get().is_none() {
            // Serialised: two first wakers at once must not install twice.
            let _installing = waiters.list.lock().unwrap_or_else(PoisonError::into_inner);
            if waiters.hooks.get().is_none() {
                let hooks = [
                    raising(&self.shared.tf_static, waiters)?,
                    raising(&self.shared.tf, waiters)?,
                ];
                let _ = waiters.hooks.set(hooks);
            }
        }
        Ok(TfWaker {
            waiters: waiters.clone(),
            id: waiters.next.fetch_add(1, Ordering::Relaxed),
            condition,
        })
    }

    /// True if both handles are of one listener.
    pub fn same(&self, other: &Listener) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Shared {
    fn drain(&self) -> bool {
        let mut known = match self.draining.try_lock() {
            Ok(guard) => guard,
            // A drain that panicked left nothing half done: each insertion is whole.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        for sample in self.tf_static.take_all() {
            self.take_in(sample.transforms.iter().map(LinkRef::from), true, &mut []);
        }
        for sample in self.tf.take_all() {
            self.take_in(sample.links(), false, known.ids_for(&sample));
        }
        // Under the drain's lock: one drain at a time moves the timer.
        self.sleeper.drained();
        true
    }

    /// Takes a message's transforms into the buffer; `ids` are their frames' ids where known
    /// (see [`KnownFrames`]).
    fn take_in<'a>(
        &self,
        message: impl Iterator<Item = LinkRef<'a>>,
        is_static: bool,
        ids: &mut [Option<(FrameId, FrameId)>],
    ) {
        self.messages.fetch_add(1, Ordering::Relaxed);
        let taken = (self.buffer).set_links(message, LISTENER_AUTHORITY, is_static, ids);
        self.transforms.fetch_add(taken.accepted, Ordering::Relaxed);
        if let Some(refusal) = taken.last_refusal {
            self.refused.fetch_add(taken.refused, Ordering::Relaxed);
            *self
                .last_refusal
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(refusal);
        }
    }
}

/// A hook on `subscription` that raises the conditions of the armed wakers.
fn raising<T: tacto::Message>(
    subscription: &Subscription<T>,
    waiters: &Arc<Waiters>,
) -> Result<ArrivalHook, HookError> {
    let waiters = Arc::downgrade(waiters);
    subscription.on_arrival(move || {
        if let Some(waiters) = waiters.upgrade() {
            waiters.raise_all();
        }
    })
}

/// The conditions of the armed [`TfWaker`]s of a listener.
struct Waiters {
    list: Mutex<Vec<(u64, GuardCondition)>>,
    /// `list` is not empty; read by the listener's thread, which then watches the hooks' fds.
    armed: AtomicBool,
    /// On `/tf_static` and `/tf`; armed while `list` is not empty.
    hooks: OnceLock<[ArrivalHook; 2]>,
    next: AtomicU64,
    /// Told when `armed` changes and a hook announces through an fd, which the listener's
    /// thread then starts or stops watching.
    sleeper: Arc<Sleeper>,
}

impl Waiters {
    /// On an arrival while armed, on the delivering thread (or the listener's, for a hook
    /// that announces through an fd).
    fn raise_all(&self) {
        let list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        for (_, condition) in list.iter() {
            condition.trigger();
        }
    }

    fn list(&self) -> std::sync::MutexGuard<'_, Vec<(u64, GuardCondition)>> {
        self.list.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The hooks that announce through an fd, which the listener's thread watches while
    /// armed.
    fn watched(&self) -> impl Iterator<Item = &ArrivalHook> {
        let hooks = self.hooks.get().map_or(&[][..], |hooks| &hooks[..]);
        hooks.iter().filter(|hook| hook.wake_fd().is_some())
    }

    /// `list` became empty or not empty: the hooks follow, and the listener's thread if it
    /// watches their fds.
    fn set_armed(&self, armed: bool) {
        self.armed.store(armed, Ordering::SeqCst);
        if let Some(hooks) = self.hooks.get() {
            match armed {
                true => hooks.iter().for_each(ArrivalHook::arm),
                false => hooks.iter().for_each(ArrivalHook::disarm),
            }
        }
        if self.watched().next().is_some() {
            self.sleeper.poke();
        }
    }
}

/// Raises a [`GuardCondition`] when `/tf` or `/tf_static` brings data, while armed: see
/// [`Listener::waker`]. Disarmed when dropped.
pub struct TfWaker {
    waiters: Arc<Waiters>,
    id: u64,
    condition: GuardCondition,
}

impl fmt::Debug for TfWaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TfWaker")
            .field("id", &self.id)
            .field("armed", &self.is_armed())
            .finish_non_exhaustive()
    }
}

impl TfWaker {
    /// From now on, each arrival on `/tf` or `/tf_static` raises the condition. Arm before
    /// looking at the buffer, so that what arrives after the look is not missed.
    pub fn arm(&self) {
        let mut list = self.waiters.list();
        if !list.iter().any(|(id, _)| *id == self.id) {
            list.push((self.id, self.condition.clone()));
            if list.len() == 1 {
                self.waiters.set_armed(true);
            }
        }
    }

    /// From now on, arrivals do not raise the condition; when no waker of the listener is
    /// armed, they call nothing.
    pub fn disarm(&self) {
        let mut list = self.waiters.list();
        let before = list.len();
        list.retain(|(id, _)| *id != self.id);
        if before == 1 && list.is_empty() {
            self.waiters.set_armed(false);
        }
    }

    /// True while armed.
    pub fn is_armed(&self) -> bool {
        self.waiters.list().iter().any(|(id, _)| *id == self.id)
    }
}

impl Drop for TfWaker {
    fn drop(&mut self) {
        self.disarm();
    }
}

/// The listener's thread, until told to stop or the listener is gone: a drain when no drain
/// took `/tf` in for a drain period (the sleeper's timer), and while a waker is armed, the
/// hooks of a transport that announces through an fd (shared memory) run when it is readable.
fn run(shared: &Weak<Shared>, sleeper: &Sleeper, waiters: &Waiters) {
    use rustix::event::{PollFd, PollFlags, poll};

    loop {
        let watched: Vec<&ArrivalHook> = match waiters.armed.load(Ordering::SeqCst) {
            true => waiters.watched().collect(),
            false => Vec::new(),
        };
        let mut fds = vec![
            PollFd::from_borrowed_fd(sleeper.control_fd(), PollFlags::IN),
            PollFd::from_borrowed_fd(sleeper.timer_fd(), PollFlags::IN),
        ];
        // The hooks' fds are theirs for as long as `waiters` holds them, which outlives this.
        fds.extend(
            (watched.iter())
                .filter_map(|h| Some(PollFd::from_borrowed_fd(h.wake_fd()?, PollFlags::IN))),
        );
        let polled = poll(&mut fds, None);
        let ready: Vec<bool> = fds.iter().map(|fd| !fd.revents().is_empty()).collect();
        drop(fds);
        if sleeper.is_stopped() {
            return;
        }
        // Not seen in practice (the fds are the listener's own): a drain each period, as if
        // the timer expired each time.
        let failed = !matches!(polled, Ok(_) | Err(rustix::io::Errno::INTR));
        if failed {
            thread::sleep(sleeper.period());
        }
        if ready[0] {
            sleeper.take_pokes();
        }
        if failed || (ready[1] && sleeper.take_expiry()) {
            let Some(shared) = shared.upgrade() else {
                return;
            };
            if !shared.drain() {
                sleeper.expired_while_draining();
            }
        }
        for (hook, _) in watched.iter().zip(&ready[2..]).filter(|(_, ready)| **ready) {
            hook.on_readable();
        }
    }
}
