//! Readable triggers: a node runs when a file descriptor is readable (a device driver's socket),
//! on every executor but LET, level-triggered like a subscription trigger.
//!
//! Each behaviour is a function taking an executor; [`each_executor!`] turns it into one test
//! per executor.

use std::fs::File;
use std::io::ErrorKind;
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use tacto::msg::std_msgs::Empty;
use tacto::{
    AddError, Context, Executor, LetExecutor, SpinOutcome, ThreadPoolExecutor, Trigger,
    TriggerError, WaitSetExecutor,
};

#[macro_use]
mod util;

/// Long enough for an executor to run everything already ready, and to spin many times if it
/// spun at all.
const SETTLE: Duration = Duration::from_millis(100);
/// A limit that only a lost wake-up reaches.
const GENEROUS: Duration = Duration::from_secs(30);

/// A connected pair: the device end, and the driver end (non-blocking, shared).
fn device() -> (UnixDatagram, Arc<UnixDatagram>) {
    let (device, driver) = UnixDatagram::pair().unwrap();
    driver.set_nonblocking(true).unwrap();
    (device, Arc::new(driver))
}

/// Reads every datagram waiting on `socket`; how many.
fn drain(socket: &UnixDatagram) -> usize {
    let mut buffer = [0u8; 64];
    let mut count = 0;
    loop {
        match socket.recv(&mut buffer) {
            Ok(_) => count += 1,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return count,
            Err(e) => panic!("recv failed: {e}"),
        }
    }
}

const DATAGRAMS: usize = 1000;

/// A writer thread sends datagrams as fast as the socket takes them (it blocks while the
/// driver's queue is full); the node drains the socket on each run, and stops the executor when
/// it has counted them all.
fn every_datagram_reaches_the_node_that_drains_its_socket(mut executor: impl Executor) {
    let ctx = Context::new();
    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let received = Arc::new(AtomicUsize::new(0));
    let (count, input, stop) = (received.clone(), socket.clone(), executor.stop_handle());
    driver
        .execute(Trigger::readable(socket), move |_| {
            let read = drain(&input);
            if count.fetch_add(read, Ordering::Relaxed) + read >= DATAGRAMS {
                stop.stop();
            }
        })
        .unwrap();
    executor.add(driver).unwrap();

    // A driver that stops reading fails the test instead of blocking the writer for good.
    device.set_write_timeout(Some(GENEROUS)).unwrap();
    let writer = thread::spawn(move || {
        for i in 0..DATAGRAMS {
            device.send(&(i as u32).to_le_bytes()).unwrap();
        }
    });
    let outcome = executor.spin_for(GENEROUS).unwrap();
    writer.join().unwrap();
    assert_eq!(outcome, SpinOutcome::Stopped);
    assert_eq!(received.load(Ordering::Relaxed), DATAGRAMS);
}
each_executor!(every_datagram_reaches_the_node_that_drains_its_socket);

