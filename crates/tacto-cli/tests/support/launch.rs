//! A running `tacto launch` (or a launcher binary of one's own), as the launch tests drive
//! it: its lines from stdout and stderr together, waits for the line a check needs whatever
//! comes between (lines of two processes may come in either order), signals, its end.
//!
//! Two ways to wait, for two kinds of checks: [`Launch::take`] takes a line no earlier take
//! took (so that a check that a line came again needs a second one), and [`Launch::wait_for`]
//! finds any line seen so far before it waits (so that a check does not miss a line that came
//! while an earlier one was waited for).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A running launch and every line it has printed, stdout and stderr together.
pub struct Launch {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// Every line received so far, in the order received.
    pub seen: Vec<String>,
    /// Indices into `seen` of the lines no [`take`](Self::take) has taken yet, in order.
    untaken: Vec<usize>,
    /// How long any one wait lasts before the test fails: longer than any wait of a working
    /// launch, as the test file judges it.
    timeout: Duration,
}

/// `tacto launch PATH ARGS` with `env` set for the launch and its processes, and without what
/// would change an rclpy process's network or RMW behind the test's back (tacto's own
/// processes read only `ROS_STATIC_PEERS` of these, which the tests' DDS environment does not
/// use either).
pub fn command(path: &Path, args: &[&str], env: &[(&str, String)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tacto"));
    command
        .arg("launch")
        .arg(path)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("ROS_LOCALHOST_ONLY")
        .env_remove("ROS_STATIC_PEERS")
        .env_remove("FASTRTPS_DEFAULT_PROFILES_FILE")
        .env_remove("FASTDDS_DEFAULT_PROFILES_FILE")
        // The ROS 2 wheels' bootstrapper sets LD_LIBRARY_PATH only when this is unset.
        .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE");
    command
}

/// Writes `text` into a launch file in the temporary folder named for `name` and this test
/// process, and returns its path.
pub fn write_file(name: &str, text: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("tacto-launch-{name}-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// A namespace of the test's own, so that parallel tests (and test binaries) never share a
/// topic.
pub fn namespace(test: &str) -> String {
    format!("{test}_{}", std::process::id())
}

/// True while `pid` names a running child of a launch (a `launch-process`).
pub fn is_launched_process(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline.windows(14).any(|w| w == b"launch-process"))
}

/// Sends each line of `pipe` to `send`, from a thread of its own, until the pipe ends or
/// nobody receives.
fn forward(pipe: impl Read + Send + 'static, send: mpsc::Sender<String>) {
    thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
}

impl Launch {
    /// Starts `command` with its stdout and stderr piped into the launch's lines; each wait
    /// fails the test after `timeout`.
    pub fn spawn(mut command: Command, timeout: Duration) -> Launch {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{:?} does not start: {e}", command.get_program()));
        let (send, lines) = mpsc::channel();
        forward(child.stdout.take().unwrap(), send.clone());
        forward(child.stderr.take().unwrap(), send);
        Launch {
            child,
            lines,
            seen: Vec::new(),
            untaken: Vec::new(),
            timeout,
        }
    }

    /// Keeps `line`, received, in `seen` and untaken; returns its index.
    fn keep(&mut self, line: String) -> usize {
        self.seen.push(line);
        self.untaken.push(self.seen.len() - 1);
        self.seen.len() - 1
    }

    /// Waits for a line not received yet that satisfies `wanted` and returns its index in
    /// `seen`; kills the launch and fails the test after the timeout, with every line seen.
    fn receive(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> usize {
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = wanted(&line);
                    let index = self.keep(line);
                    if found {
                        return index;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!(
                        "no line {what} in {:?}; seen:\n{}",
                        self.timeout,
                        self.seen.join("\n")
                    );
                }
            }
        }
    }

    /// Waits for a line that satisfies `wanted`, not taken by an earlier take, and takes it.
    pub fn take(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let found = (self.untaken.iter()).position(|&i| wanted(&self.seen[i]));
        let index = match found {
            Some(at) => self.untaken.remove(at),
            None => {
                let index = self.receive(what, wanted);
                // Taken as it came: it is the last line kept.
                self.untaken.pop();
                index
            }
        };
        self.seen[index].clone()
    }

    /// The pid of process `name`'s next start: the first start line no earlier take took.
    pub fn next_started(&mut self, name: &str) -> u32 {
        let prefix = format!("tacto: [{name}] started, pid ");
        let line = self.take(&prefix, |l| l.starts_with(&prefix));
        line[prefix.len()..].parse().unwrap()
    }

    /// Waits for a line that satisfies `wanted`, looking at the lines seen so far first.
    pub fn wait_for(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        if let Some(line) = self.seen.iter().find(|l| wanted(l)) {
            return line.clone();
        }
        self.wait_new(what, wanted)
    }

    /// Waits for a line not printed yet that satisfies `wanted`.
    pub fn wait_new(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let index = self.receive(what, wanted);
        self.seen[index].clone()
    }

    /// The pid of process `name`'s start number `nth` (from 0), whenever it came.
    pub fn started(&mut self, name: &str, nth: usize) -> u32 {
        let prefix = format!("tacto: [{name}] started, pid ");
        let pid_of = |seen: &[String]| {
            (seen.iter().filter(|l| l.starts_with(&prefix)))
                .nth(nth)
                .map(|l| l[prefix.len()..].parse::<u32>().unwrap())
        };
        loop {
            if let Some(pid) = pid_of(&self.seen) {
                return pid;
            }
            self.wait_new(&prefix, |l| l.starts_with(&prefix));
        }
    }

    /// Takes the lines printed so far into `seen`, for a failure's message.
    pub fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.keep(line);
        }
    }

    /// Sends `signal` to the launch alone.
    pub fn signal(&self, signal: i32) {
        // SAFETY: `kill` sends a signal to the process this test started and has not waited
        // for yet, so its pid still names it.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
    }

    /// Waits for the launch to end, then for the rest of its output (for the checks and
    /// messages after); kills it and fails the test if it does not end within the timeout.
    pub fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + self.timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
                    self.keep(line);
                }
                return status;
            }
            thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!(
            "the launch did not end in {:?}; seen:\n{}",
            self.timeout,
            self.seen.join("\n")
        );
    }

    /// Ctrl-C, and the launch's exit code once it has stopped everything.
    pub fn interrupt(&mut self) -> Option<i32> {
        self.signal(libc::SIGINT);
        self.wait().code()
    }
}

impl Drop for Launch {
    /// A test that failed half-way leaves no launch behind: SIGKILL to the launch, whose
    /// children die with it (`PR_SET_PDEATHSIG`). A no-op once it has been waited for.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
