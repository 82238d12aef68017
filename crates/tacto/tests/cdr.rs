//! ROS 2 CDR encodings checked against bytes worked out by hand from the rules in `tacto::cdr`:
//! header `00 01 00 00`, primitives aligned to their size counted from after the header,
//! strings as length-with-NUL + bytes + NUL, sequences as count + elements, fixed arrays as bare
//! elements, and the whole payload zero-padded to a multiple of 4 as rmw_cyclonedds sends it.

use serde::{Deserialize, Serialize};
use std::mem::MaybeUninit;
use tacto::Message;

use tacto::cdr::{
    DecodeError, EncodeError, cheap_encoded_len, encode_into, encode_to_slice, encoded_len,
    from_bytes, to_vec,
};
use tacto::msg::builtin_interfaces::{Duration, Time};
use tacto::msg::rosgraph_msgs::Clock;
use tacto::msg::std_msgs::{Empty, Header, String};

const LE: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// The encapsulation header followed by `body`.
fn payload(body: &[u8]) -> Vec<u8> {
    [&LE[..], body].concat()
}

fn round_trip<T>(value: &T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = to_vec(value).expect("encodes");
    assert_eq!(bytes.len() % 4, 0, "payload is padded to 4 bytes");
    assert_eq!(&from_bytes::<T>(&bytes).expect("decodes"), value);
    assert_eq!(encoded_len(value).unwrap(), bytes.len(), "measured exactly");
    let mut slot = vec![MaybeUninit::uninit(); bytes.len()];
    assert_eq!(encode_to_slice(value, &mut slot).unwrap(), bytes.len());
}

#[test]
fn encoding_in_place_needs_a_buffer_of_the_measured_length() {
    let msg = Header {
        stamp: Time { sec: 1, nanosec: 2 },
        frame_id: "map".into(),
    };
    let len = encoded_len(&msg).unwrap();
    assert_eq!(len, to_vec(&msg).unwrap().len());
    let mut short = vec![MaybeUninit::new(0); len - 1];
    assert!(matches!(
        encode_to_slice(&msg, &mut short),
        Err(EncodeError::BufferTooSmall { len: l }) if l == len - 1
    ));
    let mut long = vec![MaybeUninit::new(0); len + 8];
    assert_eq!(encode_to_slice(&msg, &mut long).unwrap(), len);
}

#[test]
fn std_string_hello_is_length_six_with_nul_then_padding_to_four() {
    // body: len u32 = 6 ("hello" + NUL) @0..4 | "hello" @4..9 | NUL @9 | 10 bytes → 2 pad bytes
    let expected = payload(&[
        0x06, 0x00, 0x00, 0x00, b'h', b'e', b'l', b'l', b'o', 0x00, 0x00, 0x00,
    ]);
    let msg = String {
        data: "hello".into(),
    };
    assert_eq!(to_vec(&msg).unwrap(), expected);
    assert_eq!(from_bytes::<String>(&expected).unwrap(), msg);
}

