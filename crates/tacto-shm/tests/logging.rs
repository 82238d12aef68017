//! iceoryx2's log records are tacto's, under the logger `iceoryx2`, at tacto's levels.
//!
//! iceoryx2's logger and tacto's levels are process-wide, so this file is one test, in steps.

use std::sync::{Arc, Mutex};

use tacto::Context;
use tacto::logging::{self, Record, Severity};
use tacto::msg::std_msgs::String as Text;
use tacto_shm::ShmNode;

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(Severity, String)>>>);

impl Seen {
    /// Takes what the logger `iceoryx2` wrote since the last call.
    fn take(&self) -> Vec<(Severity, String)> {
        logging::flush();
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[test]
fn iceoryx2_logs_under_the_iceoryx2_logger_at_the_level_given_to_it() {
    let seen = Seen::default();
    let keep = seen.clone();
    let _sink = logging::add_sink(move |record: &Record| {
        if &*record.name == "iceoryx2" {
            let line = (record.severity, record.message.clone());
            keep.0.lock().unwrap().push(line);
        }
    });
    let topic = |n: u32| format!("/logging_{}_{n}", std::process::id());

    // Without a level of its own, only errors: a normal start warns of a missing config file.
    let node = ShmNode::create("logging").unwrap();
    let first = node.publisher::<Text>(&topic(1)).create().unwrap();
    let quiet = seen.take();
    assert!(
        quiet
            .iter()
            .all(|(severity, _)| *severity >= Severity::Error),
        "{quiet:?}"
    );

    // `--log-level iceoryx2:=debug`, as a ported node's launch file gives it.
    let _ctx =
        Context::from_args(["prog", "--ros-args", "--log-level", "iceoryx2:=debug"]).unwrap();
    let second = node.publisher::<Text>(&topic(2)).create().unwrap();
    let debug = seen.take();
    assert!(
        debug
            .iter()
            .any(|(severity, message)| *severity == Severity::Debug && message.contains(" (from ")),
        "iceoryx2's debug records, with their origin: {debug:?}"
    );

    logging::set_logger_level("iceoryx2", Severity::Warn).unwrap();
    drop((first, second));
    let _third = node.publisher::<Text>(&topic(3)).create().unwrap();
    let warn = seen.take();
    assert!(
        warn.iter().all(|(severity, _)| *severity >= Severity::Warn),
        "{warn:?}"
    );
}
