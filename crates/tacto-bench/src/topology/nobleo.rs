//! nobleo's LET comparison: many subscriptions at a modest rate, the load where waking a thread
//! and calling a callback per message costs most.
//!
//! 20 topics, `t00` … `t19`, each with one publisher and 10 subscriptions (200 in all), at 50 Hz.
//! Messages are small ([`Stamped4Int32`]: a 16-byte payload behind the ros2-performance
//! header, which carries the stamp and tracking number that latency and losses are measured
//! from, see `tracking`). Subscriptions are best effort, `KeepLast(1)`: a sample that replaces
//! an unread one is lost, and counts as such.
//!
//! | variant | nodes | each node |
//! |---|---|---|
//! | `nobleo` | `node_0` … `node_9` | publishes 2 topics (node *i*: `t{2i}`, `t{2i+1}`) on one 50 Hz timer, and subscribes to all 20, its own two included, so each topic has one subscription in every node |
//! | `nobleo-1` | `node` | publishes all 20 topics on one 50 Hz timer, and subscribes to each 10 times |
//!
//! # Node styles
//! - Callback kinds (`callback`, `callback-mt`, `events`, `prioritized`): a callback per
//!   message; the timer publishes.
//! - `wait-set` and `let`, [`Reading::OnTimer`] (the default): a node is one executable on its
//!   50 Hz timer that takes everything its subscriptions hold, then publishes. Subscriptions
//!   wake nothing. This is the pattern the LET comparison is about: a node samples its inputs
//!   at its own rate, so its cost follows its rate, not the traffic. The price is latency: a
//!   sample waits for the reader's next tick (up to one period, 20 ms), and the figures show it,
//!   as they come from the stamps.
//! - `wait-set` and `let`, [`Reading::OnArrival`]: each subscription triggers its own
//!   executable, which takes what arrived; the timer only publishes. Wait-set's per-message
//!   cost, for comparison with the callback executors.
//! - `let` runs at a period of 20 ms: inputs frozen at each period's start, outputs published at
//!   its end, so every sample arrives one period after it was stamped.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tacto::{ClockKind, Context, ExecutorThreadBuilder, History, Node, Subscription, Trigger};
use tacto_component::{BuildError, Placement, component};

use super::ros2_performance::messages::Stamped4Int32;
use super::ros2_performance::nodes::StampedPublisher;
use super::threads::Threads;
use super::tracking::{Scoreboard, Tracker};
use crate::result::{RunResult, TopicResult};
use crate::system::{RunConfig, System, SystemError, declare_parameters};
use tacto_launch::executors::ExecutorKind;

const TOPICS: usize = 20;
const SUBSCRIPTIONS_PER_TOPIC: usize = 10;
const PERIOD: Duration = Duration::from_millis(20);
const FREQUENCY_HZ: f32 = 50.0;
/// The payload of [`Stamped4Int32`], bytes.
const PAYLOAD: usize = 16;

/// Which variant, and how polling nodes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    nodes: usize,
    reading: Reading,
}

/// When the polling nodes of `wait-set` and `let` take their samples; callback nodes take each
/// one as it comes, whatever this says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reading {
    /// On the node's own 50 Hz timer, all subscriptions at once; they wake nothing.
    #[default]
    OnTimer,
    /// As each sample arrives: each subscription triggers its own executable.
    OnArrival,
}

/// One node of a variant: what it publishes and subscribes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLayout {
    /// The node's name.
    pub name: String,
    /// Topics it publishes, all on its one timer.
    pub publishes: Vec<String>,
    /// Topics it subscribes to, once per subscription.
    pub subscribes: Vec<String>,
}

impl Spec {
    /// 10 nodes, each with 2 publishers on one 50 Hz timer and 20 subscriptions.
    pub fn ten_nodes() -> Spec {
        Spec {
            nodes: 10,
            reading: Reading::OnTimer,
        }
    }

    /// The same traffic from one node with one timer.
    pub fn one_node() -> Spec {
        Spec {
            nodes: 1,
            reading: Reading::OnTimer,
        }
    }

    /// Makes the polling nodes read as `reading` says.
    pub fn reading(self, reading: Reading) -> Spec {
        Spec { reading, ..self }
    }

    /// `nobleo` or `nobleo-1`, with `-on-arrival` when the polling nodes read so.
    pub fn name(&self) -> &'static str {
        match (self.nodes, self.reading) {
            (1, Reading::OnTimer) => "nobleo-1",
            (1, Reading::OnArrival) => "nobleo-1-on-arrival",
            (_, Reading::OnTimer) => "nobleo",
            (_, Reading::OnArrival) => "nobleo-on-arrival",
        }
    }

    /// The nodes, and what each publishes and subscribes to.
    ///
    /// # Examples
    /// ```
    /// use tacto_bench::topology::nobleo::Spec;
    ///
    /// let layout = Spec::ten_nodes().layout();
    /// assert_eq!(layout.len(), 10);
    /// assert_eq!(layout[3].publishes, ["t06", "t07"]);
    /// assert_eq!(layout[3].subscribes.len(), 20);
    /// ```
    pub fn layout(&self) -> Vec<NodeLayout> {
        let topic = |t: usize| format!("t{t:02}");
        let per_node = TOPICS / self.nodes;
        (0..self.nodes)
            .map(|i| NodeLayout {
                name: match self.nodes {
                    1 => "node".to_owned(),
                    _ => format!("node_{i}"),
                },
                publishes: (i * per_node..(i + 1) * per_node).map(topic).collect(),
                subscribes: (0..SUBSCRIPTIONS_PER_TOPIC / self.nodes)
                    .flat_map(|_| (0..TOPICS).map(topic))
                    .collect(),
            })
            .collect()
    }
}

