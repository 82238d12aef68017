//! A DDS reader of one ROS topic: takes CDR payloads from Cyclone's reader cache and decodes
//! them with `tacto::cdr`.
//!
//! A standalone reader polls. Inside a tacto context the transport's reader
//! ([`crate::transport`]) shares its take and read paths, and adds the subscription's view of
//! the cache and the data-available listener of triggering readers.

use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use cyclors::dds_entity_t;
use tacto::Message;
use tacto::cdr::DecodeError;

use crate::participant::{Participant, ParticipantInner};
use crate::qos::Qos;
use crate::retcode::DdsStatus;
use crate::topic::{Topic, TopicError};

/// Why a reader could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReaderError {
    /// The topic could not be created.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// Cyclone could not allocate a QoS object.
    #[error("Cyclone could not allocate a QoS object")]
    QosAlloc,
    /// `dds_create_reader` failed (e.g. an inconsistent QoS).
    #[error("cannot create a DDS reader on {dds_topic:?}: {status}")]
    Create {
        /// The DDS topic name.
        dds_topic: String,
        /// Cyclone's status.
        status: DdsStatus,
    },
}

/// Why a sample could not be taken (or read).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TakeError {
    /// `dds_takecdr` (or `dds_readcdr`) failed.
    #[error("DDS take failed: {0}")]
    Take(DdsStatus),
    /// Cyclone returned a sample it could not give the bytes of.
    #[error("Cyclone returned a sample without its serialized bytes")]
    NoBytes,
    /// The sample's bytes are not a `T` (malformed or another layout). A taken sample is
    /// gone from the cache, a read one is marked read: either way the next call goes on
    /// with the next sample.
    #[error("a sample on {dds_topic:?} does not decode: {error}")]
    Decode {
        /// The DDS topic name.
        dds_topic: String,
        /// What was wrong with the bytes.
        error: DecodeError,
    },
}

/// One sample as it came off the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSample {
    /// The CDR payload, encapsulation header included.
    pub payload: Vec<u8>,
    /// When the writer wrote it, nanoseconds since the Unix epoch (the writer's clock).
    pub source_timestamp_ns: i64,
    /// The local instance handle of the writer that wrote it.
    pub publication_handle: u64,
}

/// A DDS reader for messages of type `T` on one ROS topic.
#[derive(Debug)]
pub struct Reader<T: Message> {
    handle: dds_entity_t,
    // Dropped after `handle` is deleted (see Drop), and the participant after both.
    topic: Topic,
    _participant: Arc<ParticipantInner>,
    _message: PhantomData<fn() -> T>,
}

/// Creates a DDS reader on `topic` without a listener, with `user_data` as its USER_DATA QoS
/// if given: the one place typed and run-time-typed readers are made.
pub(crate) fn create(
    participant: &Participant,
    topic: &Topic,
    qos: Qos,
    user_data: Option<&str>,
) -> Result<dds_entity_t, ReaderError> {
    let native = qos.to_native().ok_or(ReaderError::QosAlloc)?;
    if let Some(data) = user_data {
        native.set_user_data(data);
    }
    // SAFETY: participant and topic handles are live; the QoS is valid for the call and
    // copied by Cyclone; no listener (polling only, see the module docs).
    let handle = unsafe {
        cyclors::dds_create_reader(
            participant.handle(),
            topic.handle(),
            native.as_ptr(),
            ptr::null(),
        )
    };
    DdsStatus::check(handle).map_err(|status| ReaderError::Create {
        dds_topic: topic.dds_name().to_owned(),
        status,
    })
}

impl<T: Message> Reader<T> {
    /// Creates a reader on ROS topic `ros_name` (`/chatter`), DDS topic `rt/chatter` of type
    /// `T::TYPE_NAME` in its DDS form, with USER_DATA `typehash=<T::TYPE_HASH>;` if `T` has
    /// one.
    pub fn new(participant: &Participant, ros_name: &str, qos: Qos) -> Result<Self, ReaderError> {
        let topic = Topic::new(participant, ros_name, T::TYPE_NAME)?;
        let user_data = crate::user_data::with_type_hash("", T::TYPE_HASH);
        Self::on_topic(participant, topic, qos, user_data.as_deref())
    }

    /// Creates a reader on `topic`, with `user_data` as its USER_DATA QoS if given.
    pub(crate) fn on_topic(
        participant: &Participant,
        topic: Topic,
        qos: Qos,
        user_data: Option<&str>,
    ) -> Result<Self, ReaderError> {
        let handle = create(participant, &topic, qos, user_data)?;
        Ok(Reader {
            handle,
            topic,
            _participant: participant.keep_alive(),
            _message: PhantomData,
        })
    }

