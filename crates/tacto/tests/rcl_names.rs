//! ROS names validated and expanded as rmw and rcl do: the vectors of rmw's and rcl's own tests
//! (ROS 2 Jazzy), each block naming the file it comes from.

use std::collections::HashMap;

use tacto::names::{
    FullTopicNameInvalid, Invalid, NAMESPACE_MAX_LENGTH, NODE_NAME_MAX_LENGTH, NameError,
    NamespaceInvalid, NodeIdentity, NodeNameInvalid, TOPIC_NAME_MAX_LENGTH, TopicNameInvalid,
    expand_topic_name, expand_topic_name_with, validate_full_topic_name, validate_namespace,
    validate_node_name, validate_topic_name,
};

fn invalid<R>(reason: R, index: usize) -> Result<(), Invalid<R>> {
    Err(Invalid { reason, index })
}

// rmw/test/test_validate_node_name.cpp

#[test]
fn node_names_of_alphanumerics_and_underscores_are_valid() {
    assert_eq!(validate_node_name("nodename"), Ok(()));
    assert_eq!(validate_node_name("node_name"), Ok(()));
}

#[test]
fn an_empty_node_name_is_invalid_at_index_zero() {
    assert_eq!(
        validate_node_name(""),
        invalid(NodeNameInvalid::IsEmptyString, 0)
    );
}

#[test]
fn a_node_name_with_another_character_is_invalid_where_it_is() {
    use NodeNameInvalid::ContainsUnallowedCharacters as Unallowed;
    assert_eq!(validate_node_name("node/name"), invalid(Unallowed, 4));
    assert_eq!(validate_node_name("node_{name}"), invalid(Unallowed, 5));
    assert_eq!(validate_node_name("~node_name"), invalid(Unallowed, 0));
    assert_eq!(validate_node_name("with spaces"), invalid(Unallowed, 4));
    assert_eq!(validate_node_name("with.periods"), invalid(Unallowed, 4));
}

#[test]
fn a_node_name_starting_with_a_digit_is_invalid() {
    assert_eq!(
        validate_node_name("42node"),
        invalid(NodeNameInvalid::StartsWithNumber, 0)
    );
}

#[test]
fn a_node_name_is_too_long_only_when_nothing_else_is_wrong() {
    let invalid_and_long = "0".repeat(NODE_NAME_MAX_LENGTH + 1);
    assert_eq!(
        validate_node_name(&invalid_and_long),
        invalid(NodeNameInvalid::StartsWithNumber, 0)
    );
    let valid_but_long = "a".repeat(NODE_NAME_MAX_LENGTH + 1);
    assert_eq!(
        validate_node_name(&valid_but_long),
        invalid(NodeNameInvalid::TooLong, NODE_NAME_MAX_LENGTH - 1)
    );
}

#[test]
fn every_node_name_result_has_rmw_s_text() {
    // rmw_node_name_validation_result_string's strings (rmw/src/validate_node_name.c).
    assert_eq!(
        NodeNameInvalid::IsEmptyString.message(),
        "node name must not be empty"
    );
    assert_eq!(
        NodeNameInvalid::ContainsUnallowedCharacters.message(),
        "node name must not contain characters other than alphanumerics or '_'"
    );
    assert_eq!(
        NodeNameInvalid::StartsWithNumber.message(),
        "node name must not start with a number"
    );
    assert_eq!(
        NodeNameInvalid::TooLong.message(),
        "node name length should not exceed '255'"
    );
    assert_eq!(NODE_NAME_MAX_LENGTH, 255);
}

// rmw/test/test_validate_namespace.cpp

#[test]
fn the_root_and_absolute_namespaces_are_valid() {
    assert_eq!(validate_namespace("/"), Ok(()));
    assert_eq!(validate_namespace("/basename_only"), Ok(()));
    assert_eq!(validate_namespace("/with_one/heirarchy"), Ok(()));
}

#[test]
fn an_empty_namespace_is_invalid() {
    assert_eq!(
        validate_namespace(""),
        invalid(NamespaceInvalid::IsEmptyString, 0)
    );
}

#[test]
fn a_relative_namespace_is_invalid_at_index_zero() {
    assert_eq!(
        validate_namespace("not_absolute"),
        invalid(NamespaceInvalid::NotAbsolute, 0)
    );
    assert_eq!(
        validate_namespace("not/absolute"),
        invalid(NamespaceInvalid::NotAbsolute, 0)
    );
}

