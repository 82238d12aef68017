//! The `--ros-args` command line read as `rcl_parse_arguments` reads it: the vectors of rcl's
//! own tests (ROS 2 Jazzy), each block naming the file it comes from.

use tacto::args::{ArgsError, LoggerLevel, ParamOverride, RosArgs};
use tacto::logging::Severity;
use tacto::names::RemapKind;

/// The parameters files of rcl's tests (`rcl/test/resources/test_arguments`).
fn parameters_file(n: u32) -> String {
    format!(
        "{}/tests/fixtures/rcl_arguments/test_parameters.{n}.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn parse(args: &[&str]) -> RosArgs {
    RosArgs::parse(args.iter().copied()).unwrap_or_else(|err| panic!("{args:?}: {err}"))
}

/// Parses and leaves nothing unparsed, of the program's or unknown to ROS.
fn are_known_ros_args(args: &[&str]) -> bool {
    let parsed = parse(args);
    parsed.program_args().is_empty() && parsed.unknown_ros_args().is_empty()
}

fn are_valid_ros_args(args: &[&str]) -> bool {
    RosArgs::parse(args.iter().copied()).is_ok()
}

fn param(node: Option<&str>, name: &str, value: &str) -> ParamOverride {
    ParamOverride {
        node: node.map(str::to_owned),
        name: name.to_owned(),
        value: value.to_owned(),
    }
}

// rcl/test/rcl/test_arguments.cpp: check_known_vs_unknown_args

#[test]
fn ros_flags_with_valid_values_are_all_known() {
    let params_file = parameters_file(1);
    let known: &[&[&str]] = &[
        &["--ros-args", "-r", "__node:=node_name"],
        &["--ros-args", "-r", "old_name:__node:=node_name"],
        &["--ros-args", "-r", "old_name:__node:=nodename123"],
        &["--ros-args", "-r", "__node:=nodename123"],
        &["--ros-args", "-r", "__ns:=/foo/bar"],
        &["--ros-args", "-r", "__ns:=/"],
        &["--ros-args", "-r", "_:=kq"],
        &["--ros-args", "-r", "nodename:__ns:=/foobar"],
        &["--ros-args", "-r", "foo:=bar"],
        &["--ros-args", "-r", "~/foo:=~/bar"],
        &["--ros-args", "-r", "/foo/bar:=bar"],
        &["--ros-args", "-r", "foo:=/bar"],
        &["--ros-args", "-r", "/foo123:=/bar123"],
        &["--ros-args", "-r", "node:/foo123:=/bar123"],
        &["--ros-args", "-r", "rostopic:=/foo/bar"],
        &["--ros-args", "-r", "rosservice:=baz"],
        &["--ros-args", "-r", "rostopic://rostopic:=rosservice"],
        &["--ros-args", "-r", "rostopic:///rosservice:=rostopic"],
        &["--ros-args", "-r", "rostopic:///foo/bar:=baz"],
        &["--ros-args", "-p", "foo:=bar"],
        &[
            "--ros-args",
            "-p",
            "qos_overrides./foo/bar.publisher.history:=keep_last",
        ],
        &["--ros-args", "-p", "foo.bar:=bar"],
        &["--ros-args", "-p", "node:foo:=bar"],
        &["--ros-args", "-p", "fizz123:=buzz456"],
        &["--ros-args", "--params-file", &params_file],
        &["--ros-args", "--log-config-file", "file.config"],
        &["--ros-args", "--log-level", "UNSET"],
        &["--ros-args", "--log-level", "DEBUG"],
        &["--ros-args", "--log-level", "INFO"],
        &["--ros-args", "--log-level", "WARN"],
        &["--ros-args", "--log-level", "ERROR"],
        &["--ros-args", "--log-level", "FATAL"],
        &["--ros-args", "--log-level", "debug"],
        &["--ros-args", "--log-level", "Info"],
        &["--ros-args", "--log-file-name", "filename"],
        &["--ros-args", "--enable-rosout-logs"],
        &["--ros-args", "--disable-rosout-logs"],
        &["--ros-args", "--enable-stdout-logs"],
        &["--ros-args", "--disable-stdout-logs"],
        &["--ros-args", "--enable-external-lib-logs"],
        &["--ros-args", "--disable-external-lib-logs"],
    ];
    for args in known {
        assert!(are_known_ros_args(args), "{args:?}");
    }
}

#[test]
fn other_arguments_in_a_ros_args_block_are_unknown() {
    let unknown: &[&[&str]] = &[
        &["--ros-args", "--custom-ros-arg"],
        &["--ros-args", "__node:=node_name"],
        &["--ros-args", "old_name:__node:=node_name"],
        &["--ros-args", "/foo/bar:=bar"],
        &["--ros-args", "foo:=/bar"],
        &["--ros-args", "file_name.yaml"],
        &["--ros-args", "--log", "foo"],
        &["--ros-args", "--loglevel", "foo"],
        &["--ros-args", "--logfile-name", "filename"],
        &["--ros-args", "--log-filename", "filename"],
        &["--ros-args", "stdout-logs"],
        &["--ros-args", "external-lib-logs"],
    ];
    for args in unknown {
        assert!(!are_known_ros_args(args), "{args:?}");
    }
}

// rcl/test/rcl/test_arguments.cpp: check_valid_vs_invalid_args

#[test]
fn every_flag_with_a_valid_value_parses_and_an_unknown_one_is_not_an_error() {
    let params_file = parameters_file(1);
    assert!(are_valid_ros_args(&[
        "--ros-args",
        "-p",
        "foo:=bar",
        "-r",
        "__node:=node_name",
        "--params-file",
        &params_file,
        "--log-level",
        "INFO",
        "--log-config-file",
        "file.config",
        "--log-file-name",
        "filename",
    ]));
    assert!(are_valid_ros_args(&["--ros-args", "--custom-ros-arg"]));
}

#[test]
fn a_missing_or_malformed_remap_rule_is_an_error() {
    let invalid = [
        &["--ros-args", "-r"][..],
        &["--ros-args", "--remap"],
        &["--ros-args", "-r", ":"],
        &["--ros-args", "-r", "1"],
        &["--ros-args", "-r", "~"],
        &["--ros-args", "-r", ":="],
        &["--ros-args", "-r", "foo:="],
        &["--ros-args", "-r", ":=bar"],
        &["--ros-args", "-r", "::="],
        &["--ros-args", "-r", "1:="],
        &["--ros-args", "-r", "~:="],
        &["--ros-args", "-r", "__node:="],
        &["--ros-args", "-r", "__node:=/foo/bar"],
        &["--ros-args", "-r", "__ns:="],
        &["--ros-args", "-r", "__ns:=foo"],
        &["--ros-args", "-r", ":__node:=nodename"],
        &["--ros-args", "-r", "~:__node:=nodename"],
        &["--ros-args", "-r", "}foo:=/bar"],
        &["--ros-args", "-r", "f oo:=/bar"],
        &["--ros-args", "-r", "foo:=/b ar"],
        &["--ros-args", "-r", "f{oo:=/bar"],
        &["--ros-args", "-r", "foo:=/b}ar"],
        &["--ros-args", "-r", "rostopic://:=rosservice"],
        &["--ros-args", "-r", "rostopic::=rosservice"],
    ];
    for args in invalid {
        assert!(!are_valid_ros_args(args), "{args:?}");
    }
}

#[test]
fn a_missing_or_malformed_parameter_override_is_an_error() {
    let invalid = [
        &["--ros-args", "-p"][..],
        &["--ros-args", "-p", ":="],
        &["--ros-args", "-p", "foo:="],
        &["--ros-args", "-p", ":=bar"],
        &["--ros-args", "-p", ":"],
        &["--ros-args", "-p", "1"],
        &["--ros-args", "-p", "~"],
        &["--ros-args", "-p", "::="],
        &["--ros-args", "-p", "1:="],
        &["--ros-args", "-p", "~:="],
        &["--ros-args", "-p", "__node:="],
        &["--ros-args", "-p", "__node:=/foo/bar"],
        &["--ros-args", "-p", "__ns:=foo"],
        &["--ros-args", "-p", ":__node:=nodename"],
        &["--ros-args", "-p", "~:__node:=nodename"],
        &["--ros-args", "-p", "}foo:=/bar"],
        &["--ros-args", "--param", "}foo:=/bar"],
        &["--ros-args", "-p", "f oo:=/bar"],
        &["--ros-args", "--param", "f oo:=/bar"],
    ];
    for args in invalid {
        assert!(!are_valid_ros_args(args), "{args:?}");
    }
}

#[test]
fn a_flag_without_its_value_or_a_bad_log_level_is_an_error() {
    let invalid = [
        &["--ros-args", "-e"][..],
        &["--ros-args", "--enclave"],
        &["--ros-args", "--params-file"],
        &["--ros-args", "--log-config-file"],
        &["--ros-args", "--log-level"],
        &["--ros-args", "--log-level", "foo"],
        &["--ros-args", "--log-file-name"],
    ];
    for args in invalid {
        assert!(!are_valid_ros_args(args), "{args:?}");
    }
}

// rcl/test/rcl/test_arguments.cpp: test_no_args, test_no_ros_args, test_zero_ros_args,
// test_zero_ros_args_w_trailing_dashes

#[test]
fn no_arguments_leave_nothing_unparsed() {
    let args = parse(&[]);
    assert!(args.program_arg_indices().is_empty());
    assert!(args.unknown_ros_arg_indices().is_empty());
}

#[test]
fn the_program_name_alone_or_with_an_empty_block_is_the_program_s_only_argument() {
    for argv in [
        &["process_name"][..],
        &["process_name", "--ros-args"],
        &["process_name", "--ros-args", "--"],
    ] {
        let args = parse(argv);
        assert_eq!(args.program_arg_indices(), [0], "{argv:?}");
        assert!(args.unknown_ros_arg_indices().is_empty(), "{argv:?}");
    }
}

// rcl/test/rcl/test_arguments.cpp: test_remap, test_one_remap_two_ros_args,
// test_one_remap_w_trailing_dashes, test_one_remap_w_two_trailing_dashes

#[test]
fn remap_rules_are_parsed_and_leave_only_the_program_name() {
    for argv in [
        &[
            "process_name",
            "--ros-args",
            "-r",
            "/foo/bar:=/fiz/buz",
            "--remap",
            "foo:=/baz",
        ][..],
        &[
            "process_name",
            "--ros-args",
            "--ros-args",
            "-r",
            "/foo/bar:=/fiz/buz",
        ],
        &[
            "process_name",
            "--ros-args",
            "-r",
            "/foo/bar:=/fiz/buz",
            "--",
        ],
    ] {
        let args = parse(argv);
        assert_eq!(args.program_arg_indices(), [0], "{argv:?}");
        assert!(args.unknown_ros_arg_indices().is_empty(), "{argv:?}");
    }
}

#[test]
fn a_second_trailing_double_dash_is_the_program_s() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "-r",
        "/foo/bar:=/fiz/buz",
        "--",
        "--",
    ]);
    assert_eq!(args.program_arg_indices(), [0, 5]);
    assert!(args.unknown_ros_arg_indices().is_empty());
}

