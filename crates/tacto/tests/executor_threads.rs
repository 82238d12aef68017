//! Executors on threads of their own: messages between them, stopping, CPU affinity, SCHED_FIFO.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use tacto::msg::std_msgs::String as Text;
use tacto::{
    CallbackExecutor, Context, Executor, ExecutorThread, ExecutorThreadBuilder, History, JoinError,
    SpawnError, SpinOutcome, Trigger, WaitSetExecutor,
};

/// Long enough never to fire on a slow, loaded machine; reaching it means the test failed.
const PATIENCE: Duration = Duration::from_secs(30);

/// Runs `probe` from a node on a thread built by `builder` and returns what it saw first.
fn observe<T: Send + 'static>(
    builder: ExecutorThreadBuilder,
    mut probe: impl FnMut() -> T + Send + 'static,
) -> T {
    let ctx = Context::new();
    let mut node = ctx.node("probe").unwrap();
    let (tx, rx) = mpsc::channel();
    node.wall_timer(Duration::from_millis(1), move |_| {
        let _ = tx.send(probe());
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let handle = builder.spawn(executor).unwrap();
    let seen = rx.recv_timeout(PATIENCE).expect("the node never ran");
    handle.stop();
    let (_, outcome) = handle.join().unwrap();
    assert_eq!(outcome.unwrap(), SpinOutcome::Stopped);
    seen
}

/// Field `n` (1-based, as in proc(5)) of `/proc/thread-self/stat`.
fn thread_stat_field(n: usize) -> i64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    // The name in parentheses may contain spaces; fields 3 and on follow the last ')'.
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    after_name.split(' ').nth(n - 3).unwrap().parse().unwrap()
}

/// Whether this process may put a thread under SCHED_FIFO at `priority`, tried on a scratch
/// thread so the test's own thread keeps its policy.
fn fifo_permitted(priority: u8) -> bool {
    std::thread::spawn(move || {
        let param = libc::sched_param {
            sched_priority: priority.into(),
        };
        // SAFETY: `pthread_self()` is this live thread and `param` outlives the call.
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) == 0 }
    })
    .join()
    .unwrap()
}

#[test]
fn two_executors_on_two_threads_exchange_messages_and_stop_cleanly() {
    let ctx = Context::new();
    let mut talker = ctx.node("talker").unwrap();
    let say = talker.publisher::<Text>("chatter").create().unwrap();
    let mut count = 0;
    talker
        .wall_timer(Duration::from_millis(1), move |_| {
            count += 1;
            say.publish(Text {
                data: count.to_string(),
            });
        })
        .unwrap();
    let mut listener = ctx.node("listener").unwrap();
    // Kept until taken, however late the listener's thread first runs.
    let heard = listener
        .subscription::<Text>("chatter")
        .history(History::KeepAll { max: 1000 })
        .create()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    listener
        .execute(Trigger::on(&heard), move |_| {
            let thread = std::thread::current().name().map(str::to_owned);
            for sample in heard.take_all() {
                let _ = tx.send((sample.data.clone(), thread.clone()));
            }
        })
        .unwrap();

    let mut a = CallbackExecutor::new().unwrap();
    a.add(talker).unwrap();
    // One picked at run time, boxed, runs the same way.
    let mut b: Box<dyn Executor> = Box::new(WaitSetExecutor::new().unwrap());
    b.add(listener).unwrap();
    let a = ExecutorThread::builder()
        .name("talker_thread")
        .spawn(a)
        .unwrap();
    let b = ExecutorThread::builder()
        .name("listener_thread")
        .spawn(b)
        .unwrap();

    let first_three: Vec<_> = (0..3)
        .map(|_| {
            rx.recv_timeout(PATIENCE)
                .expect("the listener heard nothing")
        })
        .collect();
    for (i, (data, thread)) in first_three.into_iter().enumerate() {
        assert_eq!(data, (i + 1).to_string());
        assert_eq!(thread.as_deref(), Some("listener_thread"));
    }
    a.stop();
    b.stop();
    let (a, a_outcome) = a.join().unwrap();
    let (b, b_outcome) = b.join().unwrap();
    assert_eq!(a_outcome.unwrap(), SpinOutcome::Stopped);
    assert_eq!(b_outcome.unwrap(), SpinOutcome::Stopped);
    assert!(a.stats().executions >= 3);
    assert!(b.stats().executions >= 1);
}

