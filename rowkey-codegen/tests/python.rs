//! The binding tester for Python: the generated modules of random
//! layouts (`common::vectors`) run by `python3` on Rust's vectors. Any
//! byte, value, bucket, scan or verdict that differs fails with the seed,
//! the layout and the case. Needs `python3` and its `xxhash` package
//! (`.ci/run` installs it).

mod common;

use std::process::Command;

use rowkey_codegen::{generate, Language};

/// The Python driver: each case's values give its key, its key gives its
/// values, its bucket and split points; each mutated key decodes (to the
/// values Rust decodes it to) or fails, as in Rust.
const DRIVER: &str = r#"
import datetime, importlib, ipaddress, json, struct, sys, uuid

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

def value(v):
    if v is None:
        return None
    if "time" in v:
        return EPOCH + datetime.timedelta(microseconds=v["time"] * v["nanos"] // 1000)
    (kind, x), = v.items()
    if kind == "uuid":
        return uuid.UUID(hex=x)
    if kind == "ulid":
        return bytes.fromhex(x)
    if kind == "int128":
        return int(x)
    if kind == "ip":
        return ipaddress.ip_address(bytes.fromhex(x))
    if kind == "bytes":
        return bytes.fromhex(x)
    if kind == "char":
        return chr(x)
    if kind in ("f32", "f64"):
        return struct.unpack(">f" if kind == "f32" else ">d", bytes.fromhex(x))[0]
    return x

failures = 0
cases = json.load(open(sys.argv[1]))
for case in cases:
    m = importlib.import_module(f"k{case['layout_index']}")
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
            # Compared by their keys (a decoded NaN equals nothing; the
            # salt byte is encoded again from the fields).
            want = cls(*[value(v) for v in bad["values"]])
            if got.to_bytes() != want.to_bytes():
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
    let seed = common::seed();
    let (layouts, cases) = common::vectors(seed, 300, true);
    let dir = tempfile::tempdir().unwrap();
    for (l, (text, layout)) in layouts.iter().enumerate() {
        let files = generate(layout.layout(), Language::Python, "Key", &format!("k{l}"))
            .unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        for f in files {
            std::fs::write(dir.path().join(&f.path), f.contents).unwrap();
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
    let expected = format!("{} cases, 0 failures", cases.len());
    assert!(
        cases.len() >= 10_000 && stdout.contains(&expected),
        "{stdout}"
    );
}
