//! From parsed packages to Rust source: one module per package, `msg`, `srv` and `action`
//! inside.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::flat::Layout;
use crate::parse::{self, ActionDef, BaseType, Container, Field, MessageDef, Primitive, Value};
use crate::type_hash::TypeDescriptions;
use crate::{GenerateError, Problem};

/// One package as read from its folder.
pub(crate) struct Package {
    pub(crate) name: String,
    pub(crate) messages: Vec<TypeFile>,
    services: Vec<TypeFile>,
    actions: Vec<TypeFile>,
}

/// A `.msg` (one definition), `.srv` (request and response) or `.action` (goal, result and
/// feedback) file.
pub(crate) struct TypeFile {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) defs: Vec<MessageDef>,
}

/// Reads and parses the `.msg`, `.srv` and `.action` files of the package in `dir`.
pub(crate) fn load_package(dir: &Path) -> Result<Package, GenerateError> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    if !parse::is_package_name(&name) {
        return Err(GenerateError::PackageName {
            path: dir.to_owned(),
            name,
        });
    }
    let read_dir = |path: &Path| GenerateError::Read {
        path: path.to_owned(),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "a package folder holds msg/*.msg, srv/*.srv and/or action/*.action",
        ),
    };
    if !["msg", "srv", "action"]
        .iter()
        .any(|d| dir.join(d).is_dir())
    {
        return Err(read_dir(dir));
    }
    let messages = load_files(&dir.join("msg"), "msg", |text| {
        parse::parse_message(text).map(|def| vec![def])
    })?;
    let services = load_files(&dir.join("srv"), "srv", |text| {
        parse::parse_service(text).map(|(request, response)| vec![request, response])
    })?;
    let actions = load_files(&dir.join("action"), "action", |text| {
        parse::parse_action(text).map(|a| vec![a.goal, a.result, a.feedback])
    })?;
    Ok(Package {
        name,
        messages,
        services,
        actions,
    })
}

impl Package {
    /// Adds the descriptions of this package's types to `types`, for their hashes.
    pub(crate) fn describe(&self, types: &mut TypeDescriptions) {
        for file in &self.messages {
            types.add_message(&self.name, &file.name, &file.defs[0]);
        }
        for file in &self.services {
            types.add_service(&self.name, &file.name, &file.defs[0], &file.defs[1]);
        }
        for file in &self.actions {
            let [goal, result, feedback] = &file.defs[..] else {
                unreachable!("an action has a goal, a result and a feedback")
            };
            types.add_action(&self.name, &file.name, goal, result, feedback);
        }
    }

    /// The full names of the types generated for this package, which carry a hash: each
    /// message, each service with its request and response, and each action with the types
    /// derived from it.
    pub(crate) fn type_names(&self) -> impl Iterator<Item = String> {
        let messages = (self.messages.iter()).map(|m| format!("{}/msg/{}", self.name, m.name));
        let services = self.services.iter().flat_map(|s| {
            let service = format!("{}/srv/{}", self.name, s.name);
            [
                format!("{service}_Request"),
                format!("{service}_Response"),
                service,
            ]
        });
        let actions = self.actions.iter().flat_map(|a| {
            let action = format!("{}/action/{}", self.name, a.name);
            let parts: Vec<String> = (ACTION_PARTS.iter())
                .map(|part| format!("{action}_{part}"))
                .collect();
            parts.into_iter().chain(std::iter::once(action))
        });
        messages.chain(services).chain(actions)
    }
}

/// The types rosidl derives from an action `X`, as the suffixes of `X_<suffix>`: its three
/// parts, its two services with their requests and responses, and its feedback message.
const ACTION_PARTS: [&str; 10] = [
    "Goal",
    "Result",
    "Feedback",
    "SendGoal",
    "SendGoal_Request",
    "SendGoal_Response",
    "GetResult",
    "GetResult_Request",
    "GetResult_Response",
    "FeedbackMessage",
];

type ParseFn = fn(&str) -> Result<Vec<MessageDef>, (usize, Problem)>;

