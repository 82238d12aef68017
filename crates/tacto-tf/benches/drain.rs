//! What the listener spends on one `/tf` message: taking it into the buffer (decoding it,
//! checking and inserting each transform), as a message that came from another process is
//! taken in.
//!
//! ```sh
//! cargo bench -p tacto-tf --bench drain          # or: ... -- ROUNDS
//! ```
//!
//! A context whose nodes exchange serialized samples (`LocalDelivery::Serialized`, the
//! receiving half of every transport) has a listener that only its drains fill. Each round
//! publishes BATCH messages of the 30 links of a chain, 10 ms apart, then times one drain
//! taking them all in. The buffer holds ten seconds of the chain at 100 Hz first, as a running
//! robot's does. Printed: the best round, per message and per transform.

mod chain;

use std::time::{Duration, Instant};

use tacto::{Context, LocalDelivery, Time};
use tacto_tf::{Listener, ListenerOptions, TransformBroadcaster};

use chain::{FRAMES, links};

const BATCH: usize = 100;
const PERIOD_NANOS: i64 = 10_000_000;

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20);
    let ctx = Context::builder()
        .local_delivery(LocalDelivery::Serialized)
        .create();
    // Only drains of this thread take messages in.
    let options = ListenerOptions {
        tf_rate: BATCH as f64 / 64.0,
        drain_period: Duration::from_secs(64),
        headroom: 1.0,
        ..ListenerOptions::default()
    };
    let listener = Listener::with_options(&ctx, options).unwrap();
    let mut node = ctx.node("broadcaster").unwrap();
    let tf = TransformBroadcaster::new(&mut node).unwrap();
    let mut next = 1_000_000_000;
    let mut send = |count: usize| {
        for _ in 0..count {
            tf.send_all(links(Time::from_nanos(next)));
            next += PERIOD_NANOS;
        }
    };
    // Ten seconds of history.
    for _ in 0..1000 / BATCH {
        send(BATCH);
        listener.drain();
    }
    let best = (0..rounds)
        .map(|_| {
            send(BATCH);
            let start = Instant::now();
            listener.drain();
            start.elapsed()
        })
        .min()
        .unwrap_or_default();
    let stats = listener.stats();
    assert_eq!((stats.dropped, stats.refused), (0, 0), "{stats:?}");
    let per_message = best.as_secs_f64() * 1e6 / BATCH as f64;
    println!(
        "listener drain, {FRAMES} transforms a message, best of {rounds} drains of {BATCH} messages"
    );
    println!("  per message:    {per_message:8.2} us");
    println!(
        "  per transform:  {:8.1} ns",
        per_message * 1e3 / FRAMES as f64
    );
}
