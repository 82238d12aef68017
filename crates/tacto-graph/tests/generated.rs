//! The dynamic codec against the generated types of `tacto-msgs` and tacto's own
//! `tacto_msgs` (whose `.msg` files the binary embeds): the same bytes both ways, through YAML
//! too, and a typed error (never a panic) for malformed bytes.

use tacto::Message;
use tacto::msg::tacto_msgs::{ExecutableStats, ExecutorStats};
use tacto_graph::{TypeRegistry, Value, decode, encode, json, yaml};
use tacto_msgs::builtin_interfaces::msg::Time;
use tacto_msgs::geometry_msgs::msg::{Point, Pose, PoseStamped, Quaternion};
use tacto_msgs::rcl_interfaces::msg::{FloatingPointRange, ParameterDescriptor};
use tacto_msgs::sensor_msgs::msg::{CameraInfo, Image, JointState};
use tacto_msgs::std_msgs::msg::{Header, String as Text};

fn header() -> Header {
    Header {
        stamp: Time {
            sec: 1_700_000_000,
            nanosec: 123_456_789,
        },
        frame_id: "base_link".into(),
    }
}

/// The samples: each as its generated type's encoding.
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let enc = |m: &dyn erased::Encode| m.encode();
    vec![
        (
            Text::TYPE_NAME,
            enc(&Text {
                data: "Hello World: 1".into(),
            }),
        ),
        (
            PoseStamped::TYPE_NAME,
            enc(&PoseStamped {
                header: header(),
                pose: Pose {
                    position: Point {
                        x: 1.5,
                        y: -2.25,
                        z: 1e-7,
                    },
                    orientation: Quaternion {
                        x: 0.0,
                        y: 0.0,
                        z: std::f64::consts::FRAC_1_SQRT_2,
                        w: std::f64::consts::FRAC_1_SQRT_2,
                    },
                },
            }),
        ),
        (
            JointState::TYPE_NAME,
            enc(&JointState {
                header: header(),
                name: vec!["shoulder".into(), "élbow".into(), String::new()],
                position: vec![0.1, 0.2, f64::MAX],
                velocity: vec![],
                effort: vec![-1.0],
            }),
        ),
        (
            Image::TYPE_NAME,
            enc(&Image {
                header: header(),
                height: 2,
                width: 3,
                encoding: "rgb8".into(),
                is_bigendian: 0,
                step: 9,
                data: (0..18).collect(),
            }),
        ),
        (
            CameraInfo::TYPE_NAME,
            enc(&CameraInfo {
                header: header(),
                height: 480,
                width: 640,
                distortion_model: "plumb_bob".into(),
                d: vec![0.1, -0.2, 0.0, 0.0, 0.01],
                k: [500.0, 0.0, 320.0, 0.0, 500.0, 240.0, 0.0, 0.0, 1.0],
                ..Default::default()
            }),
        ),
        (
            ParameterDescriptor::TYPE_NAME,
            enc(&ParameterDescriptor {
                name: "gain".into(),
                r#type: 3,
                description: "it's: a gain".into(),
                read_only: true,
                floating_point_range: vec![FloatingPointRange {
                    from_value: 0.0,
                    to_value: 10.0,
                    step: 0.5,
                }],
                ..Default::default()
            }),
        ),
        (
            ExecutorStats::TYPE_NAME,
            enc(&ExecutorStats {
                stamp: tacto::msg::builtin_interfaces::Time {
                    sec: 1_700_000_000,
                    nanosec: 5,
                },
                host: "vm".into(),
                pid: 4458,
                executor: 1,
                kind: "wait-set".into(),
                wakeups: u64::MAX,
                executables: vec![
                    ExecutableStats {
                        node: "talker".into(),
                        index: 0,
                        runs: 2,
                        run_ns_total: 774_800,
                        run_ns_max: 388_300,
                        start_delay_ns_total: 142_600,
                        start_delay_ns_max: 71_300,
                        missed_periods: 1,
                        samples_in: 3,
                        samples_dropped: 2,
                    },
                    ExecutableStats {
                        node: "listener".into(),
                        index: 7,
                        ..Default::default()
                    },
                ],
            }),
        ),
    ]
}

/// Object-safe encoding of any generated message.
mod erased {
    pub trait Encode {
        fn encode(&self) -> Vec<u8>;
    }
    impl<T: tacto::Message> Encode for T {
        fn encode(&self) -> Vec<u8> {
            tacto::cdr::to_vec(self).expect("a valid message encodes")
        }
    }
}

