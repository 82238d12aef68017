//! Compiles the reference system's number cruncher, in C, with the system's C compiler (gcc).

fn main() {
    println!("cargo::rerun-if-changed=csrc/number_cruncher.c");
    cc::Build::new()
        .file("csrc/number_cruncher.c")
        // Upstream's rclcpp build is a CMake Release build: -O3. Fixed here, whatever cargo's
        // profile, so that debug and release builds crunch alike.
        .opt_level(3)
        .warnings(true)
        .compile("tacto_number_cruncher");
}
