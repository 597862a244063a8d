//! The binding tester for Java: the generated records of random layouts
//! (`common::vectors`), one package of types `K0`, `K1`..., compiled by
//! `javac` with a checker generated from Rust's vectors (the cases as
//! code: Java's standard library reads no JSON) and run by `java`. Any
//! byte, value, bucket, scan or verdict that differs fails with the seed,
//! the layout and the case. Needs Java 17 and Maven (for OpenHFT's
//! `zero-allocation-hashing`, the XXH3 of the generated code).

mod common;

use std::fmt::Write as _;
use std::process::Command;

use rowkey_codegen::{generate, FieldPlan, KeyPlan, Language, Scalar};
use serde_json::Value as Json;

/// A Java literal of a tagged value, for a field of `f`'s type (a field
/// enum's variant as `K_.Enum.of(n)`: the caller names the record).
fn literal(f: &FieldPlan, v: &Json) -> String {
    if v.is_null() {
        return "Optional.empty()".into();
    }
    if let (Some(n), Some(nanos)) = (v.get("time"), v.get("nanos")) {
        // A count of units since the epoch, as an Instant made apart from
        // the generated code's own conversion.
        let (n, nanos) = (
            i128::from(n.as_i64().unwrap()),
            i128::from(nanos.as_i64().unwrap()),
        );
        let total = n * nanos;
        let plain = format!(
            "java.time.Instant.ofEpochSecond({}L, {}L)",
            total.div_euclid(1_000_000_000),
            total.rem_euclid(1_000_000_000)
        );
        return if f.option {
            format!("Optional.of({plain})")
        } else {
            plain
        };
    }
    let (kind, x) = v.as_object().unwrap().iter().next().unwrap();
    let plain = match (kind.as_str(), f.scalar) {
        // The JDK's constructors throw checked exceptions: the helpers'
        // wrappers of them (an IPv6 address stays one, mapped or not).
        ("ip", _) => {
            let h = x.as_str().unwrap();
            let inet = if h.len() == 8 { "inet4" } else { "inet6" };
            format!("RowkeyHelpers.{inet}(H(\"{h}\"))")
        }
        ("ulid", _) => format!("H(\"{}\")", x.as_str().unwrap()),
        ("int128", _) => format!("new java.math.BigInteger(\"{}\")", x.as_str().unwrap()),
        ("uuid", _) => {
            let h = x.as_str().unwrap();
            format!("new java.util.UUID(0x{}L, 0x{}L)", &h[..16], &h[16..])
        }
        ("bool", _) => x.as_bool().unwrap().to_string(),
        ("str", _) => {
            let mut s = String::from("\"");
            for u in x.as_str().unwrap().encode_utf16() {
                match u {
                    0x20..=0x7E if u != u16::from(b'"') && u != u16::from(b'\\') => {
                        s.push(char::from(u as u8))
                    }
                    _ => {
                        let _ = write!(s, "\\u{u:04x}");
                    }
                }
            }
            s.push('"');
            s
        }
        ("bytes", _) => format!("H(\"{}\")", x.as_str().unwrap()),
        ("char", _) => x.as_u64().unwrap().to_string(),
        ("f32", _) => format!("Float.intBitsToFloat(0x{})", x.as_str().unwrap()),
        ("f64", _) => format!("Double.longBitsToDouble(0x{}L)", x.as_str().unwrap()),
        ("int", Scalar::Int { .. }) if f.key_enum.is_some() => {
            let n: i128 = if let Some(u) = x.as_u64() {
                u.into()
            } else {
                x.as_i64().unwrap().into()
            };
            format!("K_.{}.of({}L)", f.key_enum.as_ref().unwrap().name, n as i64)
        }
        (_, Scalar::Int { bits, signed }) => {
            let n: i128 = if let Some(u) = x.as_u64() {
                u.into()
            } else {
                x.as_i64().unwrap().into()
            };
            match (bits, signed) {
                (8, true) => format!("(byte) 0x{:x}", n as u8),
                (16, true) => format!("(short) 0x{:x}", n as u16),
                (32, true) => format!("0x{:x}", n as u32),
                (64, _) => format!("0x{:x}L", n as u64),
                (8 | 16, false) => n.to_string(),
                _ => format!("{n}L"),
            }
        }
        _ => panic!("no such value: {v}"),
    };
    if f.option {
        format!("Optional.of({plain})")
    } else {
        plain
    }
}

fn java_str(s: &str) -> String {
    format!("{s:?}")
}

