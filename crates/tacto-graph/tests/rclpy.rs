//! The dynamic codec against rclpy's own serialization, byte for byte: every message that
//! `tacto-msgs/tests/rclpy/serialize.py` serializes with `rclpy.serialization.serialize_message`
//! (the PyPI ROS 2 Jazzy wheels, Fast DDS typesupport) is decoded from rclpy's bytes with the
//! type parsed at run time from its `.msg`/`.srv` file, and encoded back to rclpy's bytes.
//!
//! As in `tacto-msgs/tests/rclpy.rs`: Fast DDS leaves alignment padding uninitialized where we
//! write zeros, and may send up to 8 bytes past the message's end; a byte may differ only
//! where ours is 0 and writing rclpy's byte there still decodes to the same value.

use std::path::{Path, PathBuf};
use std::process::Command;

use tacto_graph::{TypeRegistry, Value, decode, encode};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `(case, bytes)` as `serialize.py` printed them, after `scripts/setup.sh venv` made sure the
/// virtualenv exists.
fn rclpy_cases() -> Vec<(String, Vec<u8>)> {
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
    let output = Command::new(venv.join("bin/python"))
        .arg(root.join("crates/tacto-msgs/tests/rclpy/serialize.py"))
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
    let text = String::from_utf8(output.stdout).expect("serialize.py prints text");
    (text.lines())
        .map(|line| {
            let (case, hex) = line.rsplit_once(' ').expect("`case hex` lines");
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect();
            (case.to_owned(), bytes)
        })
        .collect()
}

/// The ROS 2 type of a case: `std_msgs/String empty` is `std_msgs/msg/String`,
/// `std_srvs/SetBool_Request` is `std_srvs/srv/SetBool_Request`.
fn type_of(case: &str) -> String {
    let name = case.split(' ').next().unwrap_or(case);
    let (package, ty) = name.split_once('/').expect("pkg/Type");
    // An action's parts and derived types are named `<Action>_<Part>`; no `.msg` name has a
    // `_`.
    let action_parts = [
        "_Goal",
        "_Result",
        "_Feedback",
        "_SendGoal_",
        "_GetResult_",
        "_FeedbackMessage",
    ];
    let kind = if action_parts.iter().any(|part| ty.contains(part)) {
        "action"
    } else if ty.ends_with("_Request") || ty.ends_with("_Response") {
        "srv"
    } else {
        "msg"
    };
    format!("{package}/{kind}/{ty}")
}

#[test]
fn rclpy_bytes_decode_with_parsed_definitions_and_encode_back_to_the_same_bytes() {
    // The shipped packages, tacto-msgs' test package for type_description_interfaces, and
    // test_msgs' actions (msggen's fixtures).
    let registry = TypeRegistry::new(&[
        repo_root().join("crates/tacto-msgs/tests/interfaces"),
        repo_root().join("crates/tacto-msggen/tests/fixtures"),
    ]);
    let cases = rclpy_cases();
    assert!(
        cases.len() >= 20,
        "serialize.py printed {} cases",
        cases.len()
    );
    for (case, theirs) in &cases {
        let ty = registry
            .resolve(&type_of(case))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        let value = decode(&ty, theirs).unwrap_or_else(|e| panic!("{case}: decode: {e}"));
        let ours = encode(&ty, &value).unwrap_or_else(|e| panic!("{case}: encode: {e}"));
        assert!(
            ours.len() < theirs.len() + 4 && theirs.len() <= ours.len() + 8,
            "{case}: {} bytes from rclpy, {} from us",
            theirs.len(),
            ours.len()
        );
        let common = ours.len().min(theirs.len());
        assert!(ours[common..].iter().all(|&b| b == 0), "{case}: our tail");
        for (i, (&our, &their)) in ours.iter().zip(theirs).enumerate() {
            if our == their {
                continue;
            }
            let mut patched = ours.clone();
            patched[i] = their;
            let is_padding =
                our == 0 && i >= 4 && decode(&ty, &patched).ok() == Some(value.clone());
            assert!(
                is_padding,
                "{case}: byte {i} is {our:#04x} from us, {their:#04x} from rclpy\n\
                 rclpy: {theirs:02x?}\nus:    {ours:02x?}"
            );
        }
    }
}

#[test]
fn rclpy_values_come_out_as_rclpy_set_them() {
    let registry = TypeRegistry::shipped();
    let cases = rclpy_cases();
    let bytes = |case: &str| {
        let found = cases.iter().find(|(c, _)| c == case);
        found.unwrap_or_else(|| panic!("no {case}")).1.clone()
    };
    let text = registry.resolve("std_msgs/msg/String").unwrap();
    let value = decode(&text, &bytes("std_msgs/String")).unwrap();
    assert_eq!(
        value.field("data"),
        Some(&Value::String("grüße, 世界 🤖".into()))
    );
    let duration = registry.resolve("builtin_interfaces/msg/Duration").unwrap();
    let value = decode(&duration, &bytes("builtin_interfaces/Duration")).unwrap();
    assert_eq!(value.field("sec"), Some(&Value::Int(-1)));
    assert_eq!(value.field("nanosec"), Some(&Value::UInt(1)));
}
