//! The suite's nodes as registered components, so that `tacto launch` places them in one process
//! or in two, on any executor and transport, through the path a user's own nodes take:
//!
//! | component | what it does | parameters |
//! |---|---|---|
//! | `seeds::PayloadPublisher` | publishes a ros2-performance `stampedNNN` message on `payload` every period, stamped and numbered | `msg_type`, `period_ms` |
//! | `seeds::PayloadSubscriber` | takes them: latency (publish to take, system clock) and tracking-number gaps; with `count_udp_drops`, the UDP datagrams the kernel dropped for a full receive buffer meanwhile | `msg_type`, `warmup_s`, `figures`, `count_udp_drops` |
//! | `seeds::AddTwoIntsServer` | answers `example_interfaces/srv/AddTwoInts` on `add_two_ints` | |
//! | `seeds::AddTwoIntsClient` | calls it every period: request to response | `period_ms`, `warmup_s`, `figures` |
//! | `seeds::FibonacciServer` | serves `example_interfaces/action/Fibonacci` on `fibonacci`, one number and one feedback per step | `step_ms` |
//! | `seeds::FibonacciClient` | sends a goal every period: send to acceptance, and send to result | `period_ms`, `order`, `warmup_s`, `figures` |
//!
//! The measuring nodes (subscriber and clients) ignore what comes within `warmup_s` of their
//! start, count into a bounded [`Histogram`], and write their [`Tally`] as JSON to the file
//! `figures` when the process stops its executors (their state's last owner is dropped then):
//! the measured process reports its CPU and memory itself, and its nodes' figures beside it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tacto::action::ActionEvent;
use tacto::{ClockKind, History, Node, Sample, Time, Trigger};
use tacto_component::{BuildError, Placement, Style, component};
use tacto_msgs::example_interfaces::action::{
    Fibonacci, Fibonacci_Feedback, Fibonacci_Goal, Fibonacci_Result,
};
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

use crate::histogram::Histogram;
use crate::result::Distribution;
use crate::topology::ros2_performance::messages::{MsgType, Payload, Stamped, WithPayload};
use crate::topology::ros2_performance::nodes::StampedPublisher;

/// The publisher's component name.
pub(super) const PUBLISHER: &str = "seeds::PayloadPublisher";
/// The subscriber's.
pub(super) const SUBSCRIBER: &str = "seeds::PayloadSubscriber";
/// The service server's.
pub(super) const SERVICE_SERVER: &str = "seeds::AddTwoIntsServer";
/// The service client's.
pub(super) const SERVICE_CLIENT: &str = "seeds::AddTwoIntsClient";
/// The action server's.
pub(super) const ACTION_SERVER: &str = "seeds::FibonacciServer";
/// The action client's.
pub(super) const ACTION_CLIENT: &str = "seeds::FibonacciClient";

component!("seeds::PayloadPublisher", publisher);
component!("seeds::PayloadSubscriber", subscriber);
component!("seeds::AddTwoIntsServer", service_server);
component!("seeds::AddTwoIntsClient", service_client);
component!("seeds::FibonacciServer", action_server);
component!("seeds::FibonacciClient", action_client);

const TOPIC: &str = "payload";
const SERVICE: &str = "add_two_ints";
const ACTION: &str = "fibonacci";
/// ROS 2's default history depth, ros2-performance's subscriptions' too.
const DEPTH: usize = 10;
/// A call or goal unanswered for this long is counted lost and forgotten: the table of those in
/// flight stays bounded (the period's rate times this) whatever the server does.
const GIVE_UP: Duration = Duration::from_secs(30);
/// When the node stops, what it sent this long before and has no answer to counts lost; what
/// it sent since may be on its way (a goal takes about 80 ms).
const LATE: Duration = Duration::from_secs(1);