// rcl/test/rcl/test_arguments.cpp: test_mix_valid_invalid_rules, test_bad_alloc_unparse_args

#[test]
fn rules_without_their_flag_inside_a_block_are_unknown_ros_arguments() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "/foo/bar:=",
        "-r",
        "bar:=/fiz/buz",
        "}bar:=fiz",
        "--",
        "arg",
    ]);
    assert_eq!(args.program_arg_indices(), [0, 7]);
    assert_eq!(args.unknown_ros_arg_indices(), [2, 5]);
    assert_eq!(args.unknown_ros_args(), ["/foo/bar:=", "}bar:=fiz"]);
}

// rcl/test/rcl/test_arguments.cpp: test_copy, test_copy_no_ros_args

#[test]
fn a_copy_keeps_the_unparsed_arguments() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "/foo/bar:=",
        "-r",
        "bar:=/fiz/buz",
        "-r",
        "__ns:=/foo",
        "--",
        "arg",
    ]);
    let copy = args.clone();
    for parsed in [&args, &copy] {
        assert_eq!(parsed.program_arg_indices(), [0, 8]);
        assert_eq!(parsed.unknown_ros_arg_indices(), [2]);
    }
    let args = parse(&["process_name", "--ros-args", "--", "arg", "--ros-args"]);
    let copy = args.clone();
    for parsed in [&args, &copy] {
        assert_eq!(parsed.program_arg_indices(), [0, 3]);
        assert!(parsed.unknown_ros_arg_indices().is_empty());
    }
}

