//! The links of a tacto [`Service`](tacto::Service) and [`Client`](tacto::Client) over DDS,
//! made by [`DdsTransport`](crate::DdsTransport): the endpoints of [`crate::service`]'s layout
//! (`rq/<name>Request`, `rr/<name>Reply`, the 16-byte request header, USER_DATA
//! `serviceid=`/`clientid=`), each ignoring this process's endpoints as topics do, so that a
//! call inside the process never also travels over DDS.
//!
//! - A service's request reader is a second source of requests beside its local queue. It gets
//!   a data-available listener only when a trigger names the service; a polled service wakes
//!   nothing.
//! - A client's reply reader always has a listener: it takes every reply, keeps those that
//!   carry the client's id (its request writer's instance handle, as rmw_cyclonedds) and hands
//!   them to the client's response queue, which wakes an executor only if a trigger names it.
//! - Before a service answers, it waits (at most [`REPLY_MATCH_PATIENCE`]) until the client's
//!   reply reader is matched, as rmw_cyclonedds does: the reader from the participant of the
//!   request's writer, with the same `clientid` if that writer carries one. Otherwise a reply
//!   to a client whose reply reader its writer has not discovered yet would be lost.

use std::collections::VecDeque;
use std::ffi::c_void;
use std::ptr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use cyclors::dds_entity_t;
use tacto::transport::{ClientLink, LinkError, RosType, ServiceLink};
use tacto::{Qos, RequestId};

use crate::graph::Endpoint;
use crate::naming;
use crate::participant::{Participant, ParticipantInner};
use crate::reader::{Access, next_cdr};
use crate::retcode::DdsStatus;
use crate::service::{frame, reply_topic, request_topic, split, user_data_id};
use crate::topic::Topic;
use crate::transport::{DdsTransport, GraphEntry, Wake, link_error, native_qos, on_data_available};
use crate::user_data;
use crate::writer::write_cdr;

/// How long a service waits for the reply reader of a request's client to match before it
/// answers anyway.
pub(crate) const REPLY_MATCH_PATIENCE: Duration = Duration::from_secs(1);

/// How often the wait for a reply reader looks again.
const MATCH_POLL: Duration = Duration::from_millis(5);

/// Requests taken whose writer a service remembers, for the wait before its answer: the most
/// answers outstanding at once it handles well. Past it the oldest is forgotten, and its
/// answer goes out without the wait.
const MAX_OUTSTANDING: usize = 1024;

/// One Cyclone reader or writer of a service topic, deleted on drop.
#[derive(Debug)]
struct Entity {
    handle: dds_entity_t,
    /// The most samples its cache holds (services keep the last 10, as rclcpp's QoS).
    capacity: u32,
    // Dropped after `handle` is deleted (see Drop), the participant last.
    topic: Topic,
    _participant: Arc<ParticipantInner>,
}

impl Entity {
    fn new(
        participant: &Participant,
        kind: Endpoint,
        topic: Topic,
        user_data: &str,
        listener: *const cyclors::dds_listener_t,
    ) -> Result<Entity, LinkError> {
        let (native, capacity) = native_qos(&Qos::services_default())?;
        native.set_user_data(user_data);
        let create = match kind {
            Endpoint::Reader => cyclors::dds_create_reader,
            Endpoint::Writer => cyclors::dds_create_writer,
        };
        // SAFETY: live participant and topic handles; QoS and listener (or null) valid for
        // the call, both copied by Cyclone.
        let handle = unsafe {
            create(
                participant.handle(),
                topic.handle(),
                native.as_ptr(),
                listener,
            )
        };
        let handle = DdsStatus::check(handle).map_err(|status| {
            link_error(format!(
                "cannot create a DDS endpoint on {:?}: {status}",
                topic.dds_name()
            ))
        })?;
        Ok(Entity {
            handle,
            capacity: capacity.unsigned_abs(),
            topic,
            _participant: participant.keep_alive(),
        })
    }
}

impl Drop for Entity {
    fn drop(&mut self) {
        // SAFETY: our own entity, deleted once; Cyclone returns only after its running
        // listener callbacks finished, so whatever they point at may be freed after this.
        unsafe { cyclors::dds_delete(self.handle) };
    }
}

/// The two topics of a service in DDS form.
/// The USER_DATA of a service's (or client's) request and reply endpoints: its `id` pair,
/// then the type hash of the request or the response (as rmw puts the hash of each endpoint's
/// own message type).
fn user_data(id: &str, request_type: RosType, response_type: RosType) -> [String; 2] {
    [request_type, response_type].map(|ros_type| {
        user_data::with_type_hash(id, ros_type.hash).unwrap_or_else(|| id.to_owned())
    })
}