#[test]
fn empty_string_is_length_one_holding_only_the_nul() {
    // body: len u32 = 1 @0..4 | NUL @4 | 5 bytes → 3 pad bytes
    let expected = payload(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
    assert_eq!(to_vec(&String::default()).unwrap(), expected);
}

#[test]
fn header_is_time_then_frame_id_string() {
    // body: sec i32 = 1 @0..4 | nanosec u32 = 2 @4..8 | len u32 = 4 ("map" + NUL) @8..12
    //       (8 is 4-aligned: no pad) | "map" NUL @12..16 | 16 bytes, no trailing pad
    let expected = payload(&[
        0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, b'm', b'a', b'p',
        0x00,
    ]);
    let msg = Header {
        stamp: Time { sec: 1, nanosec: 2 },
        frame_id: "map".into(),
    };
    assert_eq!(to_vec(&msg).unwrap(), expected);
    assert_eq!(from_bytes::<Header>(&expected).unwrap(), msg);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct ByteThenU64 {
    a: u8,
    b: u64,
}

#[test]
fn u64_after_u8_gets_seven_padding_bytes_counted_from_after_the_header() {
    // body: a @0 | pad @1..8 | b @8..16. Counting from the start of the buffer instead would
    // put b at buffer offset 8 after 3 pad bytes: the 7 here proves the header is not counted.
    let expected = payload(&[
        0xAA, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    ]);
    let v = ByteThenU64 {
        a: 0xAA,
        b: 0x0102_0304_0506_0708,
    };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<ByteThenU64>(&expected).unwrap(), v);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct ByteThenF64 {
    a: u8,
    b: f64,
}

#[test]
fn f64_after_u8_gets_seven_padding_bytes() {
    // body: a @0 | pad @1..8 | b = 1.0 = 0x3FF0_0000_0000_0000 little-endian @8..16
    let expected = payload(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F]);
    let v = ByteThenF64 { a: 1, b: 1.0 };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<ByteThenF64>(&expected).unwrap(), v);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct SmallAlignments {
    a: u8,
    b: u16,
    c: u8,
    d: u32,
}

#[test]
fn u16_after_u8_gets_one_padding_byte_and_u32_after_u8_gets_three() {
    // body: a @0 | pad @1 | b @2..4 | c @4 | pad @5..8 | d @8..12 | 12 bytes, no trailing pad
    let expected = payload(&[0x11, 0, 0x22, 0x11, 0x33, 0, 0, 0, 0x44, 0x33, 0x22, 0x11]);
    let v = SmallAlignments {
        a: 0x11,
        b: 0x1122,
        c: 0x33,
        d: 0x1122_3344,
    };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<SmallAlignments>(&expected).unwrap(), v);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct StringThenU32 {
    s: std::string::String,
    n: u32,
}

#[test]
fn a_u32_after_a_string_is_realigned() {
    // body: len = 3 ("ab" + NUL) @0..4 | "ab" NUL @4..7 | pad @7 | n @8..12
    let expected = payload(&[3, 0, 0, 0, b'a', b'b', 0, 0, 0x2A, 0, 0, 0]);
    let v = StringThenU32 {
        s: "ab".into(),
        n: 42,
    };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<StringThenU32>(&expected).unwrap(), v);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct ArrayAndSequence {
    fixed: [u16; 3],
    seq: Vec<u16>,
}

#[test]
fn a_fixed_array_has_no_length_prefix_but_a_sequence_has_a_count() {
    // body: fixed = 3 × u16 @0..6 (no length) | pad @6..8 | count u32 = 2 @8..12
    //       | seq = 2 × u16 @12..16 | 16 bytes, no trailing pad
    let expected = payload(&[1, 0, 2, 0, 3, 0, 0, 0, 2, 0, 0, 0, 4, 0, 5, 0]);
    let v = ArrayAndSequence {
        fixed: [1, 2, 3],
        seq: vec![4, 5],
    };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<ArrayAndSequence>(&expected).unwrap(), v);
}

