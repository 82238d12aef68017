//! A topology's nodes as tacto nodes, written in the style natural to the executor kind.
//!
//! Publishers are the same in both styles: each one is a timer of its own period that stamps
//! and publishes a loaned message (no copy, however large the payload). Subscribers differ:
//! - [`Style::Callbacks`]: a callback per message, as rclcpp nodes are written;
//! - [`Style::Polling`]: a polling subscription whose own executable is triggered by it
//!   (`Trigger::on`) and takes everything unread, so latency is measured when it is taken.

use tacto::{Clock, ClockKind, Node, Publisher, Trigger};

use super::messages::{Payload, PerformanceHeader, Stamped, WithPayload};
use super::spec::{PublisherSpec, Spec, SubscriberSpec};
use crate::system::{SystemError, declare_parameters};
use crate::topology::tracking::{PublishCount, Scoreboard, Tracker};

/// How subscriptions are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// A callback per message.
    Callbacks,
    /// A polling subscription triggering its own executable.
    Polling,
}

/// Creates the nodes of `spec` in `ctx`, each declaring `parameters` parameters
/// ([`declare_parameters`]); each subscription reports to `scoreboard`.
pub(super) fn build(
    spec: &Spec,
    ctx: &tacto::Context,
    style: Style,
    parameters: usize,
    scoreboard: &mut Scoreboard,
) -> Result<Vec<Node>, SystemError> {
    let mut nodes = Vec::with_capacity(spec.nodes.len());
    for n in &spec.nodes {
        let failed = |e: String| SystemError::Build(format!("node {}: {e}", n.name));
        let mut node = ctx.node(&n.name).map_err(|e| failed(e.to_string()))?;
        declare_parameters(&node, parameters)?;
        for p in &n.publishers {
            p.msg_type
                .with(AddPublisher {
                    node: &mut node,
                    spec: p,
                    scoreboard,
                })
                .map_err(failed)?;
        }
        for s in &n.subscribers {
            let tracker = scoreboard.tracker(&s.topic);
            s.msg_type
                .with(AddSubscriber {
                    node: &mut node,
                    spec: s,
                    style,
                    tracker,
                })
                .map_err(failed)?;
        }
        nodes.push(node);
    }
    Ok(nodes)
}

/// A publisher of ros2-performance messages: stamps each one with the time it is published
/// and numbers them from 0.
#[derive(Debug)]
pub(crate) struct StampedPublisher<P: Payload> {
    publisher: Publisher<Stamped<P>>,
    clock: Clock,
    numbers: PublishCount,
    frequency: f32,
    size: usize,
}

impl<P: Payload> StampedPublisher<P> {
    /// Publishes on `topic` for `node`, `size` payload bytes at `frequency` Hz.
    pub(crate) fn new(
        node: &mut Node,
        topic: &str,
        frequency: f32,
        size: usize,
    ) -> Result<Self, String> {
        let publisher = node
            .publisher::<Stamped<P>>(topic)
            .create()
            .map_err(|e| e.to_string())?;
        Ok(StampedPublisher {
            publisher,
            clock: node.context().clock().clone(),
            numbers: PublishCount::default(),
            frequency,
            size,
        })
    }

    /// Has `scoreboard` account for what it publishes on `topic` in the measured window; called
    /// before it publishes anything.
    pub(crate) fn accounted_in(&mut self, scoreboard: &mut Scoreboard, topic: &str) {
        self.numbers = scoreboard.publisher(topic, self.publisher.id());
    }

    /// Publishes the next message, filled in place in a loan.
    ///
    /// The payload is written as ros2-performance's publisher writes it: its `byte[]` is
    /// resized from empty, so its `size` bytes are written (zeroed) for every message, as
    /// `data.resize(size)` does on the fresh message irobot's node makes per publish; a fixed
    /// array is left as it is, as that node leaves it (`MessageInitialization::SKIP`). A
    /// reused loan would otherwise publish the previous message's bytes without writing them,
    /// less work than the node it stands for does.
    pub(crate) fn publish(&mut self) {
        let mut msg = self.publisher.loan();
        msg.data.set_size(0);
        msg.data.set_size(self.size);
        msg.header = PerformanceHeader {
            stamp: self.clock.now(ClockKind::System).into(),
            tracking_number: self.numbers.next(),
            frequency: self.frequency,
            size: u32::try_from(self.size).unwrap_or(u32::MAX),
        };
        msg.publish();
    }
}

struct AddPublisher<'a> {
    node: &'a mut Node,
    spec: &'a PublisherSpec,
    scoreboard: &'a mut Scoreboard,
}

impl WithPayload for AddPublisher<'_> {
    type Output = Result<(), String>;

    fn call<P: Payload>(self) -> Result<(), String> {
        let frequency = (1.0 / self.spec.period.as_secs_f64()) as f32;
        let mut publisher =
            StampedPublisher::<P>::new(self.node, &self.spec.topic, frequency, self.spec.msg_size)?;
        publisher.accounted_in(self.scoreboard, &self.spec.topic);
        self.node
            .wall_timer(self.spec.period, move |_| publisher.publish())
            .map_err(|e| e.to_string())
    }
}

struct AddSubscriber<'a> {
    node: &'a mut Node,
    spec: &'a SubscriberSpec,
    style: Style,
    tracker: Tracker,
}

impl WithPayload for AddSubscriber<'_> {
    type Output = Result<(), String>;

    fn call<P: Payload>(self) -> Result<(), String> {
        let AddSubscriber {
            node,
            spec,
            style,
            mut tracker,
        } = self;
        let clock = node.context().clock().clone();
        let builder = node
            .subscription::<Stamped<P>>(&spec.topic)
            .history(spec.history);
        match style {
            Style::Callbacks => builder
                .callback(move |sample| tracker.record(clock.now(ClockKind::System), [sample]))
                .map_err(|e| e.to_string()),
            Style::Polling => {
                let sub = builder.create().map_err(|e| e.to_string())?;
                node.execute(Trigger::on(&sub), move |_| {
                    tracker.record(clock.now(ClockKind::System), sub.take_all());
                })
                .map_err(|e| e.to_string())
            }
        }
    }
}
