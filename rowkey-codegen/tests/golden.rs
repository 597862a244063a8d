//! The generated code of three fixed layouts, committed per language
//! (`tests/golden/`): a change to what a generator writes shows in review
//! and fails here until the files are written again on purpose
//! (`ROWKEY_BLESS=1 cargo test -p rowkey-codegen --test golden`). The
//! binding testers check what the code does; this checks that it did not
//! change unseen.

use std::path::Path;

use rowkey_codegen::{generate_with, Language, Options};
use rowkey_core::DynLayout;

/// The README's key, the seed's call record (a text key), a layout of
/// `Option`s, padding and a raw last field, one of a UUID and a
/// timestamp, an ordered-code key and a key family.
const LAYOUTS: [(&str, &str); 6] = [
    (
        "UserEvent",
        "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]",
    ),
    (
        "Call",
        "text(\"_\") [salt(phone)/10 mod][phone digits(11) u64][ts desc_ts digits(19) i64]",
    ),
    (
        "Visit",
        "[prefix \"v\"][salt(site)/4 java][site u16][day desc Option<u32>][page String]",
    ),
    (
        "Session",
        "[salt(user)/8 java][user Uuid][at desc_ts ts(micros) DateTime<Utc>][end ts(secs) Option<DateTime<Utc>>]",
    ),
    (
        "Page",
        "ordered_code [prefix \"v\\x00\\x01\"][salt(site)/8][site i64][ts desc i64][page String]",
    ),
    (
        "Log",
        "User: [prefix \"u\"][id u32] | Event: [prefix \"e\"][salt(id)/4 java][id u32][ts desc_ts i64]",
    ),
];

#[test]
fn generated_code_is_the_committed_code() {
    let bless = std::env::var_os("ROWKEY_BLESS").is_some();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut changed = Vec::new();
    for language in [Language::Python, Language::Go, Language::Java] {
        for (name, text) in LAYOUTS {
            let layout = DynLayout::parse(text).unwrap();
            // One Go or Java package `keys`; a Python module per key.
            let package = match language {
                Language::Python => name.to_ascii_lowercase(),
                _ => "keys".to_owned(),
            };
            let package = package.as_str();
            // With the client companions: Java's HBase scans, Go's Bigtable row sets.
            let options = Options::default()
                .hbase(language == Language::Java)
                .bigtable(language == Language::Go);
            for file in generate_with(layout.layout(), language, name, package, options).unwrap() {
                // The package's helpers are written once per language.
                let base = Path::new(&file.path).file_name().unwrap();
                let path = root.join(language.name()).join(base);
                if bless {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, &file.contents).unwrap();
                    continue;
                }
                match std::fs::read_to_string(&path) {
                    Ok(committed) if committed == file.contents => {}
                    Ok(_) => changed.push(format!("{} changed", path.display())),
                    Err(e) => changed.push(format!("{}: {e}", path.display())),
                }
            }
        }
    }
    assert!(
        changed.is_empty(),
        "the generated code differs from tests/golden (write it again with ROWKEY_BLESS=1 if the change is meant):\n{}",
        changed.join("\n")
    );
}

/// A keyword as a name: renamed by the crate's rule where the language
/// needs it; two fields a language writes alike, and a keyword as the
/// type or package given, are refused naming them.
#[test]
fn keywords_are_renamed_and_collisions_refused() {
    let layout = DynLayout::parse(
        "[class u8][pos u32][kind Kind(u8: None = 0, default = 1)][hash_code String]",
    )
    .unwrap();
    let text = |language| {
        generate_with(layout.layout(), language, "Ev", "evs", Options::default())
            .unwrap()
            .into_iter()
            .map(|f| f.contents)
            .collect::<String>()
    };
    let python = text(Language::Python);
    assert!(
        python.contains("    class_: int\n    pos_: int\n"),
        "{python}"
    );
    assert!(
        python.contains("    None_ = 0\n    default = 1\n"),
        "{python}"
    );
    assert!(
        python.contains("def scan_by_class_pos(class_, pos_)"),
        "{python}"
    );
    let java = text(Language::Java);
    assert!(
        java.contains("public record Ev(int class_, long pos_, Kind kind, String hashCode_)"),
        "{java}"
    );
    assert!(java.contains("None(0L), default_(1L);"), "{java}");
    let go = text(Language::Go);
    assert!(go.contains("\tClass uint8\n"), "{go}");
    assert!(go.contains("KindNone Kind = 0"), "{go}");

    let twice = DynLayout::parse("[class u8][class_ u32]").unwrap();
    let err = generate_with(
        twice.layout(),
        Language::Python,
        "Ev",
        "evs",
        Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "python: the fields `class` and `class_` are both written `class_`"
    );
    let camel = DynLayout::parse("[user_id u8][userId u32]").unwrap();
    let err = generate_with(
        camel.layout(),
        Language::Java,
        "Ev",
        "evs",
        Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "java: the fields `user_id` and `userId` are both written `userId`"
    );
    for (language, name, package) in [
        (Language::Java, "class", "evs"),
        (Language::Java, "Ev", "com.new.keys"),
        (Language::Python, "Ev", "import"),
        (Language::Go, "Ev", "func"),
    ] {
        let err = generate_with(layout.layout(), language, name, package, Options::default());
        assert!(
            err.as_ref()
                .is_err_and(|e| e.to_string().contains("is not a valid")),
            "{name} {package}: {:?}",
            err.map(|_| ())
        );
    }
}
