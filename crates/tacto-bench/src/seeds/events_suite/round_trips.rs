//! Services and actions: an AddTwoInts call every 10 ms (request to response), a Fibonacci
//! goal every 100 ms (send to acceptance, the goal service's round trip; and send to result,
//! ten steps of the server's timer later), in one process and in two (shared memory, DDS), on
//! every executor a launch file can place them on: CPU of the processes, round trips (mean,
//! p99, max) and the calls or goals lost. With `--rclcpp`, rclcpp's services beside them:
//! `irobot_benchmark` calling a server of ros2-performance's `stamped10b` service as often,
//! in one process on each of its executors.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::placed::{
    self, CALL_PERIOD_MS, Case, CaseError, GOAL_ORDER, GOAL_PERIOD_MS, Load, STEP_MS, Transport,
};
use super::{Part, PartRan, insert_distribution, ms, placed_executors};
use crate::seeds::irobot::{Irobot, IrobotRun, RclcppExecutor};
use crate::seeds::isolation::Network;
use crate::seeds::{Figure, Scale, plot};
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// Where the client and the server run: its name in keys and tables, the transport, the
/// number of processes.
const PLACEMENTS: [(&str, Transport, usize); 3] = [
    ("one-process", Transport::Shm, 1),
    ("shm", Transport::Shm, 2),
    ("dds", Transport::Dds, 2),
];

/// One case that ran.
struct Ran {
    load: Load,
    placement: &'static str,
    executor: ExecutorKind,
    measured: placed::Measured,
}

/// rclcpp's services in ros2-performance's format: a server, and a client calling it every
/// [`CALL_PERIOD_MS`], in one process.
pub(super) fn rclcpp_services() -> String {
    format!(
        r#"{{"nodes": [
  {{"node_name": "server", "servers": [{{"service_name": "add_two_ints", "srv_type": "stamped10b"}}]}},
  {{"node_name": "client", "clients": [{{"service_name": "add_two_ints", "srv_type": "stamped10b", "period_ms": {CALL_PERIOD_MS}}}]}}
]}}"#
    )
}

