//! Emits the skip-scan filter builder: `T::filter()`, a `TFilter` with one
//! method per key field (a value, a range or `any_of` them) and `build()`,
//! which fixes the salt bucket when the `by` fields are single values.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::model::{Arg, FieldModel, Model};
use crate::tokens::{codec_alias, respan};

/// The builder type, declared beside the key type (so that users can name
/// it), and the items of the const block: `filter()` and the builder's
/// methods. Nothing for a generic key type (the builder has no generics).
pub(crate) fn filter(l: &Model<'_>) -> (TokenStream, TokenStream, TokenStream) {
    let node = l.input.original;
    // An ordered-code field has two encodings (with and without its
    // terminator, as the last field a key writes), which the filter's
    // byte sets of a field cannot say: no filter for such keys.
    if node.generics.type_params().next().is_some()
        || node.generics.const_params().next().is_some()
        || l.is_ordered_code()
    {
        return (TokenStream::new(), TokenStream::new(), TokenStream::new());
    }
    let (krate, name, vis) = (&l.krate, &node.ident, &node.vis);
    let builder = format_ident!("{}Filter", name);
    let doc = format!(
        "A skip-scan filter on [`{name}`] keys under construction: \
         `{name}::filter()`, one method per field, then `build()`."
    );
    let decl = quote! {
        #[doc = #doc]
        #[must_use = "a filter does nothing until `build()` and a scan use it"]
        #[allow(dead_code)]
        #vis struct #builder(#krate::__private::FilterParts);
    };
    // The value type a field's predicate is over.
    let arg = |f: &FieldModel<'_>, lt: TokenStream| {
        let ty = match f.arg {
            Arg::Value(ty) => ty.to_token_stream(),
            Arg::Str => quote!(&#lt str),
            Arg::Bytes => quote!(&#lt [u8]),
        };
        if f.option {
            quote!(__rk::Option<#ty>)
        } else {
            ty
        }
    };
    let methods = l.fields[..l.key_fields()].iter().enumerate().map(|(i, f)| {
        let (codec, fname, ident) = (codec_alias(i), &f.name, f.ident);
        let ty = arg(f, quote!('__r));
        let lt = (!matches!(f.arg, Arg::Value(_))).then(|| quote!('__r,));
        let (bound, what) = if f.has_range() {
            (
                quote!(__rk::FieldPredicate<#ty>),
                "a value, a range (in value order, also for a descending field) or `any_of` them",
            )
        } else {
            (
                quote!(__rk::ValuePredicate<#ty>),
                "a value or `any_of` values (its bytes do not sort by value: no range)",
            )
        };
        let doc =
            format!("Only keys whose `{fname}` matches: {what}. Called twice, both must hold.");
        let index = Literal::usize_unsuffixed(i);
        // The value type comes from `__P`'s bound.
        let call = respan(
            quote!(#codec::constrain(self.0, #index, #ident, #fname, __rk::PhantomData)),
            f.span,
        );
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #ident<#lt __P: #bound>(self, #ident: __P) -> Self {
                #builder(#call)
            }
        }
    });
    // The bucket, when every `by` field is fixed to one value: decoded back
    // from its encoding and hashed as `bucket()` hashes it.
    let bucket = l.salt.as_ref().map(|s| {
        let singles = s.by.iter().map(|&i| {
            let index = Literal::usize_unsuffixed(i);
            quote!(__parts.single(#index))
        });
        let pats = s.by.iter().map(|&i| format_ident!("__s{}", i));
        let decodes = s.by.iter().map(|&i| {
            let f = &l.fields[i];
            let (codec, fname, s) = (codec_alias(i), &f.name, format_ident!("__s{}", i));
            // Strings decode owned: an escaped or descending string's
            // bytes cannot be borrowed, and its bucket is still known.
            let ty = match f.arg {
                Arg::Str => quote!(__rk::String),
                Arg::Bytes => quote!(__rk::Vec<u8>),
                Arg::Value(_) => arg(f, quote!('_)),
            };
            let ty = match f.arg {
                Arg::Str | Arg::Bytes if f.option => quote!(__rk::Option<#ty>),
                _ => ty,
            };
            quote!(<#codec as __rk::FieldDecode<'_, #ty>>::decode(#s, 0, #fname))
        });
        let vals = s.by.iter().map(|&i| format_ident!("__v{}", i));
        let refs = s.by.iter().map(|&i| {
            let v = format_ident!("__v{}", i);
            quote!(&#v)
        });
        let hash = if s.by_can_fail {
            quote!(#name::__rk_bucket(#(#refs),*)?)
        } else {
            quote!(#name::__rk_bucket(#(#refs),*))
        };
        quote! {
            let __bucket = match (#(#singles,)*) {
                (#(__rk::Option::Some(#pats),)*) => match (#(#decodes,)*) {
                    (#(__rk::Result::Ok((#vals, _)),)*) => __rk::Option::Some(#hash),
                    // Cannot happen (the bytes were just encoded); then
                    // every bucket is read.
                    _ => __rk::Option::None,
                },
                _ => __rk::Option::None,
            };
            if let __rk::Option::Some(__b) = __bucket {
                __parts.in_bucket(__b);
            }
        }
    });
    let bucket_mut = bucket.is_some().then(|| quote!(mut));
    let filter_doc = format!(
        "A skip-scan filter on this key's fields: `{name}::filter().field(predicate)...build()` \
         gives a `KeyFilter` on any fields, not only leading ones (see its `matches`, \
         `seek_hint` and `scan`)."
    );
    let items = quote! {
        __rk::if_alloc! {
            #[automatically_derived]
            impl #builder {
                #(#methods)*
                /// The filter, or the first predicate value that cannot be encoded
                /// (a `#[fixed]` string that is too long, a timestamp out of range).
                #[inline]
                pub fn build(self) -> __rk::Result<__rk::KeyFilter, __rk::EncodeError> {
                    let #bucket_mut __parts = self.0;
                    #bucket
                    __parts.build()
                }
            }
        }
    };
    let ctor = quote! {
        __rk::if_alloc! {
            #[doc = #filter_doc]
            #[inline]
            pub fn filter() -> #builder {
                #builder(__rk::FilterParts::new(<Self as __rk::RowKey>::LAYOUT))
            }
        }
    };
    (decl, items, ctor)
}
