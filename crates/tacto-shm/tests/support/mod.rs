//! What the test files of this crate share (each uses what it needs of it): the other
//! process of a test, which is the test binary re-executed to run its `child_role` test (ignored,
//! so not counted as one) with a role from an environment variable, spinning an executor until something holds, and
//! where iceoryx2 keeps a service's static config (tests that forge one).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tacto::Executor;

/// How long anything a test waits for may take on a loaded 2-core machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// What starts a child's line meant for the parent (libtest may print before it on the line).
pub const SAY: &str = "shm-child:";

/// A child process running `child_role`; killed if the test fails before it finishes.
pub struct Child {
    pub process: std::process::Child,
    /// What the child said, line by line, without the [`SAY`] prefix.
    pub said: mpsc::Receiver<String>,
}

impl Child {
    /// Runs this test binary's `child_role` with `role` in the variable `role_var`, and `env`.
    pub fn spawn(role_var: &str, role: &str, env: &[(&str, String)]) -> Child {
        let mut process = Command::new(std::env::current_exe().unwrap())
            // Ignored, so that the suite counts only real tests: run here with --ignored.
            .args(["child_role", "--exact", "--ignored", "--nocapture"])
            .env(role_var, role)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(process.stdout.take().unwrap());
        let (tx, said) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if let Some((_, words)) = line.split_once(SAY) {
                    let _ = tx.send(words.trim().to_owned());
                }
            }
        });
        Child { process, said }
    }

    /// The child's next line for the parent.
    pub fn next_line(&self) -> String {
        self.said
            .recv_timeout(PATIENCE)
            .expect("the child said nothing (it died or hangs)")
    }

    /// Writes a line to the child's stdin.
    pub fn tell(&mut self, line: &str) {
        let stdin = self.process.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
    }

    /// SIGKILL: the child gets no chance to clean up.
    pub fn kill(&mut self) {
        self.process.kill().unwrap();
        self.process.wait().unwrap();
    }

    /// Lets the child exit (its stdin closed) and checks it succeeded.
    pub fn finish(mut self) {
        drop(self.process.stdin.take());
        let status = self.process.wait().unwrap();
        assert!(status.success(), "child failed: {status}");
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Ok(None) = self.process.try_wait() {
            let _ = self.process.kill();
            let _ = self.process.wait();
        }
    }
}

/// Spins `executor` in short windows until `done` holds; returns the number of windows.
pub fn spin_until(executor: &mut dyn Executor, what: &str, mut done: impl FnMut() -> bool) -> u64 {
    let start = Instant::now();
    let mut windows = 0;
    while !done() {
        assert!(start.elapsed() < PATIENCE, "timed out waiting until {what}");
        executor.spin_for(Duration::from_millis(20)).unwrap();
        windows += 1;
    }
    windows
}

/// Where iceoryx2 keeps the static config of the service `name` (`rt/<topic>`,
/// `rq/<service>`) of messaging pattern `pattern` (`<root>/services/iox2_<hash>.service`).
pub fn static_config_path(
    name: &str,
    pattern: iceoryx2::prelude::MessagingPattern,
) -> std::path::PathBuf {
    use iceoryx2::service::Service;

    let config = iceoryx2::config::Config::global_config();
    let global = &config.global;
    let name = iceoryx2::prelude::ServiceName::new(name).unwrap();
    let hash = iceoryx2::service::service_hash::ServiceHash::new::<
        <iceoryx2::service::ipc_threadsafe::Service as Service>::ServiceNameHasher,
    >(&name, pattern);
    std::path::PathBuf::from(global.root_path().to_string())
        .join(global.service.directory.to_string())
        .join(format!(
            "{}{}{}",
            global.prefix,
            hash.as_str(),
            global.service.static_config_storage_suffix
        ))
}
