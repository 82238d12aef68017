//! `tacto topic pub`'s `auto` headers and `now` times, as `ros2 topic pub` fills them: read
//! into a template whose times are set at each publication, and through a real subscriber.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tacto::{Context, History};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};
use tacto_graph::commands::{self, Options, PubOptions};
use tacto_graph::yaml::{self, YamlError};
use tacto_graph::{TypeRegistry, Value};
use tacto_msgs::geometry_msgs::msg::PointStamped;

/// The stamp and frame of `value`'s `header`.
fn header(value: &Value) -> (Value, Value) {
    let header = value.field("header").expect("a header");
    (
        header.field("stamp").expect("a stamp").clone(),
        header.field("frame_id").expect("a frame").clone(),
    )
}

fn time(sec: i64, nanosec: u64) -> Value {
    Value::Message(vec![
        ("sec".into(), Value::Int(sec)),
        ("nanosec".into(), Value::UInt(nanosec)),
    ])
}

fn text(s: &str) -> Value {
    Value::String(s.into())
}

/// A message with a header, as rosidl_runtime_py's tests' `MockMessageStamped`.
fn stamped() -> std::sync::Arc<tacto_graph::MessageType> {
    TypeRegistry::shipped()
        .resolve("geometry_msgs/msg/PointStamped")
        .unwrap()
}

/// A `--msg-path` folder with the test's own packages, under a name unique to this run.
fn msg_path(test: &str, package: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("tacto-pub-stamps-{test}-{}", std::process::id()));
    let dir = root.join(package).join("msg");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(format!("{name}.msg")), text).unwrap();
    }
    root
}

// The expectations of rosidl_runtime_py's test/rosidl_runtime_py/test_set_message.py
// (branch jazzy), whose set_message_fields `ros2 topic pub` calls with expand_header_auto and
// expand_time_now: each setter is called with Time(sec=1, nanosec=2).

#[test]
fn header_auto_takes_the_time_of_publication_and_keeps_an_empty_frame() {
    // test_set_message_fields_header_auto
    let template = yaml::template(&stamped(), "{header: 'auto'}").unwrap();
    assert_eq!(header(&template.at(0, 0)), (time(0, 0), text("")));
    assert_eq!(header(&template.at(1, 2)), (time(1, 2), text("")));
}

