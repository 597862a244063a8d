//! A Go key's file: its struct, `Encode`, `Decode<Name>`, `Bucket`, split
//! points and scans, and each field's encoding.

use std::fmt::Write as _;

use rowkey_core::layout::{Encoding, SaltHashKind};

use super::names::{
    go_bytes, inner_type, param, scan_function, scan_params, value_type, with_header,
};
use super::ordered_code::{oc_drop, oc_field_functions};
use crate::plan::{FieldPlan, KeyPlan, Reversal, SaltPlan, Scalar};

/// The key's file.
pub fn file(plan: &KeyPlan, name: &str, package: &str) -> String {
    let mut go = String::new();
    let lower = {
        let mut c = name.chars();
        c.next()
            .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
            .unwrap_or_default()
    };
    let buckets = plan.salt.as_ref().map_or(0, |s| s.buckets);
    let _ = write!(
        go,
        "// {name}Layout is the layout {name} was generated from.\nconst {name}Layout = {:?}\n\n// {name}LayoutID is the layout's fingerprint.\nconst {name}LayoutID uint64 = {:#018x}\n\n// {name}Buckets is the number of salt buckets (0: no salt).\nconst {name}Buckets = {buckets}\n\nvar {lower}Prefix = []byte({})\n\nvar {lower}Spec = rkSpec{{prefix: {lower}Prefix, sep: []byte({}), buckets: {buckets}, digits: {}, oc: {}}}\n\n",
        plan.layout_text,
        plan.layout_id,
        go_bytes(&plan.prefix),
        go_bytes(&plan.sep),
        plan.salt.as_ref().map_or(0, |s| s.digits),
        plan.ordered_code && plan.salt.is_some(),
    );
    let _ = writeln!(
        go,
        "// {name} is a key of {name}Layout.\ntype {name} struct {{"
    );
    for f in &plan.fields {
        let _ = writeln!(go, "\t{} {}", f.ident, value_type(f));
    }
    go.push_str("}\n");
    for (i, f) in plan.fields.iter().enumerate() {
        if plan.ordered_code {
            oc_field_functions(&mut go, name, &lower, i, f, plan.oc_reads_to_end(i));
        } else {
            field_functions(&mut go, name, &lower, i, f);
        }
    }
    // fields, Encode, Bucket
    let _ = writeln!(
        go,
        "\nfunc (k {name}) fields() ([][]byte, error) {{\n\tout := make([][]byte, {})",
        plan.fields.len()
    );
    for (i, f) in plan.fields.iter().enumerate() {
        let _ = writeln!(
            go,
            "\tif b, err := {lower}Enc{i}(k.{}); err != nil {{\n\t\treturn nil, err\n\t}} else {{\n\t\tout[{i}] = b\n\t}}",
            f.ident
        );
    }
    let added: Vec<String> = plan
        .fields
        .iter()
        .rev()
        .filter(|f| f.added)
        .map(|f| format!("k.{} == nil", f.ident))
        .collect();
    if added.is_empty() {
        go.push_str("\treturn out, nil\n}\n");
    } else {
        // Trailing added fields that are None are no bytes.
        let _ = write!(
            go,
            "\tn := len(out)\n\tfor _, none := range []bool{{{}}} {{\n\t\tif !none {{\n\t\t\tbreak\n\t\t}}\n\t\tn--\n\t}}\n\treturn out[:n], nil\n}}\n",
            added.join(", ")
        );
    }
    // An ordered-code key: its values' own bytes (what the salt hashes),
    // and which fields it leaves out when they end it.
    if plan.ordered_code {
        let parts: Vec<String> = (0..plan.fields.len())
            .map(|i| format!("{lower}Part{i}(k.{})", plan.fields[i].ident))
            .collect();
        let drops: Vec<String> = plan
            .fields
            .iter()
            .map(|f| oc_drop(f, &format!("k.{}", f.ident)))
            .collect();
        let _ = write!(
            go,
            "\nfunc (k {name}) parts() [][]byte {{\n\treturn [][]byte{{{}}}\n}}\n\nfunc (k {name}) droppable() []bool {{\n\treturn []bool{{{}}}\n}}\n",
            parts.join(", "),
            drops.join(", ")
        );
    }
    // (A `mod` salt takes its field's value, not its bytes.)
    let hashes_parts = plan
        .salt
        .as_ref()
        .is_some_and(|s| s.hash != SaltHashKind::Mod);
    let (hashed, parts_line, join) = if plan.ordered_code {
        let line = if hashes_parts {
            "\tp := k.parts()\n"
        } else {
            ""
        };
        ("p", line, "rkOcJoin(f, k.droppable())".to_owned())
    } else {
        ("f", "", format!("{lower}Spec.join(f)"))
    };
    let bucket_expr = |fields: &str, value: &str| -> String {
        plan.salt.as_ref().map_or_else(
            || "-1".to_owned(),
            |s| bucket_of(s, lower.as_str(), fields, value, plan.mod_over_128()),
        )
    };
    let mod_value = plan
        .salt
        .as_ref()
        .map(|s| format!("k.{}", plan.fields[s.by[0]].ident))
        .unwrap_or_default();
    let _ = write!(
        go,
        "\n// Encode returns the key's bytes, or an error naming the field whose\n// value cannot be stored.\nfunc (k {name}) Encode() ([]byte, error) {{\n\tf, err := k.fields()\n\tif err != nil {{\n\t\treturn nil, err\n\t}}\n"
    );
    if plan.salt.is_some() {
        let _ = write!(
            go,
            "{parts_line}\treturn rkCat({lower}Spec.head({}), {join}), nil\n}}\n",
            bucket_expr(hashed, &mod_value)
        );
    } else {
        let _ = writeln!(go, "\treturn rkCat({lower}Prefix, {join}), nil\n}}");
    }
    let _ = write!(
        go,
        "\n// Bucket returns the key's salt bucket, -1 when the layout has no salt.\nfunc (k {name}) Bucket() (int, error) {{\n\tf, err := k.fields()\n\tif err != nil {{\n\t\treturn 0, err\n\t}}\n\t_ = f\n{}\treturn {}, nil\n}}\n",
        if plan.salt.is_some() { parts_line } else { "" },
        bucket_expr(hashed, &mod_value)
    );
    // Decode
    let _ = write!(
        go,
        "\n// Decode{name} returns the key of b, or an error naming the field where\n// b is not one.\nfunc Decode{name}(b []byte) ({name}, error) {{\n\tvar k {name}\n\tif len(b) < len({lower}Prefix) || string(b[:len({lower}Prefix)]) != string({lower}Prefix) {{\n\t\treturn k, fmt.Errorf(\"{name}: the key does not start with the prefix %q\", {lower}Prefix)\n\t}}\n\tpos := len({lower}Prefix)\n"
    );
    if plan.salt.is_some() {
        let _ = write!(
            go,
            "\tif p, err := {lower}Spec.unhead(b, pos, \"{name} salt\"); err != nil {{\n\t\treturn k, err\n\t}} else {{\n\t\tpos = p\n\t}}\n"
        );
    }
    for (i, f) in plan.fields.iter().enumerate() {
        if f.added {
            // The key may end before an added field: it is nil.
            let _ = write!(
                go,
                "\tif pos < len(b) {{\n\t\tv, p, err := {lower}Dec{i}(b, pos)\n\t\tif err != nil {{\n\t\t\treturn k, err\n\t\t}}\n\t\tif v == nil && p == len(b) {{\n\t\t\treturn k, fmt.Errorf(\"{name}.{}: a trailing added None is stored as no bytes, not as a None tag\")\n\t\t}}\n\t\tk.{}, pos = v, p\n\t}}\n",
                f.name,
                f.ident
            );
            continue;
        }
        let _ = write!(
            go,
            "\tif v, p, err := {lower}Dec{i}(b, pos); err != nil {{\n\t\treturn k, err\n\t}} else {{\n\t\tk.{}, pos = v, p\n\t}}\n",
            f.ident
        );
    }
    let _ = write!(
        go,
        "\tif pos != len(b) {{\n\t\treturn k, fmt.Errorf(\"{name}: %d bytes after the last field\", len(b)-pos)\n\t}}\n"
    );
    if plan.ordered_code {
        // The key of its values, spelled the one way they encode (its
        // salt bucket checked below the buckets only, as in every format).
        let last = &plan.fields[plan.fields.len() - 1].name;
        let _ = writeln!(
            go,
            "\tif e, err := k.Encode(); err != nil || len(e) != len(b) {{\n\t\treturn k, fmt.Errorf(\"{name}.{last}: not the canonical OrderedCodeBytes key of its values: a trailing empty field or terminator is written out\")\n\t}}"
        );
    }
    go.push_str("\treturn k, nil\n}\n");
    // Split points
    let _ = write!(
        go,
        "\n// {name}SplitPoints returns where to pre-split a table of these keys: one\n// region per salt bucket.\nfunc {name}SplitPoints() [][]byte {{\n\treturn {lower}Spec.splitPoints()\n}}\n"
    );
    scans(&mut go, plan, name, &lower);
    with_header(&plan.layout_text, package, &go)
}

