//! ROS 2 type hashes (`RIHS01_<64 hex>`, REP 2011): the SHA-256 of a canonical JSON of a
//! type's description and of every type it references, as `rosidl_generator_type_description`
//! computes them. Jazzy endpoints send theirs in their DDS USER_DATA (`typehash=...;`), and
//! `ros2 topic info -v` shows them.
//!
//! A description lists each field's name and type (a `FieldType` id of
//! `type_description_interfaces`, array or sequence capacity, string bound, nested type name),
//! never its default value, so a changed default keeps the hash and a changed field changes it.
//! A service `pkg/srv/X` is described by three fields, `request_message` (`X_Request`),
//! `response_message` (`X_Response`) and `event_message` (`X_Event`, the service
//! introspection message), so its hash covers all three. An action `pkg/action/X` is
//! described by six: its goal, result and feedback messages, the services it derives
//! (`X_SendGoal`, `X_GetResult`) and its feedback message (`X_FeedbackMessage`); see
//! [`TypeDescriptions::add_action`].
//!
//! ```
//! use tacto_msggen::parse::{parse_message, parse_service};
//! use tacto_msggen::type_hash::TypeDescriptions;
//!
//! let mut types = TypeDescriptions::new();
//! types.add_message("std_msgs", "String", &parse_message("string data").unwrap());
//! assert_eq!(
//!     types.hash("std_msgs/msg/String").unwrap(),
//!     "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
//! );
//! let (request, response) = parse_service("int64 a\nint64 b\n---\nint64 sum").unwrap();
//! types.add_service("example_interfaces", "AddTwoInts", &request, &response);
//! assert!(types.hash("example_interfaces/srv/AddTwoInts").is_ok());
//! assert!(types.hash("example_interfaces/srv/AddTwoInts_Request").is_ok());
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use sha2::{Digest, Sha256};

use crate::parse::{ActionDef, BaseType, Container, FieldType, MessageDef, Primitive};

/// The field rosidl gives a message without fields, under this name in its description (the
/// generated code calls it `structure_needs_at_least_one_field`).
const PLACEHOLDER: &str = "structure_needs_at_least_one_member";

/// The `FieldType` id of `type_description_interfaces` of a nested type; the others follow
/// from [`type_id`].
const NESTED_TYPE: u8 = 1;

/// One field of a [`TypeDescription`]: `type_description_interfaces/msg/Field` without its
/// default value, which is not hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDescription {
    /// The field's name.
    pub name: String,
    /// Its `type_description_interfaces/msg/FieldType` id (e.g. 17 for `string`).
    pub type_id: u8,
    /// The length of an array or the bound of a bounded sequence; 0 otherwise.
    pub capacity: usize,
    /// The bound of a bounded string (or of each string of an array); 0 otherwise.
    pub string_capacity: usize,
    /// The `pkg/msg/Type` of a nested message; empty otherwise.
    pub nested_type_name: String,
}

impl FieldDescription {
    /// The description of field `name` of type `ty`, in a file of package `package` (the
    /// package of a nested type written without one).
    pub fn new(name: &str, ty: &FieldType, package: &str) -> FieldDescription {
        let (capacity, offset) = match ty.container {
            Container::Single => (0, 0),
            Container::Array(n) => (n, 48),
            Container::Bounded(n) => (n, 96),
            Container::Unbounded => (0, 144),
        };
        let (base, string_capacity, nested_type_name) = match &ty.base {
            BaseType::Primitive(p) => (type_id(*p), 0, String::new()),
            BaseType::String(None) => (17, 0, String::new()),
            BaseType::WString(None) => (18, 0, String::new()),
            BaseType::String(Some(n)) => (21, *n, String::new()),
            BaseType::WString(Some(n)) => (22, *n, String::new()),
            BaseType::Named {
                package: target,
                name,
            } => (
                NESTED_TYPE,
                0,
                crate::parse::nested_type_name(package, target.as_deref(), name),
            ),
        };
        FieldDescription {
            name: name.to_owned(),
            type_id: base + offset,
            capacity,
            string_capacity,
            nested_type_name,
        }
    }

