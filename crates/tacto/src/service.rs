//! Services: a node answers requests, one response per request, to the client that asked.
//!
//! A service is an executable like any other: its requests can trigger the node
//! ([`Trigger::on_request`](crate::Trigger::on_request)), be polled by code that runs for
//! another reason, or run a classic per-request callback ([`ServiceBuilder::callback`]).
//! Clients are in [`crate::client`]. The design (threads, locks, bounds) is in
//! `docs/services.md`.

use std::fmt;
use std::marker::PhantomData;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::call_queue::{CallQueue, Payload};
use crate::callback_group::CallbackGroup;
use crate::context::TopicError;
use crate::exchange::{Exchange, ExchangeError};
use crate::executor::running;
use crate::history::History;
use crate::message::Message;
use crate::node::{Executable, Node, remember};
use crate::subscription::{Input, Listener};
use crate::transport::{LinkError, RosType, ServiceLink};
use crate::trigger::Trigger;

/// A service type: a request and a response message under one ROS 2 name
/// (`package/srv/Type`), as a `.srv` file defines them.
///
/// By ROS 2's convention the request and response messages are named `package/srv/Type_Request`
/// and `package/srv/Type_Response`; implement [`Message`] for them by hand, or generate them.
///
/// # Examples
/// ```
/// use tacto::serde::{Deserialize, Serialize};
/// use tacto::{Message, ServiceType};
///
/// #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// #[serde(crate = "tacto::serde")]
/// pub struct AddTwoIntsRequest {
///     pub a: i64,
///     pub b: i64,
/// }
/// impl Message for AddTwoIntsRequest {
///     const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request";
/// }
///
/// #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// #[serde(crate = "tacto::serde")]
/// pub struct AddTwoIntsResponse {
///     pub sum: i64,
/// }
/// impl Message for AddTwoIntsResponse {
///     const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response";
/// }
///
/// pub struct AddTwoInts;
/// impl ServiceType for AddTwoInts {
///     const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
///     type Request = AddTwoIntsRequest;
///     type Response = AddTwoIntsResponse;
/// }
/// ```
pub trait ServiceType: Send + Sync + 'static {
    /// The ROS 2 type name, `package/srv/Type`, e.g. `example_interfaces/srv/AddTwoInts`.
    const TYPE_NAME: &'static str;
    /// The ROS 2 type hash of the service, `RIHS01_<64 hex>`, if known (see
    /// [`Message::TYPE_HASH`]); it covers the request, the response and the service event.
    const TYPE_HASH: Option<&'static str> = None;
    /// What a client sends.
    type Request: Message;
    /// What the service answers.
    type Response: Message;
}

/// Names one request: the client that sent it and the client's sequence number for it.
///
/// The same two numbers as the request header of rmw_cyclonedds (the client's 64-bit id, then a
/// signed sequence number counting from 1 per client), so a request keeps its identity on DDS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId {
    /// The id of the client that sent it ([`Client::id`](crate::Client::id)).
    pub client: u64,
    /// The client's sequence number for it.
    pub sequence: i64,
}

/// Answers the requests of one service name.
///
/// Create one with [`Node::service`]; at most one service per name lives in a context
/// ([`ServiceCreateError::AlreadyServed`]). Requests wait in a bounded queue (see
/// [`ServiceBuilder::history`]) until the node takes them with
/// [`take_request`](Self::take_request); each is answered with
/// [`send_response`](Self::send_response), from any thread, at any later time.
///
/// In a context with a [`Transport`](crate::transport::Transport) that carries services (DDS,
/// shared memory), the service also answers clients of other processes: their requests wait in the
/// transport's cache, taken after the local ones (see `docs/services.md`).
///
/// # Examples
/// A node triggered by its service's requests, and a blocking client:
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
/// use std::time::Duration;
/// use tacto::{Context, Executor, ExecutorThread, Trigger, WaitSetExecutor};
///
/// let ctx = Context::new();
/// let mut server = ctx.node("adder").unwrap();
/// let service = server.service::<AddTwoInts>("add_two_ints").create().unwrap();
/// server
///     .execute(Trigger::on_request(&service), move |_| {
///         while let Some((id, request)) = service.take_request() {
///             service.send_response(id, Resp { sum: request.a + request.b });
///         }
///     })
///     .unwrap();
/// let mut executor = WaitSetExecutor::new().unwrap();
/// executor.add(server).unwrap();
/// let running = ExecutorThread::builder().spawn(executor).unwrap();
///
/// let mut caller = ctx.node("caller").unwrap();
/// let client = caller.client::<AddTwoInts>("add_two_ints").create().unwrap();
/// let response = client.call(Req { a: 2, b: 3 }, Duration::from_secs(30)).unwrap();
/// assert_eq!(response.sum, 5);
/// running.stop();
/// running.join().unwrap();
/// ```
pub struct Service<S: ServiceType> {
    requests: Arc<Requests<S::Request>>,
    exchange: Arc<Exchange<S>>,
    encode_errors: AtomicU64,
}