// rcl/test/rcl/test_arguments.cpp: test_two_namespace

#[test]
fn two_namespace_rules_are_both_parsed() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "-r",
        "__ns:=/foo/bar",
        "-r",
        "__ns:=/fiz/buz",
    ]);
    assert_eq!(args.program_arg_indices(), [0]);
    assert!(args.unknown_ros_arg_indices().is_empty());
    let kinds: Vec<_> = args.remap_rules().iter().map(|r| r.kind()).collect();
    assert_eq!(kinds, [RemapKind::Namespace, RemapKind::Namespace]);
}

// rcl/test/rcl/test_arguments.cpp: test_remove_ros_args, test_remove_ros_args_if_ros_only,
// test_remove_ros_args_if_no_args

#[test]
fn removing_the_ros_arguments_leaves_the_program_s_in_order() {
    let args = parse(&[
        "process_name",
        "-d",
        "--ros-args",
        "-r",
        "__ns:=/foo/bar",
        "-r",
        "__ns:=/fiz/buz",
        "--",
        "--foo=bar",
        "--baz",
        "--ros-args",
        "--ros-args",
        "-p",
        "bar:=baz",
        "--",
        "--",
        "arg",
    ]);
    assert_eq!(
        args.program_args(),
        ["process_name", "-d", "--foo=bar", "--baz", "--", "arg"]
    );
}

