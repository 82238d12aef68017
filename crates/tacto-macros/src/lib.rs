//! The procedural macros of tacto. Use them through `tacto`, which re-exports them
//! (`#[tacto::message("...")]`); this crate exists only because Rust compiles procedural
//! macros in crates of their own.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Data, DeriveInput, Ident, LitStr, Token, parse_macro_input};

/// Makes a struct a tacto message with the ROS 2 type name given, e.g.
/// `#[tacto::message("my_msgs/msg/Range")]`, and optionally its ROS 2 type hash:
/// `#[tacto::message("std_msgs/msg/String", hash = "RIHS01_df66...")]` (`RIHS01_` and 64
/// lowercase hex digits; `tacto-msggen` computes it for generated types).
///
/// It derives serde's `Serialize` and `Deserialize` through `tacto::serde`, so the crate that
/// defines the message needs no serde dependency of its own, and implements `tacto::Message`
/// with the name as `TYPE_NAME`. Fields keep their order on the wire (ROS 2 CDR, see
/// `tacto::cdr`), so declare them in the order of the `.msg` file. Serde's field attributes
/// (`#[serde(rename = "...")]`, ...) work as with a derive of one's own.
///
/// With `flat` (`#[tacto::message("my_msgs/msg/Image", flat)]`) the type is also a
/// `tacto::Flat` message, sent between processes as its own bytes and read in place: the
/// macro adds `#[repr(C)]` if missing, derives bytemuck's `Pod` and `Zeroable` through
/// `tacto::bytemuck` (the type must derive `Clone` and `Copy` itself) and implements `Flat`
/// with the layout's identity (size, alignment, type name, field names and types), and a
/// decoder of its CDR in place (field by field, through each field's `#[serde(with = ...)]`
/// codec; see `tacto::flat::from_cdr`). A field that is not `Pod` (`String`, `Vec`, `bool`,
/// ...), padding, an alignment above 16, or a field attribute other than
/// `#[serde(with = ...)]` and `#[serde(rename = ...)]` is a compile error. See `tacto::Flat`.
///
/// Checked at compile time, each with its own error:
/// - the name has the form `package/msg/Type`: a package name of lowercase letters, digits
///   and single underscores that starts with a letter and does not end with `_` (REP 144),
///   then `msg`, then a type name of letters and digits that starts with an uppercase letter;
/// - the item is a struct with at least one field (ROS 2 IDL has no empty struct and CDR no
///   form for a Rust enum; `std_msgs/msg/Empty` carries one placeholder byte);
/// - it is not generic (a ROS 2 type has one name; implement `tacto::Message` by hand for each
///   instance of a generic type instead).
///
/// # Examples
/// ```
/// #[tacto::message("my_msgs/msg/Range")]
/// #[derive(Debug, Clone, PartialEq)]
/// struct Range {
///     distance_m: f32,
/// }
///
/// use tacto::Message;
/// assert_eq!(Range::TYPE_NAME, "my_msgs/msg/Range");
/// let bytes = tacto::cdr::to_vec(&Range { distance_m: 1.5 }).unwrap();
/// assert_eq!(tacto::cdr::from_bytes::<Range>(&bytes).unwrap(), Range { distance_m: 1.5 });
/// ```
///
/// A name that is not `package/msg/Type` does not compile:
/// ```compile_fail
/// #[tacto::message("Range")]
/// struct Range {
///     distance_m: f32,
/// }
/// ```
///
/// Nor does a hash that is not `RIHS01_` and 64 lowercase hex digits:
/// ```compile_fail
/// #[tacto::message("my_msgs/msg/Range", hash = "RIHS01_abc")]
/// struct Range {
///     distance_m: f32,
/// }
/// ```
#[proc_macro_attribute]
pub fn message(args: TokenStream, item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as DeriveInput);
    match type_name(args).and_then(|args| expand(&args, &input)) {
        Ok(tokens) => tokens.into(),
        // The item itself stays, so that the one error above is the only one reported;
        // without the serde derive, its `#[serde]` attributes go too.
        Err(error) => {
            let error = error.into_compile_error();
            let input = without_serde_attrs(input);
            quote! { #input #error }.into()
        }
    }
}

