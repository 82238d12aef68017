//! Nested and large generated messages between a tacto `Context` on DDS and real rclpy nodes
//! (Fast DDS), both ways, every field compared: `geometry_msgs/PoseStamped`, a 1 MiB
//! `sensor_msgs/PointCloud2` and a 2 MiB `sensor_msgs/Image`. Message n is built by the same
//! recipe here and in `tests/rclpy/big.py`, with n in `header.stamp.sec`. Domains 160 to 165;
//! and a message of several large buffers, tacto to a raw reader in another process, byte for
//! byte, domain 197.

mod support;

use std::fmt::Debug;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::{PATIENCE, ROLE, RclpyNode, loopback_participant};
use tacto::{Context, Executor, History, Message, Trigger, WaitSetExecutor};
use tacto_dds::{DdsTransport, Qos, Reader};
use tacto_msgs::builtin_interfaces::msg::Time;
use tacto_msgs::geometry_msgs::msg::{Point, Pose, PoseStamped, Quaternion};
use tacto_msgs::sensor_msgs::msg::{Image, PointCloud2, PointField};
use tacto_msgs::std_msgs::msg::Header;

fn dds_context(domain: u32) -> Context {
    Context::builder()
        .transport(DdsTransport::new(loopback_participant(domain)))
        .create()
}

/// Byte i is (7 i + i / 1024 + n) mod 256: no short period, so a shifted or truncated payload
/// shows.
fn pattern(size: usize, n: i32) -> Vec<u8> {
    (0..size as u64)
        .map(|i| ((i * 7 + (i >> 10) + n as u64) & 0xFF) as u8)
        .collect()
}

fn header(kind: &str, n: i32, nanosec: u32) -> Header {
    Header {
        stamp: Time { sec: n, nanosec },
        frame_id: format!("{kind} {n}"),
    }
}

fn pose(n: i32) -> PoseStamped {
    PoseStamped {
        header: header("pose", n, 1000 * n as u32 + 7),
        pose: Pose {
            position: Point {
                x: f64::from(n) + 0.5,
                y: -1.25,
                z: 3e10,
            },
            orientation: Quaternion {
                x: 0.125,
                y: -0.25,
                z: 0.5,
                w: 0.8125,
            },
        },
    }
}

fn cloud(n: i32) -> PointCloud2 {
    let fields = ["x", "y", "z", "intensity"].iter().zip(0..);
    PointCloud2 {
        header: header("cloud", n, 1),
        height: 1,
        width: 65536,
        fields: fields
            .map(|(name, k)| PointField {
                name: (*name).into(),
                offset: 4 * k,
                datatype: PointField::FLOAT32,
                count: 1,
            })
            .collect(),
        is_bigendian: false,
        point_step: 16,
        row_step: 16 * 65536,
        data: pattern(16 * 65536, n),
        is_dense: n % 2 == 0,
    }
}

fn image(n: i32) -> Image {
    Image {
        header: header("image", n, 2),
        height: 1024,
        width: 1024,
        encoding: "mono16".into(),
        is_bigendian: 0,
        step: 2048,
        data: pattern(2048 * 1024, n),
    }
}

/// One kind of message of `big.py`: its name there, its recipe, where n is in a message.
struct Kind<T> {
    name: &'static str,
    expected: fn(i32) -> T,
    number: fn(&T) -> i32,
}

const POSE: Kind<PoseStamped> = Kind {
    name: "pose",
    expected: pose,
    number: |m| m.header.stamp.sec,
};
const CLOUD: Kind<PointCloud2> = Kind {
    name: "cloud",
    expected: cloud,
    number: |m| m.header.stamp.sec,
};
const IMAGE: Kind<Image> = Kind {
    name: "image",
    expected: image,
    number: |m| m.header.stamp.sec,
};

/// Where two messages differ first, in their `Debug` text (a 2 MiB message is not printed).
fn first_difference<T: Debug>(got: &T, want: &T) -> String {
    let (got, want) = (format!("{got:?}"), format!("{want:?}"));
    let at = (got.bytes().zip(want.bytes()))
        .position(|(g, w)| g != w)
        .unwrap_or(got.len().min(want.len()));
    let around = |text: &str| {
        let end = (at + 60).min(text.len());
        String::from_utf8_lossy(&text.as_bytes()[at.saturating_sub(60)..end]).into_owned()
    };
    format!(
        "at character {at}: got …{}… want …{}…",
        around(&got),
        around(&want)
    )
}

