//! A policy fed by subscriptions, and the trigger that runs a node's code when it has
//! matched sets.

use std::fmt;
use std::sync::Arc;

use super::output::Stats;
use super::stamp::{Stamped, StampedBy};
use super::{Policy, Set};
use crate::clock::Time;
use crate::message::Message;
use crate::pi_mutex::PiMutex;
use crate::sample::Sample;
use crate::subscription::Subscription;
use crate::trigger::Trigger;

/// A subscription that a [`Synchronizer`] takes samples from, and how it reads their stamps:
/// a `Subscription<T>` of a [`Stamped`] `T`, or a [`StampedBy`].
pub trait SyncInput: Send + Sync + 'static {
    /// The subscription's message type.
    type Message: Message;
    /// The subscription.
    fn subscription(&self) -> &Subscription<Self::Message>;
    /// The stamp of `message`.
    fn stamp(&self, message: &Self::Message) -> Time;
}

impl<T: Message + Stamped> SyncInput for Subscription<T> {
    type Message = T;

    fn subscription(&self) -> &Subscription<T> {
        self
    }

    fn stamp(&self, message: &T) -> Time {
        message.stamp()
    }
}

impl<T: Message> SyncInput for StampedBy<T> {
    type Message = T;

    fn subscription(&self) -> &Subscription<T> {
        StampedBy::subscription(self)
    }

    fn stamp(&self, message: &T) -> Time {
        StampedBy::stamp(self, message)
    }
}

/// The inputs of a [`Synchronizer`]: a tuple of 2 to 9 [`SyncInput`]s. Its matched sets are
/// the tuples of their samples, `(Sample<A>, Sample<B>, ..)`.
pub trait Inputs: Send + Sync + 'static + sealed::Sealed {
    /// The matched set: one sample per input.
    type Set: Set;
    /// Per input, the sample taken from its subscription and not yet given to the policy.
    #[doc(hidden)]
    type Next: Default + Send;
    /// `trigger`, woken by each input's subscription.
    #[doc(hidden)]
    fn watch(&self, trigger: Trigger) -> Trigger;
    /// The samples the subscriptions hold.
    #[doc(hidden)]
    fn held(&self) -> usize;
    /// Gives `policy` the next sample in order of arrival; false if there is none.
    #[doc(hidden)]
    fn feed<P: Policy<Set = Self::Set>>(&self, next: &mut Self::Next, policy: &mut P) -> bool;
}

mod sealed {
    /// Keeps [`Inputs`](super::Inputs) to the tuples implemented here.
    pub trait Sealed {}
}

/// Implements [`Inputs`] for tuples of each arity given.
macro_rules! inputs {
    ($( ($($I:ident $k:tt),+) )+) => {$(
        impl<$($I: SyncInput),+> sealed::Sealed for ($($I,)+) {}

        impl<$($I: SyncInput),+> Inputs for ($($I,)+) {
            type Set = ($(Sample<$I::Message>,)+);
            type Next = ($(Option<Sample<$I::Message>>,)+);

            fn watch(&self, trigger: Trigger) -> Trigger {
                trigger$(.with(self.$k.subscription()))+
            }

            fn held(&self) -> usize {
                0 $(+ self.$k.subscription().len())+
            }

            fn feed<P: Policy<Set = Self::Set>>(
                &self,
                next: &mut Self::Next,
                policy: &mut P,
            ) -> bool {
                $(
                    if next.$k.is_none() {
                        next.$k = self.$k.subscription().take();
                    }
                )+
                // The earliest received first, as message_filters is handed them by its
                // subscribers' callbacks; on a tie, the first input.
                let mut earliest: Option<(Time, usize)> = None;
                $(
                    if let Some(sample) = &next.$k {
                        let received = sample.info().receive_time;
                        if earliest.is_none_or(|(first, _)| received < first) {
                            earliest = Some((received, $k));
                        }
                    }
                )+
                let Some((_, input)) = earliest else {
                    return false;
                };
                match input {
                    $($k => {
                        if let Some(sample) = next.$k.take() {
                            let stamp = self.$k.stamp(&sample);
                            policy.add::<$k>(stamp, sample);
                        }
                    })+
                    _ => {}
                }
                true
            }
        }
    )+};
}

inputs! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8)
}

