//! rowkey against HBase's own Java code, on the classpath of the HBase the
//! tests start: `Bytes.toStringBinary`/`toBytesBinary`, `Bytes.toBytes` of
//! `long`/`int`/`short`, `Bytes.toBytes(Long.MAX_VALUE - ts)` and Phoenix's
//! `Math.abs(Arrays.hashCode(bytes) % buckets)` salt, each on 10,000 random
//! inputs generated here (the launcher's `interop` mode answers one request
//! per line).

use rowkey_core::hbase::{from_string_binary, to_string_binary};
use rowkey_core::prelude::*;
use rowkey_core::salt::{java_bucket, java_hash};

const CASES: usize = 10_000;

mod common;
use common::Rng;

/// Inputs for HBase's `Bytes` functions.
trait Inputs {
    fn bytes(&mut self) -> Vec<u8>;
    fn binary_text(&mut self) -> String;
}

impl Inputs for Rng {
    /// 0 to 40 bytes, half of them from a small alphabet that toStringBinary
    /// treats specially (quotes, backslash, `x`, the ends of printable ASCII).
    fn bytes(&mut self) -> Vec<u8> {
        const SPECIAL: &[u8] = b"\\x\"'`~ \x1F\x7F\x80\xFF\x00AF09az";
        let n = self.below(41) as usize;
        (0..n)
            .map(|_| {
                if self.below(2) == 0 {
                    SPECIAL[self.below(SPECIAL.len() as u64) as usize]
                } else {
                    self.next() as u8
                }
            })
            .collect()
    }

