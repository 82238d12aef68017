//! Graph commands see what is there on the first try: each run of the `tacto` binary is a new
//! DDS participant that must wait until discovery has settled (see `tacto_dds::discovery`),
//! against Fast DDS peers (rclpy's default RMW, the PyPI wheels) whose endpoints and node
//! names Cyclone often gets only at Fast DDS's next heartbeat. Every run must list the node;
//! none is retried. DDS domains 206 to 208.
//!
//! The time each run takes is printed (`--nocapture`), not asserted: docs/cli.md gives the
//! measurement.

mod support;

use std::process::Output;
use std::time::{Duration, Instant};

use support::dds::{PATIENCE, RclpyNode, loopback_participant};
use support::{tacto, text};
use tacto::Context;
use tacto_dds::DdsTransport;

/// The rclpy scripts of tacto-dds' tests, relative to this crate's tests/ folder.
const RCLPY: &str = "../../tacto-dds/tests/rclpy";

/// Runs of `tacto node list` against one peer.
const RUNS: usize = 20;

/// Runs `tacto node list` until it lists `node` once, however long the peer takes to start:
/// the runs that count start after this.
fn wait_for_peer(domain: u32, node: &str, peer: &RclpyNode) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let output = tacto(domain, &["node", "list"])
            .output()
            .expect("the tacto binary runs");
        if text(&output.stdout).lines().any(|l| l == node) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{node} never appeared: {}\nrclpy: {}",
            text(&output.stderr),
            peer.stderr()
        );
    }
}

/// `RUNS` runs of `tacto node list`, each required to list every one of `nodes`; prints their
/// times.
fn every_run_lists(domain: u32, nodes: &[&str], peer: &RclpyNode) {
    let mut times = Vec::with_capacity(RUNS);
    for run in 1..=RUNS {
        let start = Instant::now();
        let output: Output = tacto(domain, &["node", "list"])
            .output()
            .expect("the tacto binary runs");
        times.push(start.elapsed());
        let stdout = text(&output.stdout);
        let listed = |node: &&str| stdout.lines().any(|l| l == *node);
        assert!(
            output.status.success() && nodes.iter().all(listed),
            "run {run} of {RUNS} did not list {nodes:?}: stdout {stdout:?}, stderr {:?}\n\
             rclpy: {}",
            text(&output.stderr),
            peer.stderr()
        );
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "tacto node list listing {nodes:?}, {RUNS} runs: median {:.0} ms, max {:.0} ms",
        ms(times[RUNS / 2]),
        ms(times[RUNS - 1])
    );
}

#[test]
fn node_list_shows_a_fast_dds_rclpy_node_and_a_tacto_node_on_every_first_try() {
    const DOMAIN: u32 = 206;
    // A Cyclone peer beside the Fast DDS one: a tacto node of this process.
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("tacto_first_try").expect("a node");
    let _publisher = (node.publisher::<tacto::msg::std_msgs::String>("first_try"))
        .create()
        .expect("a publisher");
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/first_try", "x"]);
    wait_for_peer(DOMAIN, "/rclpy_talker", &talker);
    every_run_lists(DOMAIN, &["/rclpy_talker", "/tacto_first_try"], &talker);
}

#[test]
fn a_tacto_process_with_no_node_yet_does_not_hold_the_graph_up() {
    const DOMAIN: u32 = 207;
    // A participant that announces no node (its transport made, no endpoint yet): the graph
    // settles without waiting for names it will never give.
    let _idle = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let talker = RclpyNode::spawn_in(RCLPY, "talker.py", DOMAIN, &["/first_try_idle", "x"]);
    wait_for_peer(DOMAIN, "/rclpy_talker", &talker);
    let output = tacto(DOMAIN, &["node", "list", "--wait-s", "30"])
        .output()
        .expect("the tacto binary runs");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(stdout, "/rclpy_talker\n", "{stderr}");
    assert!(!stderr.contains("not settled"), "{stderr}");
}

#[test]
fn an_empty_graph_is_reported_once_discovery_has_settled() {
    const DOMAIN: u32 = 208;
    let output = tacto(DOMAIN, &["node", "list", "--wait-s", "30"])
        .output()
        .expect("the tacto binary runs");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "");
    assert!(stderr.starts_with("no nodes after "), "{stderr}");
    assert!(!stderr.contains("not settled"), "{stderr}");
}
