//! Rules that look at more than one attribute or field: conflicts, salt
//! `by` fields, types that an attribute cannot apply to.

use std::collections::HashSet;
use syn::ext::IdentExt;

use quote::ToTokens;
use syn::GenericParam;

use crate::ast::{self, Input, Kind};
use crate::attr::Hash;
use crate::ctxt::Ctxt;
use crate::model::{decimal_digits, Codec, Model, Width, OC_MAX_BUCKETS};

pub fn check(cx: &Ctxt, layout: &Model<'_>) {
    let input = layout.input;
    check_generics(cx, input);
    if input.fields.is_empty() {
        cx.error_spanned_by(
            &input.original.ident,
            "#[derive(RowKey)] needs at least one field: a row key with no fields would be empty",
        );
    }
    if layout.is_ordered_code() {
        // Its own rules: most attributes are not part of Bigtable's format,
        // and each mistake gets one error, not one more from the rules of
        // binary keys.
        check_ordered_code(cx, layout);
    } else {
        for (field, f) in input.fields.iter().zip(&layout.fields) {
            check_field(cx, field, f);
        }
        check_format(cx, layout);
        check_added(cx, layout);
    }
    check_salt(cx, input);
    check_mod_salt(cx, input);
    check_length(cx, layout);
}

fn check_generics(cx: &Ctxt, input: &Input<'_>) {
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
        let prev = i.checked_sub(1).and_then(|j| chars.get(j));
        let next = chars.get(i + 1);
        // `&'a [u8]`: the space after a lifetime stays.
        let after_word =
            prev.is_some_and(|p| p.is_alphanumeric()) && matches!(next, Some('[' | '('));
        if *c == ' ' && !after_word && (tight(prev) || tight(next)) {
            continue;
        }
        out.push(*c);
    }
    out.replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" ,", ",")
        .replace(" ;", ";")
}

fn check_field(cx: &Ctxt, field: &ast::Field<'_>, model: &crate::model::FieldModel<'_>) {
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
            cx.error_spanned_by(
                &fixed.attr,
                format!(
                    "#[fixed] pads strings and byte strings (String, &str, Vec<u8>, &[u8], Cow); `{}` is fixed-width already",
                    type_text(shape.inner)
                ),
            );
        }
    }
    let time = model.time.is_some();
    if let Some(ts) = &a.ts {
        let other = match shape.kind {
            Kind::Var(_) => Some("a string or byte string"),
            Kind::Fixed if ast::int_type(shape.inner).is_some() => {
                Some("an integer, which already is a count of its own unit")
            }
            Kind::Fixed if ast::known(shape.inner) == Some(ast::Known::TextForm) => {
                Some("an id or an address, not a point in time")
            }
            Kind::Fixed if crate::model::builtin_width(shape.inner).is_some() => {
                Some("a built-in type, not a point in time")
            }
            Kind::Fixed => None,
        };
        if let Some(other) = other {
            cx.error_spanned_by(
                &ts.attr,
                format!(
                    "#[ts] sets a timestamp's unit, and `{}` is {other}; #[ts] goes on chrono::DateTime<Utc>, time::OffsetDateTime, time::PrimitiveDateTime, jiff::Timestamp or your own rowkey_core::TimeField type",
                    type_text(shape.inner)
                ),
            );
        }
    }
    if let Some(desc_ts) = &a.desc_ts {
        if shape.kind != Kind::Fixed || (!time && ast::timestamp_int(shape.inner).is_none()) {
            cx.error_spanned_by(
                desc_ts,
                format!(
                    "#[desc_ts] stores MAX - ts and needs a timestamp (i64, u64, i32, u32, or a time type with #[ts]); `{}` is not one (use #[desc] to sort other types descending)",
                    type_text(shape.inner)
                ),
            );
        }
        if let Some(desc) = &a.desc {
            cx.error_spanned_by(
                desc,
                "#[desc] with #[desc_ts]: #[desc_ts] already sorts newest first; keep one of them",
            );
        }
        if let Some(rev) = &a.reverse {
            cx.error_spanned_by(
                rev,
                "#[reverse] with #[desc_ts]: reversing the bytes would destroy the newest-first order; keep one of them",
            );
        }
    }
    if let Some(dom) = &a.reverse_domain {
        if !matches!(shape.kind, Kind::Var(v) if v.text) {
            cx.error_spanned_by(
                dom,
                format!(
                    "#[reverse_domain] reverses the dot-separated labels of a host name (www.example.com → com.example.www) and needs a string field (String, Cow<str>); `{}` is not one",
                    type_text(shape.inner)
                ),
            );
        }
        if let Some(rev) = &a.reverse {
            cx.error_spanned_by(rev, "#[reverse] with #[reverse_domain]: keep one of them");
        }
    }
    if let Kind::Var(var) = shape.kind {
        if var.borrowed {
            for (name, attr) in [
                ("desc", &a.desc),
                ("reverse", &a.reverse),
                ("reverse_domain", &a.reverse_domain),
            ] {
                if let Some(attr) = attr {
                    cx.error_spanned_by(
                        attr,
                        format!(
                            "#[{name}] on a borrowed `{}` field: the stored bytes are transformed, so decoding cannot borrow them; use String, Vec<u8> or Cow",
                            type_text(shape.inner)
                        ),
                    );
                }
            }
        }
    }
}

