package rowkey.hbase;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;

/**
 * rowkey's skip-scan filter on HBase's region servers: a serialized
 * {@code rowkey_core::KeyFilter} (FORMAT.md, "The server-side filter"),
 * answering for each row what the Rust filter's {@code matches} and
 * {@code seek_hint} answer. A row that does not match is skipped with a seek
 * to the smallest row after it that could ({@link #getNextCellHint}), as
 * Phoenix's {@code SkipScanFilter} and HBase's {@code FuzzyRowFilter} do.
 *
 * <p>Deployed as a jar of this class alone, which needs nothing beyond
 * HBase's client API: in each region server's {@code lib/} (or on
 * {@code HBASE_CLASSPATH}), then a rolling restart, and on the Thrift2
 * gateways too (they deserialize a scan's filter before sending it on). rowkey-hbase sends it
 * only when told the servers have it ({@code ClientBuilder::server_filter}).
 *
 * <p>Every rule here is a copy of {@code rowkey-core/src/scan/filter.rs} and
 * {@code width.rs}, checked against them on random layouts, filters and keys
 * by {@code rowkey-hbase/tests/server_filter.rs}.
 */
public final class KeyFilter extends FilterBase {
  /** Rows this JVM's filters have looked at, for tests and operators. */
  private static final AtomicLong ROWS_READ = new AtomicLong();
  /** Seeks this JVM's filters have asked for. */
  private static final AtomicLong SEEKS = new AtomicLong();

  private static final int FIXED = 0;
  private static final int ESCAPED = 1;
  private static final int ESCAPED_DESC = 2;
  private static final int RAW = 3;
  private static final int TAGGED = 4;
  private static final int DELIMITED = 5;

  /** What {@code end} says of a part: its end, or one of these. */
  private static final int CUT = -1;
  private static final int INVALID = -2;

  /** One part of the key: how it is delimited and what it must hold. */
  private static final class Part {
    int width;
    int fixed;
    boolean desc;
    boolean raw;
    byte[] sep;
    boolean added;
    /** Sorted, disjoint {@code [lo, hi)}; {@code hi == null} unbounded. */
    byte[][] lo;
    byte[][] hi;
  }

  private final byte[] serialized;
  private final Part[] parts;
  /** A part allows nothing: no key matches. */
  private final boolean never;

  private byte[] row;
  private boolean rowMatches;
  private byte[] hint;
  private boolean done;

  private KeyFilter(byte[] serialized) throws DeserializationException {
    this.serialized = serialized;
    Reader r = new Reader(serialized);
    byte[] magic = r.bytes(4);
    if (!Arrays.equals(magic, new byte[] {'R', 'K', 'F', 1})) {
      throw new DeserializationException("not a rowkey KeyFilter of version 1");
    }
    int n = r.length();
    parts = new Part[n];
    boolean none = false;
    for (int i = 0; i < n; i++) {
      Part p = new Part();
      p.width = r.u8();
      switch (p.width) {
        case FIXED -> p.fixed = r.length();
        case ESCAPED, RAW -> { }
        case ESCAPED_DESC -> p.desc = true;
        case TAGGED -> {
          int flags = r.u8();
          p.desc = (flags & 1) != 0;
          p.raw = (flags & 2) != 0;
        }
        case DELIMITED -> {
          p.sep = r.bytes(r.length());
          if (p.sep.length == 0) {
            throw new DeserializationException("part " + i + ": an empty separator");
          }
        }
        default -> throw new DeserializationException("part " + i + ": width " + p.width);
      }
      p.added = r.flag();
      if (r.flag()) {
        int count = r.length();
        p.lo = new byte[count][];
        p.hi = new byte[count][];
        for (int j = 0; j < count; j++) {
          p.lo[j] = r.bytes(r.length());
          p.hi[j] = r.flag() ? r.bytes(r.length()) : null;
        }
        none |= count == 0;
      }
      parts[i] = p;
    }
    if (!r.atEnd()) {
      throw new DeserializationException("bytes after the last part");
    }
    never = none;
  }

  /** HBase's deserializer: the filter from {@link #toByteArray}. */
  public static KeyFilter parseFrom(byte[] bytes) throws DeserializationException {
    try {
      return new KeyFilter(bytes);
    } catch (ArrayIndexOutOfBoundsException | NegativeArraySizeException e) {
      throw new DeserializationException("a rowkey KeyFilter cut short");
    }
  }

  @Override
  public byte[] toByteArray() {
    return serialized.clone();
  }

  /** Rows the filters of this JVM have looked at since it started. */
  public static long rowsRead() {
    return ROWS_READ.get();
  }

