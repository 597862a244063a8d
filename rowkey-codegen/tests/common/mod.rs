//! The binding tester's vectors, the same for every language: random
//! layouts (every field kind and attribute the generators write, prefixes
//! and every salt) and random values from a seed; Rust (`DynLayout`, the
//! derive's codecs) gives each key's bytes, bucket, split points and
//! scans, and mutated keys with whether they decode and to what.
#![allow(dead_code)]

mod layouts;

use std::ops::Bound;

use rowkey_core::{DynLayout, Value};
use serde_json::{json, Value as Json};

use layouts::{
    crafted_oc_keys, crafted_oc_layout, random_layout, random_oc_layout, random_text_layout,
};

/// Keys per random layout: 300 layouts of 34 keys give each language
/// 10,200 values (issue 45's bar is 10,000).
pub const KEYS_PER_LAYOUT: usize = 34;

/// The seed: `ROWKEY_SEED`, or a fixed one.
pub fn seed() -> u64 {
    std::env::var("ROWKEY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_2026)
}

/// `layouts` random layouts of `seed` (with `text`, a third of them text
/// keys and a sixth ordered-code keys; the last one [`crafted_oc_layout`])
/// with [`KEYS_PER_LAYOUT`] keys each: the layouts
/// (their text and `DynLayout`) and the cases (each naming its layout by
/// its position, `"layout_index"`).
pub fn vectors(seed: u64, layouts: usize, text: bool) -> (Vec<(String, DynLayout)>, Vec<Json>) {
    let mut out = Vec::new();
    let mut cases = Vec::new();
    let mut rng = Rng(seed);
    for l in 0..layouts {
        // The last layout of a full run: ordered-code keys spelled every
        // way, right and wrong (below).
        let crafted = l + 1 == layouts && layouts >= 100;
        let (text, kinds) = match rng.below(6) {
            _ if crafted => crafted_oc_layout(),
            _ if !text => random_layout(&mut rng),
            0..=2 => random_layout(&mut rng),
            3 => random_oc_layout(&mut rng),
            _ => random_text_layout(&mut rng),
        };
        let layout = DynLayout::parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        let text_key = text.starts_with("text(");
        let splits: Vec<String> = layout
            .layout()
            .split_points()
            .iter()
            .map(|s| hex(s))
            .collect();
        for case_no in 0..KEYS_PER_LAYOUT {
            // Values the layout stores (a reversed padded string must not
            // start with its pad, nor a reversed domain's last label end
            // with it): drawn again until they are.
            let mut tries = 0;
            let (values, key) = loop {
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
                match layout.encode(&values) {
                    Ok(key) => break (values, key),
                    Err(_) if tries < 100 => tries += 1,
                    Err(e) => panic!("seed {seed}: {text}: {values:?}: {e}"),
                }
            };
            let bucket = layout.bucket(&values).unwrap();
            let mut mutated = Vec::new();
            // Keys one byte shorter or longer, or with a byte changed
            // (in a text key, also to a character of its digits, hex,
            // base32 and punctuation).
            for m in 0..5 {
                let mut bad = key.clone();
                match m {
                    0 => {
                        bad.pop();
                    }
                    1 => bad.push([0x00, 0x01, 0xFF][rng.below(3) as usize]),
                    4 if !text_key => continue,
                    4 if !bad.is_empty() => {
                        let i = rng.below(bad.len() as u64) as usize;
                        bad[i] = b"0a9Z8:-.f7"[rng.below(10) as usize];
                    }
                    _ if !bad.is_empty() => {
                        let i = rng.below(bad.len() as u64) as usize;
                        bad[i] = [0x00, 0x01, 0xFF, 0xFE, 0x80][rng.below(5) as usize];
                    }
                    _ => continue,
                }
                let (decoded, error) = match layout.decode(&bad) {
                    // A timestamp no language's time type holds (Python's
                    // datetime: years 1 to 9999, whole microseconds): each
                    // refuses it its own way, so it is not compared.
                    Ok(v) if !kinds.iter().zip(&v).all(|(k, v)| holdable(k.0, v)) => continue,
                    Ok(v) => (json_values(&kinds, &v), Json::Null),
                    Err(e) => (Json::Null, Json::String(e.to_string())),
                };
                mutated.push(json!({ "key": hex(&bad), "values": decoded, "error": error }));
            }
            if crafted && case_no == 0 {
                for bad in crafted_oc_keys() {
                    let (decoded, error) = match layout.decode(&bad) {
                        Ok(v) => (json_values(&kinds, &v), Json::Null),
                        Err(e) => (Json::Null, Json::String(e.to_string())),
                    };
                    mutated.push(json!({ "key": hex(&bad), "values": decoded, "error": error }));
                }
            }
            let scans = scan_vectors(&mut rng, &layout, &kinds, &values);
            cases.push(json!({
                "seed": seed,
                "layout_index": l,
                "layout": text,
                "layout_id": layout.layout().id(),
                "values": json_values(&kinds, &values),
                "key": hex(&key),
                "bucket": bucket,
                "splits": splits,
                "mutated": mutated,
                "scans": scans,
            }));
        }
        out.push((text, layout));
    }
    // Every kind of field, attribute and salt is drawn (a guard against a
    // generator of layouts that stops drawing one).
    if layouts >= 100 {
        for part in [
            "text(",
            " added",
            " reverse ",
            " reverse_domain",
            " desc ",
            " desc_ts",
            "fixed(",
            "Option<",
            "Uuid",
            "Timestamp",
            "Kind",
            "f32",
            "f64",
            "char",
            "bool",
            "Vec<u8>",
            "digits(",
            " java]",
            " mod]",
            "/8]",
            "[prefix",
            " u128]",
            " i128]",
            ") u128]",
            ") i128]",
            "ordered_code [prefix",
            "ordered_code [salt",
            "desc String]",
            "Ipv4Addr",
            "Ipv6Addr",
            "Ulid",
            " Sku",
            " IpAddr",
        ] {
            assert!(
                out.iter().any(|(text, _)| text.contains(part)),
                "seed {seed}: no layout has `{part}`"
            );
        }
        assert!(
            out.iter().any(
                |(_, l)| rowkey_codegen::plan(l.layout(), "go").is_ok_and(|p| p.mod_over_128())
            ),
            "seed {seed}: no layout has a mod salt over a 128-bit integer"
        );
    }
    (out, cases)
}

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);

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
            .map(|_| ['a', 'b', '\0', 'é', '€', ' ', '\u{1F600}', '.'][self.below(8) as usize])
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
    /// Text keys: an integer in `digits` decimal digits.
    Digits(u32, bool, u32),
    /// Text keys: `max - ts` in digits; values `0..=max`.
    TsDigits(u32, bool, u64),
    /// Text keys: a string up to the separator.
    Delim,
    /// A `char`.
    Char,
    /// An `f32` or `f64` (not NaN: a NaN equals nothing, so a decoded one
    /// cannot be compared).
    Float(u32),
    /// A field enum of repr `bits`/`signed`: its discriminants.
    Enum(u32, bool, [i64; 3]),
    /// A UUID (its 16 bytes).
    Uuid,
    /// A ULID (its 16 bytes).
    Ulid,
    /// A type the runtime does not know, of this width (its bytes).
    Opaque(usize),
    /// An IP address: `Ipv4Addr` (0), `Ipv6Addr` (1) or `IpAddr` (2); its
    /// value the key bytes (`IpAddr`'s tagged).
    Ip(usize),
    /// A timestamp (`ts(unit)`, the unit's index in `UNITS`): a count
    /// of units in the years 1 to 9999, whole microseconds. Its type is
    /// written `Timestamp`, a user's `TimeField` to the runtime, so Rust's
    /// verdict on a key is the same with every feature (with `chrono`, a
    /// `DateTime<Utc>` field also refuses counts beyond chrono's years).
    Time(usize),
    /// A text key's `desc_ts(max = i64::MAX)` timestamp: not before 1970.
    TimeDesc(usize),
}

