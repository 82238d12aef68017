//! The node kinds, each written in the two styles the executors run.
//!
//! | kind | callbacks (callback, callback-mt, prioritized, events) | polling (wait-set, let) |
//! |---|---|---|
//! | sensor | a timer | the same timer |
//! | transform | a callback per input message | `Trigger::on(&input)` |
//! | fusion | a callback per input caches it; the one that completes the pair runs the node | `Trigger::all().with(&a).with(&b)`: both present |
//! | cyclic | callbacks cache the inputs; a timer runs the node | a timer takes what is new from polling subscriptions that wake nothing |
//! | intersection | a callback per connection, each in a callback group of its own | `Trigger::on` per connection |
//! | command | a callback per message | `Trigger::on(&input)` |
//!
//! The callback style is upstream's rclcpp nodes line by line; both styles run the same
//! [`Work`] and so produce the same histories.

use std::error::Error;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tacto::{
    Activation, CallbackGroup, CallbackGroupKind, ClockKind, Context, History, Node, Publisher,
    Sample, Subscription, SubscriptionBuilder, Time, Trigger,
};

use super::crunch::crunch;
use super::kpi::Kpis;
use super::message::{Message4kb, SequenceGap, TransmissionStats};
use super::spec::{Kind, NodeSpec};
use crate::system::{SystemError, declare_parameters};

/// How the nodes are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// rclcpp's: a callback per input message.
    Callbacks,
    /// tacto's: triggers and polling subscriptions.
    Polling,
}

/// Builds nodes of one system: one context, style, crunch limit and set of KPIs.
#[derive(Debug)]
pub(crate) struct Builder<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) style: Style,
    pub(crate) crunch: u64,
    /// History depth of the processing nodes' subscriptions.
    pub(crate) depth: usize,
    pub(crate) kpis: &'a Arc<Mutex<Kpis>>,
    /// Parameters each node declares ([`declare_parameters`]).
    pub(crate) parameters: usize,
}

pub(crate) type BuildError = Box<dyn Error + Send + Sync>;

