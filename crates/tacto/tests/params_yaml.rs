//! Parameter files and `-p` values read as rcl reads them, and a node's overrides collected
//! as rclcpp collects them. The fixtures are ROS 2's own (tests/params/NOTICE.md); the
//! expectations come from the ROS 2 test named above each block.

use std::path::PathBuf;

use tacto::params::{
    Parameter, ParameterOverrides, ParameterType, ParameterValue, YamlErrorKind, resolve_overrides,
};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/params")
        .join(path)
}

fn read(files: &[&str]) -> ParameterOverrides {
    let mut overrides = ParameterOverrides::new();
    for file in files {
        overrides.add_file(fixture(file)).unwrap();
    }
    overrides
}

fn refused(file: &str) -> tacto::params::YamlError {
    ParameterOverrides::new()
        .add_file(fixture(file))
        .expect_err(file)
}

fn value(overrides: &ParameterOverrides, node: &str, name: &str) -> ParameterValue {
    overrides
        .get(node, name)
        .unwrap_or_else(|| panic!("{node} {name} missing"))
        .unwrap_or_else(|| panic!("{node} {name} has no value"))
}

fn string(s: &str) -> ParameterValue {
    ParameterValue::String(s.into())
}

// rcl_yaml_param_parser/test/test_parse_yaml.cpp, correct_syntax: two files merge, and
// rcl_parse_yaml_value replaces each value.
#[test]
fn a_file_and_its_overlay_merge_and_values_replace_values() {
    let mut p = read(&["rcl/correct_config.yaml", "rcl/overlay.yaml"]);
    assert_eq!(
        value(&p, "lidar_ns/lidar_2", "is_back"),
        ParameterValue::Bool(true)
    );
    p.add_value("lidar_ns/lidar_2", "is_back", "false").unwrap();
    assert_eq!(
        value(&p, "lidar_ns/lidar_2", "is_back"),
        ParameterValue::Bool(false)
    );

    // Bigger than a 32-bit long.
    assert_eq!(
        value(&p, "lidar_ns/lidar_2", "id"),
        ParameterValue::Integer(992147483647)
    );
    p.add_value("lidar_ns/lidar_2", "id", "12").unwrap();
    assert_eq!(
        value(&p, "lidar_ns/lidar_2", "id"),
        ParameterValue::Integer(12)
    );

    assert_eq!(value(&p, "camera", "loc"), string("back"));
    p.add_value("camera", "loc", "front").unwrap();
    assert_eq!(value(&p, "camera", "loc"), string("front"));

    assert_eq!(
        value(&p, "camera", "cam_spec.angle"),
        ParameterValue::Double(2.34)
    );
    p.add_value("camera", "cam_spec.angle", "2.2").unwrap();
    assert_eq!(
        value(&p, "camera", "cam_spec.angle"),
        ParameterValue::Double(2.2)
    );

    assert_eq!(value(&p, "intel", "num_cores"), ParameterValue::Integer(12));
    p.add_value("intel", "num_cores", "8").unwrap();
    assert_eq!(value(&p, "intel", "num_cores"), ParameterValue::Integer(8));

    assert_eq!(value(&p, "intel", "arch"), string("x86_64"));
    p.add_value("intel", "arch", "x86").unwrap();
    assert_eq!(value(&p, "intel", "arch"), string("x86"));

    assert_eq!(
        value(&p, "new_camera_ns/new_camera1", "is_cam_on"),
        ParameterValue::BoolArray(vec![true, true, false, true, false, false])
    );
    p.add_value("new_camera_ns/new_camera1", "is_cam_on", "[false, true]")
        .unwrap();
    assert_eq!(
        value(&p, "new_camera_ns/new_camera1", "is_cam_on"),
        ParameterValue::BoolArray(vec![false, true])
    );

    assert_eq!(
        value(&p, "lidar_ns/lidar_1", "ports"),
        ParameterValue::IntegerArray(vec![2438, 2439, 2440])
    );
    p.add_value("lidar_ns/lidar_1", "ports", "[8080]").unwrap();
    assert_eq!(
        value(&p, "lidar_ns/lidar_1", "ports"),
        ParameterValue::IntegerArray(vec![8080])
    );

    assert_eq!(
        value(&p, "lidar_ns/lidar_1", "driver1.bk_sensor_specs"),
        ParameterValue::DoubleArray(vec![12.1, -2.3, 5.2, 9.0])
    );
    p.add_value("lidar_ns/lidar_1", "driver1.bk_sensor_specs", "[1.0]")
        .unwrap();
    assert_eq!(
        value(&p, "lidar_ns/lidar_1", "driver1.bk_sensor_specs"),
        ParameterValue::DoubleArray(vec![1.0])
    );

    assert_eq!(
        value(&p, "camera", "cam_spec.supported_brands"),
        ParameterValue::from(vec!["Bosch", "Novatek", "Mobius"])
    );
    p.add_value("camera", "cam_spec.supported_brands", "[Mobius]")
        .unwrap();
    assert_eq!(
        value(&p, "camera", "cam_spec.supported_brands"),
        ParameterValue::from(vec!["Mobius"])
    );

    // `!!str` makes strings of what would be typed.
    assert_eq!(value(&p, "string_tag", "string_bool"), string("yes"));
    assert_eq!(value(&p, "string_tag", "string_int"), string("1234"));
    assert_eq!(value(&p, "string_tag", "string_double"), string("12.34"));
}