#[test]
fn a_sequence_of_strings_aligns_each_length() {
    // body: count = 2 @0..4 | len 2 @4..8 | "a" NUL @8..10 | pad @10..12 | len 3 @12..16
    //       | "bc" NUL @16..19 | 19 bytes → 1 trailing pad
    let expected = payload(&[
        2, 0, 0, 0, 2, 0, 0, 0, b'a', 0, 0, 0, 3, 0, 0, 0, b'b', b'c', 0, 0,
    ]);
    let v: Vec<std::string::String> = vec!["a".into(), "bc".into()];
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(
        from_bytes::<Vec<std::string::String>>(&expected).unwrap(),
        v
    );
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Flags {
    a: bool,
    b: bool,
    n: u16,
}

#[test]
fn bool_is_one_byte() {
    // body: a @0 | b @1 | n @2..4 (already 2-aligned)
    let expected = payload(&[1, 0, 7, 0]);
    let v = Flags {
        a: true,
        b: false,
        n: 7,
    };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<Flags>(&expected).unwrap(), v);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Inner {
    b: u32,
    c: u8,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Outer {
    a: u8,
    inner: Inner,
    d: u16,
}

#[test]
fn a_nested_struct_is_its_fields_inline_with_no_header() {
    // body: a @0 | pad @1..4 | inner.b @4..8 | inner.c @8 | pad @9 | d @10..12
    let expected = payload(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 4, 0]);
    let v = Outer {
        a: 1,
        inner: Inner { b: 2, c: 3 },
        d: 4,
    };
    assert_eq!(to_vec(&v).unwrap(), expected);
    assert_eq!(from_bytes::<Outer>(&expected).unwrap(), v);
}

#[test]
fn empty_is_one_zero_byte_on_the_wire() {
    // body: structure_needs_at_least_one_field u8 = 0 @0 | 1 byte → 3 trailing pad
    let expected = payload(&[0, 0, 0, 0]);
    assert_eq!(to_vec(&Empty::default()).unwrap(), expected);
    assert_eq!(
        from_bytes::<Empty>(&payload(&[0])).unwrap(),
        Empty::default()
    );
}

#[test]
fn clock_is_a_bare_time() {
    // body: clock.sec = -1 @0..4 | clock.nanosec = 500_000_000 = 0x1DCD_6500 @4..8
    let expected = payload(&[0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x65, 0xCD, 0x1D]);
    let msg = Clock {
        clock: Time {
            sec: -1,
            nanosec: 500_000_000,
        },
    };
    assert_eq!(to_vec(&msg).unwrap(), expected);
}

#[test]
fn every_standard_message_round_trips() {
    let t = Time {
        sec: 1_700_000_000,
        nanosec: 999_999_999,
    };
    round_trip(&t);
    round_trip(&Duration {
        sec: -3,
        nanosec: 250,
    });
    round_trip(&Clock { clock: t });
    round_trip(&String {
        data: "héllo, wörld ✓".into(),
    });
    round_trip(&String::default());
    round_trip(&Header {
        stamp: t,
        frame_id: "base_link".into(),
    });
    round_trip(&Header::default());
    round_trip(&Empty::default());
}

#[test]
fn messages_carry_their_ros_type_names() {
    assert_eq!(String::TYPE_NAME, "std_msgs/msg/String");
    assert_eq!(Header::TYPE_NAME, "std_msgs/msg/Header");
    assert_eq!(Empty::TYPE_NAME, "std_msgs/msg/Empty");
    assert_eq!(Time::TYPE_NAME, "builtin_interfaces/msg/Time");
    assert_eq!(Duration::TYPE_NAME, "builtin_interfaces/msg/Duration");
    assert_eq!(Clock::TYPE_NAME, "rosgraph_msgs/msg/Clock");
}

/// Large byte buffers and a string with padding between them: odd lengths, then an `f64`
/// (up to 7 bytes of padding), a `u16`, a `u32`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Blobs {
    tag: u8,
    #[serde(with = "tacto::idl::Bytes")]
    first: Vec<u8>,
    scale: f64,
    #[serde(with = "tacto::idl::Bytes")]
    second: Vec<u8>,
    flags: u16,
    name: std::string::String,
    #[serde(with = "tacto::idl::Bytes")]
    third: Vec<u8>,
    count: u32,
    small: Vec<f32>,
}

fn blobs(numbers: usize) -> Blobs {
    Blobs {
        tag: 7,
        first: vec![1; 100_001],
        scale: 0.5,
        second: vec![2; 65_537],
        flags: 3,
        name: "x".repeat(70_001),
        third: vec![3; 3],
        count: 9,
        small: vec![1.5; numbers],
    }
}

#[test]
fn a_message_of_large_buffers_is_counted_cheaply_and_exactly() {
    let msg = blobs(10);
    let len = encoded_len(&msg).unwrap();
    assert_eq!(cheap_encoded_len(&msg), Some(len));
    assert_eq!(len, to_vec(&msg).unwrap().len());
    // A hundred numbers are counted whatever they weigh.
    let fields: Vec<u8> = (0..100).collect();
    assert_eq!(
        cheap_encoded_len(&fields),
        Some(encoded_len(&fields).unwrap())
    );
}

#[test]
fn a_long_sequence_of_numbers_is_not_counted_cheaply() {
    assert_eq!(cheap_encoded_len(&vec![1.5f32; 100_000]), None);
    assert_eq!(cheap_encoded_len(&vec![1u64; 100_000]), None);
    // Even behind large buffers, whose bytes pay for a few thousand small writes only.
    assert_eq!(cheap_encoded_len(&blobs(100_000)), None);
}

#[test]
fn what_does_not_encode_is_not_counted() {
    let too_deep: Option<u8> = Some(1);
    assert!(to_vec(&too_deep).is_err());
    assert_eq!(cheap_encoded_len(&too_deep), None);
}

