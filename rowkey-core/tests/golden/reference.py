#!/usr/bin/env python3
"""Independent reference implementation of rowkey format v1 (FORMAT.md).

Writes v1.txt, the golden vectors that tests/golden.rs checks the Rust
implementation against. It shares no code with the crate: each rule of
FORMAT.md is written again here from the text. Needs `pip install xxhash`
only to regenerate; the test reads the committed v1.txt.

    python3 tests/golden/reference.py > tests/golden/v1.txt
    python3 tests/golden/reference.py text > tests/golden/text.txt
    python3 tests/golden/reference.py added > tests/golden/added.txt
    python3 tests/golden/reference.py ecosystem > tests/golden/ecosystem.txt
    python3 tests/golden/reference.py ordered_code > tests/golden/ordered_code.txt
"""
import struct
import sys
import xxhash

def be(n, width):
    return n.to_bytes(width, "big")

def unsigned(n, width):
    return be(n, width)

def signed(n, width):
    return be((n + (1 << (8 * width - 1))) % (1 << (8 * width)), width)

def f32(x):
    bits = struct.unpack(">I", struct.pack(">f", x))[0]
    return be((~bits & 0xFFFFFFFF) if bits >> 31 else bits ^ 0x80000000, 4)

def f64bits(bits):
    return be((~bits & (2**64 - 1)) if bits >> 63 else bits ^ (1 << 63), 8)

def f64(x):
    return f64bits(struct.unpack(">Q", struct.pack(">d", x))[0])

def escaped(b):
    return b.replace(b"\x00", b"\x00\xff") + b"\x00\x01"

def invert(b):
    return bytes(x ^ 0xFF for x in b)

def fixed(b, n, pad=0):
    assert len(b) <= n and (not b or b[-1] != pad)
    return b + bytes([pad]) * (n - len(b))

def desc_ts(ts, width):
    mx = (1 << (8 * width - 1)) - 1
    return be((mx - ts) % (1 << (8 * width)), width)

def some(b):
    return b"\x01" + b

def none(width=0):
    return b"\x00" + bytes(width)

def xxh3_salt(by, buckets):
    return bytes([xxhash.xxh3_64_intdigest(by) % buckets])

def java_hash(b):
    h = 1
    for x in b:
        sb = x - 256 if x > 127 else x
        h = (31 * h + sb) & 0xFFFFFFFF
    return h - (1 << 32) if h >> 31 else h

def java_salt(by, buckets):
    h = java_hash(by)
    r = abs(h) % buckets  # Java's % truncates toward zero, so abs(h % n) == abs(h) % n
    return bytes([r])

V = []
def v(name, b):
    V.append((name, b))

