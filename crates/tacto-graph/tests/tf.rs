//! `tacto tf echo` and `tacto tf frames` against broadcasts of other processes: the
//! `cyclonedds` Python peer of the tf wire tests (`crates/tacto-tf/tests/peers/tf_peer.py`,
//! which prints the chain it sends composed with numpy) and a tacto broadcaster (this test
//! binary, run again as `broadcasting_process`). The numbers printed are checked against
//! values computed independently (numpy's, nalgebra's). DDS domains 68–70, loopback only.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use tacto::{Context, Time};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};
use tacto_graph::tf::{EchoOptions, echo, echo_text, frames, frames_dot, frames_svg};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_tf::nalgebra::{Quaternion, UnitQuaternion};
use tacto_tf::{FrameInfo, Listener, StaticTransformBroadcaster, TransformBroadcaster};

/// How long a test waits for discovery and data; nothing is timed against it.
const PATIENCE: Duration = Duration::from_secs(90);

/// The environment variable that makes `broadcasting_process` broadcast on a domain.
const BROADCAST_DOMAIN: &str = "TACTO_TF_CLI_BROADCAST_DOMAIN";

fn dds_context(domain: u32) -> Context {
    let mut config = DomainConfig::new(domain);
    config.discovery_range = DiscoveryRange::Localhost;
    config.cyclonedds_uri = Some(
        "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/>\
         </Interfaces></General></Domain></CycloneDDS>"
            .into(),
    );
    let participant = Participant::new(&config).expect("participant");
    Context::builder()
        .transport(DdsTransport::new(participant))
        .create()
}

/// A child process, killed when dropped, its stdout line by line.
struct Peer {
    child: Child,
    lines: Receiver<String>,
}

impl Peer {
    fn start(mut command: Command) -> Peer {
        let mut child = (command.stdin(Stdio::null()))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the peer");
        let stdout = child.stdout.take().expect("piped");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Peer { child, lines }
    }

