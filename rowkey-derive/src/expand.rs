//! Code generation only: the layout model (`layout.rs`) made every decision
//! and `validate.rs` checked it. One function per group of emitted items:
//! the trait impls, the fixed-width items, the salt items, the scans.
//!
//! The expansion calls small helpers in `rowkey_core::__private`, aliased
//! once as `__rk`, and names each field's codec once, as a type alias
//! `__K<i>`. Its size is linear in the number of fields: each scan extends
//! the prefix its shorter sibling built.

use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{DeriveInput, Ident, Lifetime, Type};

use crate::ast::Input;
use crate::attr::Hash;
use crate::ctxt::Ctxt;
use crate::impls::{nested_impl, trait_impls};
use crate::model::{self, Codec, FieldModel, KeyFormat, Model};
use crate::scans::scans;
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

/// For an added field `i`: the condition under which it is written, that
/// it or an added field after it is `Some` (trailing `None`s are absent,
/// as in keys written before they were added).
pub(crate) fn added_written(l: &Model<'_>, i: usize) -> Option<TokenStream> {
    if !l.fields[i].added {
        return None;
    }
    let later = l.fields[i..].iter().map(|f| {
        let ident = f.ident;
        quote!(self.#ident.is_some())
    });
    Some(quote!(#(#later)||*))
}

/// The codec type of field `i`: `__K<i>`.
pub(crate) fn codec_alias(i: usize) -> Ident {
    format_ident!("__K{}", i)
}

/// The codec that reads field `i` and gives its width: `__K<i>`, or in an
/// ordered-code key, for an ascending field that may be the last one a key
/// writes, its codec for that case, `__L<i>` (which also reads a field
/// ended by the key's end).
pub(crate) fn layout_alias(l: &Model<'_>, i: usize) -> Ident {
    match l.oc_may_end_from() {
        // A descending field is terminated even when it is last.
        Some(from) if i >= from && !l.fields[i].desc => format_ident!("__L{}", i),
        _ => codec_alias(i),
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

/// The runtime's name for a `#[ts]` unit: `Millis` (a codec marker type
/// and a `TimeUnit` variant).
pub(crate) fn unit_type_name(unit: &str) -> &'static str {
    match unit {
        "secs" => "Secs",
        "micros" => "Micros",
        "nanos" => "Nanos",
        _ => "Millis",
    }
}

/// The codec marker type of a `#[ts]` unit: `__rk::Millis`.
fn unit_type(unit: &str) -> TokenStream {
    let ident = format_ident!("{}", unit_type_name(unit));
    quote!(__rk::#ident)
}

/// Gives every token the location of `span`, so that an error in the
/// generated code for a field, such as a type that is not a field type,
/// points at that field. Each token keeps its own name resolution: the
/// generated tokens resolve at the call site as before, and an identifier
/// from the input (a field's name, used as a local variable) keeps its
/// hygiene, which matters when the struct is written by a `macro_rules!`
/// macro (its field names then live in the macro caller's context).
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(g.span().located_at(span));
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(tt.span().located_at(span));
            }
            tt
        })
        .collect()
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

/// The key's length in a const context: the salt byte plus every field's
/// width (all fixed) or minimum width.
pub(crate) fn len_expr(l: &Model<'_>, width: &str) -> TokenStream {
    sum(l.head_len(), field_lens(l, width))
}

/// Each field's width (or minimum width) in a const context.
pub(crate) fn field_lens(l: &Model<'_>, width: &str) -> Vec<TokenStream> {
    let width = format_ident!("{}", width);
    l.fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (k, t) = (layout_alias(l, i), static_lifetimes(f.ty));
            respan(quote!(<#k as __Codec<#t>>::#width), f.span)
        })
        .collect()
}

/// `head + a + b`, or `a + b` when `head` is 0 (no `0 +` for clippy to
/// point at in users' crates).
pub(crate) fn sum(head: usize, terms: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let mut terms: Vec<TokenStream> = terms.into_iter().collect();
    if head > 0 || terms.is_empty() {
        terms.insert(0, Literal::usize_unsuffixed(head).into_token_stream());
    }
    quote!(#(#terms)+*)
}

pub(crate) fn hasher(hash: Hash) -> TokenStream {
    match hash {
        Hash::Xxh3 => quote!(__rk::Xxh3),
        Hash::Java => quote!(__rk::JavaHash),
        Hash::Mod => unreachable!("the mod salt hashes nothing"),
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

/// Replaces the lifetimes in a type; `'static` too unless `keep_static`.
struct SetLifetimes {
    to: Lifetime,
    keep_static: bool,
}

impl VisitMut for SetLifetimes {
    fn visit_lifetime_mut(&mut self, l: &mut Lifetime) {
        if !(self.keep_static && l.ident == "static") {
            *l = self.to.clone();
        }
    }
}

/// Whether a type mentions `'static`.
pub(crate) fn type_has_static(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_lifetime(&mut self, l: &'ast Lifetime) {
            self.0 |= l.ident == "static";
        }
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_type(&mut f, ty);
    f.0
}

/// The type with every lifetime `'static`: for consts.
pub(crate) fn static_lifetimes(ty: &Type) -> Type {
    set_lifetimes(ty, "'static", false)
}

/// The type with the struct's lifetimes replaced by the decoder's `'__de`
/// (a `&'static str` field stays `'static`).
pub(crate) fn decode_lifetimes(ty: &Type) -> Type {
    set_lifetimes(ty, "'__de", true)
}

fn set_lifetimes(ty: &Type, to: &str, keep_static: bool) -> Type {
    let mut ty = ty.clone();
    let to = Lifetime::new(to, Span::call_site());
    SetLifetimes { to, keep_static }.visit_type_mut(&mut ty);
    ty
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