fn load_files(dir: &Path, extension: &str, parse: ParseFn) -> Result<Vec<TypeFile>, GenerateError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let read_error = |path: &Path| {
        let path = path.to_owned();
        move |source| GenerateError::Read { path, source }
    };
    let mut paths = std::fs::read_dir(dir)
        .map_err(read_error(dir))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(read_error(dir))?;
    paths.retain(|p| p.extension().is_some_and(|e| e == extension));
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = parse::type_name_of(&path).unwrap_or_default().to_owned();
            if !parse::is_type_name(&name) {
                return Err(GenerateError::TypeName { path, name });
            }
            let text = std::fs::read_to_string(&path).map_err(read_error(&path))?;
            let defs = parse(&text).map_err(|(line, problem)| GenerateError::Invalid {
                path: path.clone(),
                line,
                problem,
            })?;
            Ok(TypeFile { name, path, defs })
        })
        .collect()
}

/// Checks that every message a field names exists: in its own package, another package
/// being generated, or a package declared external.
pub(crate) fn check_types(
    packages: &[Package],
    externs: &BTreeMap<String, String>,
) -> Result<(), GenerateError> {
    let known = |target: &str, name: &str| match packages.iter().find(|p| p.name == target) {
        Some(p) => p.messages.iter().any(|m| m.name == *name),
        None => externs.contains_key(target),
    };
    for package in packages {
        // The derived types of an action hold the goal id's and the stamp's types besides the
        // action's own parts.
        for action in &package.actions {
            for (_, def) in ActionDef::derived(&action.name) {
                for field in def.fields {
                    if let BaseType::Named {
                        package: Some(target),
                        name,
                    } = field.ty.base
                        && !known(&target, &name)
                    {
                        return Err(GenerateError::ActionDependency {
                            path: action.path.clone(),
                            type_name: format!("{target}/msg/{name}"),
                        });
                    }
                }
            }
        }
        let files = (package.messages.iter())
            .chain(&package.services)
            .chain(&package.actions);
        for file in files {
            for field in file.defs.iter().flat_map(|d| &d.fields) {
                let BaseType::Named {
                    package: target,
                    name,
                } = &field.ty.base
                else {
                    continue;
                };
                let target = target.as_deref().unwrap_or(&package.name);
                if !known(target, name) {
                    return Err(GenerateError::Invalid {
                        path: file.path.clone(),
                        line: field.line,
                        problem: Problem::UnknownType(format!("{target}/{name}")),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The Rust source of all `packages`, whose types' hashes are in `hashes` and the layouts of
/// those generated flat in `flat` (by full type name).
pub(crate) fn emit(
    packages: &[Package],
    externs: &BTreeMap<String, String>,
    hashes: &BTreeMap<String, String>,
    flat: &BTreeMap<String, Layout>,
) -> String {
    let generated: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let mut out = String::from(
        "// Generated by tacto-msggen from .msg/.srv/.action files: do not edit, edit those instead.\n",
    );
    for package in packages {
        let _ = writeln!(out, "\npub mod {} {{", package.name);
        let _ = writeln!(
            out,
            "    //! The ROS 2 interface package `{}`, generated from its interface files.",
            package.name
        );
        let scope = |kind, names: Vec<String>| Scope {
            package: &package.name,
            kind,
            local: names.into_iter().collect(),
            generated: &generated,
            externs,
            hashes,
            flat,
        };
        if !package.messages.is_empty() {
            let names = package.messages.iter().map(|m| m.name.clone()).collect();
            let scope = scope(Kind::Msg, names);
            let mut body = String::new();
            for file in &package.messages {
                let type_name = format!("{}/msg/{}", package.name, file.name);
                let summary = format!("`{type_name}`");
                scope.message(&mut body, &file.name, &type_name, &summary, &file.defs[0]);
            }
            let doc = format!("The messages of `{}`.", package.name);
            scope.module(&mut out, "msg", &doc, &body);
        }
        if !package.services.is_empty() {
            let names = package
                .services
                .iter()
                .flat_map(|s| {
                    [
                        s.name.clone(),
                        format!("{}_Request", s.name),
                        format!("{}_Response", s.name),
                    ]
                })
                .collect();
            let scope = scope(Kind::Srv, names);
            let mut body = String::new();
            for file in &package.services {
                scope.service(&mut body, file);
            }
            let doc = format!(
                "The services of `{}`: for each service `X`, the messages `X_Request` and \
                 `X_Response` and the marker type `X`, a `tacto::ServiceType`.",
                package.name
            );
            scope.module(&mut out, "srv", &doc, &body);
        }
        if !package.actions.is_empty() {
            let names = (package.actions.iter())
                .flat_map(|a| {
                    (ACTION_PARTS.iter().map(|part| format!("{}_{part}", a.name)))
                        .chain(std::iter::once(a.name.clone()))
                })
                .collect();
            let scope = scope(Kind::Action, names);
            let mut body = String::new();
            for file in &package.actions {
                scope.action(&mut body, file);
            }
            let doc = format!(
                "The actions of `{}`: for each action `X`, its parts `X_Goal`, `X_Result` and \
                 `X_Feedback`, the services `X_SendGoal` and `X_GetResult` (each a \
                 `tacto::ServiceType`, with its request and response), the message \
                 `X_FeedbackMessage`, and the marker type `X`, a `tacto::ActionType`.",
                package.name
            );
            scope.module(&mut out, "action", &doc, &body);
        }
        out.push_str("}\n");
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Msg,
    Srv,
    Action,
}

/// Where code is generated: names are written relative to it.
struct Scope<'a> {
    package: &'a str,
    kind: Kind,
    /// The type names this module defines, which shadow the prelude's.
    local: BTreeSet<String>,
    generated: &'a BTreeSet<&'a str>,
    externs: &'a BTreeMap<String, String>,
    hashes: &'a BTreeMap<String, String>,
    /// The layouts of the messages generated flat.
    flat: &'a BTreeMap<String, Layout>,
}

impl Scope<'_> {
    /// `String`, `Vec` or `Default`, unless a message of that name shadows it here.
    fn prelude(&self, name: &str) -> String {
        if !self.local.contains(name) {
            return name.to_owned();
        }
        match name {
            "String" => "::std::string::String".to_owned(),
            "Vec" => "::std::vec::Vec".to_owned(),
            _ => format!("::core::default::{name}"),
        }
    }

    fn module(&self, out: &mut String, name: &str, doc: &str, body: &str) {
        let _ = writeln!(out, "\n    pub mod {name} {{\n        //! {doc}");
        if body.contains("idl::") {
            out.push_str("\n        use ::tacto::idl;\n");
        }
        for line in body.lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "        {line}");
            }
        }
        out.push_str("    }\n");
    }

    /// Writes message `name`, with `summary` heading its docs.
    fn message(
        &self,
        out: &mut String,
        name: &str,
        type_name: &str,
        summary: &str,
        def: &MessageDef,
    ) {
        let placeholder;
        let fields: &[Field] = if def.fields.is_empty() {
            // IDL has no empty struct: ROS 2 gives every empty message this byte, on the wire.
            placeholder = [Field {
                name: "structure_needs_at_least_one_field".into(),
                ty: parse::FieldType {
                    base: BaseType::Primitive(Primitive::UInt8),
                    container: Container::Single,
                },
                default: None,
                declaration: "uint8 structure_needs_at_least_one_field".into(),
                comment: vec!["Always 0: IDL has no empty struct, so ROS 2 adds this byte.".into()],
                line: 0,
            }];
            &placeholder
        } else {
            &def.fields
        };
        out.push('\n');
        let flat = self.flat.get(type_name);
        let summary = match flat {
            Some(layout) => format!(
                "{summary}, flat (`tacto::Flat`: `#[repr(C)]` of size {}, read in place from \
                 shared memory)",
                layout.size
            ),
            None => summary.to_owned(),
        };
        doc(out, "", &summary, &def.comment);
        let flat = flat.is_some();
        let defaults: Vec<Option<String>> =
            fields.iter().map(|f| self.default_expr(f, flat)).collect();
        let derive_default = defaults.iter().all(Option::is_none);
        if name.contains('_') {
            out.push_str("#[allow(non_camel_case_types)] // ROS 2 names it so\n");
        }
        let default_derive = if derive_default { ", Default" } else { "" };
        if flat {
            // The macro derives serde's traits, implements `Message` and `Flat`, and refuses
            // at compile time what the generator should have refused already.
            let _ = writeln!(
                out,
                "#[::tacto::message({type_name:?}, hash = {:?}, flat)]\n\
                 #[derive(Debug, Clone, Copy, PartialEq{default_derive})]",
                self.hashes[type_name]
            );
        } else {
            let _ = writeln!(
                out,
                "#[derive(Debug, Clone, PartialEq{default_derive}, ::tacto::serde::Serialize, ::tacto::serde::Deserialize)]"
            );
            out.push_str("#[serde(crate = \"::tacto::serde\")]\n");
        }
        let _ = writeln!(out, "pub struct {name} {{");
        for field in fields {
            doc(
                out,
                "    ",
                &format!("`{}`", field.declaration),
                &field.comment,
            );
            if let Some(codec) = self.field_codec(&field.ty, flat) {
                let _ = writeln!(out, "    #[serde(with = \"{codec}\")]");
            }
            let _ = writeln!(
                out,
                "    pub {}: {},",
                rust_ident(&field.name),
                self.rust_type(&field.ty, flat)
            );
        }
        out.push_str("}\n");
        if !flat {
            let _ = writeln!(
                out,
                "\nimpl ::tacto::Message for {name} {{\n    const TYPE_NAME: &'static str = {type_name:?};\n    const TYPE_HASH: Option<&'static str> = Some({:?});\n}}",
                self.hashes[type_name]
            );
        }
        // Synchronization (`tacto::sync`) matches messages on a stamp: a `std_msgs/Header
        // header` field's, or a header's own; read by its fields, so that any
        // `builtin_interfaces/Time` will do.
        let has_header = fields.iter().any(|f| {
            f.name == "header"
                && f.ty.container == Container::Single
                && matches!(&f.ty.base, BaseType::Named { package, name } if name == "Header"
                    && package.as_deref().unwrap_or(self.package) == "std_msgs")
        });
        let stamp = match has_header {
            true => Some("self.header.stamp"),
            false => (type_name == "std_msgs/msg/Header").then_some("self.stamp"),
        };
        if let Some(stamp) = stamp {
            let _ = writeln!(
                out,
                "\nimpl ::tacto::Stamped for {name} {{\n    fn stamp(&self) -> ::tacto::Time {{\n        \
                 ::tacto::Time::from_sec_nanosec({stamp}.sec, {stamp}.nanosec)\n    }}\n}}"
            );
        }
        if !derive_default {
            let default = self.prelude("Default");
            let _ = writeln!(
                out,
                "\nimpl {default} for {name} {{\n    fn default() -> Self {{\n        Self {{"
            );
            for (field, value) in fields.iter().zip(&defaults) {
                let value = value
                    .clone()
                    .unwrap_or_else(|| format!("{default}::default()"));
                let _ = writeln!(out, "            {}: {value},", rust_ident(&field.name));
            }
            out.push_str("        }\n    }\n}\n");
        }
        if !def.constants.is_empty() {
            let _ = writeln!(out, "\nimpl {name} {{");
            for (i, constant) in def.constants.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                doc(
                    out,
                    "    ",
                    &format!("`{}`", constant.declaration),
                    &constant.comment,
                );
                let (ty, value) = match &constant.ty {
                    BaseType::Primitive(p) => (p.rust(), literal(*p, &constant.value)),
                    _ => ("&'static str", format!("{:?}", str_value(&constant.value))),
                };
                let _ = writeln!(out, "    pub const {}: {ty} = {value};", constant.name);
            }
            out.push_str("}\n");
        }
    }

    fn service(&self, out: &mut String, file: &TypeFile) {
        let [request, response] = &file.defs[..] else {
            unreachable!("a service has a request and a response")
        };
        let type_name = format!("{}/srv/{}", self.package, file.name);
        let summary =
            format!("`{type_name}`: the service, naming its request and response messages.");
        self.service_types(out, &file.name, &type_name, &summary, request, response);
    }

    /// Writes service `name` (ROS 2 name `type_name`): its request and response messages and
    /// its marker type, with `summary` heading the marker's docs.
    fn service_types(
        &self,
        out: &mut String,
        name: &str,
        type_name: &str,
        summary: &str,
        request: &MessageDef,
        response: &MessageDef,
    ) {
        for (half, def) in [("Request", request), ("Response", response)] {
            let summary = format!(
                "`{type_name}_{half}`: the {} of [`{name}`].",
                half.to_lowercase()
            );
            let struct_name = format!("{name}_{half}");
            let half_type_name = format!("{type_name}_{half}");
            self.message(out, &struct_name, &half_type_name, &summary, def);
        }
        out.push('\n');
        doc(out, "", summary, &[]);
        if name.contains('_') {
            out.push_str("#[allow(non_camel_case_types)] // ROS 2 names it so\n");
        }
        let _ = writeln!(out, "#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]");
        let _ = writeln!(out, "pub struct {name};\n");
        let _ = writeln!(
            out,
            "impl ::tacto::ServiceType for {name} {{\n    const TYPE_NAME: &'static str = {type_name:?};\n    const TYPE_HASH: Option<&'static str> = Some({:?});\n    type Request = {name}_Request;\n    type Response = {name}_Response;\n}}",
            self.hashes[type_name]
        );
    }

    /// Writes the types of action `file`, as rosidl_parser's `Action` derives them: the goal,
    /// result and feedback messages, the `SendGoal` and `GetResult` services, the feedback
    /// message that carries a goal's id, and the marker type that names them all.
    fn action(&self, out: &mut String, file: &TypeFile) {
        let name = &file.name;
        let [goal, result, feedback] = &file.defs[..] else {
            unreachable!("an action has a goal, a result and a feedback")
        };
        let type_name = format!("{}/action/{name}", self.package);
        for (part, def, what) in [
            ("Goal", goal, "what a client asks for"),
            ("Result", result, "what the server answers when a goal ends"),
            (
                "Feedback",
                feedback,
                "what the server sends while it works on a goal",
            ),
        ] {
            let summary = format!("`{type_name}_{part}`: {what}, in [`{name}`].");
            let part_type_name = format!("{type_name}_{part}");
            self.message(
                out,
                &format!("{name}_{part}"),
                &part_type_name,
                &summary,
                def,
            );
        }
        let [
            (_, send_goal_request),
            (_, send_goal_response),
            (_, get_result_request),
            (_, get_result_response),
            (feedback_suffix, feedback_message),
        ] = ActionDef::derived(name);
        self.service_types(
            out,
            &format!("{name}_SendGoal"),
            &format!("{type_name}_SendGoal"),
            &format!(
                "`{type_name}_SendGoal`: the service a client sends a goal of [`{name}`] with."
            ),
            &send_goal_request,
            &send_goal_response,
        );
        self.service_types(
            out,
            &format!("{name}_GetResult"),
            &format!("{type_name}_GetResult"),
            &format!(
                "`{type_name}_GetResult`: the service a client asks for the result of a goal \
                 of [`{name}`] with."
            ),
            &get_result_request,
            &get_result_response,
        );
        let feedback_type_name = format!("{type_name}_{feedback_suffix}");
        self.message(
            out,
            &format!("{name}_{feedback_suffix}"),
            &feedback_type_name,
            &format!(
                "`{feedback_type_name}`: a feedback of [`{name}`] with the id of its goal, as \
                 the server publishes it."
            ),
            &feedback_message,
        );
        out.push('\n');
        doc(
            out,
            "",
            &format!("`{type_name}`: the action, naming the types derived from it."),
            &[],
        );
        let _ = writeln!(out, "#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]");
        let _ = writeln!(out, "pub struct {name};\n");
        let _ = writeln!(
            out,
            "impl ::tacto::ActionType for {name} {{\n    const TYPE_NAME: &'static str = {type_name:?};\n    const TYPE_HASH: Option<&'static str> = Some({:?});",
            self.hashes[&type_name]
        );
        for (assoc, part) in [
            ("Goal", "Goal"),
            ("Result", "Result"),
            ("Feedback", "Feedback"),
            ("SendGoal", "SendGoal"),
            ("GetResult", "GetResult"),
            ("FeedbackMessage", "FeedbackMessage"),
        ] {
            let _ = writeln!(out, "    type {assoc} = {name}_{part};");
        }
        out.push_str("}\n");
    }

    /// The Rust type of one element; in a `flat` message, a bounded string is a `FlatString`.
    fn element_type(&self, base: &BaseType, flat: bool) -> String {
        match base {
            BaseType::Primitive(p) => p.rust().to_owned(),
            BaseType::String(Some(n)) if flat => format!("::tacto::FlatString<{n}>"),
            BaseType::String(_) | BaseType::WString(_) => self.prelude("String"),
            BaseType::Named { package, name } => {
                let target = package.as_deref().unwrap_or(self.package);
                if target == self.package {
                    let in_action =
                        parse::nested_type_name(target, None, name).contains("/action/");
                    match self.kind {
                        Kind::Msg => name.clone(),
                        // A part of an action, in this module (see `ActionDef::derived`).
                        Kind::Action if in_action => name.clone(),
                        Kind::Srv | Kind::Action => format!("super::msg::{name}"),
                    }
                } else if self.generated.contains(target) {
                    format!("super::super::{target}::msg::{name}")
                } else {
                    let path = &self.externs[target];
                    format!("{path}::{name}")
                }
            }
        }
    }

    fn rust_type(&self, ty: &parse::FieldType, flat: bool) -> String {
        let element = self.element_type(&ty.base, flat);
        match ty.container {
            Container::Single => element,
            Container::Array(n) => format!("[{element}; {n}]"),
            Container::Bounded(_) | Container::Unbounded => {
                format!("{}<{element}>", self.prelude("Vec"))
            }
        }
    }

    /// The `tacto::idl` codec a field needs, if its Rust type does not say everything (a
    /// `FlatString`, in a `flat` message, checks its own bound).
    fn field_codec(&self, ty: &parse::FieldType, flat: bool) -> Option<String> {
        let element = match &ty.base {
            BaseType::String(Some(n)) if !flat => Some(format!("idl::BoundedString<{n}>")),
            BaseType::WString(None) => Some("idl::WString".to_owned()),
            BaseType::WString(Some(n)) => Some(format!("idl::BoundedWString<{n}>")),
            _ => None,
        };
        let plain = || element.clone().unwrap_or_else(|| "idl::Plain".to_owned());
        let codec = match ty.container {
            Container::Single => element?,
            // serde's own arrays stop at 32 elements.
            Container::Array(n) if n > 32 || element.is_some() => {
                format!("idl::Array<{}>", plain())
            }
            Container::Array(_) => return None,
            Container::Bounded(n) => format!("idl::BoundedSequence<{n}, {}>", plain()),
            Container::Unbounded if element.is_some() => format!("idl::Sequence<{}>", plain()),
            Container::Unbounded => match ty.base {
                BaseType::Primitive(Primitive::Byte | Primitive::UInt8 | Primitive::Char) => {
                    "idl::Bytes".to_owned()
                }
                BaseType::Primitive(Primitive::Bool) => return None,
                BaseType::Primitive(_) => "idl::Numbers".to_owned(),
                _ => return None,
            },
        };
        // In an expression path, the first generic arguments need a turbofish.
        Some(codec.replacen('<', "::<", 1))
    }

    /// The field's value in `Default`, or `None` where `Default::default()` is right.
    fn default_expr(&self, field: &Field, flat: bool) -> Option<String> {
        let ty = &field.ty;
        // A default that is the type's own (`bool x false`) keeps `#[derive(Default)]`.
        let own_default = match (&field.default, ty.container) {
            (Some(Value::List(items)), Container::Array(n)) => n <= 32 && items.iter().all(is_zero),
            (Some(Value::List(items)), _) => items.is_empty(),
            (Some(value), _) => is_zero(value),
            (None, _) => false,
        };
        if let Some(value) = field.default.as_ref().filter(|_| !own_default) {
            return Some(match (ty.container, value) {
                (Container::Single, value) => self.value_expr(&ty.base, value, flat),
                (container, Value::List(items)) => {
                    let items: Vec<String> = (items.iter())
                        .map(|v| self.value_expr(&ty.base, v, flat))
                        .collect();
                    match container {
                        Container::Array(_) => format!("[{}]", items.join(", ")),
                        _ => format!("vec![{}]", items.join(", ")),
                    }
                }
                (_, value) => self.value_expr(&ty.base, value, flat),
            });
        }
        match (ty.container, &ty.base) {
            // `Default` for arrays stops at 32 elements.
            (Container::Array(n), BaseType::Primitive(p)) if n > 32 => {
                Some(format!("[{}; {n}]", zero(*p)))
            }
            (Container::Array(n), _) if n > 32 => Some(format!(
                "::std::array::from_fn(|_| {}::default())",
                self.prelude("Default")
            )),
            _ => None,
        }
    }

    fn value_expr(&self, base: &BaseType, value: &Value, flat: bool) -> String {
        match base {
            BaseType::Primitive(p) => literal(*p, value),
            BaseType::String(Some(_)) if flat => format!(
                "::tacto::FlatString::try_from({:?}).expect(\"checked by tacto-msggen: fits, no NUL\")",
                str_value(value)
            ),
            _ => format!("{:?}.to_owned()", str_value(value)),
        }
    }
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Float(f) => f.to_bits() == 0,
        Value::Str(s) => s.is_empty(),
        Value::List(_) => false,
    }
}

fn zero(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "false",
        Primitive::Float32 | Primitive::Float64 => "0.0",
        _ => "0",
    }
}

