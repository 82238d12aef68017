//! Triggers: when an executor runs a node's code.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{ClockKind, Time};
use crate::message::Message;
use crate::subscription::{Input, Subscription};

/// When an executor runs a node's executable.
///
/// A node's executable declares one trigger. Only subscriptions named in it wake the executor;
/// every other subscription of the node just fills its history, waking nothing. The rule is
/// evaluated on the executor's thread whenever a named subscription receives a sample, and it
/// is level-triggered: it looks at unread data, not at arrivals. So the code it runs must
/// consume (take, read or `latest`) what triggered it, or the trigger stays armed.
///
/// | trigger | runs when | like rclc's |
/// |---|---|---|
/// | [`Trigger::on(&s)`](Trigger::on) | `s` has unread data | `trigger_one` |
/// | [`Trigger::any()`](Trigger::any)`.with(&a).with(&b)` | `a` or `b` has unread data | `trigger_any` |
/// | [`Trigger::all()`](Trigger::all)`.with(&a).with(&b)` | `a` and `b` have unread data | `trigger_all` |
/// | [`Trigger::when(f)`](Trigger::when)`.with(&a)` | `f()` is true, checked when `a` receives | user trigger |
/// | [`Trigger::every(p)`](Trigger::every) | each period `p` (see [`crate::timer`] for missed periods) | a timer |
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
pub struct Trigger {
    pub(crate) inputs: Vec<Arc<dyn Input>>,
    pub(crate) rule: Rule,
    pub(crate) period: Option<Duration>,
    pub(crate) clock: ClockKind,
}

pub(crate) enum Rule {
    Any,
    All,
    When(Box<dyn FnMut() -> bool + Send>),
}

impl fmt::Debug for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match self.rule {
            Rule::Any => "any",
            Rule::All => "all",
            Rule::When(_) => "when",
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
    fn with_rule(rule: Rule) -> Self {
        Trigger {
            inputs: Vec::new(),
            rule,
            period: None,
            clock: ClockKind::Steady,
        }
    }

    /// Runs when `sub` has unread data.
    pub fn on<T: Message>(sub: &Subscription<T>) -> Self {
        Self::any().with(sub)
    }

    /// Runs when any of the subscriptions added with [`with`](Self::with) has unread data.
    pub fn any() -> Self {
        Self::with_rule(Rule::Any)
    }

    /// Runs when all of the subscriptions added with [`with`](Self::with) have unread data.
    pub fn all() -> Self {
        Self::with_rule(Rule::All)
    }

    /// Runs when `condition` returns true; it is checked each time a subscription added with
    /// [`with`](Self::with) receives a sample, and again after each run. Give it
    /// [`Probe`](crate::subscription::Probe)s to look at subscriptions without consuming.
    pub fn when(condition: impl FnMut() -> bool + Send + 'static) -> Self {
        Self::with_rule(Rule::When(Box::new(condition)))
    }

    /// Runs once per `period`.
    pub fn every(period: Duration) -> Self {
        Trigger {
            period: Some(period),
            ..Self::any()
        }
    }

    /// Adds a subscription whose samples wake the executor to check this trigger.
    pub fn with<T: Message>(mut self, sub: &Subscription<T>) -> Self {
        self.inputs.push(sub.input());
        self
    }

    /// The clock of the period and of [`Activation::time`] (default: steady).
    pub fn clock(mut self, clock: ClockKind) -> Self {
        self.clock = clock;
        self
    }

    /// True if the rule holds now.
    pub(crate) fn holds(&mut self) -> bool {
        match &mut self.rule {
            Rule::Any => self.inputs.iter().any(|i| i.unread() > 0),
            Rule::All => self.inputs.iter().all(|i| i.unread() > 0),
            Rule::When(condition) => condition(),
        }
    }
}

/// Why a trigger was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TriggerError {
    /// `Trigger::every` with a zero period would run without pause.
    #[error("a periodic trigger needs a period above zero")]
    ZeroPeriod,
    /// A subscription trigger names no subscription, so it could never fire.
    #[error("the trigger names no subscription (add one with .with(&sub))")]
    NoInputs,
    /// A trigger is either periodic or driven by subscriptions, not both.
    #[error("a periodic trigger cannot also name subscriptions")]
    PeriodWithInputs,
}

impl Trigger {
    pub(crate) fn validate(&self) -> Result<(), TriggerError> {
        match self.period {
            Some(p) if p.is_zero() => Err(TriggerError::ZeroPeriod),
            Some(_) if !self.inputs.is_empty() => Err(TriggerError::PeriodWithInputs),
            None if self.inputs.is_empty() => Err(TriggerError::NoInputs),
            _ => Ok(()),
        }
    }
}

/// Why and when an executable runs; passed to its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Activation {
    pub(crate) time: Time,
    pub(crate) missed_periods: u64,
}

impl Activation {
    /// When the executor started this run, on the trigger's clock.
    pub fn time(&self) -> Time {
        self.time
    }

    /// For a periodic trigger, how many periods passed unserved before this run (see
    /// [`crate::timer`]); always 0 otherwise.
    pub fn missed_periods(&self) -> u64 {
        self.missed_periods
    }
}