fn random_value(rng: &mut Rng, kind: Kind, desc_ts: bool) -> Value {
    match kind {
        Kind::Int(bits, signed) => {
            let raw: u128 = match rng.below(4) {
                0 => 0,
                1 => u128::MAX,
                2 => 1 << (rng.below(u64::from(bits))),
                _ => u128::from(rng.next()) << 64 | u128::from(rng.next()),
            };
            let mask = if bits == 128 {
                u128::MAX
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
                (64, false) => Value::U64(u as u64),
                (128, false) => Value::U128(u),
                (8, true) => Value::I8(u as u8 as i8),
                (16, true) => Value::I16(u as u16 as i16),
                (32, true) => Value::I32(u as u32 as i32),
                (64, true) => Value::I64(u as u64 as i64),
                _ => Value::I128(u as i128),
            }
        }
        Kind::Bool => Value::Bool(rng.chance(2)),
        Kind::Opaque(len) => Value::Bytes((0..len).map(|_| rng.next() as u8).collect()),
        Kind::Ip(which) => {
            let v4: Vec<u8> = (0..4).map(|_| rng.next() as u8).collect();
            let v6: Vec<u8> = match rng.below(3) {
                // An IPv4-mapped IPv6 address, which stays IPv6.
                0 => [&[0u8; 10][..], &[0xFF, 0xFF], &v4].concat(),
                _ => (0..16).map(|_| rng.next() as u8).collect(),
            };
            Value::Bytes(match (which, rng.chance(2)) {
                (0, _) => v4,
                (1, _) => v6,
                (_, true) => [&[4u8][..], &v4, &[0; 12]].concat(),
                (_, false) => [&[6u8][..], &v6].concat(),
            })
        }
        Kind::Uuid | Kind::Ulid => Value::Bytes(match rng.below(4) {
            0 => vec![0; 16],
            1 => vec![0xFF; 16],
            _ => (0..16).map(|_| rng.next() as u8).collect(),
        }),
        Kind::Time(unit) | Kind::TimeDesc(unit) => {
            // Whole seconds within the years every language holds (and an
            // i64 of the unit), then whole microseconds within a second.
            let per = 1_000_000_000 / UNITS[unit];
            let lo = if matches!(kind, Kind::TimeDesc(_)) || (desc_ts && rng.chance(2)) {
                0
            } else {
                YEARS.0.max(i64::MIN / per + 1)
            };
            let hi = YEARS.1.min(i64::MAX / per - 1);
            let secs = match rng.below(4) {
                0 => [lo, hi, 0, 1_700_000_000][rng.below(4) as usize],
                _ => lo + (rng.next() % (hi - lo) as u64) as i64,
            };
            let sub = if per >= 1_000_000 {
                (rng.next() % 1_000_000) as i64 * (per / 1_000_000)
            } else if rng.chance(2) {
                0
            } else {
                rng.next() as i64 % per
            }
            .rem_euclid(per);
            Value::I64(secs * per + sub)
        }
        Kind::Str => Value::Str(rng.string(6)),
        Kind::Bytes => Value::Bytes(rng.bytes(6)),
        Kind::Digits(bits, signed, digits) => {
            let top = 10u128.checked_pow(digits).map_or(u128::MAX, |p| p - 1);
            let hi = match (signed, bits) {
                (true, _) => (1u128 << (bits - 1)) - 1,
                (false, 128) => u128::MAX,
                (false, _) => (1u128 << bits) - 1,
            };
            let lim = top.min(hi);
            let m = match rng.below(3) {
                0 => lim,
                1 => 0,
                _ => {
                    (u128::from(rng.next()) << 64 | u128::from(rng.next())) % lim.saturating_add(1)
                }
            };
            let neg = signed && rng.chance(2);
            int_value(bits, signed, if neg { -(m as i128) } else { m as i128 })
        }
        Kind::TsDigits(bits, signed, max) => {
            let v = match rng.below(3) {
                0 => max,
                1 => 0,
                _ => rng.next() % (max + 1),
            };
            int_value(bits, signed, i128::from(v))
        }
        Kind::Delim => Value::Str(rng.string(5)),
        Kind::Enum(bits, signed, d) => {
            int_value(bits, signed, i128::from(d[rng.below(3) as usize]))
        }
        Kind::Char => Value::Char(
            [
                '\0',
                'a',
                'é',
                '€',
                '\u{1F600}',
                '\u{10FFFF}',
                '\u{D7FF}',
                '\u{E000}',
            ][rng.below(8) as usize],
        ),
        Kind::Float(bits) => loop {
            let v = match rng.below(6) {
                0 => [0.0, -0.0, 1.0, -1.0][rng.below(4) as usize],
                1 => [f64::INFINITY, f64::NEG_INFINITY][rng.below(2) as usize],
                _ => f64::from_bits(rng.next()),
            };
            if v.is_nan() {
                continue;
            }
            break if bits == 32 {
                let f = f32::from_bits(rng.next() as u32);
                if f.is_nan() {
                    continue;
                }
                Value::F32(if rng.chance(3) { v as f32 } else { f })
            } else {
                Value::F64(v)
            };
        },
        Kind::Fixed(len, pad) => loop {
            let s = rng.string(len as u64);
            if s.len() <= len && !s.as_bytes().last().is_some_and(|&b| b == pad) {
                break Value::Str(s);
            }
        },
    }
}

