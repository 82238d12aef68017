//! Remap rules applied as rcl applies them: the vectors of rcl's own tests (ROS 2 Jazzy), each
//! block naming the file it comes from. rcl's tests parse their rules from a command line, and
//! so do these.

use tacto::args::RosArgs;
use tacto::names::{
    NodeIdentity, RemapRule, remap_node_name, remap_node_namespace, remap_service_name,
    remap_topic_name,
};

/// The rules of a command line, as rcl's `SCOPE_ARGS` parses them.
fn rules(args: &[&str]) -> Vec<RemapRule> {
    RosArgs::parse(args.iter().copied())
        .unwrap_or_else(|err| panic!("{args:?}: {err}"))
        .remap_rules()
        .to_vec()
}

fn topic(
    local: &[RemapRule],
    global: &[RemapRule],
    name: &str,
    node: &str,
    ns: &str,
) -> Option<String> {
    remap_topic_name(local, global, name, node, ns).unwrap()
}

fn service(
    local: &[RemapRule],
    global: &[RemapRule],
    name: &str,
    node: &str,
    ns: &str,
) -> Option<String> {
    remap_service_name(local, global, name, node, ns).unwrap()
}

// rcl/test/rcl/test_remap.cpp: namespace rules

#[test]
fn a_global_namespace_rule_moves_any_node() {
    let global = rules(&["process_name", "--ros-args", "-r", "__ns:=/foo/bar"]);
    assert_eq!(
        remap_node_namespace(&[], &global, "NodeName"),
        Some("/foo/bar")
    );
}

#[test]
fn a_namespace_rule_with_a_node_prefix_moves_only_that_node() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "Node1:__ns:=/foo/bar",
        "-r",
        "Node2:__ns:=/this_one",
        "-r",
        "Node3:__ns:=/bar/foo",
    ]);
    assert_eq!(
        remap_node_namespace(&[], &global, "Node1"),
        Some("/foo/bar")
    );
    assert_eq!(
        remap_node_namespace(&[], &global, "Node2"),
        Some("/this_one")
    );
    assert_eq!(
        remap_node_namespace(&[], &global, "Node3"),
        Some("/bar/foo")
    );
}

#[test]
fn without_a_namespace_rule_the_namespace_is_not_remapped() {
    let none = rules(&["process_name"]);
    assert_eq!(remap_node_namespace(&[], &none, "NodeName"), None);
    assert_eq!(remap_node_namespace(&none, &[], "NodeName"), None);
}

#[test]
fn a_local_namespace_rule_wins_over_a_global_one() {
    let global = rules(&["process_name", "--ros-args", "-r", "__ns:=/global_args"]);
    let local = rules(&["process_name", "--ros-args", "-r", "__ns:=/local_args"]);
    assert_eq!(
        remap_node_namespace(&local, &global, "NodeName"),
        Some("/local_args")
    );
}

#[test]
fn other_rules_before_a_namespace_rule_do_not_hide_it() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/foobar:=/foo/bar",
        "-r",
        "__ns:=/namespace",
        "-r",
        "__node:=new_name",
    ]);
    assert_eq!(
        remap_node_namespace(&[], &global, "NodeName"),
        Some("/namespace")
    );
}

// rcl/test/rcl/test_remap.cpp: topic rules

#[test]
fn a_global_topic_rule_renames_its_topic_only() {
    let global = rules(&["process_name", "--ros-args", "-r", "/bar/foo:=/foo/bar"]);
    assert_eq!(
        topic(&[], &global, "/bar/foo", "NodeName", "/").as_deref(),
        Some("/foo/bar")
    );
    assert_eq!(topic(&[], &global, "/foo/bar", "NodeName", "/"), None);
}

#[test]
fn a_relative_topic_rule_expands_against_the_node() {
    let global = rules(&["process_name", "--ros-args", "-r", "foo:=bar"]);
    assert_eq!(
        topic(&[], &global, "/ns/foo", "NodeName", "/ns").as_deref(),
        Some("/ns/bar")
    );
}

