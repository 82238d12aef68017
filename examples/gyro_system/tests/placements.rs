//! The gyro system as a user runs it, placed three ways by its shipped launch files: in one
//! process, in a process per node over shared memory, and on two "hosts" (two network
//! namespaces joined by a veth pair) over DDS. Each placement is driven by the rclpy operator
//! for the same number of cycles; the test reads what the simulated vehicle sent (its log
//! lines), computes from it, independently of the nodes' code, what the gyro odometer fuses
//! and what dead reckoning integrates, and checks that the integrator logged exactly that and
//! the rclpy operator received exactly that, to the last bit, and that the three placements
//! gave the same poses.
//!
//! Every placement runs in network namespaces of its own, made here and deleted after: its
//! DDS traffic (discovery included) never leaves them, so no other test shares its domain,
//! whatever the domain. That needs root (CAP_NET_ADMIN) and `ip`, as CI has; without either
//! the test says why and checks nothing. rclpy comes from the virtualenv `scripts/setup.sh
//! venv` makes (`target/ros2-venv`, or `TACTO_ROS2_VENV`).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The DDS domain inside the namespaces: theirs alone, so any will do.
const DOMAIN: &str = "0";

/// The twist cycles (50 Hz) each placement drives for.
const CYCLES: usize = 50;

/// The IMU samples per twist cycle (the simulator's default `imu_per_twist`).
const IMU_PER_TWIST: usize = 2;

/// Longer than a working placement takes to start, discover and drive, even on a loaded
/// 2-core machine with rclpy starting. Nothing is timed against it.
const PATIENCE: Duration = Duration::from_secs(120);

/// The gyro odometer's input timeout for the test: Autoware's 0.2 s is shorter than a stall
/// of a debug build on a loaded machine, which would drop fusions and change the poses.
const MESSAGE_TIMEOUT_SEC: &str = "5.0";

/// The two ends of the two-host link.
const ADDRESSES: [&str; 2] = ["192.0.2.1", "192.0.2.2"];

#[test]
fn the_three_placements_give_the_poses_computed_from_what_the_vehicle_sent() {
    if let Some(reason) = cannot_make_namespaces() {
        // Straight to the file descriptor: libtest captures eprintln! of passing tests.
        let _ = writeln!(
            std::io::stderr(),
            "test the_three_placements_give_the_poses_computed_from_what_the_vehicle_sent ... \
             skipped: {reason}"
        );
        return;
    }
    let venv_bin = venv_bin();
    let token = token();
    let mut poses = Vec::new();
    for placement in ["one_process.toml", "per_node_shm.toml"] {
        let ns = Namespaces::create(&format!("gs{token}"), 1).unwrap();
        let vehicle = format!("gyro_{token}_{}", poses.len());
        let env = host_env(&venv_bin, "lo", false);
        let mut launch = Launch::start(
            ns.name(0),
            &launch_file(placement),
            &launch_args(&vehicle, true, true),
            &env,
        );
        launch.wait_for_drive(placement);
        let last = launch.last_stamp();
        launch.wait_for_last_pose(placement, last);
        let lines = launch.stop();
        poses.push((placement, check(placement, &lines, &lines, &lines)));
    }

    let ns = Namespaces::create(&format!("gs{token}"), 2).unwrap();
    let vehicle = format!("gyro_{token}_hosts");
    let mut localization = Launch::start(
        ns.name(1),
        &launch_file("two_hosts/localization.toml"),
        &launch_args(&vehicle, false, true),
        &host_env(&venv_bin, &ns.interface(1), true),
    );
    let mut sensing = Launch::start(
        ns.name(0),
        &launch_file("two_hosts/vehicle.toml"),
        &launch_args(&vehicle, true, false),
        &host_env(&venv_bin, &ns.interface(0), true),
    );
    sensing.wait_for_drive("two_hosts/vehicle.toml");
    localization.wait_for_last_pose("two_hosts/localization.toml", sensing.last_stamp());
    let (vehicle_lines, localization_lines) = (sensing.stop(), localization.stop());
    poses.push((
        "two_hosts",
        check(
            "two_hosts",
            &vehicle_lines,
            &localization_lines,
            &localization_lines,
        ),
    ));

    let (first, reference) = &poses[0];
    for (placement, got) in &poses[1..] {
        assert_eq!(got, reference, "{placement} and {first} gave other poses");
    }
}