/// `n` as a value of the integer type `bits`/`signed`.
fn int_value(bits: u32, signed: bool, n: i128) -> Value {
    match (bits, signed) {
        (8, false) => Value::U8(n as u8),
        (16, false) => Value::U16(n as u16),
        (32, false) => Value::U32(n as u32),
        (64, false) => Value::U64(n as u64),
        (128, false) => Value::U128(n as u128),
        (8, true) => Value::I8(n as i8),
        (16, true) => Value::I16(n as i16),
        (32, true) => Value::I32(n as i32),
        (64, true) => Value::I64(n as i64),
        _ => Value::I128(n),
    }
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
    let names: Vec<&str> = layout.layout().fields().iter().map(|f| f.name()).collect();
    let rows = |scan: rowkey_core::Scan| -> Vec<[String; 2]> {
        scan.ranges()
            .map(|r| [hex(r.start()), hex(r.stop())])
            .collect()
    };
    let mut out = Vec::new();
    // The fields every key has: scans do not take the added ones.
    let key_fields = layout
        .layout()
        .fields()
        .iter()
        .take_while(|f| !f.is_added())
        .count();
    for k in 0..=key_fields {
        let method = if k == 0 {
            "scan_all".to_owned()
        } else {
            format!("scan_by_{}", names[..k].join("_"))
        };
        let scan = layout.scan(&values[..k], None).unwrap();
        out.push(json!({
            "method": method,
            "args": json_values(kinds, &values[..k]),
            "ranges": rows(scan),
        }));
        let Some(&(kind, option, desc_ts, desc)) = kinds[..key_fields].get(k) else {
            continue;
        };
        // No range on a bool, an Option, a delimited string or a
        // reversed field (its bytes do not sort like its values: Rust
        // refuses one).
        let whole = (Bound::Unbounded, Bound::Unbounded);
        if option
            || matches!(kind, Kind::Bool | Kind::Delim)
            || layout.scan(&values[..k], Some(whole)).is_err()
        {
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
            Bound::Included(v) | Bound::Excluded(v) => json_field(kind, v),
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
            "args": json_values(kinds, &values[..k]),
            "lo": lo_json,
            "hi": hi_json,
            "lo_incl": lo_incl,
            "hi_incl": hi_incl,
            "ranges": rows(scan),
        }));
    }
    out
}

