//! A node's parameters with rclcpp's semantics. Each block names the rclcpp (Jazzy) test it
//! ports; expectations (results, reasons, error kinds and texts) are rclcpp's.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tacto::params::{
    DEPTH_RECURSIVE, FloatingPointRange, IntegerRange, Parameter, ParameterDescriptor,
    ParameterError, ParameterEvent, ParameterStore, ParameterType, ParameterValue,
    SetParametersResult,
};

fn store() -> ParameterStore {
    ParameterStore::builder("/test_node").build().unwrap()
}

fn undeclared_allowed() -> ParameterStore {
    ParameterStore::builder("/test_node")
        .allow_undeclared_parameters(true)
        .build()
        .unwrap()
}

fn int(store: &ParameterStore, name: &str) -> i64 {
    store.get_parameter(name).unwrap().value.as_i64().unwrap()
}

fn double(store: &ParameterStore, name: &str) -> f64 {
    store.get_parameter(name).unwrap().value.as_f64().unwrap()
}

fn set(store: &ParameterStore, name: &str, value: impl Into<ParameterValue>) -> bool {
    store.set_parameter(Parameter::new(name, value)).successful
}

// rclcpp/test/rclcpp/test_node.cpp, declare_parameter_with_no_initial_values.
#[test]
fn declaring_without_overrides_takes_the_default() {
    let node = store();
    let value = node
        .declare_parameter(
            "a",
            ParameterValue::NotSet,
            ParameterDescriptor::dynamic(),
            false,
        )
        .unwrap();
    assert_eq!(value, ParameterValue::NotSet);
    // Dynamically typed: getting it unset does not fail.
    assert_eq!(
        node.get_parameter("a").unwrap().kind(),
        ParameterType::NotSet
    );

    assert_eq!(node.declare("b", 42).unwrap(), 42);
    assert_eq!(
        node.get_parameter("b").unwrap().kind(),
        ParameterType::Integer
    );

    let value = node
        .declare_parameter("c", 42, ParameterDescriptor::read_only(), false)
        .unwrap();
    assert_eq!(value, ParameterValue::Integer(42));
    assert!(node.describe_parameter("c").unwrap().read_only);

    node.declare_parameter(
        "d",
        ParameterValue::NotSet,
        ParameterDescriptor::dynamic(),
        false,
    )
    .unwrap();
    let e = node
        .declare_parameter(
            "d",
            ParameterValue::NotSet,
            ParameterDescriptor::dynamic(),
            false,
        )
        .unwrap_err();
    assert_eq!(
        e,
        ParameterError::AlreadyDeclared("parameter 'd' has already been declared".into())
    );

    let e = node.declare("", 5).unwrap_err();
    assert_eq!(
        e,
        ParameterError::InvalidParameters("parameter name must not be empty".into())
    );

    let _must_be_int = node
        .add_on_set_parameters_callback(|ps| match ps.iter().find(|p| p.name == "e") {
            Some(p) if p.kind() != ParameterType::Integer => {
                SetParametersResult::refused("'e' must be an integer")
            }
            _ => SetParametersResult::ok(),
        })
        .unwrap();
    let e = node.declare("e", String::from("not an int")).unwrap_err();
    assert_eq!(
        e,
        ParameterError::InvalidValue(
            "parameter 'e' could not be set: 'e' must be an integer".into()
        )
    );
    assert!(
        !node.has_parameter("e"),
        "a refused declaration declares nothing"
    );
}

// test_node.cpp, declare_parameter_with_allow_undeclared_parameters.
#[test]
fn declared_parameters_keep_static_typing_when_undeclared_ones_are_allowed() {
    let node = undeclared_allowed();
    assert_eq!(node.declare("p1", 5).unwrap(), 5);
    assert!(!set(&node, "p1", "asd"));
    assert_eq!(
        node.get_parameter("p1").unwrap().value,
        ParameterValue::Integer(5)
    );

    // Implicitly declared parameters are dynamically typed.
    assert!(set(&node, "p2", 5));
    assert_eq!(int(&node, "p2"), 5);
    assert!(set(&node, "p2", "asd"));
    assert_eq!(
        node.get_parameter("p2").unwrap().value,
        ParameterValue::from("asd")
    );

    assert!(set(&node, "p3", 5));
    assert!(matches!(
        node.declare("p3", 5),
        Err(ParameterError::AlreadyDeclared(_))
    ));
}

// test_node.cpp, test_registering_multiple_callbacks_api: a dropped handle removes its
// callback (rclcpp's reset() or remove_on_set_parameters_callback()).
#[test]
fn a_dropped_callback_handle_removes_the_callback() {
    let node = store();
    let fixed = |ok: bool| {
        move |_: &[Parameter]| SetParametersResult {
            successful: ok,
            reason: String::new(),
        }
    };
    let _accept = node.add_on_set_parameters_callback(fixed(true)).unwrap();
    assert_eq!(node.declare("p1", 42).unwrap(), 42);
    let refuse = node.add_on_set_parameters_callback(fixed(false)).unwrap();
    assert!(matches!(
        node.declare("p2", 42),
        Err(ParameterError::InvalidValue(_))
    ));
    drop(refuse);
    assert_eq!(node.declare("p3", 42).unwrap(), 42);
}