#[test]
fn header_auto_is_refused_where_it_does_not_stand_for_the_time() {
    // test_set_message_fields_header_auto_not_parsed: without the expansion (`ros2 service
    // call`'s reading), "Value 'auto' is expected to be a dictionary but is a str".
    let error = yaml::from_yaml(&stamped(), "{header: 'auto'}").unwrap_err();
    match error {
        YamlError::Mismatch {
            field,
            expected,
            found,
        } => {
            assert_eq!(field, "header");
            assert!(expected.starts_with("a mapping"), "{expected}");
            assert_eq!(found, "the string \"auto\"");
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn stamp_now_takes_the_time_of_publication() {
    // test_set_message_fields_stamp_now
    let template = yaml::template(&stamped(), "{header: {stamp: 'now'}}").unwrap();
    assert_eq!(header(&template.at(1, 2)), (time(1, 2), text("")));
}

#[test]
fn stamp_now_is_refused_where_it_does_not_stand_for_the_time() {
    // test_set_message_fields_stamp_now_not_parsed
    let error = yaml::from_yaml(&stamped(), "{header: {stamp: 'now'}}").unwrap_err();
    assert!(
        matches!(&error, YamlError::Mismatch { field, .. } if field == "header.stamp"),
        "{error:?}"
    );
}

#[test]
fn stamp_now_keeps_the_frame_given_beside_it() {
    // test_set_message_fields_stamp_now_with_frame_id
    let template =
        yaml::template(&stamped(), "{header: {stamp: 'now', frame_id: 'hello'}}").unwrap();
    assert_eq!(header(&template.at(1, 2)), (time(1, 2), text("hello")));
}

#[test]
fn every_time_field_given_now_takes_the_time_of_publication() {
    // test_set_message_fields_stamp_now_with_timestamp_fields (MockMessageWithStampFields)
    let path = msg_path(
        "fields",
        "stamp_test",
        &[(
            "WithStampFields",
            "builtin_interfaces/Time timestamp1\nbuiltin_interfaces/Time timestamp2\n",
        )],
    );
    let ty = TypeRegistry::new(std::slice::from_ref(&path))
        .resolve("stamp_test/msg/WithStampFields")
        .unwrap();
    std::fs::remove_dir_all(path).unwrap();
    let template = yaml::template(&ty, "{timestamp1: 'now', timestamp2: 'now'}").unwrap();
    let zero = template.at(0, 0);
    assert_eq!(zero.field("timestamp1"), Some(&time(0, 0)));
    let value = template.at(1, 2);
    assert_eq!(value.field("timestamp1"), Some(&time(1, 2)));
    assert_eq!(value.field("timestamp2"), Some(&time(1, 2)));
}

// What set_message_fields' recursion gives beyond its tests: a header in the messages of a
// list (tf2_msgs/TFMessage's transforms, so that a transform can be published by hand), and
// neither word for the other type.

#[test]
fn a_transform_in_a_list_takes_the_time_of_publication_with_its_frames() {
    let path = msg_path(
        "transforms",
        "tf_test",
        &[(
            "Transforms",
            "geometry_msgs/TransformStamped[] transforms\n",
        )],
    );
    let ty = TypeRegistry::new(std::slice::from_ref(&path))
        .resolve("tf_test/msg/Transforms")
        .unwrap();
    std::fs::remove_dir_all(path).unwrap();
    let yaml = "{transforms: [{header: {stamp: now, frame_id: map}, child_frame_id: base, \
                transform: {translation: {x: 1.0}, rotation: {w: 1.0}}}, {header: auto}]}";
    let template = yaml::template(&ty, yaml).unwrap();
    assert!(template.is_stamped());
    let value = template.at(5, 6);
    let Some(Value::List(transforms)) = value.field("transforms") else {
        panic!("a list of transforms: {value:?}");
    };
    assert_eq!(header(&transforms[0]), (time(5, 6), text("map")));
    assert_eq!(transforms[0].field("child_frame_id"), Some(&text("base")));
    assert_eq!(header(&transforms[1]), (time(5, 6), text("")));
}

#[test]
fn now_for_a_header_and_auto_for_a_time_are_refused() {
    let error = yaml::template(&stamped(), "{header: now}").unwrap_err();
    assert!(
        matches!(&error, YamlError::Mismatch { field, .. } if field == "header"),
        "{error:?}"
    );
    let error = yaml::template(&stamped(), "{header: {stamp: auto}}").unwrap_err();
    assert!(
        matches!(&error, YamlError::Mismatch { field, .. } if field == "header.stamp"),
        "{error:?}"
    );
}

#[test]
fn a_message_without_auto_or_now_has_no_time_to_set() {
    let template = yaml::template(&stamped(), "{header: {frame_id: a}}").unwrap();
    assert!(!template.is_stamped());
    assert_eq!(header(&template.at(1, 2)), (time(0, 0), text("a")));
}

/// The system clock now, as a `(sec, nanosec)` pair.
fn now() -> (i64, u64) {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    (since.as_secs() as i64, u64::from(since.subsec_nanos()))
}

/// The DDS domain of the test through a real subscriber.
const DOMAIN: u32 = 86;
/// How many messages it publishes.
const TIMES: usize = 3;
/// The variable that makes this test binary the subscriber, naming its topic.
const LISTEN: &str = "TACTO_PUB_STAMPS_TOPIC";

/// A participant of [`DOMAIN`] on this host's loopback only, whatever interfaces it has.
fn participant() -> Participant {
    let mut config = DomainConfig::new(DOMAIN);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(
        "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/>\
         </Interfaces></General></Domain></CycloneDDS>"
            .into(),
    );
    Participant::new(&config).unwrap()
}

/// The subscriber, in a process of its own (a tacto context does not hear its own process
/// over DDS): a tacto node taking `PointStamped`, printing `ready` once subscribed, then
/// `got SEC NANOSEC FRAME X` per message, [`TIMES`] of them.
#[test]
#[ignore = "the subscriber process of topic_pub_stamps_each_message_when_it_publishes_it"]
fn stamp_listener() {
    let topic = std::env::var(LISTEN).expect(LISTEN);
    let ctx = Context::builder()
        .transport(DdsTransport::new(participant()))
        .create();
    let mut node = ctx.node("stamp_listener").unwrap();
    let sub = (node.subscription::<PointStamped>(&topic))
        .history(History::KeepAll { max: 100 })
        .create()
        .unwrap();
    println!("ready");
    let mut got = 0;
    let give_up = Instant::now() + Duration::from_secs(60);
    while got < TIMES && Instant::now() < give_up {
        for s in sub.take_all() {
            let stamp = &s.header.stamp;
            println!(
                "got {} {} {:?} {}",
                stamp.sec, stamp.nanosec, s.header.frame_id, s.point.x
            );
            got += 1;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn topic_pub_stamps_each_message_when_it_publishes_it() {
    let topic = format!("/pub_stamps_{}", std::process::id());
    let mut listener = Command::new(std::env::current_exe().unwrap())
        .args(["stamp_listener", "--exact", "--ignored", "--nocapture"])
        .env(LISTEN, &topic)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(listener.stdout.take().unwrap()).lines();
    let mut said = |what: &str| loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("the listener ended before {what}"));
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix(what) {
            break rest.to_owned();
        }
    };
    said("ready");

    let before = now();
    let options = Options {
        wait: Duration::from_secs(30),
        ..Options::default()
    };
    let publish = PubOptions {
        rate: 10.0,
        times: Some(TIMES as u64),
    };
    let mut out = Vec::new();
    let never = AtomicBool::new(false);
    commands::topic_pub(
        &participant(),
        &options,
        &topic,
        "geometry_msgs/msg/PointStamped",
        "{header: auto, point: {x: 1.5}}",
        publish,
        &mut out,
        &|| never.load(Ordering::Relaxed),
    )
    .unwrap();
    let after = now();
    let printed = String::from_utf8(out).unwrap();

    let mut stamps = Vec::new();
    for _ in 0..TIMES {
        let got = said("got ");
        let fields: Vec<&str> = got.split(' ').collect();
        // An empty frame (as rosidl leaves it) and the point given.
        assert_eq!(fields[2..], ["\"\"", "1.5"], "{got}\n{printed}");
        stamps.push((
            fields[0].parse::<i64>().unwrap(),
            fields[1].parse::<u64>().unwrap(),
        ));
    }
    let _ = listener.wait();
    // Each one stamped when it was published: within the command's run, and one after the
    // other (a tenth of a second apart, so never the same).
    assert!(
        stamps.iter().all(|s| (before..=after).contains(s)),
        "{stamps:?} not in {before:?}..={after:?}"
    );
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "{stamps:?}");
    // What the command printed for each is what it sent.
    for (n, (sec, nanosec)) in stamps.iter().enumerate() {
        let start = format!("publishing #{}: ", n + 1);
        let line = (printed.lines().find(|l| l.starts_with(&start)))
            .unwrap_or_else(|| panic!("no {start:?} in {printed}"));
        let stamp = format!("\"stamp\":{{\"sec\":{sec},\"nanosec\":{nanosec}}}");
        assert!(line.contains(&stamp), "{line}");
    }
}
