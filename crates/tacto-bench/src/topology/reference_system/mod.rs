//! The Autoware reference system (ros-realtime/reference-system, `autoware_reference_system`):
//! 24 nodes shaped like Autoware's LiDAR pipeline, each doing a fixed amount of arithmetic.
//!
//! The port keeps upstream's message ([`Message4kb`]), work ([`crunch`], upstream's own C
//! function), node kinds and KPIs
//! (see the `kpi` module), and runs on each executor kind in its natural style (see the
//! `nodes` module):
//!
//! | kind | executors | nodes |
//! |---|---|---|
//! | `callback` | one `CallbackExecutor` on one thread | callbacks |
//! | `callback-mt` | one `ThreadPoolExecutor`, a worker per CPU | callbacks; each node its default group, an intersection's connections a group each |
//! | `prioritized` | upstream's `autoware_default_cbg`: five `CallbackExecutor` threads (below) | callbacks |
//! | `events` | one `EventsExecutor` on one thread | callbacks |
//! | `wait-set` | one `WaitSetExecutor` on one thread | polling |
//! | `let` | one `LetExecutor` whose period is the gcd of the file's periods (5 ms) | polling |
//!
//! `prioritized` gives each hot-path root its own thread with the transforms that follow it
//! (front lidar and its transformer; rear likewise), the rest of the hot path a third thread
//! (an intersection node's hot connection included, its other connection going with the rest),
//! the behaviour planner a fourth, and everything else a fifth. As upstream, the hot-path
//! threads are pinned to CPUs 1 and up at real-time priority 1, and the planner to CPU 0 at
//! priority 30; upstream asks for `SCHED_RR`, `ExecutorThread` gives `SCHED_FIFO`, which differs
//! only in sharing a CPU between threads of one priority in 100 ms slices, far longer than any
//! run of these nodes. Where the OS refuses a priority or the CPUs, those threads run without
//! it, and the run's notes say so.

mod arrivals;
pub mod component;
mod crunch;
mod kpi;
mod message;
mod nodes;
mod part;
mod spec;

use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tacto::{
    CallbackExecutor, EventsExecutor, Executor, ExecutorThread, ExecutorThreadBuilder, LetExecutor,
    SpawnError, ThreadPoolExecutor, WaitSetExecutor,
};

pub use arrivals::Arrivals;
pub use crunch::{CrunchTimeError, MAX_CRUNCH_MS, crunch, crunch_time, limit_for};
pub use message::{Message4kb, NODE_NAME_BYTES, STATS_CAPACITY, SequenceGap, TransmissionStats};
pub use part::{Part, PartConfig, start_part};
pub use spec::Spec;

use crate::result::RunResult;
use crate::system::{RunConfig, System, SystemError};
use kpi::Kpis;
use nodes::{Builder, Style, lock};
use spec::{Kind, NodeSpec};
use tacto_launch::executors::ExecutorKind;

/// `SCHED_FIFO` priority of the hot-path threads under `prioritized` (upstream's
/// `hotpath_prio`).
const HOT_PATH_PRIORITY: u8 = 1;

/// `SCHED_FIFO` priority of the behaviour planner's thread (upstream's `planner_prio`).
const PLANNER_PRIORITY: u8 = 30;