#[test]
fn a_topic_rule_with_a_node_prefix_renames_only_for_that_node() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "Node1:/foo:=/foo/bar",
        "-r",
        "Node2:/foo:=/this_one",
        "-r",
        "Node3:/foo:=/bar/foo",
    ]);
    assert_eq!(
        topic(&[], &global, "/foo", "Node1", "/").as_deref(),
        Some("/foo/bar")
    );
    assert_eq!(
        topic(&[], &global, "/foo", "Node2", "/").as_deref(),
        Some("/this_one")
    );
    assert_eq!(
        topic(&[], &global, "/foo", "Node3", "/").as_deref(),
        Some("/bar/foo")
    );
}

#[test]
fn without_a_topic_rule_the_topic_is_not_remapped() {
    let none = rules(&["process_name"]);
    assert_eq!(topic(&none, &[], "/bar/foo", "NodeName", "/"), None);
    assert_eq!(topic(&[], &none, "/bar/foo", "NodeName", "/"), None);
}

#[test]
fn a_local_topic_rule_wins_over_a_global_one() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/bar/foo:=/foo/global_args",
    ]);
    let local = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/bar/foo:=/foo/local_args",
    ]);
    assert_eq!(
        topic(&local, &global, "/bar/foo", "NodeName", "/").as_deref(),
        Some("/foo/local_args")
    );
}

#[test]
fn other_rules_before_a_topic_rule_do_not_hide_it() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__ns:=/namespace",
        "-r",
        "__node:=remap_name",
        "-r",
        "/foobar:=/foo/bar",
    ]);
    assert_eq!(
        topic(&[], &global, "/foobar", "NodeName", "/").as_deref(),
        Some("/foo/bar")
    );
}

// rcl/test/rcl/test_remap.cpp: service rules

#[test]
fn a_global_service_rule_renames_its_service_only() {
    let global = rules(&["process_name", "--ros-args", "-r", "/bar/foo:=/foo/bar"]);
    assert_eq!(
        service(&[], &global, "/bar/foo", "NodeName", "/").as_deref(),
        Some("/foo/bar")
    );
    assert_eq!(service(&[], &global, "/foobar", "NodeName", "/"), None);
}

#[test]
fn a_relative_service_rule_expands_against_the_node() {
    let global = rules(&["process_name", "--ros-args", "-r", "foo:=bar"]);
    assert_eq!(
        service(&[], &global, "/ns/foo", "NodeName", "/ns").as_deref(),
        Some("/ns/bar")
    );
}

#[test]
fn a_service_rule_with_a_node_prefix_renames_only_for_that_node() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "Node1:/foo:=/foo/bar",
        "-r",
        "Node2:/foo:=/this_one",
        "-r",
        "Node3:/foo:=/bar/foo",
    ]);
    assert_eq!(
        service(&[], &global, "/foo", "Node1", "/").as_deref(),
        Some("/foo/bar")
    );
    assert_eq!(
        service(&[], &global, "/foo", "Node2", "/").as_deref(),
        Some("/this_one")
    );
    assert_eq!(
        service(&[], &global, "/foo", "Node3", "/").as_deref(),
        Some("/bar/foo")
    );
}

#[test]
fn without_a_service_rule_the_service_is_not_remapped() {
    let none = rules(&["process_name"]);
    assert_eq!(service(&none, &[], "/bar/foo", "NodeName", "/"), None);
    assert_eq!(service(&[], &none, "/bar/foo", "NodeName", "/"), None);
}

#[test]
fn a_local_service_rule_wins_over_a_global_one() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/bar/foo:=/foo/global_args",
    ]);
    let local = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/bar/foo:=/foo/local_args",
    ]);
    assert_eq!(
        service(&local, &global, "/bar/foo", "NodeName", "/").as_deref(),
        Some("/foo/local_args")
    );
}

#[test]
fn other_rules_before_a_service_rule_do_not_hide_it() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__ns:=/namespace",
        "-r",
        "__node:=remap_name",
        "-r",
        "/foobar:=/foo/bar",
    ]);
    assert_eq!(
        service(&[], &global, "/foobar", "NodeName", "/").as_deref(),
        Some("/foo/bar")
    );
}

// rcl/test/rcl/test_remap.cpp: node name rules