fn without_serde_attrs(mut input: DeriveInput) -> DeriveInput {
    let is_serde = |attr: &syn::Attribute| attr.path().is_ident("serde");
    input.attrs.retain(|attr| !is_serde(attr));
    if let Data::Struct(data) = &mut input.data {
        for field in data.fields.iter_mut() {
            field.attrs.retain(|attr| !is_serde(attr));
        }
    }
    input
}

/// `"pkg/msg/Type"` and, optionally, `hash = "RIHS01_..."` and `flat`, in any order.
struct Args {
    type_name: LitStr,
    hash: Option<LitStr>,
    flat: bool,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let type_name = input.parse()?;
        let mut args = Args {
            type_name,
            hash: None,
            flat: false,
        };
        while input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            let key: Ident = input.parse()?;
            if key == "flat" && !args.flat {
                args.flat = true;
                continue;
            }
            if key != "hash" || args.hash.is_some() {
                return Err(syn::Error::new(
                    key.span(),
                    "expected `hash = \"RIHS01_...\"` or `flat`, each at most once",
                ));
            }
            input.parse::<Token![=]>()?;
            let value: LitStr = input.parse()?;
            if !is_type_hash(&value.value()) {
                return Err(syn::Error::new(
                    value.span(),
                    "a ROS 2 type hash is `RIHS01_` and 64 lowercase hex digits",
                ));
            }
            args.hash = Some(value);
        }
        if !input.is_empty() {
            return Err(input.error("expected `,`"));
        }
        Ok(args)
    }
}

fn is_type_hash(text: &str) -> bool {
    text.strip_prefix("RIHS01_").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn type_name(args: TokenStream) -> syn::Result<Args> {
    if args.is_empty() {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "a message needs its ROS 2 type name: #[tacto::message(\"my_msgs/msg/Range\")]",
        ));
    }
    syn::parse(args)
}

fn expand(args: &Args, input: &DeriveInput) -> syn::Result<TokenStream2> {
    let type_name = &args.type_name;
    check_type_name(&type_name.value()).map_err(|reason| {
        syn::Error::new(
            type_name.span(),
            format!(
                "invalid ROS 2 message type name {:?}: {reason}; expected \"package/msg/Type\", \
                 e.g. \"my_msgs/msg/Range\"",
                type_name.value()
            ),
        )
    })?;
    match &input.data {
        Data::Struct(data) if data.fields.is_empty() => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "a ROS 2 message needs at least one field: IDL has no empty struct \
                 (std_msgs/msg/Empty carries `structure_needs_at_least_one_field: u8`)",
            ));
        }
        Data::Struct(_) => {}
        Data::Enum(data) => {
            return Err(syn::Error::new_spanned(
                data.enum_token,
                "a ROS 2 message is a struct: CDR has no form for a Rust enum",
            ));
        }
        Data::Union(data) => {
            return Err(syn::Error::new_spanned(
                data.union_token,
                "a ROS 2 message is a struct, not a union",
            ));
        }
    }
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "a message type cannot be generic: a ROS 2 type has one name; implement \
             `tacto::Message` by hand for each instance instead",
        ));
    }
    let ident = &input.ident;
    let hash = args.hash.as_ref().map(|hash| {
        quote! { const TYPE_HASH: ::core::option::Option<&'static str> = ::core::option::Option::Some(#hash); }
    });
    let Some((flat_attrs, flat_items, flat_impl)) =
        args.flat.then(|| flat(input, type_name)).transpose()?
    else {
        return Ok(quote! {
            #[derive(::tacto::serde::Serialize, ::tacto::serde::Deserialize)]
            #[serde(crate = "::tacto::serde")]
            #input

            impl ::tacto::Message for #ident {
                const TYPE_NAME: &'static str = #type_name;
                #hash
            }
        });
    };
    Ok(quote! {
        #[derive(::tacto::serde::Serialize, ::tacto::serde::Deserialize)]
        #[serde(crate = "::tacto::serde")]
        #flat_attrs
        #input

        impl ::tacto::Message for #ident {
            const TYPE_NAME: &'static str = #type_name;
            #hash
            #flat_items
        }

        #flat_impl
    })
}

