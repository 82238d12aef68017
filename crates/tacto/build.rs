//! Generates `tacto::msg::rcl_interfaces` from the package's own `.msg`/`.srv` files in
//! `interfaces/rcl_interfaces` (ROS 2 Jazzy): the runtime publishes its `Log` on `/rosout`
//! and serves parameters and logger levels with its services. Its `builtin_interfaces/Time`
//! fields are the hand-written `tacto::msg::builtin_interfaces::Time`, so that stamps convert
//! to and from `tacto::Time` as everywhere else.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = tacto_msggen::Generator::new()
        .package(root.join("interfaces/rcl_interfaces"))
        .shipped_package("builtin_interfaces", "crate::msg::builtin_interfaces")
        .write_to_out_dir("rcl_interfaces.rs");
    if let Err(error) = generated {
        panic!("{error}");
    }
}