// test_parse_yaml.cpp, string_array_with_quoted_number.
#[test]
fn quoted_numbers_are_strings_in_arrays_and_values() {
    let mut p = read(&["rcl/string_array_with_quoted_number.yaml"]);
    assert_eq!(
        value(&p, "initial_params_node", "sa2"),
        ParameterValue::from(vec!["and", "7"])
    );
    p.add_value("initial_params_node", "category", "'0'")
        .unwrap();
    assert_eq!(value(&p, "initial_params_node", "category"), string("0"));
}

// test_parse_yaml.cpp: multi_ns_correct_syntax, empty_string, wildcards (accepted files).
#[test]
fn nested_namespaces_empty_strings_and_wildcards_are_accepted() {
    let p = read(&["rcl/multi_ns_correct.yaml"]);
    assert_eq!(
        value(
            &p,
            "lidar_ns/lidar_1/lidar11/lidar111",
            "driver1.driver11.driver111.dx"
        ),
        ParameterValue::Double(4.56)
    );
    assert_eq!(
        value(
            &p,
            "lidar_ns/lidar_1/lidar11/lidar111",
            "driver1.driver11.bk_sensor_specs"
        ),
        ParameterValue::DoubleArray(vec![12.1, -2.3, 5.2, 9.0])
    );
    assert_eq!(
        value(
            &p,
            "lidar_ns/lidar_2/lidar21",
            "driver1.driver11.back_lidar1.back_lidar12.ratio"
        ),
        string("2:1")
    );
    assert_eq!(
        value(&p, "camera/camera1", "cam_spec.angle"),
        ParameterValue::Double(2.34)
    );

    let p = read(&["rcl/empty_string.yaml"]);
    assert_eq!(value(&p, "lidar_ns/lidar_1", "name"), string(""));
    assert_eq!(value(&p, "lidar_ns/lidar_1", "another"), string(""));

    let p = read(&["rcl/wildcards.yaml"]);
    let names: Vec<_> = p.nodes().iter().map(|n| n.name()).collect();
    assert_eq!(
        names,
        [
            "/**",
            "/*",
            "/**/some_node1",
            "/*/some_node2",
            "/**/some_node3",
            "/*/some_node4",
            "/foo1/**",
            "/foo2/*",
            "/foo3/**/some_node5",
            "/foo4/*/some_node6",
            "/foo5/*",
            "/foo6/**/some_node6",
            "/foo7/*/some_node7",
            "/foo8/**/bar/some_node8",
            "/foo9/*/bar/some_node9",
            "/foo10/**/bar/bar1/bar2/**",
            "/foo11/*/bar/bar1/bar2/*",
        ]
    );
}

// test_parse_yaml.cpp, root_ns: one slash in the node's name.
#[test]
fn the_root_namespace_gives_one_leading_slash() {
    let p = read(&["rcl/root_ns.yaml"]);
    assert_eq!(p.nodes().len(), 1);
    assert_eq!(p.nodes()[0].name(), "/my_node");
}

