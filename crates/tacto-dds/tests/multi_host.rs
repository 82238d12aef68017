//! Two hosts on one machine: two network namespaces joined by a veth pair (192.0.2.0/24,
//! TEST-NET-1, which exists only inside them), a tacto talker in one and a tacto listener in
//! the other (this test binary again, through `ip netns exec`), Cyclone pinned to the veth
//! interface, so that discovery and data go over that link only. The talker is killed and a
//! new one started: the listener hears it. Needs root (CAP_NET_ADMIN, as in CI); without it
//! the test fails and says why. Domain 167.

mod support;

use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use support::{PATIENCE, ROLE, RclpyNode, loopback_participant};
use tacto::msg::std_msgs::String as Text;
use tacto::{Context, Qos};
use tacto_dds::{DdsTransport, DiscoveryRange, DomainConfig, Participant};

const DOMAIN: u32 = 167;
const TOPIC: &str = "tacto_multi_host";
const TEST: &str = "a_listener_on_another_host_hears_a_talker_and_its_restart";

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

/// Two network namespaces `<name>-a` and `<name>-b` joined by veth `<veth>a` / `<veth>b`,
/// 192.0.2.1 and 192.0.2.2; deleted (with the veth pair) when dropped, also on failure.
struct Link {
    namespaces: Vec<String>,
    veth: String,
}

impl Link {
    fn create() -> Result<Link, String> {
        // Unique per run: the pid, and the clock in case a crashed run of the same pid left
        // its namespaces behind.
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let token = format!("{:08x}", std::process::id() ^ nanos.rotate_left(16));
        let mut link = Link {
            namespaces: Vec::new(),
            veth: format!("tv{token}"),
        };
        for side in ["a", "b"] {
            let name = format!("tacto-mh-{token}-{side}");
            ip(&["netns", "add", &name])?;
            link.namespaces.push(name);
        }
        let (a, b) = (link.namespace(0), link.namespace(1));
        let (veth_a, veth_b) = (link.interface(0), link.interface(1));
        ip(&[
            "link", "add", &veth_a, "netns", a, "type", "veth", "peer", "name", &veth_b, "netns", b,
        ])?;
        for (ns, veth, address) in [(a, &veth_a, "192.0.2.1/24"), (b, &veth_b, "192.0.2.2/24")] {
            ip(&["-n", ns, "addr", "add", address, "dev", veth])?;
            ip(&["-n", ns, "link", "set", veth, "up"])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        Ok(link)
    }

    fn namespace(&self, side: usize) -> &str {
        &self.namespaces[side]
    }

    fn interface(&self, side: usize) -> String {
        format!("{}{}", self.veth, ["a", "b"][side])
    }

    /// This test as `part` (with `argument`) inside namespace `side`, with Cyclone on its end
    /// of the link.
    fn run(&self, side: usize, part: &str, argument: &str) -> RclpyNode {
        let role = format!("{part} {} {argument}", self.interface(side));
        RclpyNode::this_test(TEST, &role, &["ip", "netns", "exec", self.namespace(side)])
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        for name in &self.namespaces {
            if let Err(error) = ip(&["netns", "delete", name]) {
                eprintln!("cleanup: {error}");
            }
        }
    }
}

/// A context in namespace side whose Cyclone uses `interface` only, discovering by multicast
/// and by the two addresses of the link.
fn linked_context(interface: &str) -> Context {
    let mut config = DomainConfig::new(DOMAIN);
    config.discovery_range = DiscoveryRange::Subnet;
    config.static_peers = vec!["192.0.2.1".into(), "192.0.2.2".into()];
    config.cyclonedds_uri = Some(format!(
        "<CycloneDDS><Domain><General><Interfaces>\
         <NetworkInterface name=\"{interface}\"/>\
         </Interfaces></General></Domain></CycloneDDS>"
    ));
    let participant =
        Participant::new(&config).unwrap_or_else(|e| panic!("a participant on {interface}: {e}"));
    Context::builder()
        .transport(DdsTransport::new(participant))
        .create()
}

/// Waits for the listener to print `wanted` lines starting with `prefix`.
fn hear(listener: &mut RclpyNode, talker: &mut RclpyNode, prefix: &str, wanted: usize) {
    let deadline = Instant::now() + PATIENCE;
    let mut heard = 0;
    while heard < wanted {
        if let Some(line) = listener.next_line(Instant::now() + Duration::from_millis(100)) {
            heard += usize::from(line.starts_with(prefix));
        }
        for (who, peer) in [("listener", &mut *listener), ("talker", &mut *talker)] {
            if let Some(status) = peer.exited() {
                panic!("the {who} exited ({status}):\n{}", peer.stderr());
            }
        }
        assert!(
            Instant::now() < deadline,
            "the listener heard {heard} of {wanted} \"{prefix}...\"; its stderr:\n{}\n\
             the talker's stderr:\n{}",
            listener.stderr(),
            talker.stderr()
        );
    }
}

#[test]
fn a_listener_on_another_host_hears_a_talker_and_its_restart() {
    if let Ok(role) = std::env::var(ROLE) {
        return play(&role);
    }
    let link = Link::create().unwrap_or_else(|error| {
        panic!(
            "the multi-host test needs two network namespaces and a veth pair, which need \
             root (CAP_NET_ADMIN), as CI has: {error}"
        )
    });
    // On this host's loopback, the same domain and topic: nothing may reach it.
    let host = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut host_node = host.node("tacto_mh_host").unwrap();
    let outsider = host_node.subscription::<Text>(TOPIC).create().unwrap();

    let mut listener = link.run(1, "listener", "");
    let prefix = format!("multi-host {}", std::process::id());
    let mut talker = link.run(0, "talker", &format!("{prefix}/first"));
    hear(&mut listener, &mut talker, &format!("{prefix}/first "), 3);
    drop(talker); // killed
    let mut talker = link.run(0, "talker", &format!("{prefix}/second"));
    hear(&mut listener, &mut talker, &format!("{prefix}/second "), 3);
    assert!(outsider.is_empty(), "a sample left the namespaces");
}

/// The parts played inside the namespaces: "listener IFACE" prints what it hears;
/// "talker IFACE PREFIX" publishes "PREFIX n" every 50 ms. Both run until killed.
fn play(role: &str) {
    let words: Vec<&str> = role.splitn(3, ' ').collect();
    let ctx = linked_context(words[1]);
    match words[0] {
        "listener" => {
            let mut node = ctx.node("tacto_mh_listener").unwrap();
            let sub = (node.subscription::<Text>(TOPIC))
                .qos(Qos::default())
                .create()
                .unwrap();
            loop {
                while let Some(sample) = sub.take() {
                    println!("{}", sample.data);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        _ => {
            let mut node = ctx.node("tacto_mh_talker").unwrap();
            let publisher = node.publisher::<Text>(TOPIC).create().unwrap();
            for n in 0.. {
                publisher.publish(Text {
                    data: format!("{} {n}", words[2]),
                });
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}
