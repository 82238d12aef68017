//! Cyclone's return codes, kept with Cyclone's own message for the errors we report.

use std::ffi::CStr;
use std::fmt;

/// A failed Cyclone DDS call: the negative `dds_return_t` it returned and Cyclone's text for it.
///
/// Every error of this crate that comes from Cyclone carries one, so a log line says what
/// Cyclone said (`"Precondition Not Met"`, `"Bad Parameter"`...) and not just a number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DdsStatus {
    /// The return code, e.g. `-4` for `DDS_RETCODE_PRECONDITION_NOT_MET`.
    pub code: i32,
    /// Cyclone's description of `code` (`dds_strretcode`).
    pub message: String,
}

impl DdsStatus {
    /// Turns a Cyclone return value into `Ok(value)` when it is not negative (a handle, a count,
    /// or `DDS_RETCODE_OK`), and into the status with Cyclone's message otherwise.
    pub(crate) fn check(ret: i32) -> Result<i32, DdsStatus> {
        if ret >= 0 {
            Ok(ret)
        } else {
            Err(DdsStatus::from_code(ret))
        }
    }

    /// The status for a negative return code.
    pub(crate) fn from_code(code: i32) -> DdsStatus {
        // SAFETY: `dds_strretcode` accepts any value (unknown codes get a generic text) and
        // returns a pointer to a static, NUL-terminated string, or null on nothing we know of;
        // we copy it at once.
        let text = unsafe { cyclors::dds_strretcode(code) };
        let message = if text.is_null() {
            String::from("unknown Cyclone DDS error")
        } else {
            // SAFETY: non-null, and Cyclone's return-code strings are static C strings.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        };
        DdsStatus { code, message }
    }
}

impl fmt::Display for DdsStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (Cyclone DDS return code {})",
            self.message, self.code
        )
    }
}

impl std::error::Error for DdsStatus {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_codes_carry_cyclones_message() {
        let status = DdsStatus::check(cyclors::DDS_RETCODE_PRECONDITION_NOT_MET).unwrap_err();
        assert_eq!(status.code, -4);
        assert!(
            status.message.to_lowercase().contains("precondition"),
            "{status}"
        );
        assert_eq!(DdsStatus::check(7), Ok(7));
    }
}
