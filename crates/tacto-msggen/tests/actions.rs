//! `.action` files: how they parse (rosidl_adapter's own test vectors), what types they
//! become, and their type hashes, checked against the files rosidl generated for the actions
//! of `test_msgs` (`tests/fixtures/test_msgs`, copied from the `ros-test-msgs` 2.0.3 wheel).

use std::path::{Path, PathBuf};

use tacto_msggen::parse::{BaseType, Primitive, parse_action, parse_message};
use tacto_msggen::type_hash::TypeDescriptions;
use tacto_msggen::{GenerateError, Generator, Problem, shipped};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test_msgs")
}

/// `(type name, hash)` of every type in rosidl's description of action `name` of test_msgs:
/// the action, each type derived from it, and each type they reference.
fn rosidl_hashes(name: &str) -> Vec<(String, String)> {
    let path = fixture().join(format!("action/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    (json["type_hashes"].as_array().unwrap().iter())
        .map(|entry| {
            let field = |key: &str| entry[key].as_str().unwrap().to_owned();
            (field("type_name"), field("hash_string"))
        })
        .collect()
}

#[test]
fn every_type_of_test_msgs_actions_hashes_as_rosidl_s() {
    let mut types = TypeDescriptions::new();
    shipped::add_descriptions(&mut types);
    for name in ["Builtins", "BasicTypes"] {
        let text = std::fs::read_to_string(fixture().join(format!("msg/{name}.msg"))).unwrap();
        types.add_message("test_msgs", name, &parse_message(&text).unwrap());
    }
    let mut compared = 0;
    for name in ["Fibonacci", "NestedMessage"] {
        let text =
            std::fs::read_to_string(fixture().join(format!("action/{name}.action"))).unwrap();
        let action = parse_action(&text).unwrap();
        types.add_action(
            "test_msgs",
            name,
            &action.goal,
            &action.result,
            &action.feedback,
        );
        for (type_name, hash) in rosidl_hashes(name) {
            assert_eq!(types.hash(&type_name).unwrap(), hash, "{type_name}");
            compared += 1;
        }
    }
    // Per action: itself, 3 parts, 2 services with request, response and event, the feedback
    // message, and what they reference (UUID, Time, ServiceEventInfo, and NestedMessage's
    // BasicTypes, Builtins and Duration).
    assert_eq!(compared, 16 + 19);
}

#[test]
fn a_description_without_the_goal_id_s_type_gets_rosidl_s_uuid() {
    // Only the action: UUID, Time and ServiceEventInfo come with it.
    let mut types = TypeDescriptions::new();
    let action =
        parse_action(&std::fs::read_to_string(fixture().join("action/Fibonacci.action")).unwrap())
            .unwrap();
    types.add_action(
        "test_msgs",
        "Fibonacci",
        &action.goal,
        &action.result,
        &action.feedback,
    );
    let expected = rosidl_hashes("Fibonacci");
    assert_eq!(
        types.hash("test_msgs/action/Fibonacci").unwrap(),
        expected[0].1
    );
}

/// The line after the `TYPE_NAME` of `type_name` in `code`: its `TYPE_HASH`.
fn generated_hash<'a>(code: &'a str, type_name: &str) -> Option<&'a str> {
    let at = code.find(&format!("const TYPE_NAME: &'static str = {type_name:?};"))?;
    let line = code[at..].lines().nth(1)?.trim();
    line.strip_prefix("const TYPE_HASH: Option<&'static str> = Some(\"")?
        .strip_suffix("\");")
}

#[test]
fn a_generated_action_has_rosidl_s_names_and_hashes() {
    let code = Generator::new()
        .package(fixture())
        .tacto_msgs()
        .generate()
        .unwrap();
    let mut generated = 0;
    for name in ["Fibonacci", "NestedMessage"] {
        for (type_name, hash) in rosidl_hashes(name) {
            // Service events are hashed, not generated, as for `.srv` files; the referenced
            // types of other packages are generated in their own.
            if type_name.ends_with("_Event") || !type_name.starts_with("test_msgs/") {
                assert!(generated_hash(&code, &type_name).is_none(), "{type_name}");
                continue;
            }
            assert_eq!(
                generated_hash(&code, &type_name),
                Some(hash.as_str()),
                "{type_name}"
            );
            generated += 1;
        }
    }
    // Per action: itself and ten derived types; and the two messages NestedMessage uses.
    assert_eq!(generated, 22 + 2);
}