// test_parse_yaml.cpp: seq_map1, seq_map2, params_with_no_node, no_alias_support,
// no_value1, indented_ns, empty_name_in_ns, wildcards_node_slash, wildcards_partial.
#[test]
fn files_rcl_refuses_are_refused_with_their_place() {
    // A mapping in the sequence: its keys and values read as the array's elements, as in
    // rcl, until 4.56 is no string ("Sequence should be of same type" at line 8).
    let e = refused("rcl/seq_map1.yaml");
    assert_eq!(
        e.kind,
        YamlErrorKind::MixedArray {
            first: ParameterType::String,
            found: ParameterType::Double
        }
    );
    assert_eq!((e.line, e.column), (8, 13));
    assert!(matches!(
        refused("rcl/seq_map2.yaml").kind,
        YamlErrorKind::Syntax(_)
    ));
    let e = refused("rcl/params_with_no_node.yaml");
    assert_eq!((e.kind, e.line), (YamlErrorKind::NoNodeName, 6));
    let e = refused("rcl/no_alias_support.yaml");
    assert_eq!((e.kind, e.line, e.column), (YamlErrorKind::Alias, 9, 13));
    let e = refused("rcl/no_value1.yaml");
    assert_eq!((e.kind, e.line), (YamlErrorKind::NoValue, 7));
    let e = refused("rcl/indented_name_space.yaml");
    assert_eq!(e.kind, YamlErrorKind::ValueBeforeParameters);
    let e = refused("rcl/empty_name_in_ns.yaml");
    assert_eq!(
        e.kind,
        YamlErrorKind::InvalidNodeName {
            name: "lidar_ns//lidar_w".into(),
            reason: "/lidar_ns// contains repeated forward slash".into()
        }
    );
    assert!(matches!(
        refused("rcl/wildcards_node_slash.yaml").kind,
        YamlErrorKind::InvalidNodeName { .. }
    ));
    for n in 1..=12 {
        let file = format!("rcl/wildcards_partial_{n:02}.yaml");
        assert!(
            matches!(refused(&file).kind, YamlErrorKind::InvalidNodeName { .. }),
            "{file}"
        );
    }
    // The error names the file, the line and the column.
    let shown = refused("rcl/no_value1.yaml").to_string();
    assert!(shown.contains("no_value1.yaml:7:"), "{shown}");
    assert!(shown.contains("expected a value"), "{shown}");
}

// test_parse_yaml.cpp, special_float_point.
#[test]
fn special_floats_are_only_yamls_spellings() {
    let p = read(&["rcl/special_float.yaml"]);
    let ParameterValue::StringArray(strings) = value(&p, "test_node", "isstring") else {
        panic!("isstring is not a string array");
    };
    assert_eq!(strings[1], ".nananan");
    assert_eq!(strings[2], ".nAN");
    assert_eq!(strings[4], ".infinf");
    assert_eq!(strings[5], ".INf");
    let ParameterValue::DoubleArray(doubles) = value(&p, "test_node", "nan_inf") else {
        panic!("nan_inf is not a double array");
    };
    assert_eq!(doubles.len(), 7);
    assert!(!doubles[1].is_nan());
    assert!(doubles[2].is_nan() && doubles[3].is_nan());
    assert!(doubles[4].is_infinite() && doubles[5].is_infinite() && doubles[6].is_infinite());
    assert!(doubles[6] < 0.0);
}

// test_parser_multiple_nodes.cpp and test_parser_multiple_params.cpp: 513 nodes, 513
// parameters, in file order.
#[test]
fn hundreds_of_nodes_and_parameters_keep_their_order() {
    let p = read(&["rcl/multiple_nodes.yaml"]);
    assert_eq!(p.nodes().len(), 513);
    for (i, node) in p.nodes().iter().enumerate() {
        assert_eq!(node.name(), format!("foo_ns/foo_name{}", i + 1));
        let params: Vec<_> = node.parameters().collect();
        assert_eq!(
            params,
            [(
                format!("param{}", i + 1).as_str(),
                Some(ParameterValue::Integer(i as i64 + 1))
            )]
        );
    }
    let p = read(&["rcl/multiple_params.yaml"]);
    assert_eq!(p.nodes().len(), 1);
    let params: Vec<_> = p.nodes()[0].parameters().collect();
    assert_eq!(params.len(), 513);
    for (i, (name, value)) in params.into_iter().enumerate() {
        assert_eq!(name, format!("param{}", i + 1));
        assert_eq!(value, Some(ParameterValue::Integer(i as i64 + 1)));
    }
}

