//! What the derive emits beside its errors: the trait impls and, when the
//! input parsed, the whole generated API, with bodies that are never run
//! (the crate does not compile), so that uses of the type elsewhere add no
//! wall of follow-on errors ("no associated item named `LEN`", ...). The
//! methods take any arguments (`impl Sized`), so a call that would be right
//! for the fixed struct is no error either.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::DeriveInput;

use crate::model::Model;
use crate::scans::suffix;

pub fn expand(node: &DeriveInput, krate: &syn::Path, model: Option<&Model<'_>>) -> TokenStream {
    let name = &node.ident;
    let (impl_generics, ty_generics, where_clause) = node.generics.split_for_impl();
    let mut de_generics = node.generics.clone();
    de_generics.params.insert(0, syn::parse_quote!('__de));
    let (de_impl, _, _) = de_generics.split_for_impl();
    let p = quote!(#krate::__private);
    // The real prefix: a family enum over this type checks overlaps with it.
    let prefix = model.and_then(|m| m.prefix.as_deref()).map(|b| {
        let b = proc_macro2::Literal::byte_string(b);
        quote!(const PREFIX: &'static [u8] = #b;)
    });
    let api = model.map(|m| api(m, &p));
    quote! {
        #[allow(unreachable_code, unused_variables, clippy::all)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::RowKey for #name #ty_generics #where_clause {
                const FIXED_LEN: #p::Option<usize> = #p::Option::None;
                const MIN_LEN: usize = 0;
                const SALT_BUCKETS: #p::Option<u16> = #p::Option::None;
                #prefix
                const LAYOUT: &'static #p::Layout =
                    &#p::Layout::__new("", #p::Format::Binary, b"", #p::Option::None, &[]);
                fn encoded_len(&self) -> usize {
                    ::core::unreachable!()
                }
                fn encode_into(&self, out: &mut [u8]) -> #p::Result<usize, #p::EncodeError> {
                    ::core::unreachable!()
                }
            }
            #[automatically_derived]
            impl #de_impl #p::DecodeRowKey<'__de> for #name #ty_generics #where_clause {
                fn decode(input: &'__de [u8]) -> #p::Result<Self, #p::DecodeError> {
                    ::core::unreachable!()
                }
            }
            #api
        };
    }
}

/// The inherent items the real expansion would have, as stubs.
fn api(l: &Model<'_>, p: &TokenStream) -> TokenStream {
    let name = &l.input.original.ident;
    let (impl_generics, ty_generics, where_clause) = l.input.original.generics.split_for_impl();
    let scan = quote!(#p::Scan);
    let mut items = TokenStream::new();
    if l.all_fixed() {
        items.extend(quote! {
            pub const LEN: usize = 0;
            pub fn encode(&self) -> [u8; 0] { ::core::unreachable!() }
            pub fn try_encode(&self) -> #p::Result<[u8; 0], #p::EncodeError> { ::core::unreachable!() }
        });
    }
    if l.salt.is_some() {
        items.extend(quote! {
            pub fn bucket(&self) -> u8 { ::core::unreachable!() }
            pub fn try_bucket(&self) -> #p::Result<u8, #p::EncodeError> { ::core::unreachable!() }
        });
    }
    let mut alloc = TokenStream::new();
    if l.is_text() {
        alloc.extend(quote! {
            pub fn encode_to_string(&self) -> #p::Result<#p::String, #p::EncodeError> { ::core::unreachable!() }
        });
        items.extend(quote! {
            pub fn decode_str(input: &str) -> #p::Result<Self, #p::DecodeError> { ::core::unreachable!() }
        });
    }
    alloc.extend(quote! {
        pub fn split_points() -> #p::Vec<#p::Vec<u8>> { ::core::unreachable!() }
        pub fn scan_all() -> #scan { ::core::unreachable!() }
    });
    for k in 1..=l.key_fields() {
        let args: Vec<TokenStream> = (0..k)
            .map(|i| {
                let a = format_ident!("__a{}", i);
                quote!(#a: impl ::core::marker::Sized)
            })
            .collect();
        let ret = if l.can_fail(k) {
            quote!(#p::Result<#scan, #p::EncodeError>)
        } else {
            quote!(#scan)
        };
        let (by, range) = (
            format_ident!("scan_by_{}", suffix(&l.fields[..k])),
            format_ident!("range_by_{}", suffix(&l.fields[..k])),
        );
        alloc.extend(quote! {
            pub fn #by(#(#args),*) -> #ret { ::core::unreachable!() }
            pub fn #range(#(#args),*) -> #ret { ::core::unreachable!() }
        });
    }
    // Scans need `alloc`, as in the real expansion.
    items.extend(quote!(#p::if_alloc! { #alloc }));
    quote! {
        #[automatically_derived]
        #[allow(dead_code, missing_docs)]
        impl #impl_generics #name #ty_generics #where_clause {
            #items
        }
    }
}