#[test]
fn an_action_becomes_its_parts_two_services_a_feedback_message_and_a_marker() {
    let code = Generator::new()
        .package(fixture())
        .tacto_msgs()
        .generate()
        .unwrap();
    let module = &code[code.find("pub mod action {").expect("an action module")..];
    for expected in [
        "pub struct Fibonacci_Goal {\n            /// `int32 order`",
        "pub order: i32,",
        "pub struct Fibonacci_Result {",
        "pub struct Fibonacci_Feedback {",
        "pub struct Fibonacci_SendGoal_Request {",
        "pub goal_id: ::tacto_msgs::unique_identifier_msgs::msg::UUID,",
        "pub goal: Fibonacci_Goal,",
        "pub struct Fibonacci_SendGoal_Response {",
        "pub accepted: bool,",
        "pub stamp: ::tacto_msgs::builtin_interfaces::msg::Time,",
        "impl ::tacto::ServiceType for Fibonacci_SendGoal {",
        "type Request = Fibonacci_SendGoal_Request;",
        "pub struct Fibonacci_GetResult_Response {",
        "pub status: i8,",
        "pub result: Fibonacci_Result,",
        "impl ::tacto::ServiceType for Fibonacci_GetResult {",
        "pub struct Fibonacci_FeedbackMessage {",
        "pub feedback: Fibonacci_Feedback,",
        "pub struct Fibonacci;",
        "impl ::tacto::ActionType for Fibonacci {",
        "const TYPE_NAME: &'static str = \"test_msgs/action/Fibonacci\";",
        "type Goal = Fibonacci_Goal;",
        "type Result = Fibonacci_Result;",
        "type Feedback = Fibonacci_Feedback;",
        "type SendGoal = Fibonacci_SendGoal;",
        "type GetResult = Fibonacci_GetResult;",
        "type FeedbackMessage = Fibonacci_FeedbackMessage;",
        // A type of the package written without one, of the package, of another package.
        "pub nested_field_no_pkg: super::msg::Builtins,",
        "pub nested_field: super::msg::BasicTypes,",
        "pub nested_different_pkg: ::tacto_msgs::builtin_interfaces::msg::Time,",
    ] {
        assert!(
            module.contains(expected),
            "missing {expected:?} in:\n{module}"
        );
    }
}

#[test]
fn example_interfaces_fibonacci_hashes_as_rosidl_computes_it() {
    // example_interfaces has no wheel with rosidl's files. Its Fibonacci has test_msgs'
    // fields under other comments, and the package name is part of every hash. These hashes
    // are rosidl_generator_type_description's (Jazzy, 4.6.6) for the shipped file, computed by
    // tacto-msgs/tests/rosidl/type_hashes.py, which tacto-msgs' type_hash test runs.
    let mut types = TypeDescriptions::new();
    shipped::add_descriptions(&mut types);
    for (type_name, hash) in [
        (
            "example_interfaces/action/Fibonacci",
            "9508051da1ea4658de144b09bd0690ff3de52104683d847aed764d2915906f51",
        ),
        (
            "example_interfaces/action/Fibonacci_SendGoal",
            "d1a57fb2a4afe8c21e34fb10db206f16ce6729b28531141472df92277c55b557",
        ),
        (
            "example_interfaces/action/Fibonacci_GetResult_Response",
            "6021dc98ab9b4bbe395e48aa4de81ee5f68eb570f88358affcc648146668b24f",
        ),
        (
            "example_interfaces/action/Fibonacci_FeedbackMessage",
            "c1de71afd52e49a89c53d8262366884185bc0a02f78ce051c4e46b0a7fe59bb2",
        ),
    ] {
        assert_eq!(
            types.hash(type_name).unwrap(),
            format!("RIHS01_{hash}"),
            "{type_name}"
        );
    }
}

// From rosidl_adapter/test/test_parse_action_string.py (rosidl, jazzy).

#[test]
fn an_action_needs_exactly_two_separators() {
    // test_invalid_action_specification
    for text in ["", "bool foo\n---\nint8 bar"] {
        assert!(
            matches!(parse_action(text), Err((_, Problem::ActionSeparators(_)))),
            "{text:?}"
        );
    }
    // test_valid_action_string: the feedback may be empty.
    let action = parse_action("bool foo\n---\nint8 bar\n---").unwrap();
    assert!(action.feedback.fields.is_empty());
}

