//! Polling subscriptions: what read, take and latest return and leave behind, the history's
//! overflow policies, sample info, probes, and the errors for bad topics and histories.

use tacto::msg::std_msgs::{Empty, String as Text};
use tacto::{
    Context, History, Node, NodeCreateError, Publisher, Subscription, SubscriptionCreateError,
    TopicError,
};

fn text(s: &str) -> Text {
    Text { data: s.into() }
}

/// A node with a publisher and a subscription on one topic.
fn pair(history: History) -> (Node, Publisher<Text>, Subscription<Text>) {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    let publisher = node.publisher::<Text>("chat").create().unwrap();
    let sub = node
        .subscription::<Text>("chat")
        .history(history)
        .create()
        .unwrap();
    (node, publisher, sub)
}

fn publish_all(publisher: &Publisher<Text>, words: &[&str]) {
    words.iter().for_each(|w| publisher.publish(text(w)));
}

fn data(sample: Option<tacto::Sample<Text>>) -> Option<String> {
    sample.map(|s| s.data.clone())
}

#[test]
fn take_returns_the_oldest_sample_and_removes_it() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["a", "b"]);

    assert_eq!(data(sub.take()).as_deref(), Some("a"));
    assert_eq!((sub.len(), sub.unread()), (1, 1));
    assert_eq!(data(sub.take()).as_deref(), Some("b"));
    assert_eq!(data(sub.take()), None);
    assert!(sub.is_empty());
}

#[test]
fn read_new_returns_the_oldest_unread_sample_marks_it_read_and_keeps_it() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["a", "b"]);

    assert_eq!(data(sub.read_new()).as_deref(), Some("a"));
    assert_eq!((sub.len(), sub.unread()), (2, 1));
    assert_eq!(data(sub.read_new()).as_deref(), Some("b"));
    assert_eq!(data(sub.read_new()), None, "nothing unread is left");
    assert_eq!(
        data(sub.take_new()),
        None,
        "take_new only takes unread samples"
    );
    assert_eq!(sub.len(), 2);
    assert_eq!(
        data(sub.take()).as_deref(),
        Some("a"),
        "take takes read ones too"
    );
}

#[test]
fn take_new_skips_read_samples_and_leaves_them() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["a", "b", "c"]);
    sub.read_new();

    assert_eq!(data(sub.take_new()).as_deref(), Some("b"));
    assert_eq!(data(sub.take()).as_deref(), Some("a"));
    assert_eq!(data(sub.take()).as_deref(), Some("c"));
}

/// The review's reproduction: `latest()` used to hide every sample from `take_all()`.
#[test]
fn take_all_after_latest_takes_every_sample() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["0", "1", "2"]);

    assert_eq!(data(sub.latest()).as_deref(), Some("2"));
    let all: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(all, ["0", "1", "2"]);
    assert!(sub.is_empty());
}

#[test]
fn window_returns_the_newest_samples_oldest_first_and_marks_only_them_read() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["a", "b", "c", "d"]);

    let window: Vec<_> = sub.window(2).map(|s| s.data.clone()).collect();
    assert_eq!(window, ["c", "d"]);
    assert_eq!((sub.len(), sub.unread()), (4, 2));
    assert_eq!(data(sub.take_new()).as_deref(), Some("a"));

    let wide: Vec<_> = sub.window(100).map(|s| s.data.clone()).collect();
    assert_eq!(wide, ["b", "c", "d"], "a window is at most the history");
    assert_eq!(sub.window(0).count(), 0);
}

#[test]
fn a_window_skips_samples_taken_while_it_is_walked() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["a", "b", "c"]);

    let mut window = sub.window(3);
    assert_eq!(data(window.next()).as_deref(), Some("a"));
    assert_eq!(
        data(sub.take_new()),
        None,
        "the window marked everything read"
    );
    sub.take(); // a
    sub.take(); // b
    publisher.publish(text("d"));
    assert_eq!(
        data(window.next()).as_deref(),
        Some("c"),
        "b was taken meanwhile"
    );
    assert_eq!(
        data(window.next()),
        None,
        "d came after the window was fixed"
    );
}