fn topics(
    participant: &Participant,
    service: &str,
    request_type: &str,
    response_type: &str,
) -> Result<(Topic, Topic), LinkError> {
    let requests = Topic::with_dds_names(
        participant,
        request_topic(service).map_err(link_error)?,
        naming::dds_type_name(request_type).map_err(link_error)?,
    )
    .map_err(link_error)?;
    let replies = Topic::with_dds_names(
        participant,
        reply_topic(service).map_err(link_error)?,
        naming::dds_type_name(response_type).map_err(link_error)?,
    )
    .map_err(link_error)?;
    Ok((requests, replies))
}

/// A service's link: the request reader and the reply writer.
pub(crate) struct DdsServiceLink {
    // Deleted before `wake`, which the reader's listener points at.
    requests: Entity,
    replies: Entity,
    wake: OnceLock<Box<Wake>>,
    /// The writer (Cyclone's publication handle) of each request taken and not yet answered,
    /// oldest first, at most MAX_OUTSTANDING.
    outstanding: Mutex<VecDeque<(RequestId, u64)>>,
    _entries: Vec<GraphEntry>,
}

impl std::fmt::Debug for DdsServiceLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DdsServiceLink")
            .field("requests", &self.requests.topic.dds_name())
            .field("wakes", &self.wake.get().is_some())
            .finish_non_exhaustive()
    }
}

impl DdsServiceLink {
    pub(crate) fn new(
        transport: &DdsTransport,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
    ) -> Result<Self, LinkError> {
        let participant = transport.participant();
        let (request_topic, reply_topic) =
            topics(participant, service, request_type.name, response_type.name)?;
        let id = format!("serviceid={};", user_data_id());
        let [request_data, reply_data] = user_data(&id, request_type, response_type);
        let requests = Entity::new(
            participant,
            Endpoint::Reader,
            request_topic,
            &request_data,
            ptr::null(),
        )?;
        let replies = Entity::new(
            participant,
            Endpoint::Writer,
            reply_topic,
            &reply_data,
            ptr::null(),
        )?;
        let entries = [
            transport.join(Some(node), Endpoint::Reader, requests.handle)?,
            transport.join(Some(node), Endpoint::Writer, replies.handle)?,
        ];
        Ok(DdsServiceLink {
            requests,
            replies,
            wake: OnceLock::new(),
            outstanding: Mutex::default(),
            _entries: entries.into_iter().flatten().collect(),
        })
    }

    /// True once the reply writer is matched with the reply reader of the client whose
    /// request writer is `publication`, or when that writer is gone (nobody to wait for).
    fn client_reader_matched(&self, publication: u64) -> bool {
        // SAFETY: our live reader; Cyclone returns a new description or null.
        let writer =
            unsafe { cyclors::dds_get_matched_publication_data(self.requests.handle, publication) };
        let Some(writer) = Described::new(writer) else {
            return true;
        };
        let participant = writer.participant();
        let client_id = writer.client_id();
        let readers = matched_subscriptions(self.replies.handle);
        readers.into_iter().any(|reader| {
            // SAFETY: our live writer; Cyclone returns a new description or null.
            let data =
                unsafe { cyclors::dds_get_matched_subscription_data(self.replies.handle, reader) };
            Described::new(data).is_some_and(|reader| {
                reader.participant() == participant
                    && (client_id.is_none() || reader.client_id() == client_id)
            })
        })
    }
}

impl ServiceLink for DdsServiceLink {
    fn take_request(&self) -> Option<(RequestId, Vec<u8>)> {
        // A failed take reads as "nothing there": Cyclone fails here only for a reader being
        // deleted. A sample too short for its headers is dropped (the client's call times out).
        while let Some(sample) = next_cdr(self.requests.handle, Access::Take).ok().flatten() {
            let Ok((id, cdr)) = split(&sample.payload) else {
                continue;
            };
            let mut outstanding = (self.outstanding.lock()).unwrap_or_else(PoisonError::into_inner);
            if outstanding.len() >= MAX_OUTSTANDING {
                outstanding.pop_front();
            }
            outstanding.push_back((id, sample.publication_handle));
            return Some((id, cdr));
        }
        None
    }

    fn pending(&self) -> usize {
        unsafe extern "C" fn count(
            arg: *mut c_void,
            info: *const cyclors::dds_sample_info_t,
            _sertype: *const cyclors::ddsi_sertype,
            _serdata: *mut cyclors::ddsi_serdata,
        ) -> cyclors::dds_return_t {
            // SAFETY: `arg` is the counter on the stack of `pending`, alive during the call
            // that runs this callback; Cyclone passes a valid info.
            let (count, info) = unsafe { (&mut *arg.cast::<usize>(), &*info) };
            *count += usize::from(info.valid_data);
            0
        }
        let mut pending = 0usize;
        let arg: *mut usize = &mut pending;
        // SAFETY: our live reader; the collector only touches `pending`, alive for the call.
        // A failure leaves the count as far as it got.
        unsafe {
            cyclors::dds_peek_with_collector(
                self.requests.handle,
                self.requests.capacity,
                cyclors::DDS_HANDLE_NIL.into(),
                cyclors::DDS_ANY_STATE,
                Some(count),
                arg.cast(),
            )
        };
        pending
    }

