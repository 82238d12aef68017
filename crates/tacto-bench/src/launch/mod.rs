//! `tacto launch FILE.toml`: the processes of a launch file ([`file`](mod@file)), each a child
//! process hosting components ([`components`], run by [`host`]), some nodes of a built-in
//! topology on a context of its own ([`process`]), or an executable with ROS 2's arguments
//! ([`exec`]); launch arguments ([`args`]); the order in which they start ([`order`]); all
//! supervised by the launching process ([`supervise`]).

pub mod args;
pub mod components;
pub mod demo;
pub mod exec;
pub mod file;
pub mod host;
pub mod order;
pub mod process;
pub mod program;
pub mod supervise;

pub use components::{ComponentsProcess, ExecutorSpec, NodePlacement};
pub use exec::ExecProcess;
pub use file::{
    BenchTarget, LaunchFile, LaunchFileError, LaunchTopology, LaunchTransport, NodesProcess,
    ProcessKind, ProcessSpec, Restart,
};
pub use order::{Wait, WaitFor};
