//! Code generation only: the layout model (`layout.rs`) made every decision
//! and `validate.rs` checked it. One function per group of emitted items:
//! the trait impls, the fixed-width items, the salt items, the scans.
//!
//! The expansion calls small helpers in `rowkey_core::__private`, aliased
//! once as `__rk`, and names each field's codec once, as a type alias
//! `__K<i>`. Its size is linear in the number of fields: each scan extends
//! the prefix its shorter sibling built.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{DeriveInput, Ident};

use crate::ast::Input;
use crate::attr::Hash;
use crate::ctxt::Ctxt;
use crate::impls::{nested_impl, trait_impls};
use crate::model::{self, Codec, FieldModel, KeyFormat, Model};
use crate::scans::scans;
use crate::tokens::{
    codec_alias, field_lens, hasher, layout_alias, len_expr, static_lifetimes, sum, unit_type,
};
use crate::{fallback, validate};

pub fn derive(node: &DeriveInput) -> TokenStream {
    if let syn::Data::Enum(data) = &node.data {
        return crate::family::derive(node, data);
    }
    let cx = Ctxt::new();
    let input = Input::from_syn(&cx, node);
    let layout = input.as_ref().map(Model::new);
    if let Some(layout) = &layout {
        validate::check(&cx, layout);
    }
    match (cx.check(), layout) {
        (Ok(()), Some(layout)) => expand(&layout),
        (Err(err), layout) => {
            let krate = layout
                .as_ref()
                .map_or_else(model::default_crate, |l| l.krate.clone());
            let mut out = err.to_compile_error();
            out.extend(fallback::expand(node, &krate, layout.as_ref()));
            out
        }
        (Ok(()), None) => unreachable!("Input::from_syn failed without an error"),
    }
}

