//! Parameter values, types and descriptors, as `rcl_interfaces` defines them.

use std::fmt;

/// A parameter's type: `rcl_interfaces/msg/ParameterType`, with its values.
///
/// Its [`Display`](fmt::Display) is rclcpp's `to_string(ParameterType)` (`"integer"`,
/// `"double_array"`, `"not set"`...), the words of the reasons a set is refused with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(u8)]
pub enum ParameterType {
    /// `PARAMETER_NOT_SET`: no value.
    #[default]
    NotSet = 0,
    /// `PARAMETER_BOOL`.
    Bool = 1,
    /// `PARAMETER_INTEGER`: an `i64`.
    Integer = 2,
    /// `PARAMETER_DOUBLE`: an `f64`.
    Double = 3,
    /// `PARAMETER_STRING`.
    String = 4,
    /// `PARAMETER_BYTE_ARRAY`.
    ByteArray = 5,
    /// `PARAMETER_BOOL_ARRAY`.
    BoolArray = 6,
    /// `PARAMETER_INTEGER_ARRAY`.
    IntegerArray = 7,
    /// `PARAMETER_DOUBLE_ARRAY`.
    DoubleArray = 8,
    /// `PARAMETER_STRING_ARRAY`.
    StringArray = 9,
}

impl ParameterType {
    /// The type of an `rcl_interfaces` value, if it is one.
    pub const fn from_u8(value: u8) -> Option<ParameterType> {
        Some(match value {
            0 => ParameterType::NotSet,
            1 => ParameterType::Bool,
            2 => ParameterType::Integer,
            3 => ParameterType::Double,
            4 => ParameterType::String,
            5 => ParameterType::ByteArray,
            6 => ParameterType::BoolArray,
            7 => ParameterType::IntegerArray,
            8 => ParameterType::DoubleArray,
            9 => ParameterType::StringArray,
            _ => return None,
        })
    }

    /// rclcpp's name of the type, as in its reasons.
    pub const fn name(self) -> &'static str {
        match self {
            ParameterType::NotSet => "not set",
            ParameterType::Bool => "bool",
            ParameterType::Integer => "integer",
            ParameterType::Double => "double",
            ParameterType::String => "string",
            ParameterType::ByteArray => "byte_array",
            ParameterType::BoolArray => "bool_array",
            ParameterType::IntegerArray => "integer_array",
            ParameterType::DoubleArray => "double_array",
            ParameterType::StringArray => "string_array",
        }
    }
}

impl fmt::Display for ParameterType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parameter's value: `rcl_interfaces/msg/ParameterValue`, one of its ten types.
///
/// # Examples
/// ```
/// use tacto::params::{ParameterType, ParameterValue};
///
/// let gain = ParameterValue::from(0.5);
/// assert_eq!(gain.kind(), ParameterType::Double);
/// assert_eq!(gain.as_f64(), Some(0.5));
/// assert_eq!(ParameterValue::from(vec!["a", "b"]).kind(), ParameterType::StringArray);
/// assert_eq!(ParameterValue::default(), ParameterValue::NotSet);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ParameterValue {
    /// No value (`PARAMETER_NOT_SET`).
    #[default]
    NotSet,
    /// A boolean.
    Bool(bool),
    /// A 64-bit signed integer.
    Integer(i64),
    /// A 64-bit float.
    Double(f64),
    /// A string.
    String(String),
    /// Bytes.
    ByteArray(Vec<u8>),
    /// Booleans.
    BoolArray(Vec<bool>),
    /// 64-bit signed integers.
    IntegerArray(Vec<i64>),
    /// 64-bit floats.
    DoubleArray(Vec<f64>),
    /// Strings.
    StringArray(Vec<String>),
}

impl ParameterValue {
    /// Its type.
    pub fn kind(&self) -> ParameterType {
        match self {
            ParameterValue::NotSet => ParameterType::NotSet,
            ParameterValue::Bool(_) => ParameterType::Bool,
            ParameterValue::Integer(_) => ParameterType::Integer,
            ParameterValue::Double(_) => ParameterType::Double,
            ParameterValue::String(_) => ParameterType::String,
            ParameterValue::ByteArray(_) => ParameterType::ByteArray,
            ParameterValue::BoolArray(_) => ParameterType::BoolArray,
            ParameterValue::IntegerArray(_) => ParameterType::IntegerArray,
            ParameterValue::DoubleArray(_) => ParameterType::DoubleArray,
            ParameterValue::StringArray(_) => ParameterType::StringArray,
        }
    }