/// Builds the system on the configured executor kind and starts its executor threads.
pub fn start(spec: &Spec, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
    let ctx = config.context()?;
    let kpis = Arc::new(Mutex::new(Kpis::new(spec)));
    let style = if config.executor.uses_callbacks() {
        Style::Callbacks
    } else {
        Style::Polling
    };
    let builder = Builder {
        ctx: &ctx,
        style,
        crunch: config.crunch,
        depth: spec.depth(),
        kpis: &kpis,
        parameters: config.node_parameters,
    };
    let creating = |e: &dyn std::error::Error| {
        SystemError::Build(format!("creating the {} executor: {e}", config.executor))
    };
    let mut notes = Vec::new();
    let one = |executor: Box<dyn Executor>, name: &str| {
        let nodes = spec.nodes.iter().map(|n| (n, n.name.clone()));
        spawn(
            &builder,
            executor,
            nodes,
            ExecutorThread::builder().name(name),
        )
        .map(|thread| vec![thread])
    };
    let threads = match config.executor {
        ExecutorKind::Callback => one(
            Box::new(CallbackExecutor::new().map_err(|e| creating(&e))?),
            "rs-callback",
        )?,
        ExecutorKind::CallbackMt => one(
            Box::new(ThreadPoolExecutor::new().map_err(|e| creating(&e))?),
            "rs-pool",
        )?,
        ExecutorKind::Events => one(
            Box::new(EventsExecutor::new().map_err(|e| creating(&e))?),
            "rs-events",
        )?,
        ExecutorKind::WaitSet => one(
            Box::new(WaitSetExecutor::new().map_err(|e| creating(&e))?),
            "rs-wait-set",
        )?,
        ExecutorKind::Let => one(
            Box::new(LetExecutor::new(let_period(spec)).map_err(|e| creating(&e))?),
            "rs-let",
        )?,
        ExecutorKind::Prioritized => prioritized(spec, &builder, &mut notes)?,
    };
    Ok(Box::new(Running {
        threads,
        kpis,
        notes,
    }))
}

type Thread = ExecutorThread<Box<dyn Executor>>;

/// Adds `nodes`, each with its tacto node name, to `executor` and starts it on a thread set up
/// by `thread`.
fn spawn<'s>(
    builder: &Builder<'_>,
    mut executor: Box<dyn Executor>,
    nodes: impl IntoIterator<Item = (&'s NodeSpec, String)>,
    thread: ExecutorThreadBuilder,
) -> Result<Thread, SystemError> {
    for (node, tacto_name) in nodes {
        executor
            .add(builder.node(node, &tacto_name)?)
            .map_err(|e| SystemError::Build(e.to_string()))?;
    }
    thread
        .spawn(executor)
        .map_err(|e| SystemError::Build(format!("starting an executor thread: {e}")))
}

/// The threads of `prioritized`, in the order the module docs give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    /// A hot-path root and the transforms after it.
    Root(usize),
    /// The rest of the hot path.
    HotPath,
    Planner,
    Other,
}

fn prioritized(
    spec: &Spec,
    builder: &Builder<'_>,
    notes: &mut Vec<String>,
) -> Result<Vec<Thread>, SystemError> {
    let cpus = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let hot_cpus: Vec<usize> = if cpus > 1 {
        (1..cpus).collect()
    } else {
        vec![0]
    };
    let hot = permitted(
        ThreadSettings {
            cpus: Some(hot_cpus),
            fifo: Some(HOT_PATH_PRIORITY),
        },
        "hot-path",
        notes,
    )?;
    let planner = permitted(
        ThreadSettings {
            cpus: Some(vec![0]),
            fifo: Some(PLANNER_PRIORITY),
        },
        "planner",
        notes,
    )?;
    let placed = lanes(spec);
    // A node split across lanes is a tacto node per lane, and tacto node names are unique in
    // a context: the parts after the first get a suffix.
    let tacto_names: Vec<String> = (placed.iter().enumerate())
        .map(
            |(i, (_, n))| match placed[..i].iter().filter(|(_, m)| m.name == n.name).count() {
                0 => n.name.clone(),
                earlier => format!("{}_part{}", n.name, earlier + 1),
            },
        )
        .collect();
    let roots = (0..spec.hot_path.roots.len()).map(Lane::Root);
    let mut threads = Vec::new();
    for lane in roots.chain([Lane::HotPath, Lane::Planner, Lane::Other]) {
        let nodes: Vec<(&NodeSpec, String)> = (placed.iter().zip(&tacto_names))
            .filter(|((l, _), _)| *l == lane)
            .map(|((_, n), name)| (n, name.clone()))
            .collect();
        if nodes.is_empty() {
            continue;
        }
        let thread = match lane {
            Lane::Root(i) => hot.builder(&format!("rs-hot{i}")),
            Lane::HotPath => hot.builder("rs-hot"),
            Lane::Planner => planner.builder("rs-planner"),
            Lane::Other => ExecutorThread::builder().name("rs-other"),
        };
        let executor = CallbackExecutor::new()
            .map_err(|e| SystemError::Build(format!("creating a prioritized executor: {e}")))?;
        threads.push(spawn(builder, Box::new(executor), nodes, thread)?);
    }
    Ok(threads)
}

