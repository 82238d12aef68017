//! What the generated types do beyond rclpy's test cases: wide strings (no rclpy package in the
//! venv has one; compared with bytes derived by hand from the layout rmw_cyclonedds and Fast DDS
//! both use), bounds on both sides, defaults, constants, empty messages, services, and the
//! packages without a wheel (example_interfaces).

use tacto::Message;
use tacto_msgs::ServiceType;
use tacto_msgs::builtin_interfaces::msg::Time;
use tacto_msgs::example_interfaces::msg::WString;
use tacto_msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request, AddTwoInts_Response};

#[allow(dead_code)] // each test uses some of the test packages
mod test_interfaces {
    include!(concat!(env!("OUT_DIR"), "/test_interfaces.rs"));
}
use test_interfaces::tacto_test_msgs::msg::{
    Bounded, Defaults, Everything, Inner, Nothing, Unbounded,
};
use test_interfaces::tacto_test_msgs::srv::{Lookup, Lookup_Request, Lookup_Response};

/// A way to spoil a valid value, named for the bound it breaks.
type Spoil<T> = (&'static str, fn(&mut T));

fn round_trip<T: Message + PartialEq + std::fmt::Debug>(value: &T) -> Vec<u8> {
    let bytes = tacto::cdr::to_vec(value).unwrap();
    assert_eq!(&tacto::cdr::from_bytes::<T>(&bytes).unwrap(), value);
    bytes
}

#[test]
fn a_wstring_is_a_count_of_utf16_units_then_each_unit_in_four_bytes() {
    // "aé🤖": U+0061, U+00E9, and U+1F916 as the surrogate pair D83E DD16.
    let bytes = round_trip(&WString {
        data: "aé🤖".into(),
    });
    #[rustfmt::skip]
    assert_eq!(bytes, [
        0x00, 0x01, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, // 4 UTF-16 units, no terminator
        0x61, 0x00, 0x00, 0x00,
        0xe9, 0x00, 0x00, 0x00,
        0x3e, 0xd8, 0x00, 0x00,
        0x16, 0xdd, 0x00, 0x00,
    ]);
}

#[test]
fn a_wstring_with_a_lone_surrogate_or_a_unit_past_16_bits_is_a_decoding_error() {
    let lone = [0, 1, 0, 0, 1, 0, 0, 0, 0x3e, 0xd8, 0, 0];
    assert!(tacto::cdr::from_bytes::<WString>(&lone).is_err());
    let wide = [0, 1, 0, 0, 1, 0, 0, 0, 0x00, 0x00, 0x01, 0];
    assert!(tacto::cdr::from_bytes::<WString>(&wide).is_err());
}

/// A generated service is what the runtime's services take: served by one executor's node,
/// called by a blocking client.
#[test]
fn a_generated_service_type_is_served_and_called_by_the_runtime() {
    use std::time::Duration;
    use tacto::{Context, Executor, ExecutorThread, Trigger, WaitSetExecutor};

    let ctx = Context::new();
    let mut node = ctx.node("adder").unwrap();
    let service = node.service::<AddTwoInts>("add_two_ints").create().unwrap();
    node.execute(Trigger::on_request(&service), move |_| {
        while let Some((id, r)) = service.take_request() {
            service.send_response(id, AddTwoInts_Response { sum: r.a + r.b });
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let running = ExecutorThread::builder().spawn(executor).unwrap();

    let mut caller = ctx.node("caller").unwrap();
    let client = caller
        .client::<AddTwoInts>("add_two_ints")
        .create()
        .unwrap();
    let response = client.call(AddTwoInts_Request { a: 2, b: 40 }, Duration::from_secs(60));
    running.stop();
    running.join().unwrap().1.unwrap();
    assert_eq!(response.unwrap().sum, 42);
}

#[test]
fn add_two_ints_is_two_i64_then_one() {
    assert_eq!(AddTwoInts::TYPE_NAME, "example_interfaces/srv/AddTwoInts");
    assert_eq!(
        <AddTwoInts as ServiceType>::Request::TYPE_NAME,
        "example_interfaces/srv/AddTwoInts_Request"
    );
    assert_eq!(
        <AddTwoInts as ServiceType>::Response::TYPE_NAME,
        "example_interfaces/srv/AddTwoInts_Response"
    );
    let request = round_trip(&AddTwoInts_Request { a: 1, b: -2 });
    #[rustfmt::skip]
    assert_eq!(request, [
        0x00, 0x01, 0x00, 0x00,
        0x01, 0, 0, 0, 0, 0, 0, 0,
        0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    let response = round_trip(&AddTwoInts_Response { sum: -1 });
    assert_eq!(response[4..], [0xff; 8]);
}

#[test]
fn an_empty_message_or_request_carries_one_placeholder_byte() {
    assert_eq!(round_trip(&Nothing::default()), [0, 1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        round_trip(&Lookup_Request::default()),
        [0, 1, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(Lookup::TYPE_NAME, "tacto_test_msgs/srv/Lookup");
    let response = Lookup_Response {
        found: vec![Inner {
            x: -1,
            r#type: "kw".into(),
        }],
    };
    round_trip(&response);
}

fn everything() -> Everything {
    Everything {
        b: true,
        by: 0xfe,
        c: b'c',
        i8: -8,
        u8: 8,
        i16: -16,
        u16: 16,
        i32: -32,
        u32: 32,
        i64: -64,
        u64: u64::MAX,
        f32: 0.5,
        f64: -1e-300,
        s: "ünïcode".into(),
        ws: "wïde 🤖".into(),
        bs: "five!".into(),
        bws: "🤖x".into(), // 3 UTF-16 units: at the bound
        fixed: [1, -2, 3],
        long_array: std::array::from_fn(|i| i as f64 / 3.0),
        long_strings: std::array::from_fn(|i| "s".repeat(i)),
        bounded_strings: ["abcd".into(), String::new()],
        bounded_seq: vec![1, 2, 3],
        bounded_seq_of_bounded: vec!["abc".into(), "d".into()],
        wide_seq: vec!["ä".into(), String::new(), "🤖".into()],
        bytes: vec![0, 255, 7],
        times: [
            Time { sec: 1, nanosec: 2 },
            Time {
                sec: -3,
                nanosec: 4,
            },
        ],
        inner: Inner {
            x: 1,
            r#type: "t".into(),
        },
        inners: vec![Inner::default(); 2],
        many_inners: std::array::from_fn(|i| Inner {
            x: i as i8,
            r#type: i.to_string(),
        }),
    }
}

#[test]
fn every_feature_round_trips_at_its_bounds() {
    round_trip(&everything());
    round_trip(&Everything::default());
}

#[test]
fn a_value_past_its_bound_is_an_encoding_error() {
    let cases: [Spoil<Everything>; 5] = [
        ("string<=5", |e| e.bs = "six!!!".into()),
        ("wstring<=3", |e| e.bws = "🤖🤖".into()),
        ("int16[<=3]", |e| e.bounded_seq.push(4)),
        ("string<=3[<=2]", |e| {
            e.bounded_seq_of_bounded[0] = "abcd".into()
        }),
        ("string<=4[2]", |e| e.bounded_strings[1] = "12345".into()),
    ];
    for (what, spoil) in cases {
        let mut value = everything();
        spoil(&mut value);
        let error = tacto::cdr::to_vec(&value).expect_err(what);
        assert!(error.to_string().contains("bound"), "{what}: {error}");
    }
}

#[test]
fn a_value_past_its_bound_on_the_wire_is_a_decoding_error() {
    let fits = Unbounded {
        s: "12345".into(),
        ws: "abc".into(),
        seq: vec![1, 2, 3],
        strings: vec!["ab".into()],
    };
    let bytes = tacto::cdr::to_vec(&fits).unwrap();
    let bounded = tacto::cdr::from_bytes::<Bounded>(&bytes).unwrap();
    assert_eq!(bounded.seq, fits.seq);

    let cases: [Spoil<Unbounded>; 4] = [
        ("string<=5", |u| u.s.push('6')),
        ("wstring<=3", |u| u.ws.push('d')),
        ("int16[<=3]", |u| u.seq.push(4)),
        ("string<=2[]", |u| u.strings.push("abc".into())),
    ];
    for (what, spoil) in cases {
        let mut too_much = fits.clone();
        spoil(&mut too_much);
        let bytes = tacto::cdr::to_vec(&too_much).unwrap();
        let error = tacto::cdr::from_bytes::<Bounded>(&bytes).expect_err(what);
        assert!(
            error.to_string().contains("bound") || error.to_string().contains("at most"),
            "{what}: {error}"
        );
    }
}

#[test]
fn defaults_come_from_the_msg_file() {
    let d = Defaults::default();
    assert!(d.flag);
    assert_eq!(d.count, -7);
    assert_eq!(d.ratio, 0.25);
    assert_eq!(d.big, 1e10);
    assert_eq!(d.name, "hello # not a comment");
    assert_eq!(d.short, "it's");
    assert_eq!(d.wide, "wïde");
    assert_eq!(d.triple, [1, 2, 3]);
    assert_eq!(d.some, [1.5, -2.0]);
    assert_eq!(d.words, ["a, b", "c"]);
    assert_eq!(d.bytes36, [0; 36]);
    assert!(!d.off);
    round_trip(&d);

    // From the shipped packages: a float and a negative integer default.
    assert_eq!(tacto_msgs::geometry_msgs::msg::Quaternion::default().w, 1.0);
    assert_eq!(
        tacto_msgs::sensor_msgs::msg::NavSatStatus::default().status,
        -2
    );
}

#[test]
fn constants_are_associated_consts_of_their_type() {
    assert_eq!(Defaults::BYTE_MAX, 255u8);
    assert_eq!(Defaults::MIN, i64::MIN);
    assert_eq!(Defaults::MAX, u64::MAX);
    assert_eq!(Defaults::GREETING, "hi there");
    assert_eq!(Defaults::HALF, 0.5f64);
    assert_eq!(Defaults::TENTH, 0.1f32);
    const { assert!(Defaults::YES) };
    assert_eq!(
        tacto_msgs::sensor_msgs::msg::NavSatStatus::STATUS_NO_FIX,
        -1i8
    );
    assert_eq!(tacto_msgs::rcl_interfaces::msg::Log::FATAL, 50u8);
}

#[test]
fn generated_and_hand_written_standard_types_share_names_and_bytes() {
    use tacto::msg::std_msgs as hand;
    use tacto_msgs::std_msgs::msg as generated;
    assert_eq!(hand::Header::TYPE_NAME, generated::Header::TYPE_NAME);
    let header = generated::Header {
        stamp: Time { sec: 3, nanosec: 4 },
        frame_id: "map".into(),
    };
    let bytes = tacto::cdr::to_vec(&header).unwrap();
    let theirs = tacto::cdr::from_bytes::<hand::Header>(&bytes).unwrap();
    assert_eq!(theirs.frame_id, "map");
    assert_eq!(tacto::cdr::to_vec(&theirs).unwrap(), bytes);
}