    fn nested(name: &str, type_name: String, container: Container) -> FieldDescription {
        let (capacity, offset) = match container {
            Container::Bounded(n) => (n, 96),
            _ => (0, 0),
        };
        FieldDescription {
            name: name.to_owned(),
            type_id: NESTED_TYPE + offset,
            capacity,
            string_capacity: 0,
            nested_type_name: type_name,
        }
    }
}

/// The `FieldType` id of a primitive. A `.msg` `char` is an IDL `uint8` and `byte` an
/// `octet`, as `rosidl_adapter` translates them.
fn type_id(primitive: Primitive) -> u8 {
    match primitive {
        Primitive::Int8 => 2,
        Primitive::UInt8 | Primitive::Char => 3,
        Primitive::Int16 => 4,
        Primitive::UInt16 => 5,
        Primitive::Int32 => 6,
        Primitive::UInt32 => 7,
        Primitive::Int64 => 8,
        Primitive::UInt64 => 9,
        Primitive::Float32 => 10,
        Primitive::Float64 => 11,
        Primitive::Bool => 15,
        Primitive::Byte => 16,
    }
}

/// The description of one type on its own (`type_description_interfaces/msg/
/// IndividualTypeDescription`): its name and fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDescription {
    /// `pkg/msg/Type` (or `pkg/srv/X_Request`, `pkg/srv/X`, ...).
    pub type_name: String,
    /// The fields in order.
    pub fields: Vec<FieldDescription>,
}

impl TypeDescription {
    /// The description of message `type_name` (full, `pkg/msg/Type`) defined by `def` in a
    /// file of `package`. A message without fields gets rosidl's placeholder field.
    pub fn of_message(type_name: &str, package: &str, def: &MessageDef) -> TypeDescription {
        let mut fields: Vec<FieldDescription> = def
            .fields
            .iter()
            .map(|f| FieldDescription::new(&f.name, &f.ty, package))
            .collect();
        if fields.is_empty() {
            fields.push(FieldDescription {
                name: PLACEHOLDER.to_owned(),
                type_id: type_id(Primitive::UInt8),
                capacity: 0,
                string_capacity: 0,
                nested_type_name: String::new(),
            });
        }
        TypeDescription {
            type_name: type_name.to_owned(),
            fields,
        }
    }
}

/// Why a hash could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no description of type {missing:?}, which the hash of {type_name:?} needs")]
pub struct UnknownType {
    /// The type whose hash was asked for.
    pub type_name: String,
    /// The type (it or one it references) whose description is missing.
    pub missing: String,
}

/// The descriptions of many types, by name: what a hash is computed from.
///
/// Bounded by what is added; a type added twice keeps its last description.
#[derive(Debug, Clone, Default)]
pub struct TypeDescriptions {
    types: BTreeMap<String, TypeDescription>,
}

impl TypeDescriptions {
    /// No types yet.
    pub fn new() -> TypeDescriptions {
        TypeDescriptions::default()
    }

    /// Adds `description`.
    pub fn add(&mut self, description: TypeDescription) {
        self.types
            .insert(description.type_name.clone(), description);
    }

    /// Adds message `package/msg/name` defined by `def`.
    pub fn add_message(&mut self, package: &str, name: &str, def: &MessageDef) {
        self.add(TypeDescription::of_message(
            &format!("{package}/msg/{name}"),
            package,
            def,
        ));
    }

    /// Adds service `package/srv/name` and the types rosidl makes of it: `name_Request`,
    /// `name_Response` and the service event `name_Event` (with `service_msgs/msg/
    /// ServiceEventInfo` and `builtin_interfaces/msg/Time`, unless already known).
    pub fn add_service(
        &mut self,
        package: &str,
        name: &str,
        request: &MessageDef,
        response: &MessageDef,
    ) {
        let service = format!("{package}/srv/{name}");
        self.add_service_types(
            &service,
            TypeDescription::of_message(&format!("{service}_Request"), package, request),
            TypeDescription::of_message(&format!("{service}_Response"), package, response),
        );
    }

