//! The built-in topologies a launch file's `topology = "..."` may name, whose nodes its
//! `nodes = [...]` processes run: each registered by the crate that ships it (tacto-bench
//! registers the reference system and nobleo's), so that this crate does not depend on the
//! benchmarks and a program has the topologies of the crates it links.
//!
//! Registration is by [`inventory`], as components are (tacto-component): a constructor per
//! registration, collected at start-up.
//!
//! # Examples
//! ```
//! // A program that links no crate registering topologies has none, and says so.
//! assert!(tacto_launch::topology::find("reference-system").is_none());
//! assert_eq!(tacto_launch::topology::names(), Vec::<&str>::new());
//! ```

use crate::file::LaunchFile;
use crate::interrupt::Interrupt;
use crate::process::ProcessError;

/// A built-in topology, registered with `inventory::submit!` by the crate that ships it.
#[derive(Debug)]
pub struct Topology {
    /// What a launch file's `topology = "..."` calls it.
    pub name: &'static str,
    /// The names of its nodes, which `nodes = [...]` may place; an error says why they
    /// cannot be known (a topology file that does not load).
    pub nodes: fn() -> Result<Vec<String>, String>,
    /// Runs the nodes of process `name` of the file (a process of this topology's nodes)
    /// until a signal asks it to stop, printing on stdout what it runs and, at the end, what
    /// it received.
    pub run: fn(file: &LaunchFile, name: &str, interrupt: &Interrupt) -> Result<(), ProcessError>,
}

inventory::collect!(Topology);

/// The registered topology called `name`.
pub fn find(name: &str) -> Option<&'static Topology> {
    inventory::iter::<Topology>().find(|t| t.name == name)
}

/// The names of every registered topology, sorted.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<_> = inventory::iter::<Topology>().map(|t| t.name).collect();
    names.sort_unstable();
    names
}
