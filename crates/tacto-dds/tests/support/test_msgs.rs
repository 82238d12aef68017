//! `test_msgs/srv/BasicTypes` (ROS 2 Jazzy's test_msgs 2.0.3, in the venv's wheels), written out
//! here: the service type of the tests against rclpy on rmw_cyclonedds, whose fields of every
//! basic type and a string let each request and reply be told apart.

use serde::{Deserialize, Serialize};
use tacto::{Message, ServiceType};

/// The fields of `test_msgs/srv/BasicTypes`' request and of its response (the same), in the
/// `.srv`'s order.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde")]
pub struct BasicTypes {
    pub bool_value: bool,
    pub byte_value: u8,
    pub char_value: u8,
    pub float32_value: f32,
    pub float64_value: f64,
    pub int8_value: i8,
    pub uint8_value: u8,
    pub int16_value: i16,
    pub uint16_value: u16,
    pub int32_value: i32,
    pub uint32_value: u32,
    pub int64_value: i64,
    pub uint64_value: u64,
    pub string_value: String,
}

impl BasicTypes {
    /// All zero but `int64_value` and `string_value`, the two the tests tell calls apart by.
    pub fn new(int64_value: i64, string_value: String) -> Self {
        BasicTypes {
            int64_value,
            string_value,
            ..Default::default()
        }
    }

    /// What the services of these tests answer, tacto's and `basic_types_service.py`'s alike:
    /// the request with `int64_value + 1` and `" answered"` after its string.
    pub fn answered(&self) -> BasicTypes {
        let mut reply = self.clone();
        reply.int64_value += 1;
        reply.string_value.push_str(" answered");
        reply
    }
}

/// `test_msgs/srv/BasicTypes_Request`.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde", transparent)]
pub struct Request(pub BasicTypes);

impl Message for Request {
    const TYPE_NAME: &'static str = "test_msgs/srv/BasicTypes_Request";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_1dafcf389e224692783e9c4f6066ba0db3fa75fdbd8f081ffbe7ed03144d73d4");
}

/// `test_msgs/srv/BasicTypes_Response`.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(crate = "tacto::serde", transparent)]
pub struct Response(pub BasicTypes);

impl Message for Response {
    const TYPE_NAME: &'static str = "test_msgs/srv/BasicTypes_Response";
    const TYPE_HASH: Option<&'static str> =
        Some("RIHS01_8479b3defe554d969e81c6cf8cdaf0b97b4fcd76928b2d644c6813b032673c0d");
}

/// `test_msgs/srv/BasicTypes`.
pub struct BasicTypesService;

impl ServiceType for BasicTypesService {
    const TYPE_NAME: &'static str = "test_msgs/srv/BasicTypes";
    type Request = Request;
    type Response = Response;
}
