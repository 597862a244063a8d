//! The `#[derive(RowKey)]` macro. Use it through `rowkey-core`, which
//! re-exports it and holds the runtime it expands to.
//!
//! Its attributes are described in the guide's chapter "The derive and its
//! attributes" (the book in `docs/` of rowkey's repository: `mdbook serve
//! docs`).
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod ctxt;
mod descriptor;
mod expand;
mod fallback;
mod family;
mod filter;
mod impls;
mod key_field;
mod model;
mod ordered_code;
#[cfg(test)]
mod output_tests;
mod scans;
mod tokens;
mod validate;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives a typed row key: `RowKey`, `DecodeRowKey`, and inherent `LEN`,
/// `encode`, `try_encode`, `bucket`, `scan_*`, `range_by_*` and
/// `split_points` items. See the `rowkey-core` documentation.
#[proc_macro_derive(
    RowKey,
    attributes(
        rowkey,
        salt,
        fixed,
        desc,
        desc_ts,
        reverse,
        digits,
        reverse_domain,
        ts
    )
)]
pub fn derive_row_key(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Derives `FixedField` (and the text keys' `Decimal`) for a fieldless enum
/// with `#[repr(int)]` and an explicit discriminant on every variant: the
/// enum can then be a key field, stored as its discriminant. See the
/// `rowkey-core` documentation.
#[proc_macro_derive(KeyField, attributes(rowkey))]
pub fn derive_key_field(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    key_field::derive(&input).into()
}