/// Builds the variant on the configured executor kind and starts its executors.
pub fn start(spec: &Spec, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
    let all: Vec<String> = spec.layout().into_iter().map(|l| l.name).collect();
    let ctx = config.context()?;
    let (nodes, scoreboard) =
        build_nodes(spec, &ctx, &all, config.executor, config.node_parameters)?;
    Ok(Box::new(Running {
        threads: Threads::start(config.executor, nodes, PERIOD)?,
        scoreboard,
        since: Instant::now(),
    }))
}

/// Some of the variant's nodes, running: a process of a launch file.
#[derive(Debug)]
pub struct Part {
    threads: Threads,
    scoreboard: Arc<Mutex<Scoreboard>>,
}

/// Places the nodes named `names` on `ctx` as components (`nobleo::NAME`, through the registry
/// users' components go through), under `namespace` if given, and starts them on one executor
/// of kind `executor` on a thread `thread` sets up; their subscriptions hear the other nodes'
/// topics through `ctx`'s transport.
pub fn start_part(
    spec: &Spec,
    ctx: &Context,
    names: &[String],
    executor: ExecutorKind,
    namespace: Option<&str>,
    thread: ExecutorThreadBuilder,
) -> Result<Part, SystemError> {
    // The table the nodes record into: made before them, so that it outlives none of them.
    let scoreboard = scoreboard(ctx);
    let style = match executor.uses_callbacks() {
        true => tacto_component::Style::Callbacks,
        false => tacto_component::Style::Polling,
    };
    let known: Vec<String> = spec.layout().into_iter().map(|l| l.name).collect();
    let mut nodes = Vec::new();
    for name in names {
        if !known.contains(name) {
            return Err(SystemError::Build(format!(
                "{} has no node {name:?}",
                spec.name()
            )));
        }
        let none: [&str; 0] = [];
        let node = tacto_component::find(&format!("{COMPONENT_PREFIX}{name}"))
            .and_then(|c| c.instantiate(ctx, None, namespace, &none, style))
            .map_err(|e| SystemError::Build(e.to_string()))?;
        nodes.push(node);
    }
    Ok(Part {
        threads: Threads::one(executor, nodes, PERIOD, thread)?,
        scoreboard,
    })
}

/// The prefix of nobleo's components' names: `nobleo::` and the node's name.
pub const COMPONENT_PREFIX: &str = "nobleo::";

component!("nobleo::node", component);
component!("nobleo::node_0", component);
component!("nobleo::node_1", component);
component!("nobleo::node_2", component);
component!("nobleo::node_3", component);
component!("nobleo::node_4", component);
component!("nobleo::node_5", component);
component!("nobleo::node_6", component);
component!("nobleo::node_7", component);
component!("nobleo::node_8", component);
component!("nobleo::node_9", component);

/// The scoreboard of the subscriptions placed on `ctx`: one per context, so that every node of
/// a process records where the process reports from.
fn scoreboard(ctx: &Context) -> Arc<Mutex<Scoreboard>> {
    let made = ctx.shared(|| Ok::<_, Infallible>(Arc::new(Mutex::new(Scoreboard::default()))));
    match made {
        Ok(scoreboard) => scoreboard,
        Err(never) => match never {},
    }
}

/// Builds the node the component's name names (`nobleo::node` is the one-node variant's), in
/// the executor's style; polling nodes read on their timer.
fn component(node: &mut Node, placement: &Placement) -> Result<(), BuildError> {
    let name = placement.component().trim_start_matches(COMPONENT_PREFIX);
    let spec = match name {
        "node" => Spec::one_node(),
        _ => Spec::ten_nodes(),
    };
    let layout = (spec.layout().into_iter().find(|l| l.name == name))
        .ok_or_else(|| format!("nobleo has no node {name:?}"))?;
    let reading = match placement.style() {
        tacto_component::Style::Callbacks => None,
        tacto_component::Style::Polling => Some(spec.reading),
    };
    let scoreboard = scoreboard(node.context());
    let mut board = scoreboard.lock().unwrap_or_else(PoisonError::into_inner);
    build(node, &layout, reading, &mut board)?;
    Ok(())
}

