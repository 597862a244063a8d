//! What the derive emits beside its errors: impls of the traits with bodies
//! that are never run (the crate does not compile), so that uses of the
//! type elsewhere do not add a wall of follow-on errors.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

pub fn expand(node: &DeriveInput, krate: &syn::Path) -> TokenStream {
    let name = &node.ident;
    let (impl_generics, ty_generics, where_clause) = node.generics.split_for_impl();
    let mut de_generics = node.generics.clone();
    de_generics.params.insert(0, syn::parse_quote!('__de));
    let (de_impl, _, _) = de_generics.split_for_impl();
    let p = quote!(#krate::__private);
    quote! {
        #[allow(unreachable_code, unused_variables)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::RowKey for #name #ty_generics #where_clause {
                const FIXED_LEN: #p::Option<usize> = #p::Option::None;
                const MIN_LEN: usize = 0;
                const SALT_BUCKETS: #p::Option<u16> = #p::Option::None;
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
        };
    }
}