// test_node.cpp, declare_parameter_with_overrides.
#[test]
fn overrides_are_initial_values_unless_ignored() {
    let node = ParameterStore::builder("/test_node")
        .override_value("parameter_no_default", 42)
        .override_value("parameter_no_default_set", 42)
        .override_value("parameter_and_default", 42)
        .override_value("parameter_and_default_ignore_override", 42)
        .override_value("parameter_custom", 42)
        .override_value("parameter_template", 42)
        .override_value("parameter_rejected", 42)
        .override_value("parameter_type_mismatch", "not an int")
        .build()
        .unwrap();
    let value = node
        .declare_typed(
            "parameter_no_default",
            ParameterType::Integer,
            ParameterDescriptor::default(),
            false,
        )
        .unwrap();
    assert_eq!(value, ParameterValue::Integer(42));

    node.declare_typed(
        "parameter_no_default_set",
        ParameterType::Integer,
        ParameterDescriptor::default(),
        false,
    )
    .unwrap();
    assert!(set(&node, "parameter_no_default_set", 44));
    assert_eq!(int(&node, "parameter_no_default_set"), 44);

    let value = node
        .declare_parameter(
            "parameter_and_default",
            43,
            ParameterDescriptor::default(),
            false,
        )
        .unwrap();
    assert_eq!(value, ParameterValue::Integer(42));
    let value = node
        .declare_parameter(
            "parameter_and_default_ignore_override",
            43,
            ParameterDescriptor::default(),
            true,
        )
        .unwrap();
    assert_eq!(value, ParameterValue::Integer(43));

    let value = node
        .declare_parameter(
            "parameter_custom",
            43,
            ParameterDescriptor::read_only(),
            false,
        )
        .unwrap();
    assert_eq!(value, ParameterValue::Integer(42));
    assert!(
        node.describe_parameter("parameter_custom")
            .unwrap()
            .read_only
    );

    assert_eq!(node.declare("parameter_template", 43).unwrap(), 42);

    let _below_43 = node
        .add_on_set_parameters_callback(|ps| {
            match ps
                .iter()
                .find(|p| p.name == "parameter_rejected")
                .and_then(|p| p.value.as_i64())
            {
                Some(v) if v < 43 => SetParametersResult::refused(
                    "'parameter_rejected' must be an integer and less than 43",
                ),
                _ => SetParametersResult::ok(),
            }
        })
        .unwrap();
    // The override (42) is what the callback sees, and refuses.
    assert!(matches!(
        node.declare("parameter_rejected", 43),
        Err(ParameterError::InvalidValue(_))
    ));

    let e = node.declare("parameter_type_mismatch", 42).unwrap_err();
    assert_eq!(
        e.to_string(),
        "parameter 'parameter_type_mismatch' has invalid type: Wrong parameter type, parameter \
         {parameter_type_mismatch} is of type {integer}, setting it to {string} is not allowed."
    );
    assert!(matches!(
        node.declare_typed(
            "parameter_type_mismatch",
            ParameterType::Integer,
            ParameterDescriptor::default(),
            false
        ),
        Err(ParameterError::InvalidType { .. })
    ));
    assert_eq!(
        node.declare_required::<String>("static_and_uninitialized")
            .unwrap_err(),
        ParameterError::UninitializedStaticallyTyped("static_and_uninitialized".into())
    );
    assert_eq!(
        node.declare_typed(
            "invalid_argument",
            ParameterType::Integer,
            ParameterDescriptor::dynamic(),
            false
        )
        .unwrap_err()
        .to_string(),
        "declare_parameter(): cannot declare parameter of specific type and pass \
         descriptorwith `dynamic_typing=true`"
    );
}

// test_node.cpp, declare_parameters_with_no_initial_values (rclcpp's declare_parameters is
// declare_parameter per name with the namespace and a dot before it).
#[test]
fn namespaced_names_are_just_names_with_dots() {
    let node = store();
    for (name, value) in [
        ("parameter_a", 42),
        ("parameter_b", 256),
        ("parameter_c", i64::MAX - 42),
    ] {
        assert_eq!(
            node.declare(&format!("namespace1.{name}"), value).unwrap(),
            value
        );
    }
    assert!(node.has_parameter("namespace1.parameter_a"));
    assert!(!node.has_parameter("namespace1"));
}

// test_node.cpp, undeclare_parameter and has_parameter.
#[test]
fn only_writable_dynamically_typed_parameters_can_be_undeclared() {
    let node = store();
    node.declare_parameter(
        "a",
        ParameterValue::NotSet,
        ParameterDescriptor::dynamic(),
        false,
    )
    .unwrap();
    assert!(node.has_parameter("a"));
    node.undeclare_parameter("a").unwrap();
    assert!(!node.has_parameter("a"));

    assert_eq!(
        node.undeclare_parameter("b").unwrap_err(),
        ParameterError::NotDeclared(
            "cannot undeclare parameter 'b' which has not yet been declared".into()
        )
    );

    node.declare("c", 42).unwrap();
    assert_eq!(
        node.undeclare_parameter("c").unwrap_err().to_string(),
        "parameter 'c' has invalid type: cannot undeclare a statically typed parameter"
    );
    assert!(node.has_parameter("c"));

    node.declare_parameter("d", 42, ParameterDescriptor::read_only(), false)
        .unwrap();
    assert_eq!(
        node.undeclare_parameter("d").unwrap_err(),
        ParameterError::Immutable("cannot undeclare parameter 'd' because it is read-only".into())
    );
    assert!(node.has_parameter("d"));
}

