//! Message types known at run time, from `.msg`/`.srv` definitions that were never compiled:
//! the packages shipped with tacto (embedded in the binary), folders given with `--msg-path`,
//! and the `share/<pkg>/msg` folders of every prefix in `AMENT_PREFIX_PATH`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use tacto_msggen::Problem;
use tacto_msggen::parse::{self, BaseType, Container, MessageDef, Primitive};
use tacto_msggen::shipped::SHIPPED;

/// Why a type is not available.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TypeError {
    /// No definition of the type was found.
    #[error("unknown type {name:?}: looked in {searched}")]
    Unknown {
        /// The type asked for (or used by a field of another type).
        name: String,
        /// Where the registry looked, in order.
        searched: String,
    },
    /// The name is not `pkg/msg/Type`, `pkg/Type` or `pkg/srv/Type_Request`/`_Response`.
    #[error("{0:?} is not a ROS 2 type name of the form pkg/msg/Type")]
    BadName(String),
    /// A definition file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A definition is malformed.
    #[error("{origin}:{line}: {problem}")]
    Invalid {
        /// The file (or shipped definition) it is in.
        origin: String,
        /// The line, counted from 1.
        line: usize,
        /// What is wrong.
        problem: Problem,
    },
    /// A type contains itself, which no finite message can.
    #[error("type {0:?} contains itself")]
    Recursive(String),
}

/// A message type, resolved down to primitives.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageType {
    /// `pkg/msg/Type` (or `pkg/srv/X_Request`).
    pub name: String,
    /// The fields in wire order; a type without fields has ROS 2's placeholder
    /// `uint8 structure_needs_at_least_one_field`, which is on the wire.
    pub fields: Vec<Field>,
}

impl MessageType {
    /// True for a type whose only field is ROS 2's placeholder for "no fields".
    pub fn is_empty(&self) -> bool {
        self.fields.len() == 1 && self.fields[0].name == PLACEHOLDER
    }
}

/// The field ROS 2 gives a message without fields.
pub(crate) const PLACEHOLDER: &str = "structure_needs_at_least_one_field";

/// One field of a [`MessageType`].
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its element type.
    pub kind: Kind,
    /// How many elements.
    pub container: Container,
    /// Its default value as the `.msg` file gives it.
    pub default: Option<parse::Value>,
}

/// The element type of a [`Field`].
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A primitive.
    Primitive(Primitive),
    /// `string`, with its bound.
    String(Option<usize>),
    /// `wstring`, with its bound.
    WString(Option<usize>),
    /// A nested message.
    Message(Arc<MessageType>),
}

/// Where a definition comes from.
#[derive(Debug, Clone)]
enum Source {
    Shipped(&'static str),
    File(PathBuf),
}

/// The message types known at run time.
///
/// # Examples
/// ```
/// let registry = tacto_cli::TypeRegistry::shipped();
/// let pose = registry.resolve("geometry_msgs/msg/PoseStamped")?;
/// assert_eq!(pose.fields[0].name, "header");
/// assert!(registry.resolve("no_msgs/msg/Nothing").is_err());
/// # Ok::<(), tacto_cli::TypeError>(())
/// ```
#[derive(Debug)]
pub struct TypeRegistry {
    /// `pkg/msg/Type` or `pkg/srv/Type` → its file; the first folder to define a type wins.
    sources: HashMap<String, Source>,
    searched: Vec<String>,
    /// Resolved types; at most one per definition known, so bounded by `sources`.
    resolved: Mutex<HashMap<String, Arc<MessageType>>>,
}

impl TypeRegistry {
    /// Only the packages shipped with tacto.
    pub fn shipped() -> TypeRegistry {
        let mut registry = TypeRegistry {
            sources: HashMap::new(),
            searched: Vec::new(),
            resolved: Mutex::default(),
        };
        registry.add_shipped();
        registry
    }

