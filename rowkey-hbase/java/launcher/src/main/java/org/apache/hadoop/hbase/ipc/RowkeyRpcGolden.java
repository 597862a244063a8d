package org.apache.hadoop.hbase.ipc;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.codec.Codec;
import org.apache.hadoop.hbase.codec.KeyValueCodec;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.security.AuthMethod;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.RequestConverter;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.io.netty.buffer.Unpooled;

/**
 * In HBase's own package, to call its RPC client's framing
 * ({@code IPCUtil.write}, package-private). The bytes of HBase's RPC as HBase's own classes write them, for the
 * native client's golden test ({@code rowkey-hbase/tests/native_wire.rs}
 * and {@code tests/data/native_golden.txt}): the connection preamble, a
 * {@code ConnectionHeader}, a {@code Get} call, a cellblock
 * ({@code KeyValueCodec}), a response with cells and one with an
 * exception. Each line: {@code NAME HEX}.
 */
public final class RowkeyRpcGolden {
  private RowkeyRpcGolden() {}

  static final long TS = 1_700_000_000_000L;

  public static void print() throws IOException {
    HexFormat hex = HexFormat.of();
    // The preamble: "HBas", the RPC version, SIMPLE auth.
    byte[] preamble = Bytes.add(HConstants.RPC_HEADER,
        new byte[] {HConstants.RPC_CURRENT_VERSION, AuthMethod.SIMPLE.code});
    System.out.println("preamble " + hex.formatHex(preamble));
    // A Kerberos client's (SASL GSSAPI follows it).
    byte[] kerberos = Bytes.add(HConstants.RPC_HEADER,
        new byte[] {HConstants.RPC_CURRENT_VERSION, AuthMethod.KERBEROS.code});
    System.out.println("preamble_kerberos " + hex.formatHex(kerberos));
    // An insecure server's answer to it: SUCCESS, then the length that
    // means "switch to SIMPLE" (ServerRpcConnection.doRawSaslReply).
    System.out.println("sasl_switch_to_simple " + hex.formatHex(Bytes.add(
        Bytes.toBytes(org.apache.hadoop.hbase.security.SaslStatus.SUCCESS.state),
        Bytes.toBytes(org.apache.hadoop.hbase.security.SaslUtil.SWITCH_TO_SIMPLE_AUTH))));

    // The ConnectionHeader the native client sends, framed by its length.
    RPCProtos.ConnectionHeader header = RPCProtos.ConnectionHeader.newBuilder()
        .setUserInfo(RPCProtos.UserInformation.newBuilder().setEffectiveUser("rowkey"))
        .setServiceName("ClientService")
        .setCellBlockCodecClass(KeyValueCodec.class.getCanonicalName())
        .setVersionInfo(HBaseProtos.VersionInfo.newBuilder()
            .setVersion("2.6.1")
            .setUrl("https://github.com/apache/hbase")
            .setRevision("rowkey")
            .setUser("rowkey")
            .setDate("")
            .setSrcChecksum("")
            .setVersionMajor(2)
            .setVersionMinor(6))
        .build();
    ByteArrayOutputStream framed = new ByteArrayOutputStream();
    new DataOutputStream(framed).writeInt(header.getSerializedSize());
    header.writeTo(framed);
    System.out.println("connection_header " + hex.formatHex(framed.toByteArray()));

    // A Get call: the request header and a GetRequest built by HBase's
    // client, framed as its RPC client writes them.
    Get get = new Get(Bytes.toBytes("r1")).addFamily(Bytes.toBytes("d"));
    ClientProtos.GetRequest request =
        RequestConverter.buildGetRequest(Bytes.toBytes("t,,1.abc."), get);
    RPCProtos.RequestHeader call = RPCProtos.RequestHeader.newBuilder()
        .setCallId(7)
        .setMethodName("Get")
        .setRequestParam(true)
        .setTimeout(5000)
        .build();
    System.out.println("get_call " + hex.formatHex(frame(call, request, null)));

    // A cellblock of two cells.
    byte[] cells = cellblock(
        new KeyValue(Bytes.toBytes("r1"), Bytes.toBytes("d"), Bytes.toBytes("q"), TS,
            Bytes.toBytes("v")),
        new KeyValue(Bytes.toBytes("r1"), Bytes.toBytes("d"), Bytes.toBytes("q2"), TS + 1,
            KeyValue.Type.Put, new byte[300]));
    System.out.println("cellblock " + hex.formatHex(cells));

    // The answer to the Get: its cells in the cellblock.
    RPCProtos.ResponseHeader answer = RPCProtos.ResponseHeader.newBuilder()
        .setCallId(7)
        .setCellBlockMeta(RPCProtos.CellBlockMeta.newBuilder().setLength(cells.length))
        .build();
    ClientProtos.GetResponse response = ClientProtos.GetResponse.newBuilder()
        .setResult(ClientProtos.Result.newBuilder().setAssociatedCellCount(2).setStale(false))
        .build();
    System.out.println("get_response " + hex.formatHex(frame(answer, response, cells)));

    // A call that failed on the server.
    RPCProtos.ResponseHeader failed = RPCProtos.ResponseHeader.newBuilder()
        .setCallId(8)
        .setException(RPCProtos.ExceptionResponse.newBuilder()
            .setExceptionClassName("org.apache.hadoop.hbase.NotServingRegionException")
            .setStackTrace("org.apache.hadoop.hbase.NotServingRegionException: t,,1.abc. is not online")
            .setHostname("localhost")
            .setPort(16020)
            .setDoNotRetry(false))
        .build();
    System.out.println("exception_response " + hex.formatHex(frame(failed, null, null)));

    // A skip scan's filter with a KeyOnlyFilter beside it, as a scan of
    // keys only sends them (TScan.filterBytes, Scan.filter), and the
    // KeyOnlyFilter alone.
    FilterList keysOnly = new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new MultiRowRangeFilter(new ArrayList<>(List.of(new MultiRowRangeFilter.RowRange(
            Bytes.toBytes("a"), true, Bytes.toBytes("b"), false)))),
        new KeyOnlyFilter());
    System.out.println("key_only_filter_list "
        + hex.formatHex(ProtobufUtil.toFilter(keysOnly).toByteArray()));
    System.out.println("key_only_filter "
        + hex.formatHex(ProtobufUtil.toFilter(new KeyOnlyFilter()).toByteArray()));
  }

  private static byte[] frame(
      org.apache.hbase.thirdparty.com.google.protobuf.Message header,
      org.apache.hbase.thirdparty.com.google.protobuf.Message param,
      byte[] cellblock) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    IPCUtil.write(out, header, param, cellblock == null ? null : Unpooled.wrappedBuffer(cellblock));
    return out.toByteArray();
  }

  private static byte[] cellblock(KeyValue... kvs) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Codec.Encoder encoder = new KeyValueCodec().getEncoder(out);
    for (KeyValue kv : kvs) {
      encoder.write(kv);
    }
    encoder.flush();
    return out.toByteArray();
  }
}
