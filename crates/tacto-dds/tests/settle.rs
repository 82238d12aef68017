//! `Discovery::is_settled`: a new observer waits until every ROS 2 participant has announced
//! its nodes and every endpoint they name is known, here against tacto contexts of this
//! process (Cyclone peers) with and without nodes. The Fast DDS case, where it matters most, is
//! `crates/tacto-cli/tests/graph_first_try.rs`. Domain 213.

mod support;

use std::thread;
use std::time::{Duration, Instant};

use support::{PATIENCE, loopback_participant};
use tacto::Context;
use tacto::msg::std_msgs::String as Text;
use tacto_dds::{DdsTransport, Discovery};

/// A new observer in `domain`, refreshed until it says the graph has settled.
fn settled(domain: u32) -> Discovery {
    let mut discovery = Discovery::new(&loopback_participant(domain)).unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        discovery.refresh().unwrap();
        if discovery.is_settled() {
            return discovery;
        }
        assert!(Instant::now() < deadline, "not settled after {PATIENCE:?}");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_settled_graph_names_every_endpoint_of_every_node() {
    const DOMAIN: u32 = 213;
    let topic = format!("/settle{}", std::process::id());
    let ctx = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();
    let mut talker = ctx.node("settle_talker").unwrap();
    let _publisher = talker.publisher::<Text>(&topic).create().unwrap();
    let mut listener = ctx.node("settle_listener").unwrap();
    let _subscription = listener.subscription::<Text>(&topic).create().unwrap();
    // A context with no node yet: it announces no node, and holds nothing up.
    let _idle = Context::builder()
        .transport(DdsTransport::new(loopback_participant(DOMAIN)))
        .create();

    // Each new observer sees the whole graph as soon as it says it has settled.
    for _ in 0..5 {
        let discovery = settled(DOMAIN);
        assert_eq!(discovery.nodes(), ["/settle_listener", "/settle_talker"]);
        let topics = discovery.topics();
        let info = topics.iter().find(|t| t.name == topic).expect("the topic");
        let nodes = |endpoints: &[tacto_dds::EndpointInfo]| -> Vec<Option<String>> {
            endpoints.iter().map(|e| e.node.clone()).collect()
        };
        assert_eq!(nodes(&info.publishers), [Some("/settle_talker".into())]);
        assert_eq!(nodes(&info.subscribers), [Some("/settle_listener".into())]);
    }
}
