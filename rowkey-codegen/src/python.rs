//! Python 3: a module with a frozen dataclass, `to_bytes`, `from_bytes`,
//! `bucket` and `split_points`, standard library only but for the
//! `xxhash` package where the salt is XXH3.

use std::fmt::Write as _;

use rowkey_core::layout::{Encoding, SaltHashKind};

use crate::plan::{FieldPlan, KeyPlan, Scalar};

/// The helpers every generated module carries (FORMAT.md's rules, each
/// once).
const HELPERS: &str = r#"
def _fail(field, why):
    return ValueError(f"{field}: {why}")


def _int(v, bits, signed, field):
    if not isinstance(v, int) or isinstance(v, bool):
        raise _fail(field, f"expected an int, got {type(v).__name__}")
    lo, hi = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1))
    if not lo <= v <= hi:
        raise _fail(field, f"{v} is out of range for {'i' if signed else 'u'}{bits}")
    return (v + (1 << (bits - 1)) if signed else v).to_bytes(bits // 8, "big")


def _unint(b, bits, signed):
    u = int.from_bytes(b, "big")
    return u - (1 << (bits - 1)) if signed else u


def _bool(v, field):
    if not isinstance(v, bool):
        raise _fail(field, f"expected a bool, got {type(v).__name__}")
    return b"\x01" if v else b"\x00"


def _unbool(b, field):
    if b not in (b"\x00", b"\x01"):
        raise _fail(field, f"{b[0]:#04x} is not a bool (00 or 01)")
    return b == b"\x01"


def _desc_ts(v, bits, signed, field):
    _int(v, bits, signed, field)
    top = (1 << (bits - 1)) - 1
    if not signed and v > top:
        raise _fail(field, f"{v} is above {top}: out of range for a descending timestamp")
    return ((top - v) % (1 << bits)).to_bytes(bits // 8, "big")


def _undesc_ts(b, bits, signed, field):
    r = int.from_bytes(b, "big")
    top = (1 << (bits - 1)) - 1
    if not signed:
        if r > top:
            raise _fail(field, "the top bit is set: not a descending unsigned timestamp")
        return top - r
    v = (top - r) % (1 << bits)
    return v - (1 << bits) if v > top else v


def _raw(v, is_str, field):
    if is_str:
        if not isinstance(v, str):
            raise _fail(field, f"expected a str, got {type(v).__name__}")
        return v.encode("utf-8")
    if not isinstance(v, (bytes, bytearray)):
        raise _fail(field, f"expected bytes, got {type(v).__name__}")
    return bytes(v)


def _unraw(b, is_str, field):
    if not is_str:
        return bytes(b)
    try:
        return bytes(b).decode("utf-8")
    except UnicodeDecodeError as e:
        raise _fail(field, f"invalid UTF-8: {e.reason}") from None


def _pad(b, n, pad, field):
    if len(b) > n:
        raise _fail(field, f"{len(b)} bytes is longer than its {n}")
    if b and b[-1] == pad:
        raise _fail(field, f"the value ends with its pad byte {pad:#04x}")
    return b + bytes([pad]) * (n - len(b))


def _unpad(b, pad):
    return b.rstrip(bytes([pad]))


def _esc(b):
    return b.replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def _unesc(key, pos, inv, field):
    out = bytearray()
    while True:
        if pos >= len(key):
            raise _fail(field, "the key ends inside the field (no terminator)")
        c = key[pos] ^ inv
        pos += 1
        if c != 0:
            out.append(c)
            continue
        if pos >= len(key):
            raise _fail(field, "the key ends inside an escape")
        n = key[pos] ^ inv
        pos += 1
        if n == 0xFF:
            out.append(0)
        elif n == 0x01:
            return bytes(out), pos
        else:
            raise _fail(field, f"invalid escape 00 {n:02x}")


def _inv(b):
    return bytes(x ^ 0xFF for x in b)


def _take(key, pos, n, field):
    if pos + n > len(key):
        raise _fail(field, f"the key ends inside the field ({len(key) - pos} of {n} bytes)")
    return key[pos:pos + n]


def _succ(b):
    b = b.rstrip(b"\xff")
    return b[:-1] + bytes([b[-1] + 1]) if b else b""


def _head(bucket):
    """The prefix and the salt: the bucket's byte, or its digits and SEP."""
    if _BUCKET_DIGITS:
        return PREFIX + str(bucket).zfill(_BUCKET_DIGITS).encode() + SEP
    return PREFIX + bytes([bucket])


def _unhead(key, pos, field):
    if _BUCKET_DIGITS:
        text = _take(key, pos, _BUCKET_DIGITS, field)
        if not _isdigits(text):
            raise _fail(field, f"{text!r} is not a bucket's digits")
        salt = int(text)
        pos = _expect_sep(key, pos + _BUCKET_DIGITS, field)
    else:
        salt = _take(key, pos, 1, field)[0]
        pos += 1
    if salt >= BUCKETS:
        raise _fail(field, f"bucket {salt} is not below {BUCKETS}")
    return pos


def _heads(bucket):
    if BUCKETS == 0:
        return [PREFIX]
    if bucket is not None:
        return [_head(bucket)]
    return [_head(b) for b in range(BUCKETS)]


def _lead(fields, n):
    """The bytes of the leading fields (SEP after each when more follow)."""
    if not fields:
        return b""
    return SEP.join(fields) + (SEP if len(fields) < n else b"")


def _isdigits(b):
    return len(b) > 0 and all(0x30 <= x <= 0x39 for x in b)


def _expect_sep(key, pos, field):
    if key[pos:pos + len(SEP)] != SEP:
        raise _fail(field, f"the separator {SEP!r} does not follow")
    return pos + len(SEP)


def _udig(v, bits, digits, desc, field):
    _int(v, bits, False, field)
    top = 10 ** digits - 1
    if v > top:
        raise _fail(field, f"{v} has more than {digits} digits")
    return str(top - v if desc else v).zfill(digits).encode()


def _unudig(b, bits, digits, desc, field):
    if not _isdigits(b):
        raise _fail(field, f"{b!r} is not {digits} digits")
    v = int(b)
    if desc:
        v = 10 ** digits - 1 - v
    if v >= 1 << bits:
        raise _fail(field, f"{v} is out of range for u{bits}")
    return v


def _sdig(v, bits, digits, field):
    _int(v, bits, True, field)
    top = 10 ** digits - 1
    if abs(v) > top:
        raise _fail(field, f"{v} has more than {digits} digits")
    if v >= 0:
        return b"0" + str(v).zfill(digits).encode()
    return b"-" + str(top + v).zfill(digits).encode()


def _unsdig(b, bits, digits, field):
    sign, text = b[:1], b[1:]
    if sign not in (b"0", b"-") or not _isdigits(text):
        raise _fail(field, f"{b!r} is not a sign and {digits} digits")
    top = 10 ** digits - 1
    m = int(text)
    if sign == b"0":
        v = m
    elif m == top:
        raise _fail(field, "-0 is no value")
    else:
        v = m - top
    if not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
        raise _fail(field, f"{v} is out of range for i{bits}")
    return v


def _tsdig(v, bits, signed, digits, top, field):
    _int(v, bits, signed, field)
    if not 0 <= v <= top:
        raise _fail(field, f"{v} is out of range for a descending timestamp (0 to {top})")
    return str(top - v).zfill(digits).encode()


def _untsdig(b, bits, signed, digits, top, field):
    if not _isdigits(b):
        raise _fail(field, f"{b!r} is not {digits} digits")
    r = int(b)
    if r > top:
        raise _fail(field, f"{r} is above {top}")
    v = top - r
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    if v > hi:
        raise _fail(field, f"{v} is out of range")
    return v


def _delim(b, field):
    if SEP in b:
        raise _fail(field, f"the value holds the separator {SEP!r}")
    for n in range(1, len(SEP)):
        if b.endswith(SEP[:n]):
            raise _fail(field, f"the value ends with the start of the separator {SEP!r}")
    return b


def _undelim(key, pos, field):
    end = key.find(SEP, pos)
    if end < 0:
        raise _fail(field, f"no separator {SEP!r} ends the field")
    return _delim(key[pos:end], field), end + len(SEP)


def _eq_ranges(heads, p, exact):
    return [(h + p, h + p + b"\x00" if exact else _succ(h + p)) for h in heads]


def _range_ranges(heads, p, lo, hi, lo_incl, hi_incl, desc, raw):
    if desc:
        lo, hi, lo_incl, hi_incl = hi, lo, hi_incl, lo_incl
    # The first row after every key whose field is `v`: after the prefix
    # of its bytes, or (a raw last field) after the one key.
    after = (lambda b: b + b"\x00") if raw else _succ
    out = []
    for h in heads:
        base = h + p
        start = base if lo is None else (base + lo if lo_incl else after(base + lo))
        # `None`: to the end of the table (an empty stop row in HBase).
        if hi is None:
            stop = _succ(base) or None
        elif hi_incl:
            stop = after(base + hi) or None
        else:
            stop = base + hi
        # An empty range (`start` at or after `stop`, or past every key:
        # nothing after an all-`FF` lower bound) reads nothing: left out.
        if start == b"" and lo is not None and not lo_incl:
            continue
        if stop is None or start < stop:
            out.append((start, stop or b""))
    return out


def scan_kwargs(ranges):
    """happybase's `Table.scan` keyword arguments for each `(start, stop)`
    row range: `row_start`, and `row_stop` unless the range runs to the end
    of the table (an empty stop row)."""
    return [dict(row_start=a, **({"row_stop": b} if b else {})) for a, b in ranges]


def _java_hash(b):
    h = 1
    for x in b:
        h = (31 * h + (x - 256 if x > 127 else x)) & 0xFFFFFFFF
    return h - (1 << 32) if h > 0x7FFFFFFF else h
"#;

/// The Python module for `plan`, its dataclass named `name`.
pub fn module(plan: &KeyPlan, name: &str) -> String {
    let mut py = String::new();
    let text = plan.layout_text.replace('\\', "\\\\").replace('"', "\\\"");
    let _ = writeln!(
        py,
        "\"\"\"`{name}`: a typed row key generated by rowkey-codegen from the layout\n\n    {text}\n\nDo not edit: generate it again from the layout.\"\"\"\n"
    );
    py.push_str("from __future__ import annotations\n\nimport dataclasses\nfrom typing import List, Optional, Tuple\n");
    if matches!(plan.salt.as_ref().map(|s| s.hash), Some(SaltHashKind::Xxh3)) {
        py.push_str("\nimport xxhash\n");
    }
    let _ = write!(
        py,
        "\nLAYOUT = \"{text}\"\nLAYOUT_ID = {:#018x}\nPREFIX = {}\n",
        plan.layout_id,
        bytes_literal(&plan.prefix)
    );
    let buckets = plan.salt.as_ref().map_or(0, |s| s.buckets);
    let digits = plan.salt.as_ref().map_or(0, |s| s.digits);
    let _ = writeln!(
        py,
        "BUCKETS = {buckets}\nSEP = {}\n_BUCKET_DIGITS = {digits}",
        bytes_literal(&plan.sep)
    );
    py.push_str(HELPERS);
    for (i, f) in plan.fields.iter().enumerate() {
        field_functions(&mut py, name, i, f);
    }
    // The dataclass.
    let _ = write!(py, "\n\n@dataclasses.dataclass(frozen=True)\nclass {name}:\n    \"\"\"A key of the layout `LAYOUT`.\"\"\"\n\n");
    for f in &plan.fields {
        let _ = writeln!(py, "    {}: {}", f.name, python_type(f));
    }
    // to_bytes
    py.push_str("\n    def _fields(self) -> List[bytes]:\n        return [\n");
    for (i, f) in plan.fields.iter().enumerate() {
        let _ = writeln!(py, "            _enc_{i}(self.{}),", f.name);
    }
    py.push_str("        ]\n\n");
    py.push_str("    def to_bytes(self) -> bytes:\n        \"\"\"The key's bytes (a `ValueError` naming the field when a value cannot be stored).\"\"\"\n        fields = self._fields()\n");
    if plan.salt.is_some() {
        py.push_str("        return _head(self._bucket_of(fields)) + SEP.join(fields)\n\n");
    } else {
        py.push_str("        return PREFIX + SEP.join(fields)\n\n");
    }
    // bucket
    match &plan.salt {
        None => py.push_str(
            "    def bucket(self) -> Optional[int]:\n        \"\"\"The salt bucket: `None`, the layout has no salt.\"\"\"\n        return None\n\n",
        ),
        Some(s) => {
            py.push_str("    def bucket(self) -> Optional[int]:\n        \"\"\"The salt bucket, `0 <= bucket < BUCKETS`.\"\"\"\n        return self._bucket_of(self._fields())\n\n");
            py.push_str("    def _bucket_of(self, fields: List[bytes]) -> int:\n");
            let by: Vec<String> = s.by.iter().map(|i| format!("fields[{i}]")).collect();
            match s.hash {
                SaltHashKind::Xxh3 => {
                    let _ = writeln!(
                        py,
                        "        return xxhash.xxh3_64_intdigest(SEP.join([{}])) % BUCKETS\n",
                        by.join(", ")
                    );
                }
                SaltHashKind::Java => {
                    let _ = writeln!(
                        py,
                        "        return abs(_java_hash(SEP.join([{}]))) % BUCKETS\n",
                        by.join(", ")
                    );
                }
                // The plan refuses other hashes.
                _ => {
                    let f = &plan.fields[s.by[0]];
                    let _ = writeln!(py, "        return self.{} % BUCKETS\n", f.name);
                }
            }
        }
    }
    // from_bytes
    let _ = write!(
        py,
        "    @classmethod\n    def from_bytes(cls, key: bytes) -> \"{name}\":\n        \"\"\"The key of `key`'s bytes (a `ValueError` naming the field when they are not one).\"\"\"\n        key = bytes(key)\n        if not key.startswith(PREFIX):\n            raise ValueError(f\"{name}: the key does not start with the prefix {{PREFIX!r}}\")\n        pos = len(PREFIX)\n"
    );
    if plan.salt.is_some() {
        let _ = writeln!(py, "        pos = _unhead(key, pos, \"{name} salt\")");
    }
    for (i, f) in plan.fields.iter().enumerate() {
        let _ = writeln!(py, "        {}, pos = _dec_{i}(key, pos)", f.name);
    }
    let _ = write!(
        py,
        "        if pos != len(key):\n            raise ValueError(f\"{name}: {{len(key) - pos}} bytes after the last field\")\n        return cls({})\n\n",
        plan.fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    // split points
    let _ = write!(
        py,
        "    @staticmethod\n    def split_points() -> List[bytes]:\n        \"\"\"Where to pre-split a table of these keys: one region per salt bucket.\"\"\"\n        return [_head(b)[:len(_head(b)) - len(SEP)] for b in range(1, BUCKETS)]\n"
    );
    scans(&mut py, plan);
    py
}

/// `scan_all`, `scan_by_*` for every run of leading fields and
/// `range_by_*` on the field after each (not on bools and `Option`s): each
/// a list of `(start, stop)` rows, one per salt bucket read (FORMAT.md,
/// "Scans").
fn scans(py: &mut String, plan: &KeyPlan) {
    let n = plan.fields.len();
    for k in 0..=n {
        let lead = &plan.fields[..k];
        let names: Vec<&str> = lead.iter().map(|f| f.name.as_str()).collect();
        let bucket = bucket_of_leading(plan, k);
        let encoded = (0..k)
            .map(|i| format!("_enc_{i}({})", names[i]))
            .collect::<Vec<_>>()
            .join(", ");
        let exact_raw = k == n && n > 0 && plan.fields[n - 1].encoding == Encoding::Raw;
        let method = if k == 0 {
            "scan_all".to_owned()
        } else {
            format!("scan_by_{}", names.join("_"))
        };
        let _ = write!(
            py,
            "\n    @staticmethod\n    def {method}({args}) -> List[Tuple[bytes, bytes]]:\n        \"\"\"The rows whose leading fields are these values: `(start, stop)` per salt bucket read.\"\"\"\n        fields = [{encoded}]\n        return _eq_ranges(_heads({bucket}), _lead(fields, {n}), {exact})\n",
            args = names.join(", "),
            exact = py_bool(exact_raw),
        );
        let Some(next) = plan.fields.get(k) else {
            continue;
        };
        // No range ends at a delimited string: its text does not sort
        // like its values (FORMAT.md, "Text keys").
        if next.option || next.scalar == Scalar::Bool || next.encoding == Encoding::Delimited {
            continue;
        }
        let desc = next.desc()
            || next.encoding == Encoding::DescTs
            || matches!(
                next.encoding,
                Encoding::Digits { desc: true, .. } | Encoding::DescTsDigits { .. }
            );
        let mut args: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        args.extend([
            "start=None".to_owned(),
            "stop=None".to_owned(),
            "*".to_owned(),
            "start_inclusive=True".to_owned(),
            "stop_inclusive=False".to_owned(),
        ]);
        let mut all = names.clone();
        all.push(&next.name);
        let _ = write!(
            py,
            "\n    @staticmethod\n    def range_by_{method_name}({args}) -> List[Tuple[bytes, bytes]]:\n        \"\"\"The rows whose leading fields are these values and whose `{field}` is in `[start, stop)` (`None`: unbounded; the ends' inclusivity as given), in value order.\"\"\"\n        fields = [{encoded}]\n        lo = None if start is None else _enc_{k}(start)\n        hi = None if stop is None else _enc_{k}(stop)\n        return _range_ranges(_heads({bucket}), _lead(fields, {n}), lo, hi, start_inclusive, stop_inclusive, {desc}, {raw})\n",
            method_name = all.join("_"),
            args = args.join(", "),
            field = next.name,
            desc = py_bool(desc),
            raw = py_bool(next.encoding == Encoding::Raw),
            n = plan.fields.len(),
        );
    }
}

/// The bucket a scan on the first `k` fields reads, as a Python
/// expression over their encodings `fields` (and values): `None` when the
/// salt's fields are not all among them, or there is no salt.
fn bucket_of_leading(plan: &KeyPlan, k: usize) -> String {
    match &plan.salt {
        Some(s) if s.by.iter().all(|&i| i < k) => {
            let by: Vec<String> = s.by.iter().map(|i| format!("fields[{i}]")).collect();
            match s.hash {
                SaltHashKind::Xxh3 => {
                    format!(
                        "xxhash.xxh3_64_intdigest(SEP.join([{}])) % BUCKETS",
                        by.join(", ")
                    )
                }
                SaltHashKind::Java => {
                    format!("abs(_java_hash(SEP.join([{}]))) % BUCKETS", by.join(", "))
                }
                // The plan refuses other hashes; `mod` hashes one field's value.
                _ => format!("{} % BUCKETS", plan.fields[s.by[0]].name),
            }
        }
        _ => "None".to_owned(),
    }
}

/// `_enc_{i}(v) -> bytes` and `_dec_{i}(key, pos) -> (value, pos)` for one
/// field.
fn field_functions(py: &mut String, name: &str, i: usize, f: &FieldPlan) {
    let label = format!("{name}.{}", f.name);
    let enc = value_encode(f, &label);
    let _ = write!(py, "\n\ndef _enc_{i}(v):\n");
    let width = f.value_width();
    let desc = f.desc();
    let desc_ts = f.encoding == Encoding::DescTs;
    if f.option {
        let _ = writeln!(py, "    if v is None:");
        let none = match (desc_ts, desc) {
            (true, _) => format!("b\"\\xff\" * {}", 1 + width.unwrap_or(0)),
            (false, true) => format!("_inv(b\"\\x00\" * {})", 1 + width.unwrap_or(0)),
            (false, false) => format!("b\"\\x00\" * {}", 1 + width.unwrap_or(0)),
        };
        let _ = writeln!(py, "        return {none}");
        let some = match (desc_ts, desc) {
            (true, _) => format!("b\"\\xfe\" + {enc}"),
            (false, true) => format!("_inv(b\"\\x01\" + {enc})"),
            (false, false) => format!("b\"\\x01\" + {enc}"),
        };
        let _ = writeln!(py, "    return {some}");
    } else if desc {
        let _ = writeln!(py, "    return _inv({enc})");
    } else {
        let _ = writeln!(py, "    return {enc}");
    }
    let _ = write!(py, "\n\ndef _dec_{i}(key, pos):\n");
    let inv = if desc { "0xFF" } else { "0" };
    match width {
        Some(w) => {
            let total = w + usize::from(f.option);
            let _ = writeln!(py, "    b = _take(key, pos, {total}, \"{label}\")");
            if desc {
                let _ = writeln!(py, "    b = _inv(b)");
            }
            if f.option {
                let (none_tag, some_tag, pad) = if desc_ts {
                    ("0xFF", "0xFE", "b\"\\xff\"")
                } else {
                    ("0x00", "0x01", "b\"\\x00\"")
                };
                let _ = writeln!(
                    py,
                    "    if b[0] == {none_tag}:\n        if b[1:] != {pad} * {w}:\n            raise _fail(\"{label}\", \"None with padding that is not its own\")\n        return None, pos + {total}\n    if b[0] != {some_tag}:\n        raise _fail(\"{label}\", f\"invalid Option tag {{b[0]:#04x}}\")\n    b = b[1:]"
                );
            }
            let after = if f.sep_after {
                format!("_expect_sep(key, pos + {total}, \"{label}\")")
            } else {
                format!("pos + {total}")
            };
            let _ = writeln!(py, "    return {}, {after}", value_decode(f, &label));
        }
        None => {
            if f.option {
                let _ = writeln!(
                    py,
                    "    tag = _take(key, pos, 1, \"{label}\")[0] ^ {inv}\n    pos += 1\n    if tag == 0:\n        return None, pos\n    if tag != 1:\n        raise _fail(\"{label}\", f\"invalid Option tag {{tag:#04x}}\")"
                );
            }
            let is_str = if f.scalar == Scalar::Str {
                "True"
            } else {
                "False"
            };
            match f.encoding {
                Encoding::Raw => {
                    let _ = writeln!(
                        py,
                        "    return _unraw(key[pos:], {is_str}, \"{label}\"), len(key)"
                    );
                }
                Encoding::Delimited => {
                    let _ = writeln!(
                        py,
                        "    b, pos = _undelim(key, pos, \"{label}\")\n    return _unraw(b, {is_str}, \"{label}\"), pos"
                    );
                }
                _ => {
                    let _ = writeln!(
                        py,
                        "    b, pos = _unesc(key, pos, {inv}, \"{label}\")\n    return _unraw(b, {is_str}, \"{label}\"), pos"
                    );
                }
            }
        }
    }
}

/// The expression of a present value's bytes, before `#[desc]` and the
/// `Option` tag.
fn value_encode(f: &FieldPlan, label: &str) -> String {
    let is_str = if f.scalar == Scalar::Str {
        "True"
    } else {
        "False"
    };
    match (f.encoding, f.scalar) {
        (
            Encoding::Digits {
                digits,
                signed: false,
                desc,
            },
            Scalar::Int { bits, .. },
        ) => {
            format!("_udig(v, {bits}, {digits}, {}, \"{label}\")", py_bool(desc))
        }
        (Encoding::Digits { digits, .. }, Scalar::Int { bits, .. }) => {
            format!("_sdig(v, {bits}, {digits}, \"{label}\")")
        }
        (Encoding::DescTsDigits { digits, max }, Scalar::Int { bits, signed }) => {
            format!(
                "_tsdig(v, {bits}, {}, {digits}, {max}, \"{label}\")",
                py_bool(signed)
            )
        }
        (Encoding::Delimited, _) => format!("_delim(_raw(v, {is_str}, \"{label}\"), \"{label}\")"),
        (Encoding::DescTs, Scalar::Int { bits, signed }) => {
            format!("_desc_ts(v, {bits}, {}, \"{label}\")", py_bool(signed))
        }
        (_, Scalar::Bool) => format!("_bool(v, \"{label}\")"),
        (_, Scalar::Int { bits, signed }) => {
            format!("_int(v, {bits}, {}, \"{label}\")", py_bool(signed))
        }
        (Encoding::Padded { len, pad, .. }, _) => {
            format!("_pad(_raw(v, {is_str}, \"{label}\"), {len}, {pad}, \"{label}\")")
        }
        (Encoding::Escaped { .. }, _) => format!("_esc(_raw(v, {is_str}, \"{label}\"))"),
        (_, _) => format!("_raw(v, {is_str}, \"{label}\")"),
    }
}

/// The expression of a fixed-width value from its bytes `b` (after `#[desc]`
/// and the tag are undone).
fn value_decode(f: &FieldPlan, label: &str) -> String {
    let is_str = if f.scalar == Scalar::Str {
        "True"
    } else {
        "False"
    };
    match (f.encoding, f.scalar) {
        (
            Encoding::Digits {
                digits,
                signed: false,
                desc,
            },
            Scalar::Int { bits, .. },
        ) => {
            format!(
                "_unudig(b, {bits}, {digits}, {}, \"{label}\")",
                py_bool(desc)
            )
        }
        (Encoding::Digits { digits, .. }, Scalar::Int { bits, .. }) => {
            format!("_unsdig(b, {bits}, {digits}, \"{label}\")")
        }
        (Encoding::DescTsDigits { digits, max }, Scalar::Int { bits, signed }) => {
            format!(
                "_untsdig(b, {bits}, {}, {digits}, {max}, \"{label}\")",
                py_bool(signed)
            )
        }
        (Encoding::DescTs, Scalar::Int { bits, signed }) => {
            format!("_undesc_ts(b, {bits}, {}, \"{label}\")", py_bool(signed))
        }
        (_, Scalar::Bool) => format!("_unbool(b, \"{label}\")"),
        (_, Scalar::Int { bits, signed }) => format!("_unint(b, {bits}, {})", py_bool(signed)),
        (Encoding::Padded { pad, .. }, _) => {
            format!("_unraw(_unpad(b, {pad}), {is_str}, \"{label}\")")
        }
        _ => unreachable!("variable-width values are read by _unesc or to the end"),
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The field's Python type.
fn python_type(f: &FieldPlan) -> String {
    let t = match f.scalar {
        Scalar::Bool => "bool",
        Scalar::Int { .. } => "int",
        Scalar::Str => "str",
        Scalar::Bytes => "bytes",
    };
    if f.option {
        format!("Optional[{t}]")
    } else {
        t.to_owned()
    }
}

/// `b"..."` with every byte escaped.
fn bytes_literal(b: &[u8]) -> String {
    let mut s = String::from("b\"");
    for x in b {
        let _ = write!(s, "\\x{x:02x}");
    }
    s.push('"');
    s
}
