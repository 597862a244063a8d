//! Code generation. Every decision about the layout was made by `ast.rs`
//! and checked by `validate.rs`; this file only writes it out, calling
//! small helpers in `rowkey_core::__private`.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use syn::{DeriveInput, Ident, Lifetime, Type};

use crate::ast::{Field, Input, Kind};
use crate::attr::Hash;
use crate::ctxt::Ctxt;
use crate::{fallback, validate};

pub fn derive(node: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let input = Input::from_syn(&cx, node);
    if let Some(input) = &input {
        validate::check(&cx, input);
    }
    match (cx.check(), input) {
        (Ok(()), Some(input)) => expand(&input),
        (Err(err), input) => {
            let krate = input
                .and_then(|i| i.attrs.crate_path)
                .unwrap_or_else(default_crate);
            let mut out = err.to_compile_error();
            out.extend(fallback::expand(node, &krate));
            out
        }
        (Ok(()), None) => unreachable!("Input::from_syn failed without an error"),
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
fn type_has_static(ty: &Type) -> bool {
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
fn static_lifetimes(ty: &Type) -> Type {
    let mut ty = ty.clone();
    let to = Lifetime::new("'static", Span::call_site());
    SetLifetimes {
        to,
        keep_static: false,
    }
    .visit_type_mut(&mut ty);
    ty
}

/// The type with the struct's lifetimes replaced by the decoder's `'__de`
/// (a `&'static str` field stays `'static`).
fn decode_lifetimes(ty: &Type) -> Type {
    let mut ty = ty.clone();
    let to = Lifetime::new("'__de", Span::call_site());
    SetLifetimes {
        to,
        keep_static: true,
    }
    .visit_type_mut(&mut ty);
    ty
}

/// One field, as generated code needs it.
struct Plan<'a> {
    ident: &'a Ident,
    /// The field name as a string, for errors and method names.
    name: String,
    ty: &'a Type,
    /// The field type with every lifetime `'static`, for consts.
    ty_static: Type,
    /// The field type with every lifetime `'__de`, for decoding.
    ty_de: Type,
    codec: TokenStream,
    /// The scan argument type (may use the lifetime `'__r`).
    arg: TokenStream,
    arg_has_ref: bool,
    fixed: bool,
    can_fail: bool,
    /// Sorts descending (`#[desc]` or `#[desc_ts]`).
    desc: bool,
    reverse: bool,
    /// Stored raw to the end of the key.
    raw: bool,
    span: Span,
}

fn plan<'a>(krate: &syn::Path, field: &'a Field<'a>, last: bool) -> Plan<'a> {
    let a = &field.attrs;
    let shape = &field.shape;
    let desc = a.desc.is_some() || a.desc_ts.is_some();
    let (d, r) = (a.desc.is_some(), a.reverse.is_some());
    let p = quote!(#krate::__private);
    let mut raw = false;
    let (base, fixed, can_fail) = match shape.kind {
        Kind::Fixed if a.desc_ts.is_some() => {
            let unsigned =
                crate::ast::timestamp_int(shape.inner).is_some_and(|n| n.starts_with('u'));
            (quote!(#p::DescTs), true, unsigned)
        }
        Kind::Fixed => (quote!(#p::Fixed<#d, #r>), true, false),
        Kind::Var(_) => match &a.fixed {
            Some(f) => {
                let (n, pad) = (
                    Literal::usize_unsuffixed(f.len),
                    Literal::u8_unsuffixed(f.pad),
                );
                (quote!(#p::Padded<#n, #pad, #d, #r>), true, true)
            }
            None => {
                raw = field.stored_raw(last);
                let frame = if raw {
                    quote!(#p::RAW)
                } else {
                    quote!(#p::ESCAPED)
                };
                (quote!(#p::Var<{ #frame }, #d, #r>), false, false)
            }
        },
    };
    // The Option tag follows the field's direction: `#[desc_ts]` sorts the
    // whole field descending, like `#[desc]`, so `None` comes last.
    let codec = if shape.option {
        quote!(#p::Opt<#base, #desc>)
    } else {
        base
    };
    let (inner_arg, arg_has_ref) = match shape.kind {
        Kind::Fixed => {
            let inner = shape.inner;
            (quote!(#inner), false)
        }
        Kind::Var(v) if v.text => (quote!(&'__r str), true),
        Kind::Var(_) => (quote!(&'__r [u8]), true),
    };
    let arg = if shape.option {
        quote!(::core::option::Option<#inner_arg>)
    } else {
        inner_arg
    };
    let ty = &field.original.ty;
    Plan {
        ident: field.ident,
        name: field.ident.unraw().to_string(),
        ty,
        ty_static: static_lifetimes(ty),
        ty_de: decode_lifetimes(ty),
        codec,
        arg,
        arg_has_ref,
        fixed,
        can_fail,
        desc,
        reverse: r,
        raw,
        span: syn::spanned::Spanned::span(ty),
    }
}

/// Gives every token of `tokens` the location of `span` (keeping call-site
/// resolution), so that an error in the generated code for a field, such as
/// a type that is not a field type, points at that field.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    let span = Span::call_site().located_at(span);
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// `expr?` for a fallible context, `infallible(expr)` where the derive
/// proved that no field can fail.
fn try_(p: &TokenStream, fallible: bool, expr: TokenStream) -> TokenStream {
    if fallible {
        quote!(#expr?)
    } else {
        quote!(#p::infallible(#expr))
    }
}

fn default_crate() -> syn::Path {
    syn::parse_quote!(::rowkey_core)
}

fn expand(input: &Input) -> TokenStream {
    let krate: syn::Path = input.attrs.crate_path.clone().unwrap_or_else(default_crate);
    let p = quote!(#krate::__private);
    let n = input.fields.len();
    let plans: Vec<Plan> = input
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| plan(&krate, f, i + 1 == n))
        .collect();
    let name = &input.original.ident;
    let (impl_generics, ty_generics, _) = input.original.generics.split_for_impl();
    let has_lifetimes = input.original.generics.lifetimes().next().is_some();

    let salt = input.attrs.salt.as_ref();
    let salt_len = usize::from(salt.is_some());
    let buckets = salt.map(|s| Literal::u16_unsuffixed(s.buckets));
    let hasher = match salt.map(|s| s.hash) {
        Some(Hash::Java) => quote!(#p::JavaHash),
        _ => quote!(#p::Xxh3),
    };
    let all_fixed = plans.iter().all(|f| f.fixed);
    let any_fail = plans.iter().any(|f| f.can_fail);

    // Field widths, in a const context.
    let fixed_len = |f: &Plan| {
        let (c, t) = (&f.codec, &f.ty_static);
        respan(
            quote!(#p::fixed(<#c as #p::FieldCodec<#t>>::FIXED_LEN)),
            f.span,
        )
    };
    let widths = plans.iter().filter(|f| f.fixed).map(fixed_len);
    let len_expr = quote!(#salt_len #(+ #widths)*);
    let min_lens = plans.iter().map(|f| {
        let (c, t) = (&f.codec, &f.ty_static);
        respan(quote!(<#c as #p::FieldCodec<#t>>::MIN_LEN), f.span)
    });
    let min_expr = quote!(#salt_len #(+ #min_lens)*);

    // encode_into
    let positions: Vec<Ident> = (0..=n).map(|i| format_ident!("__p{}", i)).collect();
    let encode_fields = plans.iter().enumerate().map(|(i, f)| {
        let (c, t, ident, fname) = (&f.codec, f.ty, f.ident, &f.name);
        let (cur, next) = (&positions[i], &positions[i + 1]);
        respan(quote!(let #next = <#c as #p::FieldCodec<#t>>::encode(&self.#ident, __out, #cur, #fname)?;), f.span)
    });
    let by_indices: Vec<usize> = match salt.and_then(|s| s.by.as_ref()) {
        Some(by) => {
            let mut idx: Vec<usize> = by
                .iter()
                .filter_map(|b| plans.iter().position(|f| f.ident == b))
                .collect();
            idx.sort_unstable();
            idx
        }
        None => (0..n).collect(),
    };
    let salt_write = salt.map(|_| {
        // Contiguous runs of `by` fields become one slice each.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &i in &by_indices {
            match runs.last_mut() {
                Some((_, end)) if *end == i => *end = i + 1,
                _ => runs.push((i, i + 1)),
            }
        }
        let slices = runs.iter().map(|(a, b)| {
            let (a, b) = (&positions[*a], &positions[*b]);
            quote!(&__out[#a..#b])
        });
        quote! {
            let __bucket = <#hasher as #p::SaltHash>::bucket(&[#(#slices),*], #buckets);
            __out[0] = __bucket;
        }
    });
    let encoded_len = if all_fixed {
        // The inherent constant: evaluated at compile time, so the length
        // checks of the whole encoding fold away.
        quote!(Self::LEN)
    } else {
        let parts = plans.iter().map(|f| {
            let (c, t, ident) = (&f.codec, f.ty, f.ident);
            respan(
                quote!(<#c as #p::FieldCodec<#t>>::encoded_len(&self.#ident)),
                f.span,
            )
        });
        quote!(#salt_len #(+ #parts)*)
    };
    // A fixed layout's encoding is a handful of stores: always inline it, so
    // that `encode()` compiles to the hand-written code in every codegen unit.
    let encode_inline = if all_fixed {
        quote!(#[inline(always)])
    } else {
        quote!(#[inline])
    };
    let p0 = &positions[0];
    let p_last = &positions[n];
    // The output slice: for a variable layout, a buffer that holds even the
    // worst case (a cheap bound, no pass over the bytes) is used as is, and
    // only a smaller one costs the exact count.
    let claim_output = if all_fixed {
        quote!(let __out = #p::output(__out, Self::LEN)?;)
    } else {
        let bounds = plans.iter().map(|f| {
            let (c, t, ident) = (&f.codec, f.ty, f.ident);
            respan(
                quote!(<#c as #p::FieldCodec<#t>>::max_encoded_len(&self.#ident)),
                f.span,
            )
        });
        quote! {
            let __max = #salt_len #(+ #bounds)*;
            let __out = if __out.len() >= __max {
                __out
            } else {
                #p::output(__out, <Self as #p::RowKey>::encoded_len(self))?
            };
        }
    };
    let fixed_len_const = if all_fixed {
        quote!(#p::Option::Some(#len_expr))
    } else {
        quote!(#p::Option::None)
    };
    let salt_buckets_const = match &buckets {
        Some(b) => quote!(#p::Option::Some(#b)),
        None => quote!(#p::Option::None),
    };

    // decode
    let decode_lifetime: TokenStream = if has_lifetimes {
        let lts = input.original.generics.lifetimes().map(|_| quote!('__de));
        quote!(<#(#lts),*>)
    } else {
        quote!()
    };
    // A field that borrows for 'static (`&'static str`) can only be decoded
    // from 'static bytes: the bound makes the impl say so instead of failing.
    let static_bounds: Vec<TokenStream> = plans
        .iter()
        .filter(|f| type_has_static(&f.ty_de))
        .map(|f| {
            let (c, t) = (&f.codec, &f.ty_de);
            quote!(#c: #p::FieldDecode<'__de, #t>)
        })
        .collect();
    let decode_where = if static_bounds.is_empty() {
        quote!()
    } else {
        quote!(where #(#static_bounds),*)
    };
    let decode_salt = buckets
        .as_ref()
        .map(|b| quote!(#p::decode_salt(__input, #b)?;));
    let decode_fields = plans.iter().enumerate().map(|(i, f)| {
        let (c, t, fname) = (&f.codec, &f.ty_de, &f.name);
        let v = format_ident!("__v{}", i);
        respan(quote!(let (#v, __pos) = <#c as #p::FieldDecode<'__de, #t>>::decode(__input, __pos, #fname)?;), f.span)
    });
    let field_inits = plans.iter().enumerate().map(|(i, f)| {
        let (ident, v) = (f.ident, format_ident!("__v{}", i));
        quote!(#ident: #v)
    });

    // Inherent items.
    let len_ty = if has_lifetimes {
        len_expr.clone()
    } else {
        quote!(Self::LEN)
    };
    let fixed_items = all_fixed.then(|| {
        let encode = (!any_fail).then(|| {
            quote! {
                /// The key as a fixed-size array. No field of this layout can
                /// fail to encode, so this cannot fail.
                #[inline(always)]
                pub fn encode(&self) -> [u8; #len_ty] {
                    let mut __buf = [0u8; #len_ty];
                    #p::infallible(<Self as #p::RowKey>::encode_into(self, &mut __buf));
                    __buf
                }
            }
        });
        quote! {
            /// The length of every key of this layout, in bytes.
            pub const LEN: usize = #len_expr;

            /// The key as a fixed-size array, or the field that cannot be
            /// encoded.
            #[inline(always)]
            pub fn try_encode(&self) -> #p::Result<[u8; #len_ty], #p::EncodeError> {
                let mut __buf = [0u8; #len_ty];
                <Self as #p::RowKey>::encode_into(self, &mut __buf)?;
                #p::Result::Ok(__buf)
            }

            #encode
        }
    });

    let by_plans: Vec<&Plan> = by_indices.iter().map(|&i| &plans[i]).collect();
    let by_fail = by_plans.iter().any(|f| f.can_fail);
    let salt_items = salt.map(|_| {
        let tparams: Vec<Ident> = (0..by_plans.len()).map(|i| format_ident!("__T{}", i)).collect();
        let vals: Vec<Ident> = (0..by_plans.len()).map(|i| format_ident!("__v{}", i)).collect();
        let codecs: Vec<&TokenStream> = by_plans.iter().map(|f| &f.codec).collect();
        let names = by_plans.iter().map(|f| &f.name);
        let by_fixed = by_plans.iter().all(|f| f.fixed);
        let buf = if by_fixed {
            let widths = by_plans.iter().map(|f| fixed_len(f));
            quote!(let mut __buf = [0u8; 0 #(+ #widths)*];)
        } else {
            quote! {
                let mut __buf = #p::Vec::new();
                __buf.resize(0 #(+ <#codecs as #p::FieldCodec<#tparams>>::encoded_len(#vals))*, 0u8);
            }
        };
        let self_args = by_plans.iter().map(|f| {
            let ident = f.ident;
            quote!(&self.#ident)
        });
        let self_args2 = self_args.clone();
        let bucket = (!by_fail).then(|| quote! {
            /// The salt bucket of this key (its first byte), computed
            /// from the `by` fields alone.
            #[inline]
            pub fn bucket(&self) -> u8 {
                #p::infallible(Self::__rowkey_bucket(#(#self_args),*))
            }
        });
        let helper = quote! {
            #[inline]
            fn __rowkey_bucket<#(#tparams: ?Sized),*>(#(#vals: &#tparams),*) -> #p::Result<u8, #p::EncodeError>
            where #(#codecs: #p::FieldCodec<#tparams>),*
            {
                #buf
                let __p = 0usize;
                #(let __p = <#codecs as #p::FieldCodec<#tparams>>::encode(#vals, &mut __buf, __p, #names)?;)*
                #p::Result::Ok(<#hasher as #p::SaltHash>::bucket(&[&__buf[..__p]], #buckets))
            }

            /// The salt bucket of this key (its first byte), or the `by`
            /// field that cannot be encoded.
            #[inline]
            pub fn try_bucket(&self) -> #p::Result<u8, #p::EncodeError> {
                Self::__rowkey_bucket(#(#self_args2),*)
            }

            #bucket
        };
        if by_fixed {
            helper
        } else {
            quote!(#p::if_alloc! { #helper })
        }
    });

    let length_checks = length_assertions(input, all_fixed, &len_expr, &min_expr);
    let scans = scan_methods(&p, &plans, salt.map(|s| s.buckets), &by_indices, &buckets);
    let split_points = match &buckets {
        Some(b) => quote!(#p::split_points(#b)),
        None => quote!(#p::Vec::new()),
    };

    quote! {
        #[allow(clippy::identity_op, clippy::needless_question_mark, clippy::too_many_arguments)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::RowKey for #name #ty_generics {
                const FIXED_LEN: #p::Option<usize> = #fixed_len_const;
                const MIN_LEN: usize = #min_expr;
                const SALT_BUCKETS: #p::Option<u16> = #salt_buckets_const;

                #[inline]
                fn encoded_len(&self) -> usize {
                    #encoded_len
                }

                #encode_inline
                fn encode_into(&self, __out: &mut [u8]) -> #p::Result<usize, #p::EncodeError> {
                    #claim_output
                    let #p0: usize = #salt_len;
                    #(#encode_fields)*
                    #salt_write
                    #p::Result::Ok(#p_last)
                }
            }

            #[automatically_derived]
            impl<'__de> #p::DecodeRowKey<'__de> for #name #decode_lifetime #decode_where {
                #[inline]
                fn decode(__input: &'__de [u8]) -> #p::Result<Self, #p::DecodeError> {
                    #decode_salt
                    let __pos: usize = #salt_len;
                    #(#decode_fields)*
                    #p::finish(__input, __pos)?;
                    #p::Result::Ok(Self { #(#field_inits),* })
                }
            }

            #[automatically_derived]
            impl #impl_generics #name #ty_generics {
                #fixed_items
                #salt_items

                #p::if_alloc! {
                    /// Where to pre-split the table: for a salted key the
                    /// first byte of each bucket after the first (one
                    /// region per bucket); empty for an unsalted key.
                    pub fn split_points() -> #p::Vec<#p::Vec<u8>> {
                        #split_points
                    }

                    #scans
                }
            }

            #length_checks
        };
    }
}

/// Const assertions for the length limits when a field's width is only
/// known to the compiler (otherwise `validate.rs` checked them with exact
/// messages).
fn length_assertions(
    input: &Input,
    all_fixed: bool,
    len: &TokenStream,
    min: &TokenStream,
) -> TokenStream {
    let length = validate::length(input);
    if !length.unknown {
        return TokenStream::new();
    }
    let parts = &length.parts;
    let mut out = TokenStream::new();
    let key_len = if all_fixed { len } else { min };
    let least = if all_fixed { "" } else { "at least " };
    if let Some(lit) = &input.attrs.max_len {
        let msg = format!(
            "row key is {least}longer than max_len = {} ({parts})",
            lit.base10_digits()
        );
        out.extend(
            quote_spanned!(lit.span()=> const _: () = ::core::assert!(#key_len <= #lit, #msg);),
        );
    }
    if let (Some(lit), true) = (&input.attrs.align, all_fixed) {
        let msg = format!(
            "row key length is not a multiple of align = {} ({parts})",
            lit.base10_digits()
        );
        out.extend(
            quote_spanned!(lit.span()=> const _: () = ::core::assert!(#key_len % #lit == 0, #msg);),
        );
    }
    let limit = validate::HBASE_MAX_KEY;
    let msg = format!("row key is {least}longer than HBase's limit of {limit} bytes ({parts})");
    let span = input.original.ident.span();
    out.extend(quote_spanned!(span=> const _: () = ::core::assert!(#key_len <= #limit, #msg);));
    out
}

fn scan_methods(
    p: &TokenStream,
    plans: &[Plan],
    salt_buckets: Option<u16>,
    by_indices: &[usize],
    buckets: &Option<Literal>,
) -> TokenStream {
    let mut out = TokenStream::new();
    let all = match buckets {
        Some(b) => quote!(#p::Buckets::All(#b)),
        None => quote!(#p::Buckets::Unsalted),
    };
    out.extend(quote! {
        /// Every row of the table: one range per salt bucket when salted.
        pub fn scan_all() -> #p::Scan {
            #p::scan_eq(#p::Prefix::new(), #all, false)
        }
    });
    // The buckets a scan reads when its first `eq` fields are fixed.
    let buckets_for = |eq: usize, fallible: bool| -> TokenStream {
        match salt_buckets {
            None => quote!(#p::Buckets::Unsalted),
            Some(_) if by_indices.iter().all(|&i| i < eq) => {
                let args = by_indices.iter().map(|&i| {
                    let ident = plans[i].ident;
                    quote!(&#ident)
                });
                let call = try_(p, fallible, quote!(Self::__rowkey_bucket(#(#args),*)));
                quote!(#p::Buckets::One(#call))
            }
            Some(_) => all.clone(),
        }
    };
    for k in 1..=plans.len() {
        let fields = &plans[..k];
        let suffix = fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join("_");
        let names = fields
            .iter()
            .map(|f| format!("`{}`", f.name))
            .collect::<Vec<_>>()
            .join(", ");

        // scan_by: equality on the first k fields.
        let fallible = fields.iter().any(|f| f.can_fail);
        let pushes = |eq: &[Plan]| -> Vec<TokenStream> {
            eq.iter()
                .map(|f| {
                    let (c, a, ident, fname) = (&f.codec, &f.arg, f.ident, &f.name);
                    let call =
                        quote!(<#c as #p::FieldCodec<#a>>::push(&mut __prefix, &#ident, #fname));
                    respan(try_(p, fallible, call), f.span)
                })
                .map(|t| quote!(#t;))
                .collect()
        };
        let params = |eq: &[Plan]| -> Vec<TokenStream> {
            eq.iter()
                .map(|f| {
                    let (ident, a) = (f.ident, &f.arg);
                    quote!(#ident: #a)
                })
                .collect()
        };
        let lifetime = |eq: &[Plan]| eq.iter().any(|f| f.arg_has_ref).then(|| quote!(<'__r>));
        let ret = if fallible {
            quote!(#p::Result<#p::Scan, #p::EncodeError>)
        } else {
            quote!(#p::Scan)
        };
        let wrap = |scan: TokenStream| {
            if fallible {
                quote!(#p::Result::Ok(#scan))
            } else {
                scan
            }
        };

        let exact = k == plans.len() && plans[k - 1].raw;
        let method = format_ident!("scan_by_{}", suffix);
        let doc = format!("Every row whose {names} equal the given values.");
        let (ps, pu, bk, lt) = (
            params(fields),
            pushes(fields),
            buckets_for(k, fallible),
            lifetime(fields),
        );
        let body = wrap(quote!(#p::scan_eq(__prefix, __buckets, #exact)));
        out.extend(quote! {
            #[doc = #doc]
            pub fn #method #lt(#(#ps),*) -> #ret {
                let mut __prefix = #p::Prefix::new();
                #(#pu)*
                let __buckets = #bk;
                #body
            }
        });

        // range_by: equality on the first k-1 fields, a range on field k.
        let last = &plans[k - 1];
        if last.reverse {
            continue;
        }
        let eq = &plans[..k - 1];
        let method = format_ident!("range_by_{}", suffix);
        let order = if last.desc {
            " (the field sorts descending: the rows come newest/largest first)"
        } else {
            ""
        };
        let doc = if eq.is_empty() {
            format!("Every row whose `{}` is in `range`{order}.", last.name)
        } else {
            let eq_names = eq
                .iter()
                .map(|f| format!("`{}`", f.name))
                .collect::<Vec<_>>()
                .join(", ");
            format!("Every row whose {eq_names} equal the given values and whose `{}` is in `range`{order}.", last.name)
        };
        let (ps, pu, bk) = (params(eq), pushes(eq), buckets_for(k - 1, fallible));
        let lt = lifetime(fields);
        let (c, a, fname, desc, raw) = (&last.codec, &last.arg, &last.name, last.desc, last.raw);
        // `range` reads best in the docs; step aside for a field of that name.
        let range = if eq.iter().any(|f| f.name == "range") {
            format_ident!("__range")
        } else {
            format_ident!("range")
        };
        let call = respan(
            try_(
                p,
                fallible,
                quote!(<#c as #p::FieldCodec<#a>>::scan_range(__prefix, &#range, __buckets, #desc, #raw, #fname)),
            ),
            last.span,
        );
        let body = wrap(call);
        out.extend(quote! {
            #[doc = #doc]
            pub fn #method #lt(#(#ps,)* #range: impl #p::RangeBounds<#a>) -> #ret {
                let mut __prefix = #p::Prefix::new();
                #(#pu)*
                let __buckets = #bk;
                #body
            }
        });
    }
    out
}
