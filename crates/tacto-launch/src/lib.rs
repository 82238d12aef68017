//! Launch files for tacto (`tacto launch FILE.toml`, or a system binary of one's own through
//! [`program::main`]): the processes of a launch file ([`file`](mod@file)), each a child
//! process hosting components ([`components`], run by [`host`]), some nodes of a built-in
//! topology that a linked crate registers ([`topology`]), or an executable with ROS 2's
//! arguments ([`exec`]); launch arguments ([`args`]); the order in which they start
//! ([`order`]); all supervised by the launching process ([`supervise`]).
//!
//! A user's system binary depends on this crate and on the crates of its components, not on
//! tacto's benchmarks: tacto-bench registers its built-in topologies here, and measures launch
//! files with what this crate exposes ([`host::start`], [`measure`]). Every program that links
//! this crate hosts its two demo components, `demo::Talker` and `demo::Listener` (a talker and
//! a listener on `std_msgs/String`, as ROS 2's demo_nodes_cpp has).

pub mod args;
pub mod components;
mod demo;
pub mod exec;
pub mod executors;
pub mod file;
pub mod host;
pub mod interrupt;
pub mod measure;
pub mod order;
pub mod process;
pub mod program;
pub mod supervise;
pub mod topology;

pub use components::{ComponentsProcess, ExecutorSpec, NodePlacement};
pub use exec::ExecProcess;
pub use executors::ExecutorKind;
pub use file::{
    LaunchFile, LaunchFileError, LaunchTransport, NodesProcess, ProcessKind, ProcessSpec, Restart,
};
pub use order::{Wait, WaitFor};
pub use process::{ProcessError, run_process};
