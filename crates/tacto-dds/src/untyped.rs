//! A reader and a writer of one ROS topic whose type is known only by name at run time: they
//! carry CDR bytes, for a caller that decodes and encodes them itself (`tacto topic echo` and
//! `tacto topic pub` with dynamic types).

use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use cyclors::dds_entity_t;

use crate::participant::{Participant, ParticipantInner};
use crate::qos::Qos;
use crate::reader::{Access, RawSample, ReaderError, TakeError, next_cdr};
use crate::retcode::DdsStatus;
use crate::topic::Topic;
use crate::user_data;
use crate::writer::{WriteError, WriterError, write_cdr};

/// A DDS reader of raw CDR samples on ROS topic `ros_name` of ROS type `ros_type`, with a wait
/// for data.
///
/// ```no_run
/// use std::time::Duration;
/// let participant = tacto_dds::Participant::from_env()?;
/// let reader = tacto_dds::UntypedReader::new(
///     &participant, "/chatter", "std_msgs/msg/String", None, tacto_dds::Qos::default())?;
/// if reader.wait(Duration::from_secs(1))? {
///     while let Some(sample) = reader.take_cdr()? {
///         println!("{} bytes", sample.payload.len());
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct UntypedReader {
    waitset: dds_entity_t,
    handle: dds_entity_t,
    // Deleted after the reader (see Drop), and the participant after both.
    _topic: Topic,
    _participant: Arc<ParticipantInner>,
}

impl UntypedReader {
    /// A reader of `ros_name` (`/chatter`) with type `ros_type` (`std_msgs/msg/String`), whose
    /// USER_DATA gives `type_hash` (`RIHS01_...`) if known.
    pub fn new(
        participant: &Participant,
        ros_name: &str,
        ros_type: &str,
        type_hash: Option<&str>,
        qos: Qos,
    ) -> Result<UntypedReader, ReaderError> {
        let topic = Topic::new(participant, ros_name, ros_type)?;
        let user_data = user_data::with_type_hash("", type_hash);
        Self::on_topic(participant, topic, qos, user_data.as_deref())
    }

    /// A reader on `topic`, with `user_data` as its USER_DATA QoS if given.
    pub(crate) fn on_topic(
        participant: &Participant,
        topic: Topic,
        qos: Qos,
        user_data: Option<&str>,
    ) -> Result<UntypedReader, ReaderError> {
        let handle = crate::reader::create(participant, &topic, qos, user_data)?;
        let waitset = Self::waitset(participant, handle).map_err(|status| {
            // SAFETY: our reader, not handed out yet.
            unsafe { cyclors::dds_delete(handle) };
            ReaderError::Create {
                dds_topic: topic.dds_name().to_owned(),
                status,
            }
        })?;
        Ok(UntypedReader {
            waitset,
            handle,
            _topic: topic,
            _participant: participant.keep_alive(),
        })
    }

    /// A waitset that triggers while the reader holds a sample.
    fn waitset(participant: &Participant, reader: dds_entity_t) -> Result<dds_entity_t, DdsStatus> {
        // SAFETY: a live reader; the condition is its child, deleted with it.
        let condition = DdsStatus::check(unsafe {
            cyclors::dds_create_readcondition(reader, cyclors::DDS_ANY_STATE)
        })?;
        // SAFETY: a live participant owns the waitset.
        let waitset =
            DdsStatus::check(unsafe { cyclors::dds_create_waitset(participant.handle()) })?;
        // SAFETY: live waitset and condition of the same participant.
        let attached = unsafe { cyclors::dds_waitset_attach(waitset, condition, 0) };
        if let Err(status) = DdsStatus::check(attached) {
            // SAFETY: our waitset, not handed out.
            unsafe { cyclors::dds_delete(waitset) };
            return Err(status);
        }
        Ok(waitset)
    }

    /// Waits up to `timeout` for a sample; true if one is there.
    pub fn wait(&self, timeout: Duration) -> Result<bool, DdsStatus> {
        let ns = i64::try_from(timeout.as_nanos()).unwrap_or(i64::MAX);
        // SAFETY: our live waitset; no attachment array is asked for.
        let n = unsafe { cyclors::dds_waitset_wait(self.waitset, ptr::null_mut(), 0, ns) };
        Ok(DdsStatus::check(n)? > 0)
    }

    /// Takes the oldest sample's bytes; `None` when there is none.
    pub fn take_cdr(&self) -> Result<Option<RawSample>, TakeError> {
        next_cdr(self.handle, Access::Take)
    }