    /// Adds action `package/action/name` and the types rosidl_parser's `Action` derives from
    /// it: `name_Goal`, `name_Result`, `name_Feedback`, the services `name_SendGoal` (request
    /// `goal_id`, `goal`; response `accepted`, `stamp`) and `name_GetResult` (request
    /// `goal_id`; response `status`, `result`) with their requests, responses and events, and
    /// `name_FeedbackMessage` (`goal_id`, `feedback`). The action's own description has one
    /// field per part, in that order, as `rosidl_generator_type_description` writes it.
    /// `unique_identifier_msgs/msg/UUID` (the goal id) is added too, unless already known.
    pub fn add_action(
        &mut self,
        package: &str,
        name: &str,
        goal: &MessageDef,
        result: &MessageDef,
        feedback: &MessageDef,
    ) {
        let action = format!("{package}/action/{name}");
        let part = |suffix: &str| format!("{action}_{suffix}");
        let field = |name: &str, type_name: String| {
            FieldDescription::nested(name, type_name, Container::Single)
        };
        for (suffix, def) in [("Goal", goal), ("Result", result), ("Feedback", feedback)] {
            self.add(TypeDescription::of_message(&part(suffix), package, def));
        }
        let [
            send_goal_request,
            send_goal_response,
            get_result_request,
            get_result_response,
            feedback_message,
        ] = ActionDef::derived(name)
            .map(|(suffix, def)| TypeDescription::of_message(&part(suffix), package, &def));
        self.add_service_types(&part("SendGoal"), send_goal_request, send_goal_response);
        self.add_service_types(&part("GetResult"), get_result_request, get_result_response);
        self.add(feedback_message);
        self.add(TypeDescription {
            type_name: action.clone(),
            fields: vec![
                field("goal", part("Goal")),
                field("result", part("Result")),
                field("feedback", part("Feedback")),
                field("send_goal_service", part("SendGoal")),
                field("get_result_service", part("GetResult")),
                field("feedback_message", part("FeedbackMessage")),
            ],
        });
        self.add_builtin(UUID, UUID_MSG);
    }

    /// Adds service `service` (`pkg/srv/X`, `pkg/action/X_SendGoal`, ...) with its `request`
    /// and `response` and the event rosidl derives from them, `<service>_Event`.
    fn add_service_types(
        &mut self,
        service: &str,
        request: TypeDescription,
        response: TypeDescription,
    ) {
        let event_name = format!("{service}_Event");
        let (request_name, response_name) = (request.type_name.clone(), response.type_name.clone());
        self.add(request);
        self.add(response);
        self.add(TypeDescription {
            type_name: event_name.clone(),
            fields: vec![
                FieldDescription::nested("info", EVENT_INFO.into(), Container::Single),
                FieldDescription::nested("request", request_name.clone(), Container::Bounded(1)),
                FieldDescription::nested("response", response_name.clone(), Container::Bounded(1)),
            ],
        });
        self.add(TypeDescription {
            type_name: service.to_owned(),
            fields: vec![
                FieldDescription::nested("request_message", request_name, Container::Single),
                FieldDescription::nested("response_message", response_name, Container::Single),
                FieldDescription::nested("event_message", event_name, Container::Single),
            ],
        });
        self.add_builtin(EVENT_INFO, EVENT_INFO_MSG);
        self.add_builtin(TIME, TIME_MSG);
    }

    /// Adds `type_name` defined by `text`, one of the definitions this module carries for the
    /// types rosidl adds to services and actions, unless a description of it is known.
    fn add_builtin(&mut self, type_name: &str, text: &str) {
        if !self.types.contains_key(type_name) {
            let def = crate::parse::parse_message(text).expect("a valid built-in definition");
            let package = type_name.split('/').next().unwrap_or_default();
            self.add(TypeDescription::of_message(type_name, package, &def));
        }
    }

    /// The description of `type_name`, if added.
    pub fn get(&self, type_name: &str) -> Option<&TypeDescription> {
        self.types.get(type_name)
    }

    /// The RIHS01 hash of `type_name` (`pkg/msg/Type`, `pkg/srv/X`, `pkg/srv/X_Request`, ...):
    /// `RIHS01_` and 64 lowercase hex digits.
    ///
    /// # Errors
    /// The description of the type, or of a type it references, was not added.
    pub fn hash(&self, type_name: &str) -> Result<String, UnknownType> {
        let json = self.hashed_json(type_name)?;
        let digest = Sha256::digest(json.as_bytes());
        let mut hash = String::with_capacity(7 + 64);
        hash.push_str("RIHS01_");
        for byte in digest {
            let _ = write!(hash, "{byte:02x}");
        }
        Ok(hash)
    }

