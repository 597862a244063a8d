//! Typed row keys for other languages, generated from a rowkey layout and
//! byte for byte the derive's: the code behind `rowkey gen`.
//!
//! The guide's chapter "Typed keys in other languages" (the book in `docs/`
//! of rowkey's repository: `mdbook serve docs`) shows the command and the
//! generated code.
//!
//! A layout (its one-line text or JSON, read by
//! [`DynLayout`](rowkey_core::DynLayout)) is planned once ([`plan`]: every
//! field's value type and encoding, the prefix and the salt), then written
//! out by a language's generator. What a generator cannot write yet is
//! refused with [`CodegenError::Unsupported`], naming the field. A key
//! family's members are each a key of their own, beside the family's code
//! that decodes a key of any member.
//!
//! The languages: **Python 3** ([`Language::Python`]: a module with a
//! frozen dataclass, `to_bytes`, `from_bytes`, `bucket`, `split_points`,
//! the `scan_by_*` / `range_by_*` bounds, `scan_kwargs` for happybase,
//! `LAYOUT` and `LAYOUT_ID`; the standard library, and the `xxhash`
//! package when the salt is XXH3), **Go** ([`Language::Go`]: a struct with
//! `Encode`, `Decode<Name>`, `Bucket`, split points and the scans; the
//! standard library, and `github.com/zeebo/xxh3` for an XXH3 salt) and
//! **Java 17** ([`Language::Java`]: a record with `toBytes`, `fromBytes`,
//! `bucket`, `splitPoints`, the scans and `toStringBinary`; OpenHFT's
//! `zero-allocation-hashing` for an XXH3 salt). [`Options`] adds the
//! clients' own types: HBase `Scan`s in Java, Bigtable row sets in Go.
//!
//! The layouts, in every language: binary keys of every integer, bools,
//! `char`s, floats, field enums, UUIDs, ULIDs, IP addresses, timestamps
//! (`ts(unit)`: the language's time type), strings and byte strings, with
//! `#[desc]`, `#[desc_ts]`, `#[fixed]`, `#[reverse]`, `#[reverse_domain]`,
//! `Option`, added fields, a prefix and every salt; text keys
//! (`text("S")`); ordered-code keys (Bigtable's `OrderedCodeBytes`
//! struct); key families. `tests/python.rs`, `tests/go.rs` and
//! `tests/java.rs` run the generated code on random layouts and values
//! against the Rust encoding.
//!
//! # Names
//!
//! Every name from the layout (fields, field enums and their variants)
//! is an identifier (the layout's parser refuses others). A name is
//! written with a trailing `_` in a language where, as that language
//! spells it, it is a keyword or literal (a field `class` is Python's
//! `class_` and Java's `class_`; a variant `None` is Python's `None_`) or
//! a name the generated code itself takes (Java's `hashCode`, `toBytes`,
//! `bucket`; Python's `from_bytes`, `pos`, `key`; Go's `Encode`); Go's
//! struct fields are exported (`Class`), and its variants stand inside
//! their constants' names (`KindNone`), so neither is renamed. Method
//! names made of field names (`scan_by_class`) are not renamed. Two fields
//! a language would write alike are refused
//! ([`CodegenError::Collision`]); a type or package name given to
//! [`generate`] that is a keyword of the language is refused
//! ([`CodegenError::Name`]).
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
mod names;
mod plan;
mod python;
pub mod testing;

pub use error::CodegenError;
pub use plan::{
    plan, EnumPlan, FamilyPlan, FieldPlan, KeyPlan, Reversal, SaltPlan, Scalar, ScanPlan, TimeUnit,
};
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

/// What to generate besides a key's own files, for one client library.
///
/// ```
/// use rowkey_codegen::{generate_with, Language, Options};
/// use rowkey_core::DynLayout;
///
/// let layout = DynLayout::parse("[salt(user)/16][user u64][ts desc_ts i64]")?;
/// let files = generate_with(layout.layout(), Language::Java, "Event", "com.example.keys", Options::default().hbase(true))?;
/// let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
/// assert_eq!(paths, ["com/example/keys/Event.java", "com/example/keys/RowkeyHelpers.java", "com/example/keys/EventHBase.java"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Options {
    hbase: bool,
    bigtable: bool,
}

impl Options {
    /// Java: a class `{name}HBase` (`{name}HBase.java`) with every scan as
    /// HBase client `Scan`s (`withStartRow` / `withStopRow`, one per
    /// range) and the typed key of a `Result`. It needs
    /// `org.apache.hadoop.hbase:hbase-client` on the classpath.
    pub fn hbase(mut self, on: bool) -> Self {
        self.hbase = on;
        self
    }

    /// Go: `{name}_bigtable.go` with every scan as a `bigtable.RowRangeList`
    /// (`{name}ScanBy*Rows`, `{name}RangeBy*Rows`), and the package's
    /// `rowkey_bigtable.go` (`RowRanges`), for Google's Go client. It needs
    /// the module `cloud.google.com/go/bigtable`.
    pub fn bigtable(mut self, on: bool) -> Self {
        self.bigtable = on;
        self
    }
}

/// The files of `layout`'s typed key in `language`: a type named `name` in
/// package (or module) `package`.
pub fn generate(
    layout: &Layout,
    language: Language,
    name: &str,
    package: &str,
) -> Result<Vec<GeneratedFile>, CodegenError> {
    generate_with(layout, language, name, package, Options::default())
}

