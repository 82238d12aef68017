//! Generates `interfaces/flat_test_msgs` twice: with `Stamp` and `Frame` flat (`flat.rs`) and
//! as before, not flat (`plain.rs`), so that the tests compare the two.

use std::path::PathBuf;

fn main() {
    let package = manifest_dir().join("interfaces/flat_test_msgs");
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
