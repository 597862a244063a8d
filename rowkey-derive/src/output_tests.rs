//! Expansion snapshots, in the style of zerocopy-derive's output tests:
//! the expansion of each key in `tests/expand/*.rs` is checked against the
//! `.expanded.rs` file beside it, so every change to the generated code
//! shows up in review. After a deliberate change, refresh them with
//! `ROWKEY_BLESS=1 cargo test -p rowkey-derive` and read the diff.

use std::fs;
use std::path::{Path, PathBuf};

use syn::visit_mut::{self, VisitMut};

/// Inlines the items inside `__rk::if_alloc! { ... }` (what the macro does
/// when rowkey-core's `alloc` feature is on), so that the snapshot shows
/// them formatted, as `cargo expand` would.
struct InlineIfAlloc;

impl VisitMut for InlineIfAlloc {
    fn visit_item_impl_mut(&mut self, node: &mut syn::ItemImpl) {
        let mut items = Vec::new();
        for item in std::mem::take(&mut node.items) {
            match item {
                syn::ImplItem::Macro(m)
                    if m.mac.path.segments.last().unwrap().ident == "if_alloc" =>
                {
                    items.extend(if_alloc_items(&m.mac));
                }
                other => items.push(other),
            }
        }
        node.items = items;
        visit_mut::visit_item_impl_mut(self, node);
    }
}

/// The derive's output for the one `#[derive(RowKey)]` struct or enum in
/// `source`.
fn derived(source: &str) -> proc_macro2::TokenStream {
    let file = syn::parse_file(source).expect("the input parses");
    let node = file
        .items
        .into_iter()
        .find_map(|item| match item {
            syn::Item::Struct(s) => Some(syn::DeriveInput::from(s)),
            syn::Item::Enum(e) => Some(syn::DeriveInput::from(e)),
            _ => None,
        })
        .expect("the input has a struct or an enum");
    crate::expand::derive(&node)
}

/// The items of an `if_alloc! { ... }` inside an impl.
fn if_alloc_items(mac: &syn::Macro) -> Vec<syn::ImplItem> {
    let parser = |input: syn::parse::ParseStream<'_>| {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse::<syn::ImplItem>()?);
        }
        Ok(items)
    };
    mac.parse_body_with(parser).expect("impl items")
}

/// The expansion of the one `#[derive(RowKey)]` struct or enum in
/// `source`, as formatted Rust.
fn expansion(source: &str) -> String {
    let tokens = derived(source);
    let mut expanded: syn::File = syn::parse2(tokens).expect("the expansion parses as items");
    InlineIfAlloc.visit_file_mut(&mut expanded);
    prettyplease::unparse(&expanded)
}

fn inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut inputs: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/expand exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rs")
                && !p.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    inputs
}

fn expected_path(input: &Path) -> PathBuf {
    input.with_extension("expanded.rs")
}

#[test]
fn expansions_match_their_snapshots() {
    let bless = std::env::var_os("ROWKEY_BLESS").is_some();
    let inputs = inputs();
    assert!(inputs.len() >= 4, "representative keys in tests/expand");
    let mut stale = Vec::new();
    for input in &inputs {
        let actual = expansion(&fs::read_to_string(input).unwrap());
        let path = expected_path(input);
        if bless {
            fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&path).unwrap_or_default();
        if actual != expected {
            stale.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "expansions changed (ROWKEY_BLESS=1 to accept, then review):\n{}",
        stale.join("\n")
    );
}

fn lines(name: &str) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expand")
        .join(name);
    expansion(&fs::read_to_string(path).unwrap())
        .lines()
        .count()
}