fn literal(p: Primitive, value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        // Debug prints the shortest text that reads back as the same number, with a point.
        Value::Float(f) if p == Primitive::Float32 => format!("{:?}", *f as f32),
        Value::Float(f) => format!("{f:?}"),
        Value::Str(_) | Value::List(_) => unreachable!("checked when parsed"),
    }
}

fn str_value(value: &Value) -> &str {
    match value {
        Value::Str(s) => s,
        _ => unreachable!("checked when parsed"),
    }
}

/// A field name as a Rust identifier: keywords become raw identifiers.
fn rust_ident(name: &str) -> String {
    const KEYWORDS: [&str; 38] = [
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use",
        "where", "while", "abstract", "become", "box", "gen",
    ];
    match name {
        // These cannot be raw identifiers.
        "self" | "super" | "crate" => format!("{name}_"),
        _ if KEYWORDS.contains(&name)
            || [
                "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual",
                "yield",
            ]
            .contains(&name) =>
        {
            format!("r#{name}")
        }
        _ => name.to_owned(),
    }
}

/// Writes a doc comment: a summary line, then the `.msg` comment as preformatted text, which
/// keeps its layout and is never read as Markdown, links or doctests.
fn doc(out: &mut String, indent: &str, summary: &str, comment: &[String]) {
    let _ = writeln!(out, "{indent}/// {summary}");
    let lines: Vec<&str> = {
        let mut lines: Vec<&str> = comment.iter().map(|l| l.trim_end()).collect();
        while lines.first().is_some_and(|l| l.is_empty()) {
            lines.remove(0);
        }
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
    };
    if lines.is_empty() {
        return;
    }
    let longest_ticks = lines
        .iter()
        .map(|l| l.split(|c| c != '`').map(str::len).max().unwrap_or(0))
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest_ticks.max(2) + 1);
    let _ = writeln!(out, "{indent}///\n{indent}/// {fence}text");
    for line in lines {
        if line.is_empty() {
            let _ = writeln!(out, "{indent}///");
        } else {
            let _ = writeln!(out, "{indent}/// {line}");
        }
    }
    let _ = writeln!(out, "{indent}/// {fence}");
}
