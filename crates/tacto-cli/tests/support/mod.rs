//! What this crate's tests share: the built `tacto` command in a DDS domain of the test's own
//! on loopback, the built examples of tacto-dds and tacto-launch, a running `tacto launch` (as
//! [`launch`]), and (as [`dds`]) tacto-dds' test peers: rclpy nodes on Fast DDS or on
//! rmw_cyclonedds, and loopback participants.

#![allow(dead_code)] // each test file uses its own part of this module

#[path = "../../../tacto-dds/tests/support/mod.rs"]
pub mod dds;
pub mod launch;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Cyclone's configuration for the tests: the loopback interface only (as [`dds`]' peers).
pub const LOOPBACK: &str = "<CycloneDDS><Domain><General><Interfaces><NetworkInterface \
                            name=\"lo\"/></Interfaces></General></Domain></CycloneDDS>";

/// The environment of a process in DDS domain `domain`, on loopback with localhost discovery
/// (as the rclpy peers): the test's alone.
pub fn dds_env(domain: u32) -> [(&'static str, String); 3] {
    [
        ("ROS_DOMAIN_ID", domain.to_string()),
        ("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST".into()),
        ("CYCLONEDDS_URI", LOOPBACK.into()),
    ]
}

/// The built `tacto` binary with `args`, in `domain` (see [`dds_env`]), with nothing from the
/// test's environment that would change what it finds: no static peers, and no ROS 2
/// installation for message types (it reads its own).
pub fn tacto(domain: u32, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tacto"));
    command
        .args(args)
        .envs(dds_env(domain))
        .env_remove("ROS_STATIC_PEERS")
        .env_remove("AMENT_PREFIX_PATH")
        .stdin(Stdio::null());
    command
}

/// Bytes of a command's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// tacto-dds' example `name`, built (debug, in the repository's `target/`, where launch files
/// name it) if it is not up to date.
pub fn built_example(name: &str) -> PathBuf {
    built_example_of("tacto-dds", name)
}

/// Example `name` of crate `package`, built (debug, in the repository's `target/`) if it is not
/// up to date: `cargo build -p PACKAGE --example NAME`, which waits for any other build of the
/// workspace to finish first.
pub fn built_example_of(package: &str, name: &str) -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args(["build", "-p", package, "--example", name])
        .current_dir(repo_root())
        .env_remove("CARGO_TARGET_DIR")
        .stdout(Stdio::null())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --example {name}: {status}");
    repo_root().join("target/debug/examples").join(name)
}