v("u8_7f", unsigned(0x7F, 1))
v("u16_1234", unsigned(0x1234, 2))
v("u32_1", unsigned(1, 4))
v("u64_42", unsigned(42, 8))
v("u128_1", unsigned(1, 16))
v("i8_minus1", signed(-1, 1))
v("i8_0", signed(0, 1))
v("i8_min", signed(-128, 1))
v("i16_minus2", signed(-2, 2))
v("i32_5", signed(5, 4))
v("i64_minus1", signed(-1, 8))
v("i128_0", signed(0, 16))
v("bool_true", b"\x01")
v("bool_false", b"\x00")
v("char_a", be(ord("A"), 4))
v("char_euro", be(0x20AC, 4))
v("f32_1", f32(1.0))
v("f32_minus1", f32(-1.0))
v("f64_0", f64(0.0))
v("f64_minus0", f64(-0.0))
v("f64_nan", f64bits(0x7FF8000000000000))
v("f64_minus_inf", f64(float("-inf")))
v("bytes3", bytes([1, 2, 3]))
v("string_escaped_then_u8", escaped(b"a\x00b") + unsigned(7, 1))
v("string_empty_then_u8", escaped(b"") + unsigned(7, 1))
v("string_last", b"hi")
v("vec_escaped_then_u8", escaped(b"\xff\x00") + unsigned(7, 1))
v("option_u32_none", none(4))
v("option_u32_some", some(unsigned(5, 4)))
v("option_string_none_then_u8", none() + unsigned(7, 1))
v("option_string_some_then_u8", some(escaped(b"x")) + unsigned(7, 1))
v("option_string_last_some", some(b"x"))
v("option_string_last_none", none())
v("fixed8_click", fixed(b"click", 8))
v("fixed4_space_pad", fixed(b"ab", 4, ord(" ")))
v("desc_u16_1", invert(unsigned(1, 2)))
v("desc_string_last", invert(escaped(b"a")))
v("desc_option_u8_none", invert(none(1)))
v("desc_ts_i64_event", desc_ts(1_700_000_000_000, 8))
v("desc_ts_i64_0", desc_ts(0, 8))
v("desc_ts_i64_minus1", desc_ts(-1, 8))
v("desc_ts_u64_5", desc_ts(5, 8))
v("desc_ts_i32_100", desc_ts(100, 4))
v("desc_ts_u32_0", desc_ts(0, 4))
# Option with #[desc_ts]: the tag is inverted too (None last), the value is MAX - ts.
v("desc_ts_option_none", invert(none(8)))
v("desc_ts_option_some", invert(b"\x01") + desc_ts(7, 8))
v("reverse_u32", unsigned(0x01020304, 4)[::-1])
v("reverse_string_then_u8", escaped(b"abc"[::-1]) + unsigned(7, 1))
v("reverse_fixed4", fixed(b"ab"[::-1], 4))
v("desc_reverse_u16", invert(unsigned(0x0102, 2)[::-1]))

# The README's UserEvent: salt(16, by(user_id)) xxh3, u64, desc_ts i64, fixed(8) String.
uid = unsigned(42, 8)
v("user_event", xxh3_salt(uid, 16) + uid + desc_ts(1_700_000_000_000, 8) + fixed(b"click", 8))
# Salt over all fields (the default by), xxh3, 256 buckets.
allf = unsigned(7, 4) + escaped(b"k\x00") + b"tail"
v("salt_all_xxh3_256", xxh3_salt(allf, 256) + allf)
# Java hash, by two non-adjacent fields (OpenTSDB-like: metric, tags; not the timestamp).
metric, base, tags = bytes([0, 0, 1]), unsigned(1_356_998_400, 4), bytes([0, 0, 1, 0, 0, 1])
v("salt_java_metric", java_salt(metric + tags, 20) + metric + base + tags)

# hash = "mod" (binary): the salt byte is the value % buckets.
v("salt_mod_u64", bytes([18518885160 % 10]) + unsigned(18518885160, 8))

# Key families: the prefix, then the salt (hashing the `by` fields as in the key).
order7 = b"D" + unsigned(7, 8)
v("prefix_unsalted", order7)
alice = escaped(b"alice")
v("prefix_salted", b"I" + xxh3_salt(alice, 4) + alice + desc_ts(5, 8) + order7)
# A KeyField enum field: its discriminant in its repr's encoding (u8 200, i16 -5).
v("enum_field", unsigned(200, 1) + signed(-5, 2) + unsigned(7, 4))
# A nested key: its own encoding; #[desc] inverts it whole.
device = unsigned(1, 2) + unsigned(2, 4)
v("nested_key", device + desc_ts(0, 8))
v("nested_key_desc", invert(device) + unsigned(1, 1))

# ---------- text keys (FORMAT.md, "Text keys") ----------

def dec(n, digits, signed=False):
    """Zero-padded decimal; signed: `0` and the digits, or `-` and the
    digits of 10^digits - 1 - |n|."""
    if signed:
        if n < 0:
            return "-" + str(10**digits - 1 - (-n)).zfill(digits)
        return "0" + dec(n, digits)
    s = str(n).zfill(digits)
    assert len(s) == digits
    return s

def dec_desc(n, digits):
    return dec(10**digits - 1 - n, digits)

def text_desc_ts(ts, mx, digits=None):
    assert 0 <= ts <= mx
    return dec(mx - ts, digits or len(str(mx)))

def text_salt(bucket, buckets, sep):
    return dec(bucket, len(str(buckets - 1))) + sep

