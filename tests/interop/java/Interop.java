// The Java side of hmodel's interop tests: HBase 2.6.1's own client, driven line by line.
//
// Usage: java -cp <dir>:<hbase jars> Interop ZK_HOST ZK_PORT
// Each line on stdin is one request, fields separated by TAB; each answer is one JSON
// object on stdout on a line starting with "@@ " (the client's logging may share stdout).
//
//   PUT  table rowspec column valuespec [column valuespec ...]
//        writes one row; answers {"op":"put","row":HEX,"cells":{"f:q":HEX,...}}
//   GET  table rowspec column kind [column kind ...]
//        reads one row; answers {"op":"get","row":HEX,"found":BOOL,
//        "cells":{"f:q":{"hex":HEX,"decoded":TEXT},...}} (a missing cell is absent)
//   ROW  rowspec            answers {"op":"row","row":HEX} without touching the server
//
// A rowspec is parts separated by the unit separator (0x1f); each part is TYPE:ARGS and
// its bytes are what Java code writes for that layout:
//   str:S  Bytes.toBytes(String)        hex:H   raw bytes
//   int:N  Bytes.toBytes(int)           long:N  Bytes.toBytes(long)   short:N
//   pad:W:N  String.format("%0Wd", N)   revlong:N  Bytes.toBytes(Long.MAX_VALUE - N)
//   md5hex:K:S  the first K lowercase hex digits of MD5(Bytes.toBytes(S))
//   md5:K:S     the first K bytes of MD5(Bytes.toBytes(S))
//   phint:N / phlong:N  Phoenix INTEGER/BIGINT: the sign bit flipped
//   desc:PART   Phoenix DESC: every byte of PART inverted
//   salt:B      Phoenix's salt byte over the bytes of all the parts after it, B buckets
// A valuespec is TYPE:TEXT: long int short double float decimal string boolean hex,
// phint phlong (Phoenix sign-flipped). A GET kind is one of the same names except the
// Phoenix ones, and says which Bytes.toX decodes the cell.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

