//! Issue 45's held-out layouts through the command: `rowkey gen` writes
//! each in Python, Go and Java, and the code each language compiles
//! encodes random values to exactly the key `rowkey encode` prints for
//! them, and decodes that key back to the same values.
//!
//! The layouts: a salted binary key with `desc_ts` and a fixed string (the
//! README's), a seed-style text key with a `mod` salt (the call record),
//! and a Java-hash salted key with an escaped string and bytes to the end.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// `(type name, layout, field kinds)`.
const LAYOUTS: [(&str, &str, &[Kind]); 3] = [
    (
        "UserEvent",
        "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]",
        &[Kind::U64, Kind::I64, Kind::Fixed8],
    ),
    (
        "Call",
        "text(\"_\") [salt(phone)/10 mod][phone digits(11) u64][ts desc_ts digits(19) i64]",
        &[Kind::Phone, Kind::Ts],
    ),
    (
        "Visit",
        "[salt(site)/6 java][site u32][page String][body Vec<u8>]",
        &[Kind::U32, Kind::Str, Kind::Bytes],
    ),
];

/// Values per layout.
const VALUES: usize = 60;

#[derive(Clone, Copy)]
enum Kind {
    U32,
    U64,
    I64,
    /// A `digits(11)` phone number.
    Phone,
    /// A `desc_ts` in digits: `0..=i64::MAX`.
    Ts,
    /// A string of at most 8 bytes, not ending in the pad byte 00.
    Fixed8,
    Str,
    Bytes,
}

#[derive(Clone, Debug)]
enum Val {
    Int(i128),
    Str(String),
    Bytes(Vec<u8>),
}

