//! The `fibonacci_action_server` and `fibonacci_action_client` examples, built, run together
//! as two processes over DDS: the client's goal is served, its feedback and result printed.
//! Domain 99.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(90);

/// The loopback interface only: the examples talk to each other and nothing else.
const LOOPBACK_URI: &str = "<CycloneDDS><Domain><General><Interfaces>\
    <NetworkInterface name=\"lo\"/></Interfaces></General></Domain></CycloneDDS>";

/// The built example `name`, which `cargo test -p tacto-dds` builds before the tests.
fn example(name: &str) -> PathBuf {
    let path = std::env::current_exe()
        .expect("test binary")
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir")
        .join("examples")
        .join(name);
    assert!(
        path.exists(),
        "{} is not built: run `cargo test -p tacto-dds` (which builds the examples) or \
         `cargo build -p tacto-dds --examples` first",
        path.display()
    );
    path
}

/// A child process, killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(name: &str, args: &[&str], domain: u32) -> Process {
    Process(
        Command::new(example(name))
            .args(args)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env("CYCLONEDDS_URI", LOOPBACK_URI)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}")),
    )
}

#[test]
fn the_fibonacci_client_example_gets_feedback_and_its_result_from_the_server_example() {
    let domain = 99;
    let _server = spawn(
        "fibonacci_action_server",
        &["--ros-args", "-p", "period:=0.02"],
        domain,
    );
    let mut client = spawn("fibonacci_action_client", &["5"], domain);
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = client.0.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the client ended within {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut log = String::new();
    let stderr = client.0.stderr.as_mut().expect("piped");
    std::io::Read::read_to_string(stderr, &mut log).expect("stderr");
    assert!(status.success(), "the client failed ({status}):\n{log}");
    assert!(
        log.contains("Goal accepted by server, waiting for result"),
        "{log}"
    );
    assert!(
        log.contains("Next number in sequence received: 0 1 1 2 3 5 "),
        "{log}"
    );
    assert!(log.contains("Result received: 0 1 1 2 3 5 "), "{log}");
}