/// Values as JSON, each tagged by its field's kind where its value does
/// not say it (a UUID's bytes, a timestamp's count of units).
fn json_values(kinds: &[(Kind, bool, bool, bool)], values: &[Value]) -> Json {
    Json::Array(
        kinds
            .iter()
            .zip(values)
            .map(|(k, v)| json_field(k.0, v))
            .collect(),
    )
}

fn json_field(kind: Kind, v: &Value) -> Json {
    match (kind, v) {
        (_, Value::Option(None)) => Json::Null,
        (_, Value::Option(Some(v))) => json_field(kind, v),
        (Kind::Uuid, Value::Bytes(b)) => json!({ "uuid": hex(b) }),
        (Kind::Ulid, Value::Bytes(b)) => json!({ "ulid": hex(b) }),
        // The address's octets (4 or 16), without an IpAddr's tag.
        (Kind::Ip(2), Value::Bytes(b)) if b[0] == 4 => json!({ "ip": hex(&b[1..5]) }),
        (Kind::Ip(2), Value::Bytes(b)) => json!({ "ip": hex(&b[1..]) }),
        (Kind::Ip(_), Value::Bytes(b)) => json!({ "ip": hex(b) }),
        (Kind::Time(unit) | Kind::TimeDesc(unit), Value::I64(n)) => {
            json!({ "time": n, "nanos": UNITS[unit] })
        }
        _ => json_value(v),
    }
}

/// Nanoseconds per unit: secs, millis, micros, nanos.
const UNITS: [i64; 4] = [1_000_000_000, 1_000_000, 1_000, 1];

/// Seconds of 0001-01-01 and 9999-12-31T23:59:59 since the epoch: the years
/// Python's datetime holds.
const YEARS: (i64, i64) = (-62_135_596_800, 253_402_300_799);

/// Whether every language's time type holds a field's value.
fn holdable(kind: Kind, v: &Value) -> bool {
    match (kind, v) {
        (_, Value::Option(Some(v))) => holdable(kind, v),
        (Kind::Time(unit) | Kind::TimeDesc(unit), Value::I64(n)) => {
            let nanos = i128::from(*n) * i128::from(UNITS[unit]);
            let secs = nanos.div_euclid(1_000_000_000);
            nanos % 1000 == 0 && (i128::from(YEARS.0)..=i128::from(YEARS.1)).contains(&secs)
        }
        _ => true,
    }
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
        // Beyond JSON's numbers: the digits.
        Value::U128(n) => json!({ "int128": n.to_string() }),
        Value::I128(n) => json!({ "int128": n.to_string() }),
        Value::Str(s) => json!({ "str": s }),
        Value::Char(c) => json!({ "char": u32::from(*c) }),
        Value::F32(f) => json!({ "f32": format!("{:08x}", f.to_bits()) }),
        Value::F64(f) => json!({ "f64": format!("{:016x}", f.to_bits()) }),
        Value::Bytes(b) => json!({ "bytes": hex(b) }),
        Value::Option(None) => Json::Null,
        Value::Option(Some(v)) => json_value(v),
        other => panic!("no such value in these layouts: {other:?}"),
    }
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
