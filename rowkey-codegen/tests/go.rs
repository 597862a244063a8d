//! The binding tester for Go: the generated keys of random layouts
//! (`common::vectors`), one package of types `K0`, `K1`..., run by `go
//! test` on Rust's vectors. Any byte, value, bucket, scan or verdict that
//! differs fails with the seed, the layout and the case. Needs `go` and
//! the module proxy (for `github.com/zeebo/xxh3`).

mod common;

use std::fmt::Write as _;
use std::process::Command;

use rowkey_codegen::{generate, FieldPlan, Language, Scalar};

/// Reading the vectors' tagged values as Go values.
const CONVERT: &str = r#"package keys

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"time"
)

type keyCase struct {
	build    func([]any) any
	encode   func(any) ([]byte, int, error)
	decode   func([]byte) (any, error)
	splits   func() [][]byte
	layoutID uint64
	scan     func(method string, args []any, lo, hi any, loIncl, hiIncl bool) ([][2][]byte, error)
}

var cases = map[int]keyCase{}

func field(v any, kind string) any { return v.(map[string]any)[kind] }

func num(v any) string { return string(field(v, "int").(json.Number)) }

func asUint(v any, bits int) uint64 {
	n, err := strconv.ParseUint(num(v), 10, bits)
	if err != nil {
		panic(err)
	}
	return n
}

func asInt(v any, bits int) int64 {
	n, err := strconv.ParseInt(num(v), 10, bits)
	if err != nil {
		panic(err)
	}
	return n
}

func asUint8(v any) uint8   { return uint8(asUint(v, 8)) }
func asUint16(v any) uint16 { return uint16(asUint(v, 16)) }
func asUint32(v any) uint32 { return uint32(asUint(v, 32)) }
func asUint64(v any) uint64 { return asUint(v, 64) }
func asInt8(v any) int8     { return int8(asInt(v, 8)) }
func asInt16(v any) int16   { return int16(asInt(v, 16)) }
func asInt32(v any) int32   { return int32(asInt(v, 32)) }
func asInt64(v any) int64   { return asInt(v, 64) }
func asBool(v any) bool     { return field(v, "bool").(bool) }
func asChar(v any) rune     { return rune(asUint(map[string]any{"int": field(v, "char")}, 32)) }

func bitsOf(v any, kind string, n int) uint64 {
	u, err := strconv.ParseUint(field(v, kind).(string), 16, n)
	if err != nil {
		panic(err)
	}
	return u
}

func asFloat32(v any) float32 { return math.Float32frombits(uint32(bitsOf(v, "f32", 32))) }
func asFloat64(v any) float64 { return math.Float64frombits(bitsOf(v, "f64", 64)) }
func asString(v any) string { return field(v, "str").(string) }

func asBytes(v any) []byte {
	b, err := hex.DecodeString(field(v, "bytes").(string))
	if err != nil {
		panic(err)
	}
	return b
}

func asUUID(v any) [16]byte {
	var u [16]byte
	b, err := hex.DecodeString(field(v, "uuid").(string))
	if err != nil || len(b) != 16 {
		panic(err)
	}
	copy(u[:], b)
	return u
}

// asTime is a count of units ("nanos" nanoseconds each) since the epoch, in UTC.
func asTime(v any) time.Time {
	m := v.(map[string]any)
	n, err := m["time"].(json.Number).Int64()
	if err != nil {
		panic(err)
	}
	nanos, err := m["nanos"].(json.Number).Int64()
	if err != nil {
		panic(err)
	}
	perSec := 1_000_000_000 / nanos
	sec, rem := n/perSec, n%perSec
	if rem < 0 {
		sec, rem = sec-1, rem+perSec
	}
	return time.Unix(sec, rem*nanos).UTC()
}

func asBig(v any) *big.Int {
	b, ok := new(big.Int).SetString(field(v, "int128").(string), 10)
	if !ok {
		panic(v)
	}
	return b
}

func asUint128(v any) Uint128 {
	u, ok := Uint128FromBig(asBig(v))
	if !ok {
		panic(v)
	}
	return u
}

func asInt128(v any) Int128 {
	i, ok := Int128FromBig(asBig(v))
	if !ok {
		panic(v)
	}
	return i
}

func asULID(v any) [16]byte {
	var u [16]byte
	b, err := hex.DecodeString(field(v, "ulid").(string))
	if err != nil || len(b) != 16 {
		panic(err)
	}
	copy(u[:], b)
	return u
}

