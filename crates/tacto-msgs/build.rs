//! Generates the Rust types of the packages in `interfaces/` into OUT_DIR, and for the tests
//! (only they include them; both small) those of the packages in `tests/interfaces/` and a
//! list of every message type, which the bad-input test decodes.

use std::path::{Path, PathBuf};

/// The packages generated here.
const PACKAGES: [&str; 10] = [
    "action_msgs",
    "example_interfaces",
    "geometry_msgs",
    "nav_msgs",
    "rosgraph_msgs",
    "sensor_msgs",
    "std_msgs",
    "std_srvs",
    "tf2_msgs",
    "unique_identifier_msgs",
];

/// The packages whose types are the core crate's, re-exported (src/lib.rs), with the folder of
/// their files and the module of their messages in `tacto`.
const CORE_PACKAGES: [(&str, &str, &str); 3] = [
    (
        "builtin_interfaces",
        "interfaces/builtin_interfaces",
        "::tacto::msg::builtin_interfaces",
    ),
    (
        "rcl_interfaces",
        "../tacto/interfaces/rcl_interfaces",
        "::tacto::msg::rcl_interfaces::msg",
    ),
    (
        "lifecycle_msgs",
        "../tacto/interfaces/lifecycle_msgs",
        "::tacto::msg::lifecycle_msgs::msg",
    ),
];
/// The packages only the tests use, with their folders: tacto-msggen's copy of test_msgs (its
/// actions, with rosidl's hashes in the virtualenv) besides this crate's own.
const TEST_PACKAGES: [(&str, &str); 3] = [
    ("tacto_test_msgs", "tests/interfaces/tacto_test_msgs"),
    (
        "type_description_interfaces",
        "tests/interfaces/type_description_interfaces",
    ),
    ("test_msgs", "../tacto-msggen/tests/fixtures/test_msgs"),
];

fn main() {
    let root = manifest_dir();
    let mut generator = tacto_msggen::Generator::new();
    for package in PACKAGES {
        generator = generator.package(root.join("interfaces").join(package));
    }
    for (package, _, messages) in CORE_PACKAGES {
        generator = generator.shipped_package(package, messages);
    }
    let mut tests = tacto_msggen::Generator::new().tacto_msgs();
    for (_, dir) in TEST_PACKAGES {
        tests = tests.package(root.join(dir));
    }
    for (generator, file) in [(generator, "interfaces.rs"), (tests, "test_interfaces.rs")] {
        if let Err(error) = generator.write_to_out_dir(file) {
            panic!("{error}");
        }
    }
    write_message_list(&root);
}

/// Writes the expressions `every_message!(path, ...)` with the Rust path of every message type
/// (a service gives two, an action eight), `every_service!(path, ...)` with that of every
/// service (an action's two derived services among them) and `every_action!(path, ...)` with
/// that of every action, for the tests to expand with macros of their own.
fn write_message_list(root: &Path) {
    let mut paths = Vec::new();
    let mut services = Vec::new();
    let mut actions = Vec::new();
    let package_folder = |p: &str| -> PathBuf {
        (CORE_PACKAGES.iter().find(|(name, ..)| *name == p))
            .map(|(_, dir, _)| root.join(dir))
            .unwrap_or_else(|| root.join("interfaces").join(p))
    };
    let folders = (PACKAGES.iter().chain(CORE_PACKAGES.iter().map(|(p, ..)| p)))
        .map(|p| (package_folder(p), format!("::tacto_msgs::{p}")))
        .chain(
            (TEST_PACKAGES.iter())
                .map(|(p, dir)| (root.join(dir), format!("crate::test_interfaces::{p}"))),
        );
    for (dir, module) in folders {
        // The generators name the folders they read, but not the core packages' (generated in
        // tacto), whose files this list names too.
        println!("cargo::rerun-if-changed={}", dir.display());
        for (kind, suffixes) in [
            ("msg", &[""][..]),
            ("srv", &["_Request", "_Response"][..]),
            (
                "action",
                &[
                    "_Goal",
                    "_Result",
                    "_Feedback",
                    "_SendGoal_Request",
                    "_SendGoal_Response",
                    "_GetResult_Request",
                    "_GetResult_Response",
                    "_FeedbackMessage",
                ][..],
            ),
        ] {
            let Ok(entries) = std::fs::read_dir(dir.join(kind)) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(|entry| {
                    let path = entry.ok()?.path();
                    (path.extension()? == kind).then_some(())?;
                    path.file_stem()?.to_str().map(str::to_owned)
                })
                .collect();
            names.sort();
            for name in names {
                match kind {
                    "srv" => services.push(format!("{module}::{kind}::{name}")),
                    "action" => {
                        for service in ["_SendGoal", "_GetResult"] {
                            services.push(format!("{module}::{kind}::{name}{service}"));
                        }
                        actions.push(format!("{module}::{kind}::{name}"));
                    }
                    _ => {}
                }
                for suffix in suffixes {
                    paths.push(format!("{module}::{kind}::{name}{suffix}"));
                }
            }
        }
    }
    let out_dir = std::env::var_os("OUT_DIR").expect("OUT_DIR");
    for (file, list) in [
        (
            "message_list.rs",
            format!("every_message!(\n    {},\n)\n", paths.join(",\n    ")),
        ),
        (
            "service_list.rs",
            format!("every_service!(\n    {},\n)\n", services.join(",\n    ")),
        ),
        (
            "action_list.rs",
            format!("every_action!(\n    {},\n)\n", actions.join(",\n    ")),
        ),
    ] {
        let out = Path::new(&out_dir).join(file);
        std::fs::write(&out, list)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    }
}

/// This package's folder, as Cargo gives it to the build script when it runs. Not
/// `env!("CARGO_MANIFEST_DIR")`: that is baked in when the script is compiled, and a script
/// binary reused from a target directory shared between checkouts would read the other
/// checkout's files.
fn manifest_dir() -> PathBuf {
    match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "CARGO_MANIFEST_DIR is not set: this build script expects Cargo to run it, which \
             sets it to the package's folder"
        ),
    }
}
