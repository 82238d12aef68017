//! Triggers: when an executor runs a node's code.

use std::fmt;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::Arc;
use std::time::Duration;

use crate::client::Client;
use crate::clock::{ClockKind, Time};
use crate::condition::GuardCondition;
use crate::message::Message;
use crate::params::ParameterWatch;
use crate::service::{Service, ServiceType};
use crate::subscription::{Input, Subscription};

/// When an executor runs a node's executable.
///
/// A node's executable declares one trigger. Only subscriptions named in it wake the executor;
/// every other subscription of the node just fills its history, waking nothing.
///
/// # Subscription triggers fire on arrivals
/// The rule is evaluated on the executor's thread when a named subscription receives a sample,
/// and it fires only if **new samples arrived** on a named subscription since the code last
/// ran, and the rule holds over the unread data then. Code that leaves unread data behind is
/// not run again until the next arrival (as DDS's DATA_AVAILABLE status, reset by a read or
/// take), so a node that forgets to consume its input can never spin a core; the executor
/// counts such runs in [`ExecutorStats::left_unread`](crate::ExecutorStats::left_unread).
/// [`Activation::fired`] tells which named subscriptions received samples.
///
/// A [readable](Trigger::readable) trigger is level-triggered too, on its fd: the code must
/// drain the fd (read until `WouldBlock`), or it runs again at once.
///
/// | trigger | runs when | like rclc's |
/// |---|---|---|
/// | [`Trigger::on(&s)`](Trigger::on) | `s` received samples | `trigger_one` |
/// | [`Trigger::any()`](Trigger::any)`.with(&a).with(&b)` | `a` or `b` received samples | `trigger_any` |
/// | [`Trigger::all()`](Trigger::all)`.with(&a).with(&b)` | `a` or `b` received samples, and both have unread data | `trigger_all` |
/// | [`Trigger::when(f)`](Trigger::when)`.with(&a)` | `a` received samples, and `f()` is true | user trigger |
/// | [`Trigger::every(p)`](Trigger::every) | each period `p` (see [`crate::timer`] for missed periods) | a timer |
/// | [`Trigger::readable(fd)`](Trigger::readable) | `fd` is readable: a socket, a serial port, a CAN bus | (none) |
/// | [`Trigger::on_request(&svc)`](Trigger::on_request) | the [`Service`] `svc` received requests | a service |
/// | [`Trigger::on_response(&c)`](Trigger::on_response) | the [`Client`] `c` received responses | (none) |
/// | [`Trigger::on_condition(&g)`](Trigger::on_condition) | the [`GuardCondition`] `g` was raised | a guard condition |
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::msg::std_msgs::String as Text;
/// use tacto::{Context, Trigger};
///
/// let ctx = Context::new();
/// let mut node = ctx.node("fusion").unwrap();
/// let radar = node.subscription::<Text>("radar").create().unwrap();
/// let camera = node.subscription::<Text>("camera").create().unwrap();
///
/// let on_radar = Trigger::on(&radar);
/// let on_both = Trigger::all().with(&radar).with(&camera);
/// let (r, c) = (radar.probe(), camera.probe());
/// let custom = Trigger::when(move || r.unread() >= 2 && c.has_new()).with(&radar);
/// let periodic = Trigger::every(Duration::from_millis(100));
/// ```
#[must_use = "a trigger does nothing until given to `Node::execute`"]
pub struct Trigger {
    pub(crate) inputs: Vec<Arc<dyn Input>>,
    /// Each input's arrival count when the code last ran: a difference is a new arrival.
    seen: Vec<u64>,
    /// Set for classic per-message callbacks: each run takes one sample, so the trigger fires
    /// while samples are unread (level), as rclcpp serves one message per callback.
    pub(crate) per_sample: bool,
    pub(crate) rule: Rule,
    pub(crate) period: Option<Duration>,
    pub(crate) clock: ClockKind,
}

pub(crate) enum Rule {
    Any,
    All,
    When(Box<dyn FnMut() -> bool + Send>),
    /// The source's fd is readable; the executor's poller watches it.
    Readable(Box<dyn AsFd + Send>),
}

impl fmt::Debug for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match self.rule {
            Rule::Any => "any",
            Rule::All => "all",
            Rule::When(_) => "when",
            Rule::Readable(_) => "readable",
        };
        f.debug_struct("Trigger")
            .field("rule", &rule)
            .field("inputs", &self.inputs.len())
            .field("period", &self.period)
            .field("clock", &self.clock)
            .finish()
    }
}

