//! Wake-ups: a message published on another thread wakes a sleeping executor, every time.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use tacto::msg::std_msgs::Empty;
use tacto::{CallbackExecutor, Context, Executor, Node, SpinOutcome, Trigger, WaitSetExecutor};

const MESSAGES: usize = 300;

/// Sends one message at a time and waits for it to arrive before sending the next, after a
/// pause in which the executor goes to sleep: each message has to wake it. A lost wake-up
/// stalls the exchange, and the sender gives up after a generous timeout.
fn every_message_arrives(
    mut executor: Box<dyn Executor>,
    receiver: Node,
    acks: mpsc::Receiver<()>,
) {
    let ctx = receiver.context().clone();
    executor.add(receiver).unwrap();
    let publisher = ctx
        .node("sender")
        .unwrap()
        .publisher::<Empty>("ping")
        .create()
        .unwrap();
    let stop = executor.stop_handle();
    let sender = thread::spawn(move || {
        let mut acknowledged = 0;
        for _ in 0..MESSAGES {
            thread::sleep(Duration::from_millis(1));
            publisher.publish(Empty::default());
            if acks.recv_timeout(Duration::from_secs(10)).is_err() {
                break;
            }
            acknowledged += 1;
        }
        stop.stop();
        acknowledged
    });
    let outcome = executor.spin_for(Duration::from_secs(60)).unwrap();
    assert_eq!(sender.join().unwrap(), MESSAGES);
    assert_eq!(outcome, SpinOutcome::Stopped);
}

#[test]
fn every_message_wakes_a_sleeping_wait_set_executor() {
    let ctx = Context::new();
    let mut receiver = ctx.node("receiver").unwrap();
    let sub = receiver.subscription::<Empty>("ping").create().unwrap();
    let (ack, acks) = mpsc::channel();
    receiver
        .execute(Trigger::on(&sub), move |_| {
            for _ in sub.take_all() {
                ack.send(()).unwrap();
            }
        })
        .unwrap();
    every_message_arrives(Box::new(WaitSetExecutor::new().unwrap()), receiver, acks);
}

#[test]
fn every_message_wakes_a_sleeping_callback_executor() {
    let ctx = Context::new();
    let mut receiver = ctx.node("receiver").unwrap();
    let (ack, acks) = mpsc::channel();
    receiver
        .subscription::<Empty>("ping")
        .callback(move |_| ack.send(()).unwrap())
        .unwrap();
    every_message_arrives(Box::new(CallbackExecutor::new().unwrap()), receiver, acks);
}