/// The checks of layout `l`'s cases, as a class `Check{l}`.
fn checker(l: usize, plan: &KeyPlan, cases: &[&Json]) -> String {
    let ty = format!("K{l}");
    let mut j = format!(
        "package keys;\n\nimport static keys.Check.*;\n\nimport java.util.List;\nimport java.util.Optional;\n\nfinal class Check{l} {{\n    static void run(List<String> fails) {{\n"
    );
    // A method per case: one method of every case would pass the JVM's
    // 64 KiB of bytecode per method.
    for c in 0..cases.len() {
        let _ = writeln!(j, "        case{c}(fails);");
    }
    j.push_str("    }\n");
    let build = |values: &Json| -> String {
        let args: Vec<String> = plan
            .fields
            .iter()
            .zip(values.as_array().unwrap())
            .map(|(f, v)| literal(f, v).replace("K_.", &format!("{ty}.")))
            .collect();
        format!("new {ty}({})", args.join(", "))
    };
    for (c, case) in cases.iter().enumerate() {
        let where_ = java_str(&format!(
            "seed {} layout {} values {}",
            case["seed"], case["layout"], case["values"]
        ));
        let _ = writeln!(
            j,
            "\n    static void case{c}(List<String> fails) {{\n        try {{\n            String w = {where_};"
        );
        let _ = writeln!(j, "            {ty} k = {};", build(&case["values"]));
        let _ = writeln!(
            j,
            "            check(fails, w, {ty}.LAYOUT_ID == 0x{:x}L, \"layout id\");",
            case["layout_id"].as_u64().unwrap()
        );
        let _ = writeln!(j, "            byte[] key = k.toBytes();\n            checkHex(fails, w, \"key\", key, {});", java_str(case["key"].as_str().unwrap()));
        let bucket = case["bucket"].as_i64().unwrap_or(-1);
        let _ = writeln!(j, "            check(fails, w, k.bucket() == {bucket}, \"bucket \" + k.bucket() + \", Rust {bucket}\");");
        let _ = writeln!(j, "            check(fails, w, {ty}.fromBytes(key).equals(k), \"fromBytes gave \" + {ty}.fromBytes(key));");
        let splits: Vec<String> = case["splits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| java_str(s.as_str().unwrap()))
            .collect();
        let _ = writeln!(j, "            checkHexes(fails, w, \"split points\", {ty}.splitPoints(), new String[] {{{}}});", splits.join(", "));
        for m in case["mutated"].as_array().unwrap() {
            let expected = if m["values"].is_null() {
                "null".to_owned()
            } else {
                build(&m["values"])
            };
            let _ = writeln!(
                j,
                "            checkDecode(fails, w, {:?}, () -> {ty}.fromBytes(H({:?})), {expected});",
                m["key"].as_str().unwrap(),
                m["key"].as_str().unwrap()
            );
        }
        for s in case["scans"].as_array().unwrap() {
            let method = s["method"].as_str().unwrap();
            let java_method = if method == "scan_all" {
                "scanAll".to_owned()
            } else {
                let (head, rest) = method.split_once("_by_").unwrap();
                let fields: String = rest.split('_').map(upper_first).collect();
                format!(
                    "{}By{fields}",
                    if head == "scan" { "scan" } else { "range" }
                )
            };
            let mut args: Vec<String> = plan
                .fields
                .iter()
                .zip(s["args"].as_array().unwrap())
                .map(|(f, v)| literal(f, v).replace("K_.", &format!("{ty}.")))
                .collect();
            if let Some(samples) = s.get("samples") {
                let k = args.len();
                let mut plain = plan.fields[k].clone();
                plain.option = false;
                for b in ["lo", "hi"] {
                    args.push(if s[b].is_null() {
                        "null".into()
                    } else {
                        literal(&plain, &s[b]).replace("K_.", &format!("{ty}."))
                    });
                }
                args.push(format!("{}, {}", s["lo_incl"], s["hi_incl"]));
                let keys: Vec<String> = samples
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| java_str(x["key"].as_str().unwrap()))
                    .collect();
                let ins: Vec<String> = samples
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x["in"].to_string())
                    .collect();
                let _ = writeln!(
                    j,
                    "            checkSamples(fails, w, {:?}, {ty}.{java_method}({}), new String[] {{{}}}, new boolean[] {{{}}});",
                    method,
                    args.join(", "),
                    keys.join(", "),
                    ins.join(", ")
                );
            } else {
                let ranges: Vec<String> = s["ranges"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        format!(
                            "{{{}, {}}}",
                            java_str(r[0].as_str().unwrap()),
                            java_str(r[1].as_str().unwrap())
                        )
                    })
                    .collect();
                let _ = writeln!(
                    j,
                    "            checkRanges(fails, w, {:?}, {ty}.{java_method}({}), new String[][] {{{}}});",
                    method,
                    args.join(", "),
                    ranges.join(", ")
                );
            }
        }
        let _ = writeln!(j, "        }} catch (RuntimeException e) {{\n            fails.add({where_} + \": \" + e);\n        }}\n    }}");
    }
    j.push_str("}\n");
    j
}

