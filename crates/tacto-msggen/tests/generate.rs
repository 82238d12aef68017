//! The generator on packages written by the tests: what each IDL feature becomes, and the
//! errors for malformed files, each naming file and line.

use std::path::{Path, PathBuf};

use tacto_msggen::{GenerateError, Generator, NotFlat, Problem};

/// A package folder under the target directory, removed when dropped.
struct Package {
    root: PathBuf,
}

impl Package {
    /// Package `name` with `files` (`("msg/A.msg", text)`), in a folder of this test's own.
    fn new(test: &str, name: &str, files: &[(&str, &str)]) -> Package {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("msggen-{test}"));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(name).join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Package { root }
    }

    fn dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }
}

impl Drop for Package {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn generate(test: &str, files: &[(&str, &str)]) -> Result<String, GenerateError> {
    let package = Package::new(test, "demo_msgs", files);
    Generator::new()
        .package(package.dir("demo_msgs"))
        .tacto_msgs()
        .generate()
}

/// The error for one malformed `demo_msgs/msg/Bad.msg`: its line, problem and message.
fn problem(test: &str, text: &str) -> (usize, Problem, String) {
    match generate(test, &[("msg/Bad.msg", text)]) {
        Err(error @ GenerateError::Invalid { .. }) => {
            let shown = error.to_string();
            let GenerateError::Invalid {
                path,
                line,
                problem,
            } = error
            else {
                unreachable!()
            };
            assert!(
                path.ends_with("demo_msgs/msg/Bad.msg"),
                "{}",
                path.display()
            );
            assert!(
                shown.starts_with(&format!("{}:{line}: ", path.display())),
                "{shown}"
            );
            (line, problem, shown)
        }
        other => panic!("{text:?}: expected an error, got {other:?}"),
    }
}

#[test]
fn every_field_type_becomes_its_rust_type_and_codec() {
    let code = generate(
        "types",
        &[
            (
                "msg/All.msg",
                "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\n\
                 uint32 i\nint64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\nwstring o\n\
                 string<=5 p\nwstring<=6 q\nint32[3] r\nfloat64[33] s\nint8[<=4] t\n\
                 uint8[] u\nstring<=2[<=3] v\nwstring[] w\nOther x\ngeometry_msgs/Point y\n\
                 demo_msgs/Other[2] z\n",
            ),
            ("msg/Other.msg", "int32 v\n"),
        ],
    )
    .unwrap();
    let field =
        |codec: &str, decl: &str| format!("#[serde(with = \"{codec}\")]\n            pub {decl},");
    for expected in [
        "pub a: bool,".to_owned(),
        "pub b: u8,".into(),
        "pub c: u8,".into(),
        "pub d: i8,".into(),
        "pub e: u8,".into(),
        "pub f: i16,".into(),
        "pub g: u16,".into(),
        "pub h: i32,".into(),
        "pub i: u32,".into(),
        "pub j: i64,".into(),
        "pub k: u64,".into(),
        "pub l: f32,".into(),
        "pub m: f64,".into(),
        "pub n: String,".into(),
        field("idl::WString", "o: String"),
        field("idl::BoundedString::<5>", "p: String"),
        field("idl::BoundedWString::<6>", "q: String"),
        "pub r: [i32; 3],".into(),
        field("idl::Array::<idl::Plain>", "s: [f64; 33]"),
        field("idl::BoundedSequence::<4, idl::Plain>", "t: Vec<i8>"),
        field("idl::Bytes", "u: Vec<u8>"),
        field(
            "idl::BoundedSequence::<3, idl::BoundedString<2>>",
            "v: Vec<String>",
        ),
        field("idl::Sequence::<idl::WString>", "w: Vec<String>"),
        "pub x: Other,".into(),
        "pub y: ::tacto_msgs::geometry_msgs::msg::Point,".into(),
        "pub z: [Other; 2],".into(),
        "const TYPE_NAME: &'static str = \"demo_msgs/msg/All\";".into(),
        // [f64; 33] has no Default of its own.
        "s: [0.0; 33],".into(),
    ] {
        assert!(code.contains(&expected), "missing {expected:?} in:\n{code}");
    }
}

#[test]
fn constants_defaults_comments_and_services() {
    let code = generate(
        "consts",
        &[
            (
                "msg/Mode.msg",
                "# The mode.\n\n# What it is.\nuint8 kind 3 # trailing\nstring name \"a b\"\n\
                 int16[2] pair [-1, 2]\nuint8 FAST = 1\nstring LABEL='x'\n",
            ),
            ("srv/Set.srv", "Mode mode\n---\nbool ok\n"),
        ],
    )
    .unwrap();
    for expected in [
        "/// `demo_msgs/msg/Mode`\n        ///\n        /// ```text\n        /// The mode.\n",
        "/// `uint8 kind 3`\n            ///\n            /// ```text\n            /// What it is.\n            /// trailing\n",
        "kind: 3,",
        "name: \"a b\".to_owned(),",
        "pair: [-1, 2],",
        "pub const FAST: u8 = 1;",
        "pub const LABEL: &'static str = \"x\";",
        "pub struct Set_Request {",
        "pub mode: super::msg::Mode,",
        "const TYPE_NAME: &'static str = \"demo_msgs/srv/Set_Response\";",
        "pub struct Set;",
        "impl ::tacto::ServiceType for Set {",
        "type Request = Set_Request;",
    ] {
        assert!(code.contains(expected), "missing {expected:?} in:\n{code}");
    }
}

#[test]
fn a_message_named_like_a_prelude_type_does_not_shadow_it() {
    let code = generate(
        "shadow",
        &[("msg/String.msg", "string data\nint8[] values\n")],
    )
    .unwrap();
    assert!(code.contains("pub data: ::std::string::String,"), "{code}");
}

#[test]
fn an_unknown_type_is_an_error_at_its_line() {
    let (line, found, shown) = problem("unknown", "int32 a\nNoSuch b\n");
    assert_eq!(line, 2);
    assert_eq!(found, Problem::UnknownType("demo_msgs/NoSuch".into()));
    assert!(
        shown.ends_with("unknown type \"demo_msgs/NoSuch\""),
        "{shown}"
    );

    let (line, found, _) = problem("unknown_pkg", "# c\nother_msgs/Thing t\n");
    assert_eq!(line, 2);
    assert_eq!(found, Problem::UnknownType("other_msgs/Thing".into()));

    let (_, found, _) = problem("unknown_prim", "int33 a\n");
    assert_eq!(found, Problem::UnknownType("int33".into()));
}

#[test]
fn a_bad_bound_is_an_error_at_its_line() {
    for (text, written, reason) in [
        ("int32[0] a", "[0]", "a bound must be at least 1"),
        ("int32[<=x] a", "[<=x]", "a bound must be a decimal number"),
        ("int32[3 a", "[3", "an array bound must end with ']'"),
        (
            "string<=-1 a",
            "string<=-1",
            "a bound must be a decimal number",
        ),
        (
            "int8[99999999999] a",
            "[99999999999]",
            "a bound must fit the 32-bit CDR length",
        ),
    ] {
        let (line, found, _) = problem("bound", &format!("bool ok\n\n{text}\n"));
        assert_eq!(line, 3, "{text}");
        assert!(
            matches!(&found, Problem::BadBound { text: t, reason: r } if t == written && *r == reason),
            "{text}: {found:?}"
        );
    }
}

#[test]
fn a_bad_constant_or_default_is_an_error_at_its_line() {
    for (text, what) in [
        ("uint8 A=256", "out of range 0..=255"),
        ("int8 A=-129", "out of range -128..=127"),
        ("bool A=yes", "expected true, false, 1 or 0"),
        ("float32 A=1e39", "not a finite number of this type"),
        ("int32 A=1.5", "not an integer"),
        ("string<=2 A=abc", "longer than its bound 2"),
        ("int32[2] a [1, 2, 3]", "3 values for an array of 2"),
        (
            "int32[<=1] a [1, 2]",
            "2 values for a sequence of at most 1",
        ),
        ("int32[] a 1", "an array default is written [a, b, ...]"),
    ] {
        let (line, found, shown) = problem("constant", &format!("{text}\n"));
        assert_eq!(line, 1);
        assert!(
            matches!(&found, Problem::BadValue { reason, .. } if reason == what),
            "{text}: {found:?}"
        );
        assert!(shown.contains(what), "{shown}");
    }
    for (text, line, expected) in [
        ("int32[2] A=1", 1, Problem::ConstantType("int32[2]".into())),
        ("int32 a_=1", 1, Problem::BadConstantName("a_".into())),
        ("int32 Field", 1, Problem::BadFieldName("Field".into())),
        ("int32 a\nint32 a", 2, Problem::DuplicateName("a".into())),
        ("int32", 1, Problem::Syntax("int32".into())),
    ] {
        let (at, found, _) = problem("names", &format!("{text}\n"));
        assert_eq!((at, found), (line, expected), "{text}");
    }
}

#[test]
fn a_service_needs_exactly_one_separator() {
    let error = generate("srv", &[("srv/S.srv", "int32 a\n")]).unwrap_err();
    assert!(
        matches!(
            error,
            GenerateError::Invalid {
                problem: Problem::MissingSeparator,
                ..
            }
        ),
        "{error:?}"
    );
    let error = generate("srv2", &[("srv/S.srv", "---\nint32 a\n---\n")]).unwrap_err();
    assert!(
        matches!(
            error,
            GenerateError::Invalid {
                line: 3,
                problem: Problem::ExtraSeparator,
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn bad_package_and_file_names_are_refused() {
    let package = Package::new("package_name", "Bad-Pkg", &[("msg/A.msg", "int32 a\n")]);
    let error = Generator::new()
        .package(package.dir("Bad-Pkg"))
        .generate()
        .unwrap_err();
    assert!(
        matches!(error, GenerateError::PackageName { .. }),
        "{error}"
    );

    let error = generate("file", &[("msg/lower.msg", "int32 a\n")]).unwrap_err();
    assert!(matches!(error, GenerateError::TypeName { .. }), "{error}");

    let missing = Generator::new()
        .package(Path::new(env!("CARGO_TARGET_TMPDIR")).join("no_such_msgs"))
        .generate()
        .unwrap_err();
    assert!(matches!(missing, GenerateError::Read { .. }), "{missing}");
}

#[test]
fn every_type_carries_its_hash_even_through_an_external_package() {
    let other = Package::new(
        "hash-extern",
        "other_msgs",
        &[("msg/Reading.msg", "std_msgs/Header header\nfloat64 value\n")],
    );
    let demo = Package::new(
        "hash-demo",
        "demo_msgs",
        &[
            (
                "msg/Pair.msg",
                "other_msgs/Reading a\nother_msgs/Reading b\n",
            ),
            (
                "srv/Get.srv",
                "string key\n---\nother_msgs/Reading reading\n",
            ),
        ],
    );
    let code = Generator::new()
        .package(demo.dir("demo_msgs"))
        .extern_package(other.dir("other_msgs"), "::other::other_msgs")
        .tacto_msgs()
        .generate()
        .unwrap();
    // Pair, Get_Request, Get_Response and Get.
    assert_eq!(
        code.matches("const TYPE_HASH: Option<&'static str> = Some(\"RIHS01_")
            .count(),
        4
    );

    // Without the folder of other_msgs there is no description of Reading to hash.
    let lonely = Package::new(
        "hash-lonely",
        "other_msgs",
        &[("msg/Reading.msg", "ghost_msgs/Ghost g\n")],
    );
    let error = Generator::new()
        .package(demo.dir("demo_msgs"))
        .extern_package(lonely.dir("other_msgs"), "::other::other_msgs")
        .generate()
        .unwrap_err();
    assert!(matches!(error, GenerateError::TypeHash(_)), "{error}");
    assert!(
        error.to_string().contains("ghost_msgs/msg/Ghost"),
        "{error}"
    );
}

/// `demo_msgs` with `files`, generated with `flat` asked for flat.
fn generate_flat(
    test: &str,
    files: &[(&str, &str)],
    flat: &[&str],
) -> Result<String, GenerateError> {
    let package = Package::new(test, "demo_msgs", files);
    flat.iter()
        .fold(
            Generator::new().package(package.dir("demo_msgs")),
            |g, t| g.flat(t),
        )
        .tacto_msgs()
        .generate()
}

#[test]
fn a_flat_type_is_generated_with_the_macro_and_flat_strings_and_the_rest_is_unchanged() {
    let files = [
        (
            "msg/Frame.msg",
            "Stamp stamp\nstring<=16 camera \"front\"\nstring<=4[40] tags\nuint8[64] pixels\n\
             char[8] tag\nuint8 MONO=1\n",
        ),
        ("msg/Stamp.msg", "int32 sec\nuint32 nanosec\n"),
        ("msg/Log.msg", "Stamp stamp\nstring<=16 text\n"),
        ("msg/Empty.msg", ""),
        ("srv/Get.srv", "string<=16 camera\n---\nStamp stamp\n"),
    ];
    let flat = [
        "demo_msgs/msg/Frame",
        "demo_msgs/msg/Stamp",
        "demo_msgs/msg/Empty",
    ];
    let code = generate_flat("flat", &files, &flat).unwrap();
    for expected in [
        "/// `demo_msgs/msg/Frame`, flat (`tacto::Flat`: `#[repr(C)]` of size 256, read in place \
         from shared memory)"
            .to_owned(),
        "#[::tacto::message(\"demo_msgs/msg/Frame\", hash = \"RIHS01_".to_owned(),
        "\", flat)]\n        #[derive(Debug, Clone, Copy, PartialEq)]\n        pub struct Frame {"
            .to_owned(),
        "pub stamp: Stamp,".to_owned(),
        "pub camera: ::tacto::FlatString<16>,".to_owned(),
        // The bound is FlatString's own; only the length of the array needs a codec.
        "#[serde(with = \"idl::Array::<idl::Plain>\")]\n            pub tags: [::tacto::FlatString<4>; 40],"
            .to_owned(),
        "#[serde(with = \"idl::Array::<idl::Plain>\")]\n            pub pixels: [u8; 64],".to_owned(),
        "pub tag: [u8; 8],".to_owned(),
        "camera: ::tacto::FlatString::try_from(\"front\").expect(".to_owned(),
        "tags: ::std::array::from_fn(|_| Default::default()),".to_owned(),
        "pixels: [0; 64],".to_owned(),
        "pub const MONO: u8 = 1;".to_owned(),
        "#[derive(Debug, Clone, Copy, PartialEq, Default)]\n        pub struct Stamp {".to_owned(),
        "flat)]\n        #[derive(Debug, Clone, Copy, PartialEq, Default)]\n        pub struct Empty {\n"
            .to_owned(),
    ] {
        assert!(code.contains(&expected), "missing {expected:?} in:\n{code}");
    }
    // Types not asked for keep their `String`s and their own `Message` impl, as without flat.
    let plain = generate_flat("flat-none", &files, &[]).unwrap();
    assert!(
        !plain.contains("flat") && !plain.contains("FlatString"),
        "{plain}"
    );
    let section = |code: &str, from: &str, to: &str| {
        let start = code.find(from).unwrap();
        code[start..start + code[start..].find(to).unwrap()].to_owned()
    };
    for (from, to) in [
        ("pub struct Log {", "impl ::tacto::Message for Log"),
        ("pub mod srv", "pub struct Get;"),
    ] {
        let log = section(&code, from, to);
        assert!(
            log.contains("String") && !log.contains("FlatString"),
            "{log}"
        );
        assert_eq!(log, section(&plain, from, to));
    }
}

/// The refusal of `demo_msgs/msg/Bad` (with `files` besides) asked for flat, and its message.
fn not_flat(
    test: &str,
    text: &str,
    files: &[(&str, &str)],
    also: &[&str],
) -> (usize, String, NotFlat, String) {
    let files: Vec<_> = [("msg/Bad.msg", text)]
        .into_iter()
        .chain(files.iter().copied())
        .collect();
    let flat: Vec<_> = ["demo_msgs/msg/Bad"]
        .into_iter()
        .chain(also.iter().copied())
        .collect();
    match generate_flat(test, &files, &flat) {
        Err(
            ref error @ GenerateError::Flat {
                ref path,
                line,
                ref type_name,
                ref field,
                ref reason,
            },
        ) => {
            assert!(
                path.ends_with("demo_msgs/msg/Bad.msg"),
                "{}",
                path.display()
            );
            assert_eq!(type_name, "demo_msgs/msg/Bad");
            let shown = error.to_string();
            assert!(
                shown.starts_with(&format!(
                    "{}:{line}: demo_msgs/msg/Bad cannot be flat: field `{field}` ",
                    path.display()
                )),
                "{shown}"
            );
            (line, field.clone(), reason.clone(), shown)
        }
        other => panic!("{text:?}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_type_that_cannot_be_flat_is_refused_naming_the_field_and_why() {
    let stamp = [("msg/Stamp.msg", "int32 sec\nuint32 nanosec\n")];
    for (text, line, field, reason, says) in [
        (
            "int32 a\nbool on\n",
            2,
            "on",
            NotFlat::Bool,
            "only the bytes 0 and 1 are valid bools",
        ),
        (
            "string name\n",
            1,
            "name",
            NotFlat::UnboundedString,
            "is an unbounded `string`: a flat type holds its strings inline",
        ),
        (
            "wstring<=4 name\n",
            1,
            "name",
            NotFlat::WString,
            "is a `wstring`",
        ),
        (
            "int32[<=4] values\n",
            1,
            "values",
            NotFlat::Sequence,
            "is a sequence",
        ),
        (
            "float64[] values\n",
            1,
            "values",
            NotFlat::Sequence,
            "is a sequence",
        ),
        (
            "# id first\nuint8 id\nfloat64 value\n",
            3,
            "value",
            NotFlat::Padding {
                offset: 1,
                bytes: 7,
                align: 8,
            },
            "would need 7 bytes of padding before it (at offset 1, to align it to 8)",
        ),
        (
            "float64 value\nuint16[3] ids\n",
            2,
            "ids",
            NotFlat::TrailingPadding {
                size: 14,
                bytes: 2,
                align: 8,
            },
            "ends the type at 14 bytes, which repr(C) pads with 2 bytes",
        ),
        (
            "string<=3 tag\nStamp stamp\n",
            2,
            "stamp",
            NotFlat::Padding {
                offset: 3,
                bytes: 1,
                align: 4,
            },
            "1 bytes of padding",
        ),
        (
            "geometry_msgs/Point p\n",
            1,
            "p",
            NotFlat::External("geometry_msgs/msg/Point".into()),
            "of a package not generated here",
        ),
        (
            "string<=4 tag \"a\0\"\n",
            1,
            "tag",
            NotFlat::NulInDefault,
            "a NUL byte",
        ),
    ] {
        let (at, named, why, shown) = not_flat("not-flat", text, &stamp, &["demo_msgs/msg/Stamp"]);
        assert_eq!(
            (at, named.as_str(), &why),
            (line, field, &reason),
            "{text:?}"
        );
        assert!(shown.contains(says), "{shown}");
    }

    // A nested type must be asked for flat too.
    let (line, field, reason, shown) = not_flat("nested", "int64 a\nStamp s\n", &stamp, &[]);
    assert_eq!((line, field.as_str()), (2, "s"));
    assert_eq!(reason, NotFlat::NestedNotFlat("demo_msgs/msg/Stamp".into()));
    assert!(
        shown.ends_with("ask for it too, .flat(\"demo_msgs/msg/Stamp\")"),
        "{shown}"
    );

    // A nested type's own refusal names its file and field.
    let error = generate_flat(
        "nested-bad",
        &[
            ("msg/Outer.msg", "Inner i\n"),
            ("msg/Inner.msg", "bool b\n"),
        ],
        &["demo_msgs/msg/Outer", "demo_msgs/msg/Inner"],
    )
    .unwrap_err();
    assert!(
        matches!(&error, GenerateError::Flat { type_name, field, reason: NotFlat::Bool, .. } if type_name == "demo_msgs/msg/Inner" && field == "b"),
        "{error}"
    );

    // A type that holds itself has no size: refused, not a stack overflow.
    let error = generate_flat(
        "cycle",
        &[("msg/A.msg", "B b\n"), ("msg/B.msg", "A a\n")],
        &["demo_msgs/msg/A", "demo_msgs/msg/B"],
    )
    .unwrap_err();
    assert!(
        matches!(
            &error,
            GenerateError::Flat {
                reason: NotFlat::ContainsItself(_),
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn only_messages_of_the_packages_given_can_be_asked_for_flat() {
    for name in [
        "demo_msgs/msg/Nope",
        "demo_msgs/srv/Get_Request",
        "std_msgs/msg/Header",
        "Frame",
    ] {
        let error = generate_flat(
            "unknown-flat",
            &[
                ("msg/Frame.msg", "int32 a\n"),
                ("srv/Get.srv", "int32 a\n---\n"),
            ],
            &[name],
        )
        .unwrap_err();
        assert!(
            matches!(&error, GenerateError::UnknownFlat(n) if n == name),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains("is no message of the packages given"),
            "{error}"
        );
    }
}

#[test]
fn a_flat_type_may_nest_a_flat_type_of_another_package_generated_here() {
    let other = Package::new(
        "flat-other",
        "other_msgs",
        &[("msg/Stamp.msg", "int64 ns\n")],
    );
    let demo = Package::new(
        "flat-demo",
        "demo_msgs",
        &[("msg/Frame.msg", "other_msgs/Stamp stamp\nuint8[8] data\n")],
    );
    let generator = Generator::new()
        .package(demo.dir("demo_msgs"))
        .package(other.dir("other_msgs"))
        .flat("demo_msgs/msg/Frame");
    let error = generator.clone().generate().unwrap_err();
    assert!(
        matches!(&error, GenerateError::Flat { reason: NotFlat::NestedNotFlat(n), .. } if n == "other_msgs/msg/Stamp"),
        "{error}"
    );
    let code = generator.flat("other_msgs/msg/Stamp").generate().unwrap();
    assert!(
        code.contains("pub stamp: super::super::other_msgs::msg::Stamp,"),
        "{code}"
    );
    assert_eq!(code.matches(", flat)]").count(), 2, "{code}");
}
