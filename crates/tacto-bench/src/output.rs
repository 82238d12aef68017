//! Where a benchmark's results go: `--json FILE` and `--out DIR` are checked before anything
//! runs, so that a run of minutes never ends on a path it cannot write.

use std::fs;
use std::path::Path;

/// Checks that `path` can be written as a file, without changing what is there.
pub fn check_output_file(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err("is a folder, not a file".into());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!("the folder {} does not exist", parent.display()));
    }
    let existed = path.exists();
    // Opened without truncating: an existing file keeps its contents until the results come.
    fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot be written: {e}"))?;
    if !existed {
        fs::remove_file(path).map_err(|e| format!("cannot be written: {e}"))?;
    }
    Ok(())
}

/// Creates `dir` if needed and checks that files can be written into it.
pub fn check_output_dir(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err("is a file, not a folder".into());
    }
    fs::create_dir_all(dir).map_err(|e| format!("cannot be created: {e}"))?;
    let probe = dir.join(format!(".tacto-probe-{}", std::process::id()));
    fs::write(&probe, b"").map_err(|e| format!("cannot be written into: {e}"))?;
    fs::remove_file(&probe).map_err(|e| format!("cannot be written into: {e}"))
}
