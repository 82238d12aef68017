//! An endpoint's USER_DATA as the ROS 2 rmw layers fill it: `key=value;` pairs, one after
//! the other (`serviceid=<id>;typehash=RIHS01_<64 hex>;`), read and written here.

use std::ffi::c_void;
use std::ptr;

/// The USER_DATA of an endpoint of type hash `type_hash` (if known), after `pairs` (the
/// `serviceid=...;` or `clientid=...;` of a service's endpoints, or nothing), as
/// rmw_cyclonedds appends the hash to what it had. `None` for nothing at all.
pub(crate) fn with_type_hash(pairs: &str, type_hash: Option<&str>) -> Option<String> {
    let mut data = pairs.to_owned();
    if let Some(hash) = type_hash {
        data.push_str("typehash=");
        data.push_str(hash);
        data.push(';');
    }
    (!data.is_empty()).then_some(data)
}

/// The value of `key` in USER_DATA `text`, as rmw parses it: pairs split at `;`, each at its
/// first `=`.
pub(crate) fn value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.split(';')
        .filter_map(|pair| pair.split_once('='))
        .find_map(|(k, v)| (k == key).then_some(v))
}

/// The `typehash` of USER_DATA `text` if it is a well-formed `RIHS01_<64 lowercase hex>`;
/// anything else (another version, garbage) counts as no hash.
pub(crate) fn type_hash(text: &str) -> Option<String> {
    let hash = value(text, "typehash")?;
    let hex = hash.strip_prefix("RIHS01_")?;
    let well_formed =
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    well_formed.then(|| hash.to_owned())
}

/// The USER_DATA of `qos` as text (lossy: the rmw keys and values are ASCII); `None` if it
/// has none.
///
/// # Safety
/// `qos` is null or a live QoS object.
pub(crate) unsafe fn read(qos: *const cyclors::dds_qos_t) -> Option<String> {
    if qos.is_null() {
        return None;
    }
    let mut value: *mut c_void = ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: the caller's guarantee; valid out-pointers. On success Cyclone gives us a copy.
    let found = unsafe { cyclors::dds_qget_userdata(qos, &mut value, &mut size) };
    if !found || value.is_null() {
        return None;
    }
    // SAFETY: Cyclone's copy holds `size` bytes; copied out before it is freed.
    let text =
        String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(value.cast::<u8>(), size) })
            .into_owned();
    // SAFETY: the copy Cyclone allocated for us, freed once.
    unsafe { cyclors::dds_free(value) };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";

    #[test]
    fn pairs_are_appended_and_found_again() {
        let data = with_type_hash("serviceid=01.02;", Some(HASH)).unwrap();
        assert_eq!(data, format!("serviceid=01.02;typehash={HASH};"));
        assert_eq!(value(&data, "serviceid"), Some("01.02"));
        assert_eq!(type_hash(&data).as_deref(), Some(HASH));
        assert_eq!(with_type_hash("", None), None);
        assert_eq!(
            with_type_hash("clientid=7;", None).as_deref(),
            Some("clientid=7;")
        );
    }

    #[test]
    fn a_malformed_hash_is_no_hash() {
        assert_eq!(type_hash("typehash=RIHS01_abc;"), None);
        assert_eq!(
            type_hash(&format!("typehash={};", HASH.replace("RIHS01", "RIHS02"))),
            None
        );
        assert_eq!(
            type_hash(&format!("typehash={};", HASH.to_uppercase())),
            None
        );
        assert_eq!(type_hash("garbage"), None);
        assert_eq!(type_hash(&format!("xtypehash={HASH};")), None);
    }
}
