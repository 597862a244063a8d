package rowkey.hbase;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter.ReturnCode;
import org.junit.Test;

/**
 * {@link KeyFilter#parseFrom} on each hostile shape a client could send a
 * region server, and the bounds on its work per row. The shared corpus
 * ({@code rowkey-hbase/tests/data/filter_corpus.txt}) holds the same cases
 * and more, run against the Rust decoder too by {@code server_filter.rs};
 * these run with the jar's own build, before any HBase starts.
 */
public class KeyFilterTest {
  /** The filter of {@code hex}, or the refusal's message. */
  private static String refusal(String hex) {
    try {
      KeyFilter.parseFrom(unhex(hex));
      return null;
    } catch (DeserializationException e) {
      return e.getMessage();
    }
  }

  private static void refused(String hex, String message) {
    assertEquals(hex, message, refusal(hex));
  }

  @Test
  public void theIssuesSeventeenByteFilterIsRefused() {
    // An unconstrained fixed(8) part, then a fixed(1) part whose one
    // interval is empty: once a walk of 2^64 restarts.
    refused("524b460102000800000001000101000100", "part 1, interval 0: empty");
  }

  @Test
  public void emptyUnsortedAndOverlappingIntervalsAreRefused() {
    refused("524b46010100020001010105010105", "part 0, interval 0: empty");
    refused("524b460101010001010162010161", "part 0, interval 0: empty");
    refused("524b460101000100010201050101060101010102",
        "part 0, interval 1: not after the interval before it");
    refused("524b460101000100010201010101050103010107",
        "part 0, interval 1: not after the interval before it");
    refused("524b46010100010001020101000105010106",
        "part 0, interval 1: not after the interval before it");
  }

  @Test
  public void fixedIntervalsHoldingNoWholeValueAreRefused() {
    refused("524b460101000100010102050001020501",
        "part 0, interval 0: holds no value of the part's width");
    refused("524b460101000100010102ff0000",
        "part 0, interval 0: holds no value of the part's width");
  }

  @Test
  public void widthsPastHBasesRowLimitAreRefused() {
    refused("524b46010100c0b8020000", "part 0: the parts span more than 32767 bytes");
    refused("524b46010200a09c01000000a09c010000",
        "part 1: the parts span more than 32767 bytes");
    // A bound of 32,768 bytes in a variable-width part.
    StringBuilder bound = new StringBuilder("524b46010103000101808002");
    for (int i = 0; i < 32_768; i++) {
      bound.append("00");
    }
    bound.append("00");
    refused(bound.toString(), "part 0: the parts span more than 32767 bytes");
  }

  @Test
  public void hugeCountsAreRefusedBeforeAnythingIsAllocated() {
    refused("524b46018080808010", "4294967296 parts (at most 64)");
    refused("524b460101030001ffffffff0f", "part 0: 4294967295 intervals (at most 16384)");
    refused("524b460101030001808001", "a rowkey KeyFilter cut short");
    refused("524b46010105ffffffff0f", "a rowkey KeyFilter cut short");
    StringBuilder parts = new StringBuilder("524b460141");
    for (int i = 0; i < 65; i++) {
      parts.append("030000");
    }
    refused(parts.toString(), "65 parts (at most 64)");
  }

  @Test
  public void badFlagsWidthsAndSeparatorsAreRefused() {
    refused("524b460101030200", "a flag of 2 at byte 6");
    refused("524b460101030007", "a flag of 7 at byte 7");
    refused("524b46010103000101016102", "a flag of 2 at byte 11");
    refused("524b46010104040000", "part 0: option flags 4");
    refused("524b460101060000", "part 0: width 6");
    refused("524b46010105000000", "part 0: a separator of 0 bytes (1 to 16)");
    refused("524b460101051123232323232323232323232323232323230000",
        "part 0: a separator of 17 bytes (1 to 16)");
  }

  @Test
  public void cutShortLongVarintsAndTrailingBytesAreRefused() {
    refused("", "not a rowkey KeyFilter of version 1");
    refused("50425546", "not a rowkey KeyFilter of version 1");
    refused("524b460200", "not a rowkey KeyFilter of version 1");
    refused("524b4601", "a rowkey KeyFilter cut short");
    refused("524b4601808080808000", "a varint longer than 5 bytes at byte 4");
    refused("524b46010200020000030001010477656231010577656231",
        "a rowkey KeyFilter cut short");
    refused("524b460102000200000300010104776562310105776562310000",
        "bytes after the last part, at 25");
  }

  @Test
  public void everyPrefixOfAValidFilterIsRefusedAndTheWholeAccepted() throws Exception {
    byte[] whole = unhex("524b4601020002000003000101047765623101057765623100");
    for (int n = 0; n < whole.length; n++) {
      String why = refusal(hex(Arrays.copyOf(whole, n)));
      assertNotNull("a prefix of " + n + " bytes was accepted", why);
    }
    KeyFilter f = KeyFilter.parseFrom(whole);
    assertTrue(f.matches(unhex("000777656231")));
    assertArrayEquals(unhex("000777656231"), f.seekHint(unhex("0007776562307a7a")));
    assertArrayEquals(whole, f.toByteArray());
  }

