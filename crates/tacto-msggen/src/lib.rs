//! Rust message types from ROS 2 `.msg`, `.srv` and `.action` files, for a build script; no
//! ROS installation needed.
//!
//! A package folder (`my_msgs/msg/*.msg`, `my_msgs/srv/*.srv`, `my_msgs/action/*.action`)
//! becomes a module `my_msgs` with `my_msgs::msg::Type` for each message; for each service
//! `X`, the request and response messages `my_msgs::srv::X_Request` / `X_Response` and a
//! marker type `X` that implements `tacto::ServiceType`; and for each action `X`, in
//! `my_msgs::action`, the types rosidl derives from it (`X_Goal`, `X_Result`, `X_Feedback`,
//! the services `X_SendGoal` and `X_GetResult`, `X_FeedbackMessage`) and a marker type `X`
//! that implements `tacto::ActionType`. Every type implements `tacto::Message`, encodes to the
//! CDR rclcpp and rclpy send (through `tacto::cdr`), has the `.msg` file's constants as
//! associated consts and its default values in `Default`, and checks its bounds when encoding
//! and decoding (see `tacto::idl`). A message asked for with [`Generator::flat`] is also a
//! flat message (`tacto::Flat`), read in place from shared memory.
//!
//! In `build.rs` (with `tacto-msggen` as a build-dependency), the whole `main`:
//! ```no_run
//! tacto_msggen::Generator::new()
//!     .package("msg_packages/my_msgs")
//!     .tacto_msgs()
//!     .write_to_out_dir("my_msgs.rs")
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//! and in the crate: `include!(concat!(env!("OUT_DIR"), "/my_msgs.rs"));`. See
//! `docs/messages.md`.

mod emit;
mod flat;
pub mod parse;
pub mod shipped;
pub mod type_hash;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use flat::NotFlat;
use type_hash::TypeDescriptions;

/// Why the types could not be generated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// A file or folder could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// What could not be read.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The generated file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// Where it was to go.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A package folder's name is not a ROS 2 package name.
    #[error("{}: {name:?} is not a ROS 2 package name (lowercase letters, digits and single '_', starting with a letter)", path.display())]
    PackageName {
        /// The package folder.
        path: PathBuf,
        /// Its name.
        name: String,
    },
    /// A `.msg`/`.srv`/`.action` file's name is not a ROS 2 type name.
    #[error("{}: {name:?} is not a ROS 2 type name (CamelCase letters and digits)", path.display())]
    TypeName {
        /// The file.
        path: PathBuf,
        /// The name it would give its type.
        name: String,
    },
    /// A `.msg`/`.srv`/`.action` file is malformed.
    #[error("{}:{line}: {problem}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line, counted from 1.
        line: usize,
        /// What is wrong with it.
        problem: Problem,
    },
    /// A type uses a type whose definition is in none of the packages given (see
    /// [`Generator::extern_package`]), so its type hash cannot be computed.
    #[error("{0}: add its package with .package, .extern_package or .tacto_msgs")]
    TypeHash(#[from] type_hash::UnknownType),
    /// An action's derived types hold a message of a package that is in none of the packages
    /// given: `unique_identifier_msgs/msg/UUID` (the goal id) or `builtin_interfaces/msg/Time`
    /// (when a goal was accepted).
    #[error(
        "{}: an action's derived types hold {type_name}: add its package with .package, \
         .shipped_package or .tacto_msgs", path.display()
    )]
    ActionDependency {
        /// The `.action` file.
        path: PathBuf,
        /// The type missing, `pkg/msg/Type`.
        type_name: String,
    },
    /// A type asked for flat with [`Generator::flat`] is not a message (`pkg/msg/Type`) of the
    /// packages given with [`Generator::package`].
    #[error(
        "{0:?} was asked for flat but is no message of the packages given (`package/msg/Type`)"
    )]
    UnknownFlat(String),
    /// A type asked for flat with [`Generator::flat`] cannot be: a field of it is not flat.
    #[error("{}:{line}: {type_name} cannot be flat: field `{field}` {reason}", path.display())]
    Flat {
        /// The type's file.
        path: PathBuf,
        /// The field's line, counted from 1.
        line: usize,
        /// The type, `pkg/msg/Type`.
        type_name: String,
        /// The field.
        field: String,
        /// Why it is not flat.
        reason: NotFlat,
    },
    /// `write_to_out_dir` was called outside a build script.
    #[error("OUT_DIR is not set: write_to_out_dir is meant for build scripts")]
    NoOutDir,
}