/// Each node's lane; an intersection with connections on two lanes becomes a node per lane.
fn lanes(spec: &Spec) -> Vec<(Lane, NodeSpec)> {
    let hot: HashSet<&str> = spec.hot_path.nodes.iter().map(String::as_str).collect();
    let mut root_lanes: Vec<(&str, Lane)> = Vec::new();
    for (i, root) in spec.hot_path.roots.iter().enumerate() {
        let mut topic = root.as_str();
        root_lanes.push((topic, Lane::Root(i)));
        // Follow the hot transforms fed by the root, up to the first node of another kind.
        while let Some(next) = spec.nodes.iter().find(|n| {
            hot.contains(n.name.as_str())
                && matches!(&n.kind, Kind::Transform { input, .. } if input == topic)
        }) {
            root_lanes.push((next.name.as_str(), Lane::Root(i)));
            topic = next.kind.outputs().next().unwrap_or_default();
        }
    }
    let is_hot_topic = |topic: &str| {
        spec.publisher_of(topic)
            .is_some_and(|p| hot.contains(p.name.as_str()))
    };
    let mut placed = Vec::new();
    for node in &spec.nodes {
        let name = node.name.as_str();
        if let Some(&(_, lane)) = root_lanes.iter().find(|(n, _)| *n == name) {
            placed.push((lane, node.clone()));
        } else if name == spec.behavior_planner {
            placed.push((Lane::Planner, node.clone()));
        } else if let Kind::Intersection { connections } = &node.kind {
            let (hot_connections, others): (Vec<_>, Vec<_>) = connections
                .iter()
                .cloned()
                .partition(|c| hot.contains(name) && is_hot_topic(&c.input));
            for (lane, connections) in [(Lane::HotPath, hot_connections), (Lane::Other, others)] {
                if !connections.is_empty() {
                    let kind = Kind::Intersection { connections };
                    let part = NodeSpec {
                        name: node.name.clone(),
                        kind,
                    };
                    placed.push((lane, part));
                }
            }
        } else if hot.contains(name) {
            placed.push((Lane::HotPath, node.clone()));
        } else {
            placed.push((Lane::Other, node.clone()));
        }
    }
    placed
}

/// CPUs and priority of a `prioritized` thread.
#[derive(Debug, Clone)]
struct ThreadSettings {
    cpus: Option<Vec<usize>>,
    fifo: Option<u8>,
}

impl ThreadSettings {
    fn builder(&self, name: &str) -> ExecutorThreadBuilder {
        let mut builder = ExecutorThread::builder().name(name);
        if let Some(cpus) = &self.cpus {
            builder = builder.cpus(cpus);
        }
        if let Some(priority) = self.fifo {
            builder = builder.fifo_priority(priority);
        }
        builder
    }
}

