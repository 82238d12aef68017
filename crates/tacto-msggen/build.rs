//! Embeds the interface files of `tacto-msgs` (`../tacto-msgs/interfaces/<pkg>/{msg,srv,action}/`)
//! and of the core crate (`../tacto/interfaces/`: `tacto_msgs`, and `rcl_interfaces`, which
//! `tacto` generates itself): the generator hashes types that use them, and the `tacto` binary
//! knows them wherever it runs.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let crates = manifest_dir().join("..");
    let mut entries = Vec::new();
    for root in [
        crates.join("tacto-msgs/interfaces"),
        crates.join("tacto/interfaces"),
    ] {
        println!("cargo::rerun-if-changed={}", root.display());
        let packages =
            std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
        for package in packages.flatten() {
            for kind in ["msg", "srv", "action"] {
                let Ok(files) = std::fs::read_dir(package.path().join(kind)) else {
                    continue;
                };
                for file in files.flatten() {
                    let path = file.path();
                    if path.extension().and_then(|e| e.to_str()) != Some(kind) {
                        continue;
                    }
                    let (Some(pkg), Some(name)) = (
                        package.file_name().to_str().map(str::to_owned),
                        path.file_stem().and_then(|s| s.to_str()).map(str::to_owned),
                    ) else {
                        continue;
                    };
                    let path = path.canonicalize().expect("an existing file");
                    entries.push((pkg, kind, name, path));
                }
            }
        }
    }
    entries.sort();
    let mut code = String::from(
        "/// (package, `msg`, `srv` or `action`, type, file text) of every shipped interface file.\n",
    );
    code.push_str("pub const SHIPPED: &[(&str, &str, &str, &str)] = &[\n");
    for (pkg, kind, name, path) in &entries {
        writeln!(
            code,
            "    ({pkg:?}, {kind:?}, {name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR in a build script"))
        .join("shipped.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
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