/// What is wrong with a line of a `.msg`/`.srv`/`.action` file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// The line is neither `TYPE NAME [DEFAULT]` nor `TYPE NAME=VALUE`.
    #[error("expected `TYPE NAME`, `TYPE NAME DEFAULT` or `TYPE NAME=VALUE`, found {0:?}")]
    Syntax(String),
    /// The type is not a primitive, not a message of a package being generated, and not in a
    /// package declared as external.
    #[error("unknown type {0:?}")]
    UnknownType(String),
    /// An array or string bound is malformed.
    #[error("bad bound {text:?}: {reason}")]
    BadBound {
        /// The bound as written.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A constant's or default's value does not fit its type.
    #[error("bad value {value:?} for {ty}: {reason}")]
    BadValue {
        /// The value as written.
        value: String,
        /// The type it should have.
        ty: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Constants are primitives or strings, never arrays or messages.
    #[error("a constant must be a primitive or string, not {0:?}")]
    ConstantType(String),
    /// Field names are lowercase with single underscores.
    #[error(
        "bad field name {0:?}: lowercase letters, digits and single '_', starting with a letter"
    )]
    BadFieldName(String),
    /// Constant names are uppercase with single underscores.
    #[error(
        "bad constant name {0:?}: uppercase letters, digits and single '_', starting with a letter"
    )]
    BadConstantName(String),
    /// Two fields or constants share a name.
    #[error("{0:?} is declared twice")]
    DuplicateName(String),
    /// A `.srv` file has no `---` between request and response.
    #[error("a service needs a `---` line between its request and its response")]
    MissingSeparator,
    /// A `.srv` file has more than one `---`.
    #[error("a second `---`: a service has one request and one response")]
    ExtraSeparator,
    /// An `.action` file does not have exactly two `---` lines (the number it has).
    #[error(
        "an action needs two `---` lines, between goal and result and between result and \
         feedback; found {0}"
    )]
    ActionSeparators(usize),
}

/// Generates Rust types for packages of `.msg`/`.srv`/`.action` files.
///
/// # Examples
/// ```
/// let dir = std::env::temp_dir().join(format!("msggen-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("demo_msgs/msg")).unwrap();
/// std::fs::write(dir.join("demo_msgs/msg/Range.msg"), "float32 distance_m 1.5\n").unwrap();
///
/// let code = tacto_msggen::Generator::new().package(dir.join("demo_msgs")).generate().unwrap();
/// assert!(code.contains("pub struct Range"));
/// assert!(code.contains("\"demo_msgs/msg/Range\""));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Default, Clone)]
pub struct Generator {
    packages: Vec<PathBuf>,
    /// Package name → the Rust path of the module that holds its messages.
    externs: BTreeMap<String, String>,
    /// The folders of external packages, read for the type hashes of the types using them.
    extern_dirs: Vec<PathBuf>,
    /// The messages to generate flat, `pkg/msg/Type`.
    flat: BTreeSet<String>,
}

/// The packages `tacto-msgs` ships.
const TACTO_MSGS_PACKAGES: [&str; 13] = [
    "action_msgs",
    "builtin_interfaces",
    "example_interfaces",
    "geometry_msgs",
    "lifecycle_msgs",
    "nav_msgs",
    "rcl_interfaces",
    "rosgraph_msgs",
    "sensor_msgs",
    "std_msgs",
    "std_srvs",
    "tf2_msgs",
    "unique_identifier_msgs",
];

impl Generator {
    /// A generator with no packages yet.
    pub fn new() -> Generator {
        Generator::default()
    }

    /// Adds the package in folder `dir` (named as the folder; `.msg` files in `dir/msg`,
    /// `.srv` files in `dir/srv`, `.action` files in `dir/action`). Its types can use each
    /// other and those of the other packages added. An action's derived types hold
    /// `unique_identifier_msgs/msg/UUID` and `builtin_interfaces/msg/Time`, so a package with
    /// actions needs those two packages too (`.tacto_msgs()` has them).
    pub fn package(mut self, dir: impl Into<PathBuf>) -> Generator {
        self.packages.push(dir.into());
        self
    }

    /// Lets the packages use the types of the package in folder `dir` (named as the folder),
    /// generated elsewhere, at Rust path `rust_path` (e.g. `"::other_crate::other_msgs"`). Its
    /// files are read for the type hashes of the types that use it; its Rust types are not
    /// checked here: a wrong path is a compile error at the field that uses it.
    pub fn extern_package(mut self, dir: impl Into<PathBuf>, rust_path: &str) -> Generator {
        let dir = dir.into();
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        self.externs
            .insert(name.to_owned(), format!("{rust_path}::msg"));
        self.extern_dirs.push(dir);
        self
    }