def pad(s, n, p=" "):
    assert len(s) <= n and not s.endswith(p)
    return s + p * (n - len(s))

T = []
def t(name, text):
    T.append((name, text.encode()))

LONG_MAX, INT_MAX = 2**63 - 1, 2**31 - 1
# The seed keys of the HBase and Bigtable guides.
phone, ts = 18518885160, 1_638_620_506_000
t("text_call_mod", text_salt(phone % 10, 10, "_") + dec(phone, 11) + "_" + text_desc_ts(ts, LONG_MAX))
t("text_call_mod_1", text_salt(11111111111 % 10, 10, "_") + dec(11111111111, 11) + "_" + text_desc_ts(ts, LONG_MAX))
t("text_feed_max", text_desc_ts(1638620506, 9999999999) + "_" + "uid")
t("text_spread_reverse", dec(1638584124, 10)[::-1] + "_" + "user_id")
t("text_follows", "uid1" + "~" + "uid2")
t("text_device", "phone" + "#" + "4c410523" + "#" + dec(20200501, 8))
# Every integer type at its default width, signed below and above zero.
t("text_u8_7", dec(7, 3) + "_")
t("text_u16_max", dec(65535, 5) + "_")
t("text_u32_1", dec(1, 10) + "_")
t("text_u64_max", dec(2**64 - 1, 20) + "_")
t("text_u128_1", dec(1, 39) + "_")
t("text_i8_min", dec(-128, 3, True) + "_")
t("text_i16_minus1", dec(-1, 5, True) + "_")
t("text_i32_0", dec(0, 10, True) + "_")
t("text_i64_minus42", dec(-42, 19, True) + "_")
t("text_i64_max", dec(LONG_MAX, 19, True) + "_")
t("text_i128_5", dec(5, 39, True) + "_")
t("text_digits7", dec(123, 7) + "_")
t("text_desc_u32_1", dec_desc(1, 10) + "_")
t("text_desc_ts_i32", text_desc_ts(1000, INT_MAX) + "_")
t("text_fixed_pad", pad("ab", 6) + "_" + "tail")
# Salts over text: xxh3 of one field's text, 16 buckets (two digits);
# java of two non-adjacent fields joined by the separator.
wide = dec(7, 10)
t("text_salt_xxh3_16", text_salt(xxhash.xxh3_64_intdigest(wide.encode()) % 16, 16, "|") + wide)
region, when, seq = "eu", dec(5, 10), dec(9, 5)
by = (region + "#" + seq).encode()
t("text_salt_java_two_fields", text_salt(abs(java_hash(by)) % 100, 100, "#") + region + "#" + when + "#" + seq)

# A text family: the prefix is the first element.
t("text_prefix", "1" + "_" + "groupid" + "_" + "guid" + "_" + dec(20200501, 8))
guid = "guid"
t("text_prefix_salted", "2" + "_" + text_salt(xxhash.xxh3_64_intdigest(guid.encode()) % 16, 16, "_") + guid + "_" + dec(1, 8))
# KeyField enums in a text key: the discriminant's digits (u8 1, i16 -5).
t("text_enum_field", dec(1, 3) + "_" + dec(-5, 5, True) + "_" + dec(7, 10))

# ---------- added fields (FORMAT.md, "Added fields") ----------

A = []
def a(name, b):
    A.append((name, b))

# Evt { user: u32, seq: u16, #[rowkey(added)] region: Option<u16>,
#       #[rowkey(added)] source: Option<String> }, #[salt(buckets = 8)]:
# the salt hashes the fields every key has; trailing Nones are no bytes.
old = unsigned(77, 4) + unsigned(3, 2)
head = xxh3_salt(old, 8) + old
a("added_none_none", head)
a("added_some_none", head + some(unsigned(7, 2)))
a("added_none_some", head + none(2) + some(escaped(b"a\x00")))
a("added_some_some", head + some(unsigned(1, 2)) + some(escaped(b"")))

# ---------- ecosystem field types (FORMAT.md, "Ecosystem field types") ----------

import datetime
import ipaddress
import uuid

E = []
def e(name, b):
    E.append((name, b if isinstance(b, bytes) else b.encode()))

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
def ulid_int(text):
    n = 0
    for c in text:
        n = n * 32 + CROCKFORD.index(c)
    return n