impl Trigger {
    /// The shortest period of a [periodic](Trigger::every) trigger, and of a
    /// [`LetExecutor`](crate::LetExecutor): 100 µs, 10 kHz.
    ///
    /// Each period costs a wake-up of the executor's thread, tens of microseconds of CPU, so
    /// a period much shorter than this would spend a core on waking alone, and a timer of
    /// 1 ns would spin it. Code that must run faster is a driver: give it a
    /// [readable](Trigger::readable) trigger on its device's fd, which the device paces.
    pub const MIN_PERIOD: Duration = Duration::from_micros(100);

    /// The longest period: `i64::MAX` nanoseconds (about 292 years), the span a [`Time`] can
    /// count.
    pub const MAX_PERIOD: Duration = Duration::from_nanos(i64::MAX as u64);

    fn with_rule(rule: Rule) -> Self {
        Trigger {
            inputs: Vec::new(),
            seen: Vec::new(),
            per_sample: false,
            rule,
            period: None,
            clock: ClockKind::Steady,
        }
    }

    /// Runs when `sub` receives samples.
    pub fn on<T: Message>(sub: &Subscription<T>) -> Self {
        Self::any().with(sub)
    }

    /// Runs when any of the subscriptions added with [`with`](Self::with) receives samples.
    pub fn any() -> Self {
        Self::with_rule(Rule::Any)
    }

    /// Runs when one of the subscriptions added with [`with`](Self::with) receives samples and
    /// all of them have unread data.
    pub fn all() -> Self {
        Self::with_rule(Rule::All)
    }

    /// Runs when `condition` returns true; it is checked each time a subscription added with
    /// [`with`](Self::with) receives samples. Give it
    /// [`Probe`](crate::subscription::Probe)s to look at subscriptions without consuming.
    pub fn when(condition: impl FnMut() -> bool + Send + 'static) -> Self {
        Self::with_rule(Rule::When(Box::new(condition)))
    }

    /// Runs once per `period`, from [`MIN_PERIOD`](Self::MIN_PERIOD) to
    /// [`MAX_PERIOD`](Self::MAX_PERIOD): a node refuses other periods
    /// ([`TriggerError::PeriodTooShort`], [`TriggerError::PeriodTooLong`]).
    pub fn every(period: Duration) -> Self {
        Trigger {
            period: Some(period),
            ..Self::any()
        }
    }

    /// Runs when `source`'s file descriptor is readable: a device driver's input, such as a CAN
    /// or UDP socket or a serial port, on any executor but the [LET](crate::LetExecutor) one,
    /// without a thread of its own. The trigger owns `source` and keeps it open as long as the
    /// node runs; give it an `Arc` to read from the same socket in the code, or a
    /// [`try_clone`](std::net::UdpSocket::try_clone) of it.
    ///
    /// The executor adds the fd to its epoll set when the node is added, which refuses fds
    /// that cannot be waited for, such as regular files
    /// ([`AddError::Watch`](crate::AddError::Watch)). Like a subscription trigger, it is
    /// level-triggered: the code runs while the fd is readable, so it must read until the fd
    /// would block (set it non-blocking), or read once per run and be run again at once. An fd
    /// at end of file (its peer closed) or in error (its device unplugged) is readable for
    /// good, so its code runs without pause until it deals with that, e.g. by stopping the
    /// executor.
    ///
    /// # Examples
    /// ```
    /// use std::os::unix::net::UnixDatagram;
    /// use std::sync::{Arc, mpsc};
    /// use std::time::Duration;
    /// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
    ///
    /// let (device, driver_end) = UnixDatagram::pair().unwrap();
    /// driver_end.set_nonblocking(true).unwrap();
    /// let socket = Arc::new(driver_end);
    ///
    /// let ctx = Context::new();
    /// let mut driver = ctx.node("driver").unwrap();
    /// let (frames, received) = mpsc::channel();
    /// let input = socket.clone();
    /// driver.execute(Trigger::readable(socket), move |_| {
    ///     let mut frame = [0u8; 16];
    ///     // Drain: what is left unread would run the code again.
    ///     while let Ok(n) = input.recv(&mut frame) {
    ///         frames.send(frame[..n].to_vec()).unwrap();
    ///     }
    /// })
    /// .unwrap();
    ///
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(driver).unwrap();
    /// device.send(b"can 0x101").unwrap();
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert_eq!(received.try_recv().unwrap(), b"can 0x101");
    /// ```
    pub fn readable(source: impl AsFd + Send + 'static) -> Self {
        Self::with_rule(Rule::Readable(Box::new(source)))
    }