/// Why the namespaces cannot be made here, if they cannot.
fn cannot_make_namespaces() -> Option<String> {
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("`ip` (iproute2) is not installed; it makes the network namespaces".into());
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0");
    match root {
        true => None,
        false => {
            Some("network namespaces and a veth pair need root (CAP_NET_ADMIN), as CI has".into())
        }
    }
}

/// Unique per run: the pid, and the clock in case a crashed run of the same pid left its
/// namespaces behind.
fn token() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{:06x}",
        (std::process::id() ^ nanos.rotate_left(16)) & 0xff_ffff
    )
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn launch_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("launch")
        .join(name)
}

/// The virtualenv's `bin`, made by `scripts/setup.sh venv` if it is not there yet (fast when
/// it is; the script locks against other tests doing it at the same time).
fn venv_bin() -> PathBuf {
    let status = Command::new("bash")
        .arg(repo_root().join("scripts/setup.sh"))
        .arg("venv")
        .status()
        .expect("bash runs scripts/setup.sh");
    assert!(status.success(), "scripts/setup.sh venv failed ({status})");
    std::env::var_os("TACTO_ROS2_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/ros2-venv"))
        .join("bin")
}

/// The launch arguments of a placement (each file declares only some of them).
fn launch_args(vehicle: &str, sensing: bool, localization: bool) -> Vec<String> {
    let mut args = vec![format!("vehicle:={vehicle}")];
    if sensing {
        args.push(format!("drive_cycles:={CYCLES}"));
    }
    if localization {
        args.push(format!("message_timeout_sec:={MESSAGE_TIMEOUT_SEC}"));
    }
    args
}

/// The environment of a launch in a namespace: the venv's python first on PATH (the
/// operator's `python3`), rclpy on Fast DDS, Cyclone on `interface`; on two hosts, discovery
/// across the subnet, with the link's two addresses as static peers.
fn host_env(venv_bin: &Path, interface: &str, subnet: bool) -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_default();
    let mut env = vec![
        ("PATH".into(), format!("{}:{path}", venv_bin.display())),
        ("RMW_IMPLEMENTATION".into(), "rmw_fastrtps_cpp".into()),
        ("ROS_DOMAIN_ID".into(), DOMAIN.into()),
        (
            "CYCLONEDDS_URI".into(),
            format!(
                "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"{interface}\"/>\
                 </Interfaces></General></Domain></CycloneDDS>"
            ),
        ),
    ];
    match subnet {
        true => {
            env.push(("ROS_AUTOMATIC_DISCOVERY_RANGE".into(), "SUBNET".into()));
            env.push(("ROS_STATIC_PEERS".into(), ADDRESSES.join(";")));
        }
        false => env.push(("ROS_AUTOMATIC_DISCOVERY_RANGE".into(), "LOCALHOST".into())),
    }
    env
}

