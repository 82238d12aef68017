//! A DDS writer of one ROS topic: writes CDR payloads (encapsulation header included) that
//! `tacto::cdr` produced, as a ROS 2 publisher would.
//!
//! Inside a tacto context the transport's writer ([`crate::transport`]) shares its write path
//! and keeps a publication-matched count, so that `publish` encodes only for remote readers.

use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::{self, NonNull};
use std::sync::Arc;

use cyclors::dds_entity_t;
use tacto::Message;
use tacto::cdr::{Encodable, EncodeError};

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
    /// The message encoded to another length than it was counted at (`counted` bytes): its
    /// `Serialize` implementation is not deterministic. Nothing was sent.
    #[error("the message's encoding changed length after it was counted at {counted} bytes")]
    LengthChanged {
        /// The length counted first.
        counted: usize,
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

    /// Encodes `message` with `tacto::cdr` and writes it: straight into Cyclone's sample if
    /// its length is cheap to count ([`tacto::cdr::cheap_encoded_len`]), else into a new
    /// buffer that Cyclone copies.
    pub fn write(&self, message: &T) -> Result<(), WriteError> {
        match message.cheap_encoded_len() {
            Some(len) => write_in_place(self.handle, message, len),
            None => self.write_cdr(&tacto::cdr::to_vec(message)?),
        }
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
    if payload.len() < 4 {
        return Err(WriteError::MissingHeader { len: payload.len() });
    }
    Unsent::copy(handle, payload)?.write(handle)
}

/// Writes `message`, whose encoding is `len` bytes long ([`Encodable::cheap_encoded_len`]),
/// with `handle`, a live writer of a blob topic: encoded straight into the sample Cyclone
/// sends, so that its bytes are written once (no buffer of ours for Cyclone to copy).
pub(crate) fn write_in_place(
    handle: dds_entity_t,
    message: &dyn Encodable,
    len: usize,
) -> Result<(), WriteError> {
    let mut sample = Unsent::uninit(handle, len)?;
    match sample.fill(|out| message.encode_to_slice(out))? {
        Ok(written) if written == len => sample.write(handle),
        Ok(_) | Err(EncodeError::BufferTooSmall { .. }) => {
            Err(WriteError::LengthChanged { counted: len })
        }
        Err(error) => Err(error.into()),
    }
}

/// A sample of a blob topic, not written yet: Cyclone's serdata and our one reference to it,
/// released on drop unless [`write`](Self::write) hands it to Cyclone.
struct Unsent {
    serdata: NonNull<cyclors::ddsi_serdata>,
    len: usize,
}

impl Unsent {
    /// A sample holding a copy of `payload`.
    fn copy(handle: dds_entity_t, payload: &[u8]) -> Result<Self, WriteError> {
        let iov = cyclors::ddsrt_iovec_t {
            iov_base: payload.as_ptr().cast_mut().cast(),
            iov_len: payload.len(),
        };
        Self::gather(handle, &[iov], payload.len())
    }

    /// A sample of `len` uninitialized bytes, for [`fill`](Self::fill) to write every one of
    /// before it is written.
    fn uninit(handle: dds_entity_t, len: usize) -> Result<Self, WriteError> {
        Self::gather(handle, &[], len)
    }

    /// A sample of `len` bytes, `iov`'s one after the other (exactly `len` of them, or none).
    fn gather(
        handle: dds_entity_t,
        iov: &[cyclors::ddsrt_iovec_t],
        len: usize,
    ) -> Result<Self, WriteError> {
        if u32::try_from(len).is_err() {
            return Err(WriteError::TooLarge { len });
        }
        let mut sertype: *const cyclors::ddsi_sertype = ptr::null();
        // SAFETY: a live writer handle (the caller's); `sertype` is a valid out-pointer. The
        // sertype returned is owned by the topic, which outlives this call.
        let ret = unsafe { cyclors::dds_get_entity_sertype(handle, &mut sertype) };
        DdsStatus::check(ret).map_err(WriteError::Sertype)?;
        // SAFETY: `sertype` is the blob sertype of our topic (cyclors' cyclocut). Its
        // from_ser_iov mallocs `len` bytes and copies each iovec into them in turn, reading
        // only `iov[..iov.len()]` (so an empty slice's dangling, non-null pointer is never
        // read), never writing through `iov_base`; the iovecs point at memory alive for the
        // call (the caller's). It returns a sample with one reference.
        let serdata = unsafe {
            cyclors::ddsi_serdata_from_ser_iov(
                sertype,
                cyclors::ddsi_serdata_kind_SDK_DATA,
                iov.len(),
                iov.as_ptr(),
                len,
            )
        };
        let serdata = NonNull::new(serdata).ok_or(WriteError::Alloc)?;
        Ok(Unsent { serdata, len })
    }

    /// Lets `encode` write the sample's bytes in place (they may be uninitialized before).
    fn fill<R>(
        &mut self,
        encode: impl FnOnce(&mut [MaybeUninit<u8>]) -> R,
    ) -> Result<R, WriteError> {
        let mut pin = Pin {
            serdata: ptr::null_mut(),
            iov: cyclors::ddsrt_iovec_t {
                iov_base: ptr::null_mut(),
                iov_len: 0,
            },
        };
        // SAFETY: our reference keeps the sample alive; the size is the one it was made with;
        // `pin.iov` is a valid out-parameter. The blob type's to_ser_ref points it at the
        // sample's own buffer and returns a second reference, released by `pin`'s drop.
        pin.serdata = unsafe {
            cyclors::ddsi_serdata_to_ser_ref(self.serdata.as_ptr(), 0, self.len, &mut pin.iov)
        };
        if pin.serdata.is_null() || pin.iov.iov_base.is_null() {
            return Err(WriteError::Alloc);
        }
        // SAFETY: `iov` covers the bytes the blob type malloc'd for this sample, `iov_len` of
        // them, valid while `pin` holds its reference (to the end of this function). Nobody
        // else reads or writes them: the sample has not been written, so only our two
        // references exist, both held here. `MaybeUninit`: they are uninitialized.
        let out = unsafe {
            std::slice::from_raw_parts_mut(
                pin.iov.iov_base.cast::<MaybeUninit<u8>>(),
                pin.iov.iov_len,
            )
        };
        Ok(encode(out))
    }

    /// Hands the sample to `dds_writecdr` with `handle`, a live writer of its topic.
    fn write(self, handle: dds_entity_t) -> Result<(), WriteError> {
        let serdata = ManuallyDrop::new(self).serdata;
        // SAFETY: a live writer and a sample of its type. dds_writecdr consumes the sample's
        // reference on every path past its writer lookup; the lookup cannot fail while the
        // caller owns the writer, and our topics have no filter (its other early return), so
        // the sample is never leaked nor freed twice (`ManuallyDrop`: not released here).
        let ret = unsafe { cyclors::dds_writecdr(handle, serdata.as_ptr()) };
        DdsStatus::check(ret).map_err(WriteError::Write)?;
        Ok(())
    }
}

impl Drop for Unsent {
    fn drop(&mut self) {
        // SAFETY: releases our one reference, once (`write` forgets the sample instead): an
        // unwritten sample, uninitialized bytes and all, is freed, never sent.
        unsafe { cyclors::ddsi_serdata_unref(self.serdata.as_ptr()) };
    }
}

/// The second reference `ddsi_serdata_to_ser_ref` returns, with its iovec; released on drop.
struct Pin {
    serdata: *mut cyclors::ddsi_serdata,
    iov: cyclors::ddsrt_iovec_t,
}

impl Drop for Pin {
    fn drop(&mut self) {
        if !self.serdata.is_null() {
            // SAFETY: releases exactly the reference to_ser_ref returned, with its iovec, once.
            unsafe { cyclors::ddsi_serdata_to_ser_unref(self.serdata, &self.iov) };
        }
    }
}

impl<T: Message> Drop for Writer<T> {
    fn drop(&mut self) {
        // SAFETY: our own writer handle, deleted once; the topic is deleted after it (field
        // drop order), as Cyclone requires.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}
