package rowkey.hbase;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.mapreduce.ImportTsv;
import org.apache.hadoop.hbase.tool.BulkLoadHFilesTool;
import org.apache.hadoop.util.ToolRunner;

/**
 * HBase's own bulk import, for the import benchmark
 * ({@code rowkey-cli/benches/import.rs}): {@code ImportTsv} with
 * {@code importtsv.bulk.output} (HFiles through {@code HFileOutputFormat2},
 * one reducer per region, on MapReduce's local runner), then
 * {@code completebulkload} ({@link BulkLoadHFilesTool}), as an operator
 * runs them.
 *
 * <p>Arguments: ZK_PORT FS TABLE COLUMNS SEPARATOR INPUT OUTPUT. Prints
 * {@code IMPORT SECONDS} and {@code LOAD SECONDS}; exits non-zero when a
 * step fails.
 */
public final class ImportTsvRun {
  private ImportTsvRun() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", Integer.parseInt(args[0]));
    conf.set("fs.defaultFS", args[1]);
    conf.set("mapreduce.framework.name", "local");
    conf.set("mapreduce.jobtracker.address", "local");
    String table = args[2];
    conf.set("importtsv.columns", args[3]);
    conf.set("importtsv.separator", args[4]);
    conf.set("importtsv.bulk.output", args[6]);
    long start = System.nanoTime();
    int imported = ToolRunner.run(conf, new ImportTsv(), new String[] {table, args[5]});
    long mid = System.nanoTime();
    if (imported != 0) {
      System.err.println("ImportTsv failed: " + imported);
      System.exit(1);
    }
    int loaded = ToolRunner.run(conf, new BulkLoadHFilesTool(conf), new String[] {args[6], table});
    long end = System.nanoTime();
    if (loaded != 0) {
      System.err.println("completebulkload failed: " + loaded);
      System.exit(1);
    }
    System.out.println("IMPORT " + (mid - start) / 1e9);
    System.out.println("LOAD " + (end - mid) / 1e9);
    System.exit(0);
  }
}
