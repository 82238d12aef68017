//! Flat messages over DDS between two tacto processes (this test binary re-run as the
//! listener): a 2 MiB flat message, sent as CDR, reaches a flat subscription intact, whether
//! its publisher's type is flat or not. The listener decodes on a thread with a 256 KiB
//! stack, so the message is never built on one. Domains 202 and 203.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use support::{PATIENCE, ROLE, RclpyNode, loopback_participant};
use tacto::{Context, FlatString, Publisher};
use tacto_dds::DdsTransport;

const PIXELS: usize = 2 << 20;

#[tacto::message("tacto_test/msg/Frame", flat)]
#[derive(Clone, Copy)]
struct Frame {
    stamp: u64,
    label: FlatString<16>,
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    pixels: [u8; PIXELS],
}

/// The same ROS type as a type that is not flat: the same CDR.
#[tacto::message("tacto_test/msg/Frame")]
struct FrameOnHeap {
    stamp: u64,
    label: String,
    #[serde(serialize_with = "as_array", skip_deserializing)]
    pixels: Vec<u8>,
}

/// `pixels` as the CDR of `uint8[PIXELS]`: the bytes, no length.
fn as_array<S: serde::Serializer>(pixels: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeTuple;
    let mut tuple = serializer.serialize_tuple(pixels.len())?;
    for pixel in pixels {
        tuple.serialize_element(pixel)?;
    }
    tuple.end()
}

/// Byte i of frame n: no short period, so a shifted or truncated payload shows.
fn pattern(n: u64) -> Vec<u8> {
    (0..PIXELS as u64)
        .map(|i| ((i * 7 + (i >> 10) + n) & 0xFF) as u8)
        .collect()
}

fn label(n: u64) -> String {
    format!("frame {n}")
}

fn dds_context(domain: u32) -> Context {
    Context::builder()
        .transport(DdsTransport::new(loopback_participant(domain)))
        .create()
}

#[test]
fn a_2_mib_flat_message_crosses_dds_to_a_flat_subscription() {
    const TEST: &str = "a_2_mib_flat_message_crosses_dds_to_a_flat_subscription";
    const DOMAIN: u32 = 202;
    if std::env::var(ROLE).is_ok() {
        return listen(DOMAIN);
    }
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("flat_talker").unwrap();
    let publisher = node.publisher::<Frame>("flat_frames").create().unwrap();
    talk_until_intact(TEST, &publisher, |n| {
        let mut frame: Box<Frame> = tacto::flat::zeroed_box();
        frame.stamp = n;
        frame.label.set(&label(n)).unwrap();
        frame.pixels.copy_from_slice(&pattern(n));
        publisher.publish_shared(Arc::from(frame));
    });
}

#[test]
fn a_flat_subscription_receives_from_a_publisher_that_is_not_flat_over_dds() {
    const TEST: &str = "a_flat_subscription_receives_from_a_publisher_that_is_not_flat_over_dds";
    const DOMAIN: u32 = 203;
    if std::env::var(ROLE).is_ok() {
        return listen(DOMAIN);
    }
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("heap_talker").unwrap();
    let publisher = node
        .publisher::<FrameOnHeap>("flat_frames")
        .create()
        .unwrap();
    talk_until_intact(TEST, &publisher, |n| {
        publisher.publish(FrameOnHeap {
            stamp: n,
            label: label(n),
            pixels: pattern(n),
        });
    });
}

/// Starts the listener and publishes frame 0, 1, ... with `publish` (volatile: the listener
/// may miss the first) until it reports two intact, failing at any it reports otherwise.
fn talk_until_intact<T: tacto::Message>(
    test: &str,
    publisher: &Publisher<T>,
    mut publish: impl FnMut(u64),
) {
    let mut listener = RclpyNode::this_test(test, "listener", &[]);
    let deadline = Instant::now() + PATIENCE;
    let mut intact = 0;
    let mut n = 0;
    while intact < 2 {
        publish(n);
        n += 1;
        while let Some(line) = listener.next_line(Instant::now() + Duration::from_millis(200)) {
            match line.strip_prefix("intact ") {
                Some(_) => intact += 1,
                None => assert!(!line.starts_with("differs"), "{line}"),
            }
        }
        assert!(listener.exited().is_none(), "{}", listener.stderr());
        assert!(
            Instant::now() < deadline,
            "{intact} intact of {n} sent:\n{}",
            listener.stderr()
        );
    }
    assert_eq!(publisher.encode_errors(), 0);
}

/// The listener's side: a flat subscription, taken from on a 256 KiB stack; each frame is
/// compared with the one of its number ("intact n" or "differs n: ..."), malformed samples
/// reported too.
fn listen(domain: u32) {
    let listener = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let ctx = dds_context(domain);
            let mut node = ctx.node("flat_listener").unwrap();
            let sub = node.subscription::<Frame>("flat_frames").create().unwrap();
            let deadline = Instant::now() + PATIENCE;
            while Instant::now() < deadline {
                let Some(frame) = sub.take() else {
                    assert_eq!(sub.malformed(), 0, "differs: a malformed sample");
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                let n = frame.stamp;
                match frame.label.as_str() == Ok(&label(n)) && frame.pixels[..] == pattern(n)[..] {
                    true => println!("intact {n}"),
                    false => println!("differs {n}: {:?}", frame.label),
                }
            }
        })
        .unwrap();
    if let Err(panic) = listener.join() {
        std::panic::resume_unwind(panic);
    }
}
