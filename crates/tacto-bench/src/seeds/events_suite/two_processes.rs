//! Pub/sub by payload in two processes: the one-process part's publisher (every 10 ms) and
//! subscriber, each in a process of its own, over shared memory and over DDS, on every executor
//! a launch file can place them on: CPU of both processes, and latency (mean, p99, max) and
//! lost messages at the subscriber.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::one_process::PAYLOADS;
use super::placed::{self, Case, CaseError, Load, PUBLISH_PERIOD_MS, Transport};
use super::{Part, PartRan, insert_distribution, ms, placed_executors};
use crate::seeds::isolation::Network;
use crate::seeds::{Figure, Scale, plot};
use tacto_launch::executors::ExecutorKind;
use tacto_launch::interrupt::Interrupt;

/// The quick run's payloads: the smallest and a middle one (a debug build moves 4 MiB at
/// 100 Hz too slowly to say anything).
const QUICK_PAYLOADS: [usize; 2] = [0, 4];

/// One case that ran.
struct Ran {
    transport: Transport,
    executor: ExecutorKind,
    bytes: u64,
    measured: placed::Measured,
}

/// Runs every payload on every placeable executor over each transport; DDS only where a
/// network namespace can be made.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> PartRan {
    let warmup = Duration::from_secs_f64(scale.pick(2.0, 0.5));
    let duration = Duration::from_secs_f64(scale.pick(10.0, 1.0));
    let payloads: Vec<(&'static str, u64)> = match scale.quick {
        true => QUICK_PAYLOADS.iter().map(|&i| PAYLOADS[i]).collect(),
        false => PAYLOADS.to_vec(),
    };
    let executors = placed_executors(scale);
    let mut notes = vec![format!(
        "Pub/sub in two processes: the publisher (every {PUBLISH_PERIOD_MS} ms) and the \
         subscriber of the one-process part, each in a process of its own placed by a launch \
         file, measured as `tacto bench FILE.toml` measures one: {} s after {} s of warm-up. \
         CPU is both processes'. Over DDS each run is in a network namespace of its own; \
         shared memory has `[shm] max_publishers = 2, max_subscribers = 2, max_depth = 10, \
         max_held = 2`. `prioritized` is not in the table: a launch file gives a process one \
         executor, and prioritized is a layout of several threads.",
        duration.as_secs_f64(),
        warmup.as_secs_f64()
    )];
    let mut transports = vec![Transport::Shm];
    match Network::here().refused() {
        None => {
            transports.push(Transport::Dds);
            notes.push(
                "UDP drops (DDS): datagrams the kernel dropped in the run's network namespace \
                 because a socket's receive buffer was full, from the first measured message \
                 on; each one the reliable protocol has to repair, and a message whose repair \
                 comes after 10 newer ones (the writer's KEEP_LAST depth) is lost."
                    .into(),
            );
        }
        Some(reason) => notes.push(format!("pub/sub over DDS: skipped: {reason}")),
    }
    let total = transports.len() * payloads.len() * executors.len();
    let mut ran = Vec::new();
    for &transport in &transports {
        for &(msg_type, bytes) in &payloads {
            for &executor in &executors {
                eprintln!(
                    "  [{}/{total}] {msg_type} over {} on {executor}",
                    ran.len() + 1,
                    transport.name()
                );
                let case = Case {
                    load: Load::PubSub(msg_type),
                    executor,
                    transport,
                    processes: 2,
                    warmup,
                    duration,
                };
                match placed::run(&case, interrupt) {
                    Ok(measured) => ran.push(Ran {
                        transport,
                        executor,
                        bytes,
                        measured,
                    }),
                    Err(CaseError::Interrupted) => return PartRan::Interrupted,
                    Err(CaseError::Failed(reason)) => notes.push(format!(
                        "pub/sub in two processes: failed: {msg_type} over {} on {executor}: \
                         {reason}",
                        transport.name()
                    )),
                }
            }
        }
    }
    PartRan::Part(report(&ran, &transports, notes))
}

