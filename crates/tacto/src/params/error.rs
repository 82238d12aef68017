//! Why a parameter operation failed: rclcpp's exceptions, with their texts.

/// Why a declare, undeclare, get or set failed, one variant per rclcpp exception; its
/// [`Display`](std::fmt::Display) is the exception's `what()`, word for word.
///
/// A set that is refused (wrong type, out of range, read-only, a callback's veto) is not an
/// error: it is a [`SetParametersResult`](crate::params::SetParametersResult) with
/// `successful == false` and the reason, as in rclcpp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParameterError {
    /// `InvalidParametersException`: the name is empty.
    #[error("{0}")]
    InvalidParameters(String),
    /// `InvalidParameterValueException`: the value was refused at declaration (out of range,
    /// or by an on-set callback).
    #[error("{0}")]
    InvalidValue(String),
    /// `InvalidParameterTypeException`: the value's type is not the parameter's, or the
    /// operation needs another kind of typing.
    #[error("parameter '{name}' has invalid type: {message}")]
    InvalidType {
        /// The parameter.
        name: String,
        /// What was wrong.
        message: String,
    },
    /// `UninitializedStaticallyTypedParameterException`: a parameter declared with a type
    /// and no default got no override.
    #[error("Statically typed parameter '{0}' must be initialized.")]
    UninitializedStaticallyTyped(String),
    /// `ParameterAlreadyDeclaredException`.
    #[error("{0}")]
    AlreadyDeclared(String),
    /// `ParameterNotDeclaredException`, and undeclared parameters are not allowed.
    #[error("{0}")]
    NotDeclared(String),
    /// `ParameterImmutableException`: a read-only parameter cannot be undeclared.
    #[error("{0}")]
    Immutable(String),
    /// `ParameterModifiedInCallbackException`: a set, declare or undeclare, or a change of the
    /// callbacks, from inside a parameter callback of the same node.
    #[error("cannot set or declare a parameter, or change the callback from within set callback")]
    ModifiedInCallback,
    /// `ParameterUninitializedException`: the parameter is statically typed and has no value.
    #[error("parameter '{0}' is not initialized")]
    Uninitialized(String),
    /// `std::invalid_argument`: the arguments contradict each other.
    #[error("{0}")]
    InvalidArgument(String),
}