/// An fd with nothing to read is in the executor's epoll set and wakes nothing: the executor
/// sleeps until its deadline.
fn an_idle_fd_does_not_wake_the_executor(mut executor: impl Executor) {
    let ctx = Context::new();
    let (_device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let count = runs.clone();
    driver
        .execute(Trigger::readable(socket), move |_| {
            count.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    executor.add(driver).unwrap();

    assert_eq!(executor.spin_for(SETTLE).unwrap(), SpinOutcome::Elapsed);
    assert_eq!(runs.load(Ordering::Relaxed), 0);
    // One wake-up for the deadline (and, on the pool, one for the follower to return); an
    // executor woken by the fd, or spinning, would count hundreds.
    assert!(executor.stats().wakeups <= 4, "{:?}", executor.stats());
}
each_executor!(an_idle_fd_does_not_wake_the_executor);

/// The node leaves its one datagram unread on its first run: the fd is still readable, so it
/// runs again at once, reads it, and then, the fd drained, never again.
fn an_undrained_fd_runs_the_node_again_until_it_reads(mut executor: impl Executor) {
    let ctx = Context::new();
    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let (runs, read) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (run_count, read_count, input) = (runs.clone(), read.clone(), socket.clone());
    driver
        .execute(Trigger::readable(socket), move |_| {
            if run_count.fetch_add(1, Ordering::Relaxed) > 0 {
                read_count.fetch_add(drain(&input), Ordering::Relaxed);
            }
        })
        .unwrap();
    executor.add(driver).unwrap();

    device.send(b"one").unwrap();
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(read.load(Ordering::Relaxed), 1);
    assert_eq!(runs.load(Ordering::Relaxed), 2);
    assert!(executor.stats().wakeups <= 4, "{:?}", executor.stats());
}
each_executor!(an_undrained_fd_runs_the_node_again_until_it_reads);

/// The fd stays readable while the node works before reading it. A thread-pool leader waiting
/// meanwhile is not woken by it over and over, and the node is not run again for data it
/// drained.
fn a_slow_driver_runs_once_for_what_it_drains(mut executor: impl Executor) {
    let ctx = Context::new();
    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let (runs, read) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (run_count, read_count, input) = (runs.clone(), read.clone(), socket.clone());
    driver
        .execute(Trigger::readable(socket), move |_| {
            run_count.fetch_add(1, Ordering::Relaxed);
            thread::sleep(SETTLE / 2);
            read_count.fetch_add(drain(&input), Ordering::Relaxed);
        })
        .unwrap();
    executor.add(driver).unwrap();

    device.send(b"scan").unwrap();
    executor.spin_for(SETTLE * 2).unwrap();
    assert_eq!(read.load(Ordering::Relaxed), 1);
    assert_eq!(runs.load(Ordering::Relaxed), 1);
    assert!(executor.stats().wakeups <= 6, "{:?}", executor.stats());
}
each_executor!(a_slow_driver_runs_once_for_what_it_drains);

/// Another node's trigger always holds (it never takes its sample), so the executor always has
/// work and never sleeps; the driver still runs when its fd becomes readable.
fn a_node_that_always_has_work_does_not_starve_a_driver(mut executor: impl Executor) {
    let ctx = Context::new();
    let mut busy = ctx.node("busy").unwrap();
    let never_taken = busy.subscription::<Empty>("work").create().unwrap();
    busy.execute(Trigger::on(&never_taken), move |_| {
        let _unread = &never_taken;
    })
    .unwrap();
    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let (input, stop) = (socket.clone(), executor.stop_handle());
    driver
        .execute(Trigger::readable(socket), move |_| {
            if drain(&input) > 0 {
                stop.stop();
            }
        })
        .unwrap();
    let work = ctx
        .node("boss")
        .unwrap()
        .publisher::<Empty>("work")
        .create()
        .unwrap();
    executor.add(busy).unwrap();
    executor.add(driver).unwrap();

    work.publish(Empty::default());
    device.send(b"frame").unwrap();
    assert_eq!(executor.spin_for(GENEROUS).unwrap(), SpinOutcome::Stopped);
}
each_executor!(a_node_that_always_has_work_does_not_starve_a_driver);

/// With every worker busy, no worker waits in the poller; the one that collects looks at fds.
#[test]
fn a_busy_pool_without_a_free_worker_does_not_starve_a_driver() {
    let pool = ThreadPoolExecutor::builder().threads(1).create().unwrap();
    a_node_that_always_has_work_does_not_starve_a_driver(pool);
}

/// A regular file is always readable, so epoll refuses it (`EPERM`); the node is refused whole,
/// and a node of the same name can be added afterwards.
fn a_regular_file_is_refused_and_leaves_nothing_behind(mut executor: impl Executor) {
    let ctx = Context::new();
    let file = File::open(std::env::current_exe().unwrap()).unwrap();
    let mut driver = ctx.node("driver").unwrap();
    driver.execute(Trigger::readable(file), |_| {}).unwrap();
    match executor.add(driver) {
        Err(AddError::Watch { node, source }) => {
            assert_eq!(node, "driver");
            assert_eq!(source.raw_os_error(), Some(libc::EPERM));
        }
        other => panic!("expected AddError::Watch, got {other:?}"),
    }

    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let (input, stop) = (socket.clone(), executor.stop_handle());
    driver
        .execute(Trigger::readable(socket), move |_| {
            if drain(&input) > 0 {
                stop.stop();
            }
        })
        .unwrap();
    executor.add(driver).unwrap();
    device.send(b"frame").unwrap();
    assert_eq!(executor.spin_for(GENEROUS).unwrap(), SpinOutcome::Stopped);
}
each_executor!(a_regular_file_is_refused_and_leaves_nothing_behind);

#[test]
fn the_let_executor_refuses_a_readable_trigger() {
    let ctx = Context::new();
    let (_device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    driver.execute(Trigger::readable(socket), |_| {}).unwrap();
    let mut executor = LetExecutor::new(Duration::from_millis(10)).unwrap();
    assert!(matches!(
        executor.add(driver),
        Err(AddError::UnsupportedTrigger {
            executor: "LET",
            ..
        })
    ));
}

#[test]
fn a_readable_trigger_cannot_also_name_subscriptions() {
    let ctx = Context::new();
    let mut driver = ctx.node("driver").unwrap();
    let sub = driver.subscription::<Empty>("config").create().unwrap();
    let (_device, socket) = device();
    assert_eq!(
        driver.execute(Trigger::readable(socket).with(&sub), |_| {}),
        Err(TriggerError::ReadableWithInputs)
    );
}

#[test]
fn one_fd_can_trigger_only_one_node_of_an_executor() {
    let ctx = Context::new();
    let (_device, socket) = device();
    let mut first = ctx.node("first").unwrap();
    first
        .execute(Trigger::readable(socket.clone()), |_| {})
        .unwrap();
    let mut second = ctx.node("second").unwrap();
    second.execute(Trigger::readable(socket), |_| {}).unwrap();

    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(first).unwrap();
    match executor.add(second) {
        Err(AddError::Watch { source, .. }) => {
            assert_eq!(source.kind(), ErrorKind::AlreadyExists);
        }
        other => panic!("expected AddError::Watch, got {other:?}"),
    }
}

/// Data that arrived before the node was added is reported when the executor first waits.
#[test]
fn data_waiting_before_the_node_is_added_runs_it() {
    let ctx = Context::new();
    let (device, socket) = device();
    device.send(b"early").unwrap();
    let mut driver = ctx.node("driver").unwrap();
    let (tx, rx) = mpsc::channel();
    let input = socket.clone();
    driver
        .execute(Trigger::readable(socket), move |_| {
            tx.send(drain(&input)).unwrap();
        })
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(driver).unwrap();
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [1]);
}
