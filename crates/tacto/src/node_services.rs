//! The services every node serves on the ROS graph, as rclcpp's nodes do: the six parameter
//! services under `<node>/` and, if asked, `get_logger_levels`/`set_logger_levels`.
//!
//! They are answered on one thread per context, the *desk*, never on an executor's thread: a
//! `ros2 param get` costs the node nothing, and a set costs it only the moment its new value
//! is stored (its handles read it at their next look). The desk sleeps in `poll` while no
//! request comes, so idle services wake nothing. Requests wait in bounded queues (rclcpp's
//! parameter services depth, 1000); when one is full the oldest request is dropped and
//! counted, so a flood of requests costs the desk's thread, not the node.

use std::fmt;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;

use rustix::event::{PollFd, PollFlags, poll};

use crate::executor::signal::Signal;
use crate::history::History;
use crate::logging::{self, RosoutLink, Severity};
use crate::msg::rcl_interfaces::{msg, srv};
use crate::node::Node;
use crate::params::{Parameter, ParameterError, ParameterStore};
use crate::service::{Service, ServiceCreateError, ServiceType};
use crate::subscription::{Input, Listener};

/// How many requests each service keeps waiting: the depth of rclcpp's parameter services QoS.
const QUEUE_DEPTH: usize = 1000;

/// How many requests of one service are answered before the desk turns to the next: a
/// flooded service does not hold the others up for long.
const TURN: usize = 16;

/// The services of one node.
pub(crate) struct NodeServices {
    parameters: Arc<ParameterStore>,
    get: Service<srv::GetParameters>,
    get_types: Service<srv::GetParameterTypes>,
    set: Service<srv::SetParameters>,
    set_atomically: Service<srv::SetParametersAtomically>,
    describe: Service<srv::DescribeParameters>,
    list: Service<srv::ListParameters>,
    loggers: Option<(Service<srv::GetLoggerLevels>, Service<srv::SetLoggerLevels>)>,
}

impl fmt::Debug for NodeServices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeServices")
            .field("node", &self.parameters.node())
            .field("loggers", &self.loggers.is_some())
            .finish()
    }
}

impl NodeServices {
    /// Creates `node`'s services (`loggers`: the logger-level ones too), named and announced
    /// as the node's, but kept out of its executables: no executor sees them.
    pub(crate) fn create(node: &Node, loggers: bool) -> Result<Self, ServiceCreateError> {
        let history = History::KeepLast(QUEUE_DEPTH);
        let loggers = match loggers {
            true => Some((
                node.detached_service("~/get_logger_levels", history)?,
                node.detached_service("~/set_logger_levels", history)?,
            )),
            false => None,
        };
        Ok(NodeServices {
            parameters: node.parameters().clone(),
            get: node.detached_service("~/get_parameters", history)?,
            get_types: node.detached_service("~/get_parameter_types", history)?,
            set: node.detached_service("~/set_parameters", history)?,
            set_atomically: node.detached_service("~/set_parameters_atomically", history)?,
            describe: node.detached_service("~/describe_parameters", history)?,
            list: node.detached_service("~/list_parameters", history)?,
            loggers,
        })
    }

    fn inputs(&self) -> Vec<Arc<dyn Input>> {
        let mut inputs = vec![
            self.get.input(),
            self.get_types.input(),
            self.set.input(),
            self.set_atomically.input(),
            self.describe.input(),
            self.list.input(),
        ];
        if let Some((get, set)) = &self.loggers {
            inputs.extend([get.input(), set.input()]);
        }
        inputs
    }

