//! Generates the Rust types of the packages in `interfaces/` into OUT_DIR, and those of the
//! test packages in `tests/interfaces/` (small; only the tests include them).

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
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
        generator = generator.package(root.join("interfaces").join(package));
    }
    let tests = tacto_msggen::Generator::new()
        .package(root.join("tests/interfaces/tacto_test_msgs"))
        .package(root.join("tests/interfaces/type_description_interfaces"))
        .tacto_msgs();
    for (generator, file) in [(generator, "interfaces.rs"), (tests, "test_interfaces.rs")] {
        if let Err(error) = generator.write_to_out_dir(file) {
            panic!("{error}");
        }
    }
}