/// The README's quick-start key expands to a short, readable impl, and the
/// expansion grows linearly with the number of fields: each prefix helper
/// extends its shorter sibling's prefix instead of rebuilding it, so a key
/// of n fields encodes n prefix fields, not n²/2. What still grows faster
/// than n is only the scans' parameter lists (`scan_by_a_..._h` takes all
/// eight values), which are the API itself: that keeps the ratio of 8 to 4
/// fields slightly above 2.
#[test]
fn expansion_is_short_and_linear() {
    let quick = lines("quick_start.rs");
    // 150 before text keys; the salt head became a type (`__Salt`: a byte,
    // or digits and a separator), which costs the alias; the layout
    // descriptor (`RowKey::LAYOUT`) adds about one line per field (a
    // `field!` invocation each) and one for the `layout!`.
    // The skip-scan filter builder (`T::filter()`) adds its declaration,
    // one short method per field and `build()`, which fixes the bucket
    // when the salt's fields are fixed: 33 lines.
    // A fixed-width key's decode runs its fields through
    // `decode_fixed` (so that at the key's length every bounds check folds
    // away): 4 lines.
    assert!(quick <= 199, "the quick-start key expands to {quick} lines");
    for (name, fields) in [("four_fields.rs", 4), ("eight_fields.rs", 8)] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/expand")
            .join(name);
        let text = expansion(&fs::read_to_string(path).unwrap());
        let pushes = text.matches("::extend(").count();
        assert_eq!(pushes, fields, "{name}: one prefix push per field");
    }
    let (four, eight) = (lines("four_fields.rs"), lines("eight_fields.rs"));
    assert!(
        eight * 100 <= four * 210,
        "8 fields expand to {eight} lines, 4 fields to {four}"
    );
}

/// The helper module's full path appears once inside the const block, as
/// its alias, and once outside it, in the filter builder's declaration
/// (beside the key type, so that users can name it).
#[test]
fn helper_path_is_spelled_once() {
    for input in inputs() {
        let text = expansion(&fs::read_to_string(&input).unwrap());
        let full = text.matches("__private").count();
        let outside = text.matches("Filter(").count().min(1);
        assert_eq!(full, 1 + outside, "{}: {full} full paths", input.display());
    }
}

/// Every function the derive generates is `#[inline]` or generic, so that
/// a crate that defines keys compiles none of them to machine code unless
/// it calls them: the build cost that BENCHMARKS.md measures against
/// serde's derives. (`build()` of the filter builder was neither, and was
/// code-generated for every key.)
#[test]
fn generated_functions_are_inline_or_generic() {
    fn impl_fns(items: &[syn::ImplItem], out: &mut Vec<syn::ImplItemFn>) {
        for item in items {
            match item {
                syn::ImplItem::Fn(f) => out.push(f.clone()),
                syn::ImplItem::Macro(m) => impl_fns(&if_alloc_items(&m.mac), out),
                _ => {}
            }
        }
    }
    fn fns(items: &[syn::Item], out: &mut Vec<syn::ImplItemFn>) {
        for item in items {
            match item {
                syn::Item::Impl(i) => impl_fns(&i.items, out),
                syn::Item::Const(c) => {
                    if let syn::Expr::Block(b) = &*c.expr {
                        let inner: Vec<syn::Item> = b
                            .block
                            .stmts
                            .iter()
                            .filter_map(|s| match s {
                                syn::Stmt::Item(i) => Some(i.clone()),
                                // `__rk::if_alloc! { ... }`: its items.
                                syn::Stmt::Macro(m) => Some(syn::Item::Macro(syn::ItemMacro {
                                    attrs: m.attrs.clone(),
                                    ident: None,
                                    mac: m.mac.clone(),
                                    semi_token: m.semi_token,
                                })),
                                _ => None,
                            })
                            .collect();
                        fns(&inner, out);
                    }
                }
                syn::Item::Macro(m) if m.mac.path.segments.last().unwrap().ident == "if_alloc" => {
                    let file: syn::File = m.mac.parse_body().expect("items");
                    fns(&file.items, out);
                }
                _ => {}
            }
        }
    }
    let mut checked = 0;
    for input in inputs() {
        let expanded: syn::File =
            syn::parse2(derived(&fs::read_to_string(&input).unwrap())).unwrap();
        let mut all = Vec::new();
        fns(&expanded.items, &mut all);
        for f in all {
            let inline = f.attrs.iter().any(|a| a.path().is_ident("inline"));
            let generic = f
                .sig
                .generics
                .params
                .iter()
                .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
                || f.sig.inputs.iter().any(|arg| {
                    matches!(arg, syn::FnArg::Typed(t) if matches!(*t.ty, syn::Type::ImplTrait(_)))
                });
            assert!(
                inline || generic,
                "{}: `{}` is neither #[inline] nor generic: every crate defining the key would compile it",
                input.display(),
                f.sig.ident
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} functions found");
}