#[test]
fn a_namespace_ending_with_a_slash_is_invalid() {
    assert_eq!(
        validate_namespace("/ends/with/"),
        invalid(NamespaceInvalid::EndsWithForwardSlash, 10)
    );
}

#[test]
fn a_namespace_with_another_character_is_invalid_where_it_is() {
    use NamespaceInvalid::ContainsUnallowedCharacters as Unallowed;
    assert_eq!(
        validate_namespace("/~/unexpanded_tilde"),
        invalid(Unallowed, 1)
    );
    assert_eq!(
        validate_namespace("/unexpanded_sub/{node}"),
        invalid(Unallowed, 16)
    );
    assert_eq!(validate_namespace("/question?"), invalid(Unallowed, 9));
    assert_eq!(validate_namespace("/with spaces"), invalid(Unallowed, 5));
}

#[test]
fn a_namespace_with_repeated_slashes_is_invalid_at_the_second() {
    assert_eq!(
        validate_namespace("/repeated//slashes"),
        invalid(NamespaceInvalid::ContainsRepeatedForwardSlash, 10)
    );
}

#[test]
fn a_namespace_token_starting_with_a_digit_is_invalid() {
    use NamespaceInvalid::NameTokenStartsWithNumber as Number;
    assert_eq!(
        validate_namespace("/9starts_with_number"),
        invalid(Number, 1)
    );
    assert_eq!(
        validate_namespace("/starts/42with/number"),
        invalid(Number, 8)
    );
}

#[test]
fn a_namespace_is_too_long_past_its_own_limit_only_when_nothing_else_is_wrong() {
    let invalid_and_long = "a".repeat(NAMESPACE_MAX_LENGTH + 1);
    assert_eq!(
        validate_namespace(&invalid_and_long),
        invalid(NamespaceInvalid::NotAbsolute, 0)
    );
    let valid_but_long = format!("/{invalid_and_long}");
    assert_eq!(
        validate_namespace(&valid_but_long),
        invalid(NamespaceInvalid::TooLong, NAMESPACE_MAX_LENGTH - 1)
    );
}

#[test]
fn every_namespace_result_has_rmw_s_text() {
    // rmw_namespace_validation_result_string's strings (rmw/src/validate_namespace.c); rmw
    // stringifies an undefined macro name for the length limit.
    let texts = [
        (
            NamespaceInvalid::IsEmptyString,
            "namespace must not be empty",
        ),
        (
            NamespaceInvalid::NotAbsolute,
            "namespace must be absolute, it must lead with a '/'",
        ),
        (
            NamespaceInvalid::EndsWithForwardSlash,
            "namespace must not end with a '/', unless only a '/'",
        ),
        (
            NamespaceInvalid::ContainsUnallowedCharacters,
            "namespace must not contain characters other than alphanumerics, '_', or '/'",
        ),
        (
            NamespaceInvalid::ContainsRepeatedForwardSlash,
            "namespace must not contain repeated '/'",
        ),
        (
            NamespaceInvalid::NameTokenStartsWithNumber,
            "namespace must not have a token that starts with a number",
        ),
        (
            NamespaceInvalid::TooLong,
            "namespace should not exceed 'RMW_NAMESPACE_MAX_NAME_LENGTH'",
        ),
    ];
    for (reason, text) in texts {
        assert_eq!(reason.message(), text);
    }
    assert_eq!(NAMESPACE_MAX_LENGTH, 245);
}

// rmw/test/test_validate_full_topic_name.cpp

#[test]
fn absolute_topic_names_are_valid() {
    assert_eq!(validate_full_topic_name("/basename_only"), Ok(()));
    assert_eq!(validate_full_topic_name("/with_one/namespace"), Ok(()));
}

#[test]
fn an_empty_full_topic_name_is_invalid() {
    assert_eq!(
        validate_full_topic_name(""),
        invalid(FullTopicNameInvalid::IsEmptyString, 0)
    );
}

#[test]
fn a_relative_full_topic_name_is_invalid_at_index_zero() {
    use FullTopicNameInvalid::NotAbsolute;
    assert_eq!(
        validate_full_topic_name("not_absolute"),
        invalid(NotAbsolute, 0)
    );
    assert_eq!(
        validate_full_topic_name("not/absolute"),
        invalid(NotAbsolute, 0)
    );
}

#[test]
fn a_full_topic_name_ending_with_a_slash_is_invalid_and_so_is_the_root() {
    use FullTopicNameInvalid::EndsWithForwardSlash as Ends;
    assert_eq!(validate_full_topic_name("/ends/with/"), invalid(Ends, 10));
    assert_eq!(validate_full_topic_name("/"), invalid(Ends, 0));
}

