//! ROS 2 services on DDS as rmw_cyclonedds lays them out: a raw layer on a [`Participant`],
//! and the layout that [`DdsTransport`](crate::DdsTransport) gives tacto's
//! [`Service`](tacto::Service) and [`Client`](tacto::Client) (see `service_link.rs`).
//!
//! A service `/add_two_ints` of type `example_interfaces/srv/AddTwoInts` is two topics:
//! requests on `rq/add_two_intsRequest` (type `example_interfaces::srv::dds_::AddTwoInts_Request_`)
//! and replies on `rr/add_two_intsReply` (`..._Response_`), reliable, volatile, keep last 10.
//! Every payload is the encapsulation header, then a 16-byte request header, then the message:
//!
//! ```text
//! 00 01 00 00 | u64 client id | i64 sequence number | body (CDR, aligned as if the header
//!             |               |                     | were part of it: 16 keeps 8-alignment)
//! ```
//!
//! The client id is the instance handle of the client's request writer and the sequence counts
//! from 1 per client: a [`RequestId`]. The server copies the header into its reply, and a
//! client keeps only replies that carry its own id. Endpoints carry USER_DATA `clientid=<id>;`
//! (both of a client's endpoints, the same id) or `serviceid=<id>;`, by which an rmw_cyclonedds
//! server finds the reply reader of the client that wrote a request.
//!
//! Fast DDS maps services differently (the request identity travels in its own RTPS inline
//! QoS, not in the payload), so these services do not match rclpy's on Fast DDS; topics do.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use tacto::cdr::{DecodeError, EncodeError};
use tacto::{Message, RequestId, ServiceType};

use crate::naming::{self, NameError};
use crate::participant::Participant;
use crate::qos::Qos;
use crate::reader::{Reader, ReaderError, TakeError};
use crate::retcode::DdsStatus;
use crate::topic::{Topic, TopicError};
use crate::untyped::{UntypedReader, UntypedWriter};
use crate::user_data;
use crate::writer::{WriteError, Writer, WriterError};

/// The request header's length: `u64` client id, `i64` sequence number.
const HEADER_LEN: usize = 16;
/// The CDR encapsulation header's length.
const ENCAPSULATION_LEN: usize = 4;

/// The DDS request topic of service `name`: `rq` + the resolved name + `Request`.
///
/// ```
/// assert_eq!(tacto_dds::service::request_topic("add_two_ints")?, "rq/add_two_intsRequest");
/// # Ok::<(), tacto_dds::naming::NameError>(())
/// ```
pub fn request_topic(name: &str) -> Result<String, NameError> {
    Ok(format!("rq{}Request", tacto::resolve_topic_name(name)?))
}

/// The DDS reply topic of service `name`: `rr` + the resolved name + `Reply`.
///
/// ```
/// assert_eq!(tacto_dds::service::reply_topic("/add_two_ints")?, "rr/add_two_intsReply");
/// # Ok::<(), tacto_dds::naming::NameError>(())
/// ```
pub fn reply_topic(name: &str) -> Result<String, NameError> {
    Ok(format!("rr{}Reply", tacto::resolve_topic_name(name)?))
}

/// `message` on the wire with the request header of `id` (see the module docs).
pub fn encode<T: Message>(id: RequestId, message: &T) -> Result<Vec<u8>, EncodeError> {
    Ok(frame(id, &tacto::cdr::to_vec(message)?))
}

/// `body` (CDR with its encapsulation header, little-endian) with the request header of `id`
/// inserted after the encapsulation header.
pub(crate) fn frame(id: RequestId, body: &[u8]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(body.len() + HEADER_LEN);
    // tacto's CDR is little-endian, and the header follows the stream's byte order.
    payload.extend_from_slice(&body[..ENCAPSULATION_LEN]);
    payload.extend_from_slice(&id.client.to_le_bytes());
    payload.extend_from_slice(&id.sequence.to_le_bytes());
    payload.extend_from_slice(&body[ENCAPSULATION_LEN..]);
    payload
}