#[test]
fn a_global_node_name_rule_renames_any_node() {
    let global = rules(&["process_name", "--ros-args", "-r", "__node:=globalname"]);
    assert_eq!(
        remap_node_name(&[], &global, "NodeName"),
        Some("globalname")
    );
}

#[test]
fn without_a_node_name_rule_the_name_is_not_remapped() {
    let none = rules(&["process_name"]);
    assert_eq!(remap_node_name(&[], &none, "NodeName"), None);
    assert_eq!(remap_node_name(&none, &[], "NodeName"), None);
}

#[test]
fn a_local_node_name_rule_wins_over_a_global_one() {
    let global = rules(&["process_name", "--ros-args", "-r", "__node:=global_name"]);
    let local = rules(&["process_name", "--ros-args", "-r", "__node:=local_name"]);
    assert_eq!(
        remap_node_name(&local, &global, "NodeName"),
        Some("local_name")
    );
    // From _rcl_remap_name_bad_arg: either side alone is enough.
    assert_eq!(remap_node_name(&local, &[], "NodeName"), Some("local_name"));
    assert_eq!(
        remap_node_name(&[], &global, "NodeName"),
        Some("global_name")
    );
}

#[test]
fn the_first_node_name_rule_wins() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__node:=firstname",
        "-r",
        "__node:=secondname",
    ]);
    assert_eq!(remap_node_name(&[], &global, "NodeName"), Some("firstname"));
}

#[test]
fn other_rules_before_a_node_name_rule_do_not_hide_it() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/foobar:=/foo",
        "-r",
        "__ns:=/namespace",
        "-r",
        "__node:=remap_name",
    ]);
    assert_eq!(
        remap_node_name(&[], &global, "NodeName"),
        Some("remap_name")
    );
}

// rcl/test/rcl/test_remap.cpp: url_scheme_rosservice, url_scheme_rostopic

#[test]
fn a_rosservice_rule_renames_services_and_not_topics() {
    let global = rules(&["process_name", "--ros-args", "-r", "rosservice://foo:=bar"]);
    assert_eq!(
        service(&[], &global, "/ns/foo", "NodeName", "/ns").as_deref(),
        Some("/ns/bar")
    );
    assert_eq!(topic(&[], &global, "/ns/foo", "NodeName", "/ns"), None);
}

#[test]
fn a_rostopic_rule_renames_topics_and_not_services() {
    let global = rules(&["process_name", "--ros-args", "-r", "rostopic://foo:=bar"]);
    assert_eq!(
        topic(&[], &global, "/ns/foo", "NodeName", "/ns").as_deref(),
        Some("/ns/bar")
    );
    assert_eq!(service(&[], &global, "/ns/foo", "NodeName", "/ns"), None);
}

// rcl/test/rcl/test_remap_integration.cpp: what rcl_node_init and rcl_node_resolve_name (used
// by publishers, subscriptions, clients and services) make of the rules.

fn resolves_everywhere(
    node: &NodeIdentity,
    local: &[RemapRule],
    global: &[RemapRule],
    name: &str,
    expected: &str,
) {
    assert_eq!(
        node.resolve_topic_name(name, local, global).unwrap(),
        expected
    );
    assert_eq!(
        node.resolve_service_name(name, local, global).unwrap(),
        expected
    );
}

#[test]
fn global_rules_rename_and_move_a_node_and_rename_its_topics_and_services() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__node:=new_name",
        "-r",
        "__ns:=/new_ns",
        "-r",
        "/foo/bar:=/bar/foo",
    ]);
    let node = NodeIdentity::with_remapping("original_name", "/original_ns", &[], &global).unwrap();
    assert_eq!(node.name(), "new_name");
    assert_eq!(node.namespace(), "/new_ns");
    assert_eq!(node.logger_name(), "new_ns.new_name");
    resolves_everywhere(&node, &[], &global, "/foo/bar", "/bar/foo");
}

