//! std_msgs/String between tacto-dds (Cyclone) and a real rclpy node (Fast DDS, the PyPI
//! wheels), both directions, over loopback. Each test has its own DDS domain so that tests
//! running in parallel (and other runs of this suite on the machine) never cross-talk; the
//! text carries this process's id for the same reason.

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::{PATIENCE, RclpyNode, loopback_participant};
use tacto::msg::std_msgs::String as Text;
use tacto_dds::{Qos, Reader, Writer};

#[test]
fn rclpy_talker_reaches_a_tacto_reader() {
    const DOMAIN: u32 = 71;
    let prefix = format!("rclpy to tacto {}", std::process::id());
    let participant = loopback_participant(DOMAIN);
    let reader =
        Reader::<Text>::new(&participant, "/tacto_test_chatter", Qos::default()).expect("reader");
    let mut talker = RclpyNode::spawn("talker.py", DOMAIN, &["tacto_test_chatter", &prefix]);

    let deadline = Instant::now() + PATIENCE;
    let mut received = Vec::new();
    while received.len() < 3 {
        match reader.take().expect("take") {
            // Only this run's talker: another run of the suite may share the domain.
            Some(text) if text.data.starts_with(&prefix) => received.push(text.data),
            Some(_) => {}
            None => {
                if let Some(status) = talker.exited() {
                    panic!("the rclpy talker exited ({status}):\n{}", talker.stderr());
                }
                assert!(
                    Instant::now() < deadline,
                    "received {received:?} within {PATIENCE:?}; matched writers: {:?}; talker's stderr:\n{}",
                    reader.matched_writers(),
                    talker.stderr()
                );
                thread::sleep(Duration::from_millis(20));
            }
        }
    }
    // Reliable and in order: consecutive counts, whichever the first one was.
    let first: u64 = received[0]
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected text {:?}", received[0]));
    let expected: Vec<String> = (first..first + 3)
        .map(|n| format!("{prefix} {n}"))
        .collect();
    assert_eq!(received, expected);
}

#[test]
fn tacto_writer_reaches_an_rclpy_listener() {
    const DOMAIN: u32 = 72;
    let prefix = format!("tacto to rclpy {}", std::process::id());
    let participant = loopback_participant(DOMAIN);
    let writer =
        Writer::<Text>::new(&participant, "/tacto_test_chatter", Qos::default()).expect("writer");
    let mut listener =
        RclpyNode::spawn("listener.py", DOMAIN, &["tacto_test_chatter", &prefix, "3"]);

    // Volatile QoS: what is written before the listener matches is lost, so keep writing
    // until it has printed three of ours.
    let deadline = Instant::now() + PATIENCE;
    let mut sent = Vec::new();
    let mut received = Vec::new();
    let mut publishers = Vec::new();
    while received.len() < 3 {
        let text = format!("{prefix} {}", sent.len());
        writer.write(&Text { data: text.clone() }).expect("write");
        sent.push(text);
        while let Some(line) = listener.next_line(Instant::now() + Duration::from_millis(100)) {
            if line.starts_with(&prefix) {
                received.push(line);
            } else if let Some(publisher) = line.strip_prefix("publisher ") {
                publishers.push(publisher.to_owned());
            }
        }
        if received.len() < 3 {
            if let Some(status) = listener.exited() {
                panic!(
                    "the rclpy listener exited ({status}) after {received:?}:\n{}",
                    listener.stderr()
                );
            }
            assert!(
                Instant::now() < deadline,
                "the listener printed {received:?} within {PATIENCE:?}; matched readers: {:?}; its stderr:\n{}",
                writer.matched_readers(),
                listener.stderr()
            );
        }
    }
    // Every text the listener printed is one we wrote, in the order we wrote them.
    let start = sent
        .iter()
        .position(|text| *text == received[0])
        .unwrap_or_else(|| panic!("{:?} was never sent", received[0]));
    assert_eq!(received, sent[start..start + 3]);

    // rclpy's graph sees our writer with the ROS type, from DDS discovery alone. Its node is
    // unknown: a standalone Writer belongs to no node (DdsTransport announces its nodes).
    while let Some(line) = listener.next_line(Instant::now() + PATIENCE) {
        if let Some(publisher) = line.strip_prefix("publisher ") {
            publishers.push(publisher.to_owned());
        }
    }
    assert_eq!(
        publishers,
        ["std_msgs/msg/String _NODE_NAME_UNKNOWN_ RELIABLE"],
        "stderr:\n{}",
        listener.stderr()
    );
}