    /// The JSON that is hashed: Python's `json.dumps` of `{"type_description": ...,
    /// "referenced_type_descriptions": [...]}` (sorted by name) with separators `", "` and
    /// `": "`, keys in declaration order, non-ASCII escaped.
    fn hashed_json(&self, type_name: &str) -> Result<String, UnknownType> {
        let lookup = |name: &str| {
            self.types.get(name).ok_or_else(|| UnknownType {
                type_name: type_name.to_owned(),
                missing: name.to_owned(),
            })
        };
        let main = lookup(type_name)?;
        let mut referenced = BTreeSet::new();
        let mut pending: Vec<&str> = nested_names(main).collect();
        while let Some(name) = pending.pop() {
            if referenced.insert(name) {
                pending.extend(nested_names(lookup(name)?));
            }
        }
        let mut json = String::from("{\"type_description\": ");
        write_description(&mut json, main);
        json.push_str(", \"referenced_type_descriptions\": [");
        for (i, name) in referenced.into_iter().enumerate() {
            if i > 0 {
                json.push_str(", ");
            }
            write_description(&mut json, lookup(name)?);
        }
        json.push_str("]}");
        Ok(json)
    }
}

fn nested_names(description: &TypeDescription) -> impl Iterator<Item = &str> {
    (description.fields.iter())
        .map(|f| f.nested_type_name.as_str())
        .filter(|n| !n.is_empty())
}

fn write_description(json: &mut String, description: &TypeDescription) {
    json.push_str("{\"type_name\": ");
    write_string(json, &description.type_name);
    json.push_str(", \"fields\": [");
    for (i, field) in description.fields.iter().enumerate() {
        if i > 0 {
            json.push_str(", ");
        }
        json.push_str("{\"name\": ");
        write_string(json, &field.name);
        let _ = write!(
            json,
            ", \"type\": {{\"type_id\": {}, \"capacity\": {}, \"string_capacity\": {}, \
             \"nested_type_name\": ",
            field.type_id, field.capacity, field.string_capacity,
        );
        write_string(json, &field.nested_type_name);
        json.push_str("}}");
    }
    json.push_str("]}");
}

/// `text` as a JSON string the way Python's `json.dumps(ensure_ascii=True)` writes it. Names
/// checked by the parser are plain identifiers; a description built by hand may hold anything.
fn write_string(json: &mut String, text: &str) {
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            '\n' => json.push_str("\\n"),
            '\r' => json.push_str("\\r"),
            '\t' => json.push_str("\\t"),
            '\u{8}' => json.push_str("\\b"),
            '\u{c}' => json.push_str("\\f"),
            ' '..='~' => json.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(json, "\\u{unit:04x}");
                }
            }
        }
    }
    json.push('"');
}

/// The service event's info: `service_msgs/msg/ServiceEventInfo`, fields only.
const EVENT_INFO: &str = "service_msgs/msg/ServiceEventInfo";
const EVENT_INFO_MSG: &str =
    "uint8 event_type\nbuiltin_interfaces/Time stamp\nchar[16] client_gid\nint64 sequence_number\n";
