//! Times and numbers as tf2 prints them in its messages (`tf2/src/time.cpp`, `printf`).

use tacto::Time;

/// `tf2::durationToSec`: whole seconds and the nanoseconds scaled apart, for accuracy.
///
/// tf2 casts the seconds to `int32_t`, which wraps after 2038; this keeps them in 64 bits and
/// is otherwise the same sum.
pub(crate) fn seconds(nanos: i64) -> f64 {
    // Truncating division, as C++'s `%` and `/`: the same parts as tf2's for negative counts.
    let nsec = nanos % 1_000_000_000;
    let sec = (nanos - nsec) / 1_000_000_000;
    sec as f64 + 1e-9 * nsec as f64
}

/// `tf2::displayTimePoint`: seconds with six decimals (`"%.6f"`).
pub(crate) fn display(t: Time) -> String {
    // Rust's and glibc's formatting both round the exact binary value correctly, so the
    // digits are the same.
    format!("{:.6}", seconds(t.as_nanos()))
}

/// A number as C's `"%f"` prints it: six decimals, and `nan`/`inf` spelt as glibc spells them.
pub(crate) fn c_float(x: f64) -> String {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        format!("{sign}nan")
    } else if x.is_infinite() {
        format!("{sign}inf")
    } else {
        format!("{x:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_prints_with_six_decimals() {
        assert_eq!(display(Time::from_nanos(1_500_000_000)), "1.500000");
        assert_eq!(display(Time::ZERO), "0.000000");
        assert_eq!(
            display(Time::from_nanos(1_700_000_000_123_456_789)),
            "1700000000.123457"
        );
    }

    #[test]
    fn nan_and_infinity_print_as_glibc_prints_them() {
        assert_eq!(c_float(f64::NAN), "nan");
        assert_eq!(c_float(-f64::NAN), "-nan");
        assert_eq!(c_float(f64::NEG_INFINITY), "-inf");
        assert_eq!(c_float(0.5), "0.500000");
    }
}
