//! Clients: send requests to a service and get its responses, and only those to their own
//! requests.
//!
//! Two ways to call: [`Client::call`] blocks until the response (for plain code and tests),
//! and [`Client::send_request`] with [`Client::take_response`] never blocks, for a node that a
//! [`Trigger::on_response`](crate::Trigger::on_response) runs when responses arrive.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::call_queue::{CallQueue, Payload, Pushed};
use crate::cdr::EncodeError;
use crate::context::TopicError;
use crate::exchange::{Exchange, ExchangeError};
use crate::executor::running;
use crate::history::History;
use crate::node::{Node, remember};
use crate::service::{RequestId, ServiceType};
use crate::subscription::Input;
use crate::transport::{ClientLink, LinkError, RosType};

/// Sends requests to one service name and receives the responses to them.
///
/// Create one with [`Node::client`]. Responses wait in a bounded queue (see
/// [`ClientBuilder::history`]); a response reaches only the client whose request it answers.
///
/// # Examples
/// A node that sends a request each period and takes the responses when they trigger it:
/// ```
/// # use tacto::serde::{Deserialize, Serialize};
/// # use tacto::{Message, ServiceType};
/// # #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// # #[serde(crate = "tacto::serde")]
/// # pub struct Req { pub a: i64, pub b: i64 }
/// # impl Message for Req { const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request"; }
/// # #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// # #[serde(crate = "tacto::serde")]
/// # pub struct Resp { pub sum: i64 }
/// # impl Message for Resp { const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response"; }
/// # pub struct AddTwoInts;
/// # impl ServiceType for AddTwoInts {
/// #     const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
/// #     type Request = Req;
/// #     type Response = Resp;
/// # }
/// use std::sync::Arc;
/// use std::time::Duration;
/// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// let stop = executor.stop_handle();
/// let mut server = ctx.node("adder").unwrap();
/// server.service::<AddTwoInts>("add").callback(|r| Resp { sum: r.a + r.b }).unwrap();
///
/// let mut node = ctx.node("asker").unwrap();
/// let asking = Arc::new(node.client::<AddTwoInts>("add").create().unwrap());
/// let answers = asking.clone();
/// node.execute(Trigger::every(Duration::from_millis(1)), move |_| {
///     asking.send_request(Req { a: 1, b: 2 }).unwrap();
/// })
/// .unwrap();
/// node.execute(Trigger::on_response(&answers), move |_| {
///     while let Some((_, response)) = answers.take_response() {
///         assert_eq!(response.sum, 3);
///         stop.stop();
///     }
/// })
/// .unwrap();
///
/// executor.add(server).unwrap();
/// executor.add(node).unwrap();
/// executor.spin_for(Duration::from_secs(30)).unwrap();
/// ```
pub struct Client<S: ServiceType> {
    id: u64,
    next_sequence: AtomicI64,
    responses: Arc<CallQueue<S::Response>>,
    exchange: Arc<Exchange<S>>,
    /// The way to a service in another process, if the context has a transport; its
    /// responses come into `responses`.
    remote: Option<Box<dyn ClientLink>>,
}

impl<S: ServiceType> fmt::Debug for Client<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("service", &self.exchange.name())
            .field("type", &S::TYPE_NAME)
            .field("id", &self.id)
            .finish()
    }
}

impl<S: ServiceType> Client<S> {
    /// Sends `request` to the service and returns its id: to the service of this context if
    /// one exists, else to a service of another process that the transport has matched. The
    /// response comes later, through [`take_response`](Self::take_response) (a
    /// [`Trigger::on_response`](crate::Trigger::on_response) runs code when it does). Never
    /// blocks.
    pub fn send_request(&self, request: S::Request) -> Result<RequestId, SendRequestError> {
        let Some(service) = self.exchange.service() else {
            return self.send_remote_request(&request);
        };
        let payload = Payload::new(request, self.exchange.delivery())?;
        let id = self.next_id();
        match service.push(id, payload) {
            Pushed::Queued => Ok(id),
            Pushed::Refused => Err(SendRequestError::Full(self.exchange.name().to_owned())),
        }
    }

    /// The most requests to a service in another process that wait for their responses at
    /// once before the transport forgets the oldest ([`ClientLink::in_flight_limit`]); `None`
    /// without such a bound.
    pub(crate) fn in_flight_limit(&self) -> Option<usize> {
        self.remote
            .as_deref()
            .and_then(|remote| remote.in_flight_limit())
    }