func asIP(v any) netip.Addr {
	b, err := hex.DecodeString(field(v, "ip").(string))
	a, ok := netip.AddrFromSlice(b)
	if err != nil || !ok {
		panic(v)
	}
	return a
}

func opt[T any](v any, f func(any) T) *T {
	if v == nil {
		return nil
	}
	x := f(v)
	return &x
}
"#;

/// Each case run by the generated package.
const DRIVER: &str = r#"package keys

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"
)

func hexes(rs [][2][]byte) []any {
	out := []any{}
	for _, r := range rs {
		out = append(out, []any{hex.EncodeToString(r[0]), hex.EncodeToString(r[1])})
	}
	return out
}

func TestVectors(t *testing.T) {
	raw, err := os.ReadFile("vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var all []map[string]any
	if err := dec.Decode(&all); err != nil {
		t.Fatal(err)
	}
	failures := 0
	for _, c := range all {
		i, _ := c["layout_index"].(json.Number).Int64()
		kc := cases[int(i)]
		where := fmt.Sprintf("seed %v layout %v values %v", c["seed"], c["layout"], c["values"])
		err := func() error {
			id, _ := strconv.ParseUint(string(c["layout_id"].(json.Number)), 10, 64)
			if kc.layoutID != id {
				return fmt.Errorf("layout id %#x, Rust %#x", kc.layoutID, id)
			}
			k := kc.build(c["values"].([]any))
			key, bucket, err := kc.encode(k)
			if err != nil {
				return fmt.Errorf("encode: %v", err)
			}
			if hex.EncodeToString(key) != c["key"] {
				return fmt.Errorf("key %x, Rust %v", key, c["key"])
			}
			want := -1
			if c["bucket"] != nil {
				b, _ := c["bucket"].(json.Number).Int64()
				want = int(b)
			}
			if bucket != want {
				return fmt.Errorf("bucket %d, Rust %d", bucket, want)
			}
			back, err := kc.decode(key)
			if err != nil || !reflect.DeepEqual(back, k) {
				return fmt.Errorf("decode: %v %v", back, err)
			}
			splits := []any{}
			for _, s := range kc.splits() {
				splits = append(splits, hex.EncodeToString(s))
			}
			if !reflect.DeepEqual(splits, c["splits"]) {
				return fmt.Errorf("split points %v, Rust %v", splits, c["splits"])
			}
			for _, m := range c["mutated"].([]any) {
				bad := m.(map[string]any)
				b, _ := hex.DecodeString(bad["key"].(string))
				got, err := kc.decode(b)
				if err != nil {
					if bad["values"] != nil {
						return fmt.Errorf("mutated key %v: Go refused it (%v), Rust decoded it", bad["key"], err)
					}
					continue
				}
				if bad["values"] == nil {
					return fmt.Errorf("mutated key %v: Go decoded %v, Rust refused it (%v)", bad["key"], got, bad["error"])
				}
				// Compared by their keys (a decoded NaN equals nothing; the
				// salt byte is encoded again from the fields).
				again, _, err := kc.encode(got)
				want, _, err2 := kc.encode(kc.build(bad["values"].([]any)))
				if err != nil || err2 != nil || !bytes.Equal(again, want) {
					return fmt.Errorf("mutated key %v: Go decoded %v (%x, %v), Rust's values give %x (%v)", bad["key"], got, again, err, want, err2)
				}
			}
			for _, s := range c["scans"].([]any) {
				scan := s.(map[string]any)
				method := scan["method"].(string)
				lo, hi := scan["lo"], scan["hi"]
				li, _ := scan["lo_incl"].(bool)
				hiIncl, _ := scan["hi_incl"].(bool)
				got, err := kc.scan(method, scan["args"].([]any), lo, hi, li, hiIncl)
				if err != nil {
					return fmt.Errorf("%s: %v", method, err)
				}
				if samples, ok := scan["samples"].([]any); ok {
					for _, x := range samples {
						sample := x.(map[string]any)
						key, _ := hex.DecodeString(sample["key"].(string))
						in := false
						for _, r := range got {
							if bytes.Compare(r[0], key) <= 0 && (len(r[1]) == 0 || bytes.Compare(key, r[1]) < 0) {
								in = true
							}
						}
						if in != sample["in"].(bool) {
							return fmt.Errorf("%s(lo %v, hi %v, %v, %v): key %v in %v, Rust %v", method, lo, hi, li, hiIncl, sample["key"], in, scan["ranges"])
						}
					}
					continue
				}
				if !reflect.DeepEqual(hexes(got), scan["ranges"]) {
					return fmt.Errorf("%s: %v, Rust %v", method, hexes(got), scan["ranges"])
				}
			}
			return nil
		}()
		if err != nil {
			failures++
			if failures <= 10 {
				t.Errorf("FAIL %s: %v", where, err)
			}
		}
	}
	fmt.Printf("%d cases, %d failures\n", len(all), failures)
}
"#;

/// The Go converter of a field's tagged value.
fn convert(f: &FieldPlan, v: &str) -> String {
    let conv = match f.scalar {
        _ if f.time.is_some() => "asTime".to_owned(),
        Scalar::Uuid => "asUUID".to_owned(),
        Scalar::Ulid => "asULID".to_owned(),
        Scalar::Opaque { len } => format!(
            "func(x any) [{len}]byte {{ var a [{len}]byte; copy(a[:], asBytes(x)); return a }}"
        ),
        Scalar::Ipv4 | Scalar::Ipv6 | Scalar::Ip => "asIP".to_owned(),
        Scalar::Int { bits: 128, signed } => {
            format!("as{}128", if signed { "Int" } else { "Uint" })
        }
        Scalar::Int { bits, signed } if f.key_enum.is_some() => {
            let e = &f.key_enum.as_ref().unwrap().name;
            let int = if signed { "Int" } else { "Uint" };
            format!("func(x any) {e} {{ return {e}(as{int}{bits}(x)) }}")
        }
        Scalar::Bool => "asBool".to_owned(),
        Scalar::Str => "asString".to_owned(),
        Scalar::Bytes => "asBytes".to_owned(),
        Scalar::Char => "asChar".to_owned(),
        Scalar::Float { bits } => format!("asFloat{bits}"),
        Scalar::Int { bits, signed } => format!("as{}{bits}", if signed { "Int" } else { "Uint" }),
    };
    if f.option {
        format!("opt({v}, {conv})")
    } else {
        format!("{conv}({v})")
    }
}

/// The dispatch of layout `l`: building its key from values, and its scans
/// by method name.
fn dispatch(l: usize, plan: &rowkey_codegen::KeyPlan) -> String {
    let ty = format!("K{l}");
    let mut go = String::new();
    let build = plan
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{}: {}", f.ident, convert(f, &format!("v[{i}]"))))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = write!(
        go,
        "\nfunc init() {{\n\tcases[{l}] = keyCase{{\n\t\tbuild: func(v []any) any {{ return {ty}{{{build}}} }},\n\t\tencode: func(k any) ([]byte, int, error) {{\n\t\t\tx := k.({ty})\n\t\t\tb, err := x.Encode()\n\t\t\tif err != nil {{\n\t\t\t\treturn nil, 0, err\n\t\t\t}}\n\t\t\tbk, _ := x.Bucket()\n\t\t\treturn b, bk, nil\n\t\t}},\n\t\tdecode: func(b []byte) (any, error) {{\n\t\t\tk, err := Decode{ty}(b)\n\t\t\tif err != nil {{\n\t\t\t\treturn nil, err\n\t\t\t}}\n\t\t\treturn k, nil\n\t\t}},\n\t\tsplits: {ty}SplitPoints,\n\t\tlayoutID: {ty}LayoutID,\n\t\tscan: func(m string, a []any, lo, hi any, li, hi2 bool) ([][2][]byte, error) {{\n\t\t\tswitch m {{\n"
    );
    // Scans take the fields every key has, not the added ones.
    let n = plan.fields.iter().take_while(|f| !f.added).count();
    for k in 0..=n {
        let args = (0..k)
            .map(|i| convert(&plan.fields[i], &format!("a[{i}]")))
            .collect::<Vec<_>>();
        let (py, goname) = if k == 0 {
            ("scan_all".to_owned(), format!("{ty}ScanAll"))
        } else {
            (
                format!("scan_by_{}", names(&plan.fields[..k]).join("_")),
                format!("{ty}ScanBy{}", go_names(&plan.fields[..k])),
            )
        };
        let _ = writeln!(
            go,
            "\t\t\tcase {py:?}:\n\t\t\t\treturn {goname}({})",
            args.join(", ")
        );
        let Some(next) = plan.fields.get(k) else {
            continue;
        };
        if !plan.scans().iter().any(|s| s.range && s.lead == k) {
            continue;
        }
        let mut inner = next.clone();
        inner.option = true;
        let mut args = args.clone();
        args.push(convert(&inner, "lo"));
        args.push(convert(&inner, "hi"));
        args.push("li, hi2".into());
        let _ = writeln!(
            go,
            "\t\t\tcase {:?}:\n\t\t\t\treturn {ty}RangeBy{}({})",
            format!("range_by_{}", names(&plan.fields[..=k]).join("_")),
            go_names(&plan.fields[..=k]),
            args.join(", ")
        );
    }
    go.push_str("\t\t\t}\n\t\t\treturn nil, fmt.Errorf(\"no method %s\", m)\n\t\t},\n\t}\n}\n");
    go
}