    /// Runs when a parameter the `watch` watches is set (see [`Node::watch_parameters`]): the
    /// node reacts to a new value in its own executor, reading it where it runs.
    ///
    /// [`Node::watch_parameters`]: crate::Node::watch_parameters
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use tacto::params::Parameter;
    /// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("planner").unwrap();
    /// node.parameters().declare("horizon", 10).unwrap();
    /// let mut horizon = node.parameters().handle::<i64>("horizon").unwrap();
    /// let watch = node.watch_parameters(&["horizon"]);
    /// let (seen, heard) = std::sync::mpsc::channel();
    /// node.execute(Trigger::on_parameters(&watch), move |_| {
    ///     watch.changed(); // looked at
    ///     seen.send(*horizon.get()).unwrap();
    /// }).unwrap();
    /// let parameters = node.parameters().clone();
    ///
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(node).unwrap();
    /// parameters.set_parameter(Parameter::new("horizon", 20)); // as a service thread would
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert_eq!(heard.try_recv(), Ok(20));
    /// ```
    pub fn on_parameters(watch: &ParameterWatch) -> Self {
        Self::any().with_input(watch.input())
    }

    /// Runs when `service` receives requests (see [`Service`]).
    pub fn on_request<S: ServiceType>(service: &Service<S>) -> Self {
        Self::any().with_requests(service)
    }

    /// Runs when `client` receives responses (see [`Client`]).
    pub fn on_response<S: ServiceType>(client: &Client<S>) -> Self {
        Self::any().with_responses(client)
    }

    /// Runs when `condition` is raised (see [`GuardCondition`]).
    pub fn on_condition(condition: &GuardCondition) -> Self {
        Self::any().with_condition(condition)
    }

    /// Adds a guard condition whose raising wakes the executor to check this trigger, as a
    /// subscription's samples do: a raising is an arrival, and one not yet taken is unread.
    pub fn with_condition(self, condition: &GuardCondition) -> Self {
        self.with_input(condition.input())
    }

    /// Adds a subscription whose samples wake the executor to check this trigger.
    pub fn with<T: Message>(self, sub: &Subscription<T>) -> Self {
        self.with_input(sub.input())
    }

    /// Adds a service whose requests wake the executor to check this trigger, as a
    /// subscription's samples do: a request is an arrival, and one not yet taken is unread.
    pub fn with_requests<S: ServiceType>(self, service: &Service<S>) -> Self {
        self.with_input(service.input())
    }

    /// Adds a client whose responses wake the executor to check this trigger, as a
    /// subscription's samples do: a response is an arrival, and one not yet taken is unread.
    pub fn with_responses<S: ServiceType>(self, client: &Client<S>) -> Self {
        self.with_input(client.input())
    }

    pub(crate) fn with_input(mut self, input: Arc<dyn Input>) -> Self {
        self.inputs.push(input);
        // Samples that arrived before the code was registered count as new.
        self.seen.push(0);
        self
    }

    /// The clock of the period and of [`Activation::time`] (default: steady).
    pub fn clock(mut self, clock: ClockKind) -> Self {
        self.clock = clock;
        self
    }

    /// True if the rule holds over the unread data now. False for a readable trigger: its fd's
    /// level is looked at by the executor's poller.
    pub(crate) fn holds(&mut self) -> bool {
        match &mut self.rule {
            Rule::Any => self.inputs.iter().any(|i| i.unread() > 0),
            Rule::All => self.inputs.iter().all(|i| i.unread() > 0),
            Rule::When(condition) => condition(),
            Rule::Readable(_) => false,
        }
    }

    /// For a subscription trigger about to be looked at: if it fires (see the type's docs),
    /// the mask of the inputs that received samples since the last firing, which it resets.
    pub(crate) fn fire(&mut self) -> Option<u64> {
        let mut fired = 0;
        for (i, (input, seen)) in self.inputs.iter().zip(&self.seen).enumerate() {
            if input.arrivals() != *seen {
                fired |= 1 << i.min(63);
            }
        }
        let fires = if self.per_sample {
            self.holds()
        } else {
            fired != 0 && self.holds()
        };
        if !fires {
            return None;
        }
        for (input, seen) in self.inputs.iter().zip(&mut self.seen) {
            *seen = input.arrivals();
        }
        Some(fired)
    }

    /// The fd of a readable trigger.
    pub(crate) fn fd(&self) -> Option<BorrowedFd<'_>> {
        match &self.rule {
            Rule::Readable(source) => Some(source.as_fd()),
            _ => None,
        }
    }
}

