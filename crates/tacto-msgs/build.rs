//! Generates the Rust types of the packages in `interfaces/` into OUT_DIR.

use std::path::Path;

fn main() {
    let interfaces = Path::new(env!("CARGO_MANIFEST_DIR")).join("interfaces");
    let mut generator = tacto_msggen::Generator::new();
    for package in [
        "builtin_interfaces",
        "example_interfaces",
        "geometry_msgs",
        "nav_msgs",
        "rcl_interfaces",
        "rosgraph_msgs",
        "sensor_msgs",
        "std_msgs",
        "std_srvs",
    ] {
        generator = generator.package(interfaces.join(package));
    }
    if let Err(error) = generator.write_to_out_dir("interfaces.rs") {
        panic!("{error}");
    }
}
