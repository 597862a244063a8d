//! Emits the scans: `scan_all`, `scan_by_*` (equality on leading fields)
//! and `range_by_*` (equality, then a range on the next field), each
//! extending its shorter sibling's prefix.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::model::{Arg, FieldModel, Model};
use crate::tokens::{codec_alias, respan};

/// `split_points`, `scan_all`, and per field `k`: a helper that encodes the
/// prefix of the first `k` fields by extending the helper for `k - 1` (and
/// notes the bucket once those fields fix the salt), `scan_by_*` (equality
/// on the first `k` fields) and `range_by_*` (equality on the first
/// `k - 1`, a range on field `k`).
/// The scan methods, and the marker types of the fields without a range
/// scan (a module for the const block, or nothing).
pub(crate) fn scans(l: &Model<'_>) -> (TokenStream, TokenStream) {
    let mut markers = Vec::new();
    let (all, split_points) = match &l.salt {
        Some(s) => {
            let b = Literal::u16_unsuffixed(s.buckets);
            (
                quote!(all(#b)),
                match &l.prefix {
                    None => quote!(__rk::split_points::<__Salt>(&[], #b)),
                    Some(p) => {
                        let p = Literal::byte_string(p);
                        quote!(__rk::split_points::<__Salt>(#p, #b))
                    }
                },
            )
        }
        None => (quote!(unsalted()), quote!(__rk::Vec::new())),
    };
    // A text key's salt is written as digits, a family's keys start with
    // its prefix: the scans say so.
    let family = l.prefix.as_ref().map(|p| {
        let p = Literal::byte_string(p);
        quote!(.family(#p))
    });
    let new_prefix = |buckets: TokenStream| {
        let head = ((l.is_text() || l.is_ordered_code()) && l.salt.is_some())
            .then(|| quote!(.head(<__Salt as __rk::SaltHead>::HEAD)));
        quote!(__rk::Leading::#buckets #head #family)
    };
    let arg = |f: &FieldModel<'_>| {
        let ty = match f.arg {
            Arg::Value(ty) => ty.to_token_stream(),
            Arg::Str => quote!(&'__r str),
            Arg::Bytes => quote!(&'__r [u8]),
        };
        if f.option {
            quote!(__rk::Option<#ty>)
        } else {
            ty
        }
    };
    let params: Vec<TokenStream> = l
        .fields
        .iter()
        .map(|f| {
            let (ident, ty) = (f.ident, arg(f));
            quote!(#ident: #ty)
        })
        .collect();
    // The prefix of the first `k` fields: of type `Leading`, or
    // `Result<Leading>` when one of them can fail.
    let prefix = |k: usize| {
        if k == 0 {
            return new_prefix(all.clone());
        }
        let helper = format_ident!("__rk_prefix{}", k);
        let args = l.fields[..k].iter().map(|f| f.ident);
        quote!(Self::#helper(#(#args),*))
    };
    let result = |fallible: bool, ok: TokenStream| {
        if fallible {
            quote!(__rk::Result<#ok, __rk::EncodeError>)
        } else {
            ok
        }
    };
    let mut out = TokenStream::new();
    let key_fields = l.key_fields();
    for (i, f) in l.fields[..key_fields].iter().enumerate() {
        let k = i + 1;
        let (codec, fname, ident) = (codec_alias(i), &f.name, f.ident);
        let (fallible, fallible_before) = (l.can_fail(k), l.can_fail(i));
        let lt = l.fields[..k]
            .iter()
            .any(|f| !matches!(f.arg, Arg::Value(_)))
            .then(|| quote!(<'__r>));
        let params_k = &params[..k];
        let before = prefix(i);
        let before = if fallible_before {
            quote!(#before?)
        } else {
            before
        };

        // The prefix helper for `k` fields: the one for `k - 1`, in one
        // bucket once these fields fix the salt, extended by field `k`.
        let mut start = before.clone();
        if l.one_bucket(k) && !l.one_bucket(i) {
            let s = l.salt.as_ref().expect("one bucket: salted");
            let args = s.by.iter().map(|&i| {
                let ident = l.fields[i].ident;
                quote!(&#ident)
            });
            let q = s.by_can_fail.then(|| quote!(?));
            let bucket = quote!(Self::__rk_bucket(#(#args),*)#q);
            start = if i == 0 {
                new_prefix(quote!(one(#bucket)))
            } else {
                quote!(#start.in_bucket(#bucket))
            };
        }
        let mut extend = respan(quote!(#codec::extend(#start, &#ident, #fname)), f.span);
        if !fallible {
            extend = quote!(__rk::infallible(#extend));
        }
        // The last prefix is only ever scanned: `scan_by_*` of all fields
        // extends the helper for `n - 1` itself.
        let last = k == key_fields;
        if !last {
            let helper = format_ident!("__rk_prefix{}", k);
            let ret = result(fallible, quote!(__rk::Leading));
            out.extend(quote! {
                #[inline]
                fn #helper #lt(#(#params_k),*) -> #ret {
                    #extend
                }
            });
        }

        // scan_by: equality on the first k fields. A whole key whose last
        // field runs to its end selects exactly that key.
        let method = format_ident!("scan_by_{}", suffix(&l.fields[..k]));
        let doc = format!("Every row whose {}.", equal(&l.fields[..k]));
        let scan = if last && f.is_raw() {
            quote!(__rk::Leading::scan_exact)
        } else {
            quote!(__rk::Leading::scan_eq)
        };
        let this = if last { extend } else { prefix(k) };
        let body = if fallible {
            quote!(#this.map(#scan))
        } else {
            quote!(#scan(#this))
        };
        let ret = result(fallible, quote!(__rk::Scan));
        out.extend(quote! {
            #[doc = #doc]
            #[inline]
            pub fn #method #lt(#(#params_k),*) -> #ret {
                #body
            }
        });

        // range_by: equality on the first k - 1 fields, a range on field k.
        let method = format_ident!("range_by_{}", suffix(&l.fields[..k]));
        if !f.has_range() {
            // Its bytes do not sort by value: a hidden method whose bound
            // never holds, so a call says why (`SortsByValue`'s message)
            // instead of a bare "no function named".
            let why = format_ident!("{}", f.name, span = f.span);
            let params_i = &params[..i];
            let lt = l.fields[..i]
                .iter()
                .any(|f| !matches!(f.arg, Arg::Value(_)))
                .then(|| quote!('__r,));
            markers.push(quote!(pub enum #why {}));
            out.extend(quote! {
                #[doc(hidden)]
                #[allow(private_bounds, unused_variables)]
                pub fn #method<#lt __R>(#(#params_i,)* range: __R) -> __rk::Scan
                where
                    __R: __rk::SortsByValue<__rk_no_range::#why>,
                {
                    __rk::Scan::none()
                }
            });
            continue;
        }
        let mut doc = match i {
            0 => format!("Every row whose `{fname}` is in `range`."),
            _ => format!(
                "Every row whose {} and whose `{fname}` is in `range`.",
                equal(&l.fields[..i])
            ),
        };
        if f.desc {
            doc.push_str(" The field sorts descending: the rows come largest (newest) first.");
        }
        // A programming error, as in `BTreeMap::range`.
        doc.push_str(
            " Panics if `range` starts after its end (an empty range such as `t..t` is fine).",
        );
        // `range` reads best in the docs; it steps aside for a field of
        // that name.
        let range = if l.fields[..i].iter().any(|f| f.name == "range") {
            format_ident!("__range")
        } else {
            format_ident!("range")
        };
        let (params_i, arg_ty) = (&params[..i], arg(f));
        let mut body = respan(quote!(#codec::scan_range(#before, &#range, #fname)), f.span);
        if !fallible {
            body = quote!(__rk::infallible(#body));
        }
        let ret = result(fallible, quote!(__rk::Scan));
        out.extend(quote! {
            #[doc = #doc]
            pub fn #method #lt(#(#params_i,)* #range: impl __rk::RangeBounds<#arg_ty>) -> #ret {
                #body
            }
        });
    }
    let scan_all = new_prefix(all);
    // Named after the fields, for the message of a call to their
    // `range_by_*`; in a module of their own so that no name of the
    // user's is shadowed.
    let markers = (!markers.is_empty()).then(|| {
        quote! {
            #[allow(non_camel_case_types)]
            mod __rk_no_range {
                #(#markers)*
            }
        }
    });
    let items = quote! {
        __rk::if_alloc! {
            /// Where to pre-split the table: one region per salt bucket; none when unsalted.
            #[inline]
            pub fn split_points() -> __rk::Vec<__rk::Vec<u8>> {
                #split_points
            }
            /// Every row of the table: one range per salt bucket when salted.
            #[inline]
            pub fn scan_all() -> __rk::Scan {
                #scan_all.scan_eq()
            }
            #out
        }
    };
    (items, markers.unwrap_or_default())
}

/// `a_b_c` for the fields `a`, `b`, `c`: the method names' suffix.
pub(crate) fn suffix(fields: &[FieldModel<'_>]) -> String {
    fields
        .iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join("_")
}

/// "`a` is the given value", "`a` and `b` are the given values",
/// "`a`, `b` and `c` are the given values".
pub(crate) fn equal(fields: &[FieldModel<'_>]) -> String {
    let names: Vec<String> = fields.iter().map(|f| format!("`{}`", f.name)).collect();
    match names.as_slice() {
        [one] => format!("{one} is the given value"),
        [init @ .., last] => format!("{} and {last} are the given values", init.join(", ")),
        [] => String::new(),
    }
}
