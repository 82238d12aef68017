//! Generates `interfaces/flat_test_msgs` twice: with `Stamp` and `Frame` flat (`flat.rs`) and
//! as before, not flat (`plain.rs`), so that the tests compare the two.

use std::path::Path;

fn main() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("interfaces/flat_test_msgs");
    let plain = tacto_msggen::Generator::new().package(&package);
    let flat = (plain.clone())
        .flat("flat_test_msgs/msg/Stamp")
        .flat("flat_test_msgs/msg/Frame");
    for (generator, file) in [(flat, "flat.rs"), (plain, "plain.rs")] {
        if let Err(error) = generator.write_to_out_dir(file) {
            panic!("{error}");
        }
    }
}
