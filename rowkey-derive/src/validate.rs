//! Rules that look at more than one attribute or field: conflicts, salt
//! `by` fields, types that an attribute cannot apply to.

use std::collections::HashSet;

use quote::ToTokens;
use syn::GenericParam;

use crate::ast::{self, Input, Kind};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, input: &Input) {
    check_generics(cx, input);
    if input.fields.is_empty() {
        cx.error_spanned_by(
            &input.original.ident,
            "#[derive(RowKey)] needs at least one field: a row key with no fields would be empty",
        );
    }
    for field in &input.fields {
        check_field(cx, field);
    }
    check_salt(cx, input);
}

fn check_generics(cx: &Ctxt, input: &Input) {
    for param in &input.original.generics.params {
        match param {
            GenericParam::Lifetime(_) => {}
            GenericParam::Type(t) => cx.error_spanned_by(
                t,
                "#[derive(RowKey)] does not support type parameters: a row key's byte layout must be known when the struct is defined; use a concrete type",
            ),
            GenericParam::Const(c) => cx.error_spanned_by(
                c,
                "#[derive(RowKey)] does not support const parameters: a row key's byte layout must be known when the struct is defined",
            ),
        }
    }
}

/// A type as the user wrote it, without the spaces token printing adds.
pub fn type_text(ty: &syn::Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let chars: Vec<char> = raw.chars().collect();
    let tight = |c: Option<&char>| c.is_some_and(|c| "<>[]&()".contains(*c));
    let mut out = String::with_capacity(raw.len());
    for (i, c) in chars.iter().enumerate() {
        if *c == ' ' && (tight(i.checked_sub(1).and_then(|j| chars.get(j))) || tight(chars.get(i + 1))) {
            continue;
        }
        out.push(*c);
    }
    out
}

fn check_field(cx: &Ctxt, field: &ast::Field) {
    let a = &field.attrs;
    let shape = &field.shape;
    if shape.option && ast::generic_arg(shape.inner, "Option").is_some() {
        cx.error_spanned_by(
            &field.original.ty,
            "nested Option is not supported: `None` and `Some(None)` would need two tags; use one Option",
        );
    }
    if let Some(fixed) = &a.fixed {
        if shape.kind == Kind::Fixed {
            cx.syn_error(syn::Error::new(
                fixed.span,
                format!(
                    "#[fixed] pads strings and byte strings (String, &str, Vec<u8>, &[u8], Cow); `{}` is fixed-width already",
                    type_text(shape.inner)
                ),
            ));
        }
    }
    if let Some(span) = a.desc_ts {
        if shape.kind != Kind::Fixed || ast::timestamp_int(shape.inner).is_none() {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "#[desc_ts] stores MAX - ts and needs an i64, u64, i32 or u32 field; `{}` is not one (use #[desc] to sort other types descending)",
                    type_text(shape.inner)
                ),
            ));
        }
        if let Some(desc) = a.desc {
            cx.syn_error(syn::Error::new(
                desc,
                "#[desc] with #[desc_ts]: #[desc_ts] already sorts newest first; keep one of them",
            ));
        }
        if let Some(rev) = a.reverse {
            cx.syn_error(syn::Error::new(
                rev,
                "#[reverse] with #[desc_ts]: reversing the bytes would destroy the newest-first order; keep one of them",
            ));
        }
    }
    if let Kind::Var(var) = shape.kind {
        if var.borrowed {
            for (name, span) in [("desc", a.desc), ("reverse", a.reverse)] {
                if let Some(span) = span {
                    cx.syn_error(syn::Error::new(
                        span,
                        format!(
                            "#[{name}] on a borrowed `{}` field: the stored bytes are transformed, so decoding cannot borrow them; use String, Vec<u8> or Cow",
                            type_text(shape.inner)
                        ),
                    ));
                }
            }
        }
    }
}

fn check_salt(cx: &Ctxt, input: &Input) {
    let Some(salt) = &input.attrs.salt else { return };
    let Some(by) = &salt.by else { return };
    let names: Vec<String> = input.fields.iter().map(|f| f.ident.to_string()).collect();
    let mut seen = HashSet::new();
    for ident in by {
        let name = ident.to_string();
        if !names.contains(&name) {
            let hint = crate::ctxt::did_you_mean(&name, &names.iter().map(String::as_str).collect::<Vec<_>>())
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            cx.error_spanned_by(ident, format!("#[salt(by(...))] names `{name}`, which is not a field of this struct{hint}"));
        } else if !seen.insert(name.clone()) {
            cx.error_spanned_by(ident, format!("#[salt(by(...))] names `{name}` twice"));
        }
    }
}