def ticks(iso, unit):
    """Whole `unit`s since 1970 of an RFC 3339 UTC time with up to 9
    fractional digits, computed from the calendar (not from a clock API)."""
    date, _, frac = iso.rstrip("Z").partition(".")
    dt = datetime.datetime.fromisoformat(date).replace(tzinfo=datetime.timezone.utc)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    delta = dt - epoch
    nanos = (delta.days * 86400 + delta.seconds) * 10**9 + int((frac or "0").ljust(9, "0"))
    per = {"secs": 10**9, "millis": 10**6, "micros": 10**3, "nanos": 1}[unit]
    assert nanos % per == 0
    return nanos // per

U = uuid.UUID("0190b0a0-7e1c-7cc3-8a3b-123456789abc")
e("eco_uuid", U.bytes)
e("eco_uuid_reverse", U.bytes[::-1])
L = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
e("eco_ulid", be(ulid_int(L), 16))
e("eco_ulid_reverse", be(ulid_int(L), 16)[::-1])
e("eco_ipv4", ipaddress.IPv4Address("192.168.1.2").packed)
e("eco_ipv6", ipaddress.IPv6Address("2001:db8::1").packed)
e("eco_ipaddr_v4", b"\x04" + ipaddress.IPv4Address("10.0.0.1").packed + bytes(12))
e("eco_ipaddr_v6", b"\x06" + ipaddress.IPv6Address("::1").packed)
# The HBase guide's timestamp: #[desc_ts] at millis is Long.MAX_VALUE - ts.
ms = ticks("2021-12-04T12:21:46Z", "millis")
assert ms == 1_638_620_506_000
e("eco_ts_millis", signed(ms, 8))
e("eco_ts_desc_millis", be(LONG_MAX - ms, 8))
e("eco_ts_secs_before_1970", signed(ticks("1969-07-20T20:17:40Z", "secs"), 8))
e("eco_ts_micros", signed(ticks("2024-02-29T12:00:00.123456Z", "micros"), 8))
e("eco_ts_nanos", signed(ticks("2262-04-11T23:47:16.854775807Z", "nanos"), 8))
e("eco_ts_option_none", none(8))
e("eco_ts_option_some", some(signed(ms, 8)))
# Text keys.
e("eco_text_uuid", str(U) + "_" + str(U)[::-1])
e("eco_text_ulid", L)
e("eco_text_ipv4", ".".join(f"{int(o):03}" for o in "192.168.1.2".split(".")))
e("eco_text_ipv6", ipaddress.IPv6Address("2001:db8::1").exploded)
e("eco_text_ipaddr", "4" + ipaddress.IPv6Address("::ffff:10.0.0.1").exploded + "_" + "6" + ipaddress.IPv6Address("::1").exploded)
e("eco_text_ts", dec(ms, 19, True) + "_" + text_desc_ts(ms, LONG_MAX) + "_" + dec(ticks("1969-07-20T20:17:40Z", "secs"), 19, True))

# ---------- Bigtable OrderedCodeBytes (FORMAT.md, "Bigtable OrderedCodeBytes") ----------

O = []
def o(name, b):
    O.append((name, b))

def oc_int64(v):
    """Int64: n one bits, a zero bit, then the magnitude in the 7n - 1 bits
    left of n bytes; a negative value is written as ~v is, inverted."""
    neg = v < 0
    m = ~v if neg else v
    assert 0 <= m < 1 << 63
    n = 1
    while m >= 1 << (7 * n - 1):
        n += 1
    x = (((1 << n) - 1) << (7 * n)) | m
    b = x.to_bytes(n, "big")
    return invert(b) if neg else b

def oc_field(content, desc, term):
    b = b"\x00\x00" if content == b"" else content.replace(b"\x00", b"\x00\xff")
    if term or desc:
        b += b"\x00\x01"
    return invert(b) if desc else b

