//! Token helpers the expansion steps share (the names of generated aliases,
//! spans, lifetimes, length sums): below every step, so `expand.rs` calls
//! the steps and none of them calls back up into it.

use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Ident, Lifetime, Type};

use crate::attr::Hash;
use crate::model::Model;

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
pub(crate) fn unit_type(unit: &str) -> TokenStream {
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
