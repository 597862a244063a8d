//! rowkey's region-server filter (`rowkey.hbase.KeyFilter`, Java) against
//! the Rust `KeyFilter` it copies: on random layouts (binary and text keys,
//! prefixes, salts, desc, escaped, raw, tagged `Option` and added fields,
//! multi-byte separators), random filters (values, `any_of`, ranges) and
//! random keys (keys of the layout, and keys cut short, with a byte changed
//! or added, or of random bytes), both must say the same of `matches` and
//! `seek_hint`. The Java side is the filter's own class, read from the
//! bytes `KeyFilter::to_bytes` gives, run by the launcher's `interop` mode.

use std::ops::Bound;

use rowkey_core::scan::WireFilter;
use rowkey_core::{DynLayout, KeyFilter, Value};

/// (layout, filter, key) cases checked; the bar is 100,000.
const CASES: usize = 120_000;
const KEYS_PER_FILTER: usize = 24;

mod common;
use common::Rng;

/// The generator's choices.
trait Choose {
    /// An index below `n`.
    fn index(&mut self, n: usize) -> usize;
    fn chance(&mut self, percent: usize) -> bool;
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T;
}

impl Choose for Rng {
    fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.index(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}

/// A field's type, as the generator knows it.
#[derive(Clone, Copy, Debug)]
enum Ty {
    U8,
    U16,
    U32,
    I64,
    Bool,
    Str,
    Bytes,
    Fixed4,
    OptU16,
    OptStr,
    /// Text keys: an unsigned integer in 3 digits.
    Digits3,
}

struct Field {
    name: String,
    ty: Ty,
    /// A range of values is a range of keys (not `reverse`, not a
    /// delimited string).
    ranges: bool,
}

struct Spec {
    text: String,
    fields: Vec<Field>,
}

/// A random layout: binary (prefix, salt, 1 to 4 fields, added fields) or
/// text (a one- or two-byte separator, digits and strings).
fn layout(rng: &mut Rng) -> Spec {
    let mut text = String::new();
    let mut fields = Vec::new();
    if rng.chance(30) {
        let sep = *rng.pick(&["_", "#", "::"]);
        text.push_str(&format!("text(\"{sep}\") "));
        if rng.chance(30) {
            text.push_str(&format!("[salt(f0)/{}]", rng.pick(&[4, 16])));
        }
        let n = 1 + rng.index(4);
        for i in 0..n {
            let last = i + 1 == n;
            let (t, ty, ranges) = match rng.index(4) {
                0 | 1 => (" digits(3) u32".to_string(), Ty::Digits3, true),
                2 => (" desc digits(3) u32".to_string(), Ty::Digits3, true),
                _ => (" String".to_string(), Ty::Str, last),
            };
            text.push_str(&format!("[f{i}{t}]"));
            fields.push(Field {
                name: format!("f{i}"),
                ty,
                ranges,
            });
        }
        return Spec { text, fields };
    }
    if rng.chance(25) {
        text.push_str(r#"[prefix "e\x00"]"#);
    }
    match rng.index(4) {
        0 => text.push_str("[salt/8]"),
        1 => text.push_str("[salt(f0)/16]"),
        2 => text.push_str("[salt(f0)/5 java]"),
        _ => {}
    }
    let n = 1 + rng.index(4);
    for i in 0..n {
        let desc = if rng.chance(30) { " desc" } else { "" };
        let (t, ty, ranges) = match rng.index(11) {
            0 => (format!("{desc} u8"), Ty::U8, true),
            1 => (format!("{desc} u16"), Ty::U16, true),
            2 if rng.chance(50) => (" reverse u32".to_string(), Ty::U32, false),
            2 => (format!("{desc} u32"), Ty::U32, true),
            3 => (" desc_ts i64".to_string(), Ty::I64, true),
            4 => (format!("{desc} i64"), Ty::I64, true),
            5 => (format!("{desc} bool"), Ty::Bool, true),
            6 => (format!("{desc} String"), Ty::Str, true),
            7 => (format!("{desc} Vec<u8>"), Ty::Bytes, true),
            8 => (format!("{desc} fixed(4) String"), Ty::Fixed4, true),
            9 => (format!("{desc} Option<u16>"), Ty::OptU16, true),
            _ => (format!("{desc} Option<String>"), Ty::OptStr, true),
        };
        text.push_str(&format!("[f{i}{t}]"));
        fields.push(Field {
            name: format!("f{i}"),
            ty,
            ranges,
        });
    }
    for i in 0..rng.index(3) {
        let (t, ty) = if rng.chance(50) {
            (" added Option<u16>", Ty::OptU16)
        } else {
            (" added Option<String>", Ty::OptStr)
        };
        text.push_str(&format!("[g{i}{t}]"));
        fields.push(Field {
            name: format!("g{i}"),
            ty,
            ranges: true,
        });
    }
    Spec { text, fields }
}

/// A value of a small domain, so that filters and keys meet.
fn value(rng: &mut Rng, ty: Ty, added: bool) -> Value {
    let s = |rng: &mut Rng| -> String {
        (0..rng.index(4))
            .map(|_| *rng.pick(&['a', 'b', '\0', '_', '#', ':', 'é']))
            .collect()
    };
    match ty {
        Ty::U8 => Value::U8(rng.index(6) as u8),
        Ty::U16 => Value::U16(rng.index(6) as u16 * 100),
        Ty::U32 => Value::U32(rng.index(6) as u32),
        Ty::I64 => Value::I64(rng.index(8) as i64 - 3),
        Ty::Bool => Value::Bool(rng.chance(50)),
        Ty::Str => Value::Str(s(rng)),
        Ty::Bytes => Value::Bytes(
            (0..rng.index(4))
                .map(|_| *rng.pick(&[0, 1, 0xFF, 7]))
                .collect(),
        ),
        Ty::Fixed4 => Value::Str((0..rng.index(5)).map(|_| *rng.pick(&['a', 'b'])).collect()),
        Ty::OptU16 if added || rng.chance(70) => Value::Option(
            rng.chance(70)
                .then(|| Box::new(Value::U16(rng.index(4) as u16))),
        ),
        Ty::OptU16 => Value::Option(None),
        Ty::OptStr => Value::Option(rng.chance(70).then(|| Box::new(Value::Str(s(rng))))),
        Ty::Digits3 => Value::U32(rng.index(12) as u32 * 7),
    }
}

/// Values that the layout accepts (a text key's string has no separator,
/// a fixed string ends in no pad): drawn again until it encodes.
fn key_values(rng: &mut Rng, spec: &Spec, layout: &DynLayout) -> (Vec<Value>, Vec<u8>) {
    loop {
        let added = |f: &Field| f.name.starts_with('g');
        let values: Vec<Value> = spec
            .fields
            .iter()
            .map(|f| value(rng, f.ty, added(f)))
            .collect();
        if let Ok(key) = layout.encode(&values) {
            return (values, key);
        }
    }
}

/// A random filter: each field constrained with some chance, by a value,
/// `any_of` values or a range.
fn filter(rng: &mut Rng, spec: &Spec, layout: &DynLayout) -> KeyFilter {
    loop {
        let mut f = layout.filter();
        for field in &spec.fields {
            if !rng.chance(40) {
                continue;
            }
            let added = field.name.starts_with('g');
            let (a, b, c) = (
                value(rng, field.ty, added),
                value(rng, field.ty, added),
                value(rng, field.ty, added),
            );
            f = match rng.index(3) {
                0 => f.eq(&field.name, a),
                1 => f.any_of(&field.name, [a, b, c]),
                _ if field.ranges => {
                    // A range's ends in order (an inverted range panics).
                    let (a, b) = if order(&a, &b).is_gt() {
                        (b, a)
                    } else {
                        (a, b)
                    };
                    let lo = if rng.chance(20) {
                        Bound::Unbounded
                    } else {
                        Bound::Included(a)
                    };
                    let hi = match rng.index(3) {
                        0 => Bound::Unbounded,
                        1 => Bound::Excluded(b),
                        _ => Bound::Included(b),
                    };
                    f.range(&field.name, (lo, hi))
                }
                _ => f.eq(&field.name, a),
            }
            .unwrap();
        }
        if let Ok(filter) = f.build() {
            return filter;
        }
    }
}

/// The order of two values of one generated type.
fn order(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::U8(a), Value::U8(b)) => a.cmp(b),
        (Value::U16(a), Value::U16(b)) => a.cmp(b),
        (Value::U32(a), Value::U32(b)) => a.cmp(b),
        (Value::I64(a), Value::I64(b)) => a.cmp(b),
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        (Value::Str(a), Value::Str(b)) => a.cmp(b),
        (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
        (Value::Option(a), Value::Option(b)) => match (a, b) {
            (Some(a), Some(b)) => order(a, b),
            _ => a.is_some().cmp(&b.is_some()),
        },
        _ => panic!("values of two types: {a:?}, {b:?}"),
    }
}

/// A key near the layout's keys: one of them, cut short, with a byte
/// changed or added, or random bytes.
fn key(rng: &mut Rng, spec: &Spec, layout: &DynLayout) -> Vec<u8> {
    let (_, mut key) = key_values(rng, spec, layout);
    match rng.index(10) {
        0..=4 => {}
        5 if !key.is_empty() => key.truncate(rng.index(key.len())),
        6 if !key.is_empty() => {
            let i = rng.index(key.len());
            key[i] = *rng.pick(&[0, 1, 0xFE, 0xFF, key[i].wrapping_add(1), b'_']);
        }
        7 => key.push(*rng.pick(&[0, 1, 0xFF, b'_'])),
        8 => key = (0..rng.index(12)).map(|_| rng.next() as u8).collect(),
        _ => key.truncate(key.len().saturating_sub(1)),
    }
    key
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Java's answers to `requests`, one per request.
fn ask_java(requests: &[String]) -> Vec<String> {
    rowkey_hbase::testing::ask_interop(requests, "512m")
        .unwrap_or_else(|e| panic!("the interop oracle: {e}"))
}

#[test]
fn the_java_filter_answers_as_the_rust_filter_on_random_cases() {
    let seed = 0x5eed_f117;
    let mut rng = Rng(seed);
    let mut cases = Vec::new();
    let mut requests = Vec::new();
    let mut layouts = 0;
    while cases.len() < CASES {
        let spec = layout(&mut rng);
        let layout = DynLayout::parse(&spec.text).unwrap_or_else(|e| panic!("{}: {e}", spec.text));
        layouts += 1;
        for _ in 0..4 {
            let filter = filter(&mut rng, &spec, &layout);
            let bytes = filter
                .to_bytes()
                .unwrap_or_else(|| panic!("{}: a filter with no serialized form", spec.text));
            let fhex = hex(&bytes);
            for _ in 0..KEYS_PER_FILTER {
                let key = key(&mut rng, &spec, &layout);
                let rust = format!(
                    "{} {}",
                    u8::from(filter.matches(&key)),
                    filter.seek_hint(&key).map_or("none".into(), |h| hex(&h))
                );
                // The filter read back from its bytes, as a server reads
                // it, answers as the filter it came from.
                assert_eq!(
                    wire_answer(&bytes, &key),
                    rust,
                    "{}: filter {fhex}, key {}",
                    spec.text,
                    hex(&key)
                );
                requests.push(format!("key_filter {fhex} {}", hex(&key)));
                cases.push((spec.text.clone(), fhex.clone(), key, rust));
            }
        }
    }
    let answers = ask_java(&requests);
    let mut matched = 0;
    for ((text, filter, key, rust), java) in cases.iter().zip(&answers) {
        assert_eq!(
            java,
            rust,
            "seed {seed:#x}: layout {text}, filter {filter}, key {}: Java said {java}, Rust {rust}",
            hex(key)
        );
        matched += usize::from(rust.starts_with('1'));
    }
    // The cases are not all one answer.
    assert!(
        matched > CASES / 20 && matched < CASES * 19 / 20,
        "{matched} of {} cases match",
        cases.len()
    );
    assert!(layouts > 1000, "{layouts} layouts");
    eprintln!(
        "{} cases on {layouts} layouts agree; {matched} match",
        cases.len()
    );
}

/// What `WireFilter` (the Rust reader of a filter's bytes) answers, in the
/// interop oracle's words.
fn wire_answer(filter: &[u8], key: &[u8]) -> String {
    match WireFilter::decode(filter) {
        Err(e) => format!("refused: {e}"),
        Ok(f) => format!(
            "{} {}",
            u8::from(f.matches(key)),
            f.seek_hint(key).map_or("none".into(), |h| hex(&h))
        ),
    }
}

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The shared corpus (`tests/data/filter_corpus.txt`): hostile filters
/// (the issue's 17 bytes whose empty interval made the old walk step
/// through 2^64 values, widths past HBase's row limit, huge counts, bad
/// flags, unsorted and overlapping intervals, cut short, trailing bytes)
/// and valid ones whose walks step back part by part up to and past the
/// bound on passes. Rust's `WireFilter` and Java's `KeyFilter` each give
/// exactly the answer the corpus states.
#[test]
fn the_shared_corpus_is_answered_alike_by_rust_and_java() {
    let corpus = include_str!("data/filter_corpus.txt");
    let cases: Vec<(&str, Vec<u8>, Vec<u8>, &str)> = corpus
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut f = l.splitn(4, ' ');
            let mut next = || f.next().unwrap_or_else(|| panic!("a short line: {l}"));
            (next(), unhex(next()), unhex(next()), next())
        })
        .collect();
    let requests: Vec<String> = cases
        .iter()
        .map(|(_, f, k, _)| format!("key_filter {} {}", hex(f), hex(k)))
        .collect();
    let java = ask_java(&requests);
    let mut refused = 0;
    for ((name, filter, key, expected), java) in cases.iter().zip(&java) {
        let rust = wire_answer(filter, key);
        assert_eq!(&rust, expected, "{name}: Rust's answer");
        assert_eq!(java, expected, "{name}: Java's answer");
        refused += usize::from(expected.starts_with("refused"));
    }
    assert!(
        refused >= 25 && cases.len() - refused >= 8,
        "{refused} of {}",
        cases.len()
    );
}

