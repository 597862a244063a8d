//! Attribute parsing. Each attribute is parsed where it stands; duplicates
//! and unknown keys are rejected here, rules that involve more than one
//! attribute or field live in `validate.rs`.

use syn::{Attribute, Ident, LitByte, LitInt, LitStr, Token};

use crate::ctxt::{did_you_mean, Ctxt};

pub const ROWKEY: &str = "rowkey";
pub const SALT: &str = "salt";
pub const FIXED: &str = "fixed";
pub const DESC: &str = "desc";
pub const DESC_TS: &str = "desc_ts";
pub const REVERSE: &str = "reverse";
pub const DIGITS: &str = "digits";
pub const REVERSE_DOMAIN: &str = "reverse_domain";
/// `#[rowkey(added)]` on a field.
pub const ADDED: &str = "added";
pub const TS: &str = "ts";

const FIELD_ATTRS: &[&str] = &[FIXED, DESC, DESC_TS, REVERSE, DIGITS, REVERSE_DOMAIN, TS];
/// The units of `#[ts(...)]`.
pub const UNITS: &[&str] = &["secs", "millis", "micros", "nanos"];
const SALT_KEYS: &[&str] = &["buckets", "by", "hash"];
const ROWKEY_KEYS: &[&str] = &[
    "crate",
    "max_len",
    "align",
    "text",
    "sep",
    "prefix",
    "ordered_code",
];
const HASHES: &[&str] = &["xxh3", "java", "mod"];

/// The most digits a text key's integer can have: `u128::MAX` has 39.
pub const MAX_DIGITS: usize = 39;

/// The largest number of salt buckets: the salt is one byte.
pub const MAX_BUCKETS: u32 = 256;

#[derive(Default)]
pub struct StructAttrs {
    pub salt: Option<Salt>,
    pub crate_path: Option<syn::Path>,
    pub max_len: Option<LitInt>,
    pub align: Option<LitInt>,
    /// `#[rowkey(text)]`: the word, for spans.
    pub text: Option<Ident>,
    /// `#[rowkey(ordered_code)]`: the word, for spans.
    pub ordered_code: Option<Ident>,
    /// `#[rowkey(sep = "_")]`: the literal and its bytes.
    pub sep: Option<(LitStr, Vec<u8>)>,
    /// `#[rowkey(prefix = "D")]` or `prefix = b"D"`: the literal and its
    /// bytes.
    pub prefix: Option<(syn::Lit, Vec<u8>)>,
}

