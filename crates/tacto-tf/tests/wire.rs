//! tf on the wire against another DDS implementation's peer: `tests/peers/tf_peer.py`, the
//! PyPI `cyclonedds` package in the ROS 2 virtualenv (`scripts/setup.sh venv`), writing and
//! reading `tf2_msgs/msg/TFMessage` as ROS 2 lays it out. Each test has a DDS domain of its
//! own (64–79 are this crate's), loopback only.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Executor, Time, Trigger, WaitSetExecutor};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_tf::{Listener, StaticTransformBroadcaster, TransformBroadcaster};

/// How long a test waits for discovery and the first samples; nothing is timed against it.
const PATIENCE: Duration = Duration::from_secs(90);

/// The peer process, killed when dropped, its stdout line by line.
struct Peer {
    child: Child,
    lines: Receiver<String>,
}

impl Peer {
    fn spawn(role: &str, domain: u32) -> Peer {
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
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/tf_peer.py");
        let mut child = Command::new(venv.join("bin/python"))
            .arg("-u")
            .arg(&script)
            .args([role, &domain.to_string()])
            .env_remove("_ROS_WHEELS_BOOTSTRAP_COMPLETE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start tf_peer.py");
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

    fn next_line(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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

fn floats(words: &[&str]) -> Vec<f64> {
    words.iter().map(|w| w.parse().expect("a float")).collect()
}

#[test]
fn a_tacto_listener_takes_in_a_peer_s_tf_and_composes_its_chain_as_numpy_does() {
    const DOMAIN: u32 = 64;
    let ctx = dds_context(DOMAIN);
    let listener = Listener::of(&ctx).unwrap();
    // A node holding the listener, on an executor: the peer's /tf must not wake it.
    let mut planner = ctx.node("planner").unwrap();
    let goals = planner.subscription::<Text>("goal").create().unwrap();
    let held = listener.clone();
    planner
        .execute(Trigger::on(&goals), move |_| {
            goals.take_all().for_each(drop);
            let _ = held.lookup_transform("map", "laser", Time::ZERO);
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(planner).unwrap();
    let peer = Peer::spawn("publish", DOMAIN);

    let deadline = Instant::now() + PATIENCE;
    let mut pending = Vec::new();
    let mut checked = 0;
    let mut spins = 0;
    while checked < 10 {
        assert!(
            Instant::now() < deadline,
            "{checked} lookups checked within {PATIENCE:?}; {:?}",
            listener.stats()
        );
        executor.spin_for(Duration::from_millis(20)).unwrap();
        spins += 1;
        while let Some(line) = peer.next_line(Duration::ZERO) {
            let words: Vec<&str> = line.split(' ').collect();
            if let ["expect", sec, nanosec, values @ ..] = &words[..] {
                let stamp = Time::from_nanos(
                    sec.parse::<i64>().unwrap() * 1_000_000_000 + nanosec.parse::<i64>().unwrap(),
                );
                pending.push((stamp, floats(values)));
            }
        }
        pending.retain(|(stamp, expected)| {
            let Ok(out) = listener.lookup_transform("map", "laser", *stamp) else {
                return true; // not heard yet, or before the reader matched
            };
            let v = &out.transform.translation;
            let q = &out.transform.rotation;
            let got = [v.x, v.y, v.z, q.x, q.y, q.z, q.w];
            for (i, (g, e)) in got.iter().zip(expected).enumerate() {
                assert!(
                    (g - e).abs() < 1e-9,
                    "field {i}: {got:?} against {expected:?}"
                );
            }
            assert_eq!(out.header.stamp, (*stamp).into());
            checked += 1;
            false
        });
    }
    let stats = listener.stats();
    assert!(stats.refused > 0, "the NaN transforms: {stats:?}");
    assert!(stats.malformed > 0, "the malformed messages: {stats:?}");
    assert_eq!(
        listener.last_refusal().unwrap().reason(),
        tacto_tf::RejectReason::NanInput
    );
    assert!(!listener.buffer().frame_exists("nan_frame"));
    let mut frames = listener.buffer().frame_names();
    frames.sort();
    assert_eq!(frames, ["base_link", "laser", "map", "odom"]);
    // Each spin_for's end is its one wake-up; /tf added none.
    let executor_stats = executor.stats();
    assert!(
        executor_stats.wakeups <= spins && executor_stats.executions == 0,
        "{executor_stats:?} over {spins} spins"
    );
}

fn transform(
    parent: &str,
    child: &str,
    sec: i32,
    nanosec: u32,
    values: [f64; 7],
) -> TransformStamped {
    let mut t = TransformStamped::default();
    t.header.frame_id = parent.into();
    t.header.stamp.sec = sec;
    t.header.stamp.nanosec = nanosec;
    t.child_frame_id = child.into();
    let [x, y, z, qx, qy, qz, qw] = values;
    (
        t.transform.translation.x,
        t.transform.translation.y,
        t.transform.translation.z,
    ) = (x, y, z);
    let q = &mut t.transform.rotation;
    (q.x, q.y, q.z, q.w) = (qx, qy, qz, qw);
    t
}

/// A transform as the peer prints it: its topic, frames and stamp as words, and its seven
/// numbers' bits (so that -0.0 and 0.0 differ).
type Heard = (Vec<String>, Vec<u64>);

fn heard(topic: &str, t: &TransformStamped) -> Heard {
    let v = &t.transform.translation;
    let q = &t.transform.rotation;
    let words = [
        topic,
        &t.header.frame_id,
        &t.child_frame_id,
        &t.header.stamp.sec.to_string(),
        &t.header.stamp.nanosec.to_string(),
    ];
    let numbers = [v.x, v.y, v.z, q.x, q.y, q.z, q.w];
    (
        words.map(str::to_owned).to_vec(),
        numbers.iter().map(|f| f.to_bits()).collect(),
    )
}

fn parse_heard(line: &str) -> Option<Heard> {
    let words: Vec<&str> = line.split(' ').collect();
    if words.len() != 12 {
        return None;
    }
    let numbers = floats(&words[5..]).iter().map(|f| f.to_bits()).collect();
    Some((
        words[..5].iter().map(|w| (*w).to_owned()).collect(),
        numbers,
    ))
}

#[test]
fn a_peer_reads_every_field_of_what_tacto_s_broadcasters_send() {
    const DOMAIN: u32 = 65;
    let ctx = dds_context(DOMAIN);
    let mut node = ctx.node("broadcaster").unwrap();
    let tf = TransformBroadcaster::new(&mut node).unwrap();
    let statics = StaticTransformBroadcaster::new(&mut node).unwrap();
    let peer = Peer::spawn("echo", DOMAIN);
    let deadline = Instant::now() + PATIENCE;
    while peer.next_line(Duration::from_millis(100)).as_deref() != Some("ready") {
        assert!(Instant::now() < deadline, "the peer did not start");
    }

    let laser = transform(
        "base_link",
        "laser",
        0,
        0,
        [
            0.2,
            -0.0,
            1e-300,
            0.0,
            0.0,
            std::f64::consts::FRAC_1_SQRT_2,
            std::f64::consts::FRAC_1_SQRT_2,
        ],
    );
    let camera = transform(
        "base_link",
        "camera",
        0,
        0,
        [0.1, 0.2, 0.3, 0.5, -0.5, 0.5, -0.5],
    );
    statics
        .send_all(vec![laser.clone(), camera.clone()])
        .unwrap();
    let odom = transform(
        "odom",
        "base_link",
        1_700_000_000,
        123_456_789,
        [
            1.5,
            -2.25,
            0.0,
            0.0,
            0.0,
            -0.19866933079506122,
            0.9800665778412416,
        ],
    );

    let mut want = vec![
        heard("tf_static", &laser),
        heard("tf_static", &camera),
        heard("tf", &odom),
    ];
    // /tf is volatile: sent until the peer has matched and printed it.
    while !want.is_empty() {
        assert!(Instant::now() < deadline, "the peer did not print {want:?}");
        tf.send(odom.clone());
        while let Some(line) = peer.next_line(Duration::from_millis(100)) {
            let got = parse_heard(&line);
            want.retain(|w| Some(w) != got.as_ref());
        }
    }
}

// A TransformReady whose transform comes from the peer over DDS: the listener's arrival hook
// is then called by the DDS reader, and must wake the waiting node when the transform came.
#[test]
fn a_point_waiting_for_the_peer_s_transform_is_handed_over_with_numpy_s_chain() {
    use tacto_msgs::geometry_msgs::msg::PointStamped;
    use tacto_tf::{TransformQueue, TransformReady};

    const DOMAIN: u32 = 70;
    let ctx = dds_context(DOMAIN);
    let listener = Listener::of(&ctx).unwrap();
    let mut node = ctx.node("tracker").unwrap();
    let points = node
        .subscription::<PointStamped>("points")
        .create()
        .unwrap();
    let queue = TransformQueue::new(&["map"], 10).unwrap();
    let ready = TransformReady::new(&mut node, points, &listener, queue, |p| &p.header).unwrap();
    let (out, results) = mpsc::channel();
    let code = ready.clone();
    node.execute(ready.trigger(), move |_| {
        while let Some(r) = code.take() {
            let _ = out.send(r.transforms[0].clone());
        }
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let peer = Peer::spawn("publish", DOMAIN);

    // The peer's stamps run 100 s + k × 50 ms: the point is stamped half a second past the
    // latest heard, so that it waits for data still to come.
    let deadline = Instant::now() + PATIENCE;
    let latest = loop {
        assert!(Instant::now() < deadline, "no /tf from the peer");
        if let Ok(t) = listener.lookup_transform("map", "laser", Time::ZERO) {
            break Time::from(t.header.stamp);
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stamp = latest + Duration::from_millis(500);
    let mut driver = ctx.node("driver").unwrap();
    let publisher = driver.publisher::<PointStamped>("points").create().unwrap();
    let mut point = PointStamped::default();
    (point.header.frame_id, point.header.stamp) = ("laser".into(), stamp.into());
    publisher.publish(point);
    executor.spin_for(Duration::from_millis(10)).unwrap();
    assert!(
        results.try_recv().is_err(),
        "the point waits: its stamp is ahead of /tf"
    );

    let got = loop {
        assert!(
            Instant::now() < deadline,
            "not handed over: {:?}",
            ready.stats()
        );
        executor.spin_for(Duration::from_millis(20)).unwrap();
        if let Ok(t) = results.try_recv() {
            break t;
        }
    };
    assert_eq!(Time::from(got.header.stamp), stamp);
    let expected = loop {
        let line = peer.next_line(PATIENCE).expect("the peer's expect lines");
        let words: Vec<&str> = line.split(' ').collect();
        if let ["expect", sec, nanosec, values @ ..] = &words[..] {
            let at = sec.parse::<i64>().unwrap() * 1_000_000_000 + nanosec.parse::<i64>().unwrap();
            if at == stamp.as_nanos() {
                break floats(values);
            }
        }
    };
    let v = &got.transform.translation;
    let q = &got.transform.rotation;
    let values = [v.x, v.y, v.z, q.x, q.y, q.z, q.w];
    for (i, (g, e)) in values.iter().zip(&expected).enumerate() {
        assert!(
            (g - e).abs() < 1e-9,
            "field {i}: {values:?} against {expected:?}"
        );
    }
    assert_eq!(ready.stats().ready, 1);
}
