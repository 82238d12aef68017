//! Launch files that place the nodes of a built-in topology: tacto-launch reads them with the
//! topologies this crate registers (`tacto_bench::launched`), so their tests are here.

use std::path::Path;
use std::time::Duration;

use tacto_bench::launched::{BenchTarget, bench_target};
use tacto_bench::topology::Topology;
use tacto_launch::{ExecutorKind, LaunchFile, LaunchFileError, LaunchTransport, Restart};
use tacto_shm::ShmLimits;

fn parse(text: &str) -> Result<LaunchFile, LaunchFileError> {
    LaunchFile::parse(text, Path::new("t.toml"))
}

const ONE: &str = "topology = \"reference-system\"\n[[process]]\nname = \"a\"\n\
                   nodes = [\"FrontLidarDriver\"]\nexecutor = \"wait-set\"\n";

#[test]
fn a_node_of_the_topology_placed_twice_is_named_with_its_line() {
    let text = r#"
topology = "reference-system"

[[process]]
name = "front"
nodes = ["FrontLidarDriver", "PointsTransformerFront"]
executor = "wait-set"
restart = "on-failure"

[[process]]
name = "fusion"
nodes = ["PointsTransformerFront"]
executor = "events"
"#;
    let error = LaunchFile::parse(text, Path::new("demo.toml")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "demo.toml:12:10: process \"fusion\": nodes: node \"PointsTransformerFront\" is placed \
         twice (also in process \"front\")"
    );
    let text = text.replace(r#"["PointsTransformerFront"]"#, r#"["PointCloudFusion"]"#);
    let file = LaunchFile::parse(&text, Path::new("demo.toml")).unwrap();
    assert_eq!(file.processes[0].restart, Restart::OnFailure { max: 3 });
}

#[test]
fn every_shipped_launch_file_of_a_topology_is_valid_and_measurable() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("launch");
    let mut read = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let file = LaunchFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let target = bench_target(&file, &path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            matches!(
                target,
                BenchTarget::Topology(Topology::ReferenceSystem(_) | Topology::Nobleo(_))
            ),
            "{}: {target:?}",
            path.display()
        );
        read += 1;
    }
    assert!(read >= 4, "{read} files in {}", folder.display());
}

#[test]
fn a_file_that_runs_an_executable_is_not_measured() {
    let file = parse(&format!("{ONE}[[process]]\nname = \"b\"\nexec = \"sh\"\n")).unwrap();
    let error = bench_target(&file, Path::new("t.toml")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "t.toml: tacto bench measures a file of nodes of a built-in topology or of components: \
         process \"b\" runs an executable"
    );
}

#[test]
fn a_minimal_file_is_read_with_its_defaults() {
    let file = parse(ONE).unwrap();
    assert_eq!(file.crunch, 4096);
    assert_eq!(file.grace, Duration::from_secs(5));
    assert_eq!(file.processes[0].restart, Restart::Never);
    assert_eq!(file.processes[0].executor(), Some(ExecutorKind::WaitSet));
    assert_eq!(file.transport, LaunchTransport::SharedMemory);
    assert_eq!(file.shm, ShmLimits::default());
    let dds = parse(&format!("transport = \"dds\"\n{ONE}")).unwrap();
    assert_eq!(dds.transport, LaunchTransport::Dds);
    let both = parse(&format!("transport = \"shm+dds\"\n{ONE}")).unwrap();
    assert_eq!(both.transport, LaunchTransport::SharedMemoryAndDds);
}

#[test]
fn the_shm_table_sets_every_process_limits() {
    let file = parse(&format!(
        "{ONE}[shm]\nmax_subscribers = 16\nmax_depth = 4\n"
    ))
    .unwrap();
    let limits = ShmLimits {
        subscribers: 16,
        depth: 4,
        ..ShmLimits::default()
    };
    assert_eq!(file.shm, limits);
    let both = parse(&format!(
        "transport = \"shm+dds\"\n{ONE}[shm]\nmax_publishers = 2\nmax_held = 1\n"
    ))
    .unwrap();
    assert_eq!((both.shm.publishers, both.shm.held), (2, 1));
}

#[test]
fn each_mistake_is_named_with_its_line() {
    let cases = [
        (
            ONE.replace("FrontLidarDriver", "Lidar"),
            "t.toml:4:10: process \"a\": nodes: topology \"reference-system\" has no node \"Lidar\"",
        ),
        (
            ONE.replace("wait-set", "fast"),
            "t.toml:5:12: process \"a\": executor: unknown executor \"fast\"",
        ),
        (
            format!("{ONE}restart = \"always\"\n"),
            "t.toml:6:11: process \"a\": restart: unknown policy \"always\"",
        ),
        (
            format!("{ONE}fifo_priority = 100\n"),
            "t.toml:6:17: process \"a\": fifo_priority: give 1 to 99",
        ),
        (
            format!("{ONE}max_restarts = 2\n"),
            "t.toml:6:16: process \"a\": max_restarts: applies to restart = \"on-failure\" only",
        ),
        (
            format!("{ONE}cpus = []\n"),
            "t.toml:6:8: process \"a\": cpus: is empty",
        ),
        (
            ONE.replace("\"reference-system\"", "\"mont-blanc\""),
            "t.toml:1:12: topology: \"mont-blanc\" cannot be launched",
        ),
        (
            format!(
                "{ONE}[[process]]\nname = \"a\"\nnodes = [\"Visualizer\"]\nexecutor = \"let\"\n"
            ),
            "t.toml:7:8: process name \"a\" is used twice",
        ),
        (
            "topology = \"reference-system\"\n".into(),
            "t.toml:1:1: no process",
        ),
        (
            format!("{ONE}[shm]\nmax_subscribers = 0\n"),
            "t.toml:7:19: shm: max_subscribers: give 1 to 256",
        ),
        (
            format!("{ONE}[shm]\nmax_publishers = 65\n"),
            "t.toml:7:18: shm: max_publishers: give 1 to 64",
        ),
        (
            format!("{ONE}[shm]\nmax_depth = -1\n"),
            "t.toml:7:13: shm: max_depth: give 1 to 256",
        ),
        (
            format!("{ONE}[shm]\nmax_subscribers = 256\nmax_held = 256\n"),
            "t.toml:6:1: shm: max_subscribers × (max_depth + max_held + 1) + max_history + 2 = \
             256 × (16 + 256 + 1) + 1 + 2 = 69891 slots per publisher: give at most 16384",
        ),
        (
            format!("transport = \"dds\"\n{ONE}[shm]\nmax_subscribers = 16\n"),
            "t.toml:7:1: shm: applies to transport = \"shm\" or \"shm+dds\" only",
        ),
        (
            format!("transport = \"udp\"\n{ONE}"),
            "t.toml:1:13: transport: \"udp\" is not one: give \"shm\", \"dds\" or \"shm+dds\"",
        ),
    ];
    for (text, expected) in cases {
        let error = parse(&text).unwrap_err().to_string();
        assert!(
            error.starts_with(expected),
            "{error:?} should start with {expected:?}"
        );
    }
    let error = parse(&format!("{ONE}[shm]\nsubscribers = 16\n"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("line 7") && error.contains("subscribers"),
        "{error}"
    );
    let error = parse(&format!("{ONE}threads = 2\n"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("line 6") && error.contains("threads"),
        "{error}"
    );
}