#[test]
fn encode_into_replaces_the_contents_and_keeps_the_allocation() {
    let mut buf = Vec::with_capacity(64);
    buf.extend_from_slice(b"stale bytes");
    let ptr = buf.as_ptr();
    encode_into(&Time { sec: 1, nanosec: 2 }, &mut buf).unwrap();
    assert_eq!(buf, payload(&[1, 0, 0, 0, 2, 0, 0, 0]));
    encode_into(&Empty::default(), &mut buf).unwrap();
    assert_eq!(buf, payload(&[0, 0, 0, 0]));
    assert_eq!(buf.as_ptr(), ptr, "no reallocation");
}

#[test]
fn big_endian_data_decodes() {
    // header 00 00 = CDR big-endian | sec = 1 | nanosec = 2 | len 3 | "ok" NUL
    let bytes = [
        0x00, 0x00, 0x00, 0x00, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, b'o', b'k', 0,
    ];
    let msg: Header = from_bytes(&bytes).unwrap();
    assert_eq!(
        msg,
        Header {
            stamp: Time { sec: 1, nanosec: 2 },
            frame_id: "ok".into(),
        }
    );
}

#[test]
fn options_bytes_and_trailing_padding_are_ignored() {
    // XTypes writers put the trailing pad count (here 2) in the options' low bits.
    let bytes = [0x00, 0x01, 0x00, 0x02, 3, 0, 0, 0, b'h', b'i', 0, 0, 0, 0];
    assert_eq!(from_bytes::<String>(&bytes).unwrap().data, "hi");
}

#[test]
fn a_zero_length_string_decodes_as_empty_like_rmw_cyclonedds() {
    let bytes = payload(&[0, 0, 0, 0]);
    assert_eq!(from_bytes::<String>(&bytes).unwrap().data, "");
}

#[test]
fn every_truncation_of_a_message_is_an_error_not_a_panic() {
    let full = to_vec(&Header {
        stamp: Time { sec: 1, nanosec: 2 },
        frame_id: "map".into(),
    })
    .unwrap();
    for len in 4..full.len() {
        let err = from_bytes::<Header>(&full[..len]).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Truncated { .. } | DecodeError::LengthTooLarge { .. }
            ),
            "{len} bytes: {err:?}"
        );
    }
}