// test_parse.cpp, parse_value and parse_value_sequence: the typing of each kind of scalar,
// and an array refuses an element of another type.
#[test]
#[allow(clippy::approx_constant)] // the peer's test value, not π
fn values_are_typed_and_arrays_hold_one_type() {
    let mut p = ParameterOverrides::new();
    for (text, expected) in [
        ("true", ParameterValue::Bool(true)),
        ("42", ParameterValue::Integer(42)),
        ("3.14159", ParameterValue::Double(3.14159)),
        ("hello, I am a string", string("hello, I am a string")),
        ("[true]", ParameterValue::BoolArray(vec![true])),
        ("[42]", ParameterValue::IntegerArray(vec![42])),
        ("[3.14159]", ParameterValue::DoubleArray(vec![3.14159])),
        ("[hello]", ParameterValue::from(vec!["hello"])),
    ] {
        let mut fresh = ParameterOverrides::new();
        fresh.add_value("node", text, text).unwrap();
        assert_eq!(value(&fresh, "node", text), expected, "{text}");
        p.add_value("node", "x", text).unwrap();
    }
    for (text, first, found) in [
        ("[hello, true]", "string", "bool"),
        ("[hello, 42]", "string", "integer"),
        ("[hello, 3.14159]", "string", "double"),
        ("[true, hello]", "bool", "string"),
    ] {
        let e = p.add_value("node", "mixed", text).unwrap_err();
        let YamlErrorKind::MixedArray { first: f, found: g } = e.kind else {
            panic!("{text}: {e}");
        };
        assert_eq!(
            (f.to_string().as_str(), g.to_string().as_str()),
            (first, found)
        );
    }
    // A refused value changes nothing.
    assert_eq!(p.get("node", "mixed"), None);
}

// test_parser.cpp, test_parse_yaml_value: empty node, name or value are refused.
#[test]
fn a_value_needs_a_node_a_name_and_text() {
    let mut p = ParameterOverrides::new();
    for (node, name, text) in [("", "p", "true"), ("n", "", "true"), ("n", "p", "")] {
        let e = p.add_value(node, name, text).unwrap_err();
        assert!(matches!(e.kind, YamlErrorKind::Empty(_)), "{e}");
    }
    assert!(p.nodes().is_empty());
    // test_yaml_node_struct_get: "true" is a bool and nothing else.
    p.add_value("node name", "param name", "true").unwrap();
    assert_eq!(
        p.get("node name", "param name"),
        Some(Some(ParameterValue::Bool(true)))
    );
    // A mapping is no value.
    assert_eq!(
        p.add_value("n", "p", "{a: 1}").unwrap_err().kind,
        YamlErrorKind::UnexpectedMapping
    );
}

// rcl/test/rcl/test_arguments.cpp, test_param_argument_multiple and test_param_overrides:
// files and -p arguments share one set of overrides, in command-line order.
#[test]
fn files_and_values_accumulate_in_command_line_order() {
    let p = read(&["rcl/test_parameters.1.yaml", "rcl/test_parameters.2.yaml"]);
    assert_eq!(p.nodes().len(), 2);
    assert_eq!(
        value(&p, "some_node", "int_param"),
        ParameterValue::Integer(3)
    );
    assert_eq!(
        value(&p, "some_node", "param_group.string_param"),
        string("foo")
    );
    assert_eq!(
        value(&p, "another_node", "double_param"),
        ParameterValue::Double(1.0)
    );
    assert_eq!(
        value(&p, "another_node", "param_group.bool_array_param"),
        ParameterValue::BoolArray(vec![true, false, false])
    );

    // --params-file test_parameters.1.yaml --param string_param:=bar
    // -p some.bool_param:=false -p some_node:int_param:=4
    let mut p = read(&["rcl/test_parameters.1.yaml"]);
    p.add_value("/**", "string_param", "bar").unwrap();
    p.add_value("/**", "some.bool_param", "false").unwrap();
    p.add_value("some_node", "int_param", "4").unwrap();
    assert_eq!(p.nodes().len(), 2);
    assert_eq!(value(&p, "/**", "string_param"), string("bar"));
    assert_eq!(
        value(&p, "/**", "some.bool_param"),
        ParameterValue::Bool(false)
    );
    assert_eq!(
        value(&p, "some_node", "int_param"),
        ParameterValue::Integer(4)
    );
    assert_eq!(
        value(&p, "some_node", "param_group.string_param"),
        string("foo")
    );
}

