//! The bounded queue of a service's requests or of a client's responses.
//!
//! A service and its clients exchange owned messages, each consumed once, so the queue holds
//! them by value (or as CDR bytes under [`LocalDelivery::Serialized`], decoded when taken),
//! not shared like a subscription's samples. It is an [`Input`] like a subscription's inbox, so
//! a [`Trigger`](crate::Trigger) over it works on every executor that runs input triggers.
//!
//! Its lock is a plain mutex, not the priority-inheriting one of the sample path: a blocked
//! [`Client::call`](crate::Client::call) waits on a condition variable paired with it. Every
//! critical section moves one entry or reads a counter; nothing is decoded, freed or called
//! under it.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Instant;

use crate::history::History;
use crate::message::Message;
use crate::service::RequestId;
use crate::subscription::{Input, Listener};
use crate::transport::LinkError;
use crate::transport::intra::LocalDelivery;

/// A request or response as the queue holds it.
pub(crate) enum Payload<T> {
    Value(T),
    /// CDR, decoded by the thread that takes it.
    Serialized(Vec<u8>),
}

impl<T: Message> Payload<T> {
    /// `value` as `delivery` carries it between two endpoints of one process.
    pub(crate) fn new(value: T, delivery: LocalDelivery) -> Result<Self, crate::cdr::EncodeError> {
        match delivery {
            LocalDelivery::Shared => Ok(Payload::Value(value)),
            LocalDelivery::Serialized => crate::cdr::to_vec(&value).map(Payload::Serialized),
        }
    }
}

/// What [`CallQueue::push`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pushed {
    Queued,
    /// A full `KeepAll` queue refused it (counted in `dropped`).
    Refused,
}

pub(crate) struct CallQueue<T> {
    state: Mutex<State<T>>,
    /// Set once, by the executor whose trigger names this queue.
    listener: OnceLock<Arc<dyn Listener>>,
    /// Wakes threads blocked in [`wait_take`](Self::wait_take); notified only while one waits.
    arrived: Condvar,
}

struct State<T> {
    entries: VecDeque<(RequestId, Payload<T>)>,
    history: History,
    /// Entries queued since creation: a change means new arrivals, for triggers.
    arrivals: u64,
    dropped: u64,
    malformed: u64,
    /// Sequence numbers that blocked callers wait for: `take` leaves their entries to them.
    claimed: Vec<i64>,
}

impl<T> fmt::Debug for CallQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("CallQueue")
            .field("len", &state.entries.len())
            .field("history", &state.history)
            .field("dropped", &state.dropped)
            .finish_non_exhaustive()
    }
}

