//! The tacto processes that this process reaches through shared memory, as DDS sees them: a
//! [`DdsTransport::beside_shm`](crate::DdsTransport::beside_shm) puts
//! `tactoshm=<key>;` in each endpoint's USER_DATA (the key: a hash of the host's boot id and
//! the iceoryx2 root, see `tacto_shm::ShmNode::host_key`), and leaves to shared memory every
//! endpoint that announces the same key:
//! - its writers count only matched readers without the key in `has_remote_readers`, so a
//!   graph of tacto processes on one host sends nothing over DDS;
//! - its readers drop, before they are stored, the samples of writers with the key (a
//!   Cyclone topic filter on the reader's own topic entity), which reach them through shared
//!   memory; an rclpy node on the same host announces no key and is served over DDS.
//!
//! Both decide by the same two announcements, made before either endpoint exists, so a
//! sample never comes both ways. The one gap: a writer matched while the reader is being
//! created (Cyclone cannot be asked about the reader then) is looked at right after, and a
//! sample of it stored in between is kept: a transient-local history, mostly, which shared
//! memory does not replay, or a live one published in those microseconds (then twice).

use std::ffi::c_void;
use std::sync::{Mutex, PoisonError};

use cyclors::{dds_entity_t, dds_instance_handle_t};

use crate::user_data;

/// The USER_DATA key of the announcement.
const KEY: &str = "tactoshm";

