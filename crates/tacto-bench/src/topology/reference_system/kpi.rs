//! The reference system's KPIs, computed at the sinks from the histories the messages carry.
//!
//! Definitions (upstream's `print_sample_path`, with each history entry counted once):
//! - **Hot-path latency**: for each sample whose history holds the hot path's sink
//!   (`ObjectCollisionEstimator`), the sink's timestamp minus the newest timestamp among the
//!   roots (`FrontLidarDriver`, `RearLidarDriver`): from the later lidar scan's driver run to the
//!   start of the collision estimator's run on it. Each sink entry gives one sample, however
//!   many messages carry it.
//! - **Drops**: an entry is one run of one node, identified by its name, sequence number and
//!   timestamp. Every distinct entry that reaches a command node adds its `dropped_samples` to
//!   the total drops, once, however many messages and paths carry it. The hot-path drops are
//!   the same sum over the hot-path nodes' entries in the samples that carry the hot path's
//!   sink, as upstream counts them (`does_contain_hot_path`): an entry of a hot-path node on
//!   another path (the EuclideanClusterDetector's connection from EuclideanClusterSettings,
//!   whose entries reach IntersectionOutput only) is not on the hot path. Each command node also
//!   adds the gaps in its own input. Fusion and cyclic nodes whose inputs run at different rates drop by design
//!   (NDTLocalizer: 100 ms against 120 ms), so total drops are not zero on a healthy system;
//!   hot-path drops are.
//! - **Periodic start delay** (tacto's own, not upstream's): for every run of a periodic node
//!   (the sensors, the cyclic nodes and the behaviour planner), from the deadline it serves
//!   ([`Activation::deadline`](tacto::Activation::deadline)) to the steady clock read first
//!   thing in the node's code, in a [`Histogram`]. On every executor that is what the node
//!   sees; on LET it includes the period's start (outputs sent, inputs frozen) and the runs
//!   before it in the period, where [`Activation::time`](tacto::Activation::time) is the
//!   period's logical start.
//! - **Behaviour planner period**: per command node, from each `BehaviorPlanner` entry to the
//!   next one with a higher sequence number: the time between them divided by the difference
//!   in sequence numbers, as upstream does (a planner run whose output was lost downstream
//!   does not count as a doubled period).
//!
//! Memory is fixed when the system is built: latency samples go to a reservoir of
//! [`LATENCY_RESERVOIR`] entries (every sample counts in mean, max and n; percentiles come
//! from a uniform random sample of them once more arrive than it holds), and the other KPIs
//! are running sums.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tacto::SampleInfo;

use super::arrivals::Arrivals;
use super::message::Message4kb;
use super::spec::{Kind, Spec};
use crate::histogram::Histogram;
use crate::result::{Distribution, RunResult, Spread};

/// Latency samples kept for percentiles: 27 minutes of the hot path's 10 Hz, in 128 KiB.
pub(crate) const LATENCY_RESERVOIR: usize = 16 * 1024;

/// How many recent entries of each node are remembered to recognise an entry seen before. An
/// entry comes back on a slower path at most a few of its node's periods later.
const RECENT_ENTRIES: usize = 64;

/// Everything the command nodes measured since the last [`reset`](Kpis::reset).
#[derive(Debug)]
pub(crate) struct Kpis {
    /// Node name (its bytes, as entries carry it) → index into `nodes`.
    index: HashMap<Vec<u8>, usize, BuildHasherDefault<Fnv1a>>,
    nodes: Vec<NodeKpi>,
    sink: usize,
    /// The sink's name: a sample carries the hot path if it has an entry of it.
    sink_name: String,
    planner: usize,
    /// The command nodes, in the file's order.
    sinks: Vec<String>,
    /// Per command node: the last behaviour planner entry it saw (sequence, timestamp).
    last_planner: Vec<Option<(u32, u64)>>,
    latency: Reservoir,
    hot_path_drops: u64,
    drops_total: u64,
    planner_period: Welford,
    /// How late each periodic run started after its deadline, ns.
    periodic_start_delay: Histogram,
    /// Samples the command nodes received, all of them (`reset` keeps it).
    received: u64,
    /// Per command node, how its samples arrived (`reset` keeps them).
    arrivals: Vec<Arrivals>,
}

/// What the KPIs know of one node.
#[derive(Debug)]
struct NodeKpi {
    hot: bool,
    root: bool,
    /// Its entries seen most recently, (sequence number, timestamp), as a ring.
    recent: [(u32, u64); RECENT_ENTRIES],
    /// Per slot of `recent`: the entry's drops were counted as hot-path drops (it came in a
    /// sample that carries the sink).
    on_hot_path: [bool; RECENT_ENTRIES],
    next_slot: usize,
}

