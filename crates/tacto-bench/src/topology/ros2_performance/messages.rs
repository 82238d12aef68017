//! The messages of ros2-performance (`performance_test_msgs`), as its `msg/` folder defines
//! them.
//!
//! Every one is a [`PerformanceHeader`] followed by a payload `data`, and only the payload's
//! type differs. So there is one generic message, [`Stamped<P>`], and each payload type
//! implements [`Payload`], which names its message: `Stamped<Bytes<256000>>` is
//! `performance_test_msgs/msg/Stamped250kb`, known in topology files as `stamped250kb`.
//!
//! | `msg_type` in the file | message | payload `data` |
//! |---|---|---|
//! | `stamped10b` … `stamped8mb` | `Stamped10b` … `Stamped8mb` (14 sizes) | `byte[N]`: [`Bytes<N>`] |
//! | `stamped{3,4,9,12}_float32` | `Stamped{3,4,9,12}Float32` | `float32[K]`: `[f32; K]` |
//! | `stamped4_int32` | `Stamped4Int32` | `int32[4]`: `[i32; 4]` |
//! | `stamped_int64` | `StampedInt64` | `int64[1]`: `[i64; 1]` |
//! | `stamped_vector` | `StampedVector` | `byte[]`: `Vec<u8>`, sized by the publisher's `msg_size` |
//!
//! Byte arrays live on the heap: the largest is 8 MiB. Intra-process delivery never copies or
//! serializes them; they still encode as ROS 2 CDR, a `byte[N]` without a length prefix.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::time::Duration;

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer, ser};
use tacto::Message;
use tacto::idl::{Array, Plain};
use tacto::msg::builtin_interfaces::Time;

/// `performance_test_msgs/msg/PerformanceHeader`: what every message carries for measuring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PerformanceHeader {
    /// When the message was published (system clock).
    pub stamp: Time,
    /// The publisher's count of messages before this one: a gap means messages were lost.
    pub tracking_number: u32,
    /// The publisher's frequency, Hz.
    pub frequency: f32,
    /// The payload's size, bytes.
    pub size: u32,
}

impl PerformanceHeader {
    /// The publisher's period, from its frequency; `None` if the frequency is not positive.
    pub fn period(&self) -> Option<Duration> {
        Duration::try_from_secs_f64(1.0 / f64::from(self.frequency))
            .ok()
            .filter(|p| !p.is_zero())
    }
}

/// A ros2-performance message: the header, then a payload of type `P`.
///
/// # Examples
/// ```
/// use tacto::Message;
/// use tacto_bench::topology::ros2_performance::messages::{Payload, Stamped250kb, StampedVector};
///
/// assert_eq!(Stamped250kb::TYPE_NAME, "performance_test_msgs/msg/Stamped250kb");
/// assert_eq!(Stamped250kb::default().data.size(), 256_000);
///
/// let mut msg = StampedVector::default();
/// msg.data.set_size(5000);
/// assert_eq!(msg.data.size(), 5000);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stamped<P> {
    /// Stamp, tracking number, frequency and size.
    pub header: PerformanceHeader,
    /// The payload.
    pub data: P,
}

/// The payload of one ros2-performance message type; it names the message.
pub trait Payload: Default + Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The ROS 2 type name of `Stamped<Self>`.
    const TYPE_NAME: &'static str;
    /// The size in bytes of a fixed-size payload; `None` for `byte[]`.
    const FIXED_SIZE: Option<usize>;
    /// The payload's size in bytes, as the header reports it.
    fn size(&self) -> usize;
    /// Gives a variable-size payload `size` bytes; a fixed-size payload keeps its size.
    fn set_size(&mut self, size: usize);
}

impl<P: Payload> Message for Stamped<P> {
    const TYPE_NAME: &'static str = P::TYPE_NAME;
}

/// A `byte[N]` payload, on the heap.
#[derive(Clone, PartialEq, Eq)]
pub struct Bytes<const N: usize>(Box<[u8]>);

impl<const N: usize> Default for Bytes<N> {
    /// Zeroed; allocated directly on the heap, never on the stack.
    fn default() -> Self {
        Bytes(vec![0; N].into_boxed_slice())
    }
}

impl<const N: usize> Deref for Bytes<N> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl<const N: usize> DerefMut for Bytes<N> {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> fmt::Debug for Bytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes<{N}>")
    }
}

/// As a fixed array: the elements, no length (CDR's `byte[N]`), written as one block.
impl<const N: usize> Serialize for Bytes<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let array: &[u8; N] = (*self.0).try_into().map_err(|_| {
            ser::Error::custom(format_args!("Bytes<{N}> holds {} bytes", self.0.len()))
        })?;
        Array::<Plain>::serialize(array, serializer)
    }
}

/// Read as one block, on the heap; the decoder checks that the N bytes are there before it
/// allocates them.
impl<'de, const N: usize> Deserialize<'de> for Bytes<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let array: Box<[u8; N]> = Array::<Plain>::deserialize(deserializer)?;
        Ok(Bytes(array))
    }
}

