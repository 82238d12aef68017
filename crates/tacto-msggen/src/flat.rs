//! Which messages can be generated flat ([`Generator::flat`](crate::Generator::flat)): every
//! field fixed-size with any bit pattern valid, and no padding in the `#[repr(C)]` layout
//! that `#[tacto::message(.., flat)]` gives the type (bytemuck's `Pod` derive refuses
//! padding, so a type that has some must be refused here, with its field named, rather than
//! fail to compile in the user's crate).

use std::collections::{BTreeMap, BTreeSet};

use crate::GenerateError;
use crate::emit::{Package, TypeFile};
use crate::parse::{BaseType, Container, Primitive, Value};

/// Why a field keeps its message from being flat.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotFlat {
    /// A `bool` has two valid bytes of 256.
    #[error(
        "is a bool: only the bytes 0 and 1 are valid bools, and a flat type must take any bytes \
         (they may come from another process)"
    )]
    Bool,
    /// A `string` has no bound to give its size.
    #[error(
        "is an unbounded `string`: a flat type holds its strings inline, so they need a bound \
         (`string<=N`, a tacto::FlatString<N>)"
    )]
    UnboundedString,
    /// A `wstring` (bounded or not) has no flat form.
    #[error("is a `wstring`: a flat type holds only `string<=N` (UTF-8, inline)")]
    WString,
    /// `T[]` or `T[<=N]`.
    #[error(
        "is a sequence (`T[]` or `T[<=N]`): a flat type has a fixed size, so only arrays `T[N]`"
    )]
    Sequence,
    /// `repr(C)` would put padding before the field.
    #[error(
        "would need {bytes} bytes of padding before it (at offset {offset}, to align it to \
         {align}) in the repr(C) layout, and a flat type has no padding: reorder the fields or \
         fill the gap with a field"
    )]
    Padding {
        /// Where the padding would start: the end of the fields before.
        offset: usize,
        /// How many bytes.
        bytes: usize,
        /// The field's alignment.
        align: usize,
    },
    /// `repr(C)` would pad the type after its last field, to a multiple of its alignment.
    #[error(
        "ends the type at {size} bytes, which repr(C) pads with {bytes} bytes to a multiple of \
         its alignment {align}, and a flat type has no padding: reorder the fields or add one"
    )]
    TrailingPadding {
        /// The end of the last field.
        size: usize,
        /// How many bytes of padding follow.
        bytes: usize,
        /// The type's alignment.
        align: usize,
    },
    /// A nested message not asked for flat.
    #[error("is a {0}, which is not generated flat: ask for it too, .flat(\"{0}\")")]
    NestedNotFlat(String),
    /// A nested message of a package not generated here, whose Rust type may not be flat.
    #[error(
        "is a {0}, of a package not generated here: a flat type nests only the flat types of \
         packages given with .package"
    )]
    External(String),
    /// A nested message that holds the type itself, so has no finite size.
    #[error("is a {0}, which holds the type itself")]
    ContainsItself(String),
    /// A string default with a NUL byte, which a `FlatString` cannot hold.
    #[error("has a default holding a NUL byte, which would end a tacto::FlatString early")]
    NulInDefault,
    /// Arrays of arrays too large for the address space.
    #[error("makes the type larger than the address space")]
    TooLarge,
}

/// The size and alignment of a type under `repr(C)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) size: usize,
    pub(crate) align: usize,
}

/// Checks that each message in `requested` (full names, `pkg/msg/Type`) is one of
/// `packages` and can be flat; returns their layouts by full name.
pub(crate) fn check(
    packages: &[Package],
    requested: &BTreeSet<String>,
) -> Result<BTreeMap<String, Layout>, GenerateError> {
    let mut layouts = Layouts {
        packages,
        requested,
        done: BTreeMap::new(),
    };
    for type_name in requested {
        let (package, file) = find(packages, type_name)
            .ok_or_else(|| GenerateError::UnknownFlat(type_name.clone()))?;
        layouts.of(package, file)?;
    }
    Ok(layouts
        .done
        .into_iter()
        .filter_map(|(name, layout)| Some((name, layout?)))
        .collect())
}

/// The package and file of message `type_name`, if generated here.
fn find<'a>(packages: &'a [Package], type_name: &str) -> Option<(&'a Package, &'a TypeFile)> {
    let [package, "msg", name] = type_name.split('/').collect::<Vec<_>>()[..] else {
        return None;
    };
    let package = packages.iter().find(|p| p.name == package)?;
    let file = package.messages.iter().find(|m| m.name == name)?;
    Some((package, file))
}