/// `wanted`, less what the OS refuses (tried on a thread of an empty executor), each refusal
/// noted.
fn permitted(
    mut wanted: ThreadSettings,
    threads: &str,
    notes: &mut Vec<String>,
) -> Result<ThreadSettings, SystemError> {
    loop {
        let probe = WaitSetExecutor::new()
            .map_err(|e| SystemError::Build(format!("creating a probe executor: {e}")))?;
        match wanted.builder("rs-probe").spawn(probe) {
            Ok(thread) => {
                thread.stop();
                // An empty executor has no code that could panic.
                let _ = thread.join();
                return Ok(wanted);
            }
            Err(SpawnError::PriorityNotPermitted(priority)) if wanted.fifo.is_some() => {
                notes.push(format!(
                    "SCHED_FIFO priority {priority} not permitted: the {threads} thread(s) run at \
                     normal priority"
                ));
                wanted.fifo = None;
            }
            Err(SpawnError::CpusUnavailable(cpus)) if wanted.cpus.is_some() => {
                notes.push(format!(
                    "CPUs {cpus:?} unavailable: the {threads} thread(s) run unpinned"
                ));
                wanted.cpus = None;
            }
            Err(e) => {
                return Err(SystemError::Build(format!("the {threads} thread(s): {e}")));
            }
        }
    }
}

/// The LET executor's period: the gcd of the file's periods, so that every timer runs on a
/// whole number of periods.
fn let_period(spec: &Spec) -> Duration {
    let nanos = spec.periods().map(|p| p.as_nanos()).fold(0, gcd);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The system while it runs: its executor threads and what the command nodes measure.
struct Running {
    threads: Vec<Thread>,
    kpis: Arc<Mutex<Kpis>>,
    notes: Vec<String>,
}

impl System for Running {
    fn reset(&mut self) {
        lock(&self.kpis).reset();
    }

    fn finish(self: Box<Self>, result: &mut RunResult) -> Result<(), SystemError> {
        let Running {
            threads,
            kpis,
            notes,
        } = *self;
        // Stop them all before waiting for any, so that they stop together.
        for thread in &threads {
            thread.stop();
        }
        for thread in threads {
            let (_, outcome) = thread.join().map_err(|e| SystemError::Run(e.to_string()))?;
            outcome.map_err(|e| SystemError::Run(e.to_string()))?;
        }
        lock(&kpis).fill(result);
        result.notes.extend(notes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn prioritized_places_the_nodes_as_upstreams_callback_group_executable() {
        let Ok(Topology::ReferenceSystem(spec)) = Topology::load("reference-system") else {
            panic!("the shipped reference system loads");
        };
        let placed = lanes(&spec);
        let on = |lane| {
            let names = placed.iter().filter(|(l, _)| *l == lane);
            names.map(|(_, n)| n.name.as_str()).collect::<Vec<_>>()
        };
        assert_eq!(
            on(Lane::Root(0)),
            ["FrontLidarDriver", "PointsTransformerFront"]
        );
        assert_eq!(
            on(Lane::Root(1)),
            ["RearLidarDriver", "PointsTransformerRear"]
        );
        assert_eq!(
            on(Lane::HotPath),
            [
                "RayGroundFilter",
                "ObjectCollisionEstimator",
                "PointCloudFusion",
                "EuclideanClusterDetector"
            ]
        );
        assert_eq!(on(Lane::Planner), ["BehaviorPlanner"]);
        let other = on(Lane::Other);
        assert_eq!(other.len(), 24 - 8 - 1 + 1);
        assert!(other.contains(&"EuclideanClusterDetector"));
        let detector_inputs: Vec<_> = placed
            .iter()
            .filter(|(_, n)| n.name == "EuclideanClusterDetector")
            .map(|(lane, n)| (*lane, n.kind.inputs().collect::<Vec<_>>()))
            .collect();
        assert_eq!(
            detector_inputs,
            [
                (Lane::HotPath, vec!["RayGroundFilter"]),
                (Lane::Other, vec!["EuclideanClusterSettings"])
            ]
        );
    }

    #[test]
    fn the_let_period_is_the_gcd_of_the_files_periods() {
        let Ok(Topology::ReferenceSystem(spec)) = Topology::load("reference-system") else {
            panic!("the shipped reference system loads");
        };
        assert_eq!(let_period(&spec), Duration::from_millis(5));
    }
}