#[test]
fn data_ending_mid_primitive_reports_where_and_how_much() {
    // Time needs 8 body bytes; give 6.
    let err = from_bytes::<Time>(&payload(&[1, 0, 0, 0, 2, 0])).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::Truncated {
                offset: 4,
                wanted: 4,
                available: 2
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_buffer_shorter_than_the_header_is_rejected() {
    for bytes in [&[][..], &[0x00], &[0x00, 0x01, 0x00]] {
        let err = from_bytes::<Empty>(bytes).unwrap_err();
        assert!(matches!(err, DecodeError::MissingHeader { .. }), "{err:?}");
    }
}

#[test]
fn xcdr2_and_parameter_list_encapsulations_are_rejected() {
    for id in [
        [0x00, 0x07],
        [0x00, 0x06],
        [0x00, 0x03],
        [0x00, 0x0B],
        [0x01, 0x01],
    ] {
        let bytes = [id[0], id[1], 0, 0, 0, 0, 0, 0];
        let err = from_bytes::<Empty>(&bytes).unwrap_err();
        assert!(
            matches!(err, DecodeError::UnsupportedEncapsulation { id: got } if got == id),
            "{id:?}: {err:?}"
        );
    }
}

#[test]
fn a_huge_string_length_is_rejected_before_allocating() {
    let bytes = payload(&[0xFF, 0xFF, 0xFF, 0xFF, b'h', b'i', 0]);
    let err = from_bytes::<String>(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::LengthTooLarge {
                len: u32::MAX,
                offset: 0,
                remaining: 3
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_huge_sequence_count_is_rejected_before_allocating() {
    let bytes = payload(&[0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4]);
    let err = from_bytes::<Vec<u64>>(&bytes).unwrap_err();
    assert!(
        matches!(err, DecodeError::LengthTooLarge { len: u32::MAX, .. }),
        "{err:?}"
    );
}

#[test]
fn a_string_without_its_nul_is_rejected() {
    // len 3 but the third byte is '!' instead of NUL
    let bytes = payload(&[3, 0, 0, 0, b'h', b'i', b'!']);
    let err = from_bytes::<String>(&bytes).unwrap_err();
    assert!(
        matches!(err, DecodeError::MissingNul { offset: 4 }),
        "{err:?}"
    );
}

#[test]
fn a_string_with_invalid_utf8_is_rejected() {
    // 0xC3 starts a two-byte sequence that 0x28 cannot continue
    let bytes = payload(&[3, 0, 0, 0, 0xC3, 0x28, 0]);
    let err = from_bytes::<String>(&bytes).unwrap_err();
    assert!(
        matches!(err, DecodeError::InvalidUtf8 { offset: 4, .. }),
        "{err:?}"
    );
}

#[test]
fn a_bool_other_than_zero_or_one_is_rejected() {
    let err = from_bytes::<Flags>(&payload(&[2, 0, 0, 0])).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::InvalidBool {
                value: 2,
                offset: 0
            }
        ),
        "{err:?}"
    );
}

#[test]
fn types_without_a_ros_cdr_form_are_refused_on_both_sides() {
    let err = to_vec(&Some(1u8)).unwrap_err();
    assert!(
        matches!(err, EncodeError::Unsupported { what: "Option" }),
        "{err:?}"
    );
    let map = std::collections::BTreeMap::from([(1u8, 2u8)]);
    assert!(matches!(
        to_vec(&map).unwrap_err(),
        EncodeError::Unsupported { what: "map" }
    ));
    assert!(matches!(
        from_bytes::<Option<u8>>(&payload(&[1, 0, 0, 0])).unwrap_err(),
        DecodeError::Unsupported { what: "Option" }
    ));
}

#[test]
fn errors_read_as_sentences() {
    let err = from_bytes::<Empty>(&[0x00, 0x07, 0, 0, 0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unsupported CDR encapsulation 00 07: only plain CDR (XCDR1) is supported"
    );
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Everything {
    header: Header,
    flags: Vec<bool>,
    names: Vec<std::string::String>,
    grid: [[f64; 2]; 2],
    nested: Vec<Outer>,
}

#[test]
fn random_bytes_never_panic_the_decoder() {
    // A fixed xorshift stream, so a failure reproduces; half the buffers get a valid header so
    // the body decoder sees most of them.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..20_000 {
        let len = (next() % 64) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if round % 2 == 0 && bytes.len() >= 4 {
            bytes[..4].copy_from_slice(&LE);
            // Small counts, so sequences get past the length check and into their elements.
            if let Some(b) = bytes.get_mut(12) {
                *b %= 4;
            }
        }
        let _ = from_bytes::<Header>(&bytes);
        let _ = from_bytes::<Everything>(&bytes);
        let _ = from_bytes::<Vec<std::string::String>>(&bytes);
    }
}

/// The same fields, element by element (serde's own `Vec`) and as blocks (`idl::Numbers`).
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct PerElement {
    lead: u8,
    f64s: Vec<f64>,
    i8s: Vec<i8>,
    f32s: Vec<f32>,
    u16s: Vec<u16>,
    i64s: Vec<i64>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Blocks {
    lead: u8,
    #[serde(with = "tacto::idl::Numbers")]
    f64s: Vec<f64>,
    #[serde(with = "tacto::idl::Numbers")]
    i8s: Vec<i8>,
    #[serde(with = "tacto::idl::Numbers")]
    f32s: Vec<f32>,
    #[serde(with = "tacto::idl::Numbers")]
    u16s: Vec<u16>,
    #[serde(with = "tacto::idl::Numbers")]
    i64s: Vec<i64>,
}

#[test]
fn sequences_of_numbers_as_blocks_are_the_cdr_of_their_elements() {
    // Lengths 0 to 3 in every field, so that each block starts at every alignment, empty
    // sequences (no padding without a first element) among them.
    for n in 0..4usize {
        for m in 0..4usize {
            let per_element = PerElement {
                lead: 7,
                f64s: (0..n).map(|i| i as f64 * -1.5).collect(),
                i8s: (0..m).map(|i| -(i as i8)).collect(),
                f32s: (0..m).map(|i| i as f32 + 0.25).collect(),
                u16s: (0..n).map(|i| 65_535 - i as u16).collect(),
                i64s: (0..m).map(|i| i64::MIN + i as i64).collect(),
            };
            let blocks = Blocks {
                lead: 7,
                f64s: per_element.f64s.clone(),
                i8s: per_element.i8s.clone(),
                f32s: per_element.f32s.clone(),
                u16s: per_element.u16s.clone(),
                i64s: per_element.i64s.clone(),
            };
            let bytes = to_vec(&per_element).unwrap();
            assert_eq!(to_vec(&blocks).unwrap(), bytes, "n {n}, m {m}");
            assert_eq!(
                from_bytes::<Blocks>(&bytes).unwrap(),
                blocks,
                "n {n}, m {m}"
            );
            round_trip(&blocks);
            // Counted in one write per block: cheap enough to encode in place.
            assert_eq!(cheap_encoded_len(&blocks), Some(bytes.len()));
        }
    }
}

#[test]
fn a_block_of_numbers_counts_cheaply_however_long() {
    let scan = Blocks {
        f32s: vec![0.5; 1 << 20],
        ..Default::default()
    };
    assert_eq!(cheap_encoded_len(&scan), Some(encoded_len(&scan).unwrap()));
}

#[test]
fn a_big_endian_block_of_numbers_decodes() {
    let bytes = [
        0x00, 0x00, 0x00, 0x00, // CDR big-endian
        7, 0, 0, 0, // lead, padding
        0, 0, 0, 1, // one f64
        0x3f, 0xf8, 0, 0, 0, 0, 0, 0, // 1.5 (aligned: offset 8)
        0, 0, 0, 0, // no i8
        0, 0, 0, 2, // two f32
        0x40, 0x20, 0, 0, 0xbf, 0x80, 0, 0, // 2.5, -1.0
        0, 0, 0, 1, 0x12, 0x34, // one u16
        0, 0, 0, 0, 0, 0, // padding, no i64
    ];
    let decoded = from_bytes::<Blocks>(&bytes).unwrap();
    assert_eq!(decoded.f64s, [1.5]);
    assert_eq!(decoded.f32s, [2.5, -1.0]);
    assert_eq!(decoded.u16s, [0x1234]);
    assert_eq!(
        decoded,
        from_bytes::<PerElement>(&bytes)
            .map(|p| Blocks {
                lead: p.lead,
                f64s: p.f64s,
                i8s: p.i8s,
                f32s: p.f32s,
                u16s: p.u16s,
                i64s: p.i64s,
            })
            .unwrap()
    );
}

#[test]
fn a_big_endian_array_block_decodes_as_its_elements_one_by_one() {
    let bytes = [
        0x00, 0x00, 0x00, 0x00, // CDR big-endian
        7,    // lead
        0, 0, 0, 0, 0, 0, 0, // padding to 8
        0x3f, 0xf8, 0, 0, 0, 0, 0, 0, // f64s: 1.5
        0, 0, 0, 0, 0, 0, 0, 0, // 0.0
        0xc0, 0, 0, 0, 0, 0, 0, 0, // -2.0
        0xff, 2, // i8s
        1, 2, 3, 4, 5, // u8s
        0, // padding to 4
        0x3e, 0x80, 0, 0, // f32s: 0.25
        0xff, 0xff, 0, 0, 0, 9, // u16s
        0, 0, 0, 0, 0, 0, // padding to 8 (the empty array adds none)
        0x80, 0, 0, 0, 0, 0, 0, 0, // i64s: MIN
        0, 0, 0, 0, 0, 0, 0, 3, // 3
    ];
    let blocks = from_bytes::<ArrayBlocks>(&bytes).unwrap();
    let per_element = from_bytes::<ArraysPerElement>(&bytes).unwrap();
    assert_eq!(blocks.f64s, [1.5, 0.0, -2.0]);
    assert_eq!(blocks.u16s, [65_535, 0, 9]);
    assert_eq!(blocks.i64s, [i64::MIN, 3]);
    assert_eq!(
        blocks,
        ArrayBlocks {
            lead: per_element.lead,
            f64s: per_element.f64s,
            i8s: per_element.i8s,
            u8s: per_element.u8s,
            f32s: per_element.f32s,
            u16s: per_element.u16s,
            empty: per_element.empty,
            i64s: per_element.i64s,
        }
    );
}

#[test]
fn a_block_count_past_the_data_is_refused_before_anything_is_allocated() {
    // lead, padding, then a count of 2^32 - 1 doubles in 8 bytes.
    let bytes = payload(&[7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(
        from_bytes::<Blocks>(&bytes),
        Err(DecodeError::LengthTooLarge { .. })
    ));
    // A count the bytes could hold one by one, but not eight by eight.
    let bytes = payload(&[7, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(from_bytes::<Blocks>(&bytes).is_err());
}

#[test]
fn human_readable_formats_see_a_plain_sequence_of_numbers() {
    let blocks = Blocks {
        f32s: vec![1.5, -2.0],
        ..Default::default()
    };
    let json = serde_json::to_string(&blocks).unwrap();
    assert!(json.contains(r#""f32s":[1.5,-2.0]"#), "{json}");
    assert_eq!(serde_json::from_str::<Blocks>(&json).unwrap(), blocks);
}

/// Fixed-size arrays of numbers element by element (serde's own arrays, up to 32) and through
/// `idl::Array<Plain>`, which hands them over as one block.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct ArraysPerElement {
    lead: u8,
    f64s: [f64; 3],
    i8s: [i8; 2],
    u8s: [u8; 5],
    f32s: [f32; 1],
    u16s: [u16; 3],
    empty: [u64; 0],
    i64s: [i64; 2],
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct ArrayBlocks {
    lead: u8,
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    f64s: [f64; 3],
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    i8s: [i8; 2],
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    u8s: [u8; 5],
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    f32s: [f32; 1],
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    u16s: [u16; 3],
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    empty: [u64; 0],
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    i64s: [i64; 2],
}

#[test]
fn arrays_of_numbers_as_blocks_are_the_cdr_of_their_elements() {
    let per_element = ArraysPerElement {
        lead: 7,
        f64s: [1.5, -0.0, f64::MAX],
        i8s: [-1, 2],
        u8s: [1, 2, 3, 4, 5],
        f32s: [0.25],
        u16s: [65_535, 0, 9],
        empty: [],
        i64s: [i64::MIN, 3],
    };
    let blocks = ArrayBlocks {
        lead: 7,
        f64s: per_element.f64s,
        i8s: per_element.i8s,
        u8s: per_element.u8s,
        f32s: per_element.f32s,
        u16s: per_element.u16s,
        empty: [],
        i64s: per_element.i64s,
    };
    let bytes = to_vec(&per_element).unwrap();
    assert_eq!(to_vec(&blocks).unwrap(), bytes);
    assert_eq!(from_bytes::<ArrayBlocks>(&bytes).unwrap(), blocks);
    round_trip(&blocks);
    // One write per block: counted cheaply.
    assert_eq!(cheap_encoded_len(&blocks), Some(bytes.len()));
    // Too short for its arrays: an error, as one by one.
    assert!(from_bytes::<ArrayBlocks>(&bytes[..bytes.len() - 1]).is_err());
    let json = serde_json::to_string(&blocks).unwrap();
    assert!(json.contains(r#""u16s":[65535,0,9]"#), "{json}");
    assert_eq!(serde_json::from_str::<ArrayBlocks>(&json).unwrap(), blocks);
}

#[test]
fn a_big_array_of_bytes_is_its_bytes_after_the_padding() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Frame {
        lead: u16,
        #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
        pixels: [u8; 4099],
        #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
        depth: [f32; 40],
    }
    let frame = Frame {
        lead: 0x0102,
        pixels: std::array::from_fn(|i| (i % 251) as u8),
        depth: std::array::from_fn(|i| i as f32 * 0.5),
    };
    let mut body = vec![2, 1];
    body.extend_from_slice(&frame.pixels);
    body.resize(body.len().next_multiple_of(4), 0);
    body.extend(frame.depth.iter().flat_map(|d| d.to_le_bytes()));
    let bytes = to_vec(&frame).unwrap();
    assert_eq!(bytes, payload(&body));
    assert_eq!(from_bytes::<Frame>(&bytes).unwrap(), frame);
}