/// Runs both loads in every placement on every placeable executor; DDS only where a network
/// namespace can be made; then rclcpp's services if `irobot` is found.
pub(super) fn run(
    scale: Scale,
    irobot: Result<&Irobot, &String>,
    interrupt: &Interrupt,
) -> PartRan {
    // Across processes a client finds its server only after discovery, which for an action
    // (three services and two topics) over shared memory took 4 to 5 s in a debug build on a
    // loaded machine (well under 1 s in a release build): the warm-up covers it, and the
    // quick run's window outlasts it, on one executor.
    let warmup = Duration::from_secs_f64(scale.pick(5.0, 0.5));
    let duration = Duration::from_secs_f64(scale.pick(10.0, 7.0));
    // The LET executor refuses services and clients by design (their calls would wait for the
    // next period's end): said once, not as a failure per case.
    let executors: Vec<ExecutorKind> = match scale.quick {
        true => vec![ExecutorKind::WaitSet],
        false => (placed_executors(scale).into_iter())
            .filter(|&e| e != ExecutorKind::Let)
            .collect(),
    };
    let mut notes = vec![format!(
        "Services and actions: an example_interfaces AddTwoInts call every {CALL_PERIOD_MS} ms; \
         a Fibonacci goal of order {GOAL_ORDER} every {GOAL_PERIOD_MS} ms, the server adding \
         a number and sending a feedback every {STEP_MS} ms (so a goal's result comes about \
         {} ms after it is accepted). Client and server placed by a launch file in one \
         process (on the shared-memory transport, which a single process does not use \
         between its own nodes) or in a process each, {} s measured after {} s of warm-up. \
         The action's latency is send to acceptance (the goal service's round trip); send to \
         result is its own column.",
        GOAL_ORDER * STEP_MS,
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    if !scale.quick {
        notes.push(
            "services and actions on let: skipped: the LET executor runs no services or \
             clients (it refuses them when the node is added)"
                .into(),
        );
    }
    let dds = Network::here().refused();
    if let Some(reason) = &dds {
        notes.push(format!("services and actions over DDS: skipped: {reason}"));
    }
    let placements: Vec<_> = (PLACEMENTS.into_iter())
        .filter(|(_, transport, _)| *transport == Transport::Shm || dds.is_none())
        .collect();
    let total = 2 * placements.len() * executors.len();
    let mut ran = Vec::new();
    for load in [Load::Service, Load::Action] {
        for &(placement, transport, processes) in &placements {
            for &executor in &executors {
                eprintln!(
                    "  [{}/{total}] {} {placement} on {executor}",
                    ran.len() + 1,
                    load.name()
                );
                let case = Case {
                    load,
                    executor,
                    transport,
                    processes,
                    warmup,
                    duration,
                };
                match placed::run(&case, interrupt) {
                    Ok(measured) => ran.push(Ran {
                        load,
                        placement,
                        executor,
                        measured,
                    }),
                    Err(CaseError::Interrupted) => return PartRan::Interrupted,
                    Err(CaseError::Failed(reason)) => notes.push(format!(
                        "{} {placement} on {executor}: failed: {reason}",
                        load.name()
                    )),
                }
            }
        }
    }
    let mut rclcpp = Vec::new();
    match irobot {
        Ok(irobot) => {
            notes.push(format!(
                "rclcpp rows: irobot_benchmark (ros2-performance) with a server of its \
                 `stamped10b` service and a client calling it every {CALL_PERIOD_MS} ms in one \
                 process, `-x 1` (SingleThreadedExecutor) and `-x 3` (EventsExecutor), in a \
                 network namespace of its own. rclcpp has no intra-process services: its calls \
                 go through DDS even in one process. Its round trip is the client's, request \
                 sent to response taken; mean and max over its whole run ({} s, warm-up \
                 included), no p99.",
                (warmup + duration).as_secs_f64().ceil()
            ));
            // Whole seconds: the benchmark's -t.
            let seconds = (warmup + duration).as_secs_f64().ceil() as u64;
            for executor in RclcppExecutor::ALL {
                eprintln!("  service one-process on {}", executor.name());
                let topology = rclcpp_services();
                match irobot.run("services", &topology, executor, seconds, warmup, interrupt) {
                    Ok(Some(run)) => rclcpp.push((executor, run)),
                    Ok(None) => return PartRan::Interrupted,
                    Err(e) => notes.push(format!(
                        "service one-process on {}: failed: {e}",
                        executor.name()
                    )),
                }
            }
        }
        Err(reason) => notes.push(format!("rclcpp's services beside tacto: skipped: {reason}")),
    }
    PartRan::Part(report(&ran, &rclcpp, notes))
}

fn report(ran: &[Ran], rclcpp: &[(RclcppExecutor, IrobotRun)], mut notes: Vec<String>) -> Part {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "**Services and actions**\n\n| load | placement | executor | CPU, % core | round trip \
         mean, ms | p99 | max | action: to result, mean ms | answered | lost \
         |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in ran {
        let key = format!("{}.{}.{}", r.load.name(), r.placement, r.executor);
        let tally = &r.measured.tally;
        numbers.insert(format!("{key}.cpu_pct_core"), r.measured.cpu_pct_core);
        numbers.insert(format!("{key}.answered"), tally.measured as f64);
        numbers.insert(format!("{key}.lost"), tally.lost as f64);
        if let Some(l) = &tally.latency_ms {
            insert_distribution(&mut numbers, &key, "latency", l);
        }
        if let Some(l) = &tally.result_ms {
            insert_distribution(&mut numbers, &key, "result", l);
        }
        if !r.measured.overload.is_empty() {
            notes.push(format!(
                "{} {} on {} fell behind ({}): not comparable",
                r.load.name(),
                r.placement,
                r.executor,
                r.measured.overload.join("; ")
            ));
        }
        let l = tally.latency_ms.as_ref();
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} |",
            r.load.name(),
            r.placement,
            r.executor,
            r.measured.cpu_pct_core,
            ms(l.map(|l| l.mean)),
            ms(l.map(|l| l.p99)),
            ms(l.map(|l| l.max)),
            ms(tally.result_ms.as_ref().map(|l| l.mean)),
            tally.measured,
            tally.lost,
        );
    }
    for (executor, run) in rclcpp {
        let key = format!("service.one-process.{}", executor.name());
        numbers.insert(format!("{key}.cpu_pct_core"), run.cpu_pct_core);
        numbers.insert(format!("{key}.answered"), run.received as f64);
        numbers.insert(format!("{key}.lost"), run.lost as f64);
        numbers.insert(format!("{key}.latency_mean_ms"), run.mean_ms);
        numbers.insert(format!("{key}.latency_max_ms"), run.max_ms);
        let _ = writeln!(
            table,
            "| service | one-process | {} | {:.2} | {:.3} | - | {:.3} | - | {} | {} |",
            executor.name(),
            run.cpu_pct_core,
            run.mean_ms,
            run.max_ms,
            run.received,
            run.lost,
        );
    }
    table.push('\n');
    let labels: Vec<String> = (ran.iter())
        .map(|r| format!("{} {} {}", r.load.name(), r.placement, r.executor))
        .collect();
    let figures = vec![
        Figure {
            file: "events-round-trips-latency.svg".into(),
            title: "services and actions: mean round trip by placement and executor".into(),
            svg: plot::bars(
                "services and actions: mean round trip (ms)",
                "ms",
                &labels,
                &[(
                    "request to response; goal to acceptance",
                    (ran.iter())
                        .map(|r| r.measured.tally.latency_ms.as_ref().map(|l| l.mean))
                        .collect(),
                )],
                None,
            ),
        },
        Figure {
            file: "events-round-trips-cpu.svg".into(),
            title: "services and actions: CPU by placement and executor".into(),
            svg: plot::bars(
                "services and actions: CPU (% of one core, all processes)",
                "%",
                &labels,
                &[(
                    "CPU",
                    ran.iter().map(|r| Some(r.measured.cpu_pct_core)).collect(),
                )],
                None,
            ),
        },
    ];
    let mut verdict = Vec::new();
    for load in [Load::Service, Load::Action] {
        let fastest = (ran.iter())
            .filter(|r| r.load == load)
            .filter_map(|r| Some((r, r.measured.tally.latency_ms.as_ref()?.mean)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let cheapest = (ran.iter())
            .filter(|r| r.load == load && r.placement != "one-process")
            .min_by(|a, b| a.measured.cpu_pct_core.total_cmp(&b.measured.cpu_pct_core));
        if let (Some((fast, mean)), Some(cheap)) = (fastest, cheapest) {
            verdict.push(format!(
                "{}: fastest round trip {mean:.3} ms ({}, {}); least CPU across processes \
                 {:.2}% ({}, {})",
                load.name(),
                fast.placement,
                fast.executor,
                cheap.measured.cpu_pct_core,
                cheap.placement,
                cheap.executor
            ));
        }
    }
    if let Some(line) = against_rclcpp(ran, rclcpp, &mut numbers) {
        verdict.push(line);
    }
    Part {
        numbers,
        table,
        notes,
        figures,
        verdict,
    }
}

/// tacto's services in one process against rclcpp's: the fastest mean round trip and the
/// least CPU of each side, as ratios (tacto's over rclcpp's); `None` if a side has no run.
fn against_rclcpp(
    ran: &[Ran],
    rclcpp: &[(RclcppExecutor, IrobotRun)],
    numbers: &mut BTreeMap<String, f64>,
) -> Option<String> {
    let ours = || (ran.iter()).filter(|r| r.load == Load::Service && r.placement == "one-process");
    let fastest = (ours())
        .filter_map(|r| Some((r, r.measured.tally.latency_ms.as_ref()?.mean)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let cheapest =
        ours().min_by(|a, b| a.measured.cpu_pct_core.total_cmp(&b.measured.cpu_pct_core))?;
    let their_fastest = (rclcpp.iter()).min_by(|a, b| a.1.mean_ms.total_cmp(&b.1.mean_ms))?;
    let their_cheapest =
        (rclcpp.iter()).min_by(|a, b| a.1.cpu_pct_core.total_cmp(&b.1.cpu_pct_core))?;
    let latency = fastest.1 / their_fastest.1.mean_ms;
    let cpu = cheapest.measured.cpu_pct_core / their_cheapest.1.cpu_pct_core;
    numbers.insert(
        "service.one-process.best_over_rclcpp_best.latency".into(),
        latency,
    );
    numbers.insert("service.one-process.best_over_rclcpp_best.cpu".into(), cpu);
    Some(format!(
        "service in one process against rclcpp: round trip {:.3} ms ({}) against {:.3} ms ({}), \
         {latency:.2}x; CPU {:.2}% ({}) against {:.2}% ({}), {cpu:.2}x",
        fastest.1,
        fastest.0.executor,
        their_fastest.1.mean_ms,
        their_fastest.0.name(),
        cheapest.measured.cpu_pct_core,
        cheapest.executor,
        their_cheapest.1.cpu_pct_core,
        their_cheapest.0.name(),
    ))
}
