//! The pure data path, for instruction counts: publish one `std_msgs/Empty` and `take_all` it,
//! on one thread, no executor, N times (default 200000). Time it with the `delivery` bench;
//! count its instructions, which do not depend on the machine's load, with callgrind, as the
//! difference of two runs (so that start-up cancels out):
//!
//! ```sh
//! cargo bench -p tacto --bench data_path --no-run
//! for n in 100000 200000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/tmp/dp-$n.out \
//!     target/release/deps/data_path-<hash> $n 2>&1 | grep Collected
//! done
//! ```

use std::hint::black_box;

use tacto::msg::std_msgs::Empty;
use tacto::{Context, History};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200_000);
    let ctx = Context::new();
    let mut node = ctx.node("alone").expect("node");
    let sub = node
        .subscription::<Empty>("data_path")
        .history(History::KeepLast(1024))
        .create()
        .expect("subscription");
    let publisher = node
        .publisher::<Empty>("data_path")
        .create()
        .expect("publisher");
    let mut taken = 0;
    for _ in 0..n {
        publisher.publish(Empty::default());
        taken += sub.take_all().map(black_box).count() as u64;
    }
    assert_eq!(taken, n, "every message taken");
}
