//! A node's parameters, with rclcpp's `NodeParameters` semantics.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Weak};
use std::thread::{self, ThreadId};

use super::error::ParameterError;
use super::handle::{ParameterHandle, ParameterWatch, Slot, WatchShared};
use super::value::{
    ListParametersResult, Parameter, ParameterData, ParameterDescriptor, ParameterEvent,
    ParameterType, ParameterValue, SetParametersResult,
};
use crate::pi_mutex::{PiGuard, PiMutex};

/// `ListParameters`' depth that lists every level: `DEPTH_RECURSIVE`.
pub const DEPTH_RECURSIVE: u64 = 0;

type PreSet = dyn Fn(&mut Vec<Parameter>) + Send + Sync;
type OnSet = dyn Fn(&[Parameter]) -> SetParametersResult + Send + Sync;
type PostSet = dyn Fn(&[Parameter]) + Send + Sync;
type EventSink = dyn Fn(&ParameterEvent) + Send + Sync;

/// Keeps a parameter callback registered; dropping it removes the callback, as resetting
/// rclcpp's handle does.
#[must_use = "the callback is removed when its handle is dropped"]
pub struct CallbackHandle {
    _callback: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for CallbackHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallbackHandle").finish_non_exhaustive()
    }
}

/// One declared parameter: rclcpp's `ParameterInfo`, and the slot its handles read.
#[derive(Debug, Clone, Default)]
struct Info {
    descriptor: ParameterDescriptor,
    value: ParameterValue,
    /// Created by the first handle of the parameter, so a parameter nobody holds a handle to
    /// costs nothing more on a set.
    slot: Option<Arc<Slot>>,
}

impl Info {
    fn assign(&mut self, value: ParameterValue) {
        if let Some(slot) = &self.slot {
            slot.publish(&value);
        }
        self.value = value;
    }
}

struct State {
    params: BTreeMap<String, Info>,
    /// Callbacks in calling order: the last registered first, as rclcpp's `emplace_front`.
    pre_set: Vec<Weak<PreSet>>,
    on_set: Vec<Weak<OnSet>>,
    post_set: Vec<Weak<PostSet>>,
    watches: Vec<Weak<WatchShared>>,
    /// The thread that is changing the parameters, while it does: its callbacks may read
    /// parameters but not change them (rclcpp's `ParameterMutationRecursionGuard`).
    mutating: Option<ThreadId>,
}

struct Shared {
    node: String,
    allow_undeclared: bool,
    overrides: BTreeMap<String, ParameterValue>,
    state: PiMutex<State>,
    /// Held by the thread changing the parameters, for the whole change, callbacks included,
    /// so that a set checked against the parameters is applied to the same parameters (all or
    /// nothing). Readers never take it: a slow callback delays other setters only, as in rclcpp.
    turn: PiMutex<()>,
    events: Option<Box<EventSink>>,
}

/// A node's parameters: declare, undeclare, get, set (one by one or atomically), list,
/// describe, with the callbacks, overrides, typing and ranges of rclcpp's (Jazzy)
/// `rclcpp::Node`, and the same reasons and errors.
///
/// A store is shared: clones are the same parameters, for a node's code, its parameter
/// services and its tools. Sets may come from any thread while an executor reads
/// [`ParameterHandle`]s; callbacks run on the setter's thread, never under the lock that
/// readers take (a callback may read parameters; a change from inside it is refused with
/// [`ParameterError::ModifiedInCallback`], as rclcpp refuses it).
///
/// # Examples
/// ```
/// use tacto::params::{Parameter, ParameterStore, ParameterValue};
///
/// let store = ParameterStore::builder("/robot/controller")
///     .override_value("gain", 2.0) // e.g. from a parameter file
///     .build()
///     .unwrap();
/// assert_eq!(store.declare("gain", 1.0).unwrap(), 2.0); // the override wins
/// assert_eq!(store.declare("mode", String::from("auto")).unwrap(), "auto");
///
/// let result = store.set_parameter(Parameter::new("gain", "fast"));
/// assert!(!result.successful);
/// assert_eq!(
///     result.reason,
///     "Wrong parameter type, parameter {gain} is of type {double}, setting it to {string} is not allowed."
/// );
/// assert!(store.set_parameter(Parameter::new("gain", 3.5)).successful);
/// assert_eq!(store.get_parameter("gain").unwrap().value, ParameterValue::Double(3.5));
/// ```
#[derive(Clone)]
pub struct ParameterStore {
    shared: Arc<Shared>,
}

impl fmt::Debug for ParameterStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParameterStore")
            .field("node", &self.shared.node)
            .field("allow_undeclared", &self.shared.allow_undeclared)
            .finish_non_exhaustive()
    }
}

/// Builds a [`ParameterStore`]: the node options of rclcpp that are about parameters.
#[must_use = "a builder does nothing until `build`"]
pub struct ParameterStoreBuilder {
    node: String,
    allow_undeclared: bool,
    auto_declare: bool,
    overrides: BTreeMap<String, ParameterValue>,
    events: Option<Box<EventSink>>,
}

impl fmt::Debug for ParameterStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParameterStoreBuilder")
            .field("node", &self.node)
            .field("overrides", &self.overrides)
            .finish_non_exhaustive()
    }
}