#[test]
fn latest_returns_the_newest_sample_marks_all_read_and_keeps_them() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    assert_eq!(data(sub.latest()), None);
    publish_all(&publisher, &["a", "b", "c"]);

    assert_eq!(data(sub.latest()).as_deref(), Some("c"));
    assert!(!sub.has_new());
    assert_eq!(sub.len(), 3);
    assert_eq!(data(sub.latest()).as_deref(), Some("c"), "still the latest");

    publisher.publish(text("d"));
    assert_eq!(sub.unread(), 1);
    assert_eq!(data(sub.take_new()).as_deref(), Some("d"));
}

#[test]
fn keep_last_overwrites_the_oldest_and_counts_unread_ones_as_dropped() {
    let (_node, publisher, sub) = pair(History::KeepLast(3));
    publish_all(&publisher, &["1", "2", "3", "4", "5"]);

    assert_eq!(sub.len(), 3);
    assert_eq!(sub.dropped(), 2);
    let kept: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(kept, ["3", "4", "5"]);
}

#[test]
fn keep_last_overwriting_a_read_sample_drops_nothing() {
    let (_node, publisher, sub) = pair(History::KeepLast(2));
    publish_all(&publisher, &["a", "b"]);
    sub.read_new();
    publisher.publish(text("c"));

    assert_eq!(sub.dropped(), 0, "a was read before it was overwritten");
    assert_eq!(data(sub.take()).as_deref(), Some("b"));
    assert_eq!(data(sub.take()).as_deref(), Some("c"));
}

#[test]
fn keep_all_refuses_arrivals_when_full_and_counts_them_as_dropped() {
    let (_node, publisher, sub) = pair(History::KeepAll { max: 2 });
    publish_all(&publisher, &["1", "2", "3", "4"]);

    assert_eq!(sub.len(), 2);
    assert_eq!(sub.dropped(), 2);
    assert_eq!(
        data(sub.take()).as_deref(),
        Some("1"),
        "what it kept is intact"
    );

    publisher.publish(text("5"));
    let rest: Vec<_> = sub.take_all().map(|s| s.data.clone()).collect();
    assert_eq!(rest, ["2", "5"], "taking made room again");
    assert_eq!(sub.dropped(), 2);
}

#[test]
fn sample_info_numbers_each_publishers_samples_from_one_and_names_the_publisher() {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    let first = node.publisher::<Text>("chat").create().unwrap();
    let second = node.publisher::<Text>("chat").create().unwrap();
    let sub = node.subscription::<Text>("chat").create().unwrap();
    assert_ne!(first.id(), second.id());

    for p in [&first, &second, &first, &first, &second] {
        p.publish(text(""));
    }
    let infos: Vec<_> = sub
        .take_all()
        .map(|s| (s.info().publisher, s.info().sequence))
        .collect();
    let (a, b) = (first.id(), second.id());
    assert_eq!(infos, [(a, 1), (b, 1), (a, 2), (a, 3), (b, 2)]);
}

#[test]
fn sample_info_times_the_publication_and_the_reception() {
    let (_node, publisher, sub) = pair(History::KeepLast(1));
    let clock = tacto::Clock::default();
    let before = clock.now(tacto::ClockKind::System);
    publisher.publish(text(""));
    let after = clock.now(tacto::ClockKind::System);
    // Taken later, so that a time stamped when the sample is taken would fall after `after`.
    std::thread::sleep(std::time::Duration::from_millis(2));
    let info = *sub.take().unwrap().info();
    assert!((before..=after).contains(&info.publish_time));
    // Intra-process delivery puts the sample into the history while it is published.
    assert!(
        (before..=after).contains(&info.receive_time),
        "received at {}, not between {before} and {after}",
        info.receive_time
    );
}