#[test]
fn join_returns_the_executor_with_its_stats() {
    let ctx = Context::new();
    let mut node = ctx.node("ticker").unwrap();
    let (tx, rx) = mpsc::channel();
    node.wall_timer(Duration::from_millis(1), move |_| {
        let _ = tx.send(());
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let handle = ExecutorThread::builder().spawn(executor).unwrap();
    for _ in 0..5 {
        rx.recv_timeout(PATIENCE).expect("the timer never fired");
    }
    handle.stop();
    let (executor, outcome) = handle.join().unwrap();
    assert_eq!(outcome.unwrap(), SpinOutcome::Stopped);
    assert!(executor.stats().executions >= 5);
    assert!(executor.stats().wakeups >= 1);
}

#[test]
fn dropping_the_handle_stops_the_executor_and_waits_for_its_thread() {
    let ctx = Context::new();
    let mut node = ctx.node("holder").unwrap();
    let held = Arc::new(());
    let in_node = held.clone();
    let (tx, rx) = mpsc::channel();
    node.wall_timer(Duration::from_millis(1), move |_| {
        let _ = tx.send(Arc::strong_count(&in_node));
    })
    .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let handle = ExecutorThread::builder().spawn(executor).unwrap();
    rx.recv_timeout(PATIENCE).expect("the node never ran");

    drop(handle);
    // The executor, its node and the node's clone of `held` are gone.
    assert_eq!(Arc::strong_count(&held), 1);
}

#[test]
fn a_panicking_node_makes_join_report_the_panic() {
    let ctx = Context::new();
    let mut node = ctx.node("fragile").unwrap();
    node.wall_timer(Duration::from_millis(1), |_| panic!("sensor on fire"))
        .unwrap();
    let mut executor = WaitSetExecutor::new().unwrap();
    executor.add(node).unwrap();
    let handle = ExecutorThread::builder()
        .name("fragile_thread")
        .spawn(executor)
        .unwrap();

    let error = handle.join().unwrap_err();
    assert_eq!(
        error,
        JoinError::Panicked {
            thread: "fragile_thread".into(),
            message: "sensor on fire".into(),
        }
    );
}

#[test]
fn the_thread_name_is_the_one_the_os_shows() {
    let comm = observe(ExecutorThread::builder().name("hot_path"), || {
        std::fs::read_to_string("/proc/thread-self/comm").unwrap()
    });
    assert_eq!(comm.trim_end(), "hot_path");
}

#[test]
fn a_thread_name_linux_would_cut_or_cannot_carry_is_refused() {
    let executor = || WaitSetExecutor::new().unwrap();
    let long = ExecutorThread::builder()
        .name("sixteen_bytes_xx")
        .spawn(executor());
    assert!(matches!(long, Err(SpawnError::NameTooLong(name)) if name == "sixteen_bytes_xx"));
    let nul = ExecutorThread::builder().name("a\0b").spawn(executor());
    assert!(matches!(nul, Err(SpawnError::NameContainsNul(_))));
}

#[test]
fn affinity_to_cpu_0_is_in_force_when_nodes_run() {
    let cpus = observe(ExecutorThread::builder().cpus(&[0]), || {
        rustix::thread::sched_getaffinity(None).unwrap()
    });
    assert!(cpus.is_set(0));
    assert_eq!(cpus.count(), 1);
}

#[test]
fn an_empty_cpu_set_is_refused() {
    let refused = ExecutorThread::builder()
        .cpus(&[])
        .spawn(WaitSetExecutor::new().unwrap());
    assert!(matches!(refused, Err(SpawnError::NoCpus)));
}

#[test]
fn a_cpu_beyond_what_a_cpu_set_holds_is_refused() {
    let limit = rustix::thread::CpuSet::MAX_CPU;
    let refused = ExecutorThread::builder()
        .cpus(&[0, limit])
        .spawn(WaitSetExecutor::new().unwrap());
    assert!(matches!(
        refused,
        Err(SpawnError::CpuOutOfRange { cpu, limit: l }) if cpu == limit && l == limit
    ));
}

#[test]
fn cpus_the_machine_lacks_are_named_by_spawn() {
    // The highest CPU a set can hold: absent on any machine with fewer CPUs.
    let absent = rustix::thread::CpuSet::MAX_CPU - 1;
    let allowed = rustix::thread::sched_getaffinity(None).unwrap();
    let present = (0..absent).find(|&cpu| allowed.is_set(cpu)).unwrap();
    let executor = || WaitSetExecutor::new().unwrap();

    let only_absent = ExecutorThread::builder().cpus(&[absent]).spawn(executor());
    assert!(matches!(only_absent, Err(SpawnError::CpusUnavailable(cpus)) if cpus == [absent]));
    // The kernel would silently run the thread on `present` alone.
    let partly_absent = ExecutorThread::builder()
        .cpus(&[present, absent])
        .spawn(executor());
    assert!(matches!(partly_absent, Err(SpawnError::CpusUnavailable(cpus)) if cpus == [absent]));
}

#[test]
fn fifo_priority_is_in_force_where_permitted_and_a_clear_error_where_not() {
    let priority = 10;
    let builder = ExecutorThread::builder().fifo_priority(priority);
    if fifo_permitted(priority) {
        let (policy, rt_priority) =
            observe(builder, || (thread_stat_field(41), thread_stat_field(40)));
        assert_eq!(policy, i64::from(libc::SCHED_FIFO));
        assert_eq!(rt_priority, i64::from(priority));
    } else {
        let error = builder.spawn(WaitSetExecutor::new().unwrap()).unwrap_err();
        assert!(matches!(error, SpawnError::PriorityNotPermitted(10)));
        assert!(error.to_string().contains("CAP_SYS_NICE"));
    }
}

#[test]
fn fifo_priorities_outside_1_to_99_are_refused() {
    for priority in [0, 100] {
        let refused = ExecutorThread::builder()
            .fifo_priority(priority)
            .spawn(WaitSetExecutor::new().unwrap());
        assert!(matches!(refused, Err(SpawnError::PriorityOutOfRange(p)) if p == priority));
    }
}