fn check_salt(cx: &Ctxt, input: &Input<'_>) {
    let Some(salt) = &input.attrs.salt else {
        return;
    };
    let Some(by) = &salt.by else { return };
    let names: Vec<String> = input.fields.iter().map(|f| f.ident.to_string()).collect();
    let mut seen = HashSet::new();
    for ident in by {
        let name = ident.to_string();
        if !names.contains(&name) {
            let hint = crate::ctxt::did_you_mean(
                &name,
                &names.iter().map(String::as_str).collect::<Vec<_>>(),
            )
            .map(|c| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default();
            cx.error_spanned_by(
                ident,
                format!(
                    "#[salt(by(...))] names `{name}`, which is not a field of this struct{hint}"
                ),
            );
        } else if !seen.insert(name.clone()) {
            cx.error_spanned_by(ident, format!("#[salt(by(...))] names `{name}` twice"));
        }
    }
}

/// `#[rowkey(added)]`: trailing `Option` fields after a field that ends
/// where it ends (not one stored raw to the end of the key), hashed by no
/// salt, in binary keys.
fn check_added(cx: &Ctxt, layout: &Model<'_>) {
    let fields = &layout.input.fields;
    let Some(first) = fields.iter().position(|f| f.attrs.added.is_some()) else {
        return;
    };
    for f in &fields[first..] {
        let Some(word) = &f.attrs.added else {
            cx.error_spanned_by(
                f.ident,
                format!(
                    "`{}` follows a #[rowkey(added)] field: added fields go at the end of the key, since keys already written end where they were added; mark it #[rowkey(added)] too or move it before them",
                    f.ident.unraw()
                ),
            );
            continue;
        };
        if !f.shape.option {
            cx.error_spanned_by(
                &f.original.ty,
                "#[rowkey(added)] needs an Option field: keys written before the field was added decode it as None",
            );
        }
        if layout.is_text() {
            cx.error_spanned_by(
                word,
                "#[rowkey(added)] is for binary keys: a text key has no Option fields",
            );
        }
        if let Some(by) = layout.input.attrs.salt.as_ref().and_then(|s| s.by.as_ref()) {
            if by.iter().any(|b| b == f.ident) {
                cx.error_spanned_by(
                    word,
                    format!(
                        "#[salt(by(...))] names `{}`, an added field: keys written before it was added were salted without it",
                        f.ident.unraw()
                    ),
                );
            }
        }
    }
    if first == 0 {
        cx.error_spanned_by(
            fields[0].attrs.added.as_ref().expect("first added"),
            "#[rowkey(added)] on the first field: a key needs at least one field that every key has",
        );
        return;
    }
    // The last field of the keys already written: stored raw to their end
    // there, it would be escaped now, and every old key would change.
    let before = &fields[first - 1];
    let was_raw = matches!(before.shape.kind, crate::ast::Kind::Var(_))
        && before.attrs.fixed.is_none()
        && before.attrs.desc.is_none()
        && !layout.is_text();
    if was_raw {
        cx.error_spanned_by(
            fields[first].attrs.added.as_ref().expect("first added"),
            format!(
                "#[rowkey(added)] after `{}`, a variable-length last field: keys already written store it raw to their end, and a field after it would have to be escaped, changing every key; give it #[fixed(N)] from the start, or add fields only after a fixed-width or escaped field",
                before.ident.unraw()
            ),
        );
    }
}

/// HBase rejects row keys longer than `Short.MAX_VALUE` bytes.
pub const HBASE_MAX_KEY: usize = 32767;

fn check_length(cx: &Ctxt, layout: &Model<'_>) {
    let (input, len) = (layout.input, &layout.len);
    let align = input
        .attrs
        .align
        .as_ref()
        .and_then(|lit| Some((lit, lit.base10_parse::<usize>().ok()?)));
    if let (Some((lit, align)), true) = (align, len.variable) {
        let var = layout
            .fields
            .iter()
            .find(|f| matches!(f.width, Width::Variable { .. }));
        let name = var.map(|f| f.name.as_str()).unwrap_or_default();
        cx.error_spanned_by(
            lit,
            format!("align = {align} needs a fixed-width key, and `{name}` is variable-length; give it #[fixed(N)] or drop align"),
        );
    }
    if len.unknown {
        return; // the expansion checks these with const assertions
    }
    let what = if len.variable {
        format!(
            "row key is variable-length, at least {} bytes ({})",
            len.bytes, len.parts
        )
    } else {
        format!("row key is {} bytes ({})", len.bytes, len.parts)
    };
    // max_len: no key longer than `max`. Where the longest key is bounded
    // (added fields present count), it must fit; where it is not (a
    // string), the shortest must, and encoding checks each key.
    if let Some(lit) = &input.attrs.max_len {
        if let Ok(max) = lit.base10_parse::<usize>() {
            match len.longest {
                Some(longest) if longest > max && longest > len.bytes => cx.error_spanned_by(
                    lit,
                    format!(
                        "row key is up to {longest} bytes with its #[rowkey(added)] fields ({}), max_len is {max}",
                        len.longest_parts
                    ),
                ),
                _ if len.bytes > max => cx.error_spanned_by(lit, format!("{what}, max_len is {max}")),
                _ => {}
            }
        }
    }
    if let (Some((lit, align)), false) = (align, len.variable) {
        if align > 0 && len.bytes % align != 0 {
            cx.error_spanned_by(
                lit,
                format!("{what}, which is not a multiple of align = {align}"),
            );
        }
    }
    if len.bytes > HBASE_MAX_KEY {
        cx.error_spanned_by(
            &input.original.ident,
            format!("{what}, above HBase's limit of {HBASE_MAX_KEY} bytes per row key"),
        );
    }
}

/// Text keys: `text` with `sep`, and per field a type and attributes that
/// have a text form. Binary keys: no text-only attribute.
fn check_format(cx: &Ctxt, layout: &Model<'_>) {
    let attrs = &layout.input.attrs;
    match (&attrs.text, &attrs.sep) {
        (Some(text), None) => cx.error_spanned_by(
            text,
            "a text key needs its separator: #[rowkey(text, sep = \"_\")] (any printable ASCII, like `_`, `#`, `|`)",
        ),
        (None, Some((lit, _))) => cx.error_spanned_by(
            lit,
            "`sep` is the separator of a text key; add `text`: #[rowkey(text, sep = ...)]",
        ),
        _ => {}
    }
    let text = layout.is_text();
    if let (true, Some((lit, bytes))) = (text, &attrs.prefix) {
        if !bytes.iter().all(|b| (b' '..=b'~').contains(b)) {
            cx.error_spanned_by(
                lit,
                "a text key's family prefix must be printable ASCII (a space to `~`), so that the key stays text",
            );
        }
    }
    for (f, ast) in layout.fields.iter().zip(&layout.input.fields) {
        let a = &ast.attrs;
        let ty = type_text(ast.shape.inner);
        if !text {
            if let Some(d) = &a.digits {
                cx.error_spanned_by(
                    &d.attr,
                    "#[digits] sets an integer's width in a text key (#[rowkey(text, sep = ...)]); a binary key stores integers as fixed-width bytes",
                );
            }
            if let Some((lit, _)) = &a.desc_ts_max {
                cx.error_spanned_by(
                    lit,
                    "#[desc_ts(max = ...)] applies to text keys, where MAX - ts is written in the digits of MAX; a binary key stores i64::MAX - ts (or i32::MAX - ts)",
                );
            }
            continue;
        }
        if ast.shape.option {
            cx.error_spanned_by(
                &ast.original.ty,
                "Option fields are not supported in text keys: None has no text that sorts and parses back; use a binary key or a sentinel value",
            );
            continue;
        }
        if f.codec == Codec::NotText {
            let msg = if matches!(ast.shape.kind, crate::ast::Kind::Var(_)) {
                format!("`{ty}` is bytes, which have no text form: a text key's fields are integers and strings (String, &str, Cow<str>); use a binary key for bytes")
            } else {
                format!("`{ty}` has no text form: a text key's fields are integers (u8 to u128, i8 to i128) and strings (String, &str, Cow<str>); convert it, or use a binary key")
            };
            cx.error_spanned_by(&ast.original.ty, msg);
            continue;
        }
        // A timestamp is an i64 of its unit in a text key.
        let int = match f.time {
            Some(_) => Some(crate::ast::i64_int()),
            None => crate::ast::int_type(ast.shape.inner),
        };
        let is_str = matches!(ast.shape.kind, crate::ast::Kind::Var(_));
        if f.codec == Codec::Chars {
            if let Some(desc) = &a.desc {
                cx.error_spanned_by(desc, format!("#[desc] on `{ty}` in a text key: its text cannot be inverted and stay text; use #[reverse] to spread time-ordered ids, or a binary key"));
            }
            if let Some(d) = &a.digits {
                cx.error_spanned_by(&d.attr, format!("#[digits] sets an integer's width; `{ty}` has a text form of its own width"));
            }
        }
        if let Codec::DecUser { .. } = f.codec {
            for (name, attr) in [("desc", &a.desc), ("reverse", &a.reverse)] {
                if let Some(attr) = attr {
                    cx.error_spanned_by(
                        attr,
                        format!("#[{name}] on `{ty}` in a text key: only the built-in unsigned integers sort descending or reverse their digits in a text key"),
                    );
                }
            }
        }
        if let Some(desc) = &a.desc {
            if is_str {
                cx.error_spanned_by(desc, "#[desc] on a string in a text key: inverted bytes are not text; only unsigned integers can sort descending in a text key (as 10^digits - 1 - n)");
            } else if int.is_some_and(|t| t.signed) {
                cx.error_spanned_by(desc, format!("#[desc] on `{ty}` in a text key: only unsigned integers sort descending in a text key (as 10^digits - 1 - n); use an unsigned type, or #[desc_ts] for a timestamp"));
            }
        }
        if let Some(rev) = &a.reverse {
            if is_str {
                cx.error_spanned_by(rev, "#[reverse] on a string in a text key: reversed UTF-8 bytes are not text; reverse the digits of an unsigned integer instead");
            } else if int.is_some_and(|t| t.signed) {
                cx.error_spanned_by(rev, format!("#[reverse] on `{ty}` in a text key: only the digits of unsigned integers are reversed in a text key; use an unsigned type"));
            }
        }
        if let Some(d) = &a.digits {
            if is_str {
                cx.error_spanned_by(
                    &d.attr,
                    "#[digits] sets an integer's width; for a string use #[fixed(N, pad = b' ')]",
                );
            }
            if let Codec::TextDescTs { max, .. } = f.codec {
                let need = decimal_digits(max);
                if d.n < need {
                    cx.error_spanned_by(
                        &d.lit,
                        format!("#[digits({})] is too small for #[desc_ts]: MAX = {max} has {need} digits, and MAX - ts can be as large as MAX", d.n),
                    );
                }
            }
        }
        if let Some(fixed) = &a.fixed {
            if fixed.pad == 0 {
                cx.error_spanned_by(
                    &fixed.attr,
                    "a text key's #[fixed(N)] pads with a printable character, never NUL bytes: name it, as in #[fixed(8, pad = b' ')]",
                );
            } else if !(0x20..0x7F).contains(&fixed.pad) {
                cx.error_spanned_by(
                    &fixed.attr,
                    format!("the pad byte 0x{:02X} is not printable ASCII: a text key's padding must keep it text; use a printable pad such as b' '", fixed.pad),
                );
            }
        }
    }
}

/// `hash = "mod"`: one unsigned integer field, salted by its value.
fn check_mod_salt(cx: &Ctxt, input: &Input<'_>) {
    let Some(salt) = &input.attrs.salt else {
        return;
    };
    if salt.hash != Hash::Mod {
        return;
    }
    let Some(lit) = &salt.hash_lit else { return };
    let by: Vec<&crate::ast::Field<'_>> = match &salt.by {
        Some(names) => input
            .fields
            .iter()
            .filter(|f| names.iter().any(|n| n == f.ident))
            .collect(),
        None => input.fields.iter().collect(),
    };
    match by.as_slice() {
        [f] => {
            let unsigned = !f.shape.option
                && crate::ast::int_type(f.shape.inner).is_some_and(|t| !t.signed);
            if !unsigned {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "hash = \"mod\" takes the bucket as value % buckets, so its field must be an unsigned integer (u8 to u128); `{}` is `{}`",
                        f.ident,
                        type_text(&f.original.ty)
                    ),
                );
            }
        }
        _ => cx.error_spanned_by(
            lit,
            format!(
                "hash = \"mod\" salts by one unsigned integer field (value % buckets), and this salt hashes {} fields; name one with by(...)",
                by.len()
            ),
        ),
    }
}