#[test]
fn take_all_takes_only_what_was_there_when_it_was_called() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    publish_all(&publisher, &["1", "2", "3"]);

    let mut taken = Vec::new();
    for sample in sub.take_all() {
        // A publisher faster than the loop must not keep it running.
        publisher.publish(text("late"));
        taken.push(sample.data.clone());
    }
    assert_eq!(taken, ["1", "2", "3"]);
    assert_eq!(sub.unread(), 3, "the late samples wait for the next call");
}

#[test]
fn a_probe_sees_the_history_without_changing_it() {
    let (_node, publisher, sub) = pair(History::KeepLast(10));
    let probe = sub.probe();
    assert!(!probe.has_new());
    assert!(probe.peek_latest().is_none());
    publish_all(&publisher, &["a", "b"]);

    assert!(probe.has_new());
    assert_eq!(probe.unread(), 2);
    assert_eq!(probe.peek_latest().unwrap().data, "b");
    assert_eq!(probe.clone().unread(), 2);
    assert_eq!(sub.unread(), 2, "the probe marked nothing read");
    assert_eq!(data(sub.take()).as_deref(), Some("a"));
    assert_eq!(probe.unread(), 1, "it sees what the subscription does");
}

#[test]
fn topic_names_are_absolute_and_the_same_with_or_without_the_leading_slash() {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    let publisher = node.publisher::<Text>("robot/chat").create().unwrap();
    let sub = node.subscription::<Text>("/robot/chat").create().unwrap();
    assert_eq!(
        (publisher.topic(), sub.topic()),
        ("/robot/chat", "/robot/chat")
    );
    publisher.publish(text("hi"));
    assert_eq!(data(sub.take()).as_deref(), Some("hi"));
}

#[test]
fn a_topic_keeps_the_type_it_was_first_opened_with() {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    let _text = node.subscription::<Text>("chat").create().unwrap();

    let mismatch = TopicError::TypeMismatch {
        topic: "/chat".into(),
        existing: "std_msgs/msg/String",
        requested: "std_msgs/msg/Empty",
    };
    let publisher = node.publisher::<Empty>("chat").create();
    assert_eq!(publisher.unwrap_err(), mismatch);
    let sub = node.subscription::<Empty>("/chat").create();
    assert_eq!(sub.unwrap_err(), SubscriptionCreateError::Topic(mismatch));
}

#[test]
fn a_history_that_holds_nothing_is_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    for history in [History::KeepLast(0), History::KeepAll { max: 0 }] {
        let sub = node.subscription::<Text>("chat").history(history).create();
        assert_eq!(sub.unwrap_err(), SubscriptionCreateError::ZeroCapacity);
        let callback = node
            .subscription::<Text>("chat")
            .history(history)
            .callback(|_| {});
        assert_eq!(callback, Err(SubscriptionCreateError::ZeroCapacity));
    }
}

#[test]
fn topic_names_that_break_the_ros_rules_are_refused() {
    let ctx = Context::new();
    let mut node = ctx.node("node").unwrap();
    for name in [
        "",
        "/",
        "a//b",
        "a/",
        "1abc",
        "a/2b",
        "a b",
        "a-b",
        "~chat",
        "{nodes}/chat",
    ] {
        match node.subscription::<Text>(name).create() {
            Err(SubscriptionCreateError::Topic(TopicError::Name(error))) => {
                assert!(error.to_string().contains(&format!("'{name}'")), "{error}")
            }
            other => panic!("{name:?} gave {other:?}"),
        }
        assert!(
            matches!(
                node.publisher::<Text>(name).create(),
                Err(TopicError::Name(_))
            ),
            "{name:?} accepted for a publisher"
        );
    }
}

