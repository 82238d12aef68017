//! `tacto bench`: the benchmarks the ROS 2 community trusts, on every tacto executor.
//!
//! A run builds one topology ([`topology`]) in one process on one executor kind
//! ([`executors::ExecutorKind`]), lets it warm up, then measures it for a fixed time: the
//! topology's own KPIs from timestamps carried in its messages, and the process's CPU, memory
//! and thread wake-ups ([`measure`]). Each executor runs in a child process of its own
//! ([`run`]), so that its CPU time and RSS are its own.

pub mod executors;
pub mod health;
pub mod histogram;
pub mod interrupt;
pub mod launch;
pub mod measure;
pub mod payload;
pub mod report;
pub mod result;
pub mod run;
pub mod seeds;
pub mod system;
pub mod topology;
