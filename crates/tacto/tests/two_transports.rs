//! A context on two transports (`ContextBuilder::transport` called twice), proven with two
//! loopback hubs (`loopback/`) standing for two networks: each topic links through both, a
//! publisher writes only to the one that has readers, a subscription reads both as one cache
//! in publication order, with its sample states, and wakes only when a trigger names it.

#[macro_use]
mod util;
mod loopback;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tacto::msg::std_msgs::String as Text;
use tacto::{Context, EventsExecutor, Executor, Publisher, Trigger};
use util::{PATIENCE, SETTLE};

fn text(s: &str) -> Text {
    Text { data: s.into() }
}

/// A listener "process" on both hubs, and a talker on each hub alone.
fn on_two_networks() -> (
    Context,
    Publisher<Text>,
    Publisher<Text>,
    [Arc<loopback::Hub>; 2],
) {
    let hubs = [loopback::Hub::new(), loopback::Hub::new()];
    let both = Context::builder()
        .transport(hubs[0].transport())
        .transport(hubs[1].transport())
        .create();
    let talker = |hub: &Arc<loopback::Hub>, name: &str| {
        (hub.context().node(name).unwrap())
            .publisher::<Text>("chat")
            .create()
            .unwrap()
    };
    let (first, second) = (talker(&hubs[0], "first"), talker(&hubs[1], "second"));
    (both, first, second, hubs)
}

#[test]
fn a_subscription_reads_both_links_in_publication_order_with_sample_states() {
    let (ctx, first, second, _hubs) = on_two_networks();
    let sub = (ctx.node("listener").unwrap())
        .subscription::<Text>("chat")
        .create()
        .unwrap();
    for (i, publisher) in [&first, &second, &second, &first].into_iter().enumerate() {
        publisher.publish(text(&i.to_string()));
    }
    assert_eq!(sub.len(), 4);
    assert_eq!(sub.read_new().unwrap().data, "0");
    assert_eq!(sub.read_new().unwrap().data, "1");
    assert_eq!(sub.unread(), 2);
    assert_eq!(sub.take_new().unwrap().data, "2", "the oldest NOT_READ");
    assert_eq!(sub.take().unwrap().data, "0", "the oldest, read or not");
    assert_eq!(sub.latest().unwrap().data, "3", "the newest of both");
    assert_eq!(sub.unread(), 0, "latest marks both links' samples READ");
    let rest: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(rest, ["1", "3"]);
}

#[test]
fn a_publisher_writes_to_the_links_that_have_readers_only() {
    let hubs = [loopback::Hub::new(), loopback::Hub::new()];
    let ctx = Context::builder()
        .transport(hubs[0].transport())
        .transport(hubs[1].transport())
        .create();
    let publisher = (ctx.node("talker").unwrap())
        .publisher::<Text>("chat")
        .create()
        .unwrap();
    publisher.publish(text("nobody"));
    assert_eq!(
        publisher.remote_writes(),
        0,
        "no reader anywhere: not encoded"
    );
    let reader = (hubs[1].context().node("listener").unwrap())
        .subscription::<Text>("chat")
        .create()
        .unwrap();
    publisher.publish(text("second only"));
    assert_eq!((hubs[0].writes("/chat"), hubs[1].writes("/chat")), (0, 1));
    assert_eq!(reader.take().unwrap().data, "second only");
    assert_eq!(publisher.remote_writes(), 1);
}

