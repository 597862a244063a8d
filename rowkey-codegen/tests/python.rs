//! The binding tester for Python: random layouts (every field kind and
//! attribute the generator writes, prefixes and every salt) and random
//! values from a seed; Rust (`DynLayout`, the derive's codecs) writes the
//! vectors (values, key bytes, bucket, split points, and mutated keys with
//! whether they decode and to what); `python3` runs the generated modules
//! on them. Any byte, value, bucket or verdict that differs fails with the
//! seed, the layout and the case. Needs `python3` and its `xxhash` package
//! (`.ci/run` installs it).

use std::fmt::Write as _;
use std::ops::Bound;
use std::process::Command;

use rowkey_codegen::{generate, Language};
use rowkey_core::{DynLayout, Value};
use serde_json::{json, Value as Json};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, in_n: u64) -> bool {
        self.below(in_n) == 0
    }

    /// Bytes of the characters that break encodings: 00, FF, 01, pad.
    fn bytes(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n)
            .map(|_| [0x00, 0x01, 0xFF, b'a', b' ', 0x7F, 0xFE][self.below(7) as usize])
            .collect()
    }

    fn string(&mut self, max: u64) -> String {
        let n = self.below(max + 1);
        (0..n)
            .map(|_| ['a', 'b', '\0', 'é', '€', ' ', '\u{1F600}'][self.below(7) as usize])
            .collect()
    }
}

/// A field kind: its layout text and a value generator.
#[derive(Clone, Copy)]
enum Kind {
    Int(u32, bool),
    Bool,
    Str,
    Bytes,
    Fixed(usize, u8),
}

fn random_value(rng: &mut Rng, kind: Kind, desc_ts: bool) -> Value {
    match kind {
        Kind::Int(bits, signed) => {
            let raw = match rng.below(4) {
                0 => 0,
                1 => u64::MAX,
                2 => 1 << (rng.below(u64::from(bits))),
                _ => rng.next(),
            };
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            let mut u = raw & mask;
            if desc_ts && !signed {
                u &= mask >> 1;
            }
            match (bits, signed) {
                (8, false) => Value::U8(u as u8),
                (16, false) => Value::U16(u as u16),
                (32, false) => Value::U32(u as u32),
                (64, false) => Value::U64(u),
                (8, true) => Value::I8(u as u8 as i8),
                (16, true) => Value::I16(u as u16 as i16),
                (32, true) => Value::I32(u as u32 as i32),
                _ => Value::I64(u as i64),
            }
        }
        Kind::Bool => Value::Bool(rng.chance(2)),
        Kind::Str => Value::Str(rng.string(6)),
        Kind::Bytes => Value::Bytes(rng.bytes(6)),
        Kind::Fixed(len, pad) => loop {
            let s = rng.string(len as u64);
            if s.len() <= len && !s.as_bytes().last().is_some_and(|&b| b == pad) {
                break Value::Str(s);
            }
        },
    }
}