impl Kpis {
    /// The KPIs of `spec`'s system, with all their memory.
    pub(crate) fn new(spec: &Spec) -> Kpis {
        let index: HashMap<Vec<u8>, usize, BuildHasherDefault<Fnv1a>> = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_bytes().to_vec(), i))
            .collect();
        let hot_path = &spec.hot_path;
        let nodes = spec
            .nodes
            .iter()
            .map(|n| NodeKpi {
                hot: hot_path.nodes.contains(&n.name),
                root: hot_path.roots.contains(&n.name),
                // A sequence number no node reaches in a run: "nothing seen".
                recent: [(u32::MAX, u64::MAX); RECENT_ENTRIES],
                on_hot_path: [false; RECENT_ENTRIES],
                next_slot: 0,
            })
            .collect();
        let sinks: Vec<String> = spec
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, Kind::Command { .. }))
            .map(|n| n.name.clone())
            .collect();
        // The spec's checks guarantee both names exist.
        let position = |name: &str| index.get(name.as_bytes()).copied().unwrap_or(usize::MAX);
        Kpis {
            sink: position(&hot_path.sink),
            sink_name: hot_path.sink.clone(),
            planner: position(&spec.behavior_planner),
            index,
            nodes,
            last_planner: vec![None; sinks.len()],
            arrivals: vec![Arrivals::default(); sinks.len()],
            sinks,
            latency: Reservoir::new(LATENCY_RESERVOIR),
            hot_path_drops: 0,
            drops_total: 0,
            planner_period: Welford::default(),
            periodic_start_delay: Histogram::new(),
            received: 0,
        }
    }

    /// The number [`record`](Self::record) knows command node `name` by.
    pub(crate) fn sink_index(&self, name: &str) -> Option<usize> {
        self.sinks.iter().position(|s| s == name)
    }

    /// A command node's sample: `msg`, received by command node number `sink`, which missed
    /// `missed` samples of its input before it.
    pub(crate) fn record(&mut self, sink: usize, msg: &Message4kb, missed: u32) {
        self.received += 1;
        self.drops_total += u64::from(missed);
        let mut sink_entry = None;
        let mut newest_root = None;
        let sink_name = self.sink_name.as_bytes();
        let carries_sink = msg.history().iter().any(|e| e.name_bytes() == sink_name);
        for entry in msg.history() {
            let Some(&i) = self.index.get(entry.name_bytes()) else {
                continue;
            };
            let node = &mut self.nodes[i];
            let id = (entry.sequence_number, entry.timestamp);
            let slot = node.recent.iter().position(|&r| r == id);
            let new = slot.is_none();
            let slot = slot.unwrap_or_else(|| {
                let slot = node.next_slot;
                node.recent[slot] = id;
                node.on_hot_path[slot] = false;
                node.next_slot = (slot + 1) % RECENT_ENTRIES;
                self.drops_total += u64::from(entry.dropped_samples);
                slot
            });
            if node.hot && carries_sink && !node.on_hot_path[slot] {
                node.on_hot_path[slot] = true;
                self.hot_path_drops += u64::from(entry.dropped_samples);
            }
            if node.root {
                newest_root = newest_root.max(Some(entry.timestamp));
            }
            if i == self.sink && new {
                sink_entry = Some(entry.timestamp);
            }
            if i == self.planner {
                self.planner_entry(sink, entry.sequence_number, entry.timestamp);
            }
        }
        if let (Some(sink), Some(root)) = (sink_entry, newest_root)
            && let Some(ns) = sink.checked_sub(root)
        {
            self.latency.add(ns as f64 / 1e6);
        }
    }

    /// How command node number `sink` received `msg`: as `info` says, after `missed` others.
    pub(crate) fn arrived(
        &mut self,
        sink: usize,
        info: &SampleInfo,
        msg: &Message4kb,
        missed: u32,
    ) {
        if let Some(arrivals) = self.arrivals.get_mut(sink) {
            arrivals.add(info, msg, missed);
        }
    }

    /// Per command node, by name, how its samples arrived since the start.
    pub(crate) fn arrivals(&self) -> Vec<(String, Arrivals)> {
        self.sinks
            .iter()
            .cloned()
            .zip(self.arrivals.clone())
            .collect()
    }

    /// A periodic node's run that started `delay_ns` after the deadline it serves.
    pub(crate) fn periodic_start(&mut self, delay_ns: u64) {
        self.periodic_start_delay.record(delay_ns);
    }

    fn planner_entry(&mut self, sink: usize, sequence: u32, timestamp: u64) {
        let Some(last) = self.last_planner.get_mut(sink) else {
            return;
        };
        if let Some((last_sequence, last_timestamp)) = *last {
            if sequence <= last_sequence {
                return;
            }
            let runs = f64::from(sequence - last_sequence);
            let elapsed_ms = timestamp.saturating_sub(last_timestamp) as f64 / 1e6;
            self.planner_period.add(elapsed_ms / runs);
        }
        *last = Some((sequence, timestamp));
    }

    /// Forgets what was measured (the warm-up). Entries already seen stay known, so that they
    /// do not count again when they arrive late on another path.
    pub(crate) fn reset(&mut self) {
        self.latency.clear();
        self.hot_path_drops = 0;
        self.drops_total = 0;
        self.planner_period = Welford::default();
        self.periodic_start_delay.clear();
        self.last_planner.fill(None);
    }

    /// Samples the command nodes received since the start.
    pub(crate) fn received(&self) -> u64 {
        self.received
    }

    /// Writes the KPIs into `result`.
    pub(crate) fn fill(&self, result: &mut RunResult) {
        result.hot_path_latency_ms = self.latency.distribution();
        result.hot_path_drops = Some(self.hot_path_drops);
        result.bp_period_ms = self.planner_period.spread();
        result.periodic_start_delay_ms = (!self.periodic_start_delay.is_empty())
            .then(|| self.periodic_start_delay.distribution_ms());
        result.drops_total = self.drops_total;
    }
}

