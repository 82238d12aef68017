//! The flat types tacto-msggen generates, compiled and used: through a context, in CDR
//! against the same `.msg` generated without `flat`, with a stable layout, defaults and
//! constants.

use tacto::{Context, Flat, FlatLayout, FlatString, Message};
use tacto_msggen_flat_test::flat::flat_test_msgs::msg as flat;
use tacto_msggen_flat_test::plain::flat_test_msgs::msg as plain;

/// A frame with every field away from its default, built on the heap as a user would.
fn frame() -> Box<flat::Frame> {
    let mut frame: Box<flat::Frame> = tacto::flat::zeroed_box();
    frame.stamp = flat::Stamp {
        sec: -3,
        nanosec: 999_999_999,
    };
    frame.camera.set("left-wide-angle").unwrap(); // 15 of 16 bytes
    frame.encoding = flat::Frame::ENCODING_RGB8.into();
    frame.width = 1920;
    frame.calibration = [0.5, -1.25, f64::MAX, f64::MIN_POSITIVE];
    for (i, pixel) in frame.pixels.iter_mut().enumerate() {
        *pixel = (i as u8).wrapping_mul(5);
    }
    frame.exposures[1] = flat::Stamp { sec: 7, nanosec: 8 };
    frame.tag = *b"tag\0\0\0\0x";
    for (i, sample) in frame.samples.iter_mut().enumerate() {
        *sample = i16::MIN + i as i16 * 500;
    }
    frame
}

/// The same frame as the type generated without `flat`.
fn plain_frame() -> plain::Frame {
    let frame = frame();
    let stamp = |s: flat::Stamp| plain::Stamp {
        sec: s.sec,
        nanosec: s.nanosec,
    };
    plain::Frame {
        stamp: stamp(frame.stamp),
        camera: frame.camera.as_str().unwrap().to_owned(),
        encoding: frame.encoding,
        width: frame.width,
        calibration: frame.calibration,
        pixels: frame.pixels,
        exposures: frame.exposures.map(stamp),
        tag: frame.tag,
        samples: frame.samples,
    }
}

#[test]
fn a_generated_flat_message_travels_through_a_context() {
    let ctx = Context::new();
    let mut node = ctx.node("camera").unwrap();
    let publisher = node.publisher::<flat::Frame>("frames").create().unwrap();
    let flat_sub = node.subscription::<flat::Frame>("frames").create().unwrap();
    // A Rust type of the same ROS type, not flat: it gets the sample as CDR.
    let plain_sub = node
        .subscription::<plain::Frame>("frames")
        .create()
        .unwrap();

    let mut loan = publisher.loan_flat();
    *loan = *frame();
    loan.publish();
    publisher.publish(flat::Frame::default());

    assert_eq!(*flat_sub.take().unwrap(), *frame());
    assert_eq!(*flat_sub.take().unwrap(), flat::Frame::default());
    assert_eq!(*plain_sub.take().unwrap(), plain_frame());
    assert_eq!(*plain_sub.take().unwrap(), plain::Frame::default());
    assert_eq!(plain_sub.malformed(), 0);

    // And back: a publisher of the plain type reaches the flat subscription.
    let plain_publisher = node.publisher::<plain::Frame>("frames").create().unwrap();
    plain_publisher.publish(plain_frame());
    assert_eq!(*flat_sub.take().unwrap(), *frame());
    assert_eq!(flat_sub.malformed(), 0);
}

#[test]
fn the_flat_and_plain_generations_have_the_same_cdr() {
    let flat_bytes = tacto::cdr::to_vec(&*frame()).unwrap();
    assert_eq!(flat_bytes, tacto::cdr::to_vec(&plain_frame()).unwrap());
    assert_eq!(
        tacto::cdr::from_bytes::<plain::Frame>(&flat_bytes).unwrap(),
        plain_frame()
    );
    assert_eq!(
        tacto::cdr::from_bytes::<flat::Frame>(&flat_bytes).unwrap(),
        *frame()
    );
    assert_eq!(
        tacto::cdr::to_vec(&flat::Frame::default()).unwrap(),
        tacto::cdr::to_vec(&plain::Frame::default()).unwrap()
    );
    assert_eq!(flat::Frame::TYPE_HASH, plain::Frame::TYPE_HASH);
    assert_eq!(flat::Frame::TYPE_NAME, plain::Frame::TYPE_NAME);
    assert!(flat::Frame::TYPE_HASH.unwrap().starts_with("RIHS01_"));
}