    /// Answers up to [`TURN`] requests of each service; true if any may be left.
    fn serve(&self) -> bool {
        let store = &*self.parameters;
        let mut more = answer(&self.get, |request| {
            // rclcpp answers nothing for a name that is not declared.
            let values = store.get_parameters(&request.names).unwrap_or_default();
            srv::GetParameters_Response {
                values: values.iter().map(|p| (&p.value).into()).collect(),
            }
        });
        more |= answer(&self.get_types, |request| {
            let types = store
                .get_parameter_types(&request.names)
                .unwrap_or_default();
            srv::GetParameterTypes_Response {
                types: types.into_iter().map(|t| t as u8).collect(),
            }
        });
        more |= answer(&self.set, |request| srv::SetParameters_Response {
            results: (request.parameters.into_iter())
                .map(|p| match Parameter::try_from(p) {
                    Ok(p) => store.set_parameter(p).into(),
                    Err(kind) => refused_type(kind),
                })
                .collect(),
        });
        more |= answer(&self.set_atomically, |request| {
            let parameters: Result<Vec<Parameter>, u8> = request
                .parameters
                .into_iter()
                .map(Parameter::try_from)
                .collect();
            let result = match parameters {
                Err(kind) => refused_type(kind),
                Ok(parameters) => match store.set_parameters_atomically(&parameters) {
                    Ok(result) => result.into(),
                    Err(ParameterError::NotDeclared(_)) => msg::SetParametersResult {
                        successful: false,
                        reason: "One or more parameters were not declared before setting".into(),
                    },
                    Err(error) => msg::SetParametersResult {
                        successful: false,
                        reason: error.to_string(),
                    },
                },
            };
            srv::SetParametersAtomically_Response { result }
        });
        more |= answer(&self.describe, |request| {
            let descriptors = store
                .describe_parameters(&request.names)
                .unwrap_or_default();
            srv::DescribeParameters_Response {
                descriptors: descriptors.iter().map(Into::into).collect(),
            }
        });
        more |= answer(&self.list, |request| srv::ListParameters_Response {
            result: store
                .list_parameters(&request.prefixes, request.depth)
                .into(),
        });
        if let Some((get, set)) = &self.loggers {
            more |= answer(get, |request| srv::GetLoggerLevels_Response {
                levels: (request.names.into_iter())
                    .map(|name| msg::LoggerLevel {
                        level: logging::logger_level(&name) as u32,
                        name,
                    })
                    .collect(),
            });
            more |= answer(set, |request| srv::SetLoggerLevels_Response {
                results: request.levels.iter().map(set_logger_level).collect(),
            });
        }
        more
    }
}

/// As rclcpp's `set_logger_levels` service: rcutils' setter, its error text as the reason.
fn set_logger_level(level: &msg::LoggerLevel) -> msg::SetLoggerLevelsResult {
    let severity = u8::try_from(level.level).ok().and_then(Severity::from_u8);
    let outcome = match severity {
        None => Err(format!(
            "Invalid severity level specified for logger named '{}'",
            level.name
        )),
        Some(severity) => {
            logging::set_logger_level(&level.name, severity).map_err(|e| e.to_string())
        }
    };
    match outcome {
        Ok(()) => msg::SetLoggerLevelsResult {
            successful: true,
            reason: String::new(),
        },
        Err(reason) => msg::SetLoggerLevelsResult {
            successful: false,
            reason,
        },
    }
}

fn refused_type(kind: u8) -> msg::SetParametersResult {
    msg::SetParametersResult {
        successful: false,
        reason: format!("unexpected parameter type {kind}: rcl_interfaces defines 0 to 9"),
    }
}

/// Answers up to [`TURN`] requests of `service` with `respond`; true if it answered that many.
fn answer<S: ServiceType>(
    service: &Service<S>,
    mut respond: impl FnMut(S::Request) -> S::Response,
) -> bool {
    for _ in 0..TURN {
        let Some((id, request)) = service.take_request() else {
            return false;
        };
        service.send_response(id, respond(request));
    }
    true
}

/// One context's desk: the thread that answers its nodes' services.
pub(crate) struct Desk {
    shared: Arc<DeskShared>,
    thread: Option<JoinHandle<()>>,
}

