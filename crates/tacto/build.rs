//! Generates `tacto::msg::rcl_interfaces` and `tacto::msg::lifecycle_msgs` from the packages'
//! own `.msg`/`.srv` files in `interfaces/` (ROS 2 Jazzy): the runtime publishes its `Log` on
//! `/rosout`, serves parameters and logger levels with its services, and a managed node its
//! lifecycle services. Its `builtin_interfaces/Time`
//! fields are the hand-written `tacto::msg::builtin_interfaces::Time`, so that stamps convert
//! to and from `tacto::Time` as everywhere else.

use std::path::PathBuf;

fn main() {
    let root = manifest_dir();
    let generated = tacto_msggen::Generator::new()
        .package(root.join("interfaces/rcl_interfaces"))
        .package(root.join("interfaces/lifecycle_msgs"))
        .shipped_package("builtin_interfaces", "crate::msg::builtin_interfaces")
        .write_to_out_dir("interfaces.rs");
    if let Err(error) = generated {
        panic!("{error}");
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