pub struct Salt {
    pub buckets: u16,
    /// The `buckets = N` literal, for errors about the count.
    pub buckets_lit: Option<LitInt>,
    pub by: Option<Vec<Ident>>,
    pub hash: Hash,
    /// The `hash = "..."` literal, for errors about `mod`.
    pub hash_lit: Option<LitStr>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Hash {
    Xxh3,
    Java,
    /// `value % buckets` of one unsigned integer field.
    Mod,
}

/// Each attribute is kept whole, so that errors underline all of it.
#[derive(Default)]
pub struct FieldAttrs {
    pub fixed: Option<Fixed>,
    pub desc: Option<Attribute>,
    pub desc_ts: Option<Attribute>,
    pub reverse: Option<Attribute>,
    pub reverse_domain: Option<Attribute>,
    pub digits: Option<Digits>,
    /// `#[desc_ts(max = N)]`: the literal and its value.
    pub desc_ts_max: Option<(LitInt, u64)>,
    /// `#[rowkey(added)]`: the `added` word, for spans.
    pub added: Option<Ident>,
    pub ts: Option<Ts>,
}

/// `#[ts(millis)]`: a timestamp field's unit.
pub struct Ts {
    pub attr: Attribute,
    /// One of [`UNITS`].
    pub unit: &'static str,
}

pub struct Digits {
    pub attr: Attribute,
    pub lit: LitInt,
    pub n: usize,
}

pub struct Fixed {
    pub attr: Attribute,
    pub len: usize,
    pub pad: u8,
}

fn name_of(attr: &Attribute) -> Option<String> {
    attr.path().get_ident().map(|i| i.to_string())
}

fn hint(word: &str, candidates: &[&str]) -> String {
    match did_you_mean(word, candidates) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

fn list(candidates: &[&str]) -> String {
    candidates
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn struct_attrs(cx: &Ctxt, attrs: &[Attribute]) -> StructAttrs {
    let mut out = StructAttrs::default();
    for attr in attrs {
        let Some(name) = name_of(attr) else { continue };
        match name.as_str() {
            SALT => {
                if out.salt.is_some() {
                    cx.error_spanned_by(attr, "duplicate #[salt] attribute: a key has one salt");
                    continue;
                }
                out.salt = parse_salt(cx, attr);
            }
            // Several `#[rowkey(...)]` merge, as serde's attributes do; the
            // same option twice is reported where it is parsed.
            ROWKEY => parse_rowkey(cx, attr, &mut out),
            n if FIELD_ATTRS.contains(&n) => {
                cx.error_spanned_by(attr, format!("#[{n}] goes on a field, not on the struct"));
            }
            _ => {}
        }
    }
    out
}

fn parse_rowkey(cx: &Ctxt, attr: &Attribute, out: &mut StructAttrs) {
    let result = attr.parse_nested_meta(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match key.as_str() {
            "crate" => {
                let s: LitStr = meta.value()?.parse()?;
                if out.crate_path.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `crate` option");
                }
                match s.parse::<syn::Path>() {
                    Ok(p) => out.crate_path = Some(p),
                    Err(_) => cx.error_spanned_by(
                        &s,
                        "`crate` must be a path, like \"::my_crate::rowkey\"",
                    ),
                }
            }
            "text" | "ordered_code" => {
                let slot = if key == "text" {
                    &mut out.text
                } else {
                    &mut out.ordered_code
                };
                if slot.is_some() {
                    cx.error_spanned_by(&meta.path, format!("duplicate `{key}` option"));
                }
                if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    return Err(meta.error(format!("`{key}` takes no value")));
                }
                *slot = meta.path.get_ident().cloned();
            }
            "sep" => {
                let s: LitStr = meta.value()?.parse()?;
                if out.sep.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `sep` option");
                }
                let bytes = s.value().into_bytes();
                if bytes.is_empty() {
                    cx.error_spanned_by(
                        &s,
                        "the separator is empty: a text key needs one or more printable ASCII characters between its fields, like sep = \"_\"",
                    );
                } else if let Some(c) = s.value().chars().find(|c| !(' '..='~').contains(c)) {
                    cx.error_spanned_by(
                        &s,
                        format!(
                            "the separator must be printable ASCII (a space to `~`); {c:?} is not"
                        ),
                    );
                }
                out.sep = Some((s, bytes));
            }
            "prefix" => {
                let lit: syn::Lit = meta.value()?.parse()?;
                let bytes = match &lit {
                    syn::Lit::Str(s) => s.value().into_bytes(),
                    syn::Lit::ByteStr(b) => b.value(),
                    _ => {
                        return Err(syn::Error::new(
                            lit.span(),
                            "`prefix` is a string or byte string, like prefix = \"D\" or prefix = b\"\\x01\"",
                        ))
                    }
                };
                if bytes.is_empty() {
                    cx.error_spanned_by(&lit, "the family prefix is empty: it would be a prefix of every other family's keys; give it at least one byte");
                }
                if out.prefix.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `prefix` option");
                }
                out.prefix = Some((lit, bytes));
            }
            "max_len" | "align" => {
                let lit: LitInt = meta.value()?.parse()?;
                match lit.base10_parse::<usize>() {
                    Ok(0) => cx.error_spanned_by(&lit, format!("`{key}` must be at least 1")),
                    Ok(_) => {}
                    Err(e) => cx.syn_error(e),
                }
                let slot = if key == "max_len" {
                    &mut out.max_len
                } else {
                    &mut out.align
                };
                if slot.is_some() {
                    cx.error_spanned_by(&meta.path, format!("duplicate `{key}` option"));
                }
                *slot = Some(lit);
            }
            _ => {
                return Err(meta.error(format!(
                    "unknown #[rowkey] option `{}`{}; expected one of {}",
                    path_text(&meta.path),
                    hint(&key, ROWKEY_KEYS),
                    list(ROWKEY_KEYS)
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

fn path_text(path: &syn::Path) -> String {
    quote::quote!(#path).to_string().replace(' ', "")
}

fn parse_salt(cx: &Ctxt, attr: &Attribute) -> Option<Salt> {
    let mut buckets: Option<u16> = None;
    let mut buckets_lit: Option<LitInt> = None;
    let mut seen_buckets = false;
    let mut by: Option<Vec<Ident>> = None;
    let mut hash: Option<Hash> = None;
    let mut hash_lit: Option<LitStr> = None;
    let result = attr.parse_nested_meta(|meta| {
        let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        match key.as_str() {
            "buckets" => {
                let lit: LitInt = meta.value()?.parse()?;
                if seen_buckets {
                    cx.error_spanned_by(&meta.path, "duplicate `buckets` in #[salt]");
                }
                seen_buckets = true;
                buckets_lit = Some(lit.clone());
                match lit.base10_parse::<u32>() {
                    Ok(n) if (1..=MAX_BUCKETS).contains(&n) => buckets = Some(n as u16),
                    Ok(n) => cx.error_spanned_by(
                        &lit,
                        format!(
                            "#[salt(buckets = {n})] is out of range: the salt is one byte, so buckets must be 1 to {MAX_BUCKETS}"
                        ),
                    ),
                    Err(_) => cx.error_spanned_by(
                        &lit,
                        format!("`buckets` must be a whole number from 1 to {MAX_BUCKETS}"),
                    ),
                }
            }
            "by" => {
                if by.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `by(...)` in #[salt]: list all fields in one");
                }
                let content;
                syn::parenthesized!(content in meta.input);
                let fields = syn::punctuated::Punctuated::<Ident, Token![,]>::parse_terminated(&content)
                    .map_err(|e| syn::Error::new(e.span(), "`by(...)` takes field names, like `by(user_id, region)`"))?;
                if fields.is_empty() {
                    cx.error_spanned_by(&meta.path, "`by()` is empty: name the fields to hash, or leave `by` out to hash all fields");
                }
                by = Some(fields.into_iter().collect());
            }
            "hash" => {
                let s: LitStr = meta.value()?.parse()?;
                if hash.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `hash` in #[salt]");
                }
                match s.value().as_str() {
                    "xxh3" => hash = Some(Hash::Xxh3),
                    "java" => hash = Some(Hash::Java),
                    "mod" => hash = Some(Hash::Mod),
                    other => cx.error_spanned_by(
                        &s,
                        format!("unknown salt hash \"{other}\"{}; expected \"xxh3\" (default), \"java\" (Phoenix/OpenTSDB compatible) or \"mod\" (one unsigned integer field, value % buckets)", hint(other, HASHES)),
                    ),
                }
                hash_lit = Some(s);
            }
            _ => {
                return Err(meta.error(format!(
                    "unknown #[salt] option `{}`{}; expected one of {}",
                    path_text(&meta.path),
                    hint(&key, SALT_KEYS),
                    list(SALT_KEYS)
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
        return None;
    }
    if !seen_buckets {
        cx.error_spanned_by(
            attr,
            "#[salt] needs the number of buckets, like #[salt(buckets = 16)]",
        );
    }
    // With invalid buckets the error is already recorded; keep the rest of
    // the salt so that its `by` fields are still checked in this compile.
    Some(Salt {
        buckets: buckets.unwrap_or(1),
        buckets_lit,
        by,
        hash: hash.unwrap_or(Hash::Xxh3),
        hash_lit,
    })
}

pub fn field_attrs(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        let Some(name) = name_of(attr) else { continue };
        match name.as_str() {
            FIXED => {
                if out.fixed.is_some() {
                    cx.error_spanned_by(attr, "duplicate #[fixed] attribute");
                    continue;
                }
                out.fixed = parse_fixed(cx, attr);
            }
            DIGITS => {
                if out.digits.is_some() {
                    cx.error_spanned_by(attr, "duplicate #[digits] attribute");
                    continue;
                }
                out.digits = parse_digits(cx, attr);
            }
            DESC_TS if matches!(attr.meta, syn::Meta::List(_)) => {
                if out.desc_ts.is_some() {
                    cx.error_spanned_by(attr, "duplicate #[desc_ts] attribute");
                }
                out.desc_ts = Some(attr.clone());
                out.desc_ts_max = parse_desc_ts_max(cx, attr);
            }
            DESC | DESC_TS | REVERSE | REVERSE_DOMAIN => {
                if let Err(e) = attr.meta.require_path_only() {
                    cx.syn_error(syn::Error::new(
                        e.span(),
                        format!("#[{name}] takes no arguments"),
                    ));
                }
                let slot = match name.as_str() {
                    DESC => &mut out.desc,
                    DESC_TS => &mut out.desc_ts,
                    REVERSE_DOMAIN => &mut out.reverse_domain,
                    _ => &mut out.reverse,
                };
                if slot.is_some() {
                    cx.error_spanned_by(attr, format!("duplicate #[{name}] attribute"));
                }
                *slot = Some(attr.clone());
            }
            TS => {
                if out.ts.is_some() {
                    cx.error_spanned_by(
                        attr,
                        "duplicate #[ts] attribute: a timestamp has one unit",
                    );
                    continue;
                }
                out.ts = parse_ts(cx, attr);
            }
            ROWKEY => parse_field_rowkey(cx, attr, &mut out),
            SALT => {
                cx.error_spanned_by(
                    attr,
                    format!("#[{name}] goes on the struct, not on a field"),
                );
            }
            _ => {}
        }
    }
    out
}

/// `#[rowkey(added)]` on a field; every other `rowkey` key goes on the
/// struct.
fn parse_field_rowkey(cx: &Ctxt, attr: &Attribute, out: &mut FieldAttrs) {
    let result = attr.parse_nested_meta(|meta| {
        let Some(key) = meta.path.get_ident() else {
            return Err(meta.error("expected `added`"));
        };
        if key == ADDED {
            if out.added.is_some() {
                return Err(meta.error("duplicate `added`"));
            }
            if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                return Err(meta.error("`added` takes no value"));
            }
            out.added = Some(key.clone());
            Ok(())
        } else if ROWKEY_KEYS.contains(&key.to_string().as_str()) {
            Err(meta.error(format!(
                "`{key}` goes in #[rowkey(...)] on the struct; on a field, #[rowkey] takes only `added`"
            )))
        } else {
            let hint = did_you_mean(&key.to_string(), &[ADDED])
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            Err(meta.error(format!(
                "unknown field attribute key `{key}`: on a field, #[rowkey] takes only `added`{hint}"
            )))
        }
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

fn parse_fixed(cx: &Ctxt, attr: &Attribute) -> Option<Fixed> {
    let syn::Meta::List(_) = &attr.meta else {
        cx.error_spanned_by(
            attr,
            "#[fixed] needs a width, like #[fixed(8)] or #[fixed(8, pad = b' ')]",
        );
        return None;
    };
    let parsed = attr.parse_args_with(|input: syn::parse::ParseStream<'_>| {
        let len: LitInt = input.parse()?;
        let mut pad = None;
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            if key != "pad" {
                return Err(syn::Error::new(
                    key.span(),
                    format!(
                        "unknown #[fixed] option `{key}`{}; expected `pad`",
                        hint(&key.to_string(), &["pad"])
                    ),
                ));
            }
            input.parse::<Token![=]>()?;
            if pad.is_some() {
                return Err(syn::Error::new(key.span(), "duplicate `pad` in #[fixed]"));
            }
            pad = Some(if input.peek(LitByte) {
                input.parse::<LitByte>()?.value()
            } else {
                let lit: LitInt = input.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`pad` must be a byte, like b' ' or 0x20")
                })?;
                lit.base10_parse::<u8>().map_err(|_| {
                    syn::Error::new(
                        lit.span(),
                        "`pad` must be a byte (0 to 255), like b' ' or 0x20",
                    )
                })?
            });
        }
        Ok((len, pad.unwrap_or(0)))
    });
    match parsed {
        Ok((lit, pad)) => match lit.base10_parse::<usize>() {
            Ok(0) => {
                cx.error_spanned_by(
                    &lit,
                    "#[fixed(0)] would store nothing: the width must be at least 1",
                );
                None
            }
            Ok(len) => Some(Fixed {
                attr: attr.clone(),
                len,
                pad,
            }),
            Err(e) => {
                cx.syn_error(e);
                None
            }
        },
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

fn parse_digits(cx: &Ctxt, attr: &Attribute) -> Option<Digits> {
    let lit: LitInt = match attr.parse_args() {
        Ok(lit) => lit,
        Err(_) => {
            cx.error_spanned_by(
                attr,
                "#[digits] needs a width in decimal digits, like #[digits(11)]",
            );
            return None;
        }
    };
    match lit.base10_parse::<usize>() {
        Ok(n) if (1..=MAX_DIGITS).contains(&n) => Some(Digits {
            attr: attr.clone(),
            lit,
            n,
        }),
        _ => {
            cx.error_spanned_by(
                &lit,
                format!("#[digits] takes a width from 1 to {MAX_DIGITS} (u128::MAX has {MAX_DIGITS} digits)"),
            );
            None
        }
    }
}

/// `#[ts(millis)]`.
fn parse_ts(cx: &Ctxt, attr: &Attribute) -> Option<Ts> {
    let expected = "#[ts] takes the timestamp's unit: #[ts(secs)], #[ts(millis)], #[ts(micros)] or #[ts(nanos)]";
    let unit: Ident = match attr.parse_args() {
        Ok(unit) => unit,
        Err(_) => {
            cx.error_spanned_by(attr, expected);
            return None;
        }
    };
    match UNITS.iter().find(|u| unit == **u) {
        Some(u) => Some(Ts {
            attr: attr.clone(),
            unit: u,
        }),
        None => {
            cx.error_spanned_by(
                &unit,
                format!(
                    "unknown timestamp unit `{unit}`{}; {expected}",
                    hint(&unit.to_string(), UNITS)
                ),
            );
            None
        }
    }
}

/// `#[desc_ts(max = 9999999999)]`.
fn parse_desc_ts_max(cx: &Ctxt, attr: &Attribute) -> Option<(LitInt, u64)> {
    let mut max = None;
    let result = attr.parse_nested_meta(|meta| {
        if !meta.path.is_ident("max") {
            return Err(meta.error(format!(
                "unknown #[desc_ts] option `{}`; expected `max`, like #[desc_ts(max = 9999999999)]",
                path_text(&meta.path)
            )));
        }
        let lit: LitInt = meta.value()?.parse()?;
        match lit.base10_parse::<u64>() {
            Ok(0) | Err(_) => {
                cx.error_spanned_by(&lit, "`max` must be a whole number from 1 to u64::MAX")
            }
            Ok(n) => max = Some((lit, n)),
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
    max
}