/// `{name}ScanAll`, `{name}ScanBy*` and `{name}RangeBy*`.
fn scans(go: &mut String, plan: &KeyPlan, name: &str, lower: &str) {
    let n = plan.fields.len();
    for scan in plan.scans() {
        let k = scan.lead;
        let method = scan_function(plan, &scan, name);
        let (params, _) = scan_params(plan, &scan);
        let hashed = if plan.ordered_code { "p" } else { "f" };
        let bucket = match &plan.salt {
            Some(s) if scan.one_bucket => bucket_of(
                s,
                lower,
                hashed,
                &param(&plan.fields[s.by[0]].name),
                plan.mod_over_128(),
            ),
            _ => "-1".to_owned(),
        };
        // An ordered-code key: the leading values' own bytes (what the salt
        // hashes), and where the lowest key with them ends.
        let oc = plan.ordered_code;
        let lead_fields = &plan.fields[..k];
        let drops: Vec<String> = lead_fields
            .iter()
            .map(|f| oc_drop(f, &param(&f.name)))
            .collect();
        let descs: Vec<String> = lead_fields.iter().map(|f| f.desc().to_string()).collect();
        let cut = format!(
            "rkOcCut(f, []bool{{{}}}, []bool{{{}}})",
            drops.join(", "),
            descs.join(", ")
        );
        if scan.range {
            let _ = write!(
                go,
                "\n// {method} returns the rows whose leading fields are these values and\n// whose {} is between start and stop (nil: unbounded), in value order.\nfunc {method}({params}) ([][2][]byte, error) {{\n",
                plan.fields[k].name,
            );
        } else {
            let _ = write!(
                go,
                "\n// {method} returns the rows whose leading fields are these values:\n// [start, stop) per salt bucket read (a nil stop: to the end).\nfunc {method}({params}) ([][2][]byte, error) {{\n",
            );
        }
        let _ = writeln!(go, "\tf := make([][]byte, {k})");
        for (i, f) in plan.fields[..k].iter().enumerate() {
            let _ = writeln!(
                go,
                "\tif b, err := {lower}Enc{i}({}); err != nil {{\n\t\treturn nil, err\n\t}} else {{\n\t\tf[{i}] = b\n\t}}",
                param(&f.name)
            );
        }
        if oc
            && scan.one_bucket
            && plan
                .salt
                .as_ref()
                .is_some_and(|s| s.hash != SaltHashKind::Mod)
        {
            let parts: Vec<String> = lead_fields
                .iter()
                .enumerate()
                .map(|(i, f)| format!("{lower}Part{i}({})", param(&f.name)))
                .collect();
            let _ = writeln!(go, "\tp := [][]byte{{{}}}", parts.join(", "));
        }
        if !scan.range {
            if oc {
                let _ = writeln!(
                    go,
                    "\treturn rkEqRangesCut({lower}Spec.heads({bucket}), {lower}Spec.lead(f, {n}), {exact}, {cut}), nil\n}}",
                    exact = scan.exact,
                );
            } else {
                let _ = writeln!(
                    go,
                    "\treturn rkEqRanges({lower}Spec.heads({bucket}), {lower}Spec.lead(f, {n}), {exact}), nil\n}}",
                    exact = scan.exact,
                );
            }
            continue;
        }
        let _ = write!(
            go,
            "\tvar lo, hi []byte\n\tif start != nil {{\n\t\tb, err := {lower}Enc{k}(*start)\n\t\tif err != nil {{\n\t\t\treturn nil, err\n\t\t}}\n\t\tlo = b\n\t}}\n\tif stop != nil {{\n\t\tb, err := {lower}Enc{k}(*stop)\n\t\tif err != nil {{\n\t\t\treturn nil, err\n\t\t}}\n\t\thi = b\n\t}}\n",
        );
        if oc {
            let next = &plan.fields[k];
            let bound_drop = |b: &str| {
                if next.oc_droppable() {
                    format!("{b} != nil && len(*{b}) == 0")
                } else {
                    "false".to_owned()
                }
            };
            let _ = write!(
                go,
                "\tcuts := [3]int{{{cut}, -1, -1}}\n\tfor i, b := range [][]byte{{lo, hi}} {{\n\t\tif b != nil {{\n\t\t\tcuts[i+1] = rkOcCut(append(append([][]byte{{}}, f...), b), []bool{{{}}}, []bool{{{}}})\n\t\t}}\n\t}}\n\treturn rkRangeRangesCut({lower}Spec.heads({bucket}), {lower}Spec.lead(f, {n}), lo, hi, startInclusive, stopInclusive, {desc}, {raw}, cuts), nil\n}}\n",
                drops
                    .iter()
                    .cloned()
                    .chain([format!("[]bool{{{}, {}}}[i]", bound_drop("start"), bound_drop("stop"))])
                    .collect::<Vec<_>>()
                    .join(", "),
                descs
                    .iter()
                    .cloned()
                    .chain([next.desc().to_string()])
                    .collect::<Vec<_>>()
                    .join(", "),
                desc = scan.desc,
                raw = scan.raw,
            );
        } else {
            let _ = write!(
                go,
                "\treturn rkRangeRanges({lower}Spec.heads({bucket}), {lower}Spec.lead(f, {n}), lo, hi, startInclusive, stopInclusive, {desc}, {raw}), nil\n}}\n",
                desc = scan.desc,
                raw = scan.raw,
            );
        }
    }
}

