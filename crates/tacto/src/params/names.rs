//! Node names in parameter files: rcl's validation of them (with rmw's rules and words) and
//! rclcpp's matching of a node's fully qualified name against them.

/// rmw's `RMW_NODE_NAME_MAX_NAME_LENGTH`.
const NODE_NAME_MAX_LENGTH: usize = 255;
/// rmw's `RMW_NAMESPACE_MAX_LENGTH` (`RMW_TOPIC_MAX_NAME_LENGTH - 2`).
const NAMESPACE_MAX_LENGTH: usize = 253;

/// `rmw_validate_node_name`, with `rmw_node_name_validation_result_string`'s words.
fn validate_node_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("node name must not be empty");
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err("node name must not contain characters other than alphanumerics or '_'");
    }
    if name.as_bytes()[0].is_ascii_digit() {
        return Err("node name must not start with a number");
    }
    if name.len() > NODE_NAME_MAX_LENGTH {
        return Err("node name length should not exceed '255'");
    }
    Ok(())
}

/// `rmw_validate_namespace` (through `rmw_validate_full_topic_name`), with
/// `rmw_namespace_validation_result_string`'s words.
fn validate_namespace(namespace: &str) -> Result<(), &'static str> {
    if namespace == "/" {
        return Ok(());
    }
    if namespace.is_empty() {
        return Err("namespace must not be empty");
    }
    if !namespace.starts_with('/') {
        return Err("namespace must be absolute, it must lead with a '/'");
    }
    if namespace.ends_with('/') {
        return Err("namespace must not end with a '/', unless only a '/'");
    }
    if !namespace
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'/')
    {
        return Err("namespace must not contain characters other than alphanumerics, '_', or '/'");
    }
    if namespace.contains("//") {
        return Err("namespace must not contain repeated '/'");
    }
    if namespace
        .split('/')
        .any(|token| token.as_bytes().first().is_some_and(u8::is_ascii_digit))
    {
        return Err("namespace must not have a token that starts with a number");
    }
    if namespace.len() > NAMESPACE_MAX_LENGTH {
        return Err("namespace should not exceed '255'");
    }
    Ok(())
}

/// rcl_yaml_param_parser's `_validate_name`: a node key of a parameter file (`node`,
/// `ns/node`, `/ns/node`, with `*` and `**` as whole namespace tokens or as the node name).
pub(super) fn validate_name(name: &str) -> Result<(), String> {
    if name == "/**" || name == "/*" {
        return Ok(());
    }
    let (namespace, node_name) = match name.rfind('/') {
        None => (None, name),
        Some(slash) => {
            let namespace = &name[..=slash];
            let absolute = match namespace.starts_with('/') {
                true => namespace.to_owned(),
                false => format!("/{namespace}"),
            };
            (Some(absolute), &name[slash + 1..])
        }
    };
    if let Some(namespace) = namespace {
        // Each token on its own ("/a", "/b" of "/a/b/"), wildcards let through.
        let bytes = namespace.as_bytes();
        let next_slash = |from: usize| {
            bytes[from..]
                .iter()
                .position(|&b| b == b'/')
                .map(|p| p + from)
        };
        match next_slash(1) {
            None => validate_namespace(&namespace).map_err(str::to_owned)?,
            Some(mut slash) => {
                let mut start = 0;
                loop {
                    let token = &namespace[start..slash];
                    if token == "/" {
                        return Err(format!("{namespace} contains repeated forward slash"));
                    }
                    if token != "/**" && token != "/*" {
                        validate_namespace(token).map_err(str::to_owned)?;
                    }
                    start = slash;
                    match next_slash(start + 1) {
                        Some(s) => slash = s,
                        None => break,
                    }
                }
            }
        }
    }
    if node_name != "*" && node_name != "**" {
        validate_node_name(node_name).map_err(str::to_owned)?;
    }
    Ok(())
}

/// One piece of a node key as rclcpp matches it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Piece {
    Byte(u8),
    /// `/*`: the regex `(/\w+)`.
    One,
    /// `/**`: the regex `(/\w+)*`.
    Any,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// rclcpp's `is_node_name_matched`: `key` (with its leading `/`) as a regex where `/*` is
/// `(/\w+)` and `/**` is `(/\w+)*`, matched against all of `fqn`. Matched by dynamic
/// programming over (piece, position): linear in the key, quadratic in the name at most.
pub(super) fn node_key_matches(key: &str, fqn: &str) -> bool {
    let bytes = key.as_bytes();
    let mut pieces = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            if bytes.get(i + 2) == Some(&b'*') {
                pieces.push(Piece::Any);
                i += 3;
            } else {
                pieces.push(Piece::One);
                i += 2;
            }
        } else {
            pieces.push(Piece::Byte(bytes[i]));
            i += 1;
        }
    }
    let text = fqn.as_bytes();
    let (p, t) = (pieces.len(), text.len());
    // matched[i][j]: pieces[i..] match text[j..].
    let mut matched = vec![vec![false; t + 1]; p + 1];
    matched[p][t] = true;
    for i in (0..p).rev() {
        for j in (0..=t).rev() {
            matched[i][j] = match pieces[i] {
                Piece::Byte(b) => j < t && text[j] == b && matched[i + 1][j + 1],
                Piece::One | Piece::Any => {
                    let again = if pieces[i] == Piece::Any { i } else { i + 1 };
                    let through_segment = j < t
                        && text[j] == b'/'
                        && (j + 1..t)
                            .take_while(|&k| is_word(text[k]))
                            .any(|k| matched[again][k + 1]);
                    through_segment || (pieces[i] == Piece::Any && matched[i + 1][j])
                }
            };
        }
    }
    matched[0][0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_rclcpps_regex() {
        assert!(node_key_matches("/**", "/a"));
        assert!(node_key_matches("/**", "/a/b/c"));
        assert!(node_key_matches("/*", "/a"));
        assert!(!node_key_matches("/*", "/a/b"));
        assert!(node_key_matches("/**/node", "/node"));
        assert!(node_key_matches("/**/node", "/x/y/node"));
        assert!(!node_key_matches("/**/node", "/x/y/node2"));
        assert!(node_key_matches("/ns/*", "/ns/node"));
        assert!(!node_key_matches("/ns/*", "/ns"));
        assert!(
            node_key_matches("/ns/**", "/ns"),
            "(/\\w+)* matches nothing too"
        );
        assert!(node_key_matches("/a/*/c", "/a/b/c"));
        assert!(!node_key_matches("/a/*/c", "/a/c"));
        assert!(node_key_matches("/my_node", "/my_node"));
        assert!(!node_key_matches("/my_node", "/ns/my_node"));
    }

    #[test]
    fn node_keys_are_validated_as_rcl_does() {
        for good in [
            "node",
            "ns/node",
            "/ns/node",
            "/**",
            "/*",
            "/**/node",
            "/ns/*",
            "/a/*/b/**",
        ] {
            assert_eq!(validate_name(good), Ok(()), "{good}");
        }
        assert_eq!(
            validate_name("lidar_ns//lidar_w").unwrap_err(),
            "/lidar_ns// contains repeated forward slash"
        );
        assert_eq!(
            validate_name("/foo**").unwrap_err(),
            "node name must not contain characters other than alphanumerics or '_'"
        );
        assert_eq!(
            validate_name("/1ns/node").unwrap_err(),
            "namespace must not have a token that starts with a number"
        );
        assert_eq!(
            validate_name("9node").unwrap_err(),
            "node name must not start with a number"
        );
    }
}
