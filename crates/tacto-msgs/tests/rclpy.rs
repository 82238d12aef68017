//! The generated types encode to the bytes rclpy produces, and decode rclpy's bytes back to the
//! same values: `tests/rclpy/serialize.py` serializes messages with
//! `rclpy.serialization.serialize_message` (the PyPI ROS 2 Jazzy wheels, Fast DDS typesupport)
//! and this test builds the same values with `tacto_msgs`.
//!
//! Fast DDS leaves alignment padding uninitialized (whatever the buffer held), where we write
//! zeros, so a byte may differ only where it is padding: where our byte is 0 and writing
//! rclpy's byte there instead still decodes to the same value. Every other byte must be equal.

use std::collections::HashMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use tacto::Message;
use tacto_msgs::action_msgs::msg::{GoalInfo, GoalStatus, GoalStatusArray};
use tacto_msgs::action_msgs::srv::CancelGoal_Response;
use tacto_msgs::builtin_interfaces::msg::{Duration, Time};
use tacto_msgs::geometry_msgs::msg::{
    Point, Pose, PoseStamped, PoseWithCovariance, Quaternion, TwistWithCovariance,
};
use tacto_msgs::nav_msgs::msg::{MapMetaData, OccupancyGrid, Odometry};
use tacto_msgs::rcl_interfaces::msg::{
    FloatingPointRange, Log, Parameter, ParameterDescriptor, ParameterEvent, ParameterValue,
};
use tacto_msgs::rosgraph_msgs::msg::Clock;
use tacto_msgs::sensor_msgs::msg::{
    CameraInfo, Image, JointState, NavSatFix, NavSatStatus, PointCloud2, PointField,
    RegionOfInterest,
};
use tacto_msgs::std_msgs::msg::{
    Char, Empty, Float32MultiArray, Header, MultiArrayDimension, MultiArrayLayout,
};
use tacto_msgs::std_srvs::srv::{SetBool_Request, SetBool_Response, Trigger_Request};
use tacto_msgs::unique_identifier_msgs::msg::UUID;

#[allow(dead_code)] // each test uses some of the test packages
mod test_interfaces {
    include!(concat!(env!("OUT_DIR"), "/test_interfaces.rs"));
}
use test_interfaces::type_description_interfaces::msg::{
    Field, FieldType, IndividualTypeDescription,
};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What `serialize.py` printed: message name to bytes. Runs it once per test binary, after
/// `scripts/setup.sh venv` has made sure the virtualenv exists.
fn rclpy_bytes() -> &'static HashMap<String, Vec<u8>> {
    static BYTES: OnceLock<HashMap<String, Vec<u8>>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let root = repo_root();
        let status = Command::new("bash")
            .arg(root.join("scripts/setup.sh"))
            .arg("venv")
            .status()
            .expect("run scripts/setup.sh");
        assert!(status.success(), "scripts/setup.sh venv failed ({status})");
        let venv = std::env::var_os("TACTO_ROS2_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/ros2-venv"));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rclpy/serialize.py");
        let output = Command::new(venv.join("bin/python"))
            .arg(&script)
            // No node is created, but nothing should reach the network either way.
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "OFF")
            // The wheels' bootstrapper sets LD_LIBRARY_PATH only when this is unset.
            .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE")
            .output()
            .expect("run serialize.py");
        assert!(
            output.status.success(),
            "serialize.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .expect("serialize.py prints text")
            .lines()
            .map(|line| {
                let (name, hex) = line.rsplit_once(' ').expect("`name hex` lines");
                (name.to_owned(), decode_hex(hex))
            })
            .collect()
    })
}

fn decode_hex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Asserts that `value` encodes to rclpy's bytes for `name` (up to padding, see the file's
/// docs) and that rclpy's bytes decode to `value`.
fn check<T: Message + PartialEq + Debug>(name: &str, value: T) {
    let theirs = rclpy_bytes()
        .get(name)
        .unwrap_or_else(|| panic!("serialize.py printed no {name}"));
    let ours = tacto::cdr::to_vec(&value).unwrap_or_else(|e| panic!("{name}: encode: {e}"));
    // We pad the whole payload to 4 bytes with zeros, as rmw_cyclonedds does. Fast DDS sends
    // what its size estimate reserved, which can be up to 8 bytes past the message's end (the
    // estimate aligns the end to 8); receivers ignore what follows a message.
    let common = ours.len().min(theirs.len());
    assert!(
        ours.len() < theirs.len() + 4 && theirs.len() <= ours.len() + 8,
        "{name}: {} bytes from rclpy, {} from us\nrclpy: {theirs:02x?}\nus:    {ours:02x?}",
        theirs.len(),
        ours.len()
    );
    assert!(ours[common..].iter().all(|&b| b == 0), "{name}: our tail");
    for (i, (&our, &their)) in ours.iter().zip(theirs).enumerate() {
        if our == their {
            continue;
        }
        let mut patched = ours.clone();
        patched[i] = their;
        let is_padding = our == 0
            && i >= 4
            && tacto::cdr::from_bytes::<T>(&patched).is_ok_and(|decoded| decoded == value);
        assert!(
            is_padding,
            "{name}: byte {i} is {our:#04x} from us, {their:#04x} from rclpy\n\
             rclpy: {theirs:02x?}\nus:    {ours:02x?}"
        );
    }
    let decoded = tacto::cdr::from_bytes::<T>(theirs)
        .unwrap_or_else(|e| panic!("{name}: decoding rclpy's bytes: {e}"));
    assert_eq!(
        decoded, value,
        "{name}: rclpy's bytes decode to another value"
    );
}

