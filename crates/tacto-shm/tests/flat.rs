//! Flat messages between processes through a `Context` on `ShmTransport`: written into the
//! loaned shared-memory slot, read there in place. This test binary re-executes itself as the
//! other process (`child_role`, selected by `TACTO_SHM_FLAT_ROLE`); topic names carry the
//! parent's pid and the test's name, so parallel runs never share a service.

use std::time::{Duration, Instant};

use tacto::{Context, FlatString, History};
use tacto_shm::ShmTransport;

mod support;
use support::{Child, PATIENCE, SAY};

const ROLE: &str = "TACTO_SHM_FLAT_ROLE";
/// Several MiB: far more than a thread's stack, so the message is never built on one.
const PIXELS: usize = (4 << 20) + 8;

#[tacto::message("tacto_test/msg/Image", flat)]
#[derive(Clone, Copy)]
struct Image {
    stamp: u64,
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    pixels: [u8; PIXELS],
}

#[tacto::message("tacto_test/msg/Pose", flat)]
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pose {
    x: f64,
    y: f64,
    frame: FlatString<8>,
}

/// `Pose` as a type that is not flat: the same CDR.
#[tacto::message("tacto_test/msg/Pose")]
#[derive(Debug, Clone, PartialEq)]
struct PoseCdr {
    x: f64,
    y: f64,
    #[serde(with = "tacto::idl::BoundedString::<8>")]
    frame: String,
}

/// Another flat layout under the same ROS type name (a field renamed).
#[tacto::message("tacto_test/msg/Pose", flat)]
#[derive(Debug, Clone, Copy, PartialEq)]
struct PoseRenamed {
    x: f64,
    z: f64,
    frame: FlatString<8>,
}

fn topic(test: &str) -> String {
    format!("/f{}_{test}", std::process::id())
}

fn context(name: &str) -> Context {
    Context::builder()
        .transport(ShmTransport::new(name).unwrap())
        .create()
}

fn pixel(i: usize) -> u8 {
    ((i * 31 + i / 4093) % 251) as u8
}

fn pose() -> Pose {
    Pose {
        x: 1.5,
        y: -2.25,
        frame: FlatString::try_from("map").unwrap(),
    }
}

/// The other process: publishes what the role says, then waits for its stdin to close, its
/// publisher alive (iceoryx2 discards what a dropped publisher sent and was not received).
#[test]
#[ignore = "the other process of this file's tests, which run it with --ignored"]
fn child_role() {
    let role = std::env::var(ROLE).expect(ROLE);
    let topic = std::env::var("TOPIC").unwrap();
    let ctx = context("flat_child");
    let mut node = ctx.node("child").unwrap();
    // Printed with the endpoints alive: iceoryx2 discards what a dropped publisher sent.
    let done = |sent: u64| {
        println!("{SAY} sent {sent}");
        std::io::stdin().lines().for_each(drop);
    };
    match role.as_str() {
        "image" => {
            let publisher = node.publisher::<Image>(&topic).create().unwrap();
            let mut image = publisher.loan_flat();
            assert!(image.is_in_place(), "the parent subscribed before: a slot");
            image.stamp = 42;
            for (i, p) in image.pixels.iter_mut().enumerate() {
                *p = pixel(i);
            }
            image.publish();
            done(publisher.remote_writes());
        }
        "pose" => {
            let publisher = node.publisher::<Pose>(&topic).create().unwrap();
            publisher.publish(pose());
            done(publisher.remote_writes());
        }
        "pose_cdr" => {
            let publisher = node.publisher::<PoseCdr>(&topic).create().unwrap();
            publisher.publish(PoseCdr {
                x: 1.5,
                y: -2.25,
                frame: "map".into(),
            });
            done(publisher.remote_writes());
        }
        "listen" => {
            let sub = node.subscription::<Pose>(&topic).create().unwrap();
            println!("{SAY} ready");
            let got = poll("the pose", || sub.take());
            let in_shm = mapping_of(std::ptr::from_ref::<Pose>(&got) as usize);
            println!(
                "{SAY} got {:?} sequence {} in {}",
                *got,
                got.info().sequence,
                in_shm.split('/').take(3).collect::<Vec<_>>().join("/"),
            );
            std::io::stdin().lines().for_each(drop);
        }
        other => panic!("unknown role {other}"),
    }
}

/// This test's other process (`child_role`, see `support/`).
fn spawn(role: &str, topic: &str) -> Child {
    Child::spawn(ROLE, role, &[("TOPIC", topic.into())])
}

/// Polls `read` every millisecond until it returns something.
fn poll<R>(what: &str, mut read: impl FnMut() -> Option<R>) -> R {
    let start = Instant::now();
    loop {
        if let Some(found) = read() {
            return found;
        }
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The mapping of this process that holds `address`, as `/proc/self/maps` names it.
fn mapping_of(address: usize) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let range = fields.next().unwrap();
        let (start, end) = range.split_once('-').unwrap();
        let start = usize::from_str_radix(start, 16).unwrap();
        let end = usize::from_str_radix(end, 16).unwrap();
        if (start..end).contains(&address) {
            return fields.nth(4).unwrap_or("[anonymous]").to_owned();
        }
    }
    panic!("{address:#x} is in no mapping");
}

