//! Bounded resources: what a context, a node or an executor holds of dropped endpoints.
//!
//! The only test of this file measures the process's resident memory, so it has the test
//! binary to itself: another test running beside it would move the figure.

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Node};

/// Creates and drops `count` nodes, each with a subscription and a publisher on a topic of its
/// own, and as many subscriptions and publishers of `keeper`, a node that lives on.
fn churn(ctx: &Context, keeper: &mut Node, from: usize, count: usize) {
    for i in from..from + count {
        let mut node = ctx.node(&format!("node_{i}")).unwrap();
        let topic = format!("topic_{i}");
        let sub = node.subscription::<Text>(&topic).create().unwrap();
        let publisher = node.publisher::<Text>(&topic).create().unwrap();
        publisher.publish(Text { data: topic });
        assert_eq!(sub.len(), 1);

        let kept = format!("kept_{i}");
        let sub = keeper.subscription::<Text>(&kept).create().unwrap();
        let publisher = keeper.publisher::<Text>(&kept).create().unwrap();
        publisher.publish(Text { data: kept });
        assert_eq!(sub.len(), 1);
    }
}

/// Resident memory, in bytes.
fn rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[test]
fn creating_and_dropping_many_nodes_subscriptions_and_publishers_does_not_grow_memory() {
    const WARM_UP: usize = 10_000;
    const CHURN: usize = 100_000;
    const ALLOWED: usize = 1 << 20;

    let ctx = Context::new();
    let mut keeper = ctx.node("keeper").unwrap();
    // The allocator's pools and the graph's tables reach their working size.
    churn(&ctx, &mut keeper, 0, WARM_UP);
    let before = rss();
    churn(&ctx, &mut keeper, WARM_UP, CHURN);
    let after = rss();

    let grown = after.saturating_sub(before);
    assert!(
        grown < ALLOWED,
        "{CHURN} nodes, {} subscriptions and {} publishers made and dropped: resident memory \
         grew by {grown} bytes ({before} -> {after})",
        2 * CHURN,
        2 * CHURN,
    );
}