// test_node.cpp, list_parameters; test_node_parameters.cpp, list_parameters.
#[test]
fn listing_follows_prefixes_and_depth() {
    let node = store();
    let before = node.list_parameters(&[] as &[&str], 1).names.len();
    node.declare_parameter("new_parameter", true, ParameterDescriptor::default(), false)
        .unwrap();
    assert_eq!(
        node.list_parameters(&[] as &[&str], 1).names.len(),
        before + 1
    );
    node.declare_parameter(
        "prefix.new_parameter",
        true,
        ParameterDescriptor::default(),
        false,
    )
    .unwrap();
    let listed = node.list_parameters(&["prefix"], 1);
    assert_eq!(listed.names, ["prefix.new_parameter"]);
    assert_eq!(listed.prefixes, ["prefix"]);
    // A prefix that is a whole name lists that name.
    assert_eq!(
        node.list_parameters(&["new_parameter"], 2).names,
        ["new_parameter"]
    );
    assert_eq!(
        node.list_parameters(&["new_parameter"], 0).names,
        ["new_parameter"]
    );
    // Depth 1 without prefixes: names without a dot only.
    assert_eq!(
        node.list_parameters(&[] as &[&str], 1).names,
        ["new_parameter"]
    );
    assert_eq!(
        node.list_parameters(&[] as &[&str], DEPTH_RECURSIVE)
            .names
            .len(),
        2
    );
    node.declare("prefix.deeper.one", 1).unwrap();
    assert_eq!(
        node.list_parameters(&["prefix"], 1).names,
        ["prefix.new_parameter"]
    );
    assert_eq!(
        node.list_parameters(&["prefix"], DEPTH_RECURSIVE).names,
        ["prefix.deeper.one", "prefix.new_parameter"]
    );
}

// test_node.cpp, set_parameter_undeclared_parameters_not_allowed.
#[test]
fn sets_check_declaration_type_and_callbacks() {
    let node = store();
    node.declare("p1", 42).unwrap();
    assert!(set(&node, "p1", 43));
    assert_eq!(int(&node, "p1"), 43);
    // Static typing: a type change is refused, with rclcpp's reason.
    let result = node.set_parameter(Parameter::new("p1", "not an integer"));
    assert_eq!(
        result,
        SetParametersResult::refused(
            "Wrong parameter type, parameter {p1} is of type {integer}, setting it to {string} is not allowed."
        )
    );
    // Dynamic typing lets it change.
    node.declare_parameter("p2", 42, ParameterDescriptor::dynamic(), false)
        .unwrap();
    assert!(set(&node, "p2", "not an integer"));
    assert_eq!(
        node.get_parameter("p2").unwrap().value,
        ParameterValue::from("not an integer")
    );

    // An undeclared parameter is an error.
    assert_eq!(
        node.set_parameters_atomically(&[Parameter::new("p3", 42)])
            .unwrap_err(),
        ParameterError::NotDeclared(
            "parameter 'p3' cannot be set because it was not declared".into()
        )
    );
    assert!(!node.has_parameter("p3"));

    node.declare("p4", 42).unwrap();
    let veto = node
        .add_on_set_parameters_callback(|_| {
            SetParametersResult::refused("no parameter may not be set right now")
        })
        .unwrap();
    assert_eq!(
        node.set_parameter(Parameter::new("p4", 43)),
        SetParametersResult::refused("no parameter may not be set right now")
    );
    drop(veto);

    // "Not set" on an unset dynamic parameter leaves it declared.
    node.declare_parameter(
        "p5",
        ParameterValue::NotSet,
        ParameterDescriptor::dynamic(),
        false,
    )
    .unwrap();
    assert!(node.set_parameter(Parameter::unset("p5")).successful);
    assert!(node.has_parameter("p5"));
    // On a static one it is refused.
    node.declare("p6", 42).unwrap();
    assert_eq!(
        node.set_parameter(Parameter::unset("p6")),
        SetParametersResult::refused("cannot undeclare a statically typed parameter")
    );
    // On a dynamic one with a value it undeclares it.
    node.declare_parameter("p7", 42, ParameterDescriptor::dynamic(), false)
        .unwrap();
    assert!(node.set_parameter(Parameter::unset("p7")).successful);
    assert!(!node.has_parameter("p7"));

    // A descriptor's type is a status, not a constraint: the default's type wins.
    let descriptor = ParameterDescriptor {
        kind: ParameterType::Integer,
        ..ParameterDescriptor::default()
    };
    node.declare_parameter("p8", "asd", descriptor, false)
        .unwrap();
    assert_eq!(
        node.get_parameter("p8").unwrap().value,
        ParameterValue::from("asd")
    );

    // A pre-set callback that adds an undeclared parameter fails the set, changing nothing.
    node.declare("p9", 0).unwrap();
    let _adds_p10 = node
        .add_pre_set_parameters_callback(|ps| {
            if ps.iter().any(|p| p.name == "p9") {
                ps.push(Parameter::new("p10", 2));
            }
        })
        .unwrap();
    assert!(matches!(
        node.set_parameters_atomically(&[Parameter::new("p9", 4)]),
        Err(ParameterError::NotDeclared(_))
    ));
    assert_eq!(int(&node, "p9"), 0);
    assert!(!node.has_parameter("p10"));
}