#[test]
fn private_names_and_substitutions_resolve_under_the_node() {
    let ctx = Context::new();
    let mut node = ctx
        .node_builder("driver")
        .namespace("/robot1")
        .create()
        .unwrap();
    for (name, resolved) in [
        ("~/odom", "/robot1/driver/odom"),
        ("{node}/odom", "/robot1/driver/odom"),
        ("odom", "/robot1/odom"),
        ("/odom", "/odom"),
    ] {
        let sub = node.subscription::<Text>(name).create().unwrap();
        assert_eq!(sub.topic(), resolved);
    }
}

#[test]
fn node_names_that_break_the_ros_rules_are_refused() {
    let ctx = Context::new();
    for name in ["", "1node", "my-node", "my/node", "my node"] {
        match ctx.node(name) {
            Err(NodeCreateError::Name(tacto::names::NameError::NodeName { name: n, .. })) => {
                assert_eq!(n, name)
            }
            other => panic!("{name:?} gave {other:?}"),
        }
    }
    assert!(ctx.node("_my_node2").is_ok());
}

/// Counts decodes: a polling node that only looks at the latest sample must not pay one per
/// arrival when samples come serialized.
mod lazy_decoding {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde::{Deserialize, Serialize};
    use tacto::{Context, History, LocalDelivery, Message};

    static DECODES: AtomicUsize = AtomicUsize::new(0);

    #[derive(Debug, Clone, Default, Serialize, Deserialize)]
    #[serde(from = "u32")]
    struct Counted(u32);

    impl From<u32> for Counted {
        fn from(value: u32) -> Self {
            DECODES.fetch_add(1, Ordering::SeqCst);
            Counted(value)
        }
    }

    impl Message for Counted {
        const TYPE_NAME: &'static str = "test_msgs/msg/Counted";
    }

    #[test]
    fn serialized_samples_are_decoded_only_when_read() {
        let ctx = Context::builder()
            .local_delivery(LocalDelivery::Serialized)
            .create();
        let mut node = ctx.node("lazy").unwrap();
        let publisher = node.publisher::<Counted>("counted").create().unwrap();
        let sub = node
            .subscription::<Counted>("counted")
            .history(History::KeepLast(10))
            .create()
            .unwrap();
        for n in 0..100 {
            publisher.publish(Counted(n));
        }
        assert_eq!(DECODES.load(Ordering::SeqCst), 0, "nothing read yet");
        assert_eq!(sub.latest().unwrap().0, 99);
        assert_eq!(sub.latest().unwrap().0, 99);
        assert_eq!(
            DECODES.load(Ordering::SeqCst),
            1,
            "one decode for two looks"
        );
    }
}

/// A topic is its name and ROS type: Rust types that share a ROS type name share the topic,
/// through CDR.
mod types_of_one_ros_type {
    use serde::{Deserialize, Serialize};
    use tacto::msg::std_msgs::String as Text;
    use tacto::{Context, Message, TopicError};

    /// Another crate's `std_msgs/msg/String`, as a generator would make it.
    #[derive(Debug, Clone, Default, Serialize, Deserialize)]
    struct OtherText {
        data: String,
    }

    impl Message for OtherText {
        const TYPE_NAME: &'static str = "std_msgs/msg/String";
    }

    /// A type that claims the name but not the layout.
    #[derive(Debug, Clone, Default, Serialize, Deserialize)]
    struct Impostor {
        data: String,
        extra: u64,
    }

    impl Message for Impostor {
        const TYPE_NAME: &'static str = "std_msgs/msg/String";
    }

    #[test]
    fn subscriptions_of_another_rust_type_receive_through_cdr() {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let same = node.subscription::<Text>("chat").create().unwrap();
        let other = node.subscription::<OtherText>("chat").create().unwrap();
        let publisher = node.publisher::<Text>("chat").create().unwrap();
        assert_eq!(publisher.subscription_count(), 2);

        publisher.publish(Text { data: "hi".into() });
        assert_eq!(same.take().unwrap().data, "hi");
        assert_eq!(other.take().unwrap().data, "hi");

        let back = node.publisher::<OtherText>("chat").create().unwrap();
        back.publish(OtherText {
            data: "back".into(),
        });
        assert_eq!(same.take().unwrap().data, "back");
        assert_eq!(other.take().unwrap().data, "back");
    }