#[test]
fn decoding_the_generated_bytes_and_encoding_again_gives_the_same_bytes() {
    let registry = TypeRegistry::shipped();
    for (name, bytes) in samples() {
        let ty = registry.resolve(name).unwrap();
        let value = decode(&ty, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(encode(&ty, &value).unwrap(), bytes, "{name}");
    }
}

#[test]
fn printed_yaml_read_back_encodes_to_the_generated_bytes() {
    let registry = TypeRegistry::shipped();
    for (name, bytes) in samples() {
        let ty = registry.resolve(name).unwrap();
        let value = decode(&ty, &bytes).unwrap();
        let text = yaml::to_yaml(&value, None);
        let parsed = yaml::from_yaml(&ty, &text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert_eq!(encode(&ty, &parsed).unwrap(), bytes, "{name}:\n{text}");
    }
}

#[test]
fn values_decode_into_the_fields_the_generated_type_has() {
    let registry = TypeRegistry::shipped();
    let (name, bytes) = &samples()[1];
    let value = decode(&registry.resolve(name).unwrap(), bytes).unwrap();
    let position = value.field("pose").unwrap().field("position").unwrap();
    assert_eq!(position.field("y"), Some(&Value::Float(-2.25)));
    let stamp = value.field("header").unwrap().field("stamp").unwrap();
    assert_eq!(stamp.field("nanosec"), Some(&Value::UInt(123_456_789)));
    assert_eq!(
        yaml::to_yaml(&value, None),
        "header:\n  stamp:\n    sec: 1700000000\n    nanosec: 123456789\n  frame_id: base_link\n\
         pose:\n  position:\n    x: 1.5\n    y: -2.25\n    z: 1.0e-07\n  orientation:\n    x: 0.0\n\
         \x20   y: 0.0\n    z: 0.7071067811865476\n    w: 0.7071067811865476\n"
    );
    assert!(json::to_json(&value).starts_with(r#"{"header":{"stamp":{"sec":1700000000,"#));
}

#[test]
fn yaml_that_does_not_fit_names_the_field_and_the_type() {
    let registry = TypeRegistry::shipped();
    let ty = registry.resolve("geometry_msgs/msg/PoseStamped").unwrap();
    let error = yaml::from_yaml(&ty, "{pose: {position: {x: fast}}}")
        .unwrap_err()
        .to_string();
    assert!(error.contains("pose.position.x"), "{error}");
    assert!(error.contains("f64"), "{error}");
    let error = yaml::from_yaml(&ty, "{header: {frame: a}}")
        .unwrap_err()
        .to_string();
    assert!(error.contains("\"frame\""), "{error}");
    let ty = registry
        .resolve("rcl_interfaces/msg/ParameterDescriptor")
        .unwrap();
    let two = "{integer_range: [{from_value: 1}, {from_value: 2}]}";
    let value = yaml::from_yaml(&ty, two).unwrap();
    let error = encode(&ty, &value).unwrap_err().to_string();
    assert!(
        error.contains("integer_range") && error.contains("at most 1"),
        "{error}"
    );
}

#[test]
fn malformed_bytes_give_a_typed_error_never_a_panic() {
    let registry = TypeRegistry::shipped();
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (name, bytes) in samples() {
        let ty = registry.resolve(name).unwrap();
        // Every truncation fails (the padding at the end aside).
        for len in 0..bytes.len() {
            let _ = decode(&ty, &bytes[..len]);
        }
        assert!(decode(&ty, &bytes[..bytes.len().saturating_sub(4).min(8)]).is_err());
        // Mutations, including huge length prefixes.
        for _ in 0..2000 {
            let mut mutated = bytes.clone();
            for _ in 0..(next() % 4 + 1) {
                let at = 4 + (next() as usize) % (mutated.len() - 4);
                mutated[at] = if next() % 3 == 0 { 0xFF } else { next() as u8 };
            }
            if let Ok(value) = decode(&ty, &mutated) {
                // What decodes encodes again.
                encode(&ty, &value).unwrap();
            }
        }
    }
    let ty = registry.resolve("std_msgs/msg/String").unwrap();
    let huge = [0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, b'a', 0, 0, 0];
    assert!(matches!(
        decode(&ty, &huge),
        Err(tacto_graph::DecodeError::BadLength { .. })
    ));
}

#[test]
fn the_stats_types_carry_the_hash_of_their_definitions() {
    let registry = TypeRegistry::shipped();
    for (name, hash) in [
        (ExecutorStats::TYPE_NAME, ExecutorStats::TYPE_HASH),
        (ExecutableStats::TYPE_NAME, ExecutableStats::TYPE_HASH),
    ] {
        assert_eq!(
            hash,
            Some(registry.type_hash(name).unwrap().as_str()),
            "{name}"
        );
    }
}
