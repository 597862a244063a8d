//! `rowkey sql` as a new user meets it: a query over a redb table of the
//! README's key type, its formats, `\d`, statements on standard input, an
//! INSERT whose key does not fit, Parquet out.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

const SPEC: &str = "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]";

fn rowkey(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A redb file of 50 users' 10 events each, the value the event's kind
/// and number as JSON.
fn events(path: &Path) {
    let db = redb::Database::create(path).unwrap();
    let tx = db.begin_write().unwrap();
    {
        let def = redb::TableDefinition::<&[u8], &[u8]>::new("events");
        let mut t = tx.open_table(def).unwrap();
        for user_id in 0..50u64 {
            for i in 0..10i64 {
                let kind = ["click", "view"][(i % 2) as usize];
                let event = UserEvent {
                    user_id,
                    ts_millis: 1_700_000_000_000 + i,
                    kind: kind.into(),
                };
                let body = format!("{{\"n\":{i}}}");
                t.insert(event.encode_to_vec().unwrap().as_slice(), body.as_bytes())
                    .unwrap();
            }
        }
    }
    tx.commit().unwrap();
}

fn args<'a>(file: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "sql",
        "--layout",
        SPEC,
        "--table",
        "events",
        "--redb",
        file,
        "--value",
        "body=json",
    ];
    a.extend_from_slice(more);
    a
}

#[test]
fn a_query_answers_in_each_format() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.redb");
    events(&file);
    let file = file.to_str().unwrap();
    let sql = "SELECT user_id, ts_millis, kind, body FROM events WHERE user_id = 42 AND ts_millis >= 1700000000008 ORDER BY ts_millis";
    let out = rowkey(&args(file, &[sql]), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "\
+---------+---------------+-------+---------+
| user_id | ts_millis     | kind  | body    |
+---------+---------------+-------+---------+
| 42      | 1700000000008 | click | {\"n\":8} |
| 42      | 1700000000009 | view  | {\"n\":9} |
+---------+---------------+-------+---------+
"
    );
    let out = rowkey(&args(file, &["--format", "csv", sql]), None);
    assert_eq!(
        text(&out.stdout),
        "user_id,ts_millis,kind,body\n42,1700000000008,click,\"{\"\"n\"\":8}\"\n42,1700000000009,view,\"{\"\"n\"\":9}\"\n"
    );
    let out = rowkey(&args(file, &["--format", "json", sql]), None);
    assert_eq!(
        text(&out.stdout),
        "{\"body\":\"{\\\"n\\\":8}\",\"kind\":\"click\",\"ts_millis\":1700000000008,\"user_id\":42}\n\
         {\"body\":\"{\\\"n\\\":9}\",\"kind\":\"view\",\"ts_millis\":1700000000009,\"user_id\":42}\n"
    );

    // EXPLAIN: the scan rowkey plans.
    let out = rowkey(
        &args(file, &["EXPLAIN SELECT * FROM events WHERE user_id = 42"]),
        None,
    );
    let plan = text(&out.stdout);
    assert!(
        plan.contains("KeyScanExec: redb `DynLayout`, partitions=1, pushdown=skip scan"),
        "{plan}"
    );
}

/// The README's example: the lab keeps a design's rows
/// (`rowkey-lab --keep-rows`, here its library's `Lab::keep_rows`) and
/// prints the `rowkey sql` line that asks them, which answers with the
/// number of rows the design stored; a second question on the same table
/// finds the hottest user the workload made.
#[test]
fn the_line_the_lab_prints_answers_on_its_table() {
    use rowkey_lab::{builtin, kept, Lab, RedbStore, Workload};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lab.redb");
    let events = Workload::Ingest.generate(2_000, 100, 7);
    let design = builtin::design("ts_first").unwrap();
    let layout = design.layout();
    let keys: std::collections::BTreeSet<Vec<u8>> = events
        .iter()
        .map(|e| {
            let mut key = Vec::new();
            design.key_into(e, &mut key).unwrap();
            key
        })
        .collect();
    let hottest = builtin::hottest(&events, 1)[0].0;
    let db = std::sync::Arc::new(redb::Database::create(&path).unwrap());
    Lab::new(events)
        .design(design)
        .keep_rows(db.clone())
        .run(&mut RedbStore::create(dir.path()).unwrap())
        .unwrap();
    drop(db);

    let line = kept::sql_args(&path, "ts_first", layout);
    let line: Vec<&str> = line.iter().map(String::as_str).collect();
    let out = rowkey(&line, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(&format!("| {} ", keys.len())),
        "{} rows:\n{}",
        keys.len(),
        text(&out.stdout)
    );
    let mut ask = line[..line.len() - 1].to_vec();
    ask.extend(["--format", "csv"]);
    ask.push(
        "SELECT user_id, count(*) AS n, max(event) AS last FROM ts_first \
         GROUP BY user_id ORDER BY n DESC, user_id LIMIT 1",
    );
    let out = rowkey(&ask, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let answer = text(&out.stdout);
    assert!(
        answer.starts_with(&format!("user_id,n,last\n{hottest},")),
        "{answer}"
    );
}

#[test]
fn describe_shows_the_columns_and_the_layout() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.redb");
    events(&file);
    let out = rowkey(&args(file.to_str().unwrap(), &["\\d"]), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "\
redb table `events`
 column    | type            | from
 user_id   | UInt64          | key: user_id u64 8
 ts_millis | Int64           | key: ts_millis desc_ts i64 8
 kind      | Utf8            | key: kind fixed(8) String 8
 body      | Utf8 (nullable) | value: Json
key: DynLayout: [salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes
"
    );
}

#[test]
fn statements_on_standard_input_and_an_insert_that_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.redb");
    events(&file);
    let file = file.to_str().unwrap();
    let out = rowkey(
        &args(file, &["--format", "csv"]),
        Some(
            "INSERT INTO events VALUES (77, 5, 'buy', '{}');\n\
             SELECT user_id, kind FROM events WHERE user_id = 77;",
        ),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "count\n1\nuser_id,kind\n77,buy\n");
    // The derive reads the key the command wrote.
    let key = UserEvent {
        user_id: 77,
        ts_millis: 5,
        kind: "buy".into(),
    };
    let db = redb::Database::open(file).unwrap();
    let tx = redb::ReadableDatabase::begin_read(&db).unwrap();
    let t = tx
        .open_table(redb::TableDefinition::<&[u8], &[u8]>::new("events"))
        .unwrap();
    assert!(t
        .get(key.encode_to_vec().unwrap().as_slice())
        .unwrap()
        .is_some());
    drop((t, tx, db));

    let out = rowkey(
        &args(
            file,
            &["INSERT INTO events VALUES (78, 5, 'buy', NULL), (79, 5, 'much too long', NULL)"],
        ),
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("row 2, column `kind`") && err.contains("13 bytes"),
        "{err}"
    );
    let out = rowkey(
        &args(
            file,
            &[
                "--format",
                "csv",
                "SELECT count(*) AS n FROM events WHERE user_id IN (78, 79)",
            ],
        ),
        None,
    );
    assert_eq!(
        text(&out.stdout),
        "n\n0\n",
        "nothing of the failed statement"
    );
}

#[test]
fn parquet_out_and_copy_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.redb");
    events(&file);
    let file = file.to_str().unwrap();
    let out = rowkey(
        &args(
            file,
            &[
                "--format",
                "parquet",
                "SELECT * FROM events WHERE kind = 'view'",
            ],
        ),
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = dir.path().join("printed.parquet");
    std::fs::write(&printed, &out.stdout).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&printed).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 250);

    let copy = dir.path().join("copy.parquet");
    let sql = format!(
        "COPY (SELECT user_id, kind FROM events WHERE user_id < 3) TO '{}' STORED AS PARQUET",
        copy.display()
    );
    let out = rowkey(&args(file, &[sql.as_str()]), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&copy).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 30);
}