impl Builder<'_> {
    /// The tacto node for `spec`, named `tacto_name`: `spec`'s name, unless `spec` is one part
    /// of a node split across executors (node names are unique in a tacto context). Its
    /// messages carry `spec`'s name either way.
    pub(crate) fn node(&self, spec: &NodeSpec, tacto_name: &str) -> Result<Node, SystemError> {
        let fail = |e: &dyn Error| SystemError::Build(format!("node {tacto_name}: {e}"));
        let mut node = self.ctx.node(tacto_name).map_err(|e| fail(&e))?;
        declare_parameters(&node, self.parameters)?;
        self.build(&mut node, spec).map_err(|e| fail(e.as_ref()))?;
        Ok(node)
    }

    /// Adds `spec`'s executables to `node`: what the node is, whoever made it (this builder,
    /// or a launch process placing the node as a component).
    pub(crate) fn build(&self, node: &mut Node, spec: &NodeSpec) -> Result<(), BuildError> {
        let name = spec.name.as_str();
        match &spec.kind {
            Kind::Sensor { period_ms, output } => {
                self.sensor(node, name, millis(*period_ms), output)
            }
            Kind::Transform { input, output } => self.transform(node, name, input, output, None),
            Kind::Fusion { inputs, output } => self.fusion(node, name, inputs, output),
            Kind::Cyclic {
                period_ms,
                inputs,
                output,
            } => self.cyclic(node, name, millis(*period_ms), inputs, output),
            Kind::Intersection { connections } => connections.iter().try_for_each(|c| {
                // As upstream: each connection its own group, so that they run in parallel.
                let group = node.callback_group(CallbackGroupKind::MutuallyExclusive);
                self.transform(node, name, &c.input, &c.output, Some(group))
            }),
            Kind::Command { input, depth } => self.command(node, name, input, *depth),
        }
    }

    fn input<'n>(&self, node: &'n mut Node, topic: &str) -> SubscriptionBuilder<'n, Message4kb> {
        node.subscription::<Message4kb>(topic)
            .history(History::KeepLast(self.depth))
    }

    fn sensor(
        &self,
        node: &mut Node,
        name: &str,
        period: Duration,
        output: &str,
    ) -> Result<(), BuildError> {
        let mut work = Work::new(node, name, output, 0)?;
        let kpis = self.kpis.clone();
        let clock = node.context().clock().clone();
        node.wall_timer(period, move |activation| {
            let begun = clock.now(ClockKind::Steady);
            work.publish(wall_clock_ns(), 0, []);
            note_start(&kpis, activation, begun);
        })?;
        Ok(())
    }

    fn transform(
        &self,
        node: &mut Node,
        name: &str,
        input: &str,
        output: &str,
        group: Option<CallbackGroup>,
    ) -> Result<(), BuildError> {
        let mut work = Work::new(node, name, output, self.crunch)?;
        let mut gap = SequenceGap::default();
        let mut run = move |sample: Sample<Message4kb>, started| {
            let missed = gap.missed(&sample);
            work.publish(started, missed, [&*sample]);
        };
        match self.style {
            Style::Callbacks => {
                let callback = move |sample| run(sample, wall_clock_ns());
                let sub = self.input(node, input);
                match group {
                    Some(group) => sub.callback_in(&group, callback)?,
                    None => sub.callback(callback)?,
                }
            }
            Style::Polling => {
                let sub = self.input(node, input).create()?;
                let trigger = Trigger::on(&sub);
                let execute = move |_: &Activation| {
                    for sample in sub.take_all() {
                        run(sample, wall_clock_ns());
                    }
                };
                match group {
                    Some(group) => node.execute_in(&group, trigger, execute)?,
                    None => node.execute(trigger, execute)?,
                }
            }
        }
        Ok(())
    }

    fn fusion(
        &self,
        node: &mut Node,
        name: &str,
        inputs: &[String; 2],
        output: &str,
    ) -> Result<(), BuildError> {
        let work = Work::new(node, name, output, self.crunch)?;
        match self.style {
            Style::Callbacks => {
                let fusion = Arc::new(Mutex::new(Fusion {
                    latest: [None, None],
                    gaps: [SequenceGap::default(); 2],
                    work,
                }));
                for (i, input) in inputs.iter().enumerate() {
                    let fusion = fusion.clone();
                    self.input(node, input).callback(move |sample| {
                        let started = wall_clock_ns();
                        lock(&fusion).receive(i, sample, started);
                    })?;
                }
            }
            Style::Polling => {
                let a = self.input(node, &inputs[0]).create()?;
                let b = self.input(node, &inputs[1]).create()?;
                let mut gaps = [SequenceGap::default(); 2];
                let mut work = work;
                node.execute(Trigger::all().with(&a).with(&b), move |_| {
                    let started = wall_clock_ns();
                    // The trigger holds only when both have a sample.
                    if let (Some(a), Some(b)) = (newest(&a), newest(&b)) {
                        let missed = gaps[0].missed(&a) + gaps[1].missed(&b);
                        work.publish(started, missed, [&*a, &*b]);
                    }
                })?;
            }
        }
        Ok(())
    }

    fn cyclic(
        &self,
        node: &mut Node,
        name: &str,
        period: Duration,
        inputs: &[String],
        output: &str,
    ) -> Result<(), BuildError> {
        let work = Work::new(node, name, output, self.crunch)?;
        let mut gaps = vec![SequenceGap::default(); inputs.len()];
        match self.style {
            Style::Callbacks => {
                let cyclic = Arc::new(Mutex::new(Cyclic {
                    latest: vec![None; inputs.len()],
                    gaps,
                    work,
                }));
                for (i, input) in inputs.iter().enumerate() {
                    let cyclic = cyclic.clone();
                    self.input(node, input)
                        .callback(move |sample| lock(&cyclic).latest[i] = Some(sample))?;
                }
                let kpis = self.kpis.clone();
                let clock = node.context().clock().clone();
                node.wall_timer(period, move |activation| {
                    let begun = clock.now(ClockKind::Steady);
                    let started = wall_clock_ns();
                    lock(&cyclic).run(started);
                    note_start(&kpis, activation, begun);
                })?;
            }
            Style::Polling => {
                let subs = inputs
                    .iter()
                    .map(|input| self.input(node, input).create())
                    .collect::<Result<Vec<_>, _>>()?;
                let mut taken = Vec::with_capacity(subs.len());
                let mut work = work;
                let kpis = self.kpis.clone();
                let clock = node.context().clock().clone();
                node.wall_timer(period, move |activation| {
                    let begun = clock.now(ClockKind::Steady);
                    let started = wall_clock_ns();
                    let mut missed = 0;
                    for (sub, gap) in subs.iter().zip(&mut gaps) {
                        if let Some(sample) = newest(sub) {
                            missed += gap.missed(&sample);
                            taken.push(sample);
                        }
                    }
                    work.publish(started, missed, taken.iter().map(|s| &**s));
                    taken.clear();
                    note_start(&kpis, activation, begun);
                })?;
            }
        }
        Ok(())
    }

    fn command(
        &self,
        node: &mut Node,
        name: &str,
        input: &str,
        depth: usize,
    ) -> Result<(), BuildError> {
        let sink = lock(self.kpis)
            .sink_index(name)
            .ok_or("not a command node of the topology")?;
        let kpis = self.kpis.clone();
        let mut gap = SequenceGap::default();
        let sub = node
            .subscription::<Message4kb>(input)
            .history(History::KeepLast(depth));
        match self.style {
            Style::Callbacks => sub.callback(move |sample| {
                let missed = gap.missed(&sample);
                let mut kpis = lock(&kpis);
                kpis.record(sink, &sample, missed);
                kpis.arrived(sink, sample.info(), &sample, missed);
            })?,
            Style::Polling => {
                let sub = sub.create()?;
                node.execute(Trigger::on(&sub), move |_| {
                    let mut kpis = lock(&kpis);
                    for sample in sub.take_all() {
                        let missed = gap.missed(&sample);
                        kpis.record(sink, &sample, missed);
                        kpis.arrived(sink, sample.info(), &sample, missed);
                    }
                })?;
            }
        }
        Ok(())
    }
}