    /// `tf_peer.py ROLE DOMAIN` in the ROS 2 virtualenv.
    fn python(role: &str, domain: u32) -> Peer {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let status = Command::new("bash")
            .arg(root.join("scripts/setup.sh"))
            .arg("venv")
            .status()
            .expect("run scripts/setup.sh");
        assert!(status.success(), "scripts/setup.sh venv failed ({status})");
        let venv = std::env::var_os("TACTO_ROS2_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/ros2-venv"));
        let script = root.join("crates/tacto-tf/tests/peers/tf_peer.py");
        let mut command = Command::new(venv.join("bin/python"));
        (command.arg("-u").arg(&script))
            .args([role, &domain.to_string()])
            .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE");
        Peer::start(command)
    }

    /// This test binary, running `broadcasting_process` on `domain`.
    fn tacto(domain: u32) -> Peer {
        let mut command = Command::new(std::env::current_exe().expect("the test binary"));
        (command.args([
            "--ignored",
            "--exact",
            "broadcasting_process",
            "--nocapture",
        ]))
        .env(BROADCAST_DOMAIN, domain.to_string());
        Peer::start(command)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_floats(list: &str) -> Vec<f64> {
    let inner = list.trim().trim_start_matches('[').trim_end_matches(']');
    inner
        .split(", ")
        .map(|w| w.trim().parse().expect("a number"))
        .collect()
}

#[track_caller]
fn close(got: &[f64], expected: &[f64], within: f64) {
    assert_eq!(got.len(), expected.len(), "{got:?} against {expected:?}");
    for (g, e) in got.iter().zip(expected) {
        assert!((g - e).abs() <= within, "{got:?} against {expected:?}");
    }
}

/// One printed block checked against the chain `[x, y, z, qx, qy, qz, qw]`: each number
/// to the three decimals printed, roll, pitch, yaw and the matrix from nalgebra.
#[track_caller]
fn check_block(lines: &[&str], chain: &[f64]) {
    let q =
        UnitQuaternion::from_quaternion(Quaternion::new(chain[6], chain[3], chain[4], chain[5]));
    let (roll, pitch, yaw) = q.euler_angles();
    let m = q.to_rotation_matrix();
    let field = |prefix: &str| {
        let line = lines.iter().find(|l| l.starts_with(prefix)).expect(prefix);
        parse_floats(&line[prefix.len()..])
    };
    close(&field("- Translation: "), &chain[..3], 0.0005);
    close(&field("- Rotation: in Quaternion "), &chain[3..], 0.0005);
    close(
        &field("- Rotation: in RPY (radian) "),
        &[roll, pitch, yaw],
        0.0005,
    );
    let deg = 180.0 / std::f64::consts::PI;
    let degrees = [roll * deg, pitch * deg, yaw * deg];
    close(&field("- Rotation: in RPY (degree) "), &degrees, 0.0005);
    let matrix = lines
        .iter()
        .position(|l| *l == "- Matrix:")
        .expect("the matrix");
    for row in 0..4 {
        let words = lines[matrix + 1 + row].split_whitespace();
        let got: Vec<f64> = words.map(|w| w.parse().expect("a number")).collect();
        let expected: Vec<f64> = match row {
            3 => vec![0.0, 0.0, 0.0, 1.0],
            r => vec![m[(r, 0)], m[(r, 1)], m[(r, 2)], chain[r]],
        };
        close(&got, &expected, 0.0005);
    }
}

#[test]
fn echo_prints_what_tf2_echo_prints_for_a_transform() {
    let mut t = TransformStamped::default();
    t.header.stamp.sec = 1_700_000_000;
    t.header.stamp.nanosec = 5_000;
    let v = &mut t.transform.translation;
    (v.x, v.y, v.z) = (1.5, -2.25, 0.125);
    let axis = tacto_tf::nalgebra::Vector3::new(1.0, 2.0, 3.0).normalize();
    let q = UnitQuaternion::from_axis_angle(&tacto_tf::nalgebra::Unit::new_unchecked(axis), 0.7);
    let r = &mut t.transform.rotation;
    (r.x, r.y, r.z, r.w) = (q.i, q.j, q.k, q.w);
    let text = echo_text(&t);
    let lines: Vec<&str> = text.lines().collect();
    // tf2_echo prints the nanoseconds unpadded.
    assert_eq!(lines[0], "At time 1700000000.5000");
    assert_eq!(lines[1], "- Translation: [1.500, -2.250, 0.125]");
    assert_eq!(lines.len(), 10);
    // Every matrix entry in a field of six, after a space.
    assert!(lines[6..].iter().all(|l| l.len() == 4 * 7), "{lines:?}");
    check_block(&lines, &[1.5, -2.25, 0.125, q.i, q.j, q.k, q.w]);
}

#[test]
fn echo_follows_the_python_peer_s_chain_as_numpy_composes_it() {
    const DOMAIN: u32 = 68;
    let ctx = dds_context(DOMAIN);
    let listener = Listener::of(&ctx).unwrap();
    let peer = Peer::python("publish", DOMAIN);
    let echoing = thread::spawn(move || {
        let mut out = Vec::new();
        let mut log = Vec::new();
        let options = EchoOptions {
            rate: 5.0,
            count: Some(3),
        };
        let give_up = Instant::now() + PATIENCE;
        let stop = move || Instant::now() > give_up;
        echo(
            &listener, "map", "laser", options, &mut out, &mut log, &stop,
        )
        .unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(log).unwrap(),
        )
    });
    let (out, log) = echoing.join().unwrap();
    let mut expected = Vec::new();
    while let Ok(line) = peer.lines.try_recv() {
        let words: Vec<&str> = line.split(' ').collect();
        if let ["expect", sec, nanosec, values @ ..] = &words[..] {
            let values: Vec<f64> = values.iter().map(|v| v.parse().unwrap()).collect();
            expected.push((format!("At time {sec}.{nanosec}"), values));
        }
    }
    let blocks: Vec<Vec<&str>> = (out.split("At time ").skip(1))
        .map(|block| block.lines().collect())
        .collect();
    assert_eq!(blocks.len(), 3, "{out}\n{log}");
    for block in &blocks {
        let stamp = format!("At time {}", block[0]);
        let (_, chain) = (expected.iter().find(|(s, _)| *s == stamp))
            .unwrap_or_else(|| panic!("{stamp} is not a stamp the peer sent"));
        let mut lines = vec![stamp.as_str()];
        lines.extend(&block[1..]);
        check_block(&lines, chain);
    }
    assert!(
        log.is_empty() || log.contains("Waiting for transform map ->  laser: "),
        "{log}"
    );
}