impl ParameterStoreBuilder {
    /// `allow_undeclared_parameters`: a set of an undeclared parameter declares it
    /// (dynamically typed), and gets of one return "not set" instead of failing.
    pub fn allow_undeclared_parameters(mut self, allow: bool) -> Self {
        self.allow_undeclared = allow;
        self
    }

    /// `automatically_declare_parameters_from_overrides`: every override is declared when the
    /// store is built, dynamically typed.
    pub fn automatically_declare_parameters_from_overrides(mut self, declare: bool) -> Self {
        self.auto_declare = declare;
        self
    }

    /// The initial values that declarations take instead of their defaults: the node's
    /// overrides, e.g. [`resolve_overrides`](crate::params::resolve_overrides)' result.
    /// Replaces those given before.
    pub fn overrides(mut self, overrides: BTreeMap<String, ParameterValue>) -> Self {
        self.overrides = overrides;
        self
    }

    /// Adds one override (rclcpp's `NodeOptions::parameter_overrides`), replacing one of the
    /// same name.
    pub fn override_value(
        mut self,
        name: impl Into<String>,
        value: impl Into<ParameterValue>,
    ) -> Self {
        self.overrides.insert(name.into(), value.into());
        self
    }

    /// Called after every successful change that rclcpp publishes on `/parameter_events`
    /// (declarations and sets, not undeclarations), on the changing thread, in the order of
    /// the changes and outside the store's locks: the node publishes the event from here.
    pub fn on_event(mut self, sink: impl Fn(&ParameterEvent) + Send + Sync + 'static) -> Self {
        self.events = Some(Box::new(sink));
        self
    }

    /// The store, with the overrides declared if asked. Fails only for an override with an
    /// empty name that is to be declared.
    pub fn build(self) -> Result<ParameterStore, ParameterError> {
        let store = ParameterStore {
            shared: Arc::new(Shared {
                node: self.node,
                allow_undeclared: self.allow_undeclared,
                overrides: self.overrides,
                state: PiMutex::new(State {
                    params: BTreeMap::new(),
                    pre_set: Vec::new(),
                    on_set: Vec::new(),
                    post_set: Vec::new(),
                    watches: Vec::new(),
                    mutating: None,
                }),
                turn: PiMutex::new(()),
                events: self.events,
            }),
        };
        if self.auto_declare {
            store.declare_overrides()?;
        }
        Ok(store)
    }
}

/// The thread's turn to change the parameters; see [`Shared::turn`].
struct Turn<'a> {
    shared: &'a Shared,
    _turn: PiGuard<'a, ()>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.shared.state.lock().mutating = None;
    }
}

/// What a committed change tells those who follow the parameters.
struct Change {
    names: Vec<String>,
    event: Option<ParameterEvent>,
}

// rclcpp's `__are_doubles_equal`: equal within 100 ulps of their sum.
fn doubles_equal(x: f64, y: f64) -> bool {
    (x - y).abs() <= f64::EPSILON * (x + y).abs() * 100.0
}

fn range_reason(name: &str, range: &str) -> String {
    format!("Parameter {{{name}}} doesn't comply with {range} range.")
}

/// rclcpp's `__check_parameter_value_in_range`.
fn check_range(descriptor: &ParameterDescriptor, value: &ParameterValue) -> SetParametersResult {
    if let (Some(range), ParameterValue::Integer(v)) = (&descriptor.integer_range, value) {
        let v = *v;
        if v == range.from_value || v == range.to_value {
            return SetParametersResult::ok();
        }
        if v < range.from_value || v > range.to_value {
            return SetParametersResult::refused(range_reason(&descriptor.name, "integer"));
        }
        // C++'s int64 - int64, then % uint64: the difference is taken as unsigned.
        if range.step == 0 || (v.wrapping_sub(range.from_value) as u64) % range.step == 0 {
            return SetParametersResult::ok();
        }
        return SetParametersResult::refused(range_reason(&descriptor.name, "integer"));
    }
    if let (Some(range), ParameterValue::Double(v)) = (&descriptor.floating_point_range, value) {
        let v = *v;
        if doubles_equal(v, range.from_value) || doubles_equal(v, range.to_value) {
            return SetParametersResult::ok();
        }
        if v < range.from_value || v > range.to_value {
            return SetParametersResult::refused(range_reason(&descriptor.name, "floating point"));
        }
        if range.step == 0.0 {
            return SetParametersResult::ok();
        }
        let rounded = ((v - range.from_value) / range.step).round();
        if doubles_equal(v, range.from_value + rounded * range.step) {
            return SetParametersResult::ok();
        }
        return SetParametersResult::refused(range_reason(&descriptor.name, "floating point"));
    }
    SetParametersResult::ok()
}

/// rclcpp's `format_type_reason`. `declare` tells type errors from others by its start.
fn type_reason(name: &str, old: ParameterType, new: ParameterType) -> String {
    format!(
        "Wrong parameter type, parameter {{{name}}} is of type {{{old}}}, setting it to {{{new}}} is not allowed."
    )
}

const TYPE_REASON_START: &str = "Wrong parameter type";