fn expand(l: &Model<'_>) -> TokenStream {
    let krate = &l.krate;
    let node = l.input.original;
    let name = &node.ident;
    let (impl_generics, ty_generics, _) = node.generics.split_for_impl();
    let aliases = l.fields.iter().enumerate().map(|(i, f)| {
        let (alias, codec) = (codec_alias(i), codec(f));
        // An ordered-code field that may be the last a key writes has a
        // second codec for that case.
        let last = (layout_alias(l, i) != alias).then(|| {
            let (alias, codec) = (layout_alias(l, i), crate::ordered_code::codec(f, true));
            quote!(type #alias = #codec;)
        });
        quote!(type #alias = #codec; #last)
    });
    let sep = match &l.format {
        KeyFormat::Binary | KeyFormat::OrderedCode => None,
        KeyFormat::Text { sep } => {
            let sep = Literal::byte_string(sep);
            Some(quote! {
                struct __Sep;
                impl __rk::Sep for __Sep {
                    const SEP: &'static [u8] = #sep;
                }
            })
        }
    };
    let salt_head = l.salt.as_ref().map(|s| {
        let head = match s.digits {
            None if l.is_ordered_code() => quote!(__rk::OcSalt),
            None => quote!(__rk::ByteSalt),
            Some(d) => {
                let d = Literal::u8_unsuffixed(d as u8);
                quote!(__rk::TextSalt<__Sep, #d>)
            }
        };
        quote!(type __Salt = #head;)
    });
    let trait_impls = trait_impls(l);
    let layout = crate::descriptor::layout_const(l);
    let nested = nested_impl(l);
    let text_items = l.is_text().then(text_items);
    let fixed_items = l.all_fixed().then(|| fixed_items(l));
    let salt_items = salt_items(l);
    let (scans, no_range_markers) = scans(l);
    let (filter_decl, filter_items, filter_ctor) = crate::filter::filter(l);
    let length_checks = length_assertions(l);
    // A scan over every field takes a parameter per field: clippy objects
    // past 7.
    let allow_many_args =
        (l.fields.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    quote! {
        #filter_decl
        #allow_many_args
        const _: () = {
            use #krate::__private::{self as __rk, traits::*};
            #sep
            #salt_head
            #(#aliases)*
            #layout
            #no_range_markers
            #trait_impls
            #nested
            #filter_items
            #[automatically_derived]
            impl #impl_generics #name #ty_generics {
                #text_items
                #fixed_items
                #salt_items
                #scans
                #filter_ctor
            }
            #length_checks
        };
    }
}

/// The runtime codec type of a field, with named markers for its order,
/// byte direction and frame.
pub(crate) fn codec(f: &FieldModel<'_>) -> TokenStream {
    let order = if f.desc {
        quote!(__rk::Desc)
    } else {
        quote!(__rk::Asc)
    };
    let dir = if f.reverse {
        quote!(__rk::Rev)
    } else if f.reverse_domain {
        quote!(__rk::Dom)
    } else {
        quote!(__rk::Fwd)
    };
    let base = match f.codec {
        Codec::Fixed => quote!(__rk::Fixed<#order, #dir>),
        Codec::DescTs => quote!(__rk::DescTs),
        Codec::Padded { len, pad } => {
            let (len, pad) = (Literal::usize_unsuffixed(len), Literal::u8_unsuffixed(pad));
            quote!(__rk::Padded<#len, #pad, #order, #dir>)
        }
        Codec::Var { raw } => {
            let frame = if raw {
                quote!(__rk::Raw)
            } else {
                quote!(__rk::Escaped)
            };
            quote!(__rk::Var<#frame, #order, #dir>)
        }
        Codec::Dec { digits, .. } => {
            let digits = Literal::usize_unsuffixed(digits);
            quote!(__rk::Dec<#digits, #order, #dir>)
        }
        Codec::DecUser { digits } => {
            let digits = match digits {
                Some(d) => Literal::usize_unsuffixed(d).into_token_stream(),
                None => {
                    let ty = static_lifetimes(f.ty);
                    quote!({ <#ty as __rk::Decimal>::DIGITS })
                }
            };
            quote!(__rk::Dec<#digits, #order, #dir>)
        }
        Codec::TextDescTs { digits, max } => {
            let (digits, max) = (
                Literal::usize_unsuffixed(digits),
                Literal::u64_unsuffixed(max),
            );
            quote!(__rk::TextDescTs<#digits, #max>)
        }
        Codec::Chars => quote!(__rk::Chars<#dir>),
        // The separator is part of a delimited string.
        Codec::Delimited => return quote!(__rk::Delimited<__Sep, #dir>),
        Codec::NotText => unreachable!("validate.rs rejects types with no text form"),
        Codec::OcInt | Codec::OcStr => return crate::ordered_code::codec(f, false),
    };
    // A timestamp: the value as an i64 of its unit, then the i64 codec.
    let base = match f.time {
        Some(unit) => {
            let unit = unit_type(unit);
            quote!(__rk::Ts<#unit, #base>)
        }
        None => base,
    };
    let base = if f.sep_len > 0 {
        quote!(__rk::Then<#base, __Sep>)
    } else {
        base
    };
    // The Option tag follows the field's order, so `None` sorts first
    // ascending and last descending.
    let base = if f.option {
        quote!(__rk::Opt<#base, #order>)
    } else {
        base
    };
    // An added field decodes as `None` where the key ends before it.
    if f.added {
        quote!(__rk::Added<#base>)
    } else {
        base
    }
}

/// `expr?` where the caller may fail, `__rk::infallible(expr)` where the
/// layout proved that it cannot.
fn unwrap(fallible: bool, expr: TokenStream) -> TokenStream {
    if fallible {
        quote!(#expr?)
    } else {
        quote!(__rk::infallible(#expr))
    }
}

/// `LEN`, `try_encode` and (when no field can fail) `encode`.
fn fixed_items(l: &Model<'_>) -> TokenStream {
    let len = len_expr(l, "WIDTH");
    // An array length cannot name `Self` in a struct with lifetimes.
    let len_ty = if l.input.original.generics.lifetimes().next().is_some() {
        len.clone()
    } else {
        quote!(Self::LEN)
    };
    let encode = (!l.can_fail(l.fields.len())).then(|| {
        quote! {
            /// The key as a fixed-size array: no field of this layout can fail to encode.
            #[inline(always)]
            pub fn encode(&self) -> [u8; #len_ty] {
                let mut __buf = [0u8; #len_ty];
                __rk::infallible(__rk::RowKey::encode_into(self, &mut __buf));
                __buf
            }
        }
    });
    quote! {
        /// The length of every key of this layout, in bytes.
        pub const LEN: usize = #len;
        /// The key as a fixed-size array, or the field that cannot be encoded.
        #[inline(always)]
        pub fn try_encode(&self) -> __rk::Result<[u8; #len_ty], __rk::EncodeError> {
            let mut __buf = [0u8; #len_ty];
            __rk::RowKey::encode_into(self, &mut __buf).map(|_| __buf)
        }
        #encode
    }
}

/// `bucket`, `try_bucket` and the helper that hashes the `by` fields,
/// generic over their types so that scans call it with their arguments.
fn salt_items(l: &Model<'_>) -> Option<TokenStream> {
    if l.is_ordered_code() {
        return crate::ordered_code::salt_items(l);
    }
    let s = l.salt.as_ref()?;
    let by: Vec<(usize, &FieldModel<'_>)> = s.by.iter().map(|&i| (i, &l.fields[i])).collect();
    let tparams: Vec<Ident> = (0..by.len()).map(|j| format_ident!("__T{}", j)).collect();
    let params = by.iter().zip(&tparams).map(|((_, f), t)| {
        let ident = f.ident;
        quote!(#ident: &#t)
    });
    let bounds = by.iter().zip(&tparams).map(|((i, _), t)| {
        let k = codec_alias(*i);
        quote!(#k: __Codec<#t>)
    });
    let buf = if s.by_fixed {
        let widths = by.iter().map(|(i, f)| {
            let (k, t) = (codec_alias(*i), static_lifetimes(f.ty));
            quote!(<#k as __Codec<#t>>::WIDTH)
        });
        let len = sum(0, widths);
        quote!([0u8; #len])
    } else {
        let lens = by.iter().map(|(i, f)| {
            let (k, ident) = (codec_alias(*i), f.ident);
            quote!(#k::encoded_len(#ident))
        });
        let len = sum(0, lens);
        quote!(__rk::zeroed(#len))
    };
    let writes = by.iter().enumerate().map(|(j, (i, f))| {
        let (k, ident, fname) = (codec_alias(*i), f.ident, &f.name);
        let at = if j == 0 { quote!(0) } else { quote!(__p) };
        let call = quote!(#k::encode(#ident, &mut __buf, #at, #fname));
        let call = unwrap(s.by_can_fail, call);
        quote!(let __p = #call;)
    });
    let buckets = Literal::u16_unsuffixed(s.buckets);
    // The separator that ends the last `by` field is not hashed.
    let trim = by.last().map_or(0, |(_, f)| f.sep_len);
    let end = if trim > 0 {
        quote!(__p - #trim)
    } else {
        quote!(__p)
    };
    let body = if s.hash == Hash::Mod {
        let ident = by[0].1.ident;
        quote!(__rk::salt_mod(#ident, #buckets))
    } else {
        let hash = hasher(s.hash);
        quote! {
            let mut __buf = #buf;
            #(#writes)*
            __rk::salt::<#hash>(&[&__buf[..#end]], #buckets)
        }
    };
    let bounds: Vec<TokenStream> = if s.hash == Hash::Mod {
        vec![quote!(__T0: __rk::ModSalt)]
    } else {
        bounds.collect()
    };
    let (ret, bucket) = if s.by_can_fail {
        (
            quote!(__rk::Result<u8, __rk::EncodeError>),
            quote!(__rk::Result::Ok({ #body })),
        )
    } else {
        (quote!(u8), body)
    };
    let args: Vec<TokenStream> = by
        .iter()
        .map(|(_, f)| {
            let ident = f.ident;
            quote!(&self.#ident)
        })
        .collect();
    let (try_bucket, bucket_fn) = if s.by_can_fail {
        (quote!(Self::__rk_bucket(#(#args),*)), None)
    } else {
        let bucket_fn = quote! {
            /// The salt bucket of this key, from the `by` fields alone.
            #[inline]
            pub fn bucket(&self) -> u8 {
                Self::__rk_bucket(#(#args),*)
            }
        };
        (
            quote!(__rk::Result::Ok(Self::__rk_bucket(#(#args),*))),
            Some(bucket_fn),
        )
    };
    let items = quote! {
        #[inline]
        fn __rk_bucket<#(#tparams: ?Sized),*>(#(#params),*) -> #ret
        where #(#bounds),*
        {
            #bucket
        }
        /// The salt bucket of this key, or the `by` field that cannot be encoded.
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            #try_bucket
        }
        #bucket_fn
    };
    Some(if s.by_fixed {
        items
    } else {
        quote!(__rk::if_alloc! { #items })
    })
}

/// Const assertions for the length limits when a field's width is only
/// known to the compiler (otherwise `validate.rs` checked them with exact
/// messages).
fn length_assertions(l: &Model<'_>) -> TokenStream {
    if !l.len.unknown {
        return TokenStream::new();
    }
    let attrs = &l.input.attrs;
    let parts = &l.len.parts;
    let all_fixed = l.all_fixed();
    let width = if all_fixed { "WIDTH" } else { "MIN_LEN" };
    let key_len = len_expr(l, width);
    // The limits compare the fields' widths with what the prefix and salt
    // leave (`a <= 32766`, not `1 + a <= 32767`, which clippy flags).
    let (head, fields_len) = (l.head_len(), sum(0, field_lens(l, width)));
    let fits = |limit: usize| {
        let rest = Literal::usize_unsuffixed(limit.saturating_sub(head));
        if limit < head {
            quote!(false)
        } else {
            quote!(#fields_len <= #rest)
        }
    };
    let least = if all_fixed { "" } else { "at least " };
    let mut out = TokenStream::new();
    if let Some(lit) = &attrs.max_len {
        let msg = format!(
            "row key is {least}longer than max_len = {} ({parts})",
            lit.base10_digits()
        );
        let ok = fits(lit.base10_parse().unwrap_or(usize::MAX));
        out.extend(quote_spanned!(lit.span()=> const _: () = ::core::assert!(#ok, #msg);));
    }
    if let (Some(lit), true) = (&attrs.align, all_fixed) {
        let msg = format!(
            "row key length is not a multiple of align = {} ({parts})",
            lit.base10_digits()
        );
        // Unsuffixed (`align = 8u8` is the number 8, not a `u8`), and the
        // whole length taken modulo: `(a + b) % 8`, not `a + b % 8`.
        let align = Literal::usize_unsuffixed(lit.base10_parse().unwrap_or(1));
        out.extend(
            quote_spanned!(lit.span()=> const _: () = ::core::assert!((#key_len) % #align == 0, #msg);),
        );
    }
    let limit = validate::HBASE_MAX_KEY;
    let msg = format!("row key is {least}longer than HBase's limit of {limit} bytes ({parts})");
    let span = l.input.original.ident.span();
    let ok = fits(limit);
    out.extend(quote_spanned!(span=> const _: () = ::core::assert!(#ok, #msg);));
    out
}

/// `encode_to_string` and `decode_str`: a text key as the text it is.
fn text_items() -> TokenStream {
    quote! {
        __rk::if_alloc! {
            /// The key as a `String`: a text key is UTF-8 (ASCII digits,
            /// separators and the string fields' text; an error where a
            /// user's `TextForm` wrote other bytes).
            #[inline]
            pub fn encode_to_string(&self) -> __rk::Result<__rk::String, __rk::EncodeError> {
                __rk::RowKey::encode_to_vec(self).and_then(__rk::text_key)
            }
        }
        /// Decodes a text key from a `&str` (as printed by the HBase shell
        /// or `cbt` for a readable key).
        #[inline]
        pub fn decode_str<'__de>(__input: &'__de str) -> __rk::Result<Self, __rk::DecodeError>
        where
            Self: __rk::DecodeRowKey<'__de>,
        {
            <Self as __rk::DecodeRowKey<'__de>>::decode(__input.as_bytes())
        }
    }
}