    /// The folders of `msg_paths` first (each a package folder holding `msg/` or `srv/`, or a
    /// folder of such packages), then `share/<pkg>/` of each prefix in `AMENT_PREFIX_PATH`,
    /// then the shipped packages.
    pub fn new(msg_paths: &[PathBuf]) -> TypeRegistry {
        let mut registry = TypeRegistry {
            sources: HashMap::new(),
            searched: Vec::new(),
            resolved: Mutex::default(),
        };
        for dir in msg_paths {
            registry.add_dir(dir);
            registry
                .searched
                .push(format!("--msg-path {}", dir.display()));
        }
        if let Some(prefixes) = std::env::var_os("AMENT_PREFIX_PATH") {
            for prefix in std::env::split_paths(&prefixes) {
                let share = prefix.join("share");
                registry.add_packages(&share);
                registry
                    .searched
                    .push(format!("AMENT_PREFIX_PATH {}", share.display()));
            }
        }
        registry.add_shipped();
        registry
    }

    fn add_shipped(&mut self) {
        for &(package, kind, name, text) in SHIPPED {
            self.sources
                .entry(format!("{package}/{kind}/{name}"))
                .or_insert(Source::Shipped(text));
        }
        let mut packages: Vec<&str> = SHIPPED.iter().map(|e| e.0).collect();
        packages.dedup();
        self.searched
            .push(format!("the shipped packages ({})", packages.join(", ")));
    }

    /// A package folder, or a folder of packages.
    fn add_dir(&mut self, dir: &Path) {
        if dir.join("msg").is_dir() || dir.join("srv").is_dir() {
            if let Some(package) = dir.file_name().and_then(|n| n.to_str()) {
                self.add_package(package, dir);
            }
        } else {
            self.add_packages(dir);
        }
    }

    fn add_packages(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if let Some(package) = entry.file_name().to_str() {
                self.add_package(package, &entry.path());
            }
        }
    }

    fn add_package(&mut self, package: &str, dir: &Path) {
        if !parse::is_package_name(package) {
            return;
        }
        for kind in ["msg", "srv"] {
            let Ok(files) = std::fs::read_dir(dir.join(kind)) else {
                continue;
            };
            for file in files.flatten() {
                let path = file.path();
                if path.extension().and_then(|e| e.to_str()) != Some(kind) {
                    continue;
                }
                if let Some(name) = parse::type_name_of(&path).filter(|n| parse::is_type_name(n)) {
                    self.sources
                        .entry(format!("{package}/{kind}/{name}"))
                        .or_insert(Source::File(path.clone()));
                }
            }
        }
    }

    /// The type named `name`: `pkg/msg/Type`, `pkg/Type`, or a service's
    /// `pkg/srv/X_Request` / `pkg/srv/X_Response`.
    pub fn resolve(&self, name: &str) -> Result<Arc<MessageType>, TypeError> {
        self.resolve_inner(&canonical(name)?, &mut Vec::new())
    }