/// Not a test: the tacto broadcaster of `frames_describes_a_tacto_broadcaster_s_tree`, run
/// by it in a process of its own. Static map -> odom, and odom -> base_link at 50 Hz stamped
/// 200 s + k × 20 ms, for a minute at most.
#[test]
#[ignore = "a helper process, run by frames_describes_a_tacto_broadcaster_s_tree"]
fn broadcasting_process() {
    let domain: u32 = (std::env::var(BROADCAST_DOMAIN).expect(BROADCAST_DOMAIN))
        .parse()
        .expect("a domain id");
    let ctx = dds_context(domain);
    let mut node = ctx.node("broadcaster").unwrap();
    let statics = StaticTransformBroadcaster::new(&mut node).unwrap();
    let tf = TransformBroadcaster::new(&mut node).unwrap();
    let mut t = TransformStamped::default();
    (t.header.frame_id, t.child_frame_id) = ("map".into(), "odom".into());
    t.transform.translation.x = 1.0;
    statics.send(t).unwrap();
    let start = Instant::now();
    let mut k: i64 = 0;
    while start.elapsed() < Duration::from_secs(60) {
        let mut t = TransformStamped::default();
        (t.header.frame_id, t.child_frame_id) = ("odom".into(), "base_link".into());
        t.header.stamp = Time::from_nanos(200_000_000_000 + k * 20_000_000).into();
        t.transform.translation.x = 0.01 * k as f64;
        tf.send(t);
        k += 1;
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn frames_describes_a_tacto_broadcaster_s_tree() {
    const DOMAIN: u32 = 69;
    let ctx = dds_context(DOMAIN);
    let listener = Listener::of(&ctx).unwrap();
    let _peer = Peer::tacto(DOMAIN);
    let deadline = Instant::now() + PATIENCE;
    let report = loop {
        assert!(
            Instant::now() < deadline,
            "no tree heard: {:?}",
            listener.stats()
        );
        let report = frames(&listener, Duration::from_millis(200), &|| false);
        let base = report.frames.iter().find(|f| f.name == "base_link");
        if report.frames.len() == 2 && base.is_some_and(|b| b.samples >= 20) {
            break report;
        }
    };
    let odom = report.frames.iter().find(|f| f.name == "odom").unwrap();
    let base = report
        .frames
        .iter()
        .find(|f| f.name == "base_link")
        .unwrap();
    assert_eq!(
        (odom.parent.as_str(), base.parent.as_str()),
        ("map", "odom")
    );
    assert_eq!(base.authority, "Authority undetectable");
    // The broadcaster's schedule: stamps 200 s + k × 20 ms, every one received (reliable).
    let k_of = |t: Time| (t.as_nanos() - 200_000_000_000) / 20_000_000;
    let (first, last) = (k_of(base.oldest), k_of(base.most_recent));
    assert_eq!(
        Time::from_nanos(200_000_000_000 + last * 20_000_000),
        base.most_recent
    );
    assert_eq!(base.samples as i64, last - first + 1);
    let span = (last - first) as f64 * 0.02;
    let rate = format!("{:.3}", base.samples as f64 / span);
    assert!(report.yaml.contains(&format!("base_link: \n  parent: 'odom'\n  broadcaster: 'Authority undetectable'\n  rate: {rate}\n")), "{}", report.yaml);
    // A static frame: one sample, at time zero (tf2's static cache).
    assert!(
        report.yaml.contains(
            "odom: \n  parent: 'map'\n  broadcaster: 'Authority undetectable'\n  rate: 10000.000\n  \
             most_recent_transform: 0.000000\n  oldest_transform: 0.000000\n  buffer_length: 0.000\n"
        ),
        "{}",
        report.yaml
    );
    let dot = frames_dot(&report.frames, report.recorded);
    assert!(dot.contains(
        "\"map\" -> \"odom\"[label=\" Broadcaster: Authority undetectable\\nAverage rate: 10000.0\\n\
         Buffer length: 0.0\\nMost recent transform: 0.0\\nOldest transform: 0.0\\n\"];\n"
    ), "{dot}");
    assert!(dot.ends_with("}->\"map\";\n}"), "{dot}");
    let svg = frames_svg(&report.frames, report.recorded);
    for name in ["map", "odom", "base_link"] {
        assert!(svg.contains(&format!(">{name}</text>")), "{svg}");
    }
    assert_eq!(svg.matches("<g class=\"link\">").count(), 2);
}

fn frame(name: &str, parent: &str, samples: usize, oldest: f64, latest: f64) -> FrameInfo {
    let at = |s: f64| Time::from_nanos((s * 1e9).round() as i64);
    FrameInfo {
        name: name.into(),
        parent: parent.into(),
        authority: "Authority undetectable".into(),
        samples,
        most_recent: at(latest),
        oldest: at(oldest),
    }
}

// From tf2_tools (jazzy) view_frames.py, generate_dot: the text it writes for a tree, with
// the numbers as PyYAML reads allFramesAsYAML's and Python's str prints them.
#[test]
fn frames_dot_is_view_frames_generate_dot_character_for_character() {
    let frames = [
        frame("base_link", "odom", 51, 1700000000.0, 1700000001.0),
        frame("odom", "map", 1, 0.0, 0.0),
    ];
    let recorded = Time::from_nanos(1_700_000_001_250_000_000);
    let expected = "digraph G {\n\
        \"odom\" -> \"base_link\"[label=\" Broadcaster: Authority undetectable\\nAverage rate: 51.0\\n\
        Buffer length: 1.0\\nMost recent transform: 1700000001.0\\nOldest transform: 1700000000.0\\n\"];\n\
        \"map\" -> \"odom\"[label=\" Broadcaster: Authority undetectable\\nAverage rate: 10000.0\\n\
        Buffer length: 0.0\\nMost recent transform: 0.0\\nOldest transform: 0.0\\n\"];\n\
        edge [style=invis];\n \
        subgraph cluster_legend { style=bold; color=black; label =\"view_frames Result\";\n\
        \"Recorded at time: 1700000001.25\"[ shape=plaintext ] ;\n\
        }->\"map\";\n}";
    assert_eq!(frames_dot(&frames, recorded), expected);
}

#[test]
fn frames_svg_draws_each_frame_once_and_each_link_with_its_label() {
    let frames = [
        frame("odom", "map", 1, 0.0, 0.0),
        frame("base_link", "odom", 11, 1.0, 2.0),
        frame("laser", "base_link", 1, 0.0, 0.0),
        frame("camera", "base_link", 1, 0.0, 0.0),
        frame("a<b", "map", 1, 0.0, 0.0),
    ];
    let svg = frames_svg(&frames, Time::ZERO);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<g class=\"frame\">").count(),
        6,
        "map and five children"
    );
    assert_eq!(svg.matches("<g class=\"link\">").count(), 5);
    assert!(svg.contains(">a&lt;b</text>"), "names are escaped");
    assert!(svg.contains(">Average rate: 11.0</text>"));
    assert!(svg.contains(">Recorded at time: 0.0</text>"));
    // map is drawn above odom, odom above base_link, base_link above laser.
    let y = |name: &str| {
        let at = svg.find(&format!(">{name}</text>")).unwrap();
        let start = svg[..at].rfind(" y=\"").unwrap() + 4;
        let end = start + svg[start..].find('"').unwrap();
        svg[start..end].parse::<f64>().unwrap()
    };
    assert!(y("map") < y("odom") && y("odom") < y("base_link") && y("base_link") < y("laser"));
    assert_eq!(y("laser"), y("camera"));
}

#[test]
fn frames_of_an_empty_graph_say_no_tf_data_received() {
    assert_eq!(
        frames_dot(&[], Time::ZERO),
        "digraph G { \"No tf data received\" }"
    );
    assert!(frames_svg(&[], Time::ZERO).contains(">No tf data received</text>"));
}