/// rclcpp's `__check_parameters`: types and ranges against the descriptors of `infos`.
fn check_parameters(
    infos: &BTreeMap<String, Info>,
    parameters: &[Parameter],
    allow_undeclared: bool,
) -> SetParametersResult {
    let mut result = SetParametersResult::ok();
    for parameter in parameters {
        let mut descriptor = match infos.get(&parameter.name) {
            Some(info) => info.descriptor.clone(),
            // Implicitly declared parameters are dynamically typed.
            None if allow_undeclared => ParameterDescriptor::dynamic(),
            None => ParameterDescriptor::default(),
        };
        if descriptor.name.is_empty() {
            descriptor.name = parameter.name.clone();
        }
        let new_type = parameter.kind();
        if !descriptor.dynamic_typing && descriptor.kind != new_type {
            return SetParametersResult::refused(type_reason(
                &parameter.name,
                descriptor.kind,
                new_type,
            ));
        }
        result = check_range(&descriptor, &parameter.value);
        if !result.successful {
            return result;
        }
    }
    result
}

/// rclcpp's commit step of `__set_parameters_atomically_common`.
fn commit(infos: &mut BTreeMap<String, Info>, parameters: &[Parameter]) {
    for parameter in parameters {
        let info = infos.entry(parameter.name.clone()).or_default();
        info.descriptor.name = parameter.name.clone();
        info.descriptor.kind = parameter.kind();
        info.assign(parameter.value.clone());
    }
}

fn live<T: ?Sized>(callbacks: &mut Vec<Weak<T>>) -> Vec<Arc<T>> {
    callbacks.retain(|weak| weak.strong_count() > 0);
    callbacks.iter().filter_map(Weak::upgrade).collect()
}

impl ParameterStore {
    /// A builder for the parameters of the node of fully qualified name `node`
    /// (`"/namespace/name"`), which events name.
    pub fn builder(node: impl Into<String>) -> ParameterStoreBuilder {
        ParameterStoreBuilder {
            node: node.into(),
            allow_undeclared: false,
            auto_declare: false,
            overrides: BTreeMap::new(),
            events: None,
        }
    }

    /// The node's fully qualified name.
    pub fn node(&self) -> &str {
        &self.shared.node
    }

    /// The overrides declarations take their initial values from.
    pub fn overrides(&self) -> &BTreeMap<String, ParameterValue> {
        &self.shared.overrides
    }

    /// Whether sets and gets of undeclared parameters are allowed.
    pub fn allows_undeclared_parameters(&self) -> bool {
        self.shared.allow_undeclared
    }

