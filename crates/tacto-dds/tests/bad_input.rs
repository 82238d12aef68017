//! Malformed CDR from the wire, written by a raw DDS writer (`tacto_dds::Writer::write_cdr`,
//! any bytes) to a tacto subscription in another process: counted as malformed, logged once,
//! no panic, no allocation of what a length prefix claims, and the next good sample reads.
//! Domain 166.

mod support;

use std::time::{Duration, Instant};

use support::{PATIENCE, ROLE, RclpyNode, loopback_participant};
use tacto::{Context, History};
use tacto_dds::{DdsTransport, Qos, Writer};
use tacto_msgs::std_msgs::msg::{MultiArrayDimension, MultiArrayLayout, UInt8MultiArray};

const DOMAIN: u32 = 166;
const TOPIC: &str = "tacto_malformed";
const CDR_LE: [u8; 4] = [0, 1, 0, 0];

/// A good sample, named by its only dimension's label.
fn labelled(label: &str) -> UInt8MultiArray {
    UInt8MultiArray {
        layout: MultiArrayLayout {
            dim: vec![MultiArrayDimension {
                label: label.into(),
                size: 3,
                stride: 3,
            }],
            data_offset: 0,
        },
        data: vec![1, 2, 3],
    }
}

/// Little-endian CDR: the encapsulation header, then `words`, then `tail`.
fn cdr(words: &[u32], tail: &[u8]) -> Vec<u8> {
    let mut bytes = CDR_LE.to_vec();
    words.iter().for_each(|w| bytes.extend(w.to_le_bytes()));
    bytes.extend(tail);
    bytes
}

/// The malformed samples, by what is wrong with them.
fn malformed() -> Vec<(&'static str, Vec<u8>)> {
    let good = tacto::cdr::to_vec(&labelled("cut")).unwrap();
    vec![
        // Cut by 8 bytes: Cyclone pads a sample to a multiple of 4 with zeros, so a sample
        // cut by 2 arrives whole again (and decodes, with zeros for the bytes cut).
        ("truncated", good[..good.len() - 8].to_vec()),
        // One dimension whose label claims 1000 bytes; 2 follow.
        ("string length past the end", cdr(&[1, 1000], b"ab")),
        // No dimension, data_offset 0, then 4 G - 1 bytes of data claimed; 4 follow.
        (
            "byte sequence of 4 G",
            cdr(&[0, 0, u32::MAX], &[1, 2, 3, 4]),
        ),
        // 4 G - 1 dimensions (structs with a string each) claimed; 8 bytes follow.
        ("struct sequence of 4 G", cdr(&[u32::MAX], &[0; 8])),
        ("header only", CDR_LE.to_vec()),
    ]
}

#[test]
fn malformed_cdr_from_the_wire_is_counted_logged_once_and_skipped() {
    const TEST: &str = "malformed_cdr_from_the_wire_is_counted_logged_once_and_skipped";
    if std::env::var(ROLE).as_deref() == Ok("subscriber") {
        return subscribe();
    }
    let participant = loopback_participant(DOMAIN);
    let writer = Writer::<UInt8MultiArray>::new(&participant, TOPIC, Qos::default()).unwrap();
    let mut subscriber = RclpyNode::this_test(TEST, "subscriber", &[]);

    // Volatile: write a good "hello" until the subscriber took one, then everything else,
    // reliably and in order, from this one writer.
    let hello = tacto::cdr::to_vec(&labelled("hello")).unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        writer.write_cdr(&hello).unwrap();
        let line = subscriber.next_line(Instant::now() + Duration::from_millis(100));
        if line.as_deref() == Some("taken hello") {
            break;
        }
        assert!(subscriber.exited().is_none(), "{}", subscriber.stderr());
        assert!(
            Instant::now() < deadline,
            "no hello:\n{}",
            subscriber.stderr()
        );
    }
    let bad = malformed();
    for (_, bytes) in &bad {
        writer.write_cdr(bytes).unwrap();
    }
    writer.write(&labelled("after")).unwrap();

    let mut lines = Vec::new();
    while let Some(line) = subscriber.next_line(deadline) {
        if line.starts_with("taken") || line.starts_with("malformed") {
            lines.push(line);
        }
        if lines.last().is_some_and(|l| l.starts_with("malformed")) {
            break;
        }
    }
    let status = (0..600)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(100));
            subscriber.exited()
        })
        .expect("the subscriber exits");
    // Read to the end only now: the log line may still be in the pipe when it exits.
    let stderr = subscriber.stderr_to_end();
    assert!(
        status.success(),
        "the subscriber failed ({status}):\n{stderr}"
    );
    // Only hellos sent before it got the first may follow it; then the good one after.
    let after: Vec<&String> = lines.iter().filter(|l| *l != "taken hello").collect();
    assert_eq!(
        after,
        ["taken after", &format!("malformed {}", bad.len())],
        "{stderr}"
    );
    let logged = stderr.matches("tacto: a malformed sample on topic").count();
    assert_eq!(logged, 1, "logged once per topic:\n{stderr}");
    assert!(stderr.contains(TOPIC), "{stderr}");
}

/// The subscriber's side: takes until "after", printing each label, then the malformed count.
fn subscribe() {
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut node = ctx.node("tacto_malformed_reader").unwrap();
    let mut subscription = || {
        (node.subscription::<UInt8MultiArray>(TOPIC))
            .history(History::KeepAll { max: 10_000 })
            .create()
            .unwrap()
    };
    // Two subscriptions of the topic, both reading the garbage: one log line for the topic.
    let (sub, second) = (subscription(), subscription());
    let deadline = Instant::now() + PATIENCE;
    loop {
        while let Some(sample) = sub.take() {
            let label = &sample.layout.dim[0].label;
            println!("taken {label}");
            if label == "after" {
                assert_eq!(*sample, labelled("after"));
                while second
                    .take()
                    .is_none_or(|s| s.layout.dim[0].label != "after")
                {
                    assert!(Instant::now() < deadline, "the second never got \"after\"");
                }
                assert_eq!(second.malformed(), sub.malformed(), "both counted them");
                println!("malformed {}", sub.malformed());
                return;
            }
        }
        assert!(Instant::now() < deadline, "no sample \"after\"");
        std::thread::sleep(Duration::from_millis(10));
    }
}
