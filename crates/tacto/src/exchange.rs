//! Where a service and its clients meet inside one process: one [`Exchange`] per service name.
//!
//! It plays the part of DDS's two service topics: the service's request queue stands for its
//! `rq/<name>Request` reader, and the clients' response queues, found by client id, for the
//! `rr/<name>Reply` readers that keep only the replies carrying their own id. A response
//! therefore reaches only the client that asked, and one for a client gone finds no queue and
//! is dropped.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Instant;

use crate::call_queue::CallQueue;
use crate::context::{TopicError, resolve_topic_name};
use crate::service::ServiceType;
use crate::transport::intra::LocalDelivery;

/// One service name of a context, shared by its service and clients.
pub(crate) struct Exchange<S: ServiceType> {
    name: String,
    delivery: LocalDelivery,
    /// The service's request queue, while one exists.
    service: Mutex<Weak<CallQueue<S::Request>>>,
    /// Notified when a service appears, for [`wait_for_service`](Self::wait_for_service).
    service_appeared: Condvar,
    /// The live clients' response queues by client id; a client removes its own when dropped.
    clients: Mutex<HashMap<u64, Weak<CallQueue<S::Response>>>>,
    /// The executor whose code last took a request, as `executor::running` names it (0: none),
    /// so that a blocking call from that executor's own thread can be refused.
    served_by: AtomicUsize,
}

impl<S: ServiceType> fmt::Debug for Exchange<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exchange")
            .field("name", &self.name)
            .field("type", &S::TYPE_NAME)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics under these locks; the data stays consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<S: ServiceType> Exchange<S> {
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn delivery(&self) -> LocalDelivery {
        self.delivery
    }

    /// Makes `requests` the service's queue; false if a live service has one already.
    pub(crate) fn serve(&self, requests: &Arc<CallQueue<S::Request>>) -> bool {
        let mut service = lock(&self.service);
        if service.strong_count() > 0 {
            return false;
        }
        *service = Arc::downgrade(requests);
        self.service_appeared.notify_all();
        true
    }

    /// Ends the service whose queue is `requests`.
    pub(crate) fn unserve(&self, requests: &Arc<CallQueue<S::Request>>) {
        let mut service = lock(&self.service);
        if std::ptr::eq(service.as_ptr(), Arc::as_ptr(requests)) {
            *service = Weak::new();
        }
    }

    /// The service's request queue, if a service exists.
    pub(crate) fn service(&self) -> Option<Arc<CallQueue<S::Request>>> {
        lock(&self.service).upgrade()
    }

    /// Blocks until a service exists or `deadline` passes (`None`: no deadline).
    pub(crate) fn wait_for_service(&self, deadline: Option<Instant>) -> bool {
        let mut service = lock(&self.service);
        loop {
            if service.strong_count() > 0 {
                return true;
            }
            let now = Instant::now();
            service = match deadline {
                Some(deadline) if deadline <= now => return false,
                Some(deadline) => {
                    (self.service_appeared)
                        .wait_timeout(service, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => (self.service_appeared)
                    .wait(service)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
    }

    pub(crate) fn join(&self, client: u64, responses: &Arc<CallQueue<S::Response>>) {
        lock(&self.clients).insert(client, Arc::downgrade(responses));
    }

    pub(crate) fn leave(&self, client: u64) {
        lock(&self.clients).remove(&client);
    }

    /// The response queue of client `id`, if it still exists.
    pub(crate) fn client(&self, id: u64) -> Option<Arc<CallQueue<S::Response>>> {
        lock(&self.clients).get(&id)?.upgrade()
    }

    pub(crate) fn set_served_by(&self, executor: usize) {
        self.served_by.store(executor, Ordering::Relaxed);
    }

    pub(crate) fn served_by(&self) -> usize {
        self.served_by.load(Ordering::Relaxed)
    }
}

/// Why a service name could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExchangeError {
    Name(TopicError),
    TypeMismatch {
        service: String,
        existing: &'static str,
        requested: &'static str,
    },
    RustTypeMismatch {
        service: String,
        requested: &'static str,
    },
}

/// A context's exchanges by resolved service name, each held weakly: its service and clients
/// own it. Entries of exchanges gone are dropped when the table would grow, so it stays within
/// twice the most service names in use at once.
#[derive(Default)]
pub(crate) struct Exchanges {
    by_name: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    ros_type: &'static str,
    exchange: Weak<dyn Any + Send + Sync>,
}

impl fmt::Debug for Exchanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exchanges").finish_non_exhaustive()
    }
}

impl Exchanges {
    /// Opens the exchange of service `name` for type `S`: the one in use, or a new one.
    pub(crate) fn open<S: ServiceType>(
        &self,
        name: &str,
        delivery: LocalDelivery,
    ) -> Result<Arc<Exchange<S>>, ExchangeError> {
        let name = resolve_topic_name(name).map_err(ExchangeError::Name)?;
        let mut table = lock(&self.by_name);
        if let Some(entry) = table.get(&name)
            && let Some(exchange) = entry.exchange.upgrade()
        {
            if entry.ros_type != S::TYPE_NAME {
                return Err(ExchangeError::TypeMismatch {
                    service: name,
                    existing: entry.ros_type,
                    requested: S::TYPE_NAME,
                });
            }
            return exchange.downcast::<Exchange<S>>().map_err(|_| {
                ExchangeError::RustTypeMismatch {
                    service: name,
                    requested: std::any::type_name::<S>(),
                }
            });
        }
        if table.len() == table.capacity() {
            table.retain(|_, entry| entry.exchange.strong_count() > 0);
        }
        let exchange = Arc::new(Exchange::<S> {
            name: name.clone(),
            delivery,
            service: Mutex::new(Weak::new()),
            service_appeared: Condvar::new(),
            clients: Mutex::default(),
            served_by: AtomicUsize::new(0),
        });
        let any: Arc<dyn Any + Send + Sync> = exchange.clone();
        table.insert(
            name,
            Entry {
                ros_type: S::TYPE_NAME,
                exchange: Arc::downgrade(&any),
            },
        );
        Ok(exchange)
    }
}