    /// Takes the oldest sample and decodes it; `None` when the cache holds no data.
    pub fn take(&self) -> Result<Option<T>, TakeError> {
        self.take_cdr()?
            .map(|sample| self.decode(&sample))
            .transpose()
    }

    /// Takes the oldest sample's bytes; `None` when the cache holds no data. Notifications
    /// without data (a writer disposed or gone) are taken and skipped.
    pub fn take_cdr(&self) -> Result<Option<RawSample>, TakeError> {
        self.next_cdr(Access::Take)
    }

    /// Reads the oldest sample not read yet and decodes it; it stays in the cache, marked
    /// read (DDS's NOT_READ → READ sample state). `None` when every sample has been read.
    pub fn read_new(&self) -> Result<Option<T>, TakeError> {
        self.read_new_cdr()?
            .map(|sample| self.decode(&sample))
            .transpose()
    }

    /// Reads the oldest sample not read yet, as bytes (see [`Reader::read_new`]).
    pub fn read_new_cdr(&self) -> Result<Option<RawSample>, TakeError> {
        self.next_cdr(Access::ReadNew)
    }

    fn decode(&self, sample: &RawSample) -> Result<T, TakeError> {
        tacto::cdr::from_bytes(&sample.payload).map_err(|error| TakeError::Decode {
            dds_topic: self.topic.dds_name().to_owned(),
            error,
        })
    }

    fn next_cdr(&self, access: Access) -> Result<Option<RawSample>, TakeError> {
        next_cdr(self.handle, access)
    }

    /// How many writers (in this process or another) currently match this reader.
    pub fn matched_writers(&self) -> Result<u32, DdsStatus> {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_subscription_matched_status_t = unsafe { std::mem::zeroed() };
        // SAFETY: our live reader handle and a valid, writable status struct.
        let ret = unsafe { cyclors::dds_get_subscription_matched_status(self.handle, &mut status) };
        DdsStatus::check(ret)?;
        Ok(status.current_count)
    }

    /// The DDS topic name (`rt/chatter`).
    pub fn dds_topic(&self) -> &str {
        self.topic.dds_name()
    }
}

/// The next sample `access` names from `handle`, a live reader of a blob topic, copied out.
pub(crate) fn next_cdr(
    handle: dds_entity_t,
    access: Access,
) -> Result<Option<RawSample>, TakeError> {
    Ok(next_sample(handle, access)?.map(|held| RawSample {
        payload: held.cdr.as_ref().to_vec(),
        source_timestamp_ns: held.source_timestamp_ns,
        publication_handle: held.publication_handle,
    }))
}

/// A sample as Cyclone holds it: its bytes pinned in place, and its facts.
#[derive(Debug)]
pub(crate) struct HeldSample {
    /// The CDR payload, encapsulation header included, where Cyclone keeps it.
    pub(crate) cdr: PinnedCdr,
    /// As in [`RawSample`].
    pub(crate) source_timestamp_ns: i64,
    /// As in [`RawSample`].
    pub(crate) publication_handle: u64,
}

/// The next sample `access` names from `handle`, a live reader of a blob topic, its bytes
/// left in Cyclone's sample. Notifications without data (a writer disposed or gone) are
/// skipped: a take removes them, a read marks them read, so the loop moves on.
pub(crate) fn next_sample(
    handle: dds_entity_t,
    access: Access,
) -> Result<Option<HeldSample>, TakeError> {
    loop {
        let mut serdata: *mut cyclors::ddsi_serdata = ptr::null_mut();
        // SAFETY: an all-zero sample info is a valid value of this plain C struct.
        let mut info: cyclors::dds_sample_info_t = unsafe { std::mem::zeroed() };
        let n = match access {
            // SAFETY: our live reader; room for exactly one sample pointer and one info,
            // as `maxs` = 1 says. On success we own one reference to `serdata`.
            Access::Take => unsafe {
                cyclors::dds_takecdr(handle, &mut serdata, 1, &mut info, cyclors::DDS_ANY_STATE)
            },
            // SAFETY: as for the take above.
            Access::TakeNew => unsafe {
                cyclors::dds_takecdr(
                    handle,
                    &mut serdata,
                    1,
                    &mut info,
                    cyclors::DDS_NOT_READ_SAMPLE_STATE,
                )
            },
            // A mask with only a sample state leaves view and instance states at "any".
            // SAFETY: as for the take above; a read sample's reference is ours as well.
            Access::ReadNew => unsafe {
                cyclors::dds_readcdr(
                    handle,
                    &mut serdata,
                    1,
                    &mut info,
                    cyclors::DDS_NOT_READ_SAMPLE_STATE,
                )
            },
        };
        let n = DdsStatus::check(n).map_err(TakeError::Take)?;
        if n == 0 || serdata.is_null() {
            return Ok(None);
        }
        let owned = SerdataRef(serdata);
        if !info.valid_data {
            continue;
        }
        // SAFETY: we hold a reference (`owned`), so the sample is alive for the call; the
        // pin takes a reference of its own.
        let cdr = unsafe { PinnedCdr::pin(owned.0) }.ok_or(TakeError::NoBytes)?;
        return Ok(Some(HeldSample {
            cdr,
            source_timestamp_ns: info.source_timestamp,
            publication_handle: info.publication_handle,
        }));
    }
}