/// FNV-1a: the KPIs look up every entry of every sample by its node name, and SipHash (the
/// default, built against hash flooding, which a fixed set of 24 names cannot cause) made the
/// lookups a tenth of the system's instructions at crunch 0.
#[derive(Debug)]
pub(crate) struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A uniform random sample of a stream of values (Vitter's algorithm R), with the stream's
/// exact count, mean and maximum.
#[derive(Debug)]
struct Reservoir {
    kept: Vec<f64>,
    capacity: usize,
    seen: u64,
    sum: f64,
    max: f64,
    /// xorshift64 state: which kept value a new one replaces.
    random: u64,
}

impl Reservoir {
    fn new(capacity: usize) -> Reservoir {
        let mut kept = Vec::with_capacity(capacity);
        // Touch every page now, so that filling the reservoir during a run grows no memory.
        kept.resize(capacity, 0.0);
        std::hint::black_box(&mut kept);
        kept.clear();
        Reservoir {
            kept,
            capacity,
            seen: 0,
            sum: 0.0,
            max: f64::NEG_INFINITY,
            random: 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn add(&mut self, value: f64) {
        self.seen += 1;
        self.sum += value;
        self.max = self.max.max(value);
        if self.kept.len() < self.capacity {
            self.kept.push(value);
            return;
        }
        self.random ^= self.random << 13;
        self.random ^= self.random >> 7;
        self.random ^= self.random << 17;
        let slot = self.random % self.seen;
        if let Some(kept) = self.kept.get_mut(slot as usize) {
            *kept = value;
        }
    }

    fn clear(&mut self) {
        self.kept.clear();
        self.seen = 0;
        self.sum = 0.0;
        self.max = f64::NEG_INFINITY;
    }

    fn distribution(&self) -> Option<Distribution> {
        let mut sorted = self.kept.clone();
        let percentiles = Distribution::of(&mut sorted)?;
        Some(Distribution {
            mean: self.sum / self.seen as f64,
            max: self.max,
            n: self.seen,
            ..percentiles
        })
    }
}

/// Running mean, population standard deviation, min and max (Welford's algorithm).
#[derive(Debug, Clone, Copy)]
struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
}

impl Default for Welford {
    fn default() -> Self {
        Welford {
            n: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Welford {
    fn add(&mut self, x: f64) {
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    fn spread(&self) -> Option<Spread> {
        (self.n > 0).then(|| Spread {
            mean: self.mean,
            sd: (self.m2 / self.n as f64).sqrt(),
            min: self.min,
            max: self.max,
            n: self.n,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::message::TransmissionStats;
    use super::*;

    const MS: u64 = 1_000_000;

    /// Roots A and B, the hot path A/B → S, and a planner P; sinks C1 and C2.
    fn kpis() -> Kpis {
        let json = r#"{
          "message": { "type": "Message4kb", "bytes": 4096, "stats_capacity": 63 },
          "qos": { "history": "keep_last", "depth": 1 },
          "nodes": [
            { "name": "A", "kind": "sensor", "period_ms": 100, "output": "A" },
            { "name": "B", "kind": "sensor", "period_ms": 100, "output": "B" },
            { "name": "S", "kind": "fusion", "inputs": ["A", "B"], "output": "S" },
            { "name": "P", "kind": "cyclic", "period_ms": 100, "inputs": ["S"], "output": "P" },
            { "name": "C1", "kind": "command", "input": "P", "depth": 10 },
            { "name": "C2", "kind": "command", "input": "S", "depth": 10 }
          ],
          "hot_path": { "roots": ["A", "B"], "nodes": ["A", "B", "S"], "sink": "S" },
          "behavior_planner": "P"
        }"#;
        Kpis::new(&Spec::from_json(json, Path::new("test.json")).unwrap())
    }

    /// A message with entries (name, sequence, dropped, timestamp in ms).
    fn message(entries: &[(&str, u32, u32, u64)]) -> Message4kb {
        let mut msg = Message4kb::default();
        for &(name, seq, dropped, ms) in entries {
            msg.push(TransmissionStats::new(name, seq, dropped, ms * MS));
        }
        msg
    }

    fn result(kpis: &Kpis) -> RunResult {
        let mut result = RunResult::default();
        kpis.fill(&mut result);
        result
    }

    #[test]
    fn latency_runs_from_the_newest_root_to_the_sink() {
        let mut kpis = kpis();
        kpis.record(
            0,
            &message(&[("A", 0, 0, 100), ("B", 0, 0, 103), ("S", 0, 0, 110)]),
            0,
        );
        let latency = result(&kpis).hot_path_latency_ms.unwrap();
        assert_eq!((latency.n, latency.max), (1, 7.0));
    }

    #[test]
    fn an_entry_carried_by_two_samples_counts_once() {
        let mut kpis = kpis();
        let fused = [("A", 4, 0, 100), ("B", 4, 0, 100), ("S", 4, 2, 105)];
        kpis.record(1, &message(&fused), 0);
        kpis.record(
            0,
            &message(&[fused[0], fused[1], fused[2], ("P", 0, 1, 150)]),
            3,
        );
        let result = result(&kpis);
        assert_eq!(result.hot_path_latency_ms.unwrap().n, 1);
        assert_eq!(result.hot_path_drops, Some(2));
        assert_eq!(result.drops_total, 2 + 1 + 3);
    }

    /// Upstream's rule (`print_sample_path` in reference_system's `sample_management.hpp`,
    /// which has no test of it): a sample's hot-path drops count only if it carries the sink.
    #[test]
    fn a_hot_path_nodes_drops_count_on_the_hot_path_only_in_samples_that_carry_the_sink() {
        let mut kpis = kpis();
        let elsewhere = ("B", 7, 3, 200);
        kpis.record(1, &message(&[elsewhere]), 0);
        let result_before = result(&kpis);
        assert_eq!(result_before.hot_path_drops, Some(0));
        assert_eq!(result_before.drops_total, 3);
        // The same entry, later on the hot path: its drops count there, still once in total.
        kpis.record(0, &message(&[elsewhere, ("S", 7, 0, 205)]), 0);
        kpis.record(0, &message(&[elsewhere, ("S", 8, 0, 305)]), 0);
        let result = result(&kpis);
        assert_eq!(result.hot_path_drops, Some(3));
        assert_eq!(result.drops_total, 3);
    }

    #[test]
    fn the_planner_period_spreads_a_gap_over_the_runs_it_spans() {
        let mut kpis = kpis();
        for (seq, ms) in [(0, 0), (1, 100), (3, 310), (3, 310)] {
            kpis.record(0, &message(&[("P", seq, 0, ms)]), 0);
        }
        let period = result(&kpis).bp_period_ms.unwrap();
        assert_eq!((period.n, period.min, period.max), (2, 100.0, 105.0));
    }

    #[test]
    fn reset_forgets_the_warm_up_but_not_the_entries_seen() {
        let mut kpis = kpis();
        let fused = message(&[("A", 0, 0, 100), ("B", 0, 0, 100), ("S", 0, 5, 101)]);
        kpis.record(0, &fused, 1);
        kpis.reset();
        kpis.record(1, &fused, 0);
        let result = result(&kpis);
        assert_eq!(result.drops_total, 0);
        assert!(result.hot_path_latency_ms.is_none() && result.bp_period_ms.is_none());
    }

    #[test]
    fn a_full_reservoir_keeps_exact_count_mean_and_max() {
        let mut reservoir = Reservoir::new(100);
        for i in 0..10_000 {
            reservoir.add(f64::from(i % 100));
        }
        let d = reservoir.distribution().unwrap();
        assert_eq!((d.n, d.max, d.mean), (10_000, 99.0, 49.5));
        assert!((30.0..70.0).contains(&d.p50));
    }
}
