//! A DDS writer of one ROS topic: writes CDR payloads (encapsulation header included) that
//! `tacto::cdr` produced, as a ROS 2 publisher would.
//!
//! Inside a tacto context the transport's writer ([`crate::transport`]) shares its write path
//! and keeps a publication-matched count, so that `publish` encodes only for remote readers.

use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use cyclors::dds_entity_t;
use tacto::Message;
use tacto::cdr::EncodeError;

use crate::participant::{Participant, ParticipantInner};
use crate::qos::Qos;
use crate::retcode::DdsStatus;
use crate::topic::{Topic, TopicError};
use crate::user_data;

/// Why a writer could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriterError {
    /// The topic could not be created.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// Cyclone could not allocate a QoS object.
    #[error("Cyclone could not allocate a QoS object")]
    QosAlloc,
    /// `dds_create_writer` failed (e.g. an inconsistent QoS).
    #[error("cannot create a DDS writer on {dds_topic:?}: {status}")]
    Create {
        /// The DDS topic name.
        dds_topic: String,
        /// Cyclone's status.
        status: DdsStatus,
    },
}

/// Why a sample was not written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The message could not be encoded as CDR.
    #[error("cannot encode the message as CDR: {0}")]
    Encode(#[from] EncodeError),
    /// The payload lacks the 4-byte CDR encapsulation header every DDS sample starts with.
    #[error("a CDR payload starts with a 4-byte encapsulation header; got {len} bytes")]
    MissingHeader {
        /// The payload's length.
        len: usize,
    },
    /// Cyclone counts a sample's size in 32 bits.
    #[error("a {len}-byte payload is larger than a DDS sample can be (4 GiB)")]
    TooLarge {
        /// The payload's length.
        len: usize,
    },
    /// Cyclone could not make a sample of the bytes (out of memory).
    #[error("Cyclone could not allocate a sample")]
    Alloc,
    /// Looking up the writer's type failed.
    #[error("cannot look up the writer's type: {0}")]
    Sertype(DdsStatus),
    /// `dds_writecdr` failed (e.g. a reliable KEEP_ALL writer timed out on a full history).
    #[error("DDS write failed: {0}")]
    Write(DdsStatus),
}

/// A DDS writer for messages of type `T` on one ROS topic.
///
/// Thread-safe: Cyclone serializes writes on one writer internally.
#[derive(Debug)]
pub struct Writer<T: Message> {
    handle: dds_entity_t,
    // Dropped after `handle` is deleted (see Drop), and the participant after both.
    topic: Topic,
    _participant: Arc<ParticipantInner>,
    _message: PhantomData<fn(&T)>,
}

/// Creates a DDS writer on `topic`, with `user_data` as its USER_DATA QoS if given: the one
/// place typed and run-time-typed writers are made.
pub(crate) fn create(
    participant: &Participant,
    topic: &Topic,
    qos: Qos,
    user_data: Option<&str>,
) -> Result<dds_entity_t, WriterError> {
    let native = qos.to_native().ok_or(WriterError::QosAlloc)?;
    if let Some(data) = user_data {
        native.set_user_data(data);
    }
    // SAFETY: participant and topic handles are live (borrowed here); the QoS is valid for
    // the call and copied by Cyclone; a null listener is allowed.
    let handle = unsafe {
        cyclors::dds_create_writer(
            participant.handle(),
            topic.handle(),
            native.as_ptr(),
            ptr::null(),
        )
    };
    DdsStatus::check(handle).map_err(|status| WriterError::Create {
        dds_topic: topic.dds_name().to_owned(),
        status,
    })
}

impl<T: Message> Writer<T> {
    /// Creates a writer on ROS topic `ros_name` (`/chatter`), DDS topic `rt/chatter` of type
    /// `T::TYPE_NAME` in its DDS form, with USER_DATA `typehash=<T::TYPE_HASH>;` if `T` has
    /// one.
    pub fn new(participant: &Participant, ros_name: &str, qos: Qos) -> Result<Self, WriterError> {
        let topic = Topic::new(participant, ros_name, T::TYPE_NAME)?;
        let user_data = user_data::with_type_hash("", T::TYPE_HASH);
        Self::on_topic(participant, topic, qos, user_data.as_deref())
    }