impl Val {
    /// As `rowkey encode` reads a value (`Value`'s `Display`).
    fn arg(&self) -> String {
        match self {
            Val::Int(n) => n.to_string(),
            Val::Str(s) => format!("{s:?}"),
            Val::Bytes(b) => {
                let mut s = String::from("b\"");
                for x in b {
                    let _ = write!(s, "\\x{x:02X}");
                }
                s + "\""
            }
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn text(&mut self, max: u64) -> String {
        let n = self.next() % (max + 1);
        (0..n)
            .map(|_| ['a', '\0', 'é', '€', '"', '\\', '\u{1F600}'][(self.next() % 7) as usize])
            .collect()
    }

    fn value(&mut self, kind: Kind) -> Val {
        match kind {
            Kind::U32 => Val::Int(i128::from(self.next() as u32)),
            Kind::U64 => Val::Int(i128::from(self.next())),
            Kind::I64 => Val::Int(i128::from(self.next() as i64)),
            Kind::Phone => Val::Int(i128::from(self.next() % 100_000_000_000)),
            Kind::Ts => Val::Int(i128::from(self.next() >> 1)),
            Kind::Fixed8 => loop {
                let s = self.text(4);
                if s.len() <= 8 && !s.ends_with('\0') {
                    break Val::Str(s);
                }
            },
            Kind::Str => Val::Str(self.text(6)),
            Kind::Bytes => {
                let n = self.next() % 7;
                Val::Bytes(
                    (0..n)
                        .map(|_| [0, 1, 0xFF, b'a'][(self.next() % 4) as usize])
                        .collect(),
                )
            }
        }
    }
}

/// The fields' names, from the layout's text.
fn names(layout: &str) -> Vec<String> {
    layout
        .split('[')
        .skip(1)
        .filter(|f| !f.starts_with("salt") && !f.starts_with("prefix"))
        .map(|f| f.split([' ', ']']).next().unwrap().to_owned())
        .collect()
}

/// `rowkey encode`'s key, in hex.
fn rowkey_encode(layout: &str, fields: &[String], values: &[Val]) -> String {
    let mut args = vec![
        "encode".to_owned(),
        "--layout".to_owned(),
        layout.to_owned(),
    ];
    args.extend(
        fields
            .iter()
            .zip(values)
            .map(|(f, v)| format!("{f}={}", v.arg())),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rowkey {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .nth(1)
        .expect("encode prints the key in hex on its second line")
        .to_owned()
}

fn gen(language: &str, layout: &str, name: &str, package: &str, out: &Path) {
    let run = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args([
            "gen",
            language,
            "--layout",
            layout,
            "--name",
            name,
            "--package",
            package,
        ])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "rowkey gen {language} {layout}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} does not run: {e}"));
    assert!(
        out.status.success(),
        "{what}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `go test -run TEST` on the package in `dir` (its module `module`,
/// with the XXH3 library the generated code may import): its output.
fn go_test(dir: &Path, module: &str, test: &str) -> String {
    std::fs::write(
        dir.join("go.mod"),
        format!("module {module}\n\ngo 1.21\n\nrequire github.com/zeebo/xxh3 v1.1.0\n"),
    )
    .unwrap();
    run(
        Command::new("go").args(["mod", "tidy"]).current_dir(dir),
        "go mod tidy (the module proxy)",
    );
    run(
        Command::new("go")
            .args(["test", "-count=1", "-v", "-run", test, "."])
            .current_dir(dir),
        "go test on the generated package",
    )
}

/// Every Java source in `dir` compiled into `classes` (with the XXH3
/// library), then `main` run: its output.
fn java_run(dir: &Path, classes: &Path, main: &str) -> String {
    let jar = rowkey_codegen::testing::java_xxh3_jar().unwrap();
    let sources: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    run(
        Command::new("javac")
            .arg("-d")
            .arg(classes)
            .arg("-cp")
            .arg(&jar)
            .args(&sources),
        "javac of the generated code",
    );
    run(
        Command::new("java")
            .arg("-cp")
            .arg(format!("{}:{}", classes.display(), jar.display()))
            .arg(main),
        "java on the generated code",
    )
}

/// A language's literal of a value: Python, Go and Java spell strings
/// and bytes their own ways.
fn literal(language: &str, kind: Kind, v: &Val) -> String {
    match (language, v) {
        ("python", Val::Int(n)) => n.to_string(),
        ("go", Val::Int(n)) => n.to_string(),
        ("java", Val::Int(n)) => match kind {
            Kind::U64 | Kind::I64 => format!("0x{:x}L", *n as u64),
            _ => format!("{n}L"),
        },
        ("python", Val::Str(s)) => {
            let escaped: String = s
                .chars()
                .map(|c| format!("\\U{:08x}", u32::from(c)))
                .collect();
            format!("\"{escaped}\"")
        }
        ("go", Val::Str(s)) => {
            let escaped: String = s.bytes().map(|b| format!("\\x{b:02x}")).collect();
            format!("\"{escaped}\"")
        }
        ("java", Val::Str(s)) => {
            // Java reads `\uXXXX` before it reads strings: the ASCII
            // specials as octal escapes, only the rest as `\u`.
            let escaped: String = s
                .encode_utf16()
                .map(|u| match u {
                    0x20..=0x7E if u != 0x22 && u != 0x5C => char::from(u as u8).to_string(),
                    0..=0x7F => format!("\\{u:03o}"),
                    _ => format!("\\u{u:04x}"),
                })
                .collect();
            format!("\"{escaped}\"")
        }
        ("python", Val::Bytes(b)) => {
            let escaped: String = b.iter().map(|x| format!("\\x{x:02x}")).collect();
            format!("b\"{escaped}\"")
        }
        ("go", Val::Bytes(b)) => format!(
            "[]byte{{{}}}",
            b.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (_, Val::Bytes(b)) => format!(
            "new byte[] {{{}}}",
            b.iter()
                .map(|x| format!("(byte) {x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => unreachable!(),
    }
}

/// Per layout: its name, text, fields, and `(values, rowkey encode's hex)`.
type Cases = Vec<(
    &'static str,
    &'static str,
    Vec<String>,
    Vec<(Vec<Val>, String)>,
)>;

fn cases() -> Cases {
    let mut rng = Rng(0x4E1D_2026_0045);
    LAYOUTS
        .iter()
        .map(|&(name, layout, kinds)| {
            let fields = names(layout);
            assert_eq!(fields.len(), kinds.len(), "{layout}");
            let values = (0..VALUES)
                .map(|_| {
                    let vals: Vec<Val> = kinds.iter().map(|&k| rng.value(k)).collect();
                    let hex = rowkey_encode(layout, &fields, &vals);
                    (vals, hex)
                })
                .collect();
            (name, layout, fields, values)
        })
        .collect()
}

#[test]
fn held_out_layouts_encode_as_rowkey_encode_in_python_go_and_java() {
    let cases = cases();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    // Python: one module per layout, a script of every case.
    let mut py = String::from("import call, userevent, visit\nchecked = 0\n");
    // Go: one package, a test of every case (struct literals positional,
    // in layout order).
    let mut go = String::from(
        "package keys\n\nimport (\n\t\"encoding/hex\"\n\t\"reflect\"\n\t\"testing\"\n)\n\nfunc TestHeldOut(t *testing.T) {\n\tchecked := 0\n",
    );
    // Java: one package, a main of every case.
    let mut java = String::from(
        "package keys;\n\nimport java.util.HexFormat;\n\npublic final class HeldOut {\n    public static void main(String[] args) {\n        int checked = 0;\n",
    );
    for (name, layout, _, values) in &cases {
        let kinds = LAYOUTS.iter().find(|l| l.0 == *name).unwrap().2;
        let module = name.to_ascii_lowercase();
        gen("python", layout, name, &module, &root.join("py"));
        gen("go", layout, name, "keys", &root.join("go"));
        gen("java", layout, name, "keys", &root.join("java"));
        for (vals, hex) in values {
            let args = |lang: &str| {
                kinds
                    .iter()
                    .zip(vals)
                    .map(|(&k, v)| literal(lang, k, v))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = writeln!(
                py,
                "k = {module}.{name}({})\nassert k.to_bytes().hex() == \"{hex}\", (k, k.to_bytes().hex(), \"{hex}\")\nassert {module}.{name}.from_bytes(bytes.fromhex(\"{hex}\")) == k, k\nchecked += 1",
                args("python")
            );
            let _ = writeln!(
                go,
                "\t{{\n\t\tk := {name}{{{}}}\n\t\tb, err := k.Encode()\n\t\tif err != nil || hex.EncodeToString(b) != \"{hex}\" {{\n\t\t\tt.Fatalf(\"%+v: %x %v, rowkey encode {hex}\", k, b, err)\n\t\t}}\n\t\tback, err := Decode{name}(b)\n\t\tif err != nil || !reflect.DeepEqual(back, k) {{\n\t\t\tt.Fatalf(\"%+v decoded %+v %v\", k, back, err)\n\t\t}}\n\t\tchecked++\n\t}}",
                args("go")
            );
            let _ = writeln!(
                java,
                "        {{\n            {name} k = new {name}({});\n            String got = HexFormat.of().formatHex(k.toBytes());\n            if (!got.equals(\"{hex}\")) {{\n                throw new AssertionError(k + \": \" + got + \", rowkey encode {hex}\");\n            }}\n            if (!{name}.fromBytes(HexFormat.of().parseHex(\"{hex}\")).equals(k)) {{\n                throw new AssertionError(k + \" decoded \" + {name}.fromBytes(k.toBytes()));\n            }}\n            checked++;\n        }}",
                args("java")
            );
        }
    }
    let total = cases.iter().map(|c| c.3.len()).sum::<usize>();
    py.push_str("print(checked)\n");
    go.push_str("\tt.Logf(\"checked %d\", checked)\n}\n");
    java.push_str("        System.out.println(checked);\n    }\n}\n");

    let out = run(
        Command::new("python3")
            .args(["-c", &py])
            .current_dir(root.join("py")),
        "python3 on the generated modules",
    );
    assert_eq!(out.trim(), total.to_string(), "Python checked every case");

    std::fs::write(root.join("go/heldout_test.go"), &go).unwrap();
    let out = go_test(&root.join("go"), "keys", "TestHeldOut");
    assert!(out.contains(&format!("checked {total}")), "{out}");

    std::fs::write(root.join("java/keys/HeldOut.java"), &java).unwrap();
    let out = java_run(
        &root.join("java/keys"),
        &root.join("classes"),
        "keys.HeldOut",
    );
    assert_eq!(out.trim(), total.to_string(), "Java checked every case");
}

/// A family's member: its name and field kinds.
type Member = (&'static str, &'static [Kind]);

/// Key families: a binary one (a salted member beside an unsalted one)
/// and a text one. Per family: `(family name, layout, members' names and
/// field kinds)`.
const FAMILIES: [(&str, &str, &[Member]); 2] = [
    (
        "Log",
        r#"User: [prefix "u"][id u32] | Event: [prefix "e"][salt(id)/4][id u32][ts desc_ts i64][tag String]"#,
        &[
            ("User", &[Kind::U32]),
            ("Event", &[Kind::U32, Kind::I64, Kind::Str]),
        ],
    ),
    (
        "Record",
        r#"Call: text("_") [prefix "1_"][salt(phone)/10 mod][phone digits(11) u64][ts desc_ts digits(19) i64] | Sms: text("_") [prefix "2_"][phone digits(11) u64][seq u32]"#,
        &[
            ("Call", &[Kind::Phone, Kind::Ts]),
            ("Sms", &[Kind::Phone, Kind::U32]),
        ],
    ),
];

/// A key family through the command, in each language: every member's
/// key encodes as `rowkey encode` of the member's layout, the family's
/// decoding gives it back as the member's type, the family's split points
/// are Rust's, and a key of no member is refused.
#[test]
fn key_families_decode_by_member_in_python_go_and_java() {
    let mut rng = Rng(0xFA41_2026_0045);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (f, &(family, layout, members)) in FAMILIES.iter().enumerate() {
        let dyn_layout = rowkey_core::DynLayout::parse(layout).unwrap();
        let splits: Vec<String> = dyn_layout
            .split_points()
            .iter()
            .map(|s| s.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        let package = format!("fam{f}");
        for language in ["python", "go", "java"] {
            gen(language, layout, family, &package, &root.join(language));
        }
        let (mut py, mut go, mut java) = (
            format!(
                "import {package}\nassert [s.hex() for s in {package}.split_points()] == {splits:?}\ntry:\n    {package}.from_bytes(b\"zz\")\n    raise SystemExit(\"a key of no member decoded\")\nexcept ValueError:\n    pass\n"
            ),
            format!(
                "package {package}\n\nimport (\n\t\"encoding/hex\"\n\t\"reflect\"\n\t\"testing\"\n)\n\nfunc TestFamily(t *testing.T) {{\n\tvar splits []string\n\tfor _, s := range {family}SplitPoints() {{\n\t\tsplits = append(splits, hex.EncodeToString(s))\n\t}}\n\tif !reflect.DeepEqual(splits, []string{{{}}}) {{\n\t\tt.Fatalf(\"split points %v\", splits)\n\t}}\n\tif _, err := Decode{family}([]byte(\"zz\")); err == nil {{\n\t\tt.Fatal(\"a key of no member decoded\")\n\t}}\n",
                splits.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
            ),
            format!(
                "package {package};\n\nimport java.util.HexFormat;\n\npublic final class FamilyCheck {{\n    public static void main(String[] args) {{\n        StringBuilder s = new StringBuilder();\n        for (byte[] p : {family}.splitPoints()) {{\n            s.append(HexFormat.of().formatHex(p)).append(',');\n        }}\n        if (!s.toString().equals(\"{}\")) {{\n            throw new AssertionError(\"split points \" + s);\n        }}\n        try {{\n            {family}.fromBytes(new byte[] {{'z', 'z'}});\n            throw new AssertionError(\"a key of no member decoded\");\n        }} catch (IllegalArgumentException e) {{\n        }}\n",
                splits.iter().map(|s| format!("{s},")).collect::<String>()
            ),
        );
        let mut checked = 0;
        for &(member, kinds) in members {
            let member_layout = dyn_layout.member(member).unwrap().layout().to_string();
            let fields = names(&member_layout);
            for _ in 0..20 {
                let vals: Vec<Val> = kinds.iter().map(|&k| rng.value(k)).collect();
                let hex = rowkey_encode(&member_layout, &fields, &vals);
                let args = |lang: &str| {
                    kinds
                        .iter()
                        .zip(&vals)
                        .map(|(&k, v)| literal(lang, k, v))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(
                    py,
                    "k = {package}.{member}({})\nassert k.to_bytes().hex() == \"{hex}\", (k, k.to_bytes().hex())\nback = {package}.from_bytes(bytes.fromhex(\"{hex}\"))\nassert type(back) is {package}.{member} and back == k, back",
                    args("python")
                );
                let _ = writeln!(
                    go,
                    "\t{{\n\t\tk := {member}{{{}}}\n\t\tb, err := k.Encode()\n\t\tif err != nil || hex.EncodeToString(b) != \"{hex}\" {{\n\t\t\tt.Fatalf(\"%+v: %x %v, rowkey encode {hex}\", k, b, err)\n\t\t}}\n\t\tback, err := Decode{family}(b)\n\t\tif err != nil || !reflect.DeepEqual(back, {family}(k)) {{\n\t\t\tt.Fatalf(\"%+v decoded %#v %v\", k, back, err)\n\t\t}}\n\t}}",
                    args("go")
                );
                let _ = writeln!(
                    java,
                    "        {{\n            {member} k = new {member}({});\n            String got = HexFormat.of().formatHex(k.toBytes());\n            if (!got.equals(\"{hex}\")) {{\n                throw new AssertionError(k + \": \" + got + \", rowkey encode {hex}\");\n            }}\n            {family} back = {family}.fromBytes(HexFormat.of().parseHex(\"{hex}\"));\n            if (!(back instanceof {member}) || !back.equals(k)) {{\n                throw new AssertionError(k + \" decoded \" + back);\n            }}\n        }}",
                    args("java")
                );
                checked += 1;
            }
        }
        py.push_str(&format!("print({checked})\n"));
        go.push_str(&format!("\tt.Logf(\"checked %d\", {checked})\n}}\n"));
        java.push_str(&format!(
            "        System.out.println({checked});\n    }}\n}}\n"
        ));

        let out = run(
            Command::new("python3")
                .args(["-c", &py])
                .current_dir(root.join("python")),
            "python3 on the generated family",
        );
        assert_eq!(out.trim(), checked.to_string(), "{family} in Python");

        let go_dir = root.join("go").join(&package);
        std::fs::create_dir_all(&go_dir).unwrap();
        for entry in std::fs::read_dir(root.join("go")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "go") {
                std::fs::rename(&path, go_dir.join(path.file_name().unwrap())).unwrap();
            }
        }
        std::fs::write(go_dir.join("family_test.go"), &go).unwrap();
        let out = go_test(&go_dir, &package, "TestFamily");
        assert!(out.contains(&format!("checked {checked}")), "{out}");

        let java_dir = root.join("java").join(&package);
        std::fs::write(java_dir.join("FamilyCheck.java"), &java).unwrap();
        let classes = root.join(format!("classes{f}"));
        let out = java_run(&java_dir, &classes, &format!("{package}.FamilyCheck"));
        assert_eq!(out.trim(), checked.to_string(), "{family} in Java");
    }
}