/// What `flat` adds: attributes on the struct (`#[repr(C)]` if missing, bytemuck's derives
/// through `tacto::bytemuck`, which refuse padding and fields that are not `Pod`), the hidden
/// items of `Message`, and the `Flat` impl with the layout, whose alignment is checked.
///
/// The `CdrInPlace` impl decodes CDR into the message where it lies, field by field through
/// the codec each field's `#[serde(with = "...")]` names (or the field type's own), so that a
/// flat message of any size comes from CDR without passing the stack.
fn flat(
    input: &DeriveInput,
    type_name: &LitStr,
) -> syn::Result<(TokenStream2, TokenStream2, TokenStream2)> {
    let ident = &input.ident;
    let has_repr_c = input.attrs.iter().any(|attr| {
        attr.path().is_ident("repr")
            && attr
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, Token![,]>::parse_terminated,
                )
                .is_ok_and(|metas| metas.iter().any(|meta| meta.path().is_ident("C")))
    });
    let repr = (!has_repr_c).then(|| quote! { #[repr(C)] });
    let attrs = quote! {
        #repr
        #[derive(::tacto::bytemuck::Pod, ::tacto::bytemuck::Zeroable)]
        #[bytemuck(crate = "::tacto::bytemuck")]
    };
    check_container_serde(input)?;
    // Field names and types as written: two types declared alike hash alike.
    let mut fields = String::new();
    let mut reads = Vec::new();
    if let Data::Struct(data) = &input.data {
        for (i, field) in data.fields.iter().enumerate() {
            let name = field
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string);
            let ty = &field.ty;
            fields.push_str(&format!("{name}:{};", quote!(#ty)));
            let member = field.ident.clone().map_or_else(
                || syn::Member::Unnamed(syn::Index::from(i)),
                syn::Member::Named,
            );
            reads.push(match serde_codec(field)? {
                Some(codec) => quote! {
                    <#codec as ::tacto::flat::CodecInPlace<#ty>>::read_cdr(&mut self.#member, reader)?;
                },
                None => quote! {
                    <#ty as ::tacto::flat::CdrInPlace>::read_cdr(&mut self.#member, reader)?;
                },
            });
        }
    }
    let items = quote! {
        const FLAT_LAYOUT: ::core::option::Option<::tacto::FlatLayout> =
            ::core::option::Option::Some(<Self as ::tacto::Flat>::LAYOUT);
        #[inline(always)]
        fn flat_bytes(&self) -> ::core::option::Option<&[u8]> {
            ::core::option::Option::Some(::tacto::flat::bytes(self))
        }
        #[inline(always)]
        fn flat_view(bytes: &[u8]) -> ::core::option::Option<&Self> {
            ::tacto::flat::view(bytes)
        }
        #[inline(always)]
        fn custom_decode_cdr(
            bytes: &[u8],
        ) -> ::core::option::Option<
            ::core::result::Result<::std::sync::Arc<Self>, ::tacto::cdr::DecodeError>,
        > {
            ::core::option::Option::Some(::tacto::flat::shared_from_cdr(bytes))
        }
    };
    let flat_impl = quote! {
        impl ::tacto::Flat for #ident {
            const LAYOUT: ::tacto::FlatLayout = ::tacto::FlatLayout::new(
                #type_name,
                ::core::mem::size_of::<#ident>(),
                ::core::mem::align_of::<#ident>(),
                #fields,
            );
        }

        impl ::tacto::flat::CdrInPlace for #ident {
            fn read_cdr(
                &mut self,
                reader: &mut ::tacto::cdr::Reader<'_>,
            ) -> ::core::result::Result<(), ::tacto::cdr::DecodeError> {
                #(#reads)*
                ::core::result::Result::Ok(())
            }
        }

        const _: () = ::core::assert!(
            ::core::mem::align_of::<#ident>() <= ::tacto::flat::MAX_ALIGN,
            "a flat message's alignment must be at most tacto::flat::MAX_ALIGN (16): the \
             shared-memory slot is aligned to that"
        );
    };
    Ok((attrs, items, flat_impl))
}

/// The codec a flat message's field names in `#[serde(with = "...")]`, as a type. Only
/// `with` (an `idl` codec such as `tacto::idl::Array::<tacto::idl::Plain>`) and `rename`
/// may appear there: the others (`skip`, `default`, `deserialize_with`, ...) change the CDR
/// in ways the in-place decoder could not follow.
fn serde_codec(field: &syn::Field) -> syn::Result<Option<syn::Type>> {
    let mut codec = None;
    for attr in field
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("with") {
                let path: LitStr = meta.value()?.parse()?;
                codec = Some(path.parse::<syn::Type>()?);
                return Ok(());
            }
            if meta.path.is_ident("rename") {
                return match meta.input.peek(Token![=]) {
                    true => meta.value()?.parse::<LitStr>().map(drop),
                    false => {
                        meta.parse_nested_meta(|inner| inner.value()?.parse::<LitStr>().map(drop))
                    }
                };
            }
            Err(meta.error(
                "a flat message's fields go on the wire as they are: #[serde(..)] on them \
                 may only be `with` (a `tacto::idl` codec) or `rename`",
            ))
        })?;
    }
    Ok(codec)
}