#[test]
fn a_full_topic_name_with_another_character_is_invalid_where_it_is() {
    use FullTopicNameInvalid::ContainsUnallowedCharacters as Unallowed;
    assert_eq!(
        validate_full_topic_name("/~/unexpanded_tilde"),
        invalid(Unallowed, 1)
    );
    assert_eq!(
        validate_full_topic_name("/unexpanded_sub/{node}"),
        invalid(Unallowed, 16)
    );
    assert_eq!(
        validate_full_topic_name("/question?"),
        invalid(Unallowed, 9)
    );
    assert_eq!(
        validate_full_topic_name("/with spaces"),
        invalid(Unallowed, 5)
    );
}

#[test]
fn a_full_topic_name_with_repeated_slashes_is_invalid_at_the_second() {
    assert_eq!(
        validate_full_topic_name("/repeated//slashes"),
        invalid(FullTopicNameInvalid::ContainsRepeatedForwardSlash, 10)
    );
}

#[test]
fn a_full_topic_name_token_starting_with_a_digit_is_invalid() {
    use FullTopicNameInvalid::NameTokenStartsWithNumber as Number;
    assert_eq!(
        validate_full_topic_name("/9starts_with_number"),
        invalid(Number, 1)
    );
    assert_eq!(
        validate_full_topic_name("/starts/42with/number"),
        invalid(Number, 8)
    );
}

#[test]
fn a_full_topic_name_is_too_long_only_when_nothing_else_is_wrong() {
    let invalid_and_long = "a".repeat(TOPIC_NAME_MAX_LENGTH + 1);
    assert_eq!(
        validate_full_topic_name(&invalid_and_long),
        invalid(FullTopicNameInvalid::NotAbsolute, 0)
    );
    let valid_but_long = format!("/{invalid_and_long}");
    assert_eq!(
        validate_full_topic_name(&valid_but_long),
        invalid(FullTopicNameInvalid::TooLong, TOPIC_NAME_MAX_LENGTH - 1)
    );
}

#[test]
fn every_full_topic_name_result_has_rmw_s_text() {
    // rmw_full_topic_name_validation_result_string's strings
    // (rmw/src/validate_full_topic_name.c); rmw prints the limit as its macro's expansion.
    let texts = [
        (
            FullTopicNameInvalid::IsEmptyString,
            "topic name must not be empty",
        ),
        (
            FullTopicNameInvalid::NotAbsolute,
            "topic name must be absolute, it must lead with a '/'",
        ),
        (
            FullTopicNameInvalid::EndsWithForwardSlash,
            "topic name must not end with a '/'",
        ),
        (
            FullTopicNameInvalid::ContainsUnallowedCharacters,
            "topic name must not contain characters other than alphanumerics, '_', or '/'",
        ),
        (
            FullTopicNameInvalid::ContainsRepeatedForwardSlash,
            "topic name must not contain repeated '/'",
        ),
        (
            FullTopicNameInvalid::NameTokenStartsWithNumber,
            "topic name must not have a token that starts with a number",
        ),
        (
            FullTopicNameInvalid::TooLong,
            "topic length should not exceed '255U - 8U'",
        ),
    ];
    for (reason, text) in texts {
        assert_eq!(reason.message(), text);
    }
    assert_eq!(TOPIC_NAME_MAX_LENGTH, 247);
}

// rcl/test/rcl/test_validate_topic_name.cpp

#[test]
fn names_from_the_design_document_and_corner_cases_are_valid_topic_names() {
    let valid = [
        "foo",
        "abc123",
        "_foo",
        "Foo",
        "BAR",
        "~",
        "foo/bar",
        "~/foo",
        "{foo}_bar",
        "foo/{ping}/bar",
        "foo/_bar",
        "foo_/bar",
        "foo_",
        "/foo",
        "/bar/baz",
        "/_private/thing",
        "/public_namespace/_private/thing",
        "/foo",
        "{foo1}",
        "{foo_bar}",
        "{_bar}",
    ];
    for name in valid {
        assert_eq!(validate_topic_name(name), Ok(()), "{name}");
    }
}

