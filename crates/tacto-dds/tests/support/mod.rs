//! Real ROS 2 peers for the tests: rclpy nodes (the PyPI wheels) run as child processes from
//! the virtualenv `scripts/setup.sh` creates, on Fast DDS (rclpy's default) or on the real
//! rmw_cyclonedds (for services and what is built on them, which do not cross the two DDS
//! implementations), and a tacto-dds participant restricted to the loopback interface.

#![allow(dead_code)] // each test file uses its own part of this module

pub mod test_msgs;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use tacto_dds::{DiscoveryRange, DomainConfig, Participant};

/// How long a test waits for discovery and the first samples. Generous: the machine is small
/// and shared, and rclpy takes a few seconds to start. Nothing is timed against it.
pub const PATIENCE: Duration = Duration::from_secs(90);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The venv's python, after making sure the venv exists (once per test binary; the script
/// locks against other test binaries doing it at the same time, and is fast when done).
pub fn python() -> PathBuf {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let result = PYTHON.get_or_init(|| {
        let root = repo_root();
        let status = Command::new("bash")
            .arg(root.join("scripts/setup.sh"))
            .arg("venv")
            .status()
            .map_err(|e| format!("cannot run scripts/setup.sh: {e}"))?;
        if !status.success() {
            return Err(format!("scripts/setup.sh venv failed ({status})"));
        }
        Ok(venv().join("bin/python"))
    });
    match result {
        Ok(python) => python.clone(),
        Err(error) => panic!("the ROS 2 virtualenv is not available: {error}"),
    }
}

/// rclpy on rmw_cyclonedds_cpp: `python-cyclone` in the venv, which `scripts/setup.sh cyclone`
/// builds from `../shared/peers` (the project's sibling folder, beside the repository root).
/// Services, parameters, actions and lifecycle are tested against it: rclpy's own code on the
/// RMW whose service mapping tacto speaks.
///
/// Returns `None` when the checkout has no `../shared` (a plain clone), after writing
/// `test <test> ... skipped: <why>` to the test's real stderr (not the captured one, so it
/// shows in `cargo test`'s output): such a test must return at once, having checked nothing.
/// Fails the test if `../shared` is there but the peer cannot be built.
pub fn rclpy_on_cyclone(test: &str) -> Option<CycloneRclpy> {
    static PYTHON: OnceLock<Result<Option<PathBuf>, String>> = OnceLock::new();
    let result = PYTHON.get_or_init(|| {
        let root = repo_root();
        let build = root.join("../shared/peers/build-rmw-cyclonedds.sh");
        if !build.exists() {
            return Ok(None);
        }
        let status = Command::new("bash")
            .arg(root.join("scripts/setup.sh"))
            .arg("cyclone")
            .status()
            .map_err(|e| format!("cannot run scripts/setup.sh: {e}"))?;
        if !status.success() {
            return Err(format!("scripts/setup.sh cyclone failed ({status})"));
        }
        let python = venv().join("bin/python-cyclone");
        match python.exists() {
            true => Ok(Some(python)),
            false => Err(format!("{} is missing after setup", python.display())),
        }
    });
    match result {
        Ok(Some(python)) => Some(CycloneRclpy {
            python: python.clone(),
        }),
        Ok(None) => {
            // Straight to the file descriptor: libtest captures eprintln! of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "test {test} ... skipped: no ../shared/peers beside the repository, so no \
                 rclpy on rmw_cyclonedds to test against (see scripts/setup.sh)"
            );
            None
        }
        Err(error) => panic!("rclpy on rmw_cyclonedds is not available: {error}"),
    }
}

/// rclpy on rmw_cyclonedds, found by [`rclpy_on_cyclone`].
pub struct CycloneRclpy {
    python: PathBuf,
}

impl CycloneRclpy {
    /// Starts `tests/rclpy/<script>` with `args` on rmw_cyclonedds in DDS domain `domain_id`,
    /// loopback only (Cyclone's config as [`loopback_participant`]'s).
    pub fn spawn(&self, script: &str, domain_id: u32, args: &[&str]) -> RclpyNode {
        let script_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/rclpy")
            .join(script);
        let mut command = Command::new(&self.python);
        command
            .arg("-u")
            .arg(&script_path)
            .args(args)
            .env("ROS_DOMAIN_ID", domain_id.to_string())
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env("CYCLONEDDS_URI", LOOPBACK_URI)
            // What would change the peer's network behind the test's back; the wrapper sets
            // the RMW itself.
            .env_remove("ROS_LOCALHOST_ONLY")
            .env_remove("ROS_STATIC_PEERS")
            .env_remove("RMW_IMPLEMENTATION")
            .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE");
        RclpyNode::start(command, &script_path.display().to_string())
    }
}

