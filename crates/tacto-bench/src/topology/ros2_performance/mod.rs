//! ros2-performance topologies: iRobot's benchmark graphs (`mont_blanc`, `sierra_nevada`, or
//! any file of their format), measured as its own tool measures them.
//!
//! - [`spec`]: the file format, what is honoured and ignored, and what is refused.
//! - [`messages`]: `performance_test_msgs`, the messages the files name.
//! - `nodes`: the graph as tacto nodes.
//!
//! # What runs
//! Every publisher publishes at its period, stamping each message with the time it publishes it
//! (system clock) and numbering them from 0. Every subscriber measures each message it takes
//! (see `tracking`): latency = take time − stamp, late, too late, and lost (gaps in tracking
//! numbers). The report has these per topic, over all of a topic's subscribers.
//!
//! Callback kinds (`callback`, `callback-mt`, `events`, `prioritized`) run a callback per
//! message. `wait-set` and `let` use polling subscriptions, each triggering its own executable
//! that takes everything unread; `prioritized` runs one thread per node (these graphs have no
//! hot path).
//!
//! # LET
//! The LET executor runs at the longest period that divides every publisher's period
//! ([`Spec::common_period`]: 5 ms for `mont_blanc`, 10 ms for `sierra_nevada`). Latency is
//! measured as everywhere else, from the stamp, so it honestly includes what LET adds by
//! design: a message published in one LET period goes out at its end and is taken at the start
//! of the next, one LET period after its stamp. So on `mont_blanc` every message is "late"
//! (5 ms > 2 ms for its 10 ms publishers) and none too late; on `sierra_nevada` the 10 ms
//! publishers' messages arrive right at the too-late limit of one period, and many count as
//! too late. Periods whose common divisor is under 100 µs are refused for LET.

pub mod messages;
pub(crate) mod nodes;
pub mod spec;

use tacto::{Context, Trigger};

pub use spec::{NodeSpec, PublisherSpec, Spec, SubscriberSpec};

use crate::result::RunResult;
use crate::system::{RunConfig, System, SystemError};
use crate::topology::threads::Threads;
use crate::topology::tracking::Scoreboard;
use nodes::Style;
use tacto_launch::executors::ExecutorKind;

/// Builds the topology on the configured executor kind and starts its executors.
pub fn start(spec: &Spec, config: &RunConfig) -> Result<Box<dyn System>, SystemError> {
    start_in(spec, config, &config.context()?)
}

/// As [`start`], in an existing graph: nodes of `ctx` (a recorder, a test's probe) can then
/// subscribe to the topology's topics.
pub fn start_in(
    spec: &Spec,
    config: &RunConfig,
    ctx: &Context,
) -> Result<Box<dyn System>, SystemError> {
    let let_period = spec.common_period();
    // The LET executor refuses shorter periods: it would do little but wake.
    if config.executor == ExecutorKind::Let && let_period < Trigger::MIN_PERIOD {
        return Err(SystemError::Unsupported {
            topology: spec.name.clone(),
            executor: config.executor,
            reason: format!(
                "the publishers' periods have no common divisor of at least {:?} to run LET at (only {let_period:?})",
                Trigger::MIN_PERIOD
            ),
        });
    }
    let style = if config.executor.uses_callbacks() {
        Style::Callbacks
    } else {
        Style::Polling
    };
    let mut scoreboard = Scoreboard::default();
    let nodes = nodes::build(spec, ctx, style, config.node_parameters, &mut scoreboard)?;
    let threads = Threads::start(config.executor, nodes, let_period)?;
    Ok(Box::new(Running {
        threads,
        scoreboard,
    }))
}

#[derive(Debug)]
struct Running {
    threads: Threads,
    scoreboard: Scoreboard,
}

impl System for Running {
    fn reset(&mut self) {
        self.scoreboard.reset();
    }

    fn finish(self: Box<Self>, result: &mut RunResult) -> Result<(), SystemError> {
        self.threads.stop()?;
        result.topics = self.scoreboard.results();
        result.drops_total = result.topics.iter().map(|t| t.lost).sum();
        Ok(())
    }
}