/// Subscriptions matched by stamp: message_filters' `Synchronizer`, as a trigger.
///
/// A synchronizer owns its subscriptions (nothing else takes their samples from under it)
/// and a [`Policy`]. Its [`trigger`](Self::trigger) runs the node's code when the policy
/// has a matched set, and the code [`take`](Self::take)s the sets: one sample per input,
/// whose stamps the policy matched, in the order of the inputs.
///
/// Samples wait in the subscriptions' histories until the trigger's rule is evaluated (on
/// each arrival) or the code takes: then they move into the policy one at a time, in the
/// order they were received, and only while no matched set is waiting. So a policy never
/// holds more than its queue size per input, the sets wait for the code, and a node that
/// falls behind loses samples where a subscription always does, in its history (counted in
/// [`Subscription::dropped`]). What the policy drops unmatched is counted in
/// [`stats`](Self::stats).
///
/// The code should take until `None`: sets left behind wait for the next arrival on an
/// input to run it again (see [`Trigger`]). The trigger is a condition, which the
/// callback-only executors refuse; they take [`arrival_trigger`](Self::arrival_trigger).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::msg::std_msgs::Header;
/// use tacto::sync::{ApproximateTime, Synchronizer};
/// use tacto::{Context, Executor, Time, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut fusion = ctx.node("fusion").unwrap();
/// let lidar = fusion.subscription::<Header>("lidar").create().unwrap();
/// let camera = fusion.subscription::<Header>("camera").create().unwrap();
/// let sync = Synchronizer::new(ApproximateTime::new(10).unwrap(), (lidar, camera));
/// let (matched, sets) = std::sync::mpsc::channel();
/// fusion
///     .execute(sync.trigger(), move |_| {
///         while let Some((lidar, camera)) = sync.take() {
///             matched.send((lidar.frame_id.clone(), camera.frame_id.clone())).unwrap();
///         }
///     })
///     .unwrap();
///
/// let mut drivers = ctx.node("drivers").unwrap();
/// let lidar_out = drivers.publisher::<Header>("lidar").create().unwrap();
/// let camera_out = drivers.publisher::<Header>("camera").create().unwrap();
/// let header = |ms: i64, frame: &str| Header {
///     stamp: Time::from_nanos(ms * 1_000_000).into(),
///     frame_id: frame.into(),
/// };
/// lidar_out.publish(header(0, "lidar 0"));
/// camera_out.publish(header(2, "camera 2"));
/// lidar_out.publish(header(100, "lidar 100"));
/// camera_out.publish(header(103, "camera 103"));
///
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(fusion).unwrap();
/// executor.spin_for(Duration::from_millis(20)).unwrap();
/// assert_eq!(sets.try_recv().unwrap(), ("lidar 0".into(), "camera 2".into()));
/// assert!(sets.try_recv().is_err()); // (100, 103) waits for later samples
/// ```
pub struct Synchronizer<P: Policy, I: Inputs<Set = P::Set>> {
    shared: Arc<Shared<P, I>>,
}

struct Shared<P, I: Inputs> {
    inputs: I,
    state: PiMutex<State<P, I::Next>>,
}

struct State<P, N> {
    policy: P,
    next: N,
}

impl<P, I> Synchronizer<P, I>
where
    P: Policy<Set = I::Set> + Send + 'static,
    I: Inputs,
{
    /// A synchronizer of `inputs`, a tuple of 2 to 9 subscriptions of the same node (each a
    /// `Subscription<T>` of a [`Stamped`] `T`, or a [`StampedBy`]), matched by `policy`.
    pub fn new(policy: P, inputs: I) -> Self {
        Synchronizer {
            shared: Arc::new(Shared {
                inputs,
                state: PiMutex::new(State {
                    policy,
                    next: I::Next::default(),
                }),
            }),
        }
    }

    /// A trigger that fires when a matched set waits: its rule is evaluated on each arrival
    /// on an input, and moves samples into the policy. Give it to
    /// [`Node::execute`](crate::Node::execute) of the node that created the subscriptions.
    ///
    /// It is a [`Trigger::when`] rule, which the wait-set, events and LET executors run; the
    /// executors that run callbacks only (callback, thread pool) refuse conditions: give them
    /// [`arrival_trigger`](Self::arrival_trigger).
    pub fn trigger(&self) -> Trigger {
        let shared = self.shared.clone();
        let trigger = Trigger::when(move || shared.pump() > 0);
        self.shared.inputs.watch(trigger)
    }

    /// A trigger that fires on every arrival on an input, matched or not, whose code takes
    /// the sets there are: how message_filters runs, from its subscribers' callbacks. For the
    /// executors that run callbacks only (callback, thread pool); on the others,
    /// [`trigger`](Self::trigger) saves the runs that find no set.
    pub fn arrival_trigger(&self) -> Trigger {
        self.shared.inputs.watch(Trigger::any())
    }

    /// The oldest matched set, if one waits or the samples in the subscriptions make one.
    pub fn take(&self) -> Option<I::Set> {
        let mut state = self.shared.state.lock();
        let state = &mut *state;
        self.shared.fill(state);
        state.policy.take()
    }

    /// The policy's counts: the sets matched, and per input the samples dropped unmatched.
    pub fn stats(&self) -> Stats {
        self.shared.state.lock().policy.stats()
    }

    /// The inputs, e.g. to look at a subscription's own counts.
    pub fn inputs(&self) -> &I {
        &self.shared.inputs
    }
}

impl<P: Policy<Set = I::Set>, I: Inputs> Shared<P, I> {
    /// Moves samples into the policy until it has a matched set or the subscriptions had no
    /// more; returns how many sets wait.
    fn pump(&self) -> usize {
        let mut state = self.state.lock();
        self.fill(&mut state);
        state.policy.ready()
    }

    /// [`pump`](Self::pump) under the lock. Samples that arrive meanwhile may be left for
    /// the next call, so a fast publisher cannot keep it looping.
    fn fill(&self, state: &mut State<P, I::Next>) {
        let budget = self.inputs.held() + I::Set::INPUTS;
        for _ in 0..budget {
            if state.policy.ready() > 0 || !self.inputs.feed(&mut state.next, &mut state.policy) {
                break;
            }
        }
    }
}

/// Another handle to the same synchronizer (its subscriptions and policy), e.g. to read its
/// [`stats`](Synchronizer::stats) outside the code that takes its sets.
impl<P: Policy<Set = I::Set>, I: Inputs> Clone for Synchronizer<P, I> {
    fn clone(&self) -> Self {
        Synchronizer {
            shared: self.shared.clone(),
        }
    }
}

impl<P: Policy<Set = I::Set> + fmt::Debug, I: Inputs> fmt::Debug for Synchronizer<P, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Synchronizer")
            .field("policy", &self.shared.state.lock().policy)
            .finish_non_exhaustive()
    }
}