/// Cyclone's configuration for the tests: the loopback interface only.
const LOOPBACK_URI: &str = "<CycloneDDS><Domain><General><Interfaces>\
    <NetworkInterface name=\"lo\"/>\
    </Interfaces></General></Domain></CycloneDDS>";

fn venv() -> PathBuf {
    std::env::var_os("TACTO_ROS2_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/ros2-venv"))
}

/// Cyclone on the loopback interface only, with LOCALHOST discovery as rclpy gets it from
/// `ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`: the tests talk to processes on this machine
/// and nothing else.
pub fn loopback_participant(domain_id: u32) -> Participant {
    let mut config = DomainConfig::new(domain_id);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(LOOPBACK_URI.into());
    Participant::new(&config).unwrap_or_else(|e| panic!("participant in domain {domain_id}: {e}"))
}

/// The environment variable telling a test binary started by [`RclpyNode::this_test`] which
/// part to play.
pub const ROLE: &str = "TACTO_TEST_ROLE";

/// A peer process of a test: an rclpy node running one of the scripts in `tests/rclpy/`, or
/// this test binary in another role; killed when dropped.
pub struct RclpyNode {
    child: Child,
    /// Its stdout, line by line.
    pub lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// The thread that copies stderr; it ends at the pipe's end, when the process exits.
    stderr_reader: Option<thread::JoinHandle<()>>,
}

impl RclpyNode {
    /// Starts `tests/rclpy/<script>` with `args` in DDS domain `domain_id`, loopback only.
    pub fn spawn(script: &str, domain_id: u32, args: &[&str]) -> RclpyNode {
        Self::spawn_in("rclpy", script, domain_id, args)
    }

    /// Starts `tests/<folder>/<script>` from the same virtualenv, as [`spawn`](Self::spawn)
    /// does: for peers that are not rclpy nodes (`tests/cyclonedds/`).
    pub fn spawn_in(folder: &str, script: &str, domain_id: u32, args: &[&str]) -> RclpyNode {
        let script_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(folder)
            .join(script);
        let mut command = Command::new(python());
        command
            .arg("-u")
            .arg(&script_path)
            .args(args)
            .env("ROS_DOMAIN_ID", domain_id.to_string())
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
            // What would change the peer's network or RMW behind the test's back.
            .env_remove("ROS_LOCALHOST_ONLY")
            .env_remove("ROS_STATIC_PEERS")
            .env_remove("FASTRTPS_DEFAULT_PROFILES_FILE")
            .env_remove("FASTDDS_DEFAULT_PROFILES_FILE")
            // The wheels' bootstrapper sets LD_LIBRARY_PATH only when this is unset.
            .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE");
        Self::start(command, &script_path.display().to_string())
    }

    /// This test binary again, running only `test` (which sees `role` in `TACTO_TEST_ROLE`
    /// and plays that part), its stdout lines and stderr kept as for an rclpy node.
    /// `wrapper` runs it through another program first (`ip netns exec NAME`).
    pub fn this_test(test: &str, role: &str, wrapper: &[&str]) -> RclpyNode {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut command = match wrapper {
            [program, args @ ..] => {
                let mut command = Command::new(program);
                command.args(args).arg(&exe);
                command
            }
            [] => Command::new(&exe),
        };
        command
            // A test that plays its own other part, or an ignored one that only exists to be
            // run here (not counted as a test of its own): both run with --include-ignored.
            .args([test, "--exact", "--include-ignored", "--nocapture"])
            .env(ROLE, role);
        Self::start(command, &format!("{test} as {role}"))
    }

    fn start(mut command: Command, what: &str) -> RclpyNode {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
        let (sender, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let sink = Arc::clone(&stderr);
        let stderr_reader = thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                if let Ok(mut text) = sink.lock() {
                    text.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        RclpyNode {
            child,
            lines,
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    /// The next stdout line, or `None` after `timeout` (or if the process ended).
    pub fn next_line(&self, deadline: Instant) -> Option<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.lines.recv_timeout(left).ok()
    }

    /// What the node wrote on stderr so far, for failure messages.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Everything the node wrote on stderr, once it has exited: waits for the copy to reach
    /// the pipe's end, which [`stderr`](Self::stderr) does not.
    pub fn stderr_to_end(&mut self) -> String {
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
        self.stderr()
    }

    /// Whether the process has exited (and how).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for RclpyNode {
    fn drop(&mut self) {
        // Our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