  /** Seeks the filters of this JVM have asked for since it started. */
  public static long seeks() {
    return SEEKS.get();
  }

  @Override
  public void reset() {
    row = null;
  }

  @Override
  public boolean filterRowKey(Cell first) {
    ROWS_READ.incrementAndGet();
    return false;
  }

  @Override
  public ReturnCode filterCell(Cell c) {
    if (row == null || !CellUtil.matchingRows(c, row)) {
      row = CellUtil.cloneRow(c);
      rowMatches = matches(row);
      hint = null;
      if (!rowMatches && !isReversed()) {
        hint = seekHint(row);
        if (hint == null) {
          done = true;
        } else {
          SEEKS.incrementAndGet();
        }
      }
    }
    if (rowMatches) {
      return ReturnCode.INCLUDE;
    }
    return hint != null ? ReturnCode.SEEK_NEXT_USING_HINT : ReturnCode.NEXT_ROW;
  }

  @Override
  public Cell getNextCellHint(Cell current) {
    return hint == null ? null : PrivateCellUtil.createFirstOnRow(hint);
  }

  @Override
  public boolean filterAllRemaining() {
    return done;
  }

  // ---- The rules of rowkey-core's KeyFilter ----

  /** Where part {@code i}, starting at {@code pos}, ends in {@code x}. */
  private int end(int i, byte[] x, int len, int pos) {
    Part p = parts[i];
    switch (p.width) {
      case FIXED:
        return len >= pos + p.fixed ? pos + p.fixed : CUT;
      case ESCAPED:
      case ESCAPED_DESC:
        return escapedEnd(x, len, pos, p.desc);
      case RAW:
        return Math.max(len, pos);
      case TAGGED: {
        if (pos >= len) {
          return CUT;
        }
        int tag = (x[pos] ^ (p.desc ? 0xFF : 0)) & 0xFF;
        if (tag == 0) {
          return p.added && pos + 1 == len ? INVALID : pos + 1;
        }
        if (tag == 1) {
          return p.raw ? len : escapedEnd(x, len, pos + 1, p.desc);
        }
        return INVALID;
      }
      default: {
        byte[] sep = p.sep;
        outer:
        for (int at = pos; at + sep.length <= len; at++) {
          for (int k = 0; k < sep.length; k++) {
            if (x[at + k] != sep[k]) {
              continue outer;
            }
          }
          return at + sep.length;
        }
        return CUT;
      }
    }
  }

  /** Where an escaped string ends: {@code 00 FF} an escaped zero, {@code 00 01} the end. */
  private static int escapedEnd(byte[] x, int len, int pos, boolean desc) {
    int flip = desc ? 0xFF : 0;
    for (int i = pos; i < len; i++) {
      if (((x[i] ^ flip) & 0xFF) != 0) {
        continue;
      }
      if (i + 1 >= len) {
        return CUT;
      }
      int next = (x[i + 1] ^ flip) & 0xFF;
      if (next == 0xFF) {
        i++;
      } else if (next == 0x01) {
        return i + 2;
      } else {
        return INVALID;
      }
    }
    return CUT;
  }

  /** Whether {@code key} is a key of the layout whose fields satisfy every predicate. */
  public boolean matches(byte[] key) {
    int pos = 0;
    for (int i = 0; i < parts.length; i++) {
      Part p = parts[i];
      if (pos == key.length && p.added) {
        for (int j = i; j < parts.length; j++) {
          if (parts[j].lo != null) {
            return false;
          }
        }
        return true;
      }
      int end = end(i, key, key.length, pos);
      if (end < 0) {
        return false;
      }
      if (p.lo != null && !contains(p, key, pos, end)) {
        return false;
      }
      pos = end;
    }
    return pos == key.length;
  }

  /**
   * The smallest key at or after {@code key} that could match; {@code null}
   * when none can. Rust: {@code KeyFilter::seek_hint}.
   */
  public byte[] seekHint(byte[] key) {
    if (never) {
      return null;
    }
    byte[] hint = lowerBound(key);
    if (hint == null) {
      return null;
    }
    if (Arrays.compareUnsigned(hint, key) > 0 || matches(key)) {
      return hint;
    }
    return Arrays.copyOf(key, key.length + 1);
  }

