package rowkey.hbase;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * rowkey's skip-scan filter on HBase's region servers: a serialized
 * {@code rowkey_core::KeyFilter} (FORMAT.md, "The server-side filter"),
 * answering for each row what the Rust filter's {@code matches} and
 * {@code seek_hint} answer. A row that does not match is skipped with a seek
 * to the smallest row after it that could ({@link #getNextCellHint}), as
 * Phoenix's {@code SkipScanFilter} and HBase's {@code FuzzyRowFilter} do.
 *
 * <p>It runs in HBase's handler threads, so it trusts nothing it is sent:
 * {@link #parseFrom} refuses, with a {@link DeserializationException} naming
 * the fault, any filter the Rust builder could not have written (unsorted,
 * overlapping or empty intervals, an interval of a fixed-width part holding
 * no whole value, unknown widths or flags) or that passes the caps
 * ({@link #MAX_PARTS} parts, {@link #MAX_ROW} bytes spanned, separators of
 * {@link #MAX_SEPARATOR} bytes, {@link #MAX_INTERVALS} intervals a part).
 * A seek hint's walk makes at most {@link #MAX_PASSES} passes over a key;
 * past that the hint is the key followed by {@code 00}, so the work per row
 * is bounded and every hint moves forward. Nothing is thrown while
 * filtering. The checks, their order and their messages are those of
 * {@code rowkey_core::scan::WireFilter::decode}, and both answer one corpus
 * ({@code rowkey-hbase/tests/data/filter_corpus.txt}) the same.
 *
 * <p>Deployed as its own jar ({@code rowkey-hbase-filter}, Java 8 bytecode,
 * nothing beyond HBase's client API): in each region server's {@code lib/}
 * (or on {@code HBASE_CLASSPATH}), then a rolling restart, and on the
 * Thrift2 gateways too (they deserialize a scan's filter before sending it
 * on).
 *
 * <p>Every rule here is a copy of {@code rowkey-core/src/scan/rules.rs},
 * {@code wire.rs} and {@code width.rs}, checked against them on random
 * layouts, filters and keys by {@code rowkey-hbase/tests/server_filter.rs}.
 */
public final class KeyFilter extends FilterBase {
  /** The most parts a filter has: {@code MAX_FILTER_PARTS}. */
  public static final int MAX_PARTS = 64;
  /** HBase's longest row, the most bytes the parts may span: {@code MAX_FILTER_ROW}. */
  public static final int MAX_ROW = Short.MAX_VALUE;
  /** The longest text-key separator: {@code MAX_FILTER_SEPARATOR}. */
  public static final int MAX_SEPARATOR = 16;
  /** The most intervals a part has: {@code MAX_FILTER_INTERVALS}. */
  public static final int MAX_INTERVALS = 16_384;
  /** The most passes of a seek hint's walk: {@code MAX_HINT_PASSES}. */
  public static final int MAX_PASSES = 16;

  /** Rows this JVM's filters have looked at, for tests and operators. */
  private static final LongAdder ROWS_READ = new LongAdder();
  /** Seeks this JVM's filters have asked for. */
  private static final LongAdder SEEKS = new LongAdder();

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
    /** Sorted, disjoint, non-empty {@code [lo, hi)}; {@code hi == null} unbounded. */
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
    if (serialized.length < 4 || serialized[0] != 'R' || serialized[1] != 'K'
        || serialized[2] != 'F' || serialized[3] != 1) {
      throw new DeserializationException("not a rowkey KeyFilter of version 1");
    }
    r.pos = 4;
    long n = r.varint();
    if (n > MAX_PARTS) {
      throw new DeserializationException(n + " parts (at most " + MAX_PARTS + ")");
    }
    parts = new Part[(int) n];
    boolean none = false;
    int span = 0;
    for (int i = 0; i < n; i++) {
      Part p = new Part();
      int extent = 0;
      p.width = r.u8();
      switch (p.width) {
        case FIXED: {
          long w = r.varint();
          if (w > MAX_ROW) {
            throw tooWide(i);
          }
          p.fixed = (int) w;
          extent = p.fixed;
          break;
        }
        case ESCAPED:
        case RAW:
          break;
        case ESCAPED_DESC:
          p.desc = true;
          break;
        case TAGGED: {
          int flags = r.u8();
          if (flags > 3) {
            throw new DeserializationException("part " + i + ": option flags " + flags);
          }
          p.desc = (flags & 1) != 0;
          p.raw = (flags & 2) != 0;
          break;
        }
        case DELIMITED: {
          p.sep = r.string();
          if (p.sep.length == 0 || p.sep.length > MAX_SEPARATOR) {
            throw new DeserializationException("part " + i + ": a separator of "
                + p.sep.length + " bytes (1 to " + MAX_SEPARATOR + ")");
          }
          extent = p.sep.length;
          break;
        }
        default:
          throw new DeserializationException("part " + i + ": width " + p.width);
      }
      p.added = r.flag();
      if (r.flag()) {
        long count = r.varint();
        if (count > MAX_INTERVALS) {
          throw new DeserializationException(
              "part " + i + ": " + count + " intervals (at most " + MAX_INTERVALS + ")");
        }
        // Each interval takes at least 2 bytes: no more room than the
        // input could fill.
        int room = (int) Math.min(count, r.left() / 2);
        byte[][] lo = new byte[room][];
        byte[][] hi = new byte[room][];
        for (int j = 0; j < count; j++) {
          byte[] l = r.string();
          byte[] h = r.flag() ? r.string() : null;
          if (h != null && compare(h, l) <= 0) {
            throw new DeserializationException("part " + i + ", interval " + j + ": empty");
          }
          if (j > 0 && (hi[j - 1] == null || compare(l, hi[j - 1]) < 0)) {
            throw new DeserializationException(
                "part " + i + ", interval " + j + ": not after the interval before it");
          }
          if (p.width == FIXED && !holdsWidth(l, h, p.fixed)) {
            throw new DeserializationException("part " + i + ", interval " + j
                + ": holds no value of the part's width");
          }
          extent = Math.max(extent, Math.max(l.length, h == null ? 0 : h.length));
          if (j == lo.length) {
            // Unreachable: the input holds no more intervals than room.
            throw new DeserializationException("a rowkey KeyFilter cut short");
          }
          lo[j] = l;
          hi[j] = h;
        }
        p.lo = lo;
        p.hi = hi;
        none |= count == 0;
      }
      span += extent;
      if (span > MAX_ROW) {
        throw tooWide(i);
      }
      parts[i] = p;
    }
    if (!r.atEnd()) {
      throw new DeserializationException("bytes after the last part, at " + r.pos);
    }
    never = none;
  }

  private static DeserializationException tooWide(int part) {
    return new DeserializationException(
        "part " + part + ": the parts span more than " + MAX_ROW + " bytes");
  }

  /**
   * Whether {@code [lo, hi)} holds a string of exactly {@code n} bytes: the
   * smallest {@code n}-byte string at or after {@code lo} is below {@code hi}.
   * Rust: {@code Interval::holds_width}.
   */
  private static boolean holdsWidth(byte[] lo, byte[] hi, int n) {
    byte[] first;
    if (lo.length <= n) {
      first = Arrays.copyOf(lo, n);
    } else {
      // lo's first n bytes are below lo: the next n-byte string after them.
      first = Arrays.copyOf(lo, n);
      int k = n - 1;
      while (k >= 0 && first[k] == (byte) 0xFF) {
        first[k] = 0;
        k--;
      }
      if (k < 0) {
        return false;
      }
      first[k]++;
    }
    return hi == null || compare(first, hi) < 0;
  }

  /** HBase's deserializer: the filter from {@link #toByteArray}. */
  public static KeyFilter parseFrom(byte[] bytes) throws DeserializationException {
    if (bytes == null) {
      throw new DeserializationException("not a rowkey KeyFilter of version 1");
    }
    return new KeyFilter(bytes);
  }

  @Override
  public byte[] toByteArray() {
    return serialized.clone();
  }

  /** Rows the filters of this JVM have looked at since it started. */
  public static long rowsRead() {
    return ROWS_READ.sum();
  }

  /** Seeks the filters of this JVM have asked for since it started. */
  public static long seeks() {
    return SEEKS.sum();
  }

  @Override
  public void reset() {
    row = null;
  }

  @Override
  public boolean filterRowKey(Cell first) {
    ROWS_READ.increment();
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
        } else if (hint.length > MAX_ROW) {
          // No row is this long (a key of HBase's longest length followed
          // by 00): on to the next row, and never a length HBase's cells
          // cannot state.
          hint = null;
        } else {
          SEEKS.increment();
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

  /** Unsigned comparison of two whole arrays. */
  private static int compare(byte[] a, byte[] b) {
    return Bytes.compareTo(a, 0, a.length, b, 0, b.length);
  }

  /** Unsigned comparison of {@code a[from, to)} with the whole of {@code b}. */
  private static int compare(byte[] a, int from, int to, byte[] b) {
    return Bytes.compareTo(a, from, to - from, b, 0, b.length);
  }

  /** Where part {@code i}, starting at {@code pos}, ends in {@code x}. */
  private int end(int i, byte[] x, int len, int pos) {
    Part p = parts[i];
    switch (p.width) {
      case FIXED:
        return len - pos >= p.fixed ? pos + p.fixed : CUT;
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
   * when none can. Rust: {@code rules::seek_hint}.
   */
  public byte[] seekHint(byte[] key) {
    if (never) {
      return null;
    }
    Buf x = new Buf(key);
    int bound = lowerBound(x);
    if (bound == NONE) {
      return null;
    }
    if (bound == HINT) {
      byte[] hint = x.bytes();
      if (compare(hint, key) > 0 || matches(key)) {
        return hint;
      }
    }
    // Stopped inside a part it cannot complete, or out of passes.
    return Arrays.copyOf(key, key.length + 1);
  }

  /** What {@link #lowerBound} found: a hint in its buffer, none, or it ran out of passes. */
  private static final int HINT = 0;
  private static final int NONE = 1;
  private static final int EXHAUSTED = 2;

  private int lowerBound(Buf x) {
    int passes = 0;
    restart:
    while (true) {
      passes++;
      if (passes > MAX_PASSES) {
        return EXHAUSTED;
      }
      int pos = 0;
      int i = 0;
      while (i < parts.length) {
        Part p = parts[i];
        // An older key: it ends where added fields begin, none of them
        // constrained. It matches, so it is its own hint.
        if (pos == x.len && p.added && noSetFrom(i)) {
          return HINT;
        }
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
              return NONE;
            }
            continue restart;
          }
          if (!jump(i, x, pos, p.lo[next])) {
            return HINT;
          }
          pos = x.len;
          i++;
        } else if (end == CUT) {
          if (p.lo == null) {
            if (p.width != FIXED) {
              return HINT;
            }
            x.zeros(pos + p.fixed);
            pos += p.fixed;
            i++;
            continue;
          }
          int next = nextAfter(p, x.b, pos, x.len);
          if (next < 0) {
            if (!x.prefixStop(pos)) {
              return NONE;
            }
            continue restart;
          }
          byte[] lo = p.lo[next];
          if (compare(x.b, pos, x.len, lo) < 0) {
            if (!jump(i, x, pos, lo)) {
              return HINT;
            }
            pos = x.len;
            i++;
          } else {
            return HINT;
          }
        } else {
          return HINT;
        }
      }
      if (pos == x.len) {
        return HINT;
      }
      if (!x.prefixStop(pos)) {
        return NONE;
      }
    }
  }

  /** Whether no part from {@code i} on has a set. */
  private boolean noSetFrom(int i) {
    for (int j = i; j < parts.length; j++) {
      if (parts[j].lo != null) {
        return false;
      }
    }
    return true;
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
      if (compare(x, from, to, p.lo[mid]) >= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) {
      return false;
    }
    byte[] end = p.hi[lo - 1];
    return end == null || compare(x, from, to, end) < 0;
  }

  /** The first interval that ends after {@code x[from, to)}; -1 when none does. */
  private static int nextAfter(Part p, byte[] x, int from, int to) {
    int lo = 0;
    int hi = p.lo.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      byte[] end = p.hi[mid];
      if (end != null && compare(x, from, to, end) >= 0) {
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

  /** The serialized form's reader: varints, flags and strings. */
  private static final class Reader {
    private final byte[] b;
    private int pos;

    Reader(byte[] b) {
      this.b = b;
    }

    int left() {
      return b.length - pos;
    }

    int u8() throws DeserializationException {
      if (pos >= b.length) {
        throw new DeserializationException("a rowkey KeyFilter cut short");
      }
      return b[pos++] & 0xFF;
    }

    boolean flag() throws DeserializationException {
      int at = pos;
      int v = u8();
      if (v > 1) {
        throw new DeserializationException("a flag of " + v + " at byte " + at);
      }
      return v == 1;
    }

    /** An unsigned LEB128 varint of at most 5 bytes. */
    long varint() throws DeserializationException {
      int at = pos;
      long v = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        int x = u8();
        v |= (long) (x & 0x7F) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw new DeserializationException("a varint longer than 5 bytes at byte " + at);
    }

    /** A varint length and that many bytes. */
    byte[] string() throws DeserializationException {
      long n = varint();
      if (n > left()) {
        throw new DeserializationException("a rowkey KeyFilter cut short");
      }
      byte[] out = Arrays.copyOfRange(b, pos, pos + (int) n);
      pos += (int) n;
      return out;
    }

    boolean atEnd() {
      return pos == b.length;
    }
  }
}