/// `string<=16`: a `FlatString<16>` in the flat type, a `String` with `idl::BoundedString<16>`
/// in the plain one; the same bytes on the wire, and the same refusal of a longer string.
#[test]
fn a_flat_string_is_a_bounded_string_on_the_wire() {
    for text in ["", "a", "exactly16bytes!!", "é and ü: 16 b."] {
        let mut frame = frame();
        frame.camera.set(text).unwrap();
        let mut plain = plain_frame();
        plain.camera = text.to_owned();
        let bytes = tacto::cdr::to_vec(&*frame).unwrap();
        assert_eq!(bytes, tacto::cdr::to_vec(&plain).unwrap(), "{text:?}");
        let back = tacto::cdr::from_bytes::<flat::Frame>(&bytes).unwrap();
        assert_eq!(back.camera.as_str(), Ok(text));
    }
    let mut plain = plain_frame();
    plain.camera = "seventeen bytes!!".to_owned();
    assert!(tacto::cdr::to_vec(&plain).is_err());
    // Bytes that a peer without the bound could send: both generations refuse them.
    plain.camera = "short".to_owned();
    let bytes = tacto::cdr::to_vec(&plain).unwrap();
    let camera_at = 4 + 8; // encapsulation header, then the 8 bytes of `stamp`
    assert_eq!(&bytes[camera_at..camera_at + 4], &6u32.to_le_bytes());
    // A string 8 or 16 bytes longer keeps the fields after it aligned.
    let with_camera = |camera: &[u8]| {
        let mut spliced = bytes[..camera_at].to_vec();
        spliced.extend_from_slice(&(camera.len() as u32 + 1).to_le_bytes());
        spliced.extend_from_slice(camera);
        spliced.push(0);
        spliced.extend_from_slice(&bytes[camera_at + 4 + 6..]);
        spliced
    };
    let fits = with_camera(b"thirteen char");
    assert_eq!(
        tacto::cdr::from_bytes::<flat::Frame>(&fits)
            .unwrap()
            .camera
            .as_str(),
        Ok("thirteen char")
    );
    let long = with_camera(b"twenty-one characters");
    assert!(tacto::cdr::from_bytes::<flat::Frame>(&long).is_err());
    assert!(tacto::cdr::from_bytes::<plain::Frame>(&long).is_err());
}

#[test]
fn the_flat_layout_is_that_of_the_msg_file_and_stable() {
    // The sizes the generator computed (see Frame.msg), with no padding anywhere.
    assert_eq!(size_of::<flat::Stamp>(), 8);
    assert_eq!(align_of::<flat::Stamp>(), 4);
    assert_eq!(size_of::<flat::Frame>(), 216);
    assert_eq!(align_of::<flat::Frame>(), 8);
    // Processes built from the same .msg file agree on the layout only if every generation
    // writes the same Rust types (the hash covers fields as written): a change here breaks
    // flat messages between builds of different tacto-msggen versions, so it must be
    // deliberate, and said.
    assert_eq!(
        (flat::Frame::LAYOUT, flat::Stamp::LAYOUT),
        (
            FlatLayout {
                size: 216,
                hash: 11342615117891798045
            },
            FlatLayout {
                size: 8,
                hash: 1696278938397361322
            }
        )
    );
}

#[test]
fn defaults_and_constants_stay() {
    let frame = flat::Frame::default();
    assert_eq!(frame.camera.as_str(), Ok("front"));
    assert_eq!(
        frame.camera,
        FlatString::<16>::try_from(flat::Frame::DEFAULT_CAMERA).unwrap()
    );
    assert_eq!((frame.encoding, frame.width), (1, 640));
    assert_eq!(frame.calibration, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(frame.pixels, [0; 48]);
    assert_eq!(frame.samples, [0; 40]);
    assert_eq!(frame.stamp, flat::Stamp::default());
    assert_eq!(
        (flat::Frame::ENCODING_MONO8, flat::Frame::ENCODING_RGB8),
        (plain::Frame::ENCODING_MONO8, plain::Frame::ENCODING_RGB8)
    );
    assert_eq!(flat::Frame::DEFAULT_CAMERA, "front");

    // A message that is not flat keeps its `String`s, and nests a flat one.
    let log = tacto_msggen_flat_test::flat::flat_test_msgs::msg::Log {
        stamp: flat::Stamp { sec: 1, nanosec: 2 },
        text: "not flat".to_owned(),
    };
    let plain_log = plain::Log {
        stamp: plain::Stamp { sec: 1, nanosec: 2 },
        text: "not flat".to_owned(),
    };
    assert_eq!(
        tacto::cdr::to_vec(&log).unwrap(),
        tacto::cdr::to_vec(&plain_log).unwrap()
    );
}
