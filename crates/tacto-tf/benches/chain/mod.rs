//! The `/tf` message the listener benchmarks broadcast: a chain `map → f0 → … → f29`, each
//! link 0.1 m along x.

use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;

/// Links in a message.
pub const FRAMES: usize = 30;

/// The `i`th frame of the chain: `map`, then `f0`, `f1`, ….
pub fn frame(i: usize) -> String {
    if i == 0 {
        "map".into()
    } else {
        format!("f{}", i - 1)
    }
}

/// A message's links, stamped `stamp`.
pub fn links(stamp: Time) -> Vec<TransformStamped> {
    (0..FRAMES)
        .map(|i| {
            let mut t = TransformStamped::default();
            t.header.frame_id = frame(i);
            t.header.stamp = stamp.into();
            t.child_frame_id = frame(i + 1);
            t.transform.translation.x = 0.1;
            t
        })
        .collect()
}