#[test]
fn only_ros_arguments_leave_no_program_arguments() {
    let args = parse(&["--ros-args", "--disable-rosout-logs"]);
    assert!(args.program_args().is_empty());
    assert!(parse(&[]).program_args().is_empty());
}

// rcl/test/rcl/test_arguments.cpp: test_param_argument_zero, test_param_argument_single,
// test_param_argument_multiple, test_param_arguments_copy

#[test]
fn parameters_files_are_kept_in_the_order_given() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "-r",
        "__ns:=/namespace",
        "random:=arg",
    ]);
    assert!(args.params_files().is_empty());

    let first = parameters_file(1);
    let args = parse(&[
        "process_name",
        "--ros-args",
        "-r",
        "__ns:=/namespace",
        "random:=arg",
        "--params-file",
        &first,
    ]);
    assert_eq!(args.params_files(), std::slice::from_ref(&first));

    let second = parameters_file(2);
    let args = parse(&[
        "process_name",
        "--ros-args",
        "--params-file",
        &first,
        "-r",
        "__ns:=/namespace",
        "random:=arg",
        "--params-file",
        &second,
    ]);
    assert_eq!(args.params_files(), [first, second]);
    assert_eq!(args.clone().params_files().len(), 2);
}

// rcl/test/rcl/test_arguments.cpp: test_no_param_overrides, test_param_overrides (which
// overrides are recorded; their values' types need the YAML parser)

#[test]
fn no_parameter_override_is_recorded_without_one() {
    assert!(parse(&["process_name"]).param_overrides().is_empty());
}

#[test]
fn parameter_overrides_are_recorded_with_their_node_name_and_value_in_order() {
    let file = parameters_file(1);
    let args = parse(&[
        "process_name",
        "--ros-args",
        "--params-file",
        &file,
        "--param",
        "string_param:=bar",
        "-p",
        "some.bool_param:=false",
        "-p",
        "some_node:int_param:=4",
    ]);
    assert_eq!(
        args.param_overrides(),
        [
            param(None, "string_param", "bar"),
            param(None, "some.bool_param", "false"),
            param(Some("some_node"), "int_param", "4"),
        ]
    );
    assert_eq!(args.params_files(), [file]);
}

// rcl/test/rcl/test_arguments.cpp: test_parse_with_internal_errors (its argument list; rcl
// checks it under fault injection, here each flag's outcome is checked)