/// How big a payload is, and whether it can change: fixed arrays cannot, `byte[]` can.
trait Layout {
    const FIXED: Option<usize>;
    fn bytes(&self) -> usize;
    fn set_bytes(&mut self, size: usize);
}

impl<const N: usize> Layout for Bytes<N> {
    const FIXED: Option<usize> = Some(N);
    fn bytes(&self) -> usize {
        N
    }
    fn set_bytes(&mut self, _: usize) {}
}

impl<T, const K: usize> Layout for [T; K] {
    const FIXED: Option<usize> = Some(size_of::<[T; K]>());
    fn bytes(&self) -> usize {
        size_of::<[T; K]>()
    }
    fn set_bytes(&mut self, _: usize) {}
}

impl Layout for Vec<u8> {
    const FIXED: Option<usize> = None;
    fn bytes(&self) -> usize {
        self.len()
    }
    fn set_bytes(&mut self, size: usize) {
        self.resize(size, 0);
    }
}

/// Code generic over the payload type, run for a [`MsgType`] known only at run time.
pub(crate) trait WithPayload {
    /// What the code returns.
    type Output;
    /// Runs the code for payload type `P`.
    fn call<P: Payload>(self) -> Self::Output;
}

/// Declares each message once: its name in topology files, its alias, its payload type.
macro_rules! messages {
    ($($json:literal => $name:ident($payload:ty),)*) => {
        $(
            #[doc = concat!("`performance_test_msgs/msg/", stringify!($name), "`.")]
            pub type $name = Stamped<$payload>;

            impl Payload for $payload {
                const TYPE_NAME: &'static str =
                    concat!("performance_test_msgs/msg/", stringify!($name));
                const FIXED_SIZE: Option<usize> = <$payload as Layout>::FIXED;
                fn size(&self) -> usize {
                    Layout::bytes(self)
                }
                fn set_size(&mut self, size: usize) {
                    Layout::set_bytes(self, size);
                }
            }
        )*

        /// A message type, as a topology file's `msg_type` names it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum MsgType {
            $(
                #[doc = concat!("`", $json, "`: [`", stringify!($name), "`].")]
                $name,
            )*
        }

        impl MsgType {
            /// The type a topology file calls `name`, if any.
            pub fn from_name(name: &str) -> Option<MsgType> {
                match name {
                    $($json => Some(MsgType::$name),)*
                    _ => None,
                }
            }

            /// Every type, in the order of the table above.
            pub const ALL: &'static [MsgType] = &[$(MsgType::$name),*];

            /// The name topology files use, e.g. `stamped250kb`.
            pub fn name(self) -> &'static str {
                match self {
                    $(MsgType::$name => $json,)*
                }
            }

            /// The ROS 2 type name, e.g. `performance_test_msgs/msg/Stamped250kb`.
            pub fn type_name(self) -> &'static str {
                match self {
                    $(MsgType::$name => <$payload as Payload>::TYPE_NAME,)*
                }
            }

            /// The payload's size in bytes; `None` for `stamped_vector`, whose publishers set
            /// it.
            pub fn fixed_size(self) -> Option<usize> {
                match self {
                    $(MsgType::$name => <$payload as Payload>::FIXED_SIZE,)*
                }
            }

            pub(crate) fn with<W: WithPayload>(self, code: W) -> W::Output {
                match self {
                    $(MsgType::$name => code.call::<$payload>(),)*
                }
            }
        }
    };
}

messages! {
    "stamped10b" => Stamped10b(Bytes<10>),
    "stamped100b" => Stamped100b(Bytes<100>),
    "stamped250b" => Stamped250b(Bytes<250>),
    "stamped1kb" => Stamped1kb(Bytes<1024>),
    "stamped10kb" => Stamped10kb(Bytes<10240>),
    "stamped50kb" => Stamped50kb(Bytes<51200>),
    "stamped100kb" => Stamped100kb(Bytes<102400>),
    "stamped250kb" => Stamped250kb(Bytes<256000>),
    "stamped500kb" => Stamped500kb(Bytes<512000>),
    "stamped600kb" => Stamped600kb(Bytes<614400>),
    "stamped1mb" => Stamped1mb(Bytes<1048576>),
    "stamped4mb" => Stamped4mb(Bytes<4194304>),
    "stamped5mb" => Stamped5mb(Bytes<5120000>),
    "stamped8mb" => Stamped8mb(Bytes<8388608>),
    "stamped3_float32" => Stamped3Float32([f32; 3]),
    "stamped4_float32" => Stamped4Float32([f32; 4]),
    "stamped9_float32" => Stamped9Float32([f32; 9]),
    "stamped12_float32" => Stamped12Float32([f32; 12]),
    "stamped4_int32" => Stamped4Int32([i32; 4]),
    "stamped_int64" => StampedInt64([i64; 1]),
    "stamped_vector" => StampedVector(Vec<u8>),
}