fn overrides_of(fqn: &str, files: &[&str]) -> std::collections::BTreeMap<String, ParameterValue> {
    resolve_overrides(fqn, &[&read(files)], &[]).unwrap()
}

// rclcpp/test/rclcpp/node_interfaces/test_node_parameters.cpp, wildcard_with_namespace and
// wildcard_no_namespace.
#[test]
fn wildcard_keys_match_a_nodes_full_name() {
    let o = overrides_of("/ns/node2", &["rclcpp/wildcards.yaml"]);
    let names: Vec<_> = o.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "explicit_in_ns",
            "full_wild",
            "namespace_wild",
            "namespace_wild_another",
            "namespace_wild_one_star",
            "node_wild_in_ns",
            "node_wild_in_ns_another",
        ]
    );
    for (name, value) in &o {
        assert_eq!(value, &string(name));
    }

    let o = overrides_of("/node2", &["rclcpp/wildcards.yaml"]);
    let names: Vec<_> = o.keys().map(String::as_str).collect();
    // "/*" is exactly one token: namespace_wild_one_star is not for /node2.
    assert_eq!(
        names,
        [
            "explicit_no_ns",
            "full_wild",
            "namespace_wild",
            "namespace_wild_another",
            "node_wild_no_ns",
        ]
    );
}

// test_node_parameters.cpp, params_by_order: the last matching key wins, however specific.
#[test]
fn the_last_matching_key_wins() {
    let o = overrides_of("/ns/node2", &["rclcpp/params_by_order.yaml"]);
    assert_eq!(o.len(), 3);
    assert_eq!(o["a_value"], string("last_one_win"));
    assert_eq!(o["foo"], string("foo"));
    assert_eq!(o["bar"], string("bar"));
}

// test_node_parameters.cpp, complicated_wildcards.
#[test]
fn wildcards_in_the_middle_of_a_namespace_match() {
    let o = overrides_of(
        "/a/b/c/foo/d/bar/node2",
        &["rclcpp/complicated_wildcards.yaml"],
    );
    assert_eq!(o.len(), 2);
    assert_eq!(o["foo"], string("foo"));
    assert_eq!(o["bar"], string("bar"));
    let o = overrides_of("/foo/bar/node2", &["rclcpp/complicated_wildcards.yaml"]);
    assert!(o.is_empty(), "/*/ needs one token");
}

// rclcpp/test/rclcpp/test_node.cpp, declare_parameter_with_cli_overrides: -p before a file is
// overridden by it, -p after it overrides it.
#[test]
fn arguments_and_files_take_precedence_in_order() {
    let mut p = ParameterOverrides::new();
    for (name, text) in [
        ("parameter_bool", "false"),
        ("parameter_int", "42"),
        ("parameter_double", "0.42"),
        ("parameter_string", "foo"),
    ] {
        p.add_value("/**", name, text).unwrap();
    }
    p.add_file(fixture("rclcpp/test_parameters.yaml")).unwrap();
    for (name, text) in [
        ("parameter_bool_array", "[false, true]"),
        ("parameter_int_array", "[-21, 42]"),
        ("parameter_double_array", "[-1.0, .42]"),
        ("parameter_string_array", "[foo, bar]"),
    ] {
        p.add_value("/**", name, text).unwrap();
    }
    let o = resolve_overrides("/test_declare_parameter_node", &[&p], &[]).unwrap();
    assert_eq!(o["parameter_bool"], ParameterValue::Bool(true));
    assert_eq!(o["parameter_int"], ParameterValue::Integer(21)); // 42 on the command line
    assert_eq!(o["parameter_double"], ParameterValue::Double(0.42));
    assert_eq!(o["parameter_string"], string("foo"));
    assert_eq!(
        o["parameter_bool_array"],
        ParameterValue::BoolArray(vec![false, true])
    );
    assert_eq!(
        o["parameter_int_array"],
        ParameterValue::IntegerArray(vec![-21, 42])
    );
    assert_eq!(
        o["parameter_double_array"],
        ParameterValue::DoubleArray(vec![-1.0, 0.42])
    );
    assert_eq!(
        o["parameter_string_array"],
        ParameterValue::from(vec!["foo", "bar"])
    );
}

