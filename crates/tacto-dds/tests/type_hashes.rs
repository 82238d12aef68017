//! Every endpoint of a tacto process carries its type's hash in USER_DATA as rmw_cyclonedds
//! writes it (`typehash=RIHS01_<64 hex>;`), so that rclpy on rmw_cyclonedds reads one for
//! each: it warns ("Failed to parse type hash ...") of an endpoint whose USER_DATA holds no
//! pairs, as the `ros_discovery_info` endpoints had. DDS domain 47.

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::{PATIENCE, rclpy_on_cyclone};
use tacto::msg::std_msgs::String as Text;

#[test]
fn rclpy_on_cyclone_reads_a_type_hash_for_every_endpoint_of_a_tacto_node() {
    let Some(cyclone) =
        rclpy_on_cyclone("rclpy_on_cyclone_reads_a_type_hash_for_every_endpoint_of_a_tacto_node")
    else {
        return;
    };
    const DOMAIN: u32 = 47;
    let ctx = tacto::Context::builder()
        .transport(tacto_dds::DdsTransport::new(support::loopback_participant(
            DOMAIN,
        )))
        .create();
    // A publisher, a subscription, and the node's own endpoints: `/rosout`, the parameter
    // services, and the process's `ros_discovery_info` reader and writer.
    let mut node = ctx.node("hashed").unwrap();
    let _chatter = node.publisher::<Text>("chatter").create().unwrap();
    let _heard = node.subscription::<Text>("heard").create().unwrap();

    let mut peer = cyclone.spawn("graph.py", DOMAIN, &["hashed", "/chatter"]);
    let seen = peer
        .next_line(Instant::now() + PATIENCE)
        .unwrap_or_else(|| panic!("rclpy never saw the node; its stderr: {}", peer.stderr()));
    assert_eq!(seen, "node / hashed");
    let deadline = Instant::now() + PATIENCE;
    while peer.exited().is_none() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    let stderr = peer.stderr_to_end();
    assert!(!stderr.contains("type hash"), "rclpy's stderr: {stderr}");
}