#[test]
fn invalid_topic_names_report_rcl_s_result_and_index() {
    use TopicNameInvalid::*;
    let cases = [
        ("123abc", NameTokenStartsWithNumber, 0),
        ("123", NameTokenStartsWithNumber, 0),
        (" ", ContainsUnallowedCharacters, 0),
        ("foo bar", ContainsUnallowedCharacters, 3),
        ("/~", MisplacedTilde, 1),
        ("~foo", TildeNotFollowedByForwardSlash, 1),
        ("foo~", MisplacedTilde, 3),
        ("foo~/bar", MisplacedTilde, 3),
        ("foo/~bar", MisplacedTilde, 4),
        ("foo/~/bar", MisplacedTilde, 4),
        ("foo/", EndsWithForwardSlash, 3),
        ("", IsEmptyString, 0),
        ("foo/123bar", NameTokenStartsWithNumber, 4),
        ("foo/bar}/baz", UnmatchedCurlyBrace, 7),
        ("foo/{bar", UnmatchedCurlyBrace, 4),
        ("{$}", SubstitutionContainsUnallowedCharacters, 1),
        ("{{bar}_baz}", SubstitutionContainsUnallowedCharacters, 1),
        ("foo/{bar/baz}", SubstitutionContainsUnallowedCharacters, 8),
        ("{1foo}", SubstitutionStartsWithNumber, 1),
    ];
    for (name, reason, index) in cases {
        assert_eq!(validate_topic_name(name), invalid(reason, index), "{name}");
    }
}

#[test]
fn every_topic_name_result_has_rcl_s_text() {
    // rcl_topic_name_validation_result_string's strings (rcl/src/rcl/validate_topic_name.c).
    use TopicNameInvalid::*;
    let texts = [
        (IsEmptyString, "topic name must not be empty string"),
        (
            EndsWithForwardSlash,
            "topic name must not end with a forward slash",
        ),
        (
            ContainsUnallowedCharacters,
            "topic name must not contain characters other than alphanumerics, '_', '~', '{', or '}'",
        ),
        (
            NameTokenStartsWithNumber,
            "topic name token must not start with a number",
        ),
        (
            UnmatchedCurlyBrace,
            "topic name must not have unmatched (unbalanced) curly braces '{}'",
        ),
        (
            MisplacedTilde,
            "topic name must not have tilde '~' unless it is the first character",
        ),
        (
            TildeNotFollowedByForwardSlash,
            "topic name must not have a tilde '~' that is not followed by a forward slash '/'",
        ),
        (
            SubstitutionContainsUnallowedCharacters,
            "substitution name must not contain characters other than alphanumerics or '_'",
        ),
        (
            SubstitutionStartsWithNumber,
            "substitution name must not start with a number",
        ),
    ];
    for (reason, text) in texts {
        assert_eq!(reason.message(), text);
    }
}

// rcl/test/rcl/test_expand_topic_name.cpp

#[test]
fn the_node_substitution_expands_under_the_namespace() {
    assert_eq!(
        expand_topic_name("{node}/chatter", "my_node", "/my_ns").unwrap(),
        "/my_ns/my_node/chatter"
    );
}

#[test]
fn an_invalid_name_node_name_or_namespace_is_refused_for_what_it_is() {
    let topic = "{node}/chatter";
    assert!(matches!(
        expand_topic_name("white space", "my_node", "/my_ns"),
        Err(NameError::TopicName { service: false, .. })
    ));
    assert!(matches!(
        expand_topic_name(topic, "/invalid_node", "/my_ns"),
        Err(NameError::NodeName { .. })
    ));
    assert!(matches!(
        expand_topic_name(topic, "my_node", "white space"),
        Err(NameError::Namespace { .. })
    ));
}

#[test]
fn names_expand_as_in_rcl_s_table() {
    // {input, node name, namespace, expected}
    let cases = [
        ("/chatter", "my_node", "/my_ns", "/chatter"),
        ("chatter", "my_node", "/my_ns", "/my_ns/chatter"),
        (
            "{node}/chatter",
            "my_node",
            "/my_ns",
            "/my_ns/my_node/chatter",
        ),
        ("/{node}", "my_node", "/my_ns", "/my_node"),
        ("{node}", "my_node", "/my_ns", "/my_ns/my_node"),
        ("{ns}", "my_node", "/my_ns", "/my_ns"),
        ("{namespace}", "my_node", "/my_ns", "/my_ns"),
        (
            "{namespace}/{node}/chatter",
            "my_node",
            "/my_ns",
            "/my_ns/my_node/chatter",
        ),
        // Invalid as a full name, but expansion does not check that.
        ("/foo/{namespace}", "my_node", "/my_ns", "/foo//my_ns"),
        ("ping", "my_node", "/", "/ping"),
        ("ping", "my_node", "/my_ns", "/my_ns/ping"),
        ("/ping", "my_node", "/", "/ping"),
        ("/ping", "my_node", "/my_ns", "/ping"),
        ("~", "my_node", "/", "/my_node"),
        ("~", "my_node", "/my_ns", "/my_ns/my_node"),
        ("~/ping", "my_node", "/", "/my_node/ping"),
        ("~/ping", "my_node", "/my_ns", "/my_ns/my_node/ping"),
    ];
    for (input, node, namespace, expected) in cases {
        assert_eq!(
            expand_topic_name(input, node, namespace).as_deref(),
            Ok(expected),
            "expanding {input} for {node} in {namespace}"
        );
    }
}

