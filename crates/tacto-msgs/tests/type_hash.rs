//! Every generated type's `TYPE_HASH` equals rosidl's: the `.json` files that
//! `rosidl_generator_type_description` installed with the ROS 2 Jazzy packages of the
//! virtualenv (`share/<pkg>/<msg|srv|action>/<Type>.json`, `type_hashes`), and for a shipped
//! package without a wheel, the hashes that generator computes from our files in the
//! virtualenv (`tests/rosidl/type_hashes.py`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use tacto::{ActionType, Message, ServiceType};

#[allow(dead_code)] // only the types' hashes are used here
mod test_interfaces {
    include!(concat!(env!("OUT_DIR"), "/test_interfaces.rs"));
}

/// The shipped packages without a wheel on PyPI, so without rosidl's files in the virtualenv:
/// rosidl's generator, run there on our files, computes their hashes.
const COMPUTED: [&str; 2] = ["example_interfaces", "tf2_msgs"];
/// Packages without any oracle: tacto's own.
const NO_ORACLE: [&str; 1] = ["tacto_test_msgs"];

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

/// The hashes rosidl's generator computes, in the virtualenv, for every type of the shipped
/// package `package` (its `.msg`, `.srv` and `.action` files and the types derived from them).
fn computed_hashes(venv: &Path, package: &str) -> HashMap<String, String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rosidl-{package}"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let output = Command::new(venv.join("bin/python"))
        .arg(manifest.join("tests/rosidl/type_hashes.py"))
        .arg(manifest.join("interfaces").join(package))
        .arg(&work)
        // The wheels' bootstrapper sets LD_LIBRARY_PATH only when this is unset.
        .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE")
        .output()
        .expect("run type_hashes.py");
    assert!(
        output.status.success(),
        "type_hashes.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&work);
    String::from_utf8(output.stdout)
        .expect("type_hashes.py prints text")
        .lines()
        .map(|line| {
            let (name, hash) = line.split_once(' ').expect("`name hash` lines");
            (name.to_owned(), hash.to_owned())
        })
        .collect()
}

/// rosidl's hash of `type_name` (`pkg/msg/T`, `pkg/srv/S`, `pkg/srv/S_Request`,
/// `pkg/action/A`, `pkg/action/A_SendGoal_Response`, ...): from the file of its message,
/// service or action, or from `computed` for a package listed in [`COMPUTED`]; `None` for a
/// package listed in [`NO_ORACLE`].
fn rosidl_hash(venv: &Path, computed: &HashMap<String, String>, type_name: &str) -> Option<String> {
    let mut parts = type_name.split('/');
    let (package, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
    if NO_ORACLE.contains(&package) {
        return None;
    }
    if COMPUTED.contains(&package) {
        assert!(
            !venv.join("share").join(package).exists(),
            "the virtualenv now has {package}: remove it from COMPUTED"
        );
        let hash = computed.get(type_name);
        return Some(hash.unwrap_or_else(|| panic!("rosidl computed no hash of {type_name}")))
            .cloned();
    }
    // A `.srv` file holds `S_Request` and `S_Response`; an `.action` file all of `A_*`.
    let file_name = match kind {
        "srv" => name
            .strip_suffix("_Request")
            .or_else(|| name.strip_suffix("_Response"))
            .unwrap_or(name),
        "action" => name.split('_').next().unwrap_or(name),
        _ => name,
    };
    let path = venv.join(format!("share/{package}/{kind}/{file_name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "no rosidl type description for {type_name} in the virtualenv ({}: {e}); \
             the venv must have every shipped package but {COMPUTED:?}",
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
    macro_rules! every_action {
        ($($ty:ty),* $(,)?) => {
            [$((<$ty as ActionType>::TYPE_NAME, <$ty as ActionType>::TYPE_HASH)),*]
        };
    }
    let messages = include!(concat!(env!("OUT_DIR"), "/message_list.rs"));
    let services = include!(concat!(env!("OUT_DIR"), "/service_list.rs"));
    let actions = include!(concat!(env!("OUT_DIR"), "/action_list.rs"));
    let venv = venv();
    let computed: HashMap<String, String> = (COMPUTED.iter())
        .flat_map(|package| computed_hashes(&venv, package))
        .collect();
    let mut compared = 0;
    let mut wrong = Vec::new();
    for (type_name, hash) in messages.iter().chain(&services).chain(&actions) {
        let hash = hash.unwrap_or_else(|| panic!("{type_name} has no TYPE_HASH"));
        let Some(expected) = rosidl_hash(&venv, &computed, type_name) else {
            continue;
        };
        compared += 1;
        if hash != expected {
            wrong.push(format!("{type_name}: tacto {hash}, rosidl {expected}"));
        }
    }
    assert!(wrong.is_empty(), "hashes differ:\n{}", wrong.join("\n"));
    // The 11 packages of tacto-msgs, type_description_interfaces and test_msgs' actions.
    assert!(compared > 200, "only {compared} types compared");
    // Every action type is among them: example_interfaces' and test_msgs' actions.
    for action in ["example_interfaces", "test_msgs"] {
        let of_package = (actions.iter())
            .filter(|(name, _)| name.starts_with(&format!("{action}/action/")))
            .count();
        assert!(of_package > 0, "no action of {action} compared");
    }
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
