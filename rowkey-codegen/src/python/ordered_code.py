

# Bigtable's OrderedCodeBytes struct (FORMAT.md, "Bigtable OrderedCodeBytes").

def _oc_int64(v):
    """An Int64's shortest OrderedCodeBytes encoding."""
    neg = v < 0
    m = ~v if neg else v
    n = max(1, -(-(m.bit_length() + 1) // 7))
    b = (m | (((1 << n) - 1) << (7 * n))).to_bytes(n, "big")
    return bytes(255 - c for c in b) if neg else b


def _oc_int(v, bits, signed, field):
    """An integer field's value (checked to be of its type) as an Int64."""
    _int(v, bits, signed, field)
    return _oc_int64(v)


def _oc_unint64(b, bits, signed, field):
    """The Int64 of exactly `b`'s bytes, in the field type's range."""
    bad = _fail(field, "not the shortest OrderedCodeBytes encoding of an Int64")
    if not b:
        raise bad
    neg = b[0] & 0x80 == 0
    if neg:
        b = bytes(255 - c for c in b)
    head = (b[0] << 8) | (b[1] if len(b) > 1 else 0)
    n = 0
    while n < 16 and head & (0x8000 >> n):
        n += 1
    if not 1 <= n <= 10 or len(b) != n:
        raise bad
    m = int.from_bytes(b, "big") & ~(((1 << n) - 1) << (7 * n))
    if m >= 1 << 63 or max(1, -(-(m.bit_length() + 1) // 7)) != n:
        raise bad
    v = ~m if neg else m
    lo, hi = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1))
    if not lo <= v <= hi:
        raise _fail(field, "the Int64 is out of the field type's range")
    return v


def _oc_field(content, desc):
    """A field as a key stores it when more follow: escaped (`00 00` when
    empty) and terminated, inverted when descending."""
    out = (content.replace(b"\x00", b"\x00\xff") if content else b"\x00\x00") + b"\x00\x01"
    return _inv(out) if desc else out


def _oc_join(fields, droppable):
    """A key's fields: trailing droppable ones (empty ascending strings) not
    written, the last one written without its terminator when ascending,
    `00 00` for a key of none."""
    kept = len(fields)
    while kept and droppable[kept - 1]:
        kept -= 1
    if not kept:
        return b"\x00\x00"
    out = b"".join(fields[:kept])
    if fields[kept - 1][-2:] == b"\x00\x01":
        out = out[:-2]
    return out


def _oc_read(key, pos, is_int, to_end, desc, field):
    """A field's unescaped content and the position after it; `to_end`:
    the key's end may end it (an ascending field a key may write last)."""
    flip = 0xFF if desc else 0
    n = len(key)
    at = lambda i: key[i] ^ flip if i < n else None
    if pos >= n:
        if to_end and not is_int:
            return b"", pos
        raise _fail(field, "the key ends before the field")
    if at(pos) == 0 and at(pos + 1) == 0:
        if is_int:
            raise _fail(field, "an Int64 is never empty, and 00 00 marks an empty field")
        after = pos + 2
        if to_end and after == n:
            return b"", after
        if at(after) == 0 and at(after + 1) == 1:
            return b"", after + 2
        raise _fail(field, "no terminator after the empty field's 00 00")
    content = bytearray()
    i = pos
    while True:
        if i >= n:
            if not to_end:
                raise _fail(field, "no terminator")
            nxt = n
            break
        c = key[i] ^ flip
        if c != 0:
            content.append(c)
            i += 1
            continue
        d = at(i + 1)
        if d == 0xFF:
            content.append(0)
            i += 2
        elif d == 1:
            if i == pos:
                raise _fail(field, "a terminator with no field before it: an empty field is 00 00")
            nxt = i + 2
            break
        else:
            raise _fail(field, "an escape byte 00 not followed by FF or 01")
    return bytes(content), nxt


def _oc_cut(fields, droppable, desc):
    """Where the lowest key with these leading fields ends: after the last
    field that is not droppable, without its terminator when ascending
    (`None`: no field yet)."""
    cut = None
    at = 0
    for f, drop, d in zip(fields, droppable, desc):
        if not drop:
            cut = at + len(f) - (0 if d else 2)
        elif cut is None:
            cut = 0
        at += len(f)
    return cut
