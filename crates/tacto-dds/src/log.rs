//! Cyclone's own error messages, caught for our errors.
//!
//! A failed `dds_create_domain` returns only `DDS_RETCODE_ERROR` ("Error"); the reason
//! ("lo0: does not match an available interface", an XML parse error...) goes to Cyclone's
//! log on the calling thread. We install a log sink once per process that still writes every
//! message to stderr, as Cyclone's default sink does, and also keeps the error-level ones of
//! a thread that asked for them ([`capture`]), so the error we return says what Cyclone said.
//! The sink is process-wide: another user of Cyclone in the process gets it too. Its log
//! messages still reach stderr, but not a per-domain log file, should a configuration ask for
//! one; trace output, which has its own sink, is untouched.

use std::cell::RefCell;
use std::ffi::c_void;
use std::io::Write;
use std::sync::Once;

/// At most this many messages are kept per capture; the first ones say what went wrong.
const MAX_CAPTURED: usize = 8;

thread_local! {
    static CAPTURED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, with its result, the error and warning messages Cyclone logged on
/// this thread meanwhile (without Cyclone's timestamp header).
pub(crate) fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    install();
    let previous = CAPTURED.with(|c| c.replace(Some(Vec::new())));
    let result = f();
    let messages = CAPTURED.with(|c| c.replace(previous)).unwrap_or_default();
    (result, messages)
}

fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: `sink` matches dds_log_write_fn_t and stays valid for the whole process
        // (a plain function); it needs no user data, so null is fine.
        unsafe { cyclors::dds_set_log_sink(Some(sink), std::ptr::null_mut()) };
    });
}

/// Cyclone calls this for every info, warning, error and fatal message, on the thread that
/// logs it. It must not unwind into C: nothing below panics (stderr write errors are
/// ignored, the thread-local is reached with `try_with`, the RefCell with `try_borrow_mut`).
unsafe extern "C" fn sink(_user: *mut c_void, data: *const cyclors::dds_log_data_t) {
    // SAFETY: Cyclone passes a valid log record for the duration of the call.
    let Some(data) = (unsafe { data.as_ref() }) else {
        return;
    };
    if data.message.is_null() {
        return;
    }
    // SAFETY: Cyclone's record layout (log.c): `message` points `hdrsize` bytes into one
    // buffer that holds the header, then `size` bytes of message, then a newline; Cyclone's
    // default sink writes exactly this span. All of it is valid during the call; we copy
    // what we keep.
    let (line, message) = unsafe {
        let start = data.message.cast::<u8>().sub(data.hdrsize);
        (
            std::slice::from_raw_parts(start, data.hdrsize + data.size + 1),
            std::slice::from_raw_parts(data.message.cast::<u8>(), data.size),
        )
    };
    let _ = std::io::stderr().write_all(line);
    let wanted = cyclors::DDS_LC_FATAL | cyclors::DDS_LC_ERROR | cyclors::DDS_LC_WARNING;
    if data.priority & wanted == 0 {
        return;
    }
    let text = String::from_utf8_lossy(message).trim_end().to_owned();
    let _ = CAPTURED.try_with(|captured| {
        let Ok(mut captured) = captured.try_borrow_mut() else {
            return;
        };
        if let Some(messages) = captured.as_mut().filter(|m| m.len() < MAX_CAPTURED) {
            messages.push(text);
        }
    });
}
