//! A keyless DDS topic whose samples Cyclone treats as opaque CDR bytes (a "blob" topic from
//! cyclors' cyclocut library): we serialize with `tacto::cdr`, Cyclone only moves bytes.
//!
//! The blob type carries no XTypes type information, so Cyclone matches it with remote
//! endpoints by topic name and type name alone, which is how rmw_cyclonedds and
//! rmw_fastrtps endpoints match each other anyway.

use std::ffi::CString;

use cyclors::dds_entity_t;

use crate::naming::{self, NameError};
use crate::participant::Participant;
use crate::retcode::DdsStatus;

/// Why a topic could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TopicError {
    /// The ROS topic or type name has no DDS form.
    #[error(transparent)]
    Name(#[from] NameError),
    /// Cyclone refused the topic, e.g. because this participant already has the topic name
    /// with another type.
    #[error("cannot create DDS topic {dds_topic:?} of type {dds_type:?}: {status}")]
    Create {
        /// The DDS topic name.
        dds_topic: String,
        /// The DDS type name.
        dds_type: String,
        /// Cyclone's status.
        status: DdsStatus,
    },
}

/// A topic entity, deleted on drop (after the reader or writer that uses it).
#[derive(Debug)]
pub(crate) struct Topic {
    handle: dds_entity_t,
    dds_topic: String,
}

impl Topic {
    /// Creates the DDS topic for ROS topic `ros_name` of ROS type `ros_type`
    /// (`std_msgs/msg/String`).
    pub(crate) fn new(
        participant: &Participant,
        ros_name: &str,
        ros_type: &str,
    ) -> Result<Topic, TopicError> {
        let dds_topic = naming::dds_topic_name(ros_name)?;
        let dds_type = naming::dds_type_name(ros_type)?;
        Topic::with_dds_names(participant, dds_topic, dds_type)
    }

    /// Creates a DDS topic from names already in their DDS form (as a service's `rq/...`
    /// and `rr/...` topics are), checked by [`naming`].
    pub(crate) fn with_dds_names(
        participant: &Participant,
        dds_topic: String,
        dds_type: String,
    ) -> Result<Topic, TopicError> {
        // Validation allows only letters, digits, `_`, `/` and `:`, so neither name holds a
        // NUL byte; the error is for form's sake, not a path that runs.
        let (Ok(c_topic), Ok(c_type)) = (
            CString::new(dds_topic.as_str()),
            CString::new(dds_type.as_str()),
        ) else {
            return Err(TopicError::Name(NameError::Topic(
                tacto::TopicError::InvalidName {
                    name: dds_topic,
                    reason: "it contains a NUL byte",
                },
            )));
        };
        // SAFETY: the participant handle is live (`participant` borrows it); both strings are
        // valid C strings for the call, which copies them (the `*mut` in the signature is a
        // missing `const`: neither is written to).
        let handle = unsafe {
            cyclors::cdds_create_blob_topic(
                participant.handle(),
                c_topic.as_ptr().cast_mut(),
                c_type.as_ptr().cast_mut(),
                true,
            )
        };
        let handle = DdsStatus::check(handle).map_err(|status| TopicError::Create {
            dds_topic: dds_topic.clone(),
            dds_type,
            status,
        })?;
        Ok(Topic { handle, dds_topic })
    }

    pub(crate) fn handle(&self) -> dds_entity_t {
        self.handle
    }

    /// The DDS topic name (`rt/chatter`).
    pub(crate) fn dds_name(&self) -> &str {
        &self.dds_topic
    }
}

impl Drop for Topic {
    fn drop(&mut self) {
        // SAFETY: our own topic handle; the reader or writer using it was deleted first.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}
