//! Emits what `#[rowkey(ordered_code)]` keys do differently: which fields a
//! key writes, the last of them with its `Last` codec; the decode that
//! accepts a key ending early and then checks that it is canonical; and a
//! salt that hashes the `by` fields' values, not their stored bytes.
//!
//! One rule of Bigtable's `OrderedCodeBytes` spans fields: trailing empty
//! ascending strings are not written, nor the terminator before them. The
//! model knows where such strings can start (`oc_tail`); the expansion
//! counts, per key, the fields it keeps (`__kept`), from the values.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::attr::Hash;
use crate::model::{Codec, FieldModel, Model};
use crate::tokens::{codec_alias, hasher, layout_alias, respan, sum};

/// The runtime codec of an ordered-code field: `__rk::OcInt<O, E>` or
/// `__rk::OcStr<O, E>`, `E` being `Last` when the field is the last one a
/// key writes.
pub(crate) fn codec(f: &FieldModel<'_>, last: bool) -> TokenStream {
    let order = if f.desc {
        quote!(__rk::Desc)
    } else {
        quote!(__rk::Asc)
    };
    let end = if last {
        quote!(__rk::Last)
    } else {
        quote!(__rk::Term)
    };
    match f.codec {
        Codec::OcInt => quote!(__rk::OcInt<#order, #end>),
        _ => quote!(__rk::OcStr<#order, #end>),
    }
}

/// `let __kept = ...;`: how many fields the key `self` writes. Every field
/// before the trailing ascending strings, and of those the ones up to the
/// last that is not empty.
fn kept(l: &Model<'_>) -> TokenStream {
    let n = l.fields.len();
    let tail = l.oc_tail;
    let mut expr = Literal::usize_unsuffixed(tail).into_token_stream();
    for i in tail..n {
        let ident = l.fields[i].ident;
        let k = Literal::usize_unsuffixed(i + 1);
        expr = quote!(if !__rk::oc_empty(&self.#ident) { #k } else { #expr });
    }
    quote!(let __kept: usize = #expr;)
}

/// `call` through field `i`'s codec as the key `self` has it: `__K<i>`
/// when a field after it is written, `__L<i>` when it is the last, and
/// `skipped` when it is not written (`__kept`, the number of fields the key
/// writes, decides).
fn per_field(
    l: &Model<'_>,
    i: usize,
    call: impl Fn(&syn::Ident) -> TokenStream,
    skipped: TokenStream,
) -> TokenStream {
    let (k, last) = (codec_alias(i), layout_alias(l, i));
    if k == last {
        // Followed by another field, or descending (terminated anyway).
        return call(&k);
    }
    let here = Literal::usize_unsuffixed(i + 1);
    let (through_k, through_last) = (call(&k), call(&last));
    if l.oc_tail == l.fields.len() {
        // No field may be left out: this is the last field, always written.
        through_last
    } else if i < l.oc_tail {
        // The field before the trailing strings: the last when none is kept.
        quote!(if __kept == #here { #through_last } else { #through_k })
    } else if i + 1 == l.fields.len() {
        quote!(if __kept == #here { #through_last } else { #skipped })
    } else {
        quote! {
            if __kept > #here { #through_k } else if __kept == #here { #through_last } else { #skipped }
        }
    }
}

/// `RowKey::encoded_len`'s body.
pub(crate) fn encoded_len(l: &Model<'_>) -> TokenStream {
    let kept = kept(l);
    let lens = l.fields.iter().enumerate().map(|(i, f)| {
        let ident = f.ident;
        let len = per_field(
            l,
            i,
            |k| respan(quote!(#k::encoded_len(&self.#ident)), f.span),
            quote!(0),
        );
        quote!((#len))
    });
    let total = sum(l.head_len(), lens);
    // A key that writes no field at all is `00 00`.
    let empty = (l.oc_tail == 0).then(|| quote!(+ if __kept == 0 { 2 } else { 0 }));
    quote! {
        #kept
        #total #empty
    }
}

/// The statements of `encode_into` that write the fields, from `__p0` (the
/// position after the prefix and salt) to `__p<n>`.
pub(crate) fn encode_fields(l: &Model<'_>, pos: &[TokenStream]) -> TokenStream {
    let kept = kept(l);
    let n = l.fields.len();
    let writes = l.fields.iter().enumerate().map(|(i, f)| {
        let (ident, fname) = (f.ident, &f.name);
        let (cur, next) = (&pos[i], &pos[i + 1]);
        let write = per_field(
            l,
            i,
            |k| quote!(#k::encode(&self.#ident, __out, #cur, #fname)?),
            cur.clone(),
        );
        respan(quote!(let #next = #write;), f.span)
    });
    let end = &pos[n];
    let empty = (l.oc_tail == 0).then(|| {
        quote! {
            let #end = if __kept == 0 {
                __out[0] = 0;
                __out[1] = 0;
                2
            } else {
                #end
            };
        }
    });
    quote! {
        #kept
        #(#writes)*
        #empty
    }
}

/// The statements of `decode` after the prefix and salt checks: each field
/// through the codec that reads it (a field that may be the last one
/// written also ends at the key's end, a trailing string that is not
/// written is empty), then the check that the key is its values' key.
pub(crate) fn decode_fields(l: &Model<'_>, head: &Literal) -> TokenStream {
    let reads = l.fields.iter().enumerate().map(|(i, f)| {
        let (k, v, fname) = (layout_alias(l, i), format_ident!("__v{}", i), &f.name);
        let at = if i == 0 {
            head.to_token_stream()
        } else {
            quote!(__p)
        };
        respan(
            quote!(let (#v, __p) = #k::decode(__input, #at, #fname)?;),
            f.span,
        )
    });
    let inits = l.fields.iter().enumerate().map(|(i, f)| {
        let (ident, v) = (f.ident, format_ident!("__v{}", i));
        quote!(#ident: #v)
    });
    let last = &l.fields[l.fields.len() - 1].name;
    quote! {
        #(#reads)*
        __rk::finish(__input, __p)?;
        let __key = Self { #(#inits),* };
        __rk::oc_canonical(__input, __rk::RowKey::encoded_len(&__key), #last)?;
        __rk::Result::Ok(__key)
    }
}

/// `__rk_bucket`, generic over the `by` fields' value types (scans call it
/// with their arguments), `bucket` and `try_bucket`: the bucket of the
/// `by` fields' values (an `Int64`'s encoding, a string's bytes), which a
/// key has even where it does not write a trailing empty string.
pub(crate) fn salt_items(l: &Model<'_>) -> Option<TokenStream> {
    let s = l.salt.as_ref()?;
    let by: Vec<&FieldModel<'_>> = s.by.iter().map(|&i| &l.fields[i]).collect();
    let tparams: Vec<syn::Ident> = (0..by.len()).map(|j| format_ident!("__T{}", j)).collect();
    let params = by.iter().zip(&tparams).map(|(f, t)| {
        let ident = f.ident;
        quote!(#ident: &#t)
    });
    let buckets = Literal::u16_unsuffixed(s.buckets);
    let (bounds, body): (Vec<TokenStream>, TokenStream) = if s.hash == Hash::Mod {
        let ident = by[0].ident;
        (
            vec![quote!(__T0: __rk::ModSalt)],
            quote!(__rk::salt_mod(#ident, #buckets)),
        )
    } else {
        let bounds =
            s.by.iter()
                .zip(&tparams)
                .map(|(&i, t)| {
                    let k = codec_alias(i);
                    quote!(#k: __rk::OcPart<#t>)
                })
                .collect();
        let bufs: Vec<syn::Ident> = (0..by.len()).map(|j| format_ident!("__b{}", j)).collect();
        let parts = s.by.iter().zip(&bufs).map(|(&i, b)| {
            let (k, ident) = (codec_alias(i), l.fields[i].ident);
            quote!(#k::part(#ident, &mut #b))
        });
        let hash = hasher(s.hash);
        (
            bounds,
            quote! {
                #(let mut #bufs = [0u8; __rk::MAX_INT64_LEN];)*
                __rk::salt::<#hash>(&[#(#parts),*], #buckets)
            },
        )
    };
    let args = by.iter().map(|f| {
        let ident = f.ident;
        quote!(&self.#ident)
    });
    Some(quote! {
        #[inline]
        fn __rk_bucket<#(#tparams: ?Sized),*>(#(#params),*) -> u8
        where #(#bounds),*
        {
            #body
        }
        /// The salt bucket of this key, from the `by` fields alone.
        #[inline]
        pub fn bucket(&self) -> u8 {
            Self::__rk_bucket(#(#args),*)
        }
        /// The salt bucket of this key (it cannot fail: every value of an
        /// ordered-code field has bytes to hash).
        #[inline]
        pub fn try_bucket(&self) -> __rk::Result<u8, __rk::EncodeError> {
            __rk::Result::Ok(self.bucket())
        }
    })
}

/// `encode_into`'s salt: the bucket of the `by` fields' values, written
/// after the prefix.
pub(crate) fn salt_write(l: &Model<'_>, salt_out: &TokenStream) -> Option<TokenStream> {
    l.salt.as_ref()?;
    Some(quote! {
        let __b = self.bucket();
        __Salt::write(#salt_out, __b);
    })
}