// rclcpp's resolve_parameter_overrides: the context's arguments, then the node's, then
// NodeOptions::parameter_overrides.
#[test]
fn node_arguments_override_context_arguments_and_explicit_values_override_both() {
    let mut global = ParameterOverrides::new();
    global.add_value("/**", "a", "1").unwrap();
    global.add_value("/**", "b", "1").unwrap();
    global.add_value("/**", "c", "1").unwrap();
    let mut local = ParameterOverrides::new();
    local.add_value("/**", "b", "2").unwrap();
    local.add_value("/**", "c", "2").unwrap();
    let o = resolve_overrides("/n", &[&global, &local], &[Parameter::new("c", 3)]).unwrap();
    assert_eq!(o["a"], ParameterValue::Integer(1));
    assert_eq!(o["b"], ParameterValue::Integer(2));
    assert_eq!(o["c"], ParameterValue::Integer(3));
}

// rcl's parse_value fills only the slot of the new value's type, and rclcpp reads the first
// filled slot (bool, integer, double, string, then arrays): a later value of another type
// does not replace an earlier one.
#[test]
fn a_later_value_of_another_type_does_not_replace_an_earlier_one() {
    let mut p = ParameterOverrides::new();
    p.add_value("/**", "x", "1").unwrap();
    p.add_value("/**", "x", "hello").unwrap();
    assert_eq!(value(&p, "/**", "x"), ParameterValue::Integer(1));
    p.add_value("/**", "y", "hello").unwrap();
    p.add_value("/**", "y", "2.5").unwrap();
    assert_eq!(value(&p, "/**", "y"), ParameterValue::Double(2.5));
}

// rclcpp's parameter_value_from throws "No parameter value set" for a value rcl could not
// type, and the node is not created.
#[test]
fn an_empty_array_is_no_value_and_fails_the_nodes_overrides() {
    let mut p = ParameterOverrides::new();
    p.add_yaml("node:\n  ros__parameters:\n    empty: []\n")
        .unwrap();
    assert_eq!(p.get("node", "empty"), Some(None));
    let e = resolve_overrides("/node", &[&p], &[]).unwrap_err();
    assert!(e.to_string().starts_with("No parameter value set"), "{e}");
    assert!(resolve_overrides("/other", &[&p], &[]).unwrap().is_empty());
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let e = ParameterOverrides::new()
        .add_file(fixture("no_such_file.yaml"))
        .unwrap_err();
    assert!(matches!(e.kind, YamlErrorKind::Io(_)));
    assert!(e.to_string().contains("no_such_file.yaml"), "{e}");
}

// rcl's parse_file_events on a nested sequence: the inner one restarts the array, and a
// second inner one comes where rcl expects a key.
#[test]
fn nested_arrays_read_as_rcl_reads_them() {
    let mut p = ParameterOverrides::new();
    p.add_yaml("n:\n  ros__parameters:\n    a: [[1, 2]]\n")
        .unwrap();
    assert_eq!(
        value(&p, "n", "a"),
        ParameterValue::IntegerArray(vec![1, 2])
    );
    let e = p
        .add_yaml("n:\n  ros__parameters:\n    b: [[1], [2]]\n")
        .unwrap_err();
    assert_eq!((e.kind, e.line), (YamlErrorKind::SequenceAsKey, 3));
    assert_eq!(p.get("n", "b"), None, "a refused file adds nothing");
}
