//! Emits `RowKey::LAYOUT`: the layout model as a const descriptor of the
//! runtime (`rowkey_core::layout`), with each field's reader for
//! `explain`. Widths come from the codecs' consts, so a user type's width
//! is the compiler's, not a guess.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::attr::Hash;
use crate::model::{Arg, Codec, FieldModel, KeyFormat, Model};
use crate::tokens::{layout_alias, respan, static_lifetimes, unit_type_name};
use crate::validate::type_text;

/// `__LAYOUT`, a const beside the struct's `RowKey` impl (outside it, so
/// that its field array is a constant with a `'static` life; the field
/// types it names have their lifetimes set to `'static`), which sets
/// `LAYOUT` to `&__LAYOUT`.
pub fn layout_const(l: &Model<'_>) -> TokenStream {
    let name = l.input.original.ident.to_string();
    let format = match &l.format {
        KeyFormat::Binary => quote!(Binary),
        KeyFormat::Text { sep } => {
            let sep = String::from_utf8_lossy(sep).into_owned();
            quote!(Text { sep: #sep })
        }
        KeyFormat::OrderedCode => quote!(OrderedCode),
    };
    let prefix = Literal::byte_string(l.prefix.as_deref().unwrap_or_default());
    let salt = match &l.salt {
        None => None,
        Some(s) => {
            let buckets = Literal::u16_unsuffixed(s.buckets);
            let hash = match s.hash {
                Hash::Xxh3 => quote!(Xxh3),
                Hash::Java => quote!(Java),
                Hash::Mod => quote!(Mod),
            };
            let by = s.by.iter().map(|&i| &l.fields[i].name);
            Some(quote!(, salt(#buckets, #hash, [#(#by),*])))
        }
    };
    let fields = l
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| field(layout_alias(l, i), f));
    quote! {
        const __FIELDS: &[__rk::FieldLayout] = &[#(#fields),*];
        __rk::layout!(#name, #format, #prefix #salt);
    }
}

/// One field's descriptor, its width and reader through the codec `k`.
fn field(k: syn::Ident, f: &FieldModel<'_>) -> TokenStream {
    let name = &f.name;
    let ty_text = type_text(f.ty);
    let wrap = |inner: &str| {
        if f.option {
            format!("Option<{inner}>")
        } else {
            inner.to_owned()
        }
    };
    // The type as far as the bytes go: every string type is `str`.
    let kind = match f.arg {
        Arg::Str => wrap("str"),
        Arg::Bytes => wrap("bytes"),
        Arg::Value(_) => ty_text.clone(),
    };
    let desc = f.desc;
    let encoding = match f.codec {
        Codec::Fixed => quote!(BigEndian { desc: #desc }),
        Codec::DescTs => quote!(DescTs),
        Codec::Padded { len, pad } => {
            let (len, pad) = (Literal::usize_unsuffixed(len), Literal::u8_unsuffixed(pad));
            quote!(Padded { len: #len, pad: #pad, desc: #desc })
        }
        Codec::Var { raw: true } => quote!(Raw),
        Codec::Var { raw: false } => quote!(Escaped { desc: #desc }),
        Codec::Dec { digits, signed } => {
            let digits = Literal::usize_unsuffixed(digits);
            quote!(Digits { digits: #digits, signed: #signed, desc: #desc })
        }
        Codec::DecUser { digits } => {
            let digits = match digits {
                Some(d) => Literal::usize_unsuffixed(d).into_token_stream(),
                None => {
                    let ty = static_lifetimes(f.ty);
                    quote!(<#ty as __rk::Decimal>::DIGITS)
                }
            };
            quote!(Digits { digits: #digits, signed: false, desc: #desc })
        }
        Codec::TextDescTs { digits, max } => {
            let (digits, max) = (
                Literal::usize_unsuffixed(digits),
                Literal::u64_unsuffixed(max),
            );
            quote!(DescTsDigits { digits: #digits, max: #max })
        }
        Codec::Delimited => quote!(Delimited),
        Codec::Chars => quote!(TextForm),
        Codec::NotText => unreachable!("validate.rs rejects types with no text form"),
        Codec::OcInt | Codec::OcStr => quote!(OrderedCode { desc: #desc }),
    };
    let ty = static_lifetimes(f.ty);
    // Through the codec trait's own const, at the field: a type that is no
    // field type is reported once, by encode and decode, not again here.
    let width = respan(quote!(<#k as __Codec<#ty>>::LAYOUT_WIDTH), f.span);
    let flags = Literal::u8_unsuffixed(
        u8::from(f.option)
            | u8::from(f.added) << 1
            | u8::from(f.reverse) << 2
            | u8::from(f.reverse_domain) << 3,
    );
    let sep_len = Literal::usize_unsuffixed(f.sep_len);
    // What explain decodes the field as: strings as owned values (the key
    // may be a local copy of pasted text), other types as themselves.
    let reader = match f.arg {
        Arg::Str | Arg::Bytes => {
            let owned = if matches!(f.arg, Arg::Str) {
                quote!(__rk::String)
            } else {
                quote!(__rk::Vec<u8>)
            };
            let owned = if f.option {
                quote!(__rk::Option<#owned>)
            } else {
                owned
            };
            quote!(__rk::read::<#k, #owned>)
        }
        Arg::Value(_) if f.builtin => quote!(__rk::read::<#k, #ty>),
        Arg::Value(_) => quote!(__rk::read_opaque::<#k, #ty>),
    };
    let reader = respan(reader, f.span);
    let kind = (kind != ty_text).then(|| quote!(as #kind));
    let unit = f.time.map(|unit| {
        let unit = format_ident!("{}", unit_type_name(unit));
        quote!(, #unit)
    });
    // A user type may be a `KeyField` enum: the descriptor carries its
    // repr and variants (the codec forwards the type's `KEY_FIELD`).
    let key_field = (matches!(f.arg, Arg::Value(_)) && !f.builtin && f.time.is_none()).then(|| {
        let info = respan(quote!(<#k as __Codec<#ty>>::KEY_FIELD), f.span);
        quote!(.__key_field(#info))
    });
    quote! {
        __rk::field!(#name, #ty_text #kind, #encoding, #width, #reader, #flags, #sep_len #unit)
            #key_field
    }
}