    fn resolve_inner(
        &self,
        name: &str,
        stack: &mut Vec<String>,
    ) -> Result<Arc<MessageType>, TypeError> {
        if let Some(done) = self.cache().get(name) {
            return Ok(Arc::clone(done));
        }
        if stack.iter().any(|n| n == name) {
            return Err(TypeError::Recursive(name.to_owned()));
        }
        let (def, package) = self.definition(name)?;
        stack.push(name.to_owned());
        let mut fields = Vec::with_capacity(def.fields.len());
        for field in def.fields {
            let kind = match field.ty.base {
                BaseType::Primitive(p) => Kind::Primitive(p),
                BaseType::String(bound) => Kind::String(bound),
                BaseType::WString(bound) => Kind::WString(bound),
                BaseType::Named {
                    package: field_package,
                    name: type_name,
                } => {
                    let package = field_package.as_deref().unwrap_or(&package);
                    let nested = format!("{package}/msg/{type_name}");
                    Kind::Message(self.resolve_inner(&nested, stack)?)
                }
            };
            fields.push(Field {
                name: field.name,
                kind,
                container: field.ty.container,
                default: field.default,
            });
        }
        stack.pop();
        if fields.is_empty() {
            fields.push(Field {
                name: PLACEHOLDER.into(),
                kind: Kind::Primitive(Primitive::UInt8),
                container: Container::Single,
                default: None,
            });
        }
        let resolved = Arc::new(MessageType {
            name: name.to_owned(),
            fields,
        });
        self.cache().insert(name.to_owned(), Arc::clone(&resolved));
        Ok(resolved)
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<MessageType>>> {
        self.resolved.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The parsed definition of `name` (canonical) and its package.
    fn definition(&self, name: &str) -> Result<(MessageDef, String), TypeError> {
        let mut parts = name.splitn(3, '/');
        let (Some(package), Some(kind), Some(type_name)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(TypeError::BadName(name.to_owned()));
        };
        let (file_type, half) = match kind {
            "srv" => match (
                type_name.strip_suffix("_Request"),
                type_name.strip_suffix("_Response"),
            ) {
                (Some(service), _) => (service, Some(0)),
                (_, Some(service)) => (service, Some(1)),
                _ => return Err(TypeError::BadName(name.to_owned())),
            },
            _ => (type_name, None),
        };
        let unknown = || TypeError::Unknown {
            name: name.to_owned(),
            searched: self.searched.join(", "),
        };
        let source = self
            .sources
            .get(&format!("{package}/{kind}/{file_type}"))
            .ok_or_else(unknown)?;
        let (text, origin) = match source {
            Source::Shipped(text) => (
                (*text).to_owned(),
                format!("(shipped) {package}/{kind}/{file_type}.{kind}"),
            ),
            Source::File(path) => (
                std::fs::read_to_string(path).map_err(|source| TypeError::Read {
                    path: path.clone(),
                    source,
                })?,
                path.display().to_string(),
            ),
        };
        let invalid = |(line, problem)| TypeError::Invalid {
            origin: origin.clone(),
            line,
            problem,
        };
        let def = match half {
            None => parse::parse_message(&text).map_err(invalid)?,
            Some(i) => {
                let (request, response) = parse::parse_service(&text).map_err(invalid)?;
                if i == 0 { request } else { response }
            }
        };
        Ok((def, package.to_owned()))
    }
}

/// `pkg/Type` → `pkg/msg/Type`; checks the form.
fn canonical(name: &str) -> Result<String, TypeError> {
    let bad = || TypeError::BadName(name.to_owned());
    let parts: Vec<&str> = name.split('/').collect();
    let (package, kind, type_name) = match parts[..] {
        [package, type_name] => (package, "msg", type_name),
        [package, kind @ ("msg" | "srv"), type_name] => (package, kind, type_name),
        _ => return Err(bad()),
    };
    if !parse::is_package_name(package) || !parse::is_type_name(type_name.replace('_', "").as_str())
    {
        return Err(bad());
    }
    Ok(format!("{package}/{kind}/{type_name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_types_resolve_across_packages() {
        let registry = TypeRegistry::shipped();
        let image = registry.resolve("sensor_msgs/Image").unwrap();
        assert_eq!(image.name, "sensor_msgs/msg/Image");
        let Kind::Message(header) = &image.fields[0].kind else {
            panic!("header is a message");
        };
        assert_eq!(header.name, "std_msgs/msg/Header");
        assert!(registry.resolve("std_msgs/msg/Empty").unwrap().is_empty());
        let request = registry
            .resolve("example_interfaces/srv/AddTwoInts_Request")
            .unwrap();
        assert_eq!(request.fields.len(), 2);
    }

    #[test]
    fn an_unknown_type_names_where_the_registry_looked() {
        let error = TypeRegistry::new(&[PathBuf::from("/nonexistent/msgs")])
            .resolve("my_msgs/msg/Thing")
            .unwrap_err()
            .to_string();
        assert!(error.contains("my_msgs/msg/Thing"), "{error}");
        assert!(error.contains("--msg-path /nonexistent/msgs"), "{error}");
        assert!(error.contains("std_msgs"), "{error}");
    }

    #[test]
    fn a_msg_path_adds_packages_and_a_self_containing_type_is_refused() {
        let dir = std::env::temp_dir().join(format!("tacto-cli-registry-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("loop_msgs/msg")).unwrap();
        std::fs::write(dir.join("loop_msgs/msg/Ok.msg"), "std_msgs/String text\n").unwrap();
        std::fs::write(dir.join("loop_msgs/msg/Loop.msg"), "Loop inner\n").unwrap();
        let registry = TypeRegistry::new(std::slice::from_ref(&dir));
        assert_eq!(
            registry.resolve("loop_msgs/msg/Ok").unwrap().fields.len(),
            1
        );
        assert!(matches!(
            registry.resolve("loop_msgs/msg/Loop"),
            Err(TypeError::Recursive(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
