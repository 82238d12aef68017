//! tacto-dds inside one process, discovery off (nothing leaves the machine): a round trip
//! through Cyclone, and the typed errors for what Cyclone or the wire can get wrong.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tacto::Message;
use tacto::msg::std_msgs::String as Text;
use tacto_dds::{
    DiscoveryRange, DomainConfig, Participant, ParticipantError, Qos, Reader, TakeError,
    WriteError, Writer,
};

fn isolated(domain_id: u32) -> DomainConfig {
    let mut config = DomainConfig::new(domain_id);
    config.discovery_range = DiscoveryRange::Off;
    config
}

/// Takes the next sample, waiting for Cyclone's local delivery (synchronous in practice; the
/// wait is only there so that the test does not depend on it).
fn take_next<T: Message>(reader: &Reader<T>) -> Result<T, TakeError> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = reader.take()? {
            return Ok(value);
        }
        assert!(Instant::now() < deadline, "no sample within 30 s");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_sample_goes_through_cyclone_and_back() {
    let participant = Participant::new(&isolated(81)).expect("participant");
    let reader = Reader::<Text>::new(&participant, "/loop", Qos::default()).expect("reader");
    let writer = Writer::<Text>::new(&participant, "loop", Qos::default()).expect("writer");
    assert_eq!(writer.dds_topic(), "rt/loop");
    assert_eq!(writer.matched_readers().expect("status"), 1);
    assert_eq!(reader.matched_writers().expect("status"), 1);

    let text = Text {
        data: "héllo, Cyclone".into(),
    };
    writer.write(&text).expect("write");
    assert_eq!(take_next(&reader).expect("take"), text);
    assert!(reader.take().expect("take").is_none());

    // The bytes on the wire are tacto's CDR, header included.
    writer.write(&text).expect("write");
    let deadline = Instant::now() + Duration::from_secs(30);
    let raw = loop {
        if let Some(raw) = reader.take_cdr().expect("take") {
            break raw;
        }
        assert!(Instant::now() < deadline, "no sample within 30 s");
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(raw.payload, tacto::cdr::to_vec(&text).expect("encode"));
    assert!(raw.source_timestamp_ns > 0);
}

#[test]
fn read_new_marks_samples_read_and_leaves_them_for_take() {
    let participant = Participant::new(&isolated(87)).expect("participant");
    let reader = Reader::<Text>::new(&participant, "/states", Qos::default()).expect("reader");
    let writer = Writer::<Text>::new(&participant, "/states", Qos::default()).expect("writer");
    let texts: Vec<Text> = ["one", "two"]
        .iter()
        .map(|t| Text { data: (*t).into() })
        .collect();
    for text in &texts {
        writer.write(text).expect("write");
    }
    // Wait until both are in the cache, without reading them.
    let deadline = Instant::now() + Duration::from_secs(30);
    let first = loop {
        if let Some(text) = reader.read_new().expect("read") {
            break text;
        }
        assert!(Instant::now() < deadline, "no sample within 30 s");
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(first, texts[0]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let second = loop {
        if let Some(text) = reader.read_new().expect("read") {
            break text;
        }
        assert!(Instant::now() < deadline, "no second sample within 30 s");
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(second, texts[1]);
    // Read once: nothing new any more, but both are still there to take.
    assert_eq!(reader.read_new().expect("read"), None);
    assert_eq!(reader.take().expect("take"), Some(texts[0].clone()));
    assert_eq!(reader.take().expect("take"), Some(texts[1].clone()));
    assert_eq!(reader.take().expect("take"), None);
}

/// A message with std_msgs/String's name and another layout, as a misconfigured peer sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Impostor {
    length_then_nothing: u32,
}

impl Message for Impostor {
    const TYPE_NAME: &'static str = "std_msgs/msg/String";
}

#[test]
fn malformed_bytes_are_a_decode_error_and_the_next_sample_still_reads() {
    let participant = Participant::new(&isolated(82)).expect("participant");
    let reader = Reader::<Text>::new(&participant, "/bad", Qos::default()).expect("reader");
    let impostor = Writer::<Impostor>::new(&participant, "/bad", Qos::default()).expect("writer");
    let writer = Writer::<Text>::new(&participant, "/bad", Qos::default()).expect("writer");

    // A string length of 4 G with nothing after it.
    impostor
        .write(&Impostor {
            length_then_nothing: u32::MAX,
        })
        .expect("write");
    match take_next(&reader) {
        Err(TakeError::Decode { dds_topic, .. }) => assert_eq!(dds_topic, "rt/bad"),
        other => panic!("expected a decode error, got {other:?}"),
    }
    let good = Text { data: "ok".into() };
    writer.write(&good).expect("write");
    assert_eq!(take_next(&reader).expect("take"), good);
}

#[test]
fn a_payload_without_header_is_refused() {
    let participant = Participant::new(&isolated(83)).expect("participant");
    let writer = Writer::<Text>::new(&participant, "/short", Qos::default()).expect("writer");
    assert!(matches!(
        writer.write_cdr(&[0, 1]),
        Err(WriteError::MissingHeader { len: 2 })
    ));
}

#[test]
fn a_bad_cyclone_configuration_is_a_typed_error_with_cyclones_message() {
    let mut config = isolated(84);
    config.cyclonedds_uri = Some(
        "<CycloneDDS><Domain><General><Interfaces>\
         <NetworkInterface name=\"tacto_no_such_if0\"/>\
         </Interfaces></General></Domain></CycloneDDS>"
            .into(),
    );
    let error = Participant::new(&config).expect_err("an unknown interface is refused");
    let ParticipantError::CreateDomain {
        domain_id,
        status,
        cyclone_log,
        ..
    } = &error
    else {
        panic!("expected CreateDomain, got {error:?}");
    };
    assert_eq!(*domain_id, 84);
    assert!(status.code < 0, "{status}");
    // Cyclone's reason, not just its return code, is in the error.
    assert!(
        cyclone_log.iter().any(|m| m.contains("tacto_no_such_if0")),
        "{cyclone_log:?}"
    );
    assert!(error.to_string().contains("does not match"), "{error}");
    // An invalid value is refused the same way, with Cyclone's words for it.
    config.cyclonedds_uri = Some(
        "<CycloneDDS><Domain><General><AllowMulticast>perhaps</AllowMulticast>\
         </General></Domain></CycloneDDS>"
            .into(),
    );
    match Participant::new(&config) {
        Err(ParticipantError::CreateDomain { cyclone_log, .. }) => assert!(
            cyclone_log.iter().any(|m| m.contains("perhaps")),
            "{cyclone_log:?}"
        ),
        other => panic!("expected CreateDomain, got {other:?}"),
    }
    // The failure left nothing behind: the domain can be joined with a good configuration.
    Participant::new(&isolated(84)).expect("participant after a failed attempt");
}

#[test]
fn one_domain_has_one_configuration_per_process() {
    let first = Participant::new(&isolated(85)).expect("participant");
    let same = Participant::new(&isolated(85)).expect("same configuration");
    let mut other = isolated(85);
    other.static_peers = vec!["127.0.0.1".into()];
    other.discovery_range = DiscoveryRange::Localhost;
    assert!(matches!(
        Participant::new(&other),
        Err(ParticipantError::ConfigConflict { domain_id: 85 })
    ));
    assert_ne!(first.guid().expect("guid"), same.guid().expect("guid"));
    drop((first, same));
    // With both gone the domain is free again, for any configuration.
    Participant::new(&other).expect("participant with the other configuration");
}

#[test]
fn bad_names_are_refused_before_cyclone_sees_them() {
    let participant = Participant::new(&isolated(86)).expect("participant");
    assert!(Writer::<Text>::new(&participant, "/a//b", Qos::default()).is_err());
    assert!(Reader::<Text>::new(&participant, "", Qos::default()).is_err());
}

/// Encodes as a `std_msgs/String` of `next` characters, 8 more or 8 fewer each time it is
/// encoded: its count and its encoding disagree, as a non-deterministic `Serialize` would.
#[derive(Debug, Deserialize)]
struct Changing {
    #[serde(skip)]
    next: AtomicUsize,
    #[serde(skip)]
    grows: bool,
}

impl Serialize for Changing {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let n = if self.grows {
            self.next.fetch_add(8, Ordering::Relaxed)
        } else {
            self.next.fetch_sub(8, Ordering::Relaxed)
        };
        serializer.serialize_str(&"x".repeat(n))
    }
}

impl Message for Changing {
    const TYPE_NAME: &'static str = "std_msgs/msg/String";
}

#[test]
fn a_message_whose_length_changes_while_encoded_in_place_is_refused_unsent() {
    let participant = Participant::new(&isolated(196)).expect("participant");
    let reader = Reader::<Text>::new(&participant, "/changing", Qos::default()).expect("reader");
    let changing = Writer::<Changing>::new(&participant, "/changing", Qos::default()).unwrap();
    let writer = Writer::<Text>::new(&participant, "/changing", Qos::default()).expect("writer");

    for grows in [true, false] {
        let message = Changing {
            next: AtomicUsize::new(100),
            grows,
        };
        assert!(tacto::cdr::cheap_encoded_len(&message).is_some());
        message.next.store(100, Ordering::Relaxed);
        // 4 + 4 + 101 bytes counted (112 with padding), then 120 or 104 encoded.
        assert!(
            matches!(
                changing.write(&message),
                Err(WriteError::LengthChanged { counted: 112 })
            ),
            "grows: {grows}"
        );
    }
    // Nothing of those reached the reader: the next sample is this one.
    let good = Text { data: "ok".into() };
    writer.write(&good).expect("write");
    assert_eq!(take_next(&reader).expect("take"), good);
}

/// Takes the next sample's CDR, waiting as [`take_next`] does.
fn take_next_cdr<T: Message>(reader: &Reader<T>) -> Vec<u8> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(raw) = reader.take_cdr().expect("take") {
            return raw.payload;
        }
        assert!(Instant::now() < deadline, "no sample within 30 s");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn messages_written_in_place_or_through_a_buffer_arrive_byte_for_byte() {
    use tacto_msgs::sensor_msgs::msg::{Image, JointState};
    use tacto_msgs::std_msgs::msg::Float32MultiArray;

    let participant = Participant::new(&isolated(198)).expect("participant");
    // Strings and an odd-sized byte buffer: encoded straight into Cyclone's sample.
    let image = Image {
        encoding: "mono8".into(),
        height: 1001,
        width: 1001,
        step: 1001,
        data: (0..1001 * 1001).map(|i| (i * 7 % 251) as u8).collect(),
        ..Image::default()
    };
    assert!(tacto::cdr::cheap_encoded_len(&image).is_some());
    // 100 000 numbers, one block (`idl::Numbers`): counted at once, in place too.
    let numbers = Float32MultiArray {
        data: (0..100_000).map(|k| k as f32 / 3.0).collect(),
        ..Float32MultiArray::default()
    };
    assert!(tacto::cdr::cheap_encoded_len(&numbers).is_some());
    // 20 000 short strings, too costly to count first: encoded into a buffer Cyclone copies.
    let joints = JointState {
        name: (0..20_000).map(|k| format!("joint_{k}")).collect(),
        ..JointState::default()
    };
    assert!(tacto::cdr::cheap_encoded_len(&joints).is_none());

    let images = Reader::<Image>::new(&participant, "/image", Qos::default()).expect("reader");
    let image_writer = Writer::<Image>::new(&participant, "/image", Qos::default()).unwrap();
    image_writer.write(&image).expect("write");
    assert_eq!(take_next_cdr(&images), tacto::cdr::to_vec(&image).unwrap());

    let arrays =
        Reader::<Float32MultiArray>::new(&participant, "/numbers", Qos::default()).unwrap();
    let array_writer =
        Writer::<Float32MultiArray>::new(&participant, "/numbers", Qos::default()).unwrap();
    array_writer.write(&numbers).expect("write");
    assert_eq!(
        take_next_cdr(&arrays),
        tacto::cdr::to_vec(&numbers).unwrap()
    );

    let states = Reader::<JointState>::new(&participant, "/joints", Qos::default()).unwrap();
    let state_writer = Writer::<JointState>::new(&participant, "/joints", Qos::default()).unwrap();
    state_writer.write(&joints).expect("write");
    assert_eq!(take_next_cdr(&states), tacto::cdr::to_vec(&joints).unwrap());
}
