//! Messages defined as a user crate defines them: this crate depends on `tacto` alone (no
//! serde), so everything below compiles only if `#[tacto::message]` needs nothing else.

use tacto::msg::std_msgs::Header;
use tacto::{Context, LocalDelivery, Message};

/// A message of a user package, with a nested standard message and a nested user message.
#[tacto::message("my_msgs/msg/Range")]
#[derive(Debug, Clone, Default, PartialEq)]
struct Range {
    header: Header,
    distance_m: f32,
    limits: Limits,
    readings: Vec<u16>,
}

#[tacto::message("my_msgs/msg/Limits")]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Limits {
    min_m: f32,
    max_m: f32,
}

/// Serde's attributes reach the derive the macro adds.
#[tacto::message("my_msgs/msg/Renamed")]
#[derive(Debug, Clone, Default, PartialEq)]
struct Renamed {
    #[serde(skip)]
    cache: Option<u8>,
    value: u8,
}

/// A tuple struct is a message too: its fields in order.
#[tacto::message("my_msgs/msg/Pair")]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Pair(u8, u32);

fn range() -> Range {
    Range {
        header: Header {
            stamp: tacto::Time::from_nanos(1_500_000_000).into(),
            frame_id: "radar".into(),
        },
        distance_m: 12.5,
        limits: Limits {
            min_m: 0.2,
            max_m: 80.0,
        },
        readings: vec![1, 2, 3],
    }
}

#[test]
fn the_type_name_is_the_one_given() {
    assert_eq!(Range::TYPE_NAME, "my_msgs/msg/Range");
    assert_eq!(Limits::TYPE_NAME, "my_msgs/msg/Limits");
}

#[test]
fn a_message_round_trips_through_cdr() {
    let bytes = tacto::cdr::to_vec(&range()).unwrap();
    assert_eq!(tacto::cdr::from_bytes::<Range>(&bytes).unwrap(), range());
}

#[test]
fn fields_go_on_the_wire_in_declared_order() {
    let bytes = tacto::cdr::to_vec(&Pair(7, 0x0102_0304)).unwrap();
    // Header, the u8, padding to the u32's alignment, the u32 little-endian.
    assert_eq!(bytes, [0, 1, 0, 0, 7, 0, 0, 0, 4, 3, 2, 1]);
    let renamed = Renamed {
        cache: Some(1),
        value: 9,
    };
    let bytes = tacto::cdr::to_vec(&renamed).unwrap();
    // The skipped field is not on the wire, and comes back as its default.
    assert_eq!(bytes, [0, 1, 0, 0, 9, 0, 0, 0]);
    let back = tacto::cdr::from_bytes::<Renamed>(&bytes).unwrap();
    assert_eq!(
        back,
        Renamed {
            cache: None,
            value: 9
        }
    );
}

#[test]
fn a_message_travels_from_a_publisher_to_a_subscription_shared_and_serialized() {
    for delivery in [LocalDelivery::Shared, LocalDelivery::Serialized] {
        let ctx = Context::builder().local_delivery(delivery).create();
        let mut node = ctx.node("ranger").unwrap();
        let publisher = node.publisher::<Range>("range").create().unwrap();
        let subscription = node.subscription::<Range>("range").create().unwrap();
        publisher.publish(range());
        let sample = subscription.take().expect("the sample arrived");
        assert_eq!(*sample, range(), "{delivery:?}");
        assert_eq!(subscription.malformed(), 0, "{delivery:?}");
    }
}
