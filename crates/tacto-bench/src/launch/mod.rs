//! `tacto launch FILE.toml`: the processes of a launch file ([`file`](mod@file)), each a child
//! process running some nodes of a built-in topology on a context of its own ([`process`]) or
//! an executable with ROS 2's arguments ([`exec`]), supervised by the launching process
//! ([`supervise`]).

pub mod exec;
pub mod file;
pub mod process;
pub mod supervise;

pub use exec::ExecProcess;
pub use file::{
    LaunchFile, LaunchFileError, LaunchTopology, LaunchTransport, NodesProcess, ProcessKind,
    ProcessSpec, Restart,
};