/// A service's two sources of requests: the queue its clients in this process push into, and
/// the transport's cache of requests from other processes (read when the queue is empty).
struct Requests<T> {
    local: Arc<CallQueue<T>>,
    remote: Option<Box<dyn ServiceLink>>,
    /// How often the transport said requests arrived; counted once a listener is attached.
    remote_arrivals: Arc<AtomicU64>,
    /// Requests from other processes that did not decode.
    remote_malformed: AtomicU64,
}

impl<T> fmt::Debug for Requests<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Requests")
            .field("remote", &self.remote)
            .finish_non_exhaustive()
    }
}

impl<T: Message> Requests<T> {
    fn take(&self) -> Option<(RequestId, T)> {
        if let Some(local) = self.local.take() {
            return Some(local);
        }
        let remote = self.remote.as_deref()?;
        while let Some((id, cdr)) = remote.take_request() {
            match crate::cdr::from_bytes(&cdr) {
                Ok(request) => return Some((id, request)),
                Err(_) => {
                    self.remote_malformed.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        None
    }

    fn remote_pending(&self) -> usize {
        self.remote.as_deref().map_or(0, |remote| remote.pending())
    }
}

impl<T: Message> Input for Requests<T> {
    fn unread(&self) -> usize {
        self.local.len() + self.remote_pending()
    }

    fn arrivals(&self) -> u64 {
        self.local.arrivals() + self.remote_arrivals.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> u64 {
        self.local.dropped()
    }

    fn is_attached(&self) -> bool {
        self.local.is_attached()
    }

    /// Attaches the listener to the local queue, and has the transport's link call it too,
    /// unless the link wakes the executor through its fd.
    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        if !self.local.attach(listener.clone())? {
            return Ok(false);
        }
        if let Some(remote) = &self.remote
            && remote.wake_fd()?.is_none()
        {
            let arrivals = self.remote_arrivals.clone();
            remote.on_data(Arc::new(move || {
                // Counted before the wake-up, which the executor follows by reading it.
                arrivals.fetch_add(1, Ordering::SeqCst);
                listener.on_sample();
            }))?;
        }
        Ok(true)
    }

    fn freeze(&self) {
        // Never called: see `CallQueue::freeze`.
    }

    fn wake_fd(&self) -> Result<Option<BorrowedFd<'_>>, LinkError> {
        self.remote
            .as_ref()
            .map_or(Ok(None), |remote| remote.wake_fd())
    }

    fn on_wake_fd(&self) -> usize {
        let arrived = self.remote.as_ref().map_or(0, |remote| remote.drain_wake());
        // Counted before the executor looks at the trigger, which reads it.
        self.remote_arrivals
            .fetch_add(arrived as u64, Ordering::SeqCst);
        arrived
    }
}

impl<S: ServiceType> fmt::Debug for Service<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Service")
            .field("name", &self.exchange.name())
            .field("type", &S::TYPE_NAME)
            .finish()
    }
}

impl<S: ServiceType> Service<S> {
    /// Takes the oldest request waiting, with the id to answer it under.
    ///
    /// A request that arrived serialized and does not decode is discarded and counted
    /// ([`malformed_requests`](Self::malformed_requests)); the next one is returned instead.
    pub fn take_request(&self) -> Option<(RequestId, S::Request)> {
        self.exchange.set_served_by(running::current());
        self.requests.take()
    }

