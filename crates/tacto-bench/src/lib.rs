//! `tacto bench`: the benchmarks the ROS 2 community trusts, on every tacto executor.
//!
//! A run builds one topology ([`topology`]) in one process on one executor kind
//! ([`tacto_launch::ExecutorKind`]), lets it warm up, then measures it for a fixed time: the
//! topology's own KPIs from timestamps carried in its messages, and the process's CPU, memory
//! and thread wake-ups ([`tacto_launch::measure`]). Each executor runs in a child process of
//! its own ([`run`]), so that its CPU time and RSS are its own. A launch file's placement of a
//! topology's nodes or of components is measured the same way, process by process
//! ([`launched`]).
//!
//! This crate is benchmark-only: the `tacto` command links it (for `tacto bench`, and so that
//! `tacto launch` runs the built-in topologies' nodes and components); a user's system binary
//! needs tacto-launch, not this.

mod deadline;
pub mod health;
pub mod histogram;
pub mod launched;
pub mod output;
pub mod payload;
pub mod report;
pub mod result;
pub mod run;
pub mod seeds;
pub mod system;
pub mod topology;
