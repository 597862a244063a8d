package rowkey.hbase;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * HBase's own Java client doing the native benchmark's calls
 * ({@code benches/native.rs}), so the Rust clients are measured against
 * it in one run: gets of random keys and 10-row scans of random users by
 * N threads sharing one {@link Connection} (as HBase's documentation has
 * a service do), 100,000 puts in one {@code Table.put(List)}, and a whole
 * table scanned. Every answer is checked.
 *
 * <p>Arguments: ZK_PORT TABLE KEYS RANGES PUTS, the last three files of
 * hex lines (keys to get; a scan's start and stop, space-separated; keys
 * to put). Requests on standard input, one per line: {@code get THREADS
 * SECONDS}, {@code scan THREADS SECONDS} (answered {@code RESULT CALLS
 * P50_US P99_US}), {@code put} ({@code RESULT ROWS MICROS}), {@code
 * scanall TABLE} ({@code RESULT ROWS MICROS}).
 */
public final class ClientBench {
  private ClientBench() {}

  /** One caller's calls, each timed. */
  private interface Call {
    void run(Table table, SplittableRandom random) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", Integer.parseInt(args[0]));
    TableName table = TableName.valueOf(args[1]);
    List<byte[]> keys = hexLines(args[2]);
    List<byte[][]> ranges = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(args[3]))) {
      String[] p = line.split(" ");
      ranges.add(new byte[][] {HexFormat.of().parseHex(p[0]), HexFormat.of().parseHex(p[1])});
    }
    List<byte[]> puts = hexLines(args[4]);
    byte[] family = Bytes.toBytes("d");
    byte[] qualifier = Bytes.toBytes("v");
    byte[] value = new byte[100];
    Arrays.fill(value, (byte) 7);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      String line;
      while ((line = in.readLine()) != null) {
        String[] p = line.split(" ");
        if (p[0].equals("get")) {
          timed(connection, table, Integer.parseInt(p[1]), Integer.parseInt(p[2]), (t, r) -> {
            Result result = t.get(new Get(keys.get(r.nextInt(keys.size()))));
            if (result.isEmpty()) {
              throw new IllegalStateException("a get found no row");
            }
          });
        } else if (p[0].equals("scan")) {
          timed(connection, table, Integer.parseInt(p[1]), Integer.parseInt(p[2]), (t, r) -> {
            byte[][] range = ranges.get(r.nextInt(ranges.size()));
            Scan scan = new Scan().withStartRow(range[0]).withStopRow(range[1]).setLimit(10)
                .setCaching(10);
            int n = 0;
            try (ResultScanner scanner = t.getScanner(scan)) {
              for (Result ignored : scanner) {
                n++;
              }
            }
            if (n != 10) {
              throw new IllegalStateException("a scan read " + n + " rows, not 10");
            }
          });
        } else if (p[0].equals("put")) {
          List<Put> batch = new ArrayList<>(puts.size());
          for (byte[] key : puts) {
            batch.add(new Put(key).addColumn(family, qualifier, value));
          }
          long start = System.nanoTime();
          try (Table t = connection.getTable(table)) {
            t.put(batch);
          }
          System.out.println("RESULT " + batch.size() + " " + (System.nanoTime() - start) / 1000);
        } else if (p[0].equals("scanall")) {
          long start = System.nanoTime();
          long n = 0;
          try (Table t = connection.getTable(TableName.valueOf(p[1]));
              ResultScanner scanner = t.getScanner(new Scan().setCaching(1000))) {
            for (Result ignored : scanner) {
              n++;
            }
          }
          System.out.println("RESULT " + n + " " + (System.nanoTime() - start) / 1000);
        } else {
          System.out.println("ERROR unknown request " + line);
        }
        System.out.flush();
      }
    }
  }

  private static List<byte[]> hexLines(String path) throws Exception {
    List<byte[]> out = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(path))) {
      out.add(HexFormat.of().parseHex(line));
    }
    return out;
  }

  /**
   * {@code threads} callers, each with its own {@link Table} of the shared
   * connection, making {@code call} for {@code seconds}; prints the calls
   * made and their p50 and p99 in microseconds.
   */
  private static void timed(Connection connection, TableName name, int threads, int seconds,
      Call call) throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    List<long[]> perThread = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    Throwable[] failed = new Throwable[1];
    for (int i = 0; i < threads; i++) {
      int seed = i;
      Thread thread = new Thread(() -> {
        long[] latencies = new long[1 << 16];
        int n = 0;
        SplittableRandom random = new SplittableRandom(seed);
        try (Table t = connection.getTable(name)) {
          while (System.nanoTime() < deadline) {
            long start = System.nanoTime();
            call.run(t, random);
            if (n == latencies.length) {
              latencies = Arrays.copyOf(latencies, n * 2);
            }
            latencies[n++] = System.nanoTime() - start;
          }
        } catch (Throwable e) {
          synchronized (failed) {
            failed[0] = e;
          }
        }
        synchronized (perThread) {
          perThread.add(Arrays.copyOf(latencies, n));
        }
      });
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    if (failed[0] != null) {
      throw new IllegalStateException("a call failed", failed[0]);
    }
    long[] all = perThread.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    long p50 = all[(int) ((all.length - 1) * 0.50)] / 1000;
    long p99 = all[(int) ((all.length - 1) * 0.99)] / 1000;
    System.out.println("RESULT " + all.length + " " + p50 + " " + p99);
  }
}