fn stamp() -> Time {
    Time {
        sec: -5,
        nanosec: 999_999_999,
    }
}

fn header() -> Header {
    Header {
        stamp: stamp(),
        frame_id: "bäse_link".into(),
    }
}

fn pose() -> Pose {
    Pose {
        position: Point {
            x: 1.5,
            y: -2.25,
            z: 1e300,
        },
        orientation: Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.6,
            w: 0.8,
        },
    }
}

fn cov36() -> [f64; 36] {
    std::array::from_fn(|i| i as f64 * 1.25 - 20.0)
}

#[test]
fn std_msgs_and_builtin_interfaces_match_rclpy() {
    use tacto_msgs::std_msgs::msg::String as Text;
    check(
        "std_msgs/String",
        Text {
            data: "grüße, 世界 🤖".into(),
        },
    );
    check("std_msgs/String empty", Text::default());
    check("std_msgs/Header", header());
    check("std_msgs/Empty", Empty::default());
    check("std_msgs/Char", Char { data: 200 });
    check(
        "std_msgs/Float32MultiArray",
        Float32MultiArray {
            layout: MultiArrayLayout {
                dim: vec![MultiArrayDimension {
                    label: "x".into(),
                    size: 3,
                    stride: 3,
                }],
                data_offset: 1,
            },
            data: vec![1.0, -0.5, 3.25],
        },
    );
    check(
        "builtin_interfaces/Duration",
        Duration {
            sec: -1,
            nanosec: 1,
        },
    );
    check("rosgraph_msgs/Clock", Clock { clock: stamp() });
}

#[test]
fn geometry_msgs_match_rclpy() {
    check(
        "geometry_msgs/PoseStamped",
        PoseStamped {
            header: header(),
            pose: pose(),
        },
    );
    check(
        "geometry_msgs/PoseWithCovariance",
        PoseWithCovariance {
            pose: pose(),
            covariance: cov36(),
        },
    );
}

#[test]
fn sensor_msgs_match_rclpy() {
    check(
        "sensor_msgs/Image",
        Image {
            header: header(),
            height: 1,
            width: 3,
            encoding: "rgb8".into(),
            is_bigendian: 1,
            step: 9,
            data: vec![0, 1, 2, 253, 254, 255, 7],
        },
    );
    check(
        "sensor_msgs/PointCloud2",
        PointCloud2 {
            header: header(),
            height: 1,
            width: 2,
            fields: vec![
                PointField {
                    name: "x".into(),
                    offset: 0,
                    datatype: PointField::FLOAT32,
                    count: 1,
                },
                PointField {
                    name: "intensity".into(),
                    offset: 4,
                    datatype: PointField::UINT8,
                    count: 1,
                },
            ],
            is_bigendian: false,
            point_step: 5,
            row_step: 10,
            data: (0..10).collect(),
            is_dense: true,
        },
    );
    check(
        "sensor_msgs/JointState",
        JointState {
            header: header(),
            name: vec!["shoulder".into(), "".into(), "ellbogen_ü".into()],
            position: vec![0.5, -0.5, 3.0],
            velocity: vec![],
            effort: vec![1e-9],
        },
    );
    check(
        "sensor_msgs/NavSatFix",
        NavSatFix {
            header: header(),
            status: NavSatStatus {
                status: NavSatStatus::STATUS_SBAS_FIX,
                service: NavSatStatus::SERVICE_GALILEO,
            },
            latitude: 52.5,
            longitude: -13.25,
            altitude: 34.0,
            position_covariance: std::array::from_fn(|i| i as f64),
            position_covariance_type: NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN,
        },
    );
    check(
        "sensor_msgs/CameraInfo",
        CameraInfo {
            header: header(),
            height: 480,
            width: 640,
            distortion_model: "plumb_bob".into(),
            d: vec![0.1, -0.2, 0.0, 0.0, 0.05],
            k: std::array::from_fn(|i| i as f64),
            r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            p: std::array::from_fn(|i| 0.0 - i as f64), // +0.0 first, as Python has it
            binning_x: 2,
            binning_y: 1,
            roi: RegionOfInterest {
                x_offset: 1,
                y_offset: 2,
                height: 3,
                width: 4,
                do_rectify: true,
            },
        },
    );
}