/// Why a request or reply payload could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// Shorter than the encapsulation and request headers.
    #[error("a service payload of {len} bytes is shorter than its 20 bytes of headers")]
    Truncated {
        /// The payload's length.
        len: usize,
    },
    /// The body is not the message.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// The request header and message of a payload, in either byte order.
pub fn decode<T: Message>(payload: &[u8]) -> Result<(RequestId, T), PayloadError> {
    let (id, bytes) = split(payload)?;
    Ok((id, tacto::cdr::from_bytes(&bytes)?))
}

/// The request header of a payload, and the message's CDR with its encapsulation header.
pub(crate) fn split(payload: &[u8]) -> Result<(RequestId, Vec<u8>), PayloadError> {
    let truncated = || PayloadError::Truncated { len: payload.len() };
    let (encapsulation, rest) = payload
        .split_first_chunk::<ENCAPSULATION_LEN>()
        .ok_or_else(truncated)?;
    let (client, rest) = rest.split_first_chunk::<8>().ok_or_else(truncated)?;
    let (sequence, body) = rest.split_first_chunk::<8>().ok_or_else(truncated)?;
    // Byte 1 of the encapsulation is 1 for little-endian CDR, 0 for big-endian; anything else
    // is refused by the body's decoder below.
    let id = match encapsulation[1] {
        0 => RequestId {
            client: u64::from_be_bytes(*client),
            sequence: i64::from_be_bytes(*sequence),
        },
        _ => RequestId {
            client: u64::from_le_bytes(*client),
            sequence: i64::from_le_bytes(*sequence),
        },
    };
    // The body's alignment counts from the end of the encapsulation header, and the request
    // header is 16 bytes: the body decodes as if it followed the encapsulation directly.
    let mut bytes = Vec::with_capacity(ENCAPSULATION_LEN + body.len());
    bytes.extend_from_slice(encapsulation);
    bytes.extend_from_slice(body);
    Ok((id, bytes))
}