    /// Sends `response` to the client that sent request `id`: the client of this context
    /// with that id, else a client of another process through the transport (which may first
    /// wait, briefly, until that client can receive it; see `docs/services.md`).
    ///
    /// A client that no longer exists gets nothing, and that is no error: in ROS 2 too a
    /// client may go before its answer comes. A response the client's full queue cannot hold
    /// is handled by that queue's policy (see [`ClientBuilder::history`](crate::client::ClientBuilder::history)).
    /// A response that has to be serialized and cannot be is counted
    /// ([`encode_errors`](Self::encode_errors)).
    pub fn send_response(&self, id: RequestId, response: S::Response) {
        let Some(client) = self.exchange.client(id.client) else {
            self.send_remote_response(id, &response);
            return;
        };
        match Payload::new(response, self.exchange.delivery()) {
            Ok(payload) => {
                client.push(id, payload);
            }
            Err(_) => {
                self.encode_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// A response to a client of another process, if the context has a transport: sent as
    /// [`send_response`](Self::send_response) says (a client gone gets nothing), its encoding
    /// errors counted there too; a failed write is the transport's to report.
    fn send_remote_response(&self, id: RequestId, response: &S::Response) {
        let Some(remote) = &self.requests.remote else {
            return;
        };
        match crate::cdr::to_vec(response) {
            Ok(cdr) => {
                // A write fails only for a transport shutting down: as a client gone, nothing
                // is owed to anyone then.
                let _ = remote.respond(id, &cdr);
            }
            Err(_) => {
                self.encode_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The number of requests waiting, from this process and others.
    pub fn pending(&self) -> usize {
        self.requests.unread()
    }

    /// Requests lost to the queue's policy since creation: the oldest evicted by `KeepLast`,
    /// or arrivals refused by a full `KeepAll` (their clients were told,
    /// [`SendRequestError::Full`](crate::client::SendRequestError::Full)).
    pub fn dropped_requests(&self) -> u64 {
        self.requests.local.dropped()
    }

    /// Serialized requests that did not decode, since creation, from this process and others.
    pub fn malformed_requests(&self) -> u64 {
        self.requests.local.malformed() + self.requests.remote_malformed.load(Ordering::Relaxed)
    }

    /// Responses that had to be serialized and could not be, since creation: their type uses
    /// a serde construct without a CDR form. Always 0 for types from `.srv` definitions.
    pub fn encode_errors(&self) -> u64 {
        self.encode_errors.load(Ordering::Relaxed)
    }

    /// The service's resolved name, e.g. `/add_two_ints`.
    pub fn name(&self) -> &str {
        self.exchange.name()
    }

    pub(crate) fn input(&self) -> Arc<dyn Input> {
        self.requests.clone()
    }
}

impl<S: ServiceType> Drop for Service<S> {
    fn drop(&mut self) {
        self.exchange.unserve(&self.requests.local);
    }
}

/// Why a service could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceCreateError {
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
    /// A service of this name exists already in the context: a request must have one
    /// answer. The name is free again once that service is dropped.
    #[error("service {0} already has a server in this context")]
    AlreadyServed(String),
    /// A queue that holds nothing could never take a request.
    #[error("a service's request queue must hold at least 1 request")]
    ZeroCapacity,
    /// The context's transport could not link the service out of the process.
    #[error("service {service}: the transport refused it: {error}")]
    Link {
        /// The resolved service name.
        service: String,
        /// What the transport said.
        error: LinkError,
    },
    /// The callback group was made by another node.
    #[error("the callback group belongs to another node")]
    ForeignCallbackGroup,
}

impl From<ExchangeError> for ServiceCreateError {
    fn from(error: ExchangeError) -> Self {
        match error {
            ExchangeError::Name(e) => ServiceCreateError::Name(e),
            ExchangeError::TypeMismatch {
                service,
                existing,
                requested,
            } => ServiceCreateError::TypeMismatch {
                service,
                existing,
                requested,
            },
            ExchangeError::RustTypeMismatch { service, requested } => {
                ServiceCreateError::RustTypeMismatch { service, requested }
            }
        }
    }
}

/// Builds a [`Service`]; from [`Node::service`].
#[derive(Debug)]
#[must_use = "a builder does nothing until `create` or `callback` is called"]
pub struct ServiceBuilder<'a, S> {
    node: &'a mut Node,
    name: String,
    history: History,
    _type: PhantomData<fn() -> S>,
}

impl<'a, S: ServiceType> ServiceBuilder<'a, S> {
    pub(crate) fn new(node: &'a mut Node, name: &str) -> Self {
        ServiceBuilder {
            node,
            name: name.to_owned(),
            history: History::default(),
            _type: PhantomData,
        }
    }

    /// How many requests wait at most, and what happens when the queue is full (default
    /// `KeepLast(10)`, the depth of ROS 2's services QoS): `KeepLast(n)` drops the oldest
    /// waiting request, whose client then gets no answer (its call times out), as DDS does;
    /// `KeepAll { max }` refuses the new request, and its client's send fails
    /// ([`SendRequestError::Full`](crate::client::SendRequestError::Full)). Both count in
    /// [`Service::dropped_requests`].
    pub fn history(mut self, history: History) -> Self {
        self.history = history;
        self
    }

    /// Creates the service. Its requests wake nothing until a trigger names it
    /// ([`Trigger::on_request`](crate::Trigger::on_request)); code may also poll it.
    pub fn create(self) -> Result<Service<S>, ServiceCreateError> {
        build(self.node, &self.name, self.history)
    }

    /// Creates a classic service: `callback` answers each request, one at a time, in arrival
    /// order, in the node's default callback group.
    pub fn callback(
        self,
        callback: impl FnMut(S::Request) -> S::Response + Send + 'static,
    ) -> Result<(), ServiceCreateError> {
        let group = self.node.default_group();
        self.callback_in(&group, callback)
    }

    /// Creates a classic service whose `callback` runs in `group`; one request at a time,
    /// whatever the group's kind.
    pub fn callback_in(
        mut self,
        group: &CallbackGroup,
        mut callback: impl FnMut(S::Request) -> S::Response + Send + 'static,
    ) -> Result<(), ServiceCreateError> {
        let service = self.per_request(group)?;
        let trigger = per_request_trigger(&service);
        self.node.executables.push(Executable {
            trigger,
            group: *group,
            run: Box::new(move |_| {
                if let Some((id, request)) = service.take_request() {
                    let response = callback(request);
                    service.send_response(id, response);
                }
            }),
        });
        Ok(())
    }

    /// Creates a classic service whose `callback` sees each request's [`RequestId`] and
    /// answers when it likes, as rclcpp's callbacks that take the request header and the
    /// service (`service->send_response(*header, response)`, the deferred response): at once,
    /// through the [`Responder`] it is handed, or later, from another run or another thread,
    /// through a clone of it (or the one this returns) and the id it kept. One request at a
    /// time, in arrival order, in the node's default callback group.
    ///
    /// A request that is never answered holds nothing in tacto, as in rclcpp: its client's
    /// `call` times out ([`CallError::Timeout`](crate::CallError::Timeout)). Over DDS the
    /// service remembers the writer of at most 1024 requests taken and unanswered, for the
    /// wait before an answer (the oldest is forgotten and its answer goes without it); over
    /// shared memory iceoryx2 holds each until its client gives up (see `docs/services.md`).
    ///
    /// # Examples
    /// A request answered by a later run, once the node has what it needs:
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
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    /// use tacto::msg::std_msgs::Empty;
    /// use tacto::{Context, Executor, Trigger, WaitSetExecutor};
    ///
    /// let ctx = Context::new();
    /// let mut server = ctx.node("adder").unwrap();
    /// let waiting = Arc::new(Mutex::new(Vec::new()));
    /// let keep = waiting.clone();
    /// let responder = server
    ///     .service::<AddTwoInts>("add_two_ints")
    ///     .callback_with_id(move |_, id, request| keep.lock().unwrap().push((id, request)))
    ///     .unwrap();
    /// let ready = server.subscription::<Empty>("ready").create().unwrap();
    /// server
    ///     .execute(Trigger::on(&ready), move |_| {
    ///         ready.take_all().for_each(drop);
    ///         for (id, request) in waiting.lock().unwrap().drain(..) {
    ///             responder.send_response(id, Resp { sum: request.a + request.b });
    ///         }
    ///     })
    ///     .unwrap();
    ///
    /// let mut caller = ctx.node("caller").unwrap();
    /// let client = caller.client::<AddTwoInts>("add_two_ints").create().unwrap();
    /// let go = caller.publisher::<Empty>("ready").create().unwrap();
    /// let mut executor = WaitSetExecutor::new().unwrap();
    /// executor.add(server).unwrap();
    ///
    /// let sent = client.send_request(Req { a: 2, b: 3 }).unwrap();
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert!(client.take_response().is_none(), "taken, not answered yet");
    /// go.publish(Empty::default());
    /// executor.spin_for(Duration::from_millis(20)).unwrap();
    /// assert_eq!(client.take_response(), Some((sent, Resp { sum: 5 })));
    /// ```
    pub fn callback_with_id(
        self,
        callback: impl FnMut(&Responder<S>, RequestId, S::Request) + Send + 'static,
    ) -> Result<Responder<S>, ServiceCreateError> {
        let group = self.node.default_group();
        self.callback_with_id_in(&group, callback)
    }

    /// As [`callback_with_id`](Self::callback_with_id), the callback running in `group`; one
    /// request at a time, whatever the group's kind.
    pub fn callback_with_id_in(
        mut self,
        group: &CallbackGroup,
        mut callback: impl FnMut(&Responder<S>, RequestId, S::Request) + Send + 'static,
    ) -> Result<Responder<S>, ServiceCreateError> {
        let service = Arc::new(self.per_request(group)?);
        let trigger = per_request_trigger(&service);
        let responder = Responder {
            service: Arc::downgrade(&service),
        };
        let handed = responder.clone();
        self.node.executables.push(Executable {
            trigger,
            group: *group,
            run: Box::new(move |_| {
                if let Some((id, request)) = service.take_request() {
                    callback(&handed, id, request);
                }
            }),
        });
        Ok(responder)
    }

    /// The service of a classic callback in `group`.
    fn per_request(&mut self, group: &CallbackGroup) -> Result<Service<S>, ServiceCreateError> {
        if !self.node.owns_group(group) {
            return Err(ServiceCreateError::ForeignCallbackGroup);
        }
        build::<S>(self.node, &self.name, self.history)
    }
}

/// The trigger of a classic callback: each run takes one request, so it fires while requests
/// wait, as rclcpp serves one request per callback.
fn per_request_trigger<S: ServiceType>(service: &Service<S>) -> Trigger {
    let mut trigger = Trigger::on_request(service);
    trigger.per_sample = true;
    trigger
}

/// Answers the requests of a service made with
/// [`callback_with_id`](ServiceBuilder::callback_with_id), from any thread, at any time: the
/// handle its callback is given, and that the builder returns. Cheap to clone.
///
/// It does not keep the service: once the executor that runs the service's callback is
/// dropped, the service goes (its name is free again, its clients see no service), and
/// answers sent through a responder reach no one, as answers to a client that is gone.
pub struct Responder<S: ServiceType> {
    service: Weak<Service<S>>,
}

impl<S: ServiceType> Clone for Responder<S> {
    fn clone(&self) -> Self {
        Responder {
            service: self.service.clone(),
        }
    }
}

impl<S: ServiceType> fmt::Debug for Responder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Responder")
            .field("type", &S::TYPE_NAME)
            .field("service_alive", &(self.service.strong_count() > 0))
            .finish()
    }
}

impl<S: ServiceType> Responder<S> {
    /// Sends `response` to the client that sent request `id`, as
    /// [`Service::send_response`] does; nothing if the service is gone.
    pub fn send_response(&self, id: RequestId, response: S::Response) {
        if let Some(service) = self.service.upgrade() {
            service.send_response(id, response);
        }
    }
}

fn build<S: ServiceType>(
    node: &mut Node,
    name: &str,
    history: History,
) -> Result<Service<S>, ServiceCreateError> {
    let service = link::<S>(node, name, history)?;
    remember(&mut node.calls, Arc::downgrade(&service.input()));
    Ok(service)
}

impl Node {
    /// A service of this node that none of its triggers may name and no executor sees (the
    /// node's parameter services, which the context's desk answers).
    pub(crate) fn detached_service<S: ServiceType>(
        &self,
        name: &str,
        history: History,
    ) -> Result<Service<S>, ServiceCreateError> {
        link::<S>(self, name, history)
    }
}

/// Creates service `name` of `node` and links it out of the process.
fn link<S: ServiceType>(
    node: &Node,
    name: &str,
    history: History,
) -> Result<Service<S>, ServiceCreateError> {
    if history.capacity() == 0 {
        return Err(ServiceCreateError::ZeroCapacity);
    }
    let name = node
        .resolve_service_name(name)
        .map_err(ServiceCreateError::Name)?;
    let ctx = node.context();
    let exchange = ctx.exchanges().open::<S>(&name, ctx.delivery())?;
    let local = Arc::new(CallQueue::new(history));
    if !exchange.serve(&local) {
        return Err(ServiceCreateError::AlreadyServed(
            exchange.name().to_owned(),
        ));
    }
    let remote = match ctx.transport() {
        None => None,
        Some(transport) => transport
            .service(
                node.fully_qualified_name(),
                exchange.name(),
                RosType::of::<S::Request>(),
                RosType::of::<S::Response>(),
            )
            .map_err(|error| {
                exchange.unserve(&local);
                ServiceCreateError::Link {
                    service: exchange.name().to_owned(),
                    error,
                }
            })?,
    };
    let requests = Arc::new(Requests {
        local,
        remote,
        remote_arrivals: Arc::default(),
        remote_malformed: AtomicU64::new(0),
    });
    Ok(Service {
        requests,
        exchange,
        encode_errors: AtomicU64::new(0),
    })
}