  @Test
  public void aWalkPastItsPassesHintsTheKeyFollowedByZero() throws Exception {
    // 21 one-byte parts whose intervals make the walk restart at every
    // part: past MAX_PASSES the hint is the key and 00, after the key.
    KeyFilter f = KeyFilter.parseFrom(unhex("524b4601150001000000010001010100010101000100010101000101010001000101010001010100"
        + "01000101010001010100010001010100010101000100010101000101010001000101010001010100"
        + "01000101010001010100010001010100010101000100010101000101010001000101010001010100"
        + "01000101010001010100010001010100010101000100010101000101010001000101010001010100"
        + "01000101010001010100010001010100010101000100010101000101010001000101010001010100"
        + "010001010100010101"));
    byte[] key = unhex("000000000000000000000000000000000000000005");
    assertFalse(f.matches(key));
    assertArrayEquals(unhex("00000000000000000000000000000000000000000500"), f.seekHint(key));
  }

  @Test
  public void filteringNeverThrowsAndHintsMoveForward() throws Exception {
    KeyFilter f = KeyFilter.parseFrom(unhex("524b4601020002000003000101047765623101057765623100"));
    byte[][] rows = {unhex(""), unhex("00"), unhex("0007776562307a7a"), unhex("000777656231"),
        unhex("ffff"), unhex("0008")};
    for (byte[] row : rows) {
      Cell cell = new KeyValue(row, unhex("66"), unhex("71"), 1L, unhex(""));
      f.reset();
      ReturnCode code = f.filterCell(cell);
      if (code == ReturnCode.SEEK_NEXT_USING_HINT) {
        Cell hint = f.getNextCellHint(cell);
        byte[] to = Arrays.copyOfRange(hint.getRowArray(), hint.getRowOffset(),
            hint.getRowOffset() + hint.getRowLength());
        assertTrue(hex(row) + " hinted " + hex(to), compare(to, row) > 0);
      }
    }
  }

  /**
   * Fuzzing in the JVM: 20,000 mutations of the corpus's valid filters
   * (bytes flipped, inserted, deleted, cut), each refused with a
   * DeserializationException or, when accepted, asked for matches and hints
   * on random keys: nothing else is thrown, and every hint is after its key
   * (or the key matches).
   */
  @Test
  public void mutatedFiltersAreRefusedOrHintForward() {
    String[] seeds = {
      "524b4601020002000003000101047765623101057765623100",
      "524b460102000800000001000100",
      "524b46010200ff7f000000808001000101010100",
      "524b460102000e0100010000",
      "524b460101000100010201010101030105010107",
    };
    java.util.Random rng = new java.util.Random(52);
    int accepted = 0;
    for (int n = 0; n < 20_000; n++) {
      byte[] f = unhex(seeds[rng.nextInt(seeds.length)]);
      for (int m = 1 + rng.nextInt(3); m > 0; m--) {
        f = mutate(rng, f);
      }
      KeyFilter filter;
      try {
        filter = KeyFilter.parseFrom(f);
      } catch (DeserializationException e) {
        continue;
      } catch (RuntimeException e) {
        throw new AssertionError(hex(f) + ": " + e, e);
      }
      accepted++;
      for (int k = 0; k < 8; k++) {
        byte[] key = new byte[rng.nextInt(12)];
        for (int i = 0; i < key.length; i++) {
          key[i] = (byte) (rng.nextInt(4) == 0 ? rng.nextInt(256) : rng.nextInt(3));
        }
        boolean matches = filter.matches(key);
        byte[] hint = filter.seekHint(key);
        if (hint != null && !matches) {
          assertTrue(hex(f) + " at " + hex(key) + ": hint " + hex(hint), compare(hint, key) > 0);
        }
      }
    }
    assertTrue("only " + accepted + " mutations accepted", accepted > 500);
  }

  private static byte[] mutate(java.util.Random rng, byte[] f) {
    if (f.length == 0) {
      return new byte[] {(byte) rng.nextInt(256)};
    }
    int at = rng.nextInt(f.length);
    switch (rng.nextInt(4)) {
      case 0:
        byte[] flipped = f.clone();
        flipped[at] = (byte) (rng.nextInt(2) == 0 ? rng.nextInt(256) : flipped[at] ^ 1);
        return flipped;
      case 1:
        byte[] longer = new byte[f.length + 1];
        System.arraycopy(f, 0, longer, 0, at);
        longer[at] = (byte) rng.nextInt(3);
        System.arraycopy(f, at, longer, at + 1, f.length - at);
        return longer;
      case 2:
        byte[] shorter = new byte[f.length - 1];
        System.arraycopy(f, 0, shorter, 0, at);
        System.arraycopy(f, at + 1, shorter, at, f.length - at - 1);
        return shorter;
      default:
        return Arrays.copyOf(f, at);
    }
  }

  @Test
  public void theClassIsJava8Bytecode() throws IOException {
    try (InputStream in = KeyFilter.class.getResourceAsStream("KeyFilter.class")) {
      DataInputStream data = new DataInputStream(in);
      assertEquals(0xCAFEBABE, data.readInt());
      data.readUnsignedShort();
      assertEquals("class file major version", 52, data.readUnsignedShort());
    }
  }

  private static int compare(byte[] a, byte[] b) {
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      int d = (a[i] & 0xff) - (b[i] & 0xff);
      if (d != 0) {
        return d;
      }
    }
    return a.length - b.length;
  }

  private static byte[] unhex(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i + 1 < s.length(); i += 2) {
      out.write(Integer.parseInt(s.substring(i, i + 2), 16));
    }
    if (s.length() % 2 != 0) {
      fail("odd hex: " + s);
    }
    return out.toByteArray();
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x & 0xff));
    }
    return s.toString();
  }
}
