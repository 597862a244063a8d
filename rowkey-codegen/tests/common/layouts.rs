//! The binding tester's random layouts: binary, text and ordered-code
//! keys of every field kind and attribute the generators write, and one
//! ordered-code layout whose keys are spelled every way.

use std::fmt::Write as _;

use rowkey_core::DynLayout;

use super::{Kind, Rng};

/// The units as a layout's text names them.
const UNIT_NAMES: [&str; 4] = ["secs", "millis", "micros", "nanos"];

/// The IP address types, by `Kind::Ip`'s index.
const IP_TYPES: [&str; 3] = ["Ipv4Addr", "Ipv6Addr", "IpAddr"];

/// A random text layout (`text("S")`): integers in digits, `desc`,
/// `desc_ts` with a `max`, delimited, padded and raw strings, a prefix and
/// every salt.
pub(super) fn random_text_layout(rng: &mut Rng) -> (String, Vec<(Kind, bool, bool, bool)>) {
    let sep = ["_", "#", "~~"][rng.below(3) as usize];
    let n = 1 + rng.below(5) as usize;
    let names = field_names(rng, n + 2);
    let mut fields = Vec::new();
    let mut field_text = String::new();
    for (i, name) in names[..n].iter().enumerate() {
        let last = i + 1 == n;
        let bits = [8u32, 16, 32, 64, 128][rng.below(5) as usize];
        let type_digits = |signed: bool| -> u32 {
            let max: u128 = match (signed, bits) {
                (true, _) => (1 << (bits - 1)) - 1,
                (false, 128) => u128::MAX,
                (false, _) => (1 << bits) - 1,
            };
            max.to_string().len() as u32
        };
        let (kind, text, desc, desc_ts) = match rng.below(10) {
            9 => {
                let which = rng.below(3) as usize;
                let reverse = if rng.chance(4) { " reverse" } else { "" };
                (
                    Kind::Ip(which),
                    format!("{reverse} {}", IP_TYPES[which]),
                    false,
                    false,
                )
            }
            8 => {
                // A field enum: its discriminant's digits at its repr's
                // width (or wider), a sign character when signed.
                let signed = rng.chance(2);
                let d = if signed { [-3, 0, 7] } else { [0, 1, 200] };
                // No 128-bit field enums (no Go integer type holds one).
                let bits = bits.min(64);
                let type_digits = |signed: bool| -> u32 {
                    let max: u128 = if signed {
                        (1 << (bits - 1)) - 1
                    } else {
                        (1 << bits) - 1
                    };
                    max.to_string().len() as u32
                };
                let repr = format!("{}{bits}", if signed { 'i' } else { 'u' });
                let digits = if rng.chance(3) {
                    format!(" digits({})", type_digits(signed) + 1)
                } else {
                    String::new()
                };
                (
                    Kind::Enum(bits, signed, d),
                    format!(
                        "{digits} Kind{i}x{}({repr}: {})",
                        rng.next() % 1_000_000_000,
                        variants(rng, d)
                    ),
                    false,
                    false,
                )
            }
            6 if rng.chance(2) => (Kind::Ulid, " Ulid".to_owned(), false, false),
            6 => (Kind::Uuid, " Uuid".to_owned(), false, false),
            7 => {
                let unit = rng.below(4) as usize;
                let ty = format!(" ts({}) Timestamp", UNIT_NAMES[unit]);
                if rng.chance(2) {
                    (Kind::Time(unit), ty, false, false)
                } else {
                    (Kind::TimeDesc(unit), format!(" desc_ts{ty}"), false, true)
                }
            }
            0 | 1 => {
                let signed = rng.chance(2);
                // At most 39 digits, the most a layout takes.
                let digits = (1 + rng.below(u64::from(type_digits(signed)) + 1) as u32).min(39);
                let desc = !signed && rng.chance(3);
                let ty = format!("{}{bits}", if signed { 'i' } else { 'u' });
                let d = match (desc, !signed && rng.chance(4)) {
                    (true, true) => " reverse desc",
                    (true, false) => " desc",
                    (false, true) => " reverse",
                    (false, false) => "",
                };
                (
                    Kind::Digits(bits, signed, digits),
                    format!("{d} digits({digits}) {ty}"),
                    desc,
                    false,
                )
            }
            2 => {
                let bits = [32u32, 64][rng.below(2) as usize];
                let signed = rng.chance(2);
                let top: u64 = if bits == 32 {
                    i32::MAX as u64
                } else {
                    i64::MAX as u64
                };
                let max = match rng.below(3) {
                    0 => top,
                    _ => 1 + rng.next() % top,
                };
                let digits = max.to_string().len() as u32 + rng.below(2) as u32;
                let ty = format!("{}{bits}", if signed { 'i' } else { 'u' });
                (
                    Kind::TsDigits(bits, signed, max),
                    format!(" desc_ts(max = {max}) digits({digits}) {ty}"),
                    false,
                    true,
                )
            }
            3 => {
                let (len, pad) = (
                    1 + rng.below(5) as usize,
                    [b' ', b'.'][rng.below(2) as usize],
                );
                (
                    Kind::Fixed(len, pad),
                    format!(
                        "{} fixed({len}, pad = '{}') String",
                        domain(rng),
                        pad as char
                    ),
                    false,
                    false,
                )
            }
            _ if last => (Kind::Str, format!("{} String", domain(rng)), false, false),
            _ => (Kind::Delim, format!("{} String", domain(rng)), false, false),
        };
        let _ = write!(field_text, "[{}{text}]", name);
        fields.push((kind, false, desc_ts, desc));
    }
    let mut text = format!("text({sep:?}) ");
    if rng.chance(3) {
        text.push_str(r#"[prefix "e"]"#);
    }
    match rng.below(4) {
        1 => text.push_str("[salt/8]"),
        2 => {
            let _ = write!(text, "[salt({})/5 java]", names[n - 1]);
        }
        3 => {
            if let Some(i) = fields
                .iter()
                .position(|&(k, _, _, d)| matches!(k, Kind::Digits(_, false, _)) && !d)
            {
                let _ = write!(text, "[salt({})/12 mod]", names[i]);
            } else {
                let _ = write!(text, "[salt({})/16]", names[0]);
            }
        }
        _ => {}
    }
    text.push_str(&field_text);
    (text, fields)
}

/// A random ordered-code layout (Bigtable's `OrderedCodeBytes` struct):
/// `Int64`s (`i8`..`i64`, `u8`..`u32`), strings and bytes, ascending or
/// `desc`, a prefix and every salt (at most 64 buckets), where the layout
/// takes them (a prefix or salt needs a field every key writes).
pub(super) fn random_oc_layout(rng: &mut Rng) -> (String, Vec<(Kind, bool, bool, bool)>) {
    let n = 1 + rng.below(4) as usize;
    let names = field_names(rng, n + 2);
    let mut fields = Vec::new();
    let mut field_text = String::new();
    for name in &names[..n] {
        let desc = rng.chance(3);
        let (kind, ty) = match rng.below(5) {
            0 => (Kind::Str, "String".to_owned()),
            1 => (Kind::Bytes, "Vec<u8>".to_owned()),
            _ => {
                let (bits, signed) = [
                    (8, true),
                    (16, true),
                    (32, true),
                    (64, true),
                    (8, false),
                    (16, false),
                    (32, false),
                ][rng.below(7) as usize];
                (
                    Kind::Int(bits, signed),
                    format!("{}{bits}", if signed { 'i' } else { 'u' }),
                )
            }
        };
        let d = if desc { " desc" } else { "" };
        let _ = write!(field_text, "[{}{d} {ty}]", name);
        fields.push((kind, false, false, desc));
    }
    let mut head = String::new();
    if rng.chance(3) {
        head.push_str(r#"[prefix "t\x00\xFF\x00\x01"]"#);
    }
    match rng.below(4) {
        1 => head.push_str("[salt/8]"),
        2 => {
            let _ = write!(head, "[salt({})/5 java]", names[n - 1]);
        }
        3 => match fields
            .iter()
            .position(|&(k, _, _, d)| matches!(k, Kind::Int(_, false)) && !d)
        {
            Some(i) => {
                let _ = write!(head, "[salt({})/7 mod]", names[i]);
            }
            None => {
                let _ = write!(head, "[salt({})/64]", names[0]);
            }
        },
        _ => {}
    }
    let text = format!("ordered_code {head}{field_text}");
    if DynLayout::parse(&text).is_ok() {
        (text, fields)
    } else {
        // Only ascending strings: no prefix or salt.
        (format!("ordered_code {field_text}"), fields)
    }
}

/// The layout whose keys [`crafted_oc_keys`] spells.
pub(super) fn crafted_oc_layout() -> (String, Vec<(Kind, bool, bool, bool)>) {
    (
        "ordered_code [f0 i64][f1 desc i32][f2 String]".to_owned(),
        vec![
            (Kind::Int(64, true), false, false, false),
            (Kind::Int(32, true), false, false, true),
            (Kind::Str, false, false, false),
        ],
    )
}

/// Keys of [`crafted_oc_layout`] that random mutations seldom make: each
/// field spelled right and wrong (an `Int64` longer than it needs, at its
/// limits, empty; a descending one inverted or not; a string empty,
/// written out when it may be left out, holding `00` or `FF`, cut short),
/// every combination, each decoded or refused as Rust does.
pub(super) fn crafted_oc_keys() -> Vec<Vec<u8>> {
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let f0 = [
        "810001",
        "c0010001",
        "800001",
        "7f0001",
        "ffc07fffffffffffffff0001",
        "003f80000000000000000001",
        "c0400001",
        "e000400001",
        "00000001",
        "0001",
        "81",
    ];
    // Desc: inverted `85 00 01` (5), `C0 05 00 01` (5, too long), `00 00`.
    let f1 = ["7afffe", "3ffafffe", "fffffffe", "850001", ""];
    let f2 = [
        "616263", "", "00000001", "0000", "0001", "6100ff62", "61ff", "610001",
    ];
    let mut out = Vec::new();
    for a in f0 {
        for b in f1 {
            for c in f2 {
                out.push(unhex(&format!("{a}{b}{c}")));
            }
        }
    }
    out
}

/// A text key string's `#[reverse_domain]`, once in five.
fn domain(rng: &mut Rng) -> &'static str {
    if rng.chance(5) {
        " reverse_domain"
    } else {
        ""
    }
}

/// A random layout: its text, and a generator of its values.
pub(super) fn random_layout(rng: &mut Rng) -> (String, Vec<(Kind, bool, bool, bool)>) {
    let n = 1 + rng.below(5) as usize;
    let names = field_names(rng, n + 2);
    let mut text = String::new();
    if rng.chance(3) {
        text.push_str(r#"[prefix "e\x00"]"#);
    }
    let mut fields = Vec::new();
    let mut field_text = String::new();
    for (i, name) in names[..n].iter().enumerate() {
        let desc = rng.chance(3);
        let option = rng.chance(4);
        let (kind, ty) = match rng.below(15) {
            // A type the runtime does not know, given its width.
            14 if rng.chance(3) => {
                let len = 1 + rng.below(6) as usize;
                (Kind::Opaque(len), format!("Sku{i} {len}"))
            }
            14 => {
                let which = rng.below(3) as usize;
                (Kind::Ip(which), IP_TYPES[which].to_owned())
            }
            12 if rng.chance(2) => (Kind::Ulid, "Ulid".to_owned()),
            12 => (Kind::Uuid, "Uuid".to_owned()),
            13 => {
                let unit = rng.below(4) as usize;
                (
                    Kind::Time(unit),
                    format!("ts({}) Timestamp", UNIT_NAMES[unit]),
                )
            }
            11 => {
                let bits = [8u32, 16, 32, 64][rng.below(4) as usize];
                let signed = rng.chance(2);
                let d = if signed { [-3, 0, 7] } else { [0, 1, 200] };
                let repr = format!("{}{bits}", if signed { 'i' } else { 'u' });
                (
                    Kind::Enum(bits, signed, d),
                    // A name of its own: Go puts every layout's types in one package.
                    format!(
                        "Kind{i}x{}({repr}: {})",
                        rng.next() % 1_000_000_000,
                        variants(rng, d)
                    ),
                )
            }
            9 => (Kind::Char, "char".to_owned()),
            10 => {
                let bits = [32u32, 64][rng.below(2) as usize];
                (Kind::Float(bits), format!("f{bits}"))
            }
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
                let bits = [8u32, 16, 32, 64, 128][rng.below(5) as usize];
                let signed = rng.chance(2);
                (
                    Kind::Int(bits, signed),
                    format!("{}{bits}", if signed { 'i' } else { 'u' }),
                )
            }
        };
        // (No Option of a type the runtime does not know.)
        let option = option && !matches!(kind, Kind::Opaque(_));
        let desc_ts =
            matches!(kind, Kind::Int(32 | 64, _) | Kind::Time(_)) && !desc && rng.chance(3);
        // `#[reverse]` on any value but a bool, `#[reverse_domain]` on
        // strings and bytes (not with desc_ts).
        let reverse = if desc_ts || matches!(kind, Kind::Bool) || !rng.chance(6) {
            ""
        } else if matches!(kind, Kind::Str | Kind::Bytes | Kind::Fixed(..)) && rng.chance(2) {
            " reverse_domain"
        } else {
            " reverse"
        };
        let attrs = if desc_ts {
            " desc_ts".to_owned()
        } else if desc {
            format!("{reverse} desc")
        } else {
            reverse.to_owned()
        };
        let ty = if option && matches!(kind, Kind::Enum(..)) {
            // `Option<Kind>(u8: ...)`: the variants after the Option.
            let (name, rest) = ty.split_once('(').unwrap();
            format!("Option<{name}>({rest}")
        } else if option && matches!(kind, Kind::Time(_)) {
            ty.replacen("Timestamp", "Option<Timestamp>", 1)
        } else if option && !matches!(kind, Kind::Fixed(..)) {
            format!("Option<{ty}>")
        } else if option {
            // `Option<fixed(n) String>` is written with the attribute first.
            ty.replacen("String", "Option<String>", 1)
        } else {
            ty
        };
        let _ = write!(field_text, "[{}{attrs} {ty}]", name);
        fields.push((kind, option, desc_ts, desc));
    }
    match rng.below(4) {
        1 => text.push_str("[salt/8]"),
        2 => {
            let _ = write!(text, "[salt({})/5 java]", names[n - 1]);
        }
        3 => {
            // `mod` needs an unsigned integer, not an Option.
            if let Some(i) = fields
                .iter()
                .position(|&(k, o, ts, d)| matches!(k, Kind::Int(_, false)) && !o && !ts && !d)
            {
                let _ = write!(text, "[salt({})/7 mod]", names[i]);
            } else {
                let _ = write!(text, "[salt({})/16]", names[0]);
            }
        }
        _ => {}
    }
    // Added fields at the end, once in four (`Option`s, stored as no bytes
    // while they are None at the end), where the layout takes them (not
    // after a string raw to the end).
    if rng.chance(4) {
        let mut added = String::new();
        let mut kinds = Vec::new();
        for j in 0..1 + rng.below(2) as usize {
            let (kind, ty) = [
                (Kind::Int(16, false), "u16"),
                (Kind::Str, "String"),
                (Kind::Uuid, "Uuid"),
                (Kind::Int(8, true), "i8"),
            ][rng.below(4) as usize];
            let desc = rng.chance(3);
            let d = if desc { " desc" } else { "" };
            let _ = write!(added, "[{} added{d} Option<{ty}>]", names[n + j]);
            kinds.push((kind, true, false, desc));
        }
        if DynLayout::parse(&format!("{text}{field_text}{added}")).is_ok() {
            field_text.push_str(&added);
            fields.extend(kinds);
        }
    }
    text.push_str(&field_text);
    (text, fields)
}

/// Names a field may take that some language's code cannot write as they
/// are (a keyword, a literal, a name the generated code takes): each is
/// renamed with a trailing `_` where it must be.
const AWKWARD_NAMES: [&str; 16] = [
    "class",
    "from",
    "default",
    "new",
    "package",
    "global",
    "lambda",
    "pos",
    "key",
    "bucket",
    "encode",
    "hash_code",
    "type",
    "func",
    "start",
    "var",
];

/// The names of a layout's `n` fields: `f{i}`, or once in three an awkward
/// name (each at most once).
fn field_names(rng: &mut Rng, n: usize) -> Vec<String> {
    let first = rng.below(AWKWARD_NAMES.len() as u64) as usize;
    (0..n)
        .map(|i| {
            if rng.chance(3) {
                AWKWARD_NAMES[(first + i) % AWKWARD_NAMES.len()].to_owned()
            } else {
                format!("f{i}")
            }
        })
        .collect()
}

/// A field enum's variants of discriminants `d`: `A`, `B`, `C`, or once in
/// three names some language renames (a keyword, a literal).
fn variants(rng: &mut Rng, d: [i64; 3]) -> String {
    let names = if rng.chance(3) {
        ["None", "default", "True"]
    } else {
        ["A", "B", "C"]
    };
    format!(
        "{} = {}, {} = {}, {} = {}",
        names[0], d[0], names[1], d[1], names[2], d[2]
    )
}
