//! The system's launcher: `gyro_system FILE.toml [NAME:=VALUE ...]` runs a launch file as
//! `tacto launch` does, with this system's components (the `gyro-nodes` crate) beside the ones
//! `tacto` ships; each process of components the file places is this binary again.

// Rust links a crate the binary names: this is what registers the system's components.
use gyro_nodes as _;
// The launch, as a program of one's own.
use tacto_launch::program;

fn main() -> std::process::ExitCode {
    program::main()
}