/// `#[rowkey(ordered_code)]`: Bigtable's struct `OrderedCodeBytes` encoding
/// holds `Int64`, `String` and `Bytes` fields, ascending or `#[desc]`; the
/// salt's bucket is a one-byte `Int64`; a prefix or salt needs a field that
/// every key writes.
fn check_ordered_code(cx: &Ctxt, layout: &Model<'_>) {
    let attrs = &layout.input.attrs;
    if let (Some(oc), Some(_)) = (&attrs.ordered_code, &attrs.text) {
        cx.error_spanned_by(
            oc,
            "`ordered_code` and `text` are two key formats: keep one (ordered_code is Bigtable's OrderedCodeBytes struct encoding, text a separator-joined key)",
        );
    }
    if let (None, Some((lit, _))) = (&attrs.text, &attrs.sep) {
        cx.error_spanned_by(
            lit,
            "`sep` is the separator of a text key; an ordered_code key's fields are joined by 00 01",
        );
    }
    for (f, ast) in layout.fields.iter().zip(&layout.input.fields) {
        let a = &ast.attrs;
        let ty = type_text(ast.shape.inner);
        if ast.shape.option {
            cx.error_spanned_by(
                &ast.original.ty,
                "Option fields are not supported in ordered_code keys: Bigtable's OrderedCodeBytes struct has no None; use an empty string or a sentinel value",
            );
            continue;
        }
        if f.codec == Codec::OcInt && !OC_INTS.iter().any(|t| ast::is_ident(ast.shape.inner, t)) {
            let why = match ty.as_str() {
                "u64" | "u128" | "i128" => {
                    " (some of its values are beyond Int64's range; use i64)"
                }
                _ => "",
            };
            cx.error_spanned_by(
                &ast.original.ty,
                format!(
                    "`{ty}` cannot be a field of an ordered_code key{why}: Bigtable's OrderedCodeBytes struct holds Int64 (i64, or i8 to i32 and u8 to u32, every value of which is an Int64), String (String, &str, Cow<str>) and Bytes (Vec<u8>, &[u8], Cow<[u8]>)"
                ),
            );
        }
        if let Some(desc_ts) = &a.desc_ts {
            cx.error_spanned_by(
                desc_ts,
                "#[desc_ts] in an ordered_code key: use #[desc], which inverts the field's OrderedCodeBytes encoding (newest first), as Bigtable's DESC does",
            );
        }
        let not_part = [
            ("fixed", a.fixed.as_ref().map(|x| x.attr.to_token_stream())),
            ("reverse", a.reverse.as_ref().map(ToTokens::to_token_stream)),
            (
                "reverse_domain",
                a.reverse_domain.as_ref().map(ToTokens::to_token_stream),
            ),
            (
                "digits",
                a.digits.as_ref().map(|x| x.attr.to_token_stream()),
            ),
            ("ts", a.ts.as_ref().map(|x| x.attr.to_token_stream())),
            (
                "rowkey(added)",
                a.added.as_ref().map(ToTokens::to_token_stream),
            ),
        ];
        for (name, tokens) in not_part {
            if let Some(tokens) = tokens {
                cx.error_spanned_by(
                    tokens,
                    format!(
                        "#[{name}] is not part of Bigtable's OrderedCodeBytes encoding: an ordered_code key's fields take #[desc] only"
                    ),
                );
            }
        }
        if let (Some(desc), Kind::Var(var)) = (&a.desc, ast.shape.kind) {
            if var.borrowed {
                cx.error_spanned_by(
                    desc,
                    format!(
                        "#[desc] on a borrowed `{ty}` field: the stored bytes are inverted, so decoding cannot borrow them; use String, Vec<u8> or Cow"
                    ),
                );
            }
        }
    }
    if let Some(salt) = &attrs.salt {
        if salt.buckets > OC_MAX_BUCKETS {
            let msg = format!(
                "#[salt(buckets = {})] in an ordered_code key: the bucket is a one-byte Int64 field (80 to BF), so buckets must be 1 to {OC_MAX_BUCKETS}",
                salt.buckets
            );
            match &salt.buckets_lit {
                Some(lit) => cx.error_spanned_by(lit, msg),
                None => cx.error_spanned_by(&layout.input.original.ident, msg),
            }
        }
    }
    if layout.oc_tail == 0 && !layout.fields.is_empty() {
        let what = match (&attrs.prefix, &attrs.salt) {
            (Some((lit, _)), _) => Some(("a prefix", lit.to_token_stream())),
            (None, Some(salt)) => Some((
                "a salt",
                salt.buckets_lit.as_ref().map_or_else(
                    || layout.input.original.ident.to_token_stream(),
                    ToTokens::to_token_stream,
                ),
            )),
            (None, None) => None,
        };
        if let Some((what, tokens)) = what {
            cx.error_spanned_by(
                tokens,
                format!(
                    "{what} needs a field that every ordered_code key writes (an integer, or a #[desc] string): with only ascending strings, a key of empty strings writes none of them and would end inside its {}",
                    &what[2..]
                ),
            );
        }
    }
}

/// The integer types whose every value is a Bigtable `Int64`.
const OC_INTS: &[&str] = &["i64", "i32", "i16", "i8", "u32", "u16", "u8"];
