//! The thread that serves subscribers joining a transient-local publisher that went idle.
//!
//! iceoryx2 hands a publisher's history (its last samples, the service's `history_size`) to a
//! new subscriber only when the publisher updates its connections, which it does when it
//! loans or sends. A `/tf_static` or `/map` publisher sends once and stays idle, so a
//! subscriber started after would wait for ever. While a process has transient-local
//! publishers on [`ShmTransport`](crate::ShmTransport), one thread updates their connections
//! every [`PERIOD`]: a late joiner gets their history within a period, and is woken for it.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use iceoryx2::identifiers::UniqueSubscriberId;

use crate::publisher::Port;

/// How often the thread looks for subscribers that joined: how long a late joiner may wait
/// for the history of an idle publisher.
pub(crate) const PERIOD: Duration = Duration::from_millis(50);

/// The transient-local publisher ports of one transport, and whether their thread runs.
///
/// Bounded by the live ports (a topic has at most `MAX_PUBLISHERS` on the host); a dropped
/// port's entry goes at the next pass, and the thread ends with the last one.
#[derive(Debug, Default)]
pub(crate) struct LateJoiners {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Each port, with the subscribers it had at the last pass.
    ports: Vec<(Weak<Port>, Vec<UniqueSubscriberId>)>,
    running: bool,
}

impl LateJoiners {
    /// Serves the late joiners of `port` from now on, starting the thread if it is not
    /// running; fails only if the thread cannot be started.
    pub(crate) fn watch(self: &Arc<Self>, port: &Arc<Port>) -> std::io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.ports.push((Arc::downgrade(port), Vec::new()));
        if !state.running {
            let this = self.clone();
            std::thread::Builder::new()
                .name("tacto-shm-latch".into())
                .spawn(move || this.run())?;
            state.running = true;
        }
        Ok(())
    }

    fn run(&self) {
        loop {
            std::thread::sleep(PERIOD);
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.ports.retain(|(port, _)| port.strong_count() > 0);
            if state.ports.is_empty() {
                state.running = false;
                return;
            }
            for (port, known) in &mut state.ports {
                // A failed connection is retried at the next pass, as the next send would.
                if let Some(port) = port.upgrade() {
                    let _ = port.connect_late_joiners(known);
                }
            }
        }
    }
}