fn report(ran: &[Ran], transports: &[Transport], mut notes: Vec<String>) -> Part {
    let mut numbers = BTreeMap::new();
    let mut table = String::from(
        "**Pub/sub in two processes**\n\n| transport | payload | executor | CPU, % core (both) \
         | latency mean, ms | p99 | max | lost | UDP drops |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in ran {
        let key = format!("{}.{}.{}", r.transport.name(), r.executor, r.bytes);
        let tally = &r.measured.tally;
        numbers.insert(format!("{key}.cpu_pct_core"), r.measured.cpu_pct_core);
        numbers.insert(format!("{key}.lost"), tally.lost as f64);
        if let Some(drops) = tally.udp_drops {
            numbers.insert(format!("{key}.udp_drops"), drops as f64);
        }
        if let Some(l) = &tally.latency_ms {
            insert_distribution(&mut numbers, &key, "latency", l);
        }
        if !r.measured.overload.is_empty() {
            notes.push(format!(
                "{} B over {} on {} fell behind ({}): not comparable",
                r.bytes,
                r.transport.name(),
                r.executor,
                r.measured.overload.join("; ")
            ));
        }
        let l = tally.latency_ms.as_ref();
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2} | {} | {} | {} | {} | {} |",
            r.transport.name(),
            crate::payload::bytes(r.bytes as usize),
            r.executor,
            r.measured.cpu_pct_core,
            ms(l.map(|l| l.mean)),
            ms(l.map(|l| l.p99)),
            ms(l.map(|l| l.max)),
            tally.lost,
            tally
                .udp_drops
                .map_or_else(|| "-".to_owned(), |n| n.to_string())
        );
    }
    table.push('\n');
    let mut figures = Vec::new();
    let mut verdict = Vec::new();
    for &transport in transports {
        let of = |transport: Transport, pick: &dyn Fn(&Ran) -> Option<f64>| {
            let mut executors: Vec<ExecutorKind> = (ran.iter())
                .filter(|r| r.transport == transport)
                .map(|r| r.executor)
                .collect();
            executors.dedup();
            (executors.into_iter())
                .map(|executor| {
                    let points = (ran.iter())
                        .filter(|r| r.transport == transport && r.executor == executor)
                        .filter_map(|r| Some((r.bytes as f64, pick(r)?)))
                        .collect();
                    (executor.name().to_owned(), points)
                })
                .collect::<Vec<(String, Vec<(f64, f64)>)>>()
        };
        let name = transport.name();
        figures.push(Figure {
            file: format!("events-pubsub-{name}-cpu.svg"),
            title: format!("pub/sub in two processes over {name}: CPU by payload and executor"),
            svg: plot::lines(
                &format!("pub/sub, two processes, {name}: CPU (% of one core) by payload"),
                "payload",
                "%",
                &of(transport, &|r| Some(r.measured.cpu_pct_core)),
            ),
        });
        figures.push(Figure {
            file: format!("events-pubsub-{name}-latency.svg"),
            title: format!(
                "pub/sub in two processes over {name}: mean latency by payload and executor"
            ),
            svg: plot::lines(
                &format!("pub/sub, two processes, {name}: mean latency (ms) by payload"),
                "payload",
                "ms",
                &of(transport, &|r| {
                    r.measured.tally.latency_ms.as_ref().map(|l| l.mean)
                }),
            ),
        });
        let cheapest = (ran.iter())
            .filter(|r| r.transport == transport)
            .min_by(|a, b| a.measured.cpu_pct_core.total_cmp(&b.measured.cpu_pct_core));
        let dearest = (ran.iter())
            .filter(|r| r.transport == transport)
            .max_by(|a, b| a.measured.cpu_pct_core.total_cmp(&b.measured.cpu_pct_core));
        if let (Some(lo), Some(hi)) = (cheapest, dearest) {
            verdict.push(format!(
                "pub/sub in two processes over {name}: {:.2}% ({}, {}) to {:.2}% of a core \
                 ({}, {})",
                lo.measured.cpu_pct_core,
                lo.executor,
                crate::payload::bytes(lo.bytes as usize),
                hi.measured.cpu_pct_core,
                hi.executor,
                crate::payload::bytes(hi.bytes as usize),
            ));
        }
    }
    Part {
        numbers,
        table,
        notes,
        figures,
        verdict,
    }
}