impl<'de> Deserialize<'de> for MsgType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        MsgType::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = MsgType::ALL.iter().map(|t| t.name()).collect();
            de::Error::custom(format_args!(
                "unknown message type {name:?} (known: {})",
                known.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_byte_array_encodes_without_a_length() {
        let msg = Stamped10b::default();
        let bytes = tacto::cdr::to_vec(&msg).unwrap();
        // Encapsulation 4, header 8 + 4 + 4 + 4, data 10, padded to a multiple of 4.
        assert_eq!(bytes.len(), 4 + 20 + 10 + 2);
        let back: Stamped10b = tacto::cdr::from_bytes(&bytes).unwrap();
        assert_eq!(back, msg);
    }

    #[test]
    fn a_large_byte_array_decodes_whole_and_refuses_a_truncated_input() {
        let mut msg = Stamped250kb::default();
        msg.data[0] = 1;
        msg.data[255_999] = 2;
        let bytes = tacto::cdr::to_vec(&msg).unwrap();
        let back: Stamped250kb = tacto::cdr::from_bytes(&bytes).unwrap();
        assert_eq!(back, msg);
        let truncated = &bytes[..bytes.len() - 1];
        assert!(tacto::cdr::from_bytes::<Stamped250kb>(truncated).is_err());
    }

    /// `byte[N]` as the serializer sees it element by element: what CDR defines it as.
    struct OneByOne<'a>(&'a [u8]);

    impl Serialize for OneByOne<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeTuple;
            let mut array = serializer.serialize_tuple(self.0.len())?;
            for byte in self.0 {
                array.serialize_element(byte)?;
            }
            array.end()
        }
    }

    #[derive(Serialize)]
    struct StampedOneByOne<'a> {
        header: PerformanceHeader,
        data: OneByOne<'a>,
    }

    #[test]
    fn a_byte_array_as_one_block_is_the_same_cdr_as_byte_by_byte() {
        let header = PerformanceHeader {
            stamp: Time {
                sec: 1_700_000_000,
                nanosec: 123_456_789,
            },
            tracking_number: 42,
            frequency: 100.0,
            size: 1_048_576,
        };
        let mut msg = Stamped1mb {
            header,
            ..Stamped1mb::default()
        };
        for (i, byte) in msg.data.iter_mut().enumerate() {
            *byte = (i % 251) as u8;
        }
        let block = tacto::cdr::to_vec(&msg).unwrap();
        let one_by_one = tacto::cdr::to_vec(&StampedOneByOne {
            header,
            data: OneByOne(&msg.data),
        })
        .unwrap();
        assert!(block == one_by_one, "the encodings differ");
        let back: Stamped1mb = tacto::cdr::from_bytes(&one_by_one).unwrap();
        assert!(
            back == msg,
            "decoding the byte-by-byte encoding changed the message"
        );
    }

    #[test]
    fn a_stamped10b_decodes_from_the_bytes_ros2_sends() {
        // performance_test_msgs/msg/Stamped10b in plain CDR, little-endian, as rmw_cyclonedds
        // writes it: the header's fields aligned to 4, then 10 raw octets, padded to 4.
        let wire = [
            0x00, 0x01, 0x00, 0x00, // encapsulation
            0x02, 0x00, 0x00, 0x00, // stamp.sec = 2
            0x03, 0x00, 0x00, 0x00, // stamp.nanosec = 3
            0x07, 0x00, 0x00, 0x00, // tracking_number = 7
            0x00, 0x00, 0xc8, 0x42, // frequency = 100.0
            0x0a, 0x00, 0x00, 0x00, // size = 10
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // data
            0x00, 0x00, // padding
        ];
        let msg: Stamped10b = tacto::cdr::from_bytes(&wire).unwrap();
        assert_eq!(msg.header.stamp, Time { sec: 2, nanosec: 3 });
        assert_eq!(msg.header.tracking_number, 7);
        assert_eq!(msg.header.frequency, 100.0);
        assert_eq!(msg.header.size, 10);
        assert_eq!(&msg.data[..], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(tacto::cdr::to_vec(&msg).unwrap(), wire);
    }

    #[test]
    fn a_byte_vector_encodes_with_its_length() {
        let mut msg = StampedVector::default();
        msg.data.set_size(3);
        let bytes = tacto::cdr::to_vec(&msg).unwrap();
        assert_eq!(bytes.len(), 4 + 20 + 4 + 3 + 1);
    }

    #[test]
    fn the_header_gives_the_period_back() {
        let header = PerformanceHeader {
            frequency: 100.0,
            ..PerformanceHeader::default()
        };
        assert_eq!(header.period(), Some(Duration::from_millis(10)));
        assert_eq!(PerformanceHeader::default().period(), None);
    }
}
