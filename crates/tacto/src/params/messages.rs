//! The parameter types to and from their `rcl_interfaces` messages, for the parameter services
//! and `/parameter_events`.

use crate::msg::rcl_interfaces::msg;

use super::{
    FloatingPointRange, IntegerRange, ListParametersResult, Parameter, ParameterDescriptor,
    ParameterEvent, ParameterType, ParameterValue, SetParametersResult,
};

impl From<&ParameterValue> for msg::ParameterValue {
    fn from(value: &ParameterValue) -> Self {
        let mut out = msg::ParameterValue {
            r#type: value.kind() as u8,
            ..Default::default()
        };
        match value {
            ParameterValue::NotSet => {}
            ParameterValue::Bool(b) => out.bool_value = *b,
            ParameterValue::Integer(i) => out.integer_value = *i,
            ParameterValue::Double(f) => out.double_value = *f,
            ParameterValue::String(s) => out.string_value = s.clone(),
            ParameterValue::ByteArray(v) => out.byte_array_value = v.clone(),
            ParameterValue::BoolArray(v) => out.bool_array_value = v.clone(),
            ParameterValue::IntegerArray(v) => out.integer_array_value = v.clone(),
            ParameterValue::DoubleArray(v) => out.double_array_value = v.clone(),
            ParameterValue::StringArray(v) => out.string_array_value = v.clone(),
        }
        out
    }
}

/// A message's value; `Err` with its type byte when it names no type (rclcpp throws
/// "unexpected type from ParameterVariant").
impl TryFrom<msg::ParameterValue> for ParameterValue {
    type Error = u8;

    fn try_from(value: msg::ParameterValue) -> Result<Self, u8> {
        let Some(kind) = ParameterType::from_u8(value.r#type) else {
            return Err(value.r#type);
        };
        Ok(match kind {
            ParameterType::NotSet => ParameterValue::NotSet,
            ParameterType::Bool => ParameterValue::Bool(value.bool_value),
            ParameterType::Integer => ParameterValue::Integer(value.integer_value),
            ParameterType::Double => ParameterValue::Double(value.double_value),
            ParameterType::String => ParameterValue::String(value.string_value),
            ParameterType::ByteArray => ParameterValue::ByteArray(value.byte_array_value),
            ParameterType::BoolArray => ParameterValue::BoolArray(value.bool_array_value),
            ParameterType::IntegerArray => ParameterValue::IntegerArray(value.integer_array_value),
            ParameterType::DoubleArray => ParameterValue::DoubleArray(value.double_array_value),
            ParameterType::StringArray => ParameterValue::StringArray(value.string_array_value),
        })
    }
}

impl From<&Parameter> for msg::Parameter {
    fn from(parameter: &Parameter) -> Self {
        msg::Parameter {
            name: parameter.name.clone(),
            value: (&parameter.value).into(),
        }
    }
}

/// A message's parameter; `Err` with the type byte of a value that names no type.
impl TryFrom<msg::Parameter> for Parameter {
    type Error = u8;

    fn try_from(parameter: msg::Parameter) -> Result<Self, u8> {
        Ok(Parameter {
            name: parameter.name,
            value: parameter.value.try_into()?,
        })
    }
}

impl From<&ParameterDescriptor> for msg::ParameterDescriptor {
    fn from(d: &ParameterDescriptor) -> Self {
        let integer = |r: &IntegerRange| msg::IntegerRange {
            from_value: r.from_value,
            to_value: r.to_value,
            step: r.step,
        };
        let floating = |r: &FloatingPointRange| msg::FloatingPointRange {
            from_value: r.from_value,
            to_value: r.to_value,
            step: r.step,
        };
        msg::ParameterDescriptor {
            name: d.name.clone(),
            r#type: d.kind as u8,
            description: d.description.clone(),
            additional_constraints: d.additional_constraints.clone(),
            read_only: d.read_only,
            dynamic_typing: d.dynamic_typing,
            floating_point_range: d.floating_point_range.iter().map(floating).collect(),
            integer_range: d.integer_range.iter().map(integer).collect(),
        }
    }
}

impl From<SetParametersResult> for msg::SetParametersResult {
    fn from(result: SetParametersResult) -> Self {
        msg::SetParametersResult {
            successful: result.successful,
            reason: result.reason,
        }
    }
}

impl From<ListParametersResult> for msg::ListParametersResult {
    fn from(result: ListParametersResult) -> Self {
        msg::ListParametersResult {
            names: result.names,
            prefixes: result.prefixes,
        }
    }
}

impl ParameterEvent {
    /// The `/parameter_events` message of this event, stamped `stamp`.
    pub fn to_message(&self, stamp: crate::Time) -> msg::ParameterEvent {
        let all = |list: &[Parameter]| list.iter().map(msg::Parameter::from).collect();
        msg::ParameterEvent {
            stamp: stamp.into(),
            node: self.node.clone(),
            new_parameters: all(&self.new_parameters),
            changed_parameters: all(&self.changed_parameters),
            deleted_parameters: all(&self.deleted_parameters),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_type_survives_its_message() {
        for value in [
            ParameterValue::NotSet,
            ParameterValue::Bool(true),
            ParameterValue::Integer(-3),
            ParameterValue::Double(0.25),
            ParameterValue::String("x".into()),
            ParameterValue::ByteArray(vec![1, 2]),
            ParameterValue::BoolArray(vec![true, false]),
            ParameterValue::IntegerArray(vec![4, 5]),
            ParameterValue::DoubleArray(vec![1.5]),
            ParameterValue::StringArray(vec!["a".into()]),
        ] {
            let message = msg::ParameterValue::from(&value);
            assert_eq!(message.r#type, value.kind() as u8);
            assert_eq!(ParameterValue::try_from(message), Ok(value));
        }
        let unknown = msg::ParameterValue {
            r#type: 42,
            ..Default::default()
        };
        assert_eq!(ParameterValue::try_from(unknown), Err(42));
    }
}
