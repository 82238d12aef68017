//! Helpers shared by the test files (each test file includes this module).

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