    /// How many writers currently match this reader.
    pub fn matched_writers(&self) -> Result<u32, DdsStatus> {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_subscription_matched_status_t = unsafe { std::mem::zeroed() };
        // SAFETY: our live reader handle and a valid, writable status struct.
        let ret = unsafe { cyclors::dds_get_subscription_matched_status(self.handle, &mut status) };
        DdsStatus::check(ret)?;
        Ok(status.current_count)
    }
}

impl Drop for UntypedReader {
    fn drop(&mut self) {
        // SAFETY: our own waitset and reader (its read condition goes with it), each deleted
        // once, before the topic (field order).
        unsafe {
            cyclors::dds_delete(self.waitset);
            cyclors::dds_delete(self.handle);
        }
    }
}

/// A DDS writer of raw CDR payloads on ROS topic `ros_name` of ROS type `ros_type`.
///
/// ```no_run
/// let participant = tacto_dds::Participant::from_env()?;
/// let writer = tacto_dds::UntypedWriter::new(
///     &participant, "/chatter", "std_msgs/msg/String", None, tacto_dds::Qos::default())?;
/// // Encapsulation header (little-endian CDR), then the string "hi" with its NUL.
/// writer.write_cdr(&[0, 1, 0, 0, 3, 0, 0, 0, b'h', b'i', 0, 0])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct UntypedWriter {
    handle: dds_entity_t,
    // Deleted after the writer (see Drop), and the participant after both.
    _topic: Topic,
    _participant: Arc<ParticipantInner>,
}

impl UntypedWriter {
    /// A writer of `ros_name` (`/chatter`) with type `ros_type` (`std_msgs/msg/String`), whose
    /// USER_DATA gives `type_hash` (`RIHS01_...`) if known.
    pub fn new(
        participant: &Participant,
        ros_name: &str,
        ros_type: &str,
        type_hash: Option<&str>,
        qos: Qos,
    ) -> Result<UntypedWriter, WriterError> {
        let topic = Topic::new(participant, ros_name, ros_type)?;
        let user_data = user_data::with_type_hash("", type_hash);
        Self::on_topic(participant, topic, qos, user_data.as_deref())
    }

    /// A writer on `topic`, with `user_data` as its USER_DATA QoS if given.
    pub(crate) fn on_topic(
        participant: &Participant,
        topic: Topic,
        qos: Qos,
        user_data: Option<&str>,
    ) -> Result<UntypedWriter, WriterError> {
        let handle = crate::writer::create(participant, &topic, qos, user_data)?;
        Ok(UntypedWriter {
            handle,
            _topic: topic,
            _participant: participant.keep_alive(),
        })
    }

    /// Writes a CDR payload as it goes on the wire: encapsulation header, then the body.
    pub fn write_cdr(&self, payload: &[u8]) -> Result<(), WriteError> {
        write_cdr(self.handle, payload)
    }

    /// Waits up to `timeout` until every matched reliable reader has acknowledged what was
    /// written; false if the time ran out first.
    pub fn wait_for_acks(&self, timeout: Duration) -> Result<bool, DdsStatus> {
        let ns = i64::try_from(timeout.as_nanos()).unwrap_or(i64::MAX);
        // SAFETY: our live writer handle.
        match DdsStatus::check(unsafe { cyclors::dds_wait_for_acks(self.handle, ns) }) {
            Ok(_) => Ok(true),
            Err(status) if status.code == cyclors::DDS_RETCODE_TIMEOUT => Ok(false),
            Err(status) => Err(status),
        }
    }

    /// The writer's instance handle (a service client's id, see [`crate::service`]).
    pub(crate) fn instance_handle(&self) -> Result<u64, DdsStatus> {
        let mut handle: cyclors::dds_instance_handle_t = 0;
        // SAFETY: our live writer handle and a valid out-pointer.
        let ret = unsafe { cyclors::dds_get_instance_handle(self.handle, &mut handle) };
        DdsStatus::check(ret)?;
        Ok(handle)
    }

    /// How many readers currently match this writer.
    pub fn matched_readers(&self) -> Result<u32, DdsStatus> {
        // SAFETY: an all-zero status is a valid value of this plain C struct.
        let mut status: cyclors::dds_publication_matched_status_t = unsafe { std::mem::zeroed() };
        // SAFETY: our live writer handle and a valid, writable status struct.
        let ret = unsafe { cyclors::dds_get_publication_matched_status(self.handle, &mut status) };
        DdsStatus::check(ret)?;
        Ok(status.current_count)
    }
}

impl Drop for UntypedWriter {
    fn drop(&mut self) {
        // SAFETY: our own writer, deleted once, before the topic (field order).
        unsafe { cyclors::dds_delete(self.handle) };
    }
}
