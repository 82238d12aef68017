//! Generated messages with a `std_msgs/Header header` field are `tacto::Stamped` by their
//! header's stamp, so a synchronizer matches them with no code of the user's.

use tacto::msg::builtin_interfaces::Time as Stamp;
use tacto::sync::{ExactTime, Policy};
use tacto::{Stamped, Time};
use tacto_msgs::geometry_msgs::msg::PoseStamped;
use tacto_msgs::sensor_msgs::msg::{CameraInfo, Image};
use tacto_msgs::std_msgs::msg::Header;

fn header(sec: i32, nanosec: u32) -> Header {
    Header {
        stamp: Stamp { sec, nanosec },
        frame_id: "camera".into(),
    }
}

#[test]
fn a_message_with_a_header_is_stamped_by_its_header() {
    let image = Image {
        header: header(12, 345),
        ..Default::default()
    };
    assert_eq!(image.stamp(), Time::from_nanos(12_000_000_345));
    let pose = PoseStamped {
        header: header(-1, 999_999_999),
        ..Default::default()
    };
    assert_eq!(pose.stamp(), Time::from_nanos(-1));
}

#[test]
fn a_header_is_stamped_by_its_own_stamp() {
    assert_eq!(header(3, 0).stamp(), Time::from_nanos(3_000_000_000));
}

#[test]
fn an_image_and_its_camera_info_are_matched_on_their_headers() {
    let mut policy = ExactTime::<(Image, CameraInfo)>::new(4).unwrap();
    for sec in 0..3 {
        let image = Image {
            header: header(sec, 0),
            ..Default::default()
        };
        policy.add::<0>(image.stamp(), image);
    }
    let info = CameraInfo {
        header: header(1, 0),
        ..Default::default()
    };
    policy.add::<1>(info.stamp(), info);
    let (image, info) = policy.take().unwrap();
    assert_eq!((image.header.stamp.sec, info.header.stamp.sec), (1, 1));
}
