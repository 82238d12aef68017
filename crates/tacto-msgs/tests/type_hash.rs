//! Every generated type's `TYPE_HASH` equals rosidl's: the `.json` files that
//! `rosidl_generator_type_description` installed with the ROS 2 Jazzy packages of the
//! virtualenv (`share/<pkg>/<msg|srv>/<Type>.json`, `type_hashes`).

use std::path::{Path, PathBuf};
use std::process::Command;

use tacto::{Message, ServiceType};

#[allow(dead_code)] // only the types' hashes are used here
mod test_msgs {
    include!(concat!(env!("OUT_DIR"), "/test_interfaces.rs"));
}

/// Packages without rosidl's files in the virtualenv: `example_interfaces` has no wheel on
/// PyPI, `tacto_test_msgs` is tacto's own.
const NO_ORACLE: [&str; 2] = ["example_interfaces", "tacto_test_msgs"];

/// rosidl's hashes of the types of packages that no wheel on PyPI carries, so that the
/// virtualenv has no `.json` of theirs: computed by `rosidl_generator_type_description` 4.6.6
/// (the venv's, as rosidl_cmake runs it) on the `.idl` that `rosidl_adapter` 4.6.6 makes of
/// the shipped `.msg`/`.srv` files, with the venv's `geometry_msgs`, `std_msgs`,
/// `builtin_interfaces` and `service_msgs` `.json` files as its includes (the same run on
/// `geometry_msgs/msg/TransformStamped` gives the venv's own hash of it).
const COMPUTED: &[(&str, &str)] = &[
    (
        "tf2_msgs/msg/TFMessage",
        "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
    ),
    (
        "tf2_msgs/msg/TF2Error",
        "RIHS01_db2485e7d6a0ec75bf087e058ee45df682acc3a621ca7780503d10aac141809a",
    ),
    (
        "tf2_msgs/srv/FrameGraph",
        "RIHS01_0d1fbc6222c018ba5f33822904a2fdd4063705289956d3fdde07cd8c50fe8067",
    ),
    (
        "tf2_msgs/srv/FrameGraph_Request",
        "RIHS01_4cc565da6b64726d0b0be1ce20f3a3a695679b841a79abfca2fcdc94f562b08d",
    ),
    (
        "tf2_msgs/srv/FrameGraph_Response",
        "RIHS01_e33d5473ce0fac04c66203779f2b719a9de0f8388b248852d3a47a019e62e36d",
    ),
];

fn venv() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new("bash")
        .arg(root.join("scripts/setup.sh"))
        .arg("venv")
        .status()
        .expect("run scripts/setup.sh");
    assert!(status.success(), "scripts/setup.sh venv failed ({status})");
    std::env::var_os("TACTO_ROS2_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/ros2-venv"))
}

/// rosidl's hash of `type_name` (`pkg/msg/T`, `pkg/srv/S`, `pkg/srv/S_Request`, ...), from
/// the file of its message or service; `None` for a package listed in [`NO_ORACLE`].
fn rosidl_hash(venv: &Path, type_name: &str) -> Option<String> {
    let mut parts = type_name.split('/');
    let (package, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
    if let Some((_, hash)) = COMPUTED.iter().find(|(name, _)| *name == type_name) {
        return Some((*hash).to_owned());
    }
    if NO_ORACLE.contains(&package) {
        assert!(
            !venv.join("share").join(package).exists(),
            "the virtualenv now has {package}: remove it from NO_ORACLE"
        );
        return None;
    }
    let file_name = name
        .strip_suffix("_Request")
        .or_else(|| name.strip_suffix("_Response"))
        .filter(|_| kind == "srv")
        .unwrap_or(name);
    let path = venv.join(format!("share/{package}/{kind}/{file_name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "no rosidl type description for {type_name} in the virtualenv ({}: {e}); \
             the venv must have every shipped package but {NO_ORACLE:?}",
            path.display()
        )
    });
    let json: serde_json::Value = serde_json::from_str(&text).expect("rosidl's JSON");
    let hashes = json["type_hashes"].as_array().expect("a type_hashes list");
    let entry = hashes
        .iter()
        .find(|h| h["type_name"] == type_name)
        .unwrap_or_else(|| panic!("{} has no hash of {type_name}", path.display()));
    Some(
        entry["hash_string"]
            .as_str()
            .expect("a hash string")
            .to_owned(),
    )
}

#[test]
fn every_generated_type_hash_equals_rosidl_s() {
    macro_rules! every_message {
        ($($ty:ty),* $(,)?) => {
            [$((<$ty as Message>::TYPE_NAME, <$ty as Message>::TYPE_HASH)),*]
        };
    }
    macro_rules! every_service {
        ($($ty:ty),* $(,)?) => {
            [$((<$ty as ServiceType>::TYPE_NAME, <$ty as ServiceType>::TYPE_HASH)),*]
        };
    }
    let messages = include!(concat!(env!("OUT_DIR"), "/message_list.rs"));
    let services = include!(concat!(env!("OUT_DIR"), "/service_list.rs"));
    let venv = venv();
    let mut compared = 0;
    let mut wrong = Vec::new();
    for (type_name, hash) in messages.iter().chain(&services) {
        let hash = hash.unwrap_or_else(|| panic!("{type_name} has no TYPE_HASH"));
        let Some(expected) = rosidl_hash(&venv, type_name) else {
            continue;
        };
        compared += 1;
        if hash != expected {
            wrong.push(format!("{type_name}: tacto {hash}, rosidl {expected}"));
        }
    }
    assert!(wrong.is_empty(), "hashes differ:\n{}", wrong.join("\n"));
    // 9 packages of tacto-msgs less example_interfaces, and type_description_interfaces.
    assert!(compared > 150, "only {compared} types compared");
    eprintln!("{compared} type hashes equal rosidl's");
}

#[test]
fn the_runtime_s_own_types_carry_the_same_hashes() {
    use tacto_msgs::{builtin_interfaces, rosgraph_msgs, std_msgs};
    let pairs = [
        (
            tacto::msg::std_msgs::String::TYPE_HASH,
            std_msgs::msg::String::TYPE_HASH,
        ),
        (
            tacto::msg::std_msgs::Header::TYPE_HASH,
            std_msgs::msg::Header::TYPE_HASH,
        ),
        (
            tacto::msg::std_msgs::Empty::TYPE_HASH,
            std_msgs::msg::Empty::TYPE_HASH,
        ),
        (
            tacto::msg::builtin_interfaces::Time::TYPE_HASH,
            builtin_interfaces::msg::Time::TYPE_HASH,
        ),
        (
            tacto::msg::builtin_interfaces::Duration::TYPE_HASH,
            builtin_interfaces::msg::Duration::TYPE_HASH,
        ),
        (
            tacto::msg::rosgraph_msgs::Clock::TYPE_HASH,
            rosgraph_msgs::msg::Clock::TYPE_HASH,
        ),
    ];
    for (own, generated) in pairs {
        assert!(own.is_some());
        assert_eq!(own, generated);
    }
}
