//! Flat messages that arrive as CDR (from a publisher of another Rust type of the same ROS
//! type, as over DDS) are decoded in place, at any size: here 4 MiB on a thread whose whole
//! stack is 256 KiB, where serde, which builds the value on the stack, would overflow it.

use tacto::{Context, FlatString};

const PIXELS: usize = 4 << 20;

#[tacto::message("tacto_test/msg/Picture", flat)]
#[derive(Clone, Copy)]
struct Picture {
    stamp: u64,
    label: FlatString<16>,
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    pixels: [u8; PIXELS],
}

/// Another flat Rust type of the same ROS type and fields: it receives `Picture`'s samples
/// as CDR.
#[tacto::message("tacto_test/msg/Picture", flat)]
#[derive(Clone, Copy)]
struct PictureTwin {
    stamp: u64,
    label: FlatString<16>,
    #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
    pixels: [u8; PIXELS],
}

/// The same CDR from a type that is not flat.
#[tacto::message("tacto_test/msg/Picture")]
struct PictureOnHeap {
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

fn pattern() -> Vec<u8> {
    (0..PIXELS)
        .map(|i| (i % 251) as u8 ^ (i >> 16) as u8)
        .collect()
}

/// Runs `test` on a thread with a 256 KiB stack, a sixteenth of the message.
fn on_small_stack(test: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(test)
        .unwrap();
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn a_4_mib_flat_message_from_a_publisher_that_is_not_flat_decodes_on_a_small_stack() {
    on_small_stack(|| {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let sub = node.subscription::<Picture>("picture").create().unwrap();
        let publisher = node.publisher::<PictureOnHeap>("picture").create().unwrap();
        publisher.publish(PictureOnHeap {
            stamp: 7,
            label: "front".into(),
            pixels: pattern(),
        });
        let picture = sub.take().expect("the sample decodes");
        assert_eq!(picture.stamp, 7);
        assert_eq!(picture.label.as_str(), Ok("front"));
        assert!(
            picture.pixels[..] == pattern()[..],
            "the pixels arrive intact"
        );
        assert_eq!(sub.malformed(), 0);
    });
}

#[test]
fn a_4_mib_flat_message_encodes_and_decodes_for_another_flat_type_on_a_small_stack() {
    on_small_stack(|| {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let sub = node
            .subscription::<PictureTwin>("picture")
            .create()
            .unwrap();
        let publisher = node.publisher::<Picture>("picture").create().unwrap();
        let mut picture: Box<Picture> = tacto::flat::zeroed_box();
        picture.stamp = 9;
        picture.label.set("rear").unwrap();
        picture.pixels.copy_from_slice(&pattern());
        // Encoded to CDR for `PictureTwin` from the shared value, by reference.
        publisher.publish_shared(picture.into());
        let twin = sub.take().expect("the sample decodes");
        assert_eq!((twin.stamp, twin.label.as_str()), (9, Ok("rear")));
        assert!(twin.pixels[..] == pattern()[..], "the pixels arrive intact");
    });
}

/// Not the CDR of `Picture`: a label longer than its 16 bytes, or too few pixels.
#[test]
fn cdr_that_does_not_fit_a_flat_type_is_counted_malformed() {
    on_small_stack(|| {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let sub = node.subscription::<Picture>("picture").create().unwrap();
        let publisher = node.publisher::<PictureOnHeap>("picture").create().unwrap();
        let bad = [
            ("a label of twenty bytes", pattern()),
            ("short", vec![1; PIXELS - 4]), // not made up by the padding to 4 bytes
            ("empty", Vec::new()),
        ];
        for (label, pixels) in bad {
            publisher.publish(PictureOnHeap {
                stamp: 1,
                label: label.into(),
                pixels,
            });
        }
        assert!(sub.take().is_none(), "none decodes");
        assert_eq!(sub.malformed(), 3);
        publisher.publish(PictureOnHeap {
            stamp: 2,
            label: "fine".into(),
            pixels: pattern(),
        });
        assert_eq!(sub.take().expect("a good one still decodes").stamp, 2);
    });
}