#[test]
fn a_node_that_ignores_the_global_arguments_keeps_its_names() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__node:=new_name",
        "-r",
        "__ns:=/new_ns",
        "-r",
        "/foo/bar:=/bar/foo",
    ]);
    assert_eq!(global.len(), 3);
    let local = rules(&["local_process_name"]);
    // use_global_arguments = false: the global rules are not passed.
    let node = NodeIdentity::with_remapping("original_name", "/original_ns", &local, &[]).unwrap();
    assert_eq!(node.name(), "original_name");
    assert_eq!(node.namespace(), "/original_ns");
    assert_eq!(node.logger_name(), "original_ns.original_name");
    resolves_everywhere(&node, &local, &[], "/foo/bar", "/foo/bar");
}

#[test]
fn local_rules_come_before_global_ones_for_a_node_and_its_names() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__node:=global_name",
        "-r",
        "__ns:=/global_ns",
        "-r",
        "/foo/bar:=/bar/global",
    ]);
    let local = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "__node:=local_name",
        "-r",
        "__ns:=/local_ns",
        "-r",
        "/foo/bar:=/bar/local",
    ]);
    let node =
        NodeIdentity::with_remapping("original_name", "/original_ns", &local, &global).unwrap();
    assert_eq!(node.name(), "local_name");
    assert_eq!(node.namespace(), "/local_ns");
    assert_eq!(node.logger_name(), "local_ns.local_name");
    resolves_everywhere(&node, &local, &global, "/foo/bar", "/bar/local");
}

#[test]
fn a_relative_replacement_expands_under_the_node_s_namespace() {
    let global = rules(&["process_name", "--ros-args", "-r", "/foo/bar:=remap/global"]);
    let node = NodeIdentity::with_remapping("original_name", "/foo", &[], &global).unwrap();
    resolves_everywhere(&node, &[], &global, "bar", "/foo/remap/global");
}

#[test]
fn a_namespace_rule_for_a_node_moves_that_node() {
    let global = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "original_name:__ns:=/new_ns",
    ]);
    let node = NodeIdentity::with_remapping("original_name", "", &[], &global).unwrap();
    assert_eq!(node.namespace(), "/new_ns");
}

// rcl/test/rcl/test_node.cpp: test_rcl_node_resolve_name

#[test]
fn a_node_resolves_relative_and_remapped_names_and_expands_without_rules() {
    let local = rules(&[
        "process_name",
        "--ros-args",
        "-r",
        "/bar/foo:=/foo/local_args",
    ]);
    let node = NodeIdentity::with_remapping("node", "/ns", &local, &[]).unwrap();
    assert_eq!(
        node.resolve_topic_name("my_topic", &local, &[]).unwrap(),
        "/ns/my_topic"
    );
    assert_eq!(
        node.resolve_service_name("my_service", &local, &[])
            .unwrap(),
        "/ns/my_service"
    );
    assert_eq!(
        node.resolve_topic_name("/bar/foo", &local, &[]).unwrap(),
        "/foo/local_args"
    );
    // only_expand: no rules.
    assert_eq!(
        node.resolve_topic_name("/bar/foo", &[], &[]).unwrap(),
        "/bar/foo"
    );
    assert_eq!(
        node.resolve_service_name("relative_ns/foo", &local, &[])
            .unwrap(),
        "/ns/relative_ns/foo"
    );
}

// rcl/test/rcl/test_expand_topic_name.cpp: "/foo/{namespace}" expands to "/foo//my_ns", "caught
// by rmw_validate_full_topic_name()", which rcl_node_resolve_name runs on the result.

#[test]
fn a_name_that_expands_to_an_invalid_full_name_is_refused_when_resolved() {
    use tacto::names::{FullTopicNameInvalid, NameError};
    let node = NodeIdentity::new("my_node", "/my_ns").unwrap();
    let err = node
        .resolve_topic_name("/foo/{namespace}", &[], &[])
        .unwrap_err();
    let NameError::FullName {
        resolved,
        service,
        invalid,
        ..
    } = err
    else {
        panic!("{err}");
    };
    assert_eq!(resolved, "/foo//my_ns");
    assert!(!service);
    assert_eq!(
        invalid.reason,
        FullTopicNameInvalid::ContainsRepeatedForwardSlash
    );
    assert!(matches!(
        node.resolve_service_name("/foo/{namespace}", &[], &[]),
        Err(NameError::FullName { service: true, .. })
    ));
}
