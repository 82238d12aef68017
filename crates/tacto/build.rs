//! Generates `tacto::msg::rcl_interfaces` and `tacto::msg::lifecycle_msgs` from the packages'
//! own `.msg`/`.srv` files in `interfaces/` (ROS 2 Jazzy): the runtime publishes its `Log` on
//! `/rosout`, serves parameters and logger levels with its services, and a managed node its
//! lifecycle services. Its `builtin_interfaces/Time`
//! fields are the hand-written `tacto::msg::builtin_interfaces::Time`, so that stamps convert
//! to and from `tacto::Time` as everywhere else.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = tacto_msggen::Generator::new()
        .package(root.join("interfaces/rcl_interfaces"))
        .package(root.join("interfaces/lifecycle_msgs"))
        .shipped_package("builtin_interfaces", "crate::msg::builtin_interfaces")
        .write_to_out_dir("interfaces.rs");
    if let Err(error) = generated {
        panic!("{error}");
    }
}