def oc_struct(fields):
    """fields: (content, is_string, desc). Trailing empty ascending strings
    are not written, nor the terminator before them; no field at all is
    00 00."""
    kept = len(fields)
    while kept and fields[kept - 1][1] and not fields[kept - 1][2] and fields[kept - 1][0] == b"":
        kept -= 1
    if kept == 0:
        return b"\x00\x00"
    return b"".join(oc_field(c, d, i < kept - 1) for i, (c, _, d) in enumerate(fields[:kept]))

def I(v, desc=False):
    return (oc_int64(v), False, desc)

def S(v, desc=False):
    return (v.encode() if isinstance(v, str) else v, True, desc)

def oc_salt(bucket):
    # The bucket is a struct field: a one-byte Int64.
    return (oc_int64(bucket), False, False)

# Int64 at the length boundaries (FORMAT.md's examples).
assert oc_int64(0) == b"\x80" and oc_int64(63) == b"\xbf" and oc_int64(64) == b"\xc0\x40"
assert oc_int64(-1) == b"\x7f" and oc_int64(-65) == b"\x3f\xbf"
assert oc_int64(2**63 - 1) == bytes.fromhex("FFC07FFFFFFFFFFFFFFF")
assert oc_int64(-2**63) == bytes.fromhex("003F8000000000000000")
# Google's documented structs.
assert oc_struct([S("A"), S(""), S("C")]) == bytes.fromhex("41000100000001 43".replace(" ", ""))
assert oc_struct([S(""), S("A", desc=True)]) == bytes.fromhex("00000001BEFFFE")

# Event { user: i64, #[desc] ts: i64, kind: String }
o("oc_event", oc_struct([I(42), I(1_700_000_000_000, desc=True), S("click")]))
o("oc_event_no_kind", oc_struct([I(42), I(1_700_000_000_000, desc=True), S("")]))
o("oc_event_negative", oc_struct([I(-65), I(-1, desc=True), S("view")]))
o("oc_event_extremes", oc_struct([I(-2**63), I(2**63 - 1, desc=True), S("\x00")]))
# Google's documented STRUCT("A", "", "C"), STRUCT("A", ""), STRUCT("", "")
# as Abc { a: String, b: String, c: String } and Pair { a: String, b: String }.
o("oc_google_a_empty_c", oc_struct([S("A"), S(""), S("C")]))
o("oc_google_a", oc_struct([S("A"), S(""), S("")]))
o("oc_google_empty", oc_struct([S(""), S("")]))
# Escapes: a zero in a string, in bytes and in an Int64 (256 is C1 00).
# Escaped { n: i64, s: String, #[desc] b: Vec<u8>, t: Vec<u8> }
o("oc_escaped", oc_struct([I(256), S("a\x00b"), S(b"\x00\xff", desc=True), S(b"\x00")]))
o("oc_escaped_dropped", oc_struct([I(0), S(""), S(b"", desc=True), S(b"")]))
# Narrow { a: u8, b: i16, c: u32, #[desc] d: i8 }
o("oc_narrow", oc_struct([I(255), I(-32768), I(4294967295), I(-128, desc=True)]))
# Tagged: prefix = b"t\0", salt(buckets = 8, by(user)) xxh3 over the
# user's Int64 encoding; { user: i64, name: String }.
user = 42
bucket = xxhash.xxh3_64_intdigest(oc_int64(user)) % 8
o("oc_tagged", oc_struct([S(b"t\x00"), oc_salt(bucket), I(user), S("ann")]))
o("oc_tagged_no_name", oc_struct([S(b"t\x00"), oc_salt(bucket), I(user), S("")]))
# Java: salt(buckets = 64, by(site, page), hash = "java") over the site's
# Int64 encoding then the page's bytes; { site: i32, page: String, n: i64 }.
site, page = -7, "/home"
jb = java_salt(oc_int64(site) + page.encode(), 64)[0]
o("oc_java", oc_struct([oc_salt(jb), I(site), S(page), I(3)]))

rows = {"text": T, "added": A, "ecosystem": E, "ordered_code": O}.get(sys.argv[1] if sys.argv[1:] else "", V)
for name, b in rows:
    if rows is T or name.startswith("eco_text"):
        print(f"# {b.decode()}")
    print(f"{name} {b.hex().upper()}")