/// Why a trigger was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TriggerError {
    /// The period is shorter than [`Trigger::MIN_PERIOD`] (zero included): the executor would
    /// do little but wake.
    #[error(
        "a periodic trigger's period must be at least {:?}",
        Trigger::MIN_PERIOD
    )]
    PeriodTooShort,
    /// The period is longer than [`Trigger::MAX_PERIOD`], the span a [`Time`] can count.
    #[error(
        "a periodic trigger's period must be at most {:?}",
        Trigger::MAX_PERIOD
    )]
    PeriodTooLong,
    /// A subscription trigger names no subscription, so it could never fire.
    #[error("the trigger names no subscription (add one with .with(&sub))")]
    NoInputs,
    /// A trigger is either periodic or driven by subscriptions, not both.
    #[error("a periodic trigger cannot also name subscriptions")]
    PeriodWithInputs,
    /// A readable trigger runs on its fd alone: an fd is watched by the poller and a
    /// subscription by a listener, and `any`/`all` of both would need either one to look at
    /// the other. Read the subscriptions in the code, or give them a trigger of their own.
    #[error("a readable trigger cannot also name subscriptions")]
    ReadableWithInputs,
    /// The trigger names a subscription (or a guard condition, service, client) that another
    /// node created: a node's code is triggered by the node's own inputs, which its executor
    /// attaches, freezes (LET) and runs in the node's callback groups. Create the input on
    /// this node.
    #[error("the trigger names a subscription or condition of another node")]
    ForeignSubscription,
}

impl Trigger {
    pub(crate) fn validate(&self) -> Result<(), TriggerError> {
        let readable = matches!(self.rule, Rule::Readable(_));
        match self.period {
            Some(p) if p < Self::MIN_PERIOD => Err(TriggerError::PeriodTooShort),
            Some(p) if p > Self::MAX_PERIOD => Err(TriggerError::PeriodTooLong),
            Some(_) if !self.inputs.is_empty() => Err(TriggerError::PeriodWithInputs),
            None if readable && !self.inputs.is_empty() => Err(TriggerError::ReadableWithInputs),
            None if !readable && self.inputs.is_empty() => Err(TriggerError::NoInputs),
            _ => Ok(()),
        }
    }
}

/// Why and when an executable runs; passed to its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Activation {
    pub(crate) time: Time,
    /// For a periodic trigger, the deadline this run serves.
    pub(crate) deadline: Option<Time>,
    pub(crate) missed_periods: u64,
    /// Bit `i`: the trigger's `i`-th subscription received samples (bit 63: any from the 64th).
    pub(crate) fired: u64,
}

impl Activation {
    /// When the executor started this run, on the trigger's clock. On the steady clock (the
    /// default) it is the executor thread's last reading, taken at the end of its previous run
    /// or when it woke up: it may precede the run by the executor's checks of other
    /// executables in between, and for a thread pool by the time the run waited for a worker.
    pub fn time(&self) -> Time {
        self.time
    }

    /// For a periodic trigger, the deadline this run serves, on the trigger's clock: the
    /// start of the period it began (after missed periods, the last one that passed, see
    /// [`crate::timer`]). `time() - deadline()` is how late the run started, the start delay
    /// its executor counts ([`ExecutableStats`](crate::ExecutableStats)). rclcpp hands a timer
    /// the same pair as `TimerInfo`'s `expected_call_time` and `actual_call_time`. `None` for
    /// other triggers.
    ///
    /// # Examples
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    /// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("ticker").unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// node.execute(Trigger::every(Duration::from_millis(1)), move |activation| {
    ///     let _ = tx.send((activation.deadline(), activation.time()));
    /// })
    /// .unwrap();
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(node).unwrap();
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// let (deadline, started) = rx.try_recv().unwrap();
    /// assert!(deadline.unwrap() <= started); // never before its deadline
    /// ```
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// For a periodic trigger, how many periods passed unserved before this run (see
    /// [`crate::timer`]); always 0 otherwise.
    pub fn missed_periods(&self) -> u64 {
        self.missed_periods
    }

    /// For a subscription trigger, true if its `index`-th subscription (in the order of
    /// [`Trigger::on`] and [`Trigger::with`]) received samples since the code last ran; always
    /// false for periodic and readable triggers. Indexes from 63 on share one flag.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use std::sync::mpsc;
    /// use tacto::msg::std_msgs::String as Text;
    /// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
    ///
    /// let ctx = Context::new();
    /// let mut node = ctx.node("mux").unwrap();
    /// let radar = node.subscription::<Text>("radar").create().unwrap();
    /// let lidar = node.subscription::<Text>("lidar").create().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// let trigger = Trigger::any().with(&radar).with(&lidar);
    /// node.execute(trigger, move |activation| {
    ///     tx.send((activation.fired(0), activation.fired(1))).unwrap();
    ///     radar.take_all().for_each(drop);
    ///     lidar.take_all().for_each(drop);
    /// })
    /// .unwrap();
    /// let publisher = ctx.node("lidar_driver").unwrap().publisher::<Text>("lidar").create().unwrap();
    ///
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(node).unwrap();
    /// publisher.publish(Text::default());
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert_eq!(rx.try_recv().unwrap(), (false, true)); // only lidar fired
    /// ```
    pub fn fired(&self, index: usize) -> bool {
        self.fired & (1 << index.min(63)) != 0
    }
}
