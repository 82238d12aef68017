//! The link of a tacto [`Service`](tacto::Service) over shared memory: a server port of the
//! service's `rq/<name>` request-response service, made by
//! [`ShmTransport`](crate::ShmTransport). Clients of other processes on this host reach it.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use iceoryx2::active_request::ActiveRequest;
use iceoryx2::port::notifier::Notifier;
use tacto::RequestId;
use tacto::transport::{LinkError, ServiceLink};

use crate::node::{Ipc, ShmNode};
use crate::request_response::{
    MAX_CLIENTS, MAX_IN_FLIGHT, RequestHeader, RequestResponse, ServerPort, ServiceError,
};
use crate::wake_up::WakeUp;

/// A request received and not answered yet; dropping it tells its client that no answer comes.
type Request = ActiveRequest<Ipc, [u8], RequestHeader, [u8], ()>;

/// The most requests a server link holds (waiting or taken and unanswered): iceoryx2 lets a
/// server borrow [`MAX_IN_FLIGHT`] requests per client, of [`MAX_CLIENTS`] clients.
const MAX_HELD: usize = MAX_CLIENTS * MAX_IN_FLIGHT;

/// A service's server port, with the requests received from it.
///
/// - Requests are moved out of the port into `waiting` when the service looks (`take_request`,
///   `pending`, a wake-up), each still in its slot; `take_request` copies the bytes out and
///   keeps the request, by id, in `taken` until it is answered: the answer is loaned from it
///   and goes to that client's pending call, which iceoryx2 routes.
/// - Bounded by iceoryx2: a server borrows at most [`MAX_IN_FLIGHT`] requests per client
///   (the client forgets its oldest beyond that, and the server then drops it, see below), so
///   the link holds at most [`MAX_HELD`].
/// - A request whose client gave up (forgot it, or is gone) is dropped, not served: when
///   taken, and from `taken` whenever the port is read, so a request that is never answered
///   (its bytes did not decode, counted by the service) does not stay.
/// - Only a service named in a trigger has a listener, whose fd the executor watches; clients
///   notify only while one exists, so a polled service wakes nothing.
#[derive(Debug)]
pub(crate) struct ShmServiceLink {
    server: ServerPort,
    wake_clients: Notifier<Ipc>,
    wake: OnceLock<WakeUp>,
    held: Mutex<Held>,
    service: RequestResponse,
}

#[derive(Debug, Default)]
struct Held {
    /// Received, not yet taken, oldest first.
    waiting: VecDeque<Request>,
    /// Taken, not yet answered.
    taken: HashMap<RequestId, Request>,
    /// Received since the last drain of the wake-up, by it or by any other look (a
    /// trigger's check of its rule too, which may move a request in before its notification
    /// is drained): the drain announces them, else such a request would wait with no run.
    unannounced: usize,
}

impl ShmServiceLink {
    pub(crate) fn new(
        node: &ShmNode,
        service: &str,
        request_type: &str,
        response_type: &str,
    ) -> Result<ShmServiceLink, ServiceError> {
        let service = RequestResponse::open(node, service, request_type, response_type)?;
        let (server, wake_clients) = service.server()?;
        Ok(ShmServiceLink {
            server,
            wake_clients,
            wake: OnceLock::new(),
            held: Mutex::default(),
            service,
        })
    }

    /// What the link holds, with what waits in the port moved in first; drops the requests
    /// whose clients gave up, so that `pending` counts only those still awaited.
    fn held(&self) -> (MutexGuard<'_, Held>, usize) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.taken.retain(|_, request| request.is_connected());
        held.waiting.retain(Request::is_connected);
        let mut received = 0;
        while held.waiting.len() + held.taken.len() < MAX_HELD {
            // A failed receive reads as "nothing there"; the next look tries again.
            let Ok(Some(request)) = self.server.receive() else {
                break;
            };
            held.waiting.push_back(request);
            received += 1;
        }
        held.unannounced += received;
        (held, received)
    }
}

impl ServiceLink for ShmServiceLink {
    fn take_request(&self) -> Option<(RequestId, Vec<u8>)> {
        let (mut held, _) = self.held();
        let request = held.waiting.pop_front()?;
        let id = request.user_header().id();
        let cdr = request.payload().to_vec();
        // Another request under the same id (a client's sequence reused) replaces the older,
        // whose client then hears that no answer comes.
        held.taken.insert(id, request);
        Some((id, cdr))
    }

    fn pending(&self) -> usize {
        self.held().0.waiting.len()
    }

    fn respond(&self, id: RequestId, cdr: &[u8]) -> Result<(), LinkError> {
        let request = (self.held.lock().unwrap_or_else(PoisonError::into_inner))
            .taken
            .remove(&id)
            .ok_or_else(|| LinkError(format!("no request {id:?} waits for an answer")))?;
        let response = request
            .loan_slice_uninit(cdr.len())
            .map_err(|e| LinkError(format!("cannot loan a response slot: {e:?}")))?;
        response
            .write_from_slice(cdr)
            .send()
            .map_err(|e| LinkError(format!("cannot send the response: {e:?}")))?;
        // Dropped after the send: the client sees the answer before the request's end.
        drop(request);
        if self.service.clients_listen() {
            (self.wake_clients.notify())
                .map_err(|e| LinkError(format!("cannot wake the clients: {e:?}")))?;
        }
        Ok(())
    }

    fn on_data(&self, _wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError> {
        Err(LinkError(
            "a shared-memory service wakes through its fd (ServiceLink::wake_fd)".into(),
        ))
    }

    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        if self.wake.get().is_none() {
            let wake_up = (self.service.request_wake_up()).map_err(|e| LinkError(e.to_string()))?;
            // Two threads asking at once: one listener is kept, the other dropped.
            let _ = self.wake.set(wake_up);
        }
        Ok(self.wake.get().map(|wake| wake.as_fd()))
    }

    fn drain_wake(&self) -> usize {
        // Drained first, then the port read: a request whose notification was drained here
        // was sent before, so it is received now; a later one notifies again.
        if let Some(wake) = self.wake.get() {
            let _ = wake.drain();
        }
        let (mut held, _) = self.held();
        // Those still waiting: a request taken meanwhile needs no run (at worst, an older
        // waiting one makes a run that finds it).
        let arrived = held.unannounced.min(held.waiting.len());
        held.unannounced = 0;
        arrived
    }
}