impl<T> CallQueue<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // Nothing panics under this lock; a poisoned state is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Message> CallQueue<T> {
    /// An empty queue; `history` has a capacity of at least 1 (checked by the builders).
    pub(crate) fn new(history: History) -> Self {
        CallQueue {
            state: Mutex::new(State {
                entries: VecDeque::new(),
                history,
                arrivals: 0,
                dropped: 0,
                malformed: 0,
                claimed: Vec::new(),
            }),
            listener: OnceLock::new(),
            arrived: Condvar::new(),
        }
    }

    /// Queues an entry, applying the history's overflow policy: `KeepLast` evicts the oldest
    /// entry, `KeepAll` refuses the new one; either counts one dropped. Then wakes whoever
    /// waits for it: the executor's listener, a blocked caller.
    pub(crate) fn push(&self, id: RequestId, payload: Payload<T>) -> Pushed {
        let (evicted, waiting) = {
            let mut state = self.lock();
            let full = state.entries.len() >= state.history.capacity();
            let evicted = match (full, state.history) {
                (false, _) => None,
                (true, History::KeepLast(_)) => state.entries.pop_front(),
                (true, History::KeepAll { .. }) => {
                    state.dropped += 1;
                    return Pushed::Refused;
                }
            };
            state.dropped += u64::from(evicted.is_some());
            state.entries.push_back((id, payload));
            state.arrivals += 1;
            (evicted, !state.claimed.is_empty())
        };
        // Freed after the lock: a large message must not be freed under it.
        drop(evicted);
        if waiting {
            self.arrived.notify_all();
        }
        if let Some(listener) = self.listener.get() {
            listener.on_sample();
        }
        Pushed::Queued
    }

    /// Takes the oldest entry that no blocked caller waits for.
    pub(crate) fn take(&self) -> Option<(RequestId, T)> {
        loop {
            let (id, payload) = {
                let mut state = self.lock();
                let State {
                    entries, claimed, ..
                } = &mut *state;
                let at = entries
                    .iter()
                    .position(|(id, _)| !claimed.contains(&id.sequence))?;
                entries.remove(at)?
            };
            if let Some(value) = self.decode(payload) {
                return Some((id, value));
            }
        }
    }

    /// Blocks until the entry of `sequence` arrives and takes it, or until `deadline`
    /// (`None`: no deadline). `Err(true)` if the entry arrived but did not decode.
    pub(crate) fn wait_take(&self, sequence: i64, deadline: Option<Instant>) -> Result<T, bool> {
        let mut state = self.lock();
        state.claimed.push(sequence);
        let found = loop {
            if let Some(at) = (state.entries.iter()).position(|(id, _)| id.sequence == sequence) {
                break state.entries.remove(at);
            }
            let now = Instant::now();
            state = match deadline {
                Some(deadline) if deadline <= now => break None,
                Some(deadline) => {
                    (self.arrived)
                        .wait_timeout(state, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => (self.arrived)
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        };
        state.claimed.retain(|&claimed| claimed != sequence);
        drop(state);
        let (_, payload) = found.ok_or(false)?;
        self.decode(payload).ok_or(true)
    }

    /// The value of a taken payload; `None` if its bytes do not decode, which is counted.
    fn decode(&self, payload: Payload<T>) -> Option<T> {
        match payload {
            Payload::Value(value) => Some(value),
            Payload::Serialized(bytes) => match crate::cdr::from_bytes(&bytes) {
                Ok(value) => Some(value),
                Err(_) => {
                    self.lock().malformed += 1;
                    None
                }
            },
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    pub(crate) fn malformed(&self) -> u64 {
        self.lock().malformed
    }
}

impl<T: Message> Input for CallQueue<T> {
    fn unread(&self) -> usize {
        self.len()
    }

    fn arrivals(&self) -> u64 {
        self.lock().arrivals
    }

    fn dropped(&self) -> u64 {
        CallQueue::dropped(self)
    }

    fn is_attached(&self) -> bool {
        self.listener.get().is_some()
    }

    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        Ok(self.listener.set(listener).is_ok())
    }

    fn freeze(&self) {
        // Never called: the LET executor, the only one that freezes inputs, refuses nodes
        // with services or clients (see `LetExecutor::add`), so nothing is hidden here.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::std_msgs::String as Text;

    fn id(sequence: i64) -> RequestId {
        RequestId {
            client: 1,
            sequence,
        }
    }

    fn text(data: &str) -> Payload<Text> {
        Payload::new(Text { data: data.into() }, LocalDelivery::Serialized).unwrap()
    }

    #[test]
    fn undecodable_bytes_are_counted_and_the_next_entry_is_taken() {
        let queue = CallQueue::<Text>::new(History::KeepLast(10));
        queue.push(
            id(1),
            Payload::Serialized(vec![0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff]),
        );
        queue.push(id(2), text("fine"));
        let (taken, value) = queue.take().unwrap();
        assert_eq!((taken, value.data.as_str()), (id(2), "fine"));
        assert_eq!(queue.malformed(), 1);

        queue.push(id(3), Payload::Serialized(vec![1, 2, 3]));
        assert_eq!(queue.wait_take(3, None).map(|t| t.data), Err(true));
        assert_eq!(queue.malformed(), 2);
    }

    #[test]
    fn take_leaves_an_entry_a_blocked_caller_waits_for() {
        let queue = Arc::new(CallQueue::<Text>::new(History::KeepLast(10)));
        let waiter = {
            let queue = queue.clone();
            std::thread::spawn(move || queue.wait_take(2, None).unwrap().data)
        };
        // Until the waiter has claimed sequence 2, `take` could still get it: wait for that.
        while queue.lock().claimed.is_empty() {
            std::thread::yield_now();
        }
        queue.push(id(2), text("mine"));
        queue.push(id(3), text("yours"));
        assert_eq!(queue.take().map(|(i, _)| i), Some(id(3)));
        assert_eq!(waiter.join().unwrap(), "mine");
    }
}