#[test]
fn generated_go_agrees_with_rust_on_random_layouts() {
    let go = std::env::var("GO").unwrap_or_else(|_| "go".into());
    let seed = common::seed();
    let (layouts, cases) = common::vectors(seed, 300, true);
    let dir = tempfile::tempdir().unwrap();
    let mut dispatch_go = String::from("package keys\n\nimport \"fmt\"\n");
    for (l, (text, layout)) in layouts.iter().enumerate() {
        let files = generate(layout.layout(), Language::Go, &format!("K{l}"), "keys")
            .unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        for f in files {
            std::fs::write(dir.path().join(&f.path), f.contents).unwrap();
        }
        let plan = rowkey_codegen::plan(layout.layout(), "go").unwrap();
        dispatch_go.push_str(&dispatch(l, &plan));
    }
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("dispatch_test.go", &dispatch_go);
    write("convert_test.go", CONVERT);
    write("driver_test.go", DRIVER);
    write(
        "go.mod",
        "module keys\n\ngo 1.21\n\nrequire github.com/zeebo/xxh3 v1.1.0\n",
    );
    write("vectors.json", &serde_json::to_string(&cases).unwrap());
    let run = |args: &[&str]| {
        Command::new(&go)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("{go} does not run: {e}"))
    };
    let tidy = run(&["mod", "tidy"]);
    assert!(
        tidy.status.success(),
        "go mod tidy (the module proxy, for github.com/zeebo/xxh3): {}",
        String::from_utf8_lossy(&tidy.stderr)
    );
    let out = run(&["test", "-count=1", "-run", "TestVectors", "-v", "."]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "seed {seed}: the generated Go disagrees with Rust:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = format!("{} cases, 0 failures", cases.len());
    assert!(
        cases.len() >= 10_000 && stdout.contains(&expected),
        "{stdout}"
    );
}