#[test]
fn every_kind_of_flag_at_once_is_recorded_the_last_value_winning() {
    let (first, second) = (parameters_file(1), parameters_file(2));
    let args = parse(&[
        "process_name",
        "--ros-args",
        "--params-file",
        &first,
        "--remap",
        "that_node:foo:=baz",
        "--remap",
        "foo:=bar",
        "--params-file",
        &second,
        "--remap",
        "__name:=my_node",
        "--remap",
        "__ns:=/my_ns",
        "--param",
        "testing:=true",
        "--param",
        "this_node:constant:=42",
        "--enclave",
        "fizz",
        "--enclave",
        "buzz", // override
        "--log-level",
        "rcl:=debug",
        "--log-config-file",
        "flip.txt",
        "--log-config-file",
        "flop.txt", // override
        "--enable-stdout-logs",
        "--enable-rosout-logs",
        "--disable-external-lib-logs",
        "--not-a-real-ros-flag",
        "not-a-real-ros-arg",
        "--",
        "--some-non-ros-flag",
        "some-non-ros-flag",
    ]);
    assert_eq!(args.params_files(), [first, second]);
    let rules: Vec<String> = args.remap_rules().iter().map(|r| r.to_string()).collect();
    assert_eq!(
        rules,
        [
            "that_node:foo:=baz",
            "foo:=bar",
            "__name:=my_node",
            "__ns:=/my_ns"
        ]
    );
    assert_eq!(
        args.param_overrides(),
        [
            param(None, "testing", "true"),
            param(Some("this_node"), "constant", "42")
        ]
    );
    assert_eq!(args.enclave(), Some("buzz"));
    assert_eq!(
        args.logger_levels(),
        [LoggerLevel {
            name: "rcl".into(),
            level: Severity::Debug
        }]
    );
    assert_eq!(args.log_config_file(), Some("flop.txt"));
    assert!(args.stdout_logs() && args.rosout_logs() && !args.external_lib_logs());
    assert_eq!(
        args.unknown_ros_args(),
        ["--not-a-real-ros-flag", "not-a-real-ros-arg"]
    );
    assert_eq!(
        args.program_args(),
        ["process_name", "--some-non-ros-flag", "some-non-ros-flag"]
    );
}

// rcl/test/rcl/test_log_level.cpp

fn log_level_is_invalid(level: &str) -> bool {
    matches!(
        RosArgs::parse(["process_name", "--ros-args", "--log-level", level]),
        Err(ArgsError::InvalidValue { index: 3, .. })
    )
}

#[test]
fn malformed_log_levels_are_errors() {
    for level in [
        ":=debug",
        "debug,",
        "rcl:=debug,",
        "rcl:=debug,,",
        "rcl:=",
        "rcl:=,",
        ":",
        ":=",
        "rcl:",
        "rcl=",
        "rcl=debug",
        "rcl:=:=",
        "rcl=debug,",
        "rcl:,",
    ] {
        assert!(log_level_is_invalid(level), "{level}");
    }
}

#[test]
fn without_a_log_level_the_default_is_unset_and_no_logger_has_one() {
    let args = parse(&["process_name"]);
    assert_eq!(args.log_level(), Severity::Unset);
    assert!(args.logger_levels().is_empty());
}

#[test]
fn a_bare_level_sets_the_default_level() {
    let args = parse(&["process_name", "--ros-args", "--log-level", "debug"]);
    assert_eq!(args.log_level(), Severity::Debug);
    assert!(args.logger_levels().is_empty());
}

fn levels(args: &RosArgs) -> Vec<(&str, Severity)> {
    args.logger_levels()
        .iter()
        .map(|l| (l.name.as_str(), l.level))
        .collect()
}

#[test]
fn a_named_level_sets_that_logger_s_level() {
    let args = parse(&["process_name", "--ros-args", "--log-level", "rcl:=debug"]);
    assert_eq!(args.log_level(), Severity::Unset);
    assert_eq!(levels(&args), [("rcl", Severity::Debug)]);
    let args = parse(&["process_name", "--ros-args", "--log-level", "rcl:=info"]);
    assert_eq!(levels(&args), [("rcl", Severity::Info)]);
}

#[test]
fn the_default_and_a_logger_s_level_are_independent_in_either_order() {
    for argv in [
        &[
            "process_name",
            "--ros-args",
            "--log-level",
            "debug",
            "--log-level",
            "rcl:=debug",
        ],
        &[
            "process_name",
            "--ros-args",
            "--log-level",
            "rcl:=debug",
            "--log-level",
            "debug",
        ],
    ] {
        let args = parse(argv);
        assert_eq!(args.log_level(), Severity::Debug);
        assert_eq!(levels(&args), [("rcl", Severity::Debug)]);
    }
}

#[test]
fn the_rightmost_level_prevails() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "--log-level",
        "debug",
        "--log-level",
        "info",
        "--log-level",
        "rcl:=debug",
        "--log-level",
        "rcl:=info",
    ]);
    assert_eq!(args.log_level(), Severity::Info);
    assert_eq!(levels(&args), [("rcl", Severity::Info)]);
}

