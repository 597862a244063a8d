//! Keys generated for other languages (`rowkey gen`), used by those
//! languages' real clients on tables rowkey wrote: a Java program with a
//! generated record and its `--hbase` companion scans a real HBase through
//! HBase's own Java client, and a Go program with a generated struct and
//! its `--bigtable` row sets reads Bigtable's emulator through Google's Go
//! client. Each query must return exactly the rows (keys and decoded
//! values) that rowkey's own scans of the derived type return.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use rowkey_codegen::{generate_with, GeneratedFile, Language, Options};
use rowkey_core::prelude::*;
use rowkey_core::Scan;

/// The issue's third held-out layout: a Java-hash salt (as a Java writer
/// of the table would choose), an escaped string and bytes to the end.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 6, by(site), hash = "java")]
struct Visit {
    site: u32,
    page: String,
    #[desc_ts]
    ts: i64,
    body: Vec<u8>,
}

/// The issue's first held-out layout: an XXH3 salt, `desc_ts` and a fixed
/// string (the README's key).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

const T0: i64 = 1_700_000_000_000;

fn visits() -> Vec<Visit> {
    const PAGES: [&str; 5] = ["a", "a\0b", "b", "", "\u{ff}x"];
    (0..400u32)
        .map(|i| Visit {
            site: i.wrapping_mul(2_654_435_761) % 7,
            page: PAGES[(i % 5) as usize].to_owned(),
            ts: T0 + i64::from(i.wrapping_mul(40_503) % 100_000),
            body: [&[0u8, 1, 0xFF][..], b"x", b""][(i % 3) as usize].to_vec(),
        })
        .collect()
}

