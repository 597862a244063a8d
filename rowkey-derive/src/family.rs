//! `#[derive(RowKey)]` on an enum of key families: each variant wraps one
//! key type (`Order(OrderKey)`), whose `#[rowkey(prefix)]` tells its rows
//! apart. Parsing, checks and expansion are small enough for one module:
//! the layout of each family is its own struct's.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Fields, GenericParam, Ident, Type};

use crate::attr;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::model::default_crate;
use crate::tokens::{decode_lifetimes, static_lifetimes};

struct Family<'a> {
    variant: &'a Ident,
    ty: &'a Type,
}

pub fn derive(node: &DeriveInput, data: &DataEnum) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = attr::struct_attrs(&cx, &node.attrs);
    let krate = attrs.crate_path.clone().unwrap_or_else(default_crate);
    if attrs.salt.is_some() || attrs.text.is_some() || attrs.prefix.is_some() {
        cx.error_spanned_by(
            &node.ident,
            "a key-family enum takes its layouts from its variants' key types: put #[salt], #[rowkey(text)] and #[rowkey(prefix)] on those structs",
        );
    }
    for param in &node.generics.params {
        if !matches!(param, GenericParam::Lifetime(_)) {
            cx.error_spanned_by(
                param,
                "a key-family enum does not support type or const parameters",
            );
        }
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(
            &node.ident,
            "a key-family enum needs at least one variant wrapping a key type, like `Order(OrderKey)`",
        );
    }
    let mut families = Vec::new();
    for v in &data.variants {
        match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => families.push(Family {
                variant: &v.ident,
                ty: &f.unnamed[0].ty,
            }),
            Fields::Unit => cx.error_spanned_by(
                v,
                format!(
                    "variant `{}` wraps no key type: each variant of a key-family enum wraps one, like `Order(OrderKey)`; a fieldless enum stored in a field derives `KeyField` instead",
                    v.ident
                ),
            ),
            _ => cx.error_spanned_by(
                v,
                format!(
                    "variant `{}` is not a one-field tuple variant: each variant of a key-family enum wraps one key type, like `Order(OrderKey)`",
                    v.ident
                ),
            ),
        }
    }
    match cx.check() {
        Ok(()) => expand(node, &krate, &families),
        Err(err) => {
            let mut out = err.to_compile_error();
            out.extend(fallback::expand(node, &krate, None));
            out
        }
    }
}

fn expand(node: &DeriveInput, krate: &syn::Path, families: &[Family<'_>]) -> TokenStream {
    let name = &node.ident;
    let name_text = name.to_string();
    let (impl_generics, ty_generics, _) = node.generics.split_for_impl();
    let statics: Vec<Type> = families.iter().map(|f| static_lifetimes(f.ty)).collect();
    let prefix = |t: &Type| quote!(<#t as __rk::RowKey>::PREFIX);
    let min_len = statics
        .iter()
        .map(|t| quote!(<#t as __rk::RowKey>::MIN_LEN))
        .reduce(|a, b| quote!(__rk::min_len(#a, #b)))
        .unwrap_or_else(|| quote!(0));
    let variants: Vec<&Ident> = families.iter().map(|f| f.variant).collect();
    let decode_arms = families.iter().zip(&statics).map(|(f, st)| {
        let (v, p) = (f.variant, prefix(st));
        let ty = decode_lifetimes(f.ty);
        quote! {
            if __input.starts_with(#p) {
                return <#ty as __rk::DecodeRowKey<'__de>>::decode(__input).map(Self::#v);
            }
        }
    });
    let de_lifetimes = node.generics.lifetimes().next().is_some().then(|| {
        let lts = node.generics.lifetimes().map(|_| quote!('__de));
        quote!(<#(#lts),*>)
    });
    let names: Vec<String> = variants.iter().map(|v| v.to_string()).collect();
    let prefixes: Vec<TokenStream> = statics.iter().map(prefix).collect();
    // Two families whose prefixes overlap could not be told apart: a
    // compile error at the second one, naming both.
    let mut checks = TokenStream::new();
    for j in 0..families.len() {
        for i in 0..j {
            let (a, b) = (&prefixes[i], &prefixes[j]);
            let msg = format!(
                "key families `{}` and `{}` of `{name_text}` overlap: their prefixes are equal or one starts the other, so a key could belong to both; give them distinct #[rowkey(prefix)]es",
                names[i], names[j]
            );
            let span = families[j].ty.span();
            checks.extend(quote_spanned! {span=>
                const _: () = ::core::assert!(!__rk::prefixes_overlap(#a, #b), #msg);
            });
        }
    }
    let name_str = name.to_string();
    quote! {
        const _: () = {
            use #krate::__private as __rk;
            #[automatically_derived]
            impl #impl_generics __rk::RowKey for #name #ty_generics {
                const FIXED_LEN: __rk::Option<usize> = __rk::Option::None;
                const MIN_LEN: usize = #min_len;
                const SALT_BUCKETS: __rk::Option<u16> = __rk::Option::None;
                const LAYOUT: &'static __rk::Layout = &__rk::Layout::__family(
                    #name_str,
                    &[#(<#statics as __rk::RowKey>::LAYOUT),*],
                );
                #[inline]
                fn encoded_len(&self) -> usize {
                    match self {
                        #(Self::#variants(__k) => __rk::RowKey::encoded_len(__k),)*
                    }
                }
                #[inline]
                fn encode_into(&self, __out: &mut [u8]) -> __rk::Result<usize, __rk::EncodeError> {
                    match self {
                        #(Self::#variants(__k) => __rk::RowKey::encode_into(__k, __out),)*
                    }
                }
            }
            #[automatically_derived]
            impl<'__de> __rk::DecodeRowKey<'__de> for #name #de_lifetimes {
                /// Decodes the key as the family whose prefix it starts with.
                #[inline]
                fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
                    #(#decode_arms)*
                    __rk::Result::Err(__rk::DecodeError::UnknownFamily { families: #name_text })
                }
            }
            #[automatically_derived]
            impl #impl_generics #name #ty_generics {
                /// Each family: its variant's name and the prefix its keys start with.
                pub const FAMILIES: &'static [(&'static str, &'static [u8])] = &[
                    #((#names, #prefixes)),*
                ];
                /// The name of this key's family (its variant).
                #[inline]
                pub fn family(&self) -> &'static str {
                    match self {
                        #(Self::#variants(_) => #names,)*
                    }
                }
                __rk::if_alloc! {
                    /// Every row of every family: one range from the smallest
                    /// family prefix to the end of the largest, in table order
                    /// (a salted family's rows grouped by bucket). A row between
                    /// the families that belongs to none decodes to
                    /// `DecodeError::UnknownFamily`.
                    #[inline]
                    pub fn scan_all() -> __rk::Scan {
                        __rk::families_scan(Self::FAMILIES)
                    }
                    /// Where to pre-split the table: a boundary at each
                    /// family's prefix (no region holds two families) and
                    /// each family's own split points (its salt buckets).
                    #[inline]
                    pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
                        <Self as __rk::RowKey>::LAYOUT.split_points()
                    }
                }
            }
            #checks
        };
    }
}
