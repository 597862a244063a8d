//! Typed row keys for other languages, generated from a rowkey layout and
//! byte for byte the derive's: the code behind `rowkey gen`.
//!
//! A layout (its one-line text or JSON, read by
//! [`DynLayout`](rowkey_core::DynLayout)) is planned once ([`plan`]: every
//! field's value type and encoding, the prefix and the salt), then written
//! out by a language's generator. What a generator cannot write yet is
//! refused with [`CodegenError::Unsupported`], naming the field.
//!
//! Languages so far: **Python 3** ([`Language::Python`]: a module with a
//! frozen dataclass, `to_bytes`, `from_bytes`, `bucket`, `split_points`,
//! the `scan_by_*` / `range_by_*` bounds, `scan_kwargs` for happybase,
//! `LAYOUT` and `LAYOUT_ID`; the standard library only, and the `xxhash`
//! package when the salt is XXH3), for binary keys of integers, bools,
//! `char`s, floats, field enums, strings and byte strings, `#[desc]`, `#[desc_ts]`, `#[fixed]`, `Option`,
//! a prefix and every salt, and for text keys (`text("S")`: integers in
//! digits, `desc`, `desc_ts(max = M)`, delimited, padded and raw strings). **Go** ([`Language::Go`]: a struct with
//! `Encode`, `Decode<Name>`, `Bucket`, split points and the scans, the
//! standard library and `github.com/zeebo/xxh3` for an XXH3 salt) and
//! **Java 17** ([`Language::Java`]: a record with `toBytes`, `fromBytes`,
//! `bucket`, `splitPoints`, the scans and `toStringBinary`; OpenHFT's
//! `zero-allocation-hashing` for an XXH3 salt), for the same layouts.
//! `tests/python.rs`, `tests/go.rs` and `tests/java.rs` run the generated
//! code on random layouts and values against the Rust encoding.
//!
//! ```
//! use rowkey_codegen::{generate, Language};
//! use rowkey_core::DynLayout;
//!
//! let layout = DynLayout::parse("[salt(user)/16][user u64][ts desc_ts i64]")?;
//! let files = generate(layout.layout(), Language::Python, "Event", "events")?;
//! assert_eq!(files[0].path, "events.py");
//! assert!(files[0].contents.contains("class Event:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod go;
mod java;
mod plan;
mod python;

pub use error::CodegenError;
pub use plan::{plan, EnumPlan, FieldPlan, KeyPlan, SaltPlan, Scalar};
use rowkey_core::Layout;

/// A language to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Language {
    /// Python 3.8 or later.
    Python,
    /// Go 1.21 or later.
    Go,
    /// Java 17 or later.
    Java,
}

impl Language {
    /// The language's name, as `rowkey gen` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Go => "go",
            Language::Java => "java",
        }
    }
}

/// A file to write: its path below the output folder, and its text.
#[derive(Clone, Debug)]
pub struct GeneratedFile {
    /// The path, relative to the output folder.
    pub path: String,
    /// The file's contents.
    pub contents: String,
}

/// The files of `layout`'s typed key in `language`: a type named `name` in
/// package (or module) `package`.
pub fn generate(
    layout: &Layout,
    language: Language,
    name: &str,
    package: &str,
) -> Result<Vec<GeneratedFile>, CodegenError> {
    let lang = language.name();
    let ident = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !ident(name) {
        return Err(CodegenError::Name {
            language: lang,
            name: name.into(),
            what: "type",
        });
    }
    // A Java package is dotted (`com.example.keys`).
    let package_ok = match language {
        Language::Java => package.split('.').all(ident),
        _ => ident(package),
    };
    if !package_ok {
        return Err(CodegenError::Name {
            language: lang,
            name: package.into(),
            what: "module",
        });
    }
    let plan = plan(layout, lang)?;
    match language {
        Language::Python => Ok(vec![GeneratedFile {
            path: format!("{package}.py"),
            contents: python::module(&plan, name),
        }]),
        Language::Java => Ok(vec![
            GeneratedFile {
                path: format!("{}/{name}.java", package.replace('.', "/")),
                contents: java::file(&plan, name, package),
            },
            GeneratedFile {
                path: format!("{}/RowkeyHelpers.java", package.replace('.', "/")),
                contents: java::HELPERS.replace("PACKAGE", package),
            },
        ]),
        Language::Go => Ok(vec![
            GeneratedFile {
                path: format!("{}.go", name.to_ascii_lowercase()),
                contents: go::file(&plan, name, package),
            },
            GeneratedFile {
                path: "rowkey_helpers.go".into(),
                contents: go::HELPERS.replace("PACKAGE", package),
            },
        ]),
    }
}