/// What `ServiceEventInfo` and an action's `SendGoal` response reference.
const TIME: &str = "builtin_interfaces/msg/Time";
const TIME_MSG: &str = "int32 sec\nuint32 nanosec\n";
/// An action's goal id.
const UUID: &str = "unique_identifier_msgs/msg/UUID";
const UUID_MSG: &str = "uint8[16] uuid\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_message, parse_service};

    fn shipped(types: &mut TypeDescriptions) {
        types.add_message(
            "builtin_interfaces",
            "Time",
            &parse_message(TIME_MSG).unwrap(),
        );
        types.add_message(
            "std_msgs",
            "Header",
            &parse_message("builtin_interfaces/Time stamp\nstring frame_id").unwrap(),
        );
    }

    // The literals are rosidl's, from the `.json` files of the Jazzy packages.
    #[test]
    fn hashes_equal_rosidl_s() {
        let mut types = TypeDescriptions::new();
        shipped(&mut types);
        types.add_message("std_msgs", "Empty", &parse_message("").unwrap());
        types.add_message(
            "sensor_msgs",
            "NavSatStatus",
            &parse_message("int8 STATUS_FIX=0\nint8 status -2\nuint16 service").unwrap(),
        );
        let (request, response) =
            parse_service("bool data\n---\nbool success\nstring message").unwrap();
        types.add_service("std_srvs", "SetBool", &request, &response);
        for (name, hash) in [
            (
                "std_msgs/msg/Header",
                "f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01",
            ),
            (
                "builtin_interfaces/msg/Time",
                "b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197",
            ),
            (
                "std_srvs/srv/SetBool",
                "abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a",
            ),
            (
                "std_srvs/srv/SetBool_Request",
                "c62fbb99d94e1b25e8ef9e109f9581956bb1b3361a45a4e5810c36a90d29932e",
            ),
            (
                "std_srvs/srv/SetBool_Event",
                "3c4c20015afb4303eafd347b1d6a786f171a89c814726961a9593ef10df878cf",
            ),
            (
                "service_msgs/msg/ServiceEventInfo",
                "41bcbbe07a75c9b52bc96bfd5c24d7f0fc0a08c0cb7921b3373c5732345a6f45",
            ),
        ] {
            assert_eq!(
                types.hash(name).unwrap(),
                format!("RIHS01_{hash}"),
                "{name}"
            );
        }
    }

    #[test]
    fn the_hashed_json_has_no_defaults_and_python_s_separators() {
        let mut types = TypeDescriptions::new();
        shipped(&mut types);
        assert_eq!(
            types.hashed_json("std_msgs/msg/Header").unwrap(),
            "{\"type_description\": {\"type_name\": \"std_msgs/msg/Header\", \"fields\": \
             [{\"name\": \"stamp\", \"type\": {\"type_id\": 1, \"capacity\": 0, \
             \"string_capacity\": 0, \"nested_type_name\": \"builtin_interfaces/msg/Time\"}}, \
             {\"name\": \"frame_id\", \"type\": {\"type_id\": 17, \"capacity\": 0, \
             \"string_capacity\": 0, \"nested_type_name\": \"\"}}]}, \
             \"referenced_type_descriptions\": [{\"type_name\": \"builtin_interfaces/msg/Time\", \
             \"fields\": [{\"name\": \"sec\", \"type\": {\"type_id\": 6, \"capacity\": 0, \
             \"string_capacity\": 0, \"nested_type_name\": \"\"}}, {\"name\": \"nanosec\", \
             \"type\": {\"type_id\": 7, \"capacity\": 0, \"string_capacity\": 0, \
             \"nested_type_name\": \"\"}}]}]}"
        );
    }

    #[test]
    fn strings_are_escaped_as_python_s_json() {
        let mut json = String::new();
        write_string(&mut json, "a\"b\\c\nd\u{1}é😀\u{7f}");
        // json.dumps('a"b\\c\nd\x01é😀\x7f') in Python.
        assert_eq!(json, r#""a\"b\\c\nd\u0001\u00e9\ud83d\ude00\u007f""#);
    }

    #[test]
    fn field_types_map_to_type_description_ids() {
        let def =
            parse_message("char c\nbyte[4] b\nfloat64[<=3] d\nstring<=5[] s\nwstring w\nTime[] t")
                .unwrap();
        let description = TypeDescription::of_message("p/msg/T", "p", &def);
        let ids: Vec<(u8, usize, usize)> = (description.fields.iter())
            .map(|f| (f.type_id, f.capacity, f.string_capacity))
            .collect();
        assert_eq!(
            ids,
            [
                (3, 0, 0),
                (64, 4, 0),
                (107, 3, 0),
                (165, 0, 5),
                (18, 0, 0),
                (145, 0, 0)
            ]
        );
        assert_eq!(description.fields[5].nested_type_name, "p/msg/Time");
    }

    #[test]
    fn a_missing_reference_is_named() {
        let mut types = TypeDescriptions::new();
        types.add_message(
            "std_msgs",
            "Header",
            &parse_message("builtin_interfaces/Time stamp").unwrap(),
        );
        let error = types.hash("std_msgs/msg/Header").unwrap_err();
        assert_eq!(error.missing, "builtin_interfaces/msg/Time");
        assert!(types.hash("nope/msg/Nothing").is_err());
    }
}