/// A flat message of several MiB, written by the other process straight into its loaned slot,
/// arrives byte-identical, and the sample is that slot: its address lies in a shared-memory
/// file's mapping (`/dev/shm`), not in the heap, so nothing was copied on this side.
#[test]
fn a_loaned_flat_message_of_several_mib_is_read_in_place() {
    let topic = topic("image");
    let ctx = context("flat_parent");
    let mut node = ctx.node("listener").unwrap();
    let sub = node
        .subscription::<Image>(&topic)
        .history(History::KeepLast(2))
        .create()
        .unwrap();
    let child = spawn("image", &topic);
    assert_eq!(child.next_line(), "sent 1");
    let image = poll("the image", || sub.take());
    assert_eq!(image.stamp, 42);
    let wrong = (image.pixels.iter().enumerate()).find(|&(i, &p)| p != pixel(i));
    assert_eq!(wrong, None, "every byte as written");
    assert_eq!(image.info().sequence, 1);
    let address = std::ptr::from_ref::<Image>(&image) as usize;
    let mapping = mapping_of(address);
    assert!(
        mapping.starts_with("/dev/shm/"),
        "read in place in shared memory, found in {mapping}"
    );
    assert_eq!(address % tacto::flat::MAX_ALIGN, 0);
    assert_eq!(sub.malformed(), 0);
    child.finish();
}

/// A publisher loaning a slot while subscriptions of both processes listen: the other
/// process gets the slot, this one a copy, with the same facts. Before, with nobody outside,
/// the loan is on the heap; loans dropped unpublished return their slots, as they were left.
#[test]
fn a_loaned_slot_reaches_the_other_process_and_a_copy_this_one() {
    let topic = topic("loan");
    let ctx = context("flat_parent");
    let mut node = ctx.node("talker").unwrap();
    let local = node.subscription::<Pose>(&topic).create().unwrap();
    let publisher = node.publisher::<Pose>(&topic).create().unwrap();
    let mut loan = publisher.loan_flat();
    assert!(!loan.is_in_place(), "nobody outside listens: the heap");
    *loan = pose();
    loan.publish();
    assert_eq!(*local.take().expect("the heap loan"), pose());
    assert_eq!(publisher.remote_writes(), 0);

    let child = spawn("listen", &topic);
    assert_eq!(child.next_line(), "ready");
    // A loan dropped unpublished gives its slot back: iceoryx2 lends a publisher only a few
    // at once, so a leak would end in heap loans here.
    for _ in 0..32 {
        let unused = publisher.loan_flat();
        assert!(unused.is_in_place());
    }
    assert_eq!(
        publisher.remote_writes(),
        0,
        "nothing sent by the dropped loans"
    );
    // `loan_flat_reused` lends a slot as it was left; `loan_flat` zeroes it. iceoryx2 lends
    // the slot returned last first, so the dirty one comes back.
    let mut dirty = publisher.loan_flat_reused();
    assert!(dirty.is_in_place());
    tacto::bytemuck::bytes_of_mut(&mut *dirty).fill(0xFF);
    drop(dirty);
    let reused = publisher.loan_flat_reused();
    assert!(
        tacto::bytemuck::bytes_of(&*reused)
            .iter()
            .all(|&b| b == 0xFF),
        "the slot as it was left"
    );
    drop(reused);
    let mut loan = publisher.loan_flat();
    assert!(loan.is_in_place(), "another process subscribes: a slot");
    assert_eq!(*loan, bytemuck_zeroed(), "lent zeroed");
    *loan = pose();
    loan.publish();
    assert_eq!(publisher.remote_writes(), 1);
    let copy = local.take().expect("this process's copy");
    assert_eq!(*copy, pose());
    assert_eq!(copy.info().sequence, 2);
    assert_eq!(
        child.next_line(),
        format!("got {:?} sequence 2 in /dev/shm", pose())
    );
    child.finish();
}

fn bytemuck_zeroed() -> Pose {
    tacto::bytemuck::Zeroable::zeroed()
}

/// Two flat types under one ROS type name whose layouts differ: the sample is counted as
/// malformed, never read as the wrong type; so it is for a subscription of a type that is not
/// flat.
#[test]
fn a_flat_sample_of_another_layout_is_counted_as_malformed() {
    let topic = topic("mismatch");
    let ctx = context("flat_parent");
    let mut node = ctx.node("listener").unwrap();
    let renamed = node.subscription::<PoseRenamed>(&topic).create().unwrap();
    let cdr = node.subscription::<PoseCdr>(&topic).create().unwrap();
    let child = spawn("pose", &topic);
    assert_eq!(child.next_line(), "sent 1");
    poll("the flat sample, refused", || {
        assert!(renamed.take().is_none(), "never read as another layout");
        (renamed.malformed() == 1).then_some(())
    });
    poll("the flat sample, refused as CDR", || {
        assert!(cdr.take().is_none(), "never decoded as CDR");
        (cdr.malformed() == 1).then_some(())
    });
    child.finish();
}

/// A flat subscription receiving CDR from a publisher of a type that is not flat (same ROS
/// type) decodes it; a flat publisher's value sent by value is read in place.
#[test]
fn a_flat_subscription_decodes_cdr_and_reads_flat_samples_in_place() {
    for role in ["pose_cdr", "pose"] {
        let topic = topic(role);
        let ctx = context("flat_parent");
        let mut node = ctx.node("listener").unwrap();
        let sub = node.subscription::<Pose>(&topic).create().unwrap();
        let child = spawn(role, &topic);
        assert_eq!(child.next_line(), "sent 1");
        let got = poll("the pose", || sub.take());
        assert_eq!(*got, pose(), "{role}");
        assert_eq!(got.frame.as_str(), Ok("map"));
        let in_shm = mapping_of(std::ptr::from_ref::<Pose>(&got) as usize).starts_with("/dev/shm/");
        assert_eq!(in_shm, role == "pose", "{role}: in place only if flat");
        assert_eq!(sub.malformed(), 0);
        child.finish();
    }
}
