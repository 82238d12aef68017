//! The link of a tacto [`Client`](tacto::Client) over shared memory: a client port of the
//! service's `rq/<name>` request-response service, made by
//! [`ShmTransport`](crate::ShmTransport), so that a service in another process of this host
//! answers it.

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use iceoryx2::config::Config;
use iceoryx2::pending_response::PendingResponse;
use iceoryx2::port::notifier::Notifier;
use tacto::transport::{ClientLink, LinkError};

use crate::node::{Ipc, ShmNode};
use crate::request_response::{
    ClientPort, MAX_IN_FLIGHT, RequestHeader, RequestResponse, ServiceError,
};
use crate::response_thread::{self, Watch, Woken};
use crate::wake_up::WakeUp;

/// A request sent and not answered yet; dropping it tells the server not to answer.
type Pending = PendingResponse<Ipc, [u8], RequestHeader, [u8], ()>;

/// How long a count of live servers stands: counting lists the host's nodes (file-system
/// calls), and `is_ready` is asked before every request.
const LIVE_SERVERS_FOR: Duration = Duration::from_millis(100);

/// Where a client's responses go: the tacto client's queue, by sequence number.
type Deliver = Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>;

/// A client port of a service, its requests in flight, and the wake-up its responses bring.
///
/// - `send` loans a slot of the request's length, copies the CDR bytes in (one copy), puts the
///   client port's id and the tacto sequence number in the [`RequestHeader`], sends, and keeps
///   the pending response under that sequence number; then it wakes the servers if one
///   listens.
/// - **In flight**: at most [`MAX_IN_FLIGHT`]. A request beyond makes the link forget its
///   oldest pending one (its call times out, as a request dropped by a `KeepLast` queue): a
///   client whose service never answers is never stuck. A request the server cannot take (its
///   buffer for this client full) is refused: `send` fails.
/// - **Responses** arrive on the process's response thread ([`response_thread`]), woken by
///   the `rr/<name>` event that every server notifies after answering: the link receives what
///   its pending responses got, hands each to `deliver` with its sequence number, and forgets
///   those answered or whose server is gone (a killed server's calls time out).
/// - **Ready** while a server's process is alive: a server killed with `kill -9` stays
///   listed on the service until a dead-node cleanup, but is not counted (the count stands
///   for [`LIVE_SERVERS_FOR`]), so requests fail at once with "no service" rather than wait
///   for their timeout.
#[derive(Debug)]
pub(crate) struct ShmClientLink {
    // Before `responses`: leaves the epoll set before the wake-up's fd is closed.
    _watch: Watch,
    wake_servers: Notifier<Ipc>,
    responses: Arc<Responses>,
    service: RequestResponse,
    config: Config,
    live_servers: Mutex<Option<LiveServers>>,
}

/// The live servers last counted.
#[derive(Debug, Clone, Copy)]
struct LiveServers {
    at: Instant,
    /// The servers listed then, alive or not.
    listed: usize,
    live: usize,
}

/// The response side of a client link: what the response thread wakes.
struct Responses {
    port: ClientPort,
    /// The client port's id on the wire ([`RequestHeader::client`]).
    id: u64,
    /// Sent, not yet answered, oldest first.
    pending: Mutex<VecDeque<(i64, Pending)>>,
    wake: WakeUp,
    deliver: Deliver,
}

impl std::fmt::Debug for Responses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Responses")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl ShmClientLink {
    pub(crate) fn new(
        node: &ShmNode,
        service: &str,
        request_type: &str,
        response_type: &str,
        deliver: Deliver,
    ) -> Result<ShmClientLink, LinkError> {
        let error = |e: ServiceError| LinkError(e.to_string());
        let service =
            RequestResponse::open(node, service, request_type, response_type).map_err(error)?;
        let (port, wake_servers) = service.client().map_err(error)?;
        let wake = service.response_wake_up().map_err(error)?;
        let unique = port.id().value();
        let responses = Arc::new(Responses {
            // Folded to the 64 bits of a tacto RequestId's client, the top bit set: the
            // serving process's own clients count from 1 and never reach it.
            id: (unique as u64 ^ (unique >> 64) as u64) | 1 << 63,
            port,
            pending: Mutex::default(),
            wake,
            deliver,
        });
        let woken: Arc<dyn Woken> = responses.clone();
        let watch = response_thread::watch(&woken)?;
        Ok(ShmClientLink {
            _watch: watch,
            wake_servers,
            responses,
            service,
            config: node.config().clone(),
            live_servers: Mutex::new(None),
        })
    }
}

impl Woken for Responses {
    fn fd(&self) -> RawFd {
        self.wake.as_raw_fd()
    }

    fn collect(&self) {
        // Drained first, then the pending responses read: a response whose notification was
        // drained here was sent before, so it is received now; a later one notifies again.
        let _ = self.wake.drain();
        let mut answered = Vec::new();
        {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            pending.retain(|(sequence, pending)| {
                // Nothing yet: kept while a server may still answer. A server answers, then
                // ends the request: once it is seen ended, the answer is there if one came.
                let received = match pending.receive() {
                    Ok(None) if pending.is_connected() => return true,
                    Ok(None) => pending.receive(),
                    received => received,
                };
                if let Ok(Some(response)) = received {
                    answered.push((*sequence, response.payload().to_vec()));
                }
                false
            });
        }
        // Outside the lock: the tacto client's queue takes its own.
        for (sequence, cdr) in answered {
            (self.deliver)(sequence, cdr);
        }
    }
}

impl ClientLink for ShmClientLink {
    fn is_ready(&self) -> bool {
        let listed = self.service.servers();
        if listed == 0 {
            return false;
        }
        let mut counted = (self.live_servers.lock()).unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        match *counted {
            // A server that came or went changes the listing: counted again at once.
            Some(count) if count.listed == listed && now - count.at < LIVE_SERVERS_FOR => {
                count.live > 0
            }
            _ => {
                let live = self.service.live_servers(&self.config);
                *counted = Some(LiveServers {
                    at: now,
                    listed,
                    live,
                });
                live > 0
            }
        }
    }

    fn in_flight_limit(&self) -> Option<usize> {
        Some(MAX_IN_FLIGHT)
    }

    fn send(&self, sequence: i64, cdr: &[u8]) -> Result<(), LinkError> {
        let responses = &self.responses;
        {
            // Held from the send until the pending response is kept, so that the response
            // thread, which reads under it, cannot miss the answer.
            let mut pending = (responses.pending.lock()).unwrap_or_else(PoisonError::into_inner);
            pending.retain(|(_, response)| response.is_connected() || response.has_response());
            if pending.len() >= MAX_IN_FLIGHT {
                pending.pop_front();
            }
            let mut request = (responses.port.loan_slice_uninit(cdr.len()))
                .map_err(|e| LinkError(format!("cannot loan a request slot: {e:?}")))?;
            *request.user_header_mut() = RequestHeader {
                client: responses.id,
                sequence,
            };
            let sent = (request.write_from_slice(cdr).send())
                .map_err(|e| LinkError(format!("cannot send the request: {e:?}")))?;
            if sent.number_of_server_connections() == 0 {
                return Err(LinkError(format!(
                    "no server of {} took the request (its queue for this client is full, or \
                     it left)",
                    self.service.name
                )));
            }
            pending.push_back((sequence, sent));
        }
        if self.service.servers_listen() {
            (self.wake_servers.notify())
                .map_err(|e| LinkError(format!("cannot wake the server: {e:?}")))?;
        }
        Ok(())
    }
}