/// Why a service endpoint could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EndpointError {
    /// The service or type name has no DDS form.
    #[error(transparent)]
    Name(#[from] NameError),
    /// A topic could not be created.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// The reader could not be created.
    #[error(transparent)]
    Reader(#[from] ReaderError),
    /// The writer could not be created.
    #[error(transparent)]
    Writer(#[from] WriterError),
    /// Cyclone would not give the request writer's instance handle.
    #[error("cannot get the request writer's instance handle: {0}")]
    Handle(DdsStatus),
}

/// Why a request or reply could not be taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceTakeError {
    /// The reader failed.
    #[error(transparent)]
    Take(#[from] TakeError),
    /// A sample was not a request or reply of this type; it is gone from the cache.
    #[error("a sample on {dds_topic:?} is not a service payload: {error}")]
    Payload {
        /// The DDS topic name.
        dds_topic: String,
        /// What was wrong with it.
        error: PayloadError,
    },
}

/// Why a request or reply could not be sent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceSendError {
    /// The message could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The writer failed.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// An id for USER_DATA, unique in this process, in rmw_cyclonedds' spelling: 16 bytes in
/// hex, separated by dots.
/// The USER_DATA of the request and reply endpoints of a service or client of `S`: `key`
/// (`serviceid` or `clientid`) with a new id, then the hash of the request or response type.
fn endpoint_user_data<S: ServiceType>(key: &str) -> [String; 2] {
    let id = format!("{key}={};", user_data_id());
    [S::Request::TYPE_HASH, S::Response::TYPE_HASH]
        .map(|hash| user_data::with_type_hash(&id, hash).unwrap_or_else(|| id.clone()))
}

pub(crate) fn user_data_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let mut id = [0u8; 16];
    id[..4].copy_from_slice(&std::process::id().to_be_bytes());
    id[8..].copy_from_slice(&NEXT.fetch_add(1, Ordering::Relaxed).to_be_bytes());
    let hex: Vec<String> = id.iter().map(|b| format!("{b:x}")).collect();
    hex.join(".")
}

/// The two topics of a service, in DDS form.
fn topics<S: ServiceType>(
    participant: &Participant,
    name: &str,
) -> Result<(Topic, Topic), EndpointError> {
    let requests = Topic::with_dds_names(
        participant,
        request_topic(name)?,
        naming::dds_type_name(S::Request::TYPE_NAME)?,
    )?;
    let replies = Topic::with_dds_names(
        participant,
        reply_topic(name)?,
        naming::dds_type_name(S::Response::TYPE_NAME)?,
    )?;
    Ok((requests, replies))
}

/// The server side of a service on DDS: a reader of requests, a writer of replies.
///
/// # Examples
/// ```no_run
/// # use tacto::serde::{Deserialize, Serialize};
/// # use tacto::{Message, ServiceType};
/// # #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// # #[serde(crate = "tacto::serde")]
/// # pub struct Req { pub a: i64, pub b: i64 }
/// # impl Message for Req { const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Request"; }
/// # #[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
/// # #[serde(crate = "tacto::serde")]
/// # pub struct Resp { pub sum: i64 }
/// # impl Message for Resp { const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts_Response"; }
/// # pub struct AddTwoInts;
/// # impl ServiceType for AddTwoInts {
/// #     const TYPE_NAME: &'static str = "example_interfaces/srv/AddTwoInts";
/// #     type Request = Req;
/// #     type Response = Resp;
/// # }
/// use tacto_dds::Participant;
/// use tacto_dds::service::Server;
///
/// let participant = Participant::from_env()?;
/// let server = Server::<AddTwoInts>::new(&participant, "add_two_ints")?;
/// while let Some((id, request)) = server.take_request()? {
///     server.send_response(id, &Resp { sum: request.a + request.b })?;
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Server<S: ServiceType> {
    requests: Reader<S::Request>,
    replies: Writer<S::Response>,
}

impl<S: ServiceType> Server<S> {
    /// Creates the reader of `rq/<name>Request` and the writer of `rr/<name>Reply`, both with
    /// USER_DATA `serviceid=<id>;`, then `typehash=...;` of the request or response type if
    /// it has one.
    pub fn new(participant: &Participant, name: &str) -> Result<Self, EndpointError> {
        let (request_topic, reply_topic) = topics::<S>(participant, name)?;
        let [request_data, reply_data] = endpoint_user_data::<S>("serviceid");
        let qos = Qos::default();
        Ok(Server {
            requests: Reader::on_topic(participant, request_topic, qos, Some(&request_data))?,
            replies: Writer::on_topic(participant, reply_topic, qos, Some(&reply_data))?,
        })
    }

    /// Takes the oldest request and its id; `None` when none waits.
    pub fn take_request(&self) -> Result<Option<(RequestId, S::Request)>, ServiceTakeError> {
        let Some(sample) = self.requests.take_cdr()? else {
            return Ok(None);
        };
        decode(&sample.payload)
            .map(Some)
            .map_err(|error| ServiceTakeError::Payload {
                dds_topic: self.requests.dds_topic().to_owned(),
                error,
            })
    }

    /// Sends `response` to the client of request `id`.
    pub fn send_response(
        &self,
        id: RequestId,
        response: &S::Response,
    ) -> Result<(), ServiceSendError> {
        self.replies.write_cdr(&encode(id, response)?)?;
        Ok(())
    }

    /// True if a client is matched: a request writer and a reply reader.
    pub fn has_clients(&self) -> Result<bool, DdsStatus> {
        Ok(self.requests.matched_writers()? > 0 && self.replies.matched_readers()? > 0)
    }
}

/// The client side of a service on DDS: a writer of requests, a reader of replies.
#[derive(Debug)]
pub struct Client<S: ServiceType> {
    requests: Writer<S::Request>,
    replies: Reader<S::Response>,
    id: u64,
    next_sequence: AtomicI64,
}

impl<S: ServiceType> Client<S> {
    /// Creates the writer of `rq/<name>Request` and the reader of `rr/<name>Reply`, both with
    /// USER_DATA `clientid=<id>;` (and `typehash=...;` as the server's). The client's id is
    /// its request writer's instance handle.
    pub fn new(participant: &Participant, name: &str) -> Result<Self, EndpointError> {
        let (request_topic, reply_topic) = topics::<S>(participant, name)?;
        let [request_data, reply_data] = endpoint_user_data::<S>("clientid");
        let qos = Qos::default();
        let requests = Writer::on_topic(participant, request_topic, qos, Some(&request_data))?;
        let replies = Reader::on_topic(participant, reply_topic, qos, Some(&reply_data))?;
        let id = requests.instance_handle().map_err(EndpointError::Handle)?;
        Ok(Client {
            requests,
            replies,
            id,
            next_sequence: AtomicI64::new(1),
        })
    }

    /// The id in this client's request headers.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Sends `request` and returns its id.
    pub fn send_request(&self, request: &S::Request) -> Result<RequestId, ServiceSendError> {
        let id = RequestId {
            client: self.id,
            sequence: self.next_sequence.fetch_add(1, Ordering::Relaxed),
        };
        self.requests.write_cdr(&encode(id, request)?)?;
        Ok(id)
    }

    /// Takes the oldest reply to one of this client's requests; replies to other clients
    /// (every client of the service reads every reply) are taken and skipped.
    pub fn take_response(&self) -> Result<Option<(RequestId, S::Response)>, ServiceTakeError> {
        while let Some(sample) = self.replies.take_cdr()? {
            let (id, response) =
                decode(&sample.payload).map_err(|error| ServiceTakeError::Payload {
                    dds_topic: self.replies.dds_topic().to_owned(),
                    error,
                })?;
            if id.client == self.id {
                return Ok(Some((id, response)));
            }
        }
        Ok(None)
    }

    /// True if a server is matched: a request reader and a reply writer.
    pub fn service_is_ready(&self) -> Result<bool, DdsStatus> {
        Ok(self.requests.matched_readers()? > 0 && self.replies.matched_writers()? > 0)
    }
}

/// A client of a service whose type is known only by name at run time (`tacto service
/// call`): requests and replies are CDR bytes (encapsulation header, then the message), the
/// request header added and removed here.
///
/// ```no_run
/// use std::time::Duration;
/// let participant = tacto_dds::Participant::from_env()?;
/// let client = tacto_dds::service::UntypedClient::new(
///     &participant, "/add_two_ints", "example_interfaces/srv/AddTwoInts", [None, None])?;
/// // a = 2, b = 3, little-endian, each 8-aligned after the encapsulation header.
/// let mut request = vec![0, 1, 0, 0];
/// request.extend(2i64.to_le_bytes());
/// request.extend(3i64.to_le_bytes());
/// let id = client.send_request_cdr(&request)?;
/// while client.wait(Duration::from_secs(1))? {
///     if let Some((reply_id, reply)) = client.take_response_cdr()? {
///         assert_eq!(reply_id, id);
///         println!("{} bytes", reply.len());
///         break;
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct UntypedClient {
    requests: UntypedWriter,
    replies: UntypedReader,
    reply_topic: String,
    id: u64,
    next_sequence: AtomicI64,
}

impl UntypedClient {
    /// A client of service `name` of type `service_type` (`example_interfaces/srv/AddTwoInts`),
    /// laid out as [`Client`] is; `type_hashes` are those of the request and response types,
    /// if known, for the USER_DATA of the request writer and reply reader.
    pub fn new(
        participant: &Participant,
        name: &str,
        service_type: &str,
        type_hashes: [Option<&str>; 2],
    ) -> Result<UntypedClient, EndpointError> {
        let requests = Topic::with_dds_names(
            participant,
            request_topic(name)?,
            naming::dds_type_name(&format!("{service_type}_Request"))?,
        )?;
        let reply_topic = reply_topic(name)?;
        let replies = Topic::with_dds_names(
            participant,
            reply_topic.clone(),
            naming::dds_type_name(&format!("{service_type}_Response"))?,
        )?;
        let id = format!("clientid={};", user_data_id());
        let [request_data, reply_data] = type_hashes
            .map(|hash| user_data::with_type_hash(&id, hash).unwrap_or_else(|| id.clone()));
        let qos = Qos::default();
        let requests = UntypedWriter::on_topic(participant, requests, qos, Some(&request_data))?;
        let replies = UntypedReader::on_topic(participant, replies, qos, Some(&reply_data))?;
        let id = requests.instance_handle().map_err(EndpointError::Handle)?;
        Ok(UntypedClient {
            requests,
            replies,
            reply_topic,
            id,
            next_sequence: AtomicI64::new(1),
        })
    }

    /// Sends a request, CDR little-endian with its encapsulation header, and returns its id.
    pub fn send_request_cdr(&self, request: &[u8]) -> Result<RequestId, ServiceSendError> {
        if request.len() < ENCAPSULATION_LEN {
            return Err(WriteError::MissingHeader { len: request.len() }.into());
        }
        let id = RequestId {
            client: self.id,
            sequence: self.next_sequence.fetch_add(1, Ordering::Relaxed),
        };
        self.requests.write_cdr(&frame(id, request))?;
        Ok(id)
    }

    /// Waits up to `timeout` for a reply (to any client); true if one is there.
    pub fn wait(&self, timeout: std::time::Duration) -> Result<bool, DdsStatus> {
        self.replies.wait(timeout)
    }

    /// Takes the oldest reply to one of this client's requests: its id and the message's CDR
    /// with its encapsulation header. Replies to other clients are taken and skipped.
    pub fn take_response_cdr(&self) -> Result<Option<(RequestId, Vec<u8>)>, ServiceTakeError> {
        while let Some(sample) = self.replies.take_cdr()? {
            let (id, body) = split(&sample.payload).map_err(|error| ServiceTakeError::Payload {
                dds_topic: self.reply_topic.clone(),
                error,
            })?;
            if id.client == self.id {
                return Ok(Some((id, body)));
            }
        }
        Ok(None)
    }

    /// True if a server is matched: a request reader and a reply writer.
    pub fn service_is_ready(&self) -> Result<bool, DdsStatus> {
        Ok(self.requests.matched_readers()? > 0 && self.replies.matched_writers()? > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto::msg::std_msgs::String as Text;

    #[test]
    fn the_header_sits_between_encapsulation_and_body() {
        let id = RequestId {
            client: 0x0102_0304_0506_0708,
            sequence: 9,
        };
        let bytes = encode(id, &Text { data: "hi".into() }).unwrap();
        assert_eq!(&bytes[..4], &[0, 1, 0, 0]);
        assert_eq!(&bytes[4..12], &0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(&bytes[12..20], &9i64.to_le_bytes());
        assert_eq!(&bytes[20..24], &3u32.to_le_bytes(), "the string's length");
        assert_eq!(
            decode::<Text>(&bytes).unwrap(),
            (id, Text { data: "hi".into() })
        );
    }

    #[test]
    fn a_big_endian_header_is_read_in_its_byte_order() {
        let mut bytes = vec![0, 0, 0, 0];
        bytes.extend_from_slice(&7u64.to_be_bytes());
        bytes.extend_from_slice(&(-2i64).to_be_bytes());
        bytes.extend_from_slice(&3u32.to_be_bytes());
        bytes.extend_from_slice(b"ok\0");
        let (id, text) = decode::<Text>(&bytes).unwrap();
        assert_eq!((id.client, id.sequence, text.data.as_str()), (7, -2, "ok"));
    }

    #[test]
    fn short_and_malformed_payloads_are_typed_errors() {
        let headers = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        for len in [0, 3, 4, 19] {
            let short = decode::<Text>(&headers[..len]);
            assert!(matches!(short, Err(PayloadError::Truncated { len: l }) if l == len));
        }
        let mut huge = vec![0, 1, 0, 0];
        huge.extend_from_slice(&[0; 16]);
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode::<Text>(&huge),
            Err(PayloadError::Decode(_))
        ));
    }

    #[test]
    fn service_topics_follow_rmw_cyclonedds() {
        assert_eq!(request_topic("/a/b").unwrap(), "rq/a/bRequest");
        assert_eq!(reply_topic("a/b").unwrap(), "rr/a/bReply");
        assert!(request_topic("a//b").is_err());
    }
}