    fn next_id(&self) -> RequestId {
        RequestId {
            client: self.id,
            sequence: self.next_sequence.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Sends `request` to a service in another process, if one is matched.
    fn send_remote_request(&self, request: &S::Request) -> Result<RequestId, SendRequestError> {
        let no_service = || SendRequestError::NoService(self.exchange.name().to_owned());
        let remote = (self.remote.as_deref())
            .filter(|remote| remote.is_ready())
            .ok_or_else(no_service)?;
        let cdr = crate::cdr::to_vec(request)?;
        let id = self.next_id();
        remote
            .send(id.sequence, &cdr)
            .map_err(|error| SendRequestError::Link {
                service: self.exchange.name().to_owned(),
                error,
            })?;
        Ok(id)
    }

    /// Takes the oldest response waiting, with the id of the request it answers.
    ///
    /// A response that arrived serialized and does not decode is discarded and counted
    /// ([`malformed_responses`](Self::malformed_responses)); the next one is returned instead.
    /// Responses that a [`call`](Self::call) waits for on another thread are left to it.
    pub fn take_response(&self) -> Option<(RequestId, S::Response)> {
        self.responses.take()
    }

    /// Sends `request` and blocks until its response arrives, at most `timeout` in all, the
    /// wait for a service included.
    ///
    /// For plain code and tests. Never call it from a node's code on a single-threaded
    /// executor (wait-set, callback, events) that also runs the service: the service could
    /// only answer once the call returned. That case is refused at once
    /// ([`CallError::WouldDeadlock`]) as soon as the service has taken a request on that
    /// executor once; use [`send_request`](Self::send_request) there, or a
    /// [`ThreadPoolExecutor`](crate::ThreadPoolExecutor) with the service in another callback
    /// group. A `timeout` too long for the clock (such as `Duration::MAX`) waits for ever.
    pub fn call(&self, request: S::Request, timeout: Duration) -> Result<S::Response, CallError> {
        let deadline = Instant::now().checked_add(timeout);
        let here = running::current();
        if here != 0 && here == self.exchange.served_by() {
            return Err(CallError::WouldDeadlock(self.exchange.name().to_owned()));
        }
        if !self.wait_for_service_until(deadline) {
            return Err(CallError::NoService(self.exchange.name().to_owned()));
        }
        let id = self.send_request(request)?;
        self.responses
            .wait_take(id.sequence, deadline)
            .map_err(|malformed| match malformed {
                true => CallError::Malformed(self.exchange.name().to_owned()),
                false => CallError::Timeout(self.exchange.name().to_owned()),
            })
    }

    /// True if a service of this name exists now: in this context, or, with a transport, in
    /// another process and matched.
    pub fn service_is_ready(&self) -> bool {
        self.exchange.service().is_some() || self.remote_is_ready()
    }

    fn remote_is_ready(&self) -> bool {
        self.remote
            .as_deref()
            .is_some_and(|remote| remote.is_ready())
    }

    /// Blocks until a service of this name exists (see
    /// [`service_is_ready`](Self::service_is_ready)), at most `timeout`; false if none came.
    pub fn wait_for_service(&self, timeout: Duration) -> bool {
        self.wait_for_service_until(Instant::now().checked_add(timeout))
    }

    fn wait_for_service_until(&self, deadline: Option<Instant>) -> bool {
        if self.remote.is_none() {
            return self.exchange.wait_for_service(deadline);
        }
        // A remote service's match is not signalled: look every REMOTE_POLL, waiting for a
        // local one meanwhile.
        const REMOTE_POLL: Duration = Duration::from_millis(10);
        loop {
            if self.remote_is_ready() {
                return true;
            }
            let now = Instant::now();
            let slice = now.checked_add(REMOTE_POLL);
            let until = match (deadline, slice) {
                (Some(deadline), _) if deadline <= now => return false,
                (Some(deadline), Some(slice)) => deadline.min(slice),
                (deadline, slice) => deadline.or(slice).unwrap_or(now),
            };
            if self.exchange.wait_for_service(Some(until)) {
                return true;
            }
        }
    }

    /// This client's id, the [`RequestId::client`] of its requests and their responses.
    /// Requests to another process carry the transport's id for the client on the wire (DDS:
    /// its request writer's instance handle); their responses come back under this one.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The number of responses waiting.
    pub fn pending(&self) -> usize {
        self.responses.len()
    }

    /// Responses lost to the queue's policy since creation (see
    /// [`ClientBuilder::history`]).
    pub fn dropped_responses(&self) -> u64 {
        self.responses.dropped()
    }

    /// Serialized responses that did not decode, since creation.
    pub fn malformed_responses(&self) -> u64 {
        self.responses.malformed()
    }

    /// The service's resolved name, e.g. `/add_two_ints`.
    pub fn service_name(&self) -> &str {
        self.exchange.name()
    }

    pub(crate) fn input(&self) -> Arc<dyn Input> {
        self.responses.clone()
    }
}

impl<S: ServiceType> Drop for Client<S> {
    fn drop(&mut self) {
        // Responses still on their way find no queue and are dropped.
        self.exchange.leave(self.id);
    }
}

/// Why a request could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SendRequestError {
    /// No service of this name exists now (see [`Client::wait_for_service`]).
    #[error("no service {0} exists")]
    NoService(String),
    /// The service's `KeepAll` request queue is full: it keeps every request it holds and
    /// refuses new ones until it takes some.
    #[error("service {0}'s request queue is full")]
    Full(String),
    /// The request had to be serialized and could not be: its type uses a serde construct
    /// without a CDR form.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The transport could not send the request to the service in another process.
    #[error("service {service}: the transport could not send the request: {error}")]
    Link {
        /// The resolved service name.
        service: String,
        /// What the transport said.
        error: LinkError,
    },
}

/// Why a blocking [`Client::call`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No service of this name appeared before the timeout.
    #[error("no service {0} appeared before the timeout")]
    NoService(String),
    /// The request was sent, and no response came before the timeout: the service is slow,
    /// dropped the request from its full queue, or went away.
    #[error("service {0} did not answer before the timeout")]
    Timeout(String),
    /// The call comes from code of a single-threaded executor that also runs the service,
    /// which could only answer after the call returned.
    #[error(
        "a blocking call to service {0} from code of the executor that runs the service would \
         never be answered: use send_request and a response trigger"
    )]
    WouldDeadlock(String),
    /// The request could not be sent.
    #[error(transparent)]
    Send(#[from] SendRequestError),
    /// The response arrived serialized and did not decode.
    #[error("the response of service {0} did not decode")]
    Malformed(String),
}