/// Runs `ip ARGS`, failing with its message.
fn ip(args: &[&str]) -> Result<(), String> {
    let output = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip`: {e}"))?;
    match output.status.success() {
        true => Ok(()),
        false => Err(format!(
            "`ip {}` failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )),
    }
}

/// One network namespace with its loopback up, or two joined by a veth pair (192.0.2.1 and
/// .2, TEST-NET-1, which exists only inside them, with the multicast route through it);
/// deleted, with the pair, when dropped.
struct Namespaces {
    names: Vec<String>,
    prefix: String,
}

impl Namespaces {
    fn create(prefix: &str, count: usize) -> Result<Namespaces, String> {
        let mut made = Namespaces {
            names: Vec::new(),
            prefix: prefix.to_owned(),
        };
        for side in 0..count {
            let name = format!("{prefix}-{side}");
            ip(&["netns", "add", &name])?;
            made.names.push(name);
            ip(&["-n", &made.names[side], "link", "set", "lo", "up"])?;
        }
        if count == 2 {
            let (a, b) = (made.interface(0), made.interface(1));
            ip(&[
                "link",
                "add",
                &a,
                "netns",
                &made.names[0],
                "type",
                "veth",
                "peer",
                "name",
                &b,
                "netns",
                &made.names[1],
            ])?;
            for (side, address) in ADDRESSES.iter().enumerate() {
                let (ns, veth) = (&made.names[side], made.interface(side));
                let address = format!("{address}/24");
                ip(&["-n", ns, "addr", "add", &address, "dev", &veth])?;
                ip(&["-n", ns, "link", "set", &veth, "up"])?;
                // Multicast out of the link: Fast DDS (the operator) sends its discovery to
                // its multicast group by route, and a namespace has no default route.
                ip(&["-n", ns, "route", "add", "224.0.0.0/4", "dev", &veth])?;
            }
        }
        Ok(made)
    }

    fn name(&self, side: usize) -> &str {
        &self.names[side]
    }

    /// The veth end in namespace `side` (at most 15 bytes, as Linux wants).
    fn interface(&self, side: usize) -> String {
        format!("{}v{side}", self.prefix)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.names {
            if let Err(error) = ip(&["netns", "delete", name]) {
                eprintln!("cleanup: {error}");
            }
        }
    }
}

/// A running `gyro_system FILE` in a namespace, and every line it printed (stdout and stderr
/// together, its processes' lines prefixed with their names).
struct Launch {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Launch {
    fn start(namespace: &str, file: &Path, args: &[String], env: &[(String, String)]) -> Launch {
        let mut child = Command::new("ip")
            .args(["netns", "exec", namespace])
            .arg(env!("CARGO_BIN_EXE_gyro_system"))
            .arg(file)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            // What would change the operator's network or RMW behind the test's back.
            .env_remove("ROS_LOCALHOST_ONLY")
            .env_remove("FASTRTPS_DEFAULT_PROFILES_FILE")
            .env_remove("FASTDDS_DEFAULT_PROFILES_FILE")
            .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ip netns exec runs the gyro_system binary");
        let (send, lines) = mpsc::channel();
        forward(child.stdout.take().unwrap(), send.clone());
        forward(child.stderr.take().unwrap(), send);
        Launch {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Returns once a line satisfies `wanted`: one already read (the processes' lines come
    /// in any order between processes), or the next ones; fails after [`PATIENCE`] or if the
    /// launch ends first.
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&str) -> bool) {
        if self.seen.iter().any(|line| wanted(line)) {
            return;
        }
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            match self.lines.recv_timeout(Duration::from_millis(200)) {
                Ok(line) => {
                    let found = wanted(&line);
                    self.seen.push(line);
                    if found {
                        return;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        panic!(
            "no sign {what}; the launch printed:\n{}",
            self.seen.join("\n")
        );
    }

    /// Waits for the vehicle to end its drive.
    fn wait_for_drive(&mut self, placement: &str) {
        let done = format!("drive done: {CYCLES} cycles");
        self.wait_for(&format!("of {placement} ending its drive"), |l| {
            l.contains(&done)
        });
    }

    /// The stamp of the last drive cycle this launch's vehicle logged.
    fn last_stamp(&self) -> String {
        let cycles = sent(&self.seen);
        cycles.last().expect("drive cycles").stamp.clone()
    }

    /// Waits for the operator to print the pose stamped `stamp`.
    fn wait_for_last_pose(&mut self, placement: &str, stamp: String) {
        let wanted = format!("[operator] pose {stamp} ");
        self.wait_for(
            &format!("of {placement}'s operator receiving the last pose"),
            |l| l.starts_with(&wanted),
        );
    }

    /// Ctrl-C, then every line up to the launch's end (its exit status checked: 130).
    fn stop(mut self) -> Vec<String> {
        let pid = self.child.id().to_string();
        // `ip netns exec` execs the launch: this pid is the launch's.
        let _ = Command::new("kill").args(["-INT", &pid]).status();
        let status = wait(&mut self.child);
        self.seen.extend(self.lines.try_iter());
        assert_eq!(status.code(), Some(130), "{}", self.seen.join("\n"));
        std::mem::take(&mut self.seen)
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The child's exit, killed if it takes longer than [`PATIENCE`].
fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return child.wait().unwrap();
        }
        thread::sleep(Duration::from_millis(50));
    }
}

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

/// One drive cycle as the vehicle logged it: `drive cycle C stamp T vx V wz [W, ...]`.
#[derive(Debug)]
struct Cycle {
    stamp: String,
    vx: f64,
    wz: Vec<f64>,
}

/// The text after `marker` in the first line that has it.
fn after<'a>(lines: &'a [String], marker: &str) -> Vec<&'a str> {
    lines
        .iter()
        .filter_map(|line| line.find(marker).map(|at| &line[at + marker.len()..]))
        .collect()
}

fn number(text: &str) -> f64 {
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("{text:?} is not a number: {e}"))
}

/// `sec.nanosec` as nanoseconds.
fn nanos(stamp: &str) -> i64 {
    let (sec, nanosec) = stamp.split_once('.').expect("sec.nanosec");
    sec.parse::<i64>().unwrap() * 1_000_000_000 + nanosec.parse::<i64>().unwrap()
}

/// The drive cycles the vehicle logged, in order.
fn sent(lines: &[String]) -> Vec<Cycle> {
    after(lines, "drive cycle ")
        .into_iter()
        .map(|rest| {
            let words: Vec<&str> = rest.splitn(7, ' ').collect();
            let wz = words[6].trim_matches(|c| c == '[' || c == ']');
            Cycle {
                stamp: words[2].to_owned(),
                vx: number(words[4]),
                wz: wz.split(", ").map(number).collect(),
            }
        })
        .collect()
}

/// The mean as the gyro odometer takes it: summed from zero in order, divided by the count.
fn mean(values: &[f64]) -> f64 {
    let mut sum = 0.0;
    for value in values {
        sum += value;
    }
    sum / values.len() as f64
}

/// A pose: x, y and yaw.
type Pose = (f64, f64, f64);

/// What the system must have computed from `vehicle`'s log, checked against the integrator's
/// log in `localization` and the operator's lines in `operator`; the poses.
fn check(
    placement: &str,
    vehicle: &[String],
    localization: &[String],
    operator: &[String],
) -> Vec<Pose> {
    let context = || {
        format!(
            "{placement}:\n{}\n{}",
            vehicle.join("\n"),
            if std::ptr::eq(vehicle, localization) {
                String::new()
            } else {
                localization.join("\n")
            }
        )
    };
    let start = after(vehicle, "after stamp ");
    assert_eq!(start.len(), 1, "one drive command; {}", context());
    let cycles = sent(vehicle);
    assert_eq!(cycles.len(), CYCLES, "{}", context());

    // The gyro odometer fuses each cycle's twist with the IMU samples before it: the mean of
    // each side (summed from zero in order, divided by the count), the angular velocity
    // cleared when both |wz| and |vx| are under 0.01 (stop compensation); the fusion carries
    // the cycle's stamp. Dead reckoning then moves by explicit Euler over the time between
    // stamps, x and y with the heading at the start of the interval, then the heading.
    let mut expected = Vec::new();
    let (mut x, mut y, mut yaw) = (0.0_f64, 0.0_f64, 0.0_f64);
    let mut last = nanos(start[0].trim());
    for cycle in &cycles {
        assert_eq!(cycle.wz.len(), IMU_PER_TWIST, "{cycle:?}");
        let vx = mean(&[cycle.vx]);
        let mut wz = mean(&cycle.wz);
        if wz.abs() < 0.01 && vx.abs() < 0.01 {
            wz = 0.0;
        }
        let stamp = nanos(&cycle.stamp);
        let dt = (stamp - last) as f64 * 1e-9;
        last = stamp;
        x += vx * yaw.cos() * dt;
        y += vx * yaw.sin() * dt;
        yaw += wz * dt;
        expected.push((cycle.stamp.clone(), (x, y, yaw)));
    }

    let logged: Vec<(String, Pose)> = after(localization, "pose at ")
        .into_iter()
        .map(|rest| {
            let w: Vec<&str> = rest.split(' ').collect();
            (w[0].to_owned(), (number(w[2]), number(w[4]), number(w[6])))
        })
        .collect();
    assert_eq!(logged, expected, "the integrator's poses; {}", context());

    let received: Vec<(String, [f64; 4])> = after(operator, "[operator] pose ")
        .into_iter()
        .map(|rest| {
            let w: Vec<&str> = rest.split(' ').collect();
            let values = [number(w[2]), number(w[4]), number(w[6]), number(w[8])];
            (w[0].to_owned(), values)
        })
        .collect();
    for (stamp, (x, y, yaw)) in &expected {
        let got = received.iter().find(|(s, _)| s == stamp);
        let wanted = [*x, *y, (yaw / 2.0).sin(), (yaw / 2.0).cos()];
        assert_eq!(
            got.map(|(_, values)| *values),
            Some(wanted),
            "what the operator received at {stamp}; {}",
            context()
        );
    }
    expected.into_iter().map(|(_, pose)| pose).collect()
}