/// What a measuring node measured after its warm-up, as it writes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Tally {
    /// Messages taken, calls answered or goals finished.
    pub measured: u64,
    /// Pub/sub: tracking numbers skipped. Calls and goals: rejected, or not answered within
    /// [`GIVE_UP`], or still unanswered at the end [`LATE`] after they were sent.
    pub lost: u64,
    /// Pub/sub: publish to take. Services: request to response. Actions: goal sent to
    /// accepted (the goal service's round trip). ms.
    pub latency_ms: Option<Distribution>,
    /// Actions: goal sent to its result, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_ms: Option<Distribution>,
    /// Pub/sub with `count_udp_drops`: UDP datagrams the kernel dropped because a socket's
    /// receive buffer was full, in the subscriber's network namespace, from its first measured
    /// sample to its end (`RcvbufErrors` of `/proc/net/snmp`). Only a namespace of the run's
    /// own makes them the run's: on the host they are every process's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_drops: Option<u64>,
}

/// Whether, and from what count, a measuring node counts the kernel's UDP drops.
enum UdpDrops {
    /// Not asked for.
    Off,
    /// Asked for; the measurement has not started.
    Waiting,
    /// The count when the measurement started (`None`: unreadable).
    From(Option<u64>),
}

/// `RcvbufErrors` of the `Udp:` lines of a `/proc/net/snmp` text: a line of names, then a line
/// of values in the same order.
fn rcvbuf_errors(snmp: &str) -> Option<u64> {
    let mut udp = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let (names, values) = (udp.next()?, udp.next()?);
    let at = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
    values.split_whitespace().nth(at)?.parse().ok()
}

/// This network namespace's count of UDP datagrams dropped for a full receive buffer.
fn udp_rcvbuf_errors() -> Option<u64> {
    rcvbuf_errors(&std::fs::read_to_string("/proc/net/snmp").ok()?)
}

/// A measuring node's record, written to its `figures` file when dropped.
struct Record {
    figures: PathBuf,
    measure_from: Instant,
    latency: Histogram,
    result: Option<Histogram>,
    measured: u64,
    lost: u64,
    udp_drops: UdpDrops,
}

impl Record {
    /// Reads the node's `warmup_s` and `figures` parameters.
    fn new(node: &Node) -> Result<Record, BuildError> {
        let parameters = node.parameters();
        let warmup = parameters.declare("warmup_s", 0.0_f64)?;
        let figures = parameters.declare("figures", String::new())?;
        if !(0.0..=86_400.0).contains(&warmup) {
            return Err(format!("parameter warmup_s: {warmup}: give 0 to 86400 seconds").into());
        }
        if figures.is_empty() {
            return Err("parameter figures: give the file to write the figures to".into());
        }
        Ok(Record {
            figures: figures.into(),
            measure_from: Instant::now() + Duration::from_secs_f64(warmup),
            latency: Histogram::new(),
            result: None,
            measured: 0,
            lost: 0,
            udp_drops: UdpDrops::Off,
        })
    }

    fn measuring(&self, at: Instant) -> bool {
        at >= self.measure_from
    }

