//! Readable triggers: a node runs when a file descriptor is readable (a device driver's socket),
//! on every executor but LET, level-triggered like a subscription trigger.
//!
//! Each behaviour is a function taking an executor; [`each_executor!`] turns it into one test
//! per executor. The driver's code stops the spin once it has what the test waits for; a fixed
//! window ([`SETTLE`]) only watches for runs or wake-ups that must not happen.

use std::any::Any;
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
use util::{PATIENCE, SETTLE, spin_until_stopped};

/// How long a slow driver works before it reads its socket.
const WORK: Duration = Duration::from_millis(50);

/// The threads of `executor` that wait for work, each counting its own wake-ups.
fn workers(executor: &(impl Executor + 'static)) -> u64 {
    let any: &dyn Any = executor;
    any.downcast_ref::<ThreadPoolExecutor>()
        .map_or(1, |pool| pool.threads() as u64)
}

/// Spins `executor` for [`SETTLE`], expecting nothing to be ready, and returns its wake-ups.
///
/// A window: nothing can signal a wake-up that does not happen. An executor with nothing to do
/// wakes once for its deadline, and a pool's followers at most once each, to return: at most
/// [`workers`] wake-ups, however loaded the machine. One that something kept waking, such as
/// a readable fd, counts one per pass, hundreds in the window.
fn wakeups_of_an_idle_window(executor: &mut (impl Executor + 'static)) -> u64 {
    let before = executor.stats().wakeups;
    assert_eq!(executor.spin_for(SETTLE).unwrap(), SpinOutcome::Elapsed);
    executor.stats().wakeups - before
}

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
    device.set_write_timeout(Some(PATIENCE)).unwrap();
    let writer = thread::spawn(move || {
        for i in 0..DATAGRAMS {
            device.send(&(i as u32).to_le_bytes()).unwrap();
        }
    });
    let outcome = executor.spin_for(PATIENCE).unwrap();
    writer.join().unwrap();
    assert_eq!(outcome, SpinOutcome::Stopped);
    assert_eq!(received.load(Ordering::Relaxed), DATAGRAMS);
}
each_executor!(every_datagram_reaches_the_node_that_drains_its_socket);

/// An fd with nothing to read is in the executor's epoll set and wakes nothing: the executor
/// sleeps until its deadline.
fn an_idle_fd_does_not_wake_the_executor(mut executor: impl Executor + 'static) {
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

    let wakeups = wakeups_of_an_idle_window(&mut executor);
    assert_eq!(runs.load(Ordering::Relaxed), 0);
    assert!(wakeups <= workers(&executor), "{wakeups} wake-ups");
}
each_executor!(an_idle_fd_does_not_wake_the_executor);

/// The node leaves its one datagram unread on its first run: the fd is still readable, so it
/// runs again at once, reads it, and then, the fd drained, never again: the executor then
/// sleeps as it does with nothing to read.
fn an_undrained_fd_runs_the_node_again_until_it_reads(mut executor: impl Executor + 'static) {
    let ctx = Context::new();
    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let (runs, read) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (run_count, read_count, input) = (runs.clone(), read.clone(), socket.clone());
    let stop = executor.stop_handle();
    driver
        .execute(Trigger::readable(socket), move |_| {
            if run_count.fetch_add(1, Ordering::Relaxed) > 0 {
                read_count.fetch_add(drain(&input), Ordering::Relaxed);
                stop.stop();
            }
        })
        .unwrap();
    executor.add(driver).unwrap();

    device.send(b"one").unwrap();
    spin_until_stopped(&mut executor);
    // A window: a run or a wake-up after the fd was drained would come at once.
    let drained = wakeups_of_an_idle_window(&mut executor);
    assert_eq!(read.load(Ordering::Relaxed), 1);
    assert_eq!(runs.load(Ordering::Relaxed), 2);
    assert!(
        drained <= workers(&executor),
        "{drained} wake-ups after the drain"
    );
}
each_executor!(an_undrained_fd_runs_the_node_again_until_it_reads);

/// The fd stays readable while the node works before reading it. A thread-pool leader waiting
/// meanwhile is not woken by it over and over, and the node is not run again for data it
/// drained.
fn a_slow_driver_runs_once_for_what_it_drains(mut executor: impl Executor + 'static) {
    let ctx = Context::new();
    let (device, socket) = device();
    let mut driver = ctx.node("driver").unwrap();
    let (runs, read) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (run_count, read_count, input) = (runs.clone(), read.clone(), socket.clone());
    let stop = executor.stop_handle();
    driver
        .execute(Trigger::readable(socket), move |_| {
            run_count.fetch_add(1, Ordering::Relaxed);
            thread::sleep(WORK);
            read_count.fetch_add(drain(&input), Ordering::Relaxed);
            stop.stop();
        })
        .unwrap();
    executor.add(driver).unwrap();

    device.send(b"scan").unwrap();
    spin_until_stopped(&mut executor);
    // Whatever the load, the spin has two things to wake for: the datagram, and the stop
    // (which wakes each worker at most once). A leader woken by the readable fd while the node
    // works would count one wake-up per pass, thousands in the work's 50 ms.
    let during_the_run = executor.stats().wakeups;
    assert!(
        during_the_run <= 1 + workers(&executor),
        "{during_the_run} wake-ups"
    );
    // A window: a run for the drained datagram would come at once.
    executor.spin_for(SETTLE).unwrap();
    assert_eq!(read.load(Ordering::Relaxed), 1);
    assert_eq!(runs.load(Ordering::Relaxed), 1);
}
each_executor!(a_slow_driver_runs_once_for_what_it_drains);

/// Another node feeds itself (each run publishes the sample that triggers its next), so the
/// executor always has work and never sleeps; on its third run, with the executor busy for
/// good, the device sends a frame, and the driver still runs.
fn a_node_that_always_has_work_does_not_starve_a_driver(mut executor: impl Executor) {
    let ctx = Context::new();
    let (device, socket) = device();
    let mut busy = ctx.node("busy").unwrap();
    let work = busy.subscription::<Empty>("work").create().unwrap();
    let more_work = busy.publisher::<Empty>("work").create().unwrap();
    let mut runs = 0;
    busy.execute(Trigger::on(&work), move |_| {
        work.take_all().for_each(drop);
        more_work.publish(Empty::default());
        runs += 1;
        if runs == 3 {
            device.send(b"frame").unwrap();
        }
    })
    .unwrap();
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
    spin_until_stopped(&mut executor);
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
            assert_eq!(node, "/driver");
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
    spin_until_stopped(&mut executor);
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
    let mut executor = WaitSetExecutor::new().unwrap();
    let stop = executor.stop_handle();
    driver
        .execute(Trigger::readable(socket), move |_| {
            tx.send(drain(&input)).unwrap();
            stop.stop();
        })
        .unwrap();
    executor.add(driver).unwrap();
    spin_until_stopped(&mut executor);
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [1]);
}