struct DeskShared {
    signal: Signal,
    stop: AtomicBool,
    /// What each node has on the graph, with the node's claim on its name: when the node is
    /// gone (in the program and in any executor that took it), the desk drops it.
    entries: Mutex<Vec<Entry>>,
}

impl fmt::Debug for Desk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries = self.shared.lock().len();
        f.debug_struct("Desk").field("nodes", &entries).finish()
    }
}

/// One node's services and `/rosout` publisher, kept while the node lives.
struct Entry {
    claim: Weak<str>,
    services: Option<Arc<NodeServices>>,
    _rosout: Option<RosoutLink>,
}

impl DeskShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Wakes the desk when a request arrives through a transport that calls back (or in-process).
#[derive(Debug)]
struct Wake(Weak<DeskShared>);

impl fmt::Debug for DeskShared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeskShared").finish_non_exhaustive()
    }
}

impl Listener for Wake {
    fn on_sample(&self) {
        if let Some(shared) = self.0.upgrade() {
            shared.signal.notify();
        }
    }
}

impl Desk {
    /// Starts the desk's thread.
    pub(crate) fn start() -> std::io::Result<Desk> {
        let shared = Arc::new(DeskShared {
            signal: Signal::new()?,
            stop: AtomicBool::new(false),
            entries: Mutex::default(),
        });
        let thread = std::thread::Builder::new()
            .name("tacto-services".into())
            .spawn({
                let shared = shared.clone();
                move || run(&shared)
            })?;
        Ok(Desk {
            shared,
            thread: Some(thread),
        })
    }

    /// Serves `services`, and keeps the node's `/rosout` link, while the node that `claim`
    /// names lives.
    pub(crate) fn add(
        &self,
        claim: &Arc<str>,
        services: Option<NodeServices>,
        rosout: Option<RosoutLink>,
    ) -> Result<(), ServiceCreateError> {
        let services = services.map(Arc::new);
        let wake: Arc<dyn Listener> = Arc::new(Wake(Arc::downgrade(&self.shared)));
        for input in services.iter().flat_map(|s| s.inputs()) {
            input
                .attach(wake.clone())
                .map_err(|error| ServiceCreateError::Link {
                    service: "parameter services".into(),
                    error,
                })?;
        }
        self.shared.lock().push(Entry {
            claim: Arc::downgrade(claim),
            services,
            _rosout: rosout,
        });
        self.shared.signal.notify();
        Ok(())
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.signal.notify();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The desk's loop: answer what waits, then sleep in `poll` on the signal and on the wake-up
/// fds of transports that wake through one.
fn run(shared: &DeskShared) {
    loop {
        shared.signal.take_notified();
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let entries: Vec<Arc<NodeServices>> = {
            let mut entries = shared.lock();
            entries.retain(|entry| entry.claim.strong_count() > 0);
            entries
                .iter()
                .filter_map(|entry| entry.services.clone())
                .collect()
        };
        let inputs: Vec<Arc<dyn Input>> = entries.iter().flat_map(|e| e.inputs()).collect();
        for input in &inputs {
            input.on_wake_fd();
        }
        let mut more = false;
        for services in &entries {
            more |= services.serve();
        }
        if more || !shared.signal.prepare_sleep() {
            continue;
        }
        let fds: Vec<BorrowedFd<'_>> = (inputs.iter())
            .filter_map(|input| input.wake_fd().ok().flatten())
            .collect();
        let mut polled: Vec<PollFd<'_>> = std::iter::once(shared.signal.as_fd())
            .chain(fds)
            .map(|fd| PollFd::from_borrowed_fd(fd, PollFlags::IN))
            .collect();
        // An error (EINTR) only means: look again.
        let _ = poll(&mut polled, None);
        shared.signal.woke();
        let _ = rustix::io::read(shared.signal.as_fd(), &mut [0u8; 8]);
    }
}
