//! tacto: an execution runtime for robotics, built around polling subscriptions and triggers.
//!
//! Most ROS 2 CPU goes into waking threads and calling callbacks for every message, even for
//! data a node only reads as "the latest value". In tacto a node declares what *triggers* it;
//! its other subscriptions just fill bounded histories that it reads when it runs, and wake
//! nothing.
//!
//! ```
//! use std::time::Duration;
//! use tacto::msg::std_msgs::String as Text;
//! use tacto::{Context, Executor, History, Trigger, WaitSetExecutor};
//!
//! let ctx = Context::new();
//! let mut fusion = ctx.node("fusion").unwrap();
//! let radar = fusion.subscription::<Text>("radar").history(History::KeepLast(10)).create().unwrap();
//! let camera = fusion.subscription::<Text>("camera").history(History::KeepLast(1)).create().unwrap();
//! let fused = fusion.publisher::<Text>("fused").create().unwrap();
//! // Only radar wakes the node; camera is read as "the latest value".
//! fusion.execute(Trigger::on(&radar), move |_| {
//!     let cam = camera.latest().map(|c| c.data.clone()).unwrap_or_default();
//!     for r in radar.take_all() {
//!         fused.publish(Text { data: format!("{}+{cam}", r.data) });
//!     }
//! }).unwrap();
//!
//! let mut sensors = ctx.node("sensors").unwrap();
//! let (radar_out, camera_out) = (
//!     sensors.publisher::<Text>("radar").create().unwrap(),
//!     sensors.publisher::<Text>("camera").create().unwrap(),
//! );
//! let out = sensors.subscription::<Text>("fused").create().unwrap();
//!
//! let mut executor = WaitSetExecutor::new().unwrap();
//! executor.add(fusion).unwrap();
//! camera_out.publish(Text { data: "img".into() }); // wakes nothing
//! radar_out.publish(Text { data: "r1".into() });   // wakes the fusion node
//! executor.spin_for(Duration::from_millis(20)).unwrap();
//! assert_eq!(out.take().unwrap().data, "r1+img");
//! ```
//!
//! The parts: [`Context`] (the graph and its clocks), [`Node`], [`Publisher`],
//! [`Subscription`], [`Service`] and [`Client`], [`Trigger`], and the executors in
//! [`executor`]. Messages of one's own are
//! defined with [`#[tacto::message("pkg/msg/Type")]`](message), with `tacto` as the only
//! dependency (see [`Message`]).

// The runtime is built on Linux interfaces (epoll, eventfd, timerfd, CPU affinity, SCHED_FIFO):
// say so once, clearly, rather than let the build fail in a dozen places about missing APIs.
#[cfg(not(target_os = "linux"))]
compile_error!(
    "tacto runs on Linux only: its executors block in epoll and wake through eventfd and \
     timerfd, and executor threads use Linux's CPU affinity and SCHED_FIFO"
);

// Lets `#[tacto::message]` name `::tacto` inside this crate too, for the standard messages.
extern crate self as tacto;

pub mod action;
pub mod args;
mod call_queue;
pub mod callback_group;
pub mod cdr;
pub mod client;
mod clock;
pub mod condition;
mod context;
mod exchange;
pub mod executor;
pub mod flat;
mod history;
pub mod idl;
pub mod lifecycle;
pub mod logging;
mod message;
pub mod msg;
pub mod names;
mod node;
mod node_services;
pub mod params;
mod pi_mutex;
mod publisher;
mod qos;
mod sample;
pub mod service;
pub mod shutdown;
pub mod subscription;
pub mod sync;
pub mod timer;
pub mod transport;
mod trigger;

/// The bytemuck that [`Flat`] messages build on: `#[tacto::message(.., flat)]` derives its
/// `Pod` and `Zeroable` through it, so a crate with flat messages needs no bytemuck of its own.
pub use action::ActionType;
pub use bytemuck;
pub use callback_group::{CallbackGroup, CallbackGroupKind};
pub use client::{CallError, Client, ClientBuilder, ClientCreateError, SendRequestError};
pub use clock::{Clock, ClockKind, NodeClock, Time};
pub use condition::GuardCondition;
pub use context::{Context, ContextBuilder, ContextError, TopicError, resolve_topic_name};
pub use executor::{
    AddError, CallbackExecutor, EventsExecutor, ExecutableStats, Executor, ExecutorStats,
    ExecutorThread, ExecutorThreadBuilder, JoinError, LetExecutor, SpawnError, SpinError,
    SpinOutcome, StopHandle, ThreadPoolBuilder, ThreadPoolCreateError, ThreadPoolExecutor,
    WaitSetExecutor,
};
pub use flat::{Flat, FlatLayout, FlatString, FlatStringError};
pub use history::History;
pub use message::Message;
pub use node::{
    ExecuteInError, Node, NodeBuilder, NodeCreateError, PublisherBuilder, SubscriptionBuilder,
    SubscriptionCreateError,
};
pub use publisher::{FlatLoan, Loan, Publisher};
pub use qos::{Durability, Liveliness, Qos, Reliability};
pub use sample::{PublisherId, Sample, SampleInfo};
/// The serde that tacto's messages serialize through. [`message`] derives with it, so a crate
/// that defines messages needs no serde dependency of its own; it is also here for serde's
/// attributes and for implementing [`Message`] by hand.
pub use serde;
pub use service::{RequestId, Responder, Service, ServiceBuilder, ServiceCreateError, ServiceType};
pub use subscription::{Probe, Subscription, TakeAll, Window};
pub use sync::Stamped;
pub use tacto_macros::message;
pub use transport::intra::LocalDelivery;
pub use trigger::{Activation, Trigger, TriggerError};

// docs/writing-nodes.md's snippets run as doc tests, so the manual cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/writing-nodes.md")]
struct WritingNodesManual;
