//! The buffer's bounds and sharing: what it keeps, refuses and drops, and lookups from many
//! threads while transforms arrive.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use common::{from_sec, transform};
use tacto::Time;
use tacto_tf::{Buffer, BufferLimits, BufferStats, ErrorKind, RejectReason};

fn limits(cache_time: Duration, max_frames: usize, max_samples_per_frame: usize) -> BufferLimits {
    BufferLimits {
        cache_time,
        max_frames,
        max_samples_per_frame,
    }
}

#[test]
fn new_frames_past_the_bound_are_refused_and_counted_and_known_ones_still_update() {
    let buffer = Buffer::with_limits(limits(Duration::from_secs(10), 3, 100));
    let set = |parent: &str, child: &str, sec: f64| {
        buffer.set_transform(
            &transform(parent, child, from_sec(sec), 0.0, 0.0, 0.0),
            "me",
            false,
        )
    };
    assert!(set("a", "b", 1.0).is_ok());
    assert!(set("b", "c", 1.0).is_ok());
    assert_eq!(
        set("c", "d", 1.0).unwrap_err().reason(),
        RejectReason::FrameLimit
    );
    assert_eq!(
        set("e", "a", 1.0).unwrap_err().reason(),
        RejectReason::FrameLimit
    );
    assert!(set("b", "c", 2.0).is_ok());
    // A known frame may take a known parent.
    assert!(set("a", "c", 3.0).is_ok());
    assert!(!buffer.frame_exists("d"));
    assert_eq!(
        buffer.stats(),
        BufferStats {
            frames: 3,
            refused_transforms: 2,
            evicted_samples: 0
        }
    );
}

#[test]
fn a_frame_keeps_its_newest_samples_within_the_count_bound() {
    let buffer = Buffer::with_limits(limits(Duration::from_secs(10), 100, 5));
    for i in 1..=8 {
        let t = transform(
            "map",
            "robot",
            from_sec(f64::from(i)),
            f64::from(i),
            0.0,
            0.0,
        );
        buffer.set_transform(&t, "me", false).unwrap();
    }
    assert_eq!(buffer.stats().evicted_samples, 3);
    let err = buffer
        .lookup_transform("map", "robot", from_sec(3.5))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackwardExtrapolation);
    let out = buffer
        .lookup_transform("map", "robot", from_sec(4.5))
        .unwrap();
    assert_eq!(out.transform.translation.x, 4.5);
}

#[test]
fn samples_older_than_the_cache_time_are_pruned_and_refused() {
    let buffer = Buffer::with_limits(limits(Duration::from_secs(1), 100, 1000));
    for i in 0..=30 {
        let t = transform("map", "robot", from_sec(f64::from(i) * 0.1), 0.0, 0.0, 0.0);
        buffer.set_transform(&t, "me", false).unwrap();
    }
    // Pruned as tf2 prunes: on insertion, against the latest stamp before it (2.9 s).
    let err = buffer
        .lookup_transform("map", "robot", from_sec(1.85))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackwardExtrapolation);
    assert!(
        buffer
            .lookup_transform("map", "robot", from_sec(1.95))
            .is_ok()
    );
    let old = transform("map", "robot", from_sec(1.5), 0.0, 0.0, 0.0);
    let err = buffer.set_transform(&old, "me", false).unwrap_err();
    assert_eq!(err.reason(), RejectReason::OldData);
}

#[test]
fn a_static_transform_never_expires_and_survives_clear() {
    let buffer = Buffer::with_limits(limits(Duration::from_secs(1), 100, 1000));
    let t = transform("base", "laser", from_sec(1.0), 0.0, 0.0, 0.3);
    buffer.set_transform(&t, "me", true).unwrap();
    buffer.clear();
    for time in [Time::ZERO, from_sec(0.5), from_sec(1_000_000.0)] {
        let out = buffer.lookup_transform("base", "laser", time).unwrap();
        assert_eq!(out.transform.translation.z, 0.3);
        assert_eq!(Time::from(out.header.stamp), time);
    }
    // Turned timed again, it answers only at its stamps.
    buffer.set_transform(&t, "me", false).unwrap();
    assert!(
        buffer
            .lookup_transform("base", "laser", from_sec(0.5))
            .is_err()
    );
}

#[test]
fn lookups_from_many_threads_see_whole_samples_while_transforms_arrive() {
    let buffer = Arc::new(Buffer::new());
    let first = transform("map", "robot", from_sec(1.0), 1.0, 0.0, 0.0);
    buffer.set_transform(&first, "me", false).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (buffer, done) = (Arc::clone(&buffer), Arc::clone(&done));
            thread::spawn(move || {
                let mut lookups = 0u32;
                while !done.load(Ordering::Relaxed) || lookups == 0 {
                    let out = buffer.lookup_transform("map", "robot", Time::ZERO).unwrap();
                    // Each sample's x is its stamp in seconds: a torn read would break it.
                    let stamp = Time::from(out.header.stamp).as_nanos() as f64 / 1e9;
                    assert!((out.transform.translation.x - stamp).abs() < 1e-9);
                    lookups += 1;
                }
                lookups
            })
        })
        .collect();
    for i in 2..2000 {
        let sec = f64::from(i) * 0.001 + 1.0;
        let t = transform("map", "robot", from_sec(sec), sec, 0.0, 0.0);
        buffer.set_transform(&t, "me", false).unwrap();
    }
    done.store(true, Ordering::Relaxed);
    for reader in readers {
        assert!(reader.join().unwrap() > 0);
    }
}