/// Why a client could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientCreateError {
    /// The name breaks the ROS 2 naming rules (those of topics) or is too long.
    #[error(transparent)]
    Name(TopicError),
    /// The name is in use for another service type.
    #[error("service {service} has type {existing}, not {requested}")]
    TypeMismatch {
        /// The resolved service name.
        service: String,
        /// The type already in use.
        existing: &'static str,
        /// The type asked for.
        requested: &'static str,
    },
    /// The name is in use for the same ROS 2 service type, but another Rust type: one
    /// process uses one Rust type per service type.
    #[error("service {service} is in use with another Rust type than {requested}")]
    RustTypeMismatch {
        /// The resolved service name.
        service: String,
        /// The Rust type asked for.
        requested: &'static str,
    },
    /// A queue that holds nothing could never take a response.
    #[error("a client's response queue must hold at least 1 response")]
    ZeroCapacity,
    /// The context's transport could not link the client out of the process.
    #[error("service {service}: the transport refused a client: {error}")]
    Link {
        /// The resolved service name.
        service: String,
        /// What the transport said.
        error: LinkError,
    },
}

impl From<ExchangeError> for ClientCreateError {
    fn from(error: ExchangeError) -> Self {
        match error {
            ExchangeError::Name(e) => ClientCreateError::Name(e),
            ExchangeError::TypeMismatch {
                service,
                existing,
                requested,
            } => ClientCreateError::TypeMismatch {
                service,
                existing,
                requested,
            },
            ExchangeError::RustTypeMismatch { service, requested } => {
                ClientCreateError::RustTypeMismatch { service, requested }
            }
        }
    }
}

/// Builds a [`Client`]; from [`Node::client`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` is called"]
pub struct ClientBuilder<'a, S> {
    node: &'a mut Node,
    name: String,
    history: History,
    _type: PhantomData<fn() -> S>,
}

impl<'a, S: ServiceType> ClientBuilder<'a, S> {
    pub(crate) fn new(node: &'a mut Node, name: &str) -> Self {
        ClientBuilder {
            node,
            name: name.to_owned(),
            history: History::default(),
            _type: PhantomData,
        }
    }

    /// How many responses wait at most, and what happens when the queue is full (default
    /// `KeepLast(10)`, the depth of ROS 2's services QoS): `KeepLast(n)` drops the oldest
    /// response not taken, `KeepAll { max }` the arriving one. Both count in
    /// [`Client::dropped_responses`]. A blocking [`call`](Client::call) whose response is
    /// dropped so times out.
    pub fn history(mut self, history: History) -> Self {
        self.history = history;
        self
    }

    /// Creates the client. It may exist before its service does.
    pub fn create(self) -> Result<Client<S>, ClientCreateError> {
        if self.history.capacity() == 0 {
            return Err(ClientCreateError::ZeroCapacity);
        }
        let name = (self.node.resolve_service_name(&self.name)).map_err(ClientCreateError::Name)?;
        let ctx = self.node.context();
        let exchange = ctx.exchanges().open::<S>(&name, ctx.delivery())?;
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let responses = Arc::new(CallQueue::new(self.history));
        let remote = match ctx.transport() {
            None => None,
            Some(transport) => {
                let queue = Arc::downgrade(&responses);
                let deliver = move |sequence, cdr| {
                    if let Some(queue) = queue.upgrade() {
                        let id = RequestId {
                            client: id,
                            sequence,
                        };
                        queue.push(id, Payload::Serialized(cdr));
                    }
                };
                (transport.client(
                    self.node.fully_qualified_name(),
                    exchange.name(),
                    RosType::of::<S::Request>(),
                    RosType::of::<S::Response>(),
                    Arc::new(deliver),
                ))
                .map_err(|error| ClientCreateError::Link {
                    service: exchange.name().to_owned(),
                    error,
                })?
            }
        };
        exchange.join(id, &responses);
        let input: Arc<dyn Input> = responses.clone();
        remember(&mut self.node.calls, Arc::downgrade(&input));
        Ok(Client {
            id,
            next_sequence: AtomicI64::new(1),
            responses,
            exchange,
            remote,
        })
    }
}
