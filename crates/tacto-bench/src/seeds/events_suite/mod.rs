//! *events-executor*: the ROS 2 events-executor benchmark suite.

mod components;
mod one_process;

use super::{Ran, Scale};
use tacto_launch::interrupt::Interrupt;

/// Runs every part of the suite.
pub(super) fn run(scale: Scale, interrupt: &Interrupt) -> Ran {
    one_process::run(scale, interrupt)
}