    fn state(&self) -> PiGuard<'_, State> {
        self.shared.state.lock()
    }

    /// Takes the turn to change the parameters, refusing a change from inside a callback.
    fn turn(&self) -> Result<Turn<'_>, ParameterError> {
        let me = thread::current().id();
        if self.state().mutating == Some(me) {
            return Err(ParameterError::ModifiedInCallback);
        }
        let turn = self.shared.turn.lock();
        self.state().mutating = Some(me);
        Ok(Turn {
            shared: &self.shared,
            _turn: turn,
        })
    }

    /// Tells the event sink and the watches of a committed change; the turn is still held,
    /// so they hear of changes in the order they were made.
    fn announce(&self, change: Change) {
        if let (Some(event), Some(sink)) = (&change.event, &self.shared.events) {
            sink(event);
        }
        let watches = live(&mut self.state().watches);
        for watch in watches {
            watch.hear(&change.names);
        }
    }

    /// Declares every override not declared yet, dynamically typed, as rclcpp's
    /// `automatically_declare_parameters_from_overrides`.
    pub fn declare_overrides(&self) -> Result<(), ParameterError> {
        for (name, value) in &self.shared.overrides {
            if !self.has_parameter(name) {
                self.declare_parameter(name, value.clone(), ParameterDescriptor::dynamic(), true)?;
            }
        }
        Ok(())
    }

    /// Declares `name` with a default value, as rclcpp's `declare_parameter(name,
    /// default_value, descriptor, ignore_override)`, and returns its initial value: the
    /// override of `name` if there is one and `ignore_override` is false, else the default.
    ///
    /// Unless `descriptor.dynamic_typing`, the parameter takes the default's type for good,
    /// and a default "not set" is refused. The initial value goes through the descriptor's
    /// checks and the on-set callbacks (not the pre-set ones), then the post-set callbacks,
    /// and is announced as a new parameter; with no initial value at all, the parameter is
    /// declared without one and no callback is called.
    pub fn declare_parameter(
        &self,
        name: &str,
        default_value: impl Into<ParameterValue>,
        descriptor: ParameterDescriptor,
        ignore_override: bool,
    ) -> Result<ParameterValue, ParameterError> {
        let turn = self.turn()?;
        let default_value = default_value.into();
        self.declare_helper(
            &turn,
            name,
            ParameterType::NotSet,
            default_value,
            descriptor,
            ignore_override,
        )
    }

    /// Declares a statically typed parameter with no default, as rclcpp's
    /// `declare_parameter(name, type, descriptor, ignore_override)`: its initial value is its
    /// override, which must be of `kind`; without one it is declared uninitialized, and
    /// getting it fails until it is set.
    pub fn declare_typed(
        &self,
        name: &str,
        kind: ParameterType,
        descriptor: ParameterDescriptor,
        ignore_override: bool,
    ) -> Result<ParameterValue, ParameterError> {
        let turn = self.turn()?;
        if kind == ParameterType::NotSet {
            return Err(ParameterError::InvalidArgument(
                "declare_parameter(): the provided parameter type cannot be rclcpp::PARAMETER_NOT_SET"
                    .into(),
            ));
        }
        if descriptor.dynamic_typing {
            // rclcpp's text, its two literals joined without a space.
            return Err(ParameterError::InvalidArgument(
                "declare_parameter(): cannot declare parameter of specific type and pass \
                 descriptorwith `dynamic_typing=true`"
                    .into(),
            ));
        }
        self.declare_helper(
            &turn,
            name,
            kind,
            ParameterValue::NotSet,
            descriptor,
            ignore_override,
        )
    }

    /// Declares `name` with a typed default and the default descriptor, as rclcpp's
    /// `declare_parameter<T>(name, default_value)`, and returns its initial value.
    pub fn declare<T: ParameterData>(
        &self,
        name: &str,
        default_value: T,
    ) -> Result<T, ParameterError> {
        let value = self.declare_parameter(
            name,
            default_value.into_value(),
            ParameterDescriptor::default(),
            false,
        )?;
        T::from_value(&value).ok_or_else(|| ParameterError::InvalidType {
            name: name.to_owned(),
            message: format!("expected [{}] got [{}]", T::TYPE, value.kind()),
        })
    }

    /// Declares `name` of type `T` with no default, as rclcpp's `declare_parameter<T>(name)`:
    /// its value must come from an override, else
    /// [`UninitializedStaticallyTyped`](ParameterError::UninitializedStaticallyTyped) (and the
    /// parameter stays declared, uninitialized, as in rclcpp).
    pub fn declare_required<T: ParameterData>(&self, name: &str) -> Result<T, ParameterError> {
        let value = self.declare_typed(name, T::TYPE, ParameterDescriptor::default(), false)?;
        T::from_value(&value)
            .ok_or_else(|| ParameterError::UninitializedStaticallyTyped(name.to_owned()))
    }

    /// rclcpp's `declare_parameter_helper`, the turn held.
    fn declare_helper(
        &self,
        _turn: &Turn<'_>,
        name: &str,
        mut kind: ParameterType,
        default_value: ParameterValue,
        mut descriptor: ParameterDescriptor,
        ignore_override: bool,
    ) -> Result<ParameterValue, ParameterError> {
        if name.is_empty() {
            return Err(ParameterError::InvalidParameters(
                "parameter name must not be empty".into(),
            ));
        }
        if self.state().params.contains_key(name) {
            return Err(ParameterError::AlreadyDeclared(format!(
                "parameter '{name}' has already been declared"
            )));
        }
        if !descriptor.dynamic_typing {
            if kind == ParameterType::NotSet {
                kind = default_value.kind();
            }
            if kind == ParameterType::NotSet {
                return Err(ParameterError::InvalidType {
                    name: name.to_owned(),
                    message:
                        "cannot declare a statically typed parameter with an uninitialized value"
                            .into(),
                });
            }
            descriptor.kind = kind;
        }
        let mut event = ParameterEvent {
            node: self.shared.node.clone(),
            ..ParameterEvent::default()
        };
        let info = self
            .declare_common(
                name,
                default_value,
                descriptor,
                ignore_override,
                true,
                Some(&mut event),
            )
            .map_err(|result| {
                if result.reason.starts_with(TYPE_REASON_START) {
                    ParameterError::InvalidType {
                        name: name.to_owned(),
                        message: result.reason,
                    }
                } else {
                    ParameterError::InvalidValue(format!(
                        "parameter '{name}' could not be set: {}",
                        result.reason
                    ))
                }
            })?;
        let value = info.value.clone();
        let has_value = info.value.is_set();
        self.state().params.insert(name.to_owned(), info);
        if has_value {
            // Post-set callbacks see the declared value (rclcpp calls them just before it
            // stores it).
            let post_set = live(&mut self.state().post_set);
            let set = [Parameter::new(name, value.clone())];
            for callback in post_set {
                callback(&set);
            }
        }
        self.announce(Change {
            names: vec![name.to_owned()],
            event: Some(event),
        });
        Ok(value)
    }

    /// rclcpp's `__declare_parameter_common`: the parameter's info once its initial value is
    /// checked (by the on-set callbacks if `callbacks`), or the refusal. Stores nothing.
    fn declare_common(
        &self,
        name: &str,
        default_value: ParameterValue,
        descriptor: ParameterDescriptor,
        ignore_override: bool,
        callbacks: bool,
        event: Option<&mut ParameterEvent>,
    ) -> Result<Info, SetParametersResult> {
        let initial = match self.shared.overrides.get(name) {
            Some(value) if !ignore_override => value.clone(),
            _ => default_value,
        };
        let mut infos = BTreeMap::from([(
            name.to_owned(),
            Info {
                descriptor,
                ..Info::default()
            },
        )]);
        if !initial.is_set() {
            let mut info = infos.remove(name).unwrap_or_default();
            info.descriptor.name = name.to_owned();
            if info.descriptor.dynamic_typing {
                info.descriptor.kind = ParameterType::NotSet;
            }
            return Ok(info);
        }
        let set = [Parameter::new(name, initial)];
        let result = check_parameters(&infos, &set, false);
        if !result.successful {
            return Err(result);
        }
        if callbacks {
            let result = self.call_on_set(&set);
            if !result.successful {
                return Err(result);
            }
        }
        commit(&mut infos, &set);
        if let Some(event) = event {
            event.new_parameters.extend(set.iter().cloned());
        }
        Ok(infos.remove(name).unwrap_or_default())
    }

    /// The on-set callbacks, last registered first, up to the first refusal.
    fn call_on_set(&self, parameters: &[Parameter]) -> SetParametersResult {
        let on_set = live(&mut self.state().on_set);
        for callback in on_set {
            let result = callback(parameters);
            if !result.successful {
                return result;
            }
        }
        SetParametersResult::ok()
    }

    /// Undeclares `name`, as rclcpp's `undeclare_parameter`: only a dynamically typed,
    /// writable parameter may be. Publishes no event, as rclcpp.
    pub fn undeclare_parameter(&self, name: &str) -> Result<(), ParameterError> {
        let _turn = self.turn()?;
        {
            let mut state = self.state();
            let Some(info) = state.params.get(name) else {
                return Err(ParameterError::NotDeclared(format!(
                    "cannot undeclare parameter '{name}' which has not yet been declared"
                )));
            };
            if info.descriptor.read_only {
                return Err(ParameterError::Immutable(format!(
                    "cannot undeclare parameter '{name}' because it is read-only"
                )));
            }
            if !info.descriptor.dynamic_typing {
                return Err(ParameterError::InvalidType {
                    name: name.to_owned(),
                    message: "cannot undeclare a statically typed parameter".into(),
                });
            }
            if let Some(info) = state.params.remove(name) {
                if let Some(slot) = info.slot {
                    slot.retire();
                }
            }
        }
        self.announce(Change {
            names: vec![name.to_owned()],
            event: None,
        });
        Ok(())
    }

    /// True if `name` is declared.
    pub fn has_parameter(&self, name: &str) -> bool {
        self.state().params.contains_key(name)
    }

    /// Sets each parameter on its own, as rclcpp's `set_parameters`: one result each. An
    /// undeclared parameter (when not allowed) or an empty name stops there with the error,
    /// the parameters before it set.
    pub fn set_parameters(
        &self,
        parameters: &[Parameter],
    ) -> Result<Vec<SetParametersResult>, ParameterError> {
        parameters
            .iter()
            .map(|p| self.set_parameters_atomically(std::slice::from_ref(p)))
            .collect()
    }

    /// Sets one parameter, as rclcpp's `Node::set_parameter`: the result, with an undeclared
    /// parameter's or an empty name's error as its reason.
    pub fn set_parameter(&self, parameter: Parameter) -> SetParametersResult {
        self.set_parameters_atomically(&[parameter])
            .unwrap_or_else(|error| SetParametersResult::refused(error.to_string()))
    }

    /// Sets all the parameters or none, as rclcpp's `set_parameters_atomically`.
    ///
    /// The pre-set callbacks may change the list first; then each parameter must be declared
    /// (else [`NotDeclared`](ParameterError::NotDeclared), unless undeclared parameters are
    /// allowed: then it is declared, dynamically typed) and writable, of its declared type
    /// (unless dynamically typed) and in range, and the on-set callbacks must accept the
    /// whole list. A parameter set to "not set" is undeclared if dynamically typed. Only then
    /// is anything changed; the post-set callbacks follow, and the event.
    pub fn set_parameters_atomically(
        &self,
        parameters: &[Parameter],
    ) -> Result<SetParametersResult, ParameterError> {
        let _turn = self.turn()?;
        let mut parameters = parameters.to_vec();
        let pre_set = live(&mut self.state().pre_set);
        for callback in pre_set {
            callback(&mut parameters);
        }
        if parameters.is_empty() {
            return Ok(SetParametersResult::refused(
                "parameter list cannot be empty, this might be due to \
                 pre_set_parameters_callback modifying the original parameters list.",
            ));
        }
        let allow_undeclared = self.shared.allow_undeclared;
        let mut to_declare = Vec::new();
        {
            let state = self.state();
            for parameter in &parameters {
                let name = &parameter.name;
                if name.is_empty() {
                    return Err(ParameterError::InvalidParameters(
                        "parameter name must not be empty".into(),
                    ));
                }
                match state.params.get(name) {
                    None if allow_undeclared => to_declare.push(parameter.clone()),
                    None => {
                        return Err(ParameterError::NotDeclared(format!(
                            "parameter '{name}' cannot be set because it was not declared"
                        )));
                    }
                    Some(info) if info.descriptor.read_only => {
                        return Ok(SetParametersResult::refused(format!(
                            "parameter '{name}' cannot be set because it is read-only"
                        )));
                    }
                    Some(_) => {}
                }
            }
        }
        // Implicit declarations, staged so that a refusal changes nothing; their initial
        // values are what is being set (overrides ignored), checked without callbacks, which
        // see them below with the rest.
        let mut event = ParameterEvent {
            node: self.shared.node.clone(),
            ..ParameterEvent::default()
        };
        let mut staged: BTreeMap<String, Info> = BTreeMap::new();
        for parameter in &to_declare {
            match self.declare_common(
                &parameter.name,
                parameter.value.clone(),
                ParameterDescriptor::dynamic(),
                true,
                false,
                Some(&mut event),
            ) {
                Ok(info) => {
                    staged.insert(parameter.name.clone(), info);
                }
                Err(result) => return Ok(result),
            }
        }
        // As rclcpp: where a staged declaration's value differs from the first parameter of
        // its name (a name given twice), that parameter takes the staged value.
        let first = |list: &[Parameter], name: &str| list.iter().position(|p| p.name == name);
        if staged.iter().any(|(name, info)| {
            first(&parameters, name).is_some_and(|i| parameters[i].value != info.value)
        }) {
            for (name, info) in &staged {
                if let Some(i) = first(&parameters, name) {
                    parameters[i] = Parameter::new(name.clone(), info.value.clone());
                }
            }
        }
        let mut to_undeclare: Vec<String> = Vec::new();
        {
            let state = self.state();
            for parameter in parameters.iter().filter(|p| !p.value.is_set()) {
                if let Some(info) = state.params.get(&parameter.name) {
                    if info.value.is_set() {
                        if !info.descriptor.dynamic_typing {
                            return Ok(SetParametersResult::refused(
                                "cannot undeclare a statically typed parameter",
                            ));
                        }
                        to_undeclare.push(parameter.name.clone());
                    }
                }
            }
            let result = check_parameters(&state.params, &parameters, allow_undeclared);
            if !result.successful {
                return Ok(result);
            }
        }
        let result = self.call_on_set(&parameters);
        if !result.successful {
            return Ok(result);
        }
        let mut names: Vec<String> = Vec::new();
        let post_set = {
            let mut state = self.state();
            commit(&mut state.params, &parameters);
            for (name, info) in staged.iter() {
                // Keeps the slot a handle may not have yet: there is none for a new one.
                if let Some(entry) = state.params.get_mut(name) {
                    entry.descriptor = info.descriptor.clone();
                }
            }
            for name in &to_undeclare {
                if let Some(info) = state.params.remove(name) {
                    // The value the set gave it: "not set", as rclcpp reports it.
                    event
                        .deleted_parameters
                        .push(Parameter::new(name.clone(), info.value));
                    if let Some(slot) = info.slot {
                        slot.retire();
                    }
                }
            }
            for parameter in &parameters {
                if !staged.contains_key(&parameter.name) && !to_undeclare.contains(&parameter.name)
                {
                    event.changed_parameters.push(parameter.clone());
                }
                if !names.contains(&parameter.name) {
                    names.push(parameter.name.clone());
                }
            }
            live(&mut state.post_set)
        };
        for callback in post_set {
            callback(&parameters);
        }
        self.announce(Change {
            names,
            event: Some(event),
        });
        Ok(result)
    }

    /// `name`'s parameter, as rclcpp's `get_parameter(name)`: a declared parameter's value
    /// ("not set" only if dynamically typed, else
    /// [`Uninitialized`](ParameterError::Uninitialized)); an undeclared one's "not set" if
    /// undeclared parameters are allowed, else [`NotDeclared`](ParameterError::NotDeclared).
    pub fn get_parameter(&self, name: &str) -> Result<Parameter, ParameterError> {
        self.get_locked(&self.state(), name)
    }

    fn get_locked(&self, state: &State, name: &str) -> Result<Parameter, ParameterError> {
        match state.params.get(name) {
            Some(info) if info.value.is_set() || info.descriptor.dynamic_typing => {
                Ok(Parameter::new(name, info.value.clone()))
            }
            Some(_) => Err(ParameterError::Uninitialized(name.to_owned())),
            None if self.shared.allow_undeclared => Ok(Parameter::unset(name)),
            None => Err(ParameterError::NotDeclared(name.to_owned())),
        }
    }

    /// `name`'s parameter if it is declared and has a value, as rclcpp's
    /// `get_parameter(name, parameter)`.
    pub fn get_parameter_if_set(&self, name: &str) -> Option<Parameter> {
        let state = self.state();
        let info = state.params.get(name).filter(|i| i.value.is_set())?;
        Some(Parameter::new(name, info.value.clone()))
    }

    /// `name`'s value as `T`, or `alternative` if it is not declared, has no value or is of
    /// another type (rclcpp's `get_parameter_or`).
    pub fn get_or<T: ParameterData>(&self, name: &str, alternative: T) -> T {
        self.get_parameter_if_set(name)
            .and_then(|p| T::from_value(&p.value))
            .unwrap_or(alternative)
    }

    /// Each name's parameter, as [`get_parameter`](Self::get_parameter); the first error
    /// fails all.
    pub fn get_parameters(
        &self,
        names: &[impl AsRef<str>],
    ) -> Result<Vec<Parameter>, ParameterError> {
        // One look at the parameters, as rclcpp's under its mutex: an atomic set is seen
        // whole or not at all.
        let state = self.state();
        names
            .iter()
            .map(|n| self.get_locked(&state, n.as_ref()))
            .collect()
    }

    /// The parameters under `prefix` (`"camera"` finds `"camera.gain"`), keyed by their names
    /// without it, as rclcpp's `get_parameters_by_prefix`; an empty prefix finds all.
    pub fn get_parameters_by_prefix(&self, prefix: &str) -> BTreeMap<String, Parameter> {
        let with_dot = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}.")
        };
        let state = self.state();
        state
            .params
            .iter()
            .filter(|(name, _)| name.starts_with(&with_dot) && name.len() > with_dot.len())
            .map(|(name, info)| {
                let parameter = Parameter::new(info.descriptor.name.clone(), info.value.clone());
                (name[with_dot.len()..].to_owned(), parameter)
            })
            .collect()
    }

    /// Each name's descriptor, as rclcpp's `describe_parameters`: an undeclared one's is empty
    /// but for its name if undeclared parameters are allowed, else the call fails.
    pub fn describe_parameters(
        &self,
        names: &[impl AsRef<str>],
    ) -> Result<Vec<ParameterDescriptor>, ParameterError> {
        let state = self.state();
        names
            .iter()
            .map(|name| {
                let name = name.as_ref();
                match state.params.get(name) {
                    Some(info) => Ok(info.descriptor.clone()),
                    None if self.shared.allow_undeclared => Ok(ParameterDescriptor {
                        name: name.to_owned(),
                        ..ParameterDescriptor::default()
                    }),
                    None => Err(ParameterError::NotDeclared(name.to_owned())),
                }
            })
            .collect()
    }

    /// `name`'s descriptor (see [`describe_parameters`](Self::describe_parameters)).
    pub fn describe_parameter(&self, name: &str) -> Result<ParameterDescriptor, ParameterError> {
        let mut all = self.describe_parameters(&[name])?;
        Ok(all.pop().unwrap_or_default())
    }

    /// The type of each name's value, as rclcpp's `get_parameter_types` ("not set" for an
    /// undeclared one if allowed, else the call fails).
    pub fn get_parameter_types(
        &self,
        names: &[impl AsRef<str>],
    ) -> Result<Vec<ParameterType>, ParameterError> {
        let state = self.state();
        names
            .iter()
            .map(|name| {
                let name = name.as_ref();
                match state.params.get(name) {
                    Some(info) => Ok(info.value.kind()),
                    None if self.shared.allow_undeclared => Ok(ParameterType::NotSet),
                    None => Err(ParameterError::NotDeclared(name.to_owned())),
                }
            })
            .collect()
    }

    /// Lists parameter names, as the `ListParameters` service and rclcpp's
    /// `list_parameters`: with no prefix, the names with fewer than `depth` dots (all of them
    /// for [`DEPTH_RECURSIVE`]); with prefixes, each prefix itself and the names under it
    /// with fewer than `depth` dots after it.
    pub fn list_parameters(
        &self,
        prefixes: &[impl AsRef<str>],
        depth: u64,
    ) -> ListParametersResult {
        let under_depth = |s: &str| (s.matches('.').count() as u64) < depth;
        let recursive = prefixes.is_empty() && depth == DEPTH_RECURSIVE;
        let mut result = ListParametersResult::default();
        let state = self.state();
        for name in state.params.keys() {
            if !recursive {
                let get_all = prefixes.is_empty() && under_depth(name);
                let matches = |prefix: &str| {
                    if name == prefix {
                        return true;
                    }
                    match name.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) {
                        Some(rest) => depth == DEPTH_RECURSIVE || under_depth(rest),
                        None => false,
                    }
                };
                if !get_all && !prefixes.iter().any(|p| matches(p.as_ref())) {
                    continue;
                }
            }
            result.names.push(name.clone());
            if let Some(dot) = name.rfind('.') {
                let prefix = &name[..dot];
                if !result.prefixes.iter().any(|p| p == prefix) {
                    result.prefixes.push(prefix.to_owned());
                }
            }
        }
        result
    }

    fn add_callback<T: ?Sized>(
        &self,
        list: impl FnOnce(&mut State) -> &mut Vec<Weak<T>>,
        callback: Arc<T>,
        keep: Arc<dyn Any + Send + Sync>,
    ) -> Result<CallbackHandle, ParameterError> {
        let mut state = self.state();
        if state.mutating == Some(thread::current().id()) {
            return Err(ParameterError::ModifiedInCallback);
        }
        // The last registered runs first.
        list(&mut state).insert(0, Arc::downgrade(&callback));
        Ok(CallbackHandle { _callback: keep })
    }

    /// Adds a pre-set callback (Jazzy's `add_pre_set_parameters_callback`): called first by
    /// every set with the list, which it may change (e.g. add a parameter that follows
    /// another). Not called by declarations.
    pub fn add_pre_set_parameters_callback(
        &self,
        callback: impl Fn(&mut Vec<Parameter>) + Send + Sync + 'static,
    ) -> Result<CallbackHandle, ParameterError> {
        let callback: Arc<PreSet> = Arc::new(callback);
        let keep = Arc::new(callback.clone());
        self.add_callback(|s| &mut s.pre_set, callback, keep)
    }

    /// Adds an on-set callback (`add_on_set_parameters_callback`): it validates every set
    /// and declaration once the values passed the descriptors' checks, and refuses it by
    /// returning an unsuccessful result with its reason. It must not change anything.
    pub fn add_on_set_parameters_callback(
        &self,
        callback: impl Fn(&[Parameter]) -> SetParametersResult + Send + Sync + 'static,
    ) -> Result<CallbackHandle, ParameterError> {
        let callback: Arc<OnSet> = Arc::new(callback);
        let keep = Arc::new(callback.clone());
        self.add_callback(|s| &mut s.on_set, callback, keep)
    }

    /// Adds a post-set callback (`add_post_set_parameters_callback`): called with the
    /// parameters after every successful set and declaration with a value, to act on them.
    pub fn add_post_set_parameters_callback(
        &self,
        callback: impl Fn(&[Parameter]) + Send + Sync + 'static,
    ) -> Result<CallbackHandle, ParameterError> {
        let callback: Arc<PostSet> = Arc::new(callback);
        let keep = Arc::new(callback.clone());
        self.add_callback(|s| &mut s.post_set, callback, keep)
    }

    /// A typed handle on `name`, which must be declared with a value of type `T`: code in
    /// an executor reads it at the cost of an atomic load and a compare while it is unchanged
    /// (see [`ParameterHandle`]).
    pub fn handle<T: ParameterData>(
        &self,
        name: &str,
    ) -> Result<ParameterHandle<T>, ParameterError> {
        let mut state = self.state();
        let info = state
            .params
            .get_mut(name)
            .ok_or_else(|| ParameterError::NotDeclared(name.to_owned()))?;
        if !info.value.is_set() {
            return Err(ParameterError::Uninitialized(name.to_owned()));
        }
        let value = T::from_value(&info.value).ok_or_else(|| ParameterError::InvalidType {
            name: name.to_owned(),
            message: format!("expected [{}] got [{}]", T::TYPE, info.value.kind()),
        })?;
        let slot = info
            .slot
            .get_or_insert_with(|| Arc::new(Slot::new(&info.value)))
            .clone();
        Ok(ParameterHandle::new(name, slot, value))
    }

    /// A watch of every parameter: it tells whether any was declared, set or undeclared
    /// since it was last asked.
    pub fn watch(&self) -> ParameterWatch {
        self.watch_filtered(None)
    }

    /// A watch of the parameters named (exact names).
    pub fn watch_names(&self, names: &[impl AsRef<str>]) -> ParameterWatch {
        let names = names.iter().map(|n| n.as_ref().to_owned()).collect();
        self.watch_filtered(Some(names))
    }

    fn watch_filtered(&self, names: Option<Vec<String>>) -> ParameterWatch {
        let shared = Arc::new(WatchShared::new(names));
        let mut state = self.state();
        state.watches.retain(|w| w.strong_count() > 0);
        state.watches.push(Arc::downgrade(&shared));
        ParameterWatch::new(shared)
    }

    /// How many watches are alive (for tests of their bound).
    #[cfg(test)]
    fn watches(&self) -> usize {
        let mut state = self.state();
        live(&mut state.watches).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subscription::Listener;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Debug, Default)]
    struct Count(AtomicUsize);

    impl Listener for Count {
        fn on_sample(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_watch_is_a_trigger_input_that_fires_on_its_parameters_only() {
        let store = ParameterStore::builder("/n").build().unwrap();
        store.declare("gain", 1.0).unwrap();
        store.declare("other", 1).unwrap();
        let watch = store.watch_names(&["gain"]);
        let input = watch.input();
        let listener = Arc::new(Count::default());
        assert!(input.attach(listener.clone()).unwrap());
        assert!(
            !input.attach(listener.clone()).unwrap(),
            "one executor only"
        );
        assert!(input.is_attached());

        assert!(store.set_parameter(Parameter::new("other", 2)).successful);
        assert_eq!((input.arrivals(), input.unread()), (0, 0));
        assert_eq!(listener.0.load(Ordering::SeqCst), 0);

        assert!(store.set_parameter(Parameter::new("gain", 2.0)).successful);
        assert!(store.set_parameter(Parameter::new("gain", 3.0)).successful);
        assert_eq!((input.arrivals(), input.unread()), (2, 2));
        assert_eq!(listener.0.load(Ordering::SeqCst), 2);
        // A refused set is no change.
        assert!(!store.set_parameter(Parameter::new("gain", "x")).successful);
        assert_eq!(input.arrivals(), 2);

        assert!(watch.changed());
        assert_eq!(input.unread(), 0, "looking consumes the changes");
        assert!(!watch.changed());
        assert_eq!(input.dropped(), 0);
    }

    #[test]
    fn dropped_watches_are_forgotten() {
        let store = ParameterStore::builder("/n").build().unwrap();
        let kept = store.watch();
        for _ in 0..100 {
            drop(store.watch());
        }
        assert_eq!(store.watches(), 1);
        drop(kept);
        assert_eq!(store.watches(), 0);
    }

    #[test]
    fn doubles_are_equal_within_100_ulps_of_their_sum() {
        assert!(doubles_equal(1.0, 1.0 + 100.0 * f64::EPSILON));
        assert!(!doubles_equal(1.0, 1.0 + 300.0 * f64::EPSILON));
        assert!(doubles_equal(0.0, 0.0));
        assert!(
            !doubles_equal(0.0, 1e-300),
            "near zero the tolerance vanishes"
        );
    }
}