    /// Creates a writer on `topic`, with `user_data` as its USER_DATA QoS if given.
    pub(crate) fn on_topic(
        participant: &Participant,
        topic: Topic,
        qos: Qos,
        user_data: Option<&str>,
    ) -> Result<Self, WriterError> {
        let handle = create(participant, &topic, qos, user_data)?;
        Ok(Writer {
            handle,
            topic,
            _participant: participant.keep_alive(),
            _message: PhantomData,
        })
    }

    /// Encodes `message` with `tacto::cdr` and writes it.
    pub fn write(&self, message: &T) -> Result<(), WriteError> {
        let bytes = tacto::cdr::to_vec(message)?;
        self.write_cdr(&bytes)
    }

    /// Writes a CDR payload as it goes on the wire: encapsulation header, then the body.
    /// Cyclone copies the bytes; `payload` can be reused at once.
    pub fn write_cdr(&self, payload: &[u8]) -> Result<(), WriteError> {
        write_cdr(self.handle, payload)
    }

    /// How many readers (in this process or another) currently match this writer.
    pub fn matched_readers(&self) -> Result<u32, DdsStatus> {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_publication_matched_status_t = unsafe { std::mem::zeroed() };
        // SAFETY: our live writer handle and a valid, writable status struct.
        let ret = unsafe { cyclors::dds_get_publication_matched_status(self.handle, &mut status) };
        DdsStatus::check(ret)?;
        Ok(status.current_count)
    }

    /// The DDS topic name (`rt/chatter`).
    pub fn dds_topic(&self) -> &str {
        self.topic.dds_name()
    }

    /// The writer's instance handle, a 64-bit number unique in this process: rmw_cyclonedds
    /// identifies a service client by that of its request writer.
    pub(crate) fn instance_handle(&self) -> Result<u64, DdsStatus> {
        let mut handle: cyclors::dds_instance_handle_t = 0;
        // SAFETY: our live writer handle and a valid out-pointer.
        let ret = unsafe { cyclors::dds_get_instance_handle(self.handle, &mut handle) };
        DdsStatus::check(ret)?;
        Ok(handle)
    }
}

/// Writes `payload` (see [`Writer::write_cdr`]) with `handle`, a live writer of a blob topic.
pub(crate) fn write_cdr(handle: dds_entity_t, payload: &[u8]) -> Result<(), WriteError> {
    {
        if payload.len() < 4 {
            return Err(WriteError::MissingHeader { len: payload.len() });
        }
        if u32::try_from(payload.len()).is_err() {
            return Err(WriteError::TooLarge { len: payload.len() });
        }
        let mut sertype: *const cyclors::ddsi_sertype = ptr::null();
        // SAFETY: our live writer handle; `sertype` is a valid out-pointer. The sertype
        // returned is owned by the topic, which outlives this call.
        let ret = unsafe { cyclors::dds_get_entity_sertype(handle, &mut sertype) };
        DdsStatus::check(ret).map_err(WriteError::Sertype)?;
        let iov = cyclors::ddsrt_iovec_t {
            iov_base: payload.as_ptr().cast_mut().cast(),
            iov_len: payload.len(),
        };
        // SAFETY: `sertype` is the blob sertype of our topic; the iovec points at `payload`,
        // alive and unchanged for the call. The blob type's from_ser_iov copies the bytes
        // (it never writes through `iov_base`) and returns a sample with one reference.
        let serdata = unsafe {
            cyclors::ddsi_serdata_from_ser_iov(
                sertype,
                cyclors::ddsi_serdata_kind_SDK_DATA,
                1,
                &iov,
                payload.len(),
            )
        };
        if serdata.is_null() {
            return Err(WriteError::Alloc);
        }
        // SAFETY: our live writer and a sample of its type. dds_writecdr consumes the
        // sample's reference on every path past its writer lookup; the lookup cannot fail
        // while we own the writer, and our topics have no filter (its other early return), so
        // the sample is never leaked nor freed twice.
        let ret = unsafe { cyclors::dds_writecdr(handle, serdata) };
        DdsStatus::check(ret).map_err(WriteError::Write)?;
        Ok(())
    }
}

impl<T: Message> Drop for Writer<T> {
    fn drop(&mut self) {
        // SAFETY: our own writer handle, deleted once; the topic is deleted after it (field
        // drop order), as Cyclone requires.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}