/// The key a process with shared memory announces: FNV-1a of the host key, in hex (fixed
/// length, and none of rmw's separators `;` and `=`).
pub(crate) fn announced(host_key: &str) -> String {
    let hash = (host_key.bytes()).fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// The `tactoshm=<key>;` pair of an endpoint of a process with key `key`.
pub(crate) fn pair(key: &str) -> String {
    format!("{KEY}={key};")
}

/// True if `endpoint` (from `dds_get_matched_*_data`, null if Cyclone knew none) announces
/// `key`; frees it.
///
/// # Safety
/// `endpoint` is null or a description Cyclone allocated for us, not used afterwards.
unsafe fn announces(endpoint: *mut cyclors::dds_builtintopic_endpoint_t, key: &str) -> bool {
    if endpoint.is_null() {
        return false;
    }
    // SAFETY: the caller's guarantee: a valid description, whose QoS is null or valid.
    let data = unsafe { user_data::read((*endpoint).qos) };
    // SAFETY: frees the description once.
    unsafe { cyclors::dds_builtintopic_free_endpoint(endpoint) };
    data.is_some_and(|data| user_data::value(&data, KEY) == Some(key))
}

/// More endpoints than one topic ever matches: past this, the rest are not looked at (a
/// writer then counts them as not announcing, and sends: nothing is lost).
const MAX_MATCHED: usize = 4096;

/// The instance handles of the endpoints matched with `entity` now, by `list`
/// (`dds_get_matched_subscriptions` or `_publications`); empty if Cyclone refuses.
fn matched(
    entity: dds_entity_t,
    list: unsafe extern "C" fn(dds_entity_t, *mut dds_instance_handle_t, usize) -> i32,
) -> Vec<dds_instance_handle_t> {
    let mut handles = vec![0; 16];
    loop {
        // SAFETY: our live entity and a writable buffer of `handles.len()` handles.
        let count = unsafe { list(entity, handles.as_mut_ptr(), handles.len()) };
        let Ok(count) = usize::try_from(count) else {
            return Vec::new();
        };
        // More than the buffer: Cyclone filled it and says how many there are.
        if count <= handles.len() || handles.len() >= MAX_MATCHED {
            handles.truncate(count);
            return handles;
        }
        handles.resize(count.min(MAX_MATCHED), 0);
    }
}

/// Readers matched with `writer` that do not announce `key`.
pub(crate) fn readers_elsewhere(writer: dds_entity_t, key: &str) -> u32 {
    let handles = matched(writer, cyclors::dds_get_matched_subscriptions);
    let elsewhere = handles.into_iter().filter(|&handle| {
        // SAFETY: our live writer; Cyclone returns a new description or null.
        let endpoint = unsafe { cyclors::dds_get_matched_subscription_data(writer, handle) };
        // SAFETY: just returned by Cyclone, used only here.
        !unsafe { announces(endpoint, key) }
    });
    u32::try_from(elsewhere.count()).unwrap_or(u32::MAX)
}

/// A reader's filter: the writers it leaves to shared memory, by Cyclone's publication
/// handle. Boxed by its reader: Cyclone's filter and listener hold its address.
#[derive(Debug)]
pub(crate) struct ShmWriters {
    key: String,
    /// Those matched now; at most [`MAX_MATCHED`].
    handles: Mutex<Vec<dds_instance_handle_t>>,
}

impl ShmWriters {
    pub(crate) fn new(key: &str) -> Self {
        ShmWriters {
            key: key.to_owned(),
            handles: Mutex::default(),
        }
    }

    /// Looks at the writers matched with `reader` now: on each match, and once the reader
    /// exists. Under the lock, so that two refreshes cannot store their lists out of order.
    pub(crate) fn refresh(&self, reader: dds_entity_t) {
        let mut handles = self.handles.lock().unwrap_or_else(PoisonError::into_inner);
        let matched = matched(reader, cyclors::dds_get_matched_publications);
        *handles = (matched.into_iter())
            .filter(|&handle| {
                // SAFETY: our live reader; Cyclone returns a new description or null.
                let endpoint = unsafe { cyclors::dds_get_matched_publication_data(reader, handle) };
                // SAFETY: just returned by Cyclone, used only here.
                unsafe { announces(endpoint, &self.key) }
            })
            .collect();
    }

    fn accepts(&self, publication: dds_instance_handle_t) -> bool {
        let handles = self.handles.lock().unwrap_or_else(PoisonError::into_inner);
        !handles.contains(&publication)
    }

    /// Sets the filter on `topic`, the reader's own topic entity, before the reader is made.
    pub(crate) fn filter(&self, topic: dds_entity_t) -> Result<(), crate::DdsStatus> {
        let filter = cyclors::dds_topic_filter {
            mode: cyclors::dds_topic_filter_mode_DDS_TOPIC_FILTER_SAMPLEINFO_ARG,
            f: cyclors::dds_topic_filter_function_union {
                sampleinfo_arg: Some(accepts),
            },
            arg: std::ptr::from_ref(self).cast_mut().cast(),
        };
        // SAFETY: our live topic; Cyclone copies the filter; `self` outlives the topic (see
        // the callback).
        let ret = unsafe { cyclors::dds_set_topic_filter_extended(topic, &filter) };
        crate::DdsStatus::check(ret).map(drop)
    }
}

/// Cyclone's filter, on its receive thread, before a sample is stored in the reader's cache.
unsafe extern "C" fn accepts(info: *const cyclors::dds_sample_info_t, arg: *mut c_void) -> bool {
    // SAFETY: `arg` is the reader's boxed `ShmWriters`, which outlives the reader and its
    // topic entity (both deleted first); Cyclone passes a valid sample info.
    let (writers, info) = unsafe { (&*arg.cast::<ShmWriters>(), &*info) };
    writers.accepts(info.publication_handle)
}

/// Cyclone's subscription-matched callback of a reader with a filter.
pub(crate) unsafe extern "C" fn on_subscription_matched(
    reader: dds_entity_t,
    _status: cyclors::dds_subscription_matched_status_t,
    arg: *mut c_void,
) {
    // SAFETY: as for `accepts`: the reader's boxed `ShmWriters`, alive while it is.
    let writers = unsafe { &*arg.cast::<ShmWriters>() };
    writers.refresh(reader);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_announced_key_is_fixed_length_hex() {
        let key = announced("0b1e:/tmp/iceoryx2/:iox2_");
        assert_eq!(key.len(), 16);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(key, announced("0b1f:/tmp/iceoryx2/:iox2_"));
        assert_eq!(pair(&key), format!("tactoshm={key};"));
    }
}