/// Refuses `#[serde(from | try_from | into = "...")]` on a flat message: they put another
/// type's CDR on the wire, which the in-place decoder would not read.
fn check_container_serde(input: &DeriveInput) -> syn::Result<()> {
    for attr in input
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
    {
        attr.parse_nested_meta(|meta| {
            if ["from", "try_from", "into"]
                .iter()
                .any(|name| meta.path.is_ident(name))
            {
                return Err(meta.error(
                    "a flat message goes on the wire as its fields: it cannot be sent as \
                     another type",
                ));
            }
            // Skip what the others hold: `= value` or `(...)`.
            if meta.input.peek(Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| inner.value()?.parse::<syn::Expr>().map(drop))?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Checks `package/msg/Type`, and says what is wrong otherwise.
fn check_type_name(name: &str) -> Result<(), &'static str> {
    let parts: Vec<&str> = name.split('/').collect();
    let [package, kind, type_name] = parts[..] else {
        return Err("it must have three parts separated by '/'");
    };
    if !package.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err("the package name must start with a lowercase letter");
    }
    if !package
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err("the package name may hold only lowercase letters, digits and '_'");
    }
    if package.contains("__") || package.ends_with('_') {
        return Err("the package name may not hold \"__\" or end with '_'");
    }
    if kind != "msg" {
        return Err("the middle part must be \"msg\"");
    }
    if !type_name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Err("the type name must start with an uppercase letter");
    }
    if !type_name.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err("the type name may hold only letters and digits");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_type_name;

    #[test]
    fn standard_type_names_are_accepted() {
        for name in [
            "std_msgs/msg/String",
            "builtin_interfaces/msg/Time",
            "sensor_msgs/msg/PointCloud2",
            "my_msgs/msg/Range",
            "a/msg/B",
        ] {
            assert_eq!(check_type_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn malformed_type_names_are_refused_with_the_broken_rule() {
        for (name, reason) in [
            ("Range", "it must have three parts separated by '/'"),
            ("my_msgs/Range", "it must have three parts separated by '/'"),
            (
                "my_msgs/msg/Range/x",
                "it must have three parts separated by '/'",
            ),
            ("", "it must have three parts separated by '/'"),
            (
                "/msg/Range",
                "the package name must start with a lowercase letter",
            ),
            (
                "1msgs/msg/Range",
                "the package name must start with a lowercase letter",
            ),
            (
                "My_msgs/msg/Range",
                "the package name must start with a lowercase letter",
            ),
            (
                "my-msgs/msg/Range",
                "the package name may hold only lowercase letters, digits and '_'",
            ),
            (
                "my_Msgs/msg/Range",
                "the package name may hold only lowercase letters, digits and '_'",
            ),
            (
                "my__msgs/msg/Range",
                "the package name may not hold \"__\" or end with '_'",
            ),
            (
                "my_msgs_/msg/Range",
                "the package name may not hold \"__\" or end with '_'",
            ),
            ("my_msgs/srv/Range", "the middle part must be \"msg\""),
            ("my_msgs//Range", "the middle part must be \"msg\""),
            (
                "my_msgs/msg/",
                "the type name must start with an uppercase letter",
            ),
            (
                "my_msgs/msg/range",
                "the type name must start with an uppercase letter",
            ),
            (
                "my_msgs/msg/Range_2",
                "the type name may hold only letters and digits",
            ),
        ] {
            assert_eq!(check_type_name(name), Err(reason), "{name}");
        }
    }
}