    fn tally(&self) -> Tally {
        let of = |h: &Histogram| (!h.is_empty()).then(|| h.distribution_ms());
        Tally {
            measured: self.measured,
            lost: self.lost,
            latency_ms: of(&self.latency),
            result_ms: self.result.as_ref().and_then(of),
            udp_drops: match self.udp_drops {
                UdpDrops::From(Some(from)) => udp_rcvbuf_errors().map(|n| n.saturating_sub(from)),
                UdpDrops::From(None) | UdpDrops::Off => None,
                // Nothing was measured: nothing was dropped while measuring.
                UdpDrops::Waiting => Some(0),
            },
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        // Nothing to report a failure to from here: the run that finds no file says so.
        if let Ok(json) = serde_json::to_string(&self.tally()) {
            let _ = std::fs::write(&self.figures, json);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The node's `period_ms` parameter (default `default_ms`), 1 ms to a minute.
fn period(node: &Node, default_ms: i64) -> Result<Duration, BuildError> {
    let ms = node.parameters().declare("period_ms", default_ms)?;
    match u64::try_from(ms) {
        Ok(ms @ 1..=60_000) => Ok(Duration::from_millis(ms)),
        _ => Err(format!("parameter period_ms: {ms}: give 1 to 60000").into()),
    }
}

/// The node's `msg_type` parameter: a fixed-size ros2-performance type.
fn msg_type(node: &Node) -> Result<MsgType, BuildError> {
    let name = node
        .parameters()
        .declare("msg_type", "stamped10b".to_string())?;
    (MsgType::from_name(&name).filter(|t| t.fixed_size().is_some())).ok_or_else(|| {
        let known: Vec<&str> = (MsgType::ALL.iter())
            .filter(|t| t.fixed_size().is_some())
            .map(|t| t.name())
            .collect();
        format!(
            "parameter msg_type: {name:?} is not a fixed-size ros2-performance type ({})",
            known.join(", ")
        )
        .into()
    })
}

fn publisher(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let msg_type = msg_type(node)?;
    let period = period(node, 10)?;
    msg_type.with(AddPublisher { node, period })
}

struct AddPublisher<'a> {
    node: &'a mut Node,
    period: Duration,
}

impl WithPayload for AddPublisher<'_> {
    type Output = Result<(), BuildError>;

    fn call<P: Payload>(self) -> Self::Output {
        let frequency = (1.0 / self.period.as_secs_f64()) as f32;
        let size = P::FIXED_SIZE.unwrap_or_default();
        let mut publisher = StampedPublisher::<P>::new(self.node, TOPIC, frequency, size)?;
        self.node
            .wall_timer(self.period, move |_| publisher.publish())?;
        Ok(())
    }
}

fn subscriber(node: &mut Node, placement: &Placement) -> Result<(), BuildError> {
    let msg_type = msg_type(node)?;
    let mut record = Record::new(node)?;
    if (node.parameters()).declare("count_udp_drops", false)? {
        record.udp_drops = UdpDrops::Waiting;
    }
    msg_type.with(AddSubscriber {
        node,
        style: placement.style(),
        record,
    })
}

struct AddSubscriber<'a> {
    node: &'a mut Node,
    style: Style,
    record: Record,
}

/// A subscriber's record and the tracking number it expects next.
struct Subscribed {
    record: Record,
    next: Option<u32>,
}

impl Subscribed {
    fn take<P: Payload>(&mut self, now: Time, sample: &Stamped<P>) {
        let number = sample.header.tracking_number;
        if self.record.measuring(Instant::now()) {
            if let UdpDrops::Waiting = self.record.udp_drops {
                self.record.udp_drops = UdpDrops::From(udp_rcvbuf_errors());
            }
            if let Some(next) = self.next {
                self.record.lost += u64::from(number.saturating_sub(next));
            }
            self.record.measured += 1;
            let latency = now - Time::from(sample.header.stamp);
            (self.record.latency).record(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
        }
        self.next = Some(self.next.map_or(number, |n| n.max(number)).wrapping_add(1));
    }
}

impl WithPayload for AddSubscriber<'_> {
    type Output = Result<(), BuildError>;

    fn call<P: Payload>(self) -> Self::Output {
        let AddSubscriber {
            node,
            style,
            record,
        } = self;
        let clock = node.context().clock().clone();
        let mut state = Subscribed { record, next: None };
        let builder = node
            .subscription::<Stamped<P>>(TOPIC)
            .history(History::KeepLast(DEPTH));
        // Written as each executor's nodes are: a callback per message, or a polling
        // subscription whose executable takes everything unread.
        match style {
            Style::Callbacks => {
                builder.callback(move |sample: Sample<Stamped<P>>| {
                    state.take(clock.now(ClockKind::System), &sample);
                })?;
            }
            Style::Polling => {
                let sub = builder.create()?;
                node.execute(Trigger::on(&sub), move |_| {
                    let now = clock.now(ClockKind::System);
                    for sample in sub.take_all() {
                        state.take(now, &sample);
                    }
                })?;
            }
        }
        Ok(())
    }
}

fn service_server(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let service = node.service::<AddTwoInts>(SERVICE).create()?;
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, request)) = service.take_request() {
            let sum = request.a.wrapping_add(request.b);
            service.send_response(id, AddTwoInts_Response { sum });
        }
    })?;
    Ok(())
}