/// A filter past the caps is never sent: `to_bytes` gives none (the
/// client then checks the rows itself), where the old form went out and
/// padded every hint to the width it stated.
#[test]
fn a_filter_past_the_caps_has_no_serialized_form() {
    let narrow = DynLayout::parse("[a u16][s String]").unwrap();
    let ok = narrow.filter().eq("a", 7u16).unwrap().build().unwrap();
    assert!(ok.to_bytes().is_some());
    // A string range whose bound is past HBase's longest row.
    let long = "x".repeat(40_000);
    let past = narrow
        .filter()
        .range(
            "s",
            (Bound::Included(Value::Str(long.clone())), Bound::Unbounded),
        )
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(past.to_bytes(), None, "a 40,000-byte bound");
    assert!(past.matches(&{
        let mut k = vec![0, 7];
        k.extend_from_slice(long.as_bytes());
        k.extend_from_slice(&[0, 1]);
        k
    }));
}

#[test]
fn a_filter_java_cannot_read_is_refused_with_a_reason() {
    let request = |bytes: &[u8]| format!("key_filter {} 00", hex(bytes));
    let layout = DynLayout::parse("[a u16][s String]").unwrap();
    let good = layout.filter().eq("a", 7u16).unwrap().build().unwrap();
    let good = good.to_bytes().unwrap();
    let mut bad_version = good.clone();
    bad_version[3] = 2;
    let cut = &good[..good.len() - 1];
    let mut trailing = good.clone();
    trailing.push(0);
    let answers = ask_java(&[
        request(&good),
        request(&bad_version),
        request(cut),
        request(&trailing),
    ]);
    assert!(answers[0].starts_with("0 "), "{}", answers[0]);
    assert_eq!(
        answers[1..],
        [
            "refused: not a rowkey KeyFilter of version 1",
            "refused: a rowkey KeyFilter cut short",
            &format!("refused: bytes after the last part, at {}", good.len()),
        ]
    );
}

/// The deployable filter jar (`rowkey-hbase-filter`) is Java 8 bytecode
/// (class file version 52), so it loads on every JDK HBase 2.6 supports
/// (8, 11, 17), as `javap` reads it from the jar the tests deploy.
#[test]
fn the_filter_jar_is_java_8_bytecode() {
    rowkey_hbase::testing::classpath().expect("the Java modules build");
    let jar = rowkey_hbase::testing::filter_jar();
    let out = std::process::Command::new("javap")
        .args(["-v", "-cp"])
        .arg(&jar)
        .arg("rowkey.hbase.KeyFilter")
        .output()
        .expect("javap runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "javap on {}: {text}", jar.display());
    let major: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("major version: "))
        .collect();
    assert_eq!(major, ["52"], "{}", jar.display());
}