/// [`generate`], with the client libraries' companions `options` asks for;
/// an option the language has none for is refused
/// ([`CodegenError::Option`]).
pub fn generate_with(
    layout: &Layout,
    language: Language,
    name: &str,
    package: &str,
    options: Options,
) -> Result<Vec<GeneratedFile>, CodegenError> {
    let lang = language.name();
    for (on, option, for_language) in [
        (options.hbase, "hbase", Language::Java),
        (options.bigtable, "bigtable", Language::Go),
    ] {
        if on && language != for_language {
            return Err(CodegenError::Option {
                language: lang,
                option,
                for_language: for_language.name(),
            });
        }
    }
    if !ident(name) || names::keyword(lang, name) {
        return Err(CodegenError::Name {
            language: lang,
            name: name.into(),
            what: "type",
        });
    }
    // A Java package is dotted (`com.example.keys`).
    let package_ok = match language {
        Language::Java => package
            .split('.')
            .all(|p| ident(p) && !names::keyword(lang, p)),
        _ => ident(package) && !names::keyword(lang, package),
    };
    if !package_ok {
        return Err(CodegenError::Name {
            language: lang,
            name: package.into(),
            what: "module",
        });
    }
    if !layout.members().is_empty() {
        return family(layout, language, name, package, options);
    }
    key_files(layout, language, name, package, options, None)
}

/// Whether `s` is an identifier in every language generated.
fn ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The files of one key (a family's member when `family` names it).
fn key_files(
    layout: &Layout,
    language: Language,
    name: &str,
    package: &str,
    options: Options,
    family: Option<&str>,
) -> Result<Vec<GeneratedFile>, CodegenError> {
    let plan = plan(layout, language.name())?;
    let file = |path: String, contents: String| GeneratedFile { path, contents };
    let mut files = Vec::new();
    match language {
        Language::Python => {
            files.push(file(format!("{package}.py"), python::module(&plan, name)));
            files.push(file("_rowkey.py".into(), python::runtime()));
        }
        Language::Java => {
            let dir = package.replace('.', "/");
            files.push(file(
                format!("{dir}/{name}.java"),
                java::file(&plan, name, package, family),
            ));
            files.push(file(
                format!("{dir}/RowkeyHelpers.java"),
                java::HELPERS.replace("PACKAGE", package),
            ));
            if plan.ordered_code {
                files.push(file(
                    format!("{dir}/RowkeyOrderedCode.java"),
                    java::OC_HELPERS.replace("PACKAGE", package),
                ));
            }
            if options.hbase {
                files.push(file(
                    format!("{dir}/{name}HBase.java"),
                    java::hbase_file(&plan, name, package),
                ));
            }
        }
        Language::Go => {
            // A field enum's name becomes a file's: an identifier only
            // (the layout's parser refuses others too).
            if let Some(e) = plan
                .fields
                .iter()
                .filter_map(|f| f.key_enum.as_ref())
                .find(|e| !ident(&e.name))
            {
                return Err(CodegenError::Name {
                    language: language.name(),
                    name: e.name.clone(),
                    what: "enum",
                });
            }
            let base = name.to_ascii_lowercase();
            files.push(file(format!("{base}.go"), go::file(&plan, name, package)));
            // Field enums in files of their own, each once per package.
            for f in &plan.fields {
                if let Some(e) = &f.key_enum {
                    let path = format!("{}_enum.go", e.name.to_ascii_lowercase());
                    if !files.iter().any(|g| g.path == path) {
                        files.push(file(path, go::enum_file(e, f.scalar, package)));
                    }
                }
            }
            files.push(file(
                "rowkey_helpers.go".into(),
                go::HELPERS.replace("PACKAGE", package),
            ));
            if plan.ordered_code {
                files.push(file(
                    "rowkey_ordered_code.go".into(),
                    go::OC_HELPERS.replace("PACKAGE", package),
                ));
            }
            if options.bigtable {
                files.push(file(
                    format!("{base}_bigtable.go"),
                    go::bigtable_file(&plan, name, package),
                ));
                files.push(file(
                    "rowkey_bigtable.go".into(),
                    go::BIGTABLE_HELPERS.replace("PACKAGE", package),
                ));
            }
        }
    }
    Ok(files)
}

/// A key family's files: each member's key, named by the member, and the
/// family's own (`name`): decoding a key of any member, and the family's
/// split points. Python puts them in a package `package` (`__init__.py`
/// and a module per member); Go and Java in the package, the helpers once.
fn family(
    layout: &Layout,
    language: Language,
    name: &str,
    package: &str,
    options: Options,
) -> Result<Vec<GeneratedFile>, CodegenError> {
    let family = FamilyPlan::of(layout);
    let mut files: Vec<GeneratedFile> = Vec::new();
    for (member, m) in family.members.iter().map(|(n, _)| n).zip(layout.members()) {
        if member == name || !ident(member) {
            return Err(CodegenError::Name {
                language: language.name(),
                name: member.clone(),
                what: "member (a type of its own, beside the family's)",
            });
        }
        let mut member_files = match language {
            Language::Python => {
                let module = member.to_ascii_lowercase();
                let mut f = key_files(m, language, member, &module, options, None)?;
                for file in &mut f {
                    file.path = format!("{package}/{}", file.path);
                }
                f
            }
            _ => key_files(m, language, member, package, options, Some(name))?,
        };
        // The package's helpers once.
        member_files.retain(|f| !files.iter().any(|g| g.path == f.path));
        files.extend(member_files);
    }
    let family_file = match language {
        Language::Python => GeneratedFile {
            path: format!("{package}/__init__.py"),
            contents: python::family_module(&family, name),
        },
        Language::Java => GeneratedFile {
            path: format!("{}/{name}.java", package.replace('.', "/")),
            contents: java::family_file(&family, name, package),
        },
        Language::Go => GeneratedFile {
            path: format!("{}.go", name.to_ascii_lowercase()),
            contents: go::family_file(&family, name, package),
        },
    };
    files.push(family_file);
    Ok(files)
}
