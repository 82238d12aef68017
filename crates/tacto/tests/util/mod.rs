//! Helpers shared by the test files (each test file includes this module).
//!
//! A test that waits for something to happen lets the node's code stop the executor once it
//! has seen it, and spins at most [`PATIENCE`]: the outcome never depends on how fast a loaded
//! machine runs. A fixed window ([`SETTLE`]) only watches for something that must *not*
//! happen, where nothing could signal its absence.

// Each test file uses a part of these helpers.
#![allow(dead_code, unused_macros)]

use std::time::Duration;

use tacto::serde::{Deserialize, Serialize};
use tacto::{Executor, Message, ServiceType, SpinOutcome};

/// Long enough never to run out on a slow, loaded machine; reaching it means the test failed.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// How long a test watches for something that must not happen. Nothing can signal that it did
/// not happen, so this is a window: a slow machine can only make such a test pass wrongly,
/// never fail.
pub const SETTLE: Duration = Duration::from_millis(30);

/// Spins until the nodes' code stops the executor; fails if it did not within [`PATIENCE`].
pub fn spin_until_stopped(executor: &mut (impl Executor + ?Sized)) {
    let outcome = executor.spin_for(PATIENCE).unwrap();
    assert_eq!(
        outcome,
        SpinOutcome::Stopped,
        "the expected work never happened"
    );
}

/// Makes a module named after a behaviour, with one test per executor running it.
/// A new executor is one line here.
macro_rules! each_executor {
    ($behaviour:ident) => {
        mod $behaviour {
            #[test]
            fn wait_set() {
                super::$behaviour(tacto::WaitSetExecutor::new().unwrap());
            }
            #[test]
            fn callback() {
                super::$behaviour(tacto::CallbackExecutor::new().unwrap());
            }
            #[test]
            fn events() {
                super::$behaviour(tacto::EventsExecutor::new().unwrap());
            }
            #[test]
            fn thread_pool() {
                super::$behaviour(
                    tacto::ThreadPoolExecutor::builder()
                        .threads(2)
                        .create()
                        .unwrap(),
                );
            }
        }
    };
}

/// `example_interfaces/srv/AddTwoInts`'s request, written out as a user would.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
pub struct AddRequest {
    pub a: i64,
    pub b: i64,
}

impl Message for AddRequest {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request";
}

/// `example_interfaces/srv/AddTwoInts`'s response.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
pub struct AddResponse {
    pub sum: i64,
}

impl Message for AddResponse {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response";
}

/// `example_interfaces/srv/AddTwoInts`.
pub struct AddTwoInts;

impl ServiceType for AddTwoInts {
    const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
    type Request = AddRequest;
    type Response = AddResponse;
}
