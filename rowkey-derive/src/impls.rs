//! Emits the trait impls: `RowKey` (encode, lengths, layout) and
//! `DecodeRowKey`, and for a fixed-width key the `FixedField` impl that
//! lets it nest in another key.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::attr::Hash;
use crate::model::Model;
use crate::tokens::{
    added_written, codec_alias, decode_lifetimes, hasher, len_expr, respan, sum, type_has_static,
};

pub(crate) fn trait_impls(l: &Model<'_>) -> TokenStream {
    let node = l.input.original;
    let name = &node.ident;
    let (impl_generics, ty_generics, _) = node.generics.split_for_impl();
    let n = l.fields.len();
    let head = l.head_len();
    let head_lit = Literal::usize_unsuffixed(head);
    let all_fixed = l.all_fixed();

    let (fixed_len, min_len, encoded_len) = if all_fixed {
        // The inherent constant: evaluated at compile time, so the length
        // checks of the whole encoding fold away.
        let len = quote!(Self::LEN);
        (quote!(__rk::Option::Some(#len)), len.clone(), len)
    } else if l.is_ordered_code() {
        (
            quote!(__rk::Option::None),
            len_expr(l, "MIN_LEN"),
            crate::ordered_code::encoded_len(l),
        )
    } else {
        let lens = l.fields.iter().enumerate().map(|(i, f)| {
            let (k, ident) = (codec_alias(i), f.ident);
            let len = respan(quote!(#k::encoded_len(&self.#ident)), f.span);
            match added_written(l, i) {
                Some(cond) => quote!((if #cond { #len } else { 0 })),
                None => len,
            }
        });
        (
            quote!(__rk::Option::None),
            len_expr(l, "MIN_LEN"),
            sum(head, lens),
        )
    };
    let buckets = match &l.salt {
        Some(s) => {
            let b = Literal::u16_unsuffixed(s.buckets);
            quote!(__rk::Option::Some(#b))
        }
        None => quote!(__rk::Option::None),
    };
    let prefix_const = l.prefix.as_ref().map(|p| {
        let p = Literal::byte_string(p);
        quote!(const PREFIX: &'static [u8] = #p;)
    });
    let write_prefix = l.prefix.as_ref().map(|p| {
        let n = Literal::usize_unsuffixed(p.len());
        let p = Literal::byte_string(p);
        quote!(__out[..#n].copy_from_slice(#p);)
    });
    let check_prefix = l.prefix.as_ref().map(|p| {
        let p = Literal::byte_string(p);
        quote!(__rk::check_prefix(__input, #p)?;)
    });
    // Where the salt starts: after the family prefix.
    let (salt_out, salt_in) = match l.prefix_len() {
        0 => (quote!(__out), quote!(__input)),
        n => {
            let n = Literal::usize_unsuffixed(n);
            (quote!(&mut __out[#n..]), quote!(&__input[#n..]))
        }
    };
    // The output slice. For a variable layout a buffer that holds even the
    // worst case (a cheap bound, no pass over the bytes) is used as it is;
    // only a smaller one costs the exact count.
    let claim = if all_fixed {
        quote!(let __out = __rk::output(__out, Self::LEN)?;)
    } else {
        let bounds = l.fields.iter().enumerate().map(|(i, f)| {
            let (k, ident) = (codec_alias(i), f.ident);
            respan(quote!(#k::max_encoded_len(&self.#ident)), f.span)
        });
        let bound = sum(head, bounds);
        quote! {
            let __out = if __out.len() >= #bound {
                __out
            } else {
                __rk::output(__out, __rk::RowKey::encoded_len(self))?
            };
        }
    };
    // Where each field starts: the first right after the salt byte.
    let pos: Vec<TokenStream> = (0..=n)
        .map(|i| match i {
            0 => head_lit.to_token_stream(),
            _ => format_ident!("__p{}", i).into_token_stream(),
        })
        .collect();
    let encode_fields: Vec<TokenStream> = if l.is_ordered_code() {
        vec![crate::ordered_code::encode_fields(l, &pos)]
    } else {
        l.fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (k, ident, fname) = (codec_alias(i), f.ident, &f.name);
                let (cur, next) = (&pos[i], &pos[i + 1]);
                let call = quote!(#k::encode(&self.#ident, __out, #cur, #fname)?);
                let call = match added_written(l, i) {
                    Some(cond) => quote!(let #next = if #cond { #call } else { #cur };),
                    None => quote!(let #next = #call;),
                };
                respan(call, f.span)
            })
            .collect()
    };
    let salt_write = if l.is_ordered_code() {
        crate::ordered_code::salt_write(l, &salt_out)
    } else {
        binary_salt_write(l, &pos, &salt_out)
    };
    // A fixed layout's encoding is a handful of stores: always inline it, so
    // that `encode()` compiles to the hand-written code in every codegen unit.
    let inline = if all_fixed {
        quote!(#[inline(always)])
    } else {
        quote!(#[inline])
    };
    let p_end = &pos[n];

    let check_salt = l.salt.as_ref().map(|s| {
        let b = Literal::u16_unsuffixed(s.buckets);
        quote!(__rk::decode_salt::<__Salt>(#salt_in, #b)?;)
    });
    let decode_fields = l.fields.iter().enumerate().map(|(i, f)| {
        let (k, v, fname) = (codec_alias(i), format_ident!("__v{}", i), &f.name);
        let at = if i == 0 {
            head_lit.to_token_stream()
        } else {
            quote!(__p)
        };
        let call = quote!(let (#v, __p) = #k::decode(__input, #at, #fname)?;);
        respan(call, f.span)
    });
    let inits = l.fields.iter().enumerate().map(|(i, f)| {
        let (ident, v) = (f.ident, format_ident!("__v{}", i));
        quote!(#ident: #v)
    });
    let de_lifetimes = node.generics.lifetimes().next().is_some().then(|| {
        let lts = node.generics.lifetimes().map(|_| quote!('__de));
        quote!(<#(#lts),*>)
    });
    // A field that borrows for 'static (`&'static str`) can only be decoded
    // from 'static bytes: the bound makes the impl say so instead of failing.
    let static_bounds: Vec<TokenStream> = l
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| type_has_static(f.ty))
        .map(|(i, f)| {
            let (k, t) = (codec_alias(i), decode_lifetimes(f.ty));
            quote!(#k: __rk::FieldDecode<'__de, #t>)
        })
        .collect();
    let de_where = (!static_bounds.is_empty()).then(|| quote!(where #(#static_bounds),*));

    // A key whose longest form is unbounded (a string) and that has a
    // max_len is checked as it is encoded.
    let end = match (&l.input.attrs.max_len, l.len.longest) {
        (Some(lit), None) => {
            let max = Literal::usize_unsuffixed(lit.base10_parse().unwrap_or(usize::MAX));
            quote!(__rk::check_max_len(#p_end, #max))
        }
        _ => quote!(__rk::Result::Ok(#p_end)),
    };
    let fields = if l.is_ordered_code() {
        let fields = crate::ordered_code::decode_fields(l, &head_lit);
        quote! {
            #check_prefix
            #check_salt
            #fields
        }
    } else {
        quote! {
            #check_prefix
            #check_salt
            #(#decode_fields)*
            __rk::finish(__input, __p)?;
            __rk::Result::Ok(Self { #(#inits),* })
        }
    };
    // A fixed-width key is decoded by the same code at its length (where
    // the compiler drops every field's bounds check) and at any other.
    let decode_body = if all_fixed {
        quote! {
            __rk::decode_fixed(__input, Self::LEN, |__input: &'__de [u8]| {
                #fields
            })
        }
    } else {
        fields
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics __rk::RowKey for #name #ty_generics {
            const FIXED_LEN: __rk::Option<usize> = #fixed_len;
            const MIN_LEN: usize = #min_len;
            const SALT_BUCKETS: __rk::Option<u16> = #buckets;
            #prefix_const
            const LAYOUT: &'static __rk::Layout = &__LAYOUT;
            #[inline]
            fn encoded_len(&self) -> usize {
                #encoded_len
            }
            #inline
            fn encode_into(&self, __out: &mut [u8]) -> __rk::Result<usize, __rk::EncodeError> {
                #claim
                #write_prefix
                #(#encode_fields)*
                #salt_write
                #end
            }
        }
        #[automatically_derived]
        impl<'__de> __rk::DecodeRowKey<'__de> for #name #de_lifetimes #de_where {
            #[inline]
            fn decode(__input: &'__de [u8]) -> __rk::Result<Self, __rk::DecodeError> {
                #decode_body
            }
        }
    }
}

/// A fixed-width key that cannot fail to encode and borrows nothing is a
/// field type too (a nested key): `FixedField` over its own encoding.
pub(crate) fn nested_impl(l: &Model<'_>) -> Option<TokenStream> {
    let node = l.input.original;
    let nestable =
        l.all_fixed() && !l.can_fail(l.fields.len()) && node.generics.lifetimes().next().is_none();
    if !nestable {
        return None;
    }
    let name = &node.ident;
    Some(quote! {
        #[automatically_derived]
        impl __rk::FixedField for #name {
            type Bytes = [u8; #name::LEN];
            #[inline]
            fn to_key_bytes(&self) -> Self::Bytes {
                self.encode()
            }
            #[inline]
            fn from_key_bytes(__b: Self::Bytes) -> __rk::Result<Self, __rk::FieldError> {
                <Self as __rk::DecodeRowKey<'_>>::decode(&__b).map_err(__rk::nested_error)
            }
        }
    })
}

/// `encode_into`'s salt in a binary or text key: the bucket of the `by`
/// fields' stored bytes, written after the prefix.
fn binary_salt_write(
    l: &Model<'_>,
    pos: &[TokenStream],
    salt_out: &TokenStream,
) -> Option<TokenStream> {
    l.salt.as_ref().map(|s| {
        let buckets = Literal::u16_unsuffixed(s.buckets);
        let bucket = if s.hash == Hash::Mod {
            let ident = l.fields[s.by[0]].ident;
            quote!(__rk::salt_mod(&self.#ident, #buckets))
        } else {
            // Each run of adjacent `by` fields is one slice of the key,
            // without the separator that ends its last field; runs are
            // joined by the separator (text keys), as in the key.
            let mut slices = Vec::new();
            for (j, &(a, b)) in s.runs.iter().enumerate() {
                if j > 0 && l.is_text() {
                    slices.push(quote!(<__Sep as __rk::Sep>::SEP));
                }
                let trim = l.fields[b - 1].sep_len;
                let (a, b) = (&pos[a], &pos[b]);
                slices.push(if trim > 0 {
                    quote!(&__out[#a..#b - #trim])
                } else {
                    quote!(&__out[#a..#b])
                });
            }
            let hash = hasher(s.hash);
            quote!(__rk::salt::<#hash>(&[#(#slices),*], #buckets))
        };
        if l.prefix_len() > 0 {
            // The bucket reads the key: compute it before borrowing the
            // salt's place after the prefix.
            quote! {
                let __b = #bucket;
                __Salt::write(#salt_out, __b);
            }
        } else {
            quote!(__Salt::write(#salt_out, #bucket);)
        }
    })
}
