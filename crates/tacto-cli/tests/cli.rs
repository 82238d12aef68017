//! The `tacto` command's answers to bad input: a clear message and a failing exit code.

use std::process::Command;

fn tacto(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tacto"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_unknown_topology_is_named_in_the_error() {
    let (ok, err) = tacto(&["bench", "autoware"]);
    assert!(!ok);
    assert!(err.contains("unknown topology \"autoware\""), "{err}");
}

#[test]
fn an_unknown_executor_is_named_in_the_error() {
    let (ok, err) = tacto(&["bench", "nobleo", "--executor", "wait-set,turbo"]);
    assert!(!ok);
    assert!(err.contains("unknown executor \"turbo\""), "{err}");
}

#[test]
fn a_negative_duration_is_refused() {
    let (ok, err) = tacto(&["bench", "nobleo", "--duration=-3"]);
    assert!(!ok);
    assert!(err.contains("-3 s is negative"), "{err}");
}

#[test]
fn a_malformed_topology_file_is_refused_before_any_run() {
    let path = std::env::temp_dir().join(format!("tacto-bad-{}.json", std::process::id()));
    std::fs::write(&path, "{ \"nodes\": [ { \"node_name\": 3 } ] }").unwrap();
    let (ok, err) = tacto(&["bench", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("not a valid topology"), "{err}");
    assert!(!err.contains("[1/"), "no run may start: {err}");
}

#[test]
fn a_missing_topology_file_is_reported_as_not_found() {
    let (ok, err) = tacto(&["bench", "no/such/topology.json"]);
    assert!(!ok);
    assert!(
        err.contains("no/such/topology.json: file not found"),
        "{err}"
    );
}

#[test]
fn a_measured_window_of_zero_seconds_is_refused() {
    let (ok, err) = tacto(&["bench", "nobleo", "--duration", "0"]);
    assert!(!ok);
    assert!(err.contains("0 s measures nothing"), "{err}");
}

#[test]
fn an_absurd_duration_is_refused_without_a_panic() {
    for value in ["18446744073709551615", "1e300", "inf"] {
        let (ok, err) = tacto(&["bench", "nobleo", "--duration", value]);
        assert!(!ok);
        assert!(err.contains("more than a week"), "{value}: {err}");
        assert!(!err.contains("panicked"), "{value}: {err}");
    }
}

#[test]
fn negative_numbers_are_refused_by_name() {
    for (flag, expected) in [
        ("--duration", "-3 s is negative"),
        ("--warmup", "-3 s is negative"),
        ("--crunch", "-3 is negative"),
        ("--crunch-ms", "not a time in ms"),
    ] {
        let (ok, err) = tacto(&["bench", "reference-system", flag, "-3"]);
        assert!(!ok);
        assert!(err.contains(expected), "{flag}: {err}");
    }
}

#[test]
fn crunch_and_crunch_ms_exclude_each_other() {
    let (ok, err) = tacto(&[
        "bench",
        "reference-system",
        "--crunch",
        "100",
        "--crunch-ms",
        "5",
    ]);
    assert!(!ok);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn output_paths_are_checked_before_any_run() {
    let file = std::env::temp_dir().join(format!("tacto-out-file-{}", std::process::id()));
    std::fs::write(&file, "").unwrap();
    let file = file.to_str().unwrap();
    let missing = format!("{file}-missing/results.json");
    for (flag, path, expected) in [
        ("--json", missing.as_str(), "does not exist"),
        ("--out", file, "is a file, not a folder"),
    ] {
        let (ok, err) = tacto(&["bench", "nobleo", flag, path]);
        assert!(!ok);
        assert!(err.contains(expected), "{flag}: {err}");
        assert!(!err.contains("[1/"), "no run may start: {err}");
    }
}