    fn respond(&self, id: RequestId, cdr: &[u8]) -> Result<(), LinkError> {
        let publication = {
            let mut outstanding = (self.outstanding.lock()).unwrap_or_else(PoisonError::into_inner);
            let at = outstanding.iter().position(|(taken, _)| *taken == id);
            at.and_then(|at| outstanding.remove(at)).map(|(_, p)| p)
        };
        if let Some(publication) = publication {
            let deadline = Instant::now() + REPLY_MATCH_PATIENCE;
            while !self.client_reader_matched(publication) && Instant::now() < deadline {
                std::thread::sleep(MATCH_POLL);
            }
        }
        write_cdr(self.replies.handle, &frame(id, cdr)).map_err(link_error)
    }

    fn on_data(&self, wake: Wake) -> Result<(), LinkError> {
        if self.wake.set(Box::new(wake)).is_err() {
            return Err(link_error("the service already wakes someone"));
        }
        let Some(wake) = self.wake.get() else {
            return Err(link_error("the service lost its callback"));
        };
        let arg: *const Wake = &**wake;
        // SAFETY: a new listener object, deleted below once the reader copied it; `arg`
        // stays valid as long as the reader (it is deleted first, see the fields).
        let listener = unsafe { cyclors::dds_create_listener(arg.cast_mut().cast()) };
        if listener.is_null() {
            return Err(link_error("Cyclone could not allocate a listener"));
        }
        // SAFETY: a live listener; the callback has the signature Cyclone expects.
        unsafe { cyclors::dds_lset_data_available(listener, Some(on_data_available)) };
        // SAFETY: our live reader and a valid listener, which Cyclone copies.
        let ret = unsafe { cyclors::dds_set_listener(self.requests.handle, listener) };
        // SAFETY: our listener object, deleted once.
        unsafe { cyclors::dds_delete_listener(listener) };
        DdsStatus::check(ret).map(drop).map_err(link_error)
    }
}

/// The instance handles of the readers matched with `writer`.
fn matched_subscriptions(writer: dds_entity_t) -> Vec<u64> {
    // More readers than a service ever has clients: past it, some are not looked at (and
    // the wait for them ends by its deadline).
    const MAX_READERS: usize = 4096;
    // SAFETY: our live writer; with no room, Cyclone only counts.
    let count = unsafe { cyclors::dds_get_matched_subscriptions(writer, ptr::null_mut(), 0) };
    let Ok(count) = DdsStatus::check(count) else {
        return Vec::new();
    };
    let mut handles = vec![0; (count as usize).min(MAX_READERS)];
    // SAFETY: our live writer and room for `handles.len()` handles.
    let filled = unsafe {
        cyclors::dds_get_matched_subscriptions(writer, handles.as_mut_ptr(), handles.len())
    };
    let filled = DdsStatus::check(filled).map_or(0, |n| n as usize);
    handles.truncate(filled);
    handles
}

/// An endpoint description Cyclone allocated for us, freed on drop.
struct Described(*mut cyclors::dds_builtintopic_endpoint_t);

impl Described {
    fn new(endpoint: *mut cyclors::dds_builtintopic_endpoint_t) -> Option<Described> {
        // `then`, not `then_some`: a `Described` of null made eagerly would be dropped, and
        // freeing null crashes Cyclone (a client gone while its reply was being sent).
        (!endpoint.is_null()).then(|| Described(endpoint))
    }

    fn participant(&self) -> [u8; 16] {
        // SAFETY: non-null (see `new`), valid until freed in Drop.
        unsafe { (*self.0).participant_key.v }
    }

    /// The `clientid=...;` of the endpoint's USER_DATA, if it has one.
    fn client_id(&self) -> Option<String> {
        // SAFETY: non-null description (see `new`) with a valid QoS, alive until Drop.
        let text = unsafe { user_data::read((*self.0).qos) }?;
        user_data::value(&text, "clientid").map(str::to_owned)
    }
}

impl Drop for Described {
    fn drop(&mut self) {
        // SAFETY: the description Cyclone allocated for us, freed once.
        unsafe { cyclors::dds_builtintopic_free_endpoint(self.0) };
    }
}