/// Two keys of one package that share a field enum declare it once (its
/// own file, `kind_enum.go`), and every generated file imports only what
/// it uses: `go vet` passes on the package.
#[test]
fn keys_sharing_an_enum_build_in_one_package() {
    let go = std::env::var("GO").unwrap_or_else(|_| "go".into());
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, text) in [
        ("Click", "[kind Kind(u8: View = 1, Buy = 2)][n u32]"),
        (
            "Order",
            "[n u16][kind desc Kind(u8: View = 1, Buy = 2)][s String]",
        ),
    ] {
        let layout = rowkey_core::DynLayout::parse(text).unwrap();
        for f in generate(layout.layout(), Language::Go, name, "keys").unwrap() {
            std::fs::write(dir.path().join(&f.path), f.contents).unwrap();
            paths.push(f.path);
        }
    }
    assert_eq!(
        paths.iter().filter(|p| *p == "kind_enum.go").count(),
        2,
        "each key writes the enum's file, the same file: {paths:?}"
    );
    std::fs::write(dir.path().join("go.mod"), "module keys\n\ngo 1.21\n").unwrap();
    let out = Command::new(&go)
        .args(["vet", "."])
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{go} does not run: {e}"));
    assert!(
        out.status.success(),
        "go vet: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fields' names in the layout.
fn names(fields: &[rowkey_codegen::FieldPlan]) -> Vec<&str> {
    fields.iter().map(|f| f.name.as_str()).collect()
}

/// The fields' names as a Go function name spells them (`class_name` →
/// `ClassName`), never renamed: they are a piece of a longer name.
fn go_names(fields: &[rowkey_codegen::FieldPlan]) -> String {
    fields
        .iter()
        .flat_map(|f| f.name.split('_'))
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