  private byte[] lowerBound(byte[] key) {
    Buf x = new Buf(key);
    restart:
    while (true) {
      int pos = 0;
      int i = 0;
      while (i < parts.length) {
        Part p = parts[i];
        int end = end(i, x.b, x.len, pos);
        if (end >= 0) {
          if (p.lo == null || contains(p, x.b, pos, end)) {
            pos = end;
            i++;
            continue;
          }
          int next = nextAfter(p, x.b, pos, end);
          if (next < 0) {
            if (!x.prefixStop(pos)) {
              return null;
            }
            continue restart;
          }
          if (!jump(i, x, pos, p.lo[next])) {
            return x.bytes();
          }
          pos = x.len;
          i++;
        } else if (end == CUT) {
          if (p.lo == null) {
            if (p.width != FIXED) {
              return x.bytes();
            }
            x.zeros(pos + p.fixed);
            pos += p.fixed;
            i++;
            continue;
          }
          int next = nextAfter(p, x.b, pos, x.len);
          if (next < 0) {
            if (!x.prefixStop(pos)) {
              return null;
            }
            continue restart;
          }
          byte[] lo = p.lo[next];
          if (Arrays.compareUnsigned(x.b, pos, x.len, lo, 0, lo.length) < 0) {
            if (!jump(i, x, pos, lo)) {
              return x.bytes();
            }
            pos = x.len;
            i++;
          } else {
            return x.bytes();
          }
        } else {
          return x.bytes();
        }
      }
      if (pos == x.len) {
        return x.bytes();
      }
      if (!x.prefixStop(pos)) {
        return null;
      }
    }
  }

  /** Puts {@code lo} as part {@code i} at {@code pos}; whether it is a whole value of the part. */
  private boolean jump(int i, Buf x, int pos, byte[] lo) {
    x.len = pos;
    x.append(lo);
    return end(i, x.b, x.len, pos) == x.len;
  }

  /** Whether {@code x[from, to)} lies in one of the part's intervals. */
  private static boolean contains(Part p, byte[] x, int from, int to) {
    // The last interval starting at or before the value.
    int lo = 0;
    int hi = p.lo.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(p.lo[mid], 0, p.lo[mid].length, x, from, to) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) {
      return false;
    }
    byte[] end = p.hi[lo - 1];
    return end == null || Arrays.compareUnsigned(x, from, to, end, 0, end.length) < 0;
  }

  /** The first interval that ends after {@code x[from, to)}; -1 when none does. */
  private static int nextAfter(Part p, byte[] x, int from, int to) {
    int lo = 0;
    int hi = p.lo.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      byte[] end = p.hi[mid];
      if (end != null && Arrays.compareUnsigned(end, 0, end.length, x, from, to) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < p.lo.length ? lo : -1;
  }

  /** A growable key. */
  private static final class Buf {
    byte[] b;
    int len;

    Buf(byte[] key) {
      b = Arrays.copyOf(key, Math.max(16, key.length * 2));
      len = key.length;
    }

    void append(byte[] more) {
      ensure(len + more.length);
      System.arraycopy(more, 0, b, len, more.length);
      len += more.length;
    }

    /** Zeros up to {@code n} bytes. */
    void zeros(int n) {
      ensure(n);
      Arrays.fill(b, len, n, (byte) 0);
      len = n;
    }

    /** The first {@code n} bytes' successor as a prefix: the last byte below FF plus one. */
    boolean prefixStop(int n) {
      int keep = n - 1;
      while (keep >= 0 && b[keep] == (byte) 0xFF) {
        keep--;
      }
      if (keep < 0) {
        return false;
      }
      b[keep]++;
      len = keep + 1;
      return true;
    }

    byte[] bytes() {
      return Arrays.copyOf(b, len);
    }

    private void ensure(int n) {
      if (n > b.length) {
        b = Arrays.copyOf(b, Math.max(n, b.length * 2));
      }
    }
  }

  /** The serialized form's reader: varints, flags and byte strings. */
  private static final class Reader {
    private final byte[] b;
    private int pos;

    Reader(byte[] b) {
      this.b = b;
    }

    int u8() {
      return b[pos++] & 0xFF;
    }

    boolean flag() throws DeserializationException {
      int v = u8();
      if (v > 1) {
        throw new DeserializationException("a flag of " + v + " at byte " + (pos - 1));
      }
      return v == 1;
    }

    /** A varint that is a length: at most what is left of the input. */
    int length() throws DeserializationException {
      long v = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        int x = u8();
        v |= (long) (x & 0x7F) << shift;
        if ((x & 0x80) == 0) {
          if (v > b.length) {
            throw new DeserializationException("a length of " + v + " in " + b.length + " bytes");
          }
          return (int) v;
        }
      }
      throw new DeserializationException("a varint longer than 5 bytes");
    }

    byte[] bytes(int n) throws DeserializationException {
      if (n > b.length - pos) {
        throw new DeserializationException("a rowkey KeyFilter cut short");
      }
      byte[] out = Arrays.copyOfRange(b, pos, pos + n);
      pos += n;
      return out;
    }

    boolean atEnd() {
      return pos == b.length;
    }
  }
}