/// A range's from, to and step, the initial value, and sets with whether each is accepted.
type RangeCase<T, S> = (T, T, S, T, &'static [(T, bool)]);

fn with_integer_range(
    node: &ParameterStore,
    name: &str,
    from: i64,
    to: i64,
    step: u64,
    initial: i64,
) {
    let descriptor = ParameterDescriptor {
        integer_range: Some(IntegerRange {
            from_value: from,
            to_value: to,
            step,
        }),
        ..ParameterDescriptor::default()
    };
    node.declare_parameter(name, initial, descriptor, false)
        .unwrap();
}

// test_node.cpp, set_parameter_undeclared_parameters_not_allowed: the integer range cases.
#[test]
fn integer_ranges_are_inclusive_and_stepped_from_the_lowest_value() {
    let node = store();
    // (from, to, step, initial, [(value, accepted)]), each left at the last accepted value.
    let cases: [RangeCase<i64, u64>; 6] = [
        (
            10,
            18,
            2,
            10,
            &[(14, true), (18, true), (15, false), (20, false), (8, false)],
        ),
        (
            20,
            18,
            1,
            20,
            &[(18, true), (19, false), (10, false), (25, false)],
        ),
        (18, 18, 1, 18, &[(17, false), (19, false)]),
        (
            18,
            25,
            10,
            18,
            &[(25, true), (17, false), (19, false), (26, false)],
        ),
        (
            18,
            28,
            7,
            18,
            &[
                (28, true),
                (25, true),
                (17, false),
                (19, false),
                (32, false),
            ],
        ),
        (
            10,
            18,
            0,
            10,
            &[(11, true), (15, true), (18, true), (9, false), (19, false)],
        ),
    ];
    for (i, (from, to, step, initial, sets)) in cases.into_iter().enumerate() {
        let name = format!("range{i}");
        with_integer_range(&node, &name, from, to, step, initial);
        let mut expected = initial;
        for &(value, accepted) in sets {
            let result = node.set_parameter(Parameter::new(&name, value));
            assert_eq!(
                result.successful, accepted,
                "[{from}, {to}] step {step}: {value}"
            );
            if accepted {
                expected = value;
            } else {
                assert_eq!(
                    result.reason,
                    format!("Parameter {{{name}}} doesn't comply with integer range.")
                );
            }
            assert_eq!(int(&node, &name), expected);
        }
    }
    // A default out of range is refused at declaration.
    let descriptor = ParameterDescriptor {
        integer_range: Some(IntegerRange {
            from_value: 10,
            to_value: 18,
            step: 2,
        }),
        ..ParameterDescriptor::default()
    };
    assert_eq!(
        node.declare_parameter("bad_default", 42, descriptor, false).unwrap_err(),
        ParameterError::InvalidValue(
            "parameter 'bad_default' could not be set: Parameter {bad_default} doesn't comply with integer range.".into()
        )
    );
}

// test_node.cpp, set_parameter_undeclared_parameters_not_allowed: the floating point cases.
#[test]
fn floating_point_ranges_compare_within_rclcpps_tolerance() {
    let node = store();
    let cases: [RangeCase<f64, f64>; 7] = [
        (
            10.0,
            11.0,
            0.2,
            10.0,
            &[
                (10.2, true),
                (11.0, true),
                (11.3, false),
                (12.0, false),
                (9.4, false),
            ],
        ),
        (
            10.0,
            11.0,
            -0.2,
            10.0,
            &[
                (10.2, true),
                (11.0, true),
                (11.3, false),
                (12.0, false),
                (9.4, false),
            ],
        ),
        (
            11.0,
            10.0,
            0.2,
            10.0,
            &[(11.0, true), (11.2, false), (12.0, false), (9.4, false)],
        ),
        (
            10.0,
            10.0,
            0.2,
            10.0,
            &[(11.2, false), (12.0, false), (9.4, false)],
        ),
        (
            10.0,
            11.0,
            2.2,
            10.0,
            &[(11.0, true), (12.2, false), (7.8, false)],
        ),
        (
            10.0,
            11.0,
            0.7,
            10.0,
            &[(11.0, true), (10.7, true), (11.4, false), (9.3, false)],
        ),
        (
            10.0,
            11.0,
            0.0,
            10.0,
            &[
                (10.0001, true),
                (10.5479051, true),
                (11.0, true),
                (11.001, false),
                (9.999, false),
            ],
        ),
    ];
    for (i, (from, to, step, initial, sets)) in cases.into_iter().enumerate() {
        let name = format!("range{i}");
        let descriptor = ParameterDescriptor {
            floating_point_range: Some(FloatingPointRange {
                from_value: from,
                to_value: to,
                step,
            }),
            ..ParameterDescriptor::default()
        };
        node.declare_parameter(&name, initial, descriptor, false)
            .unwrap();
        let mut expected = initial;
        for &(value, accepted) in sets {
            let result = node.set_parameter(Parameter::new(&name, value));
            assert_eq!(
                result.successful, accepted,
                "[{from}, {to}] step {step}: {value}"
            );
            if accepted {
                expected = value;
            } else {
                assert_eq!(
                    result.reason,
                    format!("Parameter {{{name}}} doesn't comply with floating point range.")
                );
            }
            assert_eq!(double(&node, &name), expected);
        }
    }
}

// test_node.cpp, set_parameter_undeclared_parameters_allowed.
#[test]
fn setting_an_undeclared_parameter_declares_it_when_allowed() {
    let node = undeclared_allowed();
    assert!(set(&node, "p1", 43));
    assert!(node.has_parameter("p1"));
    assert_eq!(int(&node, "p1"), 43);
    assert!(node.describe_parameter("p1").unwrap().dynamic_typing);

    // A pre-set callback may add an undeclared parameter.
    node.declare("p2", 0).unwrap();
    let _also_p3 = node
        .add_pre_set_parameters_callback(|ps| {
            if ps.iter().any(|p| p.name == "p2") {
                ps.push(Parameter::new("p3", 2));
            }
        })
        .unwrap();
    assert!(set(&node, "p2", 1));
    assert_eq!((int(&node, "p2"), int(&node, "p3")), (1, 2));
}

// test_node.cpp, set_parameters_undeclared_parameters_not_allowed and
// test_node_parameters.cpp, set_parameters: each set on its own.
#[test]
#[allow(clippy::approx_constant)] // the peer's test value, not π
fn set_parameters_answers_each_parameter() {
    let node = undeclared_allowed();
    node.declare("bool_parameter", false).unwrap();
    node.declare_parameter(
        "read_only_parameter",
        42,
        ParameterDescriptor::read_only(),
        false,
    )
    .unwrap();
    let results = node
        .set_parameters(&[
            Parameter::new("bool_parameter", true),
            Parameter::new("read_only_parameter", 42),
        ])
        .unwrap();
    assert!(results[0].successful);
    assert_eq!(
        results[1],
        SetParametersResult::refused(
            "parameter 'read_only_parameter' cannot be set because it is read-only"
        )
    );
    assert_eq!(
        node.set_parameters(&[Parameter::new("", true)])
            .unwrap_err(),
        ParameterError::InvalidParameters("parameter name must not be empty".into())
    );
    let results = node
        .set_parameters(&[Parameter::new("undeclared_parameter", 3.14159)])
        .unwrap();
    assert!(results[0].successful);
}

// test_node.cpp, set_parameters_atomically_undeclared_parameters_not_allowed.
#[test]
fn an_atomic_set_changes_all_or_nothing() {
    let node = store();
    node.declare("a", 1).unwrap();
    node.declare("b", true).unwrap();
    node.declare("c", String::from("blue")).unwrap();
    let result = node
        .set_parameters_atomically(&[
            Parameter::new("a", 2),
            Parameter::new("b", false),
            Parameter::new("c", "red"),
        ])
        .unwrap();
    assert!(result.successful);

    // The last of a name wins.
    node.declare("d", 1).unwrap();
    assert!(
        node.set_parameters_atomically(&[Parameter::new("d", 42), Parameter::new("d", 2)])
            .unwrap()
            .successful
    );
    assert_eq!(int(&node, "d"), 2);

    // An undeclared parameter fails it all.
    assert!(matches!(
        node.set_parameters_atomically(&[
            Parameter::new("a", 3),
            Parameter::new("x", "not declared :("),
            Parameter::new("d", 101)
        ]),
        Err(ParameterError::NotDeclared(_))
    ));
    assert_eq!((int(&node, "a"), int(&node, "d")), (2, 2));

    // A callback's refusal fails it all.
    let _no_b = node
        .add_on_set_parameters_callback(|ps| match ps.iter().any(|p| p.name == "b") {
            true => SetParametersResult::refused("parameter 'b' may not be set right now"),
            false => SetParametersResult::ok(),
        })
        .unwrap();
    let result = node
        .set_parameters_atomically(&[
            Parameter::new("a", 9),
            Parameter::new("b", true),
            Parameter::new("c", "green"),
        ])
        .unwrap();
    assert_eq!(
        result,
        SetParametersResult::refused("parameter 'b' may not be set right now")
    );
    assert_eq!(int(&node, "a"), 2);
    assert_eq!(
        node.get_parameter("c").unwrap().value,
        ParameterValue::from("red")
    );
}

// test_node.cpp, set_parameters_atomically_undeclared_parameters_allowed: an implicit
// declaration is undone when the set fails later.
#[test]
fn a_failed_atomic_set_declares_nothing() {
    let node = undeclared_allowed();
    node.declare("a", 42).unwrap();
    node.declare("c", String::from("test")).unwrap();
    let _no_c = node
        .add_on_set_parameters_callback(|ps| match ps.iter().any(|p| p.name == "c") {
            true => SetParametersResult::refused("'c' may not be set right now"),
            false => SetParametersResult::ok(),
        })
        .unwrap();
    let result = node
        .set_parameters_atomically(&[
            Parameter::new("a", 43),
            Parameter::new("b", "other"),
            Parameter::new("c", "other"),
        ])
        .unwrap();
    assert!(!result.successful);
    assert_eq!(int(&node, "a"), 42);
    assert!(!node.has_parameter("b"));
}

// test_node.cpp: get_parameter_undeclared_parameters_(not_)allowed,
// parameter_uninitialized_exception_even_if_allow_undeclared, get_parameter_with_node_allow_undeclared,
// get_parameter_or_*.
#[test]
fn gets_fail_as_rclcpps_do() {
    let node = store();
    assert_eq!(
        node.get_parameter("nope").unwrap_err(),
        ParameterError::NotDeclared("nope".into())
    );
    node.declare_typed(
        "uninit",
        ParameterType::Integer,
        ParameterDescriptor::default(),
        false,
    )
    .unwrap();
    assert_eq!(
        node.get_parameter("uninit").unwrap_err().to_string(),
        "parameter 'uninit' is not initialized"
    );
    assert!(matches!(
        node.get_parameters(&["uninit"]),
        Err(ParameterError::Uninitialized(_))
    ));
    assert_eq!(node.get_parameter_if_set("uninit"), None);
    assert_eq!(node.get_or("uninit", 7), 7);
    assert!(set(&node, "uninit", 44));
    assert_eq!(int(&node, "uninit"), 44);
    assert_eq!(node.get_or("uninit", 7), 44);

    let node = undeclared_allowed();
    assert_eq!(node.get_parameter("x").unwrap(), Parameter::unset("x"));
    node.declare_typed(
        "uninit",
        ParameterType::Integer,
        ParameterDescriptor::default(),
        false,
    )
    .unwrap();
    assert!(matches!(
        node.get_parameter("uninit"),
        Err(ParameterError::Uninitialized(_))
    ));
}

// test_node.cpp: describe_parameter(s)_*, get_parameter_types_*.
#[test]
fn descriptions_and_types_of_declared_and_undeclared_parameters() {
    let node = store();
    let descriptor = ParameterDescriptor {
        description: "a gain".into(),
        ..ParameterDescriptor::default()
    };
    node.declare_parameter("gain", 1.5, descriptor, false)
        .unwrap();
    let described = node.describe_parameter("gain").unwrap();
    assert_eq!(
        (
            described.name.as_str(),
            described.kind,
            described.description.as_str()
        ),
        ("gain", ParameterType::Double, "a gain")
    );
    assert_eq!(
        node.describe_parameters(&["gain", "nope"]).unwrap_err(),
        ParameterError::NotDeclared("nope".into())
    );
    assert_eq!(
        node.get_parameter_types(&["gain"]).unwrap(),
        [ParameterType::Double]
    );
    assert!(matches!(
        node.get_parameter_types(&["nope"]),
        Err(ParameterError::NotDeclared(_))
    ));

    let node = undeclared_allowed();
    let described = node.describe_parameters(&["nope"]).unwrap();
    assert_eq!(
        described,
        [ParameterDescriptor {
            name: "nope".into(),
            ..ParameterDescriptor::default()
        }]
    );
    assert_eq!(
        node.get_parameter_types(&["nope"]).unwrap(),
        [ParameterType::NotSet]
    );
}

// test_node.cpp, static_and_dynamic_typing.
#[test]
fn static_typing_follows_the_default_or_the_declared_type() {
    let node = ParameterStore::builder("/ns/node")
        .override_value("integer_parameter_override_ok", 43)
        .override_value("string_parameter_override_should_throw", 43)
        .override_value("integer_must_provide_override", 43)
        .override_value("cool_way_of_declaring_a_string_without_a_default", "hello!")
        .build()
        .unwrap();
    assert_eq!(node.declare("an_int", 42).unwrap(), 42);
    assert!(!set(&node, "an_int", "string value"));
    assert!(set(&node, "an_int", 43));
    assert_eq!(node.get_or("an_int", 0), 43);
    assert_eq!(
        node.declare("integer_parameter_override_ok", 42).unwrap(),
        43
    );
    assert!(matches!(
        node.declare(
            "string_parameter_override_should_throw",
            String::from("a string")
        ),
        Err(ParameterError::InvalidType { .. })
    ));
    assert_eq!(
        node.declare_typed(
            "integer_must_provide_override",
            ParameterType::Integer,
            ParameterDescriptor::default(),
            false
        )
        .unwrap(),
        ParameterValue::Integer(43)
    );
    assert_eq!(
        node.declare_required::<String>("cool_way_of_declaring_a_string_without_a_default")
            .unwrap(),
        "hello!"
    );
    let value = node
        .declare_typed(
            "integer_override_not_given",
            ParameterType::Integer,
            ParameterDescriptor::default(),
            false,
        )
        .unwrap();
    assert_eq!(value, ParameterValue::NotSet);
    assert!(matches!(
        node.get_parameter("integer_override_not_given"),
        Err(ParameterError::Uninitialized(_))
    ));
    assert_eq!(
        node.declare_typed(
            "parameter_not_set_is_not_a_valid_type",
            ParameterType::NotSet,
            ParameterDescriptor::default(),
            false
        )
        .unwrap_err(),
        ParameterError::InvalidArgument(
            "declare_parameter(): the provided parameter type cannot be rclcpp::PARAMETER_NOT_SET"
                .into()
        )
    );
    assert_eq!(
        node.declare_parameter(
            "uninitialized_not_valid_except_dynamic_typing",
            ParameterValue::NotSet,
            ParameterDescriptor::default(),
            false
        )
        .unwrap_err()
        .to_string(),
        "parameter 'uninitialized_not_valid_except_dynamic_typing' has invalid type: cannot \
         declare a statically typed parameter with an uninitialized value"
    );
}

// test_node_parameters.cpp, parameter_overrides, and NodeParameters' constructor.
#[test]
fn overrides_can_be_declared_automatically_dynamically_typed() {
    let node = ParameterStore::builder("/ns/node2")
        .automatically_declare_parameters_from_overrides(true)
        .override_value("param1", true)
        .override_value("param2", 42)
        .build()
        .unwrap();
    assert_eq!(node.overrides().len(), 2);
    assert_eq!(
        node.get_parameter("param1").unwrap().value,
        ParameterValue::Bool(true)
    );
    assert!(node.describe_parameter("param2").unwrap().dynamic_typing);
    assert!(set(&node, "param2", "now a string"));
}

// test_node_parameters.cpp, add_remove_pre_set_parameters_callback.
#[test]
fn pre_set_callbacks_change_the_list_but_not_declarations() {
    let node = store();
    let chain = node
        .add_pre_set_parameters_callback(|ps| {
            if ps.iter().any(|p| p.name == "param1") {
                ps.push(Parameter::new("param2", 2.0));
            }
        })
        .unwrap();
    node.declare("param1", 0.0).unwrap();
    node.declare("param2", 0.0).unwrap();
    assert_eq!(
        (double(&node, "param1"), double(&node, "param2")),
        (0.0, 0.0)
    );
    let results = node
        .set_parameters(&[Parameter::new("param1", 1.0)])
        .unwrap();
    assert_eq!(results.len(), 1);
    assert!(results[0].successful);
    assert_eq!(
        (double(&node, "param1"), double(&node, "param2")),
        (1.0, 2.0)
    );
    drop(chain);

    let _empty = node
        .add_pre_set_parameters_callback(|ps| ps.clear())
        .unwrap();
    let results = node
        .set_parameters(&[Parameter::new("param1", 1.0)])
        .unwrap();
    assert_eq!(
        results[0],
        SetParametersResult::refused(
            "parameter list cannot be empty, this might be due to pre_set_parameters_callback \
             modifying the original parameters list."
        )
    );
}

// test_node_parameters.cpp, add_remove_post_set_parameters_callback.
#[test]
fn post_set_callbacks_see_what_was_set() {
    let node = store();
    node.declare("param1", 0.0).unwrap();
    node.declare("param2", 0.0).unwrap();
    let tracked = Arc::new(Mutex::new((0.0, 0.0)));
    let seen = tracked.clone();
    let _track = node
        .add_post_set_parameters_callback(move |ps| {
            let mut t = seen.lock().unwrap();
            for p in ps {
                match p.name.as_str() {
                    "param1" => t.0 = p.value.as_f64().unwrap(),
                    "param2" => t.1 = p.value.as_f64().unwrap(),
                    _ => {}
                }
            }
        })
        .unwrap();
    let results = node
        .set_parameters(&[Parameter::new("param1", 1.0), Parameter::new("param2", 2.0)])
        .unwrap();
    assert!(results.iter().all(|r| r.successful));
    assert_eq!(*tracked.lock().unwrap(), (1.0, 2.0));
}

// rclcpp calls callbacks last registered first, and stops at the first refusal.
#[test]
fn callbacks_run_last_registered_first() {
    let node = store();
    node.declare("p", 0).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let (a, b) = (order.clone(), order.clone());
    let _first = node
        .add_on_set_parameters_callback(move |_| {
            a.lock().unwrap().push("first");
            SetParametersResult::ok()
        })
        .unwrap();
    let _second = node
        .add_on_set_parameters_callback(move |_| {
            b.lock().unwrap().push("second");
            SetParametersResult::refused("no")
        })
        .unwrap();
    assert!(!set(&node, "p", 1));
    assert_eq!(*order.lock().unwrap(), ["second"]);
}

// rclcpp's ParameterMutationRecursionGuard: a callback may read, not change.
#[test]
fn a_callback_may_read_parameters_but_not_change_them() {
    let node = store();
    node.declare("p", 0).unwrap();
    node.declare("q", 5).unwrap();
    let inner = node.clone();
    let seen = Arc::new(Mutex::new(None));
    let out = seen.clone();
    let _reentrant = node
        .add_on_set_parameters_callback(move |_| {
            let read = inner.get_parameter("q").unwrap().value;
            let write = inner.set_parameters_atomically(&[Parameter::new("q", 6)]);
            let add = inner
                .add_on_set_parameters_callback(|_| SetParametersResult::ok())
                .map(drop);
            *out.lock().unwrap() = Some((read, write, add));
            SetParametersResult::ok()
        })
        .unwrap();
    assert!(set(&node, "p", 1));
    let (read, write, add) = seen.lock().unwrap().take().unwrap();
    assert_eq!(read, ParameterValue::Integer(5));
    assert_eq!(write.unwrap_err(), ParameterError::ModifiedInCallback);
    assert_eq!(
        add.unwrap_err().to_string(),
        "cannot set or declare a parameter, or change the callback from within set callback"
    );
    assert_eq!(int(&node, "q"), 5);
}

fn recorded(allow_undeclared: bool) -> (ParameterStore, Arc<Mutex<Vec<ParameterEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let node = ParameterStore::builder("/ns/node")
        .allow_undeclared_parameters(allow_undeclared)
        .on_event(move |e| sink.lock().unwrap().push(e.clone()))
        .build()
        .unwrap();
    (node, events)
}

// What rclcpp publishes on /parameter_events: declarations as new parameters, sets as
// changed ones, implicit declarations as new ones, undeclaring sets as deleted ones (with
// the "not set" value they were given); undeclare_parameter publishes nothing.
#[test]
fn changes_produce_rclcpps_parameter_events() {
    let (node, events) = recorded(true);
    node.declare("a", 1).unwrap();
    node.declare_parameter("d", 2, ParameterDescriptor::dynamic(), false)
        .unwrap();
    node.declare_parameter(
        "u",
        ParameterValue::NotSet,
        ParameterDescriptor::dynamic(),
        false,
    )
    .unwrap();
    node.set_parameters_atomically(&[
        Parameter::new("a", 3),
        Parameter::new("new", "x"),
        Parameter::unset("d"),
    ])
    .unwrap();
    node.undeclare_parameter("u").unwrap();
    assert!(!set(&node, "a", "refused"));
    let events = events.lock().unwrap();
    let expected = [
        ParameterEvent {
            node: "/ns/node".into(),
            new_parameters: vec![Parameter::new("a", 1)],
            ..Default::default()
        },
        ParameterEvent {
            node: "/ns/node".into(),
            new_parameters: vec![Parameter::new("d", 2)],
            ..Default::default()
        },
        // Declared without a value: an event with nothing in it, as rclcpp publishes.
        ParameterEvent {
            node: "/ns/node".into(),
            ..Default::default()
        },
        ParameterEvent {
            node: "/ns/node".into(),
            new_parameters: vec![Parameter::new("new", "x")],
            changed_parameters: vec![Parameter::new("a", 3)],
            deleted_parameters: vec![Parameter::unset("d")],
        },
    ];
    assert_eq!(*events, expected);
}

#[test]
fn a_handle_sees_a_set_from_another_thread() {
    let node = store();
    node.declare("gain", 0.5).unwrap();
    let mut gain = node.handle::<f64>("gain").unwrap();
    let setter = node.clone();
    let writer = std::thread::spawn(move || {
        for i in 1..=1000 {
            assert!(
                setter
                    .set_parameter(Parameter::new("gain", f64::from(i)))
                    .successful
            );
        }
    });
    let mut last = *gain.get();
    while last < 1000.0 {
        let now = *gain.get();
        assert!(now >= last, "values arrive in order: {now} after {last}");
        last = now;
        std::hint::spin_loop();
    }
    writer.join().unwrap();
    assert!(!gain.changed());
    assert_eq!(*gain.get(), 1000.0);
}

#[test]
fn a_handle_is_refused_for_a_parameter_it_cannot_read() {
    let node = store();
    node.declare("gain", 0.5).unwrap();
    node.declare_typed(
        "later",
        ParameterType::Double,
        ParameterDescriptor::default(),
        false,
    )
    .unwrap();
    assert_eq!(
        node.handle::<i64>("gain").unwrap_err().to_string(),
        "parameter 'gain' has invalid type: expected [integer] got [double]"
    );
    assert_eq!(
        node.handle::<f64>("nope").unwrap_err(),
        ParameterError::NotDeclared("nope".into())
    );
    assert_eq!(
        node.handle::<f64>("later").unwrap_err(),
        ParameterError::Uninitialized("later".into())
    );
}

#[test]
fn a_handle_keeps_its_last_value_of_its_type() {
    let node = store();
    node.declare_parameter("d", 1, ParameterDescriptor::dynamic(), false)
        .unwrap();
    let mut d = node.handle::<i64>("d").unwrap();
    assert!(set(&node, "d", "text"));
    assert!(d.changed());
    assert_eq!(*d.get(), 1);
    assert!(set(&node, "d", 2));
    assert_eq!(*d.get(), 2);
    node.undeclare_parameter("d").unwrap();
    assert!(!d.is_declared());
    assert_eq!(*d.get(), 2);
}

#[test]
fn a_watch_counts_changes_of_its_parameters() {
    let node = undeclared_allowed();
    let all = node.watch();
    let one = node.watch_names(&["a"]);
    node.declare("a", 1).unwrap();
    assert!(set(&node, "b", 1));
    assert_eq!((all.changes(), one.changes()), (2, 1));
    assert!(all.changed() && one.changed());
    assert!(!all.changed() && !one.changed());
    assert!(set(&node, "a", 2));
    assert!(one.changed());
}

#[test]
fn concurrent_atomic_sets_never_interleave() {
    // Two setters each set both parameters to their own value atomically; a reader getting
    // both at once must never see a mix.
    let node = store();
    node.declare("x", 0).unwrap();
    node.declare("y", 0).unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = [1, 2]
        .into_iter()
        .map(|v| {
            let (node, done) = (node.clone(), done.clone());
            std::thread::spawn(move || {
                for _ in 0..500 {
                    let result = node
                        .set_parameters_atomically(&[
                            Parameter::new("x", v),
                            Parameter::new("y", v),
                        ])
                        .unwrap();
                    assert!(result.successful);
                }
                done.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    let mut reads = 0;
    while done.load(Ordering::SeqCst) < 2 {
        let both = node.get_parameters(&["x", "y"]).unwrap();
        assert_eq!(both[0].value, both[1].value, "a mix after {reads} reads");
        reads += 1;
    }
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(int(&node, "x"), int(&node, "y"));
}