/// The bucket of a salted key as a Go expression: the hash of the `by`
/// fields' encodings in `fields` (joined by the separator), or (`mod`)
/// `value`, the one `by` field's value, modulo the buckets.
fn bucket_of(s: &SaltPlan, lower: &str, fields: &str, value: &str, wide: bool) -> String {
    let by: Vec<String> = s.by.iter().map(|i| format!("{fields}[{i}]")).collect();
    match s.hash {
        SaltHashKind::Xxh3 => format!(
            "int(xxh3.Hash({lower}Spec.join([][]byte{{{}}})) % {})",
            by.join(", "),
            s.buckets
        ),
        SaltHashKind::Java => format!(
            "rkJavaBucket({lower}Spec.join([][]byte{{{}}}), {})",
            by.join(", "),
            s.buckets
        ),
        // The plan refuses other hashes; `mod` takes one field's value (a
        // `Uint128`'s through big.Int).
        _ if wide => format!(
            "int(new(big.Int).Mod({value}.Big(), big.NewInt({})).Int64())",
            s.buckets
        ),
        _ => format!("int(uint64({value}) % {})", s.buckets),
    }
}

/// `x` through the field's reversal, if it has one.
fn reversed(f: &FieldPlan, x: &str) -> String {
    match f.reversal() {
        Some(Reversal::Bytes) => format!("rkRev({x})"),
        Some(Reversal::Labels) => format!("rkDomain({x})"),
        None => x.to_owned(),
    }
}

