//! How a layout's names are written in each language, by one rule: a name
//! that would not compile there, or would change what the generated code
//! means, gets a trailing `_`.
//!
//! A name is renamed in a language when, as that language's code spells
//! it (a Java record component in lowerCamelCase, a Python attribute as
//! it is, a Go struct field in UpperCamelCase, an enum or a variant as it
//! is), it is one of the language's keywords or literals, or a name the
//! generated code itself gives a member or a local (Java's `toBytes` or
//! `hashCode`, Python's `from_bytes` or `pos`, Go's `Encode`). A Go
//! variant stands inside its constant's name (`KindNone`) and is never
//! renamed; Go's parameters always end in `_`. The layout's own text and
//! the field names in error messages keep the layout's spelling.

/// Java's keywords and literals (JLS 3.9, 3.10), `var`, `record` and the
/// other contextual ones a declaration may not take.
const JAVA_KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "yield",
    "record",
    "sealed",
    "permits",
    "_",
];

/// What a generated Java record declares or uses besides its components:
/// the methods a record component may not be named after (JLS 8.10.1),
/// the record's own methods and the locals and parameters of its methods.
const JAVA_TAKEN: &[&str] = &[
    "clone",
    "finalize",
    "getClass",
    "hashCode",
    "notify",
    "notifyAll",
    "toString",
    "wait",
    "equals",
    "toBytes",
    "fromBytes",
    "bucket",
    "splitPoints",
    "toStringBinary",
    "fields",
    "scanAll",
    "f",
    "h",
    "k",
    "o",
    "v",
    "b",
    "key",
    "pos",
    "lo",
    "hi",
    "start",
    "stop",
    "startInclusive",
    "stopInclusive",
];

/// Python's keywords (`keyword.kwlist`).
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// What a generated Python module declares or uses besides the fields:
/// the dataclass's methods, the locals and parameters of its methods, the
/// builtins and modules their bodies call.
const PYTHON_TAKEN: &[&str] = &[
    "to_bytes",
    "from_bytes",
    "bucket",
    "split_points",
    "scan_all",
    "self",
    "cls",
    "key",
    "pos",
    "k",
    "v",
    "fields",
    "lo",
    "hi",
    "start",
    "stop",
    "start_inclusive",
    "stop_inclusive",
    "len",
    "bytes",
    "int",
    "str",
    "bool",
    "float",
    "abs",
    "isinstance",
    "ValueError",
    "List",
    "Optional",
    "Tuple",
    "dataclasses",
    "enum",
    "struct",
    "datetime",
    "uuid",
    "ipaddress",
    "xxhash",
    "PREFIX",
    "SEP",
    "BUCKETS",
    "LAYOUT",
    "LAYOUT_ID",
];

/// Go's keywords (the spec's "Keywords").
const GO_KEYWORDS: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];

/// The methods of a generated Go key struct, which a field may not share.
const GO_TAKEN: &[&str] = &["Encode", "Bucket"];

/// Whether `name` is a keyword or literal of `language` (by
/// `Language::name`): a name a user gives (a
/// type, a package) that is one is refused, not renamed.
pub(crate) fn keyword(language: &str, name: &str) -> bool {
    let list = match language {
        "java" => JAVA_KEYWORDS,
        "python" => PYTHON_KEYWORDS,
        _ => GO_KEYWORDS,
    };
    list.contains(&name)
}

/// `name` as an identifier of `language`'s generated code: with a
/// trailing `_` when it is a keyword or a name the code takes.
pub(crate) fn spell(language: &str, name: String) -> String {
    let taken = match language {
        "java" => JAVA_TAKEN,
        "python" => PYTHON_TAKEN,
        _ => GO_TAKEN,
    };
    if keyword(language, &name) || taken.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

/// A field's identifier in `language`: Java's lowerCamelCase record
/// component, Python's attribute, Go's exported struct field, each by
/// [`spell`].
pub(crate) fn field(language: &str, name: &str) -> String {
    let cased = match language {
        "java" => camel(name),
        "python" => name.to_owned(),
        _ => exported(name),
    };
    spell(language, cased)
}

/// `user_id` → `userId`.
pub fn camel(name: &str) -> String {
    let mut out = String::new();
    for (i, p) in name.split('_').filter(|p| !p.is_empty()).enumerate() {
        let mut c = p.chars();
        if let Some(f) = c.next() {
            if i == 0 {
                out.push(f.to_ascii_lowercase());
            } else {
                out.push(f.to_ascii_uppercase());
            }
            out.push_str(c.as_str());
        }
    }
    out
}

/// `user_id` → `UserId`.
pub fn exported(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::names::{field, spell};

    #[test]
    fn keywords_and_taken_names_get_a_trailing_underscore() {
        assert_eq!(field("java", "default"), "default_");
        assert_eq!(field("java", "hash_code"), "hashCode_");
        assert_eq!(field("java", "user_id"), "userId");
        assert_eq!(field("python", "from"), "from_");
        assert_eq!(field("python", "pos"), "pos_");
        assert_eq!(field("python", "default"), "default");
        assert_eq!(field("go", "type"), "Type");
        assert_eq!(field("go", "encode"), "Encode_");
        assert_eq!(spell("python", "None".into()), "None_");
        assert_eq!(spell("go", "func".into()), "func_");
        assert_eq!(spell("java", "Kind".into()), "Kind");
    }
}