fn check<T: Message + PartialEq + Debug>(kind: &Kind<T>, got: &T, by: &str) {
    let want = (kind.expected)((kind.number)(got));
    assert!(
        *got == want,
        "{} by {by}: {}",
        kind.name,
        first_difference(got, &want)
    );
}

/// An rclpy talker's messages reach a polling and a triggered subscription intact.
fn from_rclpy<T: Message + PartialEq + Debug>(domain: u32, kind: Kind<T>) {
    let topic = format!("tacto_big_{}", kind.name);
    let ctx = dds_context(domain);
    let mut poller = ctx.node("tacto_big_poller").unwrap();
    let polled = (poller.subscription::<T>(&topic))
        .history(History::KeepLast(4))
        .create()
        .unwrap();
    let mut reactor = ctx.node("tacto_big_reactor").unwrap();
    let triggering = reactor.subscription::<T>(&topic).create().unwrap();
    let (sender, received) = mpsc::channel();
    let recipe = (kind.expected, kind.number);
    reactor
        .execute(Trigger::on(&triggering), move |_| {
            for sample in triggering.take_all() {
                let n = (recipe.1)(&sample);
                let intact = *sample == (recipe.0)(n);
                sender.send((n, intact)).unwrap();
            }
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(reactor).unwrap();

    let mut talker = RclpyNode::spawn("big.py", domain, &["talk", kind.name, &topic]);
    let (mut polled_numbers, mut triggered) = (Vec::new(), Vec::new());
    let deadline = Instant::now() + PATIENCE;
    while polled_numbers.len() < 2 || triggered.len() < 2 {
        executor.spin_for(Duration::from_millis(50)).unwrap();
        for sample in polled.take_all() {
            check(&kind, &sample, "the polling subscription");
            polled_numbers.push((kind.number)(&sample));
        }
        triggered.extend(received.try_iter());
        if let Some(status) = talker.exited() {
            panic!("the rclpy talker exited ({status}):\n{}", talker.stderr());
        }
        assert!(
            Instant::now() < deadline,
            "{}: polled {polled_numbers:?}, triggered {triggered:?}:\n{}",
            kind.name,
            talker.stderr()
        );
    }
    for (n, intact) in &triggered {
        assert!(intact, "{} {n} by the triggered subscription", kind.name);
    }
    assert!(polled_numbers.is_sorted(), "{polled_numbers:?}");
    assert_eq!(polled.malformed(), 0);
}

/// A tacto publisher's messages reach an rclpy listener, which compares every field.
fn to_rclpy<T: Message + PartialEq + Debug>(domain: u32, kind: Kind<T>) {
    let topic = format!("tacto_big_{}", kind.name);
    let ctx = dds_context(domain);
    let mut node = ctx.node("tacto_big_talker").unwrap();
    let publisher = node.publisher::<T>(&topic).create().unwrap();
    let mut listener = RclpyNode::spawn("big.py", domain, &["listen", kind.name, &topic, "2"]);
    // Volatile: what is published before the listener matches is lost, so publish until it
    // has checked two.
    let deadline = Instant::now() + PATIENCE;
    let mut ok = Vec::new();
    let mut n = 0;
    while ok.len() < 2 {
        publisher.publish((kind.expected)(n));
        n += 1;
        while let Some(line) = listener.next_line(Instant::now() + Duration::from_millis(200)) {
            match line.strip_prefix("ok ") {
                Some(number) => ok.push(number.parse::<i32>().unwrap()),
                None => assert!(!line.starts_with("mismatch"), "{}: {line}", kind.name),
            }
        }
        if ok.len() < 2 {
            if let Some(status) = listener.exited() {
                panic!(
                    "the rclpy listener exited ({status}):\n{}",
                    listener.stderr()
                );
            }
            assert!(
                Instant::now() < deadline,
                "{}: ok {ok:?} of {n} sent:\n{}",
                kind.name,
                listener.stderr()
            );
        }
    }
    assert!(ok.iter().all(|k| (0..n).contains(k)), "{ok:?} of {n}");
    assert_eq!(publisher.encode_errors(), 0);
}

#[test]
fn an_rclpy_pose_stamped_reaches_polling_and_triggered_subscriptions() {
    from_rclpy(160, POSE);
}

#[test]
fn an_rclpy_1_mib_point_cloud_reaches_polling_and_triggered_subscriptions() {
    from_rclpy(161, CLOUD);
}

#[test]
fn an_rclpy_2_mib_image_reaches_polling_and_triggered_subscriptions() {
    from_rclpy(162, IMAGE);
}

#[test]
fn a_tacto_pose_stamped_reaches_an_rclpy_listener() {
    to_rclpy(163, POSE);
}

#[test]
fn a_tacto_1_mib_point_cloud_reaches_an_rclpy_listener() {
    to_rclpy(164, CLOUD);
}

#[test]
fn a_tacto_2_mib_image_reaches_an_rclpy_listener() {
    to_rclpy(165, IMAGE);
}

/// Large byte buffers and a string with padding between them (odd lengths, then an `f64`, a
/// `u16`, a `u32`), and a sequence of numbers: 16 of them for an even n (the publisher encodes
/// it straight into Cyclone's sample), 100 000 for an odd n (too costly to count first: encoded
/// into the link's buffer, which Cyclone copies).
#[tacto::message("tacto_test/msg/Blobs")]
#[derive(Debug, Clone, PartialEq)]
struct Blobs {
    n: u8,
    #[serde(with = "tacto::idl::Bytes")]
    first: Vec<u8>,
    scale: f64,
    #[serde(with = "tacto::idl::Bytes")]
    second: Vec<u8>,
    flags: u16,
    name: String,
    #[serde(with = "tacto::idl::Bytes")]
    third: Vec<u8>,
    count: u32,
    numbers: Vec<f32>,
}

fn blobs(n: u8) -> Blobs {
    let numbers = if n.is_multiple_of(2) { 16 } else { 100_000 };
    Blobs {
        n,
        first: pattern(1_000_001, n.into()),
        scale: 0.5,
        second: pattern(65_537, n.into()),
        flags: 3,
        name: "x".repeat(70_001),
        third: pattern(3, n.into()),
        count: 9,
        numbers: (0..numbers).map(|k| k as f32).collect(),
    }
}

#[test]
fn a_message_of_large_buffers_reaches_another_process_byte_for_byte() {
    const TEST: &str = "a_message_of_large_buffers_reaches_another_process_byte_for_byte";
    const DOMAIN: u32 = 197;
    const TOPIC: &str = "tacto_blobs";
    if std::env::var(ROLE).as_deref() == Ok("reader") {
        return read_blobs(DOMAIN, TOPIC);
    }
    // The two ways out of a DDS link writer, both taken below.
    assert!(tacto::cdr::cheap_encoded_len(&blobs(0)).is_some());
    assert!(tacto::cdr::cheap_encoded_len(&blobs(1)).is_none());
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("tacto_blobs_talker").unwrap();
    let publisher = node.publisher::<Blobs>(TOPIC).create().unwrap();
    let mut reader = RclpyNode::this_test(TEST, "reader", &[]);
    // Volatile: publish until the reader has compared an even and an odd message.
    let deadline = Instant::now() + PATIENCE;
    let mut same = Vec::new();
    let mut n = 0u8;
    while !(same.iter().any(|k| k % 2 == 0) && same.iter().any(|k| k % 2 == 1)) {
        publisher.publish(blobs(n));
        n = n.wrapping_add(1);
        while let Some(line) = reader.next_line(Instant::now() + Duration::from_millis(200)) {
            match line.strip_prefix("same ") {
                Some(k) => same.push(k.parse::<u8>().unwrap()),
                None => assert!(!line.starts_with("differs"), "{line}"),
            }
        }
        assert!(reader.exited().is_none(), "{}", reader.stderr());
        assert!(
            Instant::now() < deadline,
            "same {same:?} of {n} sent:\n{}",
            reader.stderr()
        );
    }
    assert_eq!(publisher.encode_errors(), 0);
}

/// The reader's side: a raw DDS reader; each sample's CDR is compared with `tacto::cdr`'s
/// encoding of the message of its number, byte for byte ("same n" or "differs n: ...").
fn read_blobs(domain: u32, topic: &str) {
    let participant = loopback_participant(domain);
    let reader = Reader::<Blobs>::new(&participant, topic, Qos::default()).unwrap();
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        let Some(sample) = reader.take_cdr().unwrap() else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let got = sample.payload;
        let n = tacto::cdr::from_bytes::<Blobs>(&got).unwrap().n;
        let want = tacto::cdr::to_vec(&blobs(n)).unwrap();
        match got.iter().zip(&want).position(|(g, w)| g != w) {
            None if got.len() == want.len() => println!("same {n}"),
            at => println!(
                "differs {n}: {} bytes for {}, first difference at {at:?}",
                got.len(),
                want.len()
            ),
        }
    }
}