#[test]
fn nav_msgs_match_rclpy() {
    let mut reversed = cov36();
    reversed.reverse();
    check(
        "nav_msgs/Odometry",
        Odometry {
            header: header(),
            child_frame_id: "base_footprint".into(),
            pose: PoseWithCovariance {
                pose: pose(),
                covariance: cov36(),
            },
            twist: TwistWithCovariance {
                covariance: reversed,
                ..Default::default()
            },
        },
    );
    check(
        "nav_msgs/OccupancyGrid",
        OccupancyGrid {
            header: header(),
            info: MapMetaData {
                map_load_time: stamp(),
                resolution: 0.05,
                width: 3,
                height: 1,
                origin: pose(),
            },
            data: vec![-1, 0, 100],
        },
    );
}

#[test]
fn rcl_interfaces_match_rclpy() {
    check(
        "rcl_interfaces/Log",
        Log {
            stamp: stamp(),
            level: Log::WARN,
            name: "node".into(),
            msg: "⚠ low battery".into(),
            file: "main.py".into(),
            function: "check".into(),
            line: 42,
        },
    );
    check(
        "rcl_interfaces/ParameterDescriptor",
        ParameterDescriptor {
            name: "gain".into(),
            r#type: 3,
            read_only: true,
            // At its bound, [<=1].
            floating_point_range: vec![FloatingPointRange {
                from_value: 0.0,
                to_value: 1.0,
                step: 0.1,
            }],
            ..Default::default()
        },
    );
    check(
        "rcl_interfaces/ParameterEvent",
        ParameterEvent {
            stamp: stamp(),
            node: "/ns/talker".into(),
            new_parameters: vec![Parameter {
                name: "p".into(),
                value: ParameterValue {
                    r#type: 5,
                    bool_value: true,
                    integer_value: -3,
                    double_value: 2.5,
                    string_value: "s".into(),
                    byte_array_value: vec![0x00, 0xff],
                    bool_array_value: vec![true, false, true],
                    integer_array_value: vec![1, -1],
                    double_array_value: vec![0.5],
                    string_array_value: vec!["a".into(), "ä".into()],
                },
            }],
            changed_parameters: vec![],
            deleted_parameters: vec![Parameter {
                name: "q".into(),
                ..Default::default()
            }],
        },
    );
}

#[test]
fn service_halves_match_rclpy() {
    check("std_srvs/SetBool_Request", SetBool_Request { data: true });
    check(
        "std_srvs/SetBool_Response",
        SetBool_Response {
            success: false,
            message: "nö".into(),
        },
    );
    check("std_srvs/Trigger_Request", Trigger_Request::default());
}

fn goal_id() -> UUID {
    UUID {
        uuid: std::array::from_fn(|i| i as u8 * 17),
    }
}

#[test]
fn action_types_match_rclpy() {
    use test_interfaces::test_msgs::action::{
        Fibonacci_Feedback, Fibonacci_FeedbackMessage, Fibonacci_GetResult_Request,
        Fibonacci_GetResult_Response, Fibonacci_Goal, Fibonacci_Result, Fibonacci_SendGoal_Request,
        Fibonacci_SendGoal_Response,
    };
    check(
        "test_msgs/Fibonacci_SendGoal_Request",
        Fibonacci_SendGoal_Request {
            goal_id: goal_id(),
            goal: Fibonacci_Goal { order: -7 },
        },
    );
    check(
        "test_msgs/Fibonacci_SendGoal_Response",
        Fibonacci_SendGoal_Response {
            accepted: true,
            stamp: stamp(),
        },
    );
    check(
        "test_msgs/Fibonacci_GetResult_Request",
        Fibonacci_GetResult_Request { goal_id: goal_id() },
    );
    check(
        "test_msgs/Fibonacci_GetResult_Response",
        Fibonacci_GetResult_Response {
            status: GoalStatus::STATUS_ABORTED,
            result: Fibonacci_Result {
                sequence: vec![0, 1, 1, 2],
            },
        },
    );
    check(
        "test_msgs/Fibonacci_FeedbackMessage",
        Fibonacci_FeedbackMessage {
            goal_id: goal_id(),
            feedback: Fibonacci_Feedback { sequence: vec![-1] },
        },
    );
    let goal_info = GoalInfo {
        goal_id: goal_id(),
        stamp: stamp(),
    };
    check(
        "action_msgs/GoalStatusArray",
        GoalStatusArray {
            status_list: vec![
                GoalStatus {
                    goal_info: goal_info.clone(),
                    status: GoalStatus::STATUS_EXECUTING,
                },
                GoalStatus::default(),
            ],
        },
    );
    check(
        "action_msgs/CancelGoal_Response",
        CancelGoal_Response {
            return_code: CancelGoal_Response::ERROR_NONE,
            goals_canceling: vec![goal_info],
        },
    );
}

#[test]
fn bounded_strings_match_rclpy() {
    check(
        "type_description_interfaces/IndividualTypeDescription",
        IndividualTypeDescription {
            // At its bound, string<=255.
            type_name: "x".repeat(255),
            fields: vec![Field {
                name: "f".into(),
                r#type: FieldType {
                    type_id: 1,
                    capacity: 2,
                    string_capacity: 3,
                    nested_type_name: "pkg/msg/T".into(),
                },
                default_value: String::new(),
            }],
        },
    );
}