struct Layouts<'a> {
    packages: &'a [Package],
    requested: &'a BTreeSet<String>,
    /// By full name: the layouts computed, and `None` for those being computed.
    done: BTreeMap<String, Option<Layout>>,
}

impl Layouts<'_> {
    fn of(&mut self, package: &Package, file: &TypeFile) -> Result<Layout, GenerateError> {
        let type_name = format!("{}/msg/{}", package.name, file.name);
        if let Some(Some(layout)) = self.done.get(&type_name) {
            return Ok(*layout);
        }
        self.done.insert(type_name.clone(), None);
        let fields = &file.defs[0].fields;
        // A message without fields gets ROS 2's placeholder byte.
        let mut layout = Layout { size: 1, align: 1 };
        if !fields.is_empty() {
            layout.size = 0;
        }
        for field in fields {
            let refuse = |reason| GenerateError::Flat {
                path: file.path.clone(),
                line: field.line,
                type_name: type_name.clone(),
                field: field.name.clone(),
                reason,
            };
            let element = match &field.ty.base {
                BaseType::Primitive(Primitive::Bool) => return Err(refuse(NotFlat::Bool)),
                BaseType::Primitive(p) => {
                    let size = primitive_size(*p);
                    Layout { size, align: size }
                }
                BaseType::String(None) => return Err(refuse(NotFlat::UnboundedString)),
                BaseType::WString(_) => return Err(refuse(NotFlat::WString)),
                BaseType::String(Some(bound)) => {
                    if field.default.as_ref().is_some_and(holds_nul) {
                        return Err(refuse(NotFlat::NulInDefault));
                    }
                    Layout {
                        size: *bound,
                        align: 1,
                    }
                }
                BaseType::Named {
                    package: target,
                    name,
                } => {
                    let target = target.as_deref().unwrap_or(&package.name);
                    let nested = format!("{target}/msg/{name}");
                    let Some((nested_package, nested_file)) = find(self.packages, &nested) else {
                        return Err(refuse(NotFlat::External(nested)));
                    };
                    if !self.requested.contains(&nested) {
                        return Err(refuse(NotFlat::NestedNotFlat(nested)));
                    }
                    if self.done.get(&nested) == Some(&None) {
                        return Err(refuse(NotFlat::ContainsItself(nested)));
                    }
                    self.of(nested_package, nested_file)?
                }
            };
            let count = match field.ty.container {
                Container::Single => 1,
                Container::Array(n) => n,
                Container::Bounded(_) | Container::Unbounded => {
                    return Err(refuse(NotFlat::Sequence));
                }
            };
            let start = layout.size.next_multiple_of(element.align);
            if start != layout.size {
                return Err(refuse(NotFlat::Padding {
                    offset: layout.size,
                    bytes: start - layout.size,
                    align: element.align,
                }));
            }
            layout.size = (element.size.checked_mul(count))
                .and_then(|size| layout.size.checked_add(size))
                .filter(|&size| isize::try_from(size).is_ok())
                .ok_or_else(|| refuse(NotFlat::TooLarge))?;
            layout.align = layout.align.max(element.align);
        }
        let end = layout.size.next_multiple_of(layout.align);
        if let Some(last) = fields.last()
            && end != layout.size
        {
            return Err(GenerateError::Flat {
                path: file.path.clone(),
                line: last.line,
                type_name,
                field: last.name.clone(),
                reason: NotFlat::TrailingPadding {
                    size: layout.size,
                    bytes: end - layout.size,
                    align: layout.align,
                },
            });
        }
        self.done.insert(type_name, Some(layout));
        Ok(layout)
    }
}

/// Bytes of a primitive other than `bool`, which is also its alignment under `repr(C)` on
/// 64-bit Linux. Where `u64` aligns to 4 (32-bit x86) there is only less padding, so a type
/// without padding here has none there either.
fn primitive_size(p: Primitive) -> usize {
    match p {
        Primitive::Bool
        | Primitive::Byte
        | Primitive::Char
        | Primitive::Int8
        | Primitive::UInt8 => 1,
        Primitive::Int16 | Primitive::UInt16 => 2,
        Primitive::Int32 | Primitive::UInt32 | Primitive::Float32 => 4,
        Primitive::Int64 | Primitive::UInt64 | Primitive::Float64 => 8,
    }
}

fn holds_nul(value: &Value) -> bool {
    match value {
        Value::Str(s) => s.contains('\0'),
        Value::List(items) => items.iter().any(holds_nul),
        _ => false,
    }
}
