
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


def _variant(cls, v, field):
    try:
        return cls(v)
    except ValueError:
        raise _fail(field, f"{v!r} is not the discriminant of a variant of {cls.__name__}") from None


def _char(v, field):
    if not isinstance(v, str) or len(v) != 1:
        raise _fail(field, "expected a str of one character")
    c = ord(v)
    if 0xD800 <= c <= 0xDFFF:
        raise _fail(field, f"{c:#x} is a surrogate, no char")
    return c.to_bytes(4, "big")


def _unchar(b, field):
    c = int.from_bytes(b, "big")
    if c > 0x10FFFF or 0xD800 <= c <= 0xDFFF:
        raise _fail(field, f"{c:#x} is no char")
    return chr(c)


def _float(v, bits, field):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _fail(field, f"expected a float, got {type(v).__name__}")
    fmt = ">f" if bits == 32 else ">d"
    try:
        b = struct.pack(fmt, v)
    except (OverflowError, struct.error):
        raise _fail(field, f"{v} does not fit an f{bits}") from None
    back = struct.unpack(fmt, b)[0]
    if back != v and not (back != back and v != v):
        raise _fail(field, f"{v} is not exactly an f{bits}")
    u = int.from_bytes(b, "big")
    top = 1 << (bits - 1)
    u = u ^ top if u < top else u ^ ((1 << bits) - 1)
    return u.to_bytes(bits // 8, "big")


def _unfloat(b, bits):
    u = int.from_bytes(b, "big")
    top = 1 << (bits - 1)
    u = u ^ top if u >= top else u ^ ((1 << bits) - 1)
    return struct.unpack(">f" if bits == 32 else ">d", u.to_bytes(bits // 8, "big"))[0]


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


def _isdigits(b):
    return len(b) > 0 and all(0x30 <= x <= 0x39 for x in b)


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


def _eq_ranges(heads, p, exact, cut=None):
    """`cut`: where the lowest key with these fields ends (an ordered-code
    key's, shorter than `p`)."""
    low = p if cut is None else p[:cut]
    return [(h + low, h + p + b"\x00" if exact else _succ(h + p)) for h in heads]


def _range_ranges(heads, p, lo, hi, lo_incl, hi_incl, desc, raw, cuts=(None, None, None)):
    """`cuts`: where the lowest key with the leading fields, with them and
    `lo`, and with them and `hi` ends (an ordered-code key's), or `None`."""
    p_cut, lo_cut, hi_cut = cuts
    if desc:
        lo, hi, lo_incl, hi_incl, lo_cut, hi_cut = hi, lo, hi_incl, lo_incl, hi_cut, lo_cut
    low = lambda b, cut: b if cut is None else b[:cut]
    # The first row after every key whose field is `v`: after the prefix
    # of its bytes, or (a raw last field) after the one key.
    after = (lambda b: b + b"\x00") if raw else _succ
    out = []
    for h in heads:
        base = h + p
        if lo is None:
            start = h + low(p, p_cut)
        else:
            start = h + low(p + lo, lo_cut) if lo_incl else after(base + lo)
        # `None`: to the end of the table (an empty stop row in HBase).
        if hi is None:
            stop = _succ(base) or None
        elif hi_incl:
            stop = after(base + hi) or None
        else:
            stop = h + low(p + hi, hi_cut)
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


def _uuid(v, field):
    if not isinstance(v, uuid.UUID):
        raise _fail(field, f"expected a uuid.UUID, got {type(v).__name__}")
    return v.bytes


def _uuid_text(v, field):
    return str(uuid.UUID(bytes=_uuid(v, field))).encode()


def _unuuid_text(b, field):
    s = bytes(b).decode("ascii", "replace")
    if not _UUID_TEXT.fullmatch(s):
        raise _fail(field, f"{s!r} is not a lowercase hyphenated UUID")
    return uuid.UUID(s)


_UUID_TEXT = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _from_time(v, nanos, field):
    """A timezone-aware datetime as whole units (`nanos` nanoseconds each) since the epoch."""
    if not isinstance(v, datetime.datetime) or v.utcoffset() is None:
        raise _fail(field, f"expected a timezone-aware datetime.datetime, got {v!r}")
    d = v - _EPOCH
    n = ((d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds) * 1000
    if n % nanos:
        raise _fail(field, "the timestamp is finer than its unit stores; round it first")
    return n // nanos


def _to_time(n, nanos, field):
    """Whole units since the epoch as a datetime in UTC."""
    total = n * nanos
    if total % 1000:
        raise _fail(field, f"{n} is finer than a datetime holds (microseconds)")
    try:
        return _EPOCH + datetime.timedelta(microseconds=total // 1000)
    except OverflowError:
        raise _fail(field, f"{n} is outside the years a datetime holds (1 to 9999)") from None


def _rev(b):
    return bytes(b)[::-1]


def _domain(b):
    """A name's labels (split at `.`) in reverse order: its own inverse."""
    return b".".join(reversed(bytes(b).split(b".")))


def _trim_added(fields, added):
    """The fields without the trailing added ones that are None (no bytes)."""
    n = len(fields)
    for v in reversed(added):
        if v is not None:
            break
        n -= 1
    return fields[:n]


def _ipv4(v, field):
    if not isinstance(v, ipaddress.IPv4Address):
        raise _fail(field, f"expected an ipaddress.IPv4Address, got {v!r}")
    return v.packed


def _ipv6(v, field):
    if not isinstance(v, ipaddress.IPv6Address):
        raise _fail(field, f"expected an ipaddress.IPv6Address, got {v!r}")
    return v.packed


def _ip(v, field):
    """An IpAddr: `04`, the 4 octets and 12 zero bytes, or `06` and the 16."""
    if isinstance(v, ipaddress.IPv4Address):
        return b"\x04" + v.packed + bytes(12)
    return b"\x06" + _ipv6(v, field)


def _unip(b, field):
    if b[0] == 4 and not any(b[5:]):
        return ipaddress.IPv4Address(bytes(b[1:5]))
    if b[0] == 6:
        return ipaddress.IPv6Address(bytes(b[1:]))
    raise _fail(field, f"{bytes(b).hex()} is not an IpAddr (04, 4 octets and zeros, or 06 and 16 octets)")


def _ipv4_text(v, field):
    return ".".join(f"{o:03d}" for o in _ipv4(v, field)).encode()


def _ipv6_text(v, field):
    p = _ipv6(v, field)
    return ":".join(p[i:i + 2].hex() for i in range(0, 16, 2)).encode()


def _ip_text(v, field):
    if isinstance(v, ipaddress.IPv4Address):
        return b"4" + _ipv6_text(ipaddress.IPv6Address(bytes(10) + b"\xff\xff" + v.packed), field)
    return b"6" + _ipv6_text(v, field)


_IPV4_TEXT = re.compile("[0-9]{3}\\.[0-9]{3}\\.[0-9]{3}\\.[0-9]{3}")
_IPV6_TEXT = re.compile("[0-9a-f]{4}(:[0-9a-f]{4}){7}")


def _unipv4_text(b, field):
    s = bytes(b).decode("ascii", "replace")
    octets = [int(o) for o in s.split(".")] if _IPV4_TEXT.fullmatch(s) else []
    if len(octets) != 4 or max(octets) > 255:
        raise _fail(field, f"{s!r} is not an IPv4 address as 4 octets of 3 digits")
    return ipaddress.IPv4Address(bytes(octets))


def _unipv6_text(b, field):
    s = bytes(b).decode("ascii", "replace")
    if not _IPV6_TEXT.fullmatch(s):
        raise _fail(field, f"{s!r} is not an IPv6 address as 8 groups of 4 lowercase hex digits")
    return ipaddress.IPv6Address(bytes.fromhex(s.replace(":", "")))


def _unip_text(b, field):
    if b[:1] == b"6":
        return _unipv6_text(b[1:], field)
    if b[:1] == b"4":
        v6 = _unipv6_text(b[1:], field)
        if v6.ipv4_mapped is None:
            raise _fail(field, "4 and an IPv6 address that is not an IPv4-mapped one")
        return v6.ipv4_mapped
    raise _fail(field, f"{bytes(b[:1])!r} is not an IpAddr's 4 or 6")


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _ulid(v, field):
    if not isinstance(v, (bytes, bytearray)) or len(v) != 16:
        raise _fail(field, f"expected a ULID's 16 bytes, got {v!r}")
    return bytes(v)


def _ulid_text(v, field):
    n = int.from_bytes(_ulid(v, field), "big")
    return "".join(_CROCKFORD[(n >> (5 * (25 - i))) & 31] for i in range(26)).encode()


def _unulid_text(b, field):
    s = bytes(b).decode("ascii", "replace")
    if len(s) != 26 or any(c not in _CROCKFORD for c in s) or s[0] > "7":
        raise _fail(field, f"{s!r} is not a ULID as 26 uppercase Crockford base32 characters")
    n = 0
    for c in s:
        n = n * 32 + _CROCKFORD.index(c)
    return n.to_bytes(16, "big")


def _opaque(v, n, field):
    """A value the runtime does not know (a user's FixedField): its n bytes."""
    if not isinstance(v, (bytes, bytearray)) or len(v) != n:
        raise _fail(field, f"expected {n} bytes, got {v!r}")
    return bytes(v)


class _Layout:
    """What the rules of a key's head and separators need of its layout: its
    prefix, separator, salt buckets (0: none), the digits of a text key's
    bucket (0: a binary key's byte) and whether the salt is an ordered-code
    Int64 field. Each generated module binds its own (`_head = _L.head`...)."""

    def __init__(self, prefix, sep, buckets, bucket_digits, oc_salt):
        self.prefix, self.sep, self.buckets = prefix, sep, buckets
        self.bucket_digits, self.oc_salt = bucket_digits, oc_salt

    def head(self, bucket):
        """The prefix and the salt: the bucket's byte, or its digits and SEP, or
        (an ordered-code key) its one-byte Int64 field."""
        if self.oc_salt:
            return self.prefix + bytes([0x80 | bucket, 0, 1])
        if self.bucket_digits:
            return self.prefix + str(bucket).zfill(self.bucket_digits).encode() + self.sep
        return self.prefix + bytes([bucket])

    def split(self, bucket):
        """A split point: the bucket's head without its separator (an
        ordered-code key's: without the salt field's terminator)."""
        h = self.head(bucket)
        return h[:-2] if self.oc_salt else h[:len(h) - len(self.sep)]

    def unhead(self, key, pos, field):
        if self.oc_salt:
            head = _take(key, pos, 3, field)
            if not 0x80 <= head[0] <= 0xBF:
                raise _fail(field, "the salt bucket is not a one-byte OrderedCodeBytes Int64 (80 to BF)")
            if head[1:] != b"\x00\x01":
                raise _fail(field, "no terminator after the salt bucket")
            salt, pos = head[0] & 0x3F, pos + 3
        elif self.bucket_digits:
            text = _take(key, pos, self.bucket_digits, field)
            if not _isdigits(text):
                raise _fail(field, f"{text!r} is not a bucket's digits")
            salt = int(text)
            pos = self.expect_sep(key, pos + self.bucket_digits, field)
        else:
            salt = _take(key, pos, 1, field)[0]
            pos += 1
        if salt >= self.buckets:
            raise _fail(field, f"bucket {salt} is not below {self.buckets}")
        return pos

    def heads(self, bucket):
        if self.buckets == 0:
            return [self.prefix]
        if bucket is not None:
            return [self.head(bucket)]
        return [self.head(b) for b in range(self.buckets)]

    def lead(self, fields, n):
        """The bytes of the leading fields (SEP after each when more follow)."""
        if not fields:
            return b""
        return self.sep.join(fields) + (self.sep if len(fields) < n else b"")

    def expect_sep(self, key, pos, field):
        if key[pos:pos + len(self.sep)] != self.sep:
            raise _fail(field, f"the separator {self.sep!r} does not follow")
        return pos + len(self.sep)

    def delim(self, b, field):
        if self.sep in b:
            raise _fail(field, f"the value holds the separator {self.sep!r}")
        for n in range(1, len(self.sep)):
            if b.endswith(self.sep[:n]):
                raise _fail(field, f"the value ends with the start of the separator {self.sep!r}")
        return b

    def undelim(self, key, pos, field):
        end = key.find(self.sep, pos)
        if end < 0:
            raise _fail(field, f"no separator {self.sep!r} ends the field")
        return self.delim(key[pos:end], field), end + len(self.sep)
