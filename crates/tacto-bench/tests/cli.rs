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
    assert!(err.contains("not a number of seconds"), "{err}");
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