/// What every processing node does when it runs, and where its output goes.
struct Work {
    name: String,
    crunch: u64,
    /// The sequence number of the next output.
    sequence: u32,
    output: Publisher<Message4kb>,
}

impl Work {
    /// The work of `node`, known to the KPIs as `name`, publishing on `output`.
    fn new(node: &mut Node, name: &str, output: &str, crunch: u64) -> Result<Work, BuildError> {
        Ok(Work {
            name: name.to_owned(),
            crunch,
            sequence: 0,
            output: node.publisher::<Message4kb>(output).create()?,
        })
    }

    /// Crunches, then publishes, built in place in a loaned message, the merged histories of
    /// `inputs` followed by this node's entry: started at `started`, having missed `missed`
    /// input samples.
    fn publish<'a>(
        &mut self,
        started: u64,
        missed: u32,
        inputs: impl IntoIterator<Item = &'a Message4kb>,
    ) {
        let result = crunch(self.crunch);
        let mut msg = self.output.loan();
        msg.size = 0;
        for input in inputs {
            msg.merge_history(input);
        }
        msg.push(TransmissionStats::new(
            &self.name,
            self.sequence,
            missed,
            started,
        ));
        msg.data[0] = result;
        msg.publish();
        self.sequence = self.sequence.wrapping_add(1);
    }
}

/// A fusion node in the callback style: the latest sample of each input, until both are here.
struct Fusion {
    latest: [Option<Sample<Message4kb>>; 2],
    gaps: [SequenceGap; 2],
    work: Work,
}

impl Fusion {
    fn receive(&mut self, input: usize, sample: Sample<Message4kb>, started: u64) {
        self.latest[input] = Some(sample);
        let [Some(a), Some(b)] = &self.latest else {
            return;
        };
        let missed = self.gaps[0].missed(a) + self.gaps[1].missed(b);
        self.work.publish(started, missed, [&**a, &**b]);
        self.latest = [None, None];
    }
}

/// A cyclic node in the callback style: the latest sample of each input since the last run.
struct Cyclic {
    latest: Vec<Option<Sample<Message4kb>>>,
    gaps: Vec<SequenceGap>,
    work: Work,
}

impl Cyclic {
    fn run(&mut self, started: u64) {
        let mut missed = 0;
        for (latest, gap) in self.latest.iter().zip(&mut self.gaps) {
            if let Some(sample) = latest {
                missed += gap.missed(sample);
            }
        }
        let inputs = self.latest.iter().flatten().map(|s| &**s);
        self.work.publish(started, missed, inputs);
        for latest in &mut self.latest {
            *latest = None;
        }
    }
}

/// Counts in `kpis` how late a periodic run started (see the `kpi` module): from the deadline
/// it serves to `begun`, the steady clock read first thing in the run. Not `Activation::time`,
/// which the LET executor sets to the period's start (its logical time) and the others read
/// before their checks of other executables. Called after the run's work, so that the lock
/// is not in what the run's timestamps measure.
fn note_start(kpis: &Mutex<Kpis>, activation: &Activation, begun: Time) {
    if let Some(deadline) = activation.deadline() {
        let late = begun - deadline;
        lock(kpis).periodic_start(u64::try_from(late.as_nanos()).unwrap_or(u64::MAX));
    }
}

/// Takes every unread sample and keeps the newest: "the latest value", consumed.
fn newest(sub: &Subscription<Message4kb>) -> Option<Sample<Message4kb>> {
    sub.take_all().last()
}

/// Nodes never panic while holding their state, so a poisoned lock still holds valid state.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Now on the wall clock, ns since the Unix epoch, as upstream's timestamps.
fn wall_clock_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// A period the spec's checks found above zero.
fn millis(period_ms: i64) -> Duration {
    Duration::from_millis(period_ms.unsigned_abs())
}