#[test]
fn bad_arguments_are_named() {
    let out = rowkey(&["sql", "--layout", SPEC, "--table", "t", "SELECT 1"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("needs --redb FILE"),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.redb");
    let out = rowkey(
        &[
            "sql",
            "--layout",
            SPEC,
            "--table",
            "t",
            "--redb",
            file.to_str().unwrap(),
            "--value",
            "v=d:q:utf8",
            "SELECT 1",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--value v=d:q:utf8: value column `v`: a cell column"),
        "{}",
        text(&out.stderr)
    );
    let out = rowkey(
        &[
            "sql",
            "--layout",
            SPEC,
            "--table",
            "t",
            "--redb",
            file.to_str().unwrap(),
            "--value",
            "v=text",
            "SELECT 1",
        ],
        None,
    );
    assert!(
        text(&out.stderr).contains("`text` is not a type"),
        "{}",
        text(&out.stderr)
    );
    // An error's whole chain: what failed (the endpoint), then its cause
    // (the URI's error, the error's source).
    let out = rowkey(
        &[
            "sql",
            "--layout",
            SPEC,
            "--table",
            "t",
            "--bigtable",
            "http://bad host,p,i",
            "SELECT 1",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bigtable endpoint \"http://bad host\": invalid uri character"),
        "{}",
        text(&out.stderr)
    );
}

/// The prompt, on a terminal (`script` gives the command one): `\d`, a
/// statement over two lines, an error that does not end the session, `\q`;
/// the history kept in `~/.rowkey_sql_history`.
#[test]
fn the_prompt_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.redb");
    events(&file);
    let command: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_rowkey"))
        .chain(args(file.to_str().unwrap(), &[]))
        .map(|a| format!("'{a}'"))
        .collect();
    let mut child = Command::new("script")
        .args(["-qec", &command.join(" "), "/dev/null"])
        .env("HOME", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1), from util-linux");
    let mut input = child.stdin.take().unwrap();
    for line in [
        "\\d\n",
        "SELECT user_id, kind FROM events\n",
        "WHERE user_id = 3 AND ts_millis = 1700000000004;\n",
        "SELECT nope FROM events;\n",
        "\\q\n",
    ] {
        input.write_all(line.as_bytes()).unwrap();
        input.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    let shown = text(&out.stdout);
    assert!(shown.contains("rowkey> "), "{shown}");
    assert!(
        shown.contains(" kind      | Utf8            | key: kind fixed(8) String 8"),
        "{shown}"
    );
    assert!(shown.contains("| 3       | click |"), "{shown}");
    assert!(
        shown.contains("error: ") && shown.contains("nope"),
        "{shown}"
    );
    let history = std::fs::read_to_string(dir.path().join(".rowkey_sql_history")).unwrap();
    assert!(history.contains("WHERE user_id = 3"), "{history}");
}