/// `{lower}Enc{i}(v) ([]byte, error)` and `{lower}Dec{i}(key, pos)`.
pub(super) fn field_functions(go: &mut String, name: &str, lower: &str, i: usize, f: &FieldPlan) {
    let label = format!("{name}.{}", f.name);
    let ty = value_type(f);
    // A timestamp is the int64 of its unit in between.
    let inner = if f.time.is_some() {
        "int64".to_owned()
    } else {
        inner_type(f)
    };
    let width = f.value_width();
    let desc = f.desc();
    let desc_ts = f.encoding == Encoding::DescTs;
    // The plain value's bytes from `v` (type `inner`), as `b, err :=`.
    let enc_value = |v: &str| -> String {
        let check = match (&f.key_enum, f.time) {
            (Some(e), _) => format!(
                "if !{v}.valid() {{\n\t\treturn nil, fmt.Errorf(\"{label}: %d is not the discriminant of a variant of {}\", {v})\n\t}}\n\t",
                e.name
            ),
            (None, Some(unit)) => format!(
                "n, err := rkFromTime({v}, {}, \"{label}\")\n\tif err != nil {{\n\t\treturn nil, err\n\t}}\n\t",
                unit.nanos()
            ),
            (None, None) => String::new(),
        };
        let v = if f.time.is_some() { "n" } else { v };
        let raw = reversed(f, &format!("[]byte({v})"));
        check
            + &match (f.encoding, f.scalar) {
                (
                    Encoding::Digits {
                        digits,
                        signed: false,
                        desc,
                    },
                    Scalar::Int { bits: 128, .. },
                ) => {
                    format!("b, err := rkUdig128({v}, {digits}, {desc}, \"{label}\")")
                }
                (Encoding::Digits { digits, .. }, Scalar::Int { bits: 128, .. }) => {
                    format!("b, err := rkSdig128({v}, {digits}, \"{label}\")")
                }
                (
                    _,
                    Scalar::Int {
                        bits: 128,
                        signed: false,
                    },
                ) => {
                    format!("b, err := rkBE128({v}.Hi, {v}.Lo), error(nil)")
                }
                (
                    _,
                    Scalar::Int {
                        bits: 128,
                        signed: true,
                    },
                ) => {
                    format!("b, err := rkBE128(uint64({v}.Hi)^(1<<63), {v}.Lo), error(nil)")
                }
                (
                    Encoding::Digits {
                        digits,
                        signed: false,
                        desc,
                    },
                    _,
                ) => {
                    format!("b, err := rkUdig(uint64({v}), {digits}, {desc}, \"{label}\")")
                }
                (Encoding::Digits { digits, .. }, _) => {
                    format!("b, err := rkSdig(int64({v}), {digits}, \"{label}\")")
                }
                (Encoding::DescTsDigits { digits, max }, Scalar::Int { signed, .. }) => {
                    let neg = if signed {
                        format!("{v} < 0")
                    } else {
                        "false".to_owned()
                    };
                    format!("b, err := rkTsdig({neg}, uint64({v}), {digits}, {max}, \"{label}\")")
                }
                (Encoding::Delimited, _) => {
                    format!("b, err := rkDelim({raw}, {lower}Spec.sep, \"{label}\")")
                }
                (Encoding::DescTs, Scalar::Int { bits, signed }) => {
                    let max = if bits == 64 {
                        "math.MaxInt64"
                    } else {
                        "math.MaxInt32"
                    };
                    if signed {
                        format!(
                            "b, err := rkBE(uint64(uint{bits}({max}-{v})), {}), error(nil)",
                            bits / 8
                        )
                    } else {
                        format!(
                        "if {v} > {max} {{\n\t\treturn nil, fmt.Errorf(\"{label}: %d is above %d: out of range for a descending timestamp\", {v}, {max})\n\t}}\n\tb, err := rkBE(uint64({max}-{v}), {}), error(nil)",
                        bits / 8
                    )
                    }
                }
                (Encoding::TextForm, Scalar::Ulid) => {
                    format!("b, err := rkULIDText({v}), error(nil)")
                }
                (Encoding::TextForm, Scalar::Ipv4) => {
                    format!("b, err := rkIPv4Text({v}, \"{label}\")")
                }
                (Encoding::TextForm, Scalar::Ipv6) => {
                    format!("b, err := rkIPv6Text({v}, \"{label}\")")
                }
                (Encoding::TextForm, Scalar::Ip) => format!("b, err := rkIPText({v}, \"{label}\")"),
                (_, Scalar::Ipv4) => format!("b, err := rkIPv4({v}, \"{label}\")"),
                (_, Scalar::Ipv6) => format!("b, err := rkIPv6({v}, \"{label}\")"),
                (_, Scalar::Ip) => format!("b, err := rkIP({v}, \"{label}\")"),
                (Encoding::TextForm, _) => format!("b, err := rkUUIDText({v}), error(nil)"),
                (_, Scalar::Uuid | Scalar::Ulid | Scalar::Opaque { .. }) => {
                    format!("b, err := append([]byte{{}}, {v}[:]...), error(nil)")
                }
                (_, Scalar::Bool) => {
                    format!("b, err := []byte{{0}}, error(nil)\n\tif {v} {{\n\t\tb[0] = 1\n\t}}")
                }
                (_, Scalar::Char) => format!("b, err := rkChar({v}, \"{label}\")"),
                (_, Scalar::Float { bits }) => format!("b, err := rkFloat{bits}({v}), error(nil)"),
                (_, Scalar::Int { bits, signed: true }) => {
                    format!(
                        "b, err := rkBE(uint64({v})^(1<<{}), {}), error(nil)",
                        bits - 1,
                        bits / 8
                    )
                }
                (_, Scalar::Int { bits, .. }) => {
                    format!("b, err := rkBE(uint64({v}), {}), error(nil)", bits / 8)
                }
                (Encoding::Padded { len, pad, .. }, _) => {
                    format!("b, err := rkPad({raw}, {len}, {pad}, \"{label}\")")
                }
                (Encoding::Escaped { .. }, _) => {
                    format!("b, err := rkEsc({raw}), error(nil)")
                }
                _ => format!("b, err := append([]byte{{}}, {raw}...), error(nil)"),
            }
    };
    // A value's natural bytes, reversed (a string's are, before they are
    // stored).
    let natural = if f.reverse && !f.stored_as_string() {
        "\n\tb = rkRev(b)"
    } else {
        ""
    };
    let _ = writeln!(go, "\nfunc {lower}Enc{i}(v {ty}) ([]byte, error) {{");
    if f.option {
        let w = 1 + width.unwrap_or(0);
        // None: the tag and the padding, zeros, inverted by `#[desc]` and
        // `#[desc_ts]`; Some's tag `01` (`FE` under `#[desc_ts]`).
        let none = if desc || desc_ts {
            format!("rkInv(make([]byte, {w}))")
        } else {
            format!("make([]byte, {w})")
        };
        let tag = if desc_ts { "0xFE" } else { "0x01" };
        let _ = writeln!(go, "\tif v == nil {{\n\t\treturn {none}, nil\n\t}}");
        let _ = writeln!(
            go,
            "\t{}\n\tif err != nil {{\n\t\treturn nil, err\n\t}}{natural}",
            enc_value("(*v)")
        );
        if desc {
            let _ = writeln!(go, "\treturn rkInv(rkCat([]byte{{{tag}}}, b)), nil\n}}");
        } else {
            let _ = writeln!(go, "\treturn rkCat([]byte{{{tag}}}, b), nil\n}}");
        }
    } else {
        let _ = writeln!(
            go,
            "\t{}\n\tif err != nil {{\n\t\treturn nil, err\n\t}}{natural}",
            enc_value("v")
        );
        if desc {
            go.push_str("\treturn rkInv(b), nil\n}\n");
        } else {
            go.push_str("\treturn b, nil\n}\n");
        }
    }
    // Decode.
    let _ = writeln!(
        go,
        "\nfunc {lower}Dec{i}(key []byte, pos int) ({ty}, int, error) {{\n\tvar zero {ty}\n\t_ = zero"
    );
    let ret_some = |v: &str| {
        if f.option {
            format!("x := {v}\n\treturn &x")
        } else {
            format!("return {v}")
        }
    };
    match width {
        Some(w) => {
            let total = w + usize::from(f.option);
            let _ = writeln!(go, "\tb, err := rkTake(key, pos, {total}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}");
            if desc {
                go.push_str("\tb = rkInv(b)\n");
            }
            if f.option {
                let (none_tag, some_tag, pad) = if desc_ts {
                    ("0xFF", "0xFE", "0xFF")
                } else {
                    ("0x00", "0x01", "0x00")
                };
                let _ = writeln!(
                    go,
                    "\tif b[0] == {none_tag} {{\n\t\tif !rkAllBytes(b[1:], {pad}) {{\n\t\t\treturn zero, 0, fmt.Errorf(\"{label}: None with padding that is not its own\")\n\t\t}}\n\t\treturn nil, pos + {total}, nil\n\t}}\n\tif b[0] != {some_tag} {{\n\t\treturn zero, 0, fmt.Errorf(\"{label}: invalid Option tag %#02x\", b[0])\n\t}}\n\tb = b[1:]"
                );
            }
            if f.reverse && !f.stored_as_string() {
                go.push_str("\tb = rkRev(b)\n");
            }
            let value = match (f.encoding, f.scalar) {
                (Encoding::Digits { digits, signed: false, desc }, Scalar::Int { bits: 128, .. }) => format!(
                    "v, err := rkUnudig128(b, {digits}, {desc}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (Encoding::Digits { digits, .. }, Scalar::Int { bits: 128, .. }) => format!(
                    "v, err := rkUnsdig128(b, {digits}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (_, Scalar::Int { bits: 128, signed: false }) => "v := Uint128{Hi: rkUint(b[:8]), Lo: rkUint(b[8:])}".to_owned(),
                (_, Scalar::Int { bits: 128, signed: true }) => "v := Int128{Hi: int64(rkUint(b[:8]) ^ (1 << 63)), Lo: rkUint(b[8:])}".to_owned(),
                (Encoding::Digits { digits, signed: false, desc }, Scalar::Int { bits, .. }) => format!(
                    "u, err := rkUnudig(b, {bits}, {digits}, {desc}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\tv := {inner}(u)"
                ),
                (Encoding::Digits { digits, .. }, Scalar::Int { bits, .. }) => format!(
                    "u, err := rkUnsdig(b, {bits}, {digits}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\tv := {inner}(u)"
                ),
                (Encoding::DescTsDigits { digits, max }, Scalar::Int { bits, signed }) => {
                    let hi: u64 = if signed { (1u64 << (bits - 1)) - 1 } else if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
                    format!(
                        "u, err := rkUntsdig(b, {digits}, {max}, {hi}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\tv := {inner}(u)"
                    )
                }
                (Encoding::DescTs, Scalar::Int { bits, signed: true }) => {
                    let max = if bits == 64 { "math.MaxInt64" } else { "math.MaxInt32" };
                    format!("v := {inner}({max}) - {inner}(uint{bits}(rkUint(b)))")
                }
                (Encoding::DescTs, Scalar::Int { bits, .. }) => {
                    let max = if bits == 64 { "math.MaxInt64" } else { "math.MaxInt32" };
                    format!(
                        "r := rkUint(b)\n\tif r > {max} {{\n\t\treturn zero, 0, fmt.Errorf(\"{label}: the top bit is set: not a descending unsigned timestamp\")\n\t}}\n\tv := {inner}({max} - r)"
                    )
                }
                (Encoding::TextForm, Scalar::Ulid) => format!(
                    "v, err := rkUnULIDText(b, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (Encoding::TextForm, s @ (Scalar::Ipv4 | Scalar::Ipv6 | Scalar::Ip)) => format!(
                    "v, err := rkUn{}Text(b, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}",
                    match s { Scalar::Ipv4 => "IPv4", Scalar::Ipv6 => "IPv6", _ => "IP" }
                ),
                (_, Scalar::Ipv4) => "v := netip.AddrFrom4([4]byte(b))".to_owned(),
                (_, Scalar::Ipv6) => "v := netip.AddrFrom16([16]byte(b))".to_owned(),
                (_, Scalar::Ip) => format!(
                    "v, err := rkUnIP(b, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (Encoding::TextForm, _) => format!(
                    "v, err := rkUnUUIDText(b, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (_, Scalar::Uuid | Scalar::Ulid) => "var v [16]byte\n\tcopy(v[:], b)".to_owned(),
                (_, Scalar::Opaque { len }) => format!("var v [{len}]byte\n\tcopy(v[:], b)"),
                (_, Scalar::Bool) => format!(
                    "v, err := rkBool(b[0], \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (_, Scalar::Char) => format!(
                    "v, err := rkUnchar(b, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"
                ),
                (_, Scalar::Float { bits }) => format!("v := rkUnfloat{bits}(b)"),
                (_, Scalar::Int { bits, signed: true }) => {
                    format!("v := {inner}(uint{bits}(rkUint(b) ^ (1 << {})))", bits - 1)
                }
                (_, Scalar::Int { .. }) => format!("v := {inner}(rkUint(b))"),
                (Encoding::Padded { pad, .. }, Scalar::Str) => format!(
                    "v, err := rkText({}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}",
                    reversed(f, &format!("rkUnpad(b, {pad})"))
                ),
                (Encoding::Padded { pad, .. }, _) => format!("v := append([]byte{{}}, {}...)", reversed(f, &format!("rkUnpad(b, {pad})"))),
                _ => unreachable!("variable-width values are read by rkUnesc or to the end"),
            };
            let value = match (&f.key_enum, f.time) {
                (Some(e), _) => format!(
                    "{value}\n\tif !v.valid() {{\n\t\treturn zero, 0, fmt.Errorf(\"{label}: %d is not the discriminant of a variant of {}\", v)\n\t}}",
                    e.name
                ),
                (None, Some(unit)) => format!(
                    "{value}\n\tt, err := rkToTime(int64(v), {}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}",
                    unit.nanos()
                ),
                (None, None) => value,
            };
            let ret_some = |v: &str| ret_some(if f.time.is_some() { "t" } else { v });
            if f.sep_after {
                let _ = writeln!(
                    go,
                    "\t{value}\n\tend, err := rkExpectSep(key, pos+{total}, {lower}Spec.sep, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\t{}, end, nil\n}}",
                    ret_some("v")
                );
            } else {
                let _ = writeln!(go, "\t{value}\n\t{}, pos + {total}, nil\n}}", ret_some("v"));
            }
        }
        None => {
            let inv = if desc { "0xFF" } else { "0" };
            if f.option {
                let _ = writeln!(
                    go,
                    "\tt, err := rkTake(key, pos, 1, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\tpos++\n\tswitch t[0] ^ {inv} {{\n\tcase 0:\n\t\treturn nil, pos, nil\n\tcase 1:\n\tdefault:\n\t\treturn zero, 0, fmt.Errorf(\"{label}: invalid Option tag %#02x\", t[0]^{inv})\n\t}}"
                );
            }
            let (read, end) = match f.encoding {
                Encoding::Raw => ("raw := key[pos:]".to_owned(), "len(key)"),
                Encoding::Delimited => (
                    format!("raw, end, err := rkUndelim(key, pos, {lower}Spec.sep, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"),
                    "end",
                ),
                _ => (
                    format!("raw, end, err := rkUnesc(key, pos, {inv}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"),
                    "end",
                ),
            };
            let _ = writeln!(go, "\t{read}");
            if f.reverse || f.reverse_domain {
                let _ = writeln!(go, "\traw = {}", reversed(f, "raw"));
            }
            let value = match f.scalar {
                Scalar::Str => format!(
                    "v, err2 := rkText(raw, \"{label}\")\n\tif err2 != nil {{\n\t\treturn zero, 0, err2\n\t}}"
                ),
                _ => "v := append([]byte{}, raw...)".to_owned(),
            };
            let _ = writeln!(go, "\t{value}\n\t{}, {end}, nil\n}}", ret_some("v"));
        }
    }
}