    /// True for [`NotSet`](Self::NotSet).
    pub fn is_set(&self) -> bool {
        !matches!(self, ParameterValue::NotSet)
    }

    /// The boolean, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ParameterValue::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The integer, if it is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            ParameterValue::Integer(v) => Some(*v),
            _ => None,
        }
    }

    /// The double, if it is one (an integer is not: types are strict, as in rclcpp).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParameterValue::Double(v) => Some(*v),
            _ => None,
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParameterValue::String(v) => Some(v),
            _ => None,
        }
    }

    /// The value as `T`, if it is of `T`'s type.
    pub fn get<T: ParameterData>(&self) -> Option<T> {
        T::from_value(self)
    }
}

macro_rules! value_from {
    ($($t:ty => $variant:ident $(via $conv:expr)?),* $(,)?) => {$(
        impl From<$t> for ParameterValue {
            fn from(value: $t) -> Self {
                ParameterValue::$variant($( ($conv) )?(value))
            }
        }
    )*};
}

value_from! {
    bool => Bool,
    i64 => Integer,
    i32 => Integer via i64::from,
    f64 => Double,
    f32 => Double via f64::from,
    String => String,
    &str => String via str::to_owned,
    Vec<u8> => ByteArray,
    Vec<bool> => BoolArray,
    Vec<i64> => IntegerArray,
    Vec<f64> => DoubleArray,
    Vec<String> => StringArray,
    Vec<&str> => StringArray via |v: Vec<&str>| v.into_iter().map(str::to_owned).collect(),
}

/// A Rust type that is one parameter type: what [`ParameterValue::get`] and a typed
/// [`ParameterHandle`](crate::params::ParameterHandle) convert to.
pub trait ParameterData: Clone + Send + Sync + 'static {
    /// The parameter type it is.
    const TYPE: ParameterType;
    /// The value as `Self`, if it is of [`TYPE`](Self::TYPE).
    fn from_value(value: &ParameterValue) -> Option<Self>;
    /// The value it is.
    fn into_value(self) -> ParameterValue;
}

macro_rules! data {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl ParameterData for $t {
            const TYPE: ParameterType = ParameterType::$variant;
            fn from_value(value: &ParameterValue) -> Option<Self> {
                match value {
                    ParameterValue::$variant(v) => Some(v.clone()),
                    _ => None,
                }
            }
            fn into_value(self) -> ParameterValue {
                ParameterValue::$variant(self)
            }
        }
    )*};
}

data! {
    bool => Bool,
    i64 => Integer,
    f64 => Double,
    String => String,
    Vec<u8> => ByteArray,
    Vec<bool> => BoolArray,
    Vec<i64> => IntegerArray,
    Vec<f64> => DoubleArray,
    Vec<String> => StringArray,
}

/// A named value: `rcl_interfaces/msg/Parameter`, rclcpp's `Parameter`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parameter {
    /// Its name, dots separating its namespaces (`"camera.gain"`).
    pub name: String,
    /// Its value.
    pub value: ParameterValue,
}

impl Parameter {
    /// A parameter named `name` of `value`.
    pub fn new(name: impl Into<String>, value: impl Into<ParameterValue>) -> Self {
        Parameter {
            name: name.into(),
            value: value.into(),
        }
    }

    /// A parameter with no value: set, it undeclares a dynamically typed parameter.
    pub fn unset(name: impl Into<String>) -> Self {
        Parameter::new(name, ParameterValue::NotSet)
    }

    /// Its value's type.
    pub fn kind(&self) -> ParameterType {
        self.value.kind()
    }
}

/// The integer range of a descriptor: `rcl_interfaces/msg/IntegerRange`.
///
/// A value is in range if it is `from_value` or `to_value`, or between them and a whole
/// number of `step`s from `from_value` (`step` 0: any value between them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IntegerRange {
    /// The lowest value.
    pub from_value: i64,
    /// The highest value.
    pub to_value: i64,
    /// The step between valid values, from `from_value`; 0 for none.
    pub step: u64,
}

/// The floating-point range of a descriptor: `rcl_interfaces/msg/FloatingPointRange`.
///
/// As [`IntegerRange`], compared with rclcpp's tolerance: two doubles are equal when they
/// differ by at most 100 ulps of their sum (`|x - y| <= ε·|x + y|·100`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FloatingPointRange {
    /// The lowest value.
    pub from_value: f64,
    /// The highest value.
    pub to_value: f64,
    /// The step between valid values, from `from_value`; 0 for none.
    pub step: f64,
}

