//! `#[derive(KeyField)]` on a fieldless enum with `#[repr(int)]` and an
//! explicit discriminant on every variant: the enum becomes a field type,
//! stored as its discriminant in the repr's encoding (binary keys) or as
//! the discriminant's digits (text keys), sorting by discriminant.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Ident};

use crate::attr;
use crate::ctxt::Ctxt;
use crate::model::default_crate;

const REPRS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
];

pub fn derive(node: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::struct_attrs(&cx, &node.attrs);
    let krate = attrs.crate_path.clone().unwrap_or_else(default_crate);
    let repr = repr_of(node);
    let Data::Enum(data) = &node.data else {
        cx.error_spanned_by(
            &node.ident,
            "#[derive(KeyField)] is for fieldless enums with explicit discriminants, like `#[repr(u8)] enum Kind { Click = 1, View = 2 }`",
        );
        return cx
            .check()
            .err()
            .map_or_else(TokenStream::new, |e| e.to_compile_error());
    };
    if repr.is_none() {
        cx.error_spanned_by(
            &node.ident,
            "#[derive(KeyField)] needs the enum's integer representation, like #[repr(u8)]: the discriminant is what is stored",
        );
    }
    if !node.generics.params.is_empty() {
        cx.error_spanned_by(
            &node.generics,
            "#[derive(KeyField)] does not support generics",
        );
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(
            &node.ident,
            "#[derive(KeyField)] needs at least one variant",
        );
    }
    let mut variants: Vec<&Ident> = Vec::new();
    for (i, v) in data.variants.iter().enumerate() {
        if !matches!(v.fields, Fields::Unit) {
            cx.error_spanned_by(
                v,
                format!(
                    "variant `{}` carries data: a KeyField enum is stored as its discriminant, so its variants carry none; a data-carrying enum of key types derives RowKey as key families instead",
                    v.ident
                ),
            );
        } else if v.discriminant.is_none() {
            cx.error_spanned_by(
                v,
                format!(
                    "variant `{}` has no explicit discriminant: the discriminant is what is stored, so write it (like `{} = {}`) and it cannot change when variants are reordered",
                    v.ident,
                    v.ident,
                    i + 1
                ),
            );
        }
        variants.push(&v.ident);
    }
    if let Err(e) = cx.check() {
        let mut out = e.to_compile_error();
        if node.generics.params.is_empty() {
            out.extend(stub(node, &krate));
        }
        return out;
    }
    let repr = repr.expect("checked");
    let name = &node.ident;
    let invalid = format!("not the discriminant of a variant of `{name}`");
    let names: Vec<String> = variants.iter().map(|v| v.to_string()).collect();
    let names = &names;
    let name_text = name.to_string();
    let repr_text = repr.to_string();
    // The descriptor's variants: each discriminant as an i128 (a u128 one
    // above i128::MAX is refused below, as no i128 holds it).
    let info = quote! {
        __rk::Option::Some(__rk::KeyFieldInfo::__new(
            #name_text,
            #repr_text,
            &[#((#names, Self::#variants as #repr as i128)),*],
            #invalid,
        ))
    };
    let u128_check = (repr == "u128").then(|| {
        let msg = format!(
            "a `{name}` discriminant is above i128::MAX: a layout describes discriminants as i128"
        );
        quote! {
            #(const _: () = ::core::assert!((#name::#variants as u128) <= i128::MAX as u128, #msg);)*
        }
    });
    quote! {
        const _: () = {
            use #krate::__private as __rk;
            #[automatically_derived]
            impl __rk::FixedField for #name {
                type Bytes = <#repr as __rk::FixedField>::Bytes;
                #[inline]
                fn to_key_bytes(&self) -> Self::Bytes {
                    let __d: #repr = match self {
                        #(Self::#variants => Self::#variants as #repr,)*
                    };
                    <#repr as __rk::FixedField>::to_key_bytes(&__d)
                }
                #[inline]
                fn from_key_bytes(__b: Self::Bytes) -> __rk::Result<Self, __rk::FieldError> {
                    let __d = <#repr as __rk::FixedField>::from_key_bytes(__b)?;
                    #(if __d == Self::#variants as #repr {
                        return __rk::Result::Ok(Self::#variants);
                    })*
                    __rk::Result::Err(__rk::FieldError::Invalid(#invalid))
                }
                fn describe(&self, __out: &mut dyn ::core::fmt::Write) -> ::core::fmt::Result {
                    __out.write_str(match self {
                        #(Self::#variants => #names,)*
                    })
                }
                const KEY_FIELD: __rk::Option<__rk::KeyFieldInfo> = #info;
            }
            #[automatically_derived]
            impl __rk::Decimal for #name {
                const DIGITS: usize = <#repr as __rk::Decimal>::DIGITS;
                const SIGNED: bool = <#repr as __rk::Decimal>::SIGNED;
                type Mag = <#repr as __rk::Decimal>::Mag;
                #[inline]
                fn split(&self) -> (bool, Self::Mag) {
                    let __d: #repr = match self {
                        #(Self::#variants => Self::#variants as #repr,)*
                    };
                    <#repr as __rk::Decimal>::split(&__d)
                }
                #[inline]
                fn join(__negative: bool, __mag: Self::Mag) -> __rk::Option<Self> {
                    let __d = <#repr as __rk::Decimal>::join(__negative, __mag)?;
                    #(if __d == Self::#variants as #repr {
                        return __rk::Option::Some(Self::#variants);
                    })*
                    __rk::Option::None
                }
                fn describe(&self, __out: &mut dyn ::core::fmt::Write) -> ::core::fmt::Result {
                    <Self as __rk::FixedField>::describe(self, __out)
                }
                const KEY_FIELD: __rk::Option<__rk::KeyFieldInfo> =
                    <Self as __rk::FixedField>::KEY_FIELD;
            }
            #u128_check
        };
    }
}

/// The integer of `#[repr(...)]`.
/// Beside a KeyField error: the traits a field type needs, never run, so
/// that the keys using the enum add no errors of their own.
fn stub(node: &DeriveInput, krate: &syn::Path) -> TokenStream {
    let name = &node.ident;
    let p = quote!(#krate::__private);
    quote! {
        #[allow(unreachable_code, unused_variables)]
        const _: () = {
            #[automatically_derived]
            impl #p::FixedField for #name {
                type Bytes = [u8; 1];
                fn to_key_bytes(&self) -> Self::Bytes {
                    ::core::unreachable!()
                }
                fn from_key_bytes(b: Self::Bytes) -> #p::Result<Self, #p::FieldError> {
                    ::core::unreachable!()
                }
            }
            #[automatically_derived]
            impl #p::Decimal for #name {
                const DIGITS: usize = 1;
                const SIGNED: bool = false;
                type Mag = u64;
                fn split(&self) -> (bool, u64) {
                    ::core::unreachable!()
                }
                fn join(negative: bool, mag: u64) -> #p::Option<Self> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

fn repr_of(node: &DeriveInput) -> Option<Ident> {
    let mut found = None;
    for a in node.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|meta| {
            if let Some(i) = meta.path.get_ident() {
                if REPRS.contains(&i.to_string().as_str()) {
                    found = Some(i.clone());
                }
            }
            Ok(())
        });
    }
    found
}