/// The checks' helpers and `main`.
fn main_class(layouts: usize, cases: usize) -> String {
    let mut runs = String::new();
    for l in 0..layouts {
        let _ = writeln!(runs, "        Check{l}.run(fails);");
    }
    format!(
        r#"package keys;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;

public final class Check {{
    static byte[] H(String hex) {{
        return HexFormat.of().parseHex(hex);
    }}

    static String hex(byte[] b) {{
        return HexFormat.of().formatHex(b);
    }}

    static void check(List<String> fails, String w, boolean ok, String what) {{
        if (!ok) {{
            fails.add(w + ": " + what);
        }}
    }}

    static void checkHex(List<String> fails, String w, String what, byte[] got, String want) {{
        check(fails, w, hex(got).equals(want), what + " " + hex(got) + ", Rust " + want);
    }}

    static void checkHexes(List<String> fails, String w, String what, byte[][] got, String[] want) {{
        String[] g = new String[got.length];
        for (int i = 0; i < got.length; i++) {{
            g[i] = hex(got[i]);
        }}
        check(fails, w, java.util.Arrays.equals(g, want), what + " " + String.join(",", g) + ", Rust " + String.join(",", want));
    }}

    static void checkDecode(List<String> fails, String w, String key, Supplier<Object> decode, Object want) {{
        Object got;
        try {{
            got = decode.get();
        }} catch (IllegalArgumentException e) {{
            check(fails, w, want == null, "mutated key " + key + ": Java refused it (" + e.getMessage() + "), Rust decoded it");
            return;
        }}
        check(fails, w, want != null && want.equals(got), "mutated key " + key + ": Java " + got + ", Rust " + want);
    }}

    static void checkRanges(List<String> fails, String w, String method, List<byte[][]> got, String[][] want) {{
        StringBuilder g = new StringBuilder();
        StringBuilder r = new StringBuilder();
        for (byte[][] x : got) {{
            g.append('[').append(hex(x[0])).append(' ').append(hex(x[1])).append(']');
        }}
        for (String[] x : want) {{
            r.append('[').append(x[0]).append(' ').append(x[1]).append(']');
        }}
        check(fails, w, g.toString().equals(r.toString()), method + ": " + g + ", Rust " + r);
    }}

    static void checkSamples(List<String> fails, String w, String method, List<byte[][]> got, String[] keys, boolean[] in) {{
        for (int i = 0; i < keys.length; i++) {{
            byte[] key = H(keys[i]);
            boolean inside = false;
            for (byte[][] r : got) {{
                if (java.util.Arrays.compareUnsigned(r[0], key) <= 0 && (r[1].length == 0 || java.util.Arrays.compareUnsigned(key, r[1]) < 0)) {{
                    inside = true;
                }}
            }}
            check(fails, w, inside == in[i], method + ": key " + keys[i] + (inside ? " in" : " not in") + " the ranges");
        }}
    }}

    public static void main(String[] args) {{
        List<String> fails = new ArrayList<>();
{runs}        for (int i = 0; i < Math.min(fails.size(), 10); i++) {{
            System.out.println("FAIL " + fails.get(i));
        }}
        System.out.println("{layouts} layouts, {cases} cases, " + fails.size() + " failures");
        System.exit(fails.isEmpty() ? 0 : 1);
    }}
}}
"#
    )
}

#[test]
fn generated_java_agrees_with_rust_on_random_layouts() {
    let jar = rowkey_codegen::testing::java_xxh3_jar().unwrap();
    let seed = common::seed();
    let (layouts, cases) = common::vectors(seed, 300, true);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("keys")).unwrap();
    let mut sources = Vec::new();
    for (l, (text, layout)) in layouts.iter().enumerate() {
        let files = generate(layout.layout(), Language::Java, &format!("K{l}"), "keys")
            .unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        for f in files {
            let path = src.join(&f.path);
            std::fs::write(&path, f.contents).unwrap();
            if !sources.contains(&path) {
                sources.push(path);
            }
        }
        let plan = rowkey_codegen::plan(layout.layout(), "java").unwrap();
        let mine: Vec<&Json> = cases.iter().filter(|c| c["layout_index"] == l).collect();
        let path = src.join(format!("keys/Check{l}.java"));
        std::fs::write(&path, checker(l, &plan, &mine)).unwrap();
        sources.push(path);
    }
    let main = src.join("keys/Check.java");
    std::fs::write(&main, main_class(layouts.len(), cases.len())).unwrap();
    sources.push(main);
    let out_dir = dir.path().join("classes");
    let javac = Command::new("javac")
        .arg("-nowarn")
        .arg("-d")
        .arg(&out_dir)
        .arg("-cp")
        .arg(&jar)
        .args(&sources)
        .output()
        .expect("javac runs");
    assert!(
        javac.status.success(),
        "seed {seed}: javac: {}",
        String::from_utf8_lossy(&javac.stderr)
            .chars()
            .take(4000)
            .collect::<String>()
    );
    let cp = format!("{}:{}", out_dir.display(), jar.display());
    let run = Command::new("java")
        .args(["-cp", &cp, "keys.Check"])
        .output()
        .expect("java runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "seed {seed}: the generated Java disagrees with Rust:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = format!("300 layouts, {} cases, 0 failures", cases.len());
    assert!(
        cases.len() >= 10_000 && stdout.contains(&expected),
        "{stdout}"
    );
}

/// `class` → `Class`: a piece of a method name.
fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}