    #[test]
    fn a_type_whose_layout_does_not_decode_counts_malformed_samples() {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let impostor = node.subscription::<Impostor>("chat").create().unwrap();
        let publisher = node.publisher::<Text>("chat").create().unwrap();

        publisher.publish(Text { data: "hi".into() });
        assert_eq!(impostor.unread(), 1);
        assert!(impostor.take().is_none(), "the sample did not decode");
        assert_eq!(impostor.malformed(), 1);
    }

    /// Publishers of both types on their own threads serve each other's fan-outs: no thread
    /// may hold two fan-out locks (that would deadlock here), and every subscription still
    /// gets each publisher's samples once, in sequence order.
    #[test]
    fn publishers_of_two_types_on_two_threads_deliver_in_order_to_both() {
        const EACH: u64 = 5_000;
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let keep_all = tacto::History::KeepAll {
            max: 2 * EACH as usize,
        };
        let same = (node.subscription::<Text>("chat").history(keep_all))
            .create()
            .unwrap();
        let other = (node.subscription::<OtherText>("chat").history(keep_all))
            .create()
            .unwrap();
        let text = node.publisher::<Text>("chat").create().unwrap();
        let other_text = node.publisher::<OtherText>("chat").create().unwrap();
        std::thread::scope(|s| {
            s.spawn(|| (0..EACH).for_each(|_| text.publish(Text::default())));
            s.spawn(|| (0..EACH).for_each(|_| other_text.publish(OtherText::default())));
        });
        let by_publisher = |infos: Vec<tacto::SampleInfo>| {
            let mut seen = std::collections::HashMap::<_, Vec<u64>>::new();
            for info in infos {
                seen.entry(info.publisher).or_default().push(info.sequence);
            }
            let mut sequences: Vec<Vec<u64>> = seen.into_values().collect();
            sequences.sort();
            sequences
        };
        let expected = vec![(1..=EACH).collect::<Vec<_>>(); 2];
        let same = by_publisher(same.take_all().map(|s| *s.info()).collect());
        let other = by_publisher(other.take_all().map(|s| *s.info()).collect());
        assert_eq!(same, expected);
        assert_eq!(other, expected);
    }

    #[test]
    fn another_ros_type_is_refused() {
        let ctx = Context::new();
        let mut node = ctx.node("n").unwrap();
        let _chat = node.subscription::<Text>("chat").create().unwrap();
        let refused = node
            .publisher::<tacto::msg::std_msgs::Empty>("chat")
            .create();
        assert!(matches!(refused, Err(TopicError::TypeMismatch { .. })));
    }
}

/// Endpoints of one topic made on several threads at once all join the same fan-out.
#[test]
fn subscriptions_made_concurrently_all_receive() {
    const THREADS: usize = 4;
    for round in 0..50 {
        let ctx = Context::new();
        let topic = format!("race_{round}");
        let subs: Vec<Subscription<Text>> = std::thread::scope(|s| {
            let made: Vec<_> = (0..THREADS)
                .map(|i| {
                    let (ctx, topic) = (&ctx, &topic);
                    s.spawn(move || {
                        let mut node = ctx.node(&format!("n{i}")).unwrap();
                        node.subscription::<Text>(topic).create().unwrap()
                    })
                })
                .collect();
            made.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut talker = ctx.node("talker").unwrap();
        let publisher = talker.publisher::<Text>(&topic).create().unwrap();
        publisher.publish(text("hi"));
        assert!(subs.iter().all(|s| s.unread() == 1), "round {round}");
    }
}