fn events() -> Vec<UserEvent> {
    const KINDS: [&str; 4] = ["click", "view", "", "é€"];
    (0..400u64)
        .map(|i| UserEvent {
            user_id: i.wrapping_mul(2_654_435_761) % 13,
            ts_millis: T0 + (i.wrapping_mul(40_503) % 100_000) as i64,
            kind: KINDS[(i % 4) as usize].to_owned(),
        })
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn write(dir: &Path, files: Vec<GeneratedFile>) {
    for f in files {
        let path = dir.join(&f.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, f.contents).unwrap();
    }
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} does not run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A program's answer: `Q name` lines, each followed by its rows, one per
/// line; each query's rows sorted (the languages' clients read the ranges
/// in their own order, rowkey merges them).
fn answers(out: &str) -> BTreeMap<String, Vec<String>> {
    let mut all = BTreeMap::new();
    let mut query: Option<String> = None;
    for line in out.lines() {
        if let Some(q) = line.strip_prefix("Q ") {
            query = Some(q.to_owned());
            all.insert(q.to_owned(), Vec::new());
        } else if let Some(rows) = query.as_ref().and_then(|q| all.get_mut(q)) {
            rows.push(line.to_owned());
        }
    }
    for rows in all.values_mut() {
        rows.sort();
    }
    all
}

/// A Java program (HBase's own client, a generated `Visit` and
/// `VisitHBase`) scans a table rowkey wrote on a real HBase: every
/// generated scan returns the rows the derived type's scan returns.
#[test]
fn hbase_java_client_scans_with_generated_bounds() {
    let server =
        rowkey_hbase::testing::HBase::start().unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let client = server.client().unwrap();
    client
        .create_table("visits", &["d"], &Visit::split_points())
        .unwrap();
    let rows = visits();
    let cell = vec![("d".to_owned(), b"v".to_vec(), b"1".to_vec())];
    client
        .write_rows("visits", rows.iter().map(|v| (v.clone(), cell.clone())))
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let layout = Visit::LAYOUT;
    write(
        &src,
        generate_with(
            layout,
            Language::Java,
            "Visit",
            "keys",
            Options::default().hbase(true),
        )
        .unwrap(),
    );
    let (from, to) = (T0 + 20_000, T0 + 70_000);
    // Each query: its name, the Java call, and rowkey's own scan.
    let queries: Vec<(&str, String, Scan)> = vec![
        ("all", "VisitHBase.scanAll()".into(), Visit::scan_all()),
        (
            "site 3",
            "VisitHBase.scanBySite(3L)".into(),
            Visit::scan_by_site(3),
        ),
        (
            "site 3 page a\\0b",
            "VisitHBase.scanBySitePage(3L, \"a\\0b\")".into(),
            Visit::scan_by_site_page(3, "a\0b"),
        ),
        (
            "site 3 page a\\0b ts in [from, to)",
            format!("VisitHBase.rangeBySitePageTs(3L, \"a\\0b\", {from}L, {to}L, true, false)"),
            Visit::range_by_site_page_ts(3, "a\0b", from..to),
        ),
        (
            "site 2..5",
            "VisitHBase.rangeBySite(2L, 5L, true, false)".into(),
            Visit::range_by_site(2..5),
        ),
        (
            "site 4 page a..=b",
            "VisitHBase.rangeBySitePage(4L, \"a\", \"b\", true, true)".into(),
            Visit::range_by_site_page(4, "a"..="b"),
        ),
        (
            "site 5 page up to b",
            "VisitHBase.rangeBySitePage(5L, null, \"b\", true, false)".into(),
            Visit::range_by_site_page(5, .."b"),
        ),
    ];
    let calls: String = queries
        .iter()
        .map(|(name, call, _)| format!("            run(t, {name:?}, {call});\n"))
        .collect();
    std::fs::write(
        src.join("ScanVisits.java"),
        format!(
            r#"import java.util.HexFormat;
import java.util.List;

import keys.Visit;
import keys.VisitHBase;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/** Reads a table with HBase's client and the generated scans: per query, its rows with their decoded values. */
public final class ScanVisits {{
    public static void main(String[] args) throws Exception {{
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", "127.0.0.1");
        conf.set("hbase.zookeeper.property.clientPort", args[0]);
        try (Connection c = ConnectionFactory.createConnection(conf);
                Table t = c.getTable(TableName.valueOf(args[1]))) {{
{calls}        }}
    }}

    static void run(Table t, String name, List<Scan> scans) throws Exception {{
        HexFormat h = HexFormat.of();
        System.out.println("Q " + name);
        for (Scan s : scans) {{
            try (ResultScanner rs = t.getScanner(s)) {{
                for (Result r : rs) {{
                    Visit v = VisitHBase.key(r);
                    System.out.println(h.formatHex(r.getRow()) + " " + v.site() + " " + h.formatHex(v.page().getBytes("UTF-8")) + " " + v.ts() + " " + h.formatHex(v.body()));
                }}
            }}
        }}
    }}
}}
"#
        ),
    )
    .unwrap();

    let classpath = rowkey_hbase::testing::classpath().unwrap();
    let classes = dir.path().join("classes");
    let sources = [
        "keys/Visit.java",
        "keys/VisitHBase.java",
        "keys/RowkeyHelpers.java",
        "ScanVisits.java",
    ];
    run(
        Command::new("javac")
            .arg("-nowarn")
            .arg("-d")
            .arg(&classes)
            .arg("-cp")
            .arg(&classpath)
            .args(sources.map(|s| src.join(s))),
        "javac of the generated Visit, VisitHBase and the scanning program",
    );
    let out = run(
        rowkey_hbase::testing::java(&classes.display().to_string(), &["-Xmx256m"], "ScanVisits")
            .unwrap()
            .args([&server.zookeeper_port().to_string(), "visits"]),
        "the Java program on HBase's client",
    );
    let java = answers(&out);

    let mut total = 0;
    for (name, _, scan) in &queries {
        let mut ours: Vec<String> = client
            .scan_typed::<Visit>("visits", scan, None)
            .unwrap()
            .map(|r| {
                let (v, _) = r.unwrap();
                format!(
                    "{} {} {} {} {}",
                    hex(&v.encode_to_vec().unwrap()),
                    v.site,
                    hex(v.page.as_bytes()),
                    v.ts,
                    hex(&v.body)
                )
            })
            .collect();
        ours.sort();
        assert!(!ours.is_empty(), "query {name} returns rows");
        assert_eq!(
            java.get(*name),
            Some(&ours),
            "query {name}: Java's rows against rowkey's"
        );
        total += ours.len();
    }
    assert_eq!(java.len(), queries.len(), "every query answered: {out}");
    assert!(
        total > rows.len(),
        "the queries cover the table ({total} rows)"
    );
}

/// A Go program (Google's Go Bigtable client, a generated `UserEvent` and
/// its `--bigtable` row sets) reads a table rowkey wrote on the emulator:
/// every generated scan returns the rows the derived type's scan returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bigtable_go_client_reads_with_generated_row_sets() {
    use rowkey_bigtable::emulator::Emulator;
    const PROJECT: &str = "rowkey-gen";
    const INSTANCE: &str = "gen";
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client(PROJECT, INSTANCE).unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let instance = format!("projects/{PROJECT}/instances/{INSTANCE}");
    rowkey_bigtable::create_table(
        &mut admin,
        &instance,
        "events",
        &["d"],
        &UserEvent::split_points(),
    )
    .await
    .unwrap();
    let rows = events();
    let cell = vec![("d".to_owned(), b"v".to_vec(), b"1".to_vec())];
    rowkey_bigtable::write_rows(
        &client,
        "events",
        rows.iter().map(|e| (e.clone(), cell.clone())),
    )
    .await
    .unwrap();

    // A Go module: the generated package `keys` and a main program, on
    // the versions of Google's client the Bigtable peer pins.
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("keys"),
        generate_with(
            UserEvent::LAYOUT,
            Language::Go,
            "UserEvent",
            "keys",
            Options::default().bigtable(true),
        )
        .unwrap(),
    );
    let peer = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rowkey-bigtable/peer");
    let pinned = std::fs::read_to_string(peer.join("go.mod")).unwrap();
    let requires = pinned
        .split_once("require cloud.google.com/go/bigtable")
        .map(|(_, v)| v.lines().next().unwrap().trim().to_owned())
        .expect("the peer pins Google's client");
    std::fs::write(
        dir.path().join("go.mod"),
        format!(
            "module clients\n\ngo 1.21\n\nrequire (\n\tcloud.google.com/go/bigtable {requires}\n\tgithub.com/zeebo/xxh3 v1.1.0\n)\n"
        ),
    )
    .unwrap();
    std::fs::copy(peer.join("go.sum"), dir.path().join("go.sum")).unwrap();
    let (from, to) = (T0 + 20_000, T0 + 70_000);
    let one = &rows[17];
    assert_eq!(one.kind, "view", "a key Go's string literal can hold");
    let queries: Vec<(&str, String, Scan)> = vec![
        ("all", "keys.UserEventScanAllRows()".into(), UserEvent::scan_all()),
        (
            "user 7",
            "keys.UserEventScanByUserIdRows(7)".into(),
            UserEvent::scan_by_user_id(7),
        ),
        (
            "user 7 ts in [from, to)",
            format!("keys.UserEventRangeByUserIdTsMillisRows(7, ptr(int64({from})), ptr(int64({to})), true, false)"),
            UserEvent::range_by_user_id_ts_millis(7, from..to),
        ),
        (
            "user 3 ts up to from",
            format!("keys.UserEventRangeByUserIdTsMillisRows(3, nil, ptr(int64({from})), true, true)"),
            // Newest first: `..=from` in values is every ts up to from.
            UserEvent::range_by_user_id_ts_millis(3, ..=from),
        ),
        (
            "user 3..9",
            "keys.UserEventRangeByUserIdRows(ptr(uint64(3)), ptr(uint64(9)), true, false)".into(),
            UserEvent::range_by_user_id(3..9),
        ),
        (
            "one key",
            format!(
                "keys.UserEventScanByUserIdTsMillisKindRows({}, {}, {:?})",
                one.user_id, one.ts_millis, one.kind
            ),
            UserEvent::scan_by_user_id_ts_millis_kind(one.user_id, one.ts_millis, &one.kind)
                .unwrap(),
        ),
    ];
    let calls: String = queries
        .iter()
        .map(|(name, call, _)| format!("\trun({name:?})({call})\n"))
        .collect();
    std::fs::write(
        dir.path().join("main.go"),
        format!(
            r#"// Command clients reads a table with Google's Go client and the
// generated row sets: per query, its rows with their decoded values.
package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"

	"cloud.google.com/go/bigtable"

	"clients/keys"
)

func ptr[T any](v T) *T {{ return &v }}

func main() {{
	ctx := context.Background()
	client, err := bigtable.NewClient(ctx, os.Args[1], os.Args[2])
	if err != nil {{
		panic(err)
	}}
	defer client.Close()
	tbl := client.Open(os.Args[3])
	run := func(name string) func(bigtable.RowRangeList, error) {{
		return func(rows bigtable.RowRangeList, err error) {{
			if err != nil {{
				panic(err)
			}}
			fmt.Println("Q " + name)
			err = tbl.ReadRows(ctx, rows, func(r bigtable.Row) bool {{
				k, err := keys.DecodeUserEvent([]byte(r.Key()))
				if err != nil {{
					panic(err)
				}}
				fmt.Printf("%s %d %d %s\n", hex.EncodeToString([]byte(r.Key())), k.UserId, k.TsMillis, hex.EncodeToString([]byte(k.Kind)))
				return true
			}})
			if err != nil {{
				panic(err)
			}}
		}}
	}}
{calls}}}
"#
        ),
    )
    .unwrap();
    let go = std::env::var("GO").unwrap_or_else(|_| "go".into());
    run(
        Command::new(&go)
            .args(["mod", "tidy"])
            .current_dir(dir.path()),
        "go mod tidy (the module proxy)",
    );
    let out = run(
        Command::new(&go)
            .args(["run", ".", PROJECT, INSTANCE, "events"])
            .env("BIGTABLE_EMULATOR_HOST", emulator.host())
            .current_dir(dir.path()),
        "the Go program on Google's Bigtable client",
    );
    let go_rows = answers(&out);

    let mut total = 0;
    for (name, _, scan) in &queries {
        let mut ours: Vec<String> =
            rowkey_bigtable::read_typed::<UserEvent>(&client, "events", scan)
                .await
                .unwrap()
                .into_iter()
                .map(|(e, _)| {
                    format!(
                        "{} {} {} {}",
                        hex(&e.encode_to_vec().unwrap()),
                        e.user_id,
                        e.ts_millis,
                        hex(e.kind.as_bytes())
                    )
                })
                .collect();
        ours.sort();
        assert!(!ours.is_empty(), "query {name} returns rows");
        assert_eq!(
            go_rows.get(*name),
            Some(&ours),
            "query {name}: Go's rows against rowkey's"
        );
        total += ours.len();
    }
    assert_eq!(go_rows.len(), queries.len(), "every query answered: {out}");
    assert!(
        total > rows.len(),
        "the queries cover the table ({total} rows)"
    );
}