#[test]
fn an_unknown_substitution_is_refused() {
    assert_eq!(
        expand_topic_name("{doesnotexist}", "my_node", "/my_ns"),
        Err(NameError::UnknownSubstitution {
            name: "{doesnotexist}".into(),
            substitution: "{doesnotexist}".into(),
        })
    );
    // From the internal_error test: an unknown substitution next to a valid one.
    assert!(matches!(
        expand_topic_name("{unknown}/test", "bar", "/foo"),
        Err(NameError::UnknownSubstitution { .. })
    ));
}

#[test]
fn a_substitution_given_replaces_its_key() {
    let substitutions = HashMap::from([("ping".to_owned(), "pong".to_owned())]);
    assert_eq!(
        expand_topic_name_with("{ping}", "my_node", "/my_ns", &substitutions).unwrap(),
        "/my_ns/pong"
    );
}

// rcl/test/rcl/test_remap_integration.cpp: the node's logger name, as rcl_node_init makes it.

#[test]
fn a_node_s_logger_name_is_its_namespace_dotted_then_its_name() {
    let node = NodeIdentity::new("original_name", "/original_ns").unwrap();
    assert_eq!(node.logger_name(), "original_ns.original_name");
    assert_eq!(node.fully_qualified_name(), "/original_ns/original_name");
    let root = NodeIdentity::new("original_name", "").unwrap();
    assert_eq!(root.namespace(), "/");
    assert_eq!(root.logger_name(), "original_name");
    assert_eq!(root.fully_qualified_name(), "/original_name");
}

// rcl/test/rcl/test_node.cpp: test_rcl_node_name_restrictions

#[test]
fn a_node_takes_only_a_valid_node_name() {
    assert!(NodeIdentity::new("my_node_42", "/ns").is_ok());
    for name in ["my_node_42$", "my/node_42", "my_{node}_42"] {
        assert!(
            matches!(
                NodeIdentity::new(name, "/ns"),
                Err(NameError::NodeName { .. })
            ),
            "{name}"
        );
    }
}

// rcl/test/rcl/test_node.cpp: test_rcl_node_namespace_restrictions

#[test]
fn a_node_takes_an_absolute_relative_or_empty_namespace_and_refuses_an_invalid_one() {
    for namespace in ["/ns", "", "/", "ns"] {
        assert!(NodeIdentity::new("node", namespace).is_ok(), "{namespace}");
    }
    for namespace in ["/ns/{name}", "/~/", "/ns/foo/", "/starts/with/42number"] {
        assert!(
            matches!(
                NodeIdentity::new("node", namespace),
                Err(NameError::Namespace { .. })
            ),
            "{namespace}"
        );
    }
}

// rcl/test/rcl/test_node.cpp: test_rcl_node_names

#[test]
fn a_node_s_name_namespace_fully_qualified_name_and_logger_name_are_rcl_s() {
    // {name, namespace given, logger name, namespace, fully-qualified name}
    let cases = [
        ("node", "/ns", "ns.node", "/ns", "/ns/node"),
        ("node", "", "node", "/", "/node"),
        ("node", "/", "node", "/", "/node"),
        ("node", "ns", "ns.node", "/ns", "/ns/node"),
        (
            "node",
            "/ns/sub_1/sub_2",
            "ns.sub_1.sub_2.node",
            "/ns/sub_1/sub_2",
            "/ns/sub_1/sub_2/node",
        ),
    ];
    for (name, given, logger, namespace, fully_qualified) in cases {
        let node = NodeIdentity::new(name, given).unwrap();
        assert_eq!(node.name(), name);
        assert_eq!(node.namespace(), namespace);
        assert_eq!(node.logger_name(), logger);
        assert_eq!(node.fully_qualified_name(), fully_qualified);
    }
}