/// What a parameter is and may be: `rcl_interfaces/msg/ParameterDescriptor`.
///
/// The store fills [`name`](Self::name) and, unless [`dynamic_typing`](Self::dynamic_typing),
/// [`kind`](Self::kind) when the parameter is declared.
///
/// # Examples
/// ```
/// use tacto::params::{IntegerRange, ParameterDescriptor};
///
/// let rate = ParameterDescriptor {
///     description: "publish rate in Hz".into(),
///     integer_range: Some(IntegerRange { from_value: 1, to_value: 100, step: 1 }),
///     ..ParameterDescriptor::default()
/// };
/// assert!(!rate.read_only && !rate.dynamic_typing);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParameterDescriptor {
    /// The parameter's name.
    pub name: String,
    /// Its type (`type` in the message).
    pub kind: ParameterType,
    /// What it is for.
    pub description: String,
    /// Constraints in words, beyond the ranges.
    pub additional_constraints: String,
    /// Set only when declared: no set, and no undeclare, afterwards.
    pub read_only: bool,
    /// Its type may change with a set (and a set to "not set" undeclares it).
    pub dynamic_typing: bool,
    /// For an integer: the values it may take (the message's bounded sequence of at most one).
    pub integer_range: Option<IntegerRange>,
    /// For a double: the values it may take.
    pub floating_point_range: Option<FloatingPointRange>,
}

impl ParameterDescriptor {
    /// A descriptor with [`dynamic_typing`](Self::dynamic_typing) set and nothing else.
    pub fn dynamic() -> Self {
        ParameterDescriptor {
            dynamic_typing: true,
            ..ParameterDescriptor::default()
        }
    }

    /// A descriptor with [`read_only`](Self::read_only) set and nothing else.
    pub fn read_only() -> Self {
        ParameterDescriptor {
            read_only: true,
            ..ParameterDescriptor::default()
        }
    }
}

/// The answer to a set: `rcl_interfaces/msg/SetParametersResult`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SetParametersResult {
    /// The set was applied.
    pub successful: bool,
    /// Why not, in rclcpp's words (or the refusing callback's); empty when successful.
    pub reason: String,
}

impl SetParametersResult {
    /// A success.
    pub fn ok() -> Self {
        SetParametersResult {
            successful: true,
            reason: String::new(),
        }
    }

    /// A refusal for `reason`.
    pub fn refused(reason: impl Into<String>) -> Self {
        SetParametersResult {
            successful: false,
            reason: reason.into(),
        }
    }
}

/// What a change did, for `/parameter_events`: `rcl_interfaces/msg/ParameterEvent` without
/// its stamp, which the publisher adds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParameterEvent {
    /// The node's fully qualified name.
    pub node: String,
    /// Parameters declared by the change, with their values.
    pub new_parameters: Vec<Parameter>,
    /// Parameters whose value was set.
    pub changed_parameters: Vec<Parameter>,
    /// Parameters undeclared by the change, with their last values.
    pub deleted_parameters: Vec<Parameter>,
}

/// The answer to a listing: `rcl_interfaces/msg/ListParametersResult`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListParametersResult {
    /// The names listed, in name order.
    pub names: Vec<String>,
    /// The distinct namespaces of those names (all but the last `.`-separated token), in the
    /// order first met.
    pub prefixes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_rclcpps() {
        // rclcpp/src/rclcpp/parameter_value.cpp, to_string(ParameterType).
        let names: Vec<_> = (0..=9)
            .map(|v| ParameterType::from_u8(v).unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "not set",
                "bool",
                "integer",
                "double",
                "string",
                "byte_array",
                "bool_array",
                "integer_array",
                "double_array",
                "string_array"
            ]
        );
        assert_eq!(ParameterType::from_u8(10), None);
    }

    #[test]
    fn a_value_converts_only_to_its_own_type() {
        let v = ParameterValue::from(3);
        assert_eq!(v.get::<i64>(), Some(3));
        assert_eq!(v.get::<f64>(), None);
        assert_eq!(
            ParameterValue::from(vec![1.0, 2.0]).get::<Vec<f64>>(),
            Some(vec![1.0, 2.0])
        );
        assert_eq!(
            String::from("x").into_value(),
            ParameterValue::String("x".into())
        );
    }
}