    /// A string for toBytesBinary: escapes valid and not (`\x5A`, `\x5a`,
    /// `\xZZ`, a backslash at the end), plain ASCII, some non-ASCII.
    fn binary_text(&mut self) -> String {
        const PIECES: &[&str] = &[
            "a", "Z", " ", "\\", "\\x", "\\x5A", "\\x5a", "\\xFF", "\\x00", "\\xZZ", "\\x4", "x",
            "\"", "é", "\u{7F}",
        ];
        let n = self.below(8) as usize;
        (0..n)
            .map(|_| PIECES[self.below(PIECES.len() as u64) as usize])
            .collect()
    }
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Java's answers to `requests`, one per request.
fn ask_java(requests: &[String]) -> Vec<String> {
    rowkey_hbase::testing::ask_interop(requests, "256m")
        .unwrap_or_else(|e| panic!("the interop oracle: {e}"))
}

#[derive(RowKey)]
struct DescTs {
    #[desc_ts]
    ts: i64,
}

#[derive(RowKey)]
struct Ints {
    a: u64,
    b: u32,
    c: u16,
    d: i64,
}

#[derive(RowKey)]
#[salt(buckets = 32, by(id), hash = "java")]
struct JavaSalted {
    id: u64,
    rest: u8,
}

#[test]
fn to_string_binary_and_back_equal_hbase_bytes() {
    let mut rng = Rng(0x5eed_0001);
    let inputs: Vec<Vec<u8>> = (0..CASES).map(|_| rng.bytes()).collect();
    let texts: Vec<String> = (0..CASES).map(|_| rng.binary_text()).collect();
    let mut requests: Vec<String> = inputs
        .iter()
        .map(|b| format!("to_string_binary {}", hex(b)))
        .collect();
    // HBase parses what rowkey prints, and rowkey what HBase prints.
    requests.extend(
        inputs
            .iter()
            .map(|b| format!("to_bytes_binary {}", hex(to_string_binary(b).as_bytes()))),
    );
    requests.extend(
        texts
            .iter()
            .map(|t| format!("to_bytes_binary {}", hex(t.as_bytes()))),
    );
    let answers = ask_java(&requests);
    let (printed, rest) = answers.split_at(CASES);
    let (parsed, lenient) = rest.split_at(CASES);
    for (i, b) in inputs.iter().enumerate() {
        assert_eq!(
            to_string_binary(b),
            printed[i],
            "toStringBinary of {}",
            hex(b)
        );
        assert_eq!(
            from_string_binary(&printed[i]).as_deref(),
            Ok(&b[..]),
            "toBytesBinary of {:?}",
            printed[i]
        );
        assert_eq!(
            unhex(&parsed[i]),
            *b,
            "HBase parsing rowkey's {:?}",
            to_string_binary(b)
        );
    }
    let mut refused = 0;
    for (i, t) in texts.iter().enumerate() {
        let java = &lenient[i];
        match from_string_binary(t) {
            Ok(bytes) => assert_eq!(
                Some(bytes),
                (!java.starts_with('!')).then(|| unhex(java)),
                "toBytesBinary of {t:?}: HBase says {java}"
            ),
            // The documented differences: an error where HBase guesses.
            Err(_) => {
                refused += 1;
                let guessing = !t.is_ascii()
                    || t.match_indices("\\x").any(|(at, _)| {
                        let hh = t.as_bytes().get(at + 2..at + 4);
                        !hh.is_some_and(|h| {
                            h.iter().all(|c| matches!(c, b'0'..=b'9' | b'A'..=b'F'))
                        })
                    });
                assert!(
                    guessing,
                    "rowkey refuses {t:?}, which HBase reads without guessing"
                );
            }
        }
    }
    assert!(
        refused > 0 && refused < CASES,
        "both kinds of text were drawn ({refused} refused)"
    );
}

#[test]
fn integers_and_desc_ts_equal_hbase_bytes_to_bytes() {
    let mut rng = Rng(0x5eed_0002);
    let ints: Vec<Ints> = (0..CASES)
        .map(|_| Ints {
            a: rng.next(),
            b: rng.next() as u32,
            c: rng.next() as u16,
            d: rng.next() as i64,
        })
        .collect();
    // Full range, also negative (both sides wrap) and near the ends.
    let ts: Vec<i64> = (0..CASES)
        .map(|i| match i % 4 {
            0 => rng.next() as i64,
            1 => 1_700_000_000_000 + rng.below(1 << 40) as i64,
            2 => i64::MAX - rng.below(1000) as i64,
            _ => i64::MIN + rng.below(1000) as i64,
        })
        .collect();
    let mut requests = Vec::new();
    for k in &ints {
        requests.push(format!("long {}", k.a as i64));
        requests.push(format!("int {}", k.b as i32));
        requests.push(format!("short {}", k.c as i16));
        // rowkey's signed integers: two's complement with the sign bit flipped.
        requests.push(format!("long {}", k.d ^ i64::MIN));
    }
    requests.extend(ts.iter().map(|t| format!("desc_ts {t}")));
    let answers = ask_java(&requests);
    for (i, k) in ints.iter().enumerate() {
        let java: Vec<u8> = answers[4 * i..4 * i + 4]
            .iter()
            .flat_map(|a| unhex(a))
            .collect();
        assert_eq!(
            k.encode().to_vec(),
            java,
            "u64 {}, u32 {}, u16 {}, i64 {}",
            k.a,
            k.b,
            k.c,
            k.d
        );
    }
    for (i, &t) in ts.iter().enumerate() {
        assert_eq!(
            DescTs { ts: t }.encode().to_vec(),
            unhex(&answers[4 * CASES + i]),
            "desc_ts {t}"
        );
    }
}

#[test]
fn java_salt_equals_phoenix_arrays_hash_code() {
    let mut rng = Rng(0x5eed_0003);
    let inputs: Vec<(Vec<u8>, u16)> = (0..CASES)
        .map(|_| (rng.bytes(), 1 + rng.below(256) as u16))
        .collect();
    let ids: Vec<u64> = (0..CASES).map(|_| rng.next()).collect();
    let mut requests: Vec<String> = inputs
        .iter()
        .map(|(b, n)| format!("java_salt {} {n}", hex(b)))
        .collect();
    requests.extend(
        ids.iter()
            .map(|id| format!("java_salt {} 32", hex(&id.to_be_bytes()))),
    );
    let answers = ask_java(&requests);
    for (i, (b, n)) in inputs.iter().enumerate() {
        let rowkey = java_bucket(java_hash(b), *n);
        assert_eq!(
            rowkey.to_string(),
            answers[i],
            "salt of {} in {n} buckets",
            hex(b)
        );
    }
    // The derive's salt byte: Java's over the salted field's bytes.
    for (i, &id) in ids.iter().enumerate() {
        let key = JavaSalted { id, rest: 0 }.encode();
        assert_eq!(
            key[0].to_string(),
            answers[CASES + i],
            "salt byte of id {id}"
        );
    }
}