/// A random layout: its text, and a generator of its values.
fn random_layout(rng: &mut Rng) -> (String, Vec<(Kind, bool, bool, bool)>) {
    let n = 1 + rng.below(5) as usize;
    let mut text = String::new();
    if rng.chance(3) {
        text.push_str(r#"[prefix "e\x00"]"#);
    }
    let mut fields = Vec::new();
    let mut field_text = String::new();
    for i in 0..n {
        let last = i + 1 == n;
        let desc = rng.chance(3);
        let option = rng.chance(4);
        let (kind, ty) = match rng.below(9) {
            0 => (Kind::Bool, "bool".to_owned()),
            1 => (Kind::Str, "String".to_owned()),
            2 => (Kind::Bytes, "Vec<u8>".to_owned()),
            3 => {
                let (len, pad) = (
                    1 + rng.below(5) as usize,
                    [0u8, b' '][rng.below(2) as usize],
                );
                let pad_text = if pad == 0 {
                    String::new()
                } else {
                    format!(", pad = {pad}")
                };
                (
                    Kind::Fixed(len, pad),
                    format!("fixed({len}{pad_text}) String"),
                )
            }
            _ => {
                let bits = [8u32, 16, 32, 64][rng.below(4) as usize];
                let signed = rng.chance(2);
                (
                    Kind::Int(bits, signed),
                    format!("{}{bits}", if signed { 'i' } else { 'u' }),
                )
            }
        };
        let desc_ts = matches!(kind, Kind::Int(32 | 64, _)) && !desc && rng.chance(3);
        let attrs = if desc_ts {
            " desc_ts"
        } else if desc {
            " desc"
        } else {
            ""
        };
        let ty = if option && !matches!(kind, Kind::Fixed(..)) {
            format!("Option<{ty}>")
        } else if option {
            // `Option<fixed(n) String>` is written with the attribute first.
            ty.replacen("String", "Option<String>", 1)
        } else {
            ty
        };
        let _ = write!(field_text, "[f{i}{attrs} {ty}]");
        fields.push((kind, option, desc_ts, desc));
        let _ = last;
    }
    match rng.below(4) {
        1 => text.push_str("[salt/8]"),
        2 => {
            let _ = write!(text, "[salt(f{})/5 java]", n - 1);
        }
        3 => {
            // `mod` needs an unsigned integer, not an Option.
            if let Some(i) = fields
                .iter()
                .position(|&(k, o, ts, d)| matches!(k, Kind::Int(_, false)) && !o && !ts && !d)
            {
                let _ = write!(text, "[salt(f{i})/7 mod]");
            } else {
                text.push_str("[salt(f0)/16]");
            }
        }
        _ => {}
    }
    text.push_str(&field_text);
    (text, fields)
}

/// The scans of `values`' leading fields (every length), and a random
/// range on the next field where the generator writes one: the method,
/// its arguments and the `(start, stop)` rows Rust gives.
fn scan_vectors(
    rng: &mut Rng,
    layout: &DynLayout,
    kinds: &[(Kind, bool, bool, bool)],
    values: &[Value],
) -> Vec<Json> {
    let names: Vec<String> = (0..values.len()).map(|i| format!("f{i}")).collect();
    let rows = |scan: rowkey_core::Scan| -> Vec<[String; 2]> {
        scan.ranges()
            .map(|r| [hex(r.start()), hex(r.stop())])
            .collect()
    };
    let mut out = Vec::new();
    for k in 0..=values.len() {
        let method = if k == 0 {
            "scan_all".to_owned()
        } else {
            format!("scan_by_{}", names[..k].join("_"))
        };
        let scan = layout.scan(&values[..k], None).unwrap();
        out.push(json!({
            "method": method,
            "args": values[..k].iter().map(json_value).collect::<Vec<_>>(),
            "ranges": rows(scan),
        }));
        let Some(&(kind, option, desc_ts, desc)) = kinds.get(k) else {
            continue;
        };
        if option || matches!(kind, Kind::Bool) {
            continue;
        }
        let (mut lo, mut hi) = (
            random_value(rng, kind, desc_ts),
            random_value(rng, kind, desc_ts),
        );
        // In the order of the field's bytes (the value order but for a
        // padded string whose pad is above some of its bytes), reversed
        // for a descending field: the ends `range_by_*` takes.
        let field_bytes = |v: &Value| {
            let mut all = values.to_vec();
            all[k] = v.clone();
            layout.encode(&all).unwrap()[layout.layout().head_len()..].to_vec()
        };
        let order = field_bytes(&lo).cmp(&field_bytes(&hi));
        if order != std::cmp::Ordering::Equal
            && (order == std::cmp::Ordering::Greater) != (desc || desc_ts)
        {
            std::mem::swap(&mut lo, &mut hi);
        }
        let lo_incl = rng.chance(2);
        let hi_incl = rng.chance(2);
        let bound = |v: &Value, incl: bool| {
            if incl {
                Bound::Included(v.clone())
            } else {
                Bound::Excluded(v.clone())
            }
        };
        let lo_bound = if rng.chance(5) {
            Bound::Unbounded
        } else {
            bound(&lo, lo_incl)
        };
        let hi_bound = if rng.chance(5) {
            Bound::Unbounded
        } else {
            bound(&hi, hi_incl)
        };
        let arg = |b: &Bound<Value>| match b {
            Bound::Unbounded => Json::Null,
            Bound::Included(v) | Bound::Excluded(v) => json_value(v),
        };
        let (lo_json, hi_json) = (arg(&lo_bound), arg(&hi_bound));
        let Ok(scan) = layout.scan(&values[..k], Some((lo_bound, hi_bound))) else {
            continue;
        };
        // Rust's ranges and the derive's may cut a range differently where
        // no key lies (an exclusive bound on a fixed-width field): the two
        // are compared by the keys they hold. Sample keys: the bounds and
        // random values of the field, after the case's leading values.
        let ranges: Vec<rowkey_core::ScanRange> = scan.ranges().collect();
        let mut samples = Vec::new();
        let mut candidates = vec![lo.clone(), hi.clone(), values[k].clone()];
        candidates.extend((0..6).map(|_| random_value(rng, kind, desc_ts)));
        for c in candidates {
            let mut all = values.to_vec();
            all[k] = c;
            let key = layout.encode(&all).unwrap();
            let inside = ranges.iter().any(|r| r.contains(&key));
            samples.push(json!({ "key": hex(&key), "in": inside }));
        }
        out.push(json!({
            "samples": samples,
            "method": format!("range_by_{}", names[..=k].join("_")),
            "args": values[..k].iter().map(json_value).collect::<Vec<_>>(),
            "lo": lo_json,
            "hi": hi_json,
            "lo_incl": lo_incl,
            "hi_incl": hi_incl,
            "ranges": rows(scan),
        }));
    }
    out
}

fn json_value(v: &Value) -> Json {
    match v {
        Value::Bool(b) => json!({ "bool": b }),
        Value::U8(n) => json!({ "int": n }),
        Value::U16(n) => json!({ "int": n }),
        Value::U32(n) => json!({ "int": n }),
        Value::U64(n) => json!({ "int": n }),
        Value::I8(n) => json!({ "int": n }),
        Value::I16(n) => json!({ "int": n }),
        Value::I32(n) => json!({ "int": n }),
        Value::I64(n) => json!({ "int": n }),
        Value::Str(s) => json!({ "str": s }),
        Value::Bytes(b) => json!({ "bytes": hex(b) }),
        Value::Option(None) => Json::Null,
        Value::Option(Some(v)) => json_value(v),
        other => panic!("no such value in these layouts: {other:?}"),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The Python driver: each case's values give its key, its key gives its
/// values, its bucket and split points; each mutated key decodes (to the
/// values Rust decodes it to) or fails, as in Rust.
const DRIVER: &str = r#"
import importlib, json, sys

def value(v):
    if v is None:
        return None
    (kind, x), = v.items()
    return bytes.fromhex(x) if kind == "bytes" else x

failures = 0
cases = json.load(open(sys.argv[1]))
for case in cases:
    m = importlib.import_module(case["module"])
    cls = getattr(m, "Key")
    where = f"seed {case['seed']} layout {case['layout']} values {case['values']}"
    try:
        if m.LAYOUT_ID != case["layout_id"]:
            raise AssertionError(f"LAYOUT_ID {m.LAYOUT_ID:#x}, Rust {case['layout_id']:#x}")
        k = cls(*[value(v) for v in case["values"]])
        key = k.to_bytes()
        if key.hex() != case["key"]:
            raise AssertionError(f"key {key.hex()}, Rust {case['key']}")
        if cls.from_bytes(key) != k:
            raise AssertionError(f"from_bytes gave {cls.from_bytes(key)}")
        if k.bucket() != case["bucket"]:
            raise AssertionError(f"bucket {k.bucket()}, Rust {case['bucket']}")
        if [s.hex() for s in cls.split_points()] != case["splits"]:
            raise AssertionError(f"split points {[s.hex() for s in cls.split_points()]}, Rust {case['splits']}")
        for bad in case["mutated"]:
            raw = bytes.fromhex(bad["key"])
            try:
                got = cls.from_bytes(raw)
            except ValueError as e:
                if bad["values"] is not None:
                    raise AssertionError(f"mutated key {bad['key']}: Python refused it ({e}), Rust decoded it")
                continue
            if bad["values"] is None:
                raise AssertionError(f"mutated key {bad['key']}: Python decoded {got}, Rust refused it ({bad['error']})")
            want = cls(*[value(v) for v in bad["values"]])
            if got != want:
                raise AssertionError(f"mutated key {bad['key']}: Python {got}, Rust {want}")
        for scan in case["scans"]:
            args = [value(v) for v in scan["args"]]
            method = getattr(cls, scan["method"])
            if "lo" in scan:
                got = method(*args, value(scan["lo"]), value(scan["hi"]),
                             start_inclusive=scan["lo_incl"], stop_inclusive=scan["hi_incl"])
            else:
                got = method(*args)
            if "samples" in scan:
                for sample in scan["samples"]:
                    key = bytes.fromhex(sample["key"])
                    inside = any(a <= key and (b == b"" or key < b) for a, b in got)
                    if inside != sample["in"]:
                        raise AssertionError(f"{scan['method']}({args}, lo={scan.get('lo')}, hi={scan.get('hi')}, incl={scan.get('lo_incl')},{scan.get('hi_incl')}): key {sample['key']} {'in' if inside else 'not in'} {[[a.hex(), b.hex()] for a, b in got]}, Rust {scan['ranges']}")
                continue
            for kw, (a, b) in zip(m.scan_kwargs(got), got):
                if kw != ({"row_start": a, "row_stop": b} if b else {"row_start": a}):
                    raise AssertionError(f"scan_kwargs gave {kw} for {(a, b)}")
            got = [[a.hex(), b.hex()] for a, b in got]
            if got != scan["ranges"]:
                raise AssertionError(f"{scan['method']}({args}, lo={scan.get('lo')}, hi={scan.get('hi')}, incl={scan.get('lo_incl')},{scan.get('hi_incl')}): {got}, Rust {scan['ranges']}")
    except AssertionError as e:
        failures += 1
        print(f"FAIL {where}: {e}")
        if failures > 10:
            break
print(f"{len(cases)} cases, {failures} failures")
sys.exit(1 if failures else 0)
"#;

#[test]
fn generated_python_agrees_with_rust_on_random_layouts() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let probe = Command::new(&python).args(["-c", "import xxhash"]).output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "{python} lacks the xxhash package (`python3 -m pip install xxhash`; .ci/run installs it): {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("{python} does not run: {e}"),
    }
    let seed: u64 = std::env::var("ROWKEY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_2026);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed);
    let mut cases = Vec::new();
    for l in 0..300 {
        let (text, kinds) = random_layout(&mut rng);
        let layout = DynLayout::parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        let module = format!("k{l}");
        let files = generate(layout.layout(), Language::Python, "Key", &module)
            .unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        for f in files {
            std::fs::write(dir.path().join(&f.path), f.contents).unwrap();
        }
        let splits: Vec<String> = layout
            .layout()
            .split_points()
            .iter()
            .map(|s| hex(s))
            .collect();
        for _ in 0..10 {
            let values: Vec<Value> = kinds
                .iter()
                .map(|&(kind, option, desc_ts, _)| {
                    let v = random_value(&mut rng, kind, desc_ts);
                    match (option, rng.chance(3)) {
                        (false, _) => v,
                        (true, true) => Value::Option(None),
                        (true, false) => Value::Option(Some(Box::new(v))),
                    }
                })
                .collect();
            let key = layout
                .encode(&values)
                .unwrap_or_else(|e| panic!("seed {seed}: {text}: {values:?}: {e}"));
            let bucket = layout.bucket(&values).unwrap();
            // Keys one byte shorter or longer, or with a byte changed.
            let mut mutated = Vec::new();
            for m in 0..4 {
                let mut bad = key.clone();
                match m {
                    0 => {
                        bad.pop();
                    }
                    1 => bad.push([0x00, 0x01, 0xFF][rng.below(3) as usize]),
                    _ if !bad.is_empty() => {
                        let i = rng.below(bad.len() as u64) as usize;
                        bad[i] = [0x00, 0x01, 0xFF, 0xFE, 0x80][rng.below(5) as usize];
                    }
                    _ => continue,
                }
                let (decoded, error) = match layout.decode(&bad) {
                    Ok(v) => (Json::Array(v.iter().map(json_value).collect()), Json::Null),
                    Err(e) => (Json::Null, Json::String(e.to_string())),
                };
                mutated.push(json!({ "key": hex(&bad), "values": decoded, "error": error }));
            }
            let scans = scan_vectors(&mut rng, &layout, &kinds, &values);
            cases.push(json!({
                "seed": seed,
                "module": module,
                "layout": text,
                "layout_id": layout.layout().id(),
                "values": values.iter().map(json_value).collect::<Vec<_>>(),
                "key": hex(&key),
                "bucket": bucket,
                "splits": splits,
                "mutated": mutated,
                "scans": scans,
            }));
        }
    }
    let vectors = dir.path().join("vectors.json");
    std::fs::write(&vectors, serde_json::to_string(&cases).unwrap()).unwrap();
    let driver = dir.path().join("driver.py");
    std::fs::write(&driver, DRIVER).unwrap();
    let out = Command::new(&python)
        .arg(&driver)
        .arg(&vectors)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "seed {seed}: the generated Python disagrees with Rust:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("3000 cases, 0 failures"), "{stdout}");
}