/// The nodes named `names`, built on `ctx` in the style of `executor`, each declaring
/// `parameters` parameters, and the scoreboard their subscriptions record on.
fn build_nodes(
    spec: &Spec,
    ctx: &Context,
    names: &[String],
    executor: ExecutorKind,
    parameters: usize,
) -> Result<(Vec<Node>, Scoreboard), SystemError> {
    let mut scoreboard = Scoreboard::default();
    let mut nodes = Vec::new();
    let layouts = spec.layout();
    for name in names {
        let layout = (layouts.iter().find(|l| &l.name == name))
            .ok_or_else(|| SystemError::Build(format!("{} has no node {name:?}", spec.name())))?;
        let failed = |e: String| SystemError::Build(format!("node {}: {e}", layout.name));
        let mut node = ctx.node(&layout.name).map_err(|e| failed(e.to_string()))?;
        declare_parameters(&node, parameters)?;
        let reading = match executor.uses_callbacks() {
            true => None,
            false => Some(spec.reading),
        };
        build(&mut node, layout, reading, &mut scoreboard).map_err(failed)?;
        nodes.push(node);
    }
    Ok((nodes, scoreboard))
}

impl Part {
    /// The scoreboard; nodes never panic while holding it, so a poisoned one is whole.
    fn board(&self) -> MutexGuard<'_, Scoreboard> {
        self.scoreboard
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Of the topics its subscriptions listen to, how many they heard so far, and how many.
    pub fn heard(&self) -> (usize, usize) {
        let topics = self.board().results();
        let heard = topics.iter().filter(|t| t.latency_ms.n > 0).count();
        (heard, topics.len())
    }

    /// Samples the part's subscriptions took so far.
    pub fn received(&self) -> u64 {
        (self.board().results().iter())
            .map(|t| t.latency_ms.n)
            .sum()
    }

    /// Forgets what the subscriptions recorded so far: the measured window starts now.
    pub fn reset(&self) {
        self.board().reset();
    }

    /// Stops the executors; what each topic's subscriptions here received.
    pub fn stop(self) -> Result<Vec<TopicResult>, SystemError> {
        let topics = self.board().results();
        self.threads.stop()?;
        Ok(topics)
    }
}

/// Fills `node` as `layout` says: callbacks if `reading` is `None`, polling otherwise.
fn build(
    node: &mut Node,
    layout: &NodeLayout,
    reading: Option<Reading>,
    scoreboard: &mut Scoreboard,
) -> Result<(), String> {
    let mut publishers = layout
        .publishes
        .iter()
        .map(|topic| StampedPublisher::<[i32; 4]>::new(node, topic, FREQUENCY_HZ, PAYLOAD))
        .collect::<Result<Vec<_>, _>>()?;
    let clock = node.context().clock().clone();
    let mut polled: Vec<(Subscription<Stamped4Int32>, Tracker)> = Vec::new();
    for topic in &layout.subscribes {
        let mut tracker = scoreboard.tracker(topic);
        let builder = node
            .subscription::<Stamped4Int32>(topic)
            .history(History::KeepLast(1));
        let clock = clock.clone();
        match reading {
            None => builder
                .callback(move |sample| tracker.record(clock.now(ClockKind::System), [sample]))
                .map_err(|e| e.to_string())?,
            Some(Reading::OnArrival) => {
                let sub = builder.create().map_err(|e| e.to_string())?;
                node.execute(Trigger::on(&sub), move |_| {
                    tracker.record(clock.now(ClockKind::System), sub.take_all());
                })
                .map_err(|e| e.to_string())?;
            }
            Some(Reading::OnTimer) => {
                polled.push((builder.create().map_err(|e| e.to_string())?, tracker));
            }
        }
    }
    // Inputs first, then outputs: what a node reads was published before its tick.
    let tick = move |_: &tacto::Activation| {
        let now = clock.now(ClockKind::System);
        for (sub, tracker) in &mut polled {
            tracker.record(now, sub.take_all());
        }
        for publisher in &mut publishers {
            publisher.publish();
        }
    };
    node.execute(Trigger::every(PERIOD), tick)
        .map_err(|e| e.to_string())
}

#[derive(Debug)]
struct Running {
    threads: Threads,
    scoreboard: Scoreboard,
    /// When the measured window started.
    since: Instant,
}

impl System for Running {
    fn reset(&mut self) {
        self.scoreboard.reset();
        self.since = Instant::now();
    }

    fn finish(self: Box<Self>, result: &mut RunResult) -> Result<(), SystemError> {
        // Read at the window's end, so that deliveries and window match.
        let topics = self.scoreboard.results();
        let window = self.since.elapsed().as_secs_f64();
        self.threads.stop()?;
        let delivered: u64 = topics.iter().map(|t| t.latency_ms.n).sum();
        result.deliveries_per_s = Some(if window > 0.0 {
            delivered as f64 / window
        } else {
            0.0
        });
        result.drops_total = topics.iter().map(|t| t.lost).sum();
        result.topics = topics;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_of_both_variants_is_a_registered_component() {
        let registered: Vec<&str> = (tacto_component::names().into_iter())
            .filter_map(|n| n.strip_prefix(COMPONENT_PREFIX))
            .collect();
        let mut nodes: Vec<String> = (Spec::ten_nodes().layout().into_iter())
            .chain(Spec::one_node().layout())
            .map(|l| l.name)
            .collect();
        nodes.sort_unstable();
        assert_eq!(registered, nodes);
    }
}