/// What a client has sent and not yet had answered, by its id, with when it was sent and
/// whether it is measured.
struct InFlight<K> {
    record: Record,
    sent: HashMap<K, (Instant, bool)>,
}

impl<K: std::hash::Hash + Eq> InFlight<K> {
    fn new(record: Record) -> Self {
        InFlight {
            record,
            sent: HashMap::new(),
        }
    }

    /// Forgets what has waited longer than [`GIVE_UP`], counting the measured ones lost.
    fn give_up(&mut self, now: Instant) {
        let record = &mut self.record;
        self.sent.retain(|_, &mut (sent, measured)| {
            let waiting = now.duration_since(sent) < GIVE_UP;
            if !waiting && measured {
                record.lost += 1;
            }
            waiting
        });
    }

    fn sent(&mut self, id: K, at: Instant) {
        self.give_up(at);
        let measured = self.record.measuring(at);
        self.sent.insert(id, (at, measured));
    }

    fn elapsed_ns(sent: Instant) -> u64 {
        u64::try_from(sent.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl<K> Drop for InFlight<K> {
    fn drop(&mut self) {
        let late = (self.sent.values())
            .filter(|(sent, measured)| *measured && sent.elapsed() >= LATE)
            .count();
        self.record.lost += late as u64;
    }
}

fn service_client(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let period = period(node, 10)?;
    let record = Record::new(node)?;
    let client = Arc::new(node.client::<AddTwoInts>(SERVICE).create()?);
    let calls = Arc::new(Mutex::new(InFlight::new(record)));
    let (sender, sending) = (client.clone(), calls.clone());
    node.wall_timer(period, move |_| {
        if !sender.service_is_ready() {
            return;
        }
        let now = Instant::now();
        if let Ok(id) = sender.send_request(AddTwoInts_Request { a: 2, b: 3 }) {
            lock(&sending).sent(id.sequence, now);
        }
    })?;
    node.execute(Trigger::any().with_responses(&client), move |_| {
        let mut calls = lock(&calls);
        while let Some((id, _)) = client.take_response() {
            if let Some((sent, true)) = calls.sent.remove(&id.sequence) {
                calls.record.measured += 1;
                let ns = InFlight::<i64>::elapsed_ns(sent);
                calls.record.latency.record(ns);
            }
        }
    })?;
    Ok(())
}

fn action_server(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let step_ms = node.parameters().declare("step_ms", 10_i64)?;
    let step = match u64::try_from(step_ms) {
        Ok(ms @ 1..=60_000) => Duration::from_millis(ms),
        _ => return Err(format!("parameter step_ms: {step_ms}: give 1 to 60000").into()),
    };
    let server = Arc::new(node.action_server::<Fibonacci>(ACTION).create()?);
    type Running = Vec<(tacto::action::GoalHandle<Fibonacci>, Vec<i32>)>;
    // Both executables are in the node's default group, which runs one at a time.
    let goals: Arc<Mutex<Running>> = Arc::default();
    let (taking, running) = (server.clone(), goals.clone());
    node.execute(server.trigger(), move |_| {
        let mut goals = lock(&running);
        while let Some(request) = taking.take_goal() {
            if let Ok(handle) = request.accept()
                && handle.execute().is_ok()
            {
                goals.push((handle, vec![0, 1]));
            }
        }
        while let Some(cancel) = taking.take_cancel() {
            cancel.decide(|_| true);
        }
    })?;
    node.wall_timer(step, move |_| {
        let mut goals = lock(&goals);
        for (handle, sequence) in goals.iter_mut() {
            let order = usize::try_from(handle.goal().order).unwrap_or_default();
            if sequence.len() > order {
                let _ = handle.succeed(Fibonacci_Result {
                    sequence: sequence.clone(),
                });
            } else {
                let n = sequence.len();
                sequence.push(sequence[n - 1].wrapping_add(sequence[n - 2]));
                handle.publish_feedback(Fibonacci_Feedback {
                    sequence: sequence.clone(),
                });
            }
        }
        goals.retain(|(handle, _)| handle.is_active());
    })?;
    Ok(())
}

fn action_client(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let period = period(node, 100)?;
    let order = node.parameters().declare("order", 10_i64)?;
    let order = match i32::try_from(order) {
        Ok(order @ 1..=40) => order,
        _ => return Err(format!("parameter order: {order}: give 1 to 40").into()),
    };
    let mut record = Record::new(node)?;
    record.result = Some(Histogram::new());
    let client = Arc::new(node.action_client::<Fibonacci>(ACTION).create()?);
    let goals = Arc::new(Mutex::new(InFlight::new(record)));
    let (sender, sending) = (client.clone(), goals.clone());
    node.wall_timer(period, move |_| {
        if !sender.server_is_ready() {
            return;
        }
        let now = Instant::now();
        if let Ok(id) = sender.send_goal(Fibonacci_Goal { order }) {
            lock(&sending).sent(id, now);
        }
    })?;
    let events = client.clone();
    node.execute(client.trigger(), move |_| {
        let mut goals = lock(&goals);
        while let Some(event) = events.take_event() {
            match event {
                ActionEvent::Accepted { goal, .. } => {
                    if let Some(&(sent, true)) = goals.sent.get(&goal) {
                        let ns = InFlight::<tacto::action::GoalId>::elapsed_ns(sent);
                        goals.record.latency.record(ns);
                    }
                }
                ActionEvent::Rejected { goal } => {
                    if let Some((_, true)) = goals.sent.remove(&goal) {
                        goals.record.lost += 1;
                    }
                }
                ActionEvent::Result { goal, .. } => {
                    if let Some((sent, true)) = goals.sent.remove(&goal) {
                        goals.record.measured += 1;
                        let ns = InFlight::<tacto::action::GoalId>::elapsed_ns(sent);
                        if let Some(result) = goals.record.result.as_mut() {
                            result.record(ns);
                        }
                    }
                }
                _ => {}
            }
        }
    })?;
    Ok(())
}

/// Reads the figures a measuring node wrote to `path`.
pub(super) fn read_tally(path: &std::path::Path) -> Result<Tally, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "the measuring node wrote no figures to {}: {e}",
            path.display()
        )
    })?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not figures: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto::{Context, Executor, WaitSetExecutor};

    fn scratch(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!(
            "tacto-seeds-component-{name}-{}.json",
            std::process::id()
        ))
    }

    /// Runs `components` (name and arguments) in one context on one wait-set executor for
    /// `seconds`, then drops them all.
    fn run(components: &[(&str, Vec<String>)], style: Style, seconds: f64) {
        let ctx = Context::new();
        let mut executor = WaitSetExecutor::new().unwrap();
        for (name, args) in components {
            let node = (tacto_component::find(name).unwrap())
                .instantiate(&ctx, None, None, args, style)
                .unwrap();
            executor.add(node).unwrap();
        }
        executor.spin_for(Duration::from_secs_f64(seconds)).unwrap();
    }

    fn args(pairs: &[(&str, String)]) -> Vec<String> {
        let mut args = vec!["--ros-args".to_owned()];
        for (name, value) in pairs {
            args.push("-p".into());
            args.push(format!("{name}:={value}"));
        }
        args
    }

    #[test]
    fn the_subscriber_measures_what_the_publisher_sends_after_its_warm_up() {
        // Drops are counted only when asked for (here in the host's namespace: a count, but
        // not this run's).
        for (style, count_udp_drops) in [(Style::Polling, false), (Style::Callbacks, true)] {
            let figures = scratch("subscriber");
            run(
                &[
                    (
                        PUBLISHER,
                        args(&[("msg_type", "stamped1kb".into()), ("period_ms", "5".into())]),
                    ),
                    (
                        SUBSCRIBER,
                        args(&[
                            ("msg_type", "stamped1kb".into()),
                            ("warmup_s", "0.2".into()),
                            ("figures", figures.display().to_string()),
                            ("count_udp_drops", count_udp_drops.to_string()),
                        ]),
                    ),
                ],
                style,
                0.7,
            );
            let tally = read_tally(&figures).unwrap();
            std::fs::remove_file(&figures).unwrap();
            // 0.5 s measured at 200 Hz.
            assert!((40..=110).contains(&tally.measured), "{style:?}: {tally:?}");
            let latency = tally.latency_ms.unwrap();
            assert_eq!(latency.n, tally.measured);
            assert!(latency.max < 500.0, "{latency:?}");
            assert_eq!(
                tally.udp_drops.is_some(),
                count_udp_drops,
                "{:?}",
                tally.udp_drops
            );
        }
    }

    #[test]
    fn the_kernels_udp_receive_buffer_drops_are_read_by_name_from_snmp() {
        // The Udp lines of a /proc/net/snmp as Linux 6.18 writes them.
        let snmp = "Ip: Forwarding DefaultTTL\nIp: 1 64\n\
                    Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors \
                    InCsumErrors IgnoredMulti MemErrors\n\
                    Udp: 473202 200 167728 641133 167728 0 0 0 0\n\
                    UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors\n\
                    UdpLite: 0 0 0 0 0\n";
        assert_eq!(rcvbuf_errors(snmp), Some(167_728));
        assert_eq!(rcvbuf_errors("Udp: InDatagrams\nUdp: 3\n"), None);
        assert_eq!(rcvbuf_errors(""), None);
    }

    #[test]
    fn the_service_client_times_each_call_to_its_answer() {
        let figures = scratch("service");
        run(
            &[
                (SERVICE_SERVER, Vec::new()),
                (
                    SERVICE_CLIENT,
                    args(&[
                        ("period_ms", "10".into()),
                        ("figures", figures.display().to_string()),
                    ]),
                ),
            ],
            Style::Polling,
            0.5,
        );
        let tally = read_tally(&figures).unwrap();
        std::fs::remove_file(&figures).unwrap();
        assert!(tally.measured >= 20, "{tally:?}");
        assert_eq!(tally.latency_ms.as_ref().unwrap().n, tally.measured);
        assert_eq!(tally.lost, 0, "{tally:?}");
    }

    #[test]
    fn the_action_client_times_acceptance_and_result_of_each_goal() {
        let figures = scratch("action");
        run(
            &[
                (ACTION_SERVER, args(&[("step_ms", "5".into())])),
                (
                    ACTION_CLIENT,
                    args(&[
                        ("period_ms", "20".into()),
                        ("order", "3".into()),
                        ("figures", figures.display().to_string()),
                    ]),
                ),
            ],
            Style::Polling,
            0.6,
        );
        let tally = read_tally(&figures).unwrap();
        std::fs::remove_file(&figures).unwrap();
        assert!(tally.measured >= 10, "{tally:?}");
        let result = tally.result_ms.unwrap();
        assert_eq!(result.n, tally.measured);
        // Order 3 takes three steps of 5 ms, the first of which may come at once: 10 ms at
        // least.
        assert!(result.p50 >= 9.5, "{result:?}");
        assert!(tally.latency_ms.unwrap().p50 < result.p50);
    }

    #[test]
    fn a_missing_figures_file_or_a_variable_size_type_is_refused_naming_the_parameter() {
        let ctx = Context::new();
        let subscriber = tacto_component::find(SUBSCRIBER).unwrap();
        let error = (subscriber.instantiate(&ctx, None, None, &args(&[]), Style::Polling))
            .unwrap_err()
            .to_string();
        assert!(error.contains("parameter figures"), "{error}");
        let publisher = tacto_component::find(PUBLISHER).unwrap();
        let error = (publisher.instantiate(
            &ctx,
            None,
            None,
            &args(&[("msg_type", "stamped_vector".into())]),
            Style::Polling,
        ))
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("parameter msg_type") && error.contains("stamped4mb"),
            "{error}"
        );
    }
}
