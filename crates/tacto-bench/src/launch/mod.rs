//! `tacto launch FILE.toml`: the processes of a launch file ([`file`](mod@file)), each a child process
//! running some nodes on a context with the shared-memory transport ([`process`]), supervised
//! by the launching process ([`supervise`]).

pub mod file;
pub mod process;
pub mod supervise;

pub use file::{
    LaunchFile, LaunchFileError, LaunchTopology, LaunchTransport, ProcessSpec, Restart,
};
