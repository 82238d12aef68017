//! Resident memory while a program keeps making and dropping nodes, subscriptions, publishers
//! and executors on one context: it must not grow.
//!
//! ```sh
//! cargo bench -p tacto --bench churn            # 1,000,000 rounds
//! cargo bench -p tacto --bench churn -- 200000  # another count
//! ```
//!
//! Each round makes a node with a subscription and a publisher on a topic of its own, and a
//! subscription and a publisher on a new topic of a node that lives throughout; one round in
//! 100 also makes an executor whose node has a timer on ROS time. Everything made in a round is
//! dropped by its end. RSS (`VmRSS`) is printed after a warm-up of a tenth of the rounds, then
//! every tenth; the last line is the growth since the warm-up.

use std::time::{Duration, Instant};

use tacto::msg::std_msgs::String as Text;
use tacto::{ClockKind, Context, Executor, Node, Trigger, WaitSetExecutor};

fn round(ctx: &Context, keeper: &mut Node, i: usize) {
    let mut node = ctx.node(&format!("node_{i}")).expect("node");
    let topic = format!("topic_{i}");
    let sub = node.subscription::<Text>(&topic).create().expect("sub");
    let publisher = node.publisher::<Text>(&topic).create().expect("pub");
    publisher.publish(Text { data: topic });
    assert_eq!(sub.len(), 1);

    let kept = format!("kept_{i}");
    let sub = keeper.subscription::<Text>(&kept).create().expect("sub");
    let publisher = keeper.publisher::<Text>(&kept).create().expect("pub");
    publisher.publish(Text { data: kept });
    assert_eq!(sub.len(), 1);

    if i % 100 == 0 {
        let trigger = Trigger::every(Duration::from_secs(1)).clock(ClockKind::Ros);
        node.execute(trigger, |_| {}).expect("timer");
        let mut executor = WaitSetExecutor::new().expect("executor");
        executor.add(node).expect("add");
    }
}

/// Resident memory, in kB.
fn rss_kb() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:"));
    let kb = line.and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
    kb.expect("VmRSS")
}

fn main() {
    // `cargo bench` passes `--bench`; the first other argument is the count.
    let rounds = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(|a| a.parse().expect("a round count"))
        .unwrap_or(1_000_000);
    let ctx = Context::new();
    ctx.use_sim_time().expect("/clock");
    let mut keeper = ctx.node("keeper").expect("node");
    let tenth = (rounds / 10).max(1);
    let start = Instant::now();
    println!("start: {} kB", rss_kb());
    (0..tenth).for_each(|i| round(&ctx, &mut keeper, i));
    let warm = rss_kb();
    println!("after {tenth} warm-up rounds: {warm} kB");
    for step in 1..=10 {
        (tenth * step..tenth * (step + 1)).for_each(|i| round(&ctx, &mut keeper, i));
        println!("after {} more rounds: {} kB", tenth * step, rss_kb());
    }
    let end = rss_kb();
    println!(
        "{} rounds in {:.1} s: RSS {warm} kB -> {end} kB, {:+} kB",
        tenth * 10,
        start.elapsed().as_secs_f64(),
        end as i64 - warm as i64,
    );
}
