//! Node parameters, as rclcpp (Jazzy) has them, and parameter files as rcl reads them.
//!
//! - [`ParameterStore`]: a node's parameters, with all of `rclcpp::Node`'s parameter
//!   interface: declare (with a default, a descriptor, `ignore_override`; or a type alone),
//!   undeclare, get, set one by one or atomically, list, describe, the pre-set, on-set and
//!   post-set callbacks, ranges, read-only and static typing, with rclcpp's reasons and errors.
//! - [`ParameterValue`], [`ParameterDescriptor`] and the other types of `rcl_interfaces`.
//! - [`ParameterOverrides`]: YAML parameter files and `-p name:=value` values parsed as
//!   `rcl_yaml_param_parser` parses them, and [`resolve_overrides`], a node's initial values
//!   from them as rclcpp collects them.
//! - [`ParameterHandle`] and [`ParameterWatch`]: what running code reads, at the cost of an
//!   atomic load while nothing changed, and a probe of changes that can trigger a node.
//!
//! See `docs/parameters.md` for the whole picture.

mod error;
mod handle;
mod names;
mod overrides;
mod store;
mod value;
mod yaml;

pub use error::ParameterError;
pub use handle::{ParameterHandle, ParameterWatch};
pub use overrides::{NodeOverrides, ParameterOverrides, resolve_overrides};
pub use store::{CallbackHandle, DEPTH_RECURSIVE, ParameterStore, ParameterStoreBuilder};
pub use value::{
    FloatingPointRange, IntegerRange, ListParametersResult, Parameter, ParameterData,
    ParameterDescriptor, ParameterEvent, ParameterType, ParameterValue, SetParametersResult,
};
pub use yaml::{YamlError, YamlErrorKind};