impl<T: Message> Drop for Reader<T> {
    fn drop(&mut self) {
        // SAFETY: our own reader handle, deleted once; the topic is deleted after it (field
        // drop order), as Cyclone requires.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}

/// Whether a sample leaves the reader's cache or stays there, marked read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Access {
    /// The oldest sample, any state, removed.
    Take,
    /// The oldest NOT_READ sample, removed.
    TakeNew,
    /// The oldest NOT_READ sample, marked READ.
    ReadNew,
}

/// One reference to a Cyclone sample, released on drop.
struct SerdataRef(*mut cyclors::ddsi_serdata);

impl Drop for SerdataRef {
    fn drop(&mut self) {
        // SAFETY: releases the one reference dds_takecdr gave us.
        unsafe { cyclors::ddsi_serdata_unref(self.0) };
    }
}

/// The serialized bytes of a Cyclone sample, read in place: the sample stays alive, its
/// bytes unmoved, until this is dropped (`ddsi_serdata_to_ser_ref` / `_unref`). What a
/// subscription decodes from, without copying the payload out first.
pub(crate) struct PinnedCdr {
    /// The reference `ddsi_serdata_to_ser_ref` returned, released on drop.
    serdata: *mut cyclors::ddsi_serdata,
    iov: cyclors::ddsrt_iovec_t,
}

// SAFETY: the pinned bytes are never written after the sample was made, and Cyclone's
// reference counts are atomic: the sample may be read and released from any thread.
unsafe impl Send for PinnedCdr {}
// SAFETY: as for Send; `&PinnedCdr` only reads the bytes.
unsafe impl Sync for PinnedCdr {}

impl PinnedCdr {
    /// Pins the bytes of `serdata`; `None` if Cyclone cannot give them in one piece.
    ///
    /// # Safety
    /// `serdata` must be a live sample for the duration of the call (a reference is held).
    pub(crate) unsafe fn pin(serdata: *mut cyclors::ddsi_serdata) -> Option<PinnedCdr> {
        // SAFETY: the caller guarantees the sample is alive.
        let size = unsafe { cyclors::ddsi_serdata_size(serdata) } as usize;
        let mut iov = cyclors::ddsrt_iovec_t {
            iov_base: ptr::null_mut(),
            iov_len: 0,
        };
        // SAFETY: as above; `iov` is a valid out-parameter. On success the call returns a
        // second reference that pins the bytes `iov` points at until `to_ser_unref`.
        let pinned = unsafe { cyclors::ddsi_serdata_to_ser_ref(serdata, 0, size, &mut iov) };
        if pinned.is_null() {
            return None;
        }
        let held = PinnedCdr {
            serdata: pinned,
            iov,
        };
        (!held.iov.iov_base.is_null()).then_some(held)
    }
}

impl AsRef<[u8]> for PinnedCdr {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: Cyclone guarantees `iov_len` readable bytes at `iov_base` (non-null, checked
        // in `pin`) while the reference from to_ser_ref is held, which it is until drop.
        unsafe { std::slice::from_raw_parts(self.iov.iov_base.cast::<u8>(), self.iov.iov_len) }
    }
}

impl std::fmt::Debug for PinnedCdr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinnedCdr({} bytes)", self.iov.iov_len)
    }
}

impl Drop for PinnedCdr {
    fn drop(&mut self) {
        // SAFETY: releases exactly the reference to_ser_ref returned, with its iovec, once.
        unsafe { cyclors::ddsi_serdata_to_ser_unref(self.serdata, &self.iov) };
    }
}