#[test]
fn several_loggers_keep_their_own_levels_in_order() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "--log-level",
        "debug",
        "--log-level",
        "rcl:=debug",
        "--log-level",
        "test:=info",
    ]);
    assert_eq!(args.log_level(), Severity::Debug);
    assert_eq!(
        levels(&args),
        [("rcl", Severity::Debug), ("test", Severity::Info)]
    );
}

#[test]
fn a_logger_name_may_have_dots() {
    let args = parse(&[
        "process_name",
        "--ros-args",
        "--log-level",
        "test.abc:=info",
    ]);
    assert_eq!(args.log_level(), Severity::Unset);
    assert_eq!(levels(&args), [("test.abc", Severity::Info)]);
}

// rcutils/src/logging.c (g_rcutils_log_severity_names): rcutils knows six names only.

#[test]
fn warning_is_not_a_log_level_name() {
    assert!(log_level_is_invalid("warning"));
    assert!(log_level_is_invalid("rcl:=WARNING"));
}

// rclcpp/test/rclcpp/test_utilities.cpp: remove_ros_arguments

#[test]
fn rclcpp_removes_the_ros_arguments_and_keeps_the_program_s() {
    let args = parse(&[
        "process_name",
        "-d",
        "--ros-args",
        "-r",
        "__ns:=/foo/bar",
        "-r",
        "__ns:=/fiz/buz",
        "--",
        "--foo=bar",
        "--baz",
    ]);
    assert_eq!(
        args.program_args(),
        ["process_name", "-d", "--foo=bar", "--baz"]
    );
    assert_eq!(parse(&["process_name"]).program_args(), ["process_name"]);
}

// rclcpp/test/rclcpp/test_node_options.cpp: ros_args_only, ros_args_and_non_ros_args,
// bad_ros_args (a node's own arguments have no program name)

#[test]
fn a_node_s_own_arguments_rename_and_move_it() {
    use tacto::names::{remap_node_name, remap_node_namespace};
    let args = parse(&[
        "--ros-args",
        "-r",
        "__node:=some_node",
        "-r",
        "__ns:=/some_ns",
    ]);
    assert!(args.program_arg_indices().is_empty());
    assert!(args.unknown_ros_arg_indices().is_empty());
    assert_eq!(
        remap_node_name(args.remap_rules(), &[], "my_node"),
        Some("some_node")
    );
    assert_eq!(
        remap_node_namespace(args.remap_rules(), &[], "my_ns"),
        Some("/some_ns")
    );

    let args = parse(&[
        "--non-ros-flag",
        "--ros-args",
        "-r",
        "__node:=some_node",
        "-r",
        "__ns:=/some_ns",
        "--",
        "non-ros-arg",
    ]);
    assert!(args.unknown_ros_arg_indices().is_empty());
    assert_eq!(args.program_args(), ["--non-ros-flag", "non-ros-arg"]);
    assert_eq!(
        remap_node_name(args.remap_rules(), &[], "my_node"),
        Some("some_node")
    );
}

#[test]
fn a_bad_rule_is_invalid_and_an_unknown_ros_argument_is_refused_as_rclcpp_does() {
    assert!(matches!(
        RosArgs::parse(["--ros-args", "-r", "foo:="]),
        Err(ArgsError::InvalidValue { index: 2, .. })
    ));
    let args = parse(&["--ros-args", "-r", "foo:=bar", "not-a-ros-arg"]);
    assert_eq!(
        args.reject_unknown(),
        Err(ArgsError::UnknownRosArgs {
            args: vec!["not-a-ros-arg".into()]
        })
    );
}

// rcl/src/rcl/arguments.c: a rule outside a block is still a rule, in its deprecated form.

#[test]
fn a_remap_rule_outside_a_block_is_taken_with_a_deprecation_warning() {
    let args = parse(&["process_name", "chatter:=out", "plain"]);
    assert_eq!(args.program_args(), ["process_name", "plain"]);
    assert_eq!(args.remap_rules()[0].to_string(), "chatter:=out");
    assert_eq!(
        args.warnings(),
        [
            "Found remap rule 'chatter:=out'. This syntax is deprecated. \
          Use '--ros-args --remap chatter:=out' instead."
        ]
    );
}

#[test]
fn a_flag_without_its_value_names_itself_and_where_it_is() {
    let err = RosArgs::parse(["process_name", "--ros-args", "--params-file"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "argument 2 '--params-file' is the last one: expected a parameters file path after it"
    );
}
