package rowkey.hbase;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.thrift2.ThriftServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

/**
 * rowkey-hbase's two Java entry points, run by the Rust tests on HBase's own
 * classpath.
 *
 * <ul>
 * <li>{@code serve DIR ZK_PORT REGION_SERVERS}: HBase in standalone mode
 * (ZooKeeper, a master and REGION_SERVERS region servers in this JVM, data
 * under DIR on the local filesystem), all on 127.0.0.1, with any
 * {@code KEY=VALUE} set in HBase's configuration. Prints {@code ZK PORT}
 * (the port ZooKeeper bound) and {@code READY} once a table can be created.
 * Then answers requests on its standard input ({@code regions TABLE}, see
 * {@link #regions}; {@code split TABLE HEXKEY}; {@code move TABLE};
 * {@code bulkload TABLE HEXDIR}, see {@link #bulkLoad}; {@code majorcompact
 * TABLE}: each of its regions flushed and major-compacted; {@code storefiles
 * TABLE}, see {@link #storeFiles}; {@code filterrows}: the rows rowkey's
 * {@link KeyFilter} has looked at and the seeks it asked for in this JVM,
 * {@code ROWS N SEEKS M}), each
 * answer ending with a line {@code END}, and exits when its standard input
 * closes, so a parent that dies without killing it does not leave it
 * behind.</li>
 * <li>{@code gateway ZK_PORT THRIFT_PORT}: HBase's Thrift2 gateway
 * ({@code hbase thrift2}) in its own JVM, as it runs in production, for the
 * cluster whose ZooKeeper is on ZK_PORT, with any {@code KEY=VALUE} in its
 * configuration (framed, compact, HTTP and TLS are HBase's own settings).
 * Prints {@code READY} once its port accepts; exits when its standard input
 * closes.</li>
 * <li>{@code hfile-read PATH...}, {@code hfile-write PATH FAMILY BLOCK_SIZE
 * CODEC BLOOM INDEX_BLOCK_SIZE}, {@code hfile-pretty PATH}: HFiles read and written by HBase's own
 * reader and writer, and HBase's {@code HFilePrettyPrinter} run on one
 * ({@code -v -m -k -a -b -h}).</li>
 * <li>{@code interop}: one request per line on standard input, one answer per
 * line on standard output, computed by HBase's own {@link Bytes} and Java's
 * {@link Arrays#hashCode(byte[])}; see {@link #answer(String)}.</li>
 * </ul>
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 4 && args[0].equals("serve")) {
      serve(new File(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
          Arrays.copyOfRange(args, 4, args.length));
    } else if (args.length >= 3 && args[0].equals("gateway")) {
      gateway(Integer.parseInt(args[1]), Integer.parseInt(args[2]),
          Arrays.copyOfRange(args, 3, args.length));
    } else if (args.length >= 2 && args[0].equals("hfile-read")) {
      for (int i = 1; i < args.length; i++) {
        System.out.println("file " + i);
        hfileRead(args[i]);
      }
    } else if (args.length == 7 && args[0].equals("hfile-write")) {
      hfileWrite(args[1], args[2], Integer.parseInt(args[3]), args[4], args[5],
          Integer.parseInt(args[6]));
    } else if (args.length == 2 && args[0].equals("hfile-pretty")) {
      Configuration conf = HBaseConfiguration.create();
      org.apache.hadoop.hbase.io.hfile.HFilePrettyPrinter printer =
          new org.apache.hadoop.hbase.io.hfile.HFilePrettyPrinter(conf);
      System.exit(printer.run(new String[] {"-v", "-m", "-k", "-a", "-b", "-h", "-f",
          new File(args[1]).toURI().toString()}));
    } else if (args.length == 1 && args[0].equals("interop")) {
      interop();
    } else if (args.length == 1 && args[0].equals("rpc-golden")) {
      org.apache.hadoop.hbase.ipc.RowkeyRpcGolden.print();
    } else if (args.length == 6 && args[0].equals("client-bench")) {
      ClientBench.main(Arrays.copyOfRange(args, 1, args.length));
    } else if (args.length == 8 && args[0].equals("importtsv")) {
      ImportTsvRun.main(Arrays.copyOfRange(args, 1, args.length));
    } else {
      System.err.println(
          "usage: Launcher serve DIR ZK_PORT REGION_SERVERS [KEY=VALUE...]"
              + " | Launcher gateway ZK_PORT THRIFT_PORT [KEY=VALUE...]"
              + " | Launcher hfile-read PATH... | Launcher hfile-pretty PATH"
              + " | Launcher hfile-write PATH FAMILY BLOCK_SIZE CODEC BLOOM INDEX_BLOCK_SIZE"
              + " | Launcher interop | Launcher rpc-golden"
              + " | Launcher client-bench ZK_PORT TABLE KEYS RANGES PUTS"
              + " | Launcher importtsv ZK_PORT FS TABLE COLUMNS SEPARATOR INPUT OUTPUT");
      System.exit(2);
    }
  }

  private static void serve(File dir, int zkPort, int regionServers, String[] settings)
      throws Exception {
    PrintStream out = System.out;
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.rootdir", new File(dir, "hbase").toURI().toString());
    conf.set("hbase.tmp.dir", new File(dir, "tmp").getAbsolutePath());
    conf.setBoolean("hbase.cluster.distributed", false);
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    conf.set("hbase.zookeeper.property.dataDir", new File(dir, "zk").getAbsolutePath());
    // Every server on loopback, on ports the OS picks; no web UIs.
    conf.set("hbase.master.ipc.address", "127.0.0.1");
    conf.set("hbase.regionserver.ipc.address", "127.0.0.1");
    conf.set("hbase.master.hostname", "127.0.0.1");
    conf.set("hbase.regionserver.hostname", "127.0.0.1");
    conf.setInt("hbase.master.port", 0);
    conf.setInt("hbase.regionserver.port", 0);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setInt("hbase.thrift.info.port", -1);
    conf.setBoolean("hbase.localcluster.assign.random.ports", true);
    // The local filesystem has no hflush/hsync; HBase's standalone mode
    // turns this check off the same way.
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    // A bulk-loaded file is read through before it is taken: every cell
    // in order and in its region's family (HStore.assertBulkLoadHFileOk).
    conf.setBoolean("hbase.hstore.bulkload.verify", true);
    // The master waits for exactly the region servers started here, and
    // no longer: with the defaults it waits 1.5 s after the last one
    // came, at least 4.5 s in all.
    conf.setInt("hbase.master.wait.on.regionservers.mintostart", regionServers);
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", regionServers);
    conf.setInt("hbase.master.wait.on.regionservers.interval", 100);
    conf.setInt("hbase.master.wait.on.regionservers.timeout", 500);
    // A region server that reports for duty before the master is up
    // tries again after this (3 s by default; it is also how often each
    // server reports its load, cheap on loopback). The two together took
    // a test cluster's start from 12.5 s to 5 s.
    conf.setInt("hbase.regionserver.msginterval", 200);
    set(conf, settings);

    // A kerberized cluster (rowkey.kerberos=true): Hadoop's MiniKdc on
    // loopback, its realm's principal hbase/localhost for every server
    // (which therefore register as localhost: a client's principal for
    // them is hbase/_HOST with the name they registered under), the
    // cluster's own clients logged in as it, and a superuser "admin".
    org.apache.hadoop.minikdc.MiniKdc kdc = null;
    File kdcDir = new File(dir, "kdc");
    if (conf.getBoolean("rowkey.kerberos", false)) {
      java.util.Properties kdcConf = org.apache.hadoop.minikdc.MiniKdc.createConf();
      kdcConf.setProperty(org.apache.hadoop.minikdc.MiniKdc.KDC_BIND_ADDRESS, "localhost");
      kdcConf.setProperty(org.apache.hadoop.minikdc.MiniKdc.KDC_PORT, "0");
      // Tickets as short as a test asks (a client whose ticket expires).
      kdcConf.setProperty(org.apache.hadoop.minikdc.MiniKdc.MIN_TICKET_LIFETIME, "5000");
      kdcDir.mkdirs();
      kdc = new org.apache.hadoop.minikdc.MiniKdc(kdcConf, kdcDir);
      kdc.start();
      String realm = kdc.getRealm();
      File keytab = new File(kdcDir, "hbase.keytab");
      kdc.createPrincipal(keytab, "hbase/localhost", "HTTP/localhost");
      conf.set("hadoop.security.authentication", "kerberos");
      conf.set("hbase.security.authentication", "kerberos");
      for (String role : new String[] {"master", "regionserver"}) {
        conf.set("hbase." + role + ".kerberos.principal", "hbase/_HOST@" + realm);
        conf.set("hbase." + role + ".keytab.file", keytab.getAbsolutePath());
        conf.set("hbase." + role + ".hostname", "localhost");
      }
      conf.set("hbase.superuser", "admin");
      // The Thrift gateway (logged in as hbase) calls as the users it
      // authenticated.
      conf.set("hadoop.proxyuser.hbase.hosts", "*");
      conf.set("hadoop.proxyuser.hbase.groups", "*");
      org.apache.hadoop.security.authentication.util.KerberosName.resetDefaultRealm();
      org.apache.hadoop.security.UserGroupInformation.setConfiguration(conf);
      org.apache.hadoop.security.UserGroupInformation.loginUserFromKeytab(
          "hbase/localhost@" + realm, keytab.getAbsolutePath());
    }

    // HBase on a real HDFS: a NameNode and a DataNode in this JVM, on
    // loopback, HBase's root directory on it (rowkey.hdfs=true).
    String hdfs = null;
    if (conf.getBoolean("rowkey.hdfs", false)) {
      conf.set(org.apache.hadoop.hdfs.MiniDFSCluster.HDFS_MINIDFS_BASEDIR,
          new File(dir, "dfs").getAbsolutePath());
      conf.setBoolean("dfs.permissions.enabled", false);
      conf.set("dfs.namenode.http-address", "127.0.0.1:0");
      conf.set("dfs.datanode.address", "127.0.0.1:0");
      conf.set("dfs.datanode.http.address", "127.0.0.1:0");
      conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
      // One DataNode: a block has one replica.
      conf.setInt("dfs.replication", 1);
      org.apache.hadoop.hdfs.MiniDFSCluster dfs =
          new org.apache.hadoop.hdfs.MiniDFSCluster.Builder(conf)
              .numDataNodes(1).format(true).build();
      dfs.waitActive();
      hdfs = "hdfs://127.0.0.1:" + dfs.getNameNodePort();
      conf.set("fs.defaultFS", hdfs);
      conf.set("hbase.rootdir", hdfs + "/hbase");
    }

    // Several servers in one JVM register the same metrics sources, as in
    // HBase's own mini cluster.
    DefaultMetricsSystem.setMiniClusterMode(true);

    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    zk.setDefaultClientPort(zkPort);
    // ZooKeeper moves to the next free port when the one asked for is
    // taken: every server after it must use the port it actually bound.
    int zkBound = zk.startup(new File(dir, "zk"));
    conf.setInt("hbase.zookeeper.property.clientPort", zkBound);
    // What the Thrift gateway needs, at once: its JVM starts beside the
    // cluster's startup, not after it.
    if (kdc != null) {
      out.println("KDC " + kdc.getRealm() + " " + kdc.getPort() + " "
          + kdc.getKrb5conf().getAbsolutePath() + " " + new File(kdcDir, "hbase.keytab"));
    }
    out.println("ZK " + zkBound);
    out.flush();

    LocalHBaseCluster cluster = new LocalHBaseCluster(conf, 1, regionServers);
    cluster.startup();

    // Ready means a table can be created and dropped through the master
    // (which may still be initializing: try again until it can; the Rust
    // side gives up after its own timeout).
    Configuration probeConf = new Configuration(conf);
    probeConf.setInt("hbase.client.retries.number", 3);
    TableName probe = TableName.valueOf("rowkey_launcher_probe");
    while (true) {
      try (Connection connection = ConnectionFactory.createConnection(probeConf);
          Admin admin = connection.getAdmin()) {
        if (admin.tableExists(probe)) {
          // Left by an attempt that failed half-way.
          if (admin.isTableEnabled(probe)) {
            admin.disableTable(probe);
          }
          admin.deleteTable(probe);
        }
        admin.createTable(TableDescriptorBuilder.newBuilder(probe)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("d")).build());
        admin.disableTable(probe);
        admin.deleteTable(probe);
        break;
      } catch (java.io.IOException e) {
        System.err.println("not ready yet: " + e);
        Thread.sleep(500);
      }
    }
    if (hdfs != null) {
      out.println("HDFS " + hdfs);
    }
    // Where a native client starts: the master's RPC address (it serves
    // ClientMetaService, HBase's registry, since 2.3).
    out.println("MASTER " + cluster.getActiveMaster().getServerName().getAddress());
    out.println("READY");
    out.flush();

    // Requests until the parent closes our standard input (or dies).
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      String line;
      while ((line = in.readLine()) != null) {
        String[] p = line.split(" ");
        try {
          if (p.length == 2 && p[0].equals("regions")) {
            regions(connection, TableName.valueOf(p[1]), out);
          } else if (p.length == 3 && p[0].equals("split")) {
            split(connection, TableName.valueOf(p[1]), hex(p[2]));
          } else if (p.length == 2 && p[0].equals("move")) {
            move(connection, TableName.valueOf(p[1]));
          } else if (p.length == 3 && p[0].equals("bulkload")) {
            bulkLoad(conf, TableName.valueOf(p[1]), hexString(p[2]), out);
          } else if (p.length == 2 && p[0].equals("majorcompact")) {
            // Every region of table p[1] flushed and major-compacted now,
            // in this thread: delete markers past their keep time, and the
            // cells they mask, are gone when the answer comes.
            for (JVMClusterUtil.RegionServerThread t : cluster.getLiveRegionServers()) {
              for (org.apache.hadoop.hbase.regionserver.HRegion r
                  : t.getRegionServer().getRegions(TableName.valueOf(p[1]))) {
                r.flush(true);
                r.compact(true);
              }
            }
          } else if (p.length == 2 && p[0].equals("storefiles")) {
            storeFiles(conf, connection, TableName.valueOf(p[1]), out);
          } else if (p.length == 1 && p[0].equals("servers")) {
            for (JVMClusterUtil.RegionServerThread t : cluster.getLiveRegionServers()) {
              out.println("server " + t.getRegionServer().getServerName().getAddress());
            }
          } else if (p.length == 2 && (p[0].equals("rsstop") || p[0].equals("rsabort"))) {
            out.println("server " + stopRegionServer(cluster, Integer.parseInt(p[1]),
                p[0].equals("rsabort")));
          } else if (p.length == 1 && p[0].equals("rsstart")) {
            JVMClusterUtil.RegionServerThread t = cluster.addRegionServer();
            t.start();
            t.waitForServerOnline();
            out.println("server " + t.getRegionServer().getServerName().getAddress());
          } else if (p.length == 3 && p[0].equals("throttle")) {
            // At most N requests a second from user p[1], on every region
            // server (HBase's quotas, hbase.quota.enabled).
            try (Admin admin = connection.getAdmin()) {
              admin.setQuota(org.apache.hadoop.hbase.quotas.QuotaSettingsFactory.throttleUser(
                  p[1], org.apache.hadoop.hbase.quotas.ThrottleType.REQUEST_NUMBER,
                  Long.parseLong(p[2]), java.util.concurrent.TimeUnit.SECONDS));
            }
          } else if (p.length == 2 && p[0].equals("principal") && kdc != null) {
            // A principal of the test realm and its keytab.
            File keytab = new File(kdcDir, p[1].replace('/', '_') + ".keytab");
            kdc.createPrincipal(keytab, p[1]);
            out.println("keytab " + keytab.getAbsolutePath());
          } else if (p.length == 4 && p[0].equals("grant")) {
            // HBase's access control (AccessController): user p[1] gets
            // the rights p[3] (letters of RWXCA) on table p[2].
            org.apache.hadoop.hbase.security.access.Permission.Action[] actions =
                new org.apache.hadoop.hbase.security.access.Permission.Action[p[3].length()];
            for (int i = 0; i < actions.length; i++) {
              for (org.apache.hadoop.hbase.security.access.Permission.Action a
                  : org.apache.hadoop.hbase.security.access.Permission.Action.values()) {
                if (a.code() == (byte) p[3].charAt(i)) {
                  actions[i] = a;
                }
              }
              if (actions[i] == null) {
                throw new IllegalArgumentException("no right " + p[3].charAt(i));
              }
            }
            try {
              org.apache.hadoop.hbase.security.access.AccessControlClient.grant(connection,
                  TableName.valueOf(p[2]), p[1], null, null, actions);
            } catch (Throwable t) {
              throw new java.io.IOException(t);
            }
          } else if (p.length == 3 && p[0].equals("getrow")) {
            // Row p[2] (hex) of table p[1] as HBase's own client reads it
            // (Table.get): one line per cell, family, qualifier and value
            // in hex, in HBase's order.
            try (org.apache.hadoop.hbase.client.Table t =
                connection.getTable(TableName.valueOf(p[1]))) {
              org.apache.hadoop.hbase.client.Result r =
                  t.get(new org.apache.hadoop.hbase.client.Get(hex(p[2])));
              for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
                out.println("cell " + hex(org.apache.hadoop.hbase.CellUtil.cloneFamily(c)) + " "
                    + hex(org.apache.hadoop.hbase.CellUtil.cloneQualifier(c)) + " "
                    + hex(org.apache.hadoop.hbase.CellUtil.cloneValue(c)));
              }
            }
          } else if (p.length == 1 && p[0].equals("settled")) {
            settled(connection);
          } else if (p.length == 1 && p[0].equals("filterrows")) {
            out.println("ROWS " + KeyFilter.rowsRead() + " SEEKS " + KeyFilter.seeks());
          } else {
            out.println("ERROR unknown request " + line);
          }
        } catch (Exception e) {
          out.println("ERROR " + e.toString().replace('\n', ' '));
        }
        out.println("END");
        out.flush();
      }
    } finally {
      Runtime.getRuntime().halt(0);
    }
  }

  private static void set(Configuration conf, String[] settings) {
    for (String setting : settings) {
      int eq = setting.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not KEY=VALUE: " + setting);
      }
      conf.set(setting.substring(0, eq), setting.substring(eq + 1));
    }
  }

  private static void gateway(int zkPort, int thriftPort, String[] settings) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    conf.setInt("hbase.thrift.info.port", -1);
    set(conf, settings);
    // A kerberized cluster's gateway logs in itself (hbase.thrift.keytab.file)
    // once Hadoop's login knows the cluster is kerberized.
    if ("kerberos".equals(conf.get("hbase.security.authentication"))) {
      org.apache.hadoop.security.UserGroupInformation.setConfiguration(conf);
    }
    Thread thrift = new Thread(() -> {
      try {
        ThriftServer server = new ThriftServer(conf);
        server.run(new String[] {"-b", "127.0.0.1", "-p", Integer.toString(thriftPort), "start"});
      } catch (Throwable e) {
        e.printStackTrace();
        Runtime.getRuntime().halt(3);
      }
    }, "rowkey-thrift2");
    thrift.setDaemon(true);
    thrift.start();
    // Ready means the port accepts (the server binds it some time after
    // its thread starts).
    while (true) {
      try (java.net.Socket socket = new java.net.Socket()) {
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", thriftPort), 1000);
        break;
      } catch (java.io.IOException e) {
        if (!thrift.isAlive()) {
          throw new IllegalStateException("the Thrift gateway stopped before it accepted");
        }
        Thread.sleep(200);
      }
    }
    System.out.println("READY");
    System.out.flush();
    try {
      while (System.in.read() >= 0) {
        // Only the end of the input matters.
      }
    } finally {
      Runtime.getRuntime().halt(0);
    }
  }

  /**
   * Splits {@code table}'s region holding {@code key} at {@code key} and
   * waits until both daughters are open.
   */
  private static void split(Connection connection, TableName table, byte[] key)
      throws Exception {
    try (Admin admin = connection.getAdmin()) {
      admin.split(table, key);
      long deadline = System.currentTimeMillis() + 60_000;
      while (true) {
        boolean found = false;
        for (org.apache.hadoop.hbase.client.RegionInfo r : admin.getRegions(table)) {
          found |= !r.isSplit() && !r.isOffline() && Arrays.equals(r.getStartKey(), key);
        }
        if (found && allOpen(connection, table)) {
          return;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("the split of " + table + " did not finish in 60 s");
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Stops (or aborts: no region closed, its write-ahead log split by the
   * master) the {@code i}th live region server and waits until its thread
   * ended; returns its address. Its regions are reassigned by the master
   * after that.
   */
  private static String stopRegionServer(LocalHBaseCluster cluster, int i, boolean abort)
      throws Exception {
    java.util.List<JVMClusterUtil.RegionServerThread> live = cluster.getLiveRegionServers();
    if (i < 0 || i >= live.size()) {
      throw new IllegalArgumentException(
          "no live region server " + i + " (" + live.size() + " live)");
    }
    JVMClusterUtil.RegionServerThread t = live.get(i);
    String address = t.getRegionServer().getServerName().getAddress().toString();
    if (abort) {
      t.getRegionServer().abort("rowkey test: abort region server " + i);
    } else {
      t.getRegionServer().stop("rowkey test: stop region server " + i);
    }
    t.join(120_000);
    if (t.isAlive()) {
      throw new IllegalStateException("region server " + address + " did not stop in 120 s");
    }
    return address;
  }

  /**
   * Waits until no region is in transition and every region of every
   * table has a server (after a region server stopped, say).
   */
  private static void settled(Connection connection) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    try (Admin admin = connection.getAdmin()) {
      while (true) {
        boolean open = true;
        for (TableName table : admin.listTableNames()) {
          open &= allOpen(connection, table);
        }
        if (open) {
          return;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("regions still in transition after 120 s");
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Moves every region of {@code table} to another region server (HBase
   * picks it) and waits until each is open again.
   */
  private static void move(Connection connection, TableName table) throws Exception {
    try (Admin admin = connection.getAdmin()) {
      for (org.apache.hadoop.hbase.client.RegionInfo r : admin.getRegions(table)) {
        admin.move(r.getEncodedNameAsBytes());
      }
      long deadline = System.currentTimeMillis() + 60_000;
      while (!allOpen(connection, table)) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("the regions of " + table + " did not reopen in 60 s");
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Loads the HFiles under {@code dir} ({@code dir/FAMILY/FILE}) into
   * {@code table} with HBase's own bulk load tool ({@code BulkLoadHFiles},
   * what {@code hbase completebulkload} runs), which splits a file that
   * spans regions; prints {@code loaded N}, the files it loaded.
   */
  private static void bulkLoad(Configuration conf, TableName table, String dir, PrintStream out)
      throws Exception {
    // A missing table is an error, never created (BulkLoadHFiles creates
    // it, unsplit, by default).
    Configuration load = new Configuration(conf);
    load.set(org.apache.hadoop.hbase.tool.BulkLoadHFiles.CREATE_TABLE_CONF_KEY, "no");
    java.util.Map<?, ?> loaded = org.apache.hadoop.hbase.tool.BulkLoadHFiles.create(load)
        .bulkLoad(table, new org.apache.hadoop.fs.Path(new File(dir).toURI()));
    // Every file was loaded (or the call threw): they are moved, so none
    // is ever loaded twice. HBase copies a file when it cannot rename it
    // into the table (another filesystem, or its split halves under
    // _tmp): what is left of the load is removed.
    File[] families = new File(dir).listFiles();
    if (families != null) {
      for (File family : families) {
        if (family.isDirectory() && !family.getName().startsWith(".")) {
          deleteTree(family);
        }
      }
    }
    out.println("loaded " + loaded.size());
  }

  private static void deleteTree(File f) throws java.io.IOException {
    File[] children = f.listFiles();
    if (children != null) {
      for (File c : children) {
        deleteTree(c);
      }
    }
    java.nio.file.Files.deleteIfExists(f.toPath());
  }

  /**
   * One line per region and family of {@code table}, {@code storefiles
   * START END FAMILY N}: the store files HBase keeps for it, counted in
   * the region's directory.
   */
  private static void storeFiles(Configuration conf, Connection connection, TableName table,
      PrintStream out) throws Exception {
    org.apache.hadoop.fs.Path root = org.apache.hadoop.hbase.util.CommonFSUtils.getRootDir(conf);
    org.apache.hadoop.fs.FileSystem fs = root.getFileSystem(conf);
    org.apache.hadoop.fs.Path tableDir =
        org.apache.hadoop.hbase.util.CommonFSUtils.getTableDir(root, table);
    try (Admin admin = connection.getAdmin()) {
      java.util.List<org.apache.hadoop.hbase.client.RegionInfo> regions =
          new java.util.ArrayList<>(admin.getRegions(table));
      regions.sort(org.apache.hadoop.hbase.client.RegionInfo.COMPARATOR);
      org.apache.hadoop.hbase.client.ColumnFamilyDescriptor[] families =
          admin.getDescriptor(table).getColumnFamilies();
      for (org.apache.hadoop.hbase.client.RegionInfo r : regions) {
        if (r.isOffline() || r.isSplit()) {
          continue;
        }
        for (org.apache.hadoop.hbase.client.ColumnFamilyDescriptor f : families) {
          org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(
              new org.apache.hadoop.fs.Path(tableDir, r.getEncodedName()), f.getNameAsString());
          int files = 0;
          if (fs.exists(dir)) {
            for (org.apache.hadoop.fs.FileStatus s : fs.listStatus(dir)) {
              if (s.isFile() && !s.getPath().getName().startsWith(".")) {
                files++;
              }
            }
          }
          out.println("storefiles " + hex(r.getStartKey()) + " " + hex(r.getEndKey()) + " "
              + f.getNameAsString() + " " + files);
        }
      }
    }
  }

  /** Every region of {@code table} has a server and none is in transition. */
  private static boolean allOpen(Connection connection, TableName table) throws Exception {
    try (Admin admin = connection.getAdmin()) {
      if (!admin.getClusterMetrics(java.util.EnumSet.of(
          org.apache.hadoop.hbase.ClusterMetrics.Option.REGIONS_IN_TRANSITION))
          .getRegionStatesInTransition().isEmpty()) {
        return false;
      }
    }
    try (org.apache.hadoop.hbase.client.RegionLocator locator =
        connection.getRegionLocator(table)) {
      locator.clearRegionLocationCache();
      for (org.apache.hadoop.hbase.HRegionLocation l : locator.getAllRegionLocations()) {
        if (l.getServerName() == null) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * One line per region of {@code table} in key order, {@code region START
   * END HOST:PORT WRITES}: its start and end keys as hex ({@code -} for
   * none), its region server, and the write requests it has served, asked of
   * each region server (HBase's own {@code RegionMetrics}).
   */
  private static void regions(Connection connection, TableName table, PrintStream out)
      throws Exception {
    java.util.Map<String, Long> writes = new java.util.HashMap<>();
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(table)) {
        throw new org.apache.hadoop.hbase.TableNotFoundException(table);
      }
      for (org.apache.hadoop.hbase.ServerName server : admin.getRegionServers()) {
        for (org.apache.hadoop.hbase.RegionMetrics m : admin.getRegionMetrics(server, table)) {
          writes.put(Bytes.toStringBinary(m.getRegionName()), m.getWriteRequestCount());
        }
      }
    }
    try (org.apache.hadoop.hbase.client.RegionLocator locator =
        connection.getRegionLocator(table)) {
      for (org.apache.hadoop.hbase.HRegionLocation l : locator.getAllRegionLocations()) {
        org.apache.hadoop.hbase.client.RegionInfo region = l.getRegion();
        if (region.isOffline() || region.isSplit()) {
          continue;
        }
        // A region in transition has no server for a moment.
        String server = l.getServerName() == null ? "-" : l.getServerName().getAddress().toString();
        out.println("region " + hex(region.getStartKey()) + " " + hex(region.getEndKey()) + " "
            + server + " "
            + writes.getOrDefault(Bytes.toStringBinary(region.getRegionName()), 0L));
      }
    }
  }

  /**
   * Reads the HFile at {@code path} with HBase's own reader, HBase's block
   * checksums verified: one line {@code cell ROW FAMILY QUALIFIER TIMESTAMP
   * TYPE VALUE} per cell (bytes as hex, {@code -} for none), then
   * {@code entries N} (the trailer's count), {@code blocks N} and
   * {@code checksum_failures N}.
   */
  private static void hfileRead(String path) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.setBoolean("hbase.regionserver.checksum.verify", true);
    org.apache.hadoop.hbase.fs.HFileSystem fs =
        new org.apache.hadoop.hbase.fs.HFileSystem(conf, true);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    // A block cache, as a region server has: the Bloom filter's chunks are
    // read once, not once per probe.
    org.apache.hadoop.hbase.io.hfile.CacheConfig cache = new org.apache.hadoop.hbase.io.hfile.CacheConfig(
        conf, org.apache.hadoop.hbase.io.hfile.BlockCacheFactory.createBlockCache(conf));
    try (org.apache.hadoop.hbase.io.hfile.HFile.Reader reader =
        org.apache.hadoop.hbase.io.hfile.HFile.createReader(fs,
            new org.apache.hadoop.fs.Path(new File(path).getAbsolutePath()), cache, true, conf)) {
      org.apache.hadoop.hbase.io.hfile.HFileScanner scanner = reader.getScanner(conf, false, false);
      if (scanner.seekTo()) {
        do {
          org.apache.hadoop.hbase.Cell c = scanner.getCell();
          out.println("cell " + hex(org.apache.hadoop.hbase.CellUtil.cloneRow(c)) + " "
              + hex(org.apache.hadoop.hbase.CellUtil.cloneFamily(c)) + " "
              + hex(org.apache.hadoop.hbase.CellUtil.cloneQualifier(c)) + " " + c.getTimestamp()
              + " " + c.getType() + " " + hex(org.apache.hadoop.hbase.CellUtil.cloneValue(c)));
        } while (scanner.next());
      }
      out.println("entries " + reader.getEntries());
      out.println("blocks " + reader.getTrailer().getDataIndexCount());
      // The general Bloom filter, as a region server loads it: every row
      // of the file must pass it; each row with a 0 byte appended (not in
      // the file) is a probe that passes it only by a false positive.
      java.io.DataInput meta = reader.getGeneralBloomFilterMetadata();
      if (meta != null) {
        org.apache.hadoop.hbase.util.BloomFilter bloom =
            org.apache.hadoop.hbase.util.BloomFilterFactory.createFromMeta(meta, reader);
        long missed = 0;
        long falsePositives = 0;
        long probes = 0;
        byte[] previous = null;
        if (scanner.seekTo()) {
          do {
            byte[] row = org.apache.hadoop.hbase.CellUtil.cloneRow(scanner.getCell());
            if (previous != null && Arrays.equals(previous, row)) {
              continue;
            }
            previous = row;
            if (!bloom.contains(row, 0, row.length, null)) {
              missed++;
            }
            byte[] probe = Arrays.copyOf(row, row.length + 1);
            probes++;
            if (bloom.contains(probe, 0, probe.length, null)) {
              falsePositives++;
            }
          } while (scanner.next());
        }
        out.println("bloom " + missed + " " + falsePositives + " " + probes);
      }
    }
    // Blocks whose HBase checksum did not match (HBase then reads them
    // again through the filesystem's own checksums, which a local file
    // without .crc files does not have).
    out.println("checksum_failures "
        + org.apache.hadoop.hbase.io.hfile.HFile.getAndResetChecksumFailuresCount());
    out.flush();
  }

  /**
   * Writes the cells given on standard input, one per line ({@code ROW
   * QUALIFIER TIMESTAMP VALUE}, hex), into an HFile at {@code path} with
   * HBase's own writer ({@code HFile.getWriterFactory}: format 3, CRC32C
   * checksums per 16 KiB, tags and memstore timestamps on, as a region
   * server writes), blocks of {@code blockSize} compressed by
   * {@code codec} ({@code none}, {@code gz}, ...). The cells are read
   * first; then prints {@code written CELLS NANOS}, the time the writer
   * took from its creation to its close. With {@code bloom} {@code row},
   * the file is written as a region server writes a store file
   * ({@code StoreFileWriter}, with a ROW Bloom filter and its metadata).
   * Index blocks end at {@code indexBlockSize}
   * ({@code hfile.index.block.max.size}).
   */
  private static void hfileWrite(String path, String family, int blockSize, String codec,
      String bloom, int indexBlockSize) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    byte[] fam = Bytes.toBytes(family);
    java.util.List<org.apache.hadoop.hbase.KeyValue> cells = new java.util.ArrayList<>();
    String line;
    while ((line = in.readLine()) != null) {
      String[] p = line.split(" ");
      cells.add(new org.apache.hadoop.hbase.KeyValue(hex(p[0]), fam, hex(p[1]),
          Long.parseLong(p[2]), org.apache.hadoop.hbase.KeyValue.Type.Put, hex(p[3])));
    }
    Configuration conf = HBaseConfiguration.create();
    conf.setInt("hfile.index.block.max.size", indexBlockSize);
    org.apache.hadoop.fs.FileSystem fs = org.apache.hadoop.fs.FileSystem.getLocal(conf);
    org.apache.hadoop.hbase.io.hfile.HFileContext context =
        new org.apache.hadoop.hbase.io.hfile.HFileContextBuilder()
            .withBlockSize(blockSize)
            .withCompression(org.apache.hadoop.hbase.io.compress.Compression
                .getCompressionAlgorithmByName(codec))
            .withChecksumType(org.apache.hadoop.hbase.util.ChecksumType.CRC32C)
            .withBytesPerCheckSum(16 * 1024)
            .withIncludesTags(true)
            .withIncludesMvcc(true)
            .withColumnFamily(fam)
            .build();
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(new File(path).getAbsolutePath());
    long start = System.nanoTime();
    if (bloom.equals("row")) {
      org.apache.hadoop.hbase.regionserver.StoreFileWriter writer =
          new org.apache.hadoop.hbase.regionserver.StoreFileWriter.Builder(conf,
              org.apache.hadoop.hbase.io.hfile.CacheConfig.DISABLED, fs)
              .withFilePath(out)
              .withBloomType(org.apache.hadoop.hbase.regionserver.BloomType.ROW)
              .withFileContext(context)
              .build();
      for (org.apache.hadoop.hbase.KeyValue cell : cells) {
        writer.append(cell);
      }
      writer.close();
    } else {
      org.apache.hadoop.hbase.io.hfile.HFile.Writer writer =
          org.apache.hadoop.hbase.io.hfile.HFile.getWriterFactory(conf,
              org.apache.hadoop.hbase.io.hfile.CacheConfig.DISABLED)
              .withPath(fs, out)
              .withFileContext(context)
              .create();
      for (org.apache.hadoop.hbase.KeyValue cell : cells) {
        writer.append(cell);
      }
      writer.close();
    }
    long nanos = System.nanoTime() - start;
    System.out.println("written " + cells.size() + " " + nanos);
    System.out.flush();
  }

  private static void interop() throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      String answer;
      try {
        answer = answer(line);
      } catch (RuntimeException e) {
        // HBase's own code threw: say so, in place of a value.
        answer = "!" + e.getClass().getName();
      }
      out.println(answer);
    }
    out.flush();
  }

  /**
   * One request, {@code FUNCTION ARGUMENT...}, answered by HBase's or Java's
   * own code. Bytes travel as lower-case hex ({@code -} for none); an
   * exception thrown by HBase's code is answered as {@code !} and its class.
   *
   * <ul>
   * <li>{@code to_string_binary HEX}: {@code Bytes.toStringBinary}</li>
   * <li>{@code to_bytes_binary HEX}: {@code Bytes.toBytesBinary} of the
   * UTF-8 string HEX holds, as hex</li>
   * <li>{@code long N}, {@code int N}, {@code short N}:
   * {@code Bytes.toBytes}</li>
   * <li>{@code desc_ts N}: {@code Bytes.toBytes(Long.MAX_VALUE - N)}</li>
   * <li>{@code java_salt HEX BUCKETS}: Phoenix's salt byte,
   * {@code Math.abs(Arrays.hashCode(bytes) % BUCKETS)}</li>
   * <li>{@code key_filter HEXFILTER HEXKEY}: rowkey's {@link KeyFilter} read
   * from HEXFILTER, on the key: {@code 1} or {@code 0} (it matches), then
   * its seek hint as hex, or {@code none}; {@code refused: REASON} when
   * {@code parseFrom} refuses the filter</li>
   * </ul>
   */
  static String answer(String line) {
    String[] p = line.split(" ");
    switch (p[0]) {
      case "to_string_binary":
        return Bytes.toStringBinary(hex(p[1]));
      case "to_bytes_binary":
        return hex(Bytes.toBytesBinary(new String(hex(p[1]), StandardCharsets.UTF_8)));
      case "long":
        return hex(Bytes.toBytes(Long.parseLong(p[1])));
      case "int":
        return hex(Bytes.toBytes(Integer.parseInt(p[1])));
      case "short":
        return hex(Bytes.toBytes(Short.parseShort(p[1])));
      case "desc_ts":
        return hex(Bytes.toBytes(Long.MAX_VALUE - Long.parseLong(p[1])));
      case "java_salt":
        return Integer.toString(Math.abs(Arrays.hashCode(hex(p[1])) % Integer.parseInt(p[2])));
      case "key_filter": {
        KeyFilter filter;
        try {
          filter = keyFilter(p[1]);
        } catch (org.apache.hadoop.hbase.exceptions.DeserializationException e) {
          return "refused: " + e.getMessage();
        }
        byte[] key = hex(p[2]);
        byte[] hint = filter.seekHint(key);
        return (filter.matches(key) ? "1 " : "0 ") + (hint == null ? "none" : hex(hint));
      }
      default:
        throw new IllegalArgumentException("unknown request " + p[0]);
    }
  }

  private static String lastFilterHex;
  private static KeyFilter lastFilter;

  /** The filter of {@code hex}, parsed once for a run of keys. */
  private static KeyFilter keyFilter(String hex)
      throws org.apache.hadoop.hbase.exceptions.DeserializationException {
    if (!hex.equals(lastFilterHex)) {
      lastFilterHex = null;
      lastFilter = KeyFilter.parseFrom(hex(hex));
      lastFilterHex = hex;
    }
    return lastFilter;
  }

  private static String hexString(String s) {
    return new String(hex(s), StandardCharsets.UTF_8);
  }

  private static byte[] hex(String s) {
    return s.equals("-") ? new byte[0] : HexFormat.of().parseHex(s);
  }

  private static String hex(byte[] b) {
    return b.length == 0 ? "-" : HexFormat.of().formatHex(b);
  }
}