#[test]
fn only_a_triggering_subscription_is_woken_by_either_link() {
    let (ctx, first, second, _hubs) = on_two_networks();
    let mut node = ctx.node("listener").unwrap();
    let polled = node.subscription::<Text>("chat").create().unwrap();
    let mut executor = EventsExecutor::new().unwrap();
    node.execute(Trigger::every(Duration::from_secs(3600)), |_| {})
        .unwrap();
    executor.add(node).unwrap();
    executor.spin_for(SETTLE).unwrap();
    let idle = executor.stats().wakeups;
    for i in 0..20 {
        first.publish(text(&format!("a{i}")));
        second.publish(text(&format!("b{i}")));
    }
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(
        executor.stats().wakeups - idle,
        idle,
        "40 samples woke it no more than an idle window"
    );
    assert_eq!(polled.len(), 20, "KeepLast(10) on each link");

    let mut reactor = ctx.node("reactor").unwrap();
    let triggering = reactor.subscription::<Text>("chat").create().unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    let trigger = Trigger::on(&triggering);
    reactor
        .execute(trigger, move |_| {
            triggering.take_all().for_each(drop);
            counted.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    executor.add(reactor).unwrap();
    for publisher in [&first, &second] {
        let before = runs.load(Ordering::Relaxed);
        publisher.publish(text("wake"));
        let deadline = std::time::Instant::now() + PATIENCE;
        while runs.load(Ordering::Relaxed) == before {
            assert!(
                std::time::Instant::now() < deadline,
                "no run for {publisher:?}"
            );
            executor.spin_for(SETTLE).unwrap();
        }
    }
}

/// A transport that links topics through `inner` and refuses services and clients in its own
/// name, to show which transport a two-transport context asks for them.
#[derive(Debug)]
struct NamedServices {
    inner: Arc<dyn tacto::transport::Transport>,
    name: &'static str,
}

impl tacto::transport::Transport for NamedServices {
    fn writer(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: tacto::transport::RosType,
        qos: &tacto::Qos,
    ) -> Result<Arc<dyn tacto::transport::LinkWriter>, tacto::transport::LinkError> {
        self.inner.writer(node, topic, ros_type, qos)
    }

    fn reader(
        &self,
        node: Option<&str>,
        topic: &str,
        ros_type: tacto::transport::RosType,
        qos: &tacto::Qos,
    ) -> Result<Box<dyn tacto::transport::LinkReader>, tacto::transport::LinkError> {
        self.inner.reader(node, topic, ros_type, qos)
    }

    fn service(
        &self,
        _: &str,
        _: &str,
        _: tacto::transport::RosType,
        _: tacto::transport::RosType,
    ) -> Result<Option<Box<dyn tacto::transport::ServiceLink>>, tacto::transport::LinkError> {
        Err(tacto::transport::LinkError(format!("{} serves", self.name)))
    }

    fn client(
        &self,
        _: &str,
        _: &str,
        _: tacto::transport::RosType,
        _: tacto::transport::RosType,
        _: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
    ) -> Result<Option<Box<dyn tacto::transport::ClientLink>>, tacto::transport::LinkError> {
        Err(tacto::transport::LinkError(format!("{} calls", self.name)))
    }
}

/// Services and clients go through the transport given last (the network one beside shared
/// memory), which reaches every peer; the first is asked only if the last carries none.
#[test]
fn services_and_clients_go_through_the_transport_given_last() {
    struct TriggerSrv;
    impl tacto::ServiceType for TriggerSrv {
        const TYPE_NAME: &'static str = "test_msgs/srv/Ask";
        type Request = Text;
        type Response = Text;
    }

    let hubs = [loopback::Hub::new(), loopback::Hub::new()];
    let named = |i: usize, name| -> Arc<dyn tacto::transport::Transport> {
        Arc::new(NamedServices {
            inner: hubs[i].transport(),
            name,
        })
    };
    let ctx = Context::builder()
        .transport(named(0, "host"))
        .transport(named(1, "network"))
        .create();
    // Its own parameter services would be refused the same way.
    let builder = ctx.node_builder("both").start_parameter_services(false);
    let mut node = builder.create().unwrap();
    let service = node.service::<TriggerSrv>("ask").create().map(drop);
    let error = format!("{:?}", service.expect_err("the network transport refuses"));
    assert!(error.contains("network serves"), "{error}");
    let client = node.client::<TriggerSrv>("ask").create().map(drop);
    let error = format!("{:?}", client.expect_err("the network transport refuses"));
    assert!(error.contains("network calls"), "{error}");

    // The loopback hubs carry no services: the first of two such transports is asked next,
    // and neither has one, so the service is this process's alone.
    let plain = Context::builder()
        .transport(hubs[0].transport())
        .transport(named(1, "network"))
        .create();
    let refused = (plain.node_builder("n").start_parameter_services(false))
        .create()
        .unwrap()
        .service::<TriggerSrv>("ask")
        .create()
        .map(drop);
    assert!(
        format!("{refused:?}").contains("network serves"),
        "{refused:?}"
    );
    let alone = Context::builder()
        .transport(named(0, "host"))
        .transport(hubs[1].transport())
        .create();
    let refused = (alone.node_builder("n").start_parameter_services(false))
        .create()
        .unwrap()
        .service::<TriggerSrv>("ask")
        .create()
        .map(drop);
    assert!(
        format!("{refused:?}").contains("host serves"),
        "{refused:?}"
    );
}
