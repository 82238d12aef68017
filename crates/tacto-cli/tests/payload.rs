//! `tacto bench payload`: every path delivers every message at every size asked for, across
//! real processes (a flat message read in place among them), and the report says so; bad
//! options are refused before anything runs.

use std::process::Command;

use tacto_bench::payload::{Path, PayloadReport};

fn tacto(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tacto"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn every_path_measures_every_message_at_every_size() {
    let dir = std::env::temp_dir().join(format!("tacto-payload-{}", std::process::id()));
    let json = dir.join("payload.json");
    std::fs::create_dir_all(&dir).unwrap();
    let out = tacto(&[
        "bench",
        "payload",
        "--count",
        "30",
        "--sizes",
        "64,1M",
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let report: PayloadReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap())
        .expect("the JSON is a payload report");
    assert_eq!(report.count, 30);
    assert!(!report.interrupted);
    for size in [64, 1 << 20] {
        for path in Path::ALL {
            let cell = (report.cell(path, size))
                .unwrap_or_else(|| panic!("{} at {size} B ran", path.name()));
            // One message in flight, acknowledged: every measured one arrived, stamped.
            assert_eq!(cell.n, 30, "{} at {size} B", path.name());
            assert!(
                0.0 < cell.p50_us && cell.p50_us <= cell.p99_us && cell.p99_us <= cell.max_us,
                "{cell:?}"
            );
            assert!(cell.cpu_us > 0.0, "{cell:?}");
        }
    }
    assert_eq!(report.cells.len(), 10);
    assert!(stdout.contains("   1 MiB |"), "{stdout}");
    assert!(
        stdout.contains("shm/raw") && stdout.contains("flat/raw-loan"),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(dir.join("latency-payload.svg")).unwrap();
    assert_eq!(
        svg.matches("<polyline").count(),
        10,
        "p50 and p99 of 5 paths"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("latency-payload.svg") && md.contains("1 MiB"),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_options_are_refused_by_name() {
    for (args, expected) in [
        (&["--sizes", "0"][..], "a payload from 1 B to 64 MiB"),
        (&["--sizes", "lots"][..], "not a size"),
        (&["--count", "0"][..], "--count"),
        (&["--path", "udp"][..], "udp"),
        (&["--duration", "3"][..], "--duration"),
        (
            &["--path", "flat", "--sizes", "3K"][..],
            "the flat path has a message type for",
        ),
    ] {
        let out = tacto(&[&["bench", "payload"][..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("[64 B]"), "nothing may run: {err}");
    }
}