    /// Lets the packages use the messages of `package`, one of the packages whose definitions
    /// are embedded in this crate (see [`shipped`]), from the Rust module `messages_path`, which
    /// holds its message types by their ROS names: types written by hand, such as
    /// `"crate::msg::builtin_interfaces"` inside `tacto`, or generated elsewhere, such as
    /// `"::tacto::msg::rcl_interfaces::msg"`. A package that is not shipped gives
    /// [`GenerateError::TypeHash`] for the first type that uses it.
    ///
    /// # Examples
    /// ```
    /// let dir = std::env::temp_dir().join(format!("msggen-shipped-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("demo_msgs/msg")).unwrap();
    /// std::fs::write(dir.join("demo_msgs/msg/Stamped.msg"), "builtin_interfaces/Time stamp\n").unwrap();
    ///
    /// let code = tacto_msggen::Generator::new()
    ///     .package(dir.join("demo_msgs"))
    ///     .shipped_package("builtin_interfaces", "::tacto::msg::builtin_interfaces")
    ///     .generate()
    ///     .unwrap();
    /// assert!(code.contains("pub stamp: ::tacto::msg::builtin_interfaces::Time,"));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn shipped_package(mut self, package: &str, messages_path: &str) -> Generator {
        self.externs
            .insert(package.to_owned(), messages_path.to_owned());
        self
    }

    /// Lets the packages use the packages of `tacto-msgs` (`std_msgs`, `geometry_msgs`,
    /// `sensor_msgs`, `action_msgs`, `unique_identifier_msgs`, ...), as
    /// `::tacto_msgs::<package>`; their definitions are embedded in this crate (see
    /// [`shipped`]).
    pub fn tacto_msgs(mut self) -> Generator {
        for name in TACTO_MSGS_PACKAGES {
            self.externs
                .insert(name.to_owned(), format!("::tacto_msgs::{name}::msg"));
        }
        self
    }

    /// Generates message `type_name` (`"my_msgs/msg/Frame"`, of a package given with
    /// [`package`](Self::package)) as a flat message: `#[tacto::message(.., flat)]`, `Clone`
    /// and `Copy`, which shared memory carries as its own bytes and a subscriber of another
    /// process reads in place (`tacto::Flat`). Its CDR stays that of the `.msg` file; its
    /// `string<=N` fields become `tacto::FlatString<N>` instead of `String`. It qualifies if
    /// every field is a number (`bool` is not flat), a `string<=N`, a message itself asked
    /// for flat, or a fixed array `T[N]` of those, with no padding between or after the fields
    /// under `#[repr(C)]`; [`generate`](Self::generate) says which field does not otherwise
    /// ([`GenerateError::Flat`]).
    ///
    /// # Examples
    /// ```
    /// let dir = std::env::temp_dir().join(format!("msggen-flat-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("demo_msgs/msg")).unwrap();
    /// let frame = "int64 stamp_ns\nstring<=16 camera\nuint8[64] pixels\n";
    /// std::fs::write(dir.join("demo_msgs/msg/Frame.msg"), frame).unwrap();
    ///
    /// let code = tacto_msggen::Generator::new()
    ///     .package(dir.join("demo_msgs"))
    ///     .flat("demo_msgs/msg/Frame")
    ///     .generate()
    ///     .unwrap();
    /// assert!(code.contains("pub camera: ::tacto::FlatString<16>,"));
    ///
    /// std::fs::write(dir.join("demo_msgs/msg/Frame.msg"), "uint8 id\nfloat64 value\n").unwrap();
    /// let error = tacto_msggen::Generator::new()
    ///     .package(dir.join("demo_msgs"))
    ///     .flat("demo_msgs/msg/Frame")
    ///     .generate()
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("field `value` would need 7 bytes of padding"));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn flat(mut self, type_name: &str) -> Generator {
        self.flat.insert(type_name.to_owned());
        self
    }

    /// The Rust code: one module per package.
    pub fn generate(&self) -> Result<String, GenerateError> {
        let packages = self
            .packages
            .iter()
            .map(|dir| emit::load_package(dir))
            .collect::<Result<Vec<_>, _>>()?;
        emit::check_types(&packages, &self.externs)?;
        let flat = flat::check(&packages, &self.flat)?;
        let mut descriptions = TypeDescriptions::new();
        shipped::add_descriptions(&mut descriptions);
        for dir in &self.extern_dirs {
            emit::load_package(dir)?.describe(&mut descriptions);
        }
        for package in &packages {
            package.describe(&mut descriptions);
        }
        let mut hashes = BTreeMap::new();
        for package in &packages {
            for type_name in package.type_names() {
                let hash = descriptions.hash(&type_name)?;
                hashes.insert(type_name, hash);
            }
        }
        Ok(emit::emit(&packages, &self.externs, &hashes, &flat))
    }

    /// Generates the code into `$OUT_DIR/<file_name>` and tells Cargo to run the build script
    /// again when a package folder changes. Returns the path written.
    pub fn write_to_out_dir(&self, file_name: &str) -> Result<PathBuf, GenerateError> {
        let out_dir = std::env::var_os("OUT_DIR").ok_or(GenerateError::NoOutDir)?;
        let path = Path::new(&out_dir).join(file_name);
        for dir in &self.packages {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
        let code = self.generate()?;
        std::fs::write(&path, code).map_err(|source| GenerateError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}