#[test]
fn each_part_of_an_action_has_its_own_fields_and_constants() {
    // test_valid_action_string1
    let action = parse_action("bool foo\n---\nint8 bar\n---\nbool foo").unwrap();
    for part in [&action.goal, &action.result, &action.feedback] {
        assert_eq!((part.fields.len(), part.constants.len()), (1, 0));
    }
    // test_valid_action_string2: a `---` inside a comment separates nothing.
    let action =
        parse_action("#comment---\n \nbool foo\n---\n#comment\n \nint8 bar\n---\nbool foo")
            .unwrap();
    for part in [&action.goal, &action.result] {
        assert_eq!((part.fields.len(), part.constants.len()), (1, 0));
    }
    assert_eq!(action.feedback.fields.len(), 1);
    assert_eq!(
        action.feedback.fields[0].ty.base,
        BaseType::Primitive(Primitive::Bool)
    );
    assert_eq!(action.feedback.fields[0].name, "foo");
    assert!(action.feedback.constants.is_empty());
    // test_valid_action_string3
    let action = parse_action(
        "bool foo\nstring status\n---\nbool FOO=1\nint8 bar\n---\nbool BAR=1\nbool foo",
    )
    .unwrap();
    assert_eq!(
        (action.goal.fields.len(), action.goal.constants.len()),
        (2, 0)
    );
    assert_eq!(
        (action.result.fields.len(), action.result.constants.len()),
        (1, 1)
    );
    assert_eq!(action.result.constants[0].name, "FOO");
    assert_eq!(
        action.result.constants[0].ty,
        BaseType::Primitive(Primitive::Bool)
    );
    assert_eq!(
        action.result.constants[0].value,
        tacto_msggen::parse::Value::Bool(true)
    );
    assert_eq!(action.feedback.fields.len(), 1);
    assert_eq!(action.feedback.fields[0].name, "foo");
    assert_eq!(action.feedback.constants[0].name, "BAR");
    assert_eq!(
        action.feedback.constants[0].value,
        tacto_msggen::parse::Value::Bool(true)
    );
}

/// A package `demo_msgs` with `files`, in a folder of test `test`'s own; removed on drop.
struct Package(PathBuf);

impl Package {
    fn new(test: &str, files: &[(&str, &str)]) -> Package {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("msggen-action-{test}"));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join("demo_msgs").join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Package(root)
    }

    fn dir(&self) -> PathBuf {
        self.0.join("demo_msgs")
    }
}

impl Drop for Package {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_malformed_action_is_an_error_naming_its_file_and_line() {
    for (text, line, problem) in [
        (
            "int32 order\n---\nint32[] sequence\n",
            3,
            Problem::ActionSeparators(1),
        ),
        (
            "int32 a\n---\nint32 b\n---\nint32 c\n---\n",
            6,
            Problem::ActionSeparators(3),
        ),
        (
            "int32 order\n---\nint32[] sequence\n---\nfloat99 progress\n",
            5,
            Problem::UnknownType("float99".into()),
        ),
        (
            "int32 order\n---\nNoSuch result\n---\n",
            3,
            Problem::UnknownType("demo_msgs/NoSuch".into()),
        ),
    ] {
        let package = Package::new("bad", &[("action/Bad.action", text)]);
        let error = Generator::new()
            .package(package.dir())
            .tacto_msgs()
            .generate()
            .unwrap_err();
        let shown = error.to_string();
        let GenerateError::Invalid {
            path,
            line: at,
            problem: found,
        } = error
        else {
            panic!("{text:?}: {shown}");
        };
        assert!(path.ends_with("demo_msgs/action/Bad.action"), "{shown}");
        assert_eq!((at, found), (line, problem), "{text:?}");
        assert!(
            shown.starts_with(&format!("{}:{line}: ", path.display())),
            "{shown}"
        );
    }
    let package = Package::new("separators", &[("action/Bad.action", "int32 a\n")]);
    let shown = Generator::new()
        .package(package.dir())
        .tacto_msgs()
        .generate()
        .unwrap_err()
        .to_string();
    assert!(
        shown.ends_with("an action needs two `---` lines, between goal and result and between result and feedback; found 0"),
        "{shown}"
    );
}

#[test]
fn an_action_without_the_goal_id_s_package_is_refused_naming_it() {
    let package = Package::new(
        "dependency",
        &[("action/Count.action", "int32 up_to\n---\n---\n")],
    );
    let error = Generator::new()
        .package(package.dir())
        .shipped_package("builtin_interfaces", "::tacto::msg::builtin_interfaces")
        .generate()
        .unwrap_err();
    assert!(
        matches!(&error, GenerateError::ActionDependency { type_name, .. } if type_name == "unique_identifier_msgs/msg/UUID"),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("an action's derived types hold unique_identifier_msgs/msg/UUID"),
        "{error}"
    );
    // With it, the derived types use it from where it is given.
    let code = Generator::new()
        .package(package.dir())
        .shipped_package("builtin_interfaces", "::tacto::msg::builtin_interfaces")
        .shipped_package("unique_identifier_msgs", "::ids::msg")
        .generate()
        .unwrap();
    assert!(code.contains("pub goal_id: ::ids::msg::UUID,"), "{code}");
    assert!(
        code.contains("pub stamp: ::tacto::msg::builtin_interfaces::Time,"),
        "{code}"
    );
}