/// What a client's reply listener needs: its id, and where its replies go.
struct Replies {
    client: u64,
    deliver: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
}

/// Cyclone's data-available callback of a client's reply reader: takes every reply and hands
/// on this client's own.
unsafe extern "C" fn on_replies(reader: dds_entity_t, arg: *mut c_void) {
    // SAFETY: `arg` is the address of the client link's boxed `Replies`, which outlives the
    // reader entity (deleted first; Cyclone waits for running listeners).
    let replies = unsafe { &*arg.cast::<Replies>() };
    while let Some(sample) = next_cdr(reader, Access::Take).ok().flatten() {
        // Replies to other clients (every client reads every reply) and samples too short
        // for their headers are skipped.
        if let Ok((id, cdr)) = split(&sample.payload)
            && id.client == replies.client
        {
            (replies.deliver)(id.sequence, cdr);
        }
    }
}

/// A client's link: the request writer and the reply reader.
pub(crate) struct DdsClientLink {
    // Deleted before `_replies_arg`, which the reader's listener points at.
    requests: Entity,
    replies: Entity,
    client: u64,
    _replies_arg: Box<Replies>,
    _entries: Vec<GraphEntry>,
}

impl std::fmt::Debug for DdsClientLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DdsClientLink")
            .field("requests", &self.requests.topic.dds_name())
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl DdsClientLink {
    pub(crate) fn new(
        transport: &DdsTransport,
        node: &str,
        service: &str,
        request_type: RosType,
        response_type: RosType,
        deliver: Arc<dyn Fn(i64, Vec<u8>) + Send + Sync>,
    ) -> Result<Self, LinkError> {
        let participant = transport.participant();
        let (request_topic, reply_topic) =
            topics(participant, service, request_type.name, response_type.name)?;
        let id = format!("clientid={};", user_data_id());
        let [request_data, reply_data] = user_data(&id, request_type, response_type);
        let requests = Entity::new(
            participant,
            Endpoint::Writer,
            request_topic,
            &request_data,
            ptr::null(),
        )?;
        let mut client = 0;
        // SAFETY: our live writer and a valid out-pointer.
        let ret = unsafe { cyclors::dds_get_instance_handle(requests.handle, &mut client) };
        DdsStatus::check(ret).map_err(link_error)?;
        let replies_arg = Box::new(Replies { client, deliver });
        let arg: *const Replies = &*replies_arg;
        // SAFETY: a new listener object, deleted below once the reader copied it; `arg`
        // stays valid as long as the reader (it is deleted first, see the fields).
        let listener = unsafe { cyclors::dds_create_listener(arg.cast_mut().cast()) };
        if listener.is_null() {
            return Err(link_error("Cyclone could not allocate a listener"));
        }
        // SAFETY: a live listener; the callback has the signature Cyclone expects.
        unsafe { cyclors::dds_lset_data_available(listener, Some(on_replies)) };
        let replies = Entity::new(
            participant,
            Endpoint::Reader,
            reply_topic,
            &reply_data,
            listener,
        );
        // SAFETY: our listener object, copied by Cyclone (or unused), deleted once.
        unsafe { cyclors::dds_delete_listener(listener) };
        let replies = replies?;
        let entries = [
            transport.join(Some(node), Endpoint::Writer, requests.handle)?,
            transport.join(Some(node), Endpoint::Reader, replies.handle)?,
        ];
        Ok(DdsClientLink {
            requests,
            replies,
            client,
            _replies_arg: replies_arg,
            _entries: entries.into_iter().flatten().collect(),
        })
    }
}

impl ClientLink for DdsClientLink {
    fn is_ready(&self) -> bool {
        // SAFETY: an all-zero status is a valid value of these plain C structs.
        let mut published: cyclors::dds_publication_matched_status_t =
            unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let mut subscribed: cyclors::dds_subscription_matched_status_t =
            unsafe { std::mem::zeroed() };
        // SAFETY: our live writer and reader, valid writable status structs.
        let (a, b) = unsafe {
            (
                cyclors::dds_get_publication_matched_status(self.requests.handle, &mut published),
                cyclors::dds_get_subscription_matched_status(self.replies.handle, &mut subscribed),
            )
        };
        DdsStatus::check(a).is_ok()
            && DdsStatus::check(b).is_ok()
            && published.current_count > 0
            && subscribed.current_count > 0
    }

    fn send(&self, sequence: i64, cdr: &[u8]) -> Result<(), LinkError> {
        let id = RequestId {
            client: self.client,
            sequence,
        };
        write_cdr(self.requests.handle, &frame(id, cdr)).map_err(link_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_description_is_made_of_null_and_nothing_is_freed() {
        assert!(Described::new(std::ptr::null_mut()).is_none());
    }
}