public final class Interop {
  private Interop() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", args[0]);
    conf.set("hbase.zookeeper.property.clientPort", args[1]);
    conf.set("hbase.client.retries.number", "5");
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Connection connection = null;
    try {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          continue;
        }
        String[] f = line.split("\t", -1);
        String answer;
        try {
          if (f[0].equals("ROW")) {
            answer = "{\"op\":\"row\",\"row\":\"" + Bytes.toHex(row(f[1])) + "\"}";
          } else {
            if (connection == null) {
              connection = ConnectionFactory.createConnection(conf);
            }
            answer = f[0].equals("PUT") ? put(connection, f) : get(connection, f);
          }
        } catch (Exception e) {
          answer = "{\"op\":\"error\",\"error\":" + quote(e.toString()) + "}";
        }
        out.println("@@ " + answer);
      }
    } finally {
      if (connection != null) {
        connection.close();
      }
    }
  }

  private static String put(Connection connection, String[] f) throws Exception {
    byte[] key = row(f[2]);
    Put put = new Put(key);
    StringBuilder cells = new StringBuilder();
    for (int i = 3; i + 1 < f.length; i += 2) {
      byte[][] column = column(f[i]);
      byte[] value = value(f[i + 1]);
      put.addColumn(column[0], column[1], value);
      cells.append(cells.length() == 0 ? "" : ",");
      cells.append(quote(f[i])).append(":\"").append(Bytes.toHex(value)).append('"');
    }
    try (Table table = connection.getTable(TableName.valueOf(f[1]))) {
      table.put(put);
    }
    return "{\"op\":\"put\",\"row\":\"" + Bytes.toHex(key) + "\",\"cells\":{" + cells + "}}";
  }

  private static String get(Connection connection, String[] f) throws Exception {
    byte[] key = row(f[2]);
    Result result;
    try (Table table = connection.getTable(TableName.valueOf(f[1]))) {
      result = table.get(new Get(key));
    }
    StringBuilder cells = new StringBuilder();
    for (int i = 3; i + 1 < f.length; i += 2) {
      byte[][] column = column(f[i]);
      byte[] value = result.getValue(column[0], column[1]);
      if (value == null) {
        continue;
      }
      cells.append(cells.length() == 0 ? "" : ",");
      cells.append(quote(f[i])).append(":{\"hex\":\"").append(Bytes.toHex(value));
      cells.append("\",\"decoded\":").append(quote(decode(f[i + 1], value))).append('}');
    }
    return "{\"op\":\"get\",\"row\":\"" + Bytes.toHex(key) + "\",\"found\":" + !result.isEmpty()
        + ",\"cells\":{" + cells + "}}";
  }

  private static byte[][] column(String text) {
    int colon = text.indexOf(':');
    return new byte[][] {
      Bytes.toBytes(text.substring(0, colon)), Bytes.toBytes(text.substring(colon + 1))
    };
  }

  static byte[] row(String spec) throws Exception {
    String[] parts = spec.split("\u001f", -1);
    List<byte[]> encoded = new ArrayList<>();
    for (int i = parts.length - 1; i >= 0; i--) {
      String part = parts[i];
      if (part.startsWith("salt:")) {
        byte[] rest = concat(encoded);
        encoded.clear();
        encoded.add(rest);
        encoded.add(0, new byte[] {saltByte(rest, Integer.parseInt(part.substring(5)))});
      } else {
        encoded.add(0, part(part));
      }
    }
    return concat(encoded);
  }

  /** Phoenix's salt byte: the Arrays.hashCode-style hash of the key, modulo the buckets. */
  static byte saltByte(byte[] key, int buckets) {
    int hash = 1;
    for (byte b : key) {
      hash = 31 * hash + b;
    }
    return (byte) Math.abs(hash % buckets);
  }

  private static byte[] part(String part) throws Exception {
    int colon = part.indexOf(':');
    String type = part.substring(0, colon);
    String arg = part.substring(colon + 1);
    switch (type) {
      case "str":
        return Bytes.toBytes(arg);
      case "hex":
        return Bytes.fromHex(arg);
      case "int":
        return Bytes.toBytes(Integer.parseInt(arg));
      case "long":
        return Bytes.toBytes(Long.parseLong(arg));
      case "short":
        return Bytes.toBytes(Short.parseShort(arg));
      case "revlong":
        return Bytes.toBytes(Long.MAX_VALUE - Long.parseLong(arg));
      case "phint":
        return Bytes.toBytes(Integer.parseInt(arg) ^ Integer.MIN_VALUE);
      case "phlong":
        return Bytes.toBytes(Long.parseLong(arg) ^ Long.MIN_VALUE);
      case "desc":
        {
          byte[] inner = part(arg);
          for (int i = 0; i < inner.length; i++) {
            inner[i] = (byte) ~inner[i];
          }
          return inner;
        }
      case "pad":
        {
          String[] wn = arg.split(":", 2);
          return Bytes.toBytes(String.format("%0" + wn[0] + "d", Long.parseLong(wn[1])));
        }
      case "md5hex":
        {
          String[] ks = arg.split(":", 2);
          String digest = Bytes.toHex(md5(Bytes.toBytes(ks[1])));
          return Bytes.toBytes(digest.substring(0, Integer.parseInt(ks[0])));
        }
      case "md5":
        {
          String[] ks = arg.split(":", 2);
          return Bytes.head(md5(Bytes.toBytes(ks[1])), Integer.parseInt(ks[0]));
        }
      default:
        throw new IllegalArgumentException("unknown key part " + type);
    }
  }

  private static byte[] value(String spec) {
    int colon = spec.indexOf(':');
    String type = spec.substring(0, colon);
    String text = spec.substring(colon + 1);
    switch (type) {
      case "long":
        return Bytes.toBytes(Long.parseLong(text));
      case "int":
        return Bytes.toBytes(Integer.parseInt(text));
      case "short":
        return Bytes.toBytes(Short.parseShort(text));
      case "double":
        return Bytes.toBytes(Double.parseDouble(text));
      case "float":
        return Bytes.toBytes(Float.parseFloat(text));
      case "decimal":
        return Bytes.toBytes(new BigDecimal(text));
      case "string":
        return Bytes.toBytes(text);
      case "boolean":
        return Bytes.toBytes(Boolean.parseBoolean(text));
      case "hex":
        return Bytes.fromHex(text);
      case "phint":
        return Bytes.toBytes(Integer.parseInt(text) ^ Integer.MIN_VALUE);
      case "phlong":
        return Bytes.toBytes(Long.parseLong(text) ^ Long.MIN_VALUE);
      default:
        throw new IllegalArgumentException("unknown value type " + type);
    }
  }

  private static String decode(String kind, byte[] value) {
    switch (kind) {
      case "long":
        return Long.toString(Bytes.toLong(value));
      case "int":
        return Integer.toString(Bytes.toInt(value));
      case "short":
        return Short.toString(Bytes.toShort(value));
      case "double":
        return Double.toString(Bytes.toDouble(value));
      case "float":
        return Float.toString(Bytes.toFloat(value));
      case "decimal":
        return Bytes.toBigDecimal(value).toString();
      case "string":
        return Bytes.toString(value);
      case "boolean":
        return Boolean.toString(Bytes.toBoolean(value));
      case "hex":
        return Bytes.toHex(value);
      case "phint":
        return Integer.toString(Bytes.toInt(value) ^ Integer.MIN_VALUE);
      case "phlong":
        return Long.toString(Bytes.toLong(value) ^ Long.MIN_VALUE);
      default:
        throw new IllegalArgumentException("unknown kind " + kind);
    }
  }

  private static byte[] md5(byte[] data) throws Exception {
    return MessageDigest.getInstance("MD5").digest(data);
  }

  private static byte[] concat(List<byte[]> parts) {
    int size = 0;
    for (byte[] p : parts) {
      size += p.length;
    }
    byte[] all = new byte[size];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return all;
  }

  /** A JSON string literal of text: quotes, backslashes, controls and non-ASCII escaped. */
  private static String quote(String text) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
